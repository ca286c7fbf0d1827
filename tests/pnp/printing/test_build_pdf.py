"""Build real PDFs (with a stand-in renderer) and read them back with pypdf/pypdfium2.

Expected positions are hand-computed millimetres, not taken from pnp.layout.geometry."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from pnp.artefacts import build as b
from pnp.draw.fonts import FontError, register_fonts

PT = 72 / 25.4
TOL = 0.1  # mm
LETTER = (215.9, 279.4)
A4 = (210.0, 297.0)
BLEED = 3.175


# ── reading PDFs back ─────────────────────────────────────────────────────────────


def ops(reader: PdfReader, index: int):
    page = reader.pages[index]
    return ContentStream(page.get_contents(), reader).operations


def clip_rects(operations) -> list[tuple[float, float, float, float]]:
    """Rectangles used as clipping paths (`x y w h re W n`), in mm."""
    out = []
    for i, (args, op) in enumerate(operations):
        if op == b"re" and i + 1 < len(operations) and operations[i + 1][1] in (b"W", b"W*"):
            out.append(tuple(float(a) / PT for a in args))
    return out


def form_placements(operations) -> list[tuple[float, float, int]]:
    """Where each form XObject's origin lands (mm) and how far it is turned (degrees),
    from the `cm` operators since the last `q` (`q ... cm cm /Form Do Q`)."""
    out = []
    ctm = None
    for args, op in operations:
        if op == b"cm":
            a, b_, c, d, e, f = (float(v) for v in args)
            A, B, C, D, E, F = ctm or (1, 0, 0, 1, 0, 0)
            # The new matrix applies first, then the one already in force.
            ctm = (a * A + b_ * C, a * B + b_ * D, c * A + d * C, c * B + d * D,
                   e * A + f * C + E, e * B + f * D + F)
        elif op == b"Do" and ctm is not None and not is_scale_bar(args):
            turn = round(math.degrees(math.atan2(ctm[1], ctm[0]))) % 360
            out.append((ctm[4] / PT, ctm[5] / PT, turn))
            ctm = None
        elif op in (b"q", b"Q"):
            ctm = None
    return out


def is_scale_bar(args) -> bool:
    """The scale-check plate is a form too; it is not a card."""
    return str(args[0]).startswith("/FormXob.scale")


def form_origins(operations) -> list[tuple[float, float]]:
    """Where each form XObject's origin lands, in mm."""
    return [(x, y) for x, y, _ in form_placements(operations)]


def segments(operations) -> list[tuple[float, float, float, float]]:
    """Straight lines `x0 y0 m x1 y1 l`, in mm (not the sides of closed shapes `... h`:
    the pointers beside the cards, pnp.layout.geometry.strip_pointers)."""
    out: list[tuple[float, float, float, float]] = []
    path: list[tuple[float, float, float, float]] = []
    start = None
    for args, op in operations:
        if op == b"m":
            out += path
            path = []
            start = (float(args[0]) / PT, float(args[1]) / PT)
        elif op == b"l" and start is not None:
            end = (float(args[0]) / PT, float(args[1]) / PT)
            path.append((*start, *end))
            start = end
        elif op == b"h":
            path = []
    return out + path


def cut_lines(operations) -> tuple[list[float], list[float]]:
    """Trim lines read from the crop marks: x of vertical marks, y of horizontal ones."""
    xs, ys = set(), set()
    for x0, y0, x1, y1 in segments(operations):
        if abs(x0 - x1) < 1e-6:
            xs.add(round(x0, 3))
        elif abs(y0 - y1) < 1e-6:
            ys.add(round(y0, 3))
    return sorted(xs), sorted(ys)


