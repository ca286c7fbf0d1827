"""Print geometry: pure functions, no ReportLab.

Every length here is in PostScript points (1/72 in) with the origin at the lower-left of
the page, the way ReportLab and PDF count. Convert from millimetres with `mm()`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

PT_PER_MM = 72 / 25.4

PAPERS_MM: dict[str, tuple[float, float]] = {
    "letter": (215.9, 279.4),
    "a4": (210.0, 297.0),
}
DUPLEX_MODES = ("long-edge", "short-edge")

# Home printers leave a band along every paper edge unprinted (inkjets about 3 mm,
# lasers 4.2-6.35 mm): cards and every cut guide stay inside it.
DEFAULT_PRINTER_MARGIN = 5.0 * PT_PER_MM
LAYOUTS = ("auto", "gutters", "abut")

# Crop marks (black, on white paper) start this far outside the outer bleed edge, so a
# mark never touches the printed card, and run towards the paper edge for at most
# MARK_LENGTH; they are drawn only where MIN_MARK_LENGTH of them can print.
MARK_GAP = 0.5 * PT_PER_MM
MARK_LENGTH = 6.0 * PT_PER_MM
MIN_MARK_LENGTH = 2.0 * PT_PER_MM
# Where the margin is too narrow, guides are drawn in the bleed and the gutters instead,
# on the trim lines the cut removes: they stop GUIDE_GAP short of every trim edge and
# are drawn only where at least MIN_GUIDE of them can print.
GUIDE_GAP = 0.3 * PT_PER_MM
MIN_GUIDE = 0.8 * PT_PER_MM
GUIDE_LENGTH = 6.0 * PT_PER_MM

# Float slack when testing whether things fit: a thousandth of a millimetre.
_EPS = 0.001 * PT_PER_MM


def mm(value: float) -> float:
    """Millimetres -> points."""
    return value * PT_PER_MM


def to_mm(points: float) -> float:
    """Points -> millimetres."""
    return points / PT_PER_MM


def paper_size(name: str, landscape: bool = False) -> tuple[float, float]:
    """(width, height) of a paper in points; portrait unless `landscape`."""
    try:
        w, h = PAPERS_MM[name.lower()]
    except KeyError:
        raise ValueError(f"unknown paper {name!r} (choose {', '.join(PAPERS_MM)})") from None
    w, h = mm(w), mm(h)
    return (h, w) if landscape else (w, h)


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle: x, y of a corner, width and height, in the unit of its layout."""
    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def top(self) -> float:
        return self.y + self.h

    def grow(self, edges: Edges) -> Rect:
        return Rect(self.x - edges.left, self.y - edges.bottom,
                    self.w + edges.left + edges.right, self.h + edges.bottom + edges.top)

    def shifted(self, dx: float, dy: float) -> Rect:
        return Rect(self.x + dx, self.y + dy, self.w, self.h)

    def contains(self, x: float, y: float) -> bool:
        return self.x - _EPS <= x <= self.right + _EPS and self.y - _EPS <= y <= self.top + _EPS


@dataclass(frozen=True)
class Edges:
    """A length per side, e.g. how much bleed a card keeps on each edge."""

    left: float = 0.0
    bottom: float = 0.0
    right: float = 0.0
    top: float = 0.0


@dataclass(frozen=True)
class Slot:
    """Where one card goes on a page. `trim` is the cut size; the card paints out to
    `area` (trim grown by `bleed`), which never overlaps another slot's area."""

    index: int
    row: int  # 0 = top row
    col: int  # 0 = left column
    trim: Rect
    bleed: Edges
    rotate: int = 0  # degrees; 180 for a back folded over a horizontal fold line

    @cached_property
    def area(self) -> Rect:
        """Made once a slot: the cut guides and the free cells of a sheet ask each slot
        for it again for every trim line (a million times in the geometry tests)."""
        return self.trim.grow(self.bleed)


@dataclass(frozen=True)
class Segment:
    """A straight line from (x0, y0) to (x1, y1): a cut or fold guide."""
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class Sheet:
    """The imposition of one card size on one paper size."""

    page_w: float
    page_h: float
    card_w: float
    card_h: float
    bleed: float
    cols: int
    rows: int
    gutter_x: float  # 0 when the columns abut on shared cut lines, else 2 x bleed
    gutter_y: float
    slots: tuple[Slot, ...]  # reading order: top row first, left to right
    margin: float = DEFAULT_PRINTER_MARGIN  # the printer's unprintable band

    @property
    def per_sheet(self) -> int:
        return len(self.slots)

    @property
    def printable(self) -> Rect:
        """The part of the page the printer can print on."""
        return Rect(self.margin, self.margin, self.page_w - 2 * self.margin,
                    self.page_h - 2 * self.margin)

    @property
    def extent(self) -> Rect:
        """The bounding box of every card's painted area (trim + bleed)."""
        areas = [s.area for s in self.slots]
        x0, y0 = min(a.x for a in areas), min(a.y for a in areas)
        return Rect(x0, y0, max(a.right for a in areas) - x0, max(a.top for a in areas) - y0)

    @property
    def cut_xs(self) -> tuple[float, ...]:
        return _unique(x for s in self.slots for x in (s.trim.x, s.trim.right))

    @property
    def cut_ys(self) -> tuple[float, ...]:
        return _unique(y for s in self.slots for y in (s.trim.y, s.trim.top))


