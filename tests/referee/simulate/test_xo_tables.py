"""Exact XO! tables equal the core's exact odds (referee/odds.py and the `referee odds`
command) and a brute-force enumeration of every die face through the combat rules."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from referee import notation, odds
from referee.dice import MASK_FACES
from referee.simulate import xo_tables
from referee.xo import rules
from tests.referee.simulate.sim_support import CARDS, referee, referee_json


@pytest.fixture(scope="module")
def table(db) -> list:
    """Every matchup of the bundled cards, worked out once for the module's tests that
    read it (each exact, ~0.5 s CPU)."""
    return xo_tables.matchups(db)


def test_every_matchup_hit_equals_the_core_odds(db, table):
    teams = xo_tables.roster(db)
    assert len(table) == 2 * len(teams["heroes"]) * len(teams["villains"])
    for m in table:
        exact = odds.compare(notation.parse(f"{m.attack_dice}m"),
                             notation.parse(f"{m.defense_dice}m"))
        assert m.hit == exact.win  # XO-3: a hit needs ACV > DCV


def test_one_pair_equals_the_referee_odds_command(table):
    m = table[0]
    data = referee_json("odds", f"{m.attack_dice}m", "vs", f"{m.defense_dice}m")
    assert Fraction(data["win"]["fraction"]) == m.hit
    shown = referee_json("simulate", "xo", "--matchups")["matchups"][0]
    assert Fraction(shown["hit"]["fraction"]) == m.hit
    assert Fraction(shown["ko"]["fraction"]) == m.ko


def brute_force(attacker, defender, defs):
    """Every face of every die, resolved by the combat rules (XO-2..XO-6)."""
    a_n, d_n, health = attacker["attack"], defender["defense"], defender["health"]
    total = hit = stunned = ko = damage = Fraction(0)
    effect = attacker.get("attack_effect")
    counter = "Counterattack" in (defender.get("abilities") or [])
    for a_roll in itertools.product(MASK_FACES, repeat=a_n):
        for d_roll in itertools.product(MASK_FACES, repeat=d_n):
            extras = MASK_FACES if rules.is_moffed(d_roll) else (None,)
            for extra in extras:
                p = Fraction(1, 6 ** (a_n + d_n)) / len(extras)
                r = rules.combat_round(a_roll, d_roll, health, defs, effect=effect,
                                       extra_damage_die=extra, has_counterattack=counter)
                total += p
                hit += p * r.hit
                stunned += p * (rules.STUNNED in r.statuses)
                ko += p * r.ko
                damage += p * r.damage
    assert total == 1
    return hit, stunned, ko, damage


def test_matchup_equals_brute_force_enumeration(db):
    defs = xo_tables.status_defs(db)
    teams = xo_tables.roster(db)
    attacker, defender = teams["heroes"][0], teams["villains"][0]
    m = xo_tables.matchup(attacker, defender, defs)
    assert (m.hit, m.stunned, m.ko, m.expected_damage) == brute_force(attacker, defender, defs)


def test_moffed_defense_adds_a_die_of_damage(db):
    """XO-5: with zero-sum defence the extra die counts; KO odds exceed the margin alone."""
    defs = xo_tables.status_defs(db)
    teams = xo_tables.roster(db)
    attacker, defender = teams["heroes"][0], teams["villains"][0]
    m = xo_tables.matchup(attacker, defender, defs)
    margin = odds.compare(notation.parse(f"{attacker['attack']}m"),
                          notation.parse(f"{defender['defense']}m")).margin
    without_extra = sum(p for v, p in margin.items() if v > defender["health"])
    assert m.ko > without_extra


def test_objective_odds_equal_the_odds_command(db):
    rows = xo_tables.objectives(db)
    assert len(rows) == len(db.games["xo"].cards(type="Objective"))
    row = rows[0]
    card = next(c for c in db.games["xo"].cards(type="Character") if c.name == row.feat_by)
    n, _ = rules.feat_dice(card.get("powers") or {}, card.get("keywords") or {},
                           {"icon": row.requires.split()[-1]} if row.requires.startswith("icon")
                           else {"keyword": row.requires.split()[-1]})
    data = referee_json("odds", f"{n}m", "--at-least", str(row.fcv))
    assert Fraction(data["at_least"]["fraction"]) == row.feat


def test_objectives_are_flagged_above_90_and_below_10_percent(tmp_path):
    text = CARDS.read_text(encoding="utf-8")
    import carddb

    db = carddb.load(CARDS)
    objective = sorted(db.games["xo"].cards(type="Objective"), key=lambda c: c["chapter"])[0]
    line = next(ln for ln in text.splitlines() if f"name: {objective.name}," in ln
                or f"name: {objective.name}\n" in ln)
    best = xo_tables.objectives(db)[0]
    card = next(c for c in db.games["xo"].cards(type="Character") if c.name == best.feat_by)
    dice, _ = rules.feat_dice(card.get("powers") or {}, card.get("keywords") or {},
                              dict(objective["requires"]))
    assert dice >= 2  # every die showing 3: (1/6)^dice < 10%
    hard = line.replace(f"fcv: {objective['fcv']}", f"fcv: {3 * dice}")
    path = tmp_path / "cards.yaml"
    path.write_text(text.replace(line, hard), encoding="utf-8")
    data = referee_json("--cards", str(path), "simulate", "xo", "--objectives")
    flagged = {o["objective"]: o["flags"] for o in data["objectives"]}
    assert "feat near-impossible (< 10%)" in flagged[objective.name]
    rows = xo_tables.objectives(carddb.load(path))
    for row in rows:
        if row.feat > xo_tables.NEAR_CERTAIN:
            assert "feat near-certain (> 90%)" in row.flags
        if row.feat_by and row.feat < xo_tables.NEAR_IMPOSSIBLE:
            assert "feat near-impossible (< 10%)" in row.flags


def test_bad_database_is_a_refusal(tmp_path):
    path = tmp_path / "cards.yaml"
    path.write_text("games: [", encoding="utf-8")
    proc = referee("--cards", str(path), "simulate", "xo")
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_a_chapter_leaning_to_one_league_is_flagged_and_the_bundled_ones_are_even(tmp_path):
    """Issue 13 item 9: chapter 1 used to be won on one attempt 30% of the time by the
    villains (Topple the Pylons, FCV 6) and 20% by the heroes: 1.5 times as often."""
    import carddb

    even = xo_tables.chapters(xo_tables.objectives(carddb.load(CARDS)))
    assert len(even) == 7 and not [c for c in even if c.leans]
    text = CARDS.read_text(encoding="utf-8")
    old = text.replace('feat: "Bring down the high-voltage towers", fcv: 7,',
                       'feat: "Bring down the high-voltage towers", fcv: 6,')
    assert old != text
    path = tmp_path / "cards.yaml"
    path.write_text(old, encoding="utf-8")
    data = referee_json("--cards", str(path), "simulate", "xo", "--objectives")
    chapter1 = data["chapters"][0]
    assert chapter1["leans"] == "villains"
    assert round(chapter1["villains"]["value"], 3) == 0.301 and round(chapter1["heroes"]["value"], 3) == 0.201
    assert any(note.startswith("Chapter 1 leans to the villains: one attempt wins it 30% of the time for them, "
                               "20% for the heroes") for note in data["findings"])
    assert [c["chapter"] for c in data["chapters"] if c["leans"]] == [1]
