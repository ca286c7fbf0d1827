"""Each X-Statix ruling (XS-2 .. XS-13; XS-1 setup in test_setup.py) with fixed rolls."""

from __future__ import annotations

import pytest

from referee.errors import RefereeError, UsageError
from referee.xs import events, mission, turn
from referee.xs.catalog import Catalog
from tests.referee.xs.xs_support import act, make_state, texts


def run_mission(cat, state, card, faces_mission, faces_carnage, casualties_faces=None,
                success_faces=None, **cas):
    r = act(cat, mission.start, state, None, card, faces=faces_mission)
    r = act(cat, mission.carnage, r.state, None, faces=faces_carnage)
    r = act(cat, mission.casualties, r.state, None, faces=casualties_faces, **cas)
    if success_faces is not None:
        r = act(cat, mission.success, r.state, None, faces=success_faces)
    return r


def test_xs1_setup_deals_owner_team_seven_cards_and_4d6_mt():
    import random

    import carddb
    from referee.xs import game
    from tests.referee.xs.xs_support import ROOT

    db = carddb.load(ROOT / "cards.yaml")
    state = game.new_state(["A", "B", "C"], db, random.Random(2), owners={"B": "Coach"})
    assert state["table"]["B"]["owner"] == "Coach"
    assert len({state["table"][p]["owner"] for p in "ABC"}) == 3
    assert len({state["table"][p]["team"] for p in "ABC"}) == 3
    assert all(len(state["table"][p]["hand"]) == 7 for p in "ABC")
    assert len(state["deck"]) == 79 - 21
    for p in "ABC":
        assert state["table"][p]["mt"] == sum(state["setup"]["mt_rolls"][p])
    last = state["setup"]["first_player_rolls"][-1]
    assert last[state["turn"]["player"]] == max(last.values())
    # the first action of turn 1 makes its free draw (XS-3)
    cat = Catalog.from_db(db)
    r = act(cat, turn.pass_phase, state, None)
    assert len(r.state["table"][state["turn"]["player"]]["hand"]) == 8


def test_xs2_paying_a_roll_pays_the_total(cat):
    state = make_state(hands={"A": ["Ocelot"]}, mt={"A": 5}, phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[4])
    assert r.state["table"]["A"]["mt"] == 1
    assert [h["name"] for h in r.state["table"]["A"]["heroes"]] == ["Ocelot"]
    assert state["table"]["A"]["mt"] == 5  # the input state is untouched


def test_xs2_cannot_pay_pays_nothing_and_the_phase_ends(cat):
    state = make_state(hands={"A": ["Ocelot"]}, mt={"A": 3}, phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[5])
    seat = r.state["table"]["A"]
    assert seat["mt"] == 3 and seat["heroes"] == [] and "Ocelot" in seat["hand"]
    assert r.state["turn"]["phase"] == "publicity"
    assert "cannot pay 5 MT" in texts(r) and "[XS-2]" in texts(r)
    with pytest.raises(RefereeError) as err:
        act(cat, turn.recruit, r.state, None, "Ocelot", faces=[1])
    assert err.value.ruling == "XS-4"


def test_xs2_an_open_roll_that_cannot_be_paid_ends_only_its_phase(cat):
    # The Orphan keeps the roll open; passing settles it: unpaid, recruitment ends, and the
    # pass does not also skip publicity.
    state = make_state(hands={"A": ["Ocelot"]}, heroes={"A": ["The Orphan"]}, mt={"A": 2},
                       phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[5])
    assert r.state["turn"]["open"]["total"] == 5
    r = act(cat, turn.pass_phase, r.state, None)
    assert r.state["turn"]["phase"] == "publicity" and r.state["table"]["A"]["mt"] == 2


def test_xs2_modifiers_never_take_a_cost_below_zero(cat):
    # El Guapo -2 on a Marketing roll of 1 costs 0, not -1.
    state = make_state(hands={"A": ["Movies"]}, heroes={"A": [("El Guapo", 1)]},
                       mt={"A": 0}, phase="publicity")
    r = act(cat, turn.attach, state, None, "Movies", "El Guapo", faces=[1])
    assert r.state["table"]["A"]["mt"] == 0
    assert r.state["table"]["A"]["heroes"][0]["marketing"] == ["Movies"]


