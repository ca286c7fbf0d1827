"""Exports and proofs written as `pnp build` writes: staged, then swapped in whole.

`with staged(out):` around an export (`pnp export`, `pnp export --profile`, `pnp proof`,
`pnp preview`) takes the output folder's lock (pnp.outpaths.lock_output: one writer at a
time, builds included), and every file the export writes goes to a temporary name beside
its target, `NAME.<pid>-<token>.part` (`target(path)`), made by this process or by the
worker processes it forks (pnp.artefacts.workers), which inherit the stage. When the
export returns, each staged file is renamed onto its target (atomic, one by one: a
target holds its old content or its new, whole); when it raises, or is interrupted, the
staged files are removed and every target is as it was. A SIGKILL leaves only
`.part` files, never a truncated file under a final name; the next stage on that folder
removes the `.part` files of processes that no longer run (a killed export's or build's).

Writers call `target(path)` for where to write `path`, `current(path)` to read back a
file written earlier in the same export (a copy of a card, a proof's contact sheet),
`part(path)` and `place(part, path)` for a file finished under a name of their own (a
PDF a library writes, then converts), and `remove(path)` for
a stale file to delete when the export commits. Outside a stage (a library call) they
write in place, as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pnp.outpaths import LOCK_NAME, PART_NAME, lock_output, part_of, part_token


class _Stage:
    def __init__(self, outs: list[Path]) -> None:
        self.token = part_token()
        self.outs = outs
        self.removals: list[Path] = []


_stage: _Stage | None = None  # the stage of this process (a forked worker inherits it)


def target(path: Path) -> Path:
    """Where to write `path` now: its staged name inside a stage, else `path`."""
    if _stage is None:
        return path
    return part_of(path, _stage.token)


def current(path: Path) -> Path:
    """Where to read `path`: what this export staged for it, else the file in place."""
    staged = target(path)
    return staged if staged != path and staged.exists() else path


def part(path: Path) -> Path:
    """A name to write `path` under and then `place`: its staged name in a stage, else a
    unique temporary name beside it (pnp.outpaths.part_of)."""
    if _stage is not None:
        return target(path)
    return part_of(path)


def place(written: Path, path: Path) -> None:
    """A finished file `written` (from `part`) becomes `path`: staged in a stage, at once
    outside."""
    if written != target(path):
        os.replace(written, target(path))


def remove(path: Path) -> None:
    """Delete `path` when the export commits (at once outside a stage)."""
    if _stage is None:
        path.unlink(missing_ok=True)
    else:
        _stage.removals.append(path)


@contextmanager
def staged(out: Path, notify: Any = None) -> Iterator[None]:
    """Stage what is written under `out` (see the module's docstring); a stage inside a
    stage joins it (its files commit with the outer stage's)."""
    global _stage
    out = Path(out)
    if _stage is not None:
        _stage.outs.append(out)
        yield
        return
    made = _missing_folders(out)
    release = lock_output(out, notify=notify)
    _stage = stage = _Stage([out])
    try:
        _sweep(out, stale=True)
        yield
        _stage = None
        for path in stage.removals:     # before the renames: a new file may take the name
            path.unlink(missing_ok=True)
        for folder in stage.outs:
            _sweep(folder, token=stage.token, commit=True)
    except BaseException:
        _stage = None
        for folder in stage.outs:
            _sweep(folder, token=stage.token)
        release()
        _unmake(made, out)
        raise
    finally:
        _stage = None
        release()


def _missing_folders(out: Path) -> list[Path]:
    """`out` and its parents that do not exist yet, deepest first."""
    made = []
    for folder in (out, *out.parents):
        if folder.exists() or folder.is_symlink():
            break
        made.append(folder)
    return made


def _unmake(made: list[Path], out: Path) -> None:
    """A refused export that made the output folder leaves none: the folders it made are
    removed when they hold nothing but the lock and empty folders."""
    if not made:
        return
    for where, dirs, names in os.walk(out, topdown=False):
        if names == [LOCK_NAME] and where == str(out):
            _unlink(os.path.join(where, LOCK_NAME))
        for name in dirs:
            try:
                os.rmdir(os.path.join(where, name))
            except OSError:
                pass
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            return


def _sweep(out: Path, token: str | None = None, commit: bool = False,
           stale: bool = False) -> None:
    """The `.part` files under `out`: this stage's (`token`) renamed onto their targets
    (`commit`) or removed; with `stale`, those of processes no longer running removed."""
    if not out.is_dir():
        return
    suffix = f".{token}.part" if token else None
    for folder, _dirs, files in os.walk(out):
        for name in files:
            if not name.endswith(".part"):  # most files (a proof of 8,000 cards): no join
                continue
            path = os.path.join(folder, name)
            if suffix is not None and name.endswith(suffix):
                if commit:
                    os.replace(path, path[:-len(suffix)])
                else:
                    _unlink(path)
            elif stale and (found := PART_NAME.search(name)) and not _running(int(found[1])):
                _unlink(path)


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:             # another user's process: it runs
        return True
    return True


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
