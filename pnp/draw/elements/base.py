"""What every drawing element shares: its declaration (`Element`, `Key`), the frozen
operation objects a compile step returns (`Op`), what is being drawn (`Target`: trim
size, bleed, design-size mapping) and the value checks and paint helpers the element
modules use.

An element module (`pnp/draw/elements/<name>.py`) defines `ELEMENT = Element(...)`: its
keys (name, type, default, what it does), a `compile(el, t, r, warn) -> list[Op]` that
turns one element's settings (defaults filled in) into operations in points, y up from
the trim's top-left corner, and the `Op` classes whose `paint(canvas)` draws them.
`r` is the renderer: `r.fonts`, `r.min_text_pt`, `r.font_role(role)`,
`r.image_path(value, t)`, `r.image_size(path, t)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MM = 72.0 / 25.4
SAFE_MM = 3.175          # the safe zone: 1/8 in inside the trim
EPS = 0.01               # mm: an edge this close to the trim edge touches it


class ElementError(Exception):
    """An element's settings cannot be drawn; the renderer adds template and element."""


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True, slots=True)
class Key:
    """One setting of an element: `type` and `doc` are for people (the generated
    element reference), `default` fills it in (REQUIRED: it must be given), `choices`
    are checked before the compile step runs."""

    name: str
    type: str
    default: Any
    doc: str
    choices: tuple[str, ...] | None = None


COMMON_KEYS = (Key("id", "name", None, "names the element in warnings "
                                      "(`rules: text does not fit ...`)"),)


@dataclass(frozen=True)
class Element:
    """A drawing element: what a template writes (`- name: {key: value, ...}`) and how
    it is compiled. `per_face`: compiled for every face, never cached or replayed (an
    image file may change between builds). `edge_paint(el) -> (key, opaque)`: what it
    paints into the bleed when it has `bleed: true` (see render._edge_paint)."""

    name: str
    doc: str
    keys: tuple[Key, ...]
    compile: Callable[..., list]
    per_face: bool = False
    edge_paint: Callable[[dict[str, Any]], tuple[tuple, bool]] | None = None
    example: str = ""
    _defaults: dict[str, Any] = field(init=False, repr=False, compare=False)
    _choices: tuple[tuple[str, tuple[str, ...]], ...] = field(init=False, repr=False,
                                                              compare=False)

    def __post_init__(self) -> None:
        names = [k.name for k in self.keys]
        if len(set(names)) != len(names) or "id" in names:
            raise ValueError(f"element {self.name!r}: keys must be unique and not 'id'")
        object.__setattr__(self, "_defaults", {k.name: k.default for k in self.keys})
        object.__setattr__(self, "_choices", tuple((k.name, k.choices) for k in self.keys
                                                   if k.choices))

    def normalise(self, params: Any) -> dict[str, Any]:
        """The settings with defaults filled in, `id` included. Raises ElementError."""
        kind, spec = self.name, self._defaults
        if not isinstance(params, dict):
            raise ElementError(f"{kind}: expected a mapping of settings, got {params!r}")
        unknown = set(params) - set(spec) - {"id"}
        if unknown:
            raise ElementError(
                f"{kind}: unknown setting {sorted(unknown)[0]!r} (known: {', '.join(spec)})"
            )
        out = {"id": None}
        for key, default in spec.items():
            if key in params:
                out[key] = params[key]
            elif default is REQUIRED:
                raise ElementError(f"{kind}: missing {key!r}")
            else:
                out[key] = default
        out["id"] = params.get("id")
        for key, choices in self._choices:
            if out[key] not in choices:
                raise ElementError(f"{kind}: {key} must be one of {', '.join(choices)}, "
                                   f"got {out[key]!r}")
        return out


class Op:
    """A compiled drawing operation: a frozen dataclass of the element module, drawn by
    `paint(canvas)`. `as_tuple()` is its canonical form (kind first), what the per-card
    hashes of `pnp build` are taken of: keep it stable, earlier builds' hashes depend
    on it; `repr` shows it. `replayable`: its PDF code may be recorded once per
    document and replayed (transparency needs a resource per page: not replayable)."""

    __slots__ = ()
    kind = ""

    @property
    def replayable(self) -> bool:
        return True

    def paint(self, c) -> None:
        raise NotImplementedError

    def as_tuple(self) -> tuple:
        raise NotImplementedError

    def __repr__(self) -> str:
        return repr(self.as_tuple())


class AlphaOp(Op):
    """An op with an `alpha` field: replayable only when opaque (a transparency state is
    a resource of its page)."""

    __slots__ = ()
    alpha: float

    @property
    def replayable(self) -> bool:
        return self.alpha == 1.0


# ── what is being drawn ────────────────────────────────────────────────────────────

