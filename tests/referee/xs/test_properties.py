"""Seeded random X-Statix games through the rules engine (issue 13, "Done when"): a random
player tries what a player may type in each phase (buying draws while a roll is open,
recruiting again before paying, naming a sacrifice twice, events at any moment...). The
referee accepts or refuses; only accepted commands make the game, so each game is a random
legal game of a few hundred commands. After every command:

- every card exists once; MT and FT are never negative;
- no hero holds more marketing than FT, Cult of Personality counting 2 (XS-5);
- each phase's actions happen only in that phase (an open roll belongs to the phase it
  was made in, and no step of a command does a phase's action after that phase ended,
  XS-2);
- a hero is killed off for its own ability at most once per mission (XS-15);
- a refused command leaves the state as it was (or, refused after settling an open roll,
  as after the settlement, XS-2)."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

import carddb
from referee.errors import RefereeError, UsageError
from referee.xs import events, game, mission, turn
from referee.xs.catalog import Catalog
from referee.xs.play import PHASE_INDEX, Play
from referee.xs.rolls import Dice
from tests.referee.xs.xs_support import ROOT

OPPORTUNITY, RECRUITMENT, PUBLICITY, MISSION, FAME, FORTUNE, END = range(7)
ROLL_PHASE = {"opportunity": "opportunity", "recruit": "recruitment", "marketing": "publicity"}

# Steps that do one phase's action, and the phase (index) each belongs to.
ACTION_STEPS = [
    (re.compile(r"pays \d+ MT for an extra draw"), OPPORTUNITY),
    (re.compile(r"^Opportunity roll"), OPPORTUNITY),
    (re.compile(r"^Recruit roll|pays \d+ MT for recruiting|joins .*'s team"), RECRUITMENT),
    (re.compile(r"^Marketing roll|pays \d+ MT for attaching|attached to"), PUBLICITY),
    (re.compile(r"plays the mission|^(Carnage|Success|Payoff) roll|mission success:"), MISSION),
    (re.compile(r"^Fame:"), FAME),
    (re.compile(r"^Fortune:"), FORTUNE),
    (re.compile(r"discards .*; hand \d+/\d+|is killed \(by "), END),
]
# Steps that say a phase is over: the phase (index) that is current after them.
ENDS = re.compile(r"the (\w+) phase ends|; now the (\w+) phase")
NEW_TURN = re.compile(r"^turn \d+: .*'s Opportunity phase")
KILLED_OFF = re.compile(r"^(.+) is killed \(sacrificed")

# Cards stacked into the first player's hand in some games (a shuffle that deals them so):
# the heroes and events that keep rolls open, sacrifices and the survival that saves them.
STACKED = ["Saint Anna", "Overkill", "Battering Ram", "The Orphan", "Venus Dee Milo",
           "Freeze Time", "Cult of Personality"]


def stack_first_hand(state: dict, cards: list[str]) -> None:
    """Swap `cards` into the first player's hand, from wherever setup dealt them."""
    me = state["turn"]["player"]
    hand = state["table"][me]["hand"]
    for i, card in enumerate(cards):
        if card in hand:
            continue
        for pile in [state["deck"], *(state["table"][p]["hand"] for p in state["players"])]:
            if card in pile:
                j = pile.index(card)
                pile[j], hand[i] = hand[i], card
                break


