"""Vector icons and badge shapes, drawn with ReportLab canvas paths, and a game's own
icons (cards.yaml `icons:`, carddb.icons) drawn from their files.

Every icon is drawn inside a `size` x `size` square centred on (cx, cy), in points.
`draw_icon(canvas, name, cx, cy, size, color=None, ink=None)`: `color` is
the main fill, `ink` the detail colour; both default to the icon's own palette. `blank`
draws nothing (a blank die face). A game's own icon is named by `file_ref(path)` once
the renderer has resolved it (pnp.draw.render.CardRenderer.own_icons): an SVG is drawn
as vectors (svglib, imported when one is drawn), a PNG or JPEG as a picture, each fitted
into the square keeping its proportions and its own colours.
`draw_shape(canvas, shape, cx, cy, size, fill, stroke, width)` draws badge outlines.
This module imports nothing heavy: it only calls methods of the canvas it is given.
"""

from __future__ import annotations

import math
from collections.abc import Callable

POWER_ICONS = (
    "energy", "strength", "speed", "flight", "mind",
    "magic", "tech", "stealth", "agility", "durability",
)
# Default colours: (disc, glyph) for power icons; the tokens' colours for MT/FT.
POWER_COLORS = {
    "energy": "#e8a400", "strength": "#c0392b", "speed": "#e4661b", "flight": "#2e86c1",
    "mind": "#8e44ad", "magic": "#c2185b", "tech": "#607d8b", "stealth": "#263238",
    "agility": "#2e9e5b", "durability": "#795548",
}
OTHER_ICONS = ("mask", "mt", "ft", "attack", "defense", "health", "dice", "blank")
FILE_PREFIX = "file:"     # an own icon's reference: FILE_PREFIX + its absolute path
ICON_NAMES = frozenset(POWER_ICONS + OTHER_ICONS)
SHAPES = ("circle", "square", "roundsquare", "diamond", "hexagon", "shield", "heart",
          "burst", "star", "banner")


class _Pen:
    """A path in unit coordinates (-0.5..0.5, y up) mapped onto the icon square."""

    def __init__(self, canvas, cx: float, cy: float, size: float):
        self.canvas, self.cx, self.cy, self.s = canvas, cx, cy, size
        self.path = canvas.beginPath()

    def _p(self, x: float, y: float) -> tuple[float, float]:
        return self.cx + x * self.s, self.cy + y * self.s

    def move(self, x, y):
        self.path.moveTo(*self._p(x, y))
        return self

    def line(self, x, y):
        self.path.lineTo(*self._p(x, y))
        return self

    def curve(self, x1, y1, x2, y2, x3, y3):
        self.path.curveTo(*self._p(x1, y1), *self._p(x2, y2), *self._p(x3, y3))
        return self

    def poly(self, points):
        self.move(*points[0])
        for p in points[1:]:
            self.line(*p)
        self.path.close()
        return self

    def circle(self, x, y, r):
        self.path.circle(*self._p(x, y), r * self.s)
        return self

    def ellipse(self, x, y, rx, ry):
        x0, y0 = self._p(x - rx, y - ry)
        self.path.ellipse(x0, y0, 2 * rx * self.s, 2 * ry * self.s)
        return self

    def rect(self, x, y, w, h):
        x0, y0 = self._p(x, y)
        self.path.rect(x0, y0, w * self.s, h * self.s)
        return self

    def close(self):
        self.path.close()
        return self

    def fill(self, color, even_odd: bool = False):
        self.canvas.setFillColor(color)
        kwargs = {"fillMode": 0} if even_odd else {}
        self.canvas.drawPath(self.path, stroke=0, fill=1, **kwargs)

    def stroke(self, color, width_units: float, fill=None):
        self.canvas.setStrokeColor(color)
        self.canvas.setLineWidth(width_units * self.s)
        if fill is not None:
            self.canvas.setFillColor(fill)
        self.canvas.drawPath(self.path, stroke=1, fill=1 if fill is not None else 0)


def _star_points(n: int, r_out: float, r_in: float, rot: float = 90.0, cx=0.0, cy=0.0):
    pts = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = math.radians(rot + i * 180.0 / n)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


# ── glyphs: each draws in unit space, on a disc already painted by the caller ──────

def _g_energy(c, cx, cy, s, ink):
    _Pen(c, cx, cy, s).poly([(0.06, 0.36), (-0.2, -0.02), (-0.02, -0.02), (-0.1, -0.36),
                             (0.2, 0.06), (0.02, 0.06), (0.12, 0.36)]).fill(ink)


