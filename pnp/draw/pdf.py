"""The canvas factory: every PDF the pipeline writes is made here."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, BinaryIO

CREATOR = "pnp build (pnp-referee)"


def open_canvas(target: str | Path | BinaryIO, page_size: tuple[float, float], *,
                title: str, font: str, subject: str = "", author: str = "pnp build"):
    """A ReportLab canvas in invariant mode (no timestamps, fixed document id: the same
    input gives a byte-identical file) with title, author and subject set. `font` (a
    registered, embedded font) replaces ReportLab's initial Helvetica, which would be a
    font reference left unembedded."""
    from reportlab import rl_config

    # Binary Flate streams: ASCII85 on top makes files 25 % bigger and, without the C
    # accelerator, costs a third of the build time.
    rl_config.useA85 = 0
    if isinstance(target, Path):
        target = str(target)
    # a file that keeps nothing (`pnp validate` draws every page into one) is not worth
    # deflating, nor writing (DeflatingCanvas.save): the drawing is the same
    keeps_nothing = bool(getattr(target, "keeps_nothing", False))
    c = _canvas_class()(target, pagesize=page_size, invariant=1,
                        pageCompression=0 if keeps_nothing else 1,
                        initialFontName=font, initialFontSize=10)
    c.keeps_nothing = keeps_nothing
    c.setTitle(title)
    c.setAuthor(author)
    c.setSubject(subject)
    c.setCreator(CREATOR)
    c.setProducer(CREATOR)
    return c


class _Deflated:
    """A stream filter for content deflated already: named FlateDecode in the PDF, its
    `encode` leaves the bytes as they are (ReportLab's own filter deflates at save)."""

    pdfname = "FlateDecode"

    @staticmethod
    def encode(data: bytes) -> bytes:
        return data


@functools.cache
def _canvas_class() -> Any:
    """A ReportLab canvas that deflates each page's content when the page is shown.

    ReportLab keeps every page's content as text until `save` and deflates it there: a
    deck of 20,000 cards held some 200 MiB of page text. Deflated at `showPage` with the
    same call (`zlib.compress` of the UTF-8 text, as ReportLab's FlateDecode filter does)
    and handed to the page as its finished content stream, the file is byte for byte the
    same and a page holds a tenth of the memory until `save`."""
    import zlib

    from reportlab import rl_config
    from reportlab.pdfgen.canvas import Canvas

    class DeflatingCanvas(Canvas):
        # a list while a caller keeps the pages shown (pnp.artefacts.kept_sheets): each
        # page's `KeptPage`, or None for a page that cannot be shown again as it is
        kept_pages: list | None = None
        # drawn into a file that keeps nothing (open_canvas): `save` writes no bytes
        keeps_nothing = False

        def save(self) -> None:
            """ReportLab's save; for a file that keeps nothing, everything of it but the
            writing: the last page shown and each font's subsets made (what a save of
            the drawn pages can refuse), without formatting the document's objects into
            bytes no one reads (a quarter of `pnp validate`)."""
            if not self.keeps_nothing:
                super().save()
                return
            if len(self._code):
                self.showPage()
            document = self._doc
            for font in document.delayedFonts:
                font.addObjects(document)

        def showPage(self) -> None:
            local = _page_locals(self) if self.kept_pages is not None else None
            super().showPage()
            page = self._doc.Pages.pages[-1]
            stream = page.stream
            if (not page.compression or rl_config.useA85 or not isinstance(stream, str)
                    or not stream or page.Contents or page.Override_default_compilation):
                if self.kept_pages is not None:
                    self.kept_pages.append(None)
                return      # as ReportLab would write it (a test stream, A85, no compression)
            contents = _page_classes()[2](content=zlib.compress(stream.encode("utf8")),
                                          filters=[_Deflated])
            contents.__Comment__ = "page stream"
            page.Contents = contents
            page.stream = None
            if self.kept_pages is not None:
                self.kept_pages.append(None if local is None else
                                       KeptPage(contents.content, *local))

        def show_kept(self, kept: KeptPage) -> None:
            """Show a page kept from an earlier document (`kept_pages`) as it was: the
            page object `showPage` makes, with the kept content stream. The canvas must
            be at the start of an empty page; the caller has checked that the document
            holds every font state and form the content names (pnp.artefacts.kept_sheets)."""
            kept_page, shared_resources, page_stream = _page_classes()
            page = kept_page()
            page.pagewidth, page.pageheight = self._pagesize
            page.Rotate = self._pageRotation
            page.hasImages = kept.has_images
            page.setPageTransition(self._pageTransition)
            page.setCompression(self._pageCompression)
            contents = page_stream(content=kept.content, filters=[_Deflated])
            contents.__Comment__ = "page stream"
            page.Contents = contents
            page.stream = None
            self._setColorSpace(page)
            self._setShadingUsed(page)
            self._setAnnotations(page)
            if not page._colorsUsed and not page._shadingUsed:
                # its forms and graphics states are read only to format the resources
                # of the first page alike: set on that page then (`SharedResources`)
                page.Resources = shared_resources(page, (kept.forms, tuple(kept.states.items()),
                                                        bool(kept.has_images)))
            else:
                self._formsinuse = list(kept.forms)
                self._extgstate._c = dict(kept.states)
                self._setExtGState(page)
                self._setXObjects(page)
            self._doc.addPage(page)
            if self._onPage:
                self._onPage(self._pageNumber)
            self._startPage()

    return DeflatingCanvas


# PDFPage's keys a kept page leaves unset until it is formatted (MediaBox: from its size
# and rotation) or never sets (_page_locals refuses a page that would set them; its
# annotations are an empty list, which ReportLab leaves out).
_OTHER_PAGE_KEYS = ("MediaBox", "CropBox", "Thumb", "B", "Dur", "Hid", "AA",
                    "PieceInfo", "LastModified", "SeparationInfo", "ArtBox", "TrimBox",
                    "BleedBox", "ID", "PZ")


@functools.cache
def _page_classes() -> tuple[Any, Any, Any]:
    """The page object of a kept page and its shared resources (`show_kept`), and the
    content stream of every page."""
    from reportlab.pdfbase.pdfdoc import NoEncryption, PDFObject, PDFPage, PDFStream
    from reportlab.pdfbase.pdfdoc import format as pdf_format

    class PageStream(PDFStream):
        """A page's deflated content stream (`_Deflated`), formatted as ReportLab's
        PDFStream formats it: the dictionary before its length taken from the first
        page stream of the document, once ReportLab's own bytes for it were checked to
        be that, the length and the content. Formatting the same two-key dictionary
        for each of an 8,000-card deck's ~1,800 pages was a third of `save` in a
        watch's edit build (issue 36 item 2)."""

        def format(self, document: Any) -> bytes:
            head = document.__dict__.get("_pnp_page_stream")
            content = self.content
            if head is None:
                formatted = super().format(document)
                document._pnp_page_stream = _stream_head(formatted, content, document,
                                                         self, NoEncryption)
                return formatted
            if head is False or self.dictionary.dict or self.filters != [_Deflated]:
                return super().format(document)
            return b"%s%d\n>>\nstream\n%sendstream\n" % (head, len(content), content)

    class KeptPdfPage(PDFPage):
        """The page object of a kept page (`show_kept`): formatted as ReportLab's PDFPage
        formats it, the bytes after its content stream's reference taken from the first
        kept page alike in the document. A page's dictionary names its content stream
        first (keys are sorted), then what is the same for every kept page of one size,
        rotation, transition and shared resources (the page tree, the media box, the
        resources): formatting those again for each of an 8,000-card deck's ~1,800 pages
        was most of `save` in a watch's edit build (issue 36 item 2)."""

        def format(self, document: Any) -> bytes:
            resources = self.Resources
            key = self._same_as(resources)
            if key is None:
                return super().format(document)
            memo = document.__dict__.setdefault("_pnp_kept_pages", {})
            found = memo.get(key)
            if found is None:
                formatted = super().format(document)
                head = self._head(document)
                if formatted.startswith(head):
                    memo[key] = formatted[len(head):]
                return formatted
            self.check_format(document)     # sets what ReportLab's own format sets
            return self._head(document) + found

        def _head(self, document: Any) -> bytes:
            """The page's bytes up to its content stream's reference: `n v R` as
            ReportLab's PDFObjectReference writes it (digits: the same in ASCII as in
            its PDFDocEncoding codec, which costs more than the rest of the page)."""
            reference = document.Reference(self.Contents)
            return b"<<\n/Contents %d %d R" % document.idToObjectNumberAndVersion[reference.name]

        def _same_as(self, resources: Any) -> tuple | None:
            """What the page's bytes after its content reference depend on; None when
            the page holds anything else (then formatted by ReportLab alone)."""
            if (not isinstance(resources, SharedResources) or self.Override_default_compilation
                    or self.Annots or any(getattr(self, name) is not None for name in _OTHER_PAGE_KEYS)):
                return None
            trans = self.Trans
            return (self.pagewidth, self.pageheight, self.Rotate, resources.key,
                    None if trans is None else repr(sorted(trans.dict.items())))

    class SharedResources(PDFObject):
        """A kept page's resources (what ReportLab's PDFPage.check_format makes of the
        page's forms, graphics states and images), formatted once per document for every
        kept page with the same ones: a deck of 8,000 cards has a few hundred pages
        alike, and formatting their resource dictionaries was a fifth of an edit's build.
        The bytes are ReportLab's own for the first such page, so the file is the same.
        `key`: (the page's forms, its graphics states' items, whether it has images);
        the page's XObject and ExtGState dictionaries are made from them, as the canvas
        makes them, for that first page only (making them for each of ~1,800 pages was
        a tenth of showing an 8,000-card deck's kept sheets)."""

        def __init__(self, page: Any, key: tuple) -> None:
            self.page, self.key = page, key

        def format(self, document: Any) -> bytes:
            memo = document.__dict__.setdefault("_pnp_shared_resources", {})
            found = memo.get(self.key)
            if found is None:
                from reportlab.pdfgen.canvas import ExtGState

                forms, states, _ = self.key
                page, graphics = self.page, ExtGState()
                graphics._c = dict(states)
                page.XObjects = document.xobjDict(list(forms)) if forms else None
                page.ExtGState = graphics.getState()
                found = memo[self.key] = pdf_format(_resources(page), document)
            return found

    return KeptPdfPage, SharedResources, PageStream


def _stream_head(formatted: bytes, content: bytes, document: Any, stream: Any,
                 no_encryption: type) -> bytes | bool:
    """What a page stream's bytes start with up to its length, or False when they are
    not that, its length and its content as given (another filter, an encryption, a
    dictionary of its own): then every page stream is formatted by ReportLab."""
    if (type(document.encrypt) is not no_encryption or stream.filters != [_Deflated]
            or stream.dictionary.dict):
        return False
    tail = b"%d\n>>\nstream\n%sendstream\n" % (len(content), content)
    head = formatted[:len(formatted) - len(tail)]
    if not formatted.endswith(tail) or not head.endswith(b"/Length "):
        return False
    return head


def _resources(page: Any) -> Any:
    """The resource dictionary ReportLab's PDFPage.check_format makes of `page`."""
    from reportlab.pdfbase.pdfdoc import PDFResourceDictionary

    resources = PDFResourceDictionary()
    resources.basicFonts()
    if page.hasImages:
        resources.allProcs()
    else:
        resources.basicProcs()
    if page.XObjects:
        resources.XObject = page.XObjects
    if page.ExtGState:
        resources.ExtGState = page.ExtGState
    resources.setShading(page._shadingUsed)
    resources.setColorSpace(page._colorsUsed)
    return resources


class KeptPage:
    """A page as shown, to show again in another document (`DeflatingCanvas.show_kept`):
    its deflated content stream, the forms it draws (by name), its graphics states
    ((key, value) -> name: page resources) and whether it has images."""

    __slots__ = ("content", "forms", "states", "has_images")

    def __init__(self, content: bytes, forms: tuple[str, ...], states: dict,
                 has_images: Any) -> None:
        self.content, self.forms, self.states = content, forms, states
        self.has_images = has_images

    def __getstate__(self) -> tuple:
        return (self.content, self.forms, self.states, self.has_images)

    def __setstate__(self, state: tuple) -> None:
        self.content, self.forms, self.states, self.has_images = state


def _page_locals(canvas: Any) -> tuple | None:
    """What a page about to be shown holds besides its content and shared objects (its
    forms, graphics states, whether it has images); None when it holds anything a kept
    page cannot show again (annotations, colour spaces, shadings, crop marks, boxes,
    PostScript, a page size or rotation of its own)."""
    if (canvas._annotationrefs or canvas._colorsUsed or canvas._shadingUsed
            or canvas._cropMarks or canvas._psCommandsBeforePage
            or canvas._psCommandsAfterPage or canvas._pageDuration is not None
            or canvas._hanging_pagesize or canvas._pageRotation or canvas._codeStack
            or any(getattr(canvas, f"_{box}Box", None) for box in ("crop", "art", "bleed",
                                                                    "trim"))):
        return None
    return (tuple(canvas._formsinuse), dict(canvas._extgstate._c),
            canvas._currentPageHasImages)


def end_form(canvas) -> None:
    """`canvas.endForm()`, then give the form the resources ReportLab leaves out of form
    XObjects (it writes them for pages only): graphics states, shadings and colour spaces.
    Without the graphics states a translucent fill inside a form prints opaque."""
    from reportlab.pdfbase import pdfdoc

    name = canvas._formData[0]
    shading = dict(canvas._shadingUsed)  # endForm restores the page's accumulators
    canvas.endForm()
    form = canvas._doc.idToObject[pdfdoc.xObjectName(name)]
    resources = pdfdoc.PDFResourceDictionary()
    resources.basicFonts()
    resources.allProcs()
    if form.XObjects:
        resources.XObject = form.XObjects
    if getattr(form, "ExtGState", None):
        resources.ExtGState = form.ExtGState
    resources.setShading(shading)
    resources.setColorSpace(getattr(form, "_colorsUsed", {}) or {})
    form.Resources = resources
