"""Text contrast, measured on the rendered face (a face check of the renderer, like
pnp.draw.checks): each text element's colour against what is painted behind it.

What is behind the text is the face itself drawn without its text (every shape, icon and
image the plan paints, in the plan's order, on white paper), rasterised by pypdfium2 at
CONTRAST_DPI, and sampled over each line of the text: the glyph band from the baseline
up one em, as wide as the line. The ratio reported is the WCAG contrast ratio
(pnp.draw.colour) that at least 75 % of those samples reach, so a thin rule crossing a
line does not decide it, but text half on a panel and half on a dark band does. Text
needs 4.5:1; text of 18 pt and more, or 14 pt and more in bold, 3:1 (WCAG 1.4.3).

A face is rasterised only when it has text, once per planned face (card designs, not
copies; a card front's plan and its warnings are kept across builds with the plan).
"""

from __future__ import annotations

import functools
from typing import Any

from pnp.draw import colour

CONTRAST_DPI = 36           # enough for what lies under a 6 pt line (about 3 pixels)
QUANTILE = 0.25             # the ratio 75 % of the text's background reaches
ELEMENT_CHARS = 40


def text_colour(op: Any) -> colour.RGB | None:
    c = getattr(op, "color", None)
    if c is None:
        return (0.0, 0.0, 0.0)
    try:
        return (float(c.red), float(c.green), float(c.blue))
    except AttributeError:
        return None


def text_of(op: Any) -> str:
    return " ".join("".join(p.text for p in op.pieces if not p.icon).split())


def lines_of(op: Any) -> list[tuple[float, float, float, float]]:
    """The glyph bands of a text op's lines, (x0, y0, x1, y1) in points (y up, from the
    trim's top-left corner)."""
    rows: dict[float, list[float]] = {}
    for p in op.pieces:
        if p.icon or not p.text.strip():
            continue
        x0, x1 = op.x + p.x, op.x + p.x + p.width
        row = rows.setdefault(round(p.baseline, 2), [x0, x1])
        row[0], row[1] = min(row[0], x0), max(row[1], x1)
    size = op.size
    out = []
    for baseline, (x0, x1) in rows.items():
        base = op.top - baseline
        out.append((x0, base - 0.2 * size, x1, base + 0.75 * size))
    return out


def background(ops: list, target: Any, dpi: float = CONTRAST_DPI):
    """The face drawn without its text, as an RGB numpy array of bytes (0..255), and the
    points -> pixel mapping (scale, x offset, y offset) from the trim's top-left corner."""
    import io

    import numpy as np
    import pypdfium2 as pdfium

    from pnp.draw.elements.base import MM
    from pnp.draw.pdf import open_canvas

    b, w, h = target.bleed * MM, target.W * MM, target.H * MM
    buf = io.BytesIO()
    canvas = open_canvas(buf, (w + 2 * b, h + 2 * b), title="contrast", font="Helvetica")
    # read once, by pdfium, straight away: deflating the page and its images (lossless)
    # only to inflate them again changes no pixel
    canvas.setPageCompression(0)
    canvas.translate(b, h + b)
    for op in ops:
        if op.kind != "text":
            op.paint(canvas)
    canvas.showPage()
    canvas.save()
    doc = pdfium.PdfDocument(buf.getvalue())
    try:
        page = doc[0]
        bitmap = page.render(scale=dpi / 72, fill_color=(255, 255, 255, 255))
        pixels = np.asarray(bitmap.to_pil().convert("RGB"))
        page.close()
    finally:
        doc.close()
    return pixels, (dpi / 72, b, b)


@functools.cache
def _linear_table():
    """colour.linear of each of the 256 byte values a channel can take (as numpy computes
    it on an array of channels): a face's raster is bytes, so each of its pixels' channels
    is looked up here instead of raised to the power 2.4 anew, the most of a raster's
    luminance time."""
    import numpy as np

    channel = np.arange(256) / 255
    return np.where(channel <= 0.04045, channel / 12.92,
                    ((channel + 0.055) / 1.055) ** 2.4)


def _luminance(pixels):
    """colour.luminance of every pixel (RGB bytes) at once."""
    import numpy as np

    return _linear_table()[pixels] @ np.array(colour.LUMA)


