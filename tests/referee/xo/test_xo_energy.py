"""Energy (rules, Attack phase: characters use cards from the hand when they "have the
requisite Energy Cards"), through the CLI in a session on the fixture card set: Energy
cards played this turn fill the league's pool, a card's `cost` is paid from it, a cost
the pool cannot pay is refused (one line, exit 1, nothing changes), and the pool empties
when the turn ends.

Fixture cards: "Heroes Energy" / "Villains Energy" provide 1 each; Captain Volt Move 5
(attack) and Move 2 (defense) cost 1."""

from __future__ import annotations

import json

import pytest

ENERGY_RULE = "(XO-19)"
MOVE_5 = "Captain Volt Move 5"  # attack: cost 1, 1 extra die, +1 damage, tag Injured


@pytest.fixture
def table(referee, fixture_db_path, picks, tmp_path):
    """A session at turn 1's Attack phase, heroes active, 7 cards in each hand. Returns
    run(*args, code=0) checking the exit code."""
    session = str(tmp_path / "energy.db")

    def run(*args: str, code: int = 0):
        result = referee("--session", session, "--cards", str(fixture_db_path), *args)
        assert result.returncode == code, f"{args}: exit {result.returncode}\n{result.stdout}{result.stderr}"
        return result

    run("new", "xo", "--players", "Ann,Bob", "--seed", "8")  # heroes first (XO-1)
    run("xo", "pick", "heroes", *picks["heroes"])
    run("xo", "pick", "villains", *picks["villains"])
    # turn 1: no Status Check, both draw 7 (XO-8, XO-10): the Attack phase
    return run


def state_of(run) -> dict:
    return json.loads(run("status", "--json").stdout)["state"]


def refused(run, *args: str, says: str) -> str:
    """The command is refused with one line on stderr and exit 1, and nothing changes."""
    before = state_of(run)
    log_before = run("log").stdout
    result = run(*args, code=1)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr
    assert state_of(run) == before
    assert run("log").stdout == log_before
    return lines[0]


def test_energy_card_fills_the_pool_and_leaves_the_hand(table):
    out = table("xo", "play", "heroes", "Heroes Energy")
    assert "Heroes Energy provides 1 Energy: the heroes' pool holds 1" in out.stdout
    assert ENERGY_RULE.strip("()") in out.stdout
    state = state_of(table)
    assert state["energy"] == {"heroes": 1, "villains": 0}
    assert state["hands"] == {"heroes": 6, "villains": 7}  # an Energy card is a card from hand
    status = table("status").stdout
    assert "Heroes (Ann): chapters won none; 6 cards in hand; Energy pool 1" in status
    assert "Villains (Bob): chapters won none; 7 cards in hand; Energy pool 0" in status
    reply = json.loads(table("xo", "play", "heroes", "Heroes Energy", "--json").stdout)
    assert reply["energy"] == 2 and reply["state"]["energy"]["heroes"] == 2


def test_cost_is_paid_from_the_energy_played(table):
    table("xo", "play", "heroes", "Heroes Energy")
    out = json.loads(table("xo", "attack", "Captain Volt", "Brute", "--play", MOVE_5,
                           "--attack-roll", "1,1,1,1", "--defense-roll", "1,1", "--json").stdout)
    assert out["played"] == [MOVE_5] and out["acv"] == 4  # the card worked: 4 dice
    assert any(s["text"] == f"{MOVE_5} costs 1 Energy: paid, the heroes' pool holds 0"
               and s["ruling"] == "XO-19" for s in out["steps"])
    assert out["state"]["energy"]["heroes"] == 0 and out["state"]["hands"]["heroes"] == 5


def test_energy_played_with_the_card_pays_for_it(table):
    out = table("xo", "attack", "Captain Volt", "Brute", "--play", "Heroes Energy", "--play", MOVE_5,
                "--attack-roll", "1,1,1,1", "--defense-roll", "1,1")
    assert "Heroes Energy provides 1 Energy: the heroes' pool holds 1" in out.stdout
    assert f"{MOVE_5} costs 1 Energy: paid, the heroes' pool holds 0" in out.stdout
    state = state_of(table)
    assert state["energy"]["heroes"] == 0 and state["hands"]["heroes"] == 5


