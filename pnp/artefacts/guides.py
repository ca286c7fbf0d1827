"""The cut guides' style: data, with the look pnp has always printed as its defaults.

Crop marks (outside the bleed) are hairlines; guides running through the bleed are a
core line on a white halo, so they show on any bleed colour; fold lines are dashed.
cards.yaml may restyle them (validated by carddb):

    print:
      cut_guides: {color: "#ff00ff", width: 0.3, halo: 0, dash: [3, 2]}

color: the core's and the crop marks' colour; width: the core's width in points; halo:
the white halo's width in points (0: none); dash: the cut guides' dash pattern in points
([] or absent: solid; fold lines keep their own dash).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HAIRLINE = 0.25  # points: crop marks
FOLD_DASH = (2.0, 2.0)


@dataclass(frozen=True)
class GuideStyle:
    color: str = "#000000"
    width: float = 0.5                 # the core of a guide in the bleed, points
    halo: float = 1.5                  # its white halo, points (0: none)
    dash: tuple[float, ...] = ()       # cut guides' dash pattern (empty: solid)

    @classmethod
    def of(cls, settings: Any) -> GuideStyle:
        """The style of a `print.cut_guides` mapping (already validated; missing keys keep
        the defaults)."""
        data = dict(settings or {})
        base = cls()
        return cls(color=str(data.get("color", base.color)),
                   width=float(data.get("width", base.width)),
                   halo=float(data.get("halo", base.halo)),
                   dash=tuple(float(v) for v in data.get("dash", base.dash) or ()))


def _stroke_colour(hex_colour: str) -> str:
    """The PDF stroke-colour operator: a grey as `g G` (as pnp always wrote black)."""
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    r, g, b = (int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))
    if r == g == b:
        return f"{round(r, 4):g} G"
    return f"{round(r, 4):g} {round(g, 4):g} {round(b, 4):g} RG"


def guide_code(guides: list, style: GuideStyle | None = None, fold: bool = False) -> str:
    """PDF operators for cut guides (`pnp.layout.geometry.Guide`s): crop marks as
    hairlines; guides in the bleed as a core on a halo. Written as literal operators (a
    sheet's guides are the same on every sheet of that layout). `fold`: fold lines."""
    style = style or GuideStyle()
    dash = FOLD_DASH if fold else style.dash
    pattern = f"[{' '.join(f'{d:g}' for d in dash)}] 0 d " if dash else ""
    ink = _stroke_colour(style.color)

    def strokes(segments, width: float, colour: str) -> str:
        if not segments or width <= 0:
            return ""
        path = " ".join(f"{s.x0:.4f} {s.y0:.4f} m {s.x1:.4f} {s.y1:.4f} l" for s in segments)
        return f"q {width:g} w {colour} 0 J {pattern}{path} S Q\n"

    marks = [gd.segment for gd in guides if gd.kind == "mark"]
    bleed = [gd.segment for gd in guides if gd.kind != "mark"]
    return (strokes(marks, HAIRLINE, ink) + strokes(bleed, style.halo, "1 G")
            + strokes(bleed, style.width, ink))
