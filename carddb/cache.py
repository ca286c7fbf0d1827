"""The on-disk cache of validated databases: loading the bundled games means parsing and
checking ~800 lines of YAML, about as long as drawing a small deck, for an answer that
only changes when a file does.

An entry is keyed by the bytes of cards.yaml, where it is (paths inside it resolve from
its folder), the name messages call it, and the version of carddb's code (a hash of its
sources). It holds the pickled `Database` and what else validation depended on: the
digest of each spreadsheet read and each file checked to exist (images, fonts). An entry
whose spreadsheet changed or whose file vanished is not used. Only valid databases are
cached; problems are always found afresh. The entry's facts are pickled apart from its
database, so a stale entry is told without unpickling thousands of cards.

A second kind of entry, `rows`, holds the validated rows of one spreadsheet (issue 24):
one file per sheet (its resolved path and sheet name) and context (the game's card type
declarations as written and as parsed, its rules plug-in, the sheet's header and the
deck's fixed type: all a row's validation reads besides its own cells), mapping each
row's raw cells to what validation made of them (the card's converted values in order,
the fields exempt from "missing", the YAML values its cells spent, the image paths it
checked). A load after a one-row edit then converts and validates one row; the others'
positions (row number: inserting a row moves them) are applied on reuse, their paths
checked again, and checks across cards (duplicate names, deck totals, the rules
plug-in's) run over all cards as always. Only rows that validated without a problem
are kept: a row with a problem is validated afresh each time.

A database entry also keeps, pickled apart, what a load after a spreadsheet edit needs
to take the edit without validating anew (carddb.edits): each sheet deck's rows as read,
each game's card types and own icons. The entry of a cards.yaml is the last valid load
of its bytes, so a load whose spreadsheet changed validates the changed rows and puts
them in that database (or, when only a full validation can tell, validates it whole).

A third kind, `.yaml.pickle`, holds a cards.yaml as parsed (keyed by its bytes and the
code), for a load whose database entry is unused because a spreadsheet changed.

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
FORMAT = b"carddb-cache-2"
_ROWS = FORMAT + b" rows\n"
_PARSED = FORMAT + b" yaml\n"
# Validation facts of each loaded database (by id): ([(sheet, digest)], [checked paths]).
_facts: dict[int, tuple[list, list]] = {}
# What a load after a spreadsheet edit needs of each loaded database (by id; pickled, or
# None when it has none): carddb.edits.
_edits: dict[int, bytes | None] = {}
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
        _code = sources_digest(FORMAT, PACKAGE, package_sources(PACKAGE))
    return _code


# Each package folder's .py files, walked once a process (`package_sources`).
_walked: dict[str, tuple[str, ...]] = {}


def package_sources(package: Path | str, parts: tuple[str, ...] = ()) -> list[str]:
    """The .py files under the folder `package`, as '/'-separated names relative to it,
    in the order sorted Paths take (by their parts); with `parts`, only those under each
    of these sub-folders or named files, part by part. A build keys its caches on four
    digests of its own code (carddb's here, the drawing code's in pnp.draw.plan_cache,
    the sheets' in pnp.artefacts.kept_sheets, the build stages' in
    pnp.artefacts.incremental): they take their files from one walk of each package,
    as text, where each made and sorted Paths from a walk of its own (issue 36 item 1).
    Walked once a process, as each digest was: the code a process runs is the code it
    imported."""
    root = os.fspath(package)
    names = _walked.get(root)
    if names is None:
        names = _walked[root] = _walk_sources(root)
    if not parts:
        return list(names)
    out: list[str] = []
    for part in parts:
        inside = part.rstrip("/") + "/"
        out += [n for n in names if n.startswith(inside)] if os.path.isdir(
            os.path.join(root, part)) else [part]
    return out


def _walk_sources(root: str) -> tuple[str, ...]:
    """`package_sources`' walk: every file named *.py (symlinked folders not entered,
    as Path.rglob does not; nor __pycache__, which holds the bytecode of the sources,
    hundreds of files where a checkout was compiled for several Pythons)."""
    found = []
    start = len(root) + 1
    for folder, dirs, files in os.walk(root):
        if "__pycache__" in dirs:
            dirs.remove("__pycache__")
        rel = folder[start:]
        found += [f"{rel}/{name}" if rel else name for name in files if name.endswith(".py")]
    return tuple(sorted(found, key=lambda name: name.split("/")))


# The SHA-256 of each source file by path, with the stat it was read at (inode, size,
# mtime, ctime), kept in the folder between runs (issue 36 item 2): every build keys
# its caches on the code it runs (carddb's, the drawing code's, the sheets' and the
# build's own), which read and hashed some 250 files a run, about a twentieth of an
# 80-card edit build. A file is read again once its stat changed; one changed in the
# last second is not kept (as git's "racy" files: a second write within the clock's
# tick would leave the same stat).
_SOURCES = FORMAT + b" sources\n"
_sources: dict[str, tuple[tuple, str]] | None = None
_SETTLED_NS = 1_000_000_000


def file_digests(paths: list[Path] | list[str]) -> list[str]:
    """The SHA-256 (hex) of each file's bytes (OSError for a file that cannot be read).
    Digests taken anew are written to the folder at once, not at exit: a library call
    leaves no hook behind in its caller's process (issue 36 item 6)."""
    global _sources
    if _sources is None:
        _sources = _read_sources()
    import time

    now, out, new = time.time_ns(), [], False
    for path in paths:
        st = os.stat(path)
        key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        known = _sources.get(str(path))
        if known is not None and known[0] == key:
            out.append(known[1])
            continue
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        if now - st.st_mtime_ns > _SETTLED_NS:
            _sources[str(path)], new = (key, digest), True
        out.append(digest)
    if new:
        _save_sources()
    return out


