"""The X-Statix referee's messages (issue 13, item 13): every message that counts
something, rendered with 0, 1 and 2; what the steps say after a roll changes; and nothing
told that does not happen (another turn after the game is over)."""

from __future__ import annotations

import random
import re

import pytest

from referee.dice import TableDice, roll_d6
from referee.errors import DiceError, RefereeError, UsageError
from referee.notation import parse
from referee.notation import roll as roll_expr
from referee.xs import events, mission, turn
from referee.xs.game import status_lines
from referee.xs.rolls import Dice
from tests.referee.xs.xs_support import act, make_state, referee, texts

# Counted nouns gone wrong: "1 cards", "2 card", "(s)", "no an happens"...
WRONG = re.compile(r"\b1 (cards|heroes|points|dice|faces|marketing cards|carnage points)\b"
                   r"|\b([02-9]|\d\d+) (card|hero|point|die|face|marketing card|carnage point)\b"
                   r"|\(s\)|\(es\)|no an\b")


def assert_grammar(text: str) -> None:
    assert not WRONG.search(text), text


@pytest.mark.parametrize("n, told", [
    (0, "Dark Cloak Aura: the deck is empty"),
    (1, "Dark Cloak Aura: the deck holds only 1 card"),
    (2, "Dark Cloak Aura: A draws 2 cards"),
])
def test_xs3_draw_messages_count_the_cards(cat, n, told):
    deck = ("Ocelot", "Movies")[:n]
    r = act(cat, events.play_event, make_state(hands={"A": ["Dark Cloak Aura"]}, deck=deck),
            None, "Dark Cloak Aura")
    assert told in texts(r)
    assert_grammar(texts(r))
    if n == 1:
        assert "Dark Cloak Aura: A draws 1 card [XS-12]" in texts(r)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_xs6_mission_messages_count_the_heroes(cat, n):
    heroes = ["Ocelot", "Phat"][:n]
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": heroes}, phase="mission")
    r = act(cat, mission.start, state, None, "Zombies", faces=[n or 1])
    told = texts(r)
    assert_grammar(told)
    assert f"with {['0 heroes', '1 hero', '2 heroes'][n]}" in told
    assert f"Mission roll {n or 1}: {['1 hero', '1 hero', '2 heroes'][n]} needed, A has {n}" in told
    if n == 0:  # not attempted
        with pytest.raises(RefereeError) as err:
            act(cat, mission.carnage, r.state, None, faces=[1])
        assert "Zombies needs 1 hero and A has 0" in str(err.value)
        assert_grammar(str(err.value))
        passed = act(cat, turn.pass_phase, r.state, None)
        assert "Zombies is not attempted: 1 hero needed, A has 0" in texts(passed)


@pytest.mark.parametrize("left", [0, 1, 2])
def test_xs7_carnage_messages_count_the_points_and_the_lost(cat, left):
    state = make_state(hands={"A": ["Zombies", "Healing Powers", "Energy Blasts"]},
                       heroes={"A": ["Ocelot", "Phat", "Bloke"]}, phase="mission", mt={"A": 0})
    r = act(cat, mission.start, state, None, "Zombies", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[left + 3])
    r = act(cat, mission.casualties, r.state, None, powers=["Healing Powers", "Energy Blasts"],
            picked=["Ocelot", "Phat"][:left], faces=[1] * left)
    told = texts(r)
    assert_grammar(told + r.summary)
    assert "Healing Powers discarded: negates 2 carnage points" in told
    assert "Energy Blasts discarded: negates 1 carnage point [XS-7]" in told
    assert f"{left} carnage {'point' if left == 1 else 'points'} not negated" in told
    assert r.summary.endswith(f"{left} {'hero' if left == 1 else 'heroes'} lost")
    assert ("survivor: Bloke" if left == 2 else "survivors: ") in told


@pytest.mark.parametrize("n", [0, 1, 2])
def test_xs9_fame_says_gains_for_one_and_gain_for_two(cat, n):
    state = make_state(heroes={"A": ["Ocelot", "Phat"]}, phase="mission")
    state["turn"]["fame"] = ["Ocelot", "Phat"][:n]
    told = texts(act(cat, turn.pass_phase, state, None))
    assert {0: "Fame: no hero went on a mission this turn",
            1: "Fame: Ocelot (2 FT) gains 1 FT",
            2: "Fame: Ocelot (2 FT), Phat (2 FT) gain 1 FT"}[n] in told


