"""Sessions: scripted undo/redo, tokens that never go below zero, corrupt files refused
untouched, concurrent writers serialised, SIGKILL at any instant never breaks the file."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.session import Session
from tests.harness import ROOT, process_env, run_process
from tests.referee._core_support import (
    bundled_db,
    cli,
    make_session,
    one_line_error,
    read_log,
    referee_json,
)


def mt_of(path: Path) -> dict[str, int]:
    state = read_log(path)[-1][1]
    return {p: state["table"][p]["mt"] for p in state["players"]}


def test_scripted_undo_redo(tmp_path):
    db = tmp_path / "game.db"
    start = {p: s["mt"] for p, s in make_session(db)["table"].items()}
    s = ("--session", str(db))
    cli(*s, "mt", "Ann", "+5", check=0)
    cli(*s, "mt", "Bob", "-2", check=0)
    cli(*s, "mt", "ann", "+1", check=0)  # names match case-insensitively
    assert mt_of(db) == {"Ann": start["Ann"] + 6, "Bob": start["Bob"] - 2}

    undone = referee_json(*s, "undo", "2")
    assert undone["undone"] == [4, 3]
    assert mt_of(db) == {"Ann": start["Ann"] + 5, "Bob": start["Bob"]}

    referee_json(*s, "redo")
    assert mt_of(db) == {"Ann": start["Ann"] + 5, "Bob": start["Bob"] - 2}

    cli(*s, "mt", "Ann", "=30", check=0)  # a new event clears what can be redone
    proc = cli(*s, "redo")
    assert proc.returncode == 1 and "nothing to redo" in one_line_error(proc)
    assert mt_of(db)["Ann"] == 30

    proc = cli(*s, "undo", "4")  # effective events now: #2, #3 (redone), #8
    assert proc.returncode == 1 and "only 3" in one_line_error(proc)
    cli(*s, "undo", "3", check=0)
    assert mt_of(db) == start
    proc = cli(*s, "undo")
    assert proc.returncode == 1 and "nothing to undo" in one_line_error(proc)

    events = referee_json(*s, "log")["events"]
    assert [e["kind"] for e in events] == ["new", "mt", "mt", "mt", "undo", "redo", "mt", "undo"]
    assert [e["seq"] for e in events] == list(range(1, 9))
    assert [e["seq"] for e in events if e["undone"]] == [2, 3, 4, 7]
    assert all(e["ts"] for e in events)
    text = cli(*s, "log", check=0).stdout
    assert "undo 3:" in text and "[undone]" in text

    # redo all three, in order
    referee_json(*s, "redo", "3")
    assert mt_of(db) == {"Ann": 30, "Bob": start["Bob"] - 2}


@pytest.mark.parametrize("args", [["undo", "0"], ["redo", "-1"], ["undo", "x"]])
def test_undo_redo_counts_must_be_positive(tmp_path, args):
    db = tmp_path / "game.db"
    make_session(db)
    proc = cli("--session", str(db), *args)
    assert proc.returncode == 2 and one_line_error(proc)


def test_log_limit_and_status_text(tmp_path):
    db = tmp_path / "game.db"
    make_session(db)
    cli("--session", str(db), "mt", "Ann", "+1", check=0)
    events = referee_json("--session", str(db), "log", "--limit", "1")["events"]
    assert [e["kind"] for e in events] == ["mt"]
    out = cli("--session", str(db), "status", check=0).stdout
    assert "X-Statix" in out and "Ann" in out and "MT" in out


def test_session_from_environment_variable(tmp_path):
    db = tmp_path / "env.db"
    make_session(db)
    proc = cli("mt", "Bob", "+2", "--json", env={"REFEREE_SESSION": str(db)}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["player"] == "Bob"


def test_default_session_file_in_the_current_folder(tmp_path):
    make_session(tmp_path / "referee-session.db")
    assert cli("status", cwd=tmp_path).returncode == 0


def test_mt_never_below_zero(tmp_path):
    db = tmp_path / "game.db"
    make_session(db)
    before = db.read_bytes()
    have = mt_of(db)["Ann"]
    proc = cli("--session", str(db), "mt", "Ann", f"-{have + 1}")
    assert proc.returncode == 1
    line = one_line_error(proc)
    assert "below zero" in line and "XS-2" in line
    assert mt_of(db)["Ann"] == have and len(read_log(db)) == 1
    assert db.read_bytes() == before
    cli("--session", str(db), "mt", "Ann", f"-{have}", check=0)
    assert mt_of(db)["Ann"] == 0


def test_ft_never_below_zero_and_only_on_heroes_in_play(tmp_path):
    db = tmp_path / "game.db"
    cards = bundled_db()  # ft reads the hero's marketing from the cards: the session's own
    hero = cards.games["x-statix"].cards(type="Hero")[2].name
    make_session(db, heroes={"Bob": [(hero, 1)]}, db=cards)
    s = ("--session", str(db))
    data = referee_json(*s, "ft", hero.lower(), "+2")
    assert (data["hero"], data["player"], data["before"], data["after"]) == (hero, "Bob", 1, 3)
    proc = cli(*s, "ft", hero, "-4")
    assert proc.returncode == 1 and "below zero" in one_line_error(proc)
    proc = cli(*s, "ft", "Hero 9", "+1")
    assert proc.returncode == 1 and "not in play" in one_line_error(proc)
    assert len(read_log(db)) == 2
    state = read_log(db)[-1][1]
    assert state["table"]["Bob"]["heroes"][0]["ft"] == 3


@pytest.mark.parametrize("amount", ["5", "+x", "", "++1"])
def test_token_amount_must_be_signed(tmp_path, amount):
    db = tmp_path / "game.db"
    make_session(db)
    proc = cli("--session", str(db), "mt", "Ann", amount)
    assert proc.returncode == 2 and one_line_error(proc)


def test_unknown_player_is_bad_input(tmp_path):
    db = tmp_path / "game.db"
    make_session(db)
    proc = cli("--session", str(db), "mt", "Zed", "+1")
    assert proc.returncode == 2 and "Ann, Bob" in one_line_error(proc)


def test_tokens_refused_in_an_xo_session(tmp_path):
    db = tmp_path / "xo.db"
    make_session(db, game="xo")
    proc = cli("--session", str(db), "mt", "Ann", "+1")
    assert proc.returncode == 1 and "XO!" in one_line_error(proc)
    out = cli("--session", str(db), "status", check=0).stdout
    assert "chapter 1 of 7" in out


def test_missing_session_is_exit_2(tmp_path):
    proc = cli("--session", str(tmp_path / "nothing.db"), "status")
    assert proc.returncode == 2 and "referee new" in one_line_error(proc)
    assert not (tmp_path / "nothing.db").exists()


def test_new_refuses_to_replace_a_game_without_force(tmp_path):
    db = tmp_path / "game.db"
    make_session(db)
    before = db.read_bytes()
    with pytest.raises(Exception, match="--force"):
        make_session(db)
    assert db.read_bytes() == before


# ── corrupt and foreign files ────────────────────────────────────────────────
def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('shopping list')")
    conn.commit()
    conn.close()


def _garbage(path: Path) -> None:
    path.write_bytes(random.Random(3).randbytes(8192))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _truncated_session(path: Path) -> None:
    make_session(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _damaged_pages(path: Path) -> None:
    make_session(path)
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(page, len(data), page):  # every page's b-tree header
        data[offset : offset + 12] = b"\xff" * 12
    path.write_bytes(bytes(data))


def _text_file(path: Path) -> None:
    path.write_text("SQLite format 3 is what this pretends to be\n" * 10)


@pytest.mark.parametrize(
    "spoil", [_foreign_sqlite, _garbage, _empty, _truncated_session, _damaged_pages, _text_file]
)
def test_corrupt_or_foreign_session_exit_2_and_untouched(tmp_path, spoil):
    db = tmp_path / "session.db"
    spoil(db)
    before = db.read_bytes()
    for args in (
        ["status"],
        ["log"],
        ["mt", "Ann", "+1"],
        ["undo"],
        ["redo"],
        ["new", "x-statix", "--players", "Ann,Bob", "--force"],
        ["new", "xo", "--players", "Ann,Bob"],
    ):
        proc = cli("--session", str(db), *args)
        assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
        line = one_line_error(proc)
        assert str(db) in line
        assert db.read_bytes() == before, args


def test_damage_deep_in_a_long_log_is_refused_before_writing(tmp_path):
    db = tmp_path / "session.db"
    make_session(db)
    for _ in range(40):  # a log many pages long
        with Session.open(db) as s:
            state = s.state
            state["table"]["Ann"]["mt"] += 1
            s.record("mt", "Ann +1", {}, state)
    data = bytearray(db.read_bytes())
    hits = [i for i in range(len(data)) if data.startswith(b'"mt": ', i)]
    where = hits[len(hits) // 2] + 6  # a digit of an MT balance in a middle event
    data[where] = ord("9") if data[where] != ord("9") else ord("8")  # still valid JSON
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    for args in (["mt", "Ann", "+1"], ["log"], ["status"]):
        proc = cli("--session", str(db), *args)
        assert proc.returncode == 2 and "damaged" in one_line_error(proc), args
    assert db.read_bytes() == before


def test_corrupt_session_in_a_real_process(tmp_path):
    db = tmp_path / "session.db"
    _damaged_pages(db)
    before = db.read_bytes()
    # the real entry point's exit code and stderr: sqlite's error must not escape it
    proc = run_process("referee", "--session", str(db), "mt", "Ann", "+1")
    assert proc.returncode == 2 and "damaged" in one_line_error(proc)
    assert db.read_bytes() == before


# ── concurrency ──────────────────────────────────────────────────────────────
CLI_WRITER = """
import sys
from tests.harness import run_cli
path, player, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()  # both start writing at the same moment
for _ in range(count):
    for who, amount in (("Ann", "+1"), (player, "+0")):
        done = run_cli("referee", "--session", path, "mt", who, amount)
        if done.returncode != 0:
            sys.exit(done.stderr)