def trims(operations) -> list[tuple[float, float, float, float]]:
    """Each card's trim box: its painted (clip) area narrowed to the cut lines inside it."""
    xs, ys = cut_lines(operations)
    out = []
    for x, y, w, h in clip_rects(operations):
        inside_x = [c for c in xs if x - 1e-3 <= c <= x + w + 1e-3]
        inside_y = [c for c in ys if y - 1e-3 <= c <= y + h + 1e-3]
        out.append((min(inside_x), min(inside_y), max(inside_x) - min(inside_x),
                    max(inside_y) - min(inside_y)))
    return out


def page_mm(reader: PdfReader, index: int) -> tuple[float, float]:
    box = reader.pages[index].mediabox
    return float(box.width) / PT, float(box.height) / PT


def approx(a, b) -> bool:
    return all(abs(x - y) < TOL for x, y in zip(a, b, strict=True))


# ── building ──────────────────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def fonts(tmp_path_factory):
    return register_fonts({}, tmp_path_factory.mktemp("proj"))


@pytest.fixture
def build(fonts, make_db, standin):
    """build(folder, decks=..., only=..., extras=..., **Options fields) -> (Written, PdfReader)"""

    def run(tmp_path, *, decks=None, only="main", extras=None, size=(63.5, 88.9), **options):
        db = make_db(tmp_path / "proj", decks=decks, extras=extras, size=size,
                     die_label_mm=options.pop("die_label_mm", 16.0))
        art = b.artefacts(db, only=only)[0]
        opts = replace(b.options_from_profile(db.print), **options)
        result = b.build_artefact(db, art, opts, standin(db, fonts), fonts, tmp_path / "out")
        return result, PdfReader(result.path)

    return run


def test_letter_deck_geometry_from_crop_marks(tmp_path, build, cards):
    result, pdf = build(tmp_path, decks={"main": cards(9)})
    assert result.pages == 2 and len(pdf.pages) == 2
    assert approx(page_mm(pdf, 0), LETTER)
    front = ops(pdf, 0)
    xs, ys = cut_lines(front)
    assert approx(xs, [6.35, 69.85, 76.2, 139.7, 146.05, 209.55])
    assert approx(ys, [6.35, 95.25, 184.15, 273.05])
    boxes = trims(front)
    assert len(boxes) == 9
    for (_x, _y, w, h) in boxes:
        assert approx((w, h), (63.5, 88.9))
    assert approx(boxes[0], (6.35, 184.15, 63.5, 88.9))
    assert approx(boxes[8], (146.05, 6.35, 63.5, 88.9))
    # Painted areas: full bleed left/right (gutters), outer bleed only top/bottom.
    areas = clip_rects(front)
    assert approx(areas[0], (6.35 - BLEED, 184.15, 63.5 + 2 * BLEED, 88.9 + BLEED))
    assert approx(areas[4], (76.2 - BLEED, 95.25, 63.5 + 2 * BLEED, 88.9))
    assert approx(areas[8], (146.05 - BLEED, 6.35 - BLEED, 63.5 + 2 * BLEED, 88.9 + BLEED))


def test_a4_deck_geometry(tmp_path, build, cards):
    _, pdf = build(tmp_path, decks={"main": cards(9)}, paper="a4")
    assert approx(page_mm(pdf, 0), A4)
    xs, ys = cut_lines(ops(pdf, 0))
    assert approx(xs, [9.75, 73.25, 136.75, 200.25])
    assert approx(ys, [8.8, 97.7, 104.05, 192.95, 199.3, 288.2])
    assert approx(trims(ops(pdf, 0))[0], (9.75, 199.3, 63.5, 88.9))


def test_bleed_is_painted_outside_the_trim(tmp_path, build, cards):
    import pypdfium2 as pdfium

    result, _ = build(tmp_path, decks={"main": cards(9)})
    doc = pdfium.PdfDocument(str(result.path))
    scale = 4  # 288 dpi
    image = doc[0].render(scale=scale).to_pil().convert("RGB")
    _, height = image.size

    def pixel(x_mm, y_mm):
        return image.getpixel((round(x_mm * PT * scale), round(height - y_mm * PT * scale)))

    # 1.5 mm left of the top-left card's trim (6.35 mm): inside its bleed, painted.
    assert pixel(6.35 - 1.5, 230) != (255, 255, 255)
    # 1.5 mm above the top row's trim (273.05): outer bleed, painted.
    assert pixel(40, 273.05 + 1.5) != (255, 255, 255)
    # Beyond the bleed (4.5 mm out), the paper stays white.
    assert pixel(6.35 - 4.5, 230) == (255, 255, 255)
    doc.close()


