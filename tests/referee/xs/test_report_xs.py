"""`referee report` over X-Statix sessions (issue 30 item 4): MT and FT over the game from
the table's own states, the heroes on the table, and never a card that was only ever in a
hand or the deck (XS-16), in the text, the JSON or the PDF."""

from __future__ import annotations

import json

import pytest

from tests.referee.xs.test_cli_game import Table, play_turn, true_state
from tests.referee.xs.xs_support import referee

TURNS = 6


def every_state(session) -> list[dict]:
    from referee.session import Session

    with Session.open(session, write=False) as s:
        return [state for e, state in s.log(with_states=True)
                if not e.undone and e.kind not in ("undo", "redo")]


@pytest.fixture
def played(tmp_path, cat):
    session = tmp_path / "xs.db"
    assert referee("--session", str(session), "new", "x-statix", "--deal", "referee",
                             "--players", "Ann,Bo", "--seed", "1").returncode == 0
    t = Table(session, cat)
    t.state = true_state(session)
    for _ in range(TURNS):
        if t.state["over"]:
            break
        play_turn(t)
    return session


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
    pypdf = pytest.importorskip("pypdf")
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
    pages = " ".join(page.extract_text() for page in pypdf.PdfReader(pdf).pages)
    assert "Tokens over the game" in pages and "Ann MT" in pages
    for card in hidden:
        assert card not in text.stdout and card not in as_json.stdout and card not in pages


def st_discards(states: list[dict]) -> set[str]:
    """Cards face up in the discard pile at some point (public)."""
    return {c for st in states for c in st.get("discard", [])}
