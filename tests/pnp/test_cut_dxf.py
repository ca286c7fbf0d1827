"""The DXF beside each SVG of `pnp export cut` (issue 17 item 3, "an SVG and DXF"): read
back with ezdxf, every outline checked against the layout report's trims, through the real
CLI on the project `pnp init` writes (deck `ships`: 7 poker cards; Letter sheets of 8,
landscape, with the Silhouette, of 4 with the Cricut)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pnp.exports.cut_dxf import rounded_outline
from tests.harness import run_cli

ROOT = Path(__file__).resolve().parents[2]
LETTER = (215.9, 279.4)
POKER_CORNER = 3.175                    # 1/8 in, print.corner_radius_mm's default
QUARTER = math.tan(math.radians(90) / 4)   # the bulge of a 90-degree arc: 0.41421
MACHINES = ("silhouette", "cricut")




def export(project, out, *extra, machine="silhouette"):
    done = run_cli("pnp", "export", "cut", "--machine", machine, "--deck", "ships",
                   "--out", str(out), *extra, cwd=project)
    assert done.returncode == 0, done.stderr
    return out / "harbour"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("dxf")
    done = run_cli("pnp", "init", str(root / "proj"))
    assert done.returncode == 0, done.stderr
    return root / "proj"


@pytest.fixture(scope="module")
def exported(project, tmp_path_factory):
    return {m: export(project, tmp_path_factory.mktemp(m), machine=m) for m in MACHINES}


def arc_centre(p, q, bulge):
    """The centre and radius of the arc from p to q with this bulge (tan of a quarter of
    its angle; > 0: counter-clockwise)."""
    theta = 4 * math.atan(bulge)
    chord = math.dist(p, q)
    r = chord / (2 * math.sin(theta / 2))
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    d = r * math.cos(theta / 2)                 # from the chord's middle to the centre
    ux, uy = (q[0] - p[0]) / chord, (q[1] - p[1]) / chord
    return (mx - uy * d, my + ux * d), r        # on the left of p -> q


def outlines(path, page=LETTER):
    import ezdxf  # here, not at collection: half a second of every worker's start

    doc = ezdxf.readfile(path)
    assert doc.dxfversion == "AC1015"                               # R2000
    assert doc.header["$INSUNITS"] == 4 and doc.header["$MEASUREMENT"] == 1   # mm
    assert doc.header["$LIMMIN"] == (0, 0)
    assert tuple(doc.header["$LIMMAX"]) == pytest.approx(page)      # the page
    shapes = list(doc.modelspace())
    assert {e.dxftype() for e in shapes} == {"LWPOLYLINE"}
    assert {e.dxf.layer for e in shapes} == {"CUT"}
    assert all(e.closed for e in shapes)
    return [list(e.get_points("xyb")) for e in shapes]


def check_outline(points, trim, radius, page_h=LETTER[1]):
    """`points` (x, y up, bulge) is the trim (x, y down, w, h) with rounded corners."""
    x, top, w, h = trim
    y = page_h - top - h                        # the DXF's y runs up from the bottom edge
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    for got, want in ((min(xs), x), (max(xs), x + w), (min(ys), y), (max(ys), y + h)):
        assert abs(got - want) <= 0.1
    bulges = [b for _, _, b in points if b]
    if radius == 0:
        assert len(points) == 4 and not bulges
        return
    assert bulges == pytest.approx([QUARTER] * 4, abs=1e-5)        # four 90-degree arcs
    centres = []
    for k, (px, py, b) in enumerate(points):
        if b:
            qx, qy, _ = points[(k + 1) % len(points)]
            centre, r = arc_centre((px, py), (qx, qy), b)
            assert r == pytest.approx(radius, abs=1e-4)
            centres.append(centre)
    # each arc's centre is one radius in from a corner: the arcs bow outwards (convex)
    inner = {(round(cx, 3), round(cy, 3)) for cx in (x + radius, x + w - radius)
             for cy in (y + radius, y + h - radius)}
    assert {(round(cx, 3), round(cy, 3)) for cx, cy in centres} == inner


@pytest.mark.parametrize("machine", MACHINES)
def test_each_sheets_dxf_outlines_are_the_layout_reports_trims(exported, machine):
    folder = exported[machine]
    pages = json.loads((folder / "ships.layout.json").read_text())["pages"]
    assert [len(p["cards"]) for p in pages] == {"silhouette": [8, 4], "cricut": [4, 4, 4]}[machine]
    for page in pages:
        size = tuple(page["size_mm"])
        assert size == {"silhouette": (279.4, 215.9), "cricut": LETTER}[machine]
        shapes = outlines(folder / f"ships-sheet-{page['page']}.dxf", size)
        assert len(shapes) == len(page["cards"])                   # in the report's order
        for points, card in zip(shapes, page["cards"], strict=True):
            check_outline(points, card["trim_mm"], POKER_CORNER, size[1])
    assert not (folder / f"ships-sheet-{len(pages) + 1}.dxf").exists()


def test_corner_radius_0_cuts_square_corners_and_two_exports_are_byte_identical(
        project, exported, tmp_path):
    again = export(project, tmp_path / "again")
    name = "ships-sheet-1.dxf"      # another process, another time: the same bytes
    assert (again / name).read_bytes() == (exported["silhouette"] / name).read_bytes()
    square = export(project, tmp_path / "square", "--corner-radius", "0")
    page = json.loads((square / "ships.layout.json").read_text())["pages"][0]
    size = tuple(page["size_mm"])
    for points, card in zip(outlines(square / "ships-sheet-1.dxf", size), page["cards"],
                            strict=True):
        check_outline(points, card["trim_mm"], 0, size[1])
    stale = square / "ships-sheet-3.dxf"                 # from a longer deck before
    stale.write_text("0\nEOF\n")
    export(project, tmp_path / "square")
    assert not stale.exists()


def test_print_corner_radius_mm_sets_the_dxf_arcs(project, tmp_path):
    import shutil

    own = tmp_path / "own"
    shutil.copytree(project, own)
    yaml = own / "cards.yaml"
    yaml.write_text(yaml.read_text().replace("  crop_marks: true\n",
                                             "  crop_marks: true\n  corner_radius_mm: 2\n"))
    folder = export(own, tmp_path / "o", machine="cricut")
    page = json.loads((folder / "ships.layout.json").read_text())["pages"][1]
    for points, card in zip(outlines(folder / "ships-sheet-2.dxf"), page["cards"],
                            strict=True):
        check_outline(points, card["trim_mm"], 2.0)


def test_a_radius_of_half_the_side_leaves_no_zero_length_edge():
    points = rounded_outline(0, 0, 10, 20, 5)           # the short sides: two half circles
    assert len(points) == 6
    ring = points + points[:1]
    assert all(math.dist(a[:2], b[:2]) > 1e-6 for a, b in zip(ring, ring[1:], strict=False))
    assert [b for _, _, b in points].count(QUARTER) == 4
