"""cards.yaml kept parsed (carddb.cache `.yaml.pickle` entries, issue 36 item 2): a load
after a spreadsheet edit takes the YAML as it was parsed, not parsing it again, and gives
exactly what a load without the cache gives (translations validation takes out in place,
duplicate keys reported again); other bytes are parsed; a damaged entry is parsed afresh.
The edits add a row: a row changed in place is taken without validating the database
anew at all (carddb.edits, tests/carddb/test_edits.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import carddb
from carddb import yamlsource

CARDS = """\
version: 1
languages: [en, de]
card_sizes: {poker: [63.5, 88.9]}
games:
  harbour:
    title: Harbour
    players: {min: 2, max: 4}
    types:
      Ship:
        fields:
          speed: {type: int, min: 1, max: 6}
    decks:
      ships:
        title: {en: Ships, de: Schiffe}
        size: poker
        back: {title: Harbour}
        cards: {from: ships.csv, type: Ship}
"""


def write_ships(folder: Path, note: str = "", count: int = 12) -> None:
    rows = [f"Ship {i},{1 + i % 6},Sails {i}{note if i == 3 else ''}." for i in range(count)]
    (folder / "ships.csv").write_text("\n".join(["name,speed,text", *rows]) + "\n")


@pytest.fixture
def project(tmp_path, monkeypatch):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "cards.yaml").write_text(CARDS)
    write_ships(folder)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    return folder


@pytest.fixture
def parses(monkeypatch):
    """How many times cards.yaml is parsed."""
    calls: list[int] = []
    real = yamlsource.load_yaml

    def counted(raw):
        calls.append(len(raw))
        return real(raw)

    monkeypatch.setattr(yamlsource, "load_yaml", counted)
    return calls


def cold(monkeypatch):
    """The database, or its problems, loaded with no cache at all."""
    with monkeypatch.context() as m:
        m.setenv("PNP_CACHE_DIR", "off")
        path = Path("cards.yaml")
        try:
            return carddb.parse(path.read_bytes(), path.resolve(), "cards.yaml")
        except carddb.DatabaseError as exc:
            return [str(p) for p in exc.problems]


def test_a_spreadsheet_edit_does_not_parse_cards_yaml_again(project, monkeypatch, parses):
    carddb.load("cards.yaml")
    assert len(parses) == 1
    write_ships(project, " (edited)", count=13)
    db = carddb.load("cards.yaml")
    assert len(parses) == 1                         # the parsed YAML came from the cache
    assert db == cold(monkeypatch)
    # the translated title validation took out of the YAML in place is still there
    assert db.languages.values["de"][("harbour", ("decks", "ships", "title"))] == "Schiffe"
    assert db.games["harbour"].decks["ships"].title == "Ships"


def test_other_bytes_are_parsed(project, monkeypatch, parses):
    carddb.load("cards.yaml")
    (project / "cards.yaml").write_text(CARDS.replace("Harbour}", "Port}"))
    db = carddb.load("cards.yaml")
    assert len(parses) == 2
    assert db.games["harbour"].decks["ships"].back["title"] == "Port"


def test_duplicate_keys_are_reported_again_from_the_kept_parse(project, monkeypatch, parses):
    (project / "cards.yaml").write_text(CARDS.replace("    title: Harbour\n",
                                                      "    title: Harbour\n    title: Port\n"))
    with pytest.raises(carddb.DatabaseError) as first:
        carddb.load("cards.yaml")
    write_ships(project, " (edited)", count=13)
    with pytest.raises(carddb.DatabaseError) as again:
        carddb.load("cards.yaml")
    assert len(parses) == 1
    found = [str(p) for p in again.value.problems]
    assert found == [str(p) for p in first.value.problems] == cold(monkeypatch)
    assert any("duplicate key 'title'" in p for p in found)


@pytest.mark.parametrize("damage", [b"", b"carddb-cache-2 yaml\n" + b"\0" * 40, None])
def test_a_damaged_entry_is_parsed_afresh(project, monkeypatch, parses, tmp_path, damage):
    carddb.load("cards.yaml")
    (entry,) = (tmp_path / "cache").glob("*.yaml.pickle")
    data = entry.read_bytes()
    # a flipped byte in the payload: it may still unpickle, its digest no longer matches
    entry.write_bytes(damage if damage is not None else data[:-3] + bytes([data[-3] ^ 1])
                      + data[-2:])
    write_ships(project, " (edited)", count=13)
    db = carddb.load("cards.yaml")
    assert len(parses) == 2
    assert db == cold(monkeypatch)
