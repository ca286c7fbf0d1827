"""The pure XO! rules (referee/xo/rules.py), one ruling per test group (XO-1..XO-15)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.dice import TableDice
from referee.xo import game, rules
from referee.xo.rules import Fighter, StatusDef

# Status data as cards.yaml gives it (the rules read it, never hard-code it).
DEFS = {
    "Stunned": StatusDef("Stunned", "status_check", False),
    "Blinded": StatusDef("Blinded", "status_check", True, ({"attack_mod": -2},)),
    "Frozen": StatusDef("Frozen", "status_check", False),
    "Burned": StatusDef("Burned", "status_check", True),
    "Injured": StatusDef("Injured", "until_removed", True, ({"defense_mod": -1},)),
    "Trapped": StatusDef("Trapped", "until_removed", False),
    "KOd": StatusDef("KOd", "until_removed", False),
}


def Faces(**faces):  # noqa: N802 (reads as the die source it builds)
    """Core's die source handing out fixed faces by role (a die not given is refused)."""
    return TableDice("", random.Random(0), given={k.replace("_", "-"): list(v) for k, v in faces.items()})


def rulings(result):
    return [step.ruling for step in result.steps]


# XO-1 -----------------------------------------------------------------------------


def test_xo1_first_player_highest_die_ties_reroll():
    for seed in range(30):
        league, rounds = game.first_player(random.Random(seed))
        last = rounds[-1]
        assert last["heroes"] != last["villains"]
        assert league == max(last, key=last.get)
        assert all(r["heroes"] == r["villains"] for r in rounds[:-1])


def test_xo1_mask_faces():
    assert sorted(rules.MASK_FACES) == [0, 1, 1, 2, 2, 3]


# XO-2 / XO-3 ----------------------------------------------------------------------


def test_xo2_combat_values_sum_dice_and_modifiers():
    r = rules.combat_round([3, 2], [1, 0, 1], 5, DEFS, attack_mod=1, defense_mod=2)
    assert (r.acv, r.dcv) == (6, 4)
    assert "XO-2" in rulings(r)


def test_xo3_dcv_equal_to_acv_misses():
    r = rules.combat_round([2, 1], [3], 1, DEFS, effect="Burned")
    assert r.acv == r.dcv == 3
    assert not r.hit and r.outcome == "miss" and r.damage == 0 and r.statuses == ()
    assert "XO-3" in rulings(r)


def test_xo3_miss_still_reaches_counterattack_segment():
    r = rules.combat_round([1], [3], 2, DEFS, has_counterattack=True)
    assert r.outcome == "miss" and r.counterattack_allowed


# XO-4 -----------------------------------------------------------------------------


def test_xo4_damage_below_health_applies_attack_effect():
    r = rules.combat_round([3, 2], [1], 5, DEFS, effect="Burned")
    assert r.damage == 4 and r.outcome == "hit" and r.statuses == ("Burned",)


def test_xo4_damage_equal_to_health_stuns():
    r = rules.combat_round([3, 2], [2], 3, DEFS, effect="Burned")
    assert r.damage == 3 and r.outcome == "stunned" and r.statuses == ("Stunned",)
    assert "XO-4" in rulings(r)


def test_xo4_damage_one_over_health_kos():
    r = rules.combat_round([3, 2], [1], 3, DEFS, effect="Burned")
    assert r.damage == 4 and r.outcome == "ko" and r.statuses == ()


def test_xo4_attack_effect_damage_adds_to_damage():
    r = rules.combat_round([2], [1], 3, DEFS, effect_damage=2)
    assert r.damage == 3 and r.outcome == "stunned"
    assert rules.combat_round([2], [2], 3, DEFS, effect_damage=2).damage == 0  # miss: none


# XO-5 -----------------------------------------------------------------------------


def test_xo5_moffed_defense_takes_extra_damage_die():
    r = rules.combat_round([2, 1], [0, 0], 4, DEFS, extra_damage_die=2)
    assert r.defense_moffed and r.extra_damage_roll == 2 and r.damage == 5 and r.outcome == "ko"
    assert "XO-5" in rulings(r)


def test_xo5_moffed_defense_that_is_missed_still_misses():
    r = rules.combat_round([0], [0], 4, DEFS, attack_mod=0, extra_damage_die=3)
    assert r.outcome == "miss" and r.extra_damage_roll is None and r.damage == 0


def test_xo5_moffed_defense_hit_needs_the_extra_die():
    with pytest.raises(ValueError):
        rules.combat_round([2], [0], 4, DEFS)


def test_xo5_moffed_attack_lets_defender_counterattack():
    r = rules.combat_round([0, 0, 0], [1], 3, DEFS, attack_mod=2)
    assert r.attack_moffed and r.outcome == "hit" and r.counterattack_allowed


