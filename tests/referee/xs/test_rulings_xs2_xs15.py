"""Open rolls that end their phase when settled (XS-2), paying for what can no longer
happen (XS-2), killing off a hero for its own ability once per mission and Coach's kill
(XS-15): the defects of issue 13 (X-Statix items 10-12), each with fixed rolls."""

from __future__ import annotations

import pytest

from referee.errors import RefereeError
from referee.xs import events, mission, turn
from tests.referee.xs.xs_support import act, make_state, texts

# What keeps a paid roll open (XS-2): a hero's reroll or adjust ability in play, or an
# event card in hand that rerolls it.
KEEPERS = [
    pytest.param({"heroes": ["The Orphan"]}, id="The Orphan"),
    pytest.param({"heroes": ["Venus Dee Milo"]}, id="Venus Dee Milo"),
    pytest.param({"hand": ["Freeze Time"]}, id="Freeze Time"),
    pytest.param({"hand": ["Superhuman Senses"]}, id="Superhuman Senses"),
]


def keeping_open(keeper, hand, phase, mt=2, heroes=(), deck=None):
    extra = {} if deck is None else {"deck": deck}
    return make_state(hands={"A": [*hand, *keeper.get("hand", [])]},
                      heroes={"A": [*keeper.get("heroes", []), *heroes]}, mt={"A": mt},
                      phase=phase, **extra)


def refused_after_settling(cat, fn, state, *args, faces):
    """`fn` settles the open roll, which cannot be paid and ends its phase: the command
    is refused (XS-2) and the refusal carries the state as after the settlement."""
    with pytest.raises(RefereeError) as err:
        act(cat, fn, state, None, *args, faces=faces)
    assert err.value.ruling == "XS-2"
    settled = err.value.result
    assert settled.state["turn"]["open"] is None
    assert "cannot pay 5 MT" in texts(settled)
    return err.value, settled.state