"""


def contend(script: str, db: Path, count: int) -> None:
    """`script` (argv: the session, a player, `count`) in two processes at once, one a
    player, started together; each must end with exit 0."""
    procs = [  # processes: two writers at once is the point
        subprocess.Popen(
            [sys.executable, "-c", script, str(db), player, str(count)],
            env=process_env(),
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for player in ("Ann", "Bob")
    ]
    for proc in procs:
        assert proc.stdout.readline() == "ready\n"
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err


def test_two_concurrent_writers_lose_nothing(tmp_path):
    """Two processes each run the real `mt` command (its whole read-change-write, through
    the CLI, in the process) over and over on one session: every command is one event, in
    order, and no change is lost. One process a writer, not one a command: what contends
    is the commands' transactions, not the interpreters' start-ups."""
    db = tmp_path / "game.db"
    start = make_session(db)["table"]["Ann"]["mt"]
    per_writer = 10
    contend(CLI_WRITER, db, per_writer)
    log = read_log(db)
    assert [e["seq"] for e, _ in log] == list(range(1, 2 + 4 * per_writer))
    assert log[-1][1]["table"]["Ann"]["mt"] == start + 2 * per_writer
    assert_consistent(log)


CONTENDER = """
import sys
from referee.session import Session
path, player, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()  # both start writing at the same moment
for _ in range(count):
    with Session.open(path) as s:
        state = s.state
        before = state["table"][player]["mt"]
        state["table"][player]["mt"] = before + 1
        s.record("mt", f"{player} +1", {"player": player, "op": "+", "amount": 1, "before": before, "after": before + 1}, state)