def _unique(values) -> tuple[float, ...]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > _EPS:
            out.append(v)
    return tuple(out)


def _fit_axis(paper: float, card: float, gutter: float, margin: float) -> int:
    """How many cards fit along one axis with `gutter` between them: every trim inside
    the printable band, and room left for the guides of the trim lines that cross this
    axis (in the gutters, or else between the outer trims and the printer margin)."""
    usable = paper - 2 * margin
    n = int((usable + _EPS) // card) if card > 0 else 0
    guides_in_gutters = gutter - 2 * GUIDE_GAP >= MIN_GUIDE - _EPS
    while n > 0:
        total = n * card + (n - 1) * gutter
        ends = (usable - total) / 2 - GUIDE_GAP
        if total <= usable + _EPS and (ends >= MIN_GUIDE - _EPS
                                       or (n > 1 and guides_in_gutters)):
            return n
        n -= 1
    return 0


def card_sheet(page_w: float, page_h: float, card_w: float, card_h: float,
               bleed: float, margin: float = DEFAULT_PRINTER_MARGIN,
               gutters: tuple[bool | None, bool | None] = (None, None)) -> Sheet:
    """Lay out as many cards as fit inside the printer margin, centred on the page.

    `gutters` decides each axis (x, y): True keeps a gutter of two bleeds between the
    cards (full bleed on every edge, even if that costs a column or row), False abuts
    them on shared cut lines (only the outer edges keep bleed), None takes the gutter
    when it costs no card and abuts otherwise. Raises ValueError if no card fits."""
    gap = 2 * bleed

    def axis(paper: float, card: float, choice: bool | None) -> tuple[int, float]:
        if choice is True:
            return _fit_axis(paper, card, gap, margin), gap
        abut = _fit_axis(paper, card, 0.0, margin)
        if choice is None and gap > 0 and _fit_axis(paper, card, gap, margin) == abut:
            return abut, gap
        return abut, 0.0

    cols, gx = axis(page_w, card_w, gutters[0])
    rows, gy = axis(page_h, card_h, gutters[1])
    if cols == 0 or rows == 0:
        raise ValueError(
            f"a {to_mm(card_w):.1f} x {to_mm(card_h):.1f} mm card with its cut guides "
            f"does not fit inside a {to_mm(margin):.1f} mm printer margin on a "
            f"{to_mm(page_w):.1f} x {to_mm(page_h):.1f} mm page")
    grid_w = cols * card_w + (cols - 1) * gx
    grid_h = rows * card_h + (rows - 1) * gy
    x0 = (page_w - grid_w) / 2
    top = page_h - (page_h - grid_h) / 2
    slots: list[Slot] = []
    for r in range(rows):
        for c in range(cols):
            trim = Rect(x0 + c * (card_w + gx), top - (r + 1) * card_h - r * gy, card_w, card_h)
            edges = Edges(
                left=bleed if (gx or c == 0) else 0.0,
                right=bleed if (gx or c == cols - 1) else 0.0,
                top=bleed if (gy or r == 0) else 0.0,
                bottom=bleed if (gy or r == rows - 1) else 0.0,
            )
            slots.append(Slot(len(slots), r, c, trim, edges))
    return Sheet(page_w, page_h, card_w, card_h, bleed, cols, rows, gx, gy, tuple(slots),
                 margin)


def sheet_choices(page_w: float, page_h: float, card_w: float, card_h: float, bleed: float,
                  margin: float = DEFAULT_PRINTER_MARGIN, layout: str = "auto") -> list[Sheet]:
    """The impositions `layout` allows, most cards per sheet first.

    "gutters": full bleed on every card edge; "abut": shared cut lines; "auto": a gutter
    wherever it costs no card, and where it would, both the abutting sheet (first) and
    the one with gutters: the caller takes the first whose abutting neighbours match
    (`abutting`)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r} (choose {', '.join(LAYOUTS)})")
    if layout != "auto":
        return [card_sheet(page_w, page_h, card_w, card_h, bleed, margin,
                           (layout == "gutters",) * 2)]
    best = card_sheet(page_w, page_h, card_w, card_h, bleed, margin)
    options_x = [False, True] if best.cols > 1 and best.gutter_x == 0 else [None]
    options_y = [False, True] if best.rows > 1 and best.gutter_y == 0 else [None]
    out: list[Sheet] = []
    for gx in options_x:
        for gy in options_y:
            try:
                out.append(card_sheet(page_w, page_h, card_w, card_h, bleed, margin, (gx, gy)))
            except ValueError:
                continue
    return sorted(out, key=lambda s: -s.per_sheet)  # stable: abutting first on ties


def filled(sheet: Sheet, count: int | None = None) -> Sheet:
    """The sheet as printed with its first `count` slots filled: those slots only, and
    every edge that would share a cut line with an empty slot gets full bleed, since
    nothing is cut against it (a card beside an empty slot of a partly filled last
    sheet would otherwise stop its paint on the trim: a cut a little off leaves a white
    hairline). Reading order fills rows top first, left to right, so only a card's right
    and bottom neighbours can be empty."""
    n = len(sheet.slots) if count is None else min(count, len(sheet.slots))
    out = []
    for s in sheet.slots[:n]:
        right_empty = sheet.gutter_x == 0 and s.col + 1 < sheet.cols and s.index + 1 >= n
        below_empty = sheet.gutter_y == 0 and s.row + 1 < sheet.rows and s.index + sheet.cols >= n
        if right_empty or below_empty:
            s = replace(s, bleed=replace(
                s.bleed, right=sheet.bleed if right_empty else s.bleed.right,
                bottom=sheet.bleed if below_empty else s.bleed.bottom))
        out.append(s)
    return replace(sheet, slots=tuple(out))


def abutting(sheet: Sheet, count: int) -> list[tuple[int, int, str]]:
    """Neighbours among the first `count` slots that share a cut line: (i, j, "x") when
    slot i's right edge is slot j's left edge, (i, j, "y") when i's bottom is j's top."""
    out = []
    for s in sheet.slots[:count]:
        right = s.index + 1
        if sheet.gutter_x == 0 and s.col + 1 < sheet.cols and right < count:
            out.append((s.index, right, "x"))
        below = s.index + sheet.cols
        if sheet.gutter_y == 0 and s.row + 1 < sheet.rows and below < count:
            out.append((s.index, below, "y"))
    return out


@dataclass(frozen=True)
class Guide:
    """A cut guide on a trim line. "mark": a crop mark on white paper beyond the bleed;
    "bleed": a guide in the bleed or a gutter, drawn to contrast with any colour."""

    segment: Segment
    kind: str


def _free_runs(lo: float, hi: float, blocked: list[tuple[float, float]]
               ) -> list[tuple[float, float, bool, bool]]:
    """Stretches of [lo, hi] outside `blocked`: (start, end, start is a trim, end is)."""
    out = []
    pos, pos_trim = lo, False
    for b0, b1 in sorted(blocked):
        if b0 > pos + _EPS:
            out.append((pos, min(b0, hi), pos_trim, b0 < hi))
        if b1 > pos:
            pos, pos_trim = b1, True
    if hi > pos + _EPS:
        out.append((pos, hi, pos_trim, False))
    return [r for r in out if r[1] - r[0] >= MIN_GUIDE - _EPS]


def _bleed_edge(start: float, direction: int, covers: list[tuple[float, float]]) -> float:
    """From a trim edge, how far the painted bleed runs on (direction -1 or +1)."""
    pos = start
    moved = True
    while moved:
        moved = False
        for a0, a1 in covers:
            if a0 - _EPS <= pos <= a1 + _EPS:
                nxt = a0 if direction < 0 else a1
                if (nxt - pos) * direction > _EPS:
                    pos, moved = nxt, True
    return pos


def _line_guides(lo: float, hi: float, trims: list[tuple[float, float]],
                 areas: list[tuple[float, float]], make) -> list[Guide]:
    """Guides on one trim line: `trims` and `areas` are the (start, end) ranges of the
    cards' trims and painted areas the line passes, [lo, hi] the printable range."""
    blocked = [(t0 - GUIDE_GAP, t1 + GUIDE_GAP) for t0, t1 in trims]
    guides = []
    for a, b, a_trim, b_trim in _free_runs(lo, hi, blocked):
        if a_trim and b_trim:  # a gutter, or the gap between two cards of a partial sheet
            if b - a <= 2 * GUIDE_LENGTH:
                guides.append(Guide(make(a, b), "bleed"))
            else:
                guides.append(Guide(make(a, a + GUIDE_LENGTH), "bleed"))
                guides.append(Guide(make(b - GUIDE_LENGTH, b), "bleed"))
            continue
        if not (a_trim or b_trim):
            continue
        direction = 1 if a_trim else -1
        trim_edge = a - GUIDE_GAP if a_trim else b + GUIDE_GAP
        edge = _bleed_edge(trim_edge, direction, areas)
        start = edge + direction * MARK_GAP
        room = (b - start) if a_trim else (start - a)
        if room >= MIN_MARK_LENGTH - _EPS:
            length = min(MARK_LENGTH, room)
            guides.append(Guide(make(start, start + direction * length), "mark"))
        else:
            near = a if a_trim else b
            length = min(GUIDE_LENGTH, b - a)
            guides.append(Guide(make(near, near + direction * length), "bleed"))
    return guides


def cut_guides(sheet: Sheet, count: int | None = None) -> list[Guide]:
    """Cut guides for every trim line of the first `count` slots (all by default), each
    inside the printable area and never over a card's trim: crop marks in the margin
    where it is wide enough, else guides in the bleed and in the gutters."""
    used = sheet.slots if count is None else sheet.slots[:count]
    p = sheet.printable
    guides: list[Guide] = []
    xs = _unique(x for s in used for x in (s.trim.x, s.trim.right))
    ys = _unique(y for s in used for y in (s.trim.y, s.trim.top))
    for x in xs:
        trims = [(s.trim.y, s.trim.top) for s in used
                 if s.trim.x - _EPS <= x <= s.trim.right + _EPS]
        areas = [(s.area.y, s.area.top) for s in used
                 if s.area.x - _EPS <= x <= s.area.right + _EPS]
        guides += _line_guides(p.y, p.top, trims, areas,
                               lambda a, b, x=x: Segment(x, a, x, b))
    for y in ys:
        trims = [(s.trim.x, s.trim.right) for s in used
                 if s.trim.y - _EPS <= y <= s.trim.top + _EPS]
        areas = [(s.area.x, s.area.right) for s in used
                 if s.area.y - _EPS <= y <= s.area.top + _EPS]
        guides += _line_guides(p.x, p.right, trims, areas,
                               lambda a, b, y=y: Segment(a, y, b, y))
    return guides


# Pointers: small arrowheads beside a card, inside the strip a first cut leaves, whose
# tip stops GUIDE_GAP short of the trim line they point at: a strip cut off the sheet
# still shows where its remaining lines run (the stubs beyond the outer cards go with
# the first cuts). POINTER_AT from the end of the card's edge (clear of the corner
# guides and of a scale plate centred in a gutter).
POINTER_LENGTH = 1.5 * PT_PER_MM
POINTER_WIDTH = 1.2 * PT_PER_MM
MIN_POINTER = 0.8 * PT_PER_MM
POINTER_AT = 3.0 * PT_PER_MM


def cut_order(sheet: Sheet) -> str | None:
    """Which cuts must come first so that every strip keeps marks for the lines left
    in it: "rows" when rows share cut lines (no room beside a card above or below to
    mark the vertical lines once the rows are cut), "columns" when columns do (and rows
    have gutters), None when gutters on both axes let any order do."""
    rows = len({s.row for s in sheet.slots})
    cols = len({s.col for s in sheet.slots})
    if sheet.gutter_y == 0 and rows > 1:
        return "rows"
    if sheet.gutter_x == 0 and cols > 1:
        return "columns"
    return None


def _room(sheet: Sheet, slot: Slot, edge: str) -> tuple[float, bool]:
    """How far the paper runs beyond one edge of `slot`, inside its own strip (its row
    for left and right, its column for top and bottom), up to the next card's trim or
    the printable edge; and whether a card lies there (the room is then shared)."""
    t, p = slot.trim, sheet.printable
    horizontal = edge in ("left", "right")
    others = [s.trim for s in sheet.slots if s is not slot and (
        (s.trim.y < t.top - _EPS and t.y < s.trim.top - _EPS) if horizontal
        else (s.trim.x < t.right - _EPS and t.x < s.trim.right - _EPS))]
    if edge == "right":
        ends = [o.x - t.right for o in others if o.x >= t.right - _EPS]
        limit = p.right - t.right
    elif edge == "left":
        ends = [t.x - o.right for o in others if o.right <= t.x + _EPS]
        limit = t.x - p.x
    elif edge == "top":
        ends = [o.y - t.top for o in others if o.y >= t.top - _EPS]
        limit = p.top - t.top
    else:
        ends = [t.y - o.top for o in others if o.top <= t.y + _EPS]
        limit = t.y - p.y
    if ends and min(ends) <= limit:
        return min(ends), True
    return limit, False


def strip_pointers(sheet: Sheet) -> list[Guide]:
    """Pointers ("pointer" guides, base to tip) at the card edges whose cut line would
    otherwise have no mark in the strip a first cut leaves: the left and right edges
    when the rows come first (`cut_order`), top and bottom when the columns do, all four
    when any order will do. Only where the paper beside the card has room for one."""
    order = cut_order(sheet)
    edges = {"rows": ("left", "right"), "columns": ("top", "bottom")}.get(
        order or "", ("left", "right", "top", "bottom"))
    out: list[Guide] = []
    for slot in sheet.slots:
        t = slot.trim
        for edge in edges:
            room, shared = _room(sheet, slot, edge)
            length = min(POINTER_LENGTH, (room / 2 if shared else room) - GUIDE_GAP)
            if length < MIN_POINTER - _EPS:
                continue
            if edge in ("left", "right"):
                y = t.top - POINTER_AT
                tip = t.right + GUIDE_GAP if edge == "right" else t.x - GUIDE_GAP
                way = 1 if edge == "right" else -1
                out.append(Guide(Segment(tip + way * length, y, tip, y), "pointer"))
            else:
                x = t.x + POINTER_AT
                tip = t.top + GUIDE_GAP if edge == "top" else t.y - GUIDE_GAP
                way = 1 if edge == "top" else -1
                out.append(Guide(Segment(x, tip + way * length, x, tip), "pointer"))
    return out


def crop_marks(sheet: Sheet, count: int | None = None) -> list[Segment]:
    """The segments of `cut_guides` (every kind)."""
    return [g.segment for g in cut_guides(sheet, count)]


# ── the scale check ───────────────────────────────────────────────────────────────

SCALE_PAD = 0.5 * PT_PER_MM    # kept clear around the scale plate
SCALE_PLATE_H = 5.0 * PT_PER_MM


def scale_plate_height(label_pt: float = 6.0) -> float:
    """The plate's height: 5 mm with its 6 pt label, 3/4 pt taller for each point a higher
    print.min_text_pt adds to the label."""
    return SCALE_PLATE_H + (max(label_pt, 6.0) - 6.0) * 0.75


def scale_length(paper: str) -> tuple[float, str]:
    """The scale bar's length (points) and label: 2 in on Letter, 50 mm otherwise."""
    if paper.lower() == "letter":
        return 2 * 72.0, "2 in at 100 %"
    return mm(50), "50 mm at 100 %"


@dataclass(frozen=True)
class ScalePlate:
    """Where the scale bar goes: a plate of `rect`, the bar along it (vertical when the
    plate stands upright)."""

    rect: Rect
    vertical: bool


def free_cells(sheet: Sheet, count: int | None = None, more_xs=(), more_ys=()) -> list[Rect]:
    """The printable page cut by the trim lines of the used slots (and by `more_xs`,
    `more_ys`, e.g. fold lines, whose marks also run beyond the cards) into cells; the
    cells no card covers, in reading order (top row first)."""
    used = sheet.slots if count is None else sheet.slots[:count]
    p = sheet.printable
    xs = _unique([p.x, p.right, *(x for s in used for x in (s.trim.x, s.trim.right)),
                  *more_xs])
    ys = _unique([p.y, p.top, *(y for s in used for y in (s.trim.y, s.trim.top)),
                  *more_ys])
    xs = tuple(x for x in xs if p.x <= x <= p.right)
    ys = tuple(y for y in ys if p.y <= y <= p.top)
    # each cell's centre against every trim: the trims' sides read once, not per cell
    trims = [(t.x, t.right, t.y, t.top) for t in (s.trim for s in used)]
    cells = []
    for y0, y1 in reversed(list(zip(ys, ys[1:], strict=False))):
        for x0, x1 in zip(xs, xs[1:], strict=False):
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            if not any(left < cx < right and bottom < cy < top
                       for left, right, bottom, top in trims):
                cells.append(Rect(x0, y0, x1 - x0, y1 - y0))
    return cells


def _overlaps(a: Rect, b: Rect) -> bool:
    return (a.x < b.right - _EPS and b.x < a.right - _EPS
            and a.y < b.top - _EPS and b.y < a.top - _EPS)


def scale_plate(cells: list[Rect], length: float, label_pt: float = 6.0,
                avoid: tuple[Rect, ...] | list[Rect] = (),
                keep: tuple[Rect, ...] | list[Rect] = ()) -> ScalePlate | None:
    """The first cell that holds a plate for a bar of `length` with a `label_pt` label
    (lying, else standing), preferring one whose plate covers none of `avoid` (the
    cards' painted bleed: a white plate on a bleed narrows it) nor of `keep` (marks it
    must not hide); failing that, one clear of `keep`; failing that, the first that
    holds it (a full sheet's gutter)."""
    long = length + 2 * mm(1)
    high = scale_plate_height(label_pt)
    fits: list[ScalePlate] = []
    for vertical in (False, True):
        for cell in cells:
            w, h = cell.w - 2 * SCALE_PAD, cell.h - 2 * SCALE_PAD
            pw, ph = (high, long) if vertical else (long, high)
            if w >= pw - _EPS and h >= ph - _EPS:
                x = cell.x + (cell.w - pw) / 2
                y = cell.y + (cell.h - ph) / 2
                fits.append(ScalePlate(Rect(x, y, pw, ph), vertical))
    kept = [p for p in fits if not any(_overlaps(p.rect, k) for k in keep)]
    clear = [p for p in kept if not any(_overlaps(p.rect, a) for a in avoid)]
    found = clear or kept or fits
    return found[0] if found else None


def guide_box(guide: Guide, half_width: float = POINTER_WIDTH / 2) -> Rect:
    """The box a guide covers (a pointer's arrowhead, a line's width)."""
    s = guide.segment
    x0, x1 = sorted((s.x0, s.x1))
    y0, y1 = sorted((s.y0, s.y1))
    return Rect(x0 - half_width, y0 - half_width, x1 - x0 + 2 * half_width,
                y1 - y0 + 2 * half_width)


# ── duplex ────────────────────────────────────────────────────────────────────────


def mirror_axis(page_w: float, page_h: float, duplex: str) -> str:
    """Which coordinate a duplex flip mirrors: "x" or "y".

    Long-edge: the sheet turns over about its long edge; on a portrait page that is the
    vertical edge, so x mirrors. Short-edge: about the short edge, so y mirrors."""
    if duplex not in DUPLEX_MODES:
        raise ValueError(f"unknown duplex mode {duplex!r} (choose {', '.join(DUPLEX_MODES)})")
    portrait = page_h >= page_w
    return "x" if (duplex == "long-edge") == portrait else "y"


def back_slot(front: Slot, page_w: float, page_h: float, duplex: str,
              offset: tuple[float, float] = (0.0, 0.0)) -> Slot:
    """The slot on the following page that lands behind `front` when the sheet is printed
    duplex; `offset` (points, in the back page's own coordinates) corrects a printer
    that shifts the back side.

    A sheet turned over a horizontal line (short-edge on portrait paper) brings each
    card's top edge to the bottom of the back page, so the back is drawn turned 180
    degrees to stand upright behind its front, as a long-edge flip gives it (the same
    reason a fold-and-glue back below its front is turned)."""
    t, b = front.trim, front.bleed
    if mirror_axis(page_w, page_h, duplex) == "x":
        trim = Rect(page_w - t.right, t.y, t.w, t.h)
        bleed = Edges(left=b.right, bottom=b.bottom, right=b.left, top=b.top)
        rotate = 0
    else:
        trim = Rect(t.x, page_h - t.top, t.w, t.h)
        bleed = Edges(left=b.left, bottom=b.top, right=b.right, top=b.bottom)
        rotate = 180
    return replace(front, trim=trim.shifted(*offset), bleed=bleed, rotate=rotate)


def back_slots(sheet: Sheet, count: int, duplex: str,
               offset: tuple[float, float] = (0.0, 0.0)) -> list[Slot]:
    """Backs for the first `count` fronts of a sheet (a last sheet may be partly filled)."""
    return [back_slot(s, sheet.page_w, sheet.page_h, duplex, offset) for s in sheet.slots[:count]]


def parse_offset(text: str) -> tuple[float, float]:
    """`"X,Y"` in millimetres -> (x, y) millimetres; ValueError if malformed."""
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(f"back offset {text!r} must be X,Y in millimetres, e.g. 0.5,-1")
    try:
        x, y = (float(p) for p in parts)
    except ValueError:
        raise ValueError(f"back offset {text!r} must be X,Y in millimetres, e.g. 0.5,-1") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"back offset {text!r} must be finite numbers")
    from carddb.limits import BACK_OFFSET_MM

    if abs(x) > BACK_OFFSET_MM or abs(y) > BACK_OFFSET_MM:
        raise ValueError(f"back offset {text!r} must be within -{BACK_OFFSET_MM:g} and "
                         f"{BACK_OFFSET_MM:g} mm on each axis")
    return x, y


