"""`python -m pnp build` end to end on the bundled cards.yaml with the real renderer."""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

import pytest
from pypdf import PdfReader

import carddb
from tests.harness import run_cli
from tests.pdftext import words

ROOT = Path(__file__).resolve().parents[3]
PT = 72 / 25.4


pnp = partial(run_cli, "pnp")


@pytest.fixture(scope="module")
def built(bundled_build):
    """One full build (bundled database, default output folder, Letter: the database's
    own paper), shared with test_home_printer (printing/conftest.py)."""
    folder, _, result = bundled_build("letter")
    return folder, result


def test_every_artefact_of_both_games(built):
    folder, result = built
    db = carddb.load(folder / "cards.yaml")
    expected = {f"{g}/{d}" for g, game in db.games.items() for d in game.decks}
    expected |= {"xo/mats", "xo/mats-tiled", "xo/dice-labels", "x-statix/tokens",
                 "xo/reference", "x-statix/reference", "xo/calibration",
                 "x-statix/calibration"}
    written = {f"{p.parent.name}/{p.stem}" for p in (folder / "output").glob("*/*.pdf")}
    assert written == expected
    # the final table names every file with its pages and cards
    for name in expected:
        assert f"output/{name}.pdf" in result.stderr     # (--json: the table on stderr)


def test_decks_count_copies_and_carry_every_name(built):
    folder, result = built
    db = carddb.load(folder / "cards.yaml")
    rows = {line.split()[0]: line.split()[1:] for line in result.stderr.splitlines()
            if line.startswith("output/")}
    for gid, game in db.games.items():
        for deck_id, deck in game.decks.items():
            path = folder / "output" / gid / f"{deck_id}.pdf"
            pdf = PdfReader(path)
            pages, cards = rows[f"output/{gid}/{deck_id}.pdf"]
            assert int(cards) == deck.count == sum(c.copies for c in deck.cards)
            per_sheet = _cards_on_page(pdf, 0)  # 9 poker/bridge, 16 mini on Letter
            expected = {63.5: 9, 57.15: 9, 44.45: 16}[deck.size_mm[0]]
            if deck_id == "objectives":
                # blue and red bleeds: layout auto will not abut the rows, and gutters
                # between them leave room for two rows only (3 x 2)
                expected = 6
            assert per_sheet == min(deck.count, expected), deck_id
            assert int(pages) == len(pdf.pages) == 2 * -(-deck.count // per_sheet)  # + backs
            box = pdf.pages[0].mediabox
            assert round(float(box.width) / PT, 1) == 215.9
            assert round(float(box.height) / PT, 1) == 279.4
            text = words(path, range(0, len(pdf.pages), 2))  # the fronts
            for card in deck.cards:
                assert " ".join(card.name.split()) in text, (deck_id, card.name)


def _cards_on_page(pdf: PdfReader, index: int) -> int:
    """Cards on a page of fronts: the build clips each card to its area in a graphics
    state of its own (`q ... re W n` one level deep); the renderer's own clips nest
    deeper."""
    from pypdf.generic import ContentStream

    ops = ContentStream(pdf.pages[index].get_contents(), pdf).operations
    depth, cards = 0, 0
    for i, (_, op) in enumerate(ops[:-1]):
        if op == b"q":
            depth += 1
        elif op == b"Q":
            depth -= 1
        elif op == b"re" and ops[i + 1][1] in (b"W", b"W*") and depth == 1:
            cards += 1
    return cards


def test_fonts_embedded_everywhere(built):
    folder, _ = built
    for path in (folder / "output").glob("*/*.pdf"):
        data = path.read_bytes()
        assert b"/FontFile2" in data, path
        assert b"/Helvetica" not in data, path  # no unembedded standard font


def test_second_build_is_byte_identical(built):
    folder, _ = built
    again = folder / "again"
    result = pnp("build", "--game", "x-statix", "--out", str(again), cwd=folder)
    assert result.returncode == 0, result.stderr
    written = list(again.glob("x-statix/*.pdf")) + list(again.glob("x-statix/*.layout.json"))
    assert len(written) == 2 * len(list(again.glob("x-statix/*.pdf")))  # a report per PDF
    for path in written:
        assert path.read_bytes() == (folder / "output" / "x-statix" / path.name).read_bytes()


def test_template_syntax_error_is_one_line(tmp_path):
    shutil.copy(ROOT / "cards.yaml", tmp_path / "cards.yaml")
    (tmp_path / "templates" / "x-statix").mkdir(parents=True)
    (tmp_path / "templates" / "x-statix" / "owner.j2").write_text("- rect: {% if %}\n")
    result = pnp("build", "--only", "owners", "--out", "out", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "owner.j2" in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_missing_image_is_one_line(tmp_path):
    text = (ROOT / "cards.yaml").read_text()
    old = "{name: Coach, type: Owner,"
    assert old in text
    (tmp_path / "cards.yaml").write_text(text.replace(old, old + " image: art/coach.png,"))
    result = pnp("build", "--only", "owners", "--out", "out", cwd=tmp_path)
    assert result.returncode == 1
    assert "art/coach.png" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_no_glyph_below_6_pt_in_any_artefact(built, kit):
    """Issue 12: after every scaling (design sizes mapped onto bridge and mini cards, forms,
    tiles) no printed glyph of any artefact is below print.min_text_pt, 6 pt; and every
    glyph comes from an embedded font."""
    folder, result = built
    assert "warning" not in result.stderr           # and nothing had to be cut for it
    paths = sorted((folder / "output").glob("*/*.pdf"))
    assert len(paths) == 21
    for path in paths:
        glyphs = kit.glyphs(path)
        assert glyphs, path                          # every artefact prints some text
        smallest = min(glyphs, key=lambda g: g.size)
        assert smallest.size >= 6 - 0.01, (path.name, smallest)
        assert all(g.embedded for g in glyphs), path.name
