"""`pnp export cut --machine silhouette|cricut`: sheets for a cutting machine's print-then-cut.

For each deck, the build's own imposition (pnp.artefacts.build, fronts only, full bleed on every
card edge) is drawn with a printer margin that keeps every printed card out of the
machine's registration-mark zone; then, per sheet:

- `<game>/<deck>-sheet-<n>.pdf`: that sheet with the machine's registration marks added;
- `<game>/<deck>-sheet-<n>.svg`: the cut paths, one rounded rectangle per card trim, in
  mm from the page's top-left corner, read from the build's layout report (the same
  report `pnp build --json` prints), so the cuts sit where the guides are;
- `<game>/<deck>-sheet-<n>.dxf`: the same paths as DXF (pnp.exports.cut_dxf);
- `<game>/<deck>.layout.json`: that layout report.

The marks' figures are the widely published defaults of each machine's software (see
docs/PROOFS-AND-EXPORTS.md, "Cutting machines"); check them against your software's
registration-mark settings before cutting.
"""

from __future__ import annotations

import io
import json
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

INCH = 25.4
STANDARD_CORNER_MM = 3.175   # 1/8 in: the usual rounding of poker and bridge cards
CLEARANCE_MM = 1.0           # white kept between a mark's zone and the nearest ink


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
class Machine:
    name: str
    title: str

    def marks(self, page_w: float, page_h: float) -> list[Mark]:
        raise NotImplementedError

    def keep_out(self, page_w: float, page_h: float) -> float:
        """How far from every paper edge (mm) printed ink must stay: the marks and the
        white around them lie in that band, nothing else does."""
        raise NotImplementedError


@dataclass(frozen=True)
class Silhouette(Machine):
    """Silhouette Studio's registration marks, type 1 (Silhouette CAMEO/Portrait): a
    filled square at the top-left, L-shaped corners at the top-right and bottom-left."""
    inset: float = 10.0      # from the paper edges to the marks' outer edges
    square: float = 5.0
    length: float = 20.0     # each arm of an L
    thickness: float = 0.5

    def marks(self, page_w: float, page_h: float) -> list[Mark]:
        i, n, t = self.inset, self.length, self.thickness
        right, bottom = page_w - i, page_h - i
        return [Mark(i, i, self.square, self.square),
                Mark(right - n, i, n, t), Mark(right - t, i, t, n),      # top-right L
                Mark(i, bottom - t, n, t), Mark(i, bottom - n, t, n)]    # bottom-left L

    def keep_out(self, page_w: float, page_h: float) -> float:
        return self.inset + max(self.square, self.thickness) + CLEARANCE_MM


@dataclass(frozen=True)
class Cricut(Machine):
    """Cricut Design Space's Print Then Cut: the image lies within 6.75 x 9.25 in,
    centred on the sheet, framed by a black rectangle the machine's sensor finds."""
    area_w: float = 6.75 * INCH
    area_h: float = 9.25 * INCH
    gap: float = 5.0         # from the image area to the frame's inner edge
    thickness: float = 1.0   # of the frame line

    def _area(self, page_w: float, page_h: float) -> tuple[float, float]:
        return (page_w - self.area_w) / 2, (page_h - self.area_h) / 2

    def marks(self, page_w: float, page_h: float) -> list[Mark]:
        ax, ay = self._area(page_w, page_h)
        d = self.gap + self.thickness / 2
        return [Mark(ax - d, ay - d, self.area_w + 2 * d, self.area_h + 2 * d,
                     stroke=self.thickness)]

    def keep_out(self, page_w: float, page_h: float) -> float:
        return max(self._area(page_w, page_h))  # everything printed stays in the area


MACHINES: dict[str, Machine] = {
    "silhouette": Silhouette("silhouette", "Silhouette Studio, registration marks type 1"),
    "cricut": Cricut("cricut", "Cricut Design Space, Print Then Cut"),
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


def marks_pdf(m: Machine, page_w: float, page_h: float) -> bytes:
    """A one-page PDF of the page's size with only the machine's marks, pure black."""
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(page_w * mm, page_h * mm), invariant=1)
    c.setFillColorRGB(0, 0, 0)
    c.setStrokeColorRGB(0, 0, 0)
    for mark in m.marks(page_w, page_h):
        x, y = mark.x * mm, (page_h - mark.y - mark.h) * mm
        if mark.stroke:
            c.setLineWidth(mark.stroke * mm)
            c.rect(x, y, mark.w * mm, mark.h * mm, stroke=1, fill=0)
        else:
            c.rect(x, y, mark.w * mm, mark.h * mm, stroke=0, fill=1)
    c.showPage()
    c.save()
    return buf.getvalue()


