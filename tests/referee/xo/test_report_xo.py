"""`referee report` over XO! sessions (issue 30 item 4): every mask die of the combats the
log tells (the shared attack roll, each defense roll, the extra damage die of a moffed
defense) against the mask die's exact odds (XO-1: faces 0, 1, 1, 2, 2, 3), counted by hand
from a scripted game whose faces are all given at the table; in text, --json and the PDF."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from tests.harness import ROOT, run_cli
from tests.pdftext import words

FIXTURE_DB = ROOT / "tests" / "data" / "xo-cards.yaml"
HEROES = ["Captain Volt", "Iron Ward", "Swift", "Mindlock", "Sky Lancer", "Arcana", "Gearhead"]
VILLAINS = ["Doctor Null", "Brute", "Wraith", "Blaze", "Frostbite", "Psyche", "Razor"]


def exact_p(seen: tuple[int, ...]) -> Fraction:
    """The exact multinomial test, enumerated here with fractions: the chance of every way
    to share the dice among the mask faces that is no likelier than the one seen."""
    odds = [Fraction(1, 6), Fraction(1, 3), Fraction(1, 3), Fraction(1, 6)]
    n = sum(seen)

    def chance(counts: tuple[int, ...]) -> Fraction:
        out = Fraction(math.factorial(n))
        for c, q in zip(counts, odds, strict=True):
            out *= q ** c / math.factorial(c)
        return out

    shares = [(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a)
              for c in range(n + 1 - a - b)]
    return sum((chance(s) for s in shares if chance(s) <= chance(seen)), Fraction(0))


@pytest.fixture
def fought(tmp_path):
    session = tmp_path / "xo.db"

    def run(*args: str):
        done = run_cli("referee", "--session", str(session), "--cards", str(FIXTURE_DB), *args)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    run("new", "xo", "--players", "Ann,Bob", "--seed", "8")  # heroes first
    run("xo", "pick", "heroes", *HEROES)
    run("xo", "pick", "villains", *VILLAINS)
    run("xo", "attack", "Swift", "Razor", "--attack-roll", "3,2", "--defense-roll", "3")
    # Brute's defense moffed (0,0) and hit: the extra damage die, given with --roll (XO-5)
    run("xo", "attack", "Captain Volt", "Brute", "--attack-roll", "1,1,1", "--defense-roll",
        "0,0", "--roll", "2")
    return session


def test_combat_dice_against_the_mask_die(fought, tmp_path):
    got = json.loads(run_cli("referee", "report", str(fought), "--json").stdout)
    combat = got["rolls"]["combat dice"]
    # by hand: 3,2 | 3 | 1,1,1 | 0,0 | 2: two 0s, three 1s, two 2s, two 3s
    assert combat["dice"] == "1 mask" and combat["rolls"] == 9
    assert [(o["value"], o["observed"], o["probability"]) for o in combat["outcomes"]] == [
        (0, 2, "1/6"), (1, 3, "1/3"), (2, 2, "1/3"), (3, 2, "1/6")]
    assert [o["expected"] for o in combat["outcomes"]] == [1.5, 3.0, 3.0, 1.5]
    assert combat["test"] == "exact"
    assert combat["p_value"] == pytest.approx(float(exact_p((2, 3, 2, 2))), rel=1e-9)
    text = run_cli("referee", "report", str(fought)).stdout
    assert "Roll combat dice (1 mask, outcome each die's face): 9 rolled; exact p = " in text
    pdf = tmp_path / "xo.pdf"
    assert run_cli("referee", "report", str(fought), "--report", str(pdf)).returncode == 0
    pages = words(pdf)
    assert "Roll combat dice: share of each outcome, observed against exact" in pages
    assert "Roll combat dice: 1 mask, outcome each die's face; 9 rolled, exact p" in pages


def test_an_undone_attack_is_not_counted(fought):
    done = run_cli("referee", "--session", str(fought), "undo")
    assert done.returncode == 0, done.stderr
    combat = json.loads(run_cli("referee", "report", str(fought), "--json").stdout)[
        "rolls"]["combat dice"]
    assert combat["rolls"] == 3  # only Swift's attack on Razor: 3,2 and 3
    assert {o["value"]: o["observed"] for o in combat["outcomes"]} == {0: 0, 1: 0, 2: 1, 3: 2}


@pytest.mark.parametrize(("target", "said"), [
    ("out.txt", "--report out.txt: the report is a PDF, name it *.pdf"),
    ("no/such/folder/x.pdf", "--report no/such/folder/x.pdf: folder no/such/folder does not exist"),
])
def test_the_same_report_refusals_as_simulate(fought, tmp_path, target, said):
    done = run_cli("referee", "report", str(fought), "--report", target, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == f"referee: {said}"


def mask_chance(dice: int, needed: int) -> Fraction:
    """P(the faces of `dice` mask dice sum to `needed` or more), every face enumerated."""
    import itertools

    faces = (0, 1, 1, 2, 2, 3)
    rolls = list(itertools.product(faces, repeat=dice))
    return Fraction(sum(sum(r) >= needed for r in rolls), len(rolls))


@pytest.fixture
def feats(tmp_path):
    """Four feats and three thwarts, every face given at the table (the fixture cards:
    FCV and TCV 4 in chapter 1, TCV 3 in chapter 2)."""
    session = tmp_path / "feats.db"

    def run(*args: str):
        done = run_cli("referee", "--session", str(session), "--cards", str(FIXTURE_DB), *args)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    run("new", "xo", "--players", "Ann,Bob", "--seed", "8")  # first-player dice 1,1 | 2,1
    run("xo", "pick", "heroes", *HEROES)
    run("xo", "pick", "villains", *VILLAINS)
    # T1 heroes: Captain Volt (energy 3 dice) 3+1+0 = 4 >= FCV 4; Blaze thwarts 2+1+1 >= 4
    run("xo", "feat", "Captain Volt", "--roll", "3,1,0")
    run("xo", "thwart", "Blaze", "--roll", "2,1,1")
    # T2 villains: Doctor Null (tech 3) 1+1+0 +2 thwart bonus (XO-14) = 4; Gearhead fails
    run("xo", "feat", "Doctor Null", "--roll", "1,1,0")
    run("xo", "thwart", "Gearhead", "--roll", "1,1,0")
    # T3 heroes, chapter 2 (durability, FCV 4): Iron Ward 0+1+0 -1 (--mod) fails
    run("xo", "feat", "Iron Ward", "--roll", "0,1,0", "--mod", "-1")
    # T4 villains, chapter 2 (strength, FCV 4, TCV 3): Brute succeeds, Iron Ward (strength
    # 2 dice) thwarts 2+1 >= 3
    run("xo", "feat", "Brute", "--roll", "3,2,0")
    run("xo", "thwart", "Iron Ward", "--roll", "2,1")
    return session


def dice_of(name: str) -> dict:
    import yaml

    decks = yaml.safe_load(FIXTURE_DB.read_text())["games"]["xo"]["decks"]
    cards = decks["heroes-characters"]["cards"] + decks["villains-characters"]["cards"]
    return next(c["powers"] for c in cards if c["name"] == name)


def test_feats_thwarts_and_the_first_roll_against_the_odds(feats, tmp_path):
    got = json.loads(run_cli("referee", "report", str(feats), "--json").stdout)["rolls"]
    # the dice, counted by hand: first-player 1,1,2,1; feats and thwarts
    # 3,1,0 2,1,1 1,1,0 1,1,0 0,1,0 3,2,0 2,1
    first = {o["value"]: o["observed"] for o in got["first-player dice"]["outcomes"]}
    assert first == {0: 0, 1: 3, 2: 1, 3: 0}
    dice = {o["value"]: o["observed"] for o in got["feat and thwart dice"]["outcomes"]}
    assert dice == {0: 6, 1: 9, 2: 3, 3: 2} and got["feat and thwart dice"]["rolls"] == 20
    assert got["feat and thwart dice"]["p_value"] is not None
    # each feat's own chance: its dice, modifiers and FCV (XO-13, the thwart bonus XO-14)
    assert dice_of("Captain Volt")["energy"] == dice_of("Iron Ward")["durability"] == 3
    assert dice_of("Brute")["strength"] == 3 and dice_of("Iron Ward")["strength"] == 2
    chances = [mask_chance(3, 4), mask_chance(3, 2), mask_chance(3, 5), mask_chance(3, 4)]
    feat = got["feat outcome"]
    assert feat["rolls"] == 4 and feat["test"] == "Poisson-binomial"
    assert [e["chance"] for e in feat["each"]] == [f"{q.numerator}/{q.denominator}" for q in chances]
    assert [e["success"] for e in feat["each"]] == [True, True, False, True]
    assert [(o["value"], o["observed"]) for o in feat["outcomes"]] == [("success", 3), ("fail", 1)]
    assert feat["outcomes"][0]["expected"] == pytest.approx(float(sum(chances)))
    assert feat["p_value"] == pytest.approx(float(poisson_binomial_p(chances, 3)), rel=1e-9)
    thwart = got["thwart outcome"]
    t_chances = [mask_chance(3, 4), mask_chance(3, 4), mask_chance(2, 3)]
    assert [e["chance"] for e in thwart["each"]] == [
        f"{q.numerator}/{q.denominator}" for q in t_chances]
    assert [(o["value"], o["observed"]) for o in thwart["outcomes"]] == [("success", 2), ("fail", 1)]
    assert thwart["p_value"] == pytest.approx(float(poisson_binomial_p(t_chances, 2)), rel=1e-9)
    text = run_cli("referee", "report", str(feats)).stdout
    assert ("Roll feat outcome (each attempt's own mask dice and modifiers, outcome total >= "
            "FCV (XO-13)): 4 rolled; Poisson-binomial p = ") in text
    mean = sum(chances) / 4
    assert f"success:    3 seen,   {float(sum(chances)):.2f} expected (mean P = {mean})" in text
    pdf = tmp_path / "feats.pdf"
    assert run_cli("referee", "report", str(feats), "--report", str(pdf)).returncode == 0
    pages = words(pdf)
    for name in ("feat outcome", "thwart outcome", "first-player dice", "feat and thwart dice"):
        assert f"Roll {name}: share of each outcome, observed against" in pages, name
    assert f"success 3 75.0% {float(sum(chances)):.1f} {mean}" in pages


def poisson_binomial_p(chances: list[Fraction], seen: int) -> Fraction:
    """Every way the attempts could have come out, enumerated with fractions: the chance
    of every success count no likelier than the one seen."""
    import itertools

    by_count = [Fraction(0)] * (len(chances) + 1)
    for outcome in itertools.product((True, False), repeat=len(chances)):
        p = Fraction(1)
        for q, ok in zip(chances, outcome, strict=True):
            p *= q if ok else 1 - q
        by_count[sum(outcome)] += p
    return sum((p for p in by_count if p <= by_count[seen]), Fraction(0))


def hit_chance(attack: int, defense: int) -> Fraction:
    """P(the attack dice's faces sum to more than the defense dice's), every face of every
    die enumerated (XO-2, XO-3: DCV >= ACV misses)."""
    import itertools

    faces = (0, 1, 1, 2, 2, 3)
    rolls = list(itertools.product(faces, repeat=attack + defense))
    return Fraction(sum(sum(r[:attack]) > sum(r[attack:]) for r in rolls), len(rolls))


def test_each_attack_hits_against_its_own_dice(fought, tmp_path):
    # Swift (2 attack dice) on Razor (1 defense die): 3+2 > 3, a hit; Captain Volt (3) on
    # Brute (2): 1+1+1 > 0+0, a hit
    got = json.loads(run_cli("referee", "report", str(fought), "--json").stdout)["rolls"]
    hits = got["attack hits"]
    chances = [hit_chance(2, 1), hit_chance(3, 2)]
    assert [e["chance"] for e in hits["each"]] == [f"{q.numerator}/{q.denominator}" for q in chances]
    assert [(o["value"], o["observed"]) for o in hits["outcomes"]] == [("hit", 2), ("miss", 0)]
    assert hits["p_value"] == pytest.approx(float(poisson_binomial_p(chances, 2)), rel=1e-9)
    assert hits["outcomes"][0]["expected"] == pytest.approx(float(sum(chances)))


def test_a_counterattack_counts_and_an_aoe_counts_once(tmp_path):
    """A counterattack is a round with dice of its own (XO-6); an AOE's targets share one
    attack roll (XO-7), so only its first target's round is counted."""
    session = tmp_path / "rounds.db"

    def run(*args: str) -> None:
        done = run_cli("referee", "--session", str(session), "--cards", str(FIXTURE_DB), *args)
        assert done.returncode == 0, done.stdout + done.stderr

    run("new", "xo", "--players", "Ann,Bob", "--seed", "8")
    run("xo", "pick", "heroes", *HEROES)
    run("xo", "pick", "villains", *VILLAINS)
    # Captain Volt (3 attack dice) moffs against Brute (2 defense): a miss, and Brute (3
    # attack) counterattacks Volt (2 defense): 3+3+3 > 1+1, a hit
    run("xo", "attack", "Captain Volt", "Brute", "--attack-roll", "0,0,0", "--defense-roll",
        "1,1", "--counter-attack-roll", "3,3,3", "--counter-defense-roll", "1,1")
    # Sky Lancer's AOE (2 attack dice, +1) on Wraith hits Brute, Wraith and Blaze in row
    # order: Brute's round (2 defense dice, 1+1 = 2 against 1+0+1 = 2) is the one counted
    run("xo", "attack", "Sky Lancer", "Wraith", "--attack-roll", "1,0", "--attack-mod", "1",
        "--defense-roll", "0,0", "--neighbour-roll", "Brute=1,1", "--neighbour-roll",
        "Blaze=0", "--extra-damage-roll", "1", "--neighbour-extra-roll", "Blaze=1")
    hits = json.loads(run_cli("referee", "report", str(session), "--json").stdout)["rolls"][
        "attack hits"]
    aoe = Fraction(sum(sum(r[:2]) + 1 > sum(r[2:]) for r in _faces(4)), 6 ** 4)
    chances = [hit_chance(3, 2), hit_chance(3, 2), aoe]
    assert [e["chance"] for e in hits["each"]] == [f"{q.numerator}/{q.denominator}" for q in chances]
    assert [e["success"] for e in hits["each"]] == [False, True, False]


def _faces(dice: int) -> list[tuple[int, ...]]:
    import itertools

    return list(itertools.product((0, 1, 1, 2, 2, 3), repeat=dice))
