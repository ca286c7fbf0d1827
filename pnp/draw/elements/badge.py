"""badge: a shape (circle, shield, star, ...) with a value or an icon in it and an
optional caption under it: a card's cost, attack or power."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw import icons
from pnp.draw.elements.base import (
    EPS,
    MM,
    REQUIRED,
    Element,
    Key,
    Op,
    color,
    number,
    numbers,
)
from pnp.draw.elements.icon import Icon
from pnp.draw.elements.text import safe_zone, text_ops


@dataclass(frozen=True, slots=True, repr=False)
class Shape(Op):
    """The outline of a `badge` element: a shape at a centre and size, filled and stroked."""
    shape: str
    cx: float
    cy: float
    size: float
    fill: Any
    stroke: Any
    width: float

    kind = "shape"

    def paint(self, c) -> None:
        icons.draw_shape(c, self.shape, self.cx, self.cy, self.size, self.fill, self.stroke,
                         self.width)

    def as_tuple(self) -> tuple:
        return ("shape", self.shape, self.cx, self.cy, self.size, self.fill, self.stroke,
                self.width)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    cx, cy = t.point(*numbers(el["center"], 2, "center"))
    size = number(el["size"], "size") * t.scale
    shape = el["shape"]
    if t.safe and (el["value"] is not None or el["label"] is not None):
        half = size / 2
        safe = t.safe_mm
        if (cx - half < safe - EPS or cy - half < safe - EPS
                or cx + half > t.W - safe + EPS or cy + half > t.H - safe + EPS):
            warn(f"badge reaches outside the safe zone ({safe_zone(t)})")
    ops: list[Op] = [Shape(shape, cx * MM, -cy * MM, size * MM, color(el["fill"], "fill"),
                           color(el["stroke"], "stroke"), number(el["width"], "width"))]
    fw, fh, fdy = icons.SHAPE_TEXT_BOX[shape]
    if el["icon"] is not None:
        ops.append(Icon(r.icon_name(el["icon"], t, "badge"), cx * MM, -(cy - fdy * size) * MM,
                        size * MM * max(fw, fh) * 1.05, None, None))
    if el["value"] is not None:
        font_size = (number(el["font_size"], "font_size") * t.scale
                     if el["font_size"] is not None
                     else size * fh * MM * 1.05)
        box = (cx - size * fw / 2, cy - size * fh / 2 - fdy * size, size * fw, size * fh)
        ops += text_ops(r, str(el["value"]), box, r.font_role(el["font"]), font_size,
                        font_size * 0.4, "center", "middle", 1.0,
                        color(el["color"], "color"), True, warn, "badge value")
    if el["label"] is not None:
        label_size = max(number(el["label_size"], "label_size") * t.scale, r.min_text_pt)
        lh = label_size * 1.25 / MM
        box = (cx - size * 0.8, cy + size / 2 + 0.3, size * 1.6, lh)
        ops += text_ops(r, str(el["label"]), box, r.font_role(el["label_font"]),
                        label_size, label_size * 0.7, "center", "top", 1.0,
                        color(el["label_color"], "label_color"), True, warn, "badge label")
    return ops


ELEMENT = Element(
    "badge", __doc__,
    keys=(
        Key("center", "[x, y] mm", REQUIRED, "where the shape's centre goes"),
        Key("size", "mm", 8.0, "the shape's size"),
        Key("shape", "choice", "circle", "the shape", choices=icons.SHAPES),
        Key("fill", "colour", "#000000", "the shape's fill"),
        Key("stroke", "colour", None, "the shape's outline"),
        Key("width", "pt", 0.5, "outline width"),
        Key("value", "text", None, "text in the shape (a number, a cost)"),
        Key("font", "font role", "bold", "the value's font"),
        Key("font_size", "pt", None, "the value's size (default: fits the shape)"),
        Key("color", "colour", "#ffffff", "the value's colour"),
        Key("icon", "icon name", None, "an icon in the shape instead of a value"),
        Key("label", "text", None, "caption under the shape"),
        Key("label_size", "pt", 6.0, "the caption's size"),
        Key("label_color", "colour", "#000000", "the caption's colour"),
        Key("label_font", "font role", "bold", "the caption's font"),
    ),
    compile=compile,
    example=('- badge: {id: attack, center: [15, 48], size: 10, shape: burst, '
             'fill: "#c62828",\n          value: {{ card.attack }}, label: ATTACK}'),
)