"""


def test_two_processes_writing_in_tight_loops_lose_nothing(tmp_path):
    db = tmp_path / "game.db"
    start = make_session(db)["table"]
    count = 60
    contend(CONTENDER, db, count)
    log = read_log(db)
    assert len(log) == 1 + 2 * count
    final = log[-1][1]["table"]
    assert final["Ann"]["mt"] == start["Ann"]["mt"] + count
    assert final["Bob"]["mt"] == start["Bob"]["mt"] + count
    assert_consistent(log)


# ── crash safety ─────────────────────────────────────────────────────────────
def assert_consistent(log: list[tuple[dict, dict]]) -> None:
    """Every mt event's state is its predecessor's state with exactly that change."""
    seqs = [event["seq"] for event, _ in log]
    assert seqs == list(range(1, len(log) + 1))
    for (_, before), (event, after) in zip(log, log[1:], strict=False):
        if event["kind"] != "mt":
            continue
        p = event["payload"]
        assert before["table"][p["player"]]["mt"] == p["before"]
        assert after["table"][p["player"]]["mt"] == p["after"]
        expected = json.loads(json.dumps(before))
        expected["table"][p["player"]]["mt"] = p["after"]
        assert after == expected


FORKER = """
import os
import signal
import sys

from referee.cli import main
from referee.session import Session


