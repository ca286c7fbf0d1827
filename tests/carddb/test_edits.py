"""A load after a spreadsheet edit (carddb.edits, issue 36 item 2): a row changed in place
is validated and put in the last valid database, without validating the database anew,
and gives exactly what a load without the cache gives; a row edited into a problem (its
own, a name another row has, a rules declaration naming it) is reported exactly as a
load without the cache reports it; what the kept result depends on changing (cards.yaml,
an image a kept row names, the header, a translation) makes the load validate afresh."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import carddb
from carddb import validate

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
          flag: {type: enum, values: [red, blue]}
          crew: {type: list, of: text, default: []}
          art: optional image
    effects:
      Ship 3: {pool: {lantern: +1}}
    tokens:
      lantern: {name: Lantern, label: "L", count: 20, start: 2, per: shared}
    decks:
      ships:
        title: Ships
        size: poker
        back: {title: Harbour}
        cards: {from: ships.csv, type: Ship}
      storms:
        title: Storms
        size: poker
        back: {title: Harbour}
        cards:
          - {name: Squall, type: Ship, speed: 2, flag: red, text: "Wind."}
"""
HEADER = "name,flag,speed,crew,text,art"


def row(i: int, speed: int | str | None = None, text: str | None = None, name: str | None = None,
        art: str = "", copies: str = "") -> str:
    return (f"{name or f'Ship {i}'},{'red' if i % 2 else 'blue'},{speed or 1 + i % 6},a; b,"
            f"{text or f'Sails {i}.'},{art}" + (f",{copies}" if copies else ""))


def write(folder: Path, rows: list[str], header: str = HEADER) -> None:
    (folder / "ships.csv").write_text("\n".join([header, *rows]) + "\n")


@pytest.fixture
def project(tmp_path, monkeypatch):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "cards.yaml").write_text(CARDS)
    write(folder, [row(i) for i in range(30)])
    monkeypatch.chdir(folder)
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    return folder


@pytest.fixture
def validations(monkeypatch):
    """How many times a load with the cache validates the database whole (`cold` does
    each time)."""
    calls: list[int] = []
    real = validate.validate

    def counted(*args, **kwargs):
        if os.environ.get("PNP_CACHE_DIR") != "off":
            calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(validate, "validate", counted)
    return calls


def cold(monkeypatch):
    """The database, or its problems, of a load with no cache at all."""
    with monkeypatch.context() as m:
        m.setenv("PNP_CACHE_DIR", "off")
        path = Path("cards.yaml")
        try:
            return carddb.parse(path.read_bytes(), path.resolve(), "cards.yaml")
        except carddb.DatabaseError as exc:
            return [str(p) for p in exc.problems]


def fresh_process() -> None:
    """What a new process knows: only the cache folder."""
    carddb._cache.clear()


def problems() -> list[str]:
    with pytest.raises(carddb.DatabaseError) as info:
        carddb.load("cards.yaml")
    return [str(p) for p in info.value.problems]


def cards_of(db) -> list[tuple]:
    """Every card with its fields in order (a dataclass's == ignores a dict's order)."""
    return [(c, list(c.fields.items())) for g in db.games.values() for d in g.decks.values()
            for c in d.cards]


@pytest.mark.parametrize("resident", [True, False])
def test_a_row_changed_in_place_is_taken_without_validating_anew(project, monkeypatch,
                                                                 validations, resident):
    carddb.load("cards.yaml")
    assert len(validations) == 1
    rows = [row(i) for i in range(30)]
    for k, speed in ((17, 5), (4, 2), (17, 6)):          # one edit after another
        rows[k] = row(k, speed=speed, text=f"Sails {k} at {speed}.")
        write(project, rows)
        if not resident:
            fresh_process()
        db = carddb.load("cards.yaml")
        expected = cold(monkeypatch)
        assert db == expected and cards_of(db) == cards_of(expected)
        edited = db.games["harbour"].decks["ships"].cards[k]
        assert (edited.fields["speed"], edited.text, edited.source.line) == (speed, rows[k].split(",")[4], k + 2)
    assert len(validations) == 1
    assert carddb.fingerprint("cards.yaml") is not None


def test_the_validation_modules_are_not_imported_for_a_row_edit(project, tmp_path):
    import subprocess

    carddb.load("cards.yaml")
    write(project, [row(i, speed=5 if i == 7 else None) for i in range(30)])
    code = ("import sys, carddb; carddb.load('cards.yaml'); "
            "print(sorted(m for m in sys.modules if m.startswith('carddb.')))")
    root = Path(carddb.__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PNP_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(root),
                              "PATH": ""}, check=True)
    loaded = eval(run.stdout)
    assert "carddb.edits" in loaded
    for name in ("carddb.validate", "carddb.gamerules", "carddb.rules", "carddb.expr",
                 "carddb.icons", "carddb.dice", "carddb.specs"):
        assert name not in loaded


