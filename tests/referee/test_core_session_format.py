"""Session format 2 (referee/state_delta.py, issue 36 item 5): most events store their state
as a delta against an anchor, and every state reads back as the very JSON text the referee
wrote (the text format 1 stored whole): checked on real games (X-Statix, XO!, a declared
game) event by event. A format-1 file (tests/data/format1-session.db, made by
tests/data/make_format1_session.py) is read as it is and upgraded by its first write. A
delta that does not rebuild (forged with a right CRC) is refused in one line, the file
untouched."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from referee import session as store
from referee import state_delta
from referee.session import Session
from referee.state_schema import SchemaError
from tests.harness import ROOT, run_cli
from tests.referee._core_support import cli, make_session, one_line_error, read_log, whole_rows

FORMAT1 = ROOT / "tests" / "data" / "format1-session.db"
TS = "2026-01-01T00:00:00+00:00"


# ── the delta itself ──────────────────────────────────────────────────────────
def _stored(old: dict, new: dict, seq: int = 2, anchor: int = 1) -> str:
    return state_delta.encode(seq, json.dumps(new), new, anchor, json.dumps(old))


def _rebuilt(seq: int, stored: str, anchor_text: str) -> str:
    """The state text read back: `stored` itself when whole, else rebuilt."""
    if not state_delta.is_delta(stored):
        return stored
    _, changes = state_delta.split(seq, stored, "state")
    return state_delta.rebuild(anchor_text, changes, "state")


BIG = {"game": "g", "seed": 1, "table": {"Ann": {"mt": 3, "heroes": [1, 2]}, "Bob": {"mt": 1}},
       "log": ["x" * 200]}


@pytest.mark.parametrize("change", [
    lambda s: s["table"]["Ann"].update(mt=4),  # a value deep down
    lambda s: s["table"]["Ann"].pop("heroes"),  # a key removed
    lambda s: s["table"].update(Cy={"mt": 0}),  # a key added (at the end, as JSON keeps it)
    lambda s: s["table"]["Ann"].update(mt=4.0),  # 4.0 == 4 to Python, not in JSON
    lambda s: s["table"]["Ann"]["heroes"].append(3),  # a list: replaced whole
    lambda s: None,  # nothing changed
])
def test_a_delta_rebuilds_the_very_text(change):
    new = json.loads(json.dumps(BIG))
    change(new)
    stored = _stored(BIG, new)
    assert state_delta.is_delta(stored) and len(stored) < len(json.dumps(new)) / 2
    assert _rebuilt(2, stored, json.dumps(BIG)) == json.dumps(new)


def test_an_anchor_serves_every_delta_unchanged():
    anchor = json.loads(json.dumps(BIG))
    changes = [[["table", "Ann", "mt"], 7], [["table", "Ann", "heroes"]], [["table", "Cy"], {}],
               [["table", "Cy", "mt"], 1], [["log"], []]]
    first = state_delta.applied(anchor, changes, "state")
    assert anchor == BIG and json.dumps(anchor) == json.dumps(BIG)
    assert state_delta.applied(anchor, changes, "state") == first
    assert json.loads(first) == {"game": "g", "seed": 1, "table": {
        "Ann": {"mt": 7}, "Bob": {"mt": 1}, "Cy": {"mt": 1}}, "log": []}


def test_a_change_python_cannot_see_is_stored_whole():
    """True == 1 and 1.0 == 1 inside equal objects: the delta would miss it, `encode`
    sees that the text does not rebuild and stores the state whole."""
    for value in (True, 1.0):
        new = json.loads(json.dumps(BIG))
        new["table"]["Bob"]["mt"] = value
        assert new == BIG and _stored(BIG, new) == json.dumps(new)


def test_keys_in_another_order_are_stored_whole():
    new = {"seed": 1, **{k: v for k, v in BIG.items() if k != "seed"}}  # same values
    assert _stored(BIG, new) == json.dumps(new)
    moved = json.loads(json.dumps(BIG))  # deeper down (equal objects to Python): whole too
    moved["table"] = {"Bob": moved["table"]["Bob"], "Ann": moved["table"]["Ann"]}
    assert moved == BIG and _stored(BIG, moved) == json.dumps(moved)
    moved["table"]["Bob"]["mt"] = 2  # and a change: that object whole in the delta
    stored = _stored(BIG, moved)
    assert json.loads(stored) == [1, [[["table"], moved["table"]]]]
    assert _rebuilt(2, stored, json.dumps(BIG)) == json.dumps(moved)


def test_an_anchor_every_so_many_events_and_when_a_delta_saves_little():
    new = json.loads(json.dumps(BIG))
    new["table"]["Ann"]["mt"] = 9
    last = 1 + state_delta.ANCHOR_EVERY - 1
    assert state_delta.is_delta(_stored(BIG, new, seq=last))
    assert _stored(BIG, new, seq=last + 1) == json.dumps(new)  # too far from its anchor
    other = {"game": "g", "log": ["y" * 200]}
    assert _stored(BIG, other) == json.dumps(other)  # nearly all changed


@pytest.mark.parametrize("stored, says", [
    ('"text"', "expected an object, or [event, changes]"),
    ("[1]", "expected an object, or [event, changes]"),
    ("[5, []]", "a change of event #5, not an earlier event"),
    ("[0, []]", "a change of event #0, not an earlier event"),
    ("[1, [[[], 1]]]", "expected a list of changes"),
    ('[1, [[["a", 2], 1]]]', "expected a list of changes"),
    ('[1, [[["a"], 1, 2]]]', "expected a list of changes"),
    ("[1, [", "not JSON"),
])
def test_a_malformed_delta_is_a_schema_error(stored, says):
    with pytest.raises(SchemaError, match=r"^event #5: state: .*" + says.replace("[", r"\[")):
        state_delta.split(5, stored, "event #5: state")


@pytest.mark.parametrize("anchor_text, changes, says", [
    ('[1, []]', [], "a change of a change (its event is no whole state)"),
    ('{"a": {"b": 1}}', [[["a", "c", "d"], 1]], "a change of 'a.c.d', not in the state"),
    ('{"a": 1}', [[["b"]]], "a change of 'b', not in the state"),
    ('{"a": 1}', [[["a", "x\\n"], 1]], r"a change of 'a.x\\n', not in the state"),
])
def test_a_delta_that_does_not_fit_its_anchor_is_a_schema_error(anchor_text, changes, says):
    with pytest.raises(SchemaError) as error:
        state_delta.rebuild(anchor_text, changes, "event #5: state")
    assert str(error.value) == f"event #5: state: {says}"


# ── real games: every state as the referee wrote it ───────────────────────────
@pytest.fixture
def written(monkeypatch) -> dict[int, str]:
    """The JSON text of every state the referee writes, by seq (a command refused and
    rolled back is overwritten by the next that writes the same seq)."""
    texts: dict[int, str] = {}
    append = Session._append

    def recording(self, kind, summary, payload, new_state):
        seq = append(self, kind, summary, payload, new_state)
        texts[seq] = json.dumps(new_state)
        return seq

    monkeypatch.setattr(Session, "_append", recording)
    return texts


def _every_state_as_written(path: Path, texts: dict[int, str], minimum_deltas: int) -> None:
    rows = whole_rows(path)
    assert [row[0] for row in rows] == list(range(1, len(rows) + 1))
    for seq, _ts, kind, *_, state in rows[1:]:  # #1: written whole by Session.create
        assert state == texts[seq], f"event #{seq} ({kind})"
    logged = read_log(path)
    assert [json.dumps(state) for _, state in logged][1:] == [row[5] for row in rows[1:]]
    conn = sqlite3.connect(path)
    stored = conn.execute("SELECT seq, kind, state_json FROM events ORDER BY seq").fetchall()
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    assert version == 2
    deltas = [seq for seq, _, text in stored if state_delta.is_delta(text)]
    assert len(deltas) >= minimum_deltas, (len(deltas), len(stored))
    assert all(not state_delta.is_delta(text) for _, kind, text in stored if kind == "new")
    for seq, _, text in stored:  # a delta names an anchor at most ANCHOR_EVERY back
        if state_delta.is_delta(text):
            anchor = state_delta.split(seq, text, "state")[0]
            assert 0 < seq - anchor < state_delta.ANCHOR_EVERY
            assert not state_delta.is_delta(stored[anchor - 1][2])


def test_an_x_statix_game_reads_back_as_written(tmp_path, written):
    from tests.referee.xs.test_report_xs import scripted
    from tests.referee.xs.xs_support import load_catalog

    path = scripted(tmp_path / "xs.db", load_catalog(), 6)
    for args in (["undo", "3"], ["redo", "2"], ["undo"], ["mt", "Ann", "+1"]):
        cli("--session", str(path), *args, check=0)
    _every_state_as_written(path, written, minimum_deltas=20)


def test_an_xo_game_reads_back_as_written(tmp_path, written):
    from tests.referee.xo.test_report_xo import FIXTURE_DB, HEROES, VILLAINS

    path = tmp_path / "xo.db"

    def run(*args: str) -> None:
        done = run_cli("referee", "--session", str(path), "--cards", str(FIXTURE_DB), *args)
        assert done.returncode == 0, done.stdout + done.stderr

    run("new", "xo", "--players", "Ann,Bob", "--seed", "8")
    run("xo", "pick", "heroes", *HEROES)
    run("xo", "pick", "villains", *VILLAINS)
    run("xo", "attack", "Swift", "Razor", "--attack-roll", "3,2", "--defense-roll", "3")
    run("xo", "attack", "Captain Volt", "Brute", "--attack-roll", "1,1,1", "--defense-roll",
        "0,0", "--roll", "2")
    run("undo")
    run("redo")
    _every_state_as_written(path, written, minimum_deltas=3)


def test_a_declared_game_reads_back_as_written(tmp_path, monkeypatch, written):
    from tests.referee.test_kept_game import BRAMBLE

    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards.yaml").write_text(BRAMBLE)
    path = tmp_path / "bramble.db"

    def run(*args: str) -> None:
        done = run_cli("referee", "--session", str(path), *args, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr

    run("new", "bramble", "--players", "Ann,Bob", "--seed", "3", "--roll", "5,4")
    run("draw", "Ann", "3")
    run("show", "Ann", "Oak Sentinel")
    for _ in range(40):  # across an anchor
        run("token", "Ann", "glory", "+1")
        run("token", "Ann", "glory", "-1")
    run("undo", "5")
    run("new", "bramble", "--players", "Ann,Bob", "--seed", "4", "--roll", "5,4", "--force")
    run("token", "Bob", "glory", "+1")
    _every_state_as_written(path, written, minimum_deltas=70)


def test_a_long_session_stores_a_sixth_of_its_states(tmp_path):
    """The states of 200 events one MT apart: anchors every ANCHOR_EVERY, deltas between,
    the file a fraction of what whole states take."""
    path = tmp_path / "s.db"
    make_session(path)
    with Session.open(path) as session:
        for i in range(199):
            state = session.state
            state["table"]["Ann"]["mt"] += 1 if i % 2 == 0 else -1
            session.record("mt", f"Ann MT {i}", {"i": i}, state)
    conn = sqlite3.connect(path)
    stored, whole = conn.execute(
        "SELECT total(length(state_json)), count(*) * max(length(state_json)) FROM events"
    ).fetchone()
    anchors = [seq for (seq,) in conn.execute(
        "SELECT seq FROM events WHERE substr(state_json, 1, 1) = '{'")]
    conn.close()
    assert anchors == [1, 65, 129, 193]
    assert stored < whole / 6


# ── format 1: read as it is, upgraded by its first write ──────────────────────
def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture
def format1(tmp_path) -> Path:
    path = tmp_path / "old.db"
    shutil.copyfile(FORMAT1, path)
    return path


def test_the_format1_fixture_is_format1():
    conn = sqlite3.connect(FORMAT1)
    stored = [text for (text,) in conn.execute("SELECT state_json FROM events")]
    conn.close()
    assert _version(FORMAT1) == 1 and len(stored) >= 5
    assert not any(state_delta.is_delta(text) for text in stored)


def test_a_format1_session_is_read_as_it_is(format1):
    before = format1.read_bytes()
    expected = whole_rows(format1)
    for args in (["status"], ["log"], ["log", "--json"]):
        cli("--session", str(format1), *args, check=0)
    assert [json.dumps(state) for _, state in read_log(format1)] == [r[5] for r in expected]
    assert _version(format1) == 1 and format1.read_bytes() == before


def test_a_refused_write_leaves_a_format1_session_as_it_was(format1):
    before = format1.read_bytes()
    proc = cli("--session", str(format1), "mt", "Nobody", "+1")
    assert proc.returncode != 0 and one_line_error(proc)
    assert _version(format1) == 1 and format1.read_bytes() == before


def test_a_format1_session_is_upgraded_by_its_first_write(format1, written):
    old = whole_rows(format1)
    cli("--session", str(format1), "mt", "Ann", "+1", check=0)
    assert _version(format1) == 2
    rows = whole_rows(format1)
    assert rows[:len(old)] == old  # the old rows untouched, read as anchors
    conn = sqlite3.connect(format1)
    (text,) = conn.execute("SELECT state_json FROM events WHERE seq = ?",
                           (len(old) + 1,)).fetchone()
    conn.close()
    assert state_delta.split(len(old) + 1, text, "state")[0] == len(old)  # a delta of the last
    assert rows[-1][5] == written[len(old) + 1]
    cli("--session", str(format1), "undo", "2", check=0)  # back to a format-1 state
    assert whole_rows(format1)[-1][5] == old[-2][5]
    cli("--session", str(format1), "log", check=0)


# ── a forged delta: refused in one line, nothing written ──────────────────────
def _forge(path: Path, states: list[str]) -> None:
    """A format-2 file: `states[0]` a game's whole state, the rest as given, each row with
    its right seq and CRC."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {store.APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 2")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(store._SCHEMA)
    for seq, state in enumerate(states, 1):
        kind = "new" if seq == 1 else "mt"
        row = (seq, TS, kind, kind, "{}", state)
        conn.execute(store._INSERT, (*row, store.row_crc(row)))
    conn.close()


@pytest.mark.parametrize("deltas, says", [
    (["[3, []]"], "event #2: state: a change of event #3, not an earlier event"),
    (['[1, [[["table", "Nobody", "mt"], 1]]]'],
     "event #2: state: a change of 'table.Nobody.mt', not in the state"),
    (["[1, []]", "[2, []]"], "event #3: state: a change of a change"),
    (['[1, [[["table", "Ann", "mt"], "8"]]]'],
     "event #2: state.table.Ann.mt: expected a whole number, found text '8'"),
    (["[1, 2]"], "event #2: state: expected a list of changes"),
])
def test_a_forged_delta_is_refused_in_one_line(tmp_path, deltas, says):
    source = tmp_path / "made.db"
    first = make_session(source)
    path = tmp_path / "forged.db"
    _forge(path, [json.dumps(first), *deltas])
    before = path.read_bytes()
    for args in (["status"], ["mt", "Ann", "+1"]):
        proc = cli("--session", str(path), *args)
        line = one_line_error(proc)
        assert proc.returncode == 2 and says in line, line
    assert path.read_bytes() == before
