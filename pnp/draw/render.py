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

The elements themselves live in pnp/draw/elements/ (one module each: schema, compile
step, paint step); this module plans faces (template -> elements -> operations), caches
and replays them.
"""

from __future__ import annotations

import itertools
import os
import re
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pnp.draw import card_shape
from pnp.draw.elements import normalise as normalise_element
from pnp.draw.elements import registry as element_registry
from pnp.draw.elements.base import EPS as _EPS
from pnp.draw.elements.base import MM, SAFE_MM, ElementError, Target, numbers
from pnp.draw.layout_warning import LayoutWarning
from pnp.draw.recent import RecentCache
from pnp.draw.templates import TemplateError, Templates

DEFAULT_MIN_TEXT_PT = 6.0  # print.min_text_pt: no smaller text is printed
DIE_SAFE_MM = 1.0          # a die's rounded edge: no label text box nearer the edge
# pnp build --large-print: every text is set as large as its box allows, up to this size
# (the large print of a designer's draft standard, issue 35); a box that cannot hold it
# is reported
LARGE_PRINT_PT = 18.0
_Target = Target           # what is being drawn (pnp.draw.elements.base)


class RenderError(Exception):
    """Something a designer must fix before a card can be drawn: a template error, an
    invalid element, a missing or escaping image path. The message is one line."""


# A face's plan: (what it keeps alive, its (replay key, op) pairs, warnings, edge paint,
# the text code kept with a stored front or None): CardRenderer._planned
_Plan = tuple[Any, Sequence[Any], list[LayoutWarning], Any, "_KeptText | None"]


class PlannedFace:
    """One face as the renderer planned it, told to each of `CardRenderer.face_observers`
    (the reprint record hashes it, pnp.artefacts.drawn). `ops`: the (replay key, op)
    pairs the face is drawn from; `memo`: what an observer keeps about this plan (kept
    with the plan while it is cached); `replan(stamp)`: the face's ops planned again with
    other version-stamp values (pnp.draw.stamp), the face's own plan left as it is.
    (A plain class: a dataclass costs a millisecond and a half at every start-up.)"""

    __slots__ = ("template", "target", "ops", "stamp", "replan", "memo")

    def __init__(self, template: str, target: Target, ops: Sequence, stamp: dict[str, str],
                 replan: Callable[[dict[str, str]], list], memo: dict | None = None):
        self.template, self.target, self.ops, self.stamp = template, target, ops, stamp
        self.replan = replan
        self.memo: dict[str, Any] = {} if memo is None else memo

    def __repr__(self) -> str:
        return f"PlannedFace({self.template!r}, {self.target.what!r}, {len(self.ops)} ops)"


class KeptFace:
    """A card front drawn as an earlier build drew it (a kept sheet, pnp.artefacts.
    kept_sheets), told to an observer that takes kept faces (`CardRenderer.observe_faces`
    with `kept=`): who it is (the ids a PlannedFace's target names) and `memo`, what the
    observers kept about its plan when it was drawn (to read: a change is not kept).
    `planned()` is the PlannedFace of a plan reused, made only when asked (an observer
    whose memo lacks what it needs): a kept sheet of an 8,000-card deck shows ~8,000
    fronts after every edit, and making each one's target and PlannedFace was a sixth
    of a watch's edit build (issue 36 item 2)."""

    __slots__ = ("game", "deck", "card", "memo", "_front", "_planned")

    def __init__(self, game: str, deck: str, card: str, memo: dict,
                 front: Callable[[], PlannedFace]) -> None:
        self.game, self.deck, self.card, self.memo = game, deck, card, memo
        self._front = front
        self._planned: PlannedFace | None = None

    def planned(self) -> PlannedFace:
        """The face as a plan reused (one PlannedFace for every observer asking)."""
        if self._planned is None:
            self._planned = self._front()
        return self._planned

    def __repr__(self) -> str:
        return f"KeptFace({self.game!r}, {self.deck!r}, {self.card!r})"


class _LazyOps(Sequence):
    """A face's (replay key, op) pairs, got from `take()` when first read."""

    def __init__(self, take: Callable[[], Sequence]) -> None:
        self._take: Callable[[], Sequence] | None = take
        self._ops: Sequence = ()

    def _got(self) -> Sequence:
        if self._take is not None:
            self._ops, self._take = self._take(), None
        return self._ops

    def __len__(self) -> int:
        return len(self._got())

    def __getitem__(self, index):
        return self._got()[index]

    def __iter__(self):
        return iter(self._got())


def template_slug(card_type: str) -> str:
    """`Team Name` -> `team-name` (templates/<game>/team-name.j2). Kept per type: it is
    asked for every card front (twice for a kept sheet's card), a regular expression
    substitution each time."""
    slug = _SLUGS.get(card_type)
    if slug is None:
        slug = re.sub(r"[^a-z0-9]+", "-", card_type.lower()).strip("-")
        if len(_SLUGS) < 1024:      # a database's card types, bounded all the same
            _SLUGS[card_type] = slug
    return slug


_SLUGS: dict[str, str] = {}


class CardRenderer:
    """Draws the components of a `carddb.Database` through its templates."""

    def __init__(self, db, fonts: dict[str, str], templates: Path | list[Path] | None = None,
                 cache_size: int = 512, min_text_pt: float | None = None,
                 ink_saver: bool | None = None):
        missing = {"regular", "bold", "italic", "bolditalic"} - set(fonts)
        if missing:
            raise ValueError(f"fonts lacks roles: {', '.join(sorted(missing))}")
        self.db = db
        self.fonts = dict(fonts)
        profile = getattr(db, "print", None)
        self.min_text_pt = float(min_text_pt if min_text_pt is not None
                                 else getattr(profile, "min_text_pt", DEFAULT_MIN_TEXT_PT))
        # INK_SAVER in every template: light frames and backs (print.ink_saver, --ink-saver)
        self.ink_saver = bool(ink_saver if ink_saver is not None
                              else getattr(profile, "ink_saver", False))
        # `lang` in every template: the language printed (carddb.languages.localised), the
        # default one of a database not localised, None when it declares none
        self.language: str | None = getattr(db, "language", None) or next(
            iter(getattr(getattr(db, "languages", None), "codes", ())), None)
        if templates is None:
            from pnp.draw.template_folders import bundled_templates

            folders = [Path(db.root) / "templates", bundled_templates()]
        elif isinstance(templates, list | tuple):
            folders = [Path(t) for t in templates]
        else:
            folders = [Path(templates)]
        self.templates = _templates_for(folders, Path(db.root))
        self._plans: OrderedDict[tuple, _Plan] = OrderedDict()
        self._cache_size = cache_size
        self._image_sizes: dict[Path, tuple[int, int]] = {}
        self._compiled = RecentCache(4096)   # element line -> (operations, warnings)
        self._fronts = RecentCache(64)       # _recent_front
        self._front_keys = RecentCache(64)   # _front_key
        self._contexts: dict[int, tuple[Any, dict[str, Any]]] = {}
        # (id(deck), template) -> (deck, the digest of what its fronts share: _front_key)
        self._scopes: dict[tuple[int, str], tuple[Any, str]] = {}
        # (id(deck), game, card type, trim size) -> (deck, its kept front keys): front_key
        self._known: dict[tuple, tuple[Any, dict]] = {}
        self._own_icons: dict[str, tuple[Any, dict[str, str]]] = {}   # game id -> (game, refs)
        self._token = next(_RENDERERS)      # keys this renderer's code stored on a canvas
        self.stamp: dict[str, str] | None = None    # read on the first plan
        # card fronts' plans across builds (pnp.draw.plan_cache.PlanStore; None: none)
        self.plan_store: Any = None
        # accessibility (pnp build --contrast, --large-print; pnp validate measures
        # contrast): set before the checks are installed (pnp.draw.checks.install)
        self.check_contrast = False
        # the faces' background rasters the contrast check keeps (pnp.draw.contrast.
        # Backgrounds; None: its own): `pnp validate` shares one among its languages
        self.contrast_backgrounds: Any = None
        self.large_print: float | None = None
        self._key_base: str | None = None
        # called with each PlannedFace when a face is planned (not when its plan is reused)
        self.face_observers: list[Callable[[PlannedFace], None]] = []
        # observer -> what it is told of a kept sheet's fronts instead (observe_faces)
        self._kept_observers: dict[Callable, Callable[[KeptFace], None]] = {}
        # each planned face's warnings pass through these (add_face_check)
        self.face_checks: list[Callable[[Target, list, list], list]] = []
        # per document (canvas): the PDF code of each replayable operation (`_replay`)
        self._documents: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def add_face_check(self, check: Callable[[Target, list, list], list]) -> None:
        """Run `check(target, ops, warnings) -> warnings` on each face planned from now
        on (pnp.draw.checks: the layout checks); a check added twice runs once."""
        if check not in self.face_checks:
            self.face_checks.append(check)
            self._key_base = None

    def observe_faces(self, observer: Callable[[PlannedFace], None],
                      kept: Callable[[KeptFace], None] | None = None) -> None:
        """Call `observer(face)` with each face planned from now on (a PlannedFace).
        The card fronts a kept sheet shows (`kept_fronts`) are told to `kept(face)`
        when given, a KeptFace (no plan made), else to `observer` as plans reused."""
        self.face_observers.append(observer)
        if kept is not None:
            self._kept_observers[observer] = kept

    def unobserve_faces(self, observer: Callable[[PlannedFace], None]) -> None:
        """Stop telling `observer` (and its `kept`) the faces planned or kept."""
        if observer in self.face_observers:
            self.face_observers.remove(observer)
        self._kept_observers.pop(observer, None)

    # ── public drawing API (docs/ARCHITECTURE.md, pnp contracts) ──────────────────
    def draw_front(self, canvas, card, deck, x, y, w, h, bleed) -> list[LayoutWarning]:
        key, keep, template, context, target, missing = self._front(card, deck, w, h, bleed)
        return self._draw(canvas, key, keep, template, context, target, x, y, missing=missing)

    def bleed_colors(self, card, deck, w, h, bleed) -> tuple:
        """What paints the bleed of a front on its (left, bottom, right, top) edges, as
        comparable keys: two cards may share a cut line without a gutter only where
        these are equal. The card is planned (and its plan cached for draw_front)."""
        return self._planned(*self._front(card, deck, w, h, bleed))[3]

    def front_key(self, card, deck, w, h, bleed) -> str | None:
        """The key a card front's plan is stored under (pnp.draw.plan_cache): everything
        planning reads but the other cards it looks up and the files it draws (see
        `front_depends`); None without a plan store. Nothing is planned."""
        if self.plan_store is None:
            return None
        known = None
        if _front_keys is not None:
            known = self._keys_kept(card, deck, w, h, bleed)
            found = known.get(card.name)
            if found is not None and card_shape.same(found, card):
                return found[2]
        _, _, template, _, target, _ = self._recent_front(card, deck, w, h, bleed)
        key = self._front_key(card, deck, self._game(card.game), template, target)
        if known is not None:
            shape = card_shape.shape(card)
            if shape is not None:
                known[card.name] = (card, shape, key)
        return key

    def _keys_kept(self, card, deck, w, h, bleed) -> dict:
        """The front keys kept across builds for the cards of `deck` of `card`'s type at
        a trim size (`_known_keys`), found once per build for each (deck, type, size),
        not for each card: its scope digest is the same for all of them."""
        where = (id(deck), card.game, card.type, w, h, bleed)
        found = self._known.get(where)
        if found is None or found[0] is not deck:
            game = self._game(card.game)
            scope = self._scope(deck, game, f"{game.id}/{template_slug(card.type)}.j2")
            found = self._known[where] = (deck, _known_keys(scope, w, h, bleed,
                                                            len(deck.cards)))
        return found[1]

    def _recent_front(self, card, deck, w, h, bleed) -> tuple:
        """`_front`, kept for the few cards a sheet is about (a kept sheet asks for each
        card's key, then tells it: `kept_front`)."""
        key = (id(card), id(deck), w, h, bleed)
        found = self._fronts.get(key)
        if found is None or found[1][0] is not card or found[1][1] is not deck:
            found = self._front(card, deck, w, h, bleed)
            self._fronts.put(key, found)
        return found

    def front_depends(self, card, deck, w, h, bleed) -> tuple[dict, dict] | None:
        """What a stored front's plan also depends on besides its key: (the other cards
        it looked up, the files it draws), to check with `depends_hold`; None when no
        plan of it is stored. Call after the front is drawn (its plan is then at hand)."""
        key = self.front_key(card, deck, w, h, bleed)
        found = _held_check(self.plan_store, f"{card.game}/{deck.id}", key) if key else None
        return None if found is None else (dict(found[0]), dict(found[1]))

    def depends_hold(self, game_id: str, looked: dict, files: dict) -> bool:
        """Whether the other cards a plan looked up and the files it draws are as they
        were (`front_depends`)."""
        return self._still_true((None,) * 5 + (looked, files, None, None),
                                self._game(game_id))

    def kept_fronts(self, deck, w, h, bleed, shown: list[tuple[Any, dict | None]]) -> None:
        """Card fronts drawn as an earlier build drew them (a kept sheet,
        pnp.artefacts.kept_sheets): each (card, memo), `memo` what the observers kept
        about its plan then. Each is told to every observer, as a KeptFace to one that
        takes them (`observe_faces`), else as a plan reused (`kept_front`)."""
        observers = [(observer, self._kept_observers.get(observer))
                     for observer in self.face_observers]
        if not observers:
            return
        game = deck.game
        for card, memo in shown:
            def front(card=card, memo=memo) -> PlannedFace:
                return self.kept_front(card, deck, w, h, bleed, dict(memo or {}))

            face = KeptFace(game, deck.id, card.name, memo or {}, front)
            for observer, kept in observers:
                if kept is not None:
                    kept(face)
                else:
                    observer(face.planned())

    def kept_front(self, card, deck, w, h, bleed, memo: dict) -> PlannedFace:
        """The PlannedFace of a card front drawn as an earlier build drew it, its plan
        reused with `memo`, what the observers kept about that plan; its operations are
        planned (or taken from the plan store) only if an observer reads them."""
        args = self._recent_front(card, deck, w, h, bleed)     # (plan key, keep, ...)
        _, _, template, context, target, missing = args
        ops = _LazyOps(lambda: self._planned(*args)[1])
        return PlannedFace(template, target, ops, dict(self.stamp or {}),
                           self._replanner(template, context, target, missing), memo)

    def _front(self, card, deck, w, h, bleed) -> tuple:
        """(plan key, objects the plan keeps alive, template, context, target, what a
        missing template is) of a card front at a trim size."""
        game = self._game(card.game)
        key = ("front", id(card), id(deck), round(w, 3), round(h, 3), round(bleed, 3))
        target = _Target(game.id, deck.id, card.name, f"card {card.name!r}",
                         w / MM, h / MM, bleed / MM, True)
        return (key, (card, deck), f"{game.id}/{template_slug(card.type)}.j2",
                lambda: self.front_context(card, deck), target,
                f"{_where(card)}card {card.name!r} of type {card.type!r}")

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
        key, keep, template, context, target = self._back(deck, w, h, bleed)
        return self._draw(canvas, key, keep, template, context, target, x, y)

    def _back(self, deck, w, h, bleed) -> tuple:
        """(plan key, objects the plan keeps alive, template, context, target) of a deck's
        back at a trim size."""
        game = self._game(deck.game)
        key = ("back", id(deck), round(w, 3), round(h, 3), round(bleed, 3))

        def context():
            back = {"title": deck.title, "subtitle": None, "image": None, **deck.back}
            return {"deck": self._deck_context(deck), "back": back,
                    "game": self._game_context(game)}

        target = _Target(game.id, deck.id, "(back)", f"back of deck {deck.id!r}",
                         w / MM, h / MM, bleed / MM, True)
        return key, (deck,), f"{game.id}/back.j2", context, target

    def back_key(self, deck, w, h, bleed) -> str | None:
        """The key a deck back's plan is stored under (as `front_key`: nothing planned)."""
        if self.plan_store is None:
            return None
        _, _, template, _, target = self._back(deck, w, h, bleed)
        return self._back_key(deck, self._game(deck.game), template, target)

    def back_files(self, deck, w, h, bleed) -> dict | None:
        """The files a stored back's plan draws (to check with `depends_hold`); None when
        no plan of it is stored. Call after the back is drawn."""
        key = self.back_key(deck, w, h, bleed)
        held = getattr(self.plan_store, "held", None)
        entry = held(f"{deck.game}/{deck.id}/back", key) if key and callable(held) else None
        return dict(entry[6]) if entry is not None and len(entry) == 9 else None

    def kept_back(self, deck, w, h, bleed, memo: dict) -> None:
        """A deck's back drawn as an earlier build drew it (its kept form,
        pnp.artefacts.kept_sheets): told to the observers as a plan reused (a
        PlannedFace, as `kept_front` makes one), its plan kept in the store as one used."""
        key, keep, template, context, target = self._back(deck, w, h, bleed)
        store = self.plan_store
        store.touch(f"{deck.game}/{deck.id}/back",
                    self._back_key(deck, self._game(deck.game), template, target))
        if not self.face_observers:
            return
        ops = _LazyOps(lambda: self._planned(key, keep, template, context, target)[1])
        self._tell(PlannedFace(template, target, ops, dict(self.stamp or {}),
                               self._replanner(template, context, target, None), memo))

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

    def draw_die_face(self, canvas, game, set_id, value, x, y, size,
                      face=None) -> list[LayoutWarning]:
        """`value`: the face's number, or its symbol; `face` (carddb.dice.Face): symbol,
        icon, value and the label to print (icon if any, else the symbol or number)."""
        from carddb.dice import die_set as find_set

        game = self._game(game)
        dice = game.extras.get("dice") or {}
        found = find_set(game.extras, set_id, game.title, game.extras.get("colors"))
        if found is None:
            raise RenderError(f"game {game.id!r} has no dice set {set_id!r} in cards.yaml")
        die, chosen = found
        die_set = {"id": set_id, "color": chosen.color, "ink": chosen.ink, "label": chosen.label,
                   "die": die.name}
        face_data = None if face is None else {"symbol": face.symbol, "icon": face.icon,
                                               "value": face.value, "label": face.label}
        key = ("die", game.id, set_id, value, round(size, 3))
        # text and badges keep DIE_SAFE_MM from the label's edge: the die's rounding
        target = _Target(game.id, "(dice)", f"{set_id} {value}", f"die face {set_id} {value}",
                         size / MM, size / MM, 0.0, True, safe_mm=DIE_SAFE_MM)
        return self._draw(canvas, key, (game,), f"{game.id}/die-face.j2",
                          lambda: {"set": die_set, "value": value, "face": face_data,
                                   "dice": dict(dice), "game": self._game_context(game)},
                          target, x, y)

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
                 missing: str | None = None) -> _Plan:
        """(keep, ops, warnings, edge paint, text code kept) of a face, planned once and
        cached (a card front also across builds, in `plan_store`: pnp.draw.plan_cache;
        with the code of its text there, `_KeptText`)."""
        cached = self._plans.get(key)
        if cached is None:
            if self.plan_store is not None and key[0] == "front":
                cached = self._stored_front(keep, template, context, target, missing)
            elif self.plan_store is not None and key[0] == "back":
                cached = self._stored_back(keep, template, context, target)
            else:
                ops, warnings = self._plan(template, context, target, missing)
                cached = (keep, ops, warnings, target.edges, None)
                if self.face_observers:
                    self._tell(PlannedFace(template, target, ops, dict(self.stamp or {}),
                                           self._replanner(template, context, target,
                                                           missing)))
            self._plans[key] = cached
            if len(self._plans) > self._cache_size:
                self._plans.popitem(last=False)
        else:
            self._plans.move_to_end(key)
        return cached

    def _replanner(self, template, context, target, missing):
        return lambda stamp: self._replan(template, context, target, missing, stamp)

    def _stored_front(self, keep, template, context, target: _Target, missing) -> _Plan:
        """A card front's plan from the plan store if it is still true, else planned
        and stored (its `card_named` look-ups and drawn files kept to check it by). A
        store not read (pnp build --force) plans every front afresh, and stores only
        the plans it does not hold yet: one stored under the same key and still true is
        what was planned now, not pickled and written again."""
        card, deck = keep
        game = self._game(card.game)
        key = self._front_key(card, deck, game, template, target)
        return self._stored(keep, template, context, target, missing, game,
                            f"{game.id}/{deck.id}", key)

    def _stored_back(self, keep, template, context, target: _Target) -> _Plan:
        """A deck back's plan from the plan store, as a front's (`_stored_front`): an
        edit build need not render the back again. Its key is the fronts' scope (code,
        fonts, stamp, the back template and what it includes, the deck's context with
        its back and the game's) with the back's size; its own bucket, beside the
        deck's fronts."""
        (deck,) = keep
        game = self._game(deck.game)
        key = self._back_key(deck, game, template, target)
        return self._stored(keep, template, context, target, None, game,
                            f"{game.id}/{deck.id}/back", key)

    def _stored(self, keep, template, context, target: _Target, missing, game,
                bucket: str, key: str) -> _Plan:
        """The plan under `key` in `bucket` if still true, else planned and stored."""
        store = self.plan_store
        entry = store.get(bucket, key)
        if entry is not None and self._still_true(entry, game):
            store.hits += 1
            ops, warnings, memo = self._from_store(entry, target)
            kept = memo.get(_KeptText.MEMO)
            if kept is None:
                kept = memo[_KeptText.MEMO] = {}
            self._tell_planned(template, context, target, missing, ops, memo)
            return (keep, ops, warnings, target.edges,
                    _KeptText(kept, lambda: store.changed(bucket, key)))
        store.misses += 1
        ops, warnings, looked = self._plan_looking(template, context, target, missing)
        held = self._held(store, bucket, key, game)
        if held is not None:            # a forced build: the stored plan is this one
            # what observers kept about it (the reprint record's hash); its stored text
            # code stays the stored plan's
            self._tell_planned(template, context, target, missing, ops, held[7])
            return (keep, ops, warnings, target.edges, None)
        fresh: dict[str, Any] = {}       # what observers keep about it, stored with it
        store.put(bucket, key, self._entry(ops, warnings, target, looked, fresh))
        self._tell_planned(template, context, target, missing, ops, fresh)
        kept = fresh[_KeptText.MEMO] = {}
        return (keep, ops, warnings, target.edges,
                _KeptText(kept, lambda: store.changed(bucket, key)))

    def _held(self, store, bucket: str, key: str, game) -> Any | None:
        """The still true entry a store that is not read holds under `key`, its check
        only (look-ups, drawn files, memo: `_held_check`) in an entry's places, the rest
        None; None for none, or a store that cannot tell."""
        if store.read:
            return None
        found = _held_check(store, bucket, key)
        entry = None if found is None else (None,) * 5 + (*found, None)
        return entry if entry is not None and self._still_true(entry, game) else None

    def _tell_planned(self, template, context, target: _Target, missing, ops, memo) -> None:
        if self.face_observers:
            self._tell(PlannedFace(template, target, ops, dict(self.stamp or {}),
                                   self._replanner(template, context, target, missing),
                                   memo))

    def _from_store(self, entry, target: _Target) -> tuple[Any, list, dict]:
        """(ops, warnings, memo) of a stored plan still true; the target's design and
        edge paint as planned."""
        from pnp.draw import plan_cache as pc

        design, keys, packed, warnings, edges, _deps, _files, memo, fonts = entry
        target.design, target.edges = design, edges
        if fonts:                       # fallback fonts are registered when first needed
            from pnp.draw.glyphs import make_ready

            make_ready(fonts)
        token = self._token
        return (pc.StoredOps([(token, *k) if k is not None else None for k in keys], packed),
                warnings, memo)

    def _plan_looking(self, template, context, target: _Target,
                      missing) -> tuple[list, list, dict[str, str | None]]:
        """(ops, warnings, the `card_named` look-ups) of a front planned afresh: each
        name looked up with the digest of what it found, to check a stored plan by."""
        from pnp.draw import plan_cache as pc

        looked: dict[str, str | None] = {}

        def recording_context():
            ctx = context()
            inner = ctx.get("card_named")
            if inner is None:           # a back: no look-ups
                return ctx

            def card_named(name):
                found = inner(name)
                looked[str(name)] = None if found is None else pc.quick_digest(found)
                return found

            ctx["card_named"] = card_named
            return ctx

        ops, warnings = self._plan(template, recording_context, target, missing)
        return ops, warnings, looked

    def _entry(self, ops: list, warnings: list, target: _Target, looked: dict,
               memo: dict) -> tuple:
        """What the plan store keeps of a front planned afresh: its design, replay keys,
        packed operations, warnings, edge paint, look-ups, drawn files (size and
        mtime), memo and the fonts its text runs use."""
        from pnp.draw import plan_cache as pc

        files: dict[str, Any] = {}
        fonts: set[str] = set()
        for _, op in ops:
            fonts.update(getattr(p, "font", "") for p in getattr(op, "pieces", ()) or ())
            shape = op.as_tuple() if type(op) is not tuple else op
            if shape and shape[0] == "image" and isinstance(shape[2], str):
                files[shape[2]] = pc.file_stamp(shape[2])
        # each plan is packed on its own (plan_cache._pack): keys shared across plans
        # would be a table of every distinct key, growing with the deck
        return (target.design, [None if k is None else k[1:] for k, _ in ops],
                pc.pack_ops([op for _, op in ops]), warnings, target.edges,
                looked, files, memo, frozenset(fonts) - {""})

    def _front_key(self, card, deck, game, template, target: _Target) -> str:
        """A front's plan key, kept for the cards at hand: a forced build asks for each
        card's key four times (its kept sheet's key, planning, and twice what the stored
        plan depends on), each a repr of its context and a sha256. Kept under the card
        and deck objects themselves and the scope digest it was made from, so a key is
        never that of another card or of a scope since changed."""
        from pnp.draw import plan_cache as pc

        scope = self._scope(deck, game, template)
        memo = (id(card), id(deck), template, target.W, target.H, target.bleed,
                target.safe_mm)
        found = self._front_keys.get(memo)
        if found is not None and found[0] is card and found[1] is deck and found[2] == scope:
            return found[3]
        key = pc.quick_digest((scope, target.W, target.H, target.bleed, target.safe_mm,
                               _card_context(card)))
        self._front_keys.put(memo, (card, deck, scope, key))
        return key

    def _scope(self, deck, game, template) -> str:
        """The digest of what every face of `deck` drawn with `template` shares: the
        renderer's key base, the template's sources, the deck's and game's contexts."""
        from pnp.draw import plan_cache as pc

        scope = self._scopes.get((id(deck), template))
        if scope is None or scope[0] is not deck:
            known = pc.template_digest(self.templates, template)
            scope = (deck, pc.digest([self._key_base_digest(), template, known,
                                      self._deck_context(deck), self._game_context(game)]))
            self._scopes[(id(deck), template)] = scope
        return scope[1]

    def _key_base_digest(self) -> str:
        """What every stored face of this renderer shares (code, store context, text
        settings, stamp, fonts, checks, project folder, language)."""
        from pnp.draw import plan_cache as pc

        if self._key_base is None:
            if self.stamp is None:
                from pnp.draw.stamp import stamp

                self.stamp = stamp(self.db)
            checked = [f"{c.__module__}.{c.__qualname__}" for c in self.face_checks]
            # the project's folder too: a plan holds the absolute paths of the images and
            # own icons it draws, which another project's identical card must not reuse
            base = [pc.code_version(), self.plan_store.context, self.min_text_pt,
                    self.ink_saver, self.stamp, *([self.large_print] if self.large_print else []),
                    sorted(self.fonts.items()), checked, str(Path(self.db.root).resolve())]
            if self.language is not None:   # a game in several languages (`lang`)
                base.append(self.language)
            self._key_base = pc.digest(base)
        return self._key_base

    def _back_key(self, deck, game, template, target: _Target) -> str:
        from pnp.draw import plan_cache as pc

        return pc.quick_digest((self._scope(deck, game, template), "back", target.W,
                                target.H, target.bleed, target.safe_mm))

    @staticmethod
    def _still_true(entry, game) -> bool:
        from pnp.draw import plan_cache as pc

        if len(entry) != 9:             # another shape: a plan of another version
            return False
        looked, files = entry[5], entry[6]
        if looked:
            lookup = _lookup(game)
            for name, was in looked.items():
                found = lookup(name)
                if (None if found is None else pc.quick_digest(found)) != was:
                    return False
        return all(pc.file_stamp(path) == was for path, was in files.items())

    def _tell(self, face: PlannedFace) -> None:
        for observer in self.face_observers:
            observer(face)

    def _replan(self, template, context, target: _Target, missing, stamp) -> list:
        """A face's ops planned with other stamp values; the target's design and edge
        paint (set by planning) are left as the face's own plan set them."""
        saved = (self.stamp, target.design, target.edges)
        self.stamp = stamp
        try:
            return self._plan(template, context, target, missing)[0]
        finally:
            self.stamp, target.design, target.edges = saved

    def _draw(self, canvas, key, keep, template, context, target: _Target, x, y,
              missing: str | None = None) -> list[LayoutWarning]:
        _, ops, warnings, _, kept = self._planned(key, keep, template, context, target,
                                                  missing)
        canvas.saveState()
        # origin: top-left of the trim box (written directly: this runs per card)
        canvas.addLiteral(f"1 0 0 1 {x:.4f} {y + target.H * MM:.4f} cm")
        if key[0] in ("front", "back"):
            # Nothing a template draws may spill past the bleed onto a neighbour card
            # or into the margin where the crop marks are.
            b, w, h = target.bleed * MM, target.W * MM, target.H * MM
            canvas.addLiteral(f"{-b:.4f} {-(h + b):.4f} {w + 2 * b:.4f} {h + 2 * b:.4f} re W n")
        try:
            self._replay(canvas, ops, kept)
        finally:
            canvas.restoreState()
        return list(warnings)

    def _replay(self, canvas, ops, kept: _KeptText | None = None) -> None:
        """Draw keyed operations, reusing their PDF code within one document.

        Most elements (frames, panels, labels, icons) are the same on every card of a
        type. The first time one is drawn on a canvas its PDF operators are kept; later
        cards add them with `addLiteral`, skipping ReportLab's number formatting and
        text encoding, which is most of the drawing time. This is safe within one
        document only (font subsets and graphics states are named per document), so the
        code is kept per canvas (weakly: it goes with the document).

        A text operation met for the first time in this document may still have been
        drawn by an earlier build: a card front's plan from the plan store keeps the code
        of its text (`kept`), reused when the fonts stand as they stood then
        (pnp.draw.textcode)."""
        code = getattr(canvas, "_code", None)          # ReportLab's operator list
        if not isinstance(code, list):
            CardRenderer._run(canvas, [op for _, op in ops])
            return
        try:
            store = self._documents.get(canvas)
        except TypeError:                              # not weakly referable: no reuse
            CardRenderer._run(canvas, [op for _, op in ops])
            return
        if store is None:
            from pnp.draw.elements.text import Text
            from pnp.draw.plan_cache import StoredOps
            from pnp.draw.textcode import TextCode

            store = self._documents[canvas] = (RecentCache(8192), TextCode(), Text,
                                               StoredOps)
        codes, texts, text_op, stored = store
        # a stored plan's operations are unpickled only if one must be drawn
        keys = ops.keys if type(ops) is stored else [k for k, _ in ops]
        for index, key in enumerate(keys):
            if key is None:
                CardRenderer._run(canvas, [ops[index][1]])
                continue
            known = codes.get(key)
            if known is not None:
                canvas.addLiteral(known)
                continue
            if kept is not None and index in kept.codes:
                known = texts.replay(canvas, kept.codes[index])
                if known is not None:
                    canvas.addLiteral(known)
                    codes.put(key, known)
                    continue
            op = ops[index][1]
            where = texts.before(canvas, op) if kept is not None and type(op) is text_op \
                else None
            code = canvas._code                        # beginForm swaps the list
            start = len(code)
            CardRenderer._run(canvas, [op])
            known = "\n".join(code[start:])
            codes.put(key, known)
            if where is not None and kept is not None:     # (where: only with kept)
                kept.keep(index, texts.after(canvas, op, where, known))

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
                   MIN_PT=round(self.min_text_pt / target.scale, 2), INK_SAVER=self.ink_saver,
                   lang=self.language, **self.stamp)
        try:
            elements = self.templates.render_elements(template, ctx, target.what,
                                                      self._declared(ctx))
        except TemplateError as exc:
            raise RenderError(str(exc)) from None
        known = element_registry()
        target.edges = _edge_paint(elements, target, known)
        warnings: list[LayoutWarning] = []
        ops: list[tuple] = []
        if not elements:
            warnings.append(LayoutWarning(target.game, target.deck, target.card, "template",
                                          f"templates/{template} produced no elements"))
        dims = (target.W, target.H, target.bleed, target.safe, target.safe_mm, target.design)
        for index, (line, raw) in enumerate(elements):
            # the same element line (a frame, a label) recurs on every card of a type:
            # compile it once per trim size
            cached = self._compiled.get((line, dims)) if line is not None else None
            if cached is None:
                try:
                    element, el = normalise_element(raw, known)
                    name = el["id"] or f"{element.name} {index + 1}"
                    notes: list[LayoutWarning] = []
                    compiled = self._compile(element, el, name, target, notes)
                except ElementError as exc:
                    raise RenderError(
                        f"templates/{template}: element {index + 1}: {exc} ({target.what})"
                    ) from None
                # an element drawn per face (an image: its file) is checked on each card
                reusable = line is not None and not element.per_face
                cached = (compiled, [(w.element, w.message) for w in notes], reusable)
                if reusable:
                    self._compiled.put((line, dims), cached)
            token = self._token
            ops.extend(((token, line, dims, i) if cached[2] and op.replayable else None, op)
                       for i, op in enumerate(cached[0]))
            warnings.extend(LayoutWarning(target.game, target.deck, target.card, element,
                                          message) for element, message in cached[1])
        for check in self.face_checks:
            warnings = check(target, ops, warnings)
        return ops, warnings

    def _compile(self, element, el, name, t: _Target, warnings) -> list:
        """One element's settings -> its operations (the element module's compile step),
        in points, y up from the trim's top-left corner."""
        def warn(message):
            warnings.append(LayoutWarning(t.game, t.deck, t.card, name, message))

        return element.compile(el, t, self, warn)

    def _declared(self, ctx: dict[str, Any]) -> dict[str, Any] | None:
        """The declared fields of the card a context shows (for did-you-mean)."""
        card = ctx.get("card")
        if not isinstance(card, dict):
            return None
        game = self.db.games.get(card.get("game"))
        types = getattr(game, "card_types", None) or {}
        fields = types.get(card.get("type"))
        return {"card": tuple(fields)} if fields else None

    # ── what the element modules' compile steps use (pnp.draw.elements.base) ──────
    def font_role(self, role: Any) -> str:
        if role not in self.fonts:
            raise ElementError(f"unknown font {role!r} (known: {', '.join(self.fonts)})")
        return role

    def image_path(self, value: Any, t: _Target) -> Path:
        return self._image_path(value, t)

    def own_icons(self, t: _Target) -> dict[str, str]:
        """The own icons (cards.yaml `icons:`) of the game being drawn: name -> the name
        `pnp.draw.icons.draw_icon` draws it by (its file's checked path)."""
        game = self._game(t.game)
        found = self._own_icons.get(game.id)
        if found is None or found[0] is not game:
            refs: dict[str, str] = {}
            if game.extras.get("icons"):     # (carddb.icons only then: it loads the schema)
                from carddb.icons import declared
                from pnp.draw.icons import file_ref

                refs = {name: file_ref(str(self._checked_icon(icon.file, t)))
                        for name, icon in declared(game.extras).items()}
            found = (game, refs)
            self._own_icons[game.id] = found
        return found[1]

    def _checked_icon(self, file: str, t: _Target) -> Path:
        """An own icon's file, found inside the project and drawable (an SVG parsed, a
        picture's header read by the allow-listed decoders): RenderError if not."""
        from pnp.draw.icons import IconFileError, svg_drawing

        path = self._image_path(file, t)
        try:
            if path.suffix.lower() == ".svg":
                svg_drawing(str(path))
            else:
                self._image_size(path, t)
        except IconFileError as exc:
            raise RenderError(f"{t.what}: {exc}") from None
        return path

    def icon_name(self, name: Any, t: _Target, what: str = "icon") -> str:
        """A built-in icon's name, or the reference of the game's own icon `name`;
        ElementError for neither."""
        from pnp.draw.icons import ICON_NAMES

        if isinstance(name, str) and name in ICON_NAMES:
            return name
        own = self.own_icons(t)
        if isinstance(name, str) and name in own:
            return own[name]
        known = ", ".join(sorted((*ICON_NAMES, *own)))
        raise ElementError(f"{what}: unknown icon {name!r} (known: {known})")

    def image_size(self, path: Path, t: _Target) -> tuple[int, int]:
        return self._image_size(path, t)

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
            op.paint(c)