def parse_scale(text: str) -> tuple[float, float]:
    """`"SX,SY"` in percent -> (sx, sy); ValueError if malformed or outside the limits."""
    from carddb.limits import BACK_SCALE_PCT

    low, high = BACK_SCALE_PCT
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        sx, sy = (float(p) for p in parts)
    except ValueError:
        raise ValueError(f"back scale {text!r} must be SX,SY in percent, e.g. 100.4,99.8"
                         ) from None
    if not all(math.isfinite(v) and low <= v <= high for v in (sx, sy)):
        raise ValueError(f"back scale {text!r} must be within {low:g} and {high:g} percent "
                         "on each axis")
    return sx, sy


def back_matrix(page_w: float, page_h: float, scale_pct: tuple[float, float] = (100.0, 100.0),
                rotate_deg: float = 0.0) -> tuple[float, ...] | None:
    """The PDF matrix (a, b, c, d, e, f) that scales a back page by `scale_pct` and turns
    it `rotate_deg` anticlockwise about the page centre (a printer that prints the back
    side a little larger, smaller or turned: measured by calibration.pdf); None when it
    changes nothing. A point p lands at centre + R(S(p - centre))."""
    sx, sy = scale_pct[0] / 100, scale_pct[1] / 100
    if abs(sx - 1) < 1e-9 and abs(sy - 1) < 1e-9 and abs(rotate_deg) < 1e-9:
        return None
    t = math.radians(rotate_deg)
    cos, sin = math.cos(t), math.sin(t)
    a, b, c, d = sx * cos, sx * sin, -sy * sin, sy * cos
    cx, cy = page_w / 2, page_h / 2
    return (a, b, c, d, cx - (a * cx + c * cy), cy - (b * cx + d * cy))


