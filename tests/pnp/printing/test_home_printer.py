"""Issue 12: prints that survive a real home printer. `python -m pnp build --json` on the
bundled cards.yaml with the real renderer, for Letter and A4; the layout report read
back and checked against the PDFs, and the front sheets rendered with the printer's
unprintable 5 mm band painted white, where every trim line must still show a guide."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

import carddb
from tests.harness import run_cli

PT = 72 / 25.4
MARGIN = 5.0  # mm: the default print.printer_margin_mm
DPI = 150


pnp = partial(run_cli, "pnp")


@pytest.fixture(scope="module", params=["letter", "a4"])
def built(request, bundled_build):
    """(paper, project folder, output folder, the --json report, the process): the
    session's build of the bundled cards.yaml on that paper (printing/conftest.py)."""
    folder, out, result = bundled_build(request.param)
    return request.param, folder, out, json.loads(result.stdout), result


def fronts(report: dict):
    """(artefact entry, page entry) of every front sheet of every deck."""
    for art in report["artefacts"]:
        for page in art["pages"]:
            if page["side"] == "front" and page["cards"]:
                yield art, page


# ── the report ────────────────────────────────────────────────────────────────────


def test_json_is_one_object_on_stdout_and_the_table_goes_to_stderr(built):
    paper, folder, out, report, result = built
    assert result.stdout.count("\n") == 1  # exactly one JSON object, one line
    assert set(report) == {"artefacts"}
    assert "pages" in result.stderr and "cards" in result.stderr  # the human table
    size = [215.9, 279.4] if paper == "letter" else [210.0, 297.0]
    db = carddb.load(folder / "cards.yaml")
    expected = {f"{g}/{d}.pdf" for g, game in db.games.items() for d in game.decks}
    assert expected <= {a["path"] for a in report["artefacts"]}
    for art in report["artefacts"]:
        assert set(art) == {"path", "pages"}
        for number, page in enumerate(art["pages"], 1):
            assert set(page) == {"page", "size_mm", "side", "cards"}
            assert page["page"] == number and page["side"] in ("front", "back", "other")
            for card in page["cards"]:
                assert set(card) == {"name", "trim_mm"} and len(card["trim_mm"]) == 4
        if art["path"].split("/")[1][:-4] in {d for g in db.games.values() for d in g.decks}:
            assert all(p["size_mm"] == size for p in art["pages"])
        # the same object, per artefact, beside the PDF
        beside = json.loads((out / art["path"]).with_suffix(".layout.json").read_text())
        assert beside == {"artefacts": [art]}


def test_layout_matches_the_pdfs(built):
    """Page count and page sizes per artefact; per deck every card's trim is the deck's
    card size, inside the page, no two overlap; every physical card is on a front and
    behind it a back of the same name."""
    _, folder, out, report, _ = built
    db = carddb.load(folder / "cards.yaml")
    decks = {f"{g}/{d}.pdf": deck for g, game in db.games.items()
             for d, deck in game.decks.items()}
    for art in report["artefacts"]:
        pdf = PdfReader(out / art["path"])
        assert len(pdf.pages) == len(art["pages"]), art["path"]
        for page, entry in zip(pdf.pages, art["pages"], strict=True):
            box = page.mediabox
            assert abs(float(box.width) / PT - entry["size_mm"][0]) < 0.01
            assert abs(float(box.height) / PT - entry["size_mm"][1]) < 0.01
        deck = decks.get(art["path"])
        if deck is None:
            continue
        names = []
        previous: dict = {"cards": []}
        for entry in art["pages"]:
            w_page, h_page = entry["size_mm"]
            trims = [c["trim_mm"] for c in entry["cards"]]
            for x, y, w, h in trims:
                assert (round(w, 2), round(h, 2)) == tuple(round(v, 2) for v in deck.size_mm)
                assert MARGIN - 1e-3 <= x and x + w <= w_page - MARGIN + 1e-3
                assert MARGIN - 1e-3 <= y and y + h <= h_page - MARGIN + 1e-3
            for i, a in enumerate(trims):
                for b in trims[i + 1:]:
                    assert (a[0] + a[2] <= b[0] + 1e-3 or b[0] + b[2] <= a[0] + 1e-3
                            or a[1] + a[3] <= b[1] + 1e-3 or b[1] + b[3] <= a[1] + 1e-3)
            if entry["side"] == "front":
                names += [c["name"] for c in entry["cards"]]
            else:
                assert [c["name"] for c in entry["cards"]] == [
                    c["name"] for c in previous["cards"]]
            previous = entry
        assert sorted(names) == sorted(c.name for c in deck.cards for _ in range(c.copies))


