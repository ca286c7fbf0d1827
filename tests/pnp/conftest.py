"""Fixtures for the card-look tests: Vera fonts, the bundled database, a renderer, and
`kit`: an in-memory PDF canvas and hand-made cards/decks for layouts the bundled data
does not exercise (tests run with --import-mode=importlib, so helpers come as a fixture)."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
            font = raw.FPDFTextObj_GetFont(raw.FPDFText_GetTextObject(textpage, i))
            name = ctypes.create_string_buffer(256)
            raw.FPDFFont_GetBaseFontName(font, name, 256)
            out.append(SimpleNamespace(page=number + 1, char=chr(code),
                                       size=raw.FPDFText_GetFontSize(textpage, i) * scale,
                                       font=name.value.decode(),
                                       embedded=bool(raw.FPDFFont_GetIsEmbedded(font))))
    return out


@pytest.fixture(scope="session")
def kit():
    return SimpleNamespace(POKER=POKER, PdfSink=PdfSink, card=make_card, deck=make_deck,
                           glyphs=printed_glyphs)
