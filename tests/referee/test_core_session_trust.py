"""Sessions whose CRCs match but whose content is unusable (issue 16, item 10): a session
file is edited by hand and copied between tables, so its rows are checked against the
game's state schema and the session format when it is opened. Each hostile file is built
with valid CRCs (as a careful hand edit or another program would), then every command is
refused with one line, exit 2, the file byte for byte unchanged, within time and memory."""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from referee import session as store
from referee import state_schema
from tests.harness import ROOT, run_process
from tests.referee._core_support import cli, make_session, one_line_error, read_log, whole_rows
from tests.referee._hostile_support import bounded_referee, refused, refused_json

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
        assert proc.cpu < 10
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


def test_a_bad_earlier_row_is_refused_when_a_command_reads_it(tmp_path):
    """On open, every row's CRC and the history's rows are checked; an earlier ordinary
    row's own content (a forged one, its CRC right) when a command reads it (issue 36)."""
    state = good_state(tmp_path)
    db = tmp_path / "session.db"
    forge(db, [new_row(state), ("mt", "Ann MT +1\nreferee: fake", "{}", json.dumps(state)),
               mt_row(state, 9)])
    before = db.read_bytes()
    assert cli("--session", str(db), "status", check=0).stdout  # it reads no earlier row
    for args in (["log"], ["undo", "2"]):
        proc = cli("--session", str(db), *args)
        assert proc.returncode == 2 and "event #2: summary" in one_line_error(proc), args
    assert db.read_bytes() == before


def test_an_unknown_session_format_is_refused(tmp_path):
    db = tmp_path / "session.db"
    forge(db, [new_row(good_state(tmp_path))], version=state_schema.FORMAT_VERSION + 1)
    before = db.read_bytes()
    for args in (["status"], ["mt", "Ann", "+1"]):
        proc = cli("--session", str(db), *args)
        assert proc.returncode == 2 and \
            f"session format {state_schema.FORMAT_VERSION + 1}" in one_line_error(proc)
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

    from referee.games import module
    from tests.referee._core_support import hand_built_db

    for game, players in (("x-statix", ["A", "B", "C"]), ("xo", ["H", "V"])):
        state = module(game).new_state(players, hand_built_db(), random.Random(1), seed=1)
        assert state_schema.check_state(json.loads(json.dumps(state))) is not None


# ── card names: checked against the card database the command loads ───────────
UNKNOWN = "Wolverine"  # a card of neither bundled game
MINIMAL = ROOT / "tests" / "data" / "minimal-cards.yaml"  # XO!: a placeholder roster


def bundled_state(tmp_path: Path, game: str, *args: str) -> dict:
    """A fresh game made by the real `new` with the bundled cards.yaml (seeded)."""
    path = tmp_path / f"made-{game}.db"
    path.unlink(missing_ok=True)
    players = "Ann,Bob" if game == "x-statix" else "Hal,Val"
    cli("--session", str(path), "new", game, "--players", players, "--seed", "3", *args, check=0)
    return read_log(path)[-1][1]


def _xs_cards():
    import carddb

    return carddb.load(ROOT / "cards.yaml").games["x-statix"]


def _xs_edit(where: str, state: dict) -> None:
    cards = _xs_cards()
    hero = cards.cards(type="Hero")[0].name
    seat = state["table"]["Ann"]
    if where == "hand":
        seat["hand"][0] = UNKNOWN
    elif where == "deck":
        state["deck"][3] = UNKNOWN
    elif where == "discard":
        state["discard"] = [hero, UNKNOWN]
    elif where in ("owner", "team"):
        seat[where] = UNKNOWN
    elif where == "hero":
        seat["heroes"] = [{"name": UNKNOWN, "ft": 1, "marketing": []}]
    elif where == "hero an Owner card":
        seat["heroes"] = [{"name": seat["owner"], "ft": 1, "marketing": []}]
    elif where == "marketing":
        seat["heroes"] = [{"name": hero, "ft": 2, "marketing": [UNKNOWN]}]
    elif where == "mission":
        state["turn"]["mission"] = {"card": UNKNOWN, "stage": "mission", "team": [hero],
                                    "rolls": {}}


