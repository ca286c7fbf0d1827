"""Layout checks of drawn cards, reported by `pnp build` and `pnp proof`.

The renderer reports what only it knows (text that overflows its box after shrinking,
text boxes moved into the safe zone, a template with no elements). These checks watch
what it actually draws, through a recording wrapper around the canvas:

- icons inside the bleed but outside the safe zone (1/8 in inside the trim);
- images below 300 dpi at their printed size;
- a card whose template produced nothing at all;

and, on a finished one-card-per-page PDF (`text_outside_safe_zone`), text whose glyphs
reach outside the safe zone. Every warning names game, deck, card and element.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

PT_PER_MM = 72 / 25.4
SAFE = 3.175 * PT_PER_MM  # 1/8 in
MIN_DPI = 300
TOLERANCE = 0.05 * PT_PER_MM  # rounding slack before an edge counts as crossed

# Canvas methods that put marks on the page.
DRAWING = frozenset({
    "drawPath", "rect", "roundRect", "ellipse", "circle", "wedge", "line", "lines", "grid",
    "bezier", "arc", "drawText", "drawString", "drawCentredString", "drawRightString",
    "drawAlignedString", "drawImage", "drawInlineImage", "doForm", "polygon",
})


def warning(game: str, deck: str, card: str, element: str, message: str):
    """A warning of the renderer's own type (pnp.render.LayoutWarning)."""
    from pnp.render import LayoutWarning

    return LayoutWarning(game, deck, card, element, message)


class RecordingCanvas:
    """Passes every call to the real canvas and notes what was drawn where (in page
    coordinates, whatever transformations the renderer applied)."""

    def __init__(self, canvas: Any):
        self._canvas = canvas
        self._counted = 0
        # ReportLab collects a page's (or form's) operators in `_code`: if it grows, the
        # renderer drew something. Other canvases: count calls of drawing methods.
        self._code = getattr(canvas, "_code", None)
        self._start = len(self._code) if isinstance(self._code, list) else None
        self.images: list[tuple[str, tuple[int, int], tuple[float, float, float, float]]] = []
        self.icons: list[tuple[str, tuple[float, float, float, float]]] = []

    @property
    def marks(self) -> int:
        if self._start is not None:
            return len(self._code) - self._start
        return self._counted

    def __getattr__(self, name: str):
        attr = getattr(self._canvas, name)
        if name in DRAWING and self._start is None:
            def counted(*args, **kwargs):
                self._counted += 1
                return attr(*args, **kwargs)
            return counted
        if callable(attr):
            self.__dict__[name] = attr  # later look-ups skip __getattr__
        return attr

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        """A rectangle in the current user space -> its bounding box on the page."""
        corners = [self._canvas.absolutePosition(x, y) for x in (x0, x1) for y in (y0, y1)]
        xs, ys = [p[0] for p in corners], [p[1] for p in corners]
        return min(xs), min(ys), max(xs), max(ys)

    def drawImage(self, image, x, y, width=None, height=None, *args, **kwargs):
        self._counted += 1
        px = _pixel_size(image)
        w = width if width is not None else px[0]
        h = height if height is not None else px[1]
        self.images.append((_image_name(image), px, self.box(x, y, x + w, y + h)))
        return self._canvas.drawImage(image, x, y, width, height, *args, **kwargs)

    def note_icon(self, name: str, cx: float, cy: float, size: float) -> None:
        half = size / 2
        self.icons.append((name, self.box(cx - half, cy - half, cx + half, cy + half)))


_SIZES: dict[str, tuple[int, int]] = {}


def _image_name(image: Any) -> str:
    if isinstance(image, str | Path):
        return Path(image).name
    return getattr(image, "fileName", None) or type(image).__name__


def _pixel_size(image: Any) -> tuple[int, int]:
    if isinstance(image, str | Path):
        key = str(image)
        if key not in _SIZES:
            from PIL import Image

            with Image.open(key) as im:
                _SIZES[key] = im.size
        return _SIZES[key]
    if hasattr(image, "getSize"):
        return tuple(image.getSize())
    return tuple(image.size)


class _IconTap:
    """While active, pnp.icons.draw_icon also tells the recording canvas where it drew."""

    def __init__(self, recorder: RecordingCanvas):
        self.recorder = recorder
        self.module = None
        self.original: Callable | None = None

    def __enter__(self):
        try:
            import pnp.icons as module
        except ImportError:
            return self
        self.module, self.original = module, module.draw_icon
        recorder, original = self.recorder, module.draw_icon

        def draw_icon(canvas, name, cx, cy, size, *args, **kwargs):
            if canvas is recorder:
                recorder.note_icon(name, cx, cy, size)
            return original(canvas, name, cx, cy, size, *args, **kwargs)

        module.draw_icon = draw_icon
        return self

    def __exit__(self, *exc):
        if self.module is not None:
            self.module.draw_icon = self.original
        return False


