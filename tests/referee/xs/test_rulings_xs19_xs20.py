"""The rulings XS-19 (Bloke's card is drawn when the Mission card is played, before the
Mission roll, and may be played as an event on it) and XS-20 (a reroll rolls every die of
the roll again, its modifiers applied again, and may itself be rerolled), issue 31."""

from __future__ import annotations

import json

import pytest

from referee.xs import events, mission
from tests.referee.xs.xs_support import act, load_catalog, make_state, referee, texts


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def hand(result, player="A"):
    return result.state["table"][player]["hand"]


def test_xs19_blokes_card_is_drawn_before_the_mission_roll(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": ["Bloke", "Ocelot"]},
                       phase="mission", deck=("Flight", "Movies"))
    r = act(cat, mission.start, state, None, "Zombies", faces=[2])
    lines = [s.text for s in r.steps]
    drew = next(i for i, t in enumerate(lines) if "Bloke at the start of the mission" in t)
    rolled = next(i for i, t in enumerate(lines) if t.startswith("Mission roll"))
    assert drew < rolled and hand(r) == ["Flight"]


def test_xs19_blokes_card_is_drawn_also_when_the_mission_roll_stops_the_mission(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": ["Bloke"]},
                       phase="mission", deck=("Flight", "Movies"))
    r = act(cat, mission.start, state, None, "Zombies", faces=[5])
    assert "5 heroes needed, A has 1" in texts(r) and hand(r) == ["Flight"]


def test_xs19_the_card_drawn_is_played_as_an_event_on_that_mission_roll(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": ["Bloke"]},
                       phase="mission", deck=("Flight", "Movies"))
    r = act(cat, mission.start, state, None, "Zombies", faces=[5])
    r = act(cat, events.play_event, r.state, None, "Flight", faces=[1])
    assert "Flight rerolls the Mission roll (5 -> 1)" in texts(r)
    assert "1 hero needed, A has 1" in texts(r) and hand(r) == []
    r = act(cat, mission.carnage, r.state, None, faces=[1])  # attempted now (XS-6)
    assert r.state["turn"]["mission"]["stage"] == "carnage"


def test_xs19_at_the_table_the_hidden_card_bloke_drew_may_be_shown_as_flight(tmp_path):
    session = str(tmp_path / "b.db")

    def run(*args):
        done = referee("--session", session, *args)
        assert done.returncode == 0, (args, done.stderr)
        return done

    run("new", "x-statix", "--players", "Ann,Bob", "--owner", "Ann=Spike Freeman",
        "--roll", "5,4,6,3,2,2,5,1,6,2")
    for args in (("xs", "draw"), ("xs", "pass"), ("xs", "recruit", "Bloke", "--roll", "1"),
                 ("xs", "pay"), ("xs", "pass"), ("xs", "pass")):
        run(*args)
    before = json.loads(run("status", "--json").stdout)["state"]["table"]["Ann"]["hand"]
    out = run("xs", "mission", "Zombies", "--roll", "6").stdout
    assert "Bloke at the start of the mission: Ann draws 1 card" in out
    assert json.loads(run("status", "--json").stdout)["state"]["table"]["Ann"]["hand"] == before
    out = run("xs", "event", "Flight", "--roll", "1").stdout
    assert "Flight rerolls the Mission roll (6 -> 1)" in out


def test_xs20_a_reroll_of_the_payoff_rolls_both_dice_and_applies_its_modifiers_again(cat):
    state = make_state(hands={"A": ["Rescue Boy Band", "Freeze Time"]},
                       heroes={"A": ["Ocelot", "Lacuna"]}, phase="mission", mt={"A": 0})
    r = act(cat, mission.start, state, None, "Rescue Boy Band", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[1])
    r = act(cat, mission.casualties, r.state, None, picked=["Ocelot"], faces=[1])
    r = act(cat, mission.success, r.state, None, faces=[6])
    r = act(cat, mission.payoff, r.state, None, faces=[6, 6])  # 12 +2 Rescue Boy Band +2 Lacuna
    assert r.state["table"]["A"]["mt"] == 1 + 16
    r = act(cat, events.play_event, r.state, None, "Freeze Time", faces=[1, 2])
    assert "Freeze Time rerolls the Payoff roll (6+6 -> 1+2)" in texts(r)
    assert "= 7" in texts(r)  # 1+2, Rescue Boy Band +2 and Lacuna +2 again
    assert r.state["table"]["A"]["mt"] == 1 + 7
    assert r.state["turn"]["mission"]["rolls"]["payoff"]["faces"] == [1, 2]


def test_xs20_a_rerolled_roll_may_be_rerolled_again_by_another_card(cat):
    state = make_state(hands={"A": ["Zombies", "Flight", "Roadshow"]}, heroes={"A": ["Ocelot"]},
                       phase="mission")
    r = act(cat, mission.start, state, None, "Zombies", faces=[6])
    r = act(cat, events.play_event, r.state, None, "Flight", faces=[5])
    r = act(cat, events.play_event, r.state, None, "Roadshow", faces=[1])
    assert "Roadshow rerolls the Mission roll (5 -> 1)" in texts(r)
    assert r.state["turn"]["mission"]["rolls"]["mission"]["total"] == 1
