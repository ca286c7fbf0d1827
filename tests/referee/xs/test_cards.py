"""One test per X-Statix card with an effect, named after the card: the effect, read from
cards.yaml, changes an outcome with fixed rolls (compared with the same play without it)."""

from __future__ import annotations

import re
import sys

import pytest

from referee.errors import RefereeError, UsageError
from referee.xs import events, mission, turn
from tests.referee.xs.xs_support import act, make_state, texts

POWERS = ["Energy Blasts", "Shape Shifting", "Razor-sharp Claws", "Protoplasmic Beams",
          "Being of Pure Energy"]


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower().replace("'", "").replace("\u2019", "")).strip("_")


def test_every_card_with_an_effect_has_its_test(cat):
    import carddb  # noqa: F401  (the catalog fixture already loaded it)

    module = sys.modules[__name__]
    with_effect = [
        name for t in ("Hero", "Power", "Mission", "Marketing", "Owner", "Team Name")
        for name in cat.names(t)
        if cat.ability(name) or cat.event(name) or any(
            cat.counts(name, w) != 1 for w in ("carnage", "success", "marketing"))
        or cat.mission(name)
    ]
    missing = [n for n in with_effect if not hasattr(module, f"test_card_{slug(n)}")]
    assert len(with_effect) >= 60 and missing == []


def to_success(cat, state, card="Zombies", mission_faces=(1,), carnage_faces=(1,),
               casualty_faces=None, success_faces=(1,), **cas):
    """Play a mission up to the Success roll; returns the result."""
    r = act(cat, mission.start, state, None, card, faces=list(mission_faces))
    r = act(cat, mission.carnage, r.state, None, faces=list(carnage_faces))
    r = act(cat, mission.casualties, r.state, None, faces=casualty_faces, **cas)
    return act(cat, mission.success, r.state, None, faces=list(success_faces))


def rolls_of(result) -> dict:
    return {k: v["total"] for k, v in result.state["turn"]["mission"]["rolls"].items()}


def mission_state(heroes=("Ocelot",), hand=(), card="Zombies", **kw):
    return make_state(hands={"A": [card, *hand], "B": kw.pop("b_hand", [])},
                      heroes={"A": list(heroes), **kw.pop("other_heroes", {})},
                      phase="mission", mt={"A": 0}, **kw)


# ── Heroes ────────────────────────────────────────────────────────────────────
def test_card_anarchist(cat):
    with_him = act(cat, mission.start, mission_state(["Anarchist", "Ocelot"]), None, "Zombies",
                   faces=[3])
    assert rolls_of(with_him)["mission"] == 2
    act(cat, mission.carnage, with_him.state, None, faces=[1])  # 2 heroes are enough
    without = act(cat, mission.start, mission_state(["Phat", "Ocelot"]), None, "Zombies",
                  faces=[3])
    with pytest.raises(RefereeError, match="needs 3 heroes"):
        act(cat, mission.carnage, without.state, None, faces=[1])
    floor = act(cat, mission.start, mission_state(["Anarchist"]), None, "Zombies", faces=[1])
    assert rolls_of(floor)["mission"] == 1  # minimum of 1


def test_card_dead_girl(cat):
    r = act(cat, mission.start, mission_state(["Dead Girl"]), None, "Zombies", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[1])
    assert rolls_of(r)["carnage"] == 0  # no casualty instead of one
    r = act(cat, mission.casualties, r.state, None)
    assert r.state["table"]["A"]["heroes"][0]["name"] == "Dead Girl"


def test_card_the_orphan(cat):
    state = make_state(hands={"A": ["Ocelot"]}, heroes={"A": ["The Orphan"]}, mt={"A": 6},
                       phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[6])
    assert r.state["turn"]["open"]["total"] == 6 and r.state["table"]["A"]["mt"] == 6
    r = act(cat, events.reroll, r.state, None, "The Orphan", faces=[1])
    r = act(cat, turn.pay_now, r.state, None)
    assert r.state["table"]["A"]["mt"] == 5
    state2 = make_state(hands={"A": ["Ocelot", "Phat"]}, heroes={"A": ["The Orphan"]},
                        mt={"A": 20}, phase="recruitment")
    r = act(cat, turn.recruit, state2, None, "Ocelot", faces=[6])
    r = act(cat, events.reroll, r.state, None, "The Orphan", faces=[2])
    r = act(cat, turn.recruit, r.state, None, "Phat", faces=[6])  # pays Ocelot's 2 first
    assert r.state["turn"]["open"] is None  # The Orphan is used up: Phat's roll is paid
    with pytest.raises(RefereeError, match="no roll open|used"):
        act(cat, events.reroll, r.state, None, "The Orphan", faces=[1])
    assert r.state["table"]["A"]["mt"] == 20 - 2 - 6