def _outside(box, safe) -> float:
    """How far (points) `box` reaches beyond `safe` on its worst side; <= 0 if inside."""
    return max(safe[0] - box[0], safe[1] - box[1], box[2] - safe[2], box[3] - safe[3])


def check_drawing(recorder: RecordingCanvas, game: str, deck: str, card: str,
                  trim: tuple[float, float, float, float]) -> list[Any]:
    """The checks over what one card face drew. `trim` = (x0, y0, x1, y1) on the page."""
    out = []
    safe = (trim[0] + SAFE, trim[1] + SAFE, trim[2] - SAFE, trim[3] - SAFE)
    if recorder.marks == 0:
        out.append(warning(game, deck, card, "template",
                           "the template produced nothing: the card face is blank"))
    seen: set[str] = set()
    for name, box in recorder.icons:
        by = _outside(box, safe)
        element = f"icon {name}"
        if by > TOLERANCE and element not in seen:
            seen.add(element)
            out.append(warning(game, deck, card, element,
                               f"icon reaches {by / PT_PER_MM:.1f} mm outside the safe zone "
                               "(1/8 in inside the trim)"))
    for name, (pw, ph), box in recorder.images:
        w_in, h_in = (box[2] - box[0]) / 72, (box[3] - box[1]) / 72
        if w_in <= 0 or h_in <= 0:
            continue
        dpi = min(pw / w_in, ph / h_in)
        element = f"image {name}"
        if dpi + 0.5 < MIN_DPI and element not in seen:
            seen.add(element)
            out.append(warning(game, deck, card, element,
                               f"{pw} x {ph} px printed at {w_in * 25.4:.1f} x {h_in * 25.4:.1f}"
                               f" mm is {dpi:.0f} dpi (needs {MIN_DPI})"))
    return out


def _merge(first: list[Any], more: list[Any]) -> list[Any]:
    keys = {(w.game, w.deck, w.card, w.element) for w in first}
    return list(first) + [w for w in more if (w.game, w.deck, w.card, w.element) not in keys]


class CheckedRenderer:
    """A renderer whose draw_front / draw_back also return the layout checks' warnings.
    Everything else (draw_mat, draw_token...) goes straight to the wrapped renderer."""

    def __init__(self, renderer: Any):
        self.renderer = renderer

    def __getattr__(self, name: str):
        return getattr(self.renderer, name)

    def _run(self, draw, canvas, game, deck, card, x, y, w, h, args) -> list[Any]:
        recorder = RecordingCanvas(canvas)
        with _IconTap(recorder):
            found = list(draw(recorder, *args) or [])
        trim = recorder.box(x, y, x + w, y + h)
        return _merge(found, check_drawing(recorder, game, deck, card, trim))

    def draw_front(self, canvas, card, deck, x, y, w, h, bleed):
        return self._run(lambda c, *a: self.renderer.draw_front(c, *a), canvas, card.game,
                         deck.id, card.name, x, y, w, h, (card, deck, x, y, w, h, bleed))

    def draw_back(self, canvas, deck, x, y, w, h, bleed):
        return self._run(lambda c, *a: self.renderer.draw_back(c, *a), canvas, deck.game,
                         deck.id, "(back)", x, y, w, h, (deck, x, y, w, h, bleed))


# ── checks of a finished single-card PDF ───────────────────────────────────────────


def text_outside_safe_zone(pdf: str | Path | bytes, faces: list[Any], boxes: list[Any]
                           ) -> list[list[Any]]:
    """For each page of a one-card-per-page PDF (pnp.single): warnings for runs of text
    whose glyph boxes reach outside the safe zone, named by their text."""
    import pypdfium2 as pdfium

    out: list[list[Any]] = []
    doc = pdfium.PdfDocument(pdf)
    try:
        for i, (face, box) in enumerate(zip(faces, boxes, strict=True)):
            page = doc[i]
            text = page.get_textpage()
            found: list[Any] = []
            seen: set[str] = set()
            safe = box.safe_box
            for r in range(text.count_rects()):
                left, bottom, right, top = text.get_rect(r)
                by = _outside((left, bottom, right, top), safe)
                if by <= TOLERANCE:
                    continue
                words = " ".join(text.get_text_bounded(left, bottom, right, top).split())
                element = f'text "{words[:40]}"'
                if not words or element in seen:
                    continue
                seen.add(element)
                card = "(back)" if face.card is None else face.card.name
                found.append(warning(face.deck.game, face.deck.id, card, element,
                                     f"text reaches {by / PT_PER_MM:.1f} mm outside the safe "
                                     "zone (1/8 in inside the trim)"))
            text.close()
            page.close()
            out.append(found)
    finally:
        doc.close()
    return out
