"""The session store: one game per SQLite file, an append-only event log.

Each event row is `(seq, ts, kind, summary, payload_json, state_json)`; `state_json` is
the whole game state after the event, so the current state is the latest row's state and
undo/redo are ordinary events that restore an earlier state. Safety:

- every command is one `BEGIN IMMEDIATE` transaction (WAL journal, synchronous=FULL), so a
  crash or SIGKILL leaves the file as it was before or after the command; a command about
  to wait for a person (a die asked for) lets go of it (`let_go`) and writes its events in
  a second one, only if nobody changed the session meanwhile;
- a busy timeout makes concurrent commands wait their turn instead of failing;
- the file's header (SQLite magic + our application_id) is checked by reading bytes
  *before* SQLite opens it, then the pages (`PRAGMA quick_check`) and every event row
  (seq order, CRC-32), so a foreign or corrupt file is refused and never written;
- a new session is built in a temporary file and linked into place atomically.

sqlite3 is imported here only; the CLI imports this module inside session commands.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee import session_media, state_schema
from referee.errors import RefereeError, SessionError, UsageError
from referee.inputs import one_line, shown
from referee.words import counted

APPLICATION_ID = 0x52654621  # "ReF!" in the SQLite header at offset 68
SCHEMA_VERSION = state_schema.FORMAT_VERSION  # PRAGMA user_version: tables + state shapes
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 30.0
DEFAULT_PATH = "referee-session.db"

_SCHEMA = """
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    kind TEXT NOT NULL,
    summary TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    state_json TEXT NOT NULL,
    crc INTEGER NOT NULL
);
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""
_COLUMNS = ["seq", "ts", "kind", "summary", "payload_json", "state_json", "crc"]
_SELECT_ALL = (
    "SELECT seq, ts, kind, summary, payload_json, state_json, crc FROM events ORDER BY seq"
)
_INSERT = "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)"
Row = tuple[int, str, str, str, str, str]  # seq, ts, kind, summary, payload_json, state_json


def row_crc(row: Row) -> int:
    """CRC-32 of an event row: damage that SQLite's page checks cannot see (bytes inside a
    stored text) is caught when the row no longer matches it."""
    return zlib.crc32("\x1f".join(str(value) for value in row).encode("utf-8"))


@dataclass(frozen=True)
class Event:
    seq: int
    ts: str
    kind: str
    summary: str
    payload: dict
    undone: bool  # reverted by a later undo and not redone

    def as_json(self) -> dict:
        return {
            "seq": self.seq,
            "ts": self.ts,
            "kind": self.kind,
            "summary": self.summary,
            "payload": self.payload,
            "undone": self.undone,
        }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def check_header(path: Path) -> None:
    """Refuse a file that is not a referee session, by reading bytes only."""
    if not path.exists():
        if path.is_symlink():  # "no session here" would hide what is wrong
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            shown = target if target.isprintable() and len(target) <= 200 else repr(target[:200])
            raise SessionError(
                f"{path}: a symbolic link to {shown}, which does not exist (a dangling link): "
                "remove the link, or choose another --session"
            )
        raise SessionError(f"{path}: no session here; start one with `referee new`")
    if not path.is_file():
        raise SessionError(f"{path}: not a session file")
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError as error:
        raise SessionError(f"{path}: cannot read: {error.strerror}") from None
    if size > state_schema.MAX_SESSION_BYTES:  # the whole log is read into memory
        raise SessionError(
            f"{path}: {size} bytes, more than a session holds "
            f"(at most {state_schema.MAX_SESSION_BYTES})"
        )
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise SessionError(f"{path}: not a referee session (not an SQLite file, or damaged)")
    if int.from_bytes(header[68:72], "big") != APPLICATION_ID:
        raise SessionError(f"{path}: an SQLite file from another program, not a referee session")


def already_holds_a_game(path: Path) -> str:
    return (
        f"{path} already holds a game; pass --force to start a new one there "
        "(its log is kept) or choose another --session"
    )


