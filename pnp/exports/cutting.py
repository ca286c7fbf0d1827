"""`pnp export cut --machine silhouette|cricut`: sheets for a cutting machine's print-then-cut.

Each machine has a registered area: the part of the sheet its marks let it cut, less the
white kept around the marks (`Machine.areas`). The deck's fronts are laid out as densely
as that area allows (issue 22 item 8): portrait or landscape paper, whichever area holds
the most cards, each card with a gutter of two bleeds around it so no neighbour shares a
cut line; the bleed is the deck's (`print.bleed_mm`) unless that would cost a card, then
as much as the densest grid leaves (`--bleed MM` fixes it instead, and the grid is the
densest for that bleed). Then, per sheet:

- `<game>/<deck>-sheet-<n>.pdf`: the cards, drawn by the build's renderer, and the
  machine's registration marks;
- `<game>/<deck>-sheet-<n>.svg`: the cut paths, one rounded rectangle per card trim, in
  mm from the page's top-left corner, read from the sheet's layout report, so the cuts
  sit where the cards are printed;
- `<game>/<deck>-sheet-<n>.dxf`: the same paths as DXF (pnp.exports.cut_dxf);
- `<game>/<deck>.layout.json`: that layout report (as `pnp build --json`'s), with the
  machine, orientation, grid and bleed.

The marks' figures and the areas are in docs/PROOFS-AND-EXPORTS.md, "Cutting machines";
check them against your software's registration-mark settings before cutting.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from pnp.exports import staging

INCH = 25.4
STANDARD_CORNER_MM = 3.175   # 1/8 in: the usual rounding of poker and bridge cards
CLEARANCE_MM = 1.0           # white kept between a mark and the nearest ink
_EPS = 1e-6


@dataclass(frozen=True)
class Mark:
    """A filled rectangle (x, y, w, h) in mm from the page's top-left corner; `stroke`
    > 0 draws its outline that thick instead (the line centred on the rectangle)."""
    x: float
    y: float
    w: float
    h: float
    stroke: float = 0.0


@dataclass(frozen=True)
class Area:
    """Where printed cards may lie (their bleed included): mm from the top-left."""
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Machine:
    name: str
    title: str
    landscape: bool = True   # the machine takes the sheet either way round

    def marks(self, page_w: float, page_h: float) -> list[Mark]:
        raise NotImplementedError

    def areas(self, page_w: float, page_h: float) -> list[Area]:
        """The machine's registered area as rectangles the cards' grid may fill: inside
        the marks' reach, clear of every mark by CLEARANCE_MM."""
        raise NotImplementedError


@dataclass(frozen=True)
class Silhouette(Machine):
    """Silhouette Studio's registration marks, type 1 (CAMEO / Portrait): a filled square
    at the top-left, L-shaped corners at the top-right and bottom-left, as Silhouette
    Studio prints them for silhouette-card-maker's cutting templates (measured from its
    assets/letter_registration.pdf and a4_registration.pdf)."""
    inset: float = 9.5       # from the paper edges to the marks' outer edges
    square: float = 6.0
    length: float = 8.2      # each arm of an L
    thickness: float = 1.0

    def marks(self, page_w: float, page_h: float) -> list[Mark]:
        i, n, t = self.inset, self.length, self.thickness
        right, bottom = page_w - i, page_h - i
        return [Mark(i, i, self.square, self.square),
                Mark(right - n, i, n, t), Mark(right - t, i, t, n),      # top-right L
                Mark(i, bottom - t, n, t), Mark(i, bottom - n, t, n)]    # bottom-left L

    def areas(self, page_w: float, page_h: float) -> list[Area]:
        # The machine cuts between its marks (inset to inset). The marks sit in three
        # corners, so the cards keep clear of them either as rows (the top and bottom
        # bands of the marks left white) or as columns (the left and right bands).
        i = self.inset
        band = i + max(self.square, self.length) + CLEARANCE_MM
        return [Area(i, band, page_w - 2 * i, page_h - 2 * band),
                Area(band, i, page_w - 2 * band, page_h - 2 * i)]