def sources_digest(salt: bytes, root: Path | str, names: list[str]) -> str:
    """One digest of `salt` and, in order, each file's name ('/'-separated, relative to
    `root`: `package_sources`) and the digest of its bytes (`file_digests`)."""
    h = hashlib.sha256(salt)
    base = os.fspath(root)
    paths = [os.path.join(base, name) for name in names]
    for name, digest in zip(names, file_digests(paths), strict=True):
        h.update(name.encode() + b"\0" + digest.encode())
    return h.hexdigest()


def _read_sources() -> dict[str, tuple[tuple, str]]:
    where = folder()
    found = _unsealed(_SOURCES, where / "sources.pickle") if where is not None else None
    return found if isinstance(found, dict) else {}


def _save_sources() -> None:
    """Write the digests (when a file was hashed anew)."""
    where = folder()
    if where is not None and _sources is not None:
        _write(where, "sources.pickle", _sealed(_SOURCES, _sources))


def _key(raw: bytes, path: Path, name: str) -> str:
    h = hashlib.sha256(code_version().encode())
    for part in (str(path).encode(), name.encode(), raw):
        h.update(len(part).to_bytes(8, "little") + part)
    return h.hexdigest()


def digest_of(path: Path | str) -> str | None:
    """The SHA-256 (hex) of a file's bytes as they are now (a spreadsheet read), None
    when it cannot be read."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def stale(db: Any) -> bool:
    """Whether a database loaded earlier depends on a file that has changed since."""
    facts = _facts.get(id(db))
    return facts is not None and changed(facts)


def changed(facts: tuple[list, list]) -> bool:
    """Whether a spreadsheet read has other bytes now, or a file checked is gone."""
    sheets, checked = facts
    return any(digest_of(p) != d for p, d in sheets) or not all(Path(p).is_file() for p in checked)


def facts_of(db: Any) -> tuple[list, list] | None:
    """What a database loaded in this process was validated against (None: not known)."""
    return _facts.get(id(db))


def stored_facts(raw: bytes, path: Path, name: str) -> tuple[list, list] | None:
    """What the on-disk entry for these bytes was validated against, its database left
    pickled (None: no entry, or an unreadable one)."""
    found = entry(raw, path, name)
    return (found[0], found[1]) if found is not None else None


def entry(raw: bytes, path: Path, name: str) -> tuple[list, list, bytes, bytes | None] | None:
    """The on-disk entry for these bytes: (spreadsheets read, paths checked, the pickled
    database, what a load after an edit needs or None), the database of the last valid
    load of these bytes, whether or not a spreadsheet changed since; None: no entry, or
    an unreadable one."""
    where = folder()
    if where is None:
        return None
    try:
        data = (where / (_key(raw, path, name) + ".pickle")).read_bytes()
        sheets, checked, pickled, edits = pickle.loads(data)
    except Exception:  # missing, unreadable or from another version
        return None
    return sheets, checked, pickled, edits


def fingerprint(raw: bytes, path: Path, name: str, facts: tuple[list, list]) -> str:
    """The entry's key (bytes, place, name, code) with what it was validated against."""
    h = hashlib.sha256(_key(raw, path, name).encode())
    sheets, checked = facts
    for part in [*(f"{p}\0{d}" for p, d in sheets), *checked]:
        h.update(len(part).to_bytes(8, "little") + part.encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def load(raw: bytes, path: Path, name: str) -> Any | None:
    found = entry(raw, path, name)
    return database(found) if found is not None else None


def database(found: tuple[list, list, bytes, bytes | None]) -> Any | None:
    """The database of an entry (`entry`), or None when a file it was validated against
    changed (or it does not unpickle)."""
    sheets, checked, pickled, edits = found
    if changed((sheets, checked)):
        return None
    try:
        db = pickle.loads(pickled)
    except Exception:  # from another version: validate afresh
        return None
    _held(db, (sheets, checked), edits)
    return db


def _held(db: Any, facts: tuple[list, list], edits: bytes | None) -> None:
    """Remember what `db` was validated against while it lives: a resident process (pnp
    watch) loads a database after every edit, and each one's rows weigh ~1 MB at 8,000."""
    import weakref

    key = id(db)
    if key not in _facts:
        weakref.finalize(db, _forget, key)
    _facts[key], _edits[key] = facts, edits


def _forget(key: int) -> None:
    _facts.pop(key, None)
    _edits.pop(key, None)


def remember(db: Any, report: Any) -> tuple[list, list]:
    sheets = list(dict.fromkeys((str(p), d) for p, d in report.files_read))
    checked = [str(p) for p in dict.fromkeys(report.paths_checked)]
    _held(db, (sheets, checked), _edits.get(id(db)))
    return sheets, checked


def edits_of(db: Any) -> bytes | None:
    """What a load after an edit needs of a database loaded in this process (pickled)."""
    return _edits.get(id(db))


def save(raw: bytes, path: Path, name: str, db: Any, report: Any) -> None:
    sheets, checked = remember(db, report)
    try:        # a rules plug-in's field types need not pickle: then no edit is taken
        edits: bytes | None = pickle.dumps((report.sheet_rows, report.types, report.own_icons),
                                           protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        edits = None
    keep(raw, path, name, db, (sheets, checked), edits)


def keep(raw: bytes, path: Path, name: str, db: Any, facts: tuple[list, list],
         edits: bytes | None) -> None:
    """Remember a valid database: in this process, and in the folder's entry for `raw`."""
    _held(db, facts, edits)
    where = folder()
    if where is None:
        return
    pickled = pickle.dumps(db, protocol=pickle.HIGHEST_PROTOCOL)
    _write(where, _key(raw, path, name) + ".pickle",
           pickle.dumps((*facts, pickled, edits), protocol=pickle.HIGHEST_PROTOCOL))


def _write(where: Path, name: str, data: bytes) -> None:
    """Written whole or not at all (a reader never sees half a file); errors ignored."""
    from carddb.files import part_of

    target = where / name
    part = part_of(target)
    try:
        where.mkdir(parents=True, exist_ok=True)
        part.write_bytes(data)
        os.replace(part, target)
    except OSError:
        try:
            part.unlink()
        except OSError:
            pass


class Rows:
    """The remembered rows of one sheet in one context, and this load's use of them:
    `reused` card index -> the paths its validation checked (to check again), `pending`
    card index -> (row key, what reading the row made of it) until the card validates.

    On disk: the rows of a load (`.rows.pickle`), and beside it the few rows new since
    (`.rows-new.pickle`), so an edit writes one row, not 8,000; the two are merged once
    the new or unused rows pass an eighth. Any mix of the two files is right: every
    entry is a fact about its row's cells in this context."""

    def __init__(self, where: Path, name: str, base: dict, added: dict):
        self.where, self.name, self.base, self.added = where, name, base, added
        self.kept: dict = {}
        self.reused: dict[int, tuple] = {}
        self.pending: dict[int, tuple] = {}
        self.shapes: dict[tuple, tuple] = {}
        self.new = False

    def get(self, row_key, index: int):
        """(shape, values) remembered for a row's cells, or None. The shape, (field names,
        whether the type is a cell's, fields exempt from "missing", YAML values spent,
        the type the cells were read as, image paths checked), is shared by most rows."""
        entry = self.base.get(row_key) or self.added.get(row_key)
        if entry is not None:
            self.kept[row_key] = entry
            self.reused[index] = entry[0][5]
        return entry

    def validated(self, index: int, paths: tuple) -> None:
        """Card `index`, read afresh, validated without a problem: remember its row."""
        waiting = self.pending.pop(index, None)
        if waiting is not None:
            row_key, names, values, rest = waiting
            shape = (names, *rest, paths)
            self.kept[row_key] = (self.shapes.setdefault(shape, shape), values)
            self.new = True

    def save(self) -> None:
        """Keeps the rows of this load only (an edited row's old cells are dropped)."""
        base = self.base
        added = {k: v for k, v in self.kept.items() if k not in base}
        unused = len(base) - (len(self.kept) - len(added))
        if not self.new and not unused and len(added) == len(self.added):
            return
        if len(added) + unused <= max(64, len(self.kept) // 8):
            _write(self.where, self.name + "-new.pickle", _rows_file(added))
            return
        _write(self.where, self.name + ".pickle", _rows_file(self.kept))
        try:
            (self.where / (self.name + "-new.pickle")).unlink()
        except OSError:
            pass


def _sealed(head: bytes, value: Any) -> bytes:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return head + hashlib.sha256(payload).digest() + payload


def _unsealed(head: bytes, path: Path) -> Any:
    """What a file written by `_sealed(head, ...)` holds; None for a missing, damaged or
    foreign file."""
    try:
        data = path.read_bytes()
        n = len(head)
        digest, payload = data[n:n + 32], data[n + 32:]
        # The digest: a damaged file that still unpickles must not give a wrong card.
        if data[:n] == head and hashlib.sha256(payload).digest() == digest:
            return pickle.loads(payload)
    except Exception:
        pass
    return None


def _rows_file(rows: dict) -> bytes:
    return _sealed(_ROWS, rows)


def _read_rows(path: Path) -> dict:
    """The rows a file holds; a missing, damaged or foreign file holds none."""
    rows = _unsealed(_ROWS, path)
    return rows if isinstance(rows, dict) else {}


# cards.yaml as parsed (issue 36 item 2): an edit to a deck's spreadsheet leaves the
# database's entry unused, but not the YAML it was read from; kept parsed, the load
# after such an edit neither parses cards.yaml again nor imports PyYAML to do it.
def _parsed_name(raw: bytes) -> str:
    h = hashlib.sha256(code_version().encode() + b"\0yaml\0")
    h.update(raw)
    return h.hexdigest() + ".yaml.pickle"


def parsed(raw: bytes) -> tuple[Any, list] | None:
    """(data, duplicate keys) of a cards.yaml with these bytes as `carddb.yamlsource.
    load_yaml` returned them when it was parsed before (a fresh copy: validation changes
    it in place); None when it was not, or there is no cache."""
    where = folder()
    found = _unsealed(_PARSED, where / _parsed_name(raw)) if where is not None else None
    if isinstance(found, tuple) and len(found) == 2:
        return found
    return None


def keep_parsed(raw: bytes, data: Any, duplicates: list) -> None:
    """Remember what parsing `raw` gave, before validation changes it."""
    where = folder()
    if where is not None:
        _write(where, _parsed_name(raw), _sealed(_PARSED, (data, duplicates)))


def rows(sheet: Path, sheet_name: str | None, context: Any) -> Rows | None:
    """The validated rows remembered for `sheet` in `context`, or None when there is no
    cache."""
    where = folder()
    if where is None:
        return None
    h = hashlib.sha256(code_version().encode() + b"\0rows")
    for part in (str(sheet), repr(sheet_name), repr(context)):
        h.update(len(part).to_bytes(8, "little") + part.encode("utf-8", "surrogatepass"))
    name = h.hexdigest() + ".rows"
    return Rows(where, name, _read_rows(where / (name + ".pickle")),
                _read_rows(where / (name + "-new.pickle")))