def apply_matrix(m: tuple[float, ...] | None, x: float, y: float) -> tuple[float, float]:
    """Where `back_matrix` `m` takes the point (x, y)."""
    if m is None:
        return x, y
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


# ── fold-and-glue ─────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class FoldPair:
    """A card's front and back slots either side of the fold line they share."""
    front: Slot
    back: Slot
    fold: Segment  # the fold line (the shared edge of front and back)


@dataclass(frozen=True)
class FoldSheet:
    """Fronts and backs side by side: fold on the fold line, glue, cut on the trim lines.

    `pairs.front`/`pairs.back` are the two halves; `grid` is the imposition of the pair
    units, which gives the cut lines and crop marks."""

    grid: Sheet
    axis: str  # "vertical": back right of front; "horizontal": back below front, turned 180
    pairs: tuple[FoldPair, ...]

    @property
    def per_sheet(self) -> int:
        return len(self.pairs)


def _split_pair(slot: Slot, card_w: float, card_h: float, axis: str) -> FoldPair:
    t, b = slot.trim, slot.bleed
    if axis == "vertical":
        front = Slot(slot.index, slot.row, slot.col, Rect(t.x, t.y, card_w, card_h),
                     replace(b, right=0.0))
        back = Slot(slot.index, slot.row, slot.col, Rect(t.x + card_w, t.y, card_w, card_h),
                    replace(b, left=0.0))
        fold = Segment(t.x + card_w, t.y, t.x + card_w, t.top)
    else:
        # A back folded up over a horizontal line ends upside down unless drawn turned.
        front = Slot(slot.index, slot.row, slot.col, Rect(t.x, t.y + card_h, card_w, card_h),
                     replace(b, bottom=0.0))
        back = Slot(slot.index, slot.row, slot.col, Rect(t.x, t.y, card_w, card_h),
                    replace(b, top=0.0), rotate=180)
        fold = Segment(t.x, t.y + card_h, t.right, t.y + card_h)
    return FoldPair(front, back, fold)


