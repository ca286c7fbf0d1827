"""A long session costs no more to read than a short one (issue 23, item 4): a command
reads the current row and what it uses, not the log; each row is checked whole once (the
mark, referee/session_verified.py) and the rows a command reads on every command; a
write is one transaction made durable with two fsyncs; `log` pages. Counted, not timed:
SQL statements and SQLite VM steps through the connection, fsyncs through strace."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee import session as store
from referee import session_verified
from referee.session import Session
from tests.harness import ROOT, process_env
from tests.referee._core_support import cli, make_session, one_line_error, whole_rows

LONG = 20_000


def grow(path: Path, events: int) -> None:
    """`events` mt events more, through the library, in one transaction (fast). One state
    changed from one event to the next (`record` writes its JSON at once), not a copy
    read back each time."""
    with Session.open(path) as session:
        state = session.state
        for i in range(events):
            state["table"]["Ann"]["mt"] += 1 if i % 2 == 0 else -1
            session.record("mt", f"Ann MT {i}", {"i": i}, state)


@pytest.fixture(scope="module")
def long_session(tmp_path_factory) -> Path:
    """20,000 events. Written without the check a command makes of each row it writes
    (store._check_new_row, two thirds of the cost here): the rows are the first's shape one
    MT apart, and the tests' reads and first opens check them, which is what they measure."""
    path = tmp_path_factory.mktemp("long") / "long.db"
    make_session(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store, "_check_new_row", lambda kind, summary, state: None)
        grow(path, LONG - 1)
    return path


class Traced:
    """Every SQL statement and the SQLite VM steps of the connections a command opens."""

    def __init__(self, monkeypatch) -> None:
        self.sql: list[str] = []
        self.steps = 0
        connect = store._connect

        def traced(*args, **kwargs):
            conn = connect(*args, **kwargs)
            conn.set_trace_callback(self.sql.append)
            conn.set_progress_handler(self._step, 100)
            return conn

        monkeypatch.setattr(store, "_connect", traced)

    def _step(self) -> int:
        self.steps += 100
        return 0

    def selects(self) -> list[str]:
        return [s for s in self.sql if "FROM events" in s]


def copy_of(source: Path, tmp_path: Path, name: str) -> Path:
    """A copy with its own mark (as the command that wrote it would have left)."""
    target = tmp_path / name
    shutil.copyfile(source, target)
    Session.check(target)  # the first open checks it whole and records the mark
    return target


# ── bounded reads ─────────────────────────────────────────────────────────────
def test_status_of_a_long_session_reads_as_much_as_a_short_one(long_session, tmp_path,
                                                                monkeypatch):
    short = tmp_path / "short.db"
    make_session(short)
    grow(short, 9)
    steps = {}
    for name, path in (("short", short), ("long", long_session)):
        Session.check(path)
        traced = Traced(monkeypatch)
        cli("--session", str(path), "status", check=0)
        assert not any("quick_check" in s for s in traced.sql), traced.sql
        # the current row, and the anchor its state is a delta of (format 2): no more
        selects = traced.selects()
        assert selects[0] == store._SELECT_LAST and len(selects) == 2, selects
        assert "WHERE seq BETWEEN" in selects[1], selects
        steps[name] = traced.steps
        monkeypatch.undo()
    assert steps["long"] <= steps["short"] + 200, steps  # the same work, give or take


def test_the_first_open_checks_the_whole_file_once(long_session, tmp_path, monkeypatch):
    path = tmp_path / "fresh.db"
    shutil.copyfile(long_session, path)  # a copy: a new file the referee has not checked
    traced = Traced(monkeypatch)
    cli("--session", str(path), "status", check=0)
    # whole, in one pass of SQLite over the rows (issue 36): the row-by-row check only
    # when that pass doubts something
    assert "PRAGMA quick_check(3)" in traced.sql and store._BULK in traced.sql
    assert store._SELECT_ALL not in traced.sql
    traced.sql.clear()
    cli("--session", str(path), "status", check=0)
    assert "PRAGMA quick_check(3)" not in traced.sql and store._BULK not in traced.sql
    assert store._SELECT_ALL not in traced.sql