@dataclass(frozen=True)
class Cricut(Machine):
    """Cricut Design Space's Print Then Cut: the image lies within 6.75 x 9.25 in,
    centred on the sheet, framed by a black rectangle the machine's sensor finds. The
    sheet goes in portrait."""
    area_w: float = 6.75 * INCH
    area_h: float = 9.25 * INCH
    gap: float = 5.0         # from the image area to the frame's inner edge
    thickness: float = 1.0   # of the frame line

    def _origin(self, page_w: float, page_h: float) -> tuple[float, float]:
        return (page_w - self.area_w) / 2, (page_h - self.area_h) / 2

    def marks(self, page_w: float, page_h: float) -> list[Mark]:
        ax, ay = self._origin(page_w, page_h)
        d = self.gap + self.thickness / 2
        return [Mark(ax - d, ay - d, self.area_w + 2 * d, self.area_h + 2 * d,
                     stroke=self.thickness)]

    def areas(self, page_w: float, page_h: float) -> list[Area]:
        ax, ay = self._origin(page_w, page_h)
        return [Area(ax, ay, self.area_w, self.area_h)]


MACHINES: dict[str, Machine] = {
    "silhouette": Silhouette("silhouette", "Silhouette Studio, registration marks type 1"),
    "cricut": Cricut("cricut", "Cricut Design Space, Print Then Cut", landscape=False),
}


class CutError(Exception):
    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


def machine(name: str) -> Machine:
    try:
        return MACHINES[name]
    except KeyError:
        raise CutError(f"unknown cutting machine {name!r} (choose "
                       f"{', '.join(MACHINES)})", 2) from None


# ── the sheet ─────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class CutSheet:
    """One machine's imposition of one card size: the page (mm, as it goes into the
    printer), the grid and the bleed every card keeps on each edge; `trims` in reading
    order, (x, y, w, h) mm from the page's top-left."""
    page_w: float
    page_h: float
    landscape: bool
    cols: int
    rows: int
    bleed: float
    trims: tuple[tuple[float, float, float, float], ...]

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows


def _fit(length: float, card: float, bleed: float) -> int:
    return max(0, math.floor((length + _EPS) / (card + 2 * bleed)))


def cut_sheet(m: Machine, paper_mm: tuple[float, float], card_w: float, card_h: float,
              bleed: float, fixed: bool = False) -> CutSheet:
    """The densest grid of card_w x card_h cards (mm) inside `m`'s registered area on
    the paper (portrait (w, h), or turned when the machine allows): each card painted
    `bleed` past its trim on every side, grids of cards with gutters of two bleeds. Not
    `fixed`: the count is the most that fit with any bleed, the bleed `bleed` or, where
    that costs a card, the most that count leaves; `fixed`: exactly `bleed`. Ties go to
    the larger bleed, then to portrait. ValueError when no card fits."""
    best: tuple | None = None
    pw, ph = paper_mm
    for landscape in (False, True) if m.landscape else (False,):
        page = (ph, pw) if landscape else (pw, ph)
        for area in m.areas(*page):
            if fixed:
                b = bleed
                cols, rows = _fit(area.w, card_w, b), _fit(area.h, card_h, b)
            else:
                cols, rows = _fit(area.w, card_w, 0), _fit(area.h, card_h, 0)
                if not cols or not rows:
                    continue
                b = min(bleed, (area.w / cols - card_w) / 2, (area.h / rows - card_h) / 2)
                b = math.floor(b * 1000 + _EPS) / 1000    # to the micrometre, never more
            if not cols or not rows:
                continue
            key = (cols * rows, b, not landscape)
            if best is None or key > best[0]:
                best = (key, page, landscape, area, cols, rows, b)
    if best is None:
        raise ValueError(f"a {card_w:g} x {card_h:g} mm card"
                         + (f" with {bleed:g} mm bleed" if fixed else "")
                         + f" does not fit inside the {m.name} marks' registered area on "
                         f"a {pw:g} x {ph:g} mm sheet")
    _, page, landscape, area, cols, rows, b = best
    cell_w, cell_h = card_w + 2 * b, card_h + 2 * b
    x0 = area.x + (area.w - cols * cell_w) / 2 + b
    y0 = area.y + (area.h - rows * cell_h) / 2 + b
    trims = tuple((round(x0 + c * cell_w, 4), round(y0 + r * cell_h, 4), card_w, card_h)
                  for r in range(rows) for c in range(cols))
    return CutSheet(page[0], page[1], landscape, cols, rows, b, trims)


# ── the cut paths ─────────────────────────────────────────────────────────────────


