"""Random XO! games through the engine (referee/xo/play.py) on the bundled cards: a few
hundred commands each, most of them what a player could do in the phase, some not; the
invariants are checked after every step (issue 13, "Done when"):

- every card exists once: each character in one roster once, each Resource either in its
  stack or used, never both, as many as cards.yaml deals; a status at most once per
  character, and only Status cards;
- no KOd character carries a status or takes an action (attack, counterattack, feat,
  thwart); no counterattack after the attacker is KOd (XO-4, XO-6);
- each phase's actions happen only in that phase (XO-11), by the right league;
- a refused command changes nothing; hands and Energy never go below 0.
Seeded (hypothesis derandomized), so every run plays the same games.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import carddb
from referee.dice import TableDice
from referee.errors import RefereeError, UsageError
from referee.xo import play, rules
from referee.xo.game import new_state
from referee.xo.play import XoCards
from referee.xo.rules import LEAGUES, PHASES, other_league

CARDS_YAML = Path(__file__).resolve().parents[3] / "cards.yaml"
COMMANDS = 300


@pytest.fixture(scope="module")
def world():
    db = carddb.load(CARDS_YAML)
    return db, XoCards.from_db(db)


def in_play(state, league):
    return [e["name"] for e in state["roster"][league] if not e["ko"]]


def can_roll(cards, name, requires):
    card = cards.characters[name]
    return rules.feat_dice(card.get("powers") or {}, card.get("keywords") or {}, requires)[0] is not None


def choose_command(state, cards, rng):
    """(kind, function taking the state) for a command a player might type now: mostly
    what fits the phase, with cards that fit the roll, sometimes anything."""
    turn = state["turn"]
    phase, active = turn["phase"], turn["active"]
    responder = other_league(active)
    everyone = [e["name"] for lg in LEAGUES for e in state["roster"][lg]]
    ready = [e["name"] for e in state["roster"][active] if e.get("ready") and e["name"] not in turn.get("attacked", [])]

    def some(league, use, k=2, actor=None):
        if rng.random() < 0.5:
            return []
        mine = {e["name"] for e in state["roster"][league]} if use == "any" else {actor}
        face_up = {stack[0] for stack in state["resources"].values() if stack}
        fits = [n for n, c in cards.playable.items()
                if (n in face_up or c.deck.startswith(league)) and (c.type != "Action" or c["character"] in mine)
                and (c.type in ("Energy", "Resource") or c.get("timing") in (use, "any"))
                and (use == "any" or not any("remove" in e for e in c.get("effect") or []))]
        return rng.sample(fits, rng.randint(1, k))

    dice = TableDice("", random.Random(rng.random()), roll_missing=True)
    roll = rng.random()
    if phase == PHASES[2] and roll < 0.7 or roll < 0.03:
        attacker = rng.choice(ready if ready and rng.random() < 0.9 else everyone)
        defender = rng.choice(in_play(state, responder) or everyone)
        plays, defense = some(active, "attack", actor=attacker), some(responder, "defense", 1, actor=defender)
        counters = {defender: some(responder, "attack", 1, actor=defender)} if rng.random() < 0.3 else {}
        return "attack", lambda s: play.attack(s, cards, attacker, defender, dice, plays=plays, defense_plays=defense,
                                               counter_plays=counters, counterattack=rng.random() < 0.9)
    if phase == PHASES[3] and roll < 0.7 or roll < 0.06:
        kind = "thwart" if (turn.get("feat") or {}).get("pending") and rng.random() < 0.8 else "feat"
        league = active if kind == "feat" else responder
        able = [n for n in in_play(state, league) if can_roll(cards, n, state["objectives"][active]["requires"])]
        who = rng.choice(able if able and rng.random() < 0.9 else everyone)
        fn = play.feat if kind == "feat" else play.thwart
        plays = some(league, kind, 1, actor=who)
        return kind, lambda s: fn(s, cards, who, dice, plays=plays)
    if roll < 0.1:
        who, status = rng.choice(everyone), rng.choice(sorted(set(cards.statuses) - {"KOd"}) + ["KOd"] * (roll < 0.09))
        fn = play.tag if rng.random() < 0.7 else play.untag
        return fn.__name__, lambda s: fn(s, cards, who, status)
    if roll < 0.15:
        league = rng.choice(LEAGUES)
        names = some(league, "any", 2) or ["Energy Surge" if league == "heroes" else "Dark Energy"]
        target = rng.choice(everyone)
        return "play", lambda s: play.play(s, cards, league, names, target)
    discarding = phase == PHASES[1] and rng.random() < 0.5 or rng.random() < 0.02
    discards = {lg: rng.randint(0, 2 + (rng.random() < 0.1)) for lg in LEAGUES} if discarding else {}
    return "next", lambda s: play.next_phase(s, cards, discards)


def check_invariants(db, cards, before, kind, out):
    state = out.state
    # every card exists once
    names = [e["name"] for lg in LEAGUES for e in state["roster"][lg]]
    assert len(names) == len(set(names)) == 14
    for league in LEAGUES:
        assert all(cards.characters[e["name"]]["league"] == league for e in state["roster"][league])
    dealt = Counter()
    for card in db.games["xo"].cards(type="Resource"):
        dealt[card.name] += card.copies
    held = Counter(n for stack in state["resources"].values() for n in stack) + Counter(state.get("resources_used", []))
    assert held == dealt
    for entry in (e for lg in LEAGUES for e in state["roster"][lg]):
        assert len(entry["statuses"]) == len(set(entry["statuses"])) and set(entry["statuses"]) <= set(cards.statuses)
        if entry["ko"]:
            assert entry["statuses"] == [] and entry["ready"] is False  # XO-4, XO-6, XO-9
    assert all(n >= 0 for n in state["hands"].values()) and all(n >= 0 for n in state["energy"].values())

    # each phase's actions only in that phase, by the right league, never by a KOd character
    phase, active = before["turn"]["phase"], before["turn"]["active"]
    was_ko = {e["name"]: e["ko"] for lg in LEAGUES for e in before["roster"][lg]}
    league_of = {e["name"]: lg for lg in LEAGUES for e in before["roster"][lg]}
    assert not before["over"]
    if kind == "attack":
        data = out.data
        assert phase == PHASES[2] and league_of[data["attacker"]] == active
        assert not was_ko[data["attacker"]] and not was_ko[data["defender"]]
        attacker_down = False
        for target in data["targets"]:
            assert not was_ko[target["target"]] and league_of[target["target"]] != active
            if "counterattack" in target:
                assert not attacker_down, "a counterattack after the attacker was KOd (XO-6)"
                assert target["outcome"] != "ko", "a KOd character counterattacked"
                attacker_down = target["counterattack"]["outcome"] == "ko"
    if kind in ("feat", "thwart"):
        assert phase == PHASES[3] and not was_ko[out.data["character"]]
        assert league_of[out.data["character"]] == (active if kind == "feat" else other_league(active))
    if kind == "next" and out.data.get("phase") and before["turn"]["number"] == state["turn"]["number"]:
        assert PHASES.index(state["turn"]["phase"]) == PHASES.index(phase) + 1 or state["over"]


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1))
def test_random_games_keep_the_invariants(world, seed):
    db, cards = world
    rng = random.Random(seed)
    state = new_state(["Ann", "Bob"], db, random.Random(seed))
    for league in LEAGUES:
        pool = [n for n, c in cards.characters.items() if c["league"] == league]
        state = play.pick(state, cards, league, rng.sample(pool, 7)).state
    accepted = Counter()
    for _ in range(COMMANDS):
        kind, command = choose_command(state, cards, rng)
        snapshot = json.loads(json.dumps(state))  # deepcopy's result at a fifth of its CPU
        try:
            out = command(state)
        except (RefereeError, UsageError):
            assert state == snapshot  # a refusal changes nothing
            continue
        assert state == snapshot  # the engine works on a copy
        check_invariants(db, cards, state, kind, out)
        accepted[kind] += 1
        state = out.state
        if state["over"]:
            break
    assert accepted["next"] and accepted["attack"], accepted