def test_xs3_opportunity_extra_draw_costs_a_roll_and_pass_ends(cat):
    state = make_state(mt={"A": 10})
    r = act(cat, turn.buy_draw, state, None, faces=[3])
    assert r.state["table"]["A"]["mt"] == 7 and r.state["table"]["A"]["hand"] == ["Ocelot"]
    r = act(cat, turn.pass_phase, r.state, None)
    assert r.state["turn"]["phase"] == "recruitment"
    with pytest.raises(RefereeError) as err:
        act(cat, turn.buy_draw, r.state, None, faces=[1])
    assert err.value.ruling == "XS-3"


def test_xs3_no_draw_from_an_empty_deck(cat):
    state = make_state(deck=())
    with pytest.raises(RefereeError, match="deck is empty") as err:
        act(cat, turn.buy_draw, state, None, faces=[1])
    assert err.value.ruling == "XS-3"


def test_xs4_recruit_enters_with_one_ft_and_only_heroes(cat):
    state = make_state(hands={"A": ["Ocelot", "Movies"]}, phase="recruitment")
    r = act(cat, turn.recruit, state, None, "Ocelot", faces=[2])
    assert r.state["table"]["A"]["heroes"] == [{"name": "Ocelot", "ft": 1, "marketing": []}]
    with pytest.raises(RefereeError, match="not a Hero") as err:
        act(cat, turn.recruit, state, None, "Movies", faces=[2])
    assert err.value.ruling == "XS-4"


def test_xs5_no_more_marketing_than_ft(cat):
    state = make_state(hands={"A": ["Movies", "PR People"]},
                       heroes={"A": [("Ocelot", 1, ["Media Craze"])]}, phase="publicity")
    with pytest.raises(RefereeError, match="no more marketing than FT") as err:
        act(cat, turn.attach, state, None, "Movies", "Ocelot", faces=[1])
    assert err.value.ruling == "XS-5"


def test_xs6_mission_roll_needs_that_many_heroes_else_not_attempted(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": ["Ocelot", "Phat"]},
                       phase="mission", deck=())
    r = act(cat, mission.start, state, None, "Zombies", faces=[3])
    with pytest.raises(RefereeError, match="not attempted") as err:
        act(cat, mission.carnage, r.state, None, faces=[1])
    assert err.value.ruling == "XS-6"
    r = act(cat, turn.pass_phase, r.state, None)
    assert "Zombies" in r.state["discard"] and "not attempted" in texts(r)
    assert r.state["turn"]["fame"] == []  # nobody went on the mission (XS-9)


def test_xs6_one_mission_a_turn(cat):
    state = make_state(hands={"A": ["Zombies", "Random Killers"]}, heroes={"A": ["Ocelot"]},
                       phase="mission")
    r = act(cat, mission.start, state, None, "Zombies", faces=[6])
    r = act(cat, turn.pass_phase, r.state, None)  # not attempted
    back = dict(r.state, turn=dict(r.state["turn"], phase="mission"))
    with pytest.raises(RefereeError, match="already played a mission") as err:
        act(cat, mission.start, back, None, "Random Killers", faces=[1])
    assert err.value.ruling == "XS-6"


def test_xs7_carnage_kills_random_heroes_who_pay_a_sendoff(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": [("Ocelot", 3, ["Movies"])]},
                       mt={"A": 0}, phase="mission")
    # mission 1, carnage 1, no power: Ocelot dies; Sendoff roll 4
    r = run_mission(cat, state, "Zombies", [1], [1], casualties_faces=[4])
    seat = r.state["table"]["A"]
    assert seat["heroes"] == [] and seat["mt"] == 4
    assert {"Ocelot", "Movies", "Zombies"} <= set(r.state["discard"])  # tokens/cards lost
    assert "no hero survived: the mission fails [XS-8]" in texts(r)


def test_xs7_power_cards_negate_carnage_one_point_each(cat):
    state = make_state(hands={"A": ["Zombies", "Energy Blasts", "Shape Shifting", "Movies"]},
                       heroes={"A": ["Ocelot"]}, phase="mission")
    r = run_mission(cat, state, "Zombies", [1], [2],
                    powers=["Energy Blasts", "Shape Shifting"])
    assert [h["name"] for h in r.state["table"]["A"]["heroes"]] == ["Ocelot"]
    with pytest.raises(RefereeError, match="not a Power") as err:
        run_mission(cat, state, "Zombies", [1], [2], powers=["Movies"])
    assert err.value.ruling == "XS-7"


def test_xs7_carnage_never_below_zero(cat):
    state = make_state(hands={"A": ["Pop Death Song"]}, heroes={"A": ["Ocelot"]},
                       phase="mission")
    r = act(cat, mission.start, state, None, "Pop Death Song", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[1])
    assert r.state["turn"]["mission"]["rolls"]["carnage"]["total"] == 0