def cut_svg(page: dict, radius: float) -> str:
    """An SVG of one page of the layout report: the page's size in mm (viewBox in mm),
    a rounded rectangle per card trim, named after the card."""
    w, h = page["size_mm"]
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}mm" height="{h:g}mm" '
             f'viewBox="0 0 {w:g} {h:g}">',
             '<g id="cut" fill="none" stroke="#ff0000" stroke-width="0.25">']
    for k, card in enumerate(page["cards"], 1):
        x, y, cw, ch = card["trim_mm"]
        r = min(radius, cw / 2, ch / 2)
        lines.append(f'<rect id="cut-{k}" x="{x:g}" y="{y:g}" width="{cw:g}" '
                     f'height="{ch:g}" rx="{r:g}" ry="{r:g}">'
                     f'<title>{escape(card["name"])}</title></rect>')
    lines += ["</g>", "</svg>", ""]
    return "\n".join(lines)


# ── the marks ─────────────────────────────────────────────────────────────────────


def draw_marks(c: Any, m: Machine, page_w: float, page_h: float) -> None:
    """The machine's marks on the canvas page (page size in mm), pure black."""
    from reportlab.lib.units import mm

    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    c.setStrokeColorRGB(0, 0, 0)
    for mark in m.marks(page_w, page_h):
        x, y = mark.x * mm, (page_h - mark.y - mark.h) * mm
        if mark.stroke:
            c.setLineWidth(mark.stroke * mm)
            c.rect(x, y, mark.w * mm, mark.h * mm, stroke=1, fill=0)
        else:
            c.rect(x, y, mark.w * mm, mark.h * mm, stroke=0, fill=1)
    c.restoreState()


# ── the export ────────────────────────────────────────────────────────────────────


