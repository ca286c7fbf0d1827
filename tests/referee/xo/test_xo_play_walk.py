"""`referee play`'s XO! walk (issue 31 item 2) driven in-process as a pipe drives it, the
new ruling XO-21 (a decided episode ends) and XO!'s `over`/`winner` as every game's
(issue 29). The walk: a pick of 6 asks the same league for the 7th; the thwart question
takes `--play CARD`; the defender is asked for defense cards; the discards asked at the
turn's end (XO-10) and taken on the game-ending turn; no thwart question when nobody can
thwart; `feat --bonus` only the thwart bonus; a floored miss asks no extra damage die."""

from __future__ import annotations

import json

import pytest

from referee.errors import RefereeError
from referee.play.loop import Table
from referee.play.walk import xo_question
from referee.xo import play

HEROES = ["Captain Volt", "Updraft", "Granite Grace", "Hotfoot", "Doctor Lumen",
          "Commander Halcyon", "Ghostwire"]
VILLAINS = ["Gravelmaw", "Static Jack", "Nightjar", "Madame Rime", "Doctor Null",
            "Mister Murmur", "Pyra Vex"]


@pytest.fixture
def run(tmp_path, referee):
    """The bundled XO! game (heroes Ann go first with seed 5) in a session of its own."""
    session = str(tmp_path / "xo.db")

    def in_session(*args: str):
        return referee("--session", session, *args)

    assert in_session("new", "xo", "--players", "Ann,Bob", "--seed", "5").returncode == 0
    in_session.session = session
    return in_session


def picked(run) -> None:
    assert run("xo", "pick", "Ann", *HEROES).returncode == 0
    assert run("xo", "pick", "Bob", *VILLAINS).returncode == 0


def walk(session: str, lines: list[str], capsys) -> str:
    capsys.readouterr()
    Table(session, None, iter(line + "\n" for line in lines)).play()
    out = capsys.readouterr()
    return out.out + out.err


def status(run) -> dict:
    return json.loads(run("status", "--json").stdout)["state"]


def test_six_characters_at_the_pick_question_then_the_seventh_for_the_same_league(run, capsys):
    out = walk(run.session, [", ".join(HEROES[:6]), HEROES[6], ", ".join(VILLAINS)], capsys)
    assert "Ann picks the heroes' characters (1 more; names, comma-separated) > Ghostwire" in out
    assert "Bob picks the villains' characters (7 more" in out
    state = status(run)
    assert state["turn"]["phase"] == "Attack" and len(state["roster"]["heroes"]) == 7


def test_the_pick_offers_the_leagues_characters_and_takes_a_unique_start_of_a_name(run,
                                                                                   capsys):
    """Set-up step 3: at the pick, Tab offers the picking league's characters not yet
    picked (the other league's are not theirs to pick), and "capt, updr" is Captain Volt
    and Updraft."""
    table = Table(run.session, None, iter(()))
    table.state = status(run)
    _, names = table.names()
    assert set(HEROES) <= set(names) and not set(VILLAINS) & set(names)
    asked = xo_question(table.state, set(), table.rules(table.state))
    assert set(HEROES) <= set(asked.names) and not set(VILLAINS) & set(asked.names)
    out = walk(run.session, ["capt, updr", ", ".join(HEROES[2:]), ", ".join(VILLAINS)], capsys)
    assert "Ann picks the heroes' characters (5 more" in out
    state = status(run)
    assert [c["name"] for c in state["roster"]["heroes"]] == HEROES
    assert state["turn"]["phase"] == "Attack"


def test_the_defender_is_asked_for_defense_cards(run, capsys):
    picked(run)
    out = walk(run.session, ["attack captain volt static jack", "human shield", "3 2 1", "2",
                             "quit"], capsys)
    assert "Bob: defense cards for Static Jack? [none] human shield" in out
    assert "Human Shield" in run("log", "--all").stdout


def test_the_thwart_question_takes_play_card_as_attack_and_feat_do(run, capsys):
    picked(run)
    out = walk(run.session, ["feat captain volt", "3 3 3", "quit"], capsys)
    thwarters = status(run)["turn"]["feat"]["thwarters"]
    assert thwarters and "Bob: thwart with? (CHARACTER) [no]" in out
    who = thwarters[0]
    out = walk(run.session, [f'thwart {who} --play "Spoil Their Plans"', "0 0 0",
                             "quit"], capsys)
    assert "play:" not in out and "Spoil Their Plans" in out, out[-3000:]
    assert f"{who} tries to thwart" in run("log", "--all").stdout, out[-3000:]


def test_the_discards_are_asked_when_the_turn_ends(run, capsys):
    picked(run)
    out = walk(run.session, ["", "", "heroes 2, villains 1", "quit"], capsys)
    assert "Discards before the next draw" in out
    state = status(run)
    assert state["turn"]["number"] == 2 and state["hands"] == {"heroes": 7, "villains": 7}
    log = run("log", "--all").stdout
    assert "heroes discard 2" in log and "villains discard 1" in log, log


def test_no_thwart_question_when_no_one_can_thwart():
    state = {"game": "xo", "players": ["Ann", "Bob"], "over": False,
             "roster": {"heroes": [{"name": "A", "ko": False}],
                        "villains": [{"name": "B", "ko": False}]},
             "hands": {"heroes": 0, "villains": 0},
             "turn": {"number": 3, "active": "heroes", "phase": "Feat/Thwart",
                      "feat": {"character": "A", "pending": True, "thwarters": []}}}
    asked = xo_question(state, set())
    assert asked.auto and asked.enter == ["xo", "next"]
    state["turn"]["feat"]["thwarters"] = ["B"]
    assert "thwart with?" in xo_question(state, set()).prompt


