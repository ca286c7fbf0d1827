"""A game's own icons (issue 33 item 1): `icons:` in cards.yaml names PNG, JPEG and SVG
files that `{icon:NAME}` in text, die faces, tokens and templates draw beside the built-in
icons (an SVG as vector paths, a picture as an image), a blank face prints blank, and
validate checks each file with a located error."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from pnp.cli.main import main
from tests.pnp.pieces_support import SWORD_FILL, build, drawn, own_pieces, skull_png  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("own-icons")
    own_pieces(root)
    build(root)
    return root / "output" / "harbour"


def _forms(pdf) -> dict[str, bytes]:
    """The die labels' forms by name (`die-harbour-battle-sword`): one per face."""
    found = {}
    for page in PdfReader(pdf).pages:
        for name, ref in page["/Resources"]["/XObject"].items():
            if "die-" in name:
                found[name.split(".", 1)[1]] = drawn_form(ref.get_object())
    return found


def drawn_form(form) -> tuple[bytes, list[str]]:
    class Page(dict):
        def get_contents(self):
            return form

    return drawn(Page({"/Resources": form.get("/Resources")}))


def test_own_svg_and_png_icons_print_in_card_text(built):
    page = PdfReader(built / "storms.pdf").pages[0]          # Squall: {icon:sword}, {icon:skull}
    code, images = drawn(page)
    assert SWORD_FILL.search(code), "the SVG sword is drawn as vector paths in its colour"
    assert images, "the PNG skull is placed as an image"
    assert b"{icon:" not in code


def test_die_faces_show_own_icons_and_a_blank_face_is_blank(built):
    forms = _forms(built / "dice-labels.pdf")
    sword, sword_images = forms["die-harbour-battle-sword"]
    assert SWORD_FILL.search(sword) and b" re f" in sword and not sword_images
    assert b"Tj" not in sword, "the word 'sword' is not printed"
    skull, skull_images = forms["die-harbour-battle-skull"]
    assert skull_images and b"Tj" not in skull
    blank, blank_images = forms["die-harbour-battle-blank"]
    assert not blank_images and b"Tj" not in blank and b"Do" not in blank
    assert len(re.findall(rb" f\*?\n", blank)) == 1, "only the label's own fill"
    shield, _ = forms["die-harbour-battle-shield"]
    assert b"(shield) Tj" in shield                    # a face without an icon keeps its word


def test_a_token_shows_its_own_icon(built):
    reader = PdfReader(built / "tokens.pdf")
    images = [img for page in reader.pages for img in drawn(page)[1]]
    assert images, "the lantern token shows the skull picture"


@pytest.mark.parametrize("change, message", [
    (("icons/sword.svg", "icons/sabre.svg"), r"icons\.sword: icon file 'icons/sabre.svg' not found"),
    (("faces: [sword, sword, shield, skull, blank, 1]",
      "faces: [sword, {symbol: axe, icon: axe}, shield, skull, blank, 1]"),
     r"dice\.battle\.faces\[1\]\.icon: unknown icon 'axe'"),
    (("{icon:sword}", "{icon:swrod}"), r"unknown icon \{icon:swrod\} \(did you mean 'sword'"),
    (("icon: skull,", "icon: skul,"), r"tokens\.lantern\.icon: unknown icon 'skul'"),
    (("      sword: icons/sword.svg", "      mask: icons/sword.svg"),
     r"icons\.mask: icon 'mask' is a built-in icon"),
])
def test_validate_locates_a_wrong_icon(tmp_path, change, message):
    db = own_pieces(tmp_path)
    db.write_text(db.read_text().replace(*change, 1))
    result = CliRunner().invoke(main, ["validate", str(db)])
    assert result.exit_code != 0
    assert re.search(r"cards\.yaml:\d+:\d+: .*" + message, result.output), result.output