def candidates(state: dict, cat: Catalog, rng: random.Random) -> list[tuple[float, tuple]]:
    """(weight, command) pairs of what the active player might type now."""
    t = state["turn"]
    me = t["player"]
    seat = state["table"][me]
    hand = seat["hand"]
    heroes = [h["name"] for h in seat["heroes"]]
    others = [p for p in state["players"] if p != me]
    everyone = [h["name"] for p in state["players"] for h in state["table"][p]["heroes"]]
    powers = [c for c in hand if cat.type(c) == "Power"]
    phase = PHASE_INDEX[t["phase"]]
    m = t.get("mission")
    stage = m["stage"] if m else None

    def some(xs, most=3):
        return rng.sample(xs, rng.randint(0, min(most, len(xs)))) if xs else []

    def here(p):  # commands of the current phase are tried more often
        return 4.0 if phase == p else (1.0 if phase < p else 0.2)

    under_way = bool(m) and stage != "done"
    acts: list[tuple[float, tuple]] = [
        (here(OPPORTUNITY), (turn.draw,)), (0.5 if under_way else 2.0, (turn.pass_phase,)),
        (3.0 if t.get("open") else 0.2, (turn.pay_now,)),
        (6.0 if phase == END else 0.3, (turn.next_turn,)),
    ]
    acts += [(here(RECRUITMENT), (turn.recruit, c)) for c in hand if cat.type(c) == "Hero"]
    acts += [(here(PUBLICITY), (turn.attach, c, h)) for c in hand if cat.type(c) == "Marketing"
             for h in heroes]
    acts += [(2 * here(MISSION), (mission.start, c)) for c in hand if cat.type(c) == "Mission"]
    if under_way:
        sacrificers = [h for h in heroes
                       if any("sacrifice" in e for e in cat.ability(h))]
        twice = sacrificers + sacrificers  # a sacrifice named twice
        acts += [(4.0, (mission.carnage,)),
                 (4.0, (mission.casualties, some(powers), some(twice, 2),
                        some(heroes) if t.get("choose_casualties") else [], some(heroes, 1))),
                 (4.0, (mission.success, some(powers), some(hand, 1), some(twice, 2))),
                 (2.0, (mission.boost, some(powers, 1), some(hand, 1), some(twice, 1))),
                 (4.0, (mission.payoff,))]
        if sacrificers:  # lean on killing off (XS-15): twice at once, or again later
            acts += [(12.0, (mission.casualties, some(powers), twice, [], [])),
                     (12.0, (mission.success, [], [], twice)),
                     (4.0, (mission.boost, [], [], sacrificers))]
    sendoffs = [r["context"]["hero_name"] for r in (m or {}).get("sendoffs", [])]
    for c in hand:
        if cat.event(c):
            acts.append((1.0, ("event", c, rng.choice(others),
                               rng.choice(everyone) if everyone else None,
                               rng.choice(state["table"][others[0]]["hand"] or [None]),
                               rng.choice(sendoffs) if sendoffs and rng.random() < 0.3
                               else None)))
    for h in heroes:
        for effect in cat.ability(h):
            if "reroll" in effect:
                acts.append((2.0, (events.reroll, h)))
            if "adjust" in effect:
                acts.append((2.0, (events.adjust, h, rng.choice([1, -1]))))
    limit = 7 if seat["owner"] == "Spike Freeman" else 5
    if len(hand) > limit:
        acts.append((8.0 if phase == END else 0.5,
                     (turn.discard, rng.sample(hand, len(hand) - limit))))
    acts += [(1.0, (turn.end_phase_kill, h)) for h in heroes[:2]]
    return acts


def perform(state: dict, cat: Catalog, rng: random.Random, command: tuple):
    play = Play(state, cat, Dice(rng))
    if command[0] == "event":
        _, card, target, hero, pick, sendoff = command
        return events.play_event(play, None, card, target=target, hero=hero, pick=pick,
                                 sendoff=sendoff)
    fn, *args = command
    return fn(play, None, *args)


# ── the invariants ────────────────────────────────────────────────────────────
def check_cards_tokens_marketing(state: dict, cat: Catalog, every_card: list[str]) -> None:
    seen = list(state["deck"]) + list(state["discard"])
    current = state["turn"].get("mission")
    if current and not current.get("discarded"):
        seen.append(current["card"])
    for seat in state["table"].values():
        assert seat["mt"] >= 0
        seen += seat["hand"]
        for hero in seat["heroes"]:
            assert cat.type(hero["name"]) == "Hero" and hero["ft"] >= 0
            load = sum(2 if m == "Cult of Personality" else 1 for m in hero["marketing"])
            assert load <= hero["ft"], hero  # XS-5
            seen += [hero["name"], *hero["marketing"]]
    assert sorted(seen) == every_card  # each card exists once