def test_a_feat_records_who_could_thwart_it(started, xo_cards):
    # chapter 1: the heroes need the energy icon (Captain Volt), the villains' thwart too:
    # Doctor Null (tech) cannot thwart an energy objective unless it has the icon
    out = play.feat(started, xo_cards, "Captain Volt", dice_of([3, 3, 3]))
    able = out.state["turn"]["feat"]["thwarters"]
    out_ko = play.feat(ko(started, xo_cards, able), xo_cards, "Captain Volt", dice_of([3, 3, 3]))
    assert out_ko.state["turn"]["feat"]["thwarters"] == []


@pytest.mark.parametrize("bonus, code", [("5", 2), ("2", 0), ("0", 0)])
def test_feat_bonus_is_only_the_thwart_bonus(referee, bonus, code):
    done = referee("xo", "feat", "--dice", "2", "--fcv", "4", "--roll", "1,1",
                              "--bonus", bonus)
    assert done.returncode == code, done.stderr
    if code:
        assert done.stderr.count("\n") == 1 and "the thwart bonus is +2 (XO-14)" in done.stderr


def test_xo17_a_floored_miss_asks_no_extra_damage_die(referee):
    """ACV 0-1 and DCV 0+0-3 floor to 0 and 0: a miss (XO-3), so the moffed defense's
    extra damage die (XO-5) is not needed, and not asked for."""
    done = referee("xo", "combat", "--attack-dice", "1", "--defense-dice", "2",
                              "--health", "3", "--attack-roll", "1", "--defense-roll", "0,0",
                              "--attack-mod", "-1", "--defense-mod", "-3")
    assert done.returncode == 0, done.stderr
    assert "miss" in done.stdout and "extra damage" not in done.stdout + done.stderr


# ── XO-21 and the game's end ────────────────────────────────────────────────────
def dice_of(faces):
    import random

    from referee.dice import TableDice

    return TableDice("", random.Random(0), given={"feat": list(faces)}, roll_missing=True)


def ko(state, cards, names):
    for name in names:
        state = play.tag(state, cards, name, "KOd").state
    return state


def to_feat_phase(state, cards):
    while state["turn"]["phase"] != "Feat/Thwart":
        state = play.next_phase(state, cards).state
    return state


def test_xo21_a_fourth_chapter_wins_at_once(started, xo_cards):
    state = dict(started, won={"1": "heroes", "2": "villains", "3": "heroes", "4": "heroes"},
                 chapter=5)
    state = to_feat_phase(state, xo_cards)
    state = dict(state, won={**state["won"], "5": "heroes"}, chapter=6)
    out = play.next_phase(state, xo_cards)
    assert out.state["over"] and out.state["winner"] == "heroes"
    assert any(s.ruling == "XO-21" and "game over, heroes win 4-1" in s.text
               for s in out.steps), [s.text for s in out.steps]
    with pytest.raises(RefereeError) as err:
        play.next_phase(out.state, xo_cards)
    assert "the game is over" in err.value.message


def test_xo21_before_xo16_a_league_at_four_facing_a_dead_chapter_wins(started, xo_cards):
    # heroes hold 4 of 6; chapter 7 no one can attempt (XO-16) - the 4 chapters decide first
    won = {"1": "heroes", "2": "villains", "3": "heroes", "4": "villains", "5": "heroes",
           "6": "heroes"}
    from referee.xo import rules

    end = rules.game_end(won)
    assert end.over and end.winner == "heroes" and end.steps[0].ruling == "XO-21"
    assert not rules.game_end({"1": "heroes", "2": "heroes", "3": "heroes"}).over


def test_the_game_ending_turn_takes_its_discards(started, xo_cards):
    # chapter 7 at 3-3 (XO-15): the heroes' unthwarted feat wins it, and the game
    won = {str(c): ("heroes" if c % 2 else "villains") for c in range(1, 7)}
    state = dict(started, won=won, chapter=7)
    state = to_feat_phase(state, xo_cards)
    state["turn"]["feat"] = {"character": "Captain Volt", "objective": "x", "total": 9,
                             "success": True, "pending": True, "thwarted": False}
    out = play.next_phase(state, xo_cards, {"heroes": 2})
    assert out.state["over"] and out.state["winner"] == "heroes"


def test_xo_status_json_carries_over_and_the_winners_names(run, tmp_path):
    picked(run)
    state = status(run)
    assert state["over"] is False and state["winner"] is None
    from referee.xo.game import public_state

    shown = public_state(dict(state, over=True, winner="villains"))
    assert shown["winner"] == ["Bob"] and shown["winning_league"] == "villains"
    assert public_state(dict(state, over=True, winner=None))["winner"] == []  # a draw


def test_a_thwart_ends_the_turn_with_the_discards_asked_first(run, capsys):
    """The thwart ends the turn in its own command (XO-14): the walk asks the discards
    before it, and the thwart takes them (`--discard`, XO-10)."""
    picked(run)
    walk(run.session, ["feat captain volt", "3 3 3", "quit"], capsys)
    who = status(run)["turn"]["feat"]["thwarters"][0]
    out = walk(run.session, [who, "heroes 2, villains 1", "0 0 0", "quit"], capsys)
    assert "Discards before the next draw" in out
    log = run("log", "--all").stdout
    assert f"{who} tries to thwart" in log
    assert "heroes discard 2" in log and "villains discard 1" in log, log


def test_a_failed_feat_takes_the_discards_of_the_turn_it_ends(run):
    picked(run)
    done = run("xo", "feat", "Captain Volt", "--roll", "0,0,0", "--discard", "heroes=1")
    assert done.returncode == 0, done.stderr
    assert "heroes discard 1" in run("log", "--all").stdout
    assert status(run)["turn"]["number"] == 2
