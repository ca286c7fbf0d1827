"""The rulings XO-17..XO-20 (issue 21), each tested by its id: totals never below 0, one
attack per character per phase, Energy for the turn only, the Resource stacks shared by
both leagues. Fixture cards: tests/data/xo-cards.yaml."""

from __future__ import annotations

import random

import pytest

from referee.dice import TableDice
from referee.errors import RefereeError
from referee.xo import play, rules


def dice(**faces):
    return TableDice("", random.Random(0), given={k.replace("_", "-"): v for k, v in faces.items()},
                     roll_missing=True)


def at_phase(state, cards, phase):
    while state["turn"]["phase"] != phase:
        state = play.next_phase(state, cards).state
    return state


def test_xo17_a_dcv_taken_below_zero_counts_as_zero_and_damage_follows():
    """The ruling's own example: a defender whose dice and modifiers come to -3 has DCV 0;
    damage is ACV - DCV as usual (not ACV + 3)."""
    result = rules.combat_round([1, 1], [0, 1, 0], 5, {}, defense_mod=-4)
    assert result.dcv == 0 and result.acv == 2 and result.hit
    assert result.damage == 2  # 2 - 0, not 2 - (-3)
    floor = [s for s in result.steps if s.ruling == "XO-17"]
    assert [s.text for s in floor] == ["DCV -3 counts as 0: totals never go below 0"]


def test_xo17_an_acv_below_zero_is_zero_and_misses_a_zero_dcv():
    result = rules.combat_round([1], [0], 3, {}, attack_mod=-3)
    assert (result.acv, result.dcv, result.hit) == (0, 0, False)  # DCV >= ACV: miss (XO-3)
    assert any(s.ruling == "XO-17" and s.text.startswith("ACV -2") for s in result.steps)


def test_xo17_feat_and_thwart_totals_never_below_zero():
    feat = rules.feat([1], 0, mod=-4)
    assert feat.total == 0 and feat.success  # 0 >= FCV 0
    assert "XO-17" in rules.rulings_of(feat.steps)
    thwart = rules.thwart([0, 0], 1, mod=-2)
    assert thwart.total == 0 and not thwart.success
    assert "XO-17" in rules.rulings_of(thwart.steps)
    plain = rules.feat([2], 2, mod=-1)
    assert plain.total == 1 and "XO-17" not in rules.rulings_of(plain.steps)  # only below 0


def test_xo18_each_ready_character_attacks_at_most_once_a_phase(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    state = play.attack(state, xo_cards, "Gearhead", "Psyche", dice(attack=[1], defense=[2, 2])).state
    with pytest.raises(RefereeError) as err:
        play.attack(state, xo_cards, "Gearhead", "Razor", dice(attack=[1], defense=[2, 2]))
    assert err.value.ruling == "XO-18" and "already attacked" in str(err.value)
    # another character of the league still may
    assert play.attack(state, xo_cards, "Swift", "Psyche", dice(attack=[1, 1], defense=[2, 2])).state


def test_xo19_energy_fills_the_pool_for_the_turn_and_unspent_energy_is_lost():
    paid = rules.pay_energy(0, [("Heroes Energy", 1), ("Heroes Energy", 1)], [("Move", 1)], "heroes")
    assert paid.pool == 1 and {s.ruling for s in paid.steps} == {"XO-19"}
    pools, steps = rules.empty_energy({"heroes": paid.pool, "villains": 0})
    assert pools == {"heroes": 0, "villains": 0}
    assert [s.ruling for s in steps] == ["XO-19"] and "unspent Energy is gone" in steps[0].text


def test_xo20_either_league_plays_the_face_up_resource_and_an_empty_stack_stays_empty(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    state["resources"] = {"npcs": ["Police Captain"], "powers": [], "tech": [], "upgrades": []}
    villains = play.play_cards(state, xo_cards, ["Police Captain"], "villains", None, "defense")
    assert villains.mod("defense_mod") == 1 and any(s.ruling == "XO-20" for s in villains.steps)
    assert state["resources"]["npcs"] == []
    with pytest.raises(RefereeError) as err:  # the heroes cannot take it again: the stack is empty
        play.play_cards(state, xo_cards, ["Police Captain"], "heroes", None, "defense")
    assert err.value.ruling == "XO-20" and "stack is empty" in str(err.value)


@pytest.mark.parametrize("left, right", [("1m", "2m-3"), ("2m-4", "1m"), ("3m-2", "2m-2")])
def test_xo17_the_exact_odds_of_a_combat_floor_both_totals_at_zero(left, right):
    """`referee odds "A vs D"` with mask dice is an ACV vs a DCV: each counts as at least 0,
    checked against an enumeration of the faces."""
    import itertools
    from fractions import Fraction

    from referee import odds
    from referee.dice import MASK_FACES
    from referee.notation import parse

    def totals(text):
        expr = parse(text)
        n = expr.mask_dice
        return [max(0, sum(f) + expr.modifier) for f in itertools.product(MASK_FACES, repeat=n)]

    a, d = totals(left), totals(right)
    win = Fraction(sum(x > y for x in a for y in d), len(a) * len(d))
    tie = Fraction(sum(x == y for x in a for y in d), len(a) * len(d))
    result = odds.compare(parse(left), parse(right), 0)
    assert (result.win, result.tie) == (win, tie)


def test_xo17_the_odds_command_says_it_floors_a_combat(referee):
    out = referee("odds", "1m vs 2m-3").stdout.splitlines()[0]
    assert out == "1m vs 2m-3: a hit needs left > right (XO-3), each total at least 0 (XO-17)"
    plain = referee("odds", "2d6 vs 1d6+3").stdout.splitlines()[0]
    assert "XO-17" not in plain
