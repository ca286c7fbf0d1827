"""Game setup: X-Statix per XS-1, XO! per XO-1, through the pure functions and `referee new`."""

from __future__ import annotations

import json
import random
import sys
from collections import Counter

import pytest

import carddb
from referee.errors import UsageError
from referee.xo import game as xo
from referee.xs import game as xs
from tests.referee._core_support import ROOT, cli, one_line_error, read_log, referee_json

DB = carddb.load(ROOT / "cards.yaml")


def common_deck() -> Counter:
    return Counter(c.name for c in DB.games["x-statix"].decks["common"].cards for _ in range(c.copies))


@pytest.mark.parametrize("players", [["Ann", "Bob"], ["Ann", "Bob", "Cy"]])
def test_xstatix_setup_deals_per_xs1(players):
    state = xs.new_state(players, DB, random.Random(4), seed=4)
    assert state["game"] == "x-statix" and state["players"] == players and state["seed"] == 4
    assert sum(common_deck().values()) == 79
    dealt = Counter(state["deck"])
    for p in players:
        seat = state["table"][p]
        assert len(seat["hand"]) == 7
        dealt.update(seat["hand"])
        rolls = state["setup"]["mt_rolls"][p]
        assert len(rolls) == 4 and all(1 <= r <= 6 for r in rolls)
        assert seat["mt"] == sum(rolls)
        assert seat["heroes"] == []
    assert dealt == common_deck()  # every card once: hands + deck
    assert len(state["deck"]) == 79 - 7 * len(players)
    owners = [state["table"][p]["owner"] for p in players]
    teams = [state["table"][p]["team"] for p in players]
    assert len(set(owners)) == len(players) and set(owners) <= {
        c.name for c in DB.games["x-statix"].decks["owners"].cards
    }
    assert len(set(teams)) == len(players) and set(teams) <= {
        c.name for c in DB.games["x-statix"].decks["team-names"].cards
    }
    assert state["discard"] == [] and state["over"] is False and state["winner"] is None
    assert state["turn"] == {"number": 1, "player": state["turn"]["player"], "phase": "opportunity"}
    assert_first_player_rounds(
        state["setup"]["first_player_rolls"], players, state["turn"]["player"]
    )


def assert_first_player_rounds(rounds, players, first):
    """XS-1: highest 1D6 goes first; ties reroll among the tied only."""
    contenders = list(players)
    for faces in rounds:
        assert list(faces) == contenders
        best = max(faces.values())
        contenders = [p for p in contenders if faces[p] == best]
    assert contenders == [first]


def test_xstatix_first_player_ties_reroll_among_the_tied():
    tied = 0
    for seed in range(60):
        state = xs.new_state(["A", "B", "C"], DB, random.Random(seed))
        rounds = state["setup"]["first_player_rolls"]
        assert_first_player_rounds(rounds, ["A", "B", "C"], state["turn"]["player"])
        tied += len(rounds) > 1
    assert tied > 0  # the seeds do exercise rerolls


def test_xstatix_setup_is_reproducible_from_its_seed():
    a = xs.new_state(["Ann", "Bob"], DB, random.Random(9))
    b = xs.new_state(["Ann", "Bob"], DB, random.Random(9))
    c = xs.new_state(["Ann", "Bob"], DB, random.Random(10))
    assert a == b and a != c


def test_xstatix_chosen_owner_and_team():
    state = xs.new_state(
        ["Ann", "Bob", "Cy"],
        DB,
        random.Random(1),
        owners={"cy": "solomon o'sullivan"},  # typed with a straight apostrophe
        teams={"Ann": "O-Force", "Bob": "x-statix"},
    )
    assert state["table"]["Cy"]["owner"].startswith("Solomon O")
    assert (
        state["table"]["Ann"]["team"] == "O-Force" and state["table"]["Bob"]["team"] == "X-Statix"
    )
    assert state["table"]["Cy"]["team"] == "X-Force"  # the one left
    assert state["setup"]["owners_chosen"] == ["Cy"]


@pytest.mark.parametrize(
    "players, options, words",
    [
        (["Ann"], {}, "2 to 3 players"),
        (["A", "B", "C", "D"], {}, "2 to 3 players"),
        (["Ann", "ann"], {}, "must differ"),
        (["Ann", "Bob"], {"owners": {"Ann": "Coach", "Bob": "coach"}}, "chosen twice"),
        (["Ann", "Bob"], {"owners": {"Ann": "Nobody"}}, "no Owner card"),
        (["Ann", "Bob"], {"teams": {"Zed": "X-Force"}}, "not a player"),
        (["Ann", "Bob"], {"colour": "red"}, "no setup option"),
    ],
)
def test_xstatix_setup_refuses_bad_input(players, options, words):
    with pytest.raises(UsageError, match=words):
        xs.new_state(players, DB, random.Random(1), **options)


