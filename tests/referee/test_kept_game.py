"""The session keeps its game (issue 29, item 3): `referee new` stores the game's definition
(dice, tokens, decks with their cards and fields, card names, rules) in its `new` event and
every command plays on it to the end. cards.yaml edited mid-game (a shown card renamed, a
die's faces changed, a token kind removed, a rule changed) is said once, in one line, and
the game goes on as it began: for a declared game (the table kit), X-Statix and XO!.
Never "invalid session file" for an edited database; a damaged definition still is."""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import SimpleNamespace
from typing import Literal

import pytest

import carddb
from referee import session as store
from referee.plain import from_data, to_data
from referee.state_schema import SchemaError
from tests.harness import ROOT, run_cli

NOTE_END = ("the game goes on with the cards it began with; `referee new` starts a game with "
            "the new cards")

BRAMBLE = """\
version: 1
print: {paper: a4, bleed_mm: 3, duplex: long-edge, back_offset_mm: [0, 0], crop_marks: true}
card_sizes: {poker: [63.5, 88.9]}
games:
  bramble:
    title: Bramble
    players: {min: 2, max: 4}
    colors: {primary: "#335533", secondary: "#112211", paper: "#f7f1e3"}
    types:
      Guard:
        fields:
          strength: {type: int, min: 0}
    dice:
      thorn:
        faces: [thorn, thorn, leaf, leaf, leaf, 1]
        per_player: 3
        color: "#335533"
        ink: "#ffffff"
        label: Thorn
    tokens:
      gold: {name: Gold, label: G, count: 30, start: 2, per: player, diameter_mm: 20,
             color: "#d4a017"}
      glory: {name: Glory, label: "*", count: 20, start: 0, per: player, diameter_mm: 20,
              color: "#aa3333"}
    phases: [Upkeep, Recruit, Fight]
    decks:
      guards:
        title: Guards
        size: poker
        back: {title: Bramble, subtitle: Guards}
        cards:
          - {name: Oak Sentinel, type: Guard, strength: 3, text: "Holds the gate."}
          - {name: Thorn Archer, type: Guard, strength: 2, text: "Shoots first."}
          - {name: Moss Scout, type: Guard, strength: 1, copies: 2, text: "Sees ahead."}
"""

# each edit of cards.yaml made mid-game: (old text, new text), what the notice says
EDITS = {
    "rename a shown card": (("Oak Sentinel", "Oak Warden"), "card 'Oak Sentinel' renamed "
                                                            "'Oak Warden'"),
    "change a die's faces": (("faces: [thorn, thorn, leaf, leaf, leaf, 1]",
                              "faces: [thorn, leaf, leaf, leaf, leaf, 1]"), "die thorn changed"),
    "remove a token": (("""      glory: {name: Glory, label: "*", count: 20, start: 0, per: player, diameter_mm: 20,
              color: "#aa3333"}
""", ""), "token glory removed"),
    "change a rule": (("phases: [Upkeep, Recruit, Fight]", "phases: [Upkeep, Fight]"),
                      "phases changed"),
}


# ── plain data ────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Roll:
    dice: tuple[str, ...]
    outcome: Literal["count", "sum"]
    target: int | None = None


@dataclass(frozen=True)
class Phase:
    name: str
    steps: tuple[dict, ...] = ()
    roll: Roll | None = None


@dataclass(frozen=True)
class Rules:
    phases: tuple[Phase, ...]
    rolls: dict[str, Roll] = field(default_factory=dict)
    hand_limit: int | None = None
    size_mm: tuple[float, float] = (63.5, 88.9)


RULES = Rules(
    phases=(Phase("Upkeep", ({"token": "gold", "by": 1},)),
            Phase("Fight", roll=Roll(("thorn", "thorn"), "count", 2))),
    rolls={"attack": Roll(("thorn",), "sum")}, hand_limit=5)


