"""Draw cards, backs, mats, reference cards, die labels and tokens with ReportLab.

The look lives in templates (templates/<game>/*.j2, see templates/README.md): a template
renders to a YAML list of drawing elements in mm, measured from the top-left corner of
the trim box (x to the right, y downwards). This module draws those elements in vector
(text stays text), fits text to its box, and reports what does not fit:

    renderer = CardRenderer(db, fonts)
    warnings = renderer.draw_front(canvas, card, deck, x, y, w, h, bleed)
    warnings = renderer.draw_back(canvas, deck, x, y, w, h, bleed)

(x, y) is the lower-left corner of the trim box in points, (w, h) its size, `bleed` in
points. Elements marked `bleed: true` run out into the bleed on every side where they
touch the trim edge; text is kept inside the safe zone (1/8 in inside the trim).

No text is printed below `min_text_pt` (print.min_text_pt, 6 pt by default), measured
after a template's design size is mapped onto the real card: a smaller size is raised
to it, and text that does not fit its box at that size is cut and reported like any
other overflow. A template may declare several design sizes (poker, bridge, mini); each
card is drawn with the one nearest its trim size, so small cards get a layout of their
own rather than a shrunken poker card. Characters no font has are reported too.
"""

from __future__ import annotations

import itertools
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pnp.draw import glyphs, icons, markup, textbox
from pnp.draw.layout_warning import LayoutWarning
from pnp.draw.recent import RecentCache
from pnp.draw.templates import TemplateError, Templates

MM = 72.0 / 25.4
SAFE_MM = 3.175          # the safe zone: 1/8 in inside the trim
DEFAULT_MIN_TEXT_PT = 6.0  # print.min_text_pt: no smaller text is printed
_EPS = 0.01              # mm: an edge this close to the trim edge touches it


class RenderError(Exception):
    """Something a designer must fix before a card can be drawn: a template error, an
    invalid element, a missing or escaping image path. The message is one line."""


def _polyline(canvas, points, closed: bool):
    """A path through `points` (a polygon when `closed`)."""
    path = canvas.beginPath()
    path.moveTo(*points[0])
    for point in points[1:]:
        path.lineTo(*point)
    if closed:
        path.close()
    return path


def template_slug(card_type: str) -> str:
    """`Team Name` -> `team-name` (templates/<game>/team-name.j2)."""
    return re.sub(r"[^a-z0-9]+", "-", card_type.lower()).strip("-")


# ── element schema ─────────────────────────────────────────────────────────────────
REQUIRED = object()
_COMMON = {"id": None}
SCHEMA: dict[str, dict[str, Any]] = {
    "rect": {"box": REQUIRED, "fill": None, "stroke": None, "width": 0.5, "radius": 0.0,
             "bleed": False, "alpha": 1.0, "dash": None},
    "ellipse": {"box": REQUIRED, "fill": None, "stroke": None, "width": 0.5, "alpha": 1.0},
    "polygon": {"points": REQUIRED, "fill": None, "stroke": None, "width": 0.5, "alpha": 1.0},
    "line": {"points": REQUIRED, "color": "#000000", "width": 0.5, "dash": None,
             "alpha": 1.0},
    "text": {"box": REQUIRED, "text": REQUIRED, "font": "regular", "size": 9.0,
             "min_size": None, "leading": 1.2, "align": "left", "valign": "top",
             "color": "#000000", "markup": True},
    "icon": {"name": REQUIRED, "center": REQUIRED, "size": 5.0, "color": None, "ink": None},
    "badge": {"center": REQUIRED, "size": 8.0, "shape": "circle", "fill": "#000000",
              "stroke": None, "width": 0.5, "value": None, "font": "bold",
              "font_size": None, "color": "#ffffff", "icon": None, "label": None,
              "label_size": 6.0, "label_color": "#000000", "label_font": "bold"},
    "image": {"path": REQUIRED, "box": REQUIRED, "fit": "cover", "bleed": False},
}
_CHOICES = {
    ("text", "align"): ("left", "center", "right"),
    ("text", "valign"): ("top", "middle", "bottom"),
    ("image", "fit"): ("cover", "contain", "stretch"),
    ("badge", "shape"): icons.SHAPES,
}


class _ElementError(Exception):
    pass


def _numbers(value: Any, n: int | None, key: str) -> list[float]:
    if not isinstance(value, list | tuple) or (n is not None and len(value) != n):
        raise _ElementError(f"{key} must be a list of {n or 'some'} numbers, got {value!r}")
    try:
        return [float(v) for v in value]
    except (TypeError, ValueError):
        raise _ElementError(f"{key} must be numbers, got {value!r}") from None