def test_xo_setup_per_xo1():
    state = xo.new_state(["Ann", "Bob"], DB, random.Random(2), seed=2)
    assert state["players"] == ["Ann", "Bob"]
    assert state["leagues"] == {"heroes": "Ann", "villains": "Bob"}
    assert state["roster"] == {"heroes": [], "villains": []}
    assert state["chapter"] == 1 and state["won"] == {} and state["thwart_bonus"] is None
    assert state["over"] is False and state["winner"] is None
    rounds = state["setup"]["first_player_rolls"]
    for r in rounds[:-1]:
        assert r["heroes"] == r["villains"]  # ties are rerolled
    last = rounds[-1]
    assert last["heroes"] != last["villains"]
    assert all(f in (0, 1, 2, 3) for r in rounds for f in r.values())
    expected = "heroes" if last["heroes"] > last["villains"] else "villains"
    assert state["turn"]["number"] == 1 and state["turn"]["active"] == expected


def test_xo_first_player_rerolls_seen_over_seeds():
    lengths = [
        len(xo.new_state(["A", "B"], DB, random.Random(s))["setup"]["first_player_rolls"])
        for s in range(40)
    ]
    assert max(lengths) > 1


@pytest.mark.parametrize("players", [["Ann"], ["Ann", "Bob", "Cy"], ["Ann", " ann "]])
def test_xo_setup_refuses_other_player_counts(players):
    with pytest.raises(UsageError):
        xo.new_state(players, DB, random.Random(1))


def test_status_lines_tell_tokens_and_tags():
    state = xo.new_state(["Ann", "Bob"], DB, random.Random(2))
    state["roster"]["heroes"] = [{"name": "Captain Volt", "statuses": ["Stunned"], "ko": False}]
    state["won"] = {"1": "heroes", "2": "villains"}
    state["chapter"] = 3
    state["thwart_bonus"] = {"league": "villains", "turn": 4}
    text = "\n".join(xo.status_lines(state))
    assert "chapter 3 of 7" in text and "Captain Volt [Stunned]" in text
    assert "chapters won 1" in text and "chapters won 2" in text and "+2 for villains" in text


# ── referee new ──────────────────────────────────────────────────────────────
def test_cli_new_xstatix_seeded_and_logged(tmp_path):
    db = tmp_path / "g.db"
    data = referee_json(
        "--session",
        str(db),
        "new",
        "x-statix",
        "--players",
        "Ann, Bob",
        "--seed",
        "12",
        "--owner",
        "Ann=Coach",
        "--deal",
        "referee",
    )
    [(event, stored)] = read_log(db)
    assert stored["seed"] == 12 and stored["table"]["Ann"]["owner"] == "Coach"
    assert stored == xs.new_state(
        ["Ann", "Bob"], DB, random.Random(12), owners={"Ann": "Coach"}, seed=12, deal="referee"
    )
    state = data["state"]  # what the table sees: no seed, hands and deck as counts
    assert state == xs.public_state(stored) and "seed" not in state
    assert state["table"]["Ann"]["hand"] == 7 and state["deck"] == len(stored["deck"])
    assert event["kind"] == "new"
    assert "goes first" in event["summary"] and "4D6" in event["summary"]
    assert event["payload"]["setup"] == state["setup"]


def test_cli_new_refuses_existing_game_unless_forced(tmp_path):
    db = tmp_path / "g.db"
    cli("--session", str(db), "new", "xo", "--players", "Ann,Bob", check=0)
    before = db.read_bytes()
    proc = cli("--session", str(db), "new", "xo", "--players", "Ann,Bob")
    assert proc.returncode == 1 and "--force" in one_line_error(proc)
    assert db.read_bytes() == before
    cli("--session", str(db), "new", "x-statix", "--players", "Ann,Bob,Cy", "--force", check=0)
    log = read_log(db)
    assert [e["kind"] for e, _ in log] == ["new", "new"] and log[-1][1]["game"] == "x-statix"
    proc = cli("--session", str(db), "undo")  # a new game is where undo stops
    assert proc.returncode == 1 and "nothing to undo" in one_line_error(proc)


@pytest.mark.parametrize(
    "args, code",
    [
        (["new", "chess", "--players", "A,B"], 2),
        (["new", "xo", "--players", "A"], 2),
        (["new", "xs", "--players", "A,B,C,D"], 2),
        (["new", "xo", "--players", "A,B", "--owner", "A=Coach"], 2),
        (["new", "x-statix", "--players", "A,B", "--owner", "A"], 2),
        (["--cards", "missing.yaml", "new", "xo", "--players", "A,B"], 1),
    ],
)
def test_cli_new_bad_input(tmp_path, args, code):
    db = tmp_path / "g.db"
    proc = cli("--session", str(db), *args)
    assert proc.returncode == code and one_line_error(proc)
    assert not db.exists()


def test_cli_new_with_an_invalid_card_database_is_exit_1(tmp_path):
    bad = tmp_path / "cards.yaml"
    bad.write_text("version: 1\ngames: {}\n")
    proc = cli(
        "--session", str(tmp_path / "g.db"), "--cards", str(bad), "new", "xo", "--players", "A,B"
    )
    assert proc.returncode == 1 and "invalid card database" in one_line_error(proc)


