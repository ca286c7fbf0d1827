"""ribbon: a band of diagonal stripes across a box, with an optional caption on it
(a card's "PROTOTYPE" or "EXPANSION" ribbon)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw.elements.base import (
    REQUIRED,
    Element,
    ElementError,
    Key,
    Op,
    color,
    mm_box,
    number,
    numbers,
)
from pnp.draw.elements.text import text_ops


@dataclass(frozen=True, slots=True, repr=False)
class Stripes(Op):
    box: tuple[float, float, float, float]   # points, bottom-left origin
    a: Any
    b: Any
    width: float                             # points, of one stripe

    kind = "ribbon"

    def paint(self, c) -> None:
        x, y, w, h = self.box
        c.saveState()
        path = c.beginPath()
        path.rect(x, y, w, h)
        c.clipPath(path, stroke=0, fill=0)
        c.setFillColor(self.a)
        c.rect(x, y, w, h, stroke=0, fill=1)
        c.setFillColor(self.b)
        left = x - h
        while left < x + w:  # parallelograms leaning right, every other stripe
            stripe = c.beginPath()
            stripe.moveTo(left, y)
            stripe.lineTo(left + self.width, y)
            stripe.lineTo(left + self.width + h, y + h)
            stripe.lineTo(left + h, y + h)
            stripe.close()
            c.drawPath(stripe, stroke=0, fill=1)
            left += 2 * self.width
        c.restoreState()

    def as_tuple(self) -> tuple:
        return ("ribbon", self.box, self.a, self.b, self.width)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    stripe = number(el["stripe"], "stripe")
    if not 0.5 <= stripe <= 50:
        raise ElementError(f"ribbon: stripe must be 0.5..50 mm, got {stripe!r}")
    ops: list[Op] = [Stripes(mm_box(el, t), color(el["a"], "a"), color(el["b"], "b"),
                             stripe * 72 / 25.4)]
    if el["caption"]:
        ops += text_ops(r, el["caption"], numbers(el["box"], 4, "box"), r.font_role("bold"), 9, 6, "center",
                        "middle", 1.2, color(el["ink"], "ink"), False, warn, "ribbon caption")
    return ops


ELEMENT = Element(
    "ribbon", __doc__,
    keys=(Key("box", "[x, y, w, h] mm", REQUIRED, "where"),
          Key("a", "colour", "#f2c200", "the band's colour"),
          Key("b", "colour", "#1a1a1a", "the stripes' colour"),
          Key("stripe", "mm", 2, "the width of one stripe"),
          Key("caption", "text", "", "a caption on the band"),
          Key("ink", "colour", "#ffffff", "the caption's colour")),
    compile=compile,
    example='- ribbon: {box: [0, 4, {{ W }}, 6], caption: PROTOTYPE}',
)
