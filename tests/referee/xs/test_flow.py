"""Issue 23 item 3: the one-shot CLI walks the turn. The compulsory mission steps chain
after a step (XS-7, XS-8) until a decision; faces and picks a script gives for steps the
chain did not reach are ignored and said; a step already made by the chain is refused
naming it; an open paid roll settled before a refusal stands (XS-2); on a terminal the
"skip a phase" guard and "anyone changing this roll?" are asked."""

from __future__ import annotations

import json
import random
import sys

import pytest

from referee.xs import mission
from referee.xs.play import Play
from referee.xs.rolls import Dice
from tests.harness import ROOT, process_env
from tests.referee.xs.xs_support import load_catalog, make_state, referee


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def game_at_mission(tmp_path):
    """A (Coach, X-Force) in the Mission phase with Smoke and Ocelot, the table's deck."""
    session = str(tmp_path / "flow.db")

    def xs(*args: str, expect: int = 0):
        proc = referee("--session", session, *args)
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
        return proc

    xs("new", "x-statix", "--players", "A,B", "--owner", "A=Coach", "--team", "A=X-Force",
       "--roll", "6,6,6,6,6,6,6,6,6,5")
    for args in (["draw"], ["pass"], ["recruit", "Smoke", "--roll", "1"],
                 ["recruit", "Ocelot", "--roll", "1"], ["pass"], ["pass"]):
        xs("xs", *args)
    return session, xs


def kinds(xs, n: int) -> list[str]:
    events = json.loads(xs("log", "--json", "--last", str(n)).stdout)["events"]
    return [e["kind"] for e in events]


def test_the_carnage_roll_follows_the_mission_roll_in_one_command(tmp_path):
    session, xs = game_at_mission(tmp_path)
    out = xs("xs", "mission", "Zombies", "--roll", "1,2").stdout
    assert "-- then, compulsory: xs carnage" in out
    assert "Carnage roll 2 = 2" in out or "Carnage roll 2" in out
    # the hand may hold Power cards (XS-16): the chain stops and says what is asked
    assert "-- A may discard Power cards against it (--power CARD)" in out
    assert kinds(xs, 2) == ["mission", "carnage"]
    events = json.loads(xs("log", "--json", "--last", "2").stdout)["events"]
    assert events[1]["payload"].get("chained") is True and not events[0]["payload"].get("chained")
    refused = xs("xs", "carnage", "--roll", "3", expect=1)
    assert refused.stderr.startswith("referee: cannot roll carnage: the Carnage roll is done "
                                     "already this mission")
    assert "resolve the carnage next (xs casualties) (XS-6)" in refused.stderr


def test_without_the_next_die_a_script_stops_where_the_step_used_to(tmp_path):
    """An old script gives one step's faces a command: nothing is chained, nothing refused."""
    session, xs = game_at_mission(tmp_path)
    out = xs("xs", "mission", "Zombies", "--roll", "1").stdout
    assert "-- next: xs carnage" in out
    xs("xs", "carnage", "--roll", "2")
    assert kinds(xs, 2) == ["mission", "carnage"]


def test_carnage_0_has_no_casualty_step_and_faces_left_are_ignored_and_said(tmp_path):
    session, xs = game_at_mission(tmp_path)
    # Terrorist Group: Carnage -1; X-Force's own modifier, if any, is in the roll shown
    out = xs("xs", "mission", "Terrorist Group", "--roll", "1,1,5,3,4", "--json").stdout
    reply = json.loads(out)
    carnage = next(s for s in reply["steps"] if s["text"].startswith("Carnage roll"))
    if not carnage["text"].endswith("= 0"):
        pytest.skip(f"this deal's modifiers leave carnage: {carnage['text']}")
    assert kinds(xs, 3) == ["mission", "carnage", "casualties"]
    assert reply["ignored_faces"] == ["5", "3", "4"]


def test_picks_a_script_gives_beyond_the_dice_are_ignored_and_said(tmp_path):
    session, xs = game_at_mission(tmp_path)
    xs("xs", "mission", "Zombies", "--roll", "1,1")
    out = xs("xs", "casualties", "--picked", "Ocelot", "--picked", "Smoke", "--picked",
             "Ocelot", "--roll", "4").stdout
    assert "random casualty (picked at the table): Ocelot (XS-17)" in out
    assert "2 picks given not needed, ignored: Smoke, Ocelot (XS-17)" in out