def fold_sheet(paper: str, card_w: float, card_h: float, bleed: float,
               margin: float = DEFAULT_PRINTER_MARGIN) -> FoldSheet:
    """The fold layout holding the most pairs: portrait or landscape paper, the back to
    the right of the front (preferred on ties: nothing turned) or below it."""
    best: FoldSheet | None = None
    for landscape in (False, True):
        pw, ph = paper_size(paper, landscape)
        for axis in ("vertical", "horizontal"):
            pair_w, pair_h = (2 * card_w, card_h) if axis == "vertical" else (card_w, 2 * card_h)
            try:
                grid = card_sheet(pw, ph, pair_w, pair_h, bleed, margin)
            except ValueError:
                continue
            pairs = tuple(_split_pair(s, card_w, card_h, axis) for s in grid.slots)
            if best is None or len(pairs) > best.per_sheet:
                best = FoldSheet(grid, axis, pairs)
    if best is None:
        raise ValueError(
            f"a {to_mm(card_w):.1f} x {to_mm(card_h):.1f} mm card and its back do not fit "
            f"side by side on {paper} paper")
    return best


def fold_filled(fold: FoldSheet, count: int | None = None) -> FoldSheet:
    """The fold sheet as printed with its first `count` pairs: a pair beside an empty
    unit gets full bleed on that edge (`filled`)."""
    grid = filled(fold.grid, count)
    card_w, card_h = fold.pairs[0].front.trim.w, fold.pairs[0].front.trim.h
    return FoldSheet(grid, fold.axis, tuple(_split_pair(s, card_w, card_h, fold.axis)
                                            for s in grid.slots))


