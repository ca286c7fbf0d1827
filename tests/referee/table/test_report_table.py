"""`referee report` over declared games (issue 30 item 4): the `pnp init` starter (Harbour
Lights) and the test game Bazaar played by `referee play` to their winners, read back:
winners by seat, length, tokens, each named roll's observed outcomes (counted here from
the log's own lines) against the exact odds, the winners' cards, the PDF; refusals are one
line and leave every session as it was."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.pdftext import words
from tests.referee.table.test_rules_as_data import bazaar, copied, play, referee  # noqa: E402
from tests.referee.table.test_rules_as_data import folder as folder  # noqa: E402, F401  (a fixture)


def report(*args: str, code: int = 0):
    from tests.harness import run_cli

    result = run_cli("referee", "report", *args, cwd=Path.cwd())
    assert result.returncode == code, result.stdout + result.stderr
    return result


def history(session) -> list[tuple[str, dict]]:
    from referee.session import Session

    with Session.open(session, write=False) as s:
        return [(e.summary, st) for e, st in s.log(with_states=True)
                if not e.undone and e.kind not in ("undo", "redo")]


@pytest.fixture
def harbours(folder, starter_game) -> list[Path]:
    """Two starter games (seeds 11 and 12) played to their end by `referee play`, once a
    test process (the play is most of its CPU), copied into the test's own folder."""
    return [copied(starter_game(seed)[1], folder) for seed in ("11", "12")]


def test_two_harbour_games_read_back(harbours):
    before = [s.read_bytes() for s in harbours]
    got = json.loads(report(*map(str, harbours), "--json").stdout)
    assert [s.read_bytes() for s in harbours] == before  # read-only
    assert got["title"] == "Harbour Lights" and got["games"] == got["finished"] == 2
    one, two = got["sessions"]
    # seed 11: Bob goes first and wins when the Storms run out; seed 12: Ann goes first, Bob
    # wins (Enter alone puts no ship to sea: the 12 Storms end both games)
    assert (one["seats"], one["winners"], one["ended"]) == (["Bob", "Ann"], ["Bob"],
                                                            "the Storms deck is empty")
    assert (two["seats"], two["winners"]) == (["Ann", "Bob"], ["Bob"])
    # Wilson 95% for 1 of 2, by hand: centre (0.5 + z²/4) / (1 + z²/2) = 0.5, half
    # z * sqrt(0.125 + z²/16) / (1 + z²/2) = 0.40547 (z = 1.96): 0.09453 to 0.90547
    wilson = {"games": 2, "wins": 1, "share": 0.5, "low": pytest.approx(0.09453, abs=1e-5),
              "high": pytest.approx(0.90547, abs=1e-5)}
    assert got["seats"] == [{"seat": 1, **wilson}, {"seat": 2, **wilson}]
    # the log: 6 rounds of Bob then Ann, the last played out; the game ends as the 7th begins
    assert (one["turns"], one["rounds"]) == (12, 6)
    for session, game in zip(harbours, got["sessions"], strict=True):
        states = [st for _, st in history(session)]
        for p in ("Ann", "Bob"):
            assert game["tokens"][p]["cargo"] == [st["tokens"][p]["cargo"] for st in states]
    # the weather rolls, as the log says them ("... = -2 knots"): s11 rolled -3 0 0 -1 1 ...
    said = [int(n) for s in harbours for summary, _ in history(s)
            for n in re.findall(r"= (-?\d+) knots", summary)]
    assert said[:5] == [-3, 0, 0, -1, 1]
    weather = got["rolls"]["weather"]
    assert weather["dice"] == "3 storm" and weather["rolls"] == len(said) == 24
    seen = Counter(said)
    assert {o["value"]: o["observed"] for o in weather["outcomes"]} == {
        v: seen.get(v, 0) for v in range(-3, 4)}
    # wind - wave on three storm dice (2 wind, 2 wave, calm, 2 of six faces): exact odds
    assert {o["value"]: o["probability"] for o in weather["outcomes"]} == {
        -3: "1/27", -2: "1/9", -1: "2/9", 0: "7/27", 1: "2/9", 2: "1/9", 3: "1/27"}
    assert weather["test"] == "chi-square" and 0 < weather["p_value"] <= 1
    text = report(*map(str, harbours)).stdout
    assert "seat 1: 1 of 2 (50%, 95% 9%-91%)" in text and "Length: turns 12-12" in text
    assert "Length: rounds 6-6" in text
    assert "Roll weather (3 storm, outcome wind - wave): 24 rolled; chi-square p = " in text