def cli(args):
    main(args, prog_name="referee")


def writer(args):  # Ann's MT one up at a time, several pages a write, till it is killed
    first = True
    while True:
        with Session.open(args[0]) as s:
            state = s.state
            state["table"]["Ann"]["mt"] += 1
            state["padding"] = "x" * 20000
            before = state["table"]["Ann"]["mt"] - 1
            s.record("mt", "Ann +1", {"player": "Ann", "op": "+", "amount": 1,
                                      "before": before, "after": before + 1}, state)
        if first:
            print("writing", flush=True)
            first = False


run, shown = {"cli": (cli, False), "writer": (writer, True)}[sys.argv[1]]
child = 0
for order in map(str.strip, iter(sys.stdin.readline, "")):
    if order == "start":  # a child runs it once, in a process of its own
        child = os.fork()
        if child == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 2) if shown else (0, 1, 2):
                os.dup2(null, fd)
            code = 1
            try:
                run(sys.argv[2:])
                code = 0
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else 1
            finally:
                os._exit(code)
        continue
    if order == "kill":
        os.kill(child, signal.SIGKILL)  # unreaped till now: the pid is still the child's
    print(os.waitpid(child, 0)[1], flush=True)
    child = 0
if child:  # the test ended before it was done with the child (a writer runs till killed)
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
"""


class Forker:
    """Real processes started again and again on one task: each a child forked from one
    process that imported the referee once (the start-up of a whole interpreter and the
    CLI each time was nine tenths of the SIGKILL tests' CPU, and is not what they test).
    `task` is "cli" (`referee ARGS`, its output thrown away) or "writer" (Ann's MT one up
    at a time in the session ARGS[0], saying "writing" once it has written)."""

    def __init__(self, task: str, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", FORKER, task, *args],
                                     env=process_env(), cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def start(self) -> None:
        self._say("start")

    def kill(self) -> int:
        """SIGKILL to the child now (if it has not ended already); its wait status."""
        self._say("kill")
        return int(self.readline())

    def wait(self) -> int:
        """The child's wait status once it ends."""
        self._say("wait")
        return int(self.readline())

    def readline(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()

    def _say(self, order: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(order + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        """The end of the tests' orders: a child still running is killed, the forking
        process ends (a test closes it whether it passed or not)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0
        self.proc.stdout.close()


def kill_cli_writes(forker: Forker, db: Path, start: int, times: int) -> int:
    """SIGKILL the CLI's `mt Ann +1` `times` times, aimed at its write; after each, the
    session opens, holds whole commands only and Ann's MT counts them. How many of the
    commands were committed before their kill."""
    t0 = time.perf_counter()
    forker.start()
    assert forker.wait() == 0
    delay = time.perf_counter() - t0
    rng = random.Random(42)
    committed = 0
    for _ in range(times):
        before = len(read_log(db))
        forker.start()
        time.sleep(delay * rng.uniform(0.9, 1.1))  # the kill's moment is what is tested
        status = forker.kill()
        log = read_log(db)  # opens: never broken
        assert_consistent(log)
        mt_events = sum(1 for e, _ in log if e["kind"] == "mt")
        assert log[-1][1]["table"]["Ann"]["mt"] == start + mt_events
        assert len(log) in (before, before + 1)  # the command happened entirely or not at all
        assert len(log) > before or os.WIFSIGNALED(status)  # not written: it was killed
        # aim at the moment of the write, whatever the machine's load: a kill that came
        # after the commit moves the next one earlier, one that came before moves it later
        landed_after = len(log) > before
        committed += landed_after
        delay *= 0.85 if landed_after else 1.15
    return committed


def test_sigkill_during_cli_writes_never_breaks_the_session(tmp_path):
    db = tmp_path / "game.db"
    start = make_session(db)["table"]["Ann"]["mt"]
    # real processes: a SIGKILL in the middle of the write is the point
    forker = Forker("cli", "--session", str(db), "mt", "Ann", "+1")
    try:
        committed = kill_cli_writes(forker, db, start, 30)
    finally:
        forker.close()
    assert 0 < committed < 30  # the kills did straddle the write
    cli("--session", str(db), "mt", "Ann", "+1", check=0)
    assert cli("--session", str(db), "status").returncode == 0


def test_sigkill_of_a_busy_writer_never_breaks_the_session(tmp_path):
    db = tmp_path / "game.db"
    make_session(db)
    rng = random.Random(7)
    forker = Forker("writer", str(db))  # real processes: SIGKILL mid-write is the point
    try:
        for _ in range(10):
            forker.start()
            assert forker.readline() == "writing\n"  # it is now writing in a loop
            time.sleep(rng.uniform(0.0, 0.05))  # the kill's moment in the writes is the test
            assert os.WIFSIGNALED(forker.kill())
            log = read_log(db)
            for (_, before), (_, after) in zip(log, log[1:], strict=False):
                assert after["table"]["Ann"]["mt"] == before["table"]["Ann"]["mt"] + 1
    finally:
        forker.close()
    assert len(log) > 10  # each writer got at least one write in before its kill
    assert cli("--session", str(db), "status").returncode == 0


def test_session_api_rolls_back_on_error(tmp_path):
    db = tmp_path / "game.db"
    make_session(db)
    with pytest.raises(RuntimeError), Session.open(db) as s:
        state = s.state
        state["table"]["Ann"]["mt"] = 99
        s.record("mt", "x", {}, state)
        raise RuntimeError("boom")
    assert len(read_log(db)) == 1


def test_seeded_session_randomness_follows_the_state_and_the_command(tmp_path):
    db = tmp_path / "game.db"
    make_session(db, seed=5)
    with Session.open(db) as s:
        a = s.rng("xs draw").random()
        assert a == random.Random(f"5/{s.state_digest()}/xs draw").random()
        assert s.rng("xs pass").random() != a
        state = s.state
        state["table"]["Ann"]["mt"] += 1
        s.record("mt", "x", {}, state)
        assert s.rng("xs draw").random() != a
        s.undo(1)
        assert s.rng("xs draw").random() == a  # the same state again: the same dice


def test_no_leftover_files_after_creation(tmp_path):
    make_session(tmp_path / "game.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.db"]
    assert os.path.getsize(tmp_path / "game.db") > 0


def test_let_go_frees_the_write_lock_and_writes_at_the_end_when_nothing_changed(tmp_path):
    """A command about to wait for a person lets go of the file (Session.let_go): another
    writer gets the lock at once; the command's events, recorded before and after, are
    written when it ends."""
    from referee.errors import RefereeError

    db = tmp_path / "game.db"
    make_session(db)
    with Session.open(db) as waiting:
        state = waiting.state
        waiting.record("note", "before the prompt", {}, state)
        waiting.let_go()
        probe = sqlite3.connect(db, timeout=0)  # would fail at once if the lock were held
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        probe.close()
        waiting.record("note", "after the prompt", {}, state)
    assert [e["summary"] for e, _ in read_log(db)][-2:] == ["before the prompt", "after the prompt"]

    with pytest.raises(RefereeError, match=r"the session changed while this command waited \(now #4: meanwhile\)"):
        with Session.open(db) as waiting:
            waiting.let_go()
            with Session.open(db) as other:
                other.record("note", "meanwhile", {}, other.state)
            waiting.record("note", "lost", {}, waiting.state)
    assert [e["summary"] for e, _ in read_log(db)][-1:] == ["meanwhile"]
