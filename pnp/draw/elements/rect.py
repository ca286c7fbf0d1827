"""rect: a rectangle, filled and/or outlined, square or rounded; with `bleed: true` it
runs out into the bleed wherever it touches the trim edge (backgrounds)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw.elements.base import (
    MM,
    REQUIRED,
    AlphaOp,
    Element,
    Key,
    Op,
    color,
    mm_box,
    number,
    reset_paint,
    set_paint,
)


@dataclass(frozen=True, slots=True, repr=False)
class Rect(AlphaOp):
    """The drawing operation of a `rect` element."""
    box: tuple[float, float, float, float]     # points: x, y (lower left), w, h
    fill: Any
    stroke: Any
    width: float
    radius: float                              # points
    alpha: float
    dash: Any

    kind = "rect"

    def paint(self, c) -> None:
        x, y, w, h = self.box
        fill, stroke = self.fill, self.stroke
        set_paint(c, fill, stroke, self.width, self.alpha, self.dash)
        if self.radius > 0:
            c.roundRect(x, y, w, h, self.radius, stroke=stroke is not None,
                        fill=fill is not None)
        else:
            c.rect(x, y, w, h, stroke=stroke is not None, fill=fill is not None)
        reset_paint(c, self.alpha, self.dash)

    def as_tuple(self) -> tuple:
        return ("rect", self.box, self.fill, self.stroke, self.width, self.radius,
                self.alpha, self.dash)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    return [Rect(mm_box(el, t), color(el["fill"], "fill"), color(el["stroke"], "stroke"),
                 number(el["width"], "width"), number(el["radius"], "radius") * t.scale * MM,
                 number(el["alpha"], "alpha"), el["dash"])]


def edge_paint(el: dict[str, Any]) -> tuple[tuple, bool]:
    paint = ("fill", str(el["fill"]).lower(), float(el["alpha"]))
    return paint, paint[2] >= 1 and el.get("fill") is not None


ELEMENT = Element(
    "rect", __doc__,
    keys=(
        Key("box", "[x, y, w, h] mm", REQUIRED, "top-left corner and size"),
        Key("fill", "colour", None, "fill colour (none: not filled)"),
        Key("stroke", "colour", None, "outline colour (none: no outline)"),
        Key("width", "pt", 0.5, "outline width"),
        Key("radius", "mm", 0.0, "corner rounding"),
        Key("bleed", "bool", False, "grow into the bleed on each side touching the trim"),
        Key("alpha", "0..1", 1.0, "opacity (a translucent shape is redrawn on every card: "
                                  "prefer an opaque `tint`)"),
        Key("dash", "pt or [on, off] pt", None, "dashed outline"),
    ),
    compile=compile, edge_paint=edge_paint,
    example='- rect: {box: [0, 0, {{ W }}, {{ H }}], fill: "#1d5c8c", bleed: true}',
)