def check_phases(before: dict, result, kind: str) -> None:
    after = result.state
    opened = after["turn"].get("open")
    if opened:  # a roll stays open only in the phase it was made in (XS-2)
        assert ROLL_PHASE[opened["kind"]] == after["turn"]["phase"], opened
    phase = PHASE_INDEX[before["turn"]["phase"]]
    for step in result.steps:
        if NEW_TURN.search(step.text):
            phase = OPPORTUNITY
            continue
        for pattern, belongs in ACTION_STEPS:
            if pattern.search(step.text):
                assert belongs >= phase, (step.text, phase, [s.text for s in result.steps])
                phase = belongs
        ended = ENDS.search(step.text)
        if ended:
            name = ended.group(1) or ended.group(2)
            phase = max(phase, PHASE_INDEX[name] + (1 if ended.group(1) else 0))
    if not after["over"] and after["turn"]["number"] == before["turn"]["number"]:
        assert phase <= PHASE_INDEX[after["turn"]["phase"]], [s.text for s in result.steps]
    mission_kinds = {"mission", "carnage", "casualties", "success", "boost", "payoff"}
    if kind in mission_kinds:
        assert after["turn"]["phase"] == "mission"
    if kind in ("discard", "kill"):
        assert after["turn"]["phase"] == "end"


def check_killed_off(result, turn_number: int, mission_card: str | None,
                     killed_off: Counter) -> None:
    for step in result.steps:
        found = KILLED_OFF.search(step.text)
        if found:
            key = (turn_number, mission_card, found.group(1))
            killed_off[key] += 1
            assert killed_off[key] == 1, f"{found.group(1)} killed off twice on a mission"


def midgame_state(rng: random.Random, cat: Catalog, every_card: list[str]) -> dict:
    """A game in progress, dealt at random: A is in the Mission phase of turn 3 with Saint
    Anna, Overkill and Battering Ram among A's heroes and a Mission card in hand."""
    players = ["A", "B", "C"][: rng.choice([2, 3])]
    special = ["Saint Anna", "Overkill", "Battering Ram"]
    cards = [c for c in every_card if c not in special]
    rng.shuffle(cards)
    owners, teams = cat.names("Owner"), cat.names("Team Name")
    rng.shuffle(owners)
    rng.shuffle(teams)
    table = {}
    for i, p in enumerate(players):
        team = list(special) if p == "A" else []
        hand = []
        for _ in range(rng.randint(1, 3)):
            team.append(next(c for c in cards if cat.type(c) == "Hero"))
            cards.remove(team[-1])
        if p == "A":
            hand.append(next(c for c in cards if cat.type(c) == "Mission"))
            cards.remove(hand[-1])
        hand += [cards.pop() for _ in range(5)]
        table[p] = {"mt": rng.randint(0, 15), "owner": owners[i], "team": teams[i], "hand": hand,
                    "heroes": [{"name": h, "ft": rng.randint(1, 3), "marketing": []}
                               for h in team]}
    return {"game": "x-statix", "seed": None, "players": players, "table": table,
            "deck": cards, "discard": [], "over": False, "winner": None,
            "turn": {"number": 3, "player": "A", "phase": "mission", "free_drawn": True}}


def play_random_game(seed: int, db, cat: Catalog, every_card: list[str],
                     midgame: bool = False) -> tuple[int, Counter]:
    rng = random.Random(seed)
    if midgame:
        state = midgame_state(rng, cat, every_card)
    else:
        state = game.new_state(["A", "B", "C"][: 2 + seed % 2], db, rng, seed=seed)
        if seed % 3 != 2:
            stack_first_hand(state, STACKED)
    check_cards_tokens_marketing(state, cat, every_card)
    kinds: Counter = Counter()
    killed_off: Counter = Counter()
    for _ in range(6000):
        options = candidates(state, cat, rng)
        command = rng.choices([c for _, c in options], weights=[w for w, _ in options])[0]
        untouched = json.loads(json.dumps(state))  # deepcopy's result at a fifth of its CPU
        try:
            result = perform(state, cat, rng, command)
        except (RefereeError, UsageError) as error:
            assert state == untouched  # the engine works on a copy
            result = getattr(error, "result", None)  # refused after settling (XS-2)
            if result is None:
                continue
        current = result.state["turn"].get("mission")  # sacrifices happen on the turn's mission
        check_killed_off(result, state["turn"]["number"], current["card"] if current else None,
                         killed_off)
        check_phases(state, result, result.kind)
        state = result.state
        check_cards_tokens_marketing(state, cat, every_card)
        kinds[result.kind] += 1
        if state["over"]:
            break
    assert state["over"] and state["deck"] == [] and state["winner"], kinds
    return sum(kinds.values()), kinds