def test_nested_dataclasses_round_trip_through_json():
    data = to_data(RULES)
    assert data["phases"][1]["roll"] == {"dice": ["thorn", "thorn"], "outcome": "count",
                                         "target": 2}
    assert from_data(Rules, json.loads(json.dumps(data))) == RULES
    assert from_data(Rules, {"phases": []}) == Rules(())  # a field added later: its default


@pytest.mark.parametrize("change, says", [
    (lambda d: d["phases"][1]["roll"].update(target="2"),
     "data.phases[1].roll.target: expected a whole number, found text '2'"),
    (lambda d: d["phases"][1]["roll"].update(outcome="max"), "data.phases[1].roll.outcome: "
                                                             "expected 'count' or 'sum'"),
    (lambda d: d.update(size_mm=[1.0]), "data.size_mm: expected 2 values, found 1"),
    (lambda d: d["rolls"].update(attack=[]), "data.rolls.attack: expected an object, found a list"),
    (lambda d: d["phases"][0].pop("name"), "data.phases[0]: missing 'name'"),
    (lambda d: d.update(hand_limt=5), "data: unknown key 'hand_limt'"),
    (lambda d: d.update(hand_limit=True), "data.hand_limit: expected a whole number, found true"),
])
def test_plain_data_of_the_wrong_type_is_refused_saying_where(change, says):
    data = json.loads(json.dumps(to_data(RULES)))
    change(data)
    with pytest.raises(SchemaError) as refused:
        from_data(Rules, data)
    assert says in str(refused.value)


def test_a_table_game_with_added_fields_round_trips(tmp_path):
    """Whatever TableGame holds (rules as data added to it) rides along: a subclass with a
    nested dataclass field stands in for the fields added later."""
    import carddb
    from referee.table.kit import TableGame

    @dataclass(frozen=True)
    class RuledGame(TableGame):
        more: Rules = Rules(())  # (`rules`, rules as data, is TableGame's own now)

    (tmp_path / "cards.yaml").write_text(BRAMBLE)
    game = TableGame.from_db(carddb.load(tmp_path / "cards.yaml"), "bramble")
    assert TableGame.from_data(json.loads(json.dumps(game.to_data()))) == game
    ruled = RuledGame(**{f: getattr(game, f) for f in game.__dataclass_fields__}, more=RULES)
    again = RuledGame.from_data(json.loads(json.dumps(ruled.to_data())))
    assert again == ruled and again.dice["thorn"].faces[5].value == 1


# ── a declared game (the table kit) ───────────────────────────────────────────
@pytest.fixture
def bramble(tmp_path, monkeypatch):
    """`referee ARGS` in a project folder of its own (the harness, in this process), on a
    fresh session."""
    monkeypatch.chdir(tmp_path)
    cards = tmp_path / "cards.yaml"
    cards.write_text(BRAMBLE)
    session = tmp_path / "bramble.db"

    def run(*args: str, code: int = 0) -> SimpleNamespace:
        result = run_cli("referee", "--session", str(session), *args, cwd=tmp_path)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr
        return SimpleNamespace(out=result.stdout, err=result.stderr)

    run.session, run.cards = session, cards
    # Ann goes first (d6 rolls 5, 4: the thorn die's faces do not all count)
    run("new", "bramble", "--players", "Ann,Bob", "--seed", "3", "--roll", "5,4")
    run("draw", "Ann", "3")
    run("show", "Ann", "Oak Sentinel")
    run("token", "Ann", "glory", "+2")
    return run


def edit(cards: Path, old: str, new: str) -> None:
    text = cards.read_text()
    assert old in text
    cards.write_text(text.replace(old, new))


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("referee: note: ")]


def refused_unchanged(run, *args: str, code: int, says: str) -> None:
    before = run.session.read_bytes()
    err = run(*args, code=code).err
    assert says in err.strip().splitlines()[-1] and "invalid session" not in err, err
    assert run.session.read_bytes() == before