@pytest.mark.parametrize("resident", [True, False])
@pytest.mark.parametrize("edit, expected", [
    ({"speed": "lots"}, "ships.csv:12:C: games.harbour.decks.ships.cards[10].speed"),
    ({"speed": "9"}, "at most 6"),
    ({"name": "Ship 4"}, "duplicate card name 'Ship 4' (first at ships.csv:6:A)"),
    ({"name": "Squall"}, "duplicate card name 'Squall'"),
    ({"art": "missing.png"}, "ships.csv:12:F"),
    ({"copies": "0"}, "copies"),
])
def test_a_row_edited_into_a_problem_is_reported_as_without_the_cache(project, monkeypatch,
                                                                      resident, edit, expected):
    header = HEADER + (",copies" if "copies" in edit else "")
    write(project, [row(i, copies="1" if "copies" in edit else "") for i in range(30)], header)
    carddb.load("cards.yaml")
    rows = [row(i, copies="1" if "copies" in edit else "") for i in range(30)]
    rows[10] = row(10, **edit) if "copies" in edit else row(10, **edit)
    write(project, rows, header)
    if not resident:
        fresh_process()
    found = problems()
    assert found == cold(monkeypatch)
    assert any(expected in p for p in found), found
    assert problems() == found                  # a problem is never remembered


def test_a_rename_a_rules_declaration_names_is_reported_as_without_the_cache(project,
                                                                            monkeypatch):
    carddb.load("cards.yaml")
    rows = [row(i) for i in range(30)]
    rows[3] = row(3, name="Ship Three")
    write(project, rows)
    found = problems()
    assert found == cold(monkeypatch)
    assert any("'Ship 3' is not a card or card type" in p for p in found), found
    rows[3] = row(3)
    write(project, rows)
    assert carddb.load("cards.yaml") == cold(monkeypatch)


def test_a_rename_no_check_minds_is_validated_whole(project, monkeypatch, validations):
    carddb.load("cards.yaml")
    rows = [row(i) for i in range(30)]
    rows[20] = row(20, name="Ship Twenty")
    write(project, rows)
    db = carddb.load("cards.yaml")
    assert len(validations) == 2 and db == cold(monkeypatch)
    assert db.languages == cold(monkeypatch).languages


def test_a_changed_declaration_is_not_taken_from_the_kept_rows(project, monkeypatch):
    carddb.load("cards.yaml")
    cards = project / "cards.yaml"
    cards.write_text(CARDS.replace("min: 1, max: 6", "min: 1, max: 3"))
    rows = [row(i) for i in range(30)]
    rows[1] = row(1, text="Edited.")
    write(project, rows)
    found = problems()
    assert found == cold(monkeypatch)
    assert any(p.startswith("ships.csv:5:C:") and "at most 3" in p for p in found)


def test_an_image_a_kept_row_names_gone_is_reported(project, monkeypatch):
    (project / "art.png").write_bytes(b"png")
    rows = [row(i, art="art.png" if i == 5 else "") for i in range(30)]
    write(project, rows)
    carddb.load("cards.yaml")
    (project / "art.png").unlink()
    rows[6] = row(6, speed=2)                   # another row edited
    write(project, rows)
    found = problems()
    assert found == cold(monkeypatch)
    assert any(p.startswith("ships.csv:7:F:") and "not found" in p for p in found)


@pytest.mark.parametrize("change", ["header", "added", "removed", "translated", "empty",
                                    "a card translated"])
def test_what_the_rows_do_not_tell_is_validated_whole(project, monkeypatch, validations, change):
    if change == "a card translated":       # every Ship's text is then one to translate
        (project / "cards.yaml").write_text(CARDS.replace('text: "Wind."',
                                                          'text: {en: Wind., de: Wind.}'))
    carddb.load("cards.yaml")
    rows = [row(i) for i in range(30)]
    header = HEADER
    if change == "header":
        header = "name,flag,speed,crew,text,art,flavor"
        rows = [r + ",Salt." for r in rows]
    elif change == "added":
        rows.append(row(30))
    elif change == "removed":
        rows.pop(12)
    elif change == "translated":
        header = HEADER + ",text@de"
        rows = [r + (",Segelt." if i == 2 else ",") for i, r in enumerate(rows)]
    elif change == "empty":
        rows[12] = ",,,,,"
    else:                                   # a text left out: no translation missing now
        rows[12] = "Ship 12,blue,1,a; b,,"
    write(project, rows, header)
    expected = cold(monkeypatch)
    if change == "empty":
        assert problems() == expected
    else:
        db = carddb.load("cards.yaml")
        assert db == expected and cards_of(db) == cards_of(expected)
        assert db.languages == expected.languages
    assert len(validations) == 2


def test_a_resident_process_forgets_the_databases_it_replaced(project):
    import gc

    from carddb import cache

    carddb.load("cards.yaml")
    held = len(cache._edits)
    rows = [row(i) for i in range(30)]
    for k in range(5):                      # a watch: one load after every edit
        rows[k] = row(k, text=f"Edit {k}.")
        write(project, rows)
        carddb.load("cards.yaml")
    gc.collect()                            # (other tests' databases may go too)
    assert len(cache._edits) <= held and len(cache._facts) <= held