def test_card_el_guapo(cat):
    state = make_state(hands={"A": ["Movies"]}, heroes={"A": ["El Guapo", "Ocelot"]},
                       mt={"A": 10}, phase="publicity")
    on_him = act(cat, turn.attach, state, None, "Movies", "El Guapo", faces=[3])
    on_other = act(cat, turn.attach, state, None, "Movies", "Ocelot", faces=[3])
    assert on_him.state["table"]["A"]["mt"] == 9 and on_other.state["table"]["A"]["mt"] == 7


def test_card_phat(cat):
    state = make_state(heroes={"A": [("Phat", 2)]}, mt={"A": 0}, phase="mission")
    r = act(cat, turn.pass_phase, state, None)
    assert r.state["table"]["A"]["mt"] == 3 and "+1 (Phat)" in texts(r)


def test_card_u_go_girl(cat):
    r = act(cat, mission.start, mission_state(["Ocelot", "U-Go Girl"]), None, "Zombies",
            faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[1])
    # the random casualty is Ocelot (picked at the table); U-Go Girl may switch in
    swapped = act(cat, mission.casualties, r.state, None, faces=[1], picked=["Ocelot"],
                  swap_for=["Ocelot"])
    assert team(swapped) == ["Ocelot"] and "U-Go Girl takes Ocelot's place" in texts(swapped)
    plain = act(cat, mission.casualties, r.state, None, faces=[1], picked=["Ocelot"])
    assert team(plain) == ["U-Go Girl"]
    with pytest.raises(RefereeError, match="no hero who may take"):
        act(cat, mission.casualties, to_carnage(cat, mission_state(["Ocelot", "Phat"]), 1).state,
            None, faces=[1], swap_for=["Ocelot"])


def test_card_venus_dee_milo(cat):
    state = make_state(hands={"A": ["Ocelot"]}, heroes={"A": ["Venus Dee Milo"]}, mt={"A": 4},
                       phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[5])
    with pytest.raises(UsageError):
        act(cat, events.adjust, r.state, None, "Venus Dee Milo", 2)
    r = act(cat, events.adjust, r.state, None, "Venus Dee Milo", -1)
    r = act(cat, turn.pay_now, r.state, None)  # 4 MT pays 5 - 1
    assert r.state["table"]["A"]["mt"] == 0 and len(r.state["table"]["A"]["heroes"]) == 2


def test_card_vivisector(cat):
    r = to_success(cat, mission_state(["Vivisector"], hand=["Energy Blasts"]), carnage_faces=[1],
                   powers=["Energy Blasts"], success_faces=[1])
    assert rolls_of(r)["success"] == 1 + 1 + 1


def test_card_lacuna(cat):
    r = to_success(cat, mission_state(["Lacuna"], hand=["Energy Blasts"]), carnage_faces=[1],
                   powers=["Energy Blasts"], success_faces=[3])
    r = act(cat, mission.payoff, r.state, None, faces=[2, 2])
    assert r.state["table"]["A"]["mt"] == 6


def test_card_ooze(cat):
    r = act(cat, mission.start, mission_state(["Ooze"]), None, "Zombies", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[1])
    r = act(cat, mission.casualties, r.state, None, faces=[1])  # Sendoff 1
    assert r.state["table"]["A"]["hand"] == ["Ocelot", "Movies"]


def chosen_mission(heroes, hand=(), **kw):
    """A mission state in which the player chooses the casualties (as after Ratings Bonanza),
    so that tests know who dies."""
    state = mission_state(heroes, hand=hand, **kw)
    state["turn"]["choose_casualties"] = True
    return state


def to_carnage(cat, state, carnage, card="Zombies"):
    r = act(cat, mission.start, state, None, card, faces=[1])
    return act(cat, mission.carnage, r.state, None, faces=[carnage])


def team(result, player="A"):
    return [h["name"] for h in result.state["table"][player]["heroes"]]


