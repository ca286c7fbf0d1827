"""`pnp proof`: PNGs from the print's PDF drawing, layout checks, contact sheets, gallery."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

import carddb  # noqa: E402
from pnp.artefacts.single import page_box, select_faces  # noqa: E402
from pnp.draw import checks  # noqa: E402
from pnp.exports.proof import draw_guides, load_record, proof_faces  # noqa: E402
from tests._browser import CHROMIUM, SKIP_REASON, Browser
from tests.harness import run_cli
from tests.pnp.exports_support import ROOT, StandInRenderer  # noqa: E402

PT = 72 / 25.4


@pytest.fixture(scope="module")
def db():
    return carddb.load(ROOT / "cards.yaml")


def few_faces(db):
    deck = db.games["x-statix"].decks["owners"]
    return select_faces(db, "x-statix", ["owners"], [c.name for c in deck.cards[:2]])


def test_proof_writes_faces_contact_sheet_and_gallery(db, tmp_path):
    faces = few_faces(db)
    result = proof_faces(db, faces, StandInRenderer(), tmp_path, dpi=100)
    deck = db.games["x-statix"].decks["owners"]
    folder = tmp_path / "x-statix" / "owners"
    pngs = sorted(p.name for p in folder.glob("*.png"))
    assert len(pngs) == 3 and "back.png" in pngs
    with Image.open(folder / "back.png") as im:
        # (63.5 + 2 x 3.175) mm x (88.9 + 2 x 3.175) mm at 100 dpi
        assert im.size == (275, 375)
    assert (tmp_path / "x-statix" / "owners-contact.png").is_file()
    index = (tmp_path / "index.html").read_text()
    for card in deck.cards[:2]:
        assert f"<b>{card.name}</b>" in index
    assert index.count('<figure class="card') == 3
    assert "Owner" in index and 'id="filter"' in index
    # Every image the gallery shows exists, relative to the page.
    for src in re.findall(r'<img src="([^"]+)"', index):
        assert (tmp_path / src).is_file(), src
    assert result.warnings == []


def test_proofing_one_card_keeps_the_others_in_the_gallery(db, tmp_path):
    proof_faces(db, few_faces(db), StandInRenderer(), tmp_path, dpi=50)
    name = db.games["x-statix"].decks["owners"].cards[2].name
    proof_faces(db, select_faces(db, "x-statix", ["owners"], [name]), StandInRenderer(),
                tmp_path, dpi=50)
    record = load_record(tmp_path)
    assert len(record) == 4          # three fronts and the back
    assert (tmp_path / "index.html").read_text().count('<figure class="card') == 4


def test_guides_mark_trim_bleed_and_safe_zone(db):
    deck = db.games["x-statix"].decks["owners"]
    box = page_box(deck, 3.175)
    dpi = 100
    white = Image.new("RGB", (275, 375), "white")
    guided = draw_guides(white, box, dpi)
    assert guided.getpixel((3, 187)) != (255, 255, 255)           # bleed tinted
    assert guided.getpixel((137, 187)) == (255, 255, 255)         # card centre untouched
    trim_x = round(3.175 * PT * dpi / 72)
    assert guided.getpixel((trim_x, 187))[2] > 200                 # blue trim line
    safe_x = round(2 * 3.175 * PT * dpi / 72)
    column = [guided.getpixel((safe_x, y)) for y in range(40, 330)]
    assert any(p[1] > 150 and p[0] < 60 for p in column)           # green dashes...
    assert any(p == (255, 255, 255) for p in column)               # ...with gaps


# ── layout checks ──────────────────────────────────────────────────────────────────


def warnings_for(db, renderer, card_names, tmp_path):
    faces = select_faces(db, "x-statix", ["owners"], card_names, backs=False)
    result = proof_faces(db, faces, renderer, tmp_path, dpi=40)
    return result.warnings


CHECK_TEMPLATE = """\
{#- design: 63.5 x 88.9 -#}
- rect: {box: [0, 0, {{ W }}, {{ H }}], fill: "#f4f4f4", bleed: true}
- text: {id: name, box: [6, 6, 50, 8], text: {{ card.name }}, size: 10}
- icon: {name: mask, center: %s, size: 5}
- image: {id: art, path: art.png, box: [10, 20, 40, 30], fit: cover}
"""


def checked_project(tmp_path, icon_center: str, art_px: int):
    """A project whose Owner template puts a mask icon at `icon_center` (mm) and an
    `art_px` square image into a 40 x 30 mm box."""
    from tests.pnp.exports_support import make_project

    project = make_project(tmp_path)
    (project / "templates" / "x-statix").mkdir(parents=True, exist_ok=True)
    (project / "templates" / "x-statix" / "owner.j2").write_text(CHECK_TEMPLATE % icon_center)
    Image.new("RGB", (art_px, art_px), "orange").save(project / "art.png")
    return carddb.load(project / "cards.yaml")


def real_warnings(db, tmp_path):
    from pnp.cli.support import make_renderer

    card = db.games["x-statix"].decks["owners"].cards[0]
    faces = select_faces(db, "x-statix", ["owners"], [card.name], backs=False)
    return card, proof_faces(db, faces, make_renderer(db), tmp_path / "proof", dpi=40).warnings


def test_icon_outside_safe_zone_and_low_dpi_image_are_named(tmp_path):
    db = checked_project(tmp_path, "[2, 2]", 100)
    card, found = real_warnings(db, tmp_path)
    by_element = {w.element: w for w in found}
    assert set(by_element) == {"icon mask", "image art.png"}
    icon, image = by_element["icon mask"], by_element["image art.png"]
    assert (icon.game, icon.deck, icon.card) == ("x-statix", "owners", card.name)
    assert "3.7 mm outside the safe zone" in icon.message      # 2 - 2.5 mm vs 3.175 mm
    # 100 px across the 40 mm width of a cover-fitted 40 x 30 mm box: 63 dpi
    assert "63 dpi" in image.message and image.card == card.name


def test_icon_inside_and_sharp_image_pass(tmp_path):
    db = checked_project(tmp_path, "[20, 60]", 600)             # 381 dpi
    _, found = real_warnings(db, tmp_path)
    assert found == []


def test_build_reports_the_layout_checks(tmp_path):
    checked_project(tmp_path, "[2, 2]", 100)
    run = run_cli("pnp", "build", "--only", "owners", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.startswith("warning:")]
    owners = len(carddb.load(tmp_path / "cards.yaml").games["x-statix"].decks["owners"].cards)
    assert sum("icon mask" in line for line in lines) == owners   # once per card
    assert sum("image art.png" in line for line in lines) == owners


def test_blank_card_is_reported(db, tmp_path):
    card = db.games["x-statix"].decks["owners"].cards[1]
    [w] = warnings_for(db, StandInRenderer(blank={card.name}), [card.name], tmp_path)
    assert (w.card, w.element) == (card.name, "template") and "nothing" in w.message


def test_text_outside_safe_zone_found_in_the_pdf(db, tmp_path):
    class Edgy(StandInRenderer):
        def draw_front(self, canvas, card, deck, x, y, w, h, bleed):
            super().draw_front(canvas, card, deck, x, y, w, h, bleed)
            canvas.setFont("Helvetica", 8)
            canvas.drawString(x + 2, y + 20, "Too close")
            return []

    card = db.games["x-statix"].decks["owners"].cards[0]
    [w] = warnings_for(db, Edgy(), [card.name], tmp_path)
    assert w.element == 'text "Too close"' and w.card == card.name


def test_checked_renderer_passes_the_renderers_own_warnings(db):
    from reportlab.pdfgen.canvas import Canvas

    from pnp.draw.render import LayoutWarning

    card = db.games["x-statix"].decks["owners"].cards[0]
    deck = db.games["x-statix"].decks["owners"]
    mine = LayoutWarning("x-statix", "owners", card.name, "text", "does not fit")

    class Overflowing(StandInRenderer):
        def draw_front(self, *args):
            super().draw_front(*args)
            return [mine]

    c = Canvas("/dev/null")
    found = checks.CheckedRenderer(Overflowing()).draw_front(c, card, deck, 20, 20, 180, 252, 9)
    assert found == [mine]


# ── the gallery in a real browser ──────────────────────────────────────────────────

@pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)
def test_gallery_images_all_load_in_headless_chromium(db, tmp_path):
    proof_faces(db, few_faces(db), StandInRenderer(), tmp_path / "proof", dpi=40)
    # One image that cannot load proves the check can fail.
    broken_dir = tmp_path / "broken"
    shutil.copytree(tmp_path / "proof", broken_dir)
    (broken_dir / "x-statix" / "owners" / "back.png").unlink()
    # one browser opens the three pages (issue 34: a Chromium started for each cost
    # ~0.7 s CPU); each page's DOM is read once its load event has checked the images
    browser = Browser(tmp_path / "profile")

    def dom(folder: Path, fragment: str = "") -> str:
        url = (folder / "index.html").as_uri() + fragment
        browser.open(url)
        browser.wait_for(f"location.href === {json.dumps(url)} && "
                         "document.body.dataset.imagesChecked !== undefined", 30)
        return browser.js("document.documentElement.outerHTML")

    try:
        good = dom(tmp_path / "proof")
        assert 'data-images-checked="3"' in good
        assert 'data-images-broken="0"' in good
        bad = dom(broken_dir)
        assert 'data-images-broken="1"' in bad
        # The filter box (prefilled from #q=) hides the cards that do not match.
        name = db.games["x-statix"].decks["owners"].cards[1].name
        filtered = dom(tmp_path / "proof", "#q=" + name.replace(" ", "%20"))
    finally:
        browser.close()
    assert filtered.count('class="card hidden"') == 2
    assert '<span id="count">1 shown</span>' in filtered


# ── the proof is the print ─────────────────────────────────────────────────────────


def test_proof_pixels_match_the_build_pdf_card_region(db, tmp_path):
    """Render the first card of a built deck PDF, cropped to its trim box, and compare it
    with the proof PNG's trim area: same drawing code, same pixels."""
    import pypdfium2 as pdfium
    from PIL import ImageChops, ImageStat

    from pnp.artefacts import build as b
    from pnp.cli.support import make_renderer
    from pnp.layout import geometry as g

    renderer = make_renderer(db)
    opts = b.options_from_profile(db.print)
    [art] = b.artefacts(db, game="x-statix", only="owners")
    built = b.build_artefact(db, art, opts, renderer, renderer.fonts, tmp_path / "build")
    deck = db.games["x-statix"].decks["owners"]
    w, h = g.mm(deck.size_mm[0]), g.mm(deck.size_mm[1])
    page_w, page_h = (g.mm(v) for v in built.layout[0]["size_mm"])
    dpi = 144  # the 1/8 in bleed is exactly 18 px: proof and sheet share a pixel grid

    def sheet_card(index: int) -> Image.Image:
        # the card's trim box from the layout report: mm from the page's top-left
        x, y, tw, th = (g.mm(v) for v in built.layout[0]["cards"][index]["trim_mm"])
        doc = pdfium.PdfDocument(art.path(tmp_path / "build"))
        page = doc[0]
        crop = (x, page_h - y - th, page_w - x - tw, y)
        image = page.render(scale=dpi / 72 * (1 - 1e-9), crop=crop).to_pil().convert("RGB")
        doc.close()
        return image

    faces = select_faces(db, "x-statix", ["owners"], [deck.cards[0].name], backs=False)
    proof_faces(db, faces, renderer, tmp_path / "proof", dpi=dpi)
    proof = Image.open(next((tmp_path / "proof" / "x-statix" / "owners").glob("*.png")))
    b_px = round(opts.bleed * dpi / 72)
    trim_px = (round(w * dpi / 72), round(h * dpi / 72))
    proof_trim = proof.convert("RGB").crop((b_px, b_px, b_px + trim_px[0], b_px + trim_px[1]))

    same = sheet_card(0)
    assert same.size == proof_trim.size
    diff = ImageChops.difference(same, proof_trim)
    assert max(ImageStat.Stat(diff).mean) < 0.2
    other = ImageChops.difference(sheet_card(1), proof_trim)   # a different card
    assert max(ImageStat.Stat(other).mean) > max(ImageStat.Stat(diff).mean) + 1.0


def test_proof_command_with_the_real_renderer(db, tmp_path):
    from tests.pnp.exports_support import make_project

    project = make_project(tmp_path / "project")
    card = db.games["x-statix"].decks["common"].cards[0]
    run = run_cli("pnp", "proof", "--card", card.name, "--guides", "--out", "proofs",
                  cwd=project)
    assert run.returncode == 0, run.stderr
    assert "proofed 2 faces" in run.stdout
    assert (project / "proofs" / "index.html").is_file()
    assert (project / "proofs" / "x-statix" / "common-contact.png").is_file()
    bad = run_cli("pnp", "proof", "--card", "Nobody At All", cwd=project)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "pnp: unknown card 'Nobody At All'"