@pytest.mark.parametrize("n", [0, 1, 2])
def test_xs12_a_looked_at_hand_is_counted(cat, n):
    state = make_state(hands={"A": ["Sense Vulnerability"], "B": ["Movies", "Doop"][:n]})
    told = texts(act(cat, events.play_event, state, None, "Sense Vulnerability"))
    assert f"A looks at B's hand ({n} {'card' if n == 1 else 'cards'})" in told


@pytest.mark.parametrize("over", [1, 2])
def test_xs11_end_phase_discard_messages(cat, over):
    hand = ["Movies", "PR People", "Media Craze", "Ocelot", "Zombies", "Doop", "Flight"][:5 + over]
    state = make_state(hands={"A": hand}, phase="end")
    with pytest.raises(RefereeError) as err:
        act(cat, turn.discard, state, None, hand[:over + 1])
    assert str(err.value) == {
        1: "A holds 6 cards: only the 1 card over the hand limit of 5 is discarded (XS-11)",
        2: "A holds 7 cards: only the 2 cards over the hand limit of 5 are discarded (XS-11)",
    }[over]
    r = act(cat, turn.discard, state, None, hand[:over])
    assert r.summary == f"A discards {over} {'card' if over == 1 else 'cards'}"
    with pytest.raises(RefereeError, match="A holds 1 card, within"):
        act(cat, turn.discard, make_state(hands={"A": ["Movies"]}, phase="end"), None,
            ["Movies"])


@pytest.mark.parametrize("ft, would", [(0, "would hold 1 marketing card"),
                                       (1, "would hold 2 marketing cards")])
def test_xs5_marketing_room_counts_the_cards(cat, ft, would):
    marketing = ["Doop"] if ft else []
    state = make_state(hands={"A": ["Movies"]}, heroes={"A": [("Ocelot", ft, marketing)]},
                       phase="publicity")
    with pytest.raises(RefereeError, match=would):
        act(cat, turn.attach, state, None, "Movies", "Ocelot", faces=[1])


@pytest.mark.parametrize("n, told", [(1, "1 die face given was not needed"),
                                     (2, "2 dice faces given were not needed")])
def test_table_faces_left_over_are_counted(cat, n, told):
    dice = Dice(random.Random(0), [1] * n)
    with pytest.raises(UsageError, match=told):
        dice.check_used()


def test_core_roll_messages_count_dice_and_faces():
    with pytest.raises(DiceError, match="1 face entered in '3', but 2d6 has 2 dice"):
        roll_expr(parse("2d6"), None, "3")
    with pytest.raises(DiceError, match="2 faces entered in '3,4', but 1d6 has 1 die"):
        roll_expr(parse("1d6"), None, "3,4")
    with pytest.raises(DiceError, match="1 face given, but the command rolls at least 2 dice"):
        roll_d6(2, TableDice("3", random.Random(0)))


def test_core_setup_roll_left_over_is_counted(tmp_path):
    faces = ",".join(["1"] * 8 + ["6", "1", "2"])  # 4D6 each, the first-player rolls, one more
    proc = referee("--session", str(tmp_path / "g.db"), "new", "x-statix",
                             "--players", "A,B", "--roll", faces)
    assert proc.returncode == 2
    assert "setup rolled 10 dice, 1 face left over" in proc.stderr


def test_the_orphans_use_is_once_a_turn(cat):
    state = make_state(hands={"A": ["Ocelot"]}, heroes={"A": ["The Orphan"]}, phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[5])
    r = act(cat, events.reroll, r.state, None, "The Orphan", faces=[4])
    with pytest.raises(RefereeError, match="The Orphan's ability is used once a turn"):
        act(cat, events.reroll, r.state, None, "The Orphan", faces=[3])


# ── a changed roll says again what it means ─────────────────────────────────────
def success_made(cat, hand=()):
    """Carnage 3, two points negated, Ocelot killed: Plazm's Success roll 1 + 1 = 2."""
    powers = ["Energy Blasts", "Shape Shifting"]
    state = make_state(hands={"A": ["Zombies", *powers, *hand]}, heroes={"A": ["Plazm", "Ocelot"]},
                       phase="mission")
    r = act(cat, mission.start, state, None, "Zombies", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[3])
    r = act(cat, mission.casualties, r.state, None, powers=powers, picked=["Ocelot"], faces=[1])
    return act(cat, mission.success, r.state, None, faces=[1])