class _KeptText:
    """The text code a stored front plan keeps (by operation index), and how to tell the
    plan store it grew (pnp.draw.textcode)."""

    MEMO = "pnp.draw.textcode/1"        # its key in the plan's memo
    __slots__ = ("codes", "_changed")

    def __init__(self, codes: dict, changed: Callable[[], None]):
        self.codes = codes
        self._changed = changed

    def keep(self, index: int, code: tuple | None) -> None:
        if code is None:
            if self.codes.pop(index, None) is not None:
                self._changed()
        elif self.codes.get(index) != code:
            self.codes[index] = code
            self._changed()


def card_renderer(db: Any, notify: Any = None) -> CardRenderer:
    """The card renderer of `pnp build` with the database's fonts registered;
    `notify(line)` gets a notice for each font role filled from another."""
    from pnp.draw.art import listen
    from pnp.draw.fonts import register_fonts

    listen(notify)                          # art downsampled for print is told there too
    return CardRenderer(db, register_fonts(db.print.fonts, db.root, notify=notify))


def _edge_paint(elements, t: _Target, known: dict | None = None) -> tuple:
    """What paints the bleed along each edge (left, bottom, right, top), from the
    elements marked `bleed: true` (those whose module has an `edge_paint`): per edge the
    fills and image paths drawn there since the last one that covers the whole edge.
    Equal keys mean equal bleed; an element that cannot be read makes its edges unique
    (never equal to another card's)."""
    known = element_registry() if known is None else known
    painters = [name for name, element in known.items() if element.edge_paint is not None]
    stacks: list[list] = [[], [], [], []]
    for index, (_line, raw) in enumerate(elements):
        params = None
        if isinstance(raw, dict):
            for kind in painters:
                params = raw.get(kind)
                if params:
                    break
        if not isinstance(params, dict) or not params.get("bleed"):
            continue  # only bleed: true rectangles and images paint the bleed
        try:
            element, el = normalise_element(raw, known)
            if element.edge_paint is None or not el.get("bleed"):
                continue
            x, y, w, h = t.box(numbers(el["box"], 4, "box"))
            paint, opaque = element.edge_paint(el)
        except (ElementError, TypeError, ValueError):
            stacks = [s + [("unreadable", t.card, index)] for s in stacks]
            continue
        left, top = x <= _EPS, y <= _EPS
        right, bottom = x + w >= t.W - _EPS, y + h >= t.H - _EPS
        full_x, full_y = left and right, top and bottom
        for i, (touches, whole) in enumerate(((left, full_y), (bottom, full_x),
                                              (right, full_y), (top, full_x))):
            if touches:
                stacks[i] = [paint] if (whole and opaque) else stacks[i] + [paint]
    return tuple(tuple(s) for s in stacks)


