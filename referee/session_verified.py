"""What was verified of a session file, so that each row is checked once, not on every command.

A session is checked whole (SQLite's `PRAGMA quick_check`, every row's CRC, the undo/redo
history and the current row, state_schema; an earlier ordinary row's content when it is
read, session._verify_bulk) the first time a command opens it, and again
whenever anything other than a referee command has changed the file since. After a command
the referee records a *mark*: the file's identity once the command has let go of it (device,
inode, size, mtime and ctime of the file and of its `-wal`), the last event it verified
(seq and CRC) and the undo/redo history up to there. The next command that finds the
file with the same identity trusts the rows up to the mark and checks only the rest:
the current state row (its CRC and its state, always), the rows after the mark (written
by a referee that was not the last to record one: each checked as on a whole check), and
whatever earlier row it reads (an undo target, a `log` page: its CRC, and a state through
`load_state`).

Why the identity lives outside the file: a file cannot hold its own identity after a
write (writing it changes it), and a bare "highest seq verified" inside the file would
let a byte changed in an old row go unseen until that row is read. ctime cannot be set
by a program (a `touch -d` or a copy sets it to now), so an edit by hand, another program,
a copy over the file or `git checkout` changes the identity and the whole file is
checked again, exactly as before marks existed. What a mark does not see: a change made in
the instant between a referee command letting go of the file and its `stat()` (taken for
the command's own), and on a file system with coarse times (FAT on a memory stick) an
edit within the same tick that keeps the file's size; such a row is still caught when a
command reads it.

Marks are a cache: one small JSON file per session path in the project's cache folder
($PNP_CACHE_DIR, else $XDG_CACHE_HOME/pnp-referee, else ~/.cache/pnp-referee; under
`sessions/`; PNP_CACHE_DIR=off disables them). A missing, unreadable or unwritable one
means a whole check, never a refusal. A mark is only used by the same checks it was made
with (the sizes and times of the modules that check)."""

from __future__ import annotations

import json
import os

from referee.seq_runs import Seqs

FORMAT = 1
_CHECKERS = ("session.py", "state_schema.py", "state_delta.py", "session_verified.py")


def folder() -> str | None:
    chosen = os.environ.get("PNP_CACHE_DIR")  # as carddb.cache (no carddb import here)
    if chosen == "off":
        return None
    if chosen:
        return os.path.join(chosen, "sessions")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pnp-referee", "sessions")


_STAMPS: list[str] = []  # _checks, once per process


def _checks() -> str:
    """The sizes and times of the checking modules, taken once per process: the checks a
    process makes are those of the code it imported (a long `referee play` keeps them when
    the files change on disk), and each command read and wrote a mark, eight stats."""
    if not _STAMPS:
        _STAMPS.append(_stamps())
    return _STAMPS[0]


def _stamps() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    stamps = []
    for name in _CHECKERS:
        try:
            status = os.stat(os.path.join(here, name))
        except OSError:
            return ""
        stamps.append(f"{status.st_size}:{status.st_mtime_ns}")
    return ";".join(stamps)


def identity(path: str | os.PathLike, real: str | None = None) -> list | None:
    """The file's and its `-wal`'s identity now (a `-wal` without frames counts as none).
    `real`: the real path of `path` (every link followed) when the caller knows it."""
    try:
        main = os.stat(path)
    except OSError:
        return None
    try:
        wal = os.stat(f"{real or os.path.realpath(path)}-wal")  # SQLite's, beside a link's target
        wal_id = [wal.st_ino, wal.st_size, wal.st_mtime_ns, wal.st_ctime_ns] if wal.st_size else None
    except OSError:
        wal_id = None
    return [main.st_dev, main.st_ino, main.st_size, main.st_mtime_ns, main.st_ctime_ns, wal_id]


