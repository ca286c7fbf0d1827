"""Fixtures for the card-look tests: Vera fonts, the bundled database, a renderer, and
`kit`: an in-memory PDF canvas and hand-made cards/decks for layouts the bundled data
does not exercise (tests run with --import-mode=importlib, so helpers come as a fixture)."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def playground(tmp_path_factory) -> Path:
    """The one folder a module's tests each get a fresh project copy in
    (tests/pnp/starter_copies.fresh_copy: the same path for every test of the module)."""
    return tmp_path_factory.mktemp("playground")


@pytest.fixture(scope="session")
def fonts(tmp_path_factory) -> dict[str, str]:
    """The default fonts, registered the way `pnp build` does (pnp.draw.fonts)."""
    from pnp.draw.fonts import register_fonts

    return register_fonts({}, tmp_path_factory.mktemp("fonts-project"))


@pytest.fixture(scope="session")
def db():
    import carddb

    return carddb.load(ROOT / "cards.yaml")


@pytest.fixture
def renderer(db, fonts):
    from pnp.draw.render import CardRenderer

    return CardRenderer(db, fonts)


POKER = (63.5, 88.9)


class PdfSink:
    """A canvas on an in-memory PDF; `.pdf()` saves it and returns a pypdf reader."""

    def __init__(self, size=(612, 792)):
        from reportlab.pdfgen.canvas import Canvas

        self.buffer = io.BytesIO()
        self.canvas = Canvas(self.buffer, pagesize=size, invariant=1)

    def pdf(self):
        from pypdf import PdfReader

        self.canvas.save()
        self.buffer.seek(0)
        return PdfReader(self.buffer)

    def bytes(self) -> bytes:
        self.canvas.save()
        return self.buffer.getvalue()


def make_card(name="Test Card", type="Hero", text="", game="x-statix", deck="common",
              image=None, **fields):
    from carddb.model import Card, Source

    return Card(name=name, type=type, text=text, copies=1, game=game, deck=deck,
                fields=fields, source=Source("test", 1, 1), image=image)


def make_deck(cards, id="common", game="x-statix", size=POKER, back=None):
    from carddb.model import Deck, Source

    return Deck(id=id, game=game, title="Test Deck", size_mm=size,
                back=back or {"title": "Test", "subtitle": "Deck"}, cards=tuple(cards),
                source=Source("test", 1, 1))


def printed_glyphs(pdf) -> list[SimpleNamespace]:
    """Every glyph drawn in a PDF (path or bytes), read back with pdfium's text API:
    page, char, its printed size (the font size times the text's scale on the page, form
    and card transformations included: the smaller of the two axes), its font's name and
    whether that font is embedded."""
    import ctypes
    import math

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    doc = pdfium.PdfDocument(pdf)
    embedded = embedded_fonts(pdf)
    out = []
    for number in range(len(doc)):
        textpage = doc[number].get_textpage()
        for i in range(textpage.count_chars()):
            code = raw.FPDFText_GetUnicode(textpage, i)
            if raw.FPDFText_IsGenerated(textpage, i) or chr(code).isspace():
                continue
            m = raw.FS_MATRIX()
            raw.FPDFText_GetMatrix(textpage, i, m)
            scale = min(math.hypot(m.a, m.b), math.hypot(m.c, m.d))
            # (FPDFText_GetFontInfo: in every pdfium pypdfium2>=4.30 ships; the font
            # object of a character, FPDFText_GetTextObject, came later)
            name = ctypes.create_string_buffer(256)
            raw.FPDFText_GetFontInfo(textpage, i, name, 256, None)
            font = name.value.decode()
            out.append(SimpleNamespace(page=number + 1, char=chr(code),
                                       size=raw.FPDFText_GetFontSize(textpage, i) * scale,
                                       font=font, embedded=font in embedded))
    return out


def embedded_fonts(pdf) -> set[str]:
    """The names of the fonts a PDF (path or bytes) embeds (a font file in its
    descriptor), subset tag dropped as pdfium names them: from every page's resources and
    the forms they draw, read with pypdf (each object resolved: pypdf>=4.2 as declared)."""
    import io

    from pypdf import PdfReader

    found: set[str] = set()
    seen: set[int] = set()

    def visit(resources) -> None:
        resources = resources.get_object()
        for ref in _values(resources.get("/Font")):
            font = ref.get_object()
            faces = [d.get_object() for d in _items(font.get("/DescendantFonts"))] or [font]
            for face in faces:
                desc = face.get("/FontDescriptor")
                files = desc.get_object() if desc is not None else {}
                if any(k in files for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                    found.add(str(font["/BaseFont"]).lstrip("/").split("+")[-1])
        for ref in _values(resources.get("/XObject")):
            obj = ref.get_object()
            key = getattr(ref, "idnum", id(obj))
            if obj.get("/Subtype") == "/Form" and "/Resources" in obj and key not in seen:
                seen.add(key)
                visit(obj["/Resources"])

    reader = PdfReader(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf)
    for page in reader.pages:
        if "/Resources" in page:
            visit(page["/Resources"])
    return found


def _values(mapping) -> list:
    return list(mapping.get_object().values()) if mapping is not None else []


def _items(array) -> list:
    return list(array.get_object()) if array is not None else []


@pytest.fixture(scope="session")
def kit():
    return SimpleNamespace(POKER=POKER, PdfSink=PdfSink, card=make_card, deck=make_deck,
                           glyphs=printed_glyphs)
