"""icon: one icon of the built-in set (`mask`, `mt`, `ft`, ...) or of the game's own
(cards.yaml `icons:`: PNG, JPEG, SVG drawn as vectors), centred on a point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw import icons
from pnp.draw.elements.base import (
    MM,
    REQUIRED,
    Element,
    ElementError,
    Key,
    Op,
    color,
    number,
    numbers,
)


@dataclass(frozen=True, slots=True, repr=False)
class Icon(Op):
    """The drawing operation of an `icon` element: a named icon at a centre and size."""
    name: str
    cx: float            # points, the centre
    cy: float
    size: float
    color: Any
    ink: Any

    kind = "icon"

    def paint(self, c) -> None:
        try:
            icons.draw_icon(c, self.name, self.cx, self.cy, self.size, self.color, self.ink)
        except icons.IconFileError as exc:
            raise ElementError(str(exc)) from None

    def as_tuple(self) -> tuple:
        return ("icon", self.name, self.cx, self.cy, self.size, self.color, self.ink)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    name = r.icon_name(el["name"], t)
    cx, cy = t.point(*numbers(el["center"], 2, "center"))
    return [Icon(name, cx * MM, -cy * MM, number(el["size"], "size") * t.scale * MM,
                 color(el["color"], "color"), color(el["ink"], "ink"))]


ELEMENT = Element(
    "icon", __doc__,
    keys=(
        Key("name", "icon name", REQUIRED, "which icon (docs/CARDS.md lists the set)"),
        Key("center", "[x, y] mm", REQUIRED, "where its centre goes"),
        Key("size", "mm", 5.0, "its size"),
        Key("color", "colour", None, "main colour (default: the icon's own)"),
        Key("ink", "colour", None, "second colour of two-colour icons"),
    ),
    compile=compile,
    example="- icon: {name: mask, center: [10, 10], size: 6}",
)