def test_validate_checks_what_each_file_is(tmp_path):
    db = own_pieces(tmp_path)
    icons = tmp_path / "icons"
    (icons / "sword.svg").write_text("<html><body>not a picture</body></html>")
    skull_png(icons / "skull.png", px=40)          # 40 px over 12 mm: 85 dpi
    result = CliRunner().invoke(main, ["validate", str(db)])
    assert result.exit_code != 0
    lines = result.output
    assert re.search(r"cards\.yaml:\d+:\d+: games\.harbour\.icons\.sword: icon file "
                     r"'icons/sword\.svg' is not a PNG, JPEG or SVG picture", lines), lines
    assert re.search(r"icons\.skull\.file: icon file 'icons/skull\.png': 40 x 40 px is 85 dpi "
                     r"at its printed 12 mm", lines), lines
    (icons / "sword.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>')
    (icons / "skull.png").write_bytes(b"\xff\xd8\xff\xe0" + bytes(40))
    lines = CliRunner().invoke(main, ["validate", str(db)]).output
    assert "without a viewBox or width and height" in lines
    assert "holds a JPEG picture: name it .jpg" in lines


def test_an_svg_with_entities_is_refused(tmp_path):
    db = own_pieces(tmp_path)
    (tmp_path / "icons" / "sword.svg").write_text(
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]>'
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1">&x;</svg>')
    result = CliRunner().invoke(main, ["validate", str(db)])
    assert result.exit_code != 0 and "DOCTYPE or entities (refused" in result.output


def test_an_svg_icon_leaves_no_font_unembedded(built):
    """ReportLab's drawing renderer would name Helvetica without embedding it."""
    for pdf in ("dice-labels.pdf", "storms.pdf", "tokens.pdf"):
        for page in PdfReader(built / pdf).pages:
            code, _ = drawn(page)
            fonts = _fonts(page.get("/Resources"))
            assert fonts and all("/FontFile2" in f or "/DescendantFonts" in f for f in fonts), \
                (pdf, fonts)
            assert b"Helvetica" not in code


def _fonts(resources, depth=0) -> list[str]:
    """Each font of the page and its forms, as the keys of its descriptor (or itself)."""
    found = []
    for font in ((resources or {}).get("/Font") or {}).values():
        font = font.get_object()
        descriptor = font.get("/FontDescriptor")
        found.append(" ".join(descriptor.get_object()) if descriptor else " ".join(font))
    for ref in ((resources or {}).get("/XObject") or {}).values():
        obj = ref.get_object()
        if obj.get("/Subtype") == "/Form" and depth < 8:
            found += _fonts(obj.get("/Resources"), depth + 1)
    return found


def test_a_jpeg_icon_is_read_and_sized_without_decoding(tmp_path):
    from PIL import Image

    from carddb.icons import pixels, sniff

    path = tmp_path / "coin.jpg"
    Image.new("RGB", (120, 90), "gold").save(path, "JPEG")
    data = path.read_bytes()
    assert sniff(data) == "jpeg" and pixels(data, "jpeg") == (120, 90)
    db = own_pieces(tmp_path)
    (tmp_path / "icons" / "coin.jpg").write_bytes(data)
    db.write_text(db.read_text().replace("      sword: icons/sword.svg",
                                         "      sword: icons/sword.svg\n"
                                         "      coin: {file: icons/coin.jpg, size_mm: 10}"))
    result = CliRunner().invoke(main, ["validate", str(db)])
    assert result.exit_code == 0, result.output          # 90 px over 10 mm: 228 dpi


def test_a_changed_icon_file_rebuilds_what_shows_it(tmp_path):
    own_pieces(tmp_path)
    build(tmp_path)
    labels = tmp_path / "output" / "harbour" / "dice-labels.pdf"
    before = labels.read_bytes()
    build(tmp_path)
    assert labels.read_bytes() == before                 # unchanged: not rebuilt alike
    svg = tmp_path / "icons" / "sword.svg"
    svg.write_text(svg.read_text().replace("#3060c0", "#c03030"))
    build(tmp_path)
    assert labels.read_bytes() != before
    assert not SWORD_FILL.search(drawn_form(PdfReader(labels).pages[0]["/Resources"]["/XObject"]
                                            ["/FormXob.die-harbour-battle-sword"]
                                            .get_object())[0])
    storms = PdfReader(tmp_path / "output" / "harbour" / "storms.pdf").pages[0]
    assert not SWORD_FILL.search(drawn(storms)[0]), "no card keeps the old drawing"


def test_watch_watches_the_icon_files(tmp_path):
    import carddb
    from pnp.cli.watch import relevant, watched_paths

    db_path = own_pieces(tmp_path)
    paths = watched_paths(db_path, carddb.load(db_path))
    icon = (tmp_path / "icons" / "sword.svg").resolve()
    assert icon in paths and relevant([(2, str(icon))], paths) == [icon]


@pytest.mark.parametrize("inside, says", [
    ('<image href="data:image/png;base64,AAAA" width="1" height="1"/>', "with <image> in it"),
    ('<use href="other.svg#x"/>', "<use> names another file"),
    ('<text x="1" y="1">Hi</text>', "convert the text to paths"),
])
def test_an_svg_that_draws_outside_its_paths_is_refused(tmp_path, inside, says):
    db = own_pieces(tmp_path)
    (tmp_path / "icons" / "sword.svg").write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">{inside}</svg>')
    result = CliRunner().invoke(main, ["validate", str(db)])
    assert result.exit_code != 0 and says in result.output, result.output


def test_an_svg_changed_after_validation_is_refused_where_it_is_drawn(tmp_path):
    from pnp.draw.icons import IconFileError, svg_drawing

    bad = tmp_path / "bad.svg"
    bad.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                   '<image href="x.png"/></svg>')
    with pytest.raises(IconFileError, match="with <image> in it"):
        svg_drawing(str(bad))


def test_two_projects_alike_but_for_an_icon_each_print_their_own(tmp_path):
    """A stored card plan holds the icon's absolute path: another project's identical
    card must not reuse it (the plan key holds the project's folder)."""
    pdfs = []
    for name, colour in (("first", "#3060c0"), ("second", "#c03030")):
        root = tmp_path / name
        root.mkdir()
        own_pieces(root)
        svg = root / "icons" / "sword.svg"
        svg.write_text(svg.read_text().replace("#3060c0", colour))
        build(root)
        pdfs.append(drawn(PdfReader(root / "output" / "harbour" / "storms.pdf").pages[0])[0])
    assert SWORD_FILL.search(pdfs[0]) and not SWORD_FILL.search(pdfs[1])