@dataclass
class Target:
    """What is being drawn, for messages and warnings."""

    game: str
    deck: str
    card: str
    what: str              # "card 'Anarchist'" for error messages
    W: float               # trim size, mm
    H: float
    bleed: float           # mm
    safe: bool             # enforce the text safe zone
    design: tuple[float, float] | None = None   # the template's design size, mm
    edges: tuple | None = None   # what paints the bleed on each edge (see _edge_paint)
    safe_mm: float = SAFE_MM     # the safe zone's width

    # A template drawn for a design size (say poker, 63.5 x 88.9) is mapped onto the
    # real trim size: the 1/8 in margins stay exactly as drawn, the inside is scaled,
    # and sizes (fonts, icons, badges, radii) are scaled by the smaller factor.
    def _axis(self, v: float, design: float, real: float) -> float:
        if design <= 2 * SAFE_MM or real <= 2 * SAFE_MM:
            return v * real / design
        if v <= SAFE_MM:
            return v
        if v >= design - SAFE_MM:
            return real - (design - v)
        return SAFE_MM + (v - SAFE_MM) * (real - 2 * SAFE_MM) / (design - 2 * SAFE_MM)

    def point(self, x: float, y: float) -> tuple[float, float]:
        if self.design is None:
            return x, y
        return self._axis(x, self.design[0], self.W), self._axis(y, self.design[1], self.H)

    def box(self, b: list[float]) -> tuple[float, float, float, float]:
        x, y, w, h = b
        if self.design is None:
            return x, y, w, h
        x0, y0 = self.point(x, y)
        x1, y1 = self.point(x + w, y + h)
        return x0, y0, x1 - x0, y1 - y0

    @property
    def scale(self) -> float:
        if self.design is None:
            return 1.0
        (dw, dh), inner = self.design, 2 * SAFE_MM
        if min(dw, dh, self.W, self.H) <= inner:
            return min(self.W / dw, self.H / dh)
        return min((self.W - inner) / (dw - inner), (self.H - inner) / (dh - inner))


# ── value checks ───────────────────────────────────────────────────────────────────

def numbers(value: Any, n: int | None, key: str) -> list[float]:
    if not isinstance(value, list | tuple) or (n is not None and len(value) != n):
        raise ElementError(f"{key} must be a list of {n or 'some'} numbers, got {value!r}")
    try:
        return [float(v) for v in value]
    except (TypeError, ValueError):
        raise ElementError(f"{key} must be numbers, got {value!r}") from None


def number(value: Any, key: str) -> float:
    if isinstance(value, bool):
        raise ElementError(f"{key} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ElementError(f"{key} must be a number, got {value!r}") from None


_COLOR_CACHE: dict[str, Any] = {}
_HEX6 = frozenset("0123456789abcdefABCDEF")


def color(value: Any, key: str):
    """A ReportLab colour. `#rrggbb`, what templates nearly always write, is made as
    ReportLab's toColor ends up making it (HexColor, the same object), without the
    attempts toColor makes first: for a hex colour each compiles it as Python twice
    (ast.literal_eval, rl_extended_literal_eval), 1 % of a cold 80-card build."""
    if value is None:
        return None
    found = _COLOR_CACHE.get(value) if isinstance(value, str) else None
    if found is None:
        from reportlab.lib.colors import HexColor, toColor

        try:
            if isinstance(value, str) and len(value) == 7 and value[0] == "#" \
                    and _HEX6.issuperset(value[1:]):
                found = HexColor(value)
            else:
                found = toColor(value)
        except Exception:
            raise ElementError(f"{key}: not a colour: {value!r}") from None
        if isinstance(value, str):
            _COLOR_CACHE[value] = found
    return found


def mm_box(el: dict[str, Any], t: Target) -> tuple[float, float, float, float]:
    """An element's `box` in points (x, y of its lower-left corner, y up from the trim's
    top), grown into the bleed when it has `bleed: true`."""
    bx, by, bw, bh = t.box(numbers(el["box"], 4, "box"))
    if el.get("bleed"):
        bx, by, bw, bh = bleed_box(bx, by, bw, bh, t)
    return (bx * MM, -(by + bh) * MM, bw * MM, bh * MM)


def mm_points(el: dict[str, Any], kind: str, t: Target) -> tuple[tuple[float, float], ...]:
    points = el["points"]
    if not isinstance(points, list) or len(points) < 2:
        raise ElementError(f"{kind}: points must be a list of [x, y] pairs")
    return tuple((x * MM, -y * MM) for x, y in
                 (t.point(*numbers(p, 2, "point")) for p in points))


def bleed_box(x, y, w, h, t: Target):
    """Grow a box out into the bleed on every side where it touches the trim edge."""
    b = t.bleed
    left, top, right, bottom = x, y, x + w, y + h
    if left <= EPS:
        left = min(left, -b)
    if top <= EPS:
        top = min(top, -b)
    if right >= t.W - EPS:
        right = max(right, t.W + b)
    if bottom >= t.H - EPS:
        bottom = max(bottom, t.H + b)
    return left, top, right - left, bottom - top


# ── paint helpers ──────────────────────────────────────────────────────────────────

def polyline(canvas, points, closed: bool):
    """A path through `points` (a polygon when `closed`)."""
    path = canvas.beginPath()
    path.moveTo(*points[0])
    for point in points[1:]:
        path.lineTo(*point)
    if closed:
        path.close()
    return path


def set_paint(c, fill, stroke, width, alpha, dash) -> None:
    if fill is not None:
        c.setFillColor(fill)
    if stroke is not None:
        c.setStrokeColor(stroke)
        c.setLineWidth(width)
    if alpha != 1.0:
        c.setFillAlpha(alpha)
        c.setStrokeAlpha(alpha)
    if dash:
        c.setDash(dash if isinstance(dash, list) else [dash])


def reset_paint(c, alpha, dash) -> None:
    if alpha != 1.0:
        c.setFillAlpha(1.0)
        c.setStrokeAlpha(1.0)
    if dash:
        c.setDash()


# The paint keys of a filled and/or outlined shape (ellipse, polygon), declared once.
PAINT_KEYS = (
    Key("fill", "colour", None, "fill colour"),
    Key("stroke", "colour", None, "outline colour"),
    Key("width", "pt", 0.5, "outline width"),
    Key("alpha", "0..1", 1.0, "opacity"),
)
