"""Every Status card of the bundled XO! content can matter (issue 13, item 9): for each
status, a situation reached by play (the status tagged by a character's attack effect, a
card's "on a hit: tag", or damage, XO-4) where it changes the outcome of a later command
of the same turn, compared with the same state without that status (XO-8, XO-9).

Before the content change, Short-Circuited (-2 to feats) was tagged only on the responding
side and removed in the Status Check before that side could attempt a feat: it changed
nothing. It now also gives -2 to thwarts, which the responding side rolls.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

import carddb
from referee.dice import TableDice
from referee.errors import RefereeError
from referee.xo import play
from referee.xo.game import new_state
from referee.xo.play import XoCards

CARDS_YAML = Path(__file__).resolve().parents[3] / "cards.yaml"
HEROES = ["Captain Volt", "Granite Grace", "Hotfoot", "Ghostwire", "Ricochet Rosa", "Updraft", "Commander Halcyon"]
VILLAINS = ["Gravelmaw", "Static Jack", "Nightjar", "Madame Rime", "Doctor Null", "Mister Murmur", "Pyra Vex"]
SEED = {"heroes": 5, "villains": 0}  # new_state's first-player roll with these seeds


@pytest.fixture(scope="module")
def cards():
    return XoCards.from_db(carddb.load(CARDS_YAML))


def faces(**given):
    return TableDice("", random.Random(0), given={k.replace("_", "-"): v for k, v in given.items()}, roll_missing=True)


def attack_phase(cards, active):
    """Turn 1 of the bundled content, `active` first, both hands drawn, 4 Energy each."""
    state = new_state(["Ann", "Bob"], carddb.load(CARDS_YAML), random.Random(SEED[active]))
    assert state["turn"]["active"] == active
    state = play.pick(state, cards, "heroes", HEROES).state
    state = play.pick(state, cards, "villains", VILLAINS).state
    assert state["turn"]["phase"] == "Attack" and state["hands"] == {"heroes": 7, "villains": 7}  # XO-10
    state = play.play(state, cards, "heroes", ["Power Cell", "Power Cell"]).state
    return play.play(state, cards, "villains", ["Stolen Battery", "Stolen Battery"]).state


def tagging(cards, active, attacker, target, plays=(), **dice):
    state = attack_phase(cards, active)
    return play.attack(state, cards, attacker, target, faces(**dice), plays=plays, counterattack=False).state


# probes: a later command of the same turn; its outcome as a comparable value


def defense_probe(attacker, target, attack, defense):
    def probe(state, cards):
        out = play.attack(state, cards, attacker, target, faces(attack=attack, defense=defense), counterattack=False)
        return out.data["outcome"], out.data["damage"]
    return probe


def counter_probe(attacker, target, attack, defense, counter_attack, counter_defense):
    """A moffed attack (XO-5) on the tagged character: it counterattacks (XO-6)."""
    def probe(state, cards):
        out = play.attack(state, cards, attacker, target, faces(attack=attack, defense=defense,
                                                                counter_attack=counter_attack,
                                                                counter_defense=counter_defense))
        counter = out.data["targets"][0]["counterattack"]
        return counter["outcome"], counter["damage"]
    return probe


def thwart_probe(feat_by, feat_roll, thwart_by, thwart_roll):
    def probe(state, cards):
        state = play.next_phase(state, cards).state  # Feat/Thwart
        state = play.feat(state, cards, feat_by, faces(feat=feat_roll)).state
        assert state["turn"]["feat"]["pending"]
        try:
            return play.thwart(state, cards, thwart_by, faces(thwart=thwart_roll)).data["outcome"]
        except RefereeError as error:
            return f"refused ({error.ruling})"
    return probe


HEROES_THWART = thwart_probe("Captain Volt", [2, 1, 1], "Static Jack", [2, 1, 1])  # FCV 4, TCV 4
VILLAINS_THWART = thwart_probe("Gravelmaw", [3, 3, 1, 0], "Granite Grace", [2, 2, 1])  # FCV 7, TCV 5

# status -> (how play tags it: active league, attacker, target, cards, dice; the character; the probe)
SCENARIOS = {
    "Short-Circuited": (("heroes", "Ghostwire", "Static Jack", ["Taser Drone"], {"attack": [1, 1], "defense": [1]}),
                        "Static Jack", HEROES_THWART),
    "Staggered": (("heroes", "Granite Grace", "Static Jack", [], {"attack": [1, 1, 0], "defense": [1]}),
                  "Static Jack", HEROES_THWART),
    "Knocked Back": (("heroes", "Updraft", "Static Jack", [], {"attack": [1, 1], "defense": [1]}),
                     "Static Jack", HEROES_THWART),
    "Stunned": (("heroes", "Captain Volt", "Static Jack", [], {"attack": [1, 1, 0], "defense": [1]}),
                "Static Jack", HEROES_THWART),
    "Winded": (("heroes", "Hotfoot", "Static Jack", ["Hundred-Punch Blur"], {"attack": [1, 0, 0], "defense": [1]}),
               "Static Jack", defense_probe("Ghostwire", "Static Jack", [2, 1], [1])),
    "Injured": (("heroes", "Ricochet Rosa", "Gravelmaw", ["Bank Shot"], {"attack": [1, 1, 0, 0], "defense": [1, 1]}),
                "Gravelmaw", counter_probe("Ghostwire", "Gravelmaw", [0, 0], [1, 1], [3, 2, 0], [1, 1])),
    "Blinded": (("villains", "Nightjar", "Granite Grace", ["Smoke Pellet"], {"attack": [2, 1], "defense": [1, 0, 0]}),
                "Granite Grace", counter_probe("Doctor Null", "Granite Grace", [0, 0], [1, 1, 1], [3, 2, 0], [1, 1])),
    "Burned": (("villains", "Pyra Vex", "Captain Volt", [], {"attack": [1, 1, 0, 0], "defense": [1, 0],
                                                             "defense:Granite Grace": [3, 3, 3]}),
               "Captain Volt", defense_probe("Doctor Null", "Captain Volt", [2, 2], [1, 1])),
    "Frozen": (("villains", "Madame Rime", "Granite Grace", [], {"attack": [1, 1, 0], "defense": [1, 0, 0]}),
               "Granite Grace", VILLAINS_THWART),
    "Horrified": (("villains", "Mister Murmur", "Granite Grace", [], {"attack": [1, 1], "defense": [1, 0, 0]}),
                  "Granite Grace", VILLAINS_THWART),
    "Damaged": (("villains", "Gravelmaw", "Captain Volt", ["Rock Slam"], {"attack": [1, 0, 0], "defense": [1, 0]}),
                "Captain Volt", defense_probe("Doctor Null", "Captain Volt", [2, 2], [1, 1])),
    "Incapacitated": (("villains", "Mister Murmur", "Granite Grace", ["Paralyzing Thought"],
                       {"attack": [1, 1], "defense": [1, 0, 0]}), "Granite Grace", VILLAINS_THWART),
    "Prone": (("villains", "Madame Rime", "Captain Volt", ["Black Ice"], {"attack": [1, 1, 0], "defense": [1, 0]}),
              "Captain Volt", defense_probe("Doctor Null", "Captain Volt", [2, 1], [1, 1])),
    "Sabotaged": (("villains", "Doctor Null", "Captain Volt", ["Nullifier Ray"], {"attack": [1, 1], "defense": [1, 0]}),
                  "Captain Volt", defense_probe("Gravelmaw", "Captain Volt", [2, 2, 0], [1, 1])),
    "Trapped": (("villains", "Gravelmaw", "Granite Grace", ["Crushing Grip"], {"attack": [1, 1, 0], "defense": [1, 0, 0]}),
                "Granite Grace", VILLAINS_THWART),
    "KOd": (("villains", "Gravelmaw", "Granite Grace", [], {"attack": [3, 3, 3], "defense": [1, 0, 0]}),
            "Granite Grace", VILLAINS_THWART),
}


def test_every_status_card_has_a_scenario(cards):
    assert set(SCENARIOS) == set(cards.statuses)


@pytest.mark.parametrize("status", sorted(SCENARIOS))
def test_xo9_status_changes_an_outcome_in_a_reachable_situation(cards, status):
    (active, attacker, target, plays, dice), character, probe = SCENARIOS[status]
    tagged = tagging(cards, active, attacker, target, plays, **dice)
    entry = next(e for lg in ("heroes", "villains") for e in tagged["roster"][lg] if e["name"] == character)
    without = copy.deepcopy(tagged)
    bare = next(e for lg in ("heroes", "villains") for e in without["roster"][lg] if e["name"] == character)
    if status == "KOd":  # XO-4: a KO is not a tag; the character leaves play
        assert entry["ko"] and entry["statuses"] == []
        bare["ko"] = False
    else:
        assert status in entry["statuses"], f"{status} was not tagged by play: {entry}"
        bare["statuses"].remove(status)
    play.refresh(without, cards)
    with_status, without_status = probe(tagged, cards), probe(without, cards)
    assert with_status != without_status, f"{status} changed nothing: {with_status}"
