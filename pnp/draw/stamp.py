"""The version stamp templates draw as `{{ version }}` and `{{ build_date }}`:
`release: {version, date}` in cards.yaml, else git (`git describe --tags --always` and
the date of the last commit) when the project is in a repository, else empty. Never the
clock, so two builds of the same input are byte-identical.

git's facts are read only when a template of the project draws the stamp and cards.yaml
gives no `release`, and then from `.git` itself, in pure Python (pnp.draw.gitread): git
is never started, so a repository's own settings cannot run a program while a
stranger's project is built (docs/ARCHITECTURE.md, "Trust model")."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

STAMP_KEYS = ("version", "build_date")


@functools.lru_cache(maxsize=8)
def _git_stamp(root: str, state: tuple) -> tuple[str, str]:
    from pnp.draw.gitread import describe

    return describe(Path(root))


def git_stamp(root: Path) -> dict[str, str]:
    """{"version", "build_date"} from the git repository holding `root` ("" outside one,
    or where it cannot be read). Described once per folder and repository state (HEAD
    and tags), so a process that builds again after a commit sees the new one."""
    from pnp.draw.gitread import state  # only when a stamp is drawn: not at import

    folder = Path(root).resolve()
    version, date = _git_stamp(str(folder), state(folder))
    return {"version": version, "build_date": date}


def stamp(db: Any, drawn: bool | None = None) -> dict[str, str]:
    """What templates see as `version` and `build_date`: cards.yaml's `release`, each
    value missing there taken from git. `drawn`: whether a template of the database
    draws the stamp, when the caller already knows (else its templates are read)."""
    release = dict(getattr(db, "release", None) or {})
    values = {"version": str(release.get("version", "") or ""),
              "build_date": str(release.get("date", "") or "")}
    if not all(values.values()) and (_drawn(db) if drawn is None else drawn):
        from_git = git_stamp(Path(db.root))
        values = {k: values[k] or from_git[k] for k in STAMP_KEYS}
    return values


def _drawn(db: Any) -> bool:
    """Whether a template of the database's games mentions the stamp."""
    from pnp.draw.template_folders import template_files

    try:
        return any(uses_stamp(template_files(db, gid)) for gid in db.games)
    except (AttributeError, OSError, TypeError):
        return True                     # a database made in memory: as before


def uses_stamp(template_paths: list[Path]) -> bool:
    """Whether any of these template files mentions `version` or `build_date` (then the
    stamp is an input of what they draw). A build asks this of every template file of
    every game up to three times (the renderer's stamp, the input hash, the build record):
    each path is taken as text, not made a Path twice more each time."""
    import os

    return any(_mentions_stamp(path) for path in map(os.fspath, template_paths)
               if os.path.splitext(path)[1].lower() not in (".md", ".txt"))  # notes beside them


# What each template said, by path, with its stat then: a resident process (`pnp watch`)
# reads a template again only once it changed (one changed in the last second always:
# a second write within the clock's tick would leave the same stat).
_mentioned: dict[str, tuple[tuple, bool]] = {}


def _mentions_stamp(path: str) -> bool:
    import os
    import time

    try:
        st = os.stat(path)
        key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        known = _mentioned.get(path)
        if known is not None and known[0] == key:
            return known[1]
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    found = b"version" in data or b"build_date" in data
    if time.time_ns() - st.st_mtime_ns > 1_000_000_000:
        _mentioned[path] = (key, found)
    return found
