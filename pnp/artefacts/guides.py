"""The style of the cut and fold guides on card sheets, as data: `print.cut_guides` of
cards.yaml overrides any of it, today's look is the default.

    print:
      cut_guides: {color: "#000000", width: 0.5, halo: 1.5, halo_color: "#ffffff",
                   mark_width: 0.25, dash: [2, 2]}

- `color`, `width` (pt): the core of a guide in the bleed or a gutter;
- `halo` (pt, 0 for none), `halo_color`: the line under the core, so the guide shows on
  any bleed colour (and vanishes on white paper);
- `mark_width` (pt): the crop marks outside the cards (in `color`, without halo);
- `dash` ([on, off] pt): the fold line of `--fold` sheets.

Pointers (small arrowheads pointing at a cut line, pnp.layout.geometry.strip_pointers)
are filled in `color` on a `halo` outline.

`code(guides, style)` writes them as PDF operators (a sheet's guides are the same on
every sheet of one layout, so they are written once as a literal): greys as `G`,
colours as `RG`, so the default style gives the same bytes as before it was data.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class GuideStyle:
    """How cut and fold guides are drawn: colour, width and a halo (visible on dark art)."""
    color: str = "#000000"
    width: float = 0.5
    halo: float = 1.5
    halo_color: str = "#ffffff"
    mark_width: float = 0.25
    dash: tuple[float, float] = (2.0, 2.0)


def from_profile(raw: Any) -> GuideStyle:
    """The style of a validated `print.cut_guides` mapping (missing keys: defaults)."""
    if not raw:
        return GuideStyle()
    known = {f.name for f in fields(GuideStyle)}
    given = {k: v for k, v in dict(raw).items() if k in known}
    if "dash" in given:
        given["dash"] = tuple(float(v) for v in given["dash"])
    for key in ("width", "halo", "mark_width"):
        if key in given:
            given[key] = float(given[key])
    return GuideStyle(**given)


def _stroke_colour(hex_colour: str, grey: str = "G", rgb: str = "RG") -> str:
    """The PDF operator setting `hex_colour` (stroking by default; "g"/"rg" to fill)."""
    from pnp.draw.colour import hex_bytes

    r, g, b = hex_bytes(hex_colour)
    if r == g == b:
        return f"{r / 255:g} {grey}"
    return f"{r / 255:g} {g / 255:g} {b / 255:g} {rgb}"


def code(guides: list, style: GuideStyle = GuideStyle(), dash: bool = False) -> str:
    """PDF operators for `guides` (pnp.layout.geometry.Guide): crop marks as thin lines;
    guides in the bleed as a core on a halo; dashed when `dash` (fold lines)."""
    pattern = f"[{style.dash[0]:g} {style.dash[1]:g}] 0 d " if dash else ""

    def strokes(segments, width: float, colour: str) -> str:
        if not segments or width <= 0:
            return ""
        path = " ".join(f"{s.x0:.4f} {s.y0:.4f} m {s.x1:.4f} {s.y1:.4f} l" for s in segments)
        return f"q {width:g} w {_stroke_colour(colour)} 0 J {pattern}{path} S Q\n"

    marks = [gd.segment for gd in guides if gd.kind == "mark"]
    bleed = [gd.segment for gd in guides if gd.kind not in ("mark", "pointer")]
    pointers = [gd.segment for gd in guides if gd.kind == "pointer"]
    return (strokes(marks, style.mark_width, style.color)
            + strokes(bleed, style.halo, style.halo_color)
            + strokes(bleed, style.width, style.color)
            + _pointers(pointers, style))


POINTER_HALF_WIDTH = 0.6 * 72 / 25.4   # points: half the arrowhead's base


def _pointers(segments: list, style: GuideStyle) -> str:
    """Filled arrowheads from each segment's start (the base's middle) to its end (the
    tip), on a halo outline."""
    if not segments:
        return ""
    paths = []
    for s in segments:
        dx, dy = s.x1 - s.x0, s.y1 - s.y0
        norm = (dx * dx + dy * dy) ** 0.5 or 1.0
        nx, ny = -dy / norm * POINTER_HALF_WIDTH, dx / norm * POINTER_HALF_WIDTH
        paths.append(f"{s.x0 + nx:.4f} {s.y0 + ny:.4f} m {s.x0 - nx:.4f} {s.y0 - ny:.4f} l "
                     f"{s.x1:.4f} {s.y1:.4f} l h")
    path = " ".join(paths)
    fill = _stroke_colour(style.color, "g", "rg")
    halo = (f"q {style.halo:g} w {_stroke_colour(style.halo_color)} 1 j {path} S Q\n"
            if style.halo > 0 else "")
    return halo + f"q {fill} {path} f Q\n"