def test_cli_status_json_of_xo(tmp_path):
    db = tmp_path / "g.db"
    cli("--session", str(db), "new", "xo", "--players", "Ann,Bob", "--seed", "3", check=0)
    data = referee_json("--session", str(db), "status")
    assert data["state"]["leagues"] == {"heroes": "Ann", "villains": "Bob"}
    assert any("chapter 1 of 7" in line for line in data["lines"])
    assert json.dumps(data)  # one JSON object


def test_cli_new_with_setup_dice_from_the_table(tmp_path):
    db = tmp_path / "g.db"
    faces = "6,6,6,6, 1,1,1,1, 4,4, 5,2"  # Ann 4D6, Bob 4D6, first-player tie, reroll
    state = referee_json(
        "--session",
        str(db),
        "new",
        "x-statix",
        "--players",
        "Ann,Bob",
        "--roll",
        faces,
        "--seed",
        "1",
    )["state"]
    assert state["table"]["Ann"]["mt"] == 24 and state["table"]["Bob"]["mt"] == 4
    assert state["setup"]["first_player_rolls"] == [{"Ann": 4, "Bob": 4}, {"Ann": 5, "Bob": 2}]
    assert state["turn"]["player"] == "Ann"


@pytest.mark.parametrize(
    "faces, words",
    [
        ("6,6,6,6,1,1,1,1", "rolls at least"),
        ("6,6,6,6,1,1,1,1,5,2,3", "left over"),
        ("6,6,6,7,1,1,1,1,5,2", "impossible"),
    ],
)
def test_cli_new_refuses_wrong_table_dice(tmp_path, faces, words):
    db = tmp_path / "g.db"
    proc = cli("--session", str(db), "new", "x-statix", "--players", "Ann,Bob", "--roll", faces)
    assert proc.returncode == 2 and words in one_line_error(proc)
    assert not db.exists()


def test_cli_new_xo_with_table_mask_dice(tmp_path):
    db = tmp_path / "g.db"
    state = referee_json(
        "--session", str(db), "new", "xo", "--players", "Ann,Bob", "--roll", "2,2,0,3"
    )["state"]
    assert state["setup"]["first_player_rolls"] == [
        {"heroes": 2, "villains": 2},
        {"heroes": 0, "villains": 3},
    ]
    assert state["turn"]["active"] == "villains"


def _new_at_terminal(tmp_path, *args: str):
    import os

    import pexpect

    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env["PYTHONPATH"] = str(ROOT)
    return pexpect.spawn(sys.executable, ["-m", "referee", "--session", str(tmp_path / "t.db"), "new", *args],
                         cwd=str(ROOT), env=env, encoding="utf-8", timeout=30)


def test_new_asks_for_the_setup_dice_on_a_terminal(tmp_path):
    """Issue 23: `new` asks for the setup dice like every command (4D6 MT each, then the
    first-player dice, XS-1); several faces of a roll at one prompt; Enter = the referee
    rolls that die and says so at once."""
    import pexpect

    child = _new_at_terminal(tmp_path, "x-statix", "--players", "Ann,Bob")
    child.expect_exact("Ann's starting MT, die 1 of 4, 1D6 (Enter: the referee rolls):")
    child.sendline("6 6 5 4")
    child.expect_exact("Bob's starting MT, die 1 of 4, 1D6 (Enter: the referee rolls):")
    child.sendline("1 1 1 1")
    child.expect_exact("Ann's first-player roll, 1D6 (Enter: the referee rolls):")
    child.sendline("6")
    child.expect_exact("Bob's first-player roll, 1D6 (Enter: the referee rolls):")
    child.sendline("")
    child.expect(r"the referee rolls [1-6] for Bob's first-player roll, 1D6")
    while child.expect_exact(["(Enter: the referee rolls):", pexpect.EOF]) == 0:  # a tie
        child.sendline("")
    child.close()
    assert child.exitstatus == 0, child.before
    state = json.loads(cli("--session", str(tmp_path / "t.db"), "status", "--json").stdout)["state"]
    assert state["table"]["Ann"]["mt"] == 21 and state["table"]["Bob"]["mt"] == 4


def test_new_xo_asks_for_the_first_player_dice_on_a_terminal(tmp_path):
    child = _new_at_terminal(tmp_path, "xo", "--players", "Ann,Bob")
    child.expect_exact("the heroes' first-player roll (White Mask), mask 0-3 (Enter: the referee rolls):")
    child.sendline("3")
    child.expect_exact("the villains' first-player roll (Black Mask), mask 0-3 (Enter: the referee rolls):")
    child.sendline("0")
    child.expect("heroes")
    child.expect(__import__("pexpect").EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    log = json.loads(cli("--session", str(tmp_path / "t.db"), "log", "--json").stdout)["events"]
    assert log[0]["payload"]["setup"]["first_player_rolls"] == [{"heroes": 3, "villains": 0}]
