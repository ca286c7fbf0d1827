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
    assert report["rolls"] == {}  # X-Statix rolls are not yet reported


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