@pytest.mark.parametrize("what", EDITS)
def test_an_edit_mid_game_is_said_once_and_the_declared_game_goes_on(bramble, what):
    run = bramble
    (old, new), says = EDITS[what]
    edit(run.cards, old, new)
    first = run("token", "Ann", "gold", "+1")
    assert "Ann Gold +1: 2 -> 3" in first.out
    assert notes(first.err) == [f"referee: note: cards.yaml changed since this game began "
                                f"({says}); {NOTE_END}"]
    assert len(first.err.splitlines()) == 1
    again = run("token", "Bob", "gold", "+1")
    assert again.err == "" and "Bob Gold +1: 2 -> 3" in again.out  # once: not said again
    # the game goes on as it began, whatever was edited
    assert "Ann shows Oak Sentinel (2 shown)" in run("show", "Ann", "oak sentinel").out
    assert "Ann Glory +1: 2 -> 3" in run("token", "Ann", "glory", "+1").out
    assert "3 thorn: thorn thorn leaf" in run("roll", "3", "--roll", "thorn,thorn,leaf").out
    assert [run("next").out.strip() for _ in range(3)] == [
        "round 1, turn 1: Ann, Recruit", "round 1, turn 1: Ann, Fight",
        "round 1, turn 2: Bob, Upkeep"]
    assert run("undo").err == ""  # nothing else to say


def test_every_edit_at_once_is_one_line_and_the_old_die_keeps_its_odds(bramble):
    run = bramble
    for (old, new), _ in EDITS.values():
        edit(run.cards, old, new)
    result = run("roll", "3", "--roll", "thorn,thorn,thorn", "--json")
    data = json.loads(result.out)
    assert data["counts"] == {"thorn": 3}
    line = (f"referee: note: cards.yaml changed since this game began (card 'Oak Sentinel' "
            f"renamed 'Oak Warden'; die thorn changed; token glory removed; phases changed); "
            f"{NOTE_END}")
    assert result.err.splitlines() == [line] and data["notice"] == line[len("referee: "):]
    # the die as it began: two thorn faces of six (the edit made it one)
    from referee.session import Session

    with Session.open(run.session, write=False) as s:
        die = s.kept_game().table_game().dice["thorn"]
    assert [f.key for f in die.faces] == ["thorn", "thorn", "leaf", "leaf", "leaf", "1"]
    refused_unchanged(run, "show", "Ann", "Oak Warden", code=2, says="'Oak Warden' is not a card")
    refused_unchanged(run, "roll", "1", "--roll", "bramble", code=2, says="not a face of the thorn")
    assert "Ann discards Oak Sentinel" in run("discard", "Ann", "Oak Sentinel").out
    state = json.loads(run("status", "--json").out)["state"]
    assert state["decks"]["guards"]["seen"] == ["Oak Sentinel"]
    assert state["tokens"]["Ann"] == {"gold": 2, "glory": 2}


def test_a_refused_command_says_the_note_and_changes_nothing(bramble):
    run = bramble
    edit(run.cards, "Oak Sentinel", "Oak Warden")
    before = run.session.read_bytes()
    err = run("token", "Ann", "gold", "-9", code=1).err.splitlines()
    assert len(err) == 2 and err[0].startswith("referee: note: ") and "below zero" in err[1]
    assert run.session.read_bytes() == before
    assert run("token", "Ann", "gold", "+1").err == ""  # said once already


def test_a_second_edit_is_said_again_and_an_undone_edit_is_not(bramble):
    run = bramble
    original = run.cards.read_text()
    edit(run.cards, "Oak Sentinel", "Oak Warden")
    assert notes(run("next").err)
    edit(run.cards, "Thorn Archer", "Briar Archer")
    (line,) = notes(run("next").err)
    assert "'Oak Sentinel' renamed 'Oak Warden'; card 'Thorn Archer' renamed 'Briar Archer'" in line
    run.cards.write_text(original)  # as the game began: nothing to say
    assert run("next").err == ""


def test_a_new_game_plays_with_the_new_cards(bramble):
    run = bramble
    edit(run.cards, "Oak Sentinel", "Oak Warden")
    run("new", "bramble", "--players", "Ann,Bob", "--force", "--roll", "5,4")
    run("draw", "Ann", "3")
    result = run("show", "Ann", "Oak Warden")
    assert result.err == "" and "Ann shows Oak Warden" in result.out
    refused_unchanged(run, "show", "Ann", "Oak Sentinel", code=2, says="not a card of Bramble")