def _g_strength(c, cx, cy, s, ink):
    pen = _Pen(c, cx, cy, s)
    pen.rect(-0.22, -0.035, 0.44, 0.07)                      # bar
    pen.rect(-0.30, -0.17, 0.08, 0.34).rect(0.22, -0.17, 0.08, 0.34)   # inner plates
    pen.rect(-0.37, -0.11, 0.06, 0.22).rect(0.31, -0.11, 0.06, 0.22)   # outer plates
    pen.fill(ink)


def _g_speed(c, cx, cy, s, ink):
    pen = _Pen(c, cx, cy, s)
    for dx in (-0.2, 0.06):
        pen.poly([(dx, 0.24), (dx + 0.1, 0.24), (dx + 0.24, 0.0), (dx + 0.1, -0.24),
                  (dx, -0.24), (dx + 0.14, 0.0)])
    pen.rect(-0.36, -0.03, 0.14, 0.06)
    pen.fill(ink)


def _g_flight(c, cx, cy, s, ink):
    pen = _Pen(c, cx, cy, s)
    pen.move(-0.32, -0.04)
    pen.curve(-0.2, 0.2, 0.1, 0.32, 0.34, 0.3)
    pen.curve(0.28, 0.2, 0.2, 0.14, 0.12, 0.12)
    pen.curve(0.2, 0.08, 0.22, 0.02, 0.2, -0.02)
    pen.curve(0.12, -0.02, 0.06, -0.02, 0.0, -0.04)
    pen.curve(0.04, -0.1, 0.04, -0.14, 0.02, -0.18)
    pen.curve(-0.1, -0.14, -0.2, -0.12, -0.32, -0.04)
    pen.close()
    pen.fill(ink)


def _g_mind(c, cx, cy, s, ink):
    pen = _Pen(c, cx, cy, s)
    pen.circle(0, 0, 0.09)
    pen.fill(ink)
    for r in (0.19, 0.3):
        for side in (-1, 1):
            arc = c.beginPath()
            a0 = -50 if side == 1 else 130
            arc.arc(cx - r * s, cy - r * s, cx + r * s, cy + r * s, startAng=a0, extent=100)
            c.setStrokeColor(ink)
            c.setLineWidth(0.055 * s)
            c.setLineCap(1)
            c.drawPath(arc, stroke=1, fill=0)
    c.setLineCap(0)


def _g_magic(c, cx, cy, s, ink):
    pen = _Pen(c, cx, cy, s)
    pen.poly(_star_points(4, 0.34, 0.09, cx=-0.04, cy=-0.04))
    pen.poly(_star_points(4, 0.14, 0.04, cx=0.22, cy=0.22))
    pen.fill(ink)


def _g_tech(c, cx, cy, s, ink):
    pen = _Pen(c, cx, cy, s)
    teeth = 8
    pts = []
    for i in range(teeth * 4):
        a = math.radians(i * 360.0 / (teeth * 4) + 6)
        r = 0.34 if (i % 4) in (1, 2) else 0.25
        pts.append((r * math.cos(a), r * math.sin(a)))
    pen.poly(pts)
    pen.circle(0, 0, 0.1)
    pen.fill(ink, even_odd=True)


def _g_stealth(c, cx, cy, s, ink):
    pen = _Pen(c, cx, cy, s)
    pen.move(-0.34, 0.0).curve(-0.16, 0.24, 0.16, 0.24, 0.34, 0.0)
    pen.curve(0.16, -0.24, -0.16, -0.24, -0.34, 0.0).close()
    pen.circle(0, 0, 0.1)
    pen.fill(ink, even_odd=True)
    slash = _Pen(c, cx, cy, s)
    slash.move(-0.3, -0.3).line(0.3, 0.3)
    c.setLineCap(1)
    slash.stroke(ink, 0.07)
    c.setLineCap(0)


def _g_agility(c, cx, cy, s, ink):
    # a zig-zag dodge with an arrowhead
    pen = _Pen(c, cx, cy, s)
    pen.move(-0.3, -0.26).line(-0.06, 0.02).line(0.04, -0.1).line(0.2, 0.1)
    c.setLineCap(1)
    c.setLineJoin(1)
    pen.stroke(ink, 0.085)
    c.setLineCap(0)
    c.setLineJoin(0)
    _Pen(c, cx, cy, s).poly([(0.32, 0.26), (0.1, 0.2), (0.27, 0.02)]).fill(ink)


