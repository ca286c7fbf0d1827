"""Embedded font subsets are tagged one per subset (issue 22): PDF 1.7 9.6.4 names each
subset `TAG+FontName` with a tag of six capitals that preflight tools expect unique in a
file. ReportLab tagged every font's first subset AAAAAA. Read back with pypdf."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pypdf import PdfReader

FALLBACK = Path(__file__).resolve().parents[2] / "pnp" / "draw" / "fallback-fonts"


def base_fonts(path: Path) -> list[str]:
    """The BaseFont of every embedded subset in the file (a font object used on many
    pages counts once; the standard 14 fonts, not embedded, have no tag)."""
    reader = PdfReader(path)
    found = {}
    for page in reader.pages:
        for ref in page["/Resources"].get("/Font", {}).values():
            found[ref.idnum] = str(ref.get_object()["/BaseFont"])
    return sorted(name for name in found.values() if "+" in name)


def tags_are_unique(names: list[str]) -> bool:
    tags = [name.lstrip("/").split("+")[0] for name in names]
    return len(set(tags)) == len(tags) and all(re.fullmatch(r"[A-Z]{6}", t) for t in tags)


def test_the_starter_deck_tags_each_font_of_the_file_apart(cli, tmp_path):
    assert cli("pnp", "init", str(tmp_path / "proj")).returncode == 0
    done = cli("pnp", "build", "--only", "ships", cwd=tmp_path / "proj")
    assert done.returncode == 0, done.stderr
    names = base_fonts(tmp_path / "proj" / "output" / "harbour" / "ships.pdf")
    faces = {name.split("+")[1] for name in names}
    assert len(faces) >= 3, names            # regular, bold and italic of the card font
    assert tags_are_unique(names), names


def test_a_font_of_two_subsets_beside_another_and_the_same_file_twice(tmp_path):
    from reportlab.pdfgen.canvas import Canvas

    from pnp.draw.ttf import register_file

    register_file("SubsetTestSans", FALLBACK / "DejaVuSans.ttf", "test")
    register_file("SubsetTestBold", FALLBACK / "DejaVuSans-Bold.ttf", "test")
    # 400 distinct characters: more than one 256-glyph subset of the regular face
    text = "".join(chr(c) for c in range(0x100, 0x290))

    def draw(path: Path) -> None:
        c = Canvas(str(path), invariant=1)
        c.setFont("SubsetTestSans", 8)
        for row in range(0, len(text), 60):
            c.drawString(20, 800 - row / 6, text[row:row + 60])
        c.setFont("SubsetTestBold", 8)
        c.drawString(20, 100, "Bold ABC")
        c.save()

    draw(tmp_path / "a.pdf")
    draw(tmp_path / "b.pdf")
    names = base_fonts(tmp_path / "a.pdf")
    regular = [n for n in names if n.endswith("+DejaVuSans")]
    assert len(regular) >= 2 and any(n.endswith("+DejaVuSans-Bold") for n in names), names
    assert tags_are_unique(names), names
    assert "/AAAAAA+DejaVuSans-Bold" not in names
    # The tags come from the subsets, not from chance: the same drawing, the same bytes.
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


def renamed_face(source: Path, target: Path, face: str) -> Path:
    """A copy of the font `source` whose PostScript name (ReportLab's face name) is
    `face`: a face no other test of the process has registered."""
    ttlib = pytest.importorskip("fontTools.ttLib")
    font = ttlib.TTFont(source)
    for record in font["name"].names:
        if record.nameID == 6:
            record.string = face
    font.save(target)
    return target


def drawn_with(font_name: str, path: Path) -> bytes:
    """400 characters (two subsets) in `font_name`, uncompressed (the ToUnicode CMaps,
    which name the subset, readable), reproducibly."""
    from reportlab.pdfgen.canvas import Canvas

    text = "".join(chr(c) for c in range(0x100, 0x290))
    c = Canvas(str(path), invariant=1, pageCompression=0)
    c.setFont(font_name, 8)
    for row in range(0, len(text), 60):
        c.drawString(20, 800 - row / 6, text[row:row + 60])
    c.save()
    return path.read_bytes()


def test_a_face_another_caller_registered_with_stock_reportlab_is_tagged_too(tmp_path):
    """ReportLab keeps one font object per face: a face registered first with stock
    ReportLab (by an application importing pnp) is what pnp's name draws with. pnp gives
    that font its tags; and the restated TTFont.addObjects (pnp/draw/ttf.py) writes the
    PDF stock ReportLab writes, byte for byte, but for the six letters of each tag."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    from pnp.draw.ttf import register_file

    face = "PnPStockFirstSans"
    path = renamed_face(FALLBACK / "DejaVuSans.ttf", tmp_path / "stock-first.ttf", face)
    pdfmetrics.registerFont(TTFont("OtherCallerSans", str(path)))
    stock = drawn_with("OtherCallerSans", tmp_path / "stock.pdf")
    register_file("PnPTestSans", path, "test")
    assert pdfmetrics.getFont("PnPTestSans") is pdfmetrics.getFont("OtherCallerSans")
    ours = drawn_with("OtherCallerSans", tmp_path / "ours.pdf")

    tag = re.compile(rb"\b([A-Z]{6})\+" + face.encode())
    assert sorted(set(tag.findall(stock))) == [b"AAAAAA", b"AAAAAB"]
    tags = sorted(set(tag.findall(ours)))
    assert len(tags) == 2 and tags_are_unique([t.decode() + "+" for t in tags]), tags
    assert not {b"AAAAAA", b"AAAAAB"} & set(tags)
    assert tag.sub(b"TAG", ours) == tag.sub(b"TAG", stock)
    assert tags_are_unique(base_fonts(tmp_path / "ours.pdf"))


def test_a_truetype_class_of_another_callers_own_is_refused_in_one_line(tmp_path):
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    from pnp.draw.ttf import FontError, register_file

    class OwnTTFont(TTFont):
        pass

    path = renamed_face(FALLBACK / "DejaVuSans.ttf", tmp_path / "own.ttf", "PnPOwnClassSans")
    pdfmetrics.registerFont(OwnTTFont("OwnClassSans", str(path)))
    with pytest.raises(FontError, match=r"^font PnPOwnTestSans: .* as OwnTTFont .*tag"):
        register_file("PnPOwnTestSans", path, "test")
