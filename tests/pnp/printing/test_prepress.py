"""Prepress findings of issue 33, each measured on rendered pages as it was found:
bleed beside an empty slot of a partly filled sheet (front, back, fold), paint that
stops exactly at a trim, cut guides that survive the cutting order, and more."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import pytest

from pnp.artefacts import build as b
from pnp.draw.fonts import register_fonts

PT = 72 / 25.4
SCALE = 4  # 288 dpi
# The white-paper strips beside a trim (white_beyond) are 1 mm deep, 0.4 mm out: 5.7 px
# deep and 2.3 px out at 144 dpi, paint or paper told per pixel. A page rendered at a
# quarter of 288 dpi's pixels (the rendering was most of these tests' time, issue 34).
STRIP_SCALE = 2  # 144 dpi


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


def render(path, pages: Collection[int] | None = None, scale: float = SCALE) -> list:
    """Each page of the PDF as an RGB image, or only `pages` (indexes; None for the others:
    a page costs its rasterising, issue 34)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        return [doc[i].render(scale=scale).to_pil().convert("RGB")
                if pages is None or i in pages else None for i in range(len(doc))]
    finally:
        doc.close()


def white_beyond(image, trim_mm, edge: str, depth=(0.4, 1.4)) -> float:
    """The share of white pixels in a strip just outside one edge of a trim box (mm from
    the page's top-left, as the layout report gives it): `depth` mm out from the trim,
    along the middle 80 % of the edge (the cut guides sit at the corners), on a page
    rendered at STRIP_SCALE."""
    x, y, w, h = trim_mm
    px = PT * STRIP_SCALE
    if edge in ("left", "right"):
        x0 = x - depth[1] if edge == "left" else x + w + depth[0]
        box = (x0, y + 0.1 * h, x0 + depth[1] - depth[0], y + 0.9 * h)
    else:
        y0 = y - depth[1] if edge == "top" else y + h + depth[0]
        box = (x + 0.1 * w, y0, x + 0.9 * w, y0 + depth[1] - depth[0])
    crop = image.crop(tuple(round(v * px) for v in box)).convert("RGB")
    from PIL import ImageChops

    r, g, b_ = crop.split()
    least = ImageChops.darker(r, ImageChops.darker(g, b_))  # white: every channel >= 250
    return sum(least.histogram()[250:]) / (crop.width * crop.height)