def test_the_pdf_parsed_back_and_rendered(harbours, folder):
    pdf = folder / "harbour.pdf"
    out = report(*map(str, harbours), "--report", str(pdf)).stdout
    assert out.rstrip().endswith(f"report: {pdf}")
    text = words(pdf)
    for phrase in ("Harbour Lights: report of 2 played games", "Win rate by seat",
                  "Tokens over the game: " + str(harbours[0])[-50:], "Roll weather",
                  "share of each outcome, observed against exact", "Game length in turns",
                  "Cards the winners played"):
        assert phrase in text
    # the seat table (the shared page): 1 of 2 wins each, Wilson 95% 9.5-90.5%
    assert re.search(r"seat 1\s+2\s+1\s+50\.0%\s+9\.5-90\.5%", text)
    assert re.search(r"seat 2\s+2\s+1\s+50\.0%\s+9\.5-90\.5%", text)
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm is not installed: the pages are not rendered")
    subprocess.run(["pdftoppm", "-r", "30", "-png", str(pdf), str(folder / "page")], check=True)
    assert (folder / "page-1.png").stat().st_size > 1000


def test_bazaar_scripted_then_played_to_its_end(folder):
    """The first turn typed as one-shot steps (two stalls played, the dice typed: raid
    sword shield 4 = 0, luck 3 4 = sum 7 >= 5, yes), a card shown to the referee from a
    hand (never public), then `referee play` to the end on Enter."""
    project = bazaar(folder)
    session = folder / "b.db"
    run = referee(project, session)
    run("--seed", "3", "new", "bazaar", "--players", "Ann,Bob")
    first = state_of(session)["turn"]["player"]
    other = "Bob" if first == "Ann" else "Ann"
    for step in (["step"], ["step"], ["step", "Fish Stall, Well"], ["step", "tax"],
                 ["step", other.lower()], ["step", "sword", "shield", "4"], ["step"],
                 ["step", "3", "4"], ["step"], ["step", "festival"], ["step"], ["step"]):
        run(*step)
    run("draw", other, "1", "--deck", "stalls")
    run("show", other, "Spice Stall")
    play(project, session, [""] * 600)
    got = json.loads(report(str(session), "--json").stdout)
    states = [st for _, st in history(session)]
    winners = states[-1]["winner"]
    assert states[-1]["over"] and got["sessions"][0]["winners"] == winners
    assert got["sessions"][0]["played"][first][:2] == ["Fish Stall", "Well"]
    stalls = {c for st in states for w in winners for c in st["zones"][w]["stalls"]}
    assert {c["card"] for c in got["winners_cards"]} == stalls
    # the rolls, counted from the log's lines: the first two typed above
    raids = [int(re.search(r"= (-?\d+) hit", s).group(1)) for s, _ in history(session)
             if s.startswith("Raid roll")]
    lucks = [s.endswith("= yes") for s, _ in history(session) if s.startswith("Luck roll")]
    assert raids[0] == 0 and lucks[0] is True
    raid, luck = got["rolls"]["raid"], got["rolls"]["luck"]
    assert raid["rolls"] == len(raids) and luck["rolls"] == len(lucks)
    assert {o["value"]: o["observed"] for o in raid["outcomes"] if o["observed"]} == \
        dict(Counter(raids))
    assert {o["value"]: o["observed"] for o in luck["outcomes"]} == {
        0: lucks.count(False), 1: lucks.count(True)}
    # 2 d4 summing to 5 or more: 10 of the 16 rolls
    assert {o["value"]: o["probability"] for o in luck["outcomes"]} == {0: "3/8", 1: "5/8"}
    # the raid: 2 coin (2 sword, 1 shield, 3 blank) + 1 d4 (no symbol): sword - shield
    assert {o["value"]: o["probability"] for o in raid["outcomes"]} == {
        -2: "1/36", -1: "1/6", 0: "13/36", 1: "1/3", 2: "1/9"}
    # Spice Stall, shown to the referee from a hand, is never named unless it was played
    if not any("Spice Stall" in cards for cards in got["sessions"][0]["played"].values()):
        assert "Spice Stall" not in json.dumps(got)
        assert "Spice Stall" not in report(str(session)).stdout


def state_of(session) -> dict:
    return history(session)[-1][1]


def F(text: str):
    from fractions import Fraction

    return Fraction(text)


def test_refusals_are_one_line(harbours, folder):
    project = bazaar(folder)
    other = folder / "b.db"
    referee(project, other)("--seed", "8", "new", "bazaar", "--players", "Ann,Bob")
    before = other.read_bytes()
    mixed = report(str(harbours[0]), str(other), code=2)
    assert mixed.stderr.strip() == (f"referee: {other} holds Bazaar, {harbours[0]} holds Harbour "
                                    "Lights: report the sessions of one game at a time")
    assert other.read_bytes() == before
    missing = report(str(harbours[0]), str(folder / "nowhere.db"), code=2)
    assert len(missing.stderr.strip().splitlines()) == 1 and "nowhere.db" in missing.stderr
    junk = folder / "junk.db"
    junk.write_bytes(b"not a session at all" * 10)
    bad = report(str(junk), code=2)
    assert bad.stderr.strip() == f"referee: {junk}: not a referee session (not an SQLite file, or damaged)"
    assert "Traceback" not in mixed.stderr + missing.stderr + bad.stderr
    assert not (folder / "x.pdf").exists()