@pytest.fixture(scope="module")
def world():
    db = carddb.load(ROOT / "cards.yaml")
    cat = Catalog.from_db(db)
    assert cat.counts("Cult of Personality", "marketing") == 2  # the invariant's count (XS-5)
    return db, cat, sorted(c.name for c in db.games["x-statix"].decks["common"].cards)


@pytest.mark.parametrize("seed", range(8))
def test_random_legal_games_keep_the_invariants(world, seed):
    db, cat, every_card = world
    commands, kinds = play_random_game(seed, db, cat, every_card)
    assert 100 <= commands, kinds
    assert {"recruit", "mission", "next"} <= set(kinds), kinds


@pytest.mark.parametrize("seed", range(12))
def test_random_games_from_a_mission_with_sacrifices_keep_the_invariants(world, seed):
    """The same from a game in progress whose active team can kill off Overkill and
    Battering Ram with Saint Anna to save them (XS-15)."""
    db, cat, every_card = world
    play_random_game(seed, db, cat, every_card, midgame=True)


def test_the_invariants_read_the_engines_own_steps(world):
    """The step patterns above match what the engine tells (a guard: a reworded message
    must not make the phase and killing-off checks silently check nothing)."""
    from tests.referee.xs.xs_support import act, make_state

    _, cat, _ = world
    state = make_state(hands={"A": ["Ocelot", "Movies", "Zombies"]},
                       heroes={"A": [("Battering Ram", 2), "Saint Anna", "Phat"]},
                       owners={"A": "Coach"}, mt={"A": 30})
    told: list[str] = []
    r = act(cat, turn.buy_draw, state, None, faces=[1])
    for step in [(turn.recruit, ("Ocelot",), [1]), (turn.attach, ("Movies", "Phat"), [1]),
                 (mission.start, ("Zombies",), [1]), (mission.carnage, (), [2])]:
        told += [s.text for s in r.steps]
        r = act(cat, step[0], r.state, None, *step[1], faces=step[2])
    told += [s.text for s in r.steps]
    r = act(cat, mission.casualties, r.state, None, sacrifices=["Battering Ram"], faces=[1, 3])
    told += [s.text for s in r.steps]
    r = act(cat, mission.success, r.state, None, faces=[6])
    told += [s.text for s in r.steps]
    r = act(cat, mission.payoff, r.state, None, faces=[1, 1])
    told += [s.text for s in r.steps]
    r = act(cat, turn.end_phase_kill, r.state, None, "Phat", faces=[2, 1])
    told += [s.text for s in r.steps]
    hand = ["Movies", "PR People", "Media Craze", "Doop", "Flight", "Shape Shifting"]
    r = act(cat, turn.discard, make_state(hands={"A": hand}, phase="end"), None, ["Doop"])
    told += [s.text for s in r.steps]
    for pattern, _ in ACTION_STEPS:
        assert any(pattern.search(t) for t in told), pattern.pattern
    assert any(KILLED_OFF.search(t) for t in told)
    r = act(cat, turn.recruit, make_state(hands={"A": ["Ocelot"]}, mt={"A": 0},
                                          phase="recruitment"), None, "Ocelot", faces=[6])
    assert any(ENDS.search(s.text) for s in r.steps)
    assert any(NEW_TURN.search(s.text) for s in act(cat, turn.next_turn, make_state(
        phase="end"), None).steps)