def _g_durability(c, cx, cy, s, ink):
    # an anvil
    pen = _Pen(c, cx, cy, s)
    pen.poly([(-0.36, 0.14), (0.3, 0.14), (0.3, 0.02), (0.14, -0.04), (0.12, -0.14),
              (0.22, -0.14), (0.22, -0.24), (-0.22, -0.24), (-0.22, -0.14), (-0.12, -0.14),
              (-0.14, -0.04), (-0.22, 0.0), (-0.36, 0.08)])
    pen.fill(ink)


GLYPHS: dict[str, Callable] = {
    "energy": _g_energy, "strength": _g_strength, "speed": _g_speed, "flight": _g_flight,
    "mind": _g_mind, "magic": _g_magic, "tech": _g_tech, "stealth": _g_stealth,
    "agility": _g_agility, "durability": _g_durability,
}


# ── the other icons ────────────────────────────────────────────────────────────────

def _mask(c, cx, cy, s, color, ink):
    pen = _Pen(c, cx, cy, s)
    pen.move(0, 0.1)
    pen.curve(-0.15, 0.22, -0.4, 0.24, -0.5, 0.12)
    pen.curve(-0.52, -0.05, -0.42, -0.22, -0.25, -0.22)
    pen.curve(-0.12, -0.22, -0.06, -0.1, 0, -0.08)
    pen.curve(0.06, -0.1, 0.12, -0.22, 0.25, -0.22)
    pen.curve(0.42, -0.22, 0.52, -0.05, 0.5, 0.12)
    pen.curve(0.4, 0.24, 0.15, 0.22, 0, 0.1)
    pen.close()
    pen.ellipse(-0.24, 0.0, 0.12, 0.075)
    pen.ellipse(0.24, 0.0, 0.12, 0.075)
    pen.fill(color, even_odd=True)


def _coin(c, cx, cy, s, color, ink):
    pen = _Pen(c, cx, cy, s)
    pen.circle(0, 0, 0.46)
    pen.fill(ink)
    _Pen(c, cx, cy, s).circle(0, 0, 0.4).fill(color)
    _Pen(c, cx, cy, s).circle(0, 0, 0.31).stroke(ink, 0.045)
    # the dollar sign as a path, not a font glyph: an icon may be drawn at any size, and
    # printed text is never smaller than print.min_text_pt (pnp.draw.render)
    sign = _Pen(c, cx, cy, s)
    sign.move(0.12, 0.115)
    sign.curve(0.08, 0.17, -0.125, 0.175, -0.125, 0.065)
    sign.curve(-0.125, -0.01, 0.125, 0.01, 0.125, -0.065)
    sign.curve(0.125, -0.175, -0.08, -0.17, -0.125, -0.115)
    sign.move(0, 0.21).line(0, -0.21)
    c.setLineCap(1)
    sign.stroke(ink, 0.055)


def _fame(c, cx, cy, s, color, ink):
    _Pen(c, cx, cy, s).circle(0, 0, 0.46).fill(color)
    _Pen(c, cx, cy, s).poly(_star_points(5, 0.34, 0.14, cy=-0.02)).fill(ink)


def _attack(c, cx, cy, s, color, ink):
    _Pen(c, cx, cy, s).poly(_star_points(9, 0.5, 0.3, rot=90)).fill(color)


def _defense(c, cx, cy, s, color, ink):
    _shape_path(_Pen(c, cx, cy, s), "shield").fill(color)


def _health(c, cx, cy, s, color, ink):
    _shape_path(_Pen(c, cx, cy, s), "heart").fill(color)


def _dice(c, cx, cy, s, color, ink):
    pen = _Pen(c, cx, cy, s)
    c.setFillColor(color)
    c.setStrokeColor(ink)
    c.setLineWidth(0.06 * s)
    c.roundRect(cx - 0.4 * s, cy - 0.4 * s, 0.8 * s, 0.8 * s, 0.14 * s, stroke=1, fill=1)
    for x, y in ((-0.2, 0.2), (0, 0), (0.2, -0.2)):
        pen.circle(x, y, 0.08)
    pen.fill(ink)


OTHER_DRAW = {"mask": _mask, "ft": _fame, "attack": _attack, "defense": _defense,
              "health": _health, "dice": _dice}
