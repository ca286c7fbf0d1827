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
    pypdf = pytest.importorskip("pypdf")
    pdf = tmp_path / "xo.pdf"
    assert run_cli("referee", "report", str(fought), "--report", str(pdf)).returncode == 0
    pages = " ".join(page.extract_text() for page in pypdf.PdfReader(pdf).pages)
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