def test_card_overkill(cat):
    state = mission_state(["Overkill", "Ocelot"], hand=POWERS[:2])
    r = to_success(cat, state, carnage_faces=[2], powers=POWERS[:2], success_faces=[1])
    assert rolls_of(r)["success"] == 3  # 1 + 2 survivors
    r = act(cat, mission.boost, r.state, None, sacrifices=["Overkill"], faces=[6])  # Sendoff
    assert rolls_of(r)["success"] == 1 + 1 + 2  # one survivor less, +2
    assert r.state["table"]["A"]["mt"] == 6 and team(r) == ["Ocelot"]
    alone = to_success(cat, mission_state(["Overkill"], hand=POWERS[:2]), carnage_faces=[2],
                       powers=POWERS[:2], success_faces=[1])
    with pytest.raises(RefereeError, match="last survivor"):
        act(cat, mission.boost, alone.state, None, sacrifices=["Overkill"], faces=[6])


def test_card_orbit(cat):
    hand = ["Energy Blasts", "Shape Shifting"]
    kw = dict(carnage_faces=[1], powers=["Energy Blasts"], success_faces=[1])
    orbit = to_success(cat, mission_state(["Orbit"], hand=hand), **kw)
    orbit = act(cat, mission.boost, orbit.state, None, powers=["Shape Shifting"])
    plain = to_success(cat, mission_state(["Ocelot"], hand=hand), **kw)
    plain = act(cat, mission.boost, plain.state, None, powers=["Shape Shifting"])
    assert rolls_of(orbit)["success"] == 1 + 1 + 2 and rolls_of(plain)["success"] == 1 + 1 + 1


def test_card_saint_anna(cat):
    r = to_carnage(cat, chosen_mission(["Saint Anna", "Ocelot"]), 1)
    lives = act(cat, mission.casualties, r.state, None, choose=["Ocelot"], faces=[5])
    assert team(lives) == ["Saint Anna", "Ocelot"] and "Saint Anna: Ocelot lives" in texts(lives)
    dies = act(cat, mission.casualties, r.state, None, choose=["Ocelot"], faces=[4, 1])
    assert team(dies) == ["Saint Anna"]


def test_card_the_spike(cat):
    state = make_state(heroes={"A": ["The Spike"]}, mt={"A": 10})
    r = act(cat, turn.buy_draw, state, None, faces=[3])
    assert r.state["table"]["A"]["mt"] == 8


def test_card_zeitgeist(cat):
    r = to_carnage(cat, chosen_mission(["Zeitgeist", "Ocelot"]), 2)
    r = act(cat, mission.casualties, r.state, None, choose=["Zeitgeist", "Ocelot"], faces=[1, 1])
    assert r.state["table"]["A"]["mt"] == (1 + 2) + 1


def test_card_battering_ram(cat):
    r = to_carnage(cat, mission_state(["Battering Ram", "Ocelot"]), 2)
    saved = act(cat, mission.casualties, r.state, None, sacrifices=["Battering Ram"], faces=[3])
    assert team(saved) == ["Ocelot"] and saved.state["table"]["A"]["mt"] == 3
    both = act(cat, mission.casualties, r.state, None, faces=[3, 3])
    assert team(both) == []


def test_card_bloke(cat):
    r = act(cat, mission.start, mission_state(["Bloke"]), None, "Zombies", faces=[1])
    assert r.state["table"]["A"]["hand"] == ["Ocelot"]
    r = act(cat, mission.start, mission_state(["Phat"]), None, "Zombies", faces=[1])
    assert r.state["table"]["A"]["hand"] == []


def test_card_gin_genie(cat):
    hand = ["Energy Blasts", "Movies", "Doop"]
    kw = dict(carnage_faces=[1], powers=["Energy Blasts"], success_faces=[1])
    r = to_success(cat, mission_state(["Gin Genie"], hand=hand), **kw)
    r = act(cat, mission.boost, r.state, None, discards=["Movies", "Doop"])
    assert rolls_of(r)["success"] == 1 + 1 + 2
    plain = to_success(cat, mission_state(["Ocelot"], hand=hand), **kw)
    with pytest.raises(RefereeError, match="no hero that turns discarded cards"):
        act(cat, mission.boost, plain.state, None, discards=["Movies"])


def test_card_la_nuit(cat):
    r = to_carnage(cat, mission_state(["La Nuit"]), 1)
    back = act(cat, mission.casualties, r.state, None, faces=[2, 3])  # Sendoff 2, then 3+
    assert "La Nuit" in back.state["table"]["A"]["hand"]
    gone = act(cat, mission.casualties, r.state, None, faces=[2, 2])
    assert "La Nuit" in gone.state["discard"] and "La Nuit" not in gone.state["table"]["A"]["hand"]


