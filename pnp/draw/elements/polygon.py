"""polygon: a closed shape through its points, filled and/or outlined."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw.elements.base import (
    PAINT_KEYS,
    REQUIRED,
    AlphaOp,
    Element,
    Key,
    Op,
    color,
    mm_points,
    number,
    polyline,
    reset_paint,
    set_paint,
)


@dataclass(frozen=True, slots=True, repr=False)
class Polygon(AlphaOp):
    """The drawing operation of a `polygon` element."""
    points: tuple[tuple[float, float], ...]
    fill: Any
    stroke: Any
    width: float
    alpha: float

    kind = "polygon"

    def paint(self, c) -> None:
        set_paint(c, self.fill, self.stroke, self.width, self.alpha, None)
        c.drawPath(polyline(c, self.points, closed=True), stroke=self.stroke is not None,
                   fill=self.fill is not None)
        reset_paint(c, self.alpha, None)

    def as_tuple(self) -> tuple:
        return ("polygon", list(self.points), self.fill, self.stroke, self.width,
                self.alpha)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    return [Polygon(mm_points(el, "polygon", t), color(el["fill"], "fill"),
                    color(el["stroke"], "stroke"), number(el["width"], "width"),
                    number(el["alpha"], "alpha"))]


ELEMENT = Element(
    "polygon", __doc__,
    keys=(
        Key("points", "[[x, y], ...] mm", REQUIRED, "the corners, two or more"),
        *PAINT_KEYS,
    ),
    compile=compile,
    example='- polygon: {points: [[5, 5], [15, 5], [10, 14]], fill: "#c62828"}',
)