def fold_guides(fold: FoldSheet, count: int | None = None) -> list[Guide]:
    """Marks on each fold line of the first `count` pairs (drawn dashed), outside every
    pair and inside the printable area, placed as the cut guides are: in the margin
    where it is wide enough, else in the bleed and gutters."""
    pairs = fold.pairs if count is None else fold.pairs[:count]
    units = fold.grid.slots[:len(pairs)]
    p = fold.grid.printable
    out: list[Guide] = []
    seen: set[float] = set()
    for pair in pairs:
        f = pair.fold
        vertical = fold.axis == "vertical"
        at = f.x0 if vertical else f.y0
        if round(at, 3) in seen:
            continue
        seen.add(round(at, 3))
        if vertical:
            trims = [(u.trim.y, u.trim.top) for u in units if u.trim.x <= at <= u.trim.right]
            areas = [(u.area.y, u.area.top) for u in units if u.area.x <= at <= u.area.right]
            out += _line_guides(p.y, p.top, trims, areas,
                                lambda a, b, x=at: Segment(x, a, x, b))
        else:
            trims = [(u.trim.x, u.trim.right) for u in units if u.trim.y <= at <= u.trim.top]
            areas = [(u.area.x, u.area.right) for u in units if u.area.y <= at <= u.area.top]
            out += _line_guides(p.x, p.right, trims, areas,
                                lambda a, b, y=at: Segment(a, y, b, y))
    return out