def test_card_plazm(cat):
    hand = ["Energy Blasts"]
    r = to_success(cat, mission_state(["Plazm"], hand=hand), carnage_faces=[1],
                   powers=hand, success_faces=[1])
    r = act(cat, events.reroll, r.state, None, "Plazm", faces=[6])
    assert rolls_of(r)["success"] == 7
    with pytest.raises(RefereeError, match="already rerolled"):
        act(cat, events.reroll, r.state, None, "Plazm", faces=[1])


def test_card_sluk(cat):
    r = to_carnage(cat, chosen_mission(["Sluk", "Ocelot"]), 1)
    r = act(cat, mission.casualties, r.state, None, choose=["Sluk"], faces=[1])
    r = act(cat, mission.success, r.state, None, faces=[1])
    assert rolls_of(r)["success"] == 1 + 1 + 2


def test_card_smoke(cat):
    r = to_carnage(cat, mission_state(["Smoke"]), 1)
    alive = act(cat, mission.casualties, r.state, None, faces=[4])
    assert team(alive) == ["Smoke"]
    dead = act(cat, mission.casualties, r.state, None, faces=[3, 1])
    assert team(dead) == []


def test_card_succubus(cat):
    r = to_carnage(cat, mission_state(["Succubus"]), 6)
    r = act(cat, events.reroll, r.state, None, "Succubus", faces=[1])
    assert rolls_of(r)["carnage"] == 1
    with pytest.raises(RefereeError, match="already rerolled"):
        act(cat, events.reroll, r.state, None, "Succubus", faces=[1])


# ── Powers ────────────────────────────────────────────────────────────────────
def test_card_toxic_sweat(cat):
    state = make_state(hands={"A": ["Toxic Sweat"], "B": ["Movies", "Doop"]})
    r = act(cat, events.play_event, state, None, "Toxic Sweat")
    assert len(r.state["table"]["B"]["hand"]) == 1
    assert set(r.state["discard"]) - {"Toxic Sweat"} <= {"Movies", "Doop"}
    assert len(r.state["discard"]) == 2
    with pytest.raises(UsageError, match="no --pick"):  # the referee's deal: its pick
        act(cat, events.play_event, state, None, "Toxic Sweat", pick="Doop")
    own = make_state(hands={"A": ["Toxic Sweat"]}, hidden={"B": 2})  # the table's deck
    with pytest.raises(UsageError, match="--pick"):
        act(cat, events.play_event, own, None, "Toxic Sweat")
    table = act(cat, events.play_event, own, None, "Toxic Sweat", pick="Doop")
    assert table.state["table"]["B"]["hand"] == ["?"]
    assert table.state["discard"] == ["Toxic Sweat", "Doop"]


def test_card_regeneration(cat):
    r = to_carnage(cat, mission_state(["Ocelot"], hand=["Regeneration"]), 6)
    r = act(cat, events.play_event, r.state, None, "Regeneration", faces=[1])
    assert rolls_of(r)["carnage"] == 1 and "Regeneration" in r.state["discard"]


def test_card_reanimation(cat):
    state = make_state(hands={"A": ["Reanimation"]}, discard=["Ocelot", "Movies", "Phat", "Doop"])
    r = act(cat, events.play_event, state, None, "Reanimation")
    assert r.state["table"]["A"]["hand"] == ["Phat"]
    assert r.state["discard"] == ["Ocelot", "Movies", "Doop", "Reanimation"]


def test_card_superhuman_senses(cat):
    hand = ["Energy Blasts", "Superhuman Senses"]
    r = to_success(cat, mission_state(["Ocelot"], hand=hand), carnage_faces=[1],
                   powers=["Energy Blasts"], success_faces=[6])
    r = act(cat, mission.payoff, r.state, None, faces=[1, 1])
    assert r.state["table"]["A"]["mt"] == 2
    r = act(cat, events.play_event, r.state, None, "Superhuman Senses", faces=[6, 6])
    assert r.state["table"]["A"]["mt"] == 12


def test_card_sense_vulnerability(cat):
    state = make_state(hands={"A": ["Sense Vulnerability"], "B": ["Movies", "Doop"]})
    r = act(cat, events.play_event, state, None, "Sense Vulnerability")
    assert r.reveal == {"B": ["Movies", "Doop"]}


def test_card_control_body_mass(cat):
    hand = [*POWERS[:2], "Control Body Mass"]
    r = to_success(cat, mission_state(["Ocelot"], hand=hand), carnage_faces=[2],
                   powers=POWERS[:2], success_faces=[1])
    with pytest.raises(RefereeError):
        act(cat, mission.payoff, r.state, None, faces=[1, 1])
    r = act(cat, events.play_event, r.state, None, "Control Body Mass", faces=[5])
    assert rolls_of(r)["success"] == 6
    act(cat, mission.payoff, r.state, None, faces=[1, 1])