OTHER_COLORS = {
    "mask": ("#111111", "#ffffff"), "mt": ("#e0b000", "#8a6500"), "ft": ("#3060c0", "#ffffff"),
    "attack": ("#d7262e", "#ffffff"), "defense": ("#1f4fa8", "#ffffff"),
    "health": ("#2e9e5b", "#ffffff"), "dice": ("#ffffff", "#111111"),
    "blank": ("#ffffff", "#111111"),
}


def icon_colors(name: str) -> tuple[str, str]:
    if name in POWER_COLORS:
        return POWER_COLORS[name], "#ffffff"
    return OTHER_COLORS[name]


def draw_icon(canvas, name: str, cx: float, cy: float, size: float,
              color=None, ink=None) -> None:
    """Draw icon `name` centred on (cx, cy), `size` points wide and high."""
    if name.startswith(FILE_PREFIX):
        draw_file(canvas, name[len(FILE_PREFIX):], cx, cy, size)
        return
    if name not in ICON_NAMES:
        raise KeyError(name)
    if name == "blank":
        return
    base, detail = icon_colors(name)
    color = color or base
    ink = ink or detail
    canvas.saveState()
    if name in GLYPHS:
        _Pen(canvas, cx, cy, size).circle(0, 0, 0.48).fill(color)
        GLYPHS[name](canvas, cx, cy, size, ink)
    elif name == "mt":
        _coin(canvas, cx, cy, size, color, ink)
    else:
        OTHER_DRAW[name](canvas, cx, cy, size, color, ink)
    canvas.restoreState()


# ── a game's own icons, from their files ─────────────────────────────────────────

class IconFileError(ValueError):
    """An own icon's file that cannot be drawn (one line: what and which file)."""


def file_ref(path: str) -> str:
    """The icon name that draws the picture at `path` (absolute, checked by the caller)."""
    return FILE_PREFIX + path


_SVG: dict[tuple[str, str], object] = {}     # (path, content digest) -> Drawing


def draw_file(canvas, path: str, cx: float, cy: float, size: float) -> None:
    """An own icon's picture fitted into the `size` square centred on (cx, cy)."""
    if path.lower().endswith(".svg"):
        _draw_svg(canvas, path, cx, cy, size)
        return
    from pnp.draw.art import ArtError, open_art, printable

    try:
        iw, ih = open_art(path).size
    except ArtError as exc:
        raise IconFileError(f"icon {path}: {exc}") from None
    scale = size / max(iw, ih)
    w, h = iw * scale, ih * scale
    canvas.drawImage(printable(path, (iw, ih), w, h), cx - w / 2, cy - h / 2, w, h,
                     mask="auto")


def svg_drawing(path: str):
    """The SVG at `path` as a ReportLab Drawing (cached by the file's content), checked
    first as validation checks it (carddb.icons.svg_problem: no DOCTYPE, no text, no
    embedded pictures or other files), at most MAX_ICON_BYTES."""
    import hashlib
    import io
    import os

    from carddb.files import read_limited
    from carddb.icons import MAX_ICON_BYTES, svg_problem

    try:            # the file as it is now: it may have changed since validation
        data = read_limited(path, MAX_ICON_BYTES, "an icon is a .svg file")
    except (OSError, ValueError) as exc:
        raise IconFileError(f"icon {path}: {exc}") from None
    key = (path, hashlib.sha256(data).hexdigest())
    drawing = _SVG.get(key)
    if drawing is None:
        import logging

        problem = svg_problem(data)
        if problem:
            raise IconFileError(f"icon {path}: {problem}")
        from svglib.svglib import svg2rlg

        logging.getLogger("svglib.svglib").setLevel(logging.ERROR)
        try:
            drawing = svg2rlg(io.BytesIO(data), external_reference_root=os.path.dirname(path))
        except Exception as exc:  # noqa: BLE001  (svglib raises many kinds)
            raise IconFileError(f"icon {path}: not a drawable SVG ({exc})") from None
        if drawing is None or not drawing.width or not drawing.height:
            raise IconFileError(f"icon {path}: not a drawable SVG (no size)")
        if len(_SVG) > 64:
            _SVG.clear()
        _SVG[key] = drawing
    return drawing