@pytest.mark.parametrize("copies", [1, 3])
def test_transparency_survives_reuse_of_a_drawing(tmp_path, build, copies):
    """A card with copies is drawn once and reused; its translucent parts stay translucent."""
    import pypdfium2 as pdfium

    result, _ = build(tmp_path, decks={"main": [("Glass", copies)]})
    doc = pdfium.PdfDocument(str(result.path))
    image = doc[0].render(scale=2).to_pil().convert("RGB")
    # Centre of the lower half of the card (its trim from the layout report, mm from
    # the top-left).
    tx, ty, tw, th = result.layout[0]["cards"][0]["trim_mm"]
    x, y = (tx + tw / 2) * PT * 2, (ty + th * 3 / 4) * PT * 2
    r, g, b_ = image.getpixel((round(x), round(y)))
    # Half red over the stand-in's pale blue (217, 230, 255): neither opaque red nor blue.
    assert r > 200 and 90 < g < 150 and 100 < b_ < 150, (r, g, b_)
    doc.close()


@pytest.mark.parametrize("duplex, paper", [("long-edge", "letter"), ("short-edge", "letter"),
                                           ("long-edge", "a4"), ("short-edge", "a4")])
def test_backs_mirror_fronts_with_offset_on_partial_sheet(tmp_path, build, cards, duplex, paper):
    offset = (1.2, -0.7)
    result, pdf = build(tmp_path, decks={"main": cards(13)}, duplex=duplex,
                        paper=paper, back_offset_mm=offset)
    pw, ph = LETTER if paper == "letter" else A4
    assert result.pages == 4
    for sheet, n in ((0, 9), (1, 4)):  # the second sheet is partly filled
        fronts = trims(ops(pdf, 2 * sheet))
        backs = form_placements(ops(pdf, 2 * sheet + 1))
        assert len(fronts) == n and len(backs) == n
        for (x, y, w, _h), (bx, by, turn) in zip(fronts, backs, strict=True):
            if duplex == "long-edge":
                expected = (pw - x - w + offset[0], y + offset[1])
                assert turn == 0
            else:
                # Turned 180 so it is upright behind its front: its origin (the back's
                # own lower left) is the top right of the mirrored trim box.
                expected = (x + w + offset[0], ph - y + offset[1])
                assert turn == 180
            assert approx((bx, by), expected), (duplex, paper, (x, y), (bx, by), expected)


def test_card_count_is_sum_of_copies_and_names_are_text(tmp_path, build, cards):
    deck = [("Alpha", 1), ("Beta <&> Co", 3), ("Gamma", 2), ("Delta", 5)]
    result, pdf = build(tmp_path, decks={"main": deck})
    assert result.cards == 11
    front_pages = range(0, len(pdf.pages), 2)
    assert sum(len(clip_rects(ops(pdf, i))) for i in front_pages) == 11
    text = "\n".join(pdf.pages[i].extract_text() for i in front_pages)
    for name, copies in deck:
        assert text.count(name) == copies


def test_fonts_are_embedded(tmp_path, build):
    _, pdf = build(tmp_path)
    seen = 0
    for page in pdf.pages:
        for font in page["/Resources"].get_object().get("/Font", {}).values():
            font = font.get_object()
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            descriptor = descendant["/FontDescriptor"].get_object()
            assert "/FontFile2" in descriptor
            seen += 1
    assert seen > 0