def test_card_teleportation(cat):
    hand = ["Energy Blasts", "Teleportation"]
    r = to_success(cat, mission_state(["Ocelot"], hand=hand), carnage_faces=[1],
                   powers=["Energy Blasts"], success_faces=[1])
    r = act(cat, events.play_event, r.state, None, "Teleportation")
    assert rolls_of(r)["success"] == 1 + 1 + 2


def test_card_freeze_time(cat):
    r = act(cat, mission.start, mission_state(["Ocelot"], hand=["Freeze Time"]), None, "Zombies",
            faces=[6])
    with pytest.raises(RefereeError, match="needs 6 heroes"):
        act(cat, mission.carnage, r.state, None, faces=[1])
    r = act(cat, events.play_event, r.state, None, "Freeze Time", faces=[1])
    act(cat, mission.carnage, r.state, None, faces=[1])


def test_card_healing_powers(cat):
    r = to_carnage(cat, mission_state(["Ocelot"], hand=["Healing Powers", "Energy Blasts"]), 2)
    healed = act(cat, mission.casualties, r.state, None, powers=["Healing Powers"])
    assert team(healed) == ["Ocelot"]
    one = act(cat, mission.casualties, r.state, None, powers=["Energy Blasts"], faces=[1])
    assert team(one) == []


def test_card_telekinesis(cat):
    state = mission_state(["Ocelot"], hand=["Telekinesis"])
    r = act(cat, events.play_event, state, None, "Telekinesis")  # before the roll: queued
    r = act(cat, mission.start, r.state, None, "Zombies", faces=[2])
    assert rolls_of(r)["mission"] == 1
    act(cat, mission.carnage, r.state, None, faces=[1])


def test_card_acid_spray(cat):
    state = make_state(hands={"A": ["Acid Spray"], "B": ["Movies", "Doop"]})
    with pytest.raises(UsageError, match="--pick"):
        act(cat, events.play_event, state, None, "Acid Spray")
    r = act(cat, events.play_event, state, None, "Acid Spray", pick="Doop")
    assert r.state["table"]["B"]["hand"] == ["Movies"] and "Doop" in r.state["discard"]


def test_card_superhuman_strength(cat):
    hand = ["Energy Blasts", "Superhuman Strength"]
    r = to_success(cat, mission_state(["Ocelot"], hand=hand), carnage_faces=[1],
                   powers=["Energy Blasts"], success_faces=[1])
    r = act(cat, mission.boost, r.state, None, powers=["Superhuman Strength"])
    assert rolls_of(r)["success"] == 1 + 1 + 2


def test_card_chameleon_powers(cat):
    state = make_state(hands={"A": ["Chameleon Powers"], "B": ["Doop"]})
    r = act(cat, events.play_event, state, None, "Chameleon Powers")
    assert r.state["table"]["A"]["hand"] == ["Doop"] and r.state["table"]["B"]["hand"] == []


def test_card_shockwave(cat):
    r = to_carnage(cat, mission_state(["Ocelot"], hand=["Shockwave"]), 3)
    r = act(cat, events.play_event, r.state, None, "Shockwave")
    assert rolls_of(r)["carnage"] == 1
    assert r.state["turn"]["queued"][0]["by"] == -2  # and -2 waits for the Success roll
    r = act(cat, mission.casualties, r.state, None, faces=[4])  # one point: Ocelot, Sendoff 4
    assert team(r) == []


def test_card_dark_cloak_aura(cat):
    r = act(cat, events.play_event, make_state(hands={"A": ["Dark Cloak Aura"]}), None,
            "Dark Cloak Aura")
    assert r.state["table"]["A"]["hand"] == ["Ocelot", "Movies"]


def test_card_flight(cat):
    r = act(cat, mission.start, mission_state(["Ocelot"], hand=["Flight"]), None, "Zombies",
            faces=[4])
    r = act(cat, events.play_event, r.state, None, "Flight", faces=[1])
    assert rolls_of(r)["mission"] == 1


def test_card_paralysis_neurotoxin(cat):
    hand = ["Paralysis Neurotoxin", *POWERS[:2]]
    r = to_carnage(cat, mission_state(["Ocelot"], hand=hand), 1)
    r = act(cat, events.play_event, r.state, None, "Paralysis Neurotoxin")
    assert rolls_of(r)["carnage"] == 2
    r = act(cat, mission.casualties, r.state, None, powers=POWERS[:2])
    r = act(cat, mission.success, r.state, None, faces=[1])
    assert rolls_of(r)["success"] == 1 + 1 + 1


