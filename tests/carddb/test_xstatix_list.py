"""The X-Statix card list in cards.yaml matches the rules' card list card for card.

tests/data/x-statix-rules-and-card-list.txt is a verbatim copy of the rules text, so
these tests run on a machine that has only the project."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

import carddb

RULES = Path(__file__).resolve().parent.parent / "data" / "x-statix-rules-and-card-list.txt"
TYPE_LETTERS = {"H": "Hero", "P": "Power", "X": "Mission", "M": "Marketing"}
NOTATION = [(r"^E = ", "Event: "), (r"\bCR\b", "Carnage Roll"), (r"\bSR\b", "Success Roll"),
            (r"\bPR\b", "Payoff Roll"), (r"^-$", "")]
TYPOS = {"Heros": "Heroes"}  # spelling mistakes of the list, corrected on the card


def section(start: str, end: str) -> list[str]:
    lines = RULES.read_text(encoding="utf-8").splitlines()
    i, j = lines.index(start), lines.index(end)
    return [ln for ln in lines[i + 2:j] if ln.strip()]  # skip the "Name: ..." header


def rules_deck() -> list[tuple[str, str, str]]:
    cards = []
    for line in section("X-STATIX COMMON DECK CARD LIST", "TEAM OWNER (MANAGER) CARDS"):
        name, letter, note = re.match(r"^(.+?) ([HPXM]) (.*)$", line).groups()
        cards.append((name, TYPE_LETTERS[letter], note))
    return cards


def rules_specials(start: str, end: str) -> list[tuple[str, str]]:
    known = {c.name for c in carddb.load(carddb.PROJECT_ROOT / "cards.yaml").games["x-statix"].cards()}
    out = []
    for line in section(start, end):
        name = next(n for n in sorted(known, key=len, reverse=True) if line.startswith(n + " "))
        out.append((name, line[len(name) + 1:]))
    return out


def normalise(text: str) -> str:
    """Compare words and numbers, not punctuation or markup."""
    text = text.replace("’", "'").replace("*", "").lower()
    text = re.sub(r"[^a-z0-9+\- ]", " ", text.replace("'", ""))
    return " ".join(text.split())


def expand(note: str) -> str:
    for pattern, repl in NOTATION:
        note = re.sub(pattern, repl, note)
    for typo, fix in TYPOS.items():
        note = note.replace(typo, fix)
    return note


@pytest.fixture(scope="module")
def xs():
    return carddb.load(carddb.PROJECT_ROOT / "cards.yaml").games["x-statix"]


def test_common_deck_matches_rules_card_for_card(xs):
    """Every listed card once, with the listed type and the listed note as its text
    (notation expanded); cards.yaml groups them by type, so order is not compared."""
    deck = {c.name: c for c in xs.decks["common"].cards}
    expected = rules_deck()
    assert len(deck) == len(xs.decks["common"].cards) == len(expected)
    assert sorted(deck) == sorted(name for name, _, _ in expected)
    for name, ctype, note in expected:
        assert deck[name].type == ctype, name
        assert deck[name].copies == 1, name
        assert normalise(deck[name].text) == normalise(expand(note)), name


def test_counts_per_type_match_the_rules():
    counts = Counter(t for _, t, _ in rules_deck())
    assert counts == {"Hero": 24, "Power": 22, "Mission": 14, "Marketing": 19}
    db_counts = Counter(c.type for c in carddb.load(carddb.PROJECT_ROOT / "cards.yaml").games["x-statix"].decks["common"].cards)
    assert db_counts == counts
    assert sum(counts.values()) == 79


@pytest.mark.parametrize("deck,start,end", [
    ("owners", "TEAM OWNER (MANAGER) CARDS", "TEAM NAME CARDS"),
    ("team-names", "TEAM NAME CARDS", "LINKS"),
])
def test_owner_and_team_name_cards_match_rules(xs, deck, start, end):
    expected = rules_specials(start, end)
    cards = xs.decks[deck].cards
    assert [c.name for c in cards] == [n for n, _ in expected]
    for card, (_name, note) in zip(cards, expected, strict=True):
        assert normalise(card.text) == normalise(expand(note))


def test_every_card_with_a_rules_note_has_a_machine_readable_effect(xs):
    """A card whose list entry says something (other than flavour) carries data the
    referee can use: an ability, an event, a `counts` or mission modifiers."""
    flavour_only = {"Doop"}
    for card in xs.cards():
        has_note = bool(card.text) and card.name not in flavour_only
        data = card.get("ability") or card.get("event") or card.get("counts") or card.get("mission")
        assert bool(data) == has_note, card.name