def test_two_builds_are_byte_identical(tmp_path, build, cards):
    first, _ = build(tmp_path / "a", decks={"main": cards(20)})
    second, _ = build(tmp_path / "b", decks={"main": cards(20)})
    assert first.path.read_bytes() == second.path.read_bytes()


def test_metadata(tmp_path, build, cards):
    _, pdf = build(tmp_path)
    assert pdf.metadata.title == "Game G: Deck main"
    assert pdf.metadata.author and "5 cards" in pdf.metadata.subject
    assert "/CreationDate" not in pdf.metadata or "2000" in str(pdf.metadata["/CreationDate"])


def test_no_backs(tmp_path, build, cards):
    result, pdf = build(tmp_path, decks={"main": cards(10)}, backs=False)
    assert result.pages == 2 and all(len(form_origins(ops(pdf, i))) == 0 for i in range(2))


def test_fold_mode_puts_back_beside_front(tmp_path, build, cards):
    result, pdf = build(tmp_path, decks={"main": cards(5)}, fold=True)
    assert result.pages == 2
    assert approx(page_mm(pdf, 0), (LETTER[1], LETTER[0]))  # landscape: 4 pairs a sheet
    page = ops(pdf, 0)
    fronts = trims(page)[0::2]
    backs = form_origins(page)
    assert len(fronts) == 4 and len(backs) == 4
    for (x, y, w, _h), (bx, by) in zip(fronts, backs, strict=True):
        assert approx((bx, by), (x + w, y))  # abutting on the fold line
    dashed = [s for s in segments(page) if abs(s[0] - s[2]) < 1e-6 and
              any(abs(s[0] - (x + w)) < TOL for x, _, w, _ in fronts)]
    assert dashed  # fold marks in the margin


def test_fold_over_a_horizontal_line_turns_the_back(tmp_path, build, cards):
    # 140 x 60 mm: two side by side fit on neither orientation, one above the other does.
    result, pdf = build(tmp_path, decks={"main": cards(2)}, fold=True, size=(140, 60))
    page = ops(pdf, 0)
    matrix = [1, 0, 0, 1, 0, 0]
    corners = []
    for args, op in page:
        if op == b"q":
            saved = list(matrix)
        elif op == b"Q":
            matrix = saved
        elif op == b"cm":
            a, b_, c, d, e, f = (float(v) for v in args)
            m = matrix
            matrix = [a * m[0] + b_ * m[2], a * m[1] + b_ * m[3], c * m[0] + d * m[2],
                      c * m[1] + d * m[3], e * m[0] + f * m[2] + m[4], e * m[1] + f * m[3] + m[5]]
        elif op == b"Do" and not is_scale_bar(args):
            def at(x, y, m=matrix):
                return ((m[0] * x + m[2] * y + m[4]) / PT, (m[1] * x + m[3] * y + m[5]) / PT)
            corners.append((at(0, 0), at(140 * PT, 60 * PT)))
    fronts = trims(page)[0::2]
    assert len(corners) == len(fronts) == 2
    for (x, y, w, h), (origin, far) in zip(fronts, corners, strict=True):
        # the back sits below its front, turned: its origin corner at top-right
        assert approx(origin, (x + w, y)) and approx(far, (x, y - h)), (origin, far)


def test_fold_and_no_backs_conflict(make_db):
    db = make_db("/nonexistent")
    with pytest.raises(b.BuildError, match="--fold"):
        b.options_from_profile(db.print, fold=True, backs=False)


# ── the other artefacts ───────────────────────────────────────────────────────────

XO_EXTRAS = {
    "dice": {"faces": [0, 1, 1, 2, 2, 3], "per_player": 7,
             "sets": {"heroes": {"label": "White Mask"}, "villains": {"label": "Black Mask"}}},
    "mats": {"heroes": {"title": "Heroes League", "size_mm": [431.8, 279.4], "areas": []},
             "villains": {"title": "Villains League", "size_mm": [431.8, 279.4], "areas": []}},
    "tokens": {"money": {"label": "MT", "name": "Money Token", "count": 80, "diameter_mm": 22},
               "fame": {"label": "FT", "name": "Fame Token", "count": 40, "diameter_mm": 22}},
    "reference": {"title": "Turn", "lines": ["a"]},
}


