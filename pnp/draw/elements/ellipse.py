"""ellipse: an ellipse (a circle in a square box), filled and/or outlined."""

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
    mm_box,
    number,
    reset_paint,
    set_paint,
)


@dataclass(frozen=True, slots=True, repr=False)
class Ellipse(AlphaOp):
    """The drawing operation of an `ellipse` element."""
    box: tuple[float, float, float, float]
    fill: Any
    stroke: Any
    width: float
    alpha: float

    kind = "ellipse"

    def paint(self, c) -> None:
        x, y, w, h = self.box
        set_paint(c, self.fill, self.stroke, self.width, self.alpha, None)
        c.ellipse(x, y, x + w, y + h, stroke=self.stroke is not None,
                  fill=self.fill is not None)
        reset_paint(c, self.alpha, None)

    def as_tuple(self) -> tuple:
        return ("ellipse", self.box, self.fill, self.stroke, self.width, self.alpha)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    return [Ellipse(mm_box(el, t), color(el["fill"], "fill"), color(el["stroke"], "stroke"),
                    number(el["width"], "width"), number(el["alpha"], "alpha"))]


ELEMENT = Element(
    "ellipse", __doc__,
    keys=(
        Key("box", "[x, y, w, h] mm", REQUIRED, "the box the ellipse fills"),
        *PAINT_KEYS,
    ),
    compile=compile,
    example='- ellipse: {box: [10, 10, 20, 20], stroke: "#000000", width: 1}',
)