def fold_marks(fold: FoldSheet, count: int | None = None) -> list[Segment]:
    """The segments of `fold_guides`."""
    return [gd.segment for gd in fold_guides(fold, count)]


# ── tiling a large mat ────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Tile:
    """One page of a tiled mat: its place in the grid and the part of the mat it shows."""
    index: int
    row: int  # 0 = the top strip of the mat
    col: int  # 0 = the left strip
    window: Rect  # the part of the mat this page shows, in mat coordinates
    origin: tuple[float, float]  # where the mat's lower-left corner lands on the page

    @property
    def label(self) -> str:
        return f"{chr(ord('A') + self.row)}{self.col + 1}"

    def on_page(self, x: float, y: float) -> tuple[float, float]:
        """Page coordinates of mat point (x, y)."""
        return self.origin[0] + x, self.origin[1] + y


@dataclass(frozen=True)
class TilePlan:
    """How a mat larger than the paper is split into overlapping tiles, one a page."""
    page_w: float
    page_h: float
    mat_w: float
    mat_h: float
    margin: float
    overlap: float
    cols: int
    rows: int
    tiles: tuple[Tile, ...]
    marks: tuple[tuple[float, float], ...]  # alignment-mark centres, mat coordinates


def _strips(length: float, area: float, overlap: float) -> list[tuple[float, float]]:
    """(start, size) of the strips covering `length`, each at most `area`, neighbours
    sharing `overlap`."""
    if length <= area + _EPS:
        return [(0.0, length)]
    step = area - overlap
    n = math.ceil((length - overlap) / step - 1e-9)
    return [(i * step, min(area, length - i * step)) for i in range(n)]