def _where(card) -> str:
    """`cards.yaml:47:13: ` (or the spreadsheet cell) where a card is written, if known."""
    source = getattr(card, "source", None)
    return f"{source}: " if source else ""


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


def _held_check(store: Any, bucket: str, key: str) -> tuple | None:
    """(look-ups, drawn files, memo) of the plan a store holds under `key`: its check
    alone where the store can unpack it alone (PlanStore.held_check), else taken from
    the whole entry (`held`); None for none."""
    check = getattr(store, "held_check", None)
    if callable(check):
        return check(bucket, key)  # type: ignore[no-any-return]
    held = getattr(store, "held", None)
    entry = held(bucket, key) if callable(held) else None
    return tuple(entry[5:8]) if entry is not None and len(entry) == 9 else None


def _templates_for(folders: list[Path], root: Path) -> Templates:
    """Compiled templates are shared by every renderer of the process (compiling them
    is a good part of a small build) until a template file changes."""
    stamp = []
    for folder in folders:
        stamp += _template_stamps(str(folder))
    key = (tuple(str(f) for f in folders), str(root), tuple(stamp))
    templates = _TEMPLATES.get(key)
    if templates is None:
        if len(_TEMPLATES) > 16:
            _TEMPLATES.clear()
        templates = _TEMPLATES[key] = Templates(folders, display_root=root)
    return templates