def test_a_cost_the_pool_cannot_pay_is_refused_naming_the_shortfall(table):
    line = refused(table, "xo", "attack", "Captain Volt", "Brute", "--play", MOVE_5,
                   "--attack-roll", "1,1,1,1", "--defense-roll", "1,1", says="1 short")
    assert line == (f"referee: the heroes need 1 Energy ({MOVE_5}: 1) but their pool holds 0: "
                    f"1 short; play Energy cards first {ENERGY_RULE}")
    table("xo", "play", "heroes", "Heroes Energy")
    # two costly cards, one Energy: still short by 1; the Energy already played stays
    refused(table, "xo", "attack", "Captain Volt", "Brute", "--play", MOVE_5, "--play", MOVE_5,
            "--attack-roll", "1,1,1,1,1", "--defense-roll", "1,1", says="need 2 Energy")
    assert state_of(table)["energy"]["heroes"] == 1


def test_each_league_pays_from_its_own_pool(table):
    refused(table, "xo", "play", "heroes", "Villains Energy", says="not a heroes card")
    table("xo", "play", "villains", "Villains Energy")  # the responding league's pool
    refused(table, "xo", "attack", "Captain Volt", "Brute", "--play", MOVE_5,
            "--attack-roll", "1,1,1,1", "--defense-roll", "1,1", says="their pool holds 0: 1 short")
    assert state_of(table)["energy"] == {"heroes": 0, "villains": 1}


def test_defense_card_cost_is_paid_by_the_defending_league(table):
    for _ in range(2):  # on to turn 2's Attack phase: villains active, heroes respond
        table("xo", "next")
    args = ("xo", "attack", "Razor", "Captain Volt", "--defense-play", "Captain Volt Move 2",
            "--attack-roll", "1,1,1", "--defense-roll", "1,1", "--no-counterattack")
    refused(table, *args, says="the heroes need 1 Energy")
    table("xo", "play", "Ann", "Heroes Energy")
    out = table(*args)
    assert "Captain Volt Move 2 costs 1 Energy: paid, the heroes' pool holds 0" in out.stdout


def test_the_pool_empties_at_the_end_of_the_turn(table):
    table("xo", "play", "heroes", "Heroes Energy", "Heroes Energy")
    table("xo", "play", "villains", "Villains Energy")
    table("xo", "next")  # Feat/Thwart: the turn is not over yet
    assert state_of(table)["energy"] == {"heroes": 2, "villains": 1}
    out = table("xo", "next")  # the turn ends, turn 2 begins
    assert "the heroes' 2 unspent Energy is gone with the turn" in out.stdout
    assert "the villains' 1 unspent Energy is gone with the turn" in out.stdout
    state = state_of(table)
    assert state["turn"]["number"] == 2 and state["energy"] == {"heroes": 0, "villains": 0}
    assert "Energy pool 0" in table("status").stdout
    log = table("log").stdout
    # issue 23: the `next` that ends turn 1 is logged under turn 1
    line = next(ln for ln in log.splitlines() if "T1 heroes: the turn ends - " in ln)
    assert "the heroes' 2 unspent Energy is gone with the turn" in line
    assert line.endswith("; now T2 villains: Attack phase")


def test_pay_energy_pure_function():
    from referee.xo import rules

    paid = rules.pay_energy(1, [("Power Cell", 2)], [("Overload", 1), ("Chain Lightning", 2)], "heroes")
    assert paid.pool == 0 and [s.ruling for s in paid.steps] == ["XO-19"] * 3
    with pytest.raises(ValueError, match=r"need 3 Energy \(Overload: 1, Chain Lightning: 2\) but their pool holds 2: 1 short"):
        rules.pay_energy(0, [("Power Cell", 2)], [("Overload", 1), ("Chain Lightning", 2)], "heroes")
    assert rules.pay_energy(0, [], [], "villains").pool == 0  # free cards need nothing
    pools, steps = rules.empty_energy({"heroes": 3, "villains": 0})
    assert pools == {"heroes": 0, "villains": 0} and len(steps) == 1 and "3 unspent" in steps[0].text
