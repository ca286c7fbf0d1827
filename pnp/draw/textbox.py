"""Lay out marked-up text in a box: word wrap, shrink-to-fit, ellipsis on overflow.

`fit(paragraphs, fonts, role, size, min_size, width, height, ...)` tries the largest
size first and shrinks in 0.25 pt steps down to `min_size`; if the text still does not
fit it is cut at the last line that fits and ended with an ellipsis, and the result
says so (`overflow`). The result is a list of positioned pieces (text runs in one font,
inline icons) that `pnp.draw.render` draws; all units are points, y measured downwards from
the top of the box. No ReportLab canvas here, only font metrics.

A character the run's font lacks is set in that font's fallback (pnp.draw.glyphs): a word
may be several pieces in different fonts. Characters no font has are listed in
`Fitted.missing` for the caller to report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from pnp.draw import glyphs
from pnp.draw.markup import Icon, Paragraph, Span

STEP = 0.25          # pt between tried sizes
ICON_EM = 1.05       # width of an inline icon, in ems (plus a thin gap either side)
PARAGRAPH_GAP = 0.45  # extra space between paragraphs, in ems
ELLIPSIS = "\u2026"

_ROLE_FLAGS = {"regular": (False, False), "bold": (True, False), "italic": (False, True),
               "bolditalic": (True, True)}
_FLAGS_ROLE = {v: k for k, v in _ROLE_FLAGS.items()}


@lru_cache(maxsize=4096)
def _width(text: str, font: str, size: float) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return stringWidth(text, font, size)


@lru_cache(maxsize=64)
def _ascent_descent(font: str) -> tuple[float, float]:
    from reportlab.pdfbase.pdfmetrics import getAscentDescent

    a, d = getAscentDescent(font)
    return a / 1000.0, -d / 1000.0


@dataclass(frozen=True)
class Piece:
    """A run drawn at (x, baseline): text in `font`, or an icon (`icon` set)."""

    x: float
    baseline: float
    width: float
    text: str = ""
    font: str = ""
    icon: str = ""


@dataclass
class Fitted:
    """Text laid out in its box: the size it fits at, its pieces, height and overflow."""
    size: float
    pieces: list[Piece] = field(default_factory=list)
    height: float = 0.0
    overflow: bool = False        # did not fit even at min_size: cut or squeezed
    cut_after: str = ""           # the last words printed before the cut
    missing: str = ""             # characters no font has (printed as empty boxes)


def font_for(fonts: dict[str, str], role: str, bold: bool, italic: bool) -> str:
    """The font of a run: the element's role combined with the run's **/* styles."""
    if not (bold or italic):
        return fonts[role]
    base_bold, base_italic = _ROLE_FLAGS.get(role, (False, False))
    return fonts[_FLAGS_ROLE[(base_bold or bold, base_italic or italic)]]


# A word is a list of (kind, text_or_icon, font, width) atoms without spaces between.
_Atom = tuple[str, str, str, float]


def _words(line: list, fonts, role, size) -> list[tuple[list[_Atom], float, float]]:
    """Split a hard line into words: (atoms, width, width of the space before it)."""
    words: list[tuple[list[_Atom], float, float]] = []
    current: list[_Atom] = []
    space_before = 0.0
    pending_space = 0.0

    def flush():
        nonlocal current, space_before
        if current:
            words.append((current, sum(a[3] for a in current), space_before))
            current = []

    for run in line:
        if isinstance(run, Icon):
            if pending_space and current:
                flush()
            if not current:
                space_before = pending_space
            pending_space = 0.0
            current.append(("icon", run.name, "", size * ICON_EM + size * 0.1))
            continue
        assert isinstance(run, Span)
        font = font_for(fonts, role, run.bold, run.italic)
        whole = glyphs.covered(run.text, font)       # the common case: one font
        parts = run.text.split(" ")
        for i, part in enumerate(parts):
            if i > 0:                    # a space separated this part from the previous
                flush()
                pending_space = _width(" ", font, size)
            if part:
                if not current:
                    space_before = pending_space if words else 0.0
                    pending_space = 0.0
                if whole or glyphs.covered(part, font):
                    current.append(("text", part, font, _width(part, font, size)))
                else:
                    current.extend(("text", text, f, _width(text, f, size))
                                   for text, f in glyphs.runs(part, font))
    flush()
    return words


def _split_long(atoms: list[_Atom], width: float, size: float) -> list[list[_Atom]]:
    """Break one word that is wider than the line into chunks, character by character."""
    chunks: list[list[_Atom]] = [[]]
    used = 0.0
    for kind, text, font, w in atoms:
        if kind == "icon":
            if used + w > width and chunks[-1]:
                chunks.append([])
                used = 0.0
            chunks[-1].append((kind, text, font, w))
            used += w
            continue
        buf = ""
        for ch in text:
            cw = _width(buf + ch, font, size)
            if used + cw > width and (buf or chunks[-1]):
                if buf:
                    chunks[-1].append((kind, buf, font, _width(buf, font, size)))
                chunks.append([])
                used, buf = 0.0, ch
            else:
                buf += ch
        if buf:
            bw = _width(buf, font, size)
            chunks[-1].append((kind, buf, font, bw))
            used += bw
    return [c for c in chunks if c]


def _layout(paragraphs: list[Paragraph], fonts, role, size, width, leading, force: bool):
    """Lines of (atoms-with-gaps, line width, paragraph_start). Returns (lines, too_wide)."""
    lines: list[tuple[list[tuple[float, _Atom]], float, bool]] = []
    too_wide = False
    for paragraph in paragraphs:
        first_of_paragraph = True
        for hard_line in paragraph:
            words = _words(hard_line, fonts, role, size)
            current: list[tuple[float, _Atom]] = []
            used = 0.0
            queue = list(words)
            while queue:
                atoms, wwidth, space = queue.pop(0)
                if wwidth > width + 1e-6:
                    too_wide = True
                    if force:
                        chunks = _split_long(atoms, width, size)
                        queue[0:0] = [(c, sum(a[3] for a in c), space if i == 0 else 0.0)
                                      for i, c in enumerate(chunks)]
                        atoms, wwidth, space = queue.pop(0)
                gap = space if current else 0.0
                if current and used + gap + wwidth > width + 1e-6:
                    lines.append((current, used, first_of_paragraph))
                    first_of_paragraph = False
                    current, used, gap = [], 0.0, 0.0
                x = used + gap
                for atom in atoms:
                    current.append((x, atom))
                    x += atom[3]
                used = x
            lines.append((current, used, first_of_paragraph))
            first_of_paragraph = False
    return lines, too_wide


def _height(lines, size, leading, ascent, descent) -> float:
    if not lines:
        return 0.0
    gaps = sum(1 for _, _, p in lines[1:] if p) * PARAGRAPH_GAP * size
    return ascent * size + (len(lines) - 1) * leading * size + gaps + descent * size


def fit(paragraphs: list[Paragraph], fonts: dict[str, str], role: str, size: float,
        min_size: float, width: float, height: float, align: str = "left",
        valign: str = "top", leading: float = 1.2) -> Fitted:
    """Largest size in [min_size, size] (0.25 pt steps) at which the text fits the box."""
    base_font = fonts[role]
    ascent, descent = _ascent_descent(base_font)
    min_size = min(min_size, size)
    missing = _missing(paragraphs, fonts, role)

    def attempt(s: float, force: bool = False):
        lines, too_wide = _layout(paragraphs, fonts, role, s, width, leading, force)
        h = _height(lines, s, leading, ascent, descent)
        return lines, h, (not too_wide and h <= height + 1e-6)

    steps = int(round((size - min_size) / STEP))
    sizes = [size - i * STEP for i in range(steps)] + [min_size]
    lines, h, ok = attempt(sizes[0])
    chosen = sizes[0]
    if not ok:
        # binary search for the first size that fits (fit is monotonic in size)
        lo, hi = 1, len(sizes) - 1
        best = None
        while lo <= hi:
            mid = (lo + hi) // 2
            res = attempt(sizes[mid])
            if res[2]:
                best = (mid, res)
                hi = mid - 1
            else:
                lo = mid + 1
        if best is not None:
            chosen = sizes[best[0]]
            lines, h, ok = best[1]
        else:
            chosen = min_size
            lines, h, ok = attempt(min_size, force=True)
    result = Fitted(size=chosen, missing=missing)
    if not ok:
        result.overflow = True
        lines = _cut(lines, chosen, width, height, leading, ascent, descent, base_font)
        h = _height(lines, chosen, leading, ascent, descent)
        result.cut_after = " ".join(a[1] for _, a in lines[-1][0] if a[0] == "text")[-40:] \
            if lines else ""
    result.height = h
    result.pieces = _position(lines, chosen, width, height, h, align, valign, leading, ascent)
    return result


def _missing(paragraphs: list[Paragraph], fonts, role) -> str:
    out = ""
    for paragraph in paragraphs:
        for line in paragraph:
            for run in line:
                if isinstance(run, Span):
                    font = font_for(fonts, role, run.bold, run.italic)
                    out += "".join(ch for ch in glyphs.missing(run.text, font) if ch not in out)
    return out


def _cut(lines, size, width, height, leading, ascent, descent, ellipsis_font):
    """Keep the lines that fit in `height`; end the last kept one with an ellipsis."""
    keep = list(lines)
    while len(keep) > 1 and _height(keep, size, leading, ascent, descent) > height + 1e-6:
        keep.pop()
    if not keep:
        return keep
    ellipsis_font = glyphs.font_for(ELLIPSIS, ellipsis_font)
    ell_w = _width(ELLIPSIS, ellipsis_font, size)
    atoms, used, first = keep[-1]
    atoms = list(atoms)
    # drop whole words from the end until the ellipsis fits; shorten only a lone word
    while atoms and atoms[-1][0] + atoms[-1][1][3] + ell_w > width + 1e-6:
        x, atom = atoms.pop()
        if not atoms and atom[0] == "text":
            for n in range(len(atom[1]) - 1, 0, -1):
                w = _width(atom[1][:n], atom[2], size)
                if x + w + ell_w <= width + 1e-6:
                    atoms.append((x, (atom[0], atom[1][:n], atom[2], w)))
                    break
    end = atoms[-1][0] + atoms[-1][1][3] if atoms else 0.0
    atoms.append((end, ("text", ELLIPSIS, ellipsis_font, ell_w)))
    keep[-1] = (atoms, end + ell_w, first)
    return keep


def _offset(mode: str, room: float, centred: str, far: str) -> float:
    """Where a line or block starts in `room` to spare: none at the near edge (left, top),
    half of it centred, all of it at the far edge (right, bottom)."""
    if mode == centred:
        return room / 2
    return room if mode == far else 0.0


def _position(lines, size, width, height, h, align, valign, leading, ascent) -> list[Piece]:
    top = _offset(valign, height - h, "middle", "bottom")
    pieces: list[Piece] = []
    baseline = top + ascent * size
    for i, (atoms, used, first) in enumerate(lines):
        if i > 0:
            baseline += leading * size + (PARAGRAPH_GAP * size if first else 0.0)
        dx = _offset(align, width - used, "center", "right")
        # merge neighbouring text atoms of one font into one run, spaces included: a run is
        # open while run_font is set, from run_x
        run_x, run_font = 0.0, None
        run_text = ""
        run_end = 0.0
        for x, (kind, text, font, w) in atoms:
            if kind == "icon":
                if run_font is not None:
                    pieces.append(Piece(dx + run_x, baseline, run_end - run_x,
                                        run_text + (" " if x - run_end > 1e-6 else ""), run_font))
                    run_font = None
                run_end = x + w
                pieces.append(Piece(dx + x + size * 0.05, baseline, size * ICON_EM, icon=text))
                continue
            gap = x - run_end
            if run_font == font:
                if gap > 1e-6:
                    run_text += " "
                run_text += text
                run_end = x + w
            else:
                if run_font is not None:
                    # the space before a style change goes into the text layer too
                    pieces.append(Piece(dx + run_x, baseline, run_end - run_x,
                                        run_text + (" " if gap > 1e-6 else ""), run_font))
                run_x, run_font, run_text, run_end = x, font, text, x + w
        if run_font is not None:
            pieces.append(Piece(dx + run_x, baseline, run_end - run_x, run_text, run_font))
    return pieces
