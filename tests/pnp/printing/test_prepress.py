"""Prepress findings of issue 33, each measured on rendered pages as it was found:
bleed beside an empty slot of a partly filled sheet (front, back, fold), paint that
stops exactly at a trim, cut guides that survive the cutting order, and more."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pnp.artefacts import build as b
from pnp.draw.fonts import register_fonts

PT = 72 / 25.4
SCALE = 4  # 288 dpi


@pytest.fixture(scope="module")
def fonts(tmp_path_factory):
    return register_fonts({}, tmp_path_factory.mktemp("proj"))


@pytest.fixture
def build(fonts, make_db, standin):
    """build(folder, decks=..., **Options fields) -> Written (with its layout report)."""

    def run(tmp_path, *, decks, only="main", size=(63.5, 88.9), paper="letter", **options):
        db = make_db(tmp_path / "proj", decks=decks, size=size, paper=paper)
        art = b.artefacts(db, only=only)[0]
        opts = replace(b.options_from_profile(db.print), **options)
        return b.build_artefact(db, art, opts, standin(db, fonts), fonts, tmp_path / "out")

    return run


def render(path) -> list:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        return [doc[i].render(scale=SCALE).to_pil().convert("RGB") for i in range(len(doc))]
    finally:
        doc.close()


def white_beyond(image, trim_mm, edge: str, depth=(0.4, 1.4)) -> float:
    """The share of white pixels in a strip just outside one edge of a trim box (mm from
    the page's top-left, as the layout report gives it): `depth` mm out from the trim,
    along the middle 80 % of the edge (the cut guides sit at the corners)."""
    x, y, w, h = trim_mm
    px = PT * SCALE
    if edge in ("left", "right"):
        x0 = x - depth[1] if edge == "left" else x + w + depth[0]
        box = (x0, y + 0.1 * h, x0 + depth[1] - depth[0], y + 0.9 * h)
    else:
        y0 = y - depth[1] if edge == "top" else y + h + depth[0]
        box = (x + 0.1 * w, y0, x + 0.9 * w, y0 + depth[1] - depth[0])
    crop = image.crop(tuple(round(v * px) for v in box))
    from PIL import ImageChops

    r, g, b_ = crop.split()
    least = ImageChops.darker(r, ImageChops.darker(g, b_))  # white: every channel >= 250
    return sum(least.histogram()[250:]) / (crop.width * crop.height)


def unpainted_edges(result) -> list[tuple[int, str, str]]:
    """(page, card, edge) for every card edge of every page with white paper right
    outside its trim (more than 2 % of the strip)."""
    images = render(result.path)
    out = []
    for page in result.layout:
        image = images[page["page"] - 1]
        for card in page["cards"]:
            for edge in ("left", "right", "top", "bottom"):
                if white_beyond(image, card["trim_mm"], edge) > 0.02:
                    out.append((page["page"], card["name"], edge))
    return out


@pytest.mark.parametrize("paper", ["letter", "a4"])
@pytest.mark.parametrize("count", [4, 5, 7, 8])
def test_partly_filled_sheet_bleeds_on_every_edge_front_and_back(tmp_path, build, cards,
                                                                 paper, count):
    """Issue 33: a card beside an empty slot kept no bleed on that edge."""
    result = build(tmp_path, decks={"main": cards(count)}, paper=paper)
    assert [p["side"] for p in result.layout] == ["front", "back"]
    assert sum(len(p["cards"]) for p in result.layout) == 2 * count
    assert unpainted_edges(result) == []


@pytest.mark.parametrize("paper", ["letter", "a4"])
@pytest.mark.parametrize(("size", "count"), [((63.5, 88.9), 3), ((44.45, 63.5), 3),
                                             ((44.45, 63.5), 5), ((44.45, 63.5), 7)])
def test_partly_filled_fold_sheet_bleeds_on_every_edge(tmp_path, build, cards, paper, size,
                                                       count):
    """Mini pairs abut in rows on both papers: a pair above an empty unit kept no bleed."""
    result = build(tmp_path, decks={"main": cards(count)}, paper=paper, fold=True, size=size)
    assert sum(len(p["cards"]) for p in result.layout) == count
    assert unpainted_edges(result) == []