def _connect(path: Path, mode: str = "rw") -> sqlite3.Connection:
    """A connection: "rw", or read-only "ro" / "immutable" (session_media.read_mode)."""
    if mode == "rw":
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    else:
        uri = session_media.read_uri(path, immutable=mode == "immutable")
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _undo_stacks(rows: list[tuple[int, str, str]]) -> tuple[int, list[int], list[int], set[int]]:
    """Replay kinds/payloads: (seq of the latest `new`, done seqs, undone seqs as a stack
    whose last element is the next to redo, every seq currently reverted). A `new` event
    is a barrier; a regular event after undo makes the undone ones final."""
    base, done, undone = 0, [], []
    reverted: set[int] = set()
    for seq, kind, payload_json in rows:
        if kind == "new":
            base, done, undone = seq, [], []
        elif kind == "undo":
            for moved in json.loads(payload_json)["undone"]:
                done.remove(moved)
                undone.append(moved)
                reverted.add(moved)
        elif kind == "redo":
            for moved in json.loads(payload_json)["redone"]:
                undone.remove(moved)
                done.append(moved)
                reverted.discard(moved)
        else:
            done.append(seq)
            undone = []
    return base, done, undone, reverted


@contextlib.contextmanager
def _refusing_bad_rows(path: Path, writing: bool = False) -> Iterator[None]:
    """A row that does not match the session format (state_schema) is a SessionError."""
    try:
        yield
    except state_schema.SchemaError as error:
        what = "refusing to write a row the session format forbids" if writing else (
            "invalid session file"
        )
        raise SessionError(f"{path}: {what} ({error}); nothing was changed") from None


def _check_new_row(kind: str, summary: str, state: dict | str) -> None:
    """What the referee writes, it must read back: the checks made on open (the state as
    values or as its JSON text)."""
    for column, value in (("kind", kind), ("summary", summary)):
        if not value.isprintable():
            raise state_schema.SchemaError(f"{column}: control characters in {shown(value)}")
    if isinstance(state, str):
        state_schema.load_state(state)
    else:
        state_schema.check_state(state)


