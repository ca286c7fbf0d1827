"""XS-16: with the table's own deck (the default of `referee new x-statix`) a random pick
(a random casualty, XS-7; Celebrity Status's hero) is made at the table and entered: given
with --picked, or asked for by name on a terminal like a die (Enter = the referee picks
it and says so); without a terminal and not given, exit 2 naming the pick, nothing
changed. With `--deal referee` the referee still picks (the referee-dealt games of
test_cli_game.py resolve their casualties without --picked)."""

from __future__ import annotations

import json
import re
import sys

from tests.harness import ROOT, process_env
from tests.referee.xs.xs_support import referee, without_clock


def game_at_casualties(tmp_path, *deal: str):
    """A at the casualties of Zombies with Smoke and Ocelot, one carnage point to take."""
    session = str(tmp_path / "picks.db")

    def xs(*args: str, expect: int = 0):
        proc = referee("--session", session, *args)
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
        return proc

    xs("new", "x-statix", "--players", "A,B", "--owner", "A=Coach", "--team", "A=X-Force",
       *deal, "--roll", "6,6,6,6,6,6,6,6,6,5")
    for args in (["draw"], ["pass"], ["recruit", "Smoke", "--roll", "1"],
                 ["recruit", "Ocelot", "--roll", "1"], ["pass"], ["pass"],
                 ["mission", "Zombies", "--roll", "1"], ["carnage", "--roll", "1"]):
        xs("xs", *args)
    return session, xs


def team(xs) -> list[str]:
    state = json.loads(xs("status", "--json").stdout)["state"]
    return [h["name"] for h in state["table"]["A"]["heroes"]]


def test_xs16_a_random_casualty_not_given_without_a_terminal_exits_2_naming_the_pick(tmp_path):
    session, xs = game_at_casualties(tmp_path)
    before = without_clock(xs("status", "--json").stdout)
    refused = xs("xs", "casualties", expect=2)
    assert ("the next pick needed: Carnage casualty, one of Smoke, Ocelot; pick it at the "
            "table and give it with --picked (XS-16; nothing was changed)") in refused.stderr
    assert without_clock(xs("status", "--json").stdout) == before
    as_json = json.loads(xs("xs", "casualties", "--json", expect=2).stdout)
    assert as_json["ok"] is False and "Carnage casualty, one of Smoke, Ocelot" in as_json["error"]
    assert without_clock(xs("status", "--json").stdout) == before


def test_xs16_the_casualty_picked_at_the_table_is_the_one_killed(tmp_path):
    session, xs = game_at_casualties(tmp_path)
    done = xs("xs", "casualties", "--picked", "Ocelot", "--roll", "3")
    assert "random casualty (picked at the table): Ocelot (XS-17)" in done.stdout
    assert team(xs) == ["Smoke"]
    xs("undo")
    xs("xs", "casualties", "--picked", "Smoke", "--roll", "2,3")  # he dies on a 2
    assert team(xs) == ["Ocelot"]


def test_xs16_the_pick_is_asked_by_name_on_a_terminal_like_a_die(tmp_path):
    """On a pseudo-terminal the pick is asked for with its options, then the dice it
    leads to; Enter at the pick lets the referee pick it, and it says so."""
    import pexpect

    session, xs = game_at_casualties(tmp_path)

    def at_terminal(*answers: tuple[str, str | None]) -> str:
        # a process on a pseudo-terminal: the questions asked there are the point
        child = pexpect.spawn(sys.executable, ["-m", "referee", "--session", session, "xs",
                                               "casualties"],
                              cwd=str(ROOT), env=process_env(), encoding="utf-8", timeout=30)
        for prompt, answer in answers:
            child.expect_exact(prompt)
            if answer is not None:  # None: a line the referee prints, nothing to type
                child.sendline(answer)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0, child.before
        return child.before

    pick = "Carnage casualty, one of Smoke, Ocelot (Enter: the referee picks):"
    sendoff = "Ocelot's Sendoff roll, 1D6 (Enter: the referee rolls):"
    told = at_terminal((pick, "wolverine"), ("'wolverine': one of Smoke, Ocelot", None),
                       (pick, "ocelot"), (sendoff, "4"))
    assert "random casualty: Ocelot" in told
    assert team(xs) == ["Smoke"]
    xs("undo")
    # Enter at the pick; then every die asked for (one or two: Smoke may survive) the
    # referee's too (on a pseudo-terminal, as above)
    child = pexpect.spawn(sys.executable, ["-m", "referee", "--session", session, "xs",
                                           "casualties"],
                          cwd=str(ROOT), env=process_env(), encoding="utf-8", timeout=30)
    child.expect_exact(pick)
    child.sendline("")
    told = ""
    while child.expect_exact(["(Enter: the referee rolls):", pexpect.EOF]) == 0:
        told += child.before
        child.sendline("")
    told += child.before
    child.close()
    assert child.exitstatus == 0, told
    assert re.search(r"the referee picks (Smoke|Ocelot) for Carnage casualty, one of Smoke, "
                     "Ocelot", told)


def test_xs16_celebrity_status_and_tv_talk_show_pick_the_hero_at_the_table(cat):
    """The random Hero of Celebrity Status (steal) and TV Talk Show (discard) is picked at
    the table with the table's own deck: not given (no terminal), refused naming the pick
    and its options; given with --pick, that hero is the one taken."""
    import pytest

    from referee.errors import UsageError
    from referee.xs import events
    from tests.referee.xs.xs_support import act, make_state

    state = make_state(hidden={"A": 2, "B": 2}, heroes={"B": ["Phat", "Ocelot"]}, phase="end")
    for card in ("Celebrity Status", "TV Talk Show"):
        with pytest.raises(UsageError, match=f"the next pick needed: {card}: B's hero, one of "
                                             "Phat, Ocelot; pick it at the table and give it "
                                             r"with --pick \(XS-16"):
            act(cat, events.play_event, state, None, card)
    stolen = act(cat, events.play_event, state, None, "Celebrity Status", pick="Ocelot").state
    assert [h["name"] for h in stolen["table"]["A"]["heroes"]] == ["Ocelot"]
    assert [h["name"] for h in stolen["table"]["B"]["heroes"]] == ["Phat"]
    gone = act(cat, events.play_event, state, None, "TV Talk Show", pick="Phat").state
    assert [h["name"] for h in gone["table"]["B"]["heroes"]] == ["Ocelot"]