XS_EDITS = {  # edit -> where the refusal points
    "hand": "table.Ann.hand[0]",
    "deck": "deck[3]",
    "discard": "discard[1]",
    "owner": "table.Ann.owner",
    "team": "table.Ann.team",
    "hero": "table.Ann.heroes[0].name",
    "hero an Owner card": "table.Ann.heroes[0].name",
    "marketing": "table.Ann.heroes[0].marketing[0]",
    "mission": "turn.mission.card",
}


def _refused_with_names(db: Path, args: list[str], where: str, name: str) -> str:
    before = db.read_bytes()
    proc = cli("--session", str(db), *args, "--json")
    assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
    line = one_line_error(proc)
    assert json.loads(proc.stdout)["exit_code"] == 2
    assert str(db) in line and f"event #1: state.{where}: " in line, line
    assert state_schema.shown(name) in line and "nothing was changed" in line, line
    assert db.read_bytes() == before
    return line


@pytest.mark.parametrize("edit", XS_EDITS)
def test_xs_card_names_not_in_the_card_database_are_refused(tmp_path, edit):
    state = bundled_state(tmp_path, "x-statix", "--deal", "referee")
    db = tmp_path / "edited.db"
    forge(db, [new_row(edited(state, lambda s: _xs_edit(edit, s)))])
    name = state["table"]["Ann"]["owner"] if edit == "hero an Owner card" else UNKNOWN
    line = _refused_with_names(db, ["xs", "draw"], XS_EDITS[edit], name)
    if edit == "hero an Owner card":
        assert "is not a Hero card of X-Statix" in line and "it is an Owner card" in line
    else:
        assert "is not" in line and "--cards" in line  # made with another database?


def _xo_edit(where: str, state: dict) -> str:
    """Edit `state`; returns the name the refusal must show."""
    import carddb

    character = carddb.load(ROOT / "cards.yaml").games["xo"].cards(type="Character")[0].name
    roster = state["roster"]["heroes"]
    if where == "character":
        roster.append({"name": UNKNOWN, "statuses": [], "ko": False})
    elif where == "status":
        roster.append({"name": character, "statuses": [UNKNOWN], "ko": False})
    elif where == "status a Character card":
        roster.append({"name": character, "statuses": [character], "ko": False})
        return character
    elif where == "resource":
        state["resources"]["tech"] = [UNKNOWN]
    return UNKNOWN


XO_EDITS = {
    "character": "roster.heroes[0].name",
    "status": "roster.heroes[0].statuses[0]",
    "status a Character card": "roster.heroes[0].statuses[0]",
    "resource": "resources.tech[0]",
}


@pytest.mark.parametrize("edit", XO_EDITS)
def test_xo_card_names_not_in_the_card_database_are_refused(tmp_path, edit):
    state = bundled_state(tmp_path, "xo")
    name = _xo_edit(edit, state)
    db = tmp_path / "edited.db"
    forge(db, [new_row(state)])
    line = _refused_with_names(db, ["xo", "tag", "Anyone", "Stunned"], XO_EDITS[edit], name)
    if edit == "status a Character card":
        assert "is not a Status card of XO!" in line and "it is a Character card" in line


def test_hidden_cards_stay_allowed_in_hands_and_the_deck(tmp_path):
    """XS-16: with the table's own deck every card not yet shown is "?" (play.HIDDEN)."""
    state = bundled_state(tmp_path, "x-statix", "--deal", "table")
    assert set(state["deck"]) == {"?"} and "?" in state["table"]["Ann"]["hand"]
    db = tmp_path / "table.db"
    forge(db, [new_row(state)])
    cli("--session", str(db), "xs", "draw", check=0)
    state["discard"] = ["?"]  # but a discarded card has been seen
    forge(db := tmp_path / "seen.db", [new_row(state)])
    line = _refused_with_names(db, ["xs", "draw"], "discard[0]", "?")
    assert "only in a hand or the deck, XS-16" in line


def test_a_name_in_the_refusal_is_escaped_and_bounded(tmp_path):
    """Names in the engines' own keys (turn.mission) are not checked by the schema."""
    state = bundled_state(tmp_path, "x-statix", "--deal", "referee")
    hostile = "\x1b[31mreferee: fake\n" + "x" * 500
    state["turn"]["mission"] = {"card": hostile, "stage": "mission", "team": [], "rolls": {}}
    db = tmp_path / "edited.db"
    forge(db, [new_row(state)])
    line = _refused_with_names(db, ["xs", "draw"], "turn.mission.card", hostile)
    assert "\x1b" not in line and "\\x1b" in line and f"({len(hostile)} characters)" in line
    assert len(line) < 600