def _template_stamps(folder: str) -> list[tuple[str, int]]:
    """(path, mtime) of every *.j2 file under `folder`, in one order: walked as text, not
    made and sorted Paths (symlinked folders not entered, as Path.rglob does not)."""
    found = []
    for where, _dirs, files in os.walk(folder):
        found += [os.path.join(where, name) for name in files if name.endswith(".j2")]
    return [(path, os.stat(path).st_mtime_ns) for path in sorted(found)]


# ── template contexts: plain data only ─────────────────────────────────────────────

# Front plan keys across builds, in a resident process only (`hold_front_keys`: `pnp
# watch`, which loads the database again after every edit, so each card is a new object
# with, but for the edited one, the same values): (what the deck's fronts share, the trim
# size) -> card name -> (card, its shape, its key). Its key is a digest of the card's
# template context (`_front_key`), about a tenth of an 8,000-card deck's edit build;
# a card of the same shape and values has the same context, so the same key.
# (pnp.draw.card_shape tells a card of the same values.)
_front_keys: RecentCache | None = None


def hold_front_keys() -> None:
    """Keep front plan keys across this process's builds (a resident `pnp watch`)."""
    global _front_keys
    if _front_keys is None:
        _front_keys = RecentCache(16)


def _known_keys(scope: str, w: float, h: float, bleed: float, cards: int) -> dict:
    """The front keys kept for one deck scope and trim size (`_front_keys`), at most
    about twice as many as the deck has cards (renamed cards age out)."""
    assert _front_keys is not None
    where = (scope, w, h, bleed)
    known = _front_keys.get(where)
    if known is None or len(known) > 2 * cards + 64:
        known = {}
        _front_keys.put(where, known)
    return known


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