def test_undo_reads_the_rows_it_restores_and_names(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 30)
    Session.check(path)
    traced = Traced(monkeypatch)
    cli("--session", str(path), "undo", "2", check=0)
    # the current row (#31, undone) and its anchor (#1: its state is a delta of #1's), then
    # #30 (undone: its summary), #29 (restored, a delta of #1 too)
    ranges = [s for s in traced.selects() if "BETWEEN" in s]
    assert traced.selects()[0] == store._SELECT_LAST, traced.selects()
    assert [r.split("BETWEEN ")[1].split(" ORDER")[0] for r in ranges] == [
        "1 AND 1", "30 AND 30", "29 AND 29"], ranges
    assert store._SELECT_ALL not in traced.sql


# ── tampering still caught ────────────────────────────────────────────────────
def _edit_row(path: Path, seq: int, mt: int) -> None:
    """Change event `seq`'s state in place (a byte edit: its CRC no longer matches), then
    give the mark the file's new identity, as if a referee command had made the change
    (the instant the mark cannot see): only the checks on the rows read remain."""
    state = json.loads(whole_rows(path)[seq - 1][5])
    state["table"]["Ann"]["mt"] = mt
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_append_only_update")
    conn.execute("UPDATE events SET state_json = ? WHERE seq = ?", (json.dumps(state), seq))
    conn.close()
    real, where = session_verified._where(path)
    data = json.loads(Path(where).read_text())
    data["file"] = session_verified.identity(path)
    Path(where).write_text(json.dumps(data))


def test_a_changed_current_row_is_refused_even_behind_the_mark(tmp_path):
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 5)
    Session.check(path)
    _edit_row(path, 6, 99)
    for args in (["status"], ["mt", "Ann", "+1"]):
        proc = cli("--session", str(path), *args)
        assert proc.returncode == 2 and "damaged session file (event #6)" in one_line_error(proc)


def test_a_changed_earlier_row_is_refused_when_a_command_reads_it(tmp_path):
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 5)
    Session.check(path)
    _edit_row(path, 4, 99)
    cli("--session", str(path), "status", check=0)  # it does not read event #4
    cli("--session", str(path), "log", "--last", "2", check=0)
    for args in (["undo", "2"], ["log"]):  # undo 2 restores #4; the whole log shows it
        proc = cli("--session", str(path), *args)
        assert proc.returncode == 2 and "damaged session file (event #4)" in one_line_error(proc)


def test_a_file_changed_outside_the_referee_is_checked_whole_again(tmp_path):
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 5)
    Session.check(path)
    data = bytearray(path.read_bytes())
    where = data.index(b'"mt": ') + 6  # an early event's state: status does not read it
    data[where] = ord("9") if data[where] != ord("9") else ord("8")
    path.write_bytes(bytes(data))  # the file's identity (ctime) changes: the mark is void
    proc = cli("--session", str(path), "status")
    line = one_line_error(proc)
    assert proc.returncode == 2 and "damaged session file (event #" in line
    assert "(event #6)" not in line


@pytest.mark.parametrize("column", ["ts", "summary", "payload_json", "state_json", "crc"])
def test_a_text_stored_as_a_blob_of_its_bytes_is_refused_on_the_first_open(tmp_path, column):
    """One bit flipped in a record's header turns a text into a blob of the very same
    bytes, which a CRC of the bytes cannot see: an earlier ordinary row so damaged (status
    does not read it) is refused by the first open all the same, in one line, the file
    untouched (the bulk check's column types, session._row_sound)."""
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 5)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_append_only_update")
    conn.execute(f"UPDATE events SET {column} = CAST({column} AS BLOB) WHERE seq = 3")
    assert conn.execute(f"SELECT typeof({column}) FROM events WHERE seq = 3").fetchone() == (
        "blob",)
    conn.close()
    before = path.read_bytes()
    proc = cli("--session", str(path), "status")
    assert proc.returncode == 2 and "damaged session file (event #3)" in one_line_error(proc)
    assert path.read_bytes() == before


def test_rows_after_the_mark_are_checked_as_on_a_whole_check(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 3)
    Session.check(path)
    real, where = session_verified._where(path)
    mark = Path(where).read_text()
    conn = sqlite3.connect(path, isolation_level=None)  # a row with a right CRC, bad content
    row = (5, "2026-01-01T00:00:00+00:00", "mt", "Ann MT", "{}", '{"game": "x-statix"}')
    conn.execute(store._INSERT, (*row, store.row_crc(row)))
    conn.close()
    data = json.loads(mark)
    data["file"] = session_verified.identity(path)  # as if a referee wrote it (no mark)
    Path(where).write_text(json.dumps(data))
    traced = Traced(monkeypatch)
    proc = cli("--session", str(path), "status")
    assert proc.returncode == 2 and "event #5: state" in one_line_error(proc)
    assert any("BETWEEN 4 AND 5" in s for s in traced.sql), traced.sql  # only the new rows