def _number(value: Any, key: str) -> float:
    if isinstance(value, bool):
        raise _ElementError(f"{key} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise _ElementError(f"{key} must be a number, got {value!r}") from None


_COLOR_CACHE: dict[str, Any] = {}


def _color(value: Any, key: str):
    if value is None:
        return None
    color = _COLOR_CACHE.get(value) if isinstance(value, str) else None
    if color is None:
        from reportlab.lib.colors import toColor

        try:
            color = toColor(value)
        except Exception:
            raise _ElementError(f"{key}: not a colour: {value!r}") from None
        if isinstance(value, str):
            _COLOR_CACHE[value] = color
    return color


def _normalise(raw: Any) -> tuple[str, dict[str, Any]]:
    """`{text: {...}}` -> ("text", params with defaults). Raises _ElementError."""
    if not isinstance(raw, dict) or len(raw) != 1:
        raise _ElementError(
            f"each element must be a mapping with one key (one of {', '.join(SCHEMA)}), "
            f"got {raw!r}"[:200]
        )
    kind, params = next(iter(raw.items()))
    if kind not in SCHEMA:
        raise _ElementError(f"unknown element {kind!r} (known: {', '.join(SCHEMA)})")
    if not isinstance(params, dict):
        raise _ElementError(f"{kind}: expected a mapping of settings, got {params!r}")
    spec = SCHEMA[kind]
    unknown = set(params) - set(spec) - set(_COMMON)
    if unknown:
        raise _ElementError(
            f"{kind}: unknown setting {sorted(unknown)[0]!r} (known: {', '.join(spec)})"
        )
    out = dict(_COMMON)
    for key, default in spec.items():
        if key in params:
            out[key] = params[key]
        elif default is REQUIRED:
            raise _ElementError(f"{kind}: missing {key!r}")
        else:
            out[key] = default
    out["id"] = params.get("id")
    for (k, key), choices in _CHOICES.items():
        if k == kind and out[key] not in choices:
            raise _ElementError(f"{kind}: {key} must be one of {', '.join(choices)}, "
                                f"got {out[key]!r}")
    return kind, out


# ── the renderer ───────────────────────────────────────────────────────────────────

@dataclass
class _Target:
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


class CardRenderer:
    """Draws the components of a `carddb.Database` through its templates."""

    def __init__(self, db, fonts: dict[str, str], templates: Path | list[Path] | None = None,
                 cache_size: int = 512, min_text_pt: float | None = None):
        missing = {"regular", "bold", "italic", "bolditalic"} - set(fonts)
        if missing:
            raise ValueError(f"fonts lacks roles: {', '.join(sorted(missing))}")
        self.db = db
        self.fonts = dict(fonts)
        profile = getattr(db, "print", None)
        self.min_text_pt = float(min_text_pt if min_text_pt is not None
                                 else getattr(profile, "min_text_pt", DEFAULT_MIN_TEXT_PT))
        if templates is None:
            from pnp.draw.template_folders import bundled_templates

            folders = [Path(db.root) / "templates", bundled_templates()]
        elif isinstance(templates, list | tuple):
            folders = [Path(t) for t in templates]
        else:
            folders = [Path(templates)]
        self.templates = _templates_for(folders, Path(db.root))
        self._plans: OrderedDict[tuple, tuple[Any, list, list[LayoutWarning]]] = OrderedDict()
        self._cache_size = cache_size
        self._image_sizes: dict[Path, tuple[int, int]] = {}
        self._compiled = RecentCache(4096)   # element line -> (operations, warnings)
        self._contexts: dict[int, tuple[Any, dict[str, Any]]] = {}
        self._token = next(_RENDERERS)      # keys this renderer's code stored on a canvas
        self.stamp: dict[str, str] | None = None    # read on the first plan

    # ── public drawing API (docs/ARCHITECTURE.md, pnp contracts) ──────────────────
    def draw_front(self, canvas, card, deck, x, y, w, h, bleed) -> list[LayoutWarning]:
        key, keep, template, context, target, missing = self._front(card, deck, w, h, bleed)
        return self._draw(canvas, key, keep, template, context, target, x, y, missing=missing)

    def bleed_colors(self, card, deck, w, h, bleed) -> tuple:
        """What paints the bleed of a front on its (left, bottom, right, top) edges, as
        comparable keys: two cards may share a cut line without a gutter only where
        these are equal. The card is planned (and its plan cached for draw_front)."""
        return self._planned(*self._front(card, deck, w, h, bleed))[3]

    def _front(self, card, deck, w, h, bleed) -> tuple:
        """(plan key, objects the plan keeps alive, template, context, target, what a
        missing template is) of a card front at a trim size."""
        game = self._game(card.game)
        key = ("front", id(card), id(deck), round(w, 3), round(h, 3), round(bleed, 3))
        target = _Target(game.id, deck.id, card.name, f"card {card.name!r}",
                         w / MM, h / MM, bleed / MM, True)
        return (key, (card, deck), f"{game.id}/{template_slug(card.type)}.j2",
                lambda: self.front_context(card, deck), target,
                f"card {card.name!r} of type {card.type!r}")

    def front_context(self, card, deck) -> dict[str, Any]:
        """What a card template sees (besides W, H, BLEED, SAFE): `card` (its fields and
        name, type, text, copies, image, flavor), `deck`, `game`, `card_named(name)`."""
        game = self._game(card.game)
        return {"card": _card_context(card), "deck": self._deck_context(deck),
                "game": self._game_context(game), "card_named": _lookup(game)}

    # Deck and game contexts are the same for every card: built once (a deck's count
    # sums its cards, which for a 10,000-card deck must not happen per card).
    def _deck_context(self, deck) -> dict[str, Any]:
        cached = self._contexts.get(id(deck))
        if cached is None or cached[0] is not deck:
            cached = (deck, _deck_context(deck))
            self._contexts[id(deck)] = cached
        return cached[1]

    def _game_context(self, game) -> dict[str, Any]:
        cached = self._contexts.get(id(game))
        if cached is None or cached[0] is not game:
            cached = (game, _game_context(game))
            self._contexts[id(game)] = cached
        return cached[1]

    def draw_back(self, canvas, deck, x, y, w, h, bleed) -> list[LayoutWarning]:
        game = self._game(deck.game)
        key = ("back", id(deck), round(w, 3), round(h, 3), round(bleed, 3))

        def context():
            back = {"title": deck.title, "subtitle": None, "image": None, **deck.back}
            return {"deck": self._deck_context(deck), "back": back,
                    "game": self._game_context(game)}

        target = _Target(game.id, deck.id, "(back)", f"back of deck {deck.id!r}",
                         w / MM, h / MM, bleed / MM, True)
        return self._draw(canvas, key, (deck,), f"{game.id}/back.j2", context, target, x, y)

    def draw_mat(self, canvas, game, mat_id, x, y, w, h, bleed=0.0,
                 safe=SAFE_MM * MM) -> list[LayoutWarning]:
        """A mat with its trim at (x, y, w, h); the background runs `bleed` out and the
        template keeps everything else `safe` (points) inside the trim (SAFE)."""
        game = self._game(game)
        mat = dict(self._extra(game, "mats", mat_id))
        mat["id"] = mat_id
        key = ("mat", game.id, mat_id, round(w, 3), round(h, 3), round(bleed, 3),
               round(safe, 3))
        target = _Target(game.id, "(mats)", mat_id, f"mat {mat_id!r}", w / MM, h / MM,
                         bleed / MM, False, safe_mm=safe / MM)
        return self._draw(canvas, key, (game,), f"{game.id}/mat.j2",
                          lambda: {"mat": mat, "game": self._game_context(game)}, target, x, y)

    def draw_reference(self, canvas, game, x, y, w, h) -> list[LayoutWarning]:
        game = self._game(game)
        reference = game.extras.get("reference")
        if not reference:
            raise RenderError(f"game {game.id!r} has no reference in cards.yaml")
        key = ("reference", game.id, round(w, 3), round(h, 3))
        target = _Target(game.id, "(reference)", "reference", "reference card", w / MM,
                         h / MM, 0.0, True)
        return self._draw(canvas, key, (game,), f"{game.id}/reference.j2",
                          lambda: {"reference": dict(reference), "game": self._game_context(game)},
                          target, x, y)

    def draw_die_face(self, canvas, game, set_id, value, x, y, size) -> list[LayoutWarning]:
        game = self._game(game)
        dice = game.extras.get("dice") or {}
        die_set = dict(self._extra(game, "dice", "sets", set_id))
        die_set["id"] = set_id
        key = ("die", game.id, set_id, value, round(size, 3))
        target = _Target(game.id, "(dice)", f"{set_id} {value}", f"die face {set_id} {value}",
                         size / MM, size / MM, 0.0, False)
        return self._draw(canvas, key, (game,), f"{game.id}/die-face.j2",
                          lambda: {"set": die_set, "value": value, "dice": dict(dice),
                                   "game": self._game_context(game)}, target, x, y)

    def draw_token(self, canvas, game, token_id, cx, cy, radius,
                   bleed=0.0) -> list[LayoutWarning]:
        """A token whose cut circle is (cx, cy, radius); its fill runs `bleed` beyond."""
        game = self._game(game)
        token = dict(self._extra(game, "tokens", token_id))
        token["id"] = token_id
        key = ("token", game.id, token_id, round(radius, 3), round(bleed, 3))
        size = 2 * radius
        target = _Target(game.id, "(tokens)", token_id, f"token {token_id!r}", size / MM,
                         size / MM, bleed / MM, False)
        return self._draw(canvas, key, (game,), f"{game.id}/token.j2",
                          lambda: {"token": token, "game": self._game_context(game)},
                          target, cx - radius, cy - radius)

    # ── internals ──────────────────────────────────────────────────────────────────
    def _game(self, game):
        if isinstance(game, str):
            try:
                return self.db.games[game]
            except KeyError:
                raise RenderError(f"unknown game {game!r}") from None
        return game

    @staticmethod
    def _extra(game, *path):
        node: Any = game.extras
        for i, step in enumerate(path):
            if not isinstance(node, dict) or step not in node:
                raise RenderError(f"game {game.id!r} has no {'.'.join(path[: i + 1])} "
                                  f"in cards.yaml")
            node = node[step]
        return node

    def _planned(self, key, keep, template, context, target: _Target,
                 missing: str | None = None) -> tuple:
        """(keep, ops, warnings, edge paint) of a face, planned once and cached."""
        cached = self._plans.get(key)
        if cached is None:
            cached = (keep, *self._plan(template, context, target, missing), target.edges)
            self._plans[key] = cached
            if len(self._plans) > self._cache_size:
                self._plans.popitem(last=False)
        else:
            self._plans.move_to_end(key)
        return cached

    def _draw(self, canvas, key, keep, template, context, target: _Target, x, y,
              missing: str | None = None) -> list[LayoutWarning]:
        _, ops, warnings, _ = self._planned(key, keep, template, context, target, missing)
        canvas.saveState()
        # origin: top-left of the trim box (written directly: this runs per card)
        canvas.addLiteral(f"1 0 0 1 {x:.4f} {y + target.H * MM:.4f} cm")
        if key[0] in ("front", "back"):
            # Nothing a template draws may spill past the bleed onto a neighbour card
            # or into the margin where the crop marks are.
            b, w, h = target.bleed * MM, target.W * MM, target.H * MM
            canvas.addLiteral(f"{-b:.4f} {-(h + b):.4f} {w + 2 * b:.4f} {h + 2 * b:.4f} re W n")
        try:
            self._replay(canvas, ops)
        finally:
            canvas.restoreState()
        return list(warnings)

    @staticmethod
    def _replay(canvas, ops) -> None:
        """Draw keyed operations, reusing their PDF code within one document.

        Most elements (frames, panels, labels, icons) are the same on every card of a
        type. The first time one is drawn on a canvas its PDF operators are kept; later
        cards add them with `addLiteral`, skipping ReportLab's number formatting and
        text encoding, which is most of the drawing time. This is safe within one
        document only (font subsets and graphics states are named per document), so the
        code is stored on the canvas itself."""
        code = getattr(canvas, "_code", None)          # ReportLab's operator list
        if not isinstance(code, list):
            CardRenderer._run(canvas, [op for _, op in ops])
            return
        store = canvas.__dict__.get("_pnp_code")
        if store is None:
            store = canvas.__dict__["_pnp_code"] = RecentCache(8192)
        for key, op in ops:
            if key is None:
                CardRenderer._run(canvas, [op])
                continue
            known = store.get(key)
            if known is not None:
                canvas.addLiteral(known)
                continue
            code = canvas._code                        # beginForm swaps the list
            start = len(code)
            CardRenderer._run(canvas, [op])
            store.put(key, "\n".join(code[start:]))

    def _plan(self, template: str, context, target: _Target, missing: str | None):
        if missing and not self.templates.exists(template):
            raise RenderError(f"{missing}: no template templates/{template}")
        try:
            target.design = nearest_design(self.templates.design_sizes(template),
                                           target.W, target.H)
        except TemplateError as exc:
            raise RenderError(str(exc)) from None
        ctx = context()
        width, height = target.design or (target.W, target.H)
        if self.stamp is None:          # {{ version }}, {{ build_date }}: pnp.draw.stamp
            from pnp.draw.stamp import stamp

            self.stamp = stamp(self.db)
        # MIN_PT: the smallest size that prints, in the template's own points
        ctx.update(W=width, H=height, BLEED=target.bleed, SAFE=target.safe_mm,
                   MIN_PT=round(self.min_text_pt / target.scale, 2), **self.stamp)
        try:
            elements = self.templates.render_elements(template, ctx, target.what)
        except TemplateError as exc:
            raise RenderError(str(exc)) from None
        target.edges = _edge_paint(elements, target)
        warnings: list[LayoutWarning] = []
        ops: list[tuple] = []
        if not elements:
            warnings.append(LayoutWarning(target.game, target.deck, target.card, "template",
                                          f"templates/{template} produced no elements"))
        dims = (target.W, target.H, target.bleed, target.safe, target.design)
        for index, (line, raw) in enumerate(elements):
            # the same element line (a frame, a label) recurs on every card of a type:
            # compile it once per trim size
            cached = self._compiled.get((line, dims)) if line is not None else None
            if cached is None:
                try:
                    kind, el = _normalise(raw)
                    name = el["id"] or f"{kind} {index + 1}"
                    notes: list[LayoutWarning] = []
                    compiled = self._compile(kind, el, name, target, notes)
                except _ElementError as exc:
                    raise RenderError(
                        f"templates/{template}: element {index + 1}: {exc} ({target.what})"
                    ) from None
                cached = (compiled, [(w.element, w.message) for w in notes])
                if line is not None and kind != "image":      # images: check each card
                    self._compiled.put((line, dims), cached)
            reusable = line is not None and raw and next(iter(raw)) != "image"
            ops.extend(((self._token, line, dims, i) if reusable and _replayable(op) else None,
                        op)
                       for i, op in enumerate(cached[0]))
            warnings.extend(LayoutWarning(target.game, target.deck, target.card, element,
                                          message) for element, message in cached[1])
        return ops, warnings

    # compile one element into draw operations in points, y up from the top-left
    def _compile(self, kind, el, name, t: _Target, warnings) -> list[tuple]:
        def warn(message):
            warnings.append(LayoutWarning(t.game, t.deck, t.card, name, message))

        if kind in ("rect", "ellipse", "image"):
            bx, by, bw, bh = t.box(_numbers(el["box"], 4, "box"))
            if el.get("bleed"):
                bx, by, bw, bh = _bleed_box(bx, by, bw, bh, t)
            box = (bx * MM, -(by + bh) * MM, bw * MM, bh * MM)
        if kind == "rect":
            return [("rect", box, _color(el["fill"], "fill"), _color(el["stroke"], "stroke"),
                     _number(el["width"], "width"), _number(el["radius"], "radius") * t.scale * MM,
                     _number(el["alpha"], "alpha"), el["dash"])]
        if kind == "ellipse":
            return [("ellipse", box, _color(el["fill"], "fill"), _color(el["stroke"], "stroke"),
                     _number(el["width"], "width"), _number(el["alpha"], "alpha"))]
        if kind in ("polygon", "line"):
            points = el["points"]
            if not isinstance(points, list) or len(points) < 2:
                raise _ElementError(f"{kind}: points must be a list of [x, y] pairs")
            pts = [(x * MM, -y * MM) for x, y in
                   (t.point(*_numbers(p, 2, "point")) for p in points)]
            if kind == "polygon":
                return [("polygon", pts, _color(el["fill"], "fill"),
                         _color(el["stroke"], "stroke"), _number(el["width"], "width"),
                         _number(el["alpha"], "alpha"))]
            return [("line", pts, _color(el["color"], "color"), _number(el["width"], "width"),
                     el["dash"], _number(el["alpha"], "alpha"))]
        if kind == "image":
            path = self._image_path(el["path"], t)
            return [("image", box, str(path), self._image_size(path, t), el["fit"])]
        if kind == "icon":
            if el["name"] not in icons.ICON_NAMES:
                raise _ElementError(f"icon: unknown icon {el['name']!r} "
                                    f"(known: {', '.join(sorted(icons.ICON_NAMES))})")
            cx, cy = t.point(*_numbers(el["center"], 2, "center"))
            return [("icon", el["name"], cx * MM, -cy * MM,
                     _number(el["size"], "size") * t.scale * MM,
                     _color(el["color"], "color"), _color(el["ink"], "ink"))]
        if kind == "text":
            return self._compile_text(el, t, warn)
        if kind == "badge":
            return self._compile_badge(el, t, warn)
        raise AssertionError(kind)

    def _font_role(self, role: Any) -> str:
        if role not in self.fonts:
            raise _ElementError(f"unknown font {role!r} (known: {', '.join(self.fonts)})")
        return role

    def _text_ops(self, text: Any, box_mm, role, size, min_size, align, valign, leading,
                  color, use_markup, warn, what="text") -> list[tuple]:
        bx, by, bw, bh = box_mm
        if text is None or text == "":
            return []
        text = str(text)
        from carddb.limits import TEMPLATE_TEXT

        if len(text) > TEMPLATE_TEXT:      # fitting it would take minutes
            raise _ElementError(f"{what} of {len(text):,} characters, more than "
                                f"{TEMPLATE_TEXT:,} in one element (limit)")
        try:
            paragraphs = markup.parse(text) if use_markup else [
                [[markup.Span(line)] for line in text.split("\n")]]
        except markup.MarkupError as exc:
            raise _ElementError(f"{what}: {exc}") from None
        floor = self.min_text_pt
        size, min_size = max(size, floor), max(min(min_size, size), floor)
        fitted = textbox.fit(paragraphs, self.fonts, role, size, min_size, bw * MM, bh * MM,
                             align, valign, leading)
        if fitted.overflow:
            at = f"{min_size:.3g} pt" + (" (print.min_text_pt)" if min_size <= floor else "")
            warn(f"text does not fit its {bw:.4g} x {bh:.4g} mm box even at {at}; "
                 f"cut after {fitted.cut_after!r}")
        if fitted.missing:
            warn(f"no font has the character{'s' if len(fitted.missing) > 1 else ''} "
                 f"{glyphs.describe(fitted.missing)}: printed as an empty box "
                 f"(print.fonts, or the DejaVu Sans fallback)")
        return [("text", fitted.pieces, bx * MM, -by * MM, fitted.size, color)]

    def _compile_text(self, el, t: _Target, warn) -> list[tuple]:
        box = t.box(_numbers(el["box"], 4, "box"))
        if t.safe:
            box = _inside_safe_zone(box, t, warn)
        size = _number(el["size"], "size") * t.scale
        min_size = _number(el["min_size"], "min_size") * t.scale if el["min_size"] is not None \
            else round(size * 0.7 * 4) / 4
        return self._text_ops(el["text"], box, self._font_role(el["font"]), size, min_size,
                              el["align"], el["valign"], _number(el["leading"], "leading"),
                              _color(el["color"], "color"), bool(el["markup"]), warn)

    def _compile_badge(self, el, t: _Target, warn) -> list[tuple]:
        cx, cy = t.point(*_numbers(el["center"], 2, "center"))
        size = _number(el["size"], "size") * t.scale
        shape = el["shape"]
        if t.safe and (el["value"] is not None or el["label"] is not None):
            half = size / 2
            if (cx - half < SAFE_MM - _EPS or cy - half < SAFE_MM - _EPS
                    or cx + half > t.W - SAFE_MM + _EPS or cy + half > t.H - SAFE_MM + _EPS):
                warn("badge reaches outside the safe zone (1/8 in inside the trim)")
        ops: list[tuple] = [("shape", shape, cx * MM, -cy * MM, size * MM,
                             _color(el["fill"], "fill"), _color(el["stroke"], "stroke"),
                             _number(el["width"], "width"))]
        fw, fh, fdy = icons.SHAPE_TEXT_BOX[shape]
        if el["icon"] is not None:
            if el["icon"] not in icons.ICON_NAMES:
                raise _ElementError(f"badge: unknown icon {el['icon']!r}")
            ops.append(("icon", el["icon"], cx * MM, -(cy - fdy * size) * MM,
                        size * MM * max(fw, fh) * 1.05, None, None))
        if el["value"] is not None:
            font_size = (_number(el["font_size"], "font_size") * t.scale
                         if el["font_size"] is not None
                         else size * fh * MM * 1.05)
            box = (cx - size * fw / 2, cy - size * fh / 2 - fdy * size, size * fw, size * fh)
            ops += self._text_ops(str(el["value"]), box, self._font_role(el["font"]), font_size,
                                  font_size * 0.4, "center", "middle", 1.0,
                                  _color(el["color"], "color"), True, warn, "badge value")
        if el["label"] is not None:
            label_size = max(_number(el["label_size"], "label_size") * t.scale,
                             self.min_text_pt)
            lh = label_size * 1.25 / MM
            box = (cx - size * 0.8, cy + size / 2 + 0.3, size * 1.6, lh)
            ops += self._text_ops(str(el["label"]), box, self._font_role(el["label_font"]),
                                  label_size, label_size * 0.7, "center", "top", 1.0,
                                  _color(el["label_color"], "label_color"), True, warn,
                                  "badge label")
        return ops

    def _image_path(self, value: Any, t: _Target) -> Path:
        root = Path(self.db.root).resolve()
        if not isinstance(value, str) or not value.strip():
            raise RenderError(f"{t.what}: image path must be a file name, got {value!r}")
        try:
            path = (root / value).resolve()
            found = path.is_file()
        except (OSError, ValueError, RuntimeError):
            raise RenderError(f"{t.what}: image path {value[:100]!r} is not a usable file "
                              "name") from None
        try:
            path.relative_to(root)
        except ValueError:
            raise RenderError(
                f"{t.what}: image path {value!r} escapes the project folder {root}"
            ) from None
        if not found:
            raise RenderError(f"{t.what}: image {value!r} not found ({path})")
        return path

    def _image_size(self, path: Path, t: _Target) -> tuple[int, int]:
        size = self._image_sizes.get(path)
        if size is None:
            from pnp.draw.art import ArtError, open_art

            try:                                # allow-listed decoders only (pnp/draw/art.py)
                size = open_art(path).size
            except ArtError as exc:
                raise RenderError(f"{t.what}: {exc}") from None
            self._image_sizes[path] = size
        return size

    # ── drawing the compiled operations ────────────────────────────────────────────
    @staticmethod
    def _run(c, ops) -> None:
        for op in ops:
            kind = op[0]
            if kind == "rect":
                _, (x, y, w, h), fill, stroke, width, radius, alpha, dash = op
                _set_paint(c, fill, stroke, width, alpha, dash)
                if radius > 0:
                    c.roundRect(x, y, w, h, radius, stroke=stroke is not None,
                                fill=fill is not None)
                else:
                    c.rect(x, y, w, h, stroke=stroke is not None, fill=fill is not None)
                _reset_paint(c, alpha, dash)
            elif kind == "ellipse":
                _, (x, y, w, h), fill, stroke, width, alpha = op
                _set_paint(c, fill, stroke, width, alpha, None)
                c.ellipse(x, y, x + w, y + h, stroke=stroke is not None, fill=fill is not None)
                _reset_paint(c, alpha, None)
            elif kind == "polygon":
                _, pts, fill, stroke, width, alpha = op
                _set_paint(c, fill, stroke, width, alpha, None)
                c.drawPath(_polyline(c, pts, closed=True), stroke=stroke is not None,
                           fill=fill is not None)
                _reset_paint(c, alpha, None)
            elif kind == "line":
                _, pts, color, width, dash, alpha = op
                _set_paint(c, None, color, width, alpha, dash)
                c.drawPath(_polyline(c, pts, closed=False), stroke=1, fill=0)
                _reset_paint(c, alpha, dash)
            elif kind == "text":
                _, pieces, bx, btop, size, color = op
                text = c.beginText()
                text.setFillColor(color)
                current = None
                for p in pieces:
                    if p.icon:
                        continue
                    if p.font != current:
                        text.setFont(p.font, size)
                        current = p.font
                    text.setTextOrigin(bx + p.x, btop - p.baseline)
                    text.textOut(p.text)
                c.drawText(text)
                for p in pieces:
                    if p.icon:
                        icon_size = size * textbox.ICON_EM
                        icons.draw_icon(c, p.icon, bx + p.x + icon_size / 2,
                                        btop - p.baseline + size * 0.32, icon_size * 0.98)
            elif kind == "icon":
                _, name, cx, cy, size, color, ink = op
                icons.draw_icon(c, name, cx, cy, size, color, ink)
            elif kind == "shape":
                _, shape, cx, cy, size, fill, stroke, width = op
                icons.draw_shape(c, shape, cx, cy, size, fill, stroke, width)
            elif kind == "image":
                _, (x, y, w, h), path, (iw, ih), fit = op
                c.saveState()
                clip = c.beginPath()
                clip.rect(x, y, w, h)
                c.clipPath(clip, stroke=0, fill=0)
                from pnp.draw.art import printable

                if fit == "stretch":
                    c.drawImage(printable(path, (iw, ih), w, h), x, y, w, h, mask="auto")
                else:
                    scale = (max if fit == "cover" else min)(w / iw, h / ih)
                    dw, dh = iw * scale, ih * scale
                    c.drawImage(printable(path, (iw, ih), dw, dh), x + (w - dw) / 2,
                                y + (h - dh) / 2, dw, dh, mask="auto")
                c.restoreState()


_ALPHA_AT = {"rect": 6, "ellipse": 5, "polygon": 5, "line": 5}


def card_renderer(db: Any, notify: Any = None) -> CardRenderer:
    """The card renderer of `pnp build` with the database's fonts registered;
    `notify(line)` gets a notice for each font role filled from another."""
    from pnp.draw.art import listen
    from pnp.draw.fonts import register_fonts

    listen(notify)                          # art downsampled for print is told there too
    return CardRenderer(db, register_fonts(db.print.fonts, db.root, notify=notify))


def _replayable(op: tuple) -> bool:
    """Transparency needs a graphics-state resource on each page: such an operation
    is drawn live every time rather than replayed as recorded PDF code."""
    at = _ALPHA_AT.get(op[0])
    return at is None or op[at] == 1.0


def _set_paint(c, fill, stroke, width, alpha, dash) -> None:
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


def _reset_paint(c, alpha, dash) -> None:
    if alpha != 1.0:
        c.setFillAlpha(1.0)
        c.setStrokeAlpha(1.0)
    if dash:
        c.setDash()


def _bleed_box(x, y, w, h, t: _Target):
    """Grow a box out into the bleed on every side where it touches the trim edge."""
    b = t.bleed
    left, top, right, bottom = x, y, x + w, y + h
    if left <= _EPS:
        left = min(left, -b)
    if top <= _EPS:
        top = min(top, -b)
    if right >= t.W - _EPS:
        right = max(right, t.W + b)
    if bottom >= t.H - _EPS:
        bottom = max(bottom, t.H + b)
    return left, top, right - left, bottom - top


def _edge_paint(elements, t: _Target) -> tuple:
    """What paints the bleed along each edge (left, bottom, right, top), from the
    elements marked `bleed: true`: per edge the fills and image paths drawn there since
    the last one that covers the whole edge. Equal keys mean equal bleed; an element
    that cannot be read makes its edges unique (never equal to another card's)."""
    stacks: list[list] = [[], [], [], []]
    for index, (_line, raw) in enumerate(elements):
        params = (raw.get("rect") or raw.get("image")) if isinstance(raw, dict) else None
        if not isinstance(params, dict) or not params.get("bleed"):
            continue  # only bleed: true rectangles and images paint the bleed
        try:
            kind, el = _normalise(raw)
            if kind not in ("rect", "image") or not el.get("bleed"):
                continue
            x, y, w, h = t.box(_numbers(el["box"], 4, "box"))
            paint = (("fill", str(el["fill"]).lower(), float(el["alpha"]))
                     if kind == "rect" else ("image", str(el["path"])))
        except (_ElementError, TypeError, ValueError):
            stacks = [s + [("unreadable", t.card, index)] for s in stacks]
            continue
        left, top = x <= _EPS, y <= _EPS
        right, bottom = x + w >= t.W - _EPS, y + h >= t.H - _EPS
        full_x, full_y = left and right, top and bottom
        opaque = kind == "rect" and paint[2] >= 1 and el.get("fill") is not None
        for i, (touches, whole) in enumerate(((left, full_y), (bottom, full_x),
                                              (right, full_y), (top, full_x))):
            if touches:
                stacks[i] = [paint] if (whole and opaque) else stacks[i] + [paint]
    return tuple(tuple(s) for s in stacks)


def _inside_safe_zone(box, t: _Target, warn):
    x, y, w, h = box
    left, top = max(x, SAFE_MM), max(y, SAFE_MM)
    right, bottom = min(x + w, t.W - SAFE_MM), min(y + h, t.H - SAFE_MM)
    if (left, top, right, bottom) != (x, y, x + w, y + h):
        if left - x > _EPS or top - y > _EPS or x + w - right > _EPS or y + h - bottom > _EPS:
            warn("text box reaches outside the safe zone (1/8 in inside the trim); "
                 "moved inside")
    return left, top, max(right - left, 0.1), max(bottom - top, 0.1)


def nearest_design(designs: tuple[tuple[float, float], ...], w: float,
                   h: float) -> tuple[float, float] | None:
    """Of a template's design sizes (mm), the one a `w` x `h` mm card is drawn with: the
    one needing the least scaling (ties: the first declared); None if it declares none."""
    import math

    if not designs:
        return None
    return min(designs, key=lambda d: max(abs(math.log(w / d[0])), abs(math.log(h / d[1]))))


_TEMPLATES: dict[tuple, Templates] = {}
_RENDERERS = itertools.count()


def _templates_for(folders: list[Path], root: Path) -> Templates:
    """Compiled templates are shared by every renderer of the process (compiling them
    is a good part of a small build) until a template file changes."""
    stamp = []
    for folder in folders:
        if folder.is_dir():
            stamp += [(str(p), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*.j2"))]
    key = (tuple(str(f) for f in folders), str(root), tuple(stamp))
    templates = _TEMPLATES.get(key)
    if templates is None:
        if len(_TEMPLATES) > 16:
            _TEMPLATES.clear()
        templates = _TEMPLATES[key] = Templates(folders, display_root=root)
    return templates


# ── template contexts: plain data only ─────────────────────────────────────────────

def _card_context(card) -> dict[str, Any]:
    data = dict(card.fields)
    data.setdefault("flavor", None)
    data.update(name=card.name, type=card.type, text=card.text or "", copies=card.copies,
                game=card.game, deck=card.deck, image=card.image)
    return data


def _lookup(game):
    """`card_named("Captain Volt")` in a template: another card of the same game (its
    context mapping), or None. Lets an Action card show its character's icon."""
    def card_named(name: Any) -> dict[str, Any] | None:
        try:
            return _card_context(game.card(str(name)))
        except KeyError:
            return None

    return card_named


def _deck_context(deck) -> dict[str, Any]:
    return {"id": deck.id, "game": deck.game, "title": deck.title,
            "size_mm": list(deck.size_mm), "back": dict(deck.back), "count": deck.count}


def _game_context(game) -> dict[str, Any]:
    colors = {"primary": "#333333", "secondary": "#111111", "paper": "#ffffff", **game.colors}
    return {"id": game.id, "title": game.title, "colors": colors,
            "min_players": game.min_players, "max_players": game.max_players,
            "extras": game.extras}