def test_xo5_zero_dice_rolled_is_never_moffed():
    r = rules.combat_round([], [], 3, DEFS, attack_mod=2)
    assert not r.attack_moffed and not r.defense_moffed
    assert (r.acv, r.dcv, r.damage, r.outcome) == (2, 0, 2, "hit")
    assert not r.counterattack_allowed
    assert any("zero" in s.text and s.ruling == "XO-5" for s in r.steps)
    assert not rules.is_moffed([]) and rules.is_moffed([0]) and not rules.is_moffed([0, 1])


# XO-6 -----------------------------------------------------------------------------


def test_xo6_no_counterattack_without_ability_or_moff():
    r = rules.combat_round([2], [1], 3, DEFS)
    assert not r.counterattack_allowed and "XO-6" in rulings(r)


def test_xo6_counterattack_ability_allows_it():
    assert rules.combat_round([2], [1], 3, DEFS, has_counterattack=True).counterattack_allowed


def test_xo6_ko_or_stunned_defender_cannot_counterattack():
    assert not rules.combat_round([3, 3], [1], 3, DEFS, has_counterattack=True).counterattack_allowed
    assert not rules.combat_round([3, 1], [1], 3, DEFS, has_counterattack=True).counterattack_allowed
    trapped = rules.combat_round([1], [2], 3, DEFS, has_counterattack=True, defender_statuses=["Trapped"])
    assert not trapped.counterattack_allowed


def test_xo6_counterattack_never_chains_and_names_damage_type():
    attacker = Fighter("A", 1, 1, 3)
    defender = Fighter("D", 2, 1, 3, counterattack=True, superpower="energy")
    result = rules.resolve_attack(attacker, [defender], "D", Faces(attack=[1], defense=[1], counter_attack=[0, 0],
                                                                   counter_defense=[1]), DEFS)
    r = result.counter_of("D")
    assert r.attack_moffed and r.is_counterattack and not r.counterattack_allowed
    assert any("energy" in s.text for s in r.steps)
    assert any("never triggers" in s.text and s.ruling == "XO-6" for s in r.steps)


# XO-7 -----------------------------------------------------------------------------


def test_xo7_aoe_hits_defender_and_both_neighbours_not_far_ones():
    row = ["A", "B", "C", "D", "E"]
    assert rules.neighbours(row, [], "C") == ["B", "D"]
    assert rules.neighbours(row, [], "A") == ["B"]
    targets = [Fighter(name, 1, 1, 3) for name in ["B", "C", "D"]]
    faces = Faces(attack=[3, 1], defense=[1], **{"defense:B": [1], "defense:D": [1]})
    result = rules.resolve_attack(Fighter("X", 2, 1, 3, effect="Burned"), targets, "C", faces, DEFS, aoe=True)
    assert [name for name, _ in result.rounds] == ["B", "C", "D"]
    assert faces.roles == ["attack", "defense:B", "defense", "defense:D"]  # row order
    assert all(r.acv == 4 and r.attack_roll == (3, 1) for _, r in result.rounds)
    assert all(r.outcome == "stunned" for _, r in result.rounds)
    assert result.steps[0].ruling == "XO-7"


def test_xo7_neighbours_close_up_after_ko():
    assert rules.neighbours(["A", "B", "C", "D", "E"], ["B", "D"], "C") == ["A", "E"]


def test_xo7_only_aoe_has_several_targets():
    with pytest.raises(ValueError):
        rules.resolve_attack(Fighter("X", 1, 1, 1), [Fighter("A", 0, 0, 1), Fighter("B", 0, 0, 1)], "A",
                             Faces(attack=[1], defense=[]), DEFS)


# XO-8 -----------------------------------------------------------------------------


def test_xo8_status_check_removes_short_statuses_keeps_lasting_ones():
    result = rules.status_check({"A": ["Stunned", "Injured", "Burned"], "B": []}, DEFS, 2)
    assert result.statuses == {"A": ["Injured"], "B": []}
    assert result.removed == {"A": ["Stunned", "Burned"]}
    assert {s.ruling for s in result.steps} == {"XO-8"}


def test_xo8_status_check_skipped_on_turn_1():
    result = rules.status_check({"A": ["Stunned"]}, DEFS, 1)
    assert result.skipped and result.statuses == {"A": ["Stunned"]}


# XO-9 -----------------------------------------------------------------------------


def test_xo9_readiness_from_status_cards():
    assert rules.readiness(["Injured", "Burned"], False, DEFS).ready
    assert not rules.readiness(["Frozen"], False, DEFS).ready
    assert not rules.readiness([], True, DEFS).ready
    custom = {"Frozen": StatusDef("Frozen", "status_check", True)}
    assert rules.readiness(["Frozen"], False, custom).ready  # the card decides


def test_xo9_status_effects_are_card_data():
    assert rules.status_modifier(["Blinded", "Injured"], DEFS, "attack_mod")[0] == -2
    assert rules.status_modifier(["Blinded", "Injured"], DEFS, "defense_mod")[0] == -1


# XO-10 / XO-11 ----------------------------------------------------------------------


