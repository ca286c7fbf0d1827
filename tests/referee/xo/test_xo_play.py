"""XO! session state transitions (referee/xo/play.py): picks, phases, refusals with their
rulings, automatic effects. Dice are given as faces, so every result is fixed."""

from __future__ import annotations

import random

import pytest

from referee.dice import TableDice
from referee.errors import RefereeError, UsageError
from referee.xo import play


def dice(**faces):
    """Given faces by role (underscores for dashes: counter_attack -> counter-attack)."""
    return TableDice("", random.Random(0), given={k.replace("_", "-"): v for k, v in faces.items()}, roll_missing=True)


def at_phase(state, cards, phase):
    for _ in range(3):
        if state["turn"]["phase"] == phase:
            return state
        state = play.next_phase(state, cards).state
    raise AssertionError(f"never stopped at the {phase} phase")


def end_turn(state, cards):
    """`next` until the next turn's Attack phase (the phases between pass by themselves)."""
    number = state["turn"]["number"]
    while state["turn"]["number"] == number:
        state = play.next_phase(state, cards).state
    assert state["turn"]["phase"] == "Attack"
    return state


def entry(state, name):
    return next(e for lg in ("heroes", "villains") for e in state["roster"][lg] if e["name"] == name)


def refused(ruling, fn, *args, **kwargs):
    with pytest.raises(RefereeError) as err:
        fn(*args, **kwargs)
    assert err.value.ruling == ruling, str(err.value)
    return err.value


# picks -----------------------------------------------------------------------------


def test_pick_unknown_name_suggests(fresh_state, xo_cards):
    with pytest.raises(UsageError, match="did you mean 'Captain Volt'"):
        play.pick(fresh_state, xo_cards, "heroes", ["Captian Volt"])


def test_pick_duplicate_and_other_league_refused(fresh_state, xo_cards, picks):
    state = play.pick(fresh_state, xo_cards, "heroes", ["Swift"]).state
    with pytest.raises(RefereeError, match="already picked"):
        play.pick(state, xo_cards, "heroes", ["swift"])
    with pytest.raises(UsageError, match="^Brute is one of the villains, not the heroes$"):
        play.pick(state, xo_cards, "heroes", ["Brute"])
    with pytest.raises(RefereeError, match="the heroes have 0 characters and can pick 7 more, not 8"):
        play.pick(fresh_state, xo_cards, "heroes", [*picks["heroes"], "Shade"])
    full = play.pick(fresh_state, xo_cards, "heroes", picks["heroes"]).state
    with pytest.raises(RefereeError, match="already have 7"):
        play.pick(full, xo_cards, "heroes", ["Shade"])


def test_xo8_xo10_xo11_turn_one_starts_at_the_attack_phase(started, picks):
    # no Status Check on turn 1, each draws 7: nothing to decide, both pass by themselves
    assert started["turn"]["number"] == 1 and started["turn"]["phase"] == "Attack"
    assert started["hands"] == {"heroes": 7, "villains": 7}
    assert [e["name"] for e in started["roster"]["villains"]] == picks["villains"]


def test_xo10_discards_of_up_to_two_with_the_next_that_ends_the_turn(started, xo_cards):
    refused("XO-10", play.next_phase, started, xo_cards, {"heroes": 1})  # Attack -> Feat/Thwart: no draw
    state = at_phase(started, xo_cards, "Feat/Thwart")
    refused("XO-10", play.next_phase, state, xo_cards, {"heroes": 3})
    out = play.next_phase(state, xo_cards, {"heroes": 2})
    assert out.state["hands"]["heroes"] == 7 and "heroes discard 2" in out.summary
    assert (out.state["turn"]["number"], out.state["turn"]["phase"]) == (2, "Attack")


# XO-11 order and turn --------------------------------------------------------------


