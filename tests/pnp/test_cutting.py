"""`pnp export cut --machine silhouette|cricut` (issue 17 item 3): per sheet, the print PDF
with the machine's registration marks and an SVG of the cut paths, through the real CLI on
the project `pnp init` writes (deck `ships`: 7 poker cards)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from pnp.exports.cutting import CLEARANCE_MM, MACHINES, STANDARD_CORNER_MM

SVG = "{http://www.w3.org/2000/svg}"
DPI = 150
PX = DPI / 25.4            # pixels per mm
LETTER = (215.9, 279.4)
ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args, cwd=ROOT):
    """As the `cli` fixture (tests/conftest.py), for the module-scoped fixtures here."""
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


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


def svg_rects(path):
    root = ET.parse(path).getroot()
    assert root.get("viewBox") == f"0 0 {LETTER[0]:g} {LETTER[1]:g}"
    assert root.get("width") == f"{LETTER[0]:g}mm"
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


def assert_only_marks_in_band(image, machine, keep_out):
    """Within `keep_out` mm of the paper edges there is nothing but the machine's
    documented marks: paint them out (0.3 mm grown) and the band is white paper, so the
    cards and their bleed stay clear of the marks' zone."""
    from PIL import ImageDraw

    image = image.copy()
    draw = ImageDraw.Draw(image)
    g = 0.3
    for mark in machine.marks(*LETTER):
        t = mark.stroke / 2
        x0, y0, x1, y1 = mark.x - t - g, mark.y - t - g, mark.x + mark.w + t + g, \
            mark.y + mark.h + t + g
        if mark.stroke:                         # an outline: paint out its four sides
            for box in ((x0, y0, x1, y0 + 2 * (t + g)), (x0, y1 - 2 * (t + g), x1, y1),
                        (x0, y0, x0 + 2 * (t + g), y1), (x1 - 2 * (t + g), y0, x1, y1)):
                draw.rectangle([v * PX for v in box], fill=255)
        else:
            draw.rectangle([v * PX for v in (x0, y0, x1, y1)], fill=255)
    w_px, h_px = image.size
    k = int((keep_out - 0.2) * PX)
    for box in ((0, 0, w_px, k), (0, h_px - k, w_px, h_px), (0, 0, k, h_px),
                (w_px - k, 0, w_px, h_px)):
        assert image.crop(box).getextrema()[0] > 250, box


@pytest.mark.parametrize("name", list(MACHINES))
def test_cut_svg_outlines_are_the_layout_reports_trims(exported, name):
    folder = exported[name]
    report = json.loads((folder / "ships.layout.json").read_text())
    pages = report["pages"]
    assert report["machine"] == name and len(pages) == 2           # 7 cards, 4 a sheet
    assert [len(p["cards"]) for p in pages] == [4, 3]                # 2 x 2 poker
    for page in pages:
        assert page["side"] == "front" and page["size_mm"] == list(LETTER)
        rects = svg_rects(folder / f"ships-sheet-{page['page']}.svg")
        assert len(rects) == len(page["cards"])
        for (title, box, rx), card in zip(rects, page["cards"], strict=True):
            assert title == card["name"]
            assert all(abs(a - b) <= 0.1 for a, b in zip(box, card["trim_mm"], strict=True))
            assert rx == pytest.approx(STANDARD_CORNER_MM)          # 1/8 in rounding
    assert not (folder / "ships-sheet-3.pdf").exists()