def test_artefact_list(make_db, cards):
    db = make_db("/nonexistent", decks={"one": cards(1), "two": cards(1)}, extras=XO_EXTRAS)
    names = [a.name for a in b.artefacts(db)]
    assert names == ["one", "two", "mats", "mats-tiled", "dice-labels", "tokens", "reference",
                     "calibration"]
    with pytest.raises(b.BuildError, match="unknown artefact 'nope'") as err:
        b.artefacts(db, only="nope")
    assert err.value.exit_code == 2
    with pytest.raises(b.BuildError, match="unknown game"):
        b.artefacts(db, game="chess")


def test_dice_labels(tmp_path, build, cards):
    result, pdf = build(tmp_path, only="dice-labels", extras=XO_EXTRAS)
    # 14 dice packed together (issue 33): 12 rows fit the first letter page, 2 the second
    assert result.cards == 2 * 7 * 6 and result.pages == 2
    texts = [page.extract_text() for page in pdf.pages]
    assert "7 White Mask dice, 5 Black Mask dice" in texts[0]
    assert "2 Black Mask dice" in texts[1]
    # cut rectangles: one per label, 16 mm square
    for page, dice in ((0, 12), (1, 2)):
        rects = [a for a, op in ops(pdf, page) if op == b"re"]
        sixteen = [r for r in rects if abs(float(r[2]) / PT - 16) < TOL
                   and abs(float(r[3]) / PT - 16) < TOL]
        assert len(sixteen) == 6 * dice


def test_dice_label_size_is_configurable(tmp_path, build, cards):
    result, pdf = build(tmp_path, only="dice-labels", extras=XO_EXTRAS, die_label_mm=30)
    rects = [a for a, op in ops(pdf, 0) if op == b"re" and abs(float(a[2]) / PT - 30) < TOL]
    assert result.cards == 84 and len(rects) > 0


def test_tokens(tmp_path, build, cards):
    result, pdf = build(tmp_path, only="tokens", extras=XO_EXTRAS)
    assert result.cards == 120
    text = "".join(p.extract_text() for p in pdf.pages)
    assert text.count("MO") == 80 and text.count("FA") == 40


def test_mats_full_size_and_tiled(tmp_path, build):
    full, pdf = build(tmp_path, only="mats", extras=XO_EXTRAS)
    # The mat's trim plus 1/8 in bleed all round, the trim box set for a print shop.
    assert full.pages == 2 and approx(page_mm(pdf, 0), (431.8 + 2 * BLEED, 279.4 + 2 * BLEED))
    trim = [float(v) / PT for v in pdf.pages[0].trimbox]
    assert approx(trim, (BLEED, BLEED, 431.8 + BLEED, 279.4 + BLEED))
    assert approx([float(v) / PT for v in pdf.pages[0].bleedbox],
                  (0, 0, 431.8 + 2 * BLEED, 279.4 + 2 * BLEED))
    assert full.layout[0]["cards"][0]["trim_mm"] == [3.175, 3.175, 431.8, 279.4]
    tiled, pdf = build(tmp_path, only="mats-tiled", extras=XO_EXTRAS)
    assert tiled.pages == 8  # 2 x 2 landscape letter tiles per mat
    assert approx(page_mm(pdf, 0), (279.4, 215.9))
    text = pdf.pages[0].extract_text()
    assert "tile A1" in text and "Heroes League" in text
    # tile A1 shows the mat's top-left: its window clip starts at the 10 mm margin
    x, y, w, h = clip_rects(ops(pdf, 0))[0]
    assert approx((x, y + h), (10, 215.9 - 10))


