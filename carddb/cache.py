"""The on-disk cache of validated databases: loading the bundled games means parsing and
checking ~800 lines of YAML, about as long as drawing a small deck, for an answer that
only changes when a file does.

An entry is keyed by the bytes of cards.yaml, where it is (paths inside it resolve from
its folder), the name messages call it, and the version of carddb's code (a hash of its
sources). It holds the pickled `Database` and what else validation depended on: the
digest of each spreadsheet read and each file checked to exist (images, fonts). An entry
whose spreadsheet changed or whose file vanished is not used. Only valid databases are
cached; problems are always found afresh.

Folder: $PNP_CACHE_DIR, else $XDG_CACHE_HOME/pnp-referee, else ~/.cache/pnp-referee;
PNP_CACHE_DIR=off disables it. An unwritable folder just means no cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent
FORMAT = b"carddb-cache-1"
# Validation facts of each loaded database (by id): ([(sheet, digest)], [checked paths]).
_facts: dict[int, tuple[list, list]] = {}
_code: str | None = None


def folder() -> Path | None:
    chosen = os.environ.get("PNP_CACHE_DIR")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pnp-referee"


def code_version() -> str:
    """A hash of carddb's own sources: a change to validation makes old entries unused."""
    global _code
    if _code is None:
        h = hashlib.sha256(FORMAT)
        for path in sorted(PACKAGE.rglob("*.py")):
            h.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
            h.update(path.read_bytes())
        _code = h.hexdigest()
    return _code


def _key(raw: bytes, path: Path, name: str) -> str:
    h = hashlib.sha256(code_version().encode())
    for part in (str(path).encode(), name.encode(), raw):
        h.update(len(part).to_bytes(8, "little") + part)
    return h.hexdigest()


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def stale(db: Any) -> bool:
    """Whether a database loaded earlier depends on a file that has changed since."""
    facts = _facts.get(id(db))
    if facts is None:
        return False
    sheets, checked = facts
    return any(_digest(p) != d for p, d in sheets) or not all(Path(p).is_file() for p in checked)


def load(raw: bytes, path: Path, name: str) -> Any | None:
    where = folder()
    if where is None:
        return None
    try:
        data = (where / (_key(raw, path, name) + ".pickle")).read_bytes()
        db, sheets, checked = pickle.loads(data)
    except Exception:  # missing, unreadable or from another version: validate afresh
        return None
    _facts[id(db)] = (sheets, checked)
    if stale(db):
        return None
    return db


def remember(db: Any, report: Any) -> tuple[list, list]:
    sheets = list(dict.fromkeys((str(p), d) for p, d in report.files_read))
    checked = [str(p) for p in dict.fromkeys(report.paths_checked)]
    _facts[id(db)] = (sheets, checked)
    return sheets, checked


def save(raw: bytes, path: Path, name: str, db: Any, report: Any) -> None:
    sheets, checked = remember(db, report)
    where = folder()
    if where is None:
        return
    target = where / (_key(raw, path, name) + ".pickle")
    part = target.with_name(f"{target.name}.{os.getpid()}.part")
    try:
        where.mkdir(parents=True, exist_ok=True)
        part.write_bytes(pickle.dumps((db, sheets, checked), protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(part, target)
    except OSError:
        try:
            part.unlink()
        except OSError:
            pass