@pytest.mark.parametrize("keeper", KEEPERS)
def test_xs2_a_second_recruit_that_settles_an_unpaid_roll_is_refused(cat, keeper):
    state = keeping_open(keeper, ["Ocelot", "Phat"], "recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[5])
    assert r.state["turn"]["open"]["total"] == 5
    error, after = refused_after_settling(cat, turn.recruit, r.state, "Phat", faces=[1])
    assert "cannot recruit Phat" in error.message and "recruitment phase" in error.message
    seat = after["table"]["A"]
    assert after["turn"]["phase"] == "publicity" and seat["mt"] == 2
    assert {"Ocelot", "Phat"} <= set(seat["hand"])
    assert [h["name"] for h in seat["heroes"]] == keeper.get("heroes", [])


@pytest.mark.parametrize("keeper", KEEPERS)
def test_xs2_an_extra_draw_that_settles_an_unpaid_draw_is_refused(cat, keeper):
    state = keeping_open(keeper, [], "opportunity")
    r = act(cat, turn.buy_draw, state, None, faces=[5])
    hand = list(r.state["table"]["A"]["hand"])
    error, after = refused_after_settling(cat, turn.buy_draw, r.state, faces=[1])
    assert "cannot draw" in error.message and "opportunity phase" in error.message
    assert after["turn"]["phase"] == "recruitment"  # Recruitment is not lost as well
    assert after["table"]["A"]["hand"] == hand and after["table"]["A"]["mt"] == 2
    assert after["deck"] == state["deck"]


@pytest.mark.parametrize("keeper", KEEPERS)
def test_xs2_a_second_attach_that_settles_an_unpaid_roll_is_refused(cat, keeper):
    state = keeping_open(keeper, ["Movies", "PR People"], "publicity", heroes=[("Ocelot", 3)])
    r = act(cat, turn.attach, state, None, "Movies", "Ocelot", faces=[5])
    error, after = refused_after_settling(cat, turn.attach, r.state, "PR People", "Ocelot",
                                          faces=[1])
    assert "cannot attach PR People" in error.message
    assert after["turn"]["phase"] == "mission"
    ocelot = [h for h in after["table"]["A"]["heroes"] if h["name"] == "Ocelot"][0]
    assert ocelot["marketing"] == [] and after["table"]["A"]["mt"] == 2


def test_xs2_a_command_of_a_later_phase_settles_the_roll_and_goes_on(cat):
    state = keeping_open({"heroes": ["The Orphan"]}, ["Movies", "Zombies"], "publicity")
    r = act(cat, turn.attach, state, None, "Movies", "The Orphan", faces=[5])
    r = act(cat, mission.start, r.state, None, "Zombies", faces=[1])
    assert "cannot pay 5 MT" in texts(r) and r.state["turn"]["mission"]["card"] == "Zombies"
    # passing settles it too, and ends only the phase the unpaid roll ended
    r = act(cat, turn.attach, state, None, "Movies", "The Orphan", faces=[5])
    r = act(cat, turn.pass_phase, r.state, None)
    assert r.state["turn"]["phase"] == "mission"


def test_xs2_unpaid_says_what_does_not_happen(cat):
    state = make_state(mt={"A": 2})
    r = act(cat, turn.buy_draw, state, None, faces=[5])
    assert ("A cannot pay 5 MT for an extra draw (has 2): pays nothing, no extra card is "
            "drawn, and the opportunity phase ends [XS-2]") in texts(r)
    state = make_state(hands={"A": ["Ocelot"]}, mt={"A": 2}, phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[5])
    assert "pays nothing, Ocelot is not recruited, and the recruitment phase ends" in texts(r)


def test_xs2_an_open_extra_draw_pays_nothing_once_the_deck_is_empty(cat):
    # The Orphan keeps the Opportunity roll open; Dark Cloak Aura then takes the last cards.
    state = make_state(hands={"A": ["Dark Cloak Aura"]}, heroes={"A": ["The Orphan"]},
                       mt={"A": 10}, deck=("Ocelot", "Movies"))
    r = act(cat, turn.buy_draw, state, None, faces=[3])
    r = act(cat, events.play_event, r.state, None, "Dark Cloak Aura")
    assert r.state["deck"] == []
    r = act(cat, turn.pay_now, r.state, None)
    seat = r.state["table"]["A"]
    assert seat["mt"] == 10 and sorted(seat["hand"]) == ["Movies", "Ocelot"]
    assert "an extra draw can no longer happen: nothing is paid [XS-2]" in texts(r)
    assert r.state["turn"]["phase"] == "opportunity"


# ── XS-15 ────────────────────────────────────────────────────────────────────
def to_carnage(cat, state, carnage):
    r = act(cat, mission.start, state, None, "Zombies", faces=[1])
    return act(cat, mission.carnage, r.state, None, faces=[carnage])


def test_xs15_battering_ram_saved_by_saint_anna_is_not_killed_off_again(cat):
    state = make_state(hands={"A": ["Zombies"]},
                       heroes={"A": ["Battering Ram", "Saint Anna", "Ocelot"]},
                       phase="mission", mt={"A": 0})
    r = to_carnage(cat, state, 4)
    with pytest.raises(RefereeError) as err:  # Saint Anna's 5 saves him the first time
        act(cat, mission.casualties, r.state, None,
            sacrifices=["Battering Ram", "Battering Ram"], faces=[5, 5])
    assert err.value.ruling == "XS-15" and "Battering Ram" in err.value.message
    # once: his 2 points stand though he lives; the 2 left kill two random heroes
    once = act(cat, mission.casualties, r.state, None, sacrifices=["Battering Ram"],
               picked=["Ocelot", "Saint Anna"], faces=[5, 1, 1, 1])
    assert "Battering Ram's sacrifice negates 2 carnage points" in texts(once)
    assert "Battering Ram lives: the sacrifice still negates 2 carnage points [XS-15]" in \
        texts(once)
    assert "2 carnage points not negated" in texts(once)
    assert [h["name"] for h in once.state["table"]["A"]["heroes"]] == ["Battering Ram"]


def test_xs15_overkill_saved_by_saint_anna_is_not_killed_off_again(cat):
    state = make_state(hands={"A": ["Zombies"]},
                       heroes={"A": ["Overkill", "Saint Anna", "Ocelot"]},
                       phase="mission", mt={"A": 0})
    # one random casualty (Ocelot), saved by Saint Anna: the whole team survives
    r0 = to_carnage(cat, state, 1)
    r0 = act(cat, mission.casualties, r0.state, None, picked=["Ocelot"], faces=[5])  # saved
    assert len(r0.state["table"]["A"]["heroes"]) == 3
    with pytest.raises(RefereeError) as err:
        act(cat, mission.success, r0.state, None, sacrifices=["Overkill", "Overkill"],
            faces=[6, 6, 1])
    assert err.value.ruling == "XS-15"
    done = act(cat, mission.success, r0.state, None, sacrifices=["Overkill"], faces=[6, 1])
    roll = done.state["turn"]["mission"]["rolls"]["success"]
    assert roll["total"] == 1 + 3 + 2  # saved, Overkill still counts as a survivor (XS-15)
    assert "Overkill lives: the sacrifice still gives +2 [XS-15]" in texts(done)
    with pytest.raises(RefereeError) as err:
        act(cat, mission.boost, done.state, None, sacrifices=["Overkill"], faces=[6])
    assert err.value.ruling == "XS-15"


def test_xs15_coach_pays_whether_or_not_the_hero_is_saved_once_a_turn(cat):
    state = make_state(heroes={"A": ["Ocelot", "Saint Anna", "Phat"]}, owners={"A": "Coach"},
                       mt={"A": 0}, phase="end")
    r = act(cat, turn.end_phase_kill, state, None, "Ocelot", faces=[4, 5])  # 1D6, Saint Anna
    assert [h["name"] for h in r.state["table"]["A"]["heroes"]] == ["Ocelot", "Saint Anna",
                                                                      "Phat"]
    assert r.state["table"]["A"]["mt"] == 4
    assert "Ocelot is killed (by Coach) [XS-11]" in texts(r)
    assert "Coach: 1D6 = 4, paid though Ocelot lives: A gains 4 MT (now 4) [XS-15]" in texts(r)
    with pytest.raises(RefereeError, match="once a turn") as err:
        act(cat, turn.end_phase_kill, r.state, None, "Ocelot", faces=[4, 1])
    assert err.value.ruling == "XS-15"


def test_xs2_cli_a_command_refused_before_settling_changes_nothing(tmp_path):
    """A command that would settle an unpayable open roll, ending its own phase, is refused
    and changes nothing (issue 31 item 5): the roll stays open, unpaid, the session's
    bytes as they were; `xs pay` then settles it (XS-2)."""
    import json

    from tests.referee.xs.xs_support import referee

    session = str(tmp_path / "g.db")

    def run(*args):
        return referee("--session", session, *args)

    # seed 1, dealt by the referee: A goes first holding The Orphan, Overkill and Bloke
    assert run("new", "x-statix", "--players", "A,B,C", "--seed", "1",
               "--deal", "referee").returncode == 0
    for args in (("xs", "draw"), ("xs", "pass"), ("xs", "recruit", "The Orphan", "--roll", "1"),
                 ("mt", "A", "-10"), ("xs", "recruit", "Overkill", "--roll", "6")):
        assert run(*args).returncode == 0, args
    before = open(session, "rb").read()
    refused = run("xs", "recruit", "Bloke", "--roll", "1")
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr == ("referee: A cannot recruit Bloke: the open Recruit roll cannot be "
                              "paid, and that ends the recruitment phase (change the roll first, "
                              "or pay it: xs pay) (XS-2)\n")
    assert open(session, "rb").read() == before
    again = run("xs", "recruit", "Bloke", "--json")
    assert again.returncode == 1
    reply = json.loads(again.stdout)  # one JSON object
    assert reply["ok"] is False and reply["ruling"] == "XS-2" and reply["exit_code"] == 1
    state = json.loads(run("status", "--json").stdout)["state"]
    assert state["turn"]["phase"] == "recruitment" and state["turn"]["open"]["total"] == 6
    paid = run("xs", "pay")
    assert "Overkill is not recruited, and the recruitment phase ends (XS-2)" in paid.stdout
    state = json.loads(run("status", "--json").stdout)["state"]
    assert state["turn"]["phase"] == "publicity" and state["turn"]["open"] is None


def test_xs14_on_your_turn_abilities_work_only_in_their_owners_turn(cat):
    # B's The Orphan and Venus Dee Milo may not change A's open Recruit roll.
    state = make_state(hands={"A": ["Ocelot", "Freeze Time"]},
                       heroes={"B": ["The Orphan", "Venus Dee Milo"]}, phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[6])
    assert r.state["turn"]["open"]["total"] == 6
    with pytest.raises(RefereeError) as err:
        act(cat, events.reroll, r.state, "B", "The Orphan", faces=[1])
    assert err.value.ruling in ("XS-1", "XS-14")
    with pytest.raises(RefereeError):
        act(cat, events.adjust, r.state, "B", "Venus Dee Milo", -1)
    # in B's own turn The Orphan rerolls B's roll
    mine = make_state(hands={"B": ["Ocelot"]}, heroes={"B": ["The Orphan"]}, player="B",
                      phase="recruitment")
    r = act(cat, turn.recruit, mine, None, "Ocelot", faces=[6])
    r = act(cat, events.reroll, r.state, "B", "The Orphan", faces=[1])
    assert r.state["turn"]["open"]["total"] == 1
