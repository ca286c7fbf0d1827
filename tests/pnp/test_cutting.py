"""`pnp export cut --machine silhouette|cricut` (issue 17 item 3, issue 22 item 8): per
sheet, the print PDF with the machine's registration marks and an SVG of the cut paths,
as many cards a sheet as the machine's registered area holds, through the real CLI on the
project `pnp init` writes (deck `ships`: 7 poker cards)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import astuple
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from pnp.exports.cutting import CLEARANCE_MM, MACHINES, STANDARD_CORNER_MM, Area, cut_sheet
from tests.harness import run_cli

SVG = "{http://www.w3.org/2000/svg}"
DPI = 150
PX = DPI / 25.4            # pixels per mm
LETTER = (215.9, 279.4)
A4 = (210.0, 297.0)
POKER = (63.5, 88.9)
ROOT = Path(__file__).resolve().parents[2]
# What each machine makes of the 7 poker cards on Letter: the page (mm, as printed),
# the grid, the cards on each sheet.
EXPECTED = {"silhouette": ((279.4, 215.9), [4, 2], [8, 4]),   # landscape, 8 a sheet
            "cricut": (LETTER, [2, 2], [4, 4, 4])}            # the 6.75 x 9.25 in area




@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("cut")
    done = run_cli("pnp", "init", str(root / "proj"))
    assert done.returncode == 0, done.stderr
    return root / "proj"


@pytest.fixture(scope="module")
def exported(project, tmp_path_factory):
    """machine -> output folder of `pnp export cut --deck ships --machine M`."""
    outs = {}
    for name in MACHINES:
        out = tmp_path_factory.mktemp(name)
        done = run_cli("pnp", "export", "cut", "--machine", name, "--deck", "ships",
                       "--out", str(out), cwd=project)
        assert done.returncode == 0, done.stderr
        outs[name] = out / "harbour"
    return outs


def report(folder):
    return json.loads((folder / "ships.layout.json").read_text())


def svg_rects(path, page=LETTER):
    root = ET.parse(path).getroot()
    assert root.get("viewBox") == f"0 0 {page[0]:g} {page[1]:g}"
    assert root.get("width") == f"{page[0]:g}mm"
    return [(r.find(f"{SVG}title").text,
             [float(r.get(k)) for k in ("x", "y", "width", "height")], float(r.get("rx")))
            for r in root.iter(f"{SVG}rect")]


def sheet_pixels(pdf_path):
    doc = pdfium.PdfDocument(str(pdf_path))
    assert len(doc) == 1
    image = doc[0].render(scale=DPI / 72).to_pil().convert("L")
    doc.close()
    return image


def dark(image, x_mm, y_mm) -> bool:
    return image.getpixel((int(x_mm * PX), int(y_mm * PX))) < 64


def white(image, x_mm, y_mm) -> bool:
    return image.getpixel((int(x_mm * PX), int(y_mm * PX))) > 250


def painted(trim, bleed):
    x, y, w, h = trim
    return x - bleed, y - bleed, x + w + bleed, y + h + bleed


def assert_only_cards_and_marks(image, machine, page, cards, bleed):
    """Paint out the machine's documented marks and every card with its bleed (0.3 mm
    grown): the rest of the sheet is white paper."""
    from PIL import ImageDraw

    image = image.copy()
    draw = ImageDraw.Draw(image)
    g = 0.3
    for mark in machine.marks(*page):
        t = mark.stroke / 2
        x0, y0, x1, y1 = mark.x - t - g, mark.y - t - g, mark.x + mark.w + t + g, \
            mark.y + mark.h + t + g
        if mark.stroke:                         # an outline: paint out its four sides
            for box in ((x0, y0, x1, y0 + 2 * (t + g)), (x0, y1 - 2 * (t + g), x1, y1),
                        (x0, y0, x0 + 2 * (t + g), y1), (x1 - 2 * (t + g), y0, x1, y1)):
                draw.rectangle([v * PX for v in box], fill=255)
        else:
            draw.rectangle([v * PX for v in (x0, y0, x1, y1)], fill=255)
    for card in cards:
        x0, y0, x1, y1 = painted(card["trim_mm"], bleed + g)
        draw.rectangle([v * PX for v in (x0, y0, x1, y1)], fill=255)
    assert image.getextrema()[0] > 250


def assert_in_registered_area(machine, page, cards, bleed):
    """Every card with its bleed lies in one of the machine's areas, and at least
    CLEARANCE_MM from every mark."""
    areas = machine.areas(*page)
    for card in cards:
        x0, y0, x1, y1 = painted(card["trim_mm"], bleed)
        assert any(a.x - 1e-3 <= x0 and x1 <= a.x + a.w + 1e-3 and a.y - 1e-3 <= y0
                   and y1 <= a.y + a.h + 1e-3 for a in areas), card
        for mark in machine.marks(*page):
            t = mark.stroke / 2
            gap = max(mark.x - t - x1, x0 - (mark.x + mark.w + t),
                      mark.y - t - y1, y0 - (mark.y + mark.h + t))
            if not mark.stroke:
                assert gap >= CLEARANCE_MM - 1e-3, (card, mark)


@pytest.mark.parametrize("name", list(MACHINES))
def test_cut_svg_outlines_are_the_layout_reports_trims(exported, name):
    folder = exported[name]
    page_size, grid, counts = EXPECTED[name]
    found = report(folder)
    pages = found["pages"]
    assert found["machine"] == name and found["grid"] == grid
    assert found["per_sheet"] == grid[0] * grid[1]
    assert [len(p["cards"]) for p in pages] == counts
    for page in pages:
        assert page["side"] == "front" and page["size_mm"] == list(page_size)
        rects = svg_rects(folder / f"ships-sheet-{page['page']}.svg", page_size)
        assert len(rects) == len(page["cards"])
        for (title, box, rx), card in zip(rects, page["cards"], strict=True):
            assert title == card["name"]
            assert all(abs(a - b) <= 0.1 for a, b in zip(box, card["trim_mm"], strict=True))
            assert rx == pytest.approx(STANDARD_CORNER_MM)          # 1/8 in rounding
        assert_in_registered_area(MACHINES[name], page_size, page["cards"], found["bleed_mm"])
    assert not (folder / f"ships-sheet-{len(counts) + 1}.pdf").exists()


def test_the_silhouette_sheet_holds_8_poker_cards_as_silhouette_card_maker(exported):
    # silhouette-card-maker (Alan-Cha/silhouette-card-maker, assets/layouts.json) puts 8
    # poker cards on landscape Letter, 4 x 2, with Silhouette's type 1 marks.
    found = report(exported["silhouette"])
    assert found["orientation"] == "landscape" and found["per_sheet"] == 8
    # The bleed is what the 8 leave: the deck's 3.175 mm would fit 6 (below).
    assert 0 < found["bleed_mm"] < 3.175


@pytest.mark.parametrize("name", list(MACHINES))
def test_cut_lines_lie_where_the_print_has_its_card_edges(exported, name):
    """Each outline's straight edges are the printed card's trim: ink just inside it, ink
    in its bleed where the bleed is wide enough to see, white paper 0.7 mm past the
    bleed's edge on the grid's outer sides."""
    folder = exported[name]
    page_size = EXPECTED[name][0]
    bleed = report(folder)["bleed_mm"]
    image = sheet_pixels(folder / "ships-sheet-1.pdf")
    rects = [box for _, box, _ in svg_rects(folder / "ships-sheet-1.svg", page_size)]
    left = min(x for x, _, _, _ in rects)
    top = min(y for _, y, _, _ in rects)
    for x, y, w, h in rects:
        mid_x, mid_y = x + w / 2, y + h / 2
        assert not white(image, x + 0.7, mid_y) and not white(image, mid_x, y + 0.7)
        if bleed >= 1:
            assert not white(image, x - bleed + 0.7, mid_y)
            assert not white(image, mid_x, y - bleed + 0.7)
        if x == left:
            assert white(image, x - bleed - 0.7, mid_y)
        if y == top:
            assert white(image, mid_x, y - bleed - 0.7)
    assert_only_cards_and_marks(image, MACHINES[name], page_size,
                                report(folder)["pages"][0]["cards"], bleed)


def test_silhouette_marks_where_silhouette_studio_prints_type_1(exported):
    """A 6 mm square 9.5 mm in from the top-left corner; L corners with 8.2 mm arms,
    1 mm thick, 9.5 mm in from the top-right and bottom-left corners; nothing at the
    bottom-right (as silhouette-card-maker's registration PDFs, printed by Studio)."""
    w, h = EXPECTED["silhouette"][0]
    image = sheet_pixels(exported["silhouette"] / "ships-sheet-1.pdf")
    assert dark(image, 12.5, 12.5) and dark(image, 9.9, 9.9) and dark(image, 15.1, 15.1)
    assert not dark(image, 9.0, 12.5) and not dark(image, 16.0, 12.5)
    assert not dark(image, 12.5, 16.0)
    # top-right L: a horizontal arm at y 9.5-10.5 from x W-17.7 to W-9.5, a vertical one down
    assert dark(image, w - 13, 10) and dark(image, w - 17.3, 10)
    assert not dark(image, w - 18.4, 10) and not dark(image, w - 13, 11.2)
    assert dark(image, w - 10, 13) and dark(image, w - 10, 17.3)
    assert not dark(image, w - 10, 18.4) and not dark(image, w - 9.0, 13)
    # bottom-left L
    assert dark(image, 13, h - 10) and dark(image, 10, h - 13)
    assert not dark(image, 18.4, h - 10) and not dark(image, 10, h - 18.4)
    # bottom-right: nothing
    assert all(not dark(image, w - d, h - d) for d in (10, 12.5, 17))


def test_cricut_frame_around_the_6_75_x_9_25_in_print_area(exported):
    w, h = LETTER
    m = MACHINES["cricut"]
    image = sheet_pixels(exported["cricut"] / "ships-sheet-1.pdf")
    ax, ay = (w - 6.75 * 25.4) / 2, (h - 9.25 * 25.4) / 2           # 22.225 mm both
    frame = m.gap + m.thickness / 2                                 # line's centre, out
    for x in (ax - frame, w - ax + frame):
        assert dark(image, x, h / 2) and dark(image, x, ay + 5)
        assert not dark(image, x - 1.2, h / 2) and not dark(image, x + 1.2, h / 2)
    for y in (ay - frame, h - ay + frame):
        assert dark(image, w / 2, y) and dark(image, ax + 5, y)


def test_registered_areas_are_the_documented_figures():
    w, h = LETTER
    band = 9.5 + 8.2 + CLEARANCE_MM               # inset + L arm + white: 18.7 mm
    rows, cols = MACHINES["silhouette"].areas(w, h)
    assert astuple(rows) == pytest.approx(astuple(Area(9.5, band, w - 19, h - 2 * band)))
    assert astuple(cols) == pytest.approx(astuple(Area(band, 9.5, w - 2 * band, h - 19)))
    (cricut,) = MACHINES["cricut"].areas(w, h)
    assert astuple(cricut) == pytest.approx((22.225, 22.225, 6.75 * 25.4, 9.25 * 25.4))


# silhouette-card-maker's cards a sheet (assets/layouts.json, Letter and A4, Silhouette
# type 1 marks) beside the sizes' nominal mm: pnp fits at least as many.
CARD_MAKER = [("letter", "standard", (63, 88), 8), ("letter", "poker", POKER, 8),
              ("letter", "bridge", (57.15, 88.9), 8), ("letter", "poker_half", (44.45, 63.5), 15),
              ("letter", "domino", (44.45, 88.9), 10),
              ("letter", "domino_square", (44.45, 44.45), 20),
              ("a4", "standard", (63, 88), 8), ("a4", "poker", POKER, 8),
              ("a4", "bridge", (57.15, 88.9), 8)]


@pytest.mark.parametrize("paper, size, card, theirs", CARD_MAKER)
def test_as_dense_as_silhouette_card_maker(paper, size, card, theirs):
    m = MACHINES["silhouette"]
    sheet = cut_sheet(m, LETTER if paper == "letter" else A4, *card, 3.175)
    assert sheet.per_sheet >= theirs, (size, sheet)
    cards = [{"trim_mm": list(t)} for t in sheet.trims]
    assert_in_registered_area(m, (sheet.page_w, sheet.page_h), cards, sheet.bleed)
    assert 0 <= sheet.bleed <= 3.175
    # no neighbour's bleed overlaps a card's: gutters of two bleeds
    for a in sheet.trims:
        for b in sheet.trims:
            if a != b:
                pa, pb = painted(a, sheet.bleed), painted(b, sheet.bleed)
                assert pa[2] <= pb[0] + 1e-6 or pb[2] <= pa[0] + 1e-6 \
                    or pa[3] <= pb[1] + 1e-6 or pb[3] <= pa[1] + 1e-6


def test_a_fixed_bleed_takes_the_densest_grid_that_keeps_it(project, tmp_path, cli):
    sheet = cut_sheet(MACHINES["silhouette"], LETTER, *POKER, 3.175, fixed=True)
    assert (sheet.cols, sheet.rows, sheet.landscape, sheet.bleed) == (3, 2, True, 3.175)
    done = cli("pnp", "export", "cut", "--machine", "silhouette", "--deck", "ships",
               "--bleed", "3.175", "--out", str(tmp_path / "full"), cwd=project)
    assert done.returncode == 0, done.stderr
    assert "6 cards a sheet (3 x 2, letter landscape), bleed 3.175 mm" in done.stdout
    found = report(tmp_path / "full" / "harbour")
    assert found["bleed_mm"] == 3.175 and [len(p["cards"]) for p in found["pages"]] == [6, 6]
    dense = cli("pnp", "export", "cut", "--machine", "silhouette", "--deck", "ships",
                "--out", str(tmp_path / "dense"), cwd=project)
    assert "8 cards a sheet (4 x 2, letter landscape)" in dense.stdout
    assert "less than print.bleed_mm 3.175" in dense.stdout
    bad = cli("pnp", "export", "cut", "--machine", "silhouette", "--bleed", "-1",
              "--out", str(tmp_path / "bad"), cwd=project)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--bleed" in bad.stderr
    elsewhere = cli("pnp", "export", "png", "--bleed", "1", cwd=project)
    assert elsewhere.returncode == 2 and "--bleed goes with the cut target" in elsewhere.stderr


def test_unknown_machine_is_exit_2_with_one_line(project, tmp_path, cli):
    done = cli("pnp", "export", "cut", "--machine", "brother", "--out", str(tmp_path / "o"),
               cwd=project)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "unknown cutting machine 'brother' (choose silhouette, cricut)" in done.stderr
    assert not (tmp_path / "o").exists()
    missing = cli("pnp", "export", "cut", cwd=project)
    assert missing.returncode == 2 and "--machine" in missing.stderr
    assert missing.stderr.count("\n") == 1
    elsewhere = cli("pnp", "export", "png", "--machine", "cricut", cwd=project)
    assert elsewhere.returncode == 2 and "--machine goes with the cut target" in elsewhere.stderr


def test_a_card_too_big_for_the_marks_is_refused_in_one_line(project, tmp_path, cli):
    import shutil

    big = tmp_path / "big"
    shutil.copytree(project, big)
    yaml = big / "cards.yaml"
    yaml.write_text(yaml.read_text().replace("poker: [63.5, 88.9]", "poker: [180, 250]"))
    done = cli("pnp", "export", "cut", "--machine", "silhouette", "--out",
               str(tmp_path / "o"), cwd=big)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "does not fit" in done.stderr and "silhouette" in done.stderr
    assert not (tmp_path / "o").exists()                # refused before anything is drawn


def test_corner_radius_option_and_two_exports_are_byte_identical(project, exported,
                                                                 tmp_path, cli):
    out = tmp_path / "again"
    done = cli("pnp", "export", "cut", "--machine", "silhouette", "--deck", "ships",
               "--corner-radius", "0", "--out", str(out), cwd=project)
    assert done.returncode == 0, done.stderr
    assert {rx for _, _, rx in svg_rects(out / "harbour" / "ships-sheet-1.svg",
                                         EXPECTED["silhouette"][0])} == {0.0}
    first = (exported["silhouette"] / "ships-sheet-1.pdf").read_bytes()
    assert (out / "harbour" / "ships-sheet-1.pdf").read_bytes() == first
    stale = out / "harbour" / "ships-sheet-3.svg"       # from a longer deck before
    stale.write_text("<svg/>")
    again = cli("pnp", "export", "cut", "--machine", "silhouette", "--deck", "ships",
                "--out", str(out), cwd=project)
    assert again.returncode == 0 and not stale.exists()
    assert sorted(p.name for p in (out / "harbour").iterdir()) == [
        f"ships-sheet-{n}.{kind}" for n in (1, 2) for kind in ("dxf", "pdf", "svg")
    ] + ["ships.layout.json"]


def test_print_corner_radius_mm_sets_the_rounding(project, tmp_path, cli):
    import shutil

    own = tmp_path / "own"
    shutil.copytree(project, own)
    yaml = own / "cards.yaml"
    text = yaml.read_text()
    yaml.write_text(text.replace("  crop_marks: true\n",
                                 "  crop_marks: true\n  corner_radius_mm: 2\n"))
    done = cli("pnp", "export", "cut", "--machine", "cricut", "--deck", "ships",
               "--out", str(tmp_path / "o"), cwd=own)
    assert done.returncode == 0, done.stderr
    assert {rx for _, _, rx in svg_rects(tmp_path / "o" / "harbour" / "ships-sheet-2.svg")} \
        == {2.0}
    yaml.write_text(text.replace("  crop_marks: true\n",
                                 "  crop_marks: true\n  corner_radius_mm: 30\n"))
    bad = cli("pnp", "export", "cut", "--machine", "cricut", "--out", str(tmp_path / "b"),
              cwd=own)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1
    assert "print.corner_radius_mm" in bad.stderr
