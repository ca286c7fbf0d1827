"""Layout checks of drawn cards, reported by `pnp build`, `pnp proof` and `pnp export`.

The renderer reports what only it knows (text that overflows its box after shrinking,
text boxes and badges reaching out of the safe zone, a template with no elements).
These checks add, each naming game, deck, card and element:

- icons inside the bleed but outside the safe zone (1/8 in inside the trim);
- images below 300 dpi at their printed size (art above twice that is not a problem:
  it is embedded at 300 dpi, pnp.draw.art.printable, with a notice);
- a card whose template produced nothing to draw;
- paint that stops exactly at a trim line (a filled rectangle, polygon or image whose
  side lies on the trim and goes no further) while the card has bleed: a cut a
  fraction of a millimetre off shows what lies beyond it, as a hairline;
- (proofs) text whose glyphs, in the finished single-card PDF, reach outside the safe
  zone (`text_outside_safe_zone`).

Where the icons and images go is read from the renderer's compiled drawing plan
(each face's plan, one per card design and trim size, through the renderer's face checks), not from the canvas: the
renderer replays cached PDF code with literal operators, so a canvas wrapper would
neither see every icon nor know the transformation. The checks run once per design,
and their warnings are cached and returned with the renderer's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pnp.draw.recent import RecentCache

PT_PER_MM = 72 / 25.4
SAFE_MM = 3.175  # 1/8 in
MIN_DPI = 300   # the print resolution: art below it prints soft
TOLERANCE_MM = 0.05  # rounding slack before an edge counts as crossed


def warning(game: str, deck: str, card: str, element: str, message: str):
    """A warning of the renderer's own type (pnp.draw.render.LayoutWarning)."""
    from pnp.draw.render import LayoutWarning

    return LayoutWarning(game, deck, card, element, message)


def _outside(box: tuple[float, float, float, float],
             safe: tuple[float, float, float, float]) -> float:
    """How far `box` (x0, y0, x1, y1) reaches beyond `safe` on its worst side."""
    return max(safe[0] - box[0], safe[1] - box[1], box[2] - safe[2], box[3] - safe[3])


def image_dpi(box_pt: tuple[float, float, float, float], pixels: tuple[int, int],
              fit: str) -> float:
    """The printed resolution of an image of `pixels` drawn into `box_pt` (x, y, w, h in
    points) the renderer's way: cover (fill, crop), contain (fit inside) or stretch."""
    _, _, w, h = box_pt
    iw, ih = pixels
    if w <= 0 or h <= 0 or iw <= 0 or ih <= 0:
        return float("inf")
    if fit == "stretch":
        return min(iw / (w / 72), ih / (h / 72))
    scale = (max if fit == "cover" else min)(w / iw, h / ih)  # points per pixel
    return 72 / scale


def _is_white(fill: Any) -> bool:
    """White paint ends on white paper: no hairline to see."""
    rgb = getattr(fill, "rgb", None)
    return callable(rgb) and all(v >= 0.995 for v in rgb())


