"""Random play through the rules engine: whatever a player tries, the referee either
refuses (RefereeError/UsageError, state unchanged) or moves to a state that keeps the
game's invariants: each card exists once, MT never below 0, no hero holds more marketing
than FT (XS-5), and every game ends with the deck empty and a ranking (XS-13)."""

from __future__ import annotations

import random

import pytest

import carddb
from referee.errors import RefereeError, UsageError
from referee.xs import events, game, mission, turn
from referee.xs.catalog import Catalog
from referee.xs.play import Play
from referee.xs.rolls import Dice
from tests.referee.xs.xs_support import ROOT


def candidates(state: dict, cat: Catalog, rng: random.Random) -> list[tuple]:
    me = state["turn"]["player"]
    seat = state["table"][me]
    hand, heroes = seat["hand"], [h["name"] for h in seat["heroes"]]
    others = [p for p in state["players"] if p != me]
    all_heroes = [h["name"] for p in state["players"] for h in state["table"][p]["heroes"]]
    powers = [c for c in hand if cat.type(c) == "Power"]
    some = lambda xs: rng.sample(xs, rng.randint(0, min(3, len(xs)))) if xs else []  # noqa: E731
    acts = [(turn.draw, None), (turn.pass_phase, None), (turn.pay_now, None),
            (turn.next_turn, None), (mission.carnage, None), (mission.payoff, None),
            (mission.casualties, None), (mission.success, None),
            (turn.next_turn, rng.choice(others))]
    acts += [(turn.recruit, None, c) for c in hand]
    acts += [(turn.attach, None, c, h) for c in hand for h in heroes[:2]]
    acts += [(mission.start, None, c) for c in hand if cat.type(c) == "Mission"]
    acts.append((mission.casualties, None, some(powers), some(heroes)[:1], [], some(heroes)[:1]))
    if state["turn"].get("choose_casualties"):
        acts.append((mission.casualties, None, some(powers), [], some(heroes), []))
    acts.append((mission.success, None, some(powers), some(hand), some(heroes)[:1]))
    acts.append((mission.boost, None, some(powers), some(hand), some(heroes)[:1]))
    for c in hand:
        if cat.event(c):
            acts.append(("event", c, rng.choice(others),
                         rng.choice(all_heroes) if all_heroes else None,
                         rng.choice(state["table"][others[0]]["hand"] or [None])))
    acts += [(events.reroll, None, h) for h in heroes]
    acts += [(events.adjust, None, h, rng.choice([1, -1])) for h in heroes]
    if len(hand) > 5:
        acts.append((turn.discard, None, rng.sample(hand, len(hand) - rng.choice([5, 7]))
                     if len(hand) > 7 else rng.sample(hand, len(hand) - 5)))
    acts += [(turn.end_phase_kill, None, h) for h in heroes[:1]]
    return acts


def perform(state, cat, rng, act):
    play = Play(state, cat, Dice(rng))
    if act[0] == "event":
        _, card, target, hero, pick = act
        return events.play_event(play, None, card, target=target, hero=hero, pick=pick)
    return act[0](play, *act[1:])


def check_invariants(state: dict, cat: Catalog, total: list[str]) -> None:
    seen = list(state["deck"]) + list(state["discard"])
    mission_now = state["turn"].get("mission")
    if mission_now and not mission_now.get("discarded"):
        seen.append(mission_now["card"])
    for seat in state["table"].values():
        assert seat["mt"] >= 0
        seen += seat["hand"]
        for hero in seat["heroes"]:
            assert cat.type(hero["name"]) == "Hero" and hero["ft"] >= 0
            assert sum(cat.counts(m, "marketing") for m in hero["marketing"]) <= hero["ft"]
            seen += [hero["name"], *hero["marketing"]]
    assert sorted(seen) == total


@pytest.mark.parametrize("seed", range(6))
def test_random_play_keeps_the_invariants_and_ends(seed):
    db = carddb.load(ROOT / "cards.yaml")
    cat = Catalog.from_db(db)
    total = sorted(c.name for c in db.games["x-statix"].decks["common"].cards)
    rng = random.Random(seed)
    players = ["A", "B", "C"][: 2 + seed % 2]
    state = game.new_state(players, db, rng, seed=seed)
    done = refused = 0
    for _ in range(6000):
        options = candidates(state, cat, rng)
        # lean towards ending phases so that games finish
        act = (turn.pass_phase, None) if rng.random() < 0.25 else rng.choice(options)
        if rng.random() < 0.08:
            act = (turn.next_turn, None)
        try:
            result = perform(state, cat, rng, act)
        except (RefereeError, UsageError):
            refused += 1
            continue
        state = result.state
        done += 1
        check_invariants(state, cat, total)
        assert game.status_lines(state)
        if state["over"]:
            break
    assert state["over"] and state["deck"] == [] and state["winner"], (done, refused)
    places = [row["place"] for row in state["ranking"]]
    assert places[0] == 1 and places == sorted(places)