@pytest.mark.parametrize("name", list(MACHINES))
def test_cut_lines_lie_where_the_print_has_its_card_edges(exported, name):
    """Each outline's straight edges sit one bleed inside the printed card's edge: ink
    inside the trim and in the bleed, white paper 0.7 mm past the bleed's edge on the
    grid's outer sides (between cards the neighbour's bleed follows)."""
    folder = exported[name]
    image = sheet_pixels(folder / "ships-sheet-1.pdf")
    rects = [box for _, box, _ in svg_rects(folder / "ships-sheet-1.svg")]
    left = min(x for x, _, _, _ in rects)
    top = min(y for _, y, _, _ in rects)
    bleed = 3.175
    for x, y, w, h in rects:
        mid_x, mid_y = x + w / 2, y + h / 2
        assert not white(image, x + 0.7, mid_y) and not white(image, x - bleed + 0.7, mid_y)
        assert not white(image, mid_x, y + 0.7) and not white(image, mid_x, y - bleed + 0.7)
        if x == left:
            assert white(image, x - bleed - 0.7, mid_y)
        if y == top:
            assert white(image, mid_x, y - bleed - 0.7)


def test_silhouette_marks_where_silhouette_studio_places_type_1(exported):
    """A 5 mm square 10 mm in from the top-left corner; L corners 20 mm long and 0.5 mm
    thick 10 mm in from the top-right and bottom-left corners; nothing at bottom-right."""
    w, h = LETTER
    image = sheet_pixels(exported["silhouette"] / "ships-sheet-2.pdf")
    assert dark(image, 12.5, 12.5) and dark(image, 10.3, 10.3) and dark(image, 14.7, 14.7)
    assert not dark(image, 9.6, 12.5) and not dark(image, 15.4, 12.5)
    assert not dark(image, 12.5, 15.4)
    # top-right L: a horizontal arm at y 10-10.5 from x W-30 to W-10, a vertical one down
    assert dark(image, w - 20, 10.25) and dark(image, w - 29.5, 10.25)
    assert not dark(image, w - 31, 10.25) and not dark(image, w - 20, 11.2)
    assert dark(image, w - 10.25, 20) and dark(image, w - 10.25, 29.5)
    assert not dark(image, w - 10.25, 31) and not dark(image, w - 9.4, 20)
    # bottom-left L
    assert dark(image, 20, h - 10.25) and dark(image, 10.25, h - 20)
    assert not dark(image, 31, h - 10.25) and not dark(image, 10.25, h - 31)
    # bottom-right: nothing
    assert all(not dark(image, w - d, h - d) for d in (10.25, 12.5, 20))
    assert_only_marks_in_band(image, MACHINES["silhouette"], MACHINES["silhouette"].keep_out(w, h))


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
    assert_only_marks_in_band(image, m, ax)          # nothing printed outside the area


def test_keep_out_bands_are_the_documented_figures():
    w, h = LETTER
    assert MACHINES["silhouette"].keep_out(w, h) == pytest.approx(10 + 5 + CLEARANCE_MM)
    assert MACHINES["cricut"].keep_out(w, h) == pytest.approx(0.875 * 25.4)


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


def test_corner_radius_option_and_two_exports_are_byte_identical(project, exported,
                                                                 tmp_path, cli):
    out = tmp_path / "again"
    done = cli("pnp", "export", "cut", "--machine", "silhouette", "--deck", "ships",
               "--corner-radius", "0", "--out", str(out), cwd=project)
    assert done.returncode == 0, done.stderr
    assert {rx for _, _, rx in svg_rects(out / "harbour" / "ships-sheet-1.svg")} == {0.0}
    first = (exported["silhouette"] / "ships-sheet-1.pdf").read_bytes()
    assert (out / "harbour" / "ships-sheet-1.pdf").read_bytes() == first
    stale = out / "harbour" / "ships-sheet-3.svg"       # from a longer deck before
    stale.write_text("<svg/>")
    again = cli("pnp", "export", "cut", "--machine", "silhouette", "--deck", "ships",
                "--out", str(out), cwd=project)
    assert again.returncode == 0 and not stale.exists()
    assert sorted(p.name for p in (out / "harbour").iterdir()) == [
        "ships-sheet-1.dxf", "ships-sheet-1.pdf", "ships-sheet-1.svg", "ships-sheet-2.dxf",
        "ships-sheet-2.pdf", "ships-sheet-2.svg", "ships.layout.json"]


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