# ── Missions: CR/SR/PR modifiers against Zombies (none) ──────────────────────
def mission_totals(cat, card):
    """Mission 1, Carnage 3, all carnage negated, Success 6, Payoff 3+3."""
    r = act(cat, mission.start, mission_state(["Ocelot"], hand=POWERS, card=card), None, card,
            faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[3])
    r = act(cat, mission.casualties, r.state, None, powers=POWERS[: rolls_of(r)["carnage"]])
    r = act(cat, mission.success, r.state, None, faces=[6])
    r = act(cat, mission.payoff, r.state, None, faces=[3, 3])
    return rolls_of(r)["carnage"], rolls_of(r)["success"], rolls_of(r)["payoff"]


BASE = (3, 7, 6)


@pytest.mark.parametrize("card", ["Zombies", "Random Killers", "Middle East Dictator",
                                  "The Crack Squad"])
def test_missions_without_modifiers(cat, card):
    assert mission_totals(cat, card) == BASE


def test_card_terrorist_group(cat):
    assert mission_totals(cat, "Terrorist Group") == (2, 7, 4)


def test_card_rescue_boy_band(cat):
    assert mission_totals(cat, "Rescue Boy Band") == (3, 6, 8)


def test_card_mysterious_fan_boy(cat):
    assert mission_totals(cat, "Mysterious Fan Boy") == (4, 7, 8)


def test_card_bush_rangers(cat):
    assert mission_totals(cat, "Bush Rangers") == (5, 7, 10)


def test_card_mister_code(cat):
    assert mission_totals(cat, "Mister Code") == (5, 7, 10)


def test_card_pop_death_song(cat):
    assert mission_totals(cat, "Pop Death Song") == (1, 7, 2)


def test_card_the_bad_guy(cat):
    assert mission_totals(cat, "The Bad Guy") == (4, 7, 8)


def test_card_the_euro_trash(cat):
    assert mission_totals(cat, "The Euro-Trash") == (2, 7, 4)


def test_card_surrender_monkey(cat):
    assert mission_totals(cat, "Surrender Monkey") == (1, 7, 2)


def test_card_the_pitiful_one(cat):
    assert mission_totals(cat, "The Pitiful One") == (3, 6, 8)


# ── Marketing ─────────────────────────────────────────────────────────────────
def test_card_media_manipulation(cat):
    state = make_state(hands={"A": ["Media Manipulation"]},
                       heroes={"B": [("Ocelot", 2, ["Movies", "PR People"])]})
    with pytest.raises(UsageError, match="--hero"):
        act(cat, events.play_event, state, None, "Media Manipulation")
    r = act(cat, events.play_event, state, None, "Media Manipulation", hero="Ocelot")
    assert r.state["table"]["B"]["heroes"][0]["marketing"] == []
    assert {"Movies", "PR People"} <= set(r.state["discard"])


def test_card_sensationalism(cat):
    state = make_state(hands={"A": ["Sensationalism"]}, phase="end")
    r = act(cat, events.play_event, state, None, "Sensationalism")
    r = act(cat, turn.next_turn, r.state, None)
    assert r.state["turn"]["player"] == "A" and r.state["turn"]["number"] == 2
    plain = act(cat, turn.next_turn, make_state(phase="end"), None)
    assert plain.state["turn"]["player"] == "B"


def test_card_celebrity_status(cat):
    state = make_state(hands={"A": ["Celebrity Status"]}, heroes={"B": [("Phat", 2, ["Movies"])]})
    r = act(cat, events.play_event, state, None, "Celebrity Status")
    assert r.state["table"]["A"]["heroes"] == [{"name": "Phat", "ft": 2, "marketing": ["Movies"]}]
    assert r.state["table"]["B"]["heroes"] == []


def test_card_pr_spin(cat):
    r = to_carnage(cat, mission_state(["Ocelot"], hand=["PR Spin"]), 1)
    r = act(cat, events.play_event, r.state, None, "PR Spin")
    r = act(cat, mission.casualties, r.state, None, faces=[1])
    assert r.state["table"]["A"]["mt"] == 4


def test_card_cult_of_personality(cat):
    state = make_state(hands={"A": ["Cult of Personality"]},
                       heroes={"A": [("Ocelot", 1), ("Phat", 2)]}, phase="publicity", mt={"A": 5})
    with pytest.raises(RefereeError, match="counts as 2"):
        act(cat, turn.attach, state, None, "Cult of Personality", "Ocelot", faces=[1])
    r = act(cat, turn.attach, state, None, "Cult of Personality", "Phat", faces=[1])
    r = act(cat, turn.pass_phase, r.state, None)  # publicity -> mission
    r = act(cat, turn.pass_phase, r.state, None)  # mission -> fame, fortune, end
    # Fortune: 3 FT + 2 (Cult counts 2) + 1 (Phat)
    assert r.state["table"]["A"]["mt"] == 4 + 6


def test_card_roadshow(cat):
    """cards.yaml: "Event: Reroll Mission Roll". A Mission roll of 5 stops a one-hero team
    (XS-6); Roadshow, discarded for its Event (XS-12), rolls it again and the new roll
    replaces the old (XS-20): on a 1 the mission goes on to its Carnage roll."""
    r = act(cat, mission.start, mission_state(["Ocelot"], hand=["Roadshow"]), None, "Zombies",
            faces=[5])
    assert rolls_of(r)["mission"] == 5
    with pytest.raises(RefereeError, match="needs 5 heroes"):
        act(cat, mission.carnage, r.state, None, faces=[1])
    r = act(cat, events.play_event, r.state, None, "Roadshow", faces=[1])
    assert rolls_of(r)["mission"] == 1
    said = texts(r)
    assert "A discards Roadshow for its Event ability [XS-12]" in said
    assert "Roadshow rerolls the Mission roll (5 -> 1): Mission roll 1: 1 hero needed" in said
    assert "Roadshow" not in r.state["table"]["A"]["hand"] and "Roadshow" in r.state["discard"]
    carnage = act(cat, mission.carnage, r.state, None, faces=[1])
    assert rolls_of(carnage)["carnage"] == 1


def test_card_tv_talk_show(cat):
    state = make_state(hands={"A": ["TV Talk Show"]}, heroes={"B": [("Ocelot", 2, ["Movies"])]},
                       mt={"B": 0})
    r = act(cat, events.play_event, state, None, "TV Talk Show")
    assert r.state["table"]["B"]["heroes"] == [] and r.state["table"]["B"]["mt"] == 0
    assert {"Ocelot", "Movies"} <= set(r.state["discard"])


def test_card_popularity_ratings(cat):
    state = make_state(hands={"A": ["Popularity Ratings", "PR People"]},
                       heroes={"A": [("Ocelot", 1, ["Movies"])]}, phase="publicity")
    with pytest.raises(RefereeError, match="no more marketing"):
        act(cat, turn.attach, state, None, "PR People", "Ocelot", faces=[1])
    r = act(cat, events.play_event, state, None, "Popularity Ratings", hero="Ocelot")
    r = act(cat, turn.attach, r.state, None, "PR People", "Ocelot", faces=[1])
    assert r.state["table"]["A"]["heroes"][0] == {"name": "Ocelot", "ft": 2,
                                                  "marketing": ["Movies", "PR People"]}


def test_card_licensing(cat):
    r = act(cat, events.play_event, make_state(hands={"A": ["Licensing"]}, mt={"A": 0}), None,
            "Licensing")
    assert r.state["table"]["A"]["mt"] == 2


def test_card_reality_tv(cat):
    state = make_state(hands={"A": ["Reality TV"]}, heroes={"B": [("Ocelot", 1, ["Movies"])]})
    r = act(cat, events.play_event, state, None, "Reality TV", hero="Ocelot")
    assert r.state["table"]["B"]["heroes"][0] == {"name": "Ocelot", "ft": 0, "marketing": []}
    assert "Movies" in r.state["discard"]


def test_card_interviews(cat):
    hand = ["Energy Blasts", "Interviews"]
    r = to_success(cat, mission_state(["Ocelot"], hand=hand), carnage_faces=[1],
                   powers=["Energy Blasts"], success_faces=[6])
    r = act(cat, mission.payoff, r.state, None, faces=[1, 1])
    r = act(cat, events.play_event, r.state, None, "Interviews")
    assert r.state["table"]["A"]["mt"] == 2 + 3


def test_card_ratings_bonanza(cat):
    r = to_carnage(cat, mission_state(["Ocelot", "Phat"], hand=["Ratings Bonanza"]), 1)
    with pytest.raises(RefereeError, match="Ratings Bonanza"):
        act(cat, mission.casualties, r.state, None, choose=["Phat"], faces=[1])
    r = act(cat, events.play_event, r.state, None, "Ratings Bonanza")
    r = act(cat, mission.casualties, r.state, None, choose=["Phat"], faces=[1])
    assert team(r) == ["Ocelot"]


