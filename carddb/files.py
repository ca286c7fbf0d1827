"""Reading a file a stranger's project names, bounded: a leaf of carddb (cards.yaml and
its spreadsheets are read through it; pnp reads templates with it)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path, PurePosixPath
from typing import Any

# a temporary name (part_of): group 1 is the pid of the process that wrote it
PART_NAME = re.compile(r"\.(\d+)-[0-9a-f]{8}\.part\Z")


def part_token() -> str:
    """A fresh `<pid>-<8 hex>`: the mark of a temporary name (PART_NAME reads its pid).
    os.urandom is what `secrets.token_hex` reads, without importing `secrets` and
    `hmac` into every build that writes a file."""
    return f"{os.getpid()}-{os.urandom(4).hex()}"


def identity(path: str | os.PathLike[str]) -> tuple[int, int, int] | None:
    """A file as it is now (inode, modification time in ns, size), None when there is
    none: a file replaced or rewritten since it was read has another. What a process
    keeps of a file it wrote or read (a build record, kept sheets) is trusted while this
    is unchanged."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def part_of(path: str | os.PathLike[str], token: str | None = None) -> Path:
    """A temporary name beside `path` for writing it atomically (then os.replace), unique
    to this process and call (or to `token`, a stage's, pnp.exports.staging): two writers
    of one file, in two processes or two threads of one, never share (or delete) each
    other's. The one scheme of temporary names of carddb, pnp and the referee."""
    path = Path(path)
    return path.with_name(f"{path.name}.{token or part_token()}.part")


def read_limited(path: str | os.PathLike[str], limit: int,
                 expected: str = "a card database is a .yaml file") -> bytes:
    """The bytes of the regular file `path`; ValueError for anything else (a folder, a
    FIFO that would block, a device like /dev/zero that never ends) or a file larger
    than `limit` bytes. Opened without blocking, checked on the opened file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise ValueError(f"{kind} ({expected})")
        if st.st_size > limit:
            raise ValueError(f"the file is {st.st_size:,} bytes, more than the limit of {limit:,}")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:                       # grew while being read
                raise ValueError(f"the file is more than the limit of {limit:,} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def check_path(value, path: str, pos: Any, report: Any, root: Path, what: str) -> None:
    """A file named in the database must lie inside the project folder and exist
    (`report`: a carddb.schema.Report, `pos` where the name is written). Here, in a leaf,
    so that checking a card's image (carddb.fields) imports no game-level specs."""
    from carddb.schema import shown

    if not isinstance(value, str):
        return
    pure = PurePosixPath(value.replace("\\", "/"))
    if not value or "\0" in value or len(value) > 1024 or any(len(p) > 255 for p in pure.parts):
        report.add(pos, path, f"{what} path '{shown(value)}' is not a usable file name")
        return
    try:
        inside = (root / value).resolve().is_relative_to(root.resolve())
        found = (root / value).is_file()
    except (OSError, ValueError, RuntimeError) as exc:
        report.add(pos, path, f"{what} path '{shown(value)}' cannot be used: {shown(str(exc))}")
        return
    if pure.is_absolute() or not inside:
        report.add(pos, path, f"{what} path '{shown(value)}' escapes the project folder (refused)")
    else:
        report.paths_checked.append(root / value)
        if not found:
            report.add(pos, path, f"{what} file '{shown(value)}' not found")