def test_cards_yaml_that_no_longer_loads_is_said_once_and_the_game_goes_on(bramble):
    run = bramble
    edit(run.cards, "strength: 3", "strength: many")
    err = run("token", "Ann", "gold", "+1").err
    (line,) = notes(err)
    assert "invalid card database: cards.yaml:" in line and line.endswith(NOTE_END)
    assert run("token", "Ann", "gold", "+1").err == ""


def test_the_log_shows_the_definition_without_its_cards(bramble):
    events = json.loads(bramble("log", "--json").out)["events"]
    shown = events[0]["payload"]["definition"]
    assert set(shown) == {"format", "kind", "game", "cards", "digest"}
    assert shown["kind"] == "table" and shown["cards"] == "cards.yaml"


def test_the_definition_is_stored_once_in_the_new_event(bramble):
    conn = sqlite3.connect(bramble.session)
    payloads = [json.loads(p) for (p,) in conn.execute("SELECT payload_json FROM events")]
    conn.close()
    assert "definition" in payloads[0] and not any("definition" in p for p in payloads[1:])
    stored = payloads[0]["definition"]
    assert stored["data"]["cards"] == {"Oak Sentinel": "guards", "Thorn Archer": "guards",
                                       "Moss Scout": "guards"}
    assert stored["data"]["tokens"]["glory"]["count"] == 20


# ── trust: a damaged definition is refused; a session from before plays as before ──
def _rewrite_new_payload(path: Path, change) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_append_only_update")
    seq, ts, kind, summary, payload, state = conn.execute(
        "SELECT seq, ts, kind, summary, payload_json, state_json FROM events WHERE seq = 1"
    ).fetchone()
    data = json.loads(payload)
    change(data)
    row = (seq, ts, kind, summary, json.dumps(data), state)
    conn.execute("UPDATE events SET payload_json = ?, crc = ? WHERE seq = 1",
                 (row[4], store.row_crc(row)))
    conn.close()


@pytest.mark.parametrize("change, says", [
    (lambda p: p["definition"]["data"]["dice"]["thorn"]["faces"][0].update(value="1"),
     "event #1: payload.definition.data.dice.thorn.faces[0].value: expected a whole number"),
    (lambda p: p["definition"].update(kind="chess"), "payload.definition.kind: expected one of"),
    (lambda p: p["definition"]["data"]["cards"].pop("Oak Sentinel"),
     "event #4: state.shown.Ann[0]: 'Oak Sentinel' is not a card of bramble as this game began"),
    (lambda p: p["definition"].update(game="harbour"), "a definition of 'harbour'"),
])
def test_a_damaged_definition_is_refused_as_an_invalid_session(bramble, change, says):
    run = bramble
    _rewrite_new_payload(run.session, change)
    before = run.session.read_bytes()
    err = run("token", "Ann", "gold", "+1", code=2).err.strip()
    assert err.startswith("referee: ") and "invalid session file (" in err and says in err, err
    assert len(err.splitlines()) == 1 and run.session.read_bytes() == before


def test_a_session_from_before_games_were_kept_reads_cards_yaml_as_before(bramble):
    run = bramble
    _rewrite_new_payload(run.session, lambda p: p.pop("definition"))
    assert "Ann Gold +1: 2 -> 3" in run("token", "Ann", "gold", "+1").out  # plays on
    edit(run.cards, "faces: [thorn, thorn, leaf, leaf, leaf, 1]",
         "faces: [thorn, fern, leaf, leaf, leaf, 1]")
    assert "3 thorn: fern fern fern" in run("roll", "3", "--roll", "fern,fern,fern").out
    edit(run.cards, "Oak Sentinel", "Oak Warden")  # the refusal of before, for such a session
    before = run.session.read_bytes()
    err = run("next", code=2).err
    assert "invalid session file (event #6: state.shown.Ann[0]: 'Oak Sentinel' is not a card " \
           "of bramble in cards.yaml" in err and len(err.splitlines()) == 1
    assert run.session.read_bytes() == before