# ── cut guides that print ─────────────────────────────────────────────────────────


def render_blanked(pdf: Path, index: int) -> np.ndarray:
    """A page as grey levels at DPI, the printer's unprintable 5 mm band painted white."""
    doc = pdfium.PdfDocument(str(pdf))
    image = doc[index].render(scale=DPI / 72).to_pil().convert("L")
    doc.close()
    grey = np.asarray(image).astype(np.int16)    # (a copy, to paint on; see render_rgb)
    band = round(MARGIN / 25.4 * DPI)
    grey[:band, :] = grey[-band:, :] = 255
    grey[:, :band] = grey[:, -band:] = 255
    return grey


def px(mm_: float) -> int:
    return round(mm_ / 25.4 * DPI)


def has_guide(grey: np.ndarray, line: float, vertical: bool, page_len: float,
              cards: list[list[float]]) -> bool:
    """Somewhere on the trim line (mm from the top-left), outside every card and inside
    the printable area, pixels within 0.35 mm of the line differ from the paint 1.2 mm
    to BOTH sides of it (a colour edge along the line would differ from one side only),
    over at least 0.4 mm of its length."""
    run = 0
    for step in range(int((page_len - 2 * MARGIN - 0.8) / 0.1)):
        t = MARGIN + 0.4 + step * 0.1
        inside = any((c[0] - 0.2 <= line <= c[0] + c[2] + 0.2 and c[1] - 0.2 <= t <= c[1] + c[3] + 0.2)
                     if vertical else
                     (c[1] - 0.2 <= line <= c[1] + c[3] + 0.2 and c[0] - 0.2 <= t <= c[0] + c[2] + 0.2)
                     for c in cards)
        if inside:
            run = 0
            continue
        if vertical:
            row = grey[px(t)]
            near = row[px(line - 0.35): px(line + 0.35) + 1]
            sides = (row[px(line - 1.2)], row[px(line + 1.2)])
        else:
            col = grey[:, px(t)]
            near = col[px(line - 0.35): px(line + 0.35) + 1]
            sides = (col[px(line - 1.2)], col[px(line + 1.2)])
        contrast = min(int(np.abs(near - s).max()) for s in sides)
        run = run + 1 if contrast >= 80 else 0
        if run >= 4:
            return True
    return False


def test_every_trim_line_shows_a_guide_with_the_margin_blanked(built):
    paper, _, out, report, _ = built
    checked = 0
    seen: set[str] = set()
    for art, page in fronts(report):
        last = [p for p in art["pages"] if p["side"] == "front"][-1]
        if art["path"] in seen and page is not last:
            continue  # the first and the last (partly filled) sheet of each deck
        seen.add(art["path"])
        grey = render_blanked(out / art["path"], page["page"] - 1)
        w_page, h_page = page["size_mm"]
        cards = [c["trim_mm"] for c in page["cards"]]
        xs = {round(v, 3) for x, _, w, _ in cards for v in (x, x + w)}
        ys = {round(v, 3) for _, y, _, h in cards for v in (y, y + h)}
        for x in xs:
            assert has_guide(grey, x, True, h_page, cards), (paper, art["path"], page["page"], "x", x)
        for y in ys:
            assert has_guide(grey, y, False, w_page, cards), (paper, art["path"], page["page"], "y", y)
        checked += len(xs) + len(ys)
    assert checked > 100


def test_a_sheet_without_guides_fails_the_pixel_check(built):
    """The check above can fail: the same sheet rebuilt without cut guides (crop_marks
    false) shows no guide on the lines whose margin the printer leaves blank."""
    paper, folder, _, report, _ = built
    text = (folder / "cards.yaml").read_text()
    bare = folder / "bare"
    bare.mkdir(exist_ok=True)
    (bare / "cards.yaml").write_text(text.replace("crop_marks: true", "crop_marks: false"))
    result = pnp("build", "--paper", paper, "--only", "common", "--out", "out", "--json",
                 cwd=bare)
    assert result.returncode == 0, result.stderr
    page = json.loads(result.stdout)["artefacts"][0]["pages"][0]
    grey = render_blanked(bare / "out" / "x-statix" / "common.pdf", 0)
    cards = [c["trim_mm"] for c in page["cards"]]
    x0 = min(c[0] for c in cards)
    assert not has_guide(grey, x0, True, page["size_mm"][1], cards)