def unpainted_edges(result) -> list[tuple[int, str, str]]:
    """(page, card, edge) for every card edge of every page with white paper right
    outside its trim (more than 2 % of the strip)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(result.path))
    # RGBX bitmaps PIL reads in place (no copy of a 288 dpi page into RGB): the strips are
    # converted as they are cut; the bitmaps are kept while their images are read.
    bitmaps = [doc[i].render(scale=STRIP_SCALE, prefer_bgrx=True, rev_byteorder=True)
               for i in range(len(doc))]
    images = [bitmap.to_pil() for bitmap in bitmaps]
    out = []
    for page in result.layout:
        image = images[page["page"] - 1]
        for card in page["cards"]:
            for edge in ("left", "right", "top", "bottom"):
                if white_beyond(image, card["trim_mm"], edge) > 0.02:
                    out.append((page["page"], card["name"], edge))
    del images, bitmaps
    doc.close()
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


# ── the bundled XO! templates and the paint-at-trim check, built by the CLI ──────────


def cli_build(project, out, *args):
    from click.testing import CliRunner

    from pnp.cli.main import main

    result = CliRunner().invoke(main, ["build", "--project", str(project), "--out",
                                       str(project / out), *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def xo_project(xo_yaml):
    """The bundled project (the shop tests' own, xo_yaml) with two XO! decks built into
    out/: one project, so the later builds of these decks find their cards' plans kept
    (pnp.draw.plan_cache: per project folder)."""
    for deck in ("heroes-core", "statuses"):
        cli_build(xo_yaml, "out", "--game", "xo", "--only", deck)
    return xo_yaml


def layout_pages(project, artefact):
    import json

    path = project / "out" / "xo" / f"{artefact}.layout.json"
    return json.loads(path.read_text())["artefacts"][0]["pages"]


def test_xo_title_band_wedge_runs_into_the_bleed(xo_project):
    """Issue 33: the light wedge of the title band stopped at the top and right trims."""
    image = render(xo_project / "out" / "xo" / "heroes-core.pdf", {0})[0]
    page = layout_pages(xo_project, "heroes-core")[0]
    px = PT * SCALE
    top_row = [c for c in page["cards"] if c["trim_mm"][1] == page["cards"][0]["trim_mm"][1]]
    assert len(top_row) == 3
    for card in top_row:
        x, y, w, _ = card["trim_mm"]
        above = image.getpixel((round((x + 0.9 * w) * px), round((y - 1.5) * px)))
        beside = image.getpixel((round((x + w + 1.5) * px), round((y + 5) * px)))
        inside = image.getpixel((round((x + 0.9 * w) * px), round((y + 5) * px)))
        band = image.getpixel((round((x + 0.1 * w) * px), round((y + 5) * px)))
        assert sum(inside) > sum(band) + 30         # the lighter wedge on the card
        assert above == inside and beside == inside  # ... and on in the bleed


def rgb_pixels(image):
    """Each pixel as (r, g, b), read from the raw bytes: `getdata` is deprecated in
    Pillow 12 and gone in 14, and `get_flattened_data` is not in the floor (Pillow 10)."""
    data = image.convert("RGB").tobytes()
    return list(zip(data[0::3], data[1::3], data[2::3], strict=True))


def test_xo_not_ready_tag_leaves_the_art_word_clear(xo_project):
    """Issue 33: the NOT READY tag covered the big word of four status designs."""
    import pypdfium2 as pdfium

    pages = layout_pages(xo_project, "statuses")
    doc = pdfium.PdfDocument(str(xo_project / "out" / "xo" / "statuses.pdf"))
    images = render(xo_project / "out" / "xo" / "statuses.pdf",
                    {page["page"] - 1 for page in pages if page["side"] == "front"})
    checked = set()
    try:
        for page in pages:
            if page["side"] != "front":
                continue
            pdf_page = doc[page["page"] - 1]
            text = pdf_page.get_textpage()
            image = images[page["page"] - 1]
            height = pdf_page.get_height()
            for word in ("FROZEN", "STUNNED", "INCAPACITATED", "TRAPPED", "KOD"):
                search = text.search(word, match_case=True, match_whole_word=True)
                while (hit := search.get_next()) is not None:
                    start, count = hit
                    for i in range(start, start + count):
                        left, bottom, right, top = text.get_charbox(i)
                        box = (round(left * SCALE), round((height - top) * SCALE),
                               round(right * SCALE), round((height - bottom) * SCALE))
                        red = [p for p in rgb_pixels(image.crop(box))
                               if p[0] > 150 and p[1] < 90 and p[2] < 90]
                        assert red == [], (word, page["page"])
                    checked.add(word)
                search.close()
            text.close()
    finally:
        doc.close()
    assert checked == {"FROZEN", "STUNNED", "INCAPACITATED", "TRAPPED", "KOD"}


BAND_TEMPLATE = """\
{#- design: 63.5 x 88.9 -#}
- rect: {box: [0, 0, {{ W }}, {{ H }}], fill: "#f4f4f4", bleed: true}
- rect: {box: [0, 0, {{ W }}, 12], fill: "#c62828"%s}
- text: {id: name, box: [6, 14, 50, 8], text: {{ card.name }}, size: 10}
"""


@pytest.mark.parametrize(("extra", "flagged"), [("", True), (", bleed: true", False)])
def test_paint_stopping_at_the_trim_is_flagged(tmp_path, extra, flagged):

    from tests.pnp.exports_support import make_project

    project = make_project(tmp_path)
    (project / "templates" / "x-statix" / "owner.j2").write_text(BAND_TEMPLATE % extra)
    result = cli_build(project, "out", "--game", "x-statix", "--only", "owners")
    found = [line for line in result.output.splitlines() if "stops exactly" in line]
    if flagged:
        assert found and all("rect paint stops exactly at the left and right and top trim"
                             in line for line in found)
        assert len(found) == 3  # once per owner design
    else:
        assert found == []


# ── the ink saver on the `pnp init` starter ────────────────────────────────────────


def dark_share(path, index: int) -> float:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        image = doc[index].render(scale=1, grayscale=True).to_pil().convert("L")
    finally:
        doc.close()
    histogram = image.histogram()
    return sum(histogram[:128]) / sum(histogram)


@pytest.fixture(scope="module")
def starter(tmp_path_factory):
    from click.testing import CliRunner

    from pnp.cli.main import main

    project = tmp_path_factory.mktemp("starter") / "game"
    assert CliRunner().invoke(main, ["init", str(project)]).exit_code == 0
    return project


def test_starter_templates_read_the_ink_saver(starter):
    """Issue 33: `--ink-saver` gave byte-identical starter PDFs and said nothing."""
    plain = cli_build(starter, "plain", "--only", "ships")
    light = cli_build(starter, "light", "--only", "ships", "--ink-saver")
    assert "INK_SAVER" not in plain.output + light.output      # no notice
    before, after = (starter / d / "harbour" / "ships.pdf" for d in ("plain", "light"))
    for page in (0, 1):                                           # a sheet of fronts, its backs
        assert dark_share(before, page) > 0.15
        assert dark_share(after, page) < 0.03


def test_ink_saver_that_changes_nothing_says_so(starter, tmp_path):
    import shutil

    project = tmp_path / "game"
    shutil.copytree(starter, project, ignore=shutil.ignore_patterns("plain", "light"))
    for template in (project / "templates" / "harbour").glob("*.j2"):
        template.write_text(template.read_text().replace("INK_SAVER", "false"))
    plain = cli_build(project, "plain", "--only", "ships")
    light = cli_build(project, "light", "--only", "ships", "--ink-saver")
    assert "INK_SAVER" not in plain.output
    assert ("notice: --ink-saver changes nothing for harbour: none of its templates "
            "(templates/harbour/) reads INK_SAVER") in light.output
    assert ((project / "plain" / "harbour" / "ships.pdf").read_bytes()
            == (project / "light" / "harbour" / "ships.pdf").read_bytes())


# ── shop presets cover every size the shop prints ─────────────────────────────────


def cli_export(project, out, *args):
    from click.testing import CliRunner

    from pnp.cli.main import main

    return CliRunner().invoke(main, ["export", "--project", str(project), "--out",
                                     str(out), "--game", "xo", *args])


# One card of each deck these tests export: a shop's files are made per card, and what is
# checked is each deck's size (issue 34: the 31 cards of three decks cost 1.5 s an export).
ONE_CARD = {"heroes-characters": "Captain Volt", "resources": "Police Captain",
            "issue": "Episode: Lights Out", "statuses": "Blinded"}


def one_card_of(*decks: str) -> list[str]:
    """--deck D --card C for each deck: one card of it (ONE_CARD)."""
    return [arg for deck in decks for arg in ("--deck", deck, "--card", ONE_CARD[deck])]


@pytest.fixture(scope="module")
def xo_yaml(tmp_path_factory):

    from tests.pnp.exports_support import make_project

    return make_project(tmp_path_factory.mktemp("shops"))


@pytest.mark.parametrize(("shop", "bridge", "mini"), [("tgc", (750, 1125), (600, 825)),
                                                      ("mpc", (747, 1122), (597, 822))])
def test_image_presets_print_the_xo_bridge_and_mini_decks(xo_yaml, tmp_path, shop, bridge,
                                                          mini):
    """Issue 33: tgc, mpc and dtc refused the whole XO! export for four decks."""
    from PIL import Image

    done = cli_export(xo_yaml, tmp_path / shop, "--profile", shop,
                      *one_card_of("heroes-characters", "resources", "issue"))
    assert done.exit_code == 0, done.output
    assert "left out" not in done.output
    sizes = {}
    for path in (tmp_path / shop / "xo").glob("*.png"):
        with Image.open(path) as image:
            sizes.setdefault(path.name.split("--")[0], set()).add(image.size)
    poker = {"tgc": (825, 1125), "mpc": (822, 1122)}[shop]
    assert sizes == {"heroes-characters": {bridge}, "resources": {mini}, "issue": {poker}}


def test_dtc_prints_bridge_and_mini_pdfs(xo_yaml, tmp_path):
    from pypdf import PdfReader

    done = cli_export(xo_yaml, tmp_path, "--profile", "dtc",
                      *one_card_of("heroes-characters", "statuses"))
    assert done.exit_code == 0, done.output
    for deck, inches in (("heroes-characters", [2.5, 3.75]), ("statuses", [2.0, 2.75])):
        page = PdfReader(tmp_path / "xo" / f"{deck}.pdf").pages[0]
        assert [round(float(v) / 72, 3) for v in page.mediabox[2:]] == inches


def test_a_shop_leaves_out_only_the_decks_it_does_not_print(xo_yaml, tmp_path):
    import shutil

    project = tmp_path / "proj"
    shutil.copytree(xo_yaml, project, ignore=shutil.ignore_patterns("out*"))
    yaml = project / "cards.yaml"
    yaml.write_text(yaml.read_text().replace("card_sizes:", (
        "profiles:\n  pokeronly: {like: tgc, sizes: {poker: [63.5, 88.9]}}\n"
        "card_sizes:"), 1))
    done = cli_export(project, tmp_path / "some", "--profile", "pokeronly",
                      *one_card_of("heroes-characters", "resources", "issue"))
    assert done.exit_code == 0, done.output
    left = [line for line in done.output.splitlines() if "left out" in line]
    assert len(left) == 2
    assert "xo/heroes-characters" in left[0] and "57.15 x 88.9 mm" in left[0]
    assert "xo/resources" in left[1] and "44.45 x 63.5 mm" in left[1]
    written = {p.name.split("--")[0] for p in (tmp_path / "some" / "xo").glob("*.png")}
    assert written == {"issue"}
    refused = cli_export(project, tmp_path / "none", "--profile", "pokeronly", "--deck",
                         "heroes-characters", "--deck", "resources")
    assert refused.exit_code == 1
    errors = [line for line in refused.output.splitlines() if line.startswith("pnp:")]
    assert len(errors) == 1 and "no deck of this export" in errors[0]
    assert not (tmp_path / "none").exists()


# ── a reprint packs the changed cards of every deck of one size ───────────────────


def test_changed_cards_of_two_decks_share_one_sheet(starter, tmp_path):
    """Issue 33: two changed cards of two poker decks took two sheets."""
    import json
    import shutil

    import pypdfium2 as pdfium

    project = tmp_path / "game"
    shutil.copytree(starter, project, ignore=shutil.ignore_patterns("plain", "light"))
    cli_build(project, "out")
    ships = project / "ships.csv"
    ships.write_text(ships.read_text().replace("Ignores the first Squall.", "Ignores all."))
    yaml = project / "cards.yaml"
    yaml.write_text(yaml.read_text().replace("loses 1 cargo.", "loses 2 cargo."))
    cli_build(project, "out", "--changed-only")
    pages = json.loads((project / "out" / "changed.layout.json").read_text()
                       )["artefacts"][0]["pages"]
    assert [p["side"] for p in pages] == ["front", "back"]       # one sheet, not two
    assert all(p["decks"] == ["harbour/ships", "harbour/storms"] for p in pages)
    fronts = [(c["name"], c["deck"]) for c in pages[0]["cards"]]
    assert fronts == [("Iron Maiden", "harbour/ships")] * 2 + [("Squall", "harbour/storms")] * 3
    # each back behind its own front: the deck's subtitle read back inside its trim
    doc = pdfium.PdfDocument(str(project / "out" / "changed.pdf"))
    try:
        text = doc[1].get_textpage()
        height = doc[1].get_height()
        for card in pages[1]["cards"]:
            x, y, w, h = (v * PT for v in card["trim_mm"])
            inside = text.get_text_bounded(x, height - y - h, x + w, height - y)
            subtitle = "STORMS" if card["deck"].endswith("storms") else "SHIPS"
            assert subtitle in inside and {"SHIPS", "STORMS"} - {subtitle} - set(
                inside.split()) == {"SHIPS", "STORMS"} - {subtitle}
        text.close()
    finally:
        doc.close()


# ── calibration: the printer's margin, and the backs' scale and turn ───────────────


def test_calibration_front_has_margin_ladders_on_every_edge(tmp_path, build, make_db,
                                                            fonts, standin):
    """Issue 33: nothing printed within 12 mm of an edge, so the margin could not be read."""
    from pnp.artefacts.kinds.calibration import LADDER_MM

    for paper in ("letter", "a4"):
        db = make_db(tmp_path / paper, paper=paper)
        art = [a for a in b.artefacts(db) if a.name == "calibration"][0]
        result = b.build_artefact(db, art, b.options_from_profile(db.print), standin(db, fonts),
                                  fonts, tmp_path / paper / "out")
        image = render(result.path, {0})[0].convert("L")
        width, height = image.size
        px = PT * SCALE
        for d in range(1, LADDER_MM + 1):
            # a dark line d mm from each edge, at the edge's middle (within 0.2 mm)
            near = [round((d + k) * px) for k in (-0.2, -0.1, 0.0, 0.1, 0.2)]
            left = min(image.getpixel((x, height // 2)) for x in near)
            right = min(image.getpixel((width - 1 - x, height // 2)) for x in near)
            top = min(image.getpixel((width // 2, y)) for y in near)
            bottom = min(image.getpixel((width // 2, height - 1 - y)) for y in near)
            assert max(left, right, top, bottom) < 160, (paper, d)
            # ... and blank paper half-way between two lines
            between = round((d + 0.5) * px)
            assert image.getpixel((between, height // 2)) > 240


def painted_columns(image, y: int) -> tuple[int, int]:
    """The first and last dark pixel of row `y` (the backs' paint)."""
    row = [image.getpixel((x, y)) for x in range(image.size[0])]
    dark = [x for x, v in enumerate(row) if v < 100]
    return dark[0], dark[-1]


def test_backs_take_the_scale_and_turn_correction(tmp_path, build, cards):
    import math

    plain = build(tmp_path / "a", decks={"main": cards(9)})
    wider = build(tmp_path / "b", decks={"main": cards(9)}, back_scale_pct=(102.0, 100.0))
    turned = build(tmp_path / "c", decks={"main": cards(9)}, back_rotate_deg=1.0)
    px = PT * SCALE
    images = [render(r.path, {1})[1].convert("L") for r in (plain, wider, turned)]
    mid = images[0].size[1] // 2
    x0, x1 = painted_columns(images[0], mid)
    w0, w1 = painted_columns(images[1], mid)
    centre = images[0].size[0] / 2
    assert (w1 - w0) / (x1 - x0) == pytest.approx(1.02, abs=0.002)   # 2 % wider
    assert (w0 + w1) / 2 == pytest.approx(centre, abs=2)               # about the centre
    # turned 1 degree anticlockwise: the left edge leans, 50 mm apart in height
    low, high = mid + round(25 * px), mid - round(25 * px)
    lean = painted_columns(images[2], high)[0] - painted_columns(images[2], low)[0]
    assert lean / (50 * px) == pytest.approx(-math.tan(math.radians(1)), abs=0.002)
    # the fronts do not move
    assert render(wider.path, {0})[0] == render(plain.path, {0})[0]


def test_calibration_readings_give_the_correction_that_cancels_them():
    """A printer that prints the back 0.8 % wider, 0.5 % shorter, turned 0.3 degrees and
    shifted: the five readings on calibration.pdf give settings whose backs land on the
    fronts within 0.05 mm at every cross."""
    import math

    from pnp.artefacts.kinds.calibration import CROSSES, calibration_points, correction
    from pnp.layout import geometry as g

    pw, ph = g.paper_size("letter")
    printer = g.back_matrix(pw, ph, (100.8, 99.5), 0.3)
    shift = (g.mm(0.7), g.mm(-0.4))

    def printed(point, offset, scale, turn):
        """Where the back drawn for `point` lands on paper (points, back's frame)."""
        x, y = point[0] + g.mm(offset[0]), point[1] + g.mm(offset[1])
        x, y = g.apply_matrix(g.back_matrix(pw, ph, scale, turn), x, y)
        x, y = g.apply_matrix(printer, x, y)
        return x + shift[0], y + shift[1]

    def readings(offset, scale, turn):
        # the scales as seen on the back, named by where they are on the back (the
        # front's crosses mirrored: the same five places)
        out = {}
        for name, p in zip(CROSSES, calibration_points(pw, ph), strict=True):
            q = printed(p, offset, scale, turn)
            out[name] = (g.to_mm(p[0] - q[0]), g.to_mm(p[1] - q[1]))
        return out

    first = readings((0, 0), (100, 100), 0)
    assert max(abs(v) for r in first.values() for v in r) > 0.5   # visibly off
    offset, scale, turn = correction(first, (215.9, 279.4))
    for _ in range(2):    # applied, and read again: settled
        offset, scale, turn = correction(readings(offset, scale, turn), (215.9, 279.4),
                                         offset, scale, turn)
    left = readings(offset, scale, turn)
    assert max(math.hypot(*r) for r in left.values()) < 0.05
    once = correction(first, (215.9, 279.4))
    assert max(math.hypot(*r) for r in readings(*once).values()) < 0.1  # one round suffices


def test_pnp_calibrate_prints_the_settings(starter):
    from click.testing import CliRunner

    from pnp.cli.main import main

    run = CliRunner().invoke(main, ["calibrate", "--project", str(starter), "--centre",
                                    "0.5,-1", "--top-left", "1,-1.5", "--top-right", "0,-0.5",
                                    "--bottom-left", "1,-1.5", "--bottom-right", "0,-0.5"])
    assert run.exit_code == 0, run.output
    assert "  back_offset_mm: [0.5, -1]" in run.output
    assert "  back_scale_pct: [99.27, 100]" in run.output     # 1 mm over 135.9 mm
    assert "--back-offset 0.5,-1 --back-scale 99.27,100 --back-rotate" in run.output
    half = CliRunner().invoke(main, ["calibrate", "--project", str(starter), "--centre", "0,0",
                                     "--top-left", "1,1"])
    assert half.exit_code == 2 and "all four corners" in half.output


@pytest.mark.parametrize(("line", "message"), [
    ("back_scale_pct: [120, 100]", "back_scale_pct[0]"),
    ("back_rotate_deg: 5", "back_rotate_deg")])
def test_back_corrections_beyond_their_limits_are_refused_where_written(starter, tmp_path,
                                                                       line, message):
    import re
    import shutil

    from click.testing import CliRunner

    from pnp.cli.main import main

    project = tmp_path / "game"
    shutil.copytree(starter, project, ignore=shutil.ignore_patterns("plain", "light"))
    yaml = project / "cards.yaml"
    yaml.write_text(yaml.read_text().replace("  crop_marks: true", f"  crop_marks: true\n  {line}"))
    run = CliRunner().invoke(main, ["validate", "--project", str(project)])
    assert run.exit_code == 1
    errors = [x for x in run.output.splitlines() if re.search(r"cards\.yaml:\d+:\d+: ", x)]
    assert len(errors) == 1 and f"print.{message}: expected" in errors[0]


# ── cut guides that survive the cutting order ─────────────────────────────────────


def marked_beside(image, trim_mm, edge: str) -> bool:
    """A dark mark in the paper just beyond one edge of a card (0.3 to 1 mm from its
    trim line), inside the card's own strip and clear of its ends (0.6 mm): what is
    left to cut by once the strip is cut off the sheet."""
    x, y, w, h = trim_mm
    px = PT * SCALE
    if edge in ("left", "right"):
        x0 = x - 1.0 if edge == "left" else x + w + 0.3
        box = (x0, y + 0.6, x0 + 0.7, y + h - 0.6)
    else:
        y0 = y - 1.0 if edge == "top" else y + h + 0.3
        box = (x + 0.6, y0, x + w - 0.6, y0 + 0.7)
    crop = image.crop(tuple(round(v * px) for v in box)).convert("L")
    return min(crop.tobytes()) < 80  # one byte a pixel in mode L


def page_text(path, index: int) -> str:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        text = doc[index].get_textpage()
        found = text.get_text_range()
        text.close()
        return found
    finally:
        doc.close()


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_every_row_strip_keeps_marks_for_its_vertical_cuts(tmp_path, build, cards, paper):
    """Issue 33: on a Letter poker sheet (gutters across, rows sharing cut lines) the
    vertical lines were marked by 1 mm stubs above and below the grid only: cut the
    rows apart and the middle row had no mark. Now each card's left and right edge has
    a pointer in its row, and the sheet says to cut the rows first."""
    result = build(tmp_path, decks={"main": cards(9)}, paper=paper)
    image = render(result.path, {0})[0]
    front = result.layout[0]
    trims = [c["trim_mm"] for c in front["cards"]]
    rows = sorted({t[1] for t in trims})
    cols = sorted({t[0] for t in trims})
    text = page_text(result.path, 0)
    if len(rows) == 3 and paper == "letter":     # rows abut: the rows are cut first
        assert "cut the rows apart first" in text
        edges = ("left", "right")
    else:                                        # A4: columns abut, rows have gutters
        assert len(cols) == 3 and "cut the columns apart first" in text
        edges = ("top", "bottom")
    missing = [(t, e) for t in trims for e in edges if not marked_beside(image, t, e)]
    assert missing == []


def test_gutters_both_ways_need_no_order_and_mark_all_four_edges(tmp_path, build, cards):
    result = build(tmp_path, decks={"main": cards(6)}, layout="gutters")
    image = render(result.path, {0})[0]
    assert "first" not in page_text(result.path, 0)
    trims = [c["trim_mm"] for c in result.layout[0]["cards"]]
    assert len(trims) == 6
    missing = [(t, e) for t in trims for e in ("left", "right", "top", "bottom")
               if not marked_beside(image, t, e)]
    assert missing == []


# ── the bundled decks the finding named, on their partly filled last sheets ───────


def last_sheet_unpainted(project, out, game, deck, *args):
    """Build one deck with the real renderer; the unpainted card edges of the pages of
    its last sheet (fronts and backs, or its last fold sheet), which the decks named
    here fill only in part (25 cards, 64, 79, 7 on sheets of 9 or 16)."""
    import json

    cli_build(project, out, "--game", game, "--only", deck, *args)
    pages = json.loads((project / out / game / f"{deck}.layout.json").read_text()
                       )["artefacts"][0]["pages"]
    last = [p for p in pages if p["side"] != "back"][-1]["page"]
    images = render(project / out / game / f"{deck}.pdf",
                    {p["page"] - 1 for p in pages if p["page"] >= last}, STRIP_SCALE)
    found = []
    for page in pages:
        if page["page"] < last:
            continue
        for card in page["cards"]:
            for edge in ("left", "right", "top", "bottom"):
                if white_beyond(images[page["page"] - 1], card["trim_mm"], edge) > 0.02:
                    found.append((page["page"], card["name"], edge))
    return found


@pytest.mark.parametrize(("game", "deck", "args"), [
    ("xo", "heroes-core", ()), ("xo", "villains-core", ("--paper", "a4")),
    ("x-statix", "common", ()), ("xo", "heroes-core", ("--fold",)),
    ("xo", "statuses", ("--paper", "a4", "--fold"))])
def test_bundled_decks_bleed_beside_the_empty_slots(xo_yaml, game, deck, args):
    out = "bleed-" + "-".join((deck, *args)).replace("--", "")
    assert last_sheet_unpainted(xo_yaml, out, game, deck, *args) == []


def test_the_starters_ships_bleed_beside_the_empty_slots(starter):
    assert last_sheet_unpainted(starter, "bleed", "harbour", "ships") == []
    assert last_sheet_unpainted(starter, "bleed-a4", "harbour", "ships", "--paper", "a4") == []
