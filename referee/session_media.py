"""Read-only media and full disks, for the session store (referee/session.py).

- Reading commands only read (a deferred transaction, SELECTs). Where the file and its
  folder can be written they open it as before (so SQLite tidies its `-wal`/`-shm` away);
  otherwise, and when that open fails because SQLite cannot make the WAL's shared-memory
  file (`-shm`) a reader needs (a read-only folder or medium, a full disk), the file is
  opened `immutable=1`: no locks, no `-shm`, nothing created. That is safe only while no
  other connection can be writing, so only when no `-wal` holds changes (every open
  connection has one, and a read-only folder or full disk lets nobody make one); with
  one, the file is opened `mode=ro`, which reads the WAL through a read-only `-shm`.
- A write command says "read-only" when the file or its folder cannot be written, and
  "disk full" when SQLite or the OS says so, or an I/O error happens with less than
  `LOW_SPACE_BYTES` free; anything else stays "damaged or unusable". Every message is one
  line (SQLite's own messages may hold line breaks)."""

from __future__ import annotations

import errno
import os
import sqlite3

from referee.errors import SessionError
from referee.inputs import one_line

PathText = str  # a session's path as text (no pathlib at start-up); referee.session uses it too

LOW_SPACE_BYTES = 1 << 20  # below this, an I/O error on a write is a full disk
# what SQLite says when it cannot make or map the -shm / -wal a WAL reader needs
_NO_SHARED_MEMORY = ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_IOERR_SHM", "SQLITE_FULL",
                     "SQLITE_PERM", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_TRUNCATE")


def read_uri(path: PathText, immutable: bool = False) -> str:
    """A URI opening `path` read-only (SQLite never writes through it)."""
    from pathlib import Path as FullPath  # only for read-only media: not at start-up

    uri = FullPath(path).absolute().as_uri()
    return uri + ("?mode=ro&immutable=1" if immutable else "?mode=ro")


def real_file(path: PathText) -> str:
    """The file SQLite opens for `path`, absolute, every symbolic link followed: SQLite's
    unix VFS resolves links itself, so the `-wal` and `-shm` it makes lie beside the link's
    target, in the target's folder, never beside the link."""
    return os.path.realpath(os.fspath(path))


def wal_of(path: PathText) -> str:
    """The `-wal` SQLite keeps for `path` (beside the real file: `real_file`)."""
    return f"{real_file(path)}-wal"


def folder_of(path: PathText) -> str:
    """The folder holding the real file of `path` (`real_file`), where SQLite makes its
    `-wal` and `-shm`."""
    return os.path.dirname(real_file(path))


def _wal_is_empty(path: PathText, real: str | None = None) -> bool:
    wal = f"{real}-wal" if real else wal_of(path)
    try:
        return not os.path.exists(wal) or os.stat(wal).st_size == 0
    except OSError:
        return False


def read_mode(path: PathText, write: bool, real: str | None = None) -> str:
    """How to open `path`: "rw" (writing, or reading where writing is possible), "immutable"
    (reading where it is not and no `-wal` holds changes), else "ro". `real`: its
    `real_file`, when the caller has it already (each resolution stats every folder)."""
    if write or writable(path, real):
        return "rw"
    return "immutable" if _wal_is_empty(path, real) else "ro"


def writable(path: PathText, real: str | None = None) -> bool:
    """The file and its folder (where SQLite makes `-wal` and `-shm`) can be written.
    `real`: as `read_mode`'s."""
    folder_ok = os.access(os.path.dirname(real) if real else folder_of(path), os.W_OK)
    return folder_ok and (not os.path.lexists(path) or os.access(path, os.W_OK))


def disk_full(path: PathText) -> bool:
    try:
        stats = os.statvfs(folder_of(path))
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < LOW_SPACE_BYTES


def may_read_immutable(path: PathText, error: sqlite3.Error) -> bool:
    """Whether a read-only open that failed with `error` may be retried `immutable=1`:
    the failure is about the shared memory (not damage), and no `-wal` holds changes."""
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(_NO_SHARED_MEMORY) and _wal_is_empty(path)


def read_only_error(path: PathText, creating: bool = False) -> SessionError:
    if creating:
        return SessionError(f"{path}: cannot create the session: its folder is read-only")
    return SessionError(
        f"{path}: the session is read-only (the file or its folder cannot be written): "
        "reading commands work, this one would change it; nothing was changed"
    )


def unusable(
    path: PathText,
    error: BaseException,
    action: str = "damaged or unusable session file",
    creating: bool = False,
) -> SessionError:
    """The one-line SessionError for an SQLite or OS `error` on `path`: read-only, disk full,
    or `action` with SQLite's own words."""
    name = getattr(error, "sqlite_errorname", "") or ""
    code = getattr(error, "errno", None)
    if name == "SQLITE_FULL" or code == errno.ENOSPC or (
        name.startswith("SQLITE_IOERR") and disk_full(path)
    ):
        return SessionError(f"{path}: disk full: nothing was changed; free some space and retry")
    if name.startswith("SQLITE_READONLY") or code in (errno.EROFS, errno.EACCES, errno.EPERM) or (
        name in ("SQLITE_CANTOPEN", "SQLITE_PERM") and not writable(path)
    ):
        return read_only_error(path, creating)
    words = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return SessionError(f"{path}: {action} ({one_line(words)})")
