"""A drawing element defined outside pnp, registered by this one module: `checker`, a
box of n x n squares in two colours (tests/pnp/test_elements.py draws it end to end)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw.elements import register
from pnp.draw.elements.base import REQUIRED, Element, ElementError, Key, Op, color, mm_box


@dataclass(frozen=True, slots=True, repr=False)
class Checker(Op):
    box: tuple[float, float, float, float]
    a: Any
    b: Any
    n: int

    kind = "checker"

    def paint(self, c) -> None:
        x, y, w, h = self.box
        step_x, step_y = w / self.n, h / self.n
        for i in range(self.n):
            for j in range(self.n):
                c.setFillColor(self.a if (i + j) % 2 == 0 else self.b)
                c.rect(x + i * step_x, y + j * step_y, step_x, step_y, stroke=0, fill=1)

    def as_tuple(self) -> tuple:
        return ("checker", self.box, self.a, self.b, self.n)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    n = el["n"]
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 50:
        raise ElementError(f"checker: n must be a whole number 1..50, got {n!r}")
    return [Checker(mm_box(el, t), color(el["a"], "a"), color(el["b"], "b"), n)]


ELEMENT = Element(
    "checker", __doc__,
    keys=(Key("box", "[x, y, w, h] mm", REQUIRED, "where"),
          Key("a", "colour", "#000000", "first colour"),
          Key("b", "colour", "#ffffff", "second colour"),
          Key("n", "count", 8, "squares per side")),
    compile=compile,
)

register(ELEMENT)