def test_a_mark_is_a_cache_a_missing_one_costs_only_time(tmp_path, monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    path = tmp_path / "s.db"
    make_session(path)
    cli("--session", str(path), "mt", "Ann", "+1", check=0)
    traced = Traced(monkeypatch)
    cli("--session", str(path), "status", check=0)
    assert "PRAGMA quick_check(3)" in traced.sql  # no mark: checked whole, as before


# ── durability: one transaction, two fsyncs ───────────────────────────────────
def test_a_write_command_is_one_transaction_on_a_wal_file(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    make_session(path)
    Session.check(path)
    traced = Traced(monkeypatch)
    cli("--session", str(path), "mt", "Ann", "+1", check=0)
    begins = [s for s in traced.sql if s.startswith("BEGIN")]
    assert begins == ["BEGIN IMMEDIATE"] and traced.sql.count("COMMIT") == 1
    assert "PRAGMA synchronous = OFF" in traced.sql  # SQLite syncs nothing itself ...
    assert traced.sql.index("PRAGMA wal_checkpoint(PASSIVE)") > traced.sql.index("COMMIT")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    assert not Path(f"{path}-wal").exists()  # ... the file holds every event on its own


def test_a_session_in_another_journal_mode_keeps_sqlites_own_syncs(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    make_session(path)
    conn = sqlite3.connect(path)  # as another program may leave it
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    traced = Traced(monkeypatch)
    cli("--session", str(path), "mt", "Ann", "+3", check=0)
    assert "PRAGMA synchronous = FULL" in traced.sql
    assert not any("wal_checkpoint" in s for s in traced.sql)
    assert "Ann MT +3" in cli("--session", str(path), "log", check=0).stdout


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace (apt install strace)")
def test_mt_makes_two_fsyncs_and_status_none(tmp_path):
    path = tmp_path / "s.db"
    make_session(path)
    counts = {}
    for args in (["status"], ["mt", "Ann", "+1"], ["status"]):
        out = tmp_path / "trace.txt"
        # a process: strace counts its system calls
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", str(out),
                        sys.executable, "-m", "referee", "--session", str(path), *args],
                       check=True, env=process_env(), cwd=ROOT, capture_output=True, timeout=60)
        counts[" ".join(args)] = sum("sync(" in line for line in out.read_text().splitlines())
    assert counts == {"status": 0, "mt Ann +1": 2}, counts


# ── log pages ─────────────────────────────────────────────────────────────────
def test_log_last_shows_the_last_events_and_says_how_many_are_earlier(long_session, tmp_path,
                                                                     monkeypatch):
    path = copy_of(long_session, tmp_path, "paged.db")
    traced = Traced(monkeypatch)
    text = cli("--session", str(path), "log", "--last", "3", check=0).stdout.splitlines()
    assert text[0] == f"({LONG - 3} earlier events: log --last N or --all)"
    assert [int(line.split()[0]) for line in text[1:]] == [LONG - 2, LONG - 1, LONG]
    assert any(f"BETWEEN {LONG - 2} AND {LONG - 1}" in s for s in traced.sql), traced.sql
    data = json.loads(cli("--session", str(path), "log", "--last", "2", "--json").stdout)
    assert data["earlier"] == LONG - 2 and [e["seq"] for e in data["events"]] == [LONG - 1, LONG]


def test_log_in_a_pipe_shows_everything_and_all_conflicts_with_last(tmp_path):
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 4)
    lines = cli("--session", str(path), "log", check=0).stdout.splitlines()
    assert [int(line.split()[0]) for line in lines] == [1, 2, 3, 4, 5]
    assert cli("--session", str(path), "log", "--all", check=0).stdout.splitlines() == lines
    assert cli("--session", str(path), "log", "--last", "9", check=0).stdout.splitlines() == lines
    proc = cli("--session", str(path), "log", "--all", "--last", "2")
    assert proc.returncode == 2 and "--last N or --all" in one_line_error(proc)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_log_at_a_terminal_shows_a_screenful(tmp_path):
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 30)
    leader, follower = os.openpty()
    # a process: its stdout must be a terminal (a pty)
    proc = subprocess.Popen([sys.executable, "-m", "referee", "--session", str(path), "log"],
                            stdout=follower, stderr=subprocess.PIPE, cwd=ROOT,
                            env=process_env({"LINES": "12", "COLUMNS": "100"}))
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal's other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(leader)
    lines = b"".join(chunks).decode().splitlines()
    assert lines[0] == "(21 earlier events: log --last N or --all)"
    assert [int(line.split()[0]) for line in lines[1:]] == list(range(22, 32))