def _chunks(items, size: int):
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _write_sheet(path: Path, sheet: CutSheet, m: Machine, batch: list, deck: Any,
                 renderer: Any, fonts: dict, draw_bleed: float, title: str) -> list:
    """One sheet's PDF (atomically); the renderer's warnings."""
    from reportlab.lib.units import mm

    from pnp.draw.pdf import open_canvas

    part = staging.part(path)
    c = open_canvas(part, (sheet.page_w * mm, sheet.page_h * mm), title=title,
                    font=fonts["regular"], subject=f"{len(batch)} cards for {m.title}")
    warnings: list = []
    b = sheet.bleed
    try:
        for (x, y, w, h), (_, card) in zip(sheet.trims, batch, strict=False):
            left, bottom = x * mm, (sheet.page_h - y - h) * mm
            c.saveState()
            c.addLiteral(f"{left - b * mm:.4f} {bottom - b * mm:.4f} {(w + 2 * b) * mm:.4f} "
                         f"{(h + 2 * b) * mm:.4f} re W n")
            warnings += list(renderer.draw_front(c, card, deck, left, bottom, w * mm, h * mm,
                                                 draw_bleed * mm) or [])
            c.restoreState()
        draw_marks(c, m, sheet.page_w, sheet.page_h)
        c.showPage()
        c.save()
        staging.place(part, path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return warnings


def export_cut(db: Any, m: Machine, game: str | None, decks: tuple, out: Path,
               renderer: Any, fonts: dict, radius: float = STANDARD_CORNER_MM,
               paper: str | None = None, bleed: float | None = None,
               notify: Any = None) -> tuple[list[Path], list]:
    """Write each selected deck's sheets (PDF with marks, SVG and DXF of the cuts) under
    `out`; `bleed` (mm) fixes the bleed, else the densest grid keeps what it can of the
    deck's. `notify(line)` hears each deck's grid. Returns (files written, warnings)."""
    from pnp.artefacts import build as b
    from pnp.exports.cut_dxf import write_cut_dxf
    from pnp.layout import geometry as g
    from pnp.outpaths import inside

    opts = b.options_from_profile(db.print, paper=paper, backs=False)
    paper_mm = g.PAPERS_MM[opts.paper]
    chosen = [a for a in b.artefacts(db, game=game) if a.deck is not None
              and (not decks or a.deck in decks)]
    unknown = set(decks) - {a.deck for a in chosen}
    if unknown:
        raise CutError(f"unknown deck {sorted(unknown)[0]!r}"
                       + (f" in game {game!r}" if game else ""), 2)
    sheets: dict[str, CutSheet] = {}
    for art in chosen:                  # everything checked before anything is drawn
        inside(inside(out, art.game), f"{art.name}-sheet-1.pdf")
        b.check_images(db, art)
        deck = db.games[art.game].decks[art.deck]
        card_w, card_h = deck.size_mm
        try:
            sheets[art.name] = cut_sheet(m, paper_mm, card_w, card_h,
                                         opts.bleed_mm if bleed is None else bleed,
                                         fixed=bleed is not None)
        except ValueError as exc:
            raise CutError(f"{deck.source}: deck {deck.id!r}: {exc}", 1) from None
    files: list[Path] = []
    warnings: list = []
    for art in chosen:
        deck = db.games[art.game].decks[art.deck]
        sheet = sheets[art.name]
        if notify is not None:
            kept = ("" if bleed is not None or sheet.bleed >= opts.bleed_mm - _EPS else
                    f", less than print.bleed_mm {opts.bleed_mm:g} to fit them (--bleed MM)")
            notify(f"{art.game}/{art.name}: {sheet.per_sheet} cards a sheet ({sheet.cols} x "
                   f"{sheet.rows}, {opts.paper} {'landscape' if sheet.landscape else 'portrait'}"
                   f"), bleed {sheet.bleed:g} mm{kept}")
        folder = inside(out, art.game)
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob(f"{art.name}-sheet-*"):  # a deck that shrank: no stale sheet
            if old.suffix in (".pdf", ".svg", ".dxf") and old.stem[len(art.name) + 7:].isdigit():
                staging.remove(old)
        pages = []
        draw_bleed = max(opts.bleed_mm, sheet.bleed)
        for n, batch in enumerate(_chunks(b.deck_cards(deck), sheet.per_sheet), 1):
            stem = f"{art.name}-sheet-{n}"
            pdf_path = inside(folder, f"{stem}.pdf")
            warnings += _write_sheet(pdf_path, sheet, m, batch, deck, renderer, fonts,
                                     draw_bleed, f"{art.title}, sheet {n} ({m.title})")
            page = {"page": n, "size_mm": [round(sheet.page_w, 3), round(sheet.page_h, 3)],
                    "side": "front",
                    "cards": [{"name": card.name, "trim_mm": [round(v, 3) for v in trim]}
                              for trim, (_, card) in zip(sheet.trims, batch, strict=False)]}
            pages.append(page)
            svg_path = inside(folder, f"{stem}.svg")
            staging.target(svg_path).write_text(cut_svg(page, radius), encoding="utf-8")
            files += [pdf_path, svg_path,
                      write_cut_dxf(svg_path.with_suffix(".dxf"), page, radius)]
        layout_path = inside(folder, f"{art.name}.layout.json")
        staging.target(layout_path).write_text(json.dumps({
            "machine": m.name, "corner_radius_mm": radius, "paper": opts.paper,
            "orientation": "landscape" if sheet.landscape else "portrait",
            "grid": [sheet.cols, sheet.rows], "per_sheet": sheet.per_sheet,
            "bleed_mm": sheet.bleed, "pages": pages}, indent=1) + "\n", encoding="utf-8")
        files.append(layout_path)
    return files, warnings


def run(db: Any, machine_name: str | None, game: str | None, decks: tuple, cards: tuple,
        out: Path, radius: float | None, notify: Any = None,
        bleed: float | None = None, report: Any = None) -> tuple[list[Path], list]:
    """The `pnp export cut` command's work, its refusals as one-line PnpErrors (the
    caller wraps it in pnp.cli.support.one_line_errors for renderer and file problems);
    `notify(line)` gets the font notices, `report(line)` each deck's grid."""
    from pnp.artefacts.build import BuildError
    from pnp.draw.fonts import register_fonts
    from pnp.draw.render import CardRenderer
    from pnp.errors import PnpError

    if machine_name is None:
        raise PnpError(f"cut needs --machine ({', '.join(MACHINES)})", 2)
    if cards:
        raise PnpError("cut imposes whole decks: use --deck, not --card", 2)
    try:
        m = machine(machine_name)
        if radius is None:
            radius = float(getattr(db.print, "corner_radius_mm", STANDARD_CORNER_MM))
        if not 0 <= radius <= 20:
            raise CutError(f"--corner-radius {radius:g} mm must be from 0 to 20 mm", 2)
        if bleed is not None and not 0 <= bleed <= 10:
            raise CutError(f"--bleed {bleed:g} mm must be from 0 to 10 mm", 2)
        fonts = register_fonts(db.print.fonts, db.root, notify=notify)
        return export_cut(db, m, game, decks, out, CardRenderer(db, fonts), fonts, radius,
                          bleed=bleed, notify=report)
    except (CutError, BuildError) as exc:
        raise PnpError(str(exc), exc.exit_code) from None
