"""`referee report` over X-Statix sessions (issue 30 item 4): MT and FT over the game from
the table's own states, the heroes on the table, and never a card that was only ever in a
hand or the deck (XS-16), in the text, the JSON or the PDF."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.pdftext import page_texts, words
from tests.referee.xs.xs_support import Table, play_turn, referee, true_state

TURNS = 6


def every_state(session) -> list[dict]:
    from referee.session import Session

    with Session.open(session, write=False) as s:
        return [state for e, state in s.log(with_states=True)
                if not e.undone and e.kind not in ("undo", "redo")]


def scripted(session, cat, turns: int):
    """A 2-player game (seed 1) played by the scripted table for up to `turns` turns."""
    assert referee("--session", str(session), "new", "x-statix", "--deal", "referee",
                   "--players", "Ann,Bo", "--seed", "1").returncode == 0
    t = Table(session, cat)
    t.state = true_state(session)
    for _ in range(turns):
        if t.state["over"]:
            break
        play_turn(t)
    return session


@pytest.fixture(scope="module")
def played(tmp_path_factory, cat):
    """One scripted game for the module's tests, which only read it (`report`, `log`)."""
    return scripted(tmp_path_factory.mktemp("played") / "xs.db", cat, TURNS)


def test_mt_ft_and_the_heroes_on_the_table(played):
    out = referee("report", str(played), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    states = every_state(played)
    final = states[-1]
    assert report["game"] == "x-statix" and report["games"] == 1
    game = report["sessions"][0]
    assert game["seats"][0] == states[0]["turn"]["player"]  # seat 1 plays first
    for p in ("Ann", "Bo"):
        assert game["tokens"][p]["MT"] == [s["table"][p]["mt"] for s in states]
        assert game["tokens"][p]["FT"][-1] == sum(h["ft"] for h in final["table"][p]["heroes"])
        heroes = {h["name"] for s in states for h in s["table"][p]["heroes"]}
        assert heroes <= set(game["played"][p])
    assert game["turns"] == final["turn"]["number"]
    # the mission rolls' dice, counted by hand from the table's states: a roll is new
    # where the turn's mission first shows it (or shows other faces, or one more reroll)
    by_hand: dict[str, list[int]] = {"mission": [], "carnage": [], "success": [], "payoff": []}
    before: dict = {}
    for s in states:
        mission = s["turn"].get("mission") or {}
        for kind, roll in (mission.get("rolls") or {}).items():
            key = (s["turn"]["number"], mission["card"], roll["faces"], len(roll["used"]))
            if before.get(kind) != key:
                by_hand[kind].append(sum(roll["faces"]))
            before[kind] = key
    assert by_hand["mission"], "the scripted turns go on missions"
    for kind, sums in by_hand.items():
        roll = report["rolls"][kind]
        assert roll["rolls"] == len(sums)
        assert {o["value"]: o["observed"] for o in roll["outcomes"] if o["observed"]} == {
            v: sums.count(v) for v in set(sums)}
    assert report["rolls"]["mission"]["dice"] == "1d6"
    assert {o["value"]: o["probability"] for o in report["rolls"]["mission"]["outcomes"]} == {
        v: "1/6" for v in range(1, 7)}
    payoff = {o["value"]: o["probability"] for o in report["rolls"]["payoff"]["outcomes"]}
    assert report["rolls"]["payoff"]["dice"] == "2d6"
    assert (payoff[2], payoff[7], payoff[12]) == ("1/36", "1/6", "1/36") and len(payoff) == 11
    assert all(report["seats"][i]["low"] <= (report["seats"][i]["share"] or 0)
               <= report["seats"][i]["high"] for i in range(2))


def test_no_card_only_ever_hidden_appears_anywhere(played, tmp_path):
    states = every_state(played)
    from referee.session import Session

    with Session.open(played, write=False) as s:
        said = " ".join(e.summary for e in s.log())
    shown = {h["name"] for st in states for seat in st["table"].values() for h in seat["heroes"]}
    shown |= {m for st in states for seat in st["table"].values() for h in seat["heroes"]
              for m in h["marketing"]}
    hidden = {c for st in states for seat in st["table"].values() for c in seat["hand"]}
    hidden |= {c for st in states for c in st["deck"]}
    hidden = {c for c in hidden if c not in shown and c not in said and c not in st_discards(
        states)}
    assert len(hidden) >= 3, hidden  # the test has something to look for
    pdf = tmp_path / "xs.pdf"
    text = referee("report", str(played), "--report", str(pdf))
    as_json = referee("report", str(played), "--json")
    assert text.returncode == 0 and as_json.returncode == 0
    pages = " ".join(page_texts(pdf))
    assert "Tokens over the game" in pages and "Ann MT" in pages
    for card in hidden:
        assert card not in text.stdout and card not in as_json.stdout and card not in pages


def st_discards(states: list[dict]) -> set[str]:
    """Cards face up in the discard pile at some point (public)."""
    return {c for st in states for c in st.get("discard", [])}


@pytest.fixture
def longer(whole_game):
    """A longer scripted game, with Success rolls too: the 3-player game played to its end
    that the CLI game test plays (xs/conftest.py), read here, not played again."""
    return whole_game.session


def by_hand_chance(mods: list[dict], beats) -> Fraction:
    """Each face of a fresh d6 with the roll's modifiers applied in order (a minimum kept,
    never below 0: XS-2, XS-6's Anarchist)."""
    hits = 0
    for face in range(1, 7):
        value = face
        for mod in mods:
            new = value + mod["by"]
            if mod.get("min") is not None:
                new = max(new, min(mod["min"], value))
            value = new
        hits += bool(beats(max(0, value)))
    return Fraction(hits, 6)


def test_mission_and_success_outcomes_against_their_own_modifiers(longer, tmp_path):
    states = every_state(longer)
    expected: dict[str, list[tuple[Fraction, bool]]] = {"mission": [], "success": []}
    before: dict = {}
    for s in states:
        mission = s["turn"].get("mission") or {}
        for kind, roll in (mission.get("rolls") or {}).items():
            key = (s["turn"]["number"], mission["card"], roll["faces"], len(roll["used"]))
            if before.get(kind) != key and kind == "mission":  # XS-6: enough heroes
                heroes = len(s["table"][s["turn"]["player"]]["heroes"])
                expected[kind].append((by_hand_chance(roll["mods"], lambda t, h=heroes: t <= h),
                                       roll["total"] <= heroes))
            if before.get(kind) != key and kind == "success":  # XS-8: above the Carnage
                carnage = mission["rolls"]["carnage"]["total"]
                expected[kind].append((by_hand_chance(roll["mods"], lambda t, c=carnage: t > c),
                                       roll["total"] > carnage))
            before[kind] = key
    assert expected["success"] and len(expected["mission"]) >= 5, expected
    assert any(q not in (0, 1) for q, _ in expected["mission"])
    report = json.loads(referee("report", str(longer), "--json").stdout)["rolls"]
    for kind, labels in (("mission", ("met", "not met")), ("success", ("success", "fail"))):
        got = report[f"{kind} outcome"]
        made = expected[kind]
        assert [(e["chance"], e["success"]) for e in got["each"]] == [
            (f"{q.numerator}/{q.denominator}", ok) for q, ok in made]
        wins = sum(ok for _, ok in made)
        assert [(o["value"], o["observed"]) for o in got["outcomes"]] == [
            (labels[0], wins), (labels[1], len(made) - wins)]
        assert got["outcomes"][0]["expected"] == pytest.approx(float(sum(q for q, _ in made)))
        assert got["p_value"] == pytest.approx(float(poisson_binomial_p(made)), rel=1e-9)
    text = referee("report", str(longer)).stdout
    assert ("Roll success outcome (1d6 and each roll's own modifiers, outcome total > the "
            "Carnage roll's total (XS-8)): ") in text
    pdf = tmp_path / "xs.pdf"
    assert referee("report", str(longer), "--report", str(pdf)).returncode == 0
    pages = words(pdf)
    assert "Roll mission outcome: share of each outcome, observed against expected" in pages


def poisson_binomial_p(made: list[tuple[Fraction, bool]]) -> Fraction:
    """Every way the rolls could have come out, by exact fractions (a count at a time):
    the chance of every success count no likelier than the one seen."""
    by_count = [Fraction(1)]
    for q, _ in made:
        nxt = [Fraction(0)] * (len(by_count) + 1)
        for k, p in enumerate(by_count):
            nxt[k] += p * (1 - q)
            nxt[k + 1] += p * q
        by_count = nxt
    seen = by_count[sum(ok for _, ok in made)]
    return sum((p for p in by_count if p <= seen), Fraction(0))
