"""Drawing real cards: every bundled card renders, its words are in the PDF text layer,
text is fitted or reported, paths are checked, art runs into the bleed."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from pnp.draw.markup import plain_text
from pnp.draw.render import MM, SAFE_MM, CardRenderer, LayoutWarning, RenderError
from tests.pdftext import page_texts

BLEED = 3.175 * MM


def squash(text: str) -> str:
    """Text compared without whitespace: pypdf and the layout break lines differently."""
    return re.sub(r"\s+", "", text)


def draw_one(renderer, card, deck, kit, size=None):
    """One card per page, trim box at (bleed, bleed); returns (warnings, pypdf page)."""
    size = size or kit.POKER
    w, h = size[0] * MM, size[1] * MM
    sink = kit.PdfSink((w + 2 * BLEED, h + 2 * BLEED))
    warnings = renderer.draw_front(sink.canvas, card, deck, BLEED, BLEED, w, h, BLEED)
    return warnings, sink.pdf().pages[0]


def test_every_bundled_card_and_back_renders_with_its_text_in_the_pdf(db, renderer, kit):
    sink = kit.PdfSink()
    expected = []
    warnings: list[LayoutWarning] = []
    for game in db.games.values():
        for deck in game.decks.values():
            w, h = deck.size_mm[0] * MM, deck.size_mm[1] * MM
            for card in deck.cards:
                warnings += renderer.draw_front(sink.canvas, card, deck, 40, 40, w, h, BLEED)
                sink.canvas.showPage()
                expected.append(card)
            warnings += renderer.draw_back(sink.canvas, deck, 40, 40, w, h, BLEED)
            sink.canvas.showPage()
            expected.append(deck)
    assert warnings == []                      # nothing overflows, no empty template
    pages = page_texts(sink.bytes())
    assert len(pages) == len(expected)
    for page, thing in zip(pages, expected, strict=True):
        text = squash(page)
        if hasattr(thing, "cards"):            # a back shows the back's title
            assert squash(thing.back["title"]).upper() in text.upper()
            continue
        assert squash(thing.name) in text, thing.name
        assert squash(plain_text(thing.text)) in text, thing.name


def test_every_extra_component_renders(db, renderer, kit):
    sink = kit.PdfSink((1300, 900))
    warnings = []
    for game in db.games.values():
        for mat_id, mat in (game.extras.get("mats") or {}).items():
            w, h = mat["size_mm"][0] * MM, mat["size_mm"][1] * MM
            warnings += renderer.draw_mat(sink.canvas, game.id, mat_id, 0, 0, w, h)
            sink.canvas.showPage()
        if game.extras.get("reference"):
            warnings += renderer.draw_reference(sink.canvas, game.id, 20, 20, 4 * 72, 6 * 72)
            sink.canvas.showPage()
        dice = game.extras.get("dice")
        if dice:
            for set_id in dice["sets"]:
                for value in sorted(set(dice["faces"])):
                    warnings += renderer.draw_die_face(sink.canvas, game.id, set_id, value,
                                                       20, 20, 16 * MM)
        for token_id, token in (game.extras.get("tokens") or {}).items():
            warnings += renderer.draw_token(sink.canvas, game.id, token_id, 100, 100,
                                            token["diameter_mm"] / 2 * MM)
        sink.canvas.showPage()
    assert warnings == []
    text = squash(" ".join(p.extract_text() for p in sink.pdf().pages))
    for game in db.games.values():
        for mat in (game.extras.get("mats") or {}).values():
            assert squash(mat["title"]).upper() in text.upper()
            for area in mat["areas"]:
                assert squash(area["label"]).upper() in text.upper()
        reference = game.extras.get("reference")
        if reference:
            assert squash(reference["title"]) in text
            for line in reference["lines"]:
                assert squash(plain_text(line)) in text


def test_names_and_text_print_literally(db, renderer, kit):
    card = kit.card("Tom & Jerry <b>", text="a < b && c > d; **bold** & *it*")
    warnings, page = draw_one(renderer, card, kit.deck([card]), kit)
    assert warnings == []
    text = page.extract_text()
    assert "Tom & Jerry <b>" in text
    assert squash("a < b && c > d; bold & it") in squash(text)


def test_long_text_is_shrunk_to_fit_without_warning(db, renderer, kit):
    long_text = " ".join(["Get +1 to the Success Roll for each Power card discarded."] * 4)
    card = kit.card("Shrinker", text=long_text)
    warnings, page = draw_one(renderer, card, kit.deck([card]), kit)
    assert warnings == []
    sizes = set()
    page.extract_text(visitor_text=lambda t, cm, tm, font, size: sizes.add(round(size * tm[0], 2))
                      if "Success" in t else None)
    assert sizes and max(sizes) < 10 and min(sizes) >= 6     # rules: 10 pt, min 6 pt
    assert squash(long_text) in squash(page.extract_text())


def test_text_past_the_minimum_size_is_cut_and_reported(db, renderer, kit):
    text = " ".join(f"word{i}" for i in range(400))
    card = kit.card("Overflowing", text=text)
    deck = kit.deck([card])
    warnings, page = draw_one(renderer, card, deck, kit)
    assert len(warnings) == 1
    (warning,) = warnings
    assert (warning.game, warning.deck, warning.card, warning.element) == (
        "x-statix", "common", "Overflowing", "rules")
    assert "does not fit" in warning.message and "6 pt" in warning.message
    printed = page.extract_text()
    assert "\u2026" in printed and "word399" not in printed
    assert "Overflowing" in str(warning)


def test_a_long_single_word_is_broken_rather_than_overflowing_the_box(db, renderer, fonts, kit):
    from pnp.draw import textbox
    from pnp.draw.markup import parse

    fitted = textbox.fit(parse("Supercalifragilisticexpialidocious" * 3), fonts, "regular",
                         10, 6, 60, 200)
    assert fitted.overflow                     # a word wider than the box is reported
    assert all(p.x + p.width <= 60 + 1e-6 for p in fitted.pieces)


def test_text_stays_inside_the_safe_zone_and_art_fills_the_bleed(db, renderer, kit):
    import pypdfium2 as pdfium

    game = db.games["x-statix"]
    deck = game.decks["common"]
    card = deck.cards[0]
    w, h = deck.size_mm[0] * MM, deck.size_mm[1] * MM
    sink = kit.PdfSink((w + 2 * BLEED, h + 2 * BLEED))
    renderer.draw_front(sink.canvas, card, deck, BLEED, BLEED, w, h, BLEED)
    data = sink.bytes()

    from io import BytesIO

    from pypdf import PdfReader

    origins = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            origins.append((text, x, y))

    PdfReader(BytesIO(data)).pages[0].extract_text(visitor_text=visit)
    assert origins
    safe = SAFE_MM * MM
    for text, x, y in origins:
        assert BLEED + safe - 0.01 <= x <= BLEED + w - safe, text
        assert BLEED + safe - 0.01 <= y <= BLEED + h - safe, text

    bitmap = pdfium.PdfDocument(data)[0].render(scale=2).to_pil().convert("RGB")
    corner = bitmap.getpixel((1, 1))           # in the bleed, outside the trim
    assert sum(corner) < 100                   # the black border runs into the bleed


def test_image_paths_are_resolved_inside_the_project(tmp_path, db, fonts, kit):
    from PIL import Image

    (tmp_path / "art").mkdir()
    Image.new("RGB", (40, 60), "#ff0000").save(tmp_path / "art" / "hero.png")
    project = SimpleNamespace(root=tmp_path, games=db.games)
    renderer = CardRenderer(project, fonts)
    good = kit.card("Painted", text="x", image="art/hero.png")
    warnings, page = draw_one(renderer, good, kit.deck([good]), kit)
    assert warnings == [] and "/XObject" in page["/Resources"]

    missing = kit.card("Unpainted", image="art/missing.png")
    with pytest.raises(RenderError) as info:
        draw_one(renderer, missing, kit.deck([missing]), kit)
    message = str(info.value)
    assert "'Unpainted'" in message and "art/missing.png" in message and "\n" not in message

    escaping = kit.card("Escaper", image="../outside.png")
    (tmp_path.parent / "outside.png").write_bytes((tmp_path / "art" / "hero.png").read_bytes())
    with pytest.raises(RenderError, match=r"'Escaper'.*'\.\./outside\.png' escapes"):
        draw_one(renderer, escaping, kit.deck([escaping]), kit)


@pytest.mark.parametrize("content, reason", [
    (b"name: not an image\n", "not an image file"),
    ("truncated", "truncated"),
])
def test_an_unreadable_image_is_one_line_naming_the_card(tmp_path, db, fonts, kit, content, reason):
    """A text file or a half-copied PNG: a RenderError naming card and file, not an
    OSError from inside drawImage (which the build took for an unwritable folder)."""
    import io

    from PIL import Image

    if content == "truncated":
        buffer = io.BytesIO()
        Image.effect_noise((300, 200), 60).save(buffer, "PNG")
        content = buffer.getvalue()[:2000]
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "broken.png").write_bytes(content)
    renderer = CardRenderer(SimpleNamespace(root=tmp_path, games=db.games), fonts)
    card = kit.card("Broken Art", text="x", image="art/broken.png")
    with pytest.raises(RenderError) as info:
        draw_one(renderer, card, kit.deck([card]), kit)
    message = str(info.value)
    assert "'Broken Art'" in message and "'broken.png' cannot be read" in message
    assert reason in message and "\n" not in message and "0x" not in message


def test_deck_back_image_is_checked_too(tmp_path, db, fonts, kit):
    renderer = CardRenderer(SimpleNamespace(root=tmp_path, games=db.games), fonts)
    deck = kit.deck([], back={"title": "X", "image": "/etc/hostname"})
    sink = kit.PdfSink()
    with pytest.raises(RenderError, match="back of deck 'common'.*escapes"):
        renderer.draw_back(sink.canvas, deck, 0, 0, 100, 100, 5)


def custom_renderer(tmp_path, db, fonts, **templates):
    folder = tmp_path / "templates" / "x-statix"
    folder.mkdir(parents=True)
    for name, text in templates.items():
        (folder / f"{name}.j2").write_text(text)
    return CardRenderer(db, fonts, templates=tmp_path / "templates")


def test_a_template_that_draws_nothing_is_reported(tmp_path, db, fonts, kit):
    renderer = custom_renderer(tmp_path, db, fonts, hero="{# nothing yet #}\n")
    card = kit.card("Blank")
    warnings, _ = draw_one(renderer, card, kit.deck([card]), kit)
    assert [(w.card, w.element) for w in warnings] == [("Blank", "template")]
    assert "produced no elements" in warnings[0].message


def test_template_syntax_error_is_a_one_line_render_error(tmp_path, db, fonts, kit):
    renderer = custom_renderer(tmp_path, db, fonts, hero="- rect: {box: [0, 0, 1, 1]}\n{{ card.name \n")
    card = kit.card("Anarchist")
    with pytest.raises(RenderError) as info:
        draw_one(renderer, card, kit.deck([card]), kit)
    message = str(info.value)
    assert re.match(r"templates/x-statix/hero\.j2:2: template syntax error", message)
    assert "\n" not in message


@pytest.mark.parametrize("element, expected", [
    ("- rect: {box: [0, 0, 1]}", "box must be a list of 4 numbers"),
    ("- txt: {box: [0, 0, 1, 1]}", "unknown element 'txt'"),
    ("- text: {box: [0, 0, 1, 1], text: a, sise: 3}", "unknown setting 'sise'"),
    ("- text: {box: [0, 0, 1, 1], text: a, align: middle}", "align must be one of"),
    ("- text: {box: [0, 0, 1, 1], text: a, font: fancy}", "unknown font 'fancy'"),
    ("- icon: {name: lazer, center: [1, 1]}", "unknown icon 'lazer'"),
    ("- rect: {box: [0, 0, 1, 1], fill: notacolour}", "not a colour"),
    ("- text: {box: [5, 5, 40, 40], text: '{icon:nope}'}", "unknown icon {icon:nope}"),
])
def test_invalid_elements_name_template_element_and_card(tmp_path, db, fonts, element, expected, kit):
    renderer = custom_renderer(tmp_path, db, fonts, hero=element + "\n")
    card = kit.card("Anarchist")
    with pytest.raises(RenderError) as info:
        draw_one(renderer, card, kit.deck([card]), kit)
    message = str(info.value)
    assert message.startswith("templates/x-statix/hero.j2: element 1: ")
    assert expected in message and "'Anarchist'" in message and "\n" not in message


def test_a_card_type_without_template(tmp_path, db, fonts, kit):
    renderer = custom_renderer(tmp_path, db, fonts)
    card = kit.card("Lonely", type="Sidekick")
    with pytest.raises(RenderError, match=r"card 'Lonely' of type 'Sidekick': no template "
                                          r"templates/x-statix/sidekick\.j2"):
        draw_one(renderer, card, kit.deck([card]), kit)


def test_text_outside_the_safe_zone_is_moved_in_and_reported(tmp_path, db, fonts, kit):
    renderer = custom_renderer(tmp_path, db, fonts,
                               hero="- text: {id: edge, box: [0, 0, 30, 10], text: {{ card.name }}}\n")
    card = kit.card("Edgy")
    warnings, page = draw_one(renderer, card, kit.deck([card]), kit)
    assert [(w.element, "safe zone" in w.message) for w in warnings] == [("edge", True)]


def test_same_input_same_pdf_and_copies_reuse_the_layout(db, fonts, kit):
    def build():
        renderer = CardRenderer(db, fonts)
        sink = kit.PdfSink()
        deck = db.games["xo"].decks["heroes-characters"]
        for _ in range(3):
            renderer.draw_front(sink.canvas, deck.cards[0], deck, 30, 30, 180, 252, BLEED)
            renderer.draw_back(sink.canvas, deck, 230, 30, 180, 252, BLEED)
        return sink.bytes()

    assert build() == build()


def test_fonts_must_name_every_role(db):
    with pytest.raises(ValueError, match="bolditalic"):
        CardRenderer(db, {"regular": "Vera", "bold": "VeraBd", "italic": "VeraIt"})


def test_elements_replayed_on_later_pages_look_and_read_the_same(db, renderer, kit):
    """Repeated elements are written once per document and replayed (render.py): a
    card drawn again on another page must rasterise and extract identically."""
    import pypdfium2 as pdfium

    deck = db.games["xo"].decks["heroes-characters"]
    card = deck.cards[0]
    w, h = deck.size_mm[0] * MM, deck.size_mm[1] * MM
    sink = kit.PdfSink((w + 2 * BLEED, h + 2 * BLEED))
    other = db.games["xo"].decks["heroes-actions"]
    for _ in range(2):
        renderer.draw_front(sink.canvas, card, deck, BLEED, BLEED, w, h, BLEED)
        sink.canvas.showPage()
        renderer.draw_front(sink.canvas, other.cards[0], other, BLEED, BLEED, w, h, BLEED)
        sink.canvas.showPage()
    data = sink.bytes()
    document = pdfium.PdfDocument(data)
    first, again = (document[i].render(scale=1).to_pil().tobytes() for i in (0, 2))
    assert first == again
    from io import BytesIO

    from pypdf import PdfReader

    pages = PdfReader(BytesIO(data)).pages
    assert pages[0].extract_text() == pages[2].extract_text()
    assert card.name in pages[2].extract_text()


def test_a_design_size_maps_onto_smaller_cards_keeping_the_margins(tmp_path, db, fonts, kit):
    """A poker-sized design drawn on a mini card: the 1/8 in margins stay exact, the
    inside shrinks, text inside the design's safe zone stays inside the card's."""
    renderer = custom_renderer(tmp_path, db, fonts, hero=(
        "{#- design: 63.5 x 88.9 -#}\n"
        "- rect: {box: [0, 0, {{ W }}, {{ H }}], fill: '#000000', bleed: true}\n"
        "- text: {id: corner, box: [{{ SAFE }}, {{ SAFE }}, {{ W - 2 * SAFE }}, 10],"
        " text: {{ card.name }}, size: 12, markup: false}\n"
        "- text: {id: foot, box: [{{ SAFE }}, {{ H - SAFE - 6 }}, {{ W - 2 * SAFE }}, 6],"
        " text: {{ W ~ ' x ' ~ H }}, size: 9, align: right, markup: false}\n"))
    card = kit.card("Tiny")
    mini = (44.0, 63.5)
    warnings, page = draw_one(renderer, card, kit.deck([card], size=mini), kit, size=mini)
    assert warnings == []                        # nothing moved, nothing cut
    text = page.extract_text()
    assert "Tiny" in text and "63.5 x 88.9" in text  # the template saw its design size
    origins = []
    page.extract_text(visitor_text=lambda t, cm, tm, font, size: origins.append(
        (t, tm[4] * cm[0] + tm[5] * cm[2] + cm[4], tm[4] * cm[1] + tm[5] * cm[3] + cm[5],
         size * tm[0])) if t.strip() else None)
    safe = SAFE_MM * MM
    w, h = mini[0] * MM, mini[1] * MM
    name = next(o for o in origins if o[0].startswith("Tiny"))
    assert abs(name[1] - (BLEED + safe)) < 0.01          # left margin kept exactly
    assert name[3] < 12                                   # fonts scaled down with the card
    for _, x, y, _ in origins:
        assert BLEED + safe - 0.01 <= x <= BLEED + w - safe
        assert BLEED + safe - 0.01 <= y <= BLEED + h - safe


def test_each_card_is_drawn_with_the_nearest_of_its_templates_design_sizes(tmp_path, db,
                                                                            fonts, kit):
    """Issue 12: a mini card gets the template's mini design, not a shrunken poker one,
    and MIN_PT tells the template the 6 pt floor in its own points."""
    renderer = custom_renderer(tmp_path, db, fonts, hero=(
        "{#- design: 63.5 x 88.9, 44.45 x 63.5 -#}\n"
        "- text: {id: size, box: [4, 4, {{ W - 8 }}, 10], markup: false, size: 8,"
        " text: {{ W ~ ' x ' ~ H ~ ' / ' ~ MIN_PT }}}\n"))
    card = kit.card("Sized")
    seen = {}
    for size in [(63.5, 88.9), (57.15, 88.9), (44.0, 63.5), (44.45, 63.5)]:
        warnings, page = draw_one(renderer, card, kit.deck([card], size=size), kit, size=size)
        assert warnings == []
        seen[size] = page.extract_text().strip()
    assert seen == {(63.5, 88.9): "63.5 x 88.9 / 6.0",
                    (57.15, 88.9): "63.5 x 88.9 / 6.75",       # bridge: poker, scaled 0.89
                    (44.0, 63.5): "44.45 x 63.5 / 6.07",
                    (44.45, 63.5): "44.45 x 63.5 / 6.0"}


def test_no_text_is_drawn_below_the_floor_and_what_cannot_fit_there_is_cut(tmp_path, db,
                                                                           fonts, kit):
    renderer = custom_renderer(tmp_path, db, fonts, hero=(
        "- text: {id: tiny, box: [5, 5, 30, 10], text: small print, size: 3, min_size: 2}\n"
        "- text: {id: cramped, box: [5, 20, 12, 2], text: {{ 'word ' * 20 }}, size: 4}\n"))
    card = kit.card("Fine Print")
    sink = kit.PdfSink((200, 300))
    warnings = renderer.draw_front(sink.canvas, card, kit.deck([card]), 20, 20,
                                   63.5 * MM, 88.9 * MM, BLEED)
    sizes = {g.char: g.size for g in kit.glyphs(sink.bytes())}
    assert min(sizes.values()) >= 6 - 1e-6 and sizes["s"] == pytest.approx(6)
    assert [(w.card, w.element) for w in warnings] == [("Fine Print", "cramped")]
    assert "even at 6 pt (print.min_text_pt)" in warnings[0].message
    assert "\u2026" in sizes
    higher = CardRenderer(db, fonts, templates=tmp_path / "templates", min_text_pt=9)
    sink = kit.PdfSink((200, 300))
    higher.draw_front(sink.canvas, card, kit.deck([card]), 20, 20, 63.5 * MM, 88.9 * MM, BLEED)
    assert min(g.size for g in kit.glyphs(sink.bytes())) >= 9 - 1e-6