def test_xs8_a_rerolled_success_roll_is_compared_with_carnage_again(cat):
    r = act(cat, events.reroll, success_made(cat).state, None, "Plazm", faces=[6])
    assert "(1 -> 6): Success roll 6 +1 (survivors) = 7 against Carnage 3: success" in texts(r)
    r = act(cat, events.play_event, success_made(cat, ["Control Body Mass"]).state, None,
            "Control Body Mass", faces=[2])
    assert "Success roll 2 +1 (survivors) = 3 against Carnage 3: not higher" in texts(r)
    r = act(cat, events.play_event, success_made(cat, ["Teleportation"]).state, None,
            "Teleportation")
    assert "= 4 against Carnage 3: success" in texts(r)


def test_xs6_an_adjusted_mission_roll_says_again_how_many_heroes_it_needs(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": ["Venus Dee Milo"]},
                       phase="mission")
    r = act(cat, mission.start, state, None, "Zombies", faces=[2])
    r = act(cat, events.adjust, r.state, None, "Venus Dee Milo", -1)
    assert "Venus Dee Milo gives -1: Mission roll 2 -1 (Venus Dee Milo) = 1: 1 hero needed, " \
           "A has 1" in texts(r)


def test_xs13_no_other_turn_is_told_once_the_game_is_over(cat):
    state = make_state(hands={"A": ["Sensationalism"]}, phase="end", deck=())
    r = act(cat, events.play_event, state, None, "Sensationalism")
    r = act(cat, turn.next_turn, r.state, None)
    assert r.state["over"]
    shown = texts(r) + "\n".join(status_lines(r.state))
    assert "another turn" not in shown
    assert "A is to start a turn and the deck is empty: the game ends" in shown
    assert "Game over: A and B win (XS-13)" in shown and "winners: A and B" in shown


def test_xs8_sluk_killed_in_the_end_phase_gives_no_success_bonus_it_cannot_have(cat):
    state = make_state(heroes={"A": ["Sluk", "Ocelot"]}, owners={"A": "Coach"}, phase="end")
    r = act(cat, turn.end_phase_kill, state, None, "Sluk", faces=[3])
    assert "Sluk killed: no Success roll is left this turn for its +2 [XS-8]" in texts(r)
    assert "+2 to the Success roll" not in texts(r) and r.state["turn"]["queued"] == []


def test_xs12_an_event_modifier_says_what_it_gives(cat):
    state = make_state(hands={"A": ["Zombies", "Telekinesis"]}, heroes={"A": ["Ocelot"]},
                       phase="mission")
    r = act(cat, mission.start, state, None, "Zombies", faces=[2])
    r = act(cat, events.play_event, r.state, None, "Telekinesis")
    assert ("Telekinesis gives -1: Mission roll 2 -1 (Telekinesis) = 1: 1 hero needed, A has 1 "
            "[XS-12]") in texts(r)


def test_xs9_fame_tells_a_mission_lost_with_every_hero_from_no_mission(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": [("Ocelot", 1, ["Movies"])]},
                       phase="mission")
    r = act(cat, mission.start, state, None, "Zombies", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[1])
    r = act(cat, mission.casualties, r.state, None, faces=[2])
    assert "Ocelot leaves play; 1 FT lost; Movies discarded [XS-7]" in texts(r)
    assert "Fame: no hero survived the mission [XS-9]" in texts(act(cat, turn.pass_phase,
                                                                    r.state, None))


def test_xs13_three_winners_are_listed(cat):
    state = make_state(players=("A", "B", "C"), phase="end", deck=())
    r = act(cat, turn.next_turn, state, None)
    assert "winners: A, B and C [XS-13]" in texts(r)
    assert "Game over: A, B and C win (XS-13)" in status_lines(r.state)
    with pytest.raises(RefereeError, match="the game is over: A, B and C won"):
        act(cat, turn.pass_phase, r.state, None)


def test_xs14_an_open_roll_at_the_table_names_who_may_change_it_once_in_turn_order(tmp_path):
    # At the table every hand may hold an event for the roll (XS-16: nothing is told of a
    # hand), so the open Recruit roll waits for all three players, in turn order from the
    # active player (XS-14), told in one phrase.
    session = str(tmp_path / "table.db")

    def run(*args):
        proc = referee("--session", session, *args)
        assert proc.returncode == 0, (args, proc.stderr)
        return proc.stdout

    run("new", "x-statix", "--players", "Ann,Bob,Cy", "--seed", "3")
    run("xs", "draw")
    run("xs", "pass")
    told = run("xs", "recruit", "Lacuna", "--roll", "3")
    found = re.search(r"an event card from (\w+)'s, (\w+)'s or (\w+)'s hand may change it", told)
    assert found, told
    seats = ["Ann", "Bob", "Cy"]
    first = seats.index(found.group(1))
    assert list(found.groups()) == seats[first:] + seats[:first]
    assert_grammar(told)
