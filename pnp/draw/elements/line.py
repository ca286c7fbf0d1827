"""line: an open line through its points, solid or dashed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw.elements.base import (
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
class Line(AlphaOp):
    """The drawing operation of a `line` element: a polyline, solid or dashed."""
    points: tuple[tuple[float, float], ...]
    color: Any
    width: float
    dash: Any
    alpha: float

    kind = "line"

    def paint(self, c) -> None:
        set_paint(c, None, self.color, self.width, self.alpha, self.dash)
        c.drawPath(polyline(c, self.points, closed=False), stroke=1, fill=0)
        reset_paint(c, self.alpha, self.dash)

    def as_tuple(self) -> tuple:
        return ("line", list(self.points), self.color, self.width, self.dash, self.alpha)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    return [Line(mm_points(el, "line", t), color(el["color"], "color"),
                 number(el["width"], "width"), el["dash"], number(el["alpha"], "alpha"))]


ELEMENT = Element(
    "line", __doc__,
    keys=(
        Key("points", "[[x, y], ...] mm", REQUIRED, "the points it passes through, two or "
                                                    "more"),
        Key("color", "colour", "#000000", "line colour"),
        Key("width", "pt", 0.5, "line width"),
        Key("dash", "pt or [on, off] pt", None, "dashed line"),
        Key("alpha", "0..1", 1.0, "opacity"),
    ),
    compile=compile,
    example='- line: {points: [[5, 40], [{{ W - 5 }}, 40]], width: 0.75, dash: [2, 1]}',
)
