"""Print geometry: pure functions, no ReportLab.

Every length here is in PostScript points (1/72 in) with the origin at the lower-left of
the page, the way ReportLab and PDF count. Convert from millimetres with `mm()`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

PT_PER_MM = 72 / 25.4

PAPERS_MM: dict[str, tuple[float, float]] = {
    "letter": (215.9, 279.4),
    "a4": (210.0, 297.0),
}
DUPLEX_MODES = ("long-edge", "short-edge")

# Crop marks start this far outside the outer bleed edge (so a mark never touches the
# printed card) and run towards the paper edge for at most MARK_LENGTH.
MARK_GAP = 0.5 * PT_PER_MM
MARK_LENGTH = 6.0 * PT_PER_MM
MIN_MARK_LENGTH = 2.0 * PT_PER_MM
# Room a sheet must keep outside its outer bleed, on each side, for the crop marks.
MARK_MARGIN = MARK_GAP + MIN_MARK_LENGTH

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

    @property
    def area(self) -> Rect:
        return self.trim.grow(self.bleed)


@dataclass(frozen=True)
class Segment:
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

    @property
    def per_sheet(self) -> int:
        return len(self.slots)

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


def _fit_axis(paper: float, card: float, bleed: float) -> tuple[int, float]:
    """How many cards fit along one axis and the gutter between them.

    The count comes first: it is the most cards that fit abutting, with bleed on the
    two outer edges and room for crop marks. A gutter of two bleeds is used only if it
    costs no card."""
    usable = paper - 2 * (bleed + MARK_MARGIN)
    n = int((usable + _EPS) // card) if card > 0 else 0
    if n <= 0:
        return 0, 0.0
    with_gutter = n * card + (n - 1) * 2 * bleed
    return n, (2 * bleed if with_gutter <= usable + _EPS else 0.0)


def card_sheet(page_w: float, page_h: float, card_w: float, card_h: float,
               bleed: float) -> Sheet:
    """Lay out as many cards as fit, centred on the page.

    Each axis is decided alone: where a gutter of two bleeds would cost a column (row),
    the columns (rows) abut on shared cut lines and only the outer edges keep bleed;
    otherwise every card keeps its full bleed. Raises ValueError if no card fits."""
    cols, gx = _fit_axis(page_w, card_w, bleed)
    rows, gy = _fit_axis(page_h, card_h, bleed)
    if cols == 0 or rows == 0:
        raise ValueError(
            f"a {to_mm(card_w):.1f} x {to_mm(card_h):.1f} mm card with "
            f"{to_mm(bleed):.2f} mm bleed does not fit on a "
            f"{to_mm(page_w):.1f} x {to_mm(page_h):.1f} mm page")
    grid_w = cols * card_w + (cols - 1) * gx
    grid_h = rows * card_h + (rows - 1) * gy
    x0 = (page_w - grid_w) / 2
    top = page_h - (page_h - grid_h) / 2
    slots = []
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
    return Sheet(page_w, page_h, card_w, card_h, bleed, cols, rows, gx, gy, tuple(slots))


def crop_marks(sheet: Sheet) -> list[Segment]:
    """Crop-mark segments: every vertical trim line gets a mark in the top and bottom
    margins, every horizontal trim line one in the left and right margins. Each starts
    MARK_GAP outside the outer bleed and stops at the paper edge, so none crosses a card."""
    ext = sheet.extent
    marks: list[Segment] = []
    below = ext.y - MARK_GAP
    above = ext.top + MARK_GAP
    for x in sheet.cut_xs:
        marks.append(Segment(x, below, x, max(0.0, below - MARK_LENGTH)))
        marks.append(Segment(x, above, x, min(sheet.page_h, above + MARK_LENGTH)))
    left = ext.x - MARK_GAP
    right = ext.right + MARK_GAP
    for y in sheet.cut_ys:
        marks.append(Segment(left, y, max(0.0, left - MARK_LENGTH), y))
        marks.append(Segment(right, y, min(sheet.page_w, right + MARK_LENGTH), y))
    return marks


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


# ── fold-and-glue ─────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class FoldPair:
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


def fold_sheet(paper: str, card_w: float, card_h: float, bleed: float) -> FoldSheet:
    """The fold layout holding the most pairs: portrait or landscape paper, the back to
    the right of the front (preferred on ties: nothing turned) or below it."""
    best: FoldSheet | None = None
    for landscape in (False, True):
        pw, ph = paper_size(paper, landscape)
        for axis in ("vertical", "horizontal"):
            pair_w, pair_h = (2 * card_w, card_h) if axis == "vertical" else (card_w, 2 * card_h)
            try:
                grid = card_sheet(pw, ph, pair_w, pair_h, bleed)
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


def fold_marks(fold: FoldSheet) -> list[Segment]:
    """Short marks in the margins that extend each fold line (drawn dashed)."""
    ext = fold.grid.extent
    out: list[Segment] = []
    seen: set[float] = set()
    for pair in fold.pairs:
        f = pair.fold
        if fold.axis == "vertical":
            key = round(f.x0, 3)
            if key in seen:
                continue
            seen.add(key)
            out.append(Segment(f.x0, ext.y - MARK_GAP, f.x0, max(0.0, ext.y - MARK_GAP - MARK_LENGTH)))
            out.append(Segment(f.x0, ext.top + MARK_GAP,
                               f.x0, min(fold.grid.page_h, ext.top + MARK_GAP + MARK_LENGTH)))
        else:
            key = round(f.y0, 3)
            if key in seen:
                continue
            seen.add(key)
            out.append(Segment(ext.x - MARK_GAP, f.y0, max(0.0, ext.x - MARK_GAP - MARK_LENGTH), f.y0))
            out.append(Segment(ext.right + MARK_GAP, f.y0,
                               min(fold.grid.page_w, ext.right + MARK_GAP + MARK_LENGTH), f.y0))
    return out


# ── tiling a large mat ────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Tile:
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
        tiles = []
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