def test_the_scale_bar_is_on_every_sheet_where_no_card_is(built):
    paper, _, out, report, _ = built
    label = "2 in at 100 %" if paper == "letter" else "50 mm at 100 %"
    for art in report["artefacts"]:
        if art["path"].endswith(("mats.pdf", "mats-tiled.pdf")):
            continue  # a mat is its own scale
        doc = pdfium.PdfDocument(str(out / art["path"]))
        for entry in art["pages"]:
            if entry["side"] == "back":
                continue
            page = doc[entry["page"] - 1]
            text = page.get_textpage()
            found = text.search(label)
            hit = found.get_next()
            assert hit is not None, (art["path"], entry["page"])
            first, count = hit
            boxes = [text.get_charbox(first + i) for i in range(count)]
            h_page = entry["size_mm"][1]
            for left, bottom, right, top in boxes:
                x0, x1 = left / PT, right / PT
                y0, y1 = h_page - top / PT, h_page - bottom / PT
                assert MARGIN <= x0 and MARGIN <= y0 and y1 <= h_page - MARGIN
                for cx, cy, cw, ch in (c["trim_mm"] for c in entry["cards"]):
                    assert x1 <= cx or x0 >= cx + cw or y1 <= cy or y0 >= cy + ch
            found.close()
            text.close()
        doc.close()


# ── auto never abuts different bleeds ─────────────────────────────────────────────


def shared_edges(cards: list[dict]):
    """Pairs of cards that share a cut line: (a, b, "x") a left of b, (a, b, "y") above."""
    for a in cards:
        for b in cards:
            ax, ay, aw, ah = a["trim_mm"]
            bx, by, bw, bh = b["trim_mm"]
            if abs(ax + aw - bx) < 0.01 and abs(ay - by) < 0.01:
                yield a, b, "x"
            if abs(ay + ah - by) < 0.01 and abs(ax - bx) < 0.01:
                yield a, b, "y"


def render_rgb(pdf: Path, index: int) -> np.ndarray:
    doc = pdfium.PdfDocument(str(pdf))
    # 16-bit, converted from PIL's bytes: a page converted straight into 64-bit ints cost
    # 60 ms of CPU, fifteen times this (issue 34); sums of it are taken in 64 bits
    image = np.asarray(doc[index].render(scale=DPI / 72).to_pil().convert("RGB")).astype(np.int16)
    doc.close()
    return image


def edge_colours(image: np.ndarray, a: dict, b: dict, axis: str):
    """The paint 0.6 mm inside each card at the middle of their shared edge."""
    ax, ay, aw, ah = a["trim_mm"]
    if axis == "x":
        y = ay + ah / 2
        return image[px(y), px(ax + aw - 0.6)], image[px(y), px(ax + aw + 0.6)]
    x = ax + aw / 2
    return image[px(ay + ah - 0.6), px(x)], image[px(ay + ah + 0.6), px(x)]


def test_auto_never_abuts_cards_of_different_bleed(built, tmp_path):
    paper, folder, out, report, _ = built
    objectives = next(a for a in report["artefacts"] if a["path"] == "xo/objectives.pdf")
    pairs = 0
    for entry in objectives["pages"]:
        if entry["side"] != "front":
            continue
        image = render_rgb(out / objectives["path"], entry["page"] - 1)
        for a, b, axis in shared_edges(entry["cards"]):
            one, two = edge_colours(image, a, b, axis)
            assert np.abs(one - two).max() < 30, (paper, a["name"], b["name"])
            pairs += 1
    # with --layout abut the same deck does put blue next to red: the check can fail
    result = pnp("build", "--paper", paper, "--only", "objectives", "--layout", "abut",
                 "--out", str(tmp_path), "--json", cwd=folder)
    assert result.returncode == 0, result.stderr
    abut = json.loads(result.stdout)["artefacts"][0]
    differ = 0
    for entry in abut["pages"]:
        if entry["side"] == "front":
            image = render_rgb(tmp_path / abut["path"], entry["page"] - 1)
            for a, b, axis in shared_edges(entry["cards"]):
                one, two = edge_colours(image, a, b, axis)
                differ += int(np.abs(one - two).max() >= 30)
    assert differ > 0
    # and --layout gutters shares no cut line at all
    result = pnp("build", "--paper", paper, "--only", "common", "--layout", "gutters",
                 "--out", str(tmp_path), "--json", cwd=folder)
    pages = json.loads(result.stdout)["artefacts"][0]["pages"]
    assert not [p for p in pages if list(shared_edges(p["cards"]))]


