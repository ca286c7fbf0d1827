"""image: a picture file of the project (PNG, JPEG, ...) in a box, cropped to fill it
(`cover`), fitted inside it (`contain`) or stretched; `bleed: true` runs it into the
bleed like a background. Art below 300 dpi at its printed size is reported."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw.elements.base import REQUIRED, Element, Key, Op, mm_box


@dataclass(frozen=True, slots=True, repr=False)
class Image(Op):
    """The drawing operation of an `image` element: a file fitted into a box."""
    box: tuple[float, float, float, float]
    path: str
    pixels: tuple[int, int]
    fit: str

    kind = "image"

    def paint(self, c) -> None:
        (x, y, w, h), path, (iw, ih), fit = self.box, self.path, self.pixels, self.fit
        c.saveState()
        clip = c.beginPath()
        clip.rect(x, y, w, h)
        c.clipPath(clip, stroke=0, fill=0)
        from pnp.draw.art import printable  # art at print resolution, allow-listed decoders

        if fit == "stretch":
            c.drawImage(printable(path, (iw, ih), w, h), x, y, w, h, mask="auto")
        else:
            scale = (max if fit == "cover" else min)(w / iw, h / ih)
            dw, dh = iw * scale, ih * scale
            c.drawImage(printable(path, (iw, ih), dw, dh), x + (w - dw) / 2,
                        y + (h - dh) / 2, dw, dh, mask="auto")
        c.restoreState()

    def as_tuple(self) -> tuple:
        return ("image", self.box, self.path, self.pixels, self.fit)


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    box = mm_box(el, t)
    path = r.image_path(el["path"], t)
    return [Image(box, str(path), r.image_size(path, t), el["fit"])]


def edge_paint(el: dict[str, Any]) -> tuple[tuple, bool]:
    return ("image", str(el["path"])), False


ELEMENT = Element(
    "image", __doc__,
    keys=(
        Key("path", "file", REQUIRED, "the picture, relative to the project folder "
                                      "(it may not leave it)"),
        Key("box", "[x, y, w, h] mm", REQUIRED, "where it goes"),
        Key("fit", "choice", "cover", "cover (fill the box, crop), contain (fit inside) "
                                      "or stretch", choices=("cover", "contain", "stretch")),
        Key("bleed", "bool", False, "grow into the bleed on each side touching the trim"),
    ),
    compile=compile, per_face=True, edge_paint=edge_paint,
    example='- image: {path: {{ card.art }}, box: [5, 16, {{ W - 10 }}, 34], fit: cover}',
)