def test_next_compulsory_names_the_step_or_the_decision(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": ["Ocelot", "Phat"]},
                       phase="mission")
    play = Play(state, cat, Dice(None, [1]))
    result = mission.start(play, None, "Zombies")
    assert mission.next_compulsory(Play(result.state, cat, Dice(None))) == ("carnage", "")
    after = mission.carnage(Play(result.state, cat, Dice(None, [3])), None).state
    # no Power card in hand, no sacrifice ability: the casualties are compulsory
    assert mission.next_compulsory(Play(after, cat, Dice(None))) == ("casualties", "")
    powered = make_state(hands={"A": ["Zombies", "Energy Blasts"]},
                         heroes={"A": ["Ocelot", "Phat"]}, phase="mission")
    r = mission.start(Play(powered, cat, Dice(None, [1])), None, "Zombies")
    r = mission.carnage(Play(r.state, cat, Dice(None, [1])), None)
    step, asked = mission.next_compulsory(Play(r.state, cat, Dice(None)))
    assert step == "" and "discard Power cards against it (--power CARD)" in asked
    r = mission.casualties(Play(r.state, cat, Dice(random.Random(1))), None,
                           powers=["Energy Blasts"])
    assert mission.next_compulsory(Play(r.state, cat, Dice(None)))[0] == "success"
    r = mission.success(Play(r.state, cat, Dice(None, [6])), None)
    assert mission.next_compulsory(Play(r.state, cat, Dice(None))) == ("payoff", "")


def test_a_command_refused_with_a_roll_open_pays_nothing(tmp_path):
    """Issue 31 item 5: the paid roll stays open while a hand holds a card (XS-14); `xs next`
    refused for the hand limit changes nothing, not even the open roll (it is not paid,
    the card not drawn): one line, exit 1, the session's bytes as they were."""
    session2 = str(tmp_path / "open.db")

    def xs2(*args: str, expect: int = 0):
        proc = referee("--session", session2, *args)
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
        return proc

    xs2("new", "x-statix", "--players", "A,B", "--owner", "A=Coach", "--roll",
        "6,6,6,6,6,6,6,6,6,5")
    xs2("xs", "draw")
    out = xs2("xs", "draw", "--extra", "--roll", "2").stdout
    assert "the Opportunity roll is open" in out
    before = open(session2, "rb").read()
    refused = xs2("xs", "next", expect=1)
    assert refused.stdout == "" and len(refused.stderr.splitlines()) == 1
    assert "discard 4 first (hand limit 5) (XS-11)" in refused.stderr
    assert open(session2, "rb").read() == before
    state = json.loads(xs2("status", "--json").stdout)["state"]
    assert state["table"]["A"]["hand"] == 8 and state["turn"]["open"]["total"] == 2
    assert "A pays 2 MT for an extra draw" in xs2("xs", "pay").stdout  # paid when told to


def spawn(session: str, *args: str):
    """The real command on a pseudo-terminal (a process: what it asks there is the point)."""
    import pexpect

    return pexpect.spawn(sys.executable, ["-m", "referee", "--session", session, *args],
                         cwd=str(ROOT), env=process_env(), encoding="utf-8", timeout=30)


def test_on_a_terminal_the_skip_guard_asks_instead_of_refusing(tmp_path):
    import pexpect

    session, xs = game_at_mission(tmp_path)
    refused = xs("xs", "discard", "Zombies", expect=1)  # no terminal: refused, --skip named
    assert "add --skip to skip it on purpose" in refused.stderr
    child = spawn(session, "xs", "discard", "Zombies")
    child.expect_exact("that would skip the mission phase, where A has heroes in play and "
                       "may hold a Mission card (xs mission CARD): skip it? [y/N]:")
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    child = spawn(session, "xs", "discard", "Zombies")
    child.expect_exact("skip it? [y/N]:")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "A discards Zombies; hand 5/5 (XS-11)" in child.before


def test_on_a_terminal_the_table_is_asked_once_whether_anyone_changes_the_roll(tmp_path):
    import pexpect

    session, xs = game_at_mission(tmp_path)
    child = spawn(session, "xs", "mission", "Zombies")
    child.expect_exact("Mission roll, 1D6 (Enter: the referee rolls):")
    child.sendline("1")
    child.expect_exact("anyone changing this roll? (Enter: no)")
    child.sendline("")
    child.expect_exact("Carnage roll, 1D6 (Enter: the referee rolls):")
    child.sendline("2")  # then a decision: the chain stops, the roll stays open to changes
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "A may discard Power cards against it" in child.before
    assert kinds(xs, 2) == ["mission", "carnage"]