# ── the export ────────────────────────────────────────────────────────────────────


def export_cut(db: Any, m: Machine, game: str | None, decks: tuple, out: Path,
               renderer: Any, fonts: dict, radius: float = STANDARD_CORNER_MM,
               paper: str | None = None) -> tuple[list[Path], list]:
    """Write each selected deck's sheets (PDF with marks, SVG of the cuts) under `out`.
    Returns (files written, layout warnings)."""
    from pypdf import PdfReader, PdfWriter

    from pnp.artefacts import build as b
    from pnp.exports.cut_dxf import write_cut_dxf
    from pnp.layout import geometry as g
    from pnp.outpaths import inside

    opts = b.options_from_profile(db.print, paper=paper, backs=False)
    page_w, page_h = (g.to_mm(v) for v in g.paper_size(opts.paper))
    # The trims lie inside the printer margin and the bleed runs up to one bleed past
    # it: so the margin is the keep-out band plus the bleed. Gutters give every card its
    # full bleed, as a machine's cut lands within about a millimetre of the line.
    margin = m.keep_out(page_w, page_h) + opts.bleed_mm
    opts = replace(opts, printer_margin_mm=margin, layout="gutters", crop_marks=False)
    chosen = [a for a in b.artefacts(db, game=game) if a.kind == b.DECK
              and (not decks or a.deck in decks)]
    unknown = set(decks) - {a.deck for a in chosen}
    if unknown:
        raise CutError(f"unknown deck {sorted(unknown)[0]!r}"
                       + (f" in game {game!r}" if game else ""), 2)
    for art in chosen:                  # every name checked before anything is drawn
        inside(inside(out, art.game), f"{art.name}-sheet-1.pdf")
    files: list[Path] = []
    warnings: list = []
    with tempfile.TemporaryDirectory(prefix="pnp-cut-") as tmp:
        for art in chosen:
            try:
                result = b.build_artefact(db, art, opts, renderer, fonts, Path(tmp))
            except b.BuildError as exc:
                raise CutError(f"{exc} (with the {m.name} marks' {margin:.1f} mm margin)",
                               1) from None
            warnings += result.warnings
            report = json.loads(art.layout_path(Path(tmp)).read_text(encoding="utf-8"))
            pages = report["artefacts"][0]["pages"]
            folder = inside(out, art.game)
            folder.mkdir(parents=True, exist_ok=True)
            for old in folder.glob(f"{art.name}-sheet-*"):  # a deck that shrank: no stale sheet
                if old.suffix in (".pdf", ".svg", ".dxf") and old.stem[len(art.name) + 7:].isdigit():
                    old.unlink()
            reader = PdfReader(result.path)
            for page, pdf_page in zip(pages, reader.pages, strict=True):
                stem = f"{art.name}-sheet-{page['page']}"
                w, h = page["size_mm"]
                marks = PdfReader(io.BytesIO(marks_pdf(m, w, h))).pages[0]
                writer = PdfWriter()
                writer.add_page(pdf_page).merge_page(marks)
                writer.add_metadata({"/Title": f"{art.title}, sheet {page['page']} "
                                     f"({m.title})", "/Producer": "pnp"})
                pdf_path = inside(folder, f"{stem}.pdf")
                part = pdf_path.with_name(pdf_path.name + ".part")
                with open(part, "wb") as fh:
                    writer.write(fh)
                part.replace(pdf_path)
                svg_path = inside(folder, f"{stem}.svg")
                svg_path.write_text(cut_svg(page, radius), encoding="utf-8")
                files += [pdf_path, svg_path,
                          write_cut_dxf(svg_path.with_suffix(".dxf"), page, radius)]
            layout_path = inside(folder, f"{art.name}.layout.json")
            layout_path.write_text(json.dumps({"machine": m.name, "corner_radius_mm": radius,
                                               "pages": pages}, indent=1) + "\n",
                                   encoding="utf-8")
            files.append(layout_path)
    return files, warnings


def run(db: Any, machine_name: str | None, game: str | None, decks: tuple, cards: tuple,
        out: Path, radius: float | None, notify: Any = None) -> tuple[list[Path], list]:
    """The `pnp export cut` command's work, its refusals as one-line PnpErrors (the
    caller wraps it in pnp.cli.support.one_line_errors for renderer and file problems);
    `notify(line)` gets the font notices."""
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
        fonts = register_fonts(db.print.fonts, db.root, notify=notify)
        return export_cut(db, m, game, decks, out, CardRenderer(db, fonts), fonts, radius)
    except (CutError, BuildError) as exc:
        raise PnpError(str(exc), exc.exit_code) from None