# ── the bundled games ─────────────────────────────────────────────────────────
@pytest.fixture
def bundled(tmp_path, monkeypatch):
    """`referee --cards <a copy of the bundled cards.yaml> ARGS`, in process."""
    monkeypatch.chdir(tmp_path)
    cards = tmp_path / "cards.yaml"
    shutil.copyfile(ROOT / "cards.yaml", cards)
    session = tmp_path / "game.db"

    def run(*args: str, code: int = 0) -> SimpleNamespace:
        result = run_cli("referee", "--session", str(session), "--cards", str(cards), *args,
                         cwd=tmp_path)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr
        return SimpleNamespace(out=result.stdout, err=result.stderr)

    run.session, run.cards = session, cards
    return run


SPIKE = ('{name: Spike Freeman, type: Owner, text: "Max Hand Size = 7", '
         'ability: [{hand_limit: 7}]}')
XS_EDITS = {
    "rename a shown card": ((SPIKE, SPIKE.replace("Spike Freeman", "Spike Freeman Jr")),
                            "card 'Spike Freeman' renamed 'Spike Freeman Jr'"),
    "change a card's rule": ((SPIKE, SPIKE.replace("7", "5")), "card 'Spike Freeman' changed"),
    # the X-Statix rules plug-in needs both its tokens declared: one is changed instead
    "change a token": (("name: Fame Token, count: 40", "name: Fame Token, count: 30"),
                       "token fame changed"),
    "add a die": (("    tokens:\n      money:", "    dice: {faces: [1, 2, 3, 4, 5, 5], "
                   "per_player: 1}\n    tokens:\n      money:"), "dice added"),
}


@pytest.mark.parametrize("what", XS_EDITS)
def test_x_statix_goes_on_with_the_cards_it_began_with(bundled, what):
    """Spike Freeman (Owner: hand limit 7, XS-11) renamed or changed mid-game: the rules
    still read him as he was; before, every command failed ("invalid session file")."""
    run = bundled
    run("new", "x-statix", "--players", "Ann,Bob", "--deal", "referee", "--seed", "3",
        "--owner", "Ann=Spike Freeman")
    (old, new), says = XS_EDITS[what]
    edit(run.cards, old, new)
    first = run("xs", "draw")
    assert notes(first.err) == [f"referee: note: cards.yaml changed since this game began "
                                f"({says}); {NOTE_END}"], first.err
    assert "invalid session" not in first.err
    second = run("mt", "Ann", "+1")
    assert second.err == "" and "Ann MT +1" in second.out
    state = json.loads(run("status", "--json").out)["state"]
    assert state["table"]["Ann"]["owner"] == "Spike Freeman"
    from referee.command import game_cards
    from referee.xs.play_walk import XsRules

    rules = XsRules(game_cards(str(run.session), str(run.cards), "x-statix"))
    assert rules.hand_limit(state, "Ann") == 7  # XS-11 as Spike Freeman began
    assert "Spike Freeman" in rules.card_names and "Spike Freeman Jr" not in rules.card_names


XO_EDITS = {
    "rename a shown card": (("Captain Volt", "Major Volt"),  # his Action cards name him too
                            "card 'Captain Volt' renamed 'Major Volt'"),
    # XO-1 fixes the mask die's faces (a validate error): its sets are changed instead
    "change a die": (("label: White Mask", "label: Ivory Mask"), "die sets changed"),
    "change a card's rule": (("name: Staggered, ready: true, effect: [{defense_mod: -1}, "
                              "{thwart_mod: -1}]", "name: Staggered, ready: true, effect: []"),
                             "card 'Staggered' changed"),
}


