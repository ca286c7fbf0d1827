"""The session store: one game per SQLite file, an append-only event log.

Each event row is `(seq, ts, kind, summary, payload_json, state_json)`; `state_json` is
the game state after the event (format 2: whole at anchors, else a delta against one,
referee/state_delta.py; format 1 files, every state whole, are read and upgraded by their
first write), so the current state is the latest row's state and undo/redo are ordinary
events that restore an earlier state. Safety:

- every command is one `BEGIN IMMEDIATE` transaction (WAL journal), so a crash or SIGKILL
  leaves the file as it was before or after the command; a command about to wait for a
  person (a die asked for) lets go of it (`let_go`) and writes its events in a second
  one, only if nobody changed the session meanwhile;
- durable with two fsyncs per write command, the fewest a crash-safe file that stands
  alone needs (`_durable`): SQLite syncs nothing while the command writes
  (`synchronous=OFF`, no automatic checkpoint); after COMMIT the WAL is synced (the
  command's events are durable: WAL frames carry checksums, so a crash keeps or drops a
  whole commit), then checkpointed into the file and the file synced, before the command
  answers and before SQLite may reset or delete the WAL. With `synchronous=FULL` and the
  checkpoint SQLite makes on the last close a command made five (the new WAL's header,
  its folder, the commit, the checkpoint's WAL and file). Without the checkpoint the last
  events would live only in the `-wal` beside the file, and a session copied alone would
  lose them. Reading commands make none;
- a busy timeout makes concurrent commands wait their turn instead of failing;
- the file's header (SQLite magic + our application_id) is checked by reading bytes
  *before* SQLite opens it. The first command to open a file checks it whole (`PRAGMA
  quick_check`, every event row: seq order, column types, CRC-32, content by
  state_schema; in one pass of SQLite over the rows, `_verify_bulk`, row by row when that
  doubts anything), and records what it verified (`session_verified`: a mark kept with
  the file's identity, outside the file); the next commands find the file unchanged since and read only what they use:
  the current state row (CRC and schema checked on every command), the rows written
  after the mark (checked as on a whole check), and the earlier rows they read (an undo
  target, a `log` page: each CRC checked, each state by state_schema). A command thus reads
  a bounded number of rows whatever the length of the log. A file changed by anything
  but a referee command (a hand edit, a copy over it) has another identity and is checked
  whole again, so a foreign, corrupt or hostile file is still refused and never written;
- a new session is built in a temporary file and linked into place atomically.

sqlite3 is imported here only; the CLI imports this module inside session commands.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, overload

from referee import clock, session_media, session_verified, state_delta, state_schema
from referee.errors import RefereeError, SessionError, UsageError
from referee.inputs import one_line, shown
from referee.seq_runs import Seqs
from referee.words import counted

if TYPE_CHECKING:
    import random

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
_SELECT = "SELECT seq, ts, kind, summary, payload_json, state_json, crc FROM events"
_SELECT_ALL = _SELECT + " ORDER BY seq"
_SELECT_LAST = _SELECT + " ORDER BY seq DESC LIMIT 1"
_SELECT_RANGE = _SELECT + " WHERE seq BETWEEN ? AND ? ORDER BY seq"
_INSERT = "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)"
# Session._verify_bulk: a whole check in one pass of SQLite over the rows. The count, the
# least and the greatest seq as subqueries (SQLite answers each from the table's b-tree,
# not row by row); each row's columns handed to `_row_sound` as they are stored (one call
# a row: is every column text, and its CRC the stored one?); the rows Python reads: the
# history's (new, undo, redo).
_BULK = (
    "SELECT (SELECT count(*) FROM events), (SELECT min(seq) FROM events), "
    "(SELECT max(seq) FROM events), "
    "min(seq) FILTER (WHERE NOT referee_row_sound(seq, ts, kind, summary, payload_json, "
    "state_json, crc)), "
    "json_group_array(seq) FILTER (WHERE kind IN ('new', 'undo', 'redo')) "
    "FROM events")
_BULK_OTHERS = ("SELECT seq, ts, kind, summary, payload_json, '' FROM events "
                "WHERE seq IN (SELECT value FROM json_each(?)) OR seq = ? ORDER BY seq")
Row = tuple[int, str, str, str, str, str]
PathText = session_media.PathText  # a path as text: pathlib costs more to import than a command may spend


def _normal(path: str | os.PathLike) -> PathText:
    """`path` as text, spelled as pathlib would print it ("./a//b.db" -> "a/b.db")."""
    text = os.fspath(path)
    if not isinstance(text, str):
        text = os.fsdecode(text)
    parts = [part for part in text.split("/") if part not in ("", ".")]
    return ("/" if text.startswith("/") else "") + "/".join(parts) or "."  # seq, ts, kind, summary, payload_json, state_json


def row_crc(row: Row) -> int:
    """CRC-32 of an event row: damage that SQLite's page checks cannot see (bytes inside a
    stored text) is caught when the row no longer matches it."""
    return zlib.crc32("\x1f".join(str(value) for value in row).encode("utf-8"))


def _row_sound(seq: int, ts: Any, kind: Any, summary: Any, payload_json: Any,
               state_json: Any, crc: Any) -> bool:
    """One row as SQLite stores it (`_BULK` calls this once a row): True when every column
    is text and the stored CRC is the integer `row_crc` computes from them. The types are
    checked here because Python sees them for nothing: a text stored as a blob of the same
    bytes (one bit flipped in a record's header does that) keeps the CRC of its bytes, and
    SQL's `typeof` on six columns cost as much as the CRC. False is a doubt, not a verdict:
    the row-by-row check then decides and says where."""
    try:  # row_crc's bytes, in one join (the seq is the table's rowid: an integer)
        text = "\x1f".join((str(seq), ts, kind, summary, payload_json, state_json))
    except TypeError:  # a column that is not text
        return False
    return type(crc) is int and zlib.crc32(text.encode("utf-8")) == crc


class Event:
    """One event of the log (a plain class: dataclasses are slow to import)."""

    __slots__ = ("seq", "ts", "kind", "summary", "payload", "undone")

    def __init__(self, seq: int, ts: str, kind: str, summary: str, payload: dict,
                 undone: bool) -> None:
        self.seq, self.ts, self.kind, self.summary = seq, ts, kind, summary
        self.payload = payload
        self.undone = undone  # reverted by a later undo and not redone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and self.as_json() == other.as_json()

    def __repr__(self) -> str:
        return f"Event({self.as_json()!r})"

    def as_json(self) -> dict:
        return {
            "seq": self.seq,
            "ts": self.ts,
            "kind": self.kind,
            "summary": self.summary,
            "payload": self.payload,
            "undone": self.undone,
        }


def _time() -> float:
    import time

    return time.time()


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds")


def check_header(path: PathText) -> None:
    """Refuse a file that is not a referee session, by reading bytes only."""
    if not os.path.exists(path):
        if os.path.islink(path):  # "no session here" would hide what is wrong
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
    if not os.path.isfile(path):
        raise SessionError(f"{path}: not a session file")
    try:
        size = os.stat(path).st_size
        with open(path, "rb") as handle:
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


def already_holds_a_game(path: PathText) -> str:
    return (
        f"{path} already holds a game; pass --force to start a new one there "
        "(its log is kept) or choose another --session"
    )


def _connect(path: PathText, mode: str = "rw") -> sqlite3.Connection:
    """A connection: "rw", or read-only "ro" / "immutable" (session_media.read_mode)."""
    if mode == "rw":
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    else:
        uri = session_media.read_uri(path, immutable=mode == "immutable")
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    conn.execute("PRAGMA synchronous = NORMAL")  # a checkpoint syncs the WAL, then the file
    conn.execute("PRAGMA cell_size_check = ON")  # a malformed page read is refused, not used
    return conn


def _writing(conn: sqlite3.Connection) -> bool:
    """A connection about to write. In WAL mode (every session the referee makes) SQLite
    syncs nothing itself (`_durable` does, after the COMMIT) and checkpoints only when
    told (its automatic checkpoint would sync nothing); True. A file in another journal
    mode (made by another program) keeps SQLite's own syncs (FULL); False."""
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA synchronous = FULL")
        return False
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    return True


def _fsync(path: str, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _durable(conn: sqlite3.Connection, path: PathText, real: str) -> None:
    """After a COMMIT: the two fsyncs a committed command needs. The WAL is synced (the
    command's events are durable), its pages are copied into the file (a checkpoint) and
    the file is synced, so the file stands alone again before the command answers. Only then
    may SQLite reset or delete the WAL (on the last close, at NORMAL: it syncs as it should).
    A checkpoint that could not copy everything (another connection reads an older
    snapshot, or checkpoints itself) leaves the rest to that connection; the folder is
    synced too then, as the WAL may be new and must survive until it is copied."""
    _fsync(f"{real}-wal")  # beside the link's target (`real`), as session_media.wal_of says
    busy, logged, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    conn.execute("PRAGMA synchronous = NORMAL")  # for the checkpoint on close, if any
    if busy or copied < logged:
        _fsync(os.path.dirname(real), directory=True)  # session_media.folder_of
    if copied > 0:
        _fsync(os.fspath(path))


Stacks = tuple[int, Seqs, list[int], set[int]]


def _undo_stacks(rows: list[tuple[int, str, str]], start: Stacks | None = None) -> Stacks:
    """Replay kinds/payloads: (seq of the latest `new`, done seqs, undone seqs as a stack
    whose last element is the next to redo, every seq currently reverted), from `start`
    (the stacks before `rows`; default: an empty log). A `new` event is a barrier; a
    regular event after undo makes the undone ones final. `done` is kept as runs (Seqs:
    a long log's history costs what a short one's does)."""
    if start is None:
        base, done, undone, reverted = 0, Seqs(), [], set()
    else:
        base, done, undone = start[0], Seqs.of(start[1]), list(start[2])
        reverted = set(start[3])
    for seq, kind, payload_json in rows:
        if kind == "new":
            base, done, undone = seq, Seqs(), []
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
def _refusing_bad_rows(path: PathText, writing: bool = False) -> Iterator[None]:
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

    def __init__(self, path: PathText, write: bool = True) -> None:
        self.path = path
        self.write = write
        self.lock_late = False  # see `let_go`
        self._loaded = False  # inside `with`: the log is read and checked
        self._conn: sqlite3.Connection | None = None
        self._version = SCHEMA_VERSION
        self._last: Row = (0, "", "", "", "", "")  # the current row when the command began
        self._new: list[Row] = []  # this command's rows (not yet checked on leaving `with`)
        self._read: dict[int, Row] = {}  # earlier rows read (and their CRC checked)
        self._texts: dict[int, str] = {}  # states as JSON text, by seq (`_state_text`)
        # the last row this command appended, its clock and who is on it (`_clock_after`)
        self._appended: tuple[Row, dict | None, str | None] | None = None
        self._anchors: dict[int, dict] = {}  # anchors' states as values, by seq (the same)
        self._history: Stacks = (0, Seqs(), [], set())  # _undo_stacks up to `_last`
        self._seen: list | None = None  # the file's identity as the command found it
        # the file SQLite opens (session_media.real_file), resolved once a `with`: the marks,
        # the -wal and the fsyncs each asked for it, and a resolution stats every folder
        self._real = ""
        self._marked = False  # a mark for `_last` is recorded already (session_verified)
        self._wal = False  # writing a WAL-mode file: `_durable` after COMMIT

    # ── lifecycle ──────────────────────────────────────────────────────────────
    @classmethod
    def open(cls, path: str | os.PathLike, write: bool = True) -> Session:
        """A session on an existing file; the transaction starts on `with`. `write=False`
        takes a read snapshot instead of the write lock."""
        path = _normal(path)
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
            self._close(commit=False)  # rolls back the rows inserted so far: kept in _new

    def __enter__(self) -> Session:
        self._real = session_media.real_file(self.path)
        if self.write and not session_media.writable(self.path, self._real):
            raise session_media.read_only_error(self.path)
        try:
            try:
                self._begin(session_media.read_mode(self.path, self.write, self._real))
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
        if self.write:
            self._wal = _writing(self._conn)
        self._conn.execute("BEGIN IMMEDIATE" if self.write else "BEGIN")
        self._check_schema()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._loaded = False
        if exc_type is None and self._new:
            try:  # before COMMIT: a command may record, then refuse (and roll back)
                with _refusing_bad_rows(self.path, writing=True):
                    for row in self._new:
                        _check_new_row(row[2], row[3], self._state_text(row))
            except BaseException:
                self._close(commit=False)
                raise
            if self.lock_late:
                self._write_late()
            else:
                self._upgrade(self._db())
        try:
            self._close(commit=exc_type is None)
        except sqlite3.DatabaseError as error:
            raise session_media.unusable(self.path, error, "could not save") from None
        if isinstance(exc, sqlite3.DatabaseError):  # rolled back above; one clear line
            raise session_media.unusable(self.path, exc) from None
        if exc_type is None or not issubclass(exc_type, (SessionError, sqlite3.Error)):
            self._remember(committed=exc_type is None)

    def _remember(self, committed: bool) -> None:
        """Record what is verified now (session_verified), unless nothing changed since
        the mark the command found."""
        if committed and self._new:
            last, history = self._new[-1], self._stacks_now()
        elif self._marked and session_verified.identity(self.path, self._real) == self._seen:
            return
        else:
            last, history = self._last, self._history
        base, done, undone, reverted = history
        mark = session_verified.Mark(last[0], row_crc(last), base, done, undone, reverted)
        session_verified.save(self.path, self._version, mark, self._real)

    def _write_late(self) -> None:
        """After `let_go`: take the write lock again, check that the log still ends with the event
        the command read, append the command's events, commit."""
        read = self._last
        try:
            check_header(self.path)
            self._conn = conn = _connect(self.path)
            self._wal = _writing(conn)
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
            for row in self._new:
                conn.execute(_INSERT, (*row, row_crc(row)))
            self._upgrade(conn)
            self._close(commit=True)
        except sqlite3.DatabaseError as error:
            self._close(commit=False)
            raise session_media.unusable(self.path, error, "could not save") from None
        except BaseException:
            self._close(commit=False)
            raise

    def _upgrade(self, conn: sqlite3.Connection) -> None:
        """A file of an older format (1: every state whole, which format 2 reads as anchors)
        becomes the current one with the first events a command writes to it (in the same
        transaction: both or neither)."""
        if self._version != SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._version = SCHEMA_VERSION

    def _close(self, commit: bool) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            if conn.in_transaction:
                conn.execute("COMMIT" if commit else "ROLLBACK")
                if commit and self.write and self._wal and (self._new or self.lock_late):
                    _durable(conn, self.path, self._real or session_media.real_file(self.path))
        finally:
            conn.close()

    def _check_schema(self) -> None:
        conn = self._db()
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        columns = [row[1] for row in conn.execute("PRAGMA table_info(events)")]
        if app_id != APPLICATION_ID or columns != _COLUMNS:
            raise SessionError(f"{self.path}: not a referee session")
        # The transaction's snapshot is taken (the header read): the identity now is that
        # of what the command reads, or of a later change (then it differs: a whole check).
        self._seen = session_verified.identity(self.path, self._real)
        mark = None
        if version in state_schema.SCHEMAS:  # an older format is upgraded by its first write
            mark = session_verified.load(self.path, self._seen, version, self._real)
        if mark is None:
            self._quick_check()
        if version not in state_schema.SCHEMAS:
            raise SessionError(
                f"{self.path}: session format {version}, this referee reads {SCHEMA_VERSION}"
            )
        self._version = version
        if mark is not None and self._verify_since(mark):
            return
        if mark is not None:  # the file is not as its mark says: check it whole after all
            self._quick_check()
        self._verify_whole()

    def _quick_check(self) -> None:
        """A damaged page anywhere is refused before anything is written (a few ms per MB)."""
        problems = [row[0] for row in self._db().execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            # SQLite's report is several lines in a row ("*** in database main ***\nPage 2: ...")
            lines = [line for p in problems for line in str(p).splitlines()]
            lines = [line for line in lines if line.strip() and not line.startswith("***")]
            more = f"; and {len(lines) - 3} more" if len(lines) > 3 else ""
            report = one_line("; ".join(lines[:3]) + more)
            raise SessionError(f"{self.path}: damaged session file ({report})")

    def _verify_whole(self) -> None:
        """Every row: seq order, CRC, content (state_schema.check_rows); then the mark.
        In bulk first (`_verify_bulk`); row by row when that finds anything unusual, so a
        refusal says what it always said."""
        if self._verify_bulk():
            return
        rows: list[Row] = []
        for *fields, crc in self._db().execute(_SELECT_ALL):
            row: Row = tuple(fields)  # type: ignore[assignment]
            if row[0] != len(rows) + 1 or row_crc(row) != crc:
                raise SessionError(f"{self.path}: damaged session file (event #{len(rows) + 1})")
            rows.append(row)
        if not rows or rows[0][2] != "new":
            raise SessionError(f"{self.path}: damaged session file (no game in it)")
        self._last = rows[-1]
        self._read = {row[0]: row for row in rows[:-1]}  # the current state's anchor among them
        with _refusing_bad_rows(self.path):  # matching CRCs do not make the content usable
            state_schema.check_rows([*rows[:-1], self._whole(rows[-1])], self._version)
        self._history = _undo_stacks([(r[0], r[2], r[4]) for r in rows])
        self._marked = False

    def _verify_bulk(self) -> bool:
        """The checks of `_verify_whole` that a first open makes, in one pass of SQLite (issue
        36, item 5: a 50,000-event session, 65 MB of states, is checked whole the first
        time a command opens it; a Python loop over its rows was most of the time): seqs
        1..N (count, min and max), and each row handed once to `_row_sound` as SQLite stores
        it (every column text, its CRC the one `row_crc` computes), so a byte changed
        anywhere is refused now. Only the history's rows (new, undo, redo)
        and the current row come to Python, through state_schema.LogCheck as on a
        row-by-row check, with the runs of ordinary events between them; the current row's
        state is checked. An earlier ordinary row's content (its one-line texts, its
        payload), like an earlier state, is checked when a command reads it
        (`_rows_between`): the referee never writes one it would refuse, so only a forger
        who also forged its CRC gets one past the open. False at the first doubt (nothing
        is concluded from it: the row-by-row check then decides and says where), and when
        SQLite lacks JSON."""
        conn = self._db()
        try:
            conn.create_function("referee_row_sound", 7, _row_sound, deterministic=True)
            count, first, top, damaged, read = conn.execute(_BULK).fetchone()
            if not count or first != 1 or top != count or damaged is not None:
                return False
            others = conn.execute(_BULK_OTHERS, (read, count)).fetchall()
            last = conn.execute(_SELECT_LAST).fetchone()
        except sqlite3.Error:
            return False
        if not others or others[0][0] != 1:  # the first event is not a new game
            return False
        log = state_schema.LogCheck()
        seen = 0
        try:
            for row in others:
                if row[0] > seen + 1:
                    log.regular(seen + 1, row[0] - seen - 1)
                log.row(row)
                seen = row[0]
            if count > seen:
                log.regular(seen + 1, count - seen)
        except state_schema.SchemaError:
            return False
        current: Row = tuple(last[:6])  # type: ignore[assignment]
        self._last = current
        with _refusing_bad_rows(self.path):  # as `check_rows` ends: the current state
            state_schema.load_state(self._state_text(current), self._version,
                                    f"event #{count}: state")
        self._history = (log.base, log.done, log.undone, log.reverted)
        self._marked = False
        return True

    def _verify_since(self, mark: session_verified.Mark) -> bool:
        """With a mark for this very file: check the current row (CRC, state) and the rows
        after the mark (as `_verify_whole` does); False if the log does not hold the row
        the mark names (the file is then checked whole)."""
        conn = self._db()
        last = conn.execute(_SELECT_LAST).fetchone()
        if last is None or last[0] < mark.seq:
            return False
        rows = [last] if last[0] == mark.seq else conn.execute(
            _SELECT_RANGE, (mark.seq, last[0])).fetchall()
        checked: list[Row] = []
        for expected, (*fields, crc) in enumerate(rows, mark.seq):
            row: Row = tuple(fields)  # type: ignore[assignment]
            if row[0] != expected or row_crc(row) != crc:
                return False
            checked.append(row)
        if row_crc(checked[0]) != mark.crc or checked[-1][0] != last[0]:
            return False
        history: Stacks = (mark.base, mark.done, mark.undone, mark.reverted)
        newer = checked[1:]
        self._last = checked[-1]
        self._read.update((row[0], row) for row in checked[:-1])
        with _refusing_bad_rows(self.path):
            if newer:  # written by a referee that recorded no mark after them
                state_schema.check_rows([*newer[:-1], self._whole(newer[-1])], self._version,
                                        history[:3])
                history = _undo_stacks([(r[0], r[2], r[4]) for r in newer], history)
            else:
                state_schema.load_state(self._state_text(self._last), self._version,
                                        f"event #{last[0]}: state")
        self._history = history
        self._marked = not newer
        return True

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
        path = _normal(path)
        payload = payload or {}
        if os.path.lexists(path):
            cls.check(path)
            if not replace:
                raise RefereeError(already_holds_a_game(path))
            with cls.open(path) as session:
                return session._append("new", summary, payload, state)
        return cls._create_file(path, state, summary, payload)

    @classmethod
    def _create_file(cls, path: PathText, state: dict, summary: str, payload: dict) -> int:
        with _refusing_bad_rows(path, writing=True):
            _check_new_row("new", summary, state)
        folder, name = os.path.split(path)
        if not os.path.isdir(folder or "."):
            raise SessionError(f"{path}: folder {folder or '.'} does not exist")
        temp = os.path.join(folder, f".{name}.{os.getpid()}.creating")
        payload = {**payload, clock.KEY: clock.start(_time())}  # the turn clock starts
        row: Row = (1, _now(), "new", summary, json.dumps(payload), json.dumps(state))
        try:
            conn = sqlite3.connect(temp, isolation_level=None)
            try:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("PRAGMA journal_mode = WAL")
                conn.executescript(_SCHEMA)
                conn.execute(_INSERT, (*row, row_crc(row)))
            finally:
                conn.close()  # the last close checkpoints the WAL into the file
            with open(temp, "rb+") as handle:
                os.fsync(handle.fileno())
            try:
                os.link(temp, path)  # atomic, and never replaces a file created meanwhile
            except FileExistsError:
                raise RefereeError(f"{path} was created by another command just now") from None
        except (sqlite3.Error, OSError) as error:
            raise session_media.unusable(path, error, "cannot create session", True) from None
        finally:
            for leftover in (temp, f"{temp}-wal", f"{temp}-shm"):
                with contextlib.suppress(OSError):  # a read-only folder has none to remove
                    if os.path.lexists(leftover):
                        os.unlink(leftover)
        session_verified.save(path, SCHEMA_VERSION, session_verified.Mark(
            1, row_crc(row), 1, Seqs(), [], set()))  # after the unlink: it changes the ctime
        return 1

    # ── reading ────────────────────────────────────────────────────────────────
    def _current(self) -> Row:
        return self._new[-1] if self._new else self._last

    def _state_text(self, row: Row) -> str:
        """A row's state as the JSON text the referee wrote: a delta (format 2,
        state_delta) rebuilt from its anchor's row, read (and checked) once."""
        stored = row[5]
        text = self._texts.get(row[0])
        if text is not None:
            return text
        if self._version == 1 or not isinstance(stored, str) or not state_delta.is_delta(stored):
            return stored
        where = f"event #{row[0]}: state"
        with _refusing_bad_rows(self.path):
            anchor, changes = state_delta.split(row[0], stored, where)
            text = state_delta.applied(self._anchor_state(anchor, where), changes, where)
        self._texts[row[0]] = text
        return text

    def _anchor_state(self, anchor: int, where: str) -> dict:
        """An anchor's whole state as values, parsed (and checked) once a command: its
        deltas are rebuilt from it, and a new delta is made against it."""
        state = self._anchors.get(anchor)
        if state is None:
            state = self._anchors[anchor] = state_delta.anchor_state(self._row(anchor)[5], where)
        return state

    def _whole(self, row: Row) -> Row:
        """`row` with its state as JSON text (`_state_text`)."""
        return (*row[:5], self._state_text(row))  # type: ignore[return-value]

    @property
    def state(self) -> dict:
        """The current game state (a fresh copy each time)."""
        self._check_open()
        return json.loads(self._state_text(self._current()))

    @property
    def last_seq(self) -> int:
        return self._last[0] + len(self._new)

    @property
    def next_seq(self) -> int:
        """The seq the next recorded event will get."""
        return self.last_seq + 1

    def rng(self, command: str = "", digest: str | None = None) -> random.Random:
        """A command's randomness: `Random` seeded from the game's seed, the current state
        and the command's name, so the same command on the same state rolls the same dice
        (after `undo`, typing the command again gives the dice it gave before: referee
        dice cannot be rolled again at will). `digest`: the state's `state_digest()` taken
        before the command changed it (default: now). Without a game seed (a session from
        before seeds were always stored), the OS."""
        import random

        seed = self.state.get("seed")
        if seed is None:
            return random.SystemRandom()
        return random.Random(f"{seed}/{digest or self.state_digest()}/{command}")

    def state_digest(self) -> str:
        """A short digest of the current state (its canonical JSON)."""
        import hashlib

        canonical = json.dumps(self.state, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    def _rows_between(self, first: int, last: int) -> list[Row]:
        """Rows `first..last` (at most `_last`), each CRC checked: read from the file once."""
        wanted = [seq for seq in range(first, last + 1) if seq not in self._read]
        if wanted:
            own = self._conn is None
            # after `let_go`: a read of its own (the rows are append-only)
            conn = _connect(self.path, session_media.read_mode(self.path, False)) \
                if self._conn is None else self._conn
            try:
                found = conn.execute(_SELECT_RANGE, (wanted[0], wanted[-1])).fetchall()
            except sqlite3.DatabaseError as error:
                raise session_media.unusable(self.path, error) from None
            finally:
                if own:
                    conn.close()
            by_seq = {row[0]: row for row in found}
            for seq in wanted:
                *fields, crc = by_seq.get(seq, (seq, "", "", "", "", "", None))
                row: Row = tuple(fields)  # type: ignore[assignment]
                if row_crc(row) != crc:
                    raise SessionError(f"{self.path}: damaged session file (event #{seq})")
                with _refusing_bad_rows(self.path):  # its content, as on a whole check
                    state_schema.check_row(row)
                self._read[seq] = row
        return [self._read[seq] for seq in range(first, last + 1)]

    def _row(self, seq: int) -> Row:
        """Event `seq`'s row (its CRC checked when read from the file)."""
        opened = self._last[0]
        if seq > opened:
            return self._new[seq - opened - 1]
        if seq == opened:
            return self._last
        return self._rows_between(seq, seq)[0]

    @overload
    def log(self, with_states: Literal[False] = False, last: int | None = None
            ) -> list[Event]: ...

    @overload
    def log(self, with_states: Literal[True], last: int | None = None
            ) -> list[tuple[Event, dict]]: ...

    def log(self, with_states: bool = False, last: int | None = None
            ) -> list[Event] | list[tuple[Event, dict]]:
        """Every event, oldest first (with `last`: only the last `last` events), each
        marked whether it is currently undone."""
        self._check_open()
        opened, newest = self._last[0], self.last_seq
        first = 1 if last is None else max(1, newest - last + 1)
        rows = self._rows_between(first, opened - 1) if first < opened else []
        rows += [self._last] if first <= opened else []
        rows += self._new[max(0, first - opened - 1):]
        reverted = self._stacks()[3]
        with _refusing_bad_rows(self.path):
            events = [
                Event(seq, ts, kind, summary,
                      state_schema.parse(payload, f"event #{seq}: payload"), seq in reverted)
                for seq, ts, kind, summary, payload, _ in rows
            ]
        if with_states:
            return [(e, self._state_at(e.seq)) for e in events]
        return events

    def _stacks(self) -> Stacks:
        self._check_open()
        return self._stacks_now()

    def _stacks_now(self) -> Stacks:
        if not self._new:
            return self._history
        return _undo_stacks([(r[0], r[2], r[4]) for r in self._new], self._history)

    def _state_at(self, seq: int) -> dict:
        """An earlier event's state, checked (on open only the current one is)."""
        with _refusing_bad_rows(self.path):
            return state_schema.load_state(
                self._state_text(self._row(seq)), self._version, f"event #{seq}: state"
            )

    def check_card_names(self, db: Any) -> None:
        """The state the session was opened at names only cards of `db` (the database the
        command loaded: state_cards), or of the game it keeps (`kept_game`); else a
        SessionError saying where (exit 2)."""
        from referee import state_cards

        seq = self._last[0]
        self._check_open()
        with _refusing_bad_rows(self.path):
            state_cards.check(json.loads(self._state_text(self._last)), db,
                              f"event #{seq}: state")

    def kept_game(self) -> Any:
        """The game's definition kept by the `new` event that began the current game
        (referee/kept.py: a `KeptGame`, every value checked; a damaged one is refused as
        an invalid session file), or None for a session made before games were kept. The
        state the session was opened at must name only its cards (state_cards.check_kept).
        One row read (that event's), none when it is the current row."""
        from referee import kept, state_cards

        self._check_open()
        base = self._stacks()[0]
        row = self._row(base)
        where = f"event #{base}: payload"
        with _refusing_bad_rows(self.path):
            state = json.loads(self._state_text(self._last))
            game = kept.read_row(row[4], state, where, (base, row[1]))
            if game is not None:
                state_cards.check_kept(state, game, f"event #{self._last[0]}: state")
            return game

    def _summary_of(self, seq: int) -> str:
        return self._row(seq)[3]

    # ── writing ────────────────────────────────────────────────────────────────
    def record(self, kind: str, summary: str, payload: dict, new_state: dict) -> int:
        """Append one event whose state is `new_state`; returns its seq."""
        if kind in ("new", "undo", "redo"):
            raise ValueError(f"{kind!r} events are written by Session itself")
        return self._append(kind, summary, payload, new_state)

    def _append(self, kind: str, summary: str, payload: dict, new_state: dict) -> int:
        if not self.write:
            raise RuntimeError("session opened read-only")
        payload = {**payload, clock.KEY: self._clock_after(kind)}
        seq, text = self.next_seq, json.dumps(new_state)
        stored = text if kind == "new" else self._stored(seq, text, new_state)
        row: Row = (seq, _now(), kind, summary, json.dumps(payload), stored)
        self._texts[seq] = text
        if not self.lock_late:  # else written on leaving `with` (`_write_late`)
            self._db().execute(_INSERT, (*row, row_crc(row)))
        else:
            self._check_open()
        self._new.append(row)
        self._appended = (row, clock.read(payload), clock.on_clock(new_state))
        return row[0]

    def _stored(self, seq: int, text: str, state: dict) -> str:
        """How event `seq` stores its state `text`: a delta against the anchor of the
        current event, or whole (state_delta.encode)."""
        current = self._current()
        if current[0] == 0:
            return text
        anchor = state_delta.anchor_of(current[0], current[5])
        with _refusing_bad_rows(self.path):
            old = self._anchor_state(anchor, f"event #{anchor}: state")
        return state_delta.encode_against(seq, text, state, anchor, old)

    def _clock_after(self, kind: str) -> dict:
        """The turn clock of the event about to be appended (referee/clock.py): the time
        since the current event charged to whoever was on the clock; a `new` starts it.
        After an event this command appended, its clock and player are known (`_appended`):
        a long run of appends (a script, a test's 20,000) parsed the event's payload and
        whole state back every time only to learn them."""
        if kind == "new":
            return clock.start(_time())
        current = self._current()
        if self._appended is not None and self._appended[0] is current:
            _, before, player = self._appended  # this command's own last row: known
        else:
            before = clock.read(json.loads(current[4]))
            player = clock.on_clock(json.loads(self._state_text(current)))
        return clock.charged(before, player, _time())

    def clock(self) -> dict:
        """The turn clock now (`clock.standing`): each player's seconds, who is running."""
        current = self._current()
        state = json.loads(self._state_text(current))
        return clock.standing(clock.read(json.loads(current[4])), state, _time())

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
        reverted = list(reversed(done.last(n)))
        target = done.at(-n - 1) if n < len(done) else base
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
