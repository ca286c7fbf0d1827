"""Issue 24 item 5: the PDF code of a card's text kept with its stored plan
(pnp.draw.textcode) and reused by a later build only when the fonts stand as they stood:
the PDF of a build that reuses it is byte for byte the PDF of a build with no cache, also
when an edit gives a font new characters, brings a font in earlier, or makes text
translucent."""

from __future__ import annotations

from pathlib import Path

import pytest

from pnp.artefacts.project_build import BuildOptions, build_project
from pnp.cli.init import write_project
from pnp.draw.elements.text import Text
from tests.pnp.ships import ship_row, write_ships
from tests.pnp.starter_copies import fresh_copy

ROWS = 40
STAR = " \u2605"            # a character only the fallback font (DejaVu Sans) has


@pytest.fixture(scope="module")
def _starter(tmp_path_factory) -> Path:
    """The starter with its ships grown (written once; each test edits a copy)."""
    folder = tmp_path_factory.mktemp("starter") / "game"
    write_project(folder, None)
    # captains (italic) from ship 30 on, a star (the fallback font) at ship 35: an edit
    # bringing the star in earlier swaps the two fonts' names in the PDF
    rows = [ship_row(i, captain=None if i >= 30 else "",
                     text=f"Moves {i % 3} extra in calm weather; ship number {i}"
                          f"{STAR if i == 35 else ''}.") for i in range(ROWS)]
    # ASCII keeps its own codes in every font (ReportLab's subset 0): the characters
    # that move are the others
    rows.append(f"Last Ship,red,1,1,Captain Zoë,1,Jumps over the {ROWS} others: café, "
                "Müller \u2014 naïve!")
    write_ships(folder, rows)
    return folder


@pytest.fixture
def starter(_starter, playground) -> Path:
    """A fresh copy of the grown starter, at one path for every test
    (tests/pnp/starter_copies)."""
    return fresh_copy(_starter, playground)


def _ships(project: Path, out: Path, monkeypatch, cache: Path | None) -> bytes:
    monkeypatch.setenv("PNP_CACHE_DIR", str(cache) if cache is not None else "off")
    build_project(project, BuildOptions(out=out, only="ships", force=True) if cache is None
                  else BuildOptions(out=out, only="ships"))
    return (out / "harbour" / "ships.pdf").read_bytes()


def _painted(monkeypatch) -> list[int]:
    """Counts the text operations drawn the usual way (not from kept code)."""
    count = [0]
    paint = Text.paint

    def counting(self, c):
        count[0] += 1
        paint(self, c)

    monkeypatch.setattr(Text, "paint", counting)
    return count


def _edit(project: Path, old: str, new: str) -> None:
    ships = project / "ships.csv"
    text = ships.read_text()
    assert text.count(old) == 1
    ships.write_text(text.replace(old, new))


def test_a_rebuild_draws_the_text_of_unchanged_cards_from_kept_code(starter, tmp_path,
                                                                    monkeypatch):
    cache = tmp_path / "cache"
    _ships(starter, tmp_path / "first", monkeypatch, cache)
    _edit(starter, "ship number 20.", "ship number 20, edited.")
    painted = _painted(monkeypatch)
    edited = _ships(starter, tmp_path / "edited", monkeypatch, cache)
    drawn_afresh = painted[0]
    painted[0] = 0
    assert edited == _ships(starter, tmp_path / "cold", monkeypatch, None)
    assert drawn_afresh < painted[0] / 4       # the edited card and the first uses only


@pytest.mark.parametrize("old, new", [
    # characters no card had yet: the codes of later cards' characters move
    ("ship number 3.", "ship number 3: naïve \u2014 Müller"),
    # a font first drawn on an early card: its name in the PDF comes earlier
    ("ship number 2.", "ship number 2 \u2605."),
])
def test_kept_code_is_refused_when_an_edit_moves_the_fonts(starter, tmp_path, monkeypatch,
                                                           old, new):
    cache = tmp_path / "cache"
    _ships(starter, tmp_path / "first", monkeypatch, cache)
    _edit(starter, old, new)
    assert (_ships(starter, tmp_path / "edited", monkeypatch, cache)
            == _ships(starter, tmp_path / "cold", monkeypatch, None))
    # and back: the kept code of the first build is right again, or refused
    _edit(starter, new, old)
    assert (_ships(starter, tmp_path / "undone", monkeypatch, cache)
            == _ships(starter, tmp_path / "cold2", monkeypatch, None))


def test_translucent_text_and_text_after_a_translucent_shape(starter, tmp_path, monkeypatch):
    ship = starter / "templates" / "harbour" / "ship.j2"
    ship.write_text(ship.read_text()
                    + "- rect: {box: [8, 60, 20, 10], fill: '#ff0000', alpha: 0.5}\n"
                    + "- text: {box: [8, 60, 40, 6], text: {{ card.name }}, size: 8, "
                      "color: transparent, markup: false}\n"
                    + "- text: {box: [8, 70, 40, 6], text: {{ card.name ~ ' again' }}, size: 8, "
                      "markup: false}\n")
    cache = tmp_path / "cache"
    _ships(starter, tmp_path / "first", monkeypatch, cache)
    _edit(starter, "ship number 7.", "ship number 7 (again).")
    assert (_ships(starter, tmp_path / "edited", monkeypatch, cache)
            == _ships(starter, tmp_path / "cold", monkeypatch, None))