@pytest.mark.parametrize("what", XO_EDITS)
def test_xo_goes_on_with_the_cards_it_began_with(bundled, what):
    run = bundled
    run("new", "xo", "--players", "Hal,Val", "--seed", "1")
    run("xo", "pick", "heroes", "Captain Volt")
    (old, new), says = XO_EDITS[what]
    edit(run.cards, old, new)
    first = run("xo", "pick", "heroes", "Updraft")
    (note,) = notes(first.err)  # a renamed character: his Action cards changed too
    assert note.startswith(f"referee: note: cards.yaml changed since this game began ({says}")
    assert note.endswith(NOTE_END) and len(first.err.splitlines()) == 1
    assert "invalid session" not in first.err
    assert run("xo", "pick", "heroes", "Granite Grace").err == ""  # once
    if what == "rename a shown card":
        refused_unchanged(run, "xo", "pick", "heroes", "Major Volt", code=2, says="Major Volt")
    roster = json.loads(run("status", "--json").out)["state"]["roster"]["heroes"]
    assert [c["name"] for c in roster] == ["Captain Volt", "Updraft", "Granite Grace"]
    from referee.command import game_cards
    from referee.xo.play import XoCards

    kept = XoCards.from_db(game_cards(str(run.session), str(run.cards), "xo"))
    began = XoCards.from_db(_loaded(ROOT / "cards.yaml"))
    assert "Captain Volt" in kept.characters and kept.statuses == began.statuses


def _loaded(path: Path):
    import carddb

    return carddb.load(path)


class Outcome(Enum):
    COUNT = "count"


@dataclass(frozen=True)
class Odd:
    by_face: dict[int, Outcome]
    handler: type


def test_every_field_of_table_game_round_trips_through_plain_data():
    """A field added to TableGame (the rules as data) with a type referee/plain.py cannot
    build would fail at `referee new`: found here first."""
    from referee.plain import unsupported
    from referee.table.kit import TableGame

    assert unsupported(TableGame) == []
    assert unsupported(Rules) == []
    assert unsupported(Odd, "Odd") == ["Odd.handler (type)"]
    assert from_data(dict[int, Outcome], {"2": "count"}) == {2: Outcome.COUNT}
    assert to_data({2: Outcome.COUNT}) == {"2": "count"}
    with pytest.raises(SchemaError, match=r"data key: expected a whole number, found text 'x'"):
        from_data(dict[int, Outcome], {"x": "count"})
    with pytest.raises(SchemaError, match=r"data.2: expected 'count', found text 'sum'"):
        from_data(dict[int, Outcome], {"2": "sum"})


def test_cards_found_unchanged_once_are_not_loaded_again_until_a_file_changes(
        tmp_path, monkeypatch):
    """A command that found the kept game unchanged remembers the fingerprints of the
    files it loaded (carddb.fingerprint): the next command neither loads nor compares
    them; an edit of a spreadsheet the game reads (not cards.yaml) is still said."""
    monkeypatch.chdir(tmp_path)
    assert run_cli("pnp", "init", ".", cwd=tmp_path).returncode == 0

    def run(*args: str) -> SimpleNamespace:
        result = run_cli("referee", *args, cwd=tmp_path)
        assert result.returncode == 0, (args, result.stdout, result.stderr)
        return SimpleNamespace(out=result.stdout, err=result.stderr)

    run("new", "harbour", "--players", "Ann,Bob", "--seed", "3")
    assert run("token", "Ann", "cargo", "+1").err == ""  # compared: the same
    loads = []
    real_load = carddb.load
    monkeypatch.setattr(carddb, "load", lambda *a, **k: loads.append(a) or real_load(*a, **k))
    assert run("token", "Ann", "cargo", "+1").err == "" and loads == []
    ships = tmp_path / "ships.csv"
    ships.write_text(ships.read_text(encoding="utf-8").replace("The Gull", "The Tern"),
                     encoding="utf-8")
    (line,) = notes(run("token", "Ann", "cargo", "+1").err)
    assert "card 'The Gull' renamed 'The Tern'" in line and len(loads) == 1
    assert run("token", "Ann", "cargo", "+1").err == ""  # said once