def measured(op: Any, lum, mapping) -> float | None:
    """The contrast ratio 75 % of the background under `op`'s lines reaches."""
    import numpy as np

    scale, ox, oy = mapping
    fg = colour.luminance(text_colour(op) or (0.0, 0.0, 0.0))
    samples = []
    rows, cols = lum.shape
    for x0, y0, x1, y1 in lines_of(op):
        c0, c1 = int((x0 + ox) * scale), int(np.ceil((x1 + ox) * scale))
        r0, r1 = int((oy - y1) * scale), int(np.ceil((oy - y0) * scale))
        c0, r0 = max(c0, 0), max(r0, 0)
        c1, r1 = min(max(c1, c0 + 1), cols), min(max(r1, r0 + 1), rows)
        if c0 < c1 and r0 < r1:
            samples.append(lum[r0:r1, c0:c1].ravel())
    if not samples:
        return None
    bg = np.concatenate(samples)
    ratios = (np.maximum(bg, fg) + 0.05) / (np.minimum(bg, fg) + 0.05)
    return quantile(ratios, QUANTILE)


def quantile(values, q: float) -> float:
    """np.quantile(values, q) of a 1-D array of finite floats, to the last bit (its
    default "linear" method: the index, the two order statistics around it and the
    interpolation between them written as numpy writes them), without the generic
    machinery that made np.quantile most of a text's measuring time."""
    import numpy as np

    n = values.size
    at = (n - 1) * q
    lo = int(np.floor(at))
    hi = min(lo + 1, n - 1)
    gamma = at - lo
    ordered = np.partition(values, [lo, hi] if hi != lo else lo)
    a, b = ordered[lo], ordered[hi]
    diff = b - a
    return float(b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma)


class Backgrounds:
    """The luminance rasters of faces without their text, kept by what paints them: the
    cards of a type share a frame, so most faces need no raster of their own. What
    paints them is the shapes' compiled element text and trim (or the whole op), so the
    renderers of one project's languages can share them (pnp validate): a translation
    changes the text, which is not drawn here, not the frame."""

    def __init__(self, size: int = 64):
        from pnp.draw.recent import RecentCache

        self._cache = RecentCache(size)

    def get(self, keyed: list, target: Any):
        shapes = [(key, op) for key, op in keyed if op.kind != "text"]
        key = (target.W, target.H, target.bleed,
               tuple(k[1:] if k is not None else repr(op.as_tuple()) for k, op in shapes))
        found = self._cache.get(key)
        if found is None:
            pixels, mapping = background([op for _, op in shapes], target)
            found = (_luminance(pixels), mapping)
            self._cache.put(key, found)
        return found


def face_warnings(keyed: list, target: Any, bold_fonts: frozenset[str],
                  backgrounds: Backgrounds | None = None) -> list[tuple[str, str]]:
    """(element, message) for each text of a face below its contrast; `keyed`: the
    face's (replay key, op) pairs."""
    texts = [op for _, op in keyed if op.kind == "text" and text_of(op)]
    if not texts:
        return []
    lum, mapping = (backgrounds or Backgrounds(1)).get(keyed, target)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for op in texts:
        ratio = measured(op, lum, mapping)
        if ratio is None:
            continue
        bold = any(p.font in bold_fonts for p in op.pieces if not p.icon and p.text.strip())
        need = colour.required_ratio(op.size, bold)
        if ratio + 1e-9 >= need:
            continue
        words = text_of(op)
        element = f'text "{words[:ELEMENT_CHARS]}"'
        if element in seen:
            continue
        seen.add(element)
        rgb = text_colour(op) or (0.0, 0.0, 0.0)
        large = " (large text)" if need == colour.LARGE_TEXT_RATIO else ""
        out.append((element, f"contrast {ratio:.2f}:1 of {colour.to_hex(rgb)} text "
                             f"({op.size:.3g} pt{' bold' if bold else ''}) against what is "
                             f"behind it, below {need:g}:1{large} (WCAG 1.4.3)"))
    return out


def checker(renderer: Any):
    """The face check measuring text contrast on each face `renderer` plans."""
    fonts = getattr(renderer, "fonts", {}) or {}
    bold = frozenset(fonts[r] for r in ("bold", "bolditalic") if r in fonts)
    backgrounds = getattr(renderer, "contrast_backgrounds", None) or Backgrounds()

    def contrast_check(target: Any, ops: list, warnings: list) -> list:
        from pnp.draw.layout_warning import LayoutWarning

        found = face_warnings([(k, op) for k, op in ops if op], target, bold, backgrounds)
        if not found:
            return warnings
        have = {(w.element, w.message) for w in warnings}
        return list(warnings) + [LayoutWarning(target.game, target.deck, target.card, e, m)
                                 for e, m in found if (e, m) not in have]

    return contrast_check