def test_xs8_success_roll_adds_survivors_and_pays_2d6(cat):
    state = make_state(hands={"A": ["Zombies", "Energy Blasts"]},
                       heroes={"A": ["Ocelot", "Phat"]}, mt={"A": 0}, phase="mission")
    r = run_mission(cat, state, "Zombies", [1], [1], success_faces=[3], powers=["Energy Blasts"])
    assert r.state["turn"]["mission"]["rolls"]["success"]["total"] == 5  # 3 + 2 survivors
    r = act(cat, mission.payoff, r.state, None, faces=[5, 6])
    assert r.state["table"]["A"]["mt"] == 11


def test_xs8_success_must_be_higher_than_carnage(cat):
    powers = ["Energy Blasts", "Shape Shifting", "Razor-sharp Claws", "Protoplasmic Beams"]
    state = make_state(hands={"A": ["Zombies", *powers]}, heroes={"A": ["Ocelot"]},
                       phase="mission")
    r = run_mission(cat, state, "Zombies", [1], [4], success_faces=[3], powers=powers)
    assert r.state["turn"]["mission"]["rolls"]["success"]["total"] == 4  # 3 + 1 survivor
    with pytest.raises(RefereeError, match="failed") as err:
        act(cat, mission.payoff, r.state, None, faces=[1, 1])
    assert err.value.ruling == "XS-8"
    r = act(cat, turn.pass_phase, r.state, None)
    assert "the mission fails" in texts(r)


def test_xs8_power_cards_discarded_after_the_roll_add_one_each(cat):
    powers = ["Energy Blasts", "Shape Shifting"]
    state = make_state(hands={"A": ["Zombies", *powers, "Razor-sharp Claws"]},
                       heroes={"A": ["Ocelot"]}, phase="mission", mt={"A": 0})
    r = run_mission(cat, state, "Zombies", [1], [2], success_faces=[1], powers=powers)
    with pytest.raises(RefereeError):
        act(cat, mission.payoff, r.state, None, faces=[1, 1])  # 1 + 1 survivor = 2, not > 2
    r = act(cat, mission.boost, r.state, None, powers=["Razor-sharp Claws"])
    assert r.state["turn"]["mission"]["rolls"]["success"]["total"] == 3
    r = act(cat, mission.payoff, r.state, None, faces=[1, 1])
    assert r.state["table"]["A"]["mt"] == 2


