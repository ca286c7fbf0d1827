"""Remembered spreadsheet rows (carddb.cache `rows` entries, issue 24): a load after a
one-row edit reads one row afresh and gives exactly what a load without the cache gives
(cards, their order and source lines); a row with a problem is reported at its cell
every time; a changed declaration, an inserted row or a damaged cache file are handled;
checks across cards (duplicate names) and image files still run for remembered rows."""

from __future__ import annotations

from pathlib import Path

import pytest

import carddb
from carddb import sheets

CARDS = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  harbour:
    title: Harbour
    players: {min: 2, max: 4}
    types:
      Ship:
        fields:
          speed: {type: int, min: 1, max: 6}
          flag: {type: enum, values: [red, blue]}
          crew: {type: list, of: text, default: []}
          art: optional image
    decks:
      ships:
        title: Ships
        size: poker
        back: {title: Harbour}
        cards: {from: ships.csv, type: Ship}
"""
HEADER = "name,flag,speed,crew,text,art"


def row(i: int, speed: int | str | None = None, art: str = "") -> str:
    return (f"Ship {i},{'red' if i % 2 else 'blue'},{speed or 1 + i % 6},a; b,"
            f"Sails {i}.,{art}")


@pytest.fixture
def project(tmp_path, monkeypatch):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "cards.yaml").write_text(CARDS)
    write(folder, [row(i) for i in range(40)])
    monkeypatch.chdir(folder)
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def write(folder: Path, rows: list[str]) -> None:
    (folder / "ships.csv").write_text("\n".join([HEADER, *rows]) + "\n")


@pytest.fixture
def fresh_rows(monkeypatch):
    """How many rows each load reads afresh (not from remembered rows)."""
    calls: list[int] = []
    real = sheets._read_row

    def counted(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(sheets, "_read_row", counted)
    return calls


def load():
    return carddb.load("cards.yaml")


def cold(monkeypatch):
    """The database or problems of a load with no cache at all."""
    with monkeypatch.context() as m:
        m.setenv("PNP_CACHE_DIR", "off")
        path = Path("cards.yaml")
        try:
            return carddb.parse(path.read_bytes(), path.resolve(), "cards.yaml")
        except carddb.DatabaseError as exc:
            return [str(p) for p in exc.problems]


def problems():
    with pytest.raises(carddb.DatabaseError) as info:
        load()
    return [str(p) for p in info.value.problems]


def ships(db):
    return db.games["harbour"].decks["ships"].cards


def test_one_row_edited_reads_one_row_and_equals_a_load_without_cache(project, monkeypatch,
                                                                     fresh_rows):
    first = load()
    assert len(fresh_rows) == 40
    rows = [row(i) for i in range(40)]
    rows[17] = row(17, speed=5).replace("Sails 17.", "Sails 17 (edited).")
    write(project, rows)
    fresh_rows.clear()
    db = load()
    assert fresh_rows == [19]                   # row 19 of the sheet: the 18th card
    assert db is not first and db == cold(monkeypatch)
    edited = ships(db)[17]
    assert (edited.text, edited.fields["speed"], edited.source.line) == ("Sails 17 (edited).", 5, 19)
    assert [(c.name, c.source) for c in ships(db)] == \
        [(c.name, c.source) for c in ships(cold(monkeypatch))]
    assert ships(db)[3].fields == {"flag": "red", "speed": 4, "crew": ["a", "b"]}


def test_a_row_made_invalid_is_reported_at_its_cell_every_time(project, monkeypatch):
    load()
    rows = [row(i) for i in range(40)]
    rows[9] = row(9, speed="lots")
    write(project, rows)
    found = problems()
    assert found == cold(monkeypatch)
    assert any(p.startswith("ships.csv:11:C:") and "got text 'lots'" in p for p in found)
    assert problems() == found                  # not remembered: found afresh again
    rows[9] = row(9, speed=9)
    write(project, rows)
    assert any(p.startswith("ships.csv:11:C:") and "at most 6" in p for p in problems())
    write(project, [row(i) for i in range(40)])
    assert load() == cold(monkeypatch)


def test_a_row_inserted_at_the_top_moves_every_line_and_reads_one_row(project, monkeypatch,
                                                                    fresh_rows):
    load()
    fresh_rows.clear()
    write(project, [row(99), *[row(i) for i in range(40)]])
    db = load()
    assert fresh_rows == [2]
    assert db == cold(monkeypatch)
    assert [c.source.line for c in ships(db)] == list(range(2, 43))
    assert ships(db)[1].name == "Ship 0" and ships(db)[1].source.line == 3


def test_a_changed_declaration_reads_every_row_again(project, monkeypatch, fresh_rows):
    load()
    fresh_rows.clear()
    cards = project / "cards.yaml"
    cards.write_text(CARDS.replace("min: 1, max: 6", "min: 1, max: 3"))
    found = problems()
    assert len(fresh_rows) == 40
    assert found == cold(monkeypatch)
    assert any(p.startswith("ships.csv:5:C:") and "at most 3" in p for p in found)
    cards.write_text(CARDS.replace("crew: {type: list, of: text, default: []}", "crew: text"))
    fresh_rows.clear()
    db = load()
    assert len(fresh_rows) == 40 and ships(db)[0].fields["crew"] == "a; b"


def test_a_duplicate_name_among_remembered_rows_is_still_found(project, monkeypatch):
    load()
    rows = [row(i) for i in range(40)]
    rows[30] = rows[30].replace("Ship 30", "Ship 4")
    write(project, rows)
    found = problems()
    assert found == cold(monkeypatch)
    assert any("ships.csv:32:A:" in p and "duplicate card name 'Ship 4'" in p
               and "first at ships.csv:6:A" in p for p in found)


def test_a_remembered_row_checks_its_image_again(project, monkeypatch):
    (project / "art.png").write_bytes(b"png")
    rows = [row(i) for i in range(40)]
    rows[5] = row(5, art="art.png")
    write(project, rows)
    assert ships(load())[5].image is None and ships(load())[5].fields["art"] == "art.png"
    (project / "art.png").unlink()
    rows[6] = row(6, speed=2)                   # another row edited: the sheet is read again
    write(project, rows)
    found = problems()
    assert found == cold(monkeypatch)
    assert any(p.startswith("ships.csv:7:F:") and "not found" in p for p in found)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty"])
def test_a_damaged_rows_file_is_no_rows(project, monkeypatch, fresh_rows, damage):
    load()
    files = sorted((project.parent / "cache").glob("*.rows*.pickle"))
    assert files
    for file in files:
        data = file.read_bytes()
        file.write_bytes({"garbage": b"\x80\x05not a pickle", "truncated": data[:len(data) // 2],
                          "flipped": data[:-40] + bytes([data[-40] ^ 1]) + data[-39:],
                          "empty": b""}[damage])
    write(project, [row(i) for i in range(41)])
    fresh_rows.clear()
    db = load()
    assert len(fresh_rows) == 41 and db == cold(monkeypatch)


def test_no_cache_folder_or_an_unwritable_one_reads_every_row(project, monkeypatch,
                                                              fresh_rows, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PNP_CACHE_DIR", str(blocker / "cache"))
    for n in (40, 41):
        write(project, [row(i) for i in range(n)])
        fresh_rows.clear()
        assert len(ships(load())) == n and len(fresh_rows) == n
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    write(project, [row(i) for i in range(42)])
    fresh_rows.clear()
    assert len(ships(load())) == 42 and len(fresh_rows) == 42


def test_an_xlsx_row_edit_reads_one_row(project, monkeypatch, fresh_rows):
    openpyxl = pytest.importorskip("openpyxl")

    def save(speed_of_3):
        book = openpyxl.Workbook()
        ws = book.active
        ws.title = "Fleet"
        ws.append(["name", "flag", "speed", "crew"])
        for i in range(20):
            ws.append([f"Ship {i}", "red", speed_of_3 if i == 3 else 2, "x; y"])
        book.save(project / "fleet.xlsx")

    (project / "cards.yaml").write_text(CARDS.replace("{from: ships.csv, type: Ship}",
                                                      "{from: fleet.xlsx, sheet: Fleet, type: Ship}"))
    save(2)
    load()
    save(4.0)                                   # a number cell: read as the int 4
    fresh_rows.clear()
    db = load()
    assert fresh_rows == [5] and db == cold(monkeypatch)
    assert ships(db)[3].fields["speed"] == 4 and type(ships(db)[3].fields["speed"]) is int