def test_xo11_out_of_phase_and_out_of_turn_refused(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    refused("XO-11", play.attack, state, xo_cards, "Brute", "Swift", dice())
    refused("XO-13", play.feat, state, xo_cards, "Doctor Null", dice())
    # a feat attempt ends the Attack phase: no attack after it
    out = play.feat(state, xo_cards, "Captain Volt", dice(feat=[3, 1, 0]))
    assert out.state["turn"]["phase"] == "Feat/Thwart" and out.steps[0].ruling == "XO-11"
    refused("XO-11", play.attack, out.state, xo_cards, "Swift", "Brute", dice())


# attacks -----------------------------------------------------------------------------


def test_xo4_attack_stuns_and_xo9_stunned_cannot_attack(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    # Swift 2 attack dice (3+2) vs Razor 1 defense die (3): damage 2 == Health 2
    out = play.attack(state, xo_cards, "Swift", "Razor", dice(attack=[3, 2], defense=[3]))
    assert out.data["outcome"] == "stunned"
    assert entry(out.state, "Razor")["statuses"] == ["Stunned"]
    # later the villains' turn: Razor is not ready
    state = end_turn(out.state, xo_cards)  # turn 2: the Status Check removes Stunned
    assert entry(state, "Razor")["statuses"] == []


def test_xo9_not_ready_attacker_refused(started, xo_cards):
    state = play.tag(started, xo_cards, "Captain Volt", "frozen").state
    state = at_phase(state, xo_cards, "Attack")
    err = refused("XO-9", play.attack, state, xo_cards, "Captain Volt", "Brute", dice())
    assert "Frozen" in str(err)


def test_xo4_ko_leaves_play_and_cannot_be_attacked(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    out = play.attack(state, xo_cards, "Captain Volt", "Razor", dice(attack=[3, 3, 3], defense=[1]))
    assert out.data["outcome"] == "ko" and entry(out.state, "Razor")["ko"]
    refused("XO-4", play.attack, out.state, xo_cards, "Swift", "Razor", dice())


def test_xo6_defender_counterattacks_with_ability_once(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    # Swift (2 atk) vs Doctor Null (Counterattack): miss, then Null strikes back
    out = play.attack(
        state, xo_cards, "Swift", "Doctor Null",
        dice(attack=[1, 0], defense=[2, 1], counter_attack=[3, 3], counter_defense=[1, 1]),
    )
    assert out.data["outcome"] == "miss"
    counter = out.data["targets"][0]["counterattack"]
    assert counter["outcome"] == "ko" and not counter["counterattack_allowed"]
    assert entry(out.state, "Swift")["ko"]
    assert "counterattacks" in out.summary


def test_xo5_moffed_attack_lets_defender_counterattack_and_moffed_defense_extra_die(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    out = play.attack(
        state, xo_cards, "Iron Ward", "Brute",
        dice(attack=[0, 0], defense=[1, 0], counter_attack=[2, 2, 1], counter_defense=[0, 0, 0], counter_extra=[1]),
    )
    counter = out.data["targets"][0]["counterattack"]
    assert out.data["attack_moffed"] and counter["defense_moffed"]
    assert counter["extra_damage_roll"] == 1 and counter["damage"] == 6 and counter["outcome"] == "ko"


def test_xo7_aoe_hits_neighbours_not_far_ones(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    # Sky Lancer's attacks are AOE; Wraith sits between Brute and Blaze
    out = play.attack(
        state, xo_cards, "Sky Lancer", "Wraith",
        dice(attack=[3, 2], defense=[1, 0], **{"defense:Brute": [1, 1], "defense:Blaze": [2]}),
    )
    hit = [t["target"] for t in out.data["targets"]]
    assert hit == ["Brute", "Wraith", "Blaze"]  # row order (XO-6, XO-7)
    assert {t["acv"] for t in out.data["targets"]} == {5}
    assert entry(out.state, "Doctor Null")["statuses"] == [] and entry(out.state, "Frostbite")["statuses"] == []
    assert entry(out.state, "Wraith")["ko"]


def test_one_attack_per_character_per_turn(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    state = play.attack(state, xo_cards, "Gearhead", "Psyche", dice(attack=[1], defense=[2, 2])).state
    with pytest.raises(RefereeError, match="already attacked"):
        play.attack(state, xo_cards, "Gearhead", "Psyche", dice(attack=[1], defense=[2, 2]))


# feats and thwarts --------------------------------------------------------------------


def test_xo13_feat_refusals(started, xo_cards):
    state = at_phase(started, xo_cards, "Feat/Thwart")
    refused("XO-13", play.feat, state, xo_cards, "Swift", dice())  # no energy icon
    refused("XO-14", play.thwart, state, xo_cards, "Doctor Null", dice())  # nothing to thwart
    out = play.feat(state, xo_cards, "Captain Volt", dice(feat=[1, 1, 0]))
    # the phase ends, Turn Resolution has nothing to decide: the villains' turn 2, Attack phase
    assert not out.data["success"] and (out.state["turn"]["number"], out.state["turn"]["phase"]) == (2, "Attack")


def test_xo13_second_feat_in_a_turn_refused(started, xo_cards):
    state = at_phase(started, xo_cards, "Feat/Thwart")
    state = play.feat(state, xo_cards, "Captain Volt", dice(feat=[3, 1, 0])).state
    refused("XO-13", play.feat, state, xo_cards, "Captain Volt", dice())


def test_xo12_xo14_unthwarted_feat_wins_chapter(started, xo_cards):
    state = at_phase(started, xo_cards, "Feat/Thwart")
    state = play.feat(state, xo_cards, "Captain Volt", dice(feat=[3, 1, 0])).state
    out = play.next_phase(state, xo_cards)  # villains decline to thwart
    assert out.state["won"] == {"1": "heroes"} and out.state["chapter"] == 2
    assert (out.state["turn"]["number"], out.state["turn"]["phase"]) == (2, "Attack")


def test_xo14_failed_thwart_wins_chapter_success_gives_bonus_that_expires(started, xo_cards):
    state = at_phase(started, xo_cards, "Feat/Thwart")
    feat_done = play.feat(state, xo_cards, "Captain Volt", dice(feat=[3, 1, 0])).state
    refused("XO-14", play.thwart, feat_done, xo_cards, "Swift", dice())  # heroes cannot thwart
    refused("XO-14", play.thwart, feat_done, xo_cards, "Brute", dice())  # no energy icon
    lost = play.thwart(feat_done, xo_cards, "Blaze", dice(thwart=[1, 1, 1]))
    assert lost.state["won"] == {"1": "heroes"}
    out = play.thwart(feat_done, xo_cards, "Blaze", dice(thwart=[2, 1, 1]))
    assert out.state["won"] == {} and out.state["thwart_bonus"] == {"league": "villains", "turn": 2}
    # turn 2: villains' feat gets +2 (tech 3 dice: 1+1+0 +2 = 4 >= FCV 4)
    state = at_phase(play.next_phase(out.state, xo_cards).state, xo_cards, "Feat/Thwart")
    used = play.feat(state, xo_cards, "Doctor Null", dice(feat=[1, 1, 0]))
    assert used.data["bonus"] == 2 and used.data["success"] and used.state["thwart_bonus"] is None
    # the bonus expires when the villains do not use it on turn 2
    turn3 = play.next_phase(state, xo_cards)
    assert turn3.state["thwart_bonus"] is None and "expired" in turn3.summary


def test_xo9_not_ready_character_cannot_feat_or_thwart(started, xo_cards):
    state = play.tag(started, xo_cards, "Captain Volt", "Trapped").state
    state = at_phase(state, xo_cards, "Feat/Thwart")
    refused("XO-9", play.feat, state, xo_cards, "Captain Volt", dice())


def test_xo8_lasting_status_kept_short_removed(started, xo_cards):
    state = play.tag(started, xo_cards, "Swift", "Injured").state
    state = play.tag(state, xo_cards, "Swift", "Winded").state
    out = end_turn(state, xo_cards)
    assert entry(out, "Swift")["statuses"] == ["Injured"]
    untagged = play.untag(out, xo_cards, "Swift", "Injured").state
    assert entry(untagged, "Swift")["statuses"] == []
    with pytest.raises(RefereeError, match="not tagged"):
        play.untag(untagged, xo_cards, "Swift", "Injured")


def test_xo21_game_ends_with_a_leagues_fourth_chapter(started, xo_cards):
    """XO-21 (before XO-15's 7th chapter): heroes winning chapters 1-4 in a row win at the
    Turn Resolution of their 4th; nothing is played after it."""
    by_chapter = ["Captain Volt", "Iron Ward", "Swift", "Mindlock", "Gearhead", "Arcana", "Gearhead"]
    state = started
    while not state["over"]:
        if state["turn"]["active"] == "heroes":
            who = by_chapter[state["chapter"] - 1]
            state = play.feat(state, xo_cards, who, dice(feat=[3, 3, 3])).state  # from the Attack phase
            state = play.next_phase(state, xo_cards).state  # no thwart: chapter won, the turn ends
        else:
            state = end_turn(state, xo_cards)
    assert state["won"] == {str(c): "heroes" for c in range(1, 5)}
    assert state["winner"] == "heroes" and state["turn"]["number"] == 7
    refused("XO-15", play.next_phase, state, xo_cards)


def test_xo9_status_card_modifiers_apply_to_rolls(started, xo_cards):
    # the fixture's <Blinded> card says attack_mod -1, <Injured> defense_mod -1
    state = play.tag(started, xo_cards, "Swift", "Blinded").state
    state = play.tag(state, xo_cards, "Razor", "Injured").state
    state = at_phase(state, xo_cards, "Attack")
    out = play.attack(state, xo_cards, "Swift", "Razor", dice(attack=[2, 1], defense=[2]))
    assert (out.data["acv"], out.data["dcv"]) == (2, 1)
    assert any("<Blinded> gives attack_mod -1" in s.text for s in out.steps)


def test_xo4_a_card_that_kos_takes_the_character_out_of_play(started, xo_cards):
    out = play.tag(started, xo_cards, "Razor", "KOd")
    assert entry(out.state, "Razor")["ko"] and entry(out.state, "Razor")["statuses"] == []
    refused("XO-4", play.tag, out.state, xo_cards, "Razor", "Stunned")
    refused("XO-4", play.untag, out.state, xo_cards, "Razor", "Stunned")


# card play (the cards' effects come from cards.yaml) ----------------------------------


def test_attack_card_adds_a_die_damage_and_an_on_hit_tag(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")  # hands drawn: 7 each
    state["energy"]["heroes"] = 1  # the card costs 1 (Energy: tests/referee/xo/test_xo_energy.py)
    out = play.attack(state, xo_cards, "Captain Volt", "Brute", dice(attack=[1, 1, 1, 1], defense=[1, 1]),
                      plays=["Captain Volt Move 5"])
    # 4 dice (3 + 1 extra): ACV 4 vs DCV 2, damage 2 + 1 effect damage = 3 < Health 4
    assert (out.data["acv"], out.data["damage"], out.data["outcome"]) == (4, 3, "hit")
    assert entry(out.state, "Brute")["statuses"] == ["Burned", "Injured"]
    assert out.state["hands"]["heroes"] == 6


def test_defense_card_grants_counterattack_and_dcv(started, xo_cards):
    state = end_turn(started, xo_cards)  # turn 2, villains
    state["energy"]["heroes"] = 1  # Move 2 costs 1
    out = play.attack(state, xo_cards, "Razor", "Captain Volt", dice(attack=[1, 1, 1], defense=[1, 1],
                      counter_attack=[0, 0, 0], counter_defense=[0]), defense_plays=["Captain Volt Move 2"],
                      counterattack=True)
    assert (out.data["acv"], out.data["dcv"], out.data["outcome"]) == (3, 3, "miss")
    assert "counterattack" in out.data["targets"][0]  # only thanks to the card (XO-6)
    without = play.attack(state, xo_cards, "Razor", "Captain Volt", dice(attack=[1, 1, 1], defense=[1, 1]))
    assert not without.data["counterattack_allowed"] and "counterattack" not in without.data["targets"][0]


def test_card_play_refusals(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    with pytest.raises(RefereeError, match="Captain Volt's Action card"):
        play.attack(state, xo_cards, "Swift", "Brute", dice(), plays=["Captain Volt Move 5"])
    with pytest.raises(RefereeError, match="played on feat, not on attack"):
        play.attack(state, xo_cards, "Captain Volt", "Brute", dice(), plays=["Captain Volt Move 3"])
    with pytest.raises(RefereeError, match="not a heroes card"):
        play.attack(state, xo_cards, "Captain Volt", "Brute", dice(), plays=["Not on My Watch"])
    with pytest.raises(RefereeError, match="does nothing on an attack"):
        play.attack(state, xo_cards, "Captain Volt", "Brute", dice(), plays=["Police Captain"])
    with pytest.raises(UsageError, match="did you mean"):
        play.attack(state, xo_cards, "Captain Volt", "Brute", dice(), plays=["Teamwrk"])


def test_xo10_cards_come_from_hand(started, xo_cards):
    state = at_phase(started, xo_cards, "Feat/Thwart")
    state["hands"]["heroes"] = 0
    refused("XO-10", play.feat, state, xo_cards, "Captain Volt", dice(), plays=["Teamwork"])


def test_feat_card_extra_die_and_mod(started, xo_cards):
    state = at_phase(started, xo_cards, "Feat/Thwart")
    state["energy"]["heroes"] = 1  # Move 3 costs 1, Teamwork nothing
    out = play.feat(state, xo_cards, "Captain Volt", dice(feat=[1, 0, 0, 1]),
                    plays=["Captain Volt Move 3", "Teamwork"])
    assert out.data["roll"] == [1, 0, 0, 1] and out.data["total"] == 3 and not out.data["success"]
    # two cards left the hand; the failed feat ends the turn and turn 2 draws them back (XO-10)
    assert any(step.text == "heroes draw 2 back up to 7" for step in out.steps)


def test_xo8_play_any_card_removes_status_and_draws(started, xo_cards):
    state = play.tag(started, xo_cards, "Captain Volt", "Burned").state
    state = at_phase(state, xo_cards, "Attack")
    out = play.play(state, xo_cards, "heroes", ["Captain Volt Move 4"])
    assert entry(out.state, "Captain Volt")["statuses"] == []
    assert out.state["hands"]["heroes"] == 7  # played 1, drew 1
    assert "removed <Burned>" in out.summary


def test_xo1_a_roll_never_uses_more_than_seven_dice(started, xo_cards):
    state = at_phase(started, xo_cards, "Feat/Thwart")
    state["hands"]["heroes"] = 7
    state["energy"]["heroes"] = 5  # 1 each
    plays = ["Captain Volt Move 3"] * 5  # 3 dice + 5 extra = 8
    out = play.feat(state, xo_cards, "Captain Volt", dice(feat=[1] * 7), plays=plays)
    assert len(out.data["roll"]) == 7 and any(s.ruling == "XO-1" for s in out.steps)


def test_a_roll_card_played_on_its_own_is_refused_with_a_readable_reason(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    err = refused(None, play.play, state, xo_cards, "heroes", ["Police Captain"])
    assert str(err) == "Police Captain (defense_mod: 1) does nothing played on its own: play it on the roll it changes"


def test_attack_steps_name_the_round_by_its_defender_not_as_the_defenders_acv(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    out = play.attack(state, xo_cards, "Swift", "Razor", dice(attack=[3, 2], defense=[3]))
    texts = [s.text for s in out.steps]
    assert "vs Razor: ACV = 3+2 = 5" in texts and "vs Razor: DCV = 3 = 3" in texts


def test_an_action_card_of_a_kod_or_unpicked_character_cannot_be_played(started, xo_cards):
    state = at_phase(started, xo_cards, "Attack")
    state = play.tag(state, xo_cards, "Captain Volt", "KOd").state
    err = refused("XO-4", play.play, state, xo_cards, "heroes", ["Captain Volt Move 4"])
    assert "Captain Volt is KOd, out of play" in str(err)
    err = refused("rules: setup 3", play.play, state, xo_cards, "heroes", ["Shade Move 1"])
    assert "Shade was not picked" in str(err)