def test_xs8_no_survivor_no_success_roll(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": ["Ocelot"]}, phase="mission")
    r = run_mission(cat, state, "Zombies", [1], [3], casualties_faces=[2])
    assert r.state["turn"]["mission"]["stage"] == "done"
    with pytest.raises(RefereeError) as err:
        act(cat, mission.success, r.state, None, faces=[6])
    assert err.value.ruling == "XS-6"


def test_xs9_fame_for_each_survivor_of_a_won_mission(cat):
    powers = ["Energy Blasts", "Shape Shifting"]
    state = make_state(hands={"A": ["Zombies", *powers]},
                       heroes={"A": [("Ocelot", 2), ("Phat", 1)]}, phase="mission")
    r = run_mission(cat, state, "Zombies", [1], [2], success_faces=[1], powers=powers)
    with pytest.raises(RefereeError, match="Payoff"):
        act(cat, turn.pass_phase, r.state, None)  # a won mission is paid first
    r = act(cat, mission.payoff, r.state, None, faces=[1, 1])
    r = act(cat, turn.pass_phase, r.state, None)
    assert {h["name"]: h["ft"] for h in r.state["table"]["A"]["heroes"]} == {"Ocelot": 3, "Phat": 2}
    assert "[XS-9]" in texts(r)


def test_xs9_fame_for_each_survivor_of_a_lost_mission(cat):
    powers = ["Energy Blasts", "Shape Shifting"]
    state = make_state(hands={"A": ["Zombies", *powers]},
                       heroes={"A": [("Ocelot", 1), ("Dead Girl", 1)]}, phase="mission")
    # Carnage 4 - 1 (Dead Girl) = 3, two negated, one random casualty (Sendoff 1)
    r = run_mission(cat, state, "Zombies", [1], [4], success_faces=[1], powers=powers,
                    casualties_faces=[1])
    assert r.state["turn"]["mission"]["rolls"]["success"]["total"] == 2  # not > 3
    survivor = r.state["table"]["A"]["heroes"][0]["name"]
    r = act(cat, turn.pass_phase, r.state, None)
    assert r.state["table"]["A"]["heroes"] == [{"name": survivor, "ft": 2, "marketing": []}]


def test_xs10_fortune_one_mt_per_ft_and_marketing(cat):
    state = make_state(heroes={"A": [("Ocelot", 3, ["Movies", "PR People"]), ("Bloke", 1)]},
                       mt={"A": 0}, phase="mission")
    r = act(cat, turn.pass_phase, state, None)
    assert r.state["turn"]["phase"] == "end"
    assert r.state["table"]["A"]["mt"] == 4 + 2
    assert "Fortune: 4 FT + 2 marketing" in texts(r)


def test_xs11_hand_limit_five_discard_down(cat):
    hand = ["Movies", "PR People", "Media Craze", "Ocelot", "Zombies", "Doop", "Flight"]
    state = make_state(hands={"A": hand}, phase="end")
    with pytest.raises(RefereeError, match="discard 2 first") as err:
        act(cat, turn.next_turn, state, None)
    assert err.value.ruling == "XS-11"
    with pytest.raises(RefereeError, match="only the 2") as err:
        act(cat, turn.discard, state, None, ["Movies", "PR People", "Doop"])
    r = act(cat, turn.discard, state, None, ["Movies", "Doop"])
    with pytest.raises(RefereeError) as err:
        act(cat, turn.discard, r.state, None, ["Flight"])
    assert str(err.value) == "A holds 5 cards, within the hand limit of 5: nothing to discard (XS-11)"
    r = act(cat, turn.next_turn, r.state, None)
    assert r.state["turn"]["player"] == "B" and r.state["turn"]["number"] == 2
    assert len(r.state["table"]["B"]["hand"]) == 1  # B's free draw (XS-3)


def test_xs11_turn_order_is_clockwise_and_others_cannot_act(cat):
    state = make_state(players=("A", "B", "C"), player="C", phase="end")
    with pytest.raises(RefereeError, match="it is C's turn") as err:
        act(cat, turn.next_turn, state, "A")
    assert err.value.ruling == "XS-1"
    r = act(cat, turn.next_turn, state, "C")
    assert r.state["turn"]["player"] == "A"


def test_xs12_event_card_discarded_and_not_counted(cat):
    state = make_state(hands={"A": ["Licensing"]}, mt={"A": 1})
    r = act(cat, events.play_event, state, None, "Licensing")
    assert r.state["table"]["A"]["mt"] == 3 and r.state["discard"] == ["Licensing"]
    with pytest.raises(RefereeError, match="not in A's hand: it is in the discard pile") as err:
        act(cat, events.play_event, r.state, None, "Licensing")
    assert err.value.ruling == "XS-12"
    with pytest.raises(RefereeError, match="no Event ability"):
        act(cat, events.play_event, make_state(hands={"A": ["Movies"]}), None, "Movies")


def test_xs12_event_refusal_is_play_events_own_answer_and_changes_nothing(cat):
    """events.event_refusal (what the balance lab's players ask) gives the very error
    play_event raises, or None when play_event accepts; it changes nothing and draws
    nothing at random, and a card is refused before any of its effects is applied."""
    import copy
    import random

    from referee.xs.play import Play
    from referee.xs.rolls import Dice

    state = make_state(hands={"A": ["Regeneration", "Teleportation", "Shockwave",
                                    "Celebrity Status", "Licensing"]},
                       heroes={"B": ["Phat"]}, phase="end")
    for card, kwargs, refused in [
            ("Regeneration", {}, "no roll open"), ("Teleportation", {}, "no Success roll"),
            ("Shockwave", {}, "no Carnage roll"), ("Celebrity Status", {"target": "C"}, "no player"),
            ("Movies", {}, "not in A's hand"), ("Celebrity Status", {"pick": "Ocelot"}, "not in B"),
            ("Celebrity Status", {}, None), ("Licensing", {}, None)]:
        rng = random.Random(3)
        play = Play(state, cat, Dice(rng))
        before, draws = copy.deepcopy(play.s), rng.getstate()
        refusal = events.event_refusal(play, "A", card, **kwargs)
        assert play.s == before and rng.getstate() == draws
        assert refusal is None if refused is None else refused in str(refusal)
        if refusal is None:
            act(cat, events.play_event, state, None, card, **kwargs)  # accepted
        else:
            with pytest.raises(type(refusal)) as err:
                act(cat, events.play_event, state, None, card, **kwargs)
            assert str(err.value) == str(refusal)


def test_xs12_event_needs_its_moment(cat):
    state = make_state(hands={"A": ["Regeneration", "Teleportation"]}, phase="end")
    with pytest.raises(RefereeError, match="no roll open") as err:
        act(cat, events.play_event, state, None, "Regeneration")
    assert err.value.ruling == "XS-12"
    with pytest.raises(RefereeError, match="no Success roll is left"):
        act(cat, events.play_event, state, None, "Teleportation")


def test_xs13_game_ends_when_the_deck_is_empty_most_mt_wins(cat):
    state = make_state(players=("A", "B", "C"), deck=(), phase="end",
                       mt={"A": 9, "B": 12, "C": 12},
                       heroes={"B": [("Ocelot", 1)], "C": [("Phat", 3)]})
    r = act(cat, turn.next_turn, state, None)
    assert r.state["over"] is True and r.state["winner"] == ["C"]
    from referee.xs.game import status_lines

    shown = "\n".join(status_lines(r.state))
    assert "game over after turn 1" in shown and "1. C: 12 MT, 3 FT" in shown
    assert [(row["player"], row["place"]) for row in r.state["ranking"]] == [
        ("C", 1), ("B", 2), ("A", 3)]
    with pytest.raises(RefereeError) as err:
        act(cat, turn.pass_phase, r.state, None)
    assert err.value.ruling == "XS-13"


def test_xs13_full_tie_is_shared(cat):
    state = make_state(deck=(), phase="end", mt={"A": 7, "B": 7},
                       heroes={"A": [("Ocelot", 2)], "B": [("Phat", 2)]})
    r = act(cat, turn.next_turn, state, None)
    assert r.state["winner"] == ["A", "B"]
    assert [row["place"] for row in r.state["ranking"]] == [1, 1]


def test_xs7_sendoff_rolls_stay_open_until_the_mission_ends(cat):
    state = make_state(hands={"A": ["Zombies", "PR Spin"]},
                       heroes={"A": ["The Orphan", "Ocelot", "Venus Dee Milo"]},
                       mt={"A": 0}, phase="mission")
    state["turn"]["choose_casualties"] = True
    r = act(cat, mission.start, state, None, "Zombies", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[1])
    r = act(cat, mission.casualties, r.state, None, choose=["Ocelot"], faces=[1])
    assert r.state["table"]["A"]["mt"] == 1
    r = act(cat, events.reroll, r.state, None, "The Orphan", sendoff="Ocelot", faces=[5])
    r = act(cat, events.adjust, r.state, None, "Venus Dee Milo", 1, sendoff="Ocelot")
    r = act(cat, events.play_event, r.state, None, "PR Spin", sendoff="Ocelot")
    assert r.state["table"]["A"]["mt"] == 5 + 1 + 3
    with pytest.raises(RefereeError, match="no Sendoff roll") as err:
        act(cat, events.reroll, r.state, None, "The Orphan", sendoff="Venus Dee Milo", faces=[1])
    assert err.value.ruling == "XS-7"


def test_status_shows_the_table(cat):
    from referee.xs.game import status_lines

    state = make_state(hands={"A": ["Zombies", "Movies"]}, heroes={"A": [("Ocelot", 2, ["Doop"])]},
                       owners={"A": "Coach"}, teams={"A": "X-Force"}, mt={"A": 9, "B": 4},
                       phase="mission")
    r = act(cat, mission.start, state, None, "Zombies", faces=[1])
    text = "\n".join(status_lines(r.state))
    assert "turn 1, A's mission phase; deck 6" in text
    assert "*A: 9 MT; owner Coach; team X-Force; 1 card in hand; 1 hero" in text
    assert " B: 4 MT; owner -; team -; 0 cards in hand; 0 heroes" in text
    assert "Ocelot: 2 FT, marketing: Doop" in text and " B: 4 MT" in text
    assert "mission Zombies: Mission roll made (Mission roll 1)" in text


def test_xs6_a_step_after_a_failed_mission_roll_says_why_instead_of_pointing_at_carnage(cat):
    state = make_state(hands={"A": ["Zombies"]}, heroes={"A": ["Ocelot", "Phat"]},
                       phase="mission", deck=())
    r = act(cat, mission.start, state, None, "Zombies", faces=[3])
    for step in (mission.success, mission.payoff):
        with pytest.raises(RefereeError) as err:
            act(cat, step, r.state, None, faces=[1, 1])
        assert "Zombies needs 3 heroes and A has 2: the mission is not attempted" in str(err.value)
        assert "xs carnage" not in str(err.value) and err.value.ruling == "XS-6"


def test_xs8_a_boost_after_the_payoff_says_the_payoff_is_made(cat):
    state = make_state(hands={"A": ["Zombies", "Energy Blasts"]},
                       heroes={"A": ["Ocelot", "Phat"]}, phase="mission")
    r = run_mission(cat, state, "Zombies", [1], [1], success_faces=[3])
    r = act(cat, mission.payoff, r.state, None, faces=[5, 6])
    with pytest.raises(RefereeError) as err:
        act(cat, mission.boost, r.state, None, powers=["Energy Blasts"])
    assert str(err.value) == ("cannot add to the Success roll now: the Payoff roll is made; "
                              "the mission ends with the phase (xs pass) (XS-6)")


def test_xs16_a_pick_refusal_reads_the_same_for_a_card_in_the_deck_and_in_another_hand(cat):
    """Acid Spray: B chooses the card B discards (--pick). A card B does not hold is "not
    available", in the same words whether it is in the deck or in C's hand: a refusal
    never tells where a hidden card is (issue 14 item 2)."""
    state = make_state(players=("A", "B", "C"), hands={"A": ["Acid Spray"], "B": ["Orbit"],
                                                       "C": ["Lacuna"]},
                       deck=("Ocelot", "Movies"))
    refusals = []
    for hidden in ("Ocelot", "Lacuna", "Zeitgeist"):  # in the deck, in C's hand, nowhere
        with pytest.raises(RefereeError) as err:
            act(cat, events.play_event, state, None, "Acid Spray", target="B", pick=hidden)
        refusals.append(str(err.value).replace(hidden, "CARD"))
    assert refusals[0] == refusals[1] == refusals[2]
    assert "not available" in refusals[0] and "deck" not in refusals[0]
    assert "C's" not in refusals[0]
    done = act(cat, events.play_event, state, None, "Acid Spray", target="B", pick="Orbit")
    assert done.state["discard"] == ["Acid Spray", "Orbit"]


def at_table(cat, fn, state, *args, faces=None, skip=False, **kwargs):
    """An action as typed at a table (the CLI): the slip guards on."""
    import random

    from referee.xs.play import Play
    from referee.xs.rolls import Dice

    play = Play(state, cat, Dice(random.Random(0), faces), at_table=True, skip=skip)
    return fn(play, *args, **kwargs)


def test_xs6_a_skipped_mission_is_refused_without_skip(cat):
    """Issue 14 item 5: an End-phase command typed while a mission could still be played
    (heroes in play, a Mission card in hand) is refused in one line naming the phase and
    --skip; with --skip, or after `xs pass`, it goes ahead."""
    state = make_state(hands={"A": ["Zombies", "Orbit", "Lacuna", "Movies", "Ocelot", "PR Spin",
                                    "Interviews"]},
                       heroes={"A": ["Phat"]}, phase="publicity", deck=("Media Craze",))
    for fn, args in ((turn.discard, (["Orbit"],)), (turn.next_turn, ())):
        with pytest.raises(RefereeError) as err:
            at_table(cat, fn, state, None, *args)
        assert "skip the mission phase" in str(err.value) and "--skip" in str(err.value)
        assert err.value.ruling == "XS-6" and "\n" not in str(err.value)
    skipped = at_table(cat, turn.discard, state, None, ["Orbit", "Lacuna"], skip=True)
    assert skipped.state["turn"]["phase"] == "end"
    passed = at_table(cat, turn.pass_phase, state, None)  # publicity over: mission phase
    passed = at_table(cat, turn.pass_phase, passed.state, None)  # the mission passed
    assert at_table(cat, turn.discard, passed.state, None, ["Orbit", "Lacuna"]).state
    no_heroes = make_state(hands={"A": ["Zombies"]}, phase="publicity")
    assert at_table(cat, turn.next_turn, no_heroes, None).state["turn"]["player"] == "B"


def test_xs3_the_free_draw_is_its_own_step_at_the_table(cat):
    state = make_state(hands={"A": ["Lacuna"]}, deck=("Ocelot", "Movies", "Zombies"))
    state["turn"]["free_drawn"] = False
    with pytest.raises(RefereeError, match="free card: xs draw"):
        at_table(cat, turn.recruit, state, None, "Lacuna", faces=[1])
    with pytest.raises(RefereeError, match="free card: xs draw"):
        at_table(cat, turn.buy_draw, state, None, faces=[1])
    drawn = at_table(cat, turn.draw, state, None)
    assert len(drawn.state["table"]["A"]["hand"]) == 2 and drawn.state["turn"]["free_drawn"]
    with pytest.raises(RefereeError, match=r"xs draw --extra \(or xs buy\)"):
        at_table(cat, turn.draw, drawn.state, None)
    bought = at_table(cat, turn.buy_draw, drawn.state, None, faces=[2])
    bought = at_table(cat, turn.pay_now, bought.state, None)  # open while A holds cards
    assert len(bought.state["table"]["A"]["hand"]) == 3
    ended = at_table(cat, turn.next_turn, bought.state, None)
    assert not ended.state["turn"]["free_drawn"] and ended.state["turn"]["player"] == "B"
    assert "B draws the free card first (xs draw)" in texts(ended)


# ── XS-16: the table's own deck ──────────────────────────────────────────────
def test_xs16_a_card_is_named_when_shown_and_checked_against_what_is_known(cat):
    """With the table's own deck the referee counts hidden cards and names each one when
    it is shown: a card already in play, in the discard pile, or a second copy of a
    unique card is refused; so is a fourth card named from a hand of three."""
    state = make_state(hidden={"A": 3, "B": 4}, heroes={"B": ["Lacuna"]},
                       discard=["Movies"], phase="recruitment", deck=("x",) * 10)
    with pytest.raises(RefereeError, match="Lacuna cannot be in A's hand: it is in play on "
                                           "B's team") as err:
        act(cat, turn.recruit, state, None, "Lacuna", faces=[1])
    assert err.value.ruling == "XS-4"
    with pytest.raises(RefereeError, match="Movies cannot be in A's hand: it is in the discard"):
        act(cat, events.play_event, state, None, "Movies")
    recruited = act(cat, turn.recruit, state, None, "Ocelot", faces=[1])
    assert recruited.state["table"]["A"]["hand"] == ["Ocelot", "?", "?"]  # shown, roll open
    assert "an event card from A's hand may change it" in texts(recruited)
    recruited = act(cat, turn.pay_now, recruited.state, None)
    assert recruited.state["table"]["A"]["hand"] == ["?", "?"]
    assert [h["name"] for h in recruited.state["table"]["A"]["heroes"]] == ["Ocelot"]
    bs_turn = {**recruited.state, "turn": {**recruited.state["turn"], "player": "B"}}
    with pytest.raises(RefereeError, match="Ocelot cannot be in B's hand: it is in play on "
                                           "A's team"):
        act(cat, turn.recruit, bs_turn, "B", "Ocelot", faces=[1])  # a second copy
    with pytest.raises(RefereeError, match="not a card of the deck"):
        act(cat, turn.recruit, state, None, "Coach", faces=[1])

    powers = ["Energy Blasts", "Healing Powers", "Flight", "Teleportation"]
    three = make_state(hidden={"A": 3}, heroes={"A": ["Ocelot", "Phat"]}, phase="mission",
                       deck=("x",) * 10)
    three["turn"]["missions"] = 1
    three["turn"]["mission"] = {"card": "Zombies", "stage": "carnage", "team": ["Ocelot", "Phat"],
                                "rolls": {"carnage": {"kind": "carnage", "faces": [6],
                                                      "mods": [], "used": [], "context": {},
                                                      "total": 6}}, "discarded": False}
    with pytest.raises(RefereeError, match="A holds 3 cards, all named already: Energy Blasts, "
                                           "Healing Powers, Flight; Teleportation would be one"):
        act(cat, mission.casualties, three, None, powers=powers, faces=[6, 6])
    ok = act(cat, mission.casualties, three, None, powers=powers[:3], faces=[],
             picked=["Ocelot", "Phat"])  # the table picks the casualties (XS-16)
    assert ok.state["table"]["A"]["hand"] == [] and set(powers[:3]) <= set(ok.state["discard"])


def test_xs16_draws_are_counted_and_the_deck_empties_by_count(cat):
    state = make_state(hidden={"A": 1, "B": 1}, deck=("x", "x"))
    state["turn"]["free_drawn"] = False
    drawn = act(cat, turn.draw, state, None)
    assert drawn.state["table"]["A"]["hand"] == ["?", "?"] and drawn.state["deck"] == ["?"]
    bought = act(cat, turn.pay_now, act(cat, turn.buy_draw, drawn.state, None, faces=[1]).state,
                 None)
    assert bought.state["deck"] == [] and len(bought.state["table"]["A"]["hand"]) == 3
    with pytest.raises(RefereeError, match="deck is empty"):
        act(cat, turn.buy_draw, bought.state, None, faces=[1])
    over = act(cat, turn.next_turn, bought.state, None)
    assert over.state["over"] and "the deck is empty: the game ends" in texts(over)


def test_xs14_an_event_on_an_open_roll_in_another_players_turn(cat):
    """XS-14: B plays Regeneration on A's Carnage roll during A's turn; the card leaves
    B's hand; an event that applies to no open roll, or a card B does not hold, is
    refused."""
    state = make_state(hands={"A": ["Zombies"], "B": ["Regeneration", "Licensing"]},
                       heroes={"A": ["Ocelot"]}, phase="mission")
    started = act(cat, mission.start, state, None, "Zombies", faces=[1])
    with pytest.raises(RefereeError, match="the open roll is the Mission roll") as err:
        act(cat, events.play_event, started.state, "B", "Regeneration", faces=[1])
    assert err.value.ruling == "XS-14"
    rolled = act(cat, mission.carnage, started.state, None, faces=[6])
    changed = act(cat, events.play_event, rolled.state, "B", "Regeneration", faces=[1])
    assert changed.state["turn"]["mission"]["rolls"]["carnage"]["total"] == 1
    assert changed.state["table"]["B"]["hand"] == ["Licensing"]
    assert changed.state["turn"]["player"] == "A" and "in A's turn" in texts(changed)
    with pytest.raises(RefereeError, match="only an open roll it applies to"):
        act(cat, events.play_event, rolled.state, "B", "Licensing")
    with pytest.raises(RefereeError, match="not in B's hand: it is not available"):
        act(cat, events.reroll, rolled.state, "B", "Freeze Time", faces=[1])
    with pytest.raises(RefereeError, match="it is A's turn"):  # hero abilities: own turn only
        act(cat, turn.pass_phase, rolled.state, "B")


def test_xs14_a_payoff_changed_by_an_opponent_corrects_the_active_players_mt(cat):
    state = make_state(hands={"A": ["Zombies"], "B": ["Freeze Time"]},
                       heroes={"A": ["Ocelot", "Phat"]}, phase="mission", mt={"A": 0})
    r = act(cat, mission.start, state, None, "Zombies", faces=[1])
    r = act(cat, mission.carnage, r.state, None, faces=[1])
    r = act(cat, mission.casualties, r.state, None, faces=[4])
    r = act(cat, mission.success, r.state, None, faces=[6])
    r = act(cat, mission.payoff, r.state, None, faces=[6, 6])
    assert r.state["table"]["A"]["mt"] == 4 + 12  # the casualty's Sendoff, the Payoff
    r = act(cat, events.play_event, r.state, "B", "Freeze Time", faces=[1, 1])
    assert r.state["table"]["A"]["mt"] == 4 + 2 and r.state["table"]["B"]["hand"] == []


def test_xs14_at_a_table_a_paid_roll_waits_for_every_player_who_could_change_it(cat):
    """A's Recruit roll stays open while B holds a card that rerolls it (XS-14), told
    without naming it; it waits for any hand holding a card (whether a roll waits must
    not tell what a hand holds); with no card in any other hand it is paid at once."""
    state = make_state(hands={"A": ["Lacuna"], "B": ["Freeze Time"]}, phase="recruitment")
    opened = at_table(cat, turn.recruit, state, None, "Lacuna", faces=[2])
    assert opened.state["turn"]["open"] and "an event card from B's hand" in texts(opened)
    assert "Freeze Time" not in texts(opened)
    rerolled = at_table(cat, events.play_event, opened.state, "B", "Freeze Time", faces=[1])
    paid = at_table(cat, turn.pay_now, rerolled.state, None)
    assert paid.state["table"]["A"]["mt"] == 19
    waits = make_state(hands={"A": ["Lacuna"], "B": ["Movies"]}, phase="recruitment")
    assert at_table(cat, turn.recruit, waits, None, "Lacuna", faces=[2]).state["turn"]["open"]
    alone = make_state(hands={"A": ["Lacuna"], "B": []}, phase="recruitment")  # nobody can
    assert not at_table(cat, turn.recruit, alone, None, "Lacuna", faces=[2]).state["turn"]["open"]


def test_xs16_no_pick_of_a_random_hidden_card_in_a_referee_dealt_game(cat):
    """Chameleon Powers steals a random card: with the referee's deal the referee picks,
    and a --pick is refused in the same words whether B holds the card or not (no probe)."""
    state = make_state(hands={"A": ["Chameleon Powers"], "B": ["Orbit"]})
    refusals = set()
    for pick in ("Orbit", "Lacuna"):
        with pytest.raises(UsageError) as err:
            act(cat, events.play_event, state, None, "Chameleon Powers", pick=pick)
        refusals.add(str(err.value))
    assert len(refusals) == 1 and "no --pick" in refusals.pop()
    stolen = act(cat, events.play_event, state, None, "Chameleon Powers")
    assert stolen.state["table"]["A"]["hand"] == ["Orbit"]