def _draw_svg(canvas, path: str, cx: float, cy: float, size: float) -> None:
    from reportlab.graphics import renderPDF

    drawing = svg_drawing(path)
    # ReportLab's drawing renderer starts from Helvetica, a font the PDF would name but
    # not embed: start it from the canvas's own (embedded) font instead
    drawing.initialFontName, drawing.initialFontSize = canvas._fontname, canvas._fontsize
    scale = size / max(drawing.width, drawing.height)
    canvas.saveState()
    canvas.translate(cx - drawing.width * scale / 2, cy - drawing.height * scale / 2)
    canvas.scale(scale, scale)
    renderPDF.draw(drawing, canvas, 0, 0)
    canvas.restoreState()


# ── badge shapes ───────────────────────────────────────────────────────────────────

def _shape_path(pen: _Pen, shape: str) -> _Pen:
    if shape == "circle":
        pen.circle(0, 0, 0.5)
    elif shape == "square":
        pen.rect(-0.5, -0.5, 1, 1)
    elif shape == "roundsquare":
        r = 0.14
        pen.move(-0.5 + r, -0.5).line(0.5 - r, -0.5).curve(0.5, -0.5, 0.5, -0.5, 0.5, -0.5 + r)
        pen.line(0.5, 0.5 - r).curve(0.5, 0.5, 0.5, 0.5, 0.5 - r, 0.5)
        pen.line(-0.5 + r, 0.5).curve(-0.5, 0.5, -0.5, 0.5, -0.5, 0.5 - r)
        pen.line(-0.5, -0.5 + r).curve(-0.5, -0.5, -0.5, -0.5, -0.5 + r, -0.5).close()
    elif shape == "diamond":
        pen.poly([(0, 0.5), (0.5, 0), (0, -0.5), (-0.5, 0)])
    elif shape == "hexagon":
        pen.poly([(0.5 * math.cos(math.radians(a)), 0.5 * math.sin(math.radians(a)))
                  for a in range(0, 360, 60)])
    elif shape == "shield":
        pen.move(0, 0.5).curve(0.16, 0.42, 0.32, 0.4, 0.44, 0.4)
        pen.curve(0.46, 0.0, 0.36, -0.3, 0, -0.5)
        pen.curve(-0.36, -0.3, -0.46, 0.0, -0.44, 0.4)
        pen.curve(-0.32, 0.4, -0.16, 0.42, 0, 0.5).close()
    elif shape == "heart":
        pen.move(0, -0.46)
        pen.curve(-0.2, -0.28, -0.5, -0.06, -0.48, 0.16)
        pen.curve(-0.46, 0.4, -0.16, 0.5, 0, 0.28)
        pen.curve(0.16, 0.5, 0.46, 0.4, 0.48, 0.16)
        pen.curve(0.5, -0.06, 0.2, -0.28, 0, -0.46).close()
    elif shape == "burst":
        pen.poly(_star_points(10, 0.5, 0.36, rot=90))
    elif shape == "star":
        pen.poly(_star_points(5, 0.52, 0.24, rot=90, cy=-0.04))
    elif shape == "banner":
        pen.poly([(-0.5, 0.25), (0.5, 0.25), (0.4, 0), (0.5, -0.25), (-0.5, -0.25), (-0.4, 0)])
    else:
        raise KeyError(shape)
    return pen


def draw_shape(canvas, shape: str, cx: float, cy: float, size: float,
               fill=None, stroke=None, width: float = 0.0) -> None:
    """A badge outline `size` points across, centred on (cx, cy)."""
    pen = _shape_path(_Pen(canvas, cx, cy, size), shape)
    if fill is not None:
        canvas.setFillColor(fill)
    if stroke is not None:
        canvas.setStrokeColor(stroke)
        canvas.setLineWidth(width)
    canvas.drawPath(pen.path, stroke=1 if stroke is not None and width > 0 else 0,
                    fill=1 if fill is not None else 0)


# Inner text box of each shape, as a fraction of its size (width, height, y offset).
SHAPE_TEXT_BOX = {
    "circle": (0.7, 0.6, 0.0), "square": (0.86, 0.8, 0.0), "roundsquare": (0.84, 0.78, 0.0),
    "diamond": (0.5, 0.44, 0.0), "hexagon": (0.7, 0.6, 0.0), "shield": (0.62, 0.56, 0.04),
    "heart": (0.56, 0.42, 0.06), "burst": (0.6, 0.56, 0.0), "star": (0.4, 0.34, -0.02),
    "banner": (0.78, 0.44, 0.0),
}