def _where(path: str | os.PathLike, real: str | None = None) -> tuple[str, str] | None:
    """(the session's real path, the mark's file). The name is a 64-bit checksum of the
    path (hashlib costs more to import than a command may spend); the mark names its
    session, and another session's mark is never used."""
    base = folder()
    if base is None:
        return None
    import zlib

    real = real or os.path.realpath(path)
    raw = real.encode("utf-8", "surrogateescape")
    return real, os.path.join(base, f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.json")


class Mark:
    """A verified prefix of a session's log: rows 1..seq, the last with CRC `crc`, and the
    undo/redo history there (`session._undo_stacks`), kept as run-length lists. `done`
    stays runs in memory too (Seqs): a mark is read and written on every command, at the
    same cost whatever the length of the log."""

    __slots__ = ("seq", "crc", "base", "done", "undone", "reverted")

    def __init__(self, seq: int, crc: int, base: int, done: Seqs, undone: list[int],
                 reverted: set[int]) -> None:
        self.seq, self.crc, self.base = seq, crc, base
        self.done, self.undone, self.reverted = done, undone, reverted


def _runs(values: list[int]) -> list[list[int]]:
    """[3, 4, 5, 9] -> [[3, 3], [9, 1]]: (first, count) of each run of consecutive seqs."""
    runs: list[list[int]] = []
    for value in values:
        if runs and runs[-1][0] + runs[-1][1] == value:
            runs[-1][1] += 1
        else:
            runs.append([value, 1])
    return runs


def _unruns(runs: object) -> list[int]:
    if not isinstance(runs, list):
        raise ValueError("runs")
    values: list[int] = []
    for first, count in runs:
        if type(first) is not int or type(count) is not int or count < 1 or first < 1:
            raise ValueError("run")
        values.extend(range(first, first + count))
    return values


def load(path: str | os.PathLike, seen: list | None, version: int,
         real: str | None = None) -> Mark | None:
    """The mark recorded for `path` (real path `real`, when known) if the file is as it
    was then (identity `seen`, format `version`, the same checks), else None."""
    found = _where(path, real)
    if found is None or seen is None:
        return None
    real, where = found
    try:
        with open(where, encoding="utf-8") as file:
            data = json.load(file)
        if (data.get("format") != FORMAT or data.get("path") != real
                or data.get("checks") != _checks()
                or data.get("file") != seen or data.get("version") != version):
            return None
        seq, crc, base = data["seq"], data["crc"], data["base"]
        if not all(type(v) is int for v in (seq, crc, base)) or not 1 <= base <= seq:
            return None
        return Mark(seq, crc, base, Seqs.from_runs(data["done"]), _unruns(data["undone"]),
                    set(_unruns(data["reverted"])))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # no mark, or a damaged one: the session is checked whole


def save(path: str | os.PathLike, version: int, mark: Mark, real: str | None = None) -> None:
    """Record `mark` with the file's identity now (after the command let go of it)."""
    found = _where(path, real)
    seen = identity(path, real)
    if found is None or seen is None:
        return
    real, where = found
    data = {"format": FORMAT, "path": real, "checks": _checks(), "file": seen, "version": version,
            "seq": mark.seq, "crc": mark.crc, "base": mark.base, "done": mark.done.runs(),
            "undone": _runs(mark.undone), "reverted": _runs(sorted(mark.reverted))}
    write_cache_file(where, data)


def part_name(where: str) -> str:
    """A temporary name beside `where`, in the one scheme of carddb.files.part_of
    (`<name>.<pid>-<8 hex>.part`, carddb.files.PART_NAME), spelled here because importing
    carddb (for `part_of`) cost a command that reads no cards (`xs mt`, `undo`, `log`) a
    third of its CPU as a process: the card package, pathlib, dataclasses and `secrets`."""
    return f"{where}.{os.getpid()}-{os.urandom(4).hex()}.part"


def write_cache_file(where: str, data: dict) -> None:
    """Write `data` as JSON to the cache file `where` (a mark, the kept game's memory:
    referee/kept.py), atomically: a temporary name, then os.replace. A cache: no fsync (a
    lost file means a whole check or a comparison made again), an unwritable folder is
    no error."""
    temp = part_name(where)
    try:
        os.makedirs(os.path.dirname(where), exist_ok=True)
        with open(temp, "w", encoding="utf-8") as file:
            json.dump(data, file, separators=(",", ":"))
        os.replace(temp, where)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass
