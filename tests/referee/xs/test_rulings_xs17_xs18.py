"""The rulings XS-17 (one random pick per carnage point, a saved hero may be picked again)
and XS-18 (Orbit's +2 counts only Power cards discarded for the Success roll), issue 21."""

from __future__ import annotations

import pytest

from referee.errors import RefereeError
from referee.xs import mission
from tests.referee.xs.xs_support import act, load_catalog, make_state, texts


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def to_casualties(cat, heroes, carnage, hand=()):
    state = make_state(hands={"A": ["Zombies", *hand]}, heroes={"A": list(heroes)},
                       phase="mission", mt={"A": 0})
    r = act(cat, mission.start, state, None, "Zombies", faces=[1])
    return act(cat, mission.carnage, r.state, None, faces=[carnage])


def team(result):
    return [h["name"] for h in result.state["table"]["A"]["heroes"]]


def test_xs17_a_hero_smoke_saved_is_still_in_play_and_picked_again_by_the_next_point(cat):
    r = to_casualties(cat, ["Smoke", "Ocelot"], 2)
    # point 1: Smoke, survival roll 4 (lives); point 2: Smoke again, 1 (dies), Sendoff 3
    out = act(cat, mission.casualties, r.state, None, picked=["Smoke", "Smoke"], faces=[4, 1, 3])
    picks = [s for s in out.steps if s.text.startswith("random casualty")]
    assert [s.ruling for s in picks] == ["XS-17", "XS-17"]
    assert "Smoke lives on a roll of 4" in texts(out) and "Smoke dies on a roll of 1" in texts(out)
    assert team(out) == ["Ocelot"] and out.state["table"]["A"]["mt"] == 3


def test_xs17_each_point_picks_among_the_heroes_still_in_play(cat):
    r = to_casualties(cat, ["Ocelot", "Phat"], 2)
    with pytest.raises(RefereeError) as err:  # Ocelot died on point 1: not a pick of point 2
        act(cat, mission.casualties, r.state, None, picked=["Ocelot", "Ocelot"], faces=[1, 1])
    assert "Ocelot is not a hero on A's team" in str(err.value)
    seeded = act(cat, mission.casualties, r.state, None, faces=[1, 1])  # the referee's picks
    assert len([s for s in seeded.steps if s.ruling == "XS-17"]) == 2 and team(seeded) == []


def test_xs18_orbit_counts_only_the_power_cards_discarded_for_the_success_roll(cat):
    hand = ["Energy Blasts", "Shape Shifting"]
    r = to_casualties(cat, ["Orbit"], 1, hand)
    r = act(cat, mission.casualties, r.state, None, powers=["Energy Blasts"])  # negates, adds 0
    r = act(cat, mission.success, r.state, None, faces=[1])
    assert r.state["turn"]["mission"]["rolls"]["success"]["total"] == 1 + 1  # die + 1 survivor
    r = act(cat, mission.boost, r.state, None, powers=["Shape Shifting"])
    roll = r.state["turn"]["mission"]["rolls"]["success"]
    assert roll["total"] == 1 + 1 + 2
    orbit = [m for m in roll["mods"] if m["ruling"] == "XS-18"]
    assert [m["by"] for m in orbit] == [2] and "Shape Shifting" in orbit[0]["source"]
