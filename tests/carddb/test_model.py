"""carddb.load gives typed, read-only objects; `pnp list` tabulates them."""

from __future__ import annotations

from pathlib import Path

import pytest

import carddb
from tests.harness import run_cli

BUNDLED = Path(__file__).resolve().parents[2] / "cards.yaml"


def test_load_gives_typed_cards_with_sources():
    db = carddb.load(BUNDLED)
    anarchist = db.games["x-statix"].card("Anarchist")
    assert anarchist.type == "Hero" and anarchist.deck == "common" and anarchist.game == "x-statix"
    assert anarchist["ability"] == [{"modify": "mission", "by": -1, "min": 1}]
    assert type(anarchist["ability"][0]) is dict  # plain data, positions stripped
    line = BUNDLED.read_text(encoding="utf-8").splitlines()[anarchist.source.line - 1]
    assert "name: Anarchist" in line
    assert db.games["x-statix"].decks["common"].size_mm == (63.5, 88.9)
    assert db.print.paper == "letter" and db.print.bleed_mm == pytest.approx(3.175)
    assert db.games["xo"].extras["dice"]["faces"] == [0, 1, 1, 2, 2, 3]
    with pytest.raises(KeyError):
        db.games["x-statix"].card("Wolverine")


def test_load_is_cached_per_content(tmp_path):
    assert carddb.load(BUNDLED) is carddb.load(BUNDLED)
    copy = tmp_path / "cards.yaml"
    copy.write_bytes(BUNDLED.read_bytes())
    first = carddb.load(copy)
    copy.write_text(BUNDLED.read_text(encoding="utf-8").replace("title: X-Statix\n", "title: X-Statix!\n", 1))
    assert carddb.load(copy) is not first
    assert carddb.load(copy).games["x-statix"].title == "X-Statix!"


def test_cards_are_read_only():
    card = carddb.load(BUNDLED).games["x-statix"].card("Phat")
    with pytest.raises(AttributeError):
        card.name = "Thin"


def test_deck_count_honours_copies():
    db = carddb.load(BUNDLED)
    for deck in db.games["xo"].decks.values():
        assert deck.count == sum(c.copies for c in deck.cards)
    assert db.games["xo"].decks["heroes-core"].count == 25


def test_pnp_list_table(cli):
    result = cli("pnp", "list", "--game", "x-statix")
    assert result.returncode == 0, result.stderr
    rows = {tuple(line.split()[:3]): line.split()[-2:] for line in result.stdout.splitlines()[2:-2]}
    assert rows[("x-statix", "common", "Hero")] == ["24", "24"]
    assert rows[("x-statix", "common", "Power")] == ["22", "22"]
    assert rows[("x-statix", "owners", "Owner")] == ["3", "3"]
    assert result.stdout.splitlines()[-1].split()[-2:] == ["85", "85"]
    assert "xo" not in result.stdout.split()


def test_pnp_list_unknown_game_is_one_line(cli):
    result = cli("pnp", "list", "--game", "chess")
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()          # the games it names: at least the bundled
    assert line.startswith("pnp: unknown game 'chess' (choose from ") and line.endswith(")")
    assert {"x-statix", "xo"} <= set(line.split("(choose from ")[1][:-1].split(", "))


def test_pnp_usage_error_is_one_line(cli):
    result = cli("pnp", "frobnicate")
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1


def test_fingerprint_tells_a_load_apart_without_loading(tmp_path, monkeypatch):
    """Equal while the file and every spreadsheet it read are as loaded (from this
    process's cache or the on-disk entry); another when either changes; None when no
    load knows the file (the caller must load it)."""
    run_cli("pnp", "init", str(tmp_path / "p"))
    cards, ships = tmp_path / "p" / "cards.yaml", tmp_path / "p" / "ships.csv"
    assert carddb.fingerprint(tmp_path / "missing.yaml") is None
    carddb.load(cards)
    first = carddb.fingerprint(cards)
    assert first is not None and carddb.fingerprint(cards) == first
    monkeypatch.setattr(carddb, "_cache", {})  # another process: the on-disk entry
    assert carddb.fingerprint(cards) == first
    ships.write_text(ships.read_text(encoding="utf-8").replace("The Gull", "The Tern"),
                     encoding="utf-8")
    assert carddb.fingerprint(cards) is None  # the sheet changed: only a load can tell
    carddb.load(cards)
    second = carddb.fingerprint(cards)
    assert second not in (None, first)
    cards.write_text(cards.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    assert carddb.fingerprint(cards) is None
    carddb.load(cards)
    assert carddb.fingerprint(cards) not in (None, first, second)