# ── issue 36, item 5: a write costs the same at event 10 and 20,000 ────────────────
def _write_peak(path: Path) -> int:
    """Bytes allocated at the peak of one write through the library (the mark read and
    recorded, the undo history replayed): 20,000 seqs as ints would be ~700 KB."""
    import tracemalloc

    Session.check(path)  # the mark
    tracemalloc.start()
    with Session.open(path) as session:
        state = session.state
        state["table"]["Ann"]["mt"] += 1
        session.record("mt", "Ann MT +1", {}, state)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_a_write_allocates_no_more_at_20000_events_than_at_10(long_session, tmp_path):
    short = tmp_path / "short.db"
    make_session(short)
    grow(short, 9)
    long = copy_of(long_session, tmp_path, "long-write.db")
    peaks = {name: _write_peak(path) for name, path in (("short", short), ("long", long))}
    assert peaks["long"] < peaks["short"] + 64 * 1024, peaks
    real, where = session_verified._where(long)
    assert json.loads(Path(where).read_text())["done"] == [[2, LONG]]  # runs, not seqs


def _history_row_by_row(path: Path, monkeypatch) -> tuple:
    with monkeypatch.context() as patched:
        patched.setattr(Session, "_verify_bulk", lambda self: False)
        patched.setenv("PNP_CACHE_DIR", "off")
        with Session.open(path, write=False) as session:
            return session._history, session._last


def test_the_bulk_check_finds_the_history_the_row_by_row_check_finds(tmp_path, monkeypatch):
    """Undo, redo and a second game among ordinary events: the one-pass check (SQLite)
    and the row-by-row check (Python) agree on what undo and redo may do next."""
    path = tmp_path / "s.db"
    make_session(path)
    grow(path, 6)
    for args in (["undo", "2"], ["redo"], ["mt", "Ann", "+2"], ["undo", "3"], ["redo", "1"],
                 ["new", "x-statix", "--players", "Ann,Bob", "--force"], ["mt", "Ann", "+1"],
                 ["undo"]):
        cli("--session", str(path), *args, check=0)
    grow(path, 3)
    monkeypatch.setenv("PNP_CACHE_DIR", "off")  # no mark: checked whole
    traced = Traced(monkeypatch)
    with Session.open(path, write=False) as session:
        bulk = (session._history, session._last)
    assert store._BULK in traced.sql and store._SELECT_ALL not in traced.sql
    monkeypatch.undo()
    assert bulk == _history_row_by_row(path, monkeypatch)
    # #13 began the second game; #14 undone by #15; #16-#18 done. Reverted for good: #7
    # (undo 2, redo 1), #10 and #6 (undo 3, redo 1), #14
    assert bulk[0][:3] == (13, [16, 17, 18], []) and bulk[0][3] == {6, 7, 10, 14}, bulk


def test_a_payload_sqlite_doubts_is_read_by_python(tmp_path, monkeypatch):
    """A payload that is JSON to Python but not plainly an object to SQLite's check (NaN,
    a leading line break) is parsed by Python, row by row: accepted as before."""
    path = tmp_path / "s.db"
    make_session(path)
    with Session.open(path) as session:
        for payload in ({"x": float("nan")}, {"y": 1}):
            state = session.state
            session.record("mt", "odd", payload, state)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_append_only_update")
    old = conn.execute("SELECT seq, ts, kind, summary, payload_json, state_json FROM events "
                       "WHERE seq = 3").fetchone()
    new = (*old[:4], "\n" + old[4], old[5])
    conn.execute("UPDATE events SET payload_json = ?, crc = ? WHERE seq = 3",
                 (new[4], store.row_crc(new)))
    conn.close()
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    traced = Traced(monkeypatch)
    cli("--session", str(path), "log", check=0)
    assert store._BULK in traced.sql and store._SELECT_ALL not in traced.sql