def _sides(op: Any) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The straight sides of a filled shape (points, y up from the trim's top), with
    all its corners; [] for anything that paints no area."""
    if op.kind == "polygon" and op.fill is not None and not _is_white(op.fill):
        pts = list(op.points)
        return list(zip(pts, pts[1:] + pts[:1], strict=True))
    if op.kind in ("rect", "image") and (op.kind == "image" or (
            op.fill is not None and not _is_white(op.fill))):
        x, y, w, h = op.box
        corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        return list(zip(corners, corners[1:] + corners[:1], strict=True))
    return []


def stops_at_trim(op: Any, w: float, h: float) -> list[str]:
    """The trim edges ("left", "bottom", "right", "top") along which `op`'s paint ends
    exactly: a side of at least 1 mm on the trim line, none of the shape beyond it.
    Lengths in points, the trim from (0, 0) at its top-left to (w, -h)."""
    sides = _sides(op)
    if not sides:
        return []
    tol = TOLERANCE_MM * PT_PER_MM
    xs = [p[0] for side in sides for p in side]
    ys = [p[1] for side in sides for p in side]
    lines = (("left", 0, 0.0, min(xs) >= -tol), ("right", 0, w, max(xs) <= w + tol),
             ("top", 1, 0.0, max(ys) <= tol), ("bottom", 1, -h, min(ys) >= -h - tol))
    found = []
    for edge, axis, at, inside in lines:
        if not inside:
            continue
        for a, b in sides:
            if (abs(a[axis] - at) <= tol and abs(b[axis] - at) <= tol
                    and abs(a[1 - axis] - b[1 - axis]) >= PT_PER_MM):
                found.append(edge)
                break
    return found


def plan_checks(ops: list, game: str, deck: str, card: str, trim_w_mm: float,
                trim_h_mm: float, bleed_mm: float = 0.0, keys: list | None = None) -> list[Any]:
    """Warnings for one compiled card face. `ops` are the renderer's drawing operations
    (pnp.draw.elements' frozen op objects: `kind`, and their fields) in points from the
    top-left corner of the trim box (x right, y up: negative down). `keys`: each op's
    replay key (None for one drawn per face): an op of a key is the same on every face
    of that trim size (a frame, a label), so what it is found to do is found once."""
    out: list[Any] = []
    seen: set[str] = set()

    def add(element: str, message: str) -> None:
        if element not in seen:
            seen.add(element)
            out.append(warning(game, deck, card, element, message))

    pairs = [(key, op) for key, op in zip(keys or [None] * len(ops), ops, strict=True) if op]
    if not pairs:
        add("template", "the template produced nothing to draw: the card face is blank")
    size = (trim_w_mm, trim_h_mm, bleed_mm > TOLERANCE_MM)
    found = [_op_findings(key, op, size) for key, op in pairs]
    for zone, _ in found:
        for element, message in zone:
            add(element, message)
    for _, trim in found:
        for element, message in trim:
            add(element, message)
    return out


# (replay key, trim size) -> _findings of its op. Kept for ops that recur (a frame, a
# label: found on every face); a card's own text ages out (pnp.draw.recent), so a deck of
# 20,000 cards does not hold 60,000 findings and the element lines their keys name.
_FINDINGS = RecentCache(4096)


def _op_findings(key: Any, op: Any, size: tuple[float, float, bool]) -> tuple:
    if key is None:
        return _findings(op, *size)
    found = _FINDINGS.get((key, size))
    if found is None:
        found = _findings(op, *size)
        _FINDINGS.put((key, size), found)
    return found


def _findings(op: Any, trim_w_mm: float, trim_h_mm: float, bleed: bool) -> tuple:
    """((element, message) of an icon outside the safe zone or an image below MIN_DPI,
    (element, message) of paint that stops at the trim while the card has bleed)."""
    zone: list[tuple[str, str]] = []
    kind = op.kind
    if kind == "icon":
        s = SAFE_MM * PT_PER_MM
        safe = (s, -(trim_h_mm * PT_PER_MM - s), trim_w_mm * PT_PER_MM - s, -s)
        name, cx, cy, size = op.name, op.cx, op.cy, op.size
        name = Path(name).name if name.startswith("file:") else name   # an own icon
        half = size / 2
        by = _outside((cx - half, cy - half, cx + half, cy + half), safe) / PT_PER_MM
        if by > TOLERANCE_MM:
            zone.append((f"icon {name}", f"icon reaches {by:.1f} mm outside the safe zone "
                                         "(1/8 in inside the trim)"))
    elif kind == "image":
        box, path, pixels, fit = op.box, op.path, op.pixels, op.fit
        dpi = image_dpi(box, pixels, fit)
        w_mm, h_mm = box[2] / PT_PER_MM, box[3] / PT_PER_MM
        if dpi + 0.5 < MIN_DPI:
            zone.append((f"image {Path(path).name}",
                         f"{pixels[0]} x {pixels[1]} px in a {w_mm:.1f} x {h_mm:.1f} mm box "
                         f"({fit}) prints at {dpi:.0f} dpi (needs {MIN_DPI})"))
    trim: list[tuple[str, str]] = []
    edges = stops_at_trim(op, trim_w_mm * PT_PER_MM, trim_h_mm * PT_PER_MM) if bleed else []
    if edges:
        trim.append((f"{op.kind} at the trim",
                     f"{op.kind} paint stops exactly at the {' and '.join(edges)} trim: a "
                     "cut a little off shows a hairline of what lies beyond; run it into "
                     "the bleed (`bleed: true`, or points past the trim) or keep it inside"))
    return tuple(zone), tuple(trim)


def _merge(first: list[Any], more: list[Any]) -> list[Any]:
    keys = {(w.game, w.deck, w.card, w.element) for w in first}
    return list(first) + [w for w in more if (w.game, w.deck, w.card, w.element) not in keys]


def _is_card(target: Any) -> bool:
    """Fronts and backs (mats, tokens, labels and reference cards have decks in
    parentheses and no safe-zone rule)."""
    return bool(getattr(target, "safe", False)) and not str(getattr(target, "deck", "(")
                                                             ).startswith("(")


def card_checks(target: Any, ops: list, warnings: list[Any]) -> list[Any]:
    """The plan checks of a card face (a face check of CardRenderer.add_face_check)."""
    if not _is_card(target):
        return warnings
    found = plan_checks([op for _, op in ops], target.game, target.deck, target.card,
                        target.W, target.H, getattr(target, "bleed", 0.0),
                        [key for key, _ in ops])
    return _merge(warnings, found)


def install(renderer: Any) -> bool:
    """Make `renderer` add the plan checks to the warnings of every card face it
    compiles from now on, through its public hook (`add_face_check`). False when it
    has none (then only the blank-face check of CheckedRenderer applies)."""
    add = getattr(renderer, "add_face_check", None)
    if not callable(add):
        return False
    add(card_checks)
    if getattr(renderer, "check_contrast", False):     # pnp validate; build --contrast
        from pnp.draw.contrast import checker

        add(checker(renderer))
    return True


class CheckedRenderer:
    """A renderer whose draw_front / draw_back also return the layout checks' warnings.
    Everything else (draw_mat, draw_token...) goes straight to the wrapped renderer."""

    def __init__(self, renderer: Any):
        self.renderer = renderer
        self.planned = install(renderer)

    def __getattr__(self, name: str):
        return getattr(self.renderer, name)

    def _blank(self, canvas, draw, game: str, deck: str, card: str) -> list[Any]:
        """Draw; for a renderer without a plan, a face that added no PDF operator at all
        is reported as blank."""
        code = getattr(canvas, "_code", None)
        start = len(code) if isinstance(code, list) else None
        found = list(draw() or [])
        if (not self.planned and start is not None and canvas._code is code
                and len(code) == start):
            found = _merge(found, [warning(game, deck, card, "template",
                                           "the template produced nothing to draw: "
                                           "the card face is blank")])
        return found

    def draw_front(self, canvas, card, deck, x, y, w, h, bleed):
        return self._blank(canvas, lambda: self.renderer.draw_front(
            canvas, card, deck, x, y, w, h, bleed), card.game, deck.id, card.name)

    def draw_back(self, canvas, deck, x, y, w, h, bleed):
        return self._blank(canvas, lambda: self.renderer.draw_back(
            canvas, deck, x, y, w, h, bleed), deck.game, deck.id, "(back)")


# ── checks of a finished single-card PDF ───────────────────────────────────────────


def text_outside_safe_zone(pdf: str | Path | bytes, faces: list[Any], boxes: list[Any]
                           ) -> list[list[Any]]:
    """For each page of a one-card-per-page PDF (pnp.artefacts.single): warnings for runs of text
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
                by = _outside((left, bottom, right, top), safe) / PT_PER_MM
                if by <= TOLERANCE_MM:
                    continue
                words = " ".join(text.get_text_bounded(left, bottom, right, top).split())
                element = f'text "{words[:40]}"'
                if not words or element in seen:
                    continue
                seen.add(element)
                card = "(back)" if face.card is None else face.card.name
                found.append(warning(face.deck.game, face.deck.id, card, element,
                                     f"text reaches {by:.1f} mm outside the safe zone "
                                     "(1/8 in inside the trim)"))
            text.close()
            page.close()
            out.append(found)
    finally:
        doc.close()
    return out