def test_xo10_turn_one_draws_seven_later_discard_up_to_two():
    first = rules.discard_and_draw(1, {"heroes": 0, "villains": 0})
    assert first.hands == {"heroes": 7, "villains": 7}
    later = rules.discard_and_draw(2, {"heroes": 4, "villains": 7}, {"villains": 2})
    assert later.hands == {"heroes": 7, "villains": 7}
    assert later.drawn == {"heroes": 3, "villains": 2}
    with pytest.raises(ValueError, match="XO-10"):
        rules.discard_and_draw(2, {"heroes": 7, "villains": 7}, {"heroes": 3})


def test_xo11_five_phases_in_order():
    assert rules.PHASES == ("Status Check", "Card Discard/Draw", "Attack", "Feat/Thwart", "Turn Resolution")
    assert rules.next_phase("Attack", 3) == ("Feat/Thwart", False)
    assert rules.next_phase("Turn Resolution", 3) == ("Status Check", True)


# XO-12 / XO-15 ----------------------------------------------------------------------


def test_xo12_chapters_in_sequence():
    assert rules.current_chapter({}) == 1
    result = rules.win_chapter({"1": "heroes"}, "villains")
    assert result.won == {"1": "heroes", "2": "villains"} and result.chapter == 3
    assert result.steps[0].ruling == "XO-12"


def test_xo15_game_ends_after_seventh_chapter():
    six = {str(c): ("heroes" if c % 2 else "villains") for c in range(1, 7)}
    assert not rules.game_end(six).over
    end = rules.game_end({**six, "7": "heroes"})
    assert end.over and end.winner == "heroes" and end.steps[0].ruling == "XO-15"


# XO-13 / XO-14 ----------------------------------------------------------------------


def test_xo13_feat_meets_fcv():
    assert rules.feat([2, 1], 4, mod=1).success
    r = rules.feat([2, 1], 4)
    assert not r.success and r.total == 3 and r.steps[0].ruling == "XO-13"
    assert rules.feat([], 0).success  # zero dice: total is the modifiers


def test_xo13_feat_dice_from_icon_or_keyword():
    powers, keywords = {"energy": 3}, {"Scientist": 2}
    assert rules.feat_dice(powers, keywords, {"icon": "energy"})[0] == 3
    assert rules.feat_dice(powers, keywords, {"keyword": "scientist"})[0] == 2
    assert rules.feat_dice(powers, keywords, {"icon": "magic"})[0] is None


def test_xo14_thwart_meets_tcv_and_bonus_only_next_turn():
    assert rules.thwart([3], 3).success and not rules.thwart([2], 3).success
    bonus = {"league": "villains", "turn": 5}
    assert rules.thwart_bonus_for(bonus, "villains", 5) == 2
    assert rules.thwart_bonus_for(bonus, "villains", 7) == 0  # expired
    assert rules.thwart_bonus_for(bonus, "heroes", 5) == 0
    r = rules.feat([1], 3, bonus=2)
    assert r.success and r.total == 3 and "XO-14" in rulings(r)


# properties over every roll ---------------------------------------------------------

faces = st.lists(st.sampled_from(rules.MASK_FACES), max_size=7)


@settings(max_examples=300, deadline=None)
@given(faces, faces, st.integers(1, 8), st.integers(-3, 3), st.integers(-3, 3), st.integers(0, 2),
       st.sampled_from(rules.MASK_FACES), st.booleans())
def test_xo2_to_xo6_combat_round_properties(attack_roll, defense_roll, health, amod, dmod, edmg, extra, ability):
    r = rules.combat_round(attack_roll, defense_roll, health, DEFS, attack_mod=amod, defense_mod=dmod,
                           effect="Burned", effect_damage=edmg, extra_damage_die=extra, has_counterattack=ability)
    # XO-2, with XO-17: a total below 0 counts as 0
    assert r.acv == max(0, sum(attack_roll) + amod) and r.dcv == max(0, sum(defense_roll) + dmod)
    assert r.hit == (r.acv > r.dcv)  # XO-3
    if not r.hit:
        assert (r.damage, r.outcome, r.statuses) == (0, "miss", ())
    else:  # XO-4, XO-5
        expected = r.acv - r.dcv + edmg + (extra if r.defense_moffed else 0)
        assert r.damage == expected
        assert r.outcome == ("hit" if expected < health else "stunned" if expected == health else "ko")
    assert r.attack_moffed == (len(attack_roll) > 0 and not any(attack_roll))  # XO-5
    if r.counterattack_allowed:  # XO-6
        assert (ability or r.attack_moffed) and r.outcome in ("miss", "hit")


def test_xo6_the_counterattack_step_says_why_in_a_sentence():
    moffed = rules.combat_round([0, 0, 0], [1], 3, DEFS)
    assert "counterattack allowed: the attacker moffed its ACV (XO-5)" in [s.text for s in moffed.steps]
    able = rules.combat_round([2], [1], 3, DEFS, has_counterattack=True)
    assert "counterattack allowed: the defender has the Counterattack ability" in [s.text for s in able.steps]