def tile_plan(mat_w: float, mat_h: float, paper: str, margin: float = mm(10),
              overlap: float = mm(10)) -> TilePlan:
    """Tile a mat onto pages of `paper` (portrait or landscape, whichever needs fewer
    pages; portrait on a tie). Neighbouring tiles share `overlap` of the mat; alignment
    marks sit on the centre lines of every overlap so the sheets can be lined up."""
    best: TilePlan | None = None
    for landscape in (False, True):
        pw, ph = paper_size(paper, landscape)
        aw, ah = pw - 2 * margin, ph - 2 * margin
        if aw <= overlap or ah <= overlap:
            continue
        xs = _strips(mat_w, aw, overlap)
        # Rows are counted from the top of the mat, the way one reads the labels.
        ys_from_top = _strips(mat_h, ah, overlap)
        tiles: list[Tile] = []
        for r, (top_off, hgt) in enumerate(ys_from_top):
            for c, (x0, wid) in enumerate(xs):
                window = Rect(x0, mat_h - top_off - hgt, wid, hgt)
                # The window's top-left sits at the page's top-left margin corner.
                origin = (margin - window.x, ph - margin - window.top)
                tiles.append(Tile(len(tiles), r, c, window, origin))
        seams_x = [xs[i + 1][0] + overlap / 2 for i in range(len(xs) - 1)]
        seams_y = [mat_h - ys_from_top[i + 1][0] - overlap / 2 for i in range(len(ys_from_top) - 1)]
        centres_x = [x0 + w / 2 for x0, w in xs]
        centres_y = [mat_h - t - h / 2 for t, h in ys_from_top]
        marks = [(sx, cy) for sx in seams_x for cy in centres_y]
        marks += [(cx, sy) for sy in seams_y for cx in centres_x]
        marks += [(sx, sy) for sx in seams_x for sy in seams_y]
        plan = TilePlan(pw, ph, mat_w, mat_h, margin, overlap, len(xs), len(ys_from_top),
                        tuple(tiles), tuple(marks))
        if best is None or len(plan.tiles) < len(best.tiles):
            best = plan
    if best is None:
        raise ValueError(f"{paper} paper is too small to tile with a {to_mm(margin):.0f} mm margin")
    return best


# ── grids of small items (dice labels, tokens) ────────────────────────────────────


@dataclass(frozen=True)
class ItemGrid:
    """Cells of equal size laid out on a page in rows and columns (labels, tokens)."""
    cols: int
    rows: int
    cells: tuple[Rect, ...]  # reading order, top row first

    @property
    def per_page(self) -> int:
        return len(self.cells)


def item_grid(area: Rect, item_w: float, item_h: float, gap: float,
              max_cols: int | None = None) -> ItemGrid:
    """As many `item_w` x `item_h` cells as fit in `area` with `gap` between them,
    centred horizontally, from the top. ValueError if not even one fits."""
    cols = int((area.w + gap + _EPS) // (item_w + gap))
    rows = int((area.h + gap + _EPS) // (item_h + gap))
    if max_cols:
        cols = min(cols, max_cols)
    if cols <= 0 or rows <= 0:
        raise ValueError(
            f"a {to_mm(item_w):.1f} x {to_mm(item_h):.1f} mm item does not fit in "
            f"{to_mm(area.w):.1f} x {to_mm(area.h):.1f} mm")
    grid_w = cols * item_w + (cols - 1) * gap
    x0 = area.x + (area.w - grid_w) / 2
    cells = tuple(
        Rect(x0 + c * (item_w + gap), area.top - (r + 1) * item_h - r * gap, item_w, item_h)
        for r in range(rows) for c in range(cols))
    return ItemGrid(cols, rows, cells)


def chunks(items, size: int):
    """Consecutive lists of at most `size` items from any iterable, lazily."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