# ── incremental builds keep the report ────────────────────────────────────────────


def test_a_no_op_build_reports_the_same_layout(built):
    paper, folder, out, report, _ = built
    again = pnp("build", "--paper", paper, "--out", str(out), "--json", cwd=folder)
    assert again.returncode == 0, again.stderr
    assert "nothing to do" in again.stderr
    assert json.loads(again.stdout) == report


# ── the other sheets ──────────────────────────────────────────────────────────────


def test_mats_have_bleed_and_only_background_within_the_printer_margin(built):
    _, folder, out, report, _ = built
    db = carddb.load(folder / "cards.yaml")
    bleed = db.print.bleed_mm
    mats = next(a for a in report["artefacts"] if a["path"] == "xo/mats.pdf")
    for entry in mats["pages"]:
        (mat,) = entry["cards"]
        assert mat["trim_mm"][:2] == [bleed, bleed]
        image = render_rgb(out / mats["path"], entry["page"] - 1)
        background = image[px(1), px(1)]
        assert background.sum() < 600  # the bleed is painted, not white paper
        band = px(bleed + MARGIN)  # the bleed plus the printer margin inside the trim
        for strip in (image[:band], image[-band:], image[:, :band], image[:, -band:]):
            assert np.abs(strip - background).max() < 40


def token_circles(pdf: Path) -> list[tuple[float, float, float]]:
    """(cx, cy, r) in points of the cut circles on the first page: black stroked paths
    of four Bezier curves."""
    from pypdf.generic import ContentStream

    reader = PdfReader(pdf)
    ops = ContentStream(reader.pages[0].get_contents(), reader).operations
    out, points, black = [], [], False
    for args, op in ops:
        if op == b"RG":
            black = [float(v) for v in args] == [0, 0, 0]
        elif op == b"m":
            points = [(float(args[0]), float(args[1]))]
        elif op == b"c":
            points += [(float(args[i]), float(args[i + 1])) for i in (0, 2, 4)]
        elif op == b"S" and black and len(points) == 13:
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            out.append(((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2,
                        (max(xs) - min(xs)) / 2))
    return out


def test_tokens_have_bleed_and_their_text_inside_the_ring(built):
    _, _, out, _, _ = built
    pdf = out / "x-statix" / "tokens.pdf"
    circles = token_circles(pdf)
    assert len(circles) > 20
    image = render_rgb(pdf, 0)
    height = image.shape[0]
    for cx, cy, r in circles:
        # 0.7 mm outside the cut circle: still the token's colour, not paper
        x, y = (cx - r) / PT - 0.7, (height / DPI * 25.4) - cy / PT
        assert image[px(y), px(x)].sum() < 600
    doc = pdfium.PdfDocument(str(pdf))
    text = doc[0].get_textpage()
    chars = 0
    for i in range(text.count_chars()):
        if not text.get_text_range(i, 1).strip():
            continue
        left, bottom, right, top = text.get_charbox(i)
        mid = ((left + right) / 2, (bottom + top) / 2)
        cx, cy, r = min(circles, key=lambda c: (c[0] - mid[0]) ** 2 + (c[1] - mid[1]) ** 2)
        if (mid[0] - cx) ** 2 + (mid[1] - cy) ** 2 > r * r:
            continue  # the heading
        chars += 1
        for x, y in ((left, bottom), (left, top), (right, bottom), (right, top)):
            assert (x - cx) ** 2 + (y - cy) ** 2 <= (0.88 * r) ** 2, text.get_text_range(i, 1)
    assert chars > 100
    text.close()
    doc.close()


def test_calibration_arrow_has_its_partner_behind_it(built):
    paper, _, out, _, _ = built
    pdf = out / "xo" / "calibration.pdf"
    front, back = render_rgb(pdf, 0), render_rgb(pdf, 1)
    page_w = 215.9 if paper == "letter" else 210.0
    # the front's arrow shaft: 75 mm from the left, 95 mm from the top (long-edge duplex)
    x, y = 75.0, 95.0
    assert front[px(y), px(x)].max() < 60
    assert 80 < back[px(y), px(page_w - x)].mean() < 160  # the grey partner, mirrored
    assert back[px(y), px(x)].min() > 240  # and nothing where a wrong flip would put it
    doc = pdfium.PdfDocument(str(pdf))
    assert "THIS EDGE UP" in doc[0].get_textpage().get_text_range()
    doc.close()