class Session:
    """An open session. Use as `with Session.open(path) as s:` - one transaction."""

    def __init__(self, path: Path, write: bool = True) -> None:
        self.path = path
        self.write = write
        self.lock_late = False  # see `let_go`
        self._loaded = False  # inside `with`: the log is read and checked
        self._conn: sqlite3.Connection | None = None
        self._rows: list[Row] = []  # the whole log, verified on open
        self._version = SCHEMA_VERSION
        self._checked = 0  # rows [0, _checked) were checked: the rest are this command's

    # ── lifecycle ──────────────────────────────────────────────────────────────
    @classmethod
    def open(cls, path: str | os.PathLike, write: bool = True) -> Session:
        """A session on an existing file; the transaction starts on `with`. `write=False`
        takes a read snapshot instead of the write lock."""
        path = Path(path)
        check_header(path)
        return cls(path, write)

    def let_go(self) -> None:
        """Stop holding the file for the rest of the command (it is about to wait for a
        person: a die asked for at the table), so that other commands need not wait. The
        events recorded so far, and from now on, are written on leaving `with`, under the
        write lock again, only if the log still ends with the event the command read
        (else a `RefereeError`: another command changed the session meanwhile; nothing is
        written)."""
        if self.write and not self.lock_late and self._conn is not None:
            self.lock_late = True
            self._close(commit=False)  # rolls back the rows inserted so far: kept in _rows

    def __enter__(self) -> Session:
        if self.write and not session_media.writable(self.path):
            raise session_media.read_only_error(self.path)
        try:
            try:
                self._begin(session_media.read_mode(self.path, self.write))
            except sqlite3.OperationalError as error:
                self._close(commit=False)
                if self.write or not session_media.may_read_immutable(self.path, error):
                    raise
                self._begin("immutable")  # a read-only folder or medium, a full disk
        except sqlite3.DatabaseError as error:
            self._close(commit=False)
            raise session_media.unusable(self.path, error) from None
        except BaseException:
            self._close(commit=False)
            raise
        self._loaded = True
        return self

    def _begin(self, mode: str) -> None:
        self._conn = _connect(self.path, mode)
        self._conn.execute("BEGIN IMMEDIATE" if self.write else "BEGIN")
        self._check_schema()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._loaded = False
        if exc_type is None and len(self._rows) > self._checked:
            try:  # before COMMIT: a command may record, then refuse (and roll back)
                with _refusing_bad_rows(self.path, writing=True):
                    for row in self._rows[self._checked :]:
                        _check_new_row(row[2], row[3], row[5])
            except BaseException:
                self._close(commit=False)
                raise
            if self.lock_late:
                self._write_late()
        try:
            self._close(commit=exc_type is None)
        except sqlite3.DatabaseError as error:
            raise session_media.unusable(self.path, error, "could not save") from None
        if isinstance(exc, sqlite3.DatabaseError):  # rolled back above; one clear line
            raise session_media.unusable(self.path, exc) from None

    def _write_late(self) -> None:
        """After `let_go`: take the write lock again, check that the log still ends with the event
        the command read, append the command's events, commit."""
        read = self._rows[self._checked - 1]
        try:
            check_header(self.path)
            self._conn = conn = _connect(self.path)
            conn.execute("BEGIN IMMEDIATE")
            last = conn.execute(
                "SELECT seq, ts, kind, summary, payload_json, state_json FROM events "
                "ORDER BY seq DESC LIMIT 1").fetchone()
            if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID or (
                last is None
            ):
                raise SessionError(f"{self.path}: not a referee session any more")
            if tuple(last) != read:
                self._close(commit=False)
                raise RefereeError(
                    f"the session changed while this command waited (now #{last[0]}: "
                    f"{one_line(str(last[3]))}); nothing was recorded: type the command again"
                )
            for row in self._rows[self._checked :]:
                conn.execute(_INSERT, (*row, row_crc(row)))
            self._close(commit=True)
        except sqlite3.DatabaseError as error:
            self._close(commit=False)
            raise session_media.unusable(self.path, error, "could not save") from None
        except BaseException:
            self._close(commit=False)
            raise

    def _close(self, commit: bool) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            if conn.in_transaction:
                conn.execute("COMMIT" if commit else "ROLLBACK")
        finally:
            conn.close()

    def _check_schema(self) -> None:
        conn = self._db()
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        columns = [row[1] for row in conn.execute("PRAGMA table_info(events)")]
        if app_id != APPLICATION_ID or columns != _COLUMNS:
            raise SessionError(f"{self.path}: not a referee session")
        # A damaged page anywhere is refused before anything is written (a few ms per MB).
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            # SQLite's report is several lines in a row ("*** in database main ***\nPage 2: ...")
            lines = [line for p in problems for line in str(p).splitlines()]
            lines = [line for line in lines if line.strip() and not line.startswith("***")]
            more = f"; and {len(lines) - 3} more" if len(lines) > 3 else ""
            report = one_line("; ".join(lines[:3]) + more)
            raise SessionError(f"{self.path}: damaged session file ({report})")
        if version not in state_schema.SCHEMAS or (self.write and version != SCHEMA_VERSION):
            raise SessionError(
                f"{self.path}: session format {version}, this referee reads {SCHEMA_VERSION}"
            )
        self._version = version
        rows: list[Row] = []
        for *fields, crc in conn.execute(_SELECT_ALL):
            row: Row = tuple(fields)  # type: ignore[assignment]
            if row[0] != len(rows) + 1 or row_crc(row) != crc:
                raise SessionError(f"{self.path}: damaged session file (event #{len(rows) + 1})")
            rows.append(row)
        if not rows or rows[0][2] != "new":
            raise SessionError(f"{self.path}: damaged session file (no game in it)")
        with _refusing_bad_rows(self.path):  # matching CRCs do not make the content usable
            state_schema.check_rows(rows, version)
        self._rows = rows
        self._checked = len(rows)

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("use the session inside `with Session.open(path) as s:`")
        return self._conn

    def _check_open(self) -> None:
        if not self._loaded:
            raise RuntimeError("use the session inside `with Session.open(path) as s:`")

    @classmethod
    def check(cls, path: str | os.PathLike) -> None:
        """Raise `SessionError` unless `path` is a readable referee session (reads only)."""
        with cls.open(path, write=False):
            pass

    @classmethod
    def create(
        cls,
        path: str | os.PathLike,
        state: dict,
        summary: str,
        payload: dict | None = None,
        *,
        replace: bool = False,
    ) -> int:
        """Start a game at `path`: a new file, or with `replace=True` a `new` event appended
        to an existing session (its history stays in the log). Refuses to touch a file
        that is not a referee session. Returns the event's seq."""
        path = Path(path)
        payload = payload or {}
        if path.exists() or path.is_symlink():
            cls.check(path)
            if not replace:
                raise RefereeError(already_holds_a_game(path))
            with cls.open(path) as session:
                return session._append("new", summary, payload, state)
        return cls._create_file(path, state, summary, payload)

    @classmethod
    def _create_file(cls, path: Path, state: dict, summary: str, payload: dict) -> int:
        with _refusing_bad_rows(path, writing=True):
            _check_new_row("new", summary, state)
        if not path.parent.is_dir():
            raise SessionError(f"{path}: folder {path.parent} does not exist")
        temp = path.with_name(f".{path.name}.{os.getpid()}.creating")
        try:
            conn = sqlite3.connect(temp, isolation_level=None)
            try:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("PRAGMA journal_mode = WAL")
                conn.executescript(_SCHEMA)
                row: Row = (1, _now(), "new", summary, json.dumps(payload), json.dumps(state))
                conn.execute(_INSERT, (*row, row_crc(row)))
            finally:
                conn.close()  # the last close checkpoints the WAL into the file
            with temp.open("rb+") as handle:
                os.fsync(handle.fileno())
            try:
                os.link(temp, path)  # atomic, and never replaces a file created meanwhile
            except FileExistsError:
                raise RefereeError(f"{path} was created by another command just now") from None
        except (sqlite3.Error, OSError) as error:
            raise session_media.unusable(path, error, "cannot create session", True) from None
        finally:
            for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm")):
                with contextlib.suppress(OSError):  # a read-only folder has none to remove
                    leftover.unlink(missing_ok=True)
        return 1

    # ── reading ────────────────────────────────────────────────────────────────
    @property
    def state(self) -> dict:
        """The current game state (a fresh copy each time)."""
        self._check_open()
        return json.loads(self._rows[-1][5])

    @property
    def last_seq(self) -> int:
        return len(self._rows)

    @property
    def next_seq(self) -> int:
        """The seq the next recorded event will get."""
        return len(self._rows) + 1

    def rng(self, command: str = "", digest: str | None = None) -> random.Random:
        """A command's randomness: `Random` seeded from the game's seed, the current state
        and the command's name, so the same command on the same state rolls the same dice
        (after `undo`, typing the command again gives the dice it gave before: referee
        dice cannot be rolled again at will). `digest`: the state's `state_digest()` taken
        before the command changed it (default: now). Without a game seed (a session from
        before seeds were always stored), the OS."""
        seed = self.state.get("seed")
        if seed is None:
            return random.SystemRandom()
        return random.Random(f"{seed}/{digest or self.state_digest()}/{command}")

    def state_digest(self) -> str:
        """A short digest of the current state (its canonical JSON)."""
        import hashlib

        canonical = json.dumps(self.state, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    def log(self, with_states: bool = False) -> list[Event] | list[tuple[Event, dict]]:
        """Every event, oldest first, each marked whether it is currently undone."""
        self._check_open()
        rows = self._rows
        _, _, _, reverted = _undo_stacks([(r[0], r[2], r[4]) for r in rows])
        events = [
            Event(seq, ts, kind, summary, json.loads(payload), seq in reverted)
            for seq, ts, kind, summary, payload, _ in rows
        ]
        if with_states:
            return [(e, self._state_at(e.seq)) for e in events]
        return events

    def _stacks(self) -> tuple[int, list[int], list[int], set[int]]:
        self._check_open()
        return _undo_stacks([(r[0], r[2], r[4]) for r in self._rows])

    def _state_at(self, seq: int) -> dict:
        """An earlier event's state, checked (on open only the current one is)."""
        with _refusing_bad_rows(self.path):
            return state_schema.load_state(
                self._rows[seq - 1][5], self._version, f"event #{seq}: state"
            )

    def check_card_names(self, db: Any) -> None:
        """The state the session was opened at names only cards of `db` (the database the
        command loaded: state_cards); else a SessionError saying where (exit 2)."""
        from referee import state_cards

        seq = self._checked
        self._db()
        with _refusing_bad_rows(self.path):
            state_cards.check(json.loads(self._rows[seq - 1][5]), db, f"event #{seq}: state")

    def _summary_of(self, seq: int) -> str:
        return self._rows[seq - 1][3]

    # ── writing ────────────────────────────────────────────────────────────────
    def record(self, kind: str, summary: str, payload: dict, new_state: dict) -> int:
        """Append one event whose state is `new_state`; returns its seq."""
        if kind in ("new", "undo", "redo"):
            raise ValueError(f"{kind!r} events are written by Session itself")
        return self._append(kind, summary, payload, new_state)

    def _append(self, kind: str, summary: str, payload: dict, new_state: dict) -> int:
        if not self.write:
            raise RuntimeError("session opened read-only")
        row: Row = (
            self.next_seq,
            _now(),
            kind,
            summary,
            json.dumps(payload),
            json.dumps(new_state),
        )
        if not self.lock_late:  # else written on leaving `with` (`_write_late`)
            self._db().execute(_INSERT, (*row, row_crc(row)))
        else:
            self._check_open()
        self._rows.append(row)
        return row[0]

    def undo(self, n: int = 1) -> tuple[int, list[int]]:
        """Revert the last `n` effective events (a `new` cannot be undone). Returns the undo
        event's seq and the seqs reverted, newest first."""
        base, done, _, _ = self._stacks()
        if n < 1:
            raise UsageError("undo needs a count of 1 or more")
        if n > len(done):
            raise RefereeError(
                f"cannot undo {n}: only {counted(len(done), 'event')} since the game started"
                if done
                else "nothing to undo since the game started"
            )
        reverted = list(reversed(done[-n:]))
        target = done[-n - 1] if n < len(done) else base
        names = "; ".join(f"#{s} {self._summary_of(s)}" for s in reverted)
        seq = self._append(
            "undo",
            f"undo {n}: {names}",
            {"n": n, "undone": reverted, "restores": target},
            self._state_at(target),
        )
        return seq, reverted

    def redo(self, n: int = 1) -> tuple[int, list[int]]:
        """Re-apply the last `n` undone events (only right after undo: any other event
        clears what can be redone)."""
        _, _, undone, _ = self._stacks()
        if n < 1:
            raise UsageError("redo needs a count of 1 or more")
        if n > len(undone):
            raise RefereeError(
                f"cannot redo {n}: only {counted(len(undone), 'undone event')} to redo"
                if undone
                else "nothing to redo"
            )
        redone = list(reversed(undone[-n:]))
        names = "; ".join(f"#{s} {self._summary_of(s)}" for s in redone)
        seq = self._append(
            "redo",
            f"redo {n}: {names}",
            {"n": n, "redone": redone},
            self._state_at(redone[-1]),
        )
        return seq, redone