def test_on_a_terminal_an_open_paid_roll_is_asked_about_and_paid_at_once(tmp_path):
    """XS-2/XS-14: a Recruit roll others could change is asked about once; Enter pays it
    in the same command (the payment and the hero joining told now, two events)."""
    import pexpect

    session = str(tmp_path / "pay.db")
    for args in (["new", "x-statix", "--players", "A,B", "--owner", "A=Coach", "--roll",
                  "6,6,6,6,6,6,6,6,6,5"], ["xs", "draw"], ["xs", "pass"]):
        assert referee("--session", session, *args).returncode == 0
    child = spawn(session, "xs", "recruit", "Smoke")
    child.expect_exact("(Enter: the referee rolls):")
    child.sendline("2")
    child.expect_exact("Recruit roll 2: anyone changing this roll? (Enter: no, it is paid now):")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "A pays 2 MT for recruiting Smoke" in child.before
    assert "Smoke joins A's team" in child.before
    state = json.loads(referee("--session", session, "status", "--json").stdout)["state"]
    assert state["turn"]["open"] is None
    assert [h["name"] for h in state["table"]["A"]["heroes"]] == ["Smoke"]


def test_the_chain_stops_where_the_tables_picks_are_needed(tmp_path):
    """XS-16: with the table's own deck a random casualty is picked at the table: without
    a terminal the chain leaves the casualties to `xs casualties --picked`, said; the
    Mission and Carnage rolls stand and the faces not used are ignored and said."""
    from referee.session import Session

    session, xs = game_at_mission(tmp_path)
    with Session.open(session) as s:  # A holds only the Mission: no decision to make
        st = s.state
        st["table"]["A"]["hand"] = ["Zombies"]
        s.record("mt", "test: A's hand is the Mission card", {}, st)
    out = xs("xs", "mission", "Zombies", "--roll", "1,1,4").stdout
    assert kinds(xs, 2) == ["mission", "carnage"]
    assert "-- next: xs casualties --picked HERO.. (the casualties are picked at the table, " \
           "XS-16)" in out
    assert "-- 1 face given not needed, ignored: 4" in out
    out = xs("xs", "casualties", "--picked", "Ocelot", "--roll", "4,3,5,6").stdout
    # the Sendoff, then the Success roll chained (nothing left to decide), then the Payoff
    assert kinds(xs, 3) == ["casualties", "success", "payoff"]


def test_a_chained_step_without_enough_faces_is_given_up_not_refused(tmp_path, cat):
    """The chain's Payoff with one face of its 2D6: the Success roll stands, the Payoff
    waits for `xs payoff` (said), and the one face is ignored and said."""
    session = str(tmp_path / "payoff.db")

    def xs(*args: str, expect: int = 0):
        proc = referee("--session", session, *args)
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
        return proc

    xs("new", "x-statix", "--players", "A,B", "--owner", "A=Coach", "--team", "A=X-Force",
       "--deal", "referee", "--seed", "5", "--roll", "6,6,6,6,6,6,6,6,6,5")
    state = json.loads(xs("status", "--json").stdout)["state"]
    assert state["table"]["A"]["hand"] == 7
    from referee.session import Session

    with Session.open(session) as s:  # A holds two heroes, a Mission and no Power card
        st = s.state
        st["table"]["A"]["hand"] = ["Smoke", "Ocelot", "Zombies", "Movies", "Movies"]
        st["table"]["B"]["hand"] = []
        st["deck"][0] = "Bush Rangers"  # the free draw: no Power card
        s.record("mt", "test: the hands this test needs", {}, st)
    for args in (["draw"], ["pass"], ["recruit", "Smoke", "--roll", "1"],
                 ["recruit", "Ocelot", "--roll", "1"], ["pass"], ["pass"]):
        xs("xs", *args)
    hand = [c for c in json.loads(xs("xs", "hand", "--player", "A", "--json").stdout)["hand"]
            if cat.type(c) == "Power"]
    if hand:
        pytest.skip(f"the free draw brought a Power card: {hand}")
    # Mission 1, Carnage 1, Ocelot's Sendoff 6 (the referee picks: --deal referee),
    # Success 3: a success; one face of the Payoff's 2D6
    out = xs("xs", "mission", "Zombies", "--roll", "1,1,6,3,4").stdout
    assert kinds(xs, 4) == ["mission", "carnage", "casualties", "success"]
    assert "-- next: xs payoff (" in out, out
    assert "-- 1 face given not needed, ignored: 4" in out, out