def made_before_games_were_kept(path: Path) -> None:
    """`path` as a referee made it before sessions kept their game (issue 29 item 3): the
    same rows, the `new` event's payload without its definition."""
    rows = whole_rows(path)  # as that referee stored them (format 1)
    path.unlink()
    Path(f"{path}-wal").unlink(missing_ok=True)
    bare = []
    for _seq, _ts, kind, summary, payload, state in rows:
        if kind == "new":
            payload = json.dumps({k: v for k, v in json.loads(payload).items()
                                  if k != "definition"})
        bare.append((kind, summary, payload, state))
    forge(path, bare)


def _picked_from_minimal(db: Path) -> tuple[str, ...]:
    with_minimal = ("--session", str(db), "--cards", str(MINIMAL))
    cli(*with_minimal, "new", "xo", "--players", "Hal,Val", "--seed", "1", check=0)
    cli(*with_minimal, "xo", "pick", "heroes", "Captain Volt", check=0)
    cli(*with_minimal, "xo", "pick", "villains", "Doctor Static", check=0)
    return with_minimal


def test_a_session_keeps_the_cards_its_game_began_with(tmp_path):
    """An XO! game picked from tests/data/minimal-cards.yaml (a placeholder roster of one
    character a league), then played with the bundled ./cards.yaml: the game goes on with
    the cards it began with (the rules answer), saying once in one line that the database
    differs; never "invalid session file"."""
    db = tmp_path / "xo.db"
    with_minimal = _picked_from_minimal(db)
    before = db.read_bytes()
    # a real process: the note's memory must outlive it (the file, not this process's dict)
    proc = run_process("referee", "--session", str(db), "xo", "pick", "heroes", "Captain Volt")
    note, line = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and "already" in line and "invalid session" not in proc.stderr
    assert note.startswith("referee: note: this game began with minimal-cards.yaml; cards.yaml "
                           "differs (") and "`referee new` starts a game with the new cards" in note
    assert db.read_bytes() == before
    again = cli("--session", str(db), "xo", "pick", "heroes", "Captain Volt")
    assert again.returncode == 1 and one_line_error(again) == line  # said once
    proc = cli(*with_minimal, "xo", "pick", "heroes", "Captain Volt")  # its own cards: no note
    assert proc.returncode == 1 and "already" in one_line_error(proc)
    assert db.read_bytes() == before


def test_a_session_from_before_is_checked_against_the_database_the_command_loads(tmp_path):
    """A session made before games were kept (no definition in its `new` event): with its
    database (--cards) the rules see it; with the bundled one (./cards.yaml) its villain
    is unknown. Commands that read no cards (status, log) show it as it is."""
    db = tmp_path / "xo.db"
    with_minimal = _picked_from_minimal(db)
    made_before_games_were_kept(db)
    before = db.read_bytes()
    proc = cli("--session", str(db), "xo", "pick", "heroes", "Captain Volt")
    line = one_line_error(proc)
    assert proc.returncode == 2 and "event #3: state.roster.villains[0].name: 'Doctor Static'" \
        " is not a Character card of XO! in cards.yaml" in line, line
    assert db.read_bytes() == before
    cli("--session", str(db), "status", check=0)
    cli("--session", str(db), "log", check=0)
    proc = cli(*with_minimal, "xo", "pick", "heroes", "Captain Volt")  # the rules answer
    assert proc.returncode == 1 and "already" in one_line_error(proc)
    assert db.read_bytes() == before


def test_a_card_database_without_the_sessions_game_is_refused(tmp_path):
    state = bundled_state(tmp_path, "x-statix", "--deal", "referee")
    db = tmp_path / "xs.db"
    forge(db, [new_row(state)])
    before = db.read_bytes()
    xo_only = ROOT / "tests" / "data" / "xo-cards.yaml"
    proc = cli("--session", str(db), "--cards", str(xo_only), "xs", "draw", "--json")
    line = one_line_error(proc)
    assert proc.returncode == 2 and "xo-cards.yaml has no X-Statix game (it has: xo)" in line
    assert db.read_bytes() == before