def test_reference_and_calibration(tmp_path, build):
    ref, pdf = build(tmp_path, only="reference", extras=XO_EXTRAS)
    assert ref.pages == 1 and "reference g" in pdf.pages[0].extract_text()
    cal, pdf = build(tmp_path, only="calibration", back_offset_mm=(2, 0))
    assert cal.pages == 2
    assert "--back-offset" in pdf.pages[0].extract_text().replace("\n", " ")


# ── errors ────────────────────────────────────────────────────────────────────────


def test_missing_image_names_card_and_path(tmp_path, build, cards):
    with pytest.raises(b.BuildError) as err:
        build(tmp_path, decks={"main": [("Ghost", 1, "art/ghost.png")]})
    message = str(err.value)
    assert "\n" not in message and "Ghost" in message and "art/ghost.png" in message
    assert message.startswith("cards.yaml:10:5:")


def test_escaping_image_path_is_refused(tmp_path, build):
    (tmp_path / "secret.png").write_bytes(b"x")
    with pytest.raises(b.BuildError) as err:
        build(tmp_path, decks={"main": [("Thief", 1, "../secret.png")]})
    message = str(err.value)
    assert "\n" not in message and "Thief" in message and "escapes the project folder" in message


def test_unwritable_output(tmp_path, fonts, make_db, standin):
    blocker = tmp_path / "out"
    blocker.write_text("a file, not a folder")
    db = make_db(tmp_path)
    art = b.artefacts(db, only="main")[0]
    with pytest.raises(b.BuildError) as err:
        b.build_artefact(db, art, b.Options(), standin(db, fonts), fonts, blocker)
    assert err.value.exit_code == 2 and "cannot write to output folder" in str(err.value)


def test_font_errors_are_one_line(tmp_path):
    with pytest.raises(FontError) as err:
        register_fonts({"regular": "fonts/missing.ttf"}, tmp_path)
    assert "\n" not in str(err.value) and "fonts/missing.ttf" in str(err.value)
    with pytest.raises(FontError, match="escapes the project folder"):
        register_fonts({"bold": "../../etc/passwd"}, tmp_path)
    (tmp_path / "bad.ttf").write_bytes(b"not a font at all")
    with pytest.raises(FontError) as err:
        register_fonts({"italic": "bad.ttf"}, tmp_path)
    assert "\n" not in str(err.value) and "bad.ttf" in str(err.value)
    with pytest.raises(FontError, match="unknown role"):
        register_fonts({"heavy": "x.ttf"}, tmp_path)


def test_profile_font_is_used_and_embedded(tmp_path):
    import shutil

    from pnp.draw.fonts import reportlab_font_dir

    (tmp_path / "fonts").mkdir()
    shutil.copy(reportlab_font_dir() / "VeraBd.ttf", tmp_path / "fonts" / "Heading.ttf")
    notices: list[str] = []
    names = register_fonts({"regular": "fonts/Heading.ttf"}, tmp_path, notify=notices.append)
    assert names["regular"].endswith("Heading")
    # issue 12: a role left out comes from the named font's family (here: no other face
    # of it, so the named font itself), never from Vera, and says so
    assert names["bold"] == names["italic"] == names["bolditalic"] == names["regular"]
    assert len(notices) == 3 and all("fonts/Heading.ttf" in n for n in notices)


def test_failed_build_keeps_the_earlier_file(tmp_path, fonts, make_db, standin):
    db = make_db(tmp_path / "proj")
    art = b.artefacts(db, only="main")[0]
    out = tmp_path / "out"
    good = b.build_artefact(db, art, b.Options(), standin(db, fonts), fonts, out)
    before = good.path.read_bytes()

    class Broken(standin):
        def draw_front(self, *args):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        b.build_artefact(db, art, b.Options(), Broken(db, fonts), fonts, out)
    assert good.path.read_bytes() == before
    assert not list(out.glob("g/*.part"))
