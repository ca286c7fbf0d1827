"""Sessions whose CRCs match but whose content is unusable (issue 16, item 10): a session
file is edited by hand and copied between tables, so its rows are checked against the
game's state schema and the session format when it is opened. Each hostile file is built
with valid CRCs (as a careful hand edit or another program would), then every command is
refused with one line, exit 2, the file byte for byte unchanged, within time and memory."""

from __future__ import annotations

import copy
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from referee import session as store
from referee import state_schema

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from _core_support import cli, make_session, one_line_error, read_log  # noqa: E402
from _hostile_support import bounded_referee, refused, refused_json  # noqa: E402

TS = "2026-01-01T00:00:00+00:00"


def forge(path: Path, rows: list[tuple[str, str, str, str]], version: int = 1) -> None:
    """A session file holding `rows` = (kind, summary, payload_json, state_json), each with
    its right seq and CRC: only the content is wrong."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {store.APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(store._SCHEMA)
    for seq, (kind, summary, payload, state) in enumerate(rows, 1):
        row = (seq, TS, kind, summary, payload, state)
        conn.execute(store._INSERT, (*row, store.row_crc(row)))
    conn.close()


def good_state(tmp_path: Path) -> dict:
    template = tmp_path / "template.db"
    template.unlink(missing_ok=True)
    return make_session(template, heroes={"Ann": [("Hero 1", 1)]})


def new_row(state) -> tuple[str, str, str, str]:
    text = state if isinstance(state, str) else json.dumps(state)
    return ("new", "a game", "{}", text)


def mt_row(state: dict, mt: int, payload: str = "{}") -> tuple[str, str, str, str]:
    changed = copy.deepcopy(state)
    changed["table"]["Ann"]["mt"] = mt
    return ("mt", f"Ann MT =: {mt}", payload, json.dumps(changed))


def edited(state: dict, change: Callable[[dict], object]) -> dict:
    state = copy.deepcopy(state)
    change(state)
    return state


NESTED = "[" * 100_000 + "]" * 100_000


def _hostile_files() -> dict[str, Callable[[dict], list]]:
    def without(key):
        return lambda s: [new_row(edited(s, lambda t: t.pop(key)))]

    def setting(path, value):
        def change(state):
            *parents, last = path
            for key in parents:
                state = state[key]
            state[last] = value

        return lambda s: [new_row(edited(s, change))]

    return {
        "state not JSON": lambda s: [new_row('{"game": "x-statix", ')],
        "state a list": lambda s: [new_row("[1, 2, 3]")],
        "state a number": lambda s: [new_row("42")],
        "state missing table": without("table"),
        "state missing players": without("players"),
        "state missing game": without("game"),
        "unknown game": setting(["game"], "chess"),
        "text for MT": setting(["table", "Ann", "mt"], "8"),
        "fraction for MT": setting(["table", "Ann", "mt"], 8.5),
        "true for MT": setting(["table", "Ann", "mt"], True),
        "negative MT": setting(["table", "Ann", "mt"], -3),
        "text for FT": setting(["table", "Ann", "heroes", 0, "ft"], "1"),
        "hand of numbers": setting(["table", "Ann", "hand"], [1, 2]),
        "turn player unknown": setting(["turn", "player"], "Mallory"),
        "seats are not the players": setting(["players"], ["Ann", "Cid"]),
        "player name with a line break": setting(["players"], ["Ann", "Bob\nfake: line"]),
        "5000-digit MT": lambda s: [
            new_row(json.dumps(s).replace('"mt": ', '"mt": ' + "9" * 5000, 1))
        ],
        "100000 nested arrays as the state": lambda s: [new_row(NESTED)],
        "100000 nested arrays in the state": setting(["setup"], "NESTED"),
        "100000 nested arrays as a payload": lambda s: [
            new_row(s),
            ("mt", "Ann MT +1", NESTED, json.dumps(s)),
        ],
        "payload a list": lambda s: [new_row(s), ("mt", "Ann MT +1", "[]", json.dumps(s))],
        "payload not JSON": lambda s: [new_row(s), ("mt", "Ann MT +1", "{", json.dumps(s))],
        "summary with a line break": lambda s: [
            new_row(s),
            ("mt", "Ann MT +1\nreferee: fake", "{}", json.dumps(s)),
        ],
        "undo naming an unknown event": lambda s: [
            new_row(s),
            mt_row(s, 9),
            ("undo", "undo 1", '{"n": 1, "undone": [7], "restores": 1}', json.dumps(s)),
        ],
        "undo of nothing": lambda s: [
            new_row(s),
            ("undo", "undo 1", '{"n": 1, "undone": [1], "restores": 1}', json.dumps(s)),
        ],
        "undo without its events": lambda s: [
            new_row(s),
            mt_row(s, 9),
            ("undo", "undo 1", '{"n": 1}', json.dumps(s)),
        ],
        "redo of an event never undone": lambda s: [
            new_row(s),
            mt_row(s, 9),
            ("redo", "redo 1", '{"n": 1, "redone": [2]}', json.dumps(s)),
        ],
        "first event not a new game": lambda s: [mt_row(s, 9)],
    }


HOSTILE = _hostile_files()
COMMANDS = [
    ["status"],
    ["log"],
    ["mt", "Ann", "+1"],
    ["ft", "Hero 1", "+1"],
    ["undo"],
    ["redo"],
    ["new", "x-statix", "--players", "Ann,Bob", "--force"],
]


def _build(tmp_path: Path, name: str) -> Path:
    rows = HOSTILE[name](good_state(tmp_path))
    rows = [
        tuple(value.replace('"NESTED"', NESTED) if isinstance(value, str) else value for value in r)
        for r in rows
    ]
    db = tmp_path / f"{len(list(tmp_path.iterdir()))}.db"
    forge(db, rows)
    return db


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_session_refused_by_every_command_and_untouched(tmp_path, name):
    db = _build(tmp_path, name)
    before = db.read_bytes()
    for args in COMMANDS:
        proc = cli("--session", str(db), *args, "--json")
        assert proc.returncode == 2, (name, args, proc.returncode, proc.stdout, proc.stderr)
        line = one_line_error(proc)
        assert str(db) in line and "Traceback" not in proc.stdout
        assert json.loads(proc.stdout)["exit_code"] == 2
        assert db.read_bytes() == before, args


@pytest.mark.parametrize(
    "name",
    ["state not JSON", "text for MT", "5000-digit MT", "100000 nested arrays as the state",
     "100000 nested arrays as a payload", "undo naming an unknown event"],
)
def test_hostile_session_in_a_real_process_within_bounds(tmp_path, name):
    db = _build(tmp_path, name)
    before = db.read_bytes()
    for args in (["status", "--json"], ["mt", "Ann", "+1"]):
        proc = bounded_referee("--session", str(db), *args)
        line = refused_json(proc) if "--json" in args else refused(proc)
        assert str(db) in line["error"] if isinstance(line, dict) else str(db) in line
        assert proc.seconds < 10
    assert db.read_bytes() == before


def test_the_refusal_says_where(tmp_path):
    db = _build(tmp_path, "text for MT")
    line = one_line_error(cli("--session", str(db), "status"))
    assert "event #1: state.table.Ann.mt: expected a whole number, found text '8'" in line
    db = _build(tmp_path, "undo naming an unknown event")
    line = one_line_error(cli("--session", str(db), "log"))
    assert "event #3" in line and "[7]" in line and "[2]" in line


def test_a_bad_earlier_state_is_refused_when_undo_would_restore_it(tmp_path):
    """On open, the current state is checked; an earlier one is checked when read back."""
    state = good_state(tmp_path)
    bad = edited(state, lambda s: s["table"]["Ann"].update(mt="ten"))
    db = tmp_path / "session.db"
    forge(db, [new_row(state), ("mt", "Ann MT =ten", "{}", json.dumps(bad)), mt_row(state, 9)])
    before = db.read_bytes()
    assert cli("--session", str(db), "status", check=0).stdout  # the current state is fine
    proc = cli("--session", str(db), "undo")
    assert proc.returncode == 2 and "event #2: state.table.Ann.mt" in one_line_error(proc)
    assert db.read_bytes() == before
    proc = cli("--session", str(db), "undo", "2")  # back to #1: fine
    assert proc.returncode == 0, proc.stderr


def test_an_unknown_session_format_is_refused(tmp_path):
    db = tmp_path / "session.db"
    forge(db, [new_row(good_state(tmp_path))], version=state_schema.FORMAT_VERSION + 1)
    before = db.read_bytes()
    for args in (["status"], ["mt", "Ann", "+1"]):
        proc = cli("--session", str(db), *args)
        assert proc.returncode == 2 and "session format 2" in one_line_error(proc)
    assert db.read_bytes() == before


def test_a_forged_but_well_formed_session_is_accepted(tmp_path):
    """The checks refuse what is wrong, not what is merely hand-made."""
    state = good_state(tmp_path)
    db = tmp_path / "session.db"
    forge(
        db,
        [
            new_row(state),
            mt_row(state, 9),
            ("undo", "undo 1", '{"n": 1, "undone": [2], "restores": 1}', json.dumps(state)),
            ("redo", "redo 1", '{"n": 1, "redone": [2]}', mt_row(state, 9)[3]),
        ],
    )
    cli("--session", str(db), "mt", "Ann", "+1", check=0)
    assert read_log(db)[-1][1]["table"]["Ann"]["mt"] == 10


def test_the_referee_never_writes_a_state_it_would_refuse(tmp_path):
    """Rows are checked before COMMIT too: a bug (or a command recording a hand-made
    state) cannot leave a session that the next command refuses."""
    db = tmp_path / "session.db"
    make_session(db)
    before = db.read_bytes()
    with pytest.raises(store.SessionError, match="refusing to write"):
        with store.Session.open(db) as session:
            state = session.state
            state["table"]["Ann"]["mt"] = "lots"
            session.record("mt", "Ann MT", {}, state)
    assert db.read_bytes() == before
    proc = cli("--session", str(tmp_path / "n.db"), "new", "x-statix", "--players", "Ann,Bob\tX")
    assert proc.returncode == 2 and "control characters" in one_line_error(proc)
    assert not (tmp_path / "n.db").exists()


def test_every_bundled_game_state_matches_the_schema():
    """Fresh games of both games, made by the game modules, pass their schema."""
    import random

    from _core_support import hand_built_db

    from referee.games import module

    for game, players in (("x-statix", ["A", "B", "C"]), ("xo", ["H", "V"])):
        state = module(game).new_state(players, hand_built_db(), random.Random(1), seed=1)
        assert state_schema.check_state(json.loads(json.dumps(state))) is not None
