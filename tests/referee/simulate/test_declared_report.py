"""`referee simulate GAME --report FILE.pdf` for a game with rules declared as data (the
starter's Harbour Lights, `pnp init` into a temporary folder): the PDF parsed back with
pypdf (chart titles, the figures of --json in its tables) and rendered with pdftoppm; a
sweep's one page of variants; per-seat policies; the page figures checked by hand on small
inputs (histogram bins, a roll's counts against its exact odds, seat policies); and the
same one-line refusals as the bundled games' --report."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from collections import Counter
from fractions import Fraction

import pytest

from tests.harness import run_cli
from tests.pdftext import page_texts

GAME = "harbour"


def simulate(cards: str, *args: str):
    return run_cli("referee", "--cards", cards, "simulate", GAME, *args)


def pdf_text(path) -> tuple[int, str]:
    """The page count and the pages' text (pdfium, tests/pdftext.py: a tenth of pypdf's CPU)."""
    pages = page_texts(path)
    return len(pages), "\n".join(pages)


def _pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def test_the_report_holds_every_figure_of_the_json(cards, tmp_path):
    pdf = tmp_path / "harbour.pdf"
    done = simulate(cards, "--games", "40", "--seed", "5", "--jobs", "1", "--players", "3",
                    "--json", "--report", str(pdf))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["report"] == str(pdf)
    pages, text = pdf_text(pdf)
    assert pages >= 2
    for title in ("Harbour Lights balance report", "Win rate by seat (seat 1 plays first)",
                  "End conditions: share of games each one ended",
                  "Game length in turns (share of games)", "Game length in rounds",
                  "Score spread: the best score less the lowest",
                  "Roll weather: share of each outcome, observed against exact",
                  "Cards in play at the end: per winner against per loser"):
        assert title in text, title
    assert "40 simulated games of 3 players, policy random" in text
    for row in data["seats"]:  # the seat table: games, wins, rate, Wilson interval
        assert re.search(rf"seat {row['seat']}\s+40\s+{row['wins']}\s+{re.escape(_pct(row['rate']))}"
                         rf"\s+{row['low'] * 100:.1f}-{row['high'] * 100:.1f}%", text), row
    for name, end in data["ends"].items():
        assert re.search(rf"{re.escape(name)}\s+{end['count']}\s+{re.escape(_pct(end['rate']))}",
                         text), name
    fit = data["rolls"]["weather"]["fit"]
    assert f"Roll weather: 3 storm, outcome wind - wave; {fit['rolls']} rolled" in text
    from referee.report.text import p_text

    assert f"{fit['test']} p = {p_text(fit['p_value'])}" in text
    for o in fit["outcomes"]:  # outcome, seen, share, expected, P (exact)
        share = _pct(o["observed"] / fit["rolls"])
        assert re.search(rf"\n{o['value']}\s+{o['observed']}\s+{re.escape(share)}\s+"
                         rf"{o['expected']:.1f}\s+{o['probability']}", text), o
    for card in data["cards"]:
        assert re.search(rf"{re.escape(card['card'])}\s+{card['winner']:.2f}\s+"
                         rf"{card['loser']:.2f}", text), card
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm is not installed: the pages are not rendered")
    subprocess.run(["pdftoppm", "-r", "30", "-png", "-f", "1", "-l", "1", str(pdf),
                    str(tmp_path / "page")], check=True)
    assert (tmp_path / "page-1.png").stat().st_size > 1000


def test_the_json_figures_behind_the_pages(cards):
    done = simulate(cards, "--games", "30", "--seed", "2", "--jobs", "1", "--json")
    data = json.loads(done.stdout)
    for what in ("turns", "rounds", "score_spread"):
        counts = data[what]["counts"]
        assert sum(counts.values()) == 30
        assert sum(int(v) * n for v, n in counts.items()) / 30 == pytest.approx(data[what]["mean"])
    weather = data["rolls"]["weather"]
    fit = weather["fit"]
    # the same counts as the roll's own tally, against wind - wave on three storm dice
    assert {str(o["value"]): o["observed"] for o in fit["outcomes"] if o["observed"]} == {
        k: v["count"] for k, v in weather["outcomes"].items()}
    assert {o["value"]: o["probability"] for o in fit["outcomes"]} == {
        -3: "1/27", -2: "1/9", -1: "2/9", 0: "7/27", 1: "2/9", 2: "1/9", 3: "1/27"}
    text = simulate(cards, "--games", "30", "--seed", "2", "--jobs", "1").stdout
    assert f"against the exact odds, {fit['test']} p = " in text


def test_a_roll_against_its_odds_by_hand():
    from referee.odds import Distribution
    from referee.report.summary import fit

    # a fair coin as outcome 0/1, 8 tosses with 7 heads (4 expected each: the exact test):
    # the shares no more likely than 7-1 are 0, 1, 7 and 8 heads: (1 + 8 + 8 + 1) / 2**8
    odds = {"dice": "1 coin", "outcome": "heads", "exact": Distribution({0: 1, 1: 1}, 2)}
    got = fit(odds, Counter({1: 7, 0: 1}))
    assert got["test"] == "exact" and got["p_value"] == pytest.approx(18 / 256)
    assert [(o["value"], o["observed"], o["expected"], o["probability"])
            for o in got["outcomes"]] == [(0, 1, 4.0, "1/2"), (1, 7, 4.0, "1/2")]
    # 10 tosses, 9 heads (5 expected each): chi-square (1-5)²/5 + (9-5)²/5 = 6.4 on one
    # degree of freedom, whose tail is erfc(sqrt(6.4 / 2))
    got = fit(odds, Counter({1: 9, 0: 1}))
    assert got["test"] == "chi-square" and got["statistic"] == pytest.approx(6.4)
    assert got["p_value"] == pytest.approx(math.erfc(math.sqrt(3.2)))
    unread = fit(None, Counter({4: 2, 1: 1}))
    assert unread["p_value"] is None and [o["value"] for o in unread["outcomes"]] == [1, 4]
    assert Fraction(got["outcomes"][0]["probability"]) == Fraction(1, 2)


def test_histogram_bins_by_hand():
    from referee.pages import bins

    assert bins({}) == []
    assert bins({3: 2, 5: 1}) == [("3", 2), ("4", 0), ("5", 1)]  # the empty value shown
    # 1..60 is 60 values: bins of ceil(60/25) = 3 values each, the last one shorter
    wide = bins({1: 1, 2: 1, 3: 1, 4: 5, 59: 2, 60: 1}, most=25)
    assert wide[0] == ("1-3", 3) and wide[1] == ("4-6", 5) and wide[-1] == ("58-60", 3)
    assert sum(n for _, n in wide) == 11 and len(wide) == 20


def test_a_sweep_report_is_one_page_of_variants(cards, tmp_path):
    pdf = tmp_path / "sweep.pdf"
    done = simulate(cards, "--games", "12", "--seed", "3", "--jobs", "1", "--json",
                    "--set", "end.token.cargo=>= 5,>= 30", "--set", "tokens.cargo.start=0,8",
                    "--report", str(pdf))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["variants"]
    pages, text = pdf_text(pdf)
    assert pages == 1
    assert "Harbour Lights sweep report" in text and "Variants compared: one row each" in text
    assert "First seat's win rate by variant" in text
    flat = re.sub(r"\s+", " ", text)
    for i, row in enumerate(rows):
        first = row["first_player"]
        label = ", ".join(f"{k}={v}" for k, v in row["set"].items())
        assert f"V{i + 1} {label} {_pct(first['rate'])}" in flat, label
        assert f"{first['low'] * 100:.1f}-{first['high'] * 100:.1f}% {row['turns']['mean']:.1f}" in flat


def test_one_policy_a_seat(cards):
    def run(policy: str) -> dict:
        done = simulate(cards, "--games", "30", "--seed", "4", "--jobs", "1", "--json",
                        "--policy", policy)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        data.pop("seconds")
        return data

    mixed = run("greedy,random")
    assert mixed["policy"] == "greedy,random"
    assert run("greedy,random") == mixed
    others = [run(p) for p in ("random", "greedy", "random,greedy")]
    assert all(o["seats"] != mixed["seats"] or o["cards"] != mixed["cards"] for o in others)
    # the greedy seat wins more than when it plays randomly against randomness
    assert mixed["seats"][0]["wins"] > others[0]["seats"][0]["wins"]


def test_seat_policies_follow_the_turn_order():
    from referee.simulate.declared import seat_policies

    state = {"players": ["P1", "P2", "P3"], "setup": {"first": "P2"}}
    assert seat_policies("greedy,random,random", state) == {
        "P2": "greedy", "P3": "random", "P1": "random"}
    assert seat_policies("greedy", state) == {"P1": "greedy", "P2": "greedy", "P3": "greedy"}


@pytest.mark.parametrize(("args", "said"), [
    (["--policy", "nice"], "--policy 'nice': choose from random, greedy"),
    (["--policy", "greedy,random,random"], "names 3 policies for 2 players"),
    (["--report", "out.txt"], "--report out.txt: the report is a PDF, name it *.pdf"),
    (["--report", "no/such/folder/x.pdf"], "folder no/such/folder does not exist"),
])
def test_refusals_are_one_line(cards, args, said):
    done = simulate(cards, "--games", "2", "--jobs", "1", *args)
    assert done.returncode == 2
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_an_unwritable_report_is_one_line(cards, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    done = simulate(cards, "--games", "2", "--jobs", "1", "--report", str(afile / "x.pdf"))
    assert done.returncode == 2
    assert f"--report {afile / 'x.pdf'}: cannot write it" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_wins_by_policy_with_the_seats_rotated(cards, tmp_path):
    """--seating rotate: game i shifts the policies i seats, so over 20 games of 2 players
    each policy plays each seat 10 times; the same whatever --jobs; the policies' wins add
    up to the seats' wins; in the text, --json and the PDF."""

    def run(*args: str) -> dict:
        done = simulate(cards, "--games", "20", "--seed", "4", "--json",
                        "--policy", "greedy,random", *args)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        for key in ("seconds", "jobs", "report"):
            data.pop(key)
        return data

    rotated = run("--seating", "rotate", "--jobs", "1")
    assert rotated == run("--seating", "rotate", "--jobs", "2")
    assert rotated["seating"] == "rotate"
    rows = {r["policy"]: r for r in rotated["by_policy"]}
    assert set(rows) == {"greedy", "random"}
    for r in rows.values():
        assert [(c["seat"], c["games"]) for c in r["by_seat"]] == [(1, 10), (2, 10)]
        assert r["seats_played"] == 20 and r["wins"] == sum(c["wins"] for c in r["by_seat"])
        assert r["low"] <= r["rate"] == r["wins"] / 20 <= r["high"]
    for seat in (1, 2):  # a seat's wins are its two policies' wins there
        assert rotated["seats"][seat - 1]["wins"] == sum(
            r["by_seat"][seat - 1]["wins"] for r in rows.values())
    fixed = run("--jobs", "1")
    assert fixed["seating"] == "fixed"
    by = {r["policy"]: r for r in fixed["by_policy"]}
    assert [c["games"] for c in by["greedy"]["by_seat"]] == [20, 0]
    assert by["greedy"]["wins"] == fixed["seats"][0]["wins"]
    assert by["random"]["wins"] == fixed["seats"][1]["wins"]
    text = simulate(cards, "--games", "20", "--seed", "4", "--jobs", "1", "--policy",
                    "greedy,random", "--seating", "rotate").stdout
    assert "policy greedy,random, seats rotated each game, seed 4" in text
    g = rows["greedy"]
    assert (f"  greedy: {g['wins']} wins of 20 seats, {_pct(g['rate'])} ({_pct(g['low'])}-"
            f"{_pct(g['high'])}); seat 1 {g['by_seat'][0]['wins']}/10, seat 2 "
            f"{g['by_seat'][1]['wins']}/10") in text
    pdf = tmp_path / "policies.pdf"
    assert simulate(cards, "--games", "20", "--seed", "4", "--jobs", "1", "--policy",
                    "greedy,random", "--seating", "rotate", "--report", str(pdf)).returncode == 0
    _, pages = pdf_text(pdf)
    flat = " ".join(pages.split())
    assert "Win rate by policy, over every seat it played" in flat
    assert "The seats rotate each game" in flat
    assert (f"greedy 20 {g['wins']} {_pct(g['rate'])} {g['low'] * 100:.1f}-"
            f"{g['high'] * 100:.1f}% {g['by_seat'][0]['wins']}/10 {g['by_seat'][1]['wins']}/10"
            ) in flat


def test_the_seating_of_each_game():
    from referee.simulate.declared import seating

    assert [seating("greedy,random,random", 3, i, True) for i in range(4)] == [
        ["greedy", "random", "random"], ["random", "random", "greedy"],
        ["random", "greedy", "random"], ["greedy", "random", "random"]]
    assert seating("greedy,random", 2, 5, False) == ["greedy", "random"]
    assert seating("greedy", 3, 1, True) == ["greedy"] * 3


def test_a_bad_seating_is_one_line(cards):
    done = simulate(cards, "--games", "2", "--seating", "sideways")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "'sideways' is not one of 'fixed', 'rotate'" in done.stderr