def test_card_superstar_status(cat):
    r = act(cat, events.play_event, make_state(hands={"A": ["Superstar Status"]}), None,
            "Superstar Status")
    assert len(r.state["table"]["A"]["hand"]) == 2


# ── Owners and Team Names ─────────────────────────────────────────────────────
def test_card_coach(cat):
    state = make_state(heroes={"A": ["Ocelot", "Phat"]}, owners={"A": "Coach"}, mt={"A": 0},
                       phase="end")
    r = act(cat, turn.end_phase_kill, state, None, "Ocelot", faces=[4])
    assert r.state["table"]["A"]["mt"] == 4 and team(r) == ["Phat"]
    with pytest.raises(RefereeError, match="once a turn"):
        act(cat, turn.end_phase_kill, r.state, None, "Phat", faces=[4])
    with pytest.raises(RefereeError, match="no End-phase kill"):
        act(cat, turn.end_phase_kill, make_state(heroes={"A": ["Ocelot"]}, phase="end"), None,
            "Ocelot", faces=[4])


def test_card_spike_freeman(cat):
    hand = ["Movies", "PR People", "Media Craze", "Doop", "Flight", "Zombies", "Phat"]
    with_him = make_state(hands={"A": hand}, owners={"A": "Spike Freeman"}, phase="end")
    assert act(cat, turn.next_turn, with_him, None).state["turn"]["player"] == "B"
    with pytest.raises(RefereeError, match="hand limit 5"):
        act(cat, turn.next_turn, make_state(hands={"A": hand}, phase="end"), None)


def test_card_solomon_osullivan(cat):
    state = make_state(hands={"A": ["Ocelot"]}, owners={"A": cat.resolve("Solomon O'Sullivan")}, mt={"A": 5},
                       phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[6])
    assert r.state["table"]["A"]["mt"] == 0 and team(r) == ["Ocelot"]


def test_card_x_statix(cat):
    r = to_carnage(cat, mission_state(["Ocelot"], teams={"A": "X-Statix"}), 1)
    r = act(cat, mission.casualties, r.state, None, faces=[3])
    assert r.state["table"]["A"]["mt"] == 4


def test_card_x_force(cat):
    state = mission_state(["Ocelot"], hand=["Energy Blasts"], teams={"A": "X-Force"})
    r = to_success(cat, state, carnage_faces=[1], powers=["Energy Blasts"], success_faces=[6])
    r = act(cat, mission.payoff, r.state, None, faces=[1, 1])
    assert r.state["table"]["A"]["mt"] == 4


def test_card_o_force(cat):
    state = make_state(hands={"A": ["Ocelot"]}, teams={"A": "O-Force"}, phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[1])
    assert r.state["table"]["A"]["heroes"][0]["ft"] == 2
    r = to_carnage(cat, mission_state(["Ocelot"], teams={"A": "O-Force"}), 1)
    assert rolls_of(r)["carnage"] == 2


def test_card_sluk_unused_bonus_cites_the_success_ruling(cat):
    # Sluk is the only hero: killed, no survivor, no Success roll for his +2 (a hero
    # ability: XS-8, not an event's XS-12)
    r = to_carnage(cat, mission_state(["Sluk"]), 1)
    r = act(cat, mission.casualties, r.state, None, faces=[1])
    assert "Sluk's +2 to the Success roll is unused: no such roll was made [XS-8]" in texts(r)


def test_a_misspelt_card_name_gets_a_did_you_mean(cat):
    state = make_state(hands={"A": ["Zeitgeist"]}, phase="recruitment")
    with pytest.raises(UsageError) as err:
        act(cat, turn.recruit, state, None, "Zeitgest")
    assert str(err.value) == "there is no X-Statix card 'Zeitgest'; did you mean 'Zeitgeist'?"


def test_card_chameleon_powers_in_a_three_player_game_needs_a_target(cat):
    # a missing or wrong --target is bad input (exit 2), not a rule refusal
    state = make_state(players=("A", "B", "C"), hands={"A": ["Chameleon Powers"], "B": ["Doop"]})
    with pytest.raises(UsageError, match=r"name the opponent with --target \(B, C\)"):
        act(cat, events.play_event, state, None, "Chameleon Powers")
    with pytest.raises(UsageError, match="A is not an opponent of A"):
        act(cat, events.play_event, state, None, "Chameleon Powers", target="A")
    r = act(cat, events.play_event, state, None, "Chameleon Powers", target="B")
    assert r.state["table"]["A"]["hand"] == ["Doop"]
