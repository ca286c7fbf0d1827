"""Decks: one artefact per deck of a game, its cards imposed on sheets of the paper
(cut guides, bleed, scale bar) with duplex backs or as fold-and-glue sheets. The look
of a card is the renderer's (`pnp.draw.render`); this module only places it. Cards come
from a generator, one sheet at a time. `draw_deck` is also what reprints (pnp.exports.
diff) and cutting-machine sheets (pnp.exports.cutting, `deck_cards`) impose with."""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from pnp.artefacts.artefact import Artefact, BuildError, Options, Progress, Written
from pnp.artefacts.kinds.base import Kind

if TYPE_CHECKING:
    from pnp.layout import geometry as g

NAME = "deck"


def artefact(game_id: str, deck_id: str, title: str) -> Artefact:
    """The artefact of one deck (its file stem is the deck id)."""
    return Artefact(game_id, deck_id, NAME, title, deck=deck_id)


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    return [artefact(game_id, deck_id, f"{game.title}: {deck.title}")
            for deck_id, deck in game.decks.items()]


def _units(db: Any, art: Artefact) -> int:
    return db.games[art.game].decks[art.deck].count


def _check_images(db: Any, art: Artefact) -> None:
    """Every image the deck uses exists inside the project folder (BuildError naming
    the card and the path otherwise)."""
    from pnp.draw.fonts import inside

    deck = db.games[art.game].decks[art.deck]
    wanted = [(c.source, f"card {c.name!r}", c.image) for c in deck.cards if c.image]
    back_image = (deck.back or {}).get("image")
    if back_image:
        wanted.append((deck.source, f"back of deck {deck.id!r}", back_image))
    for source, what, rel in wanted:
        try:
            path = inside(db.root, rel)
        except ValueError:
            raise BuildError(f"{source}: {what}: image path {rel!r} escapes the project "
                             f"folder {db.root.resolve()}") from None
        if not path.is_file():
            raise BuildError(f"{source}: {what}: image not found: {path}")


def deck_cards(deck: Any) -> Iterator[tuple[int, Any]]:
    """(design index, card) for the physical cards of a deck in order, copies repeated
    (lazily)."""
    for index, card in enumerate(deck.cards):
        for _ in range(card.copies):
            yield index, card


def _sheet_choices(deck, opts: Options, w: float, h: float) -> list[g.Sheet]:
    from pnp.layout import geometry as g

    try:
        return g.sheet_choices(*g.paper_size(opts.paper), w, h, opts.bleed,
                               opts.printer_margin, opts.layout)
    except ValueError as exc:
        raise BuildError(f"{deck.source}: deck {deck.id!r}: {exc}") from None


def _designs(decks: list) -> Iterator[tuple[tuple[int, int], Any]]:
    """((deck number, design index), card) for the physical cards of `decks` in order,
    deck after deck, copies repeated (lazily)."""
    for number, deck in enumerate(decks):
        for index, card in deck_cards(deck):
            yield (number, index), card


class _Batches:
    """The decks' cards sheet by sheet. With several impositions to choose from (layout
    auto), each sheet takes the first whose shared cut lines join cards with the same
    bleed paint; the last sheet takes full bleed when that still holds its cards."""

    def __init__(self, decks: list, choices: list[g.Sheet], renderer, w, h, bleed,
                 paint=None):
        self.cards = _designs(decks)
        self.pending: deque = deque()
        self.choices = choices
        self.decks = decks
        self.paint = paint or getattr(renderer, "bleed_colors", None)
        self.size = (w, h, bleed)
        self.known: dict[tuple[int, int], tuple] = {}

    def _edges(self, design: tuple[tuple[int, int], Any]) -> tuple:
        key, card = design
        if key not in self.known:
            if self.paint is None:  # unknown bleed: never shared
                self.known[key] = tuple(("unknown", key),) * 4
            else:
                self.known[key] = tuple(self.paint(card, self.decks[key[0]], *self.size))
        return self.known[key]

    def _fits(self, sheet: g.Sheet, batch: list) -> bool:
        from pnp.layout.geometry import abutting

        for i, j, axis in abutting(sheet, len(batch)):
            a, b = self._edges(batch[i]), self._edges(batch[j])
            if (a[2] != b[0]) if axis == "x" else (a[1] != b[3]):
                return False
        return True

    def __iter__(self):
        most = self.choices[0].per_sheet
        exhausted = False
        while True:
            while not exhausted and len(self.pending) < most:
                nxt = next(self.cards, None)
                if nxt is None:
                    exhausted = True
                else:
                    self.pending.append(nxt)
            if not self.pending:
                return
            order = self.choices
            if len(order) > 1 and exhausted:
                order = [s for s in reversed(order) if s.per_sheet >= len(self.pending)] + order
            for sheet in order:
                batch = [self.pending[i] for i in range(min(sheet.per_sheet, len(self.pending)))]
                if len(self.choices) == 1 or self._fits(sheet, batch):
                    break
            for _ in batch:
                self.pending.popleft()
            yield sheet, batch


def _draw_deck(db, art, opts: Options, renderer, fonts, target, result: Written, step) -> None:
    draw_deck(db.games[art.game].decks[art.deck], opts, renderer, fonts, target, result, step,
              art.title, keep=True)


def draw_deck(deck, opts: Options, renderer, fonts, target, result: Written,
              step: Progress | None = None, title: str | None = None,
              keep: bool = False) -> None:
    """Impose `deck` (every copy of its cards) on sheets of `opts.paper` into the PDF
    `target`: cut guides, bleed, scale bar and duplex backs (or fold sheets) as `pnp
    build` prints it. A reprint passes a deck of some of its cards (pnp.exports.diff).
    `keep`: sheets drawn are kept, and sheets kept by an earlier build shown again
    instead of drawn (pnp.artefacts.kept_sheets: the deck's build artefact)."""
    draw_decks([deck], opts, renderer, fonts, target, result, step, title, keep)


def draw_decks(decks: list, opts: Options, renderer, fonts, target, result: Written,
               step: Progress | None = None, title: str | None = None,
               keep: bool = False) -> None:
    """`draw_deck` for the cards of several decks of one card size, packed together on
    shared sheets deck after deck, each back behind its own front (a reprint of a few
    cards from several decks: pnp.exports.diff). With more than one deck, each card of
    the layout report names its `deck` (game/deck)."""
    from pnp.artefacts.sheet import Pages
    from pnp.draw.pdf import open_canvas
    from pnp.layout import geometry as g

    deck = decks[0]
    if any(tuple(d.size_mm) != tuple(deck.size_mm) for d in decks):
        raise ValueError("decks packed on one sheet must share their card size")
    w, h = g.mm(deck.size_mm[0]), g.mm(deck.size_mm[1])
    fold, choices, page = _sheets(deck, opts, w, h)
    layout = "fold-and-glue" if opts.fold else (
        f"{opts.duplex} duplex" if opts.backs else "fronts only")
    count = sum(d.count for d in decks)
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=title or deck.title,
                    subject=f"{count} cards, {opts.paper} paper, {layout}")
    pages = Pages(c, result)
    cards = _CardDrawer(c, decks, renderer, w, h, opts.bleed, result, step or (lambda n: None),
                        None, pages)
    kept = None
    if keep:
        from pnp.artefacts import kept_sheets

        kept = kept_sheets.for_deck(c, cards, opts, fonts, page)
    if opts.backs:
        # each back one form; kept with the deck's sheets, it is made again as kept
        back: Callable[[Callable[[], str]], str] = (kept.back if kept is not None
                                                     else _drawn_now)
        cards.backs_drawn = [back(functools.partial(_back_form, c, renderer, d, w, h,
                                                    opts.bleed, result)) for d in decks]
    try:
        if fold is not None:
            _draw_fold_sheets(cards, fold, opts, fonts, kept)
        else:
            _draw_sheets(cards, choices, page, opts, fonts, kept)
        c.save()
    finally:
        if kept is not None:
            kept.close()
    if kept is not None:
        kept.save()
    result.pages = pages.count


def _drawn_now(draw: Callable[[], str]) -> str:
    """A back drawn (no kept sheets to make it again from): its form's name."""
    return draw()


def _sheets(deck, opts: Options, w: float, h: float) -> tuple[Any, list, tuple[float, float]]:
    """The fold sheet (fold-and-glue) or the sheet layouts to choose from, and the page size."""
    from pnp.layout import geometry as g

    if opts.fold:
        try:
            fold = g.fold_sheet(opts.paper, w, h, opts.bleed, opts.printer_margin)
        except ValueError as exc:
            raise BuildError(f"{deck.source}: deck {deck.id!r}: {exc}") from None
        return fold, [], (fold.grid.page_w, fold.grid.page_h)
    choices = _sheet_choices(deck, opts, w, h)
    return None, choices, (choices[0].page_w, choices[0].page_h)


class _CardDrawer:
    """Draws the decks' fronts and backs into slots of the canvas `c` and lists them in the
    layout report; a card with copies is drawn once, as a form XObject every copy reuses."""

    def __init__(self, c, decks: list, renderer, w: float, h: float, bleed: float,
                 result: Written, step: Progress, backs_drawn: list[str] | None,
                 pages: Any) -> None:
        self.c, self.decks, self.renderer = c, decks, renderer
        self.w, self.h, self.bleed = w, h, bleed
        self.result, self.step, self.backs_drawn, self.pages = result, step, backs_drawn, pages
        self.forms: dict[tuple[int, int], str] = {}
        from pnp.artefacts.sheet import clipped, warning_list
        from pnp.draw.pdf import end_form

        self.clipped, self.warning_list, self.end_form = clipped, warning_list, end_form

    def front(self, slot: g.Slot, design: tuple[tuple[int, int], Any]) -> None:
        clipped, warning_list, end_form = self.clipped, self.warning_list, self.end_form
        c, decks, renderer, w, h, bleed = (self.c, self.decks, self.renderer, self.w, self.h,
                                           self.bleed)
        result, forms = self.result, self.forms
        key, card = design
        own = decks[key[0]]
        if card.copies > 1 and key not in forms:
            # A card with copies is drawn once, as a form XObject every copy reuses.
            forms[key] = f"front-{own.game}-{own.id}-{key[1]}"
            c.beginForm(forms[key], -bleed, -bleed, w + bleed, h + bleed)
            result.warnings += warning_list(renderer.draw_front(c, card, own, 0, 0, w, h,
                                                                bleed))
            end_form(c)
        clipped(c, slot.area)
        t = slot.trim
        if key in forms:
            c.translate(t.x, t.y)
            c.doForm(forms[key])
        else:
            result.warnings += warning_list(
                renderer.draw_front(c, card, own, t.x, t.y, t.w, t.h, bleed))
        c.restoreState()
        result.cards += 1
        self.step(1)

    def back_at(self, slot: g.Slot, design: tuple[tuple[int, int], Any]) -> None:
        backs_drawn, clipped = self.backs_drawn, self.clipped
        c, w, h = self.c, self.w, self.h
        assert backs_drawn is not None
        clipped(c, slot.area)
        c.translate(slot.trim.x, slot.trim.y)
        if slot.rotate == 180:
            c.translate(w, h)
            c.rotate(180)
        c.doForm(backs_drawn[design[0][0]])
        c.restoreState()

    def show(self, side: str, batch: list, trims) -> None:
        pages, decks = self.pages, self.decks
        pages.show(side, list(zip([card.name for _, card in batch], trims, strict=False)))
        if len(decks) > 1:      # a packed reprint: which deck each card comes from
            for entry, ((number, _), _card) in zip(pages.layout[-1]["cards"], batch,
                                                   strict=False):
                entry["deck"] = f"{decks[number].game}/{decks[number].id}"


def _draw_fold_sheets(cards: _CardDrawer, fold, opts: Options, fonts, kept=None) -> None:
    """Fold-and-glue sheets: each front beside its back, cut and fold guides with pointers,
    the scale bar in a free cell off the paint; each sheet lists what is cut out. A sheet
    `kept` (pnp.artefacts.kept_sheets) is shown as kept."""
    from pnp.layout import geometry as g

    for batch in g.chunks(_designs(cards.decks), fold.per_sheet):
        if kept is None:
            _fold_sheet(cards, fold, batch, opts, fonts)
        else:
            kept.sheet(batch, ("fold", len(batch)),
                       lambda batch=batch: _fold_sheet(cards, fold, batch, opts, fonts))


def _fold_sheet(cards: _CardDrawer, fold, batch: list, opts: Options, fonts) -> None:
    """One fold-and-glue sheet of the pairs in `batch`."""
    from pnp.artefacts.sheet import draw_scale, guide_code, scale_plate_length
    from pnp.layout import geometry as g

    c = cards.c
    # a pair beside an empty unit of a partly filled sheet keeps full bleed there
    sheet_fold = g.fold_filled(fold, len(batch))
    units = sheet_fold.grid.slots
    for pair, card in zip(sheet_fold.pairs, batch, strict=True):
        cards.front(pair.front, card)
        cards.back_at(pair.back, card)
    pointers = g.strip_pointers(sheet_fold.grid) if opts.crop_marks else []
    order = g.cut_order(sheet_fold.grid) if opts.crop_marks else None
    if opts.crop_marks:
        c.addLiteral(guide_code(g.cut_guides(sheet_fold.grid) + pointers, opts.guides))
        c.addLiteral(guide_code(g.fold_guides(sheet_fold), opts.guides, dash=True))
    lines = [pair.fold for pair in sheet_fold.pairs]
    cells = g.free_cells(sheet_fold.grid, None, [f.x0 for f in lines if f.x0 == f.x1],
                         [f.y0 for f in lines if f.y0 == f.y1])
    painted = [p.front.area for p in sheet_fold.pairs] + [
        p.back.area for p in sheet_fold.pairs]
    need = scale_plate_length(fonts, opts.paper, opts.min_text_pt, order)
    draw_scale(c, fonts, g.scale_plate(cells, need, opts.min_text_pt, painted,
                                       [g.guide_box(p) for p in pointers]),
               opts.paper, opts.min_text_pt, order)
    # a fold sheet lists what is cut out: each front with its back
    cards.show("other", batch, [unit.trim for unit in units])


def _draw_sheets(cards: _CardDrawer, choices: list, page: tuple[float, float], opts: Options,
                 fonts, kept=None) -> None:
    """Sheets of fronts with cut guides, pointers and the scale bar, each followed by its
    sheet of backs placed for `opts.duplex`, scaled and turned as calibrated (when backs
    are printed). A sheet `kept` (pnp.artefacts.kept_sheets) is shown as kept."""
    from pnp.layout import geometry as g

    turn = g.back_matrix(*page, opts.back_scale_pct, opts.back_rotate_deg)
    marks: dict[tuple[int, int], tuple] = {}  # a few (sheet, count) pairs recur
    for full, batch in _Batches(cards.decks, choices, cards.renderer, cards.w, cards.h,
                                cards.bleed, kept.paint if kept is not None else None):
        key = (choices.index(full), len(batch))
        if kept is None:
            _sheet(cards, full, batch, key, marks, opts, fonts, turn)
        else:
            kept.sheet(batch, key, lambda full=full, batch=batch, key=key: _sheet(
                cards, full, batch, key, marks, opts, fonts, turn))


def _sheet(cards: _CardDrawer, full: g.Sheet, batch: list, key: tuple[int, int],
           marks: dict, opts: Options, fonts, turn) -> None:
    """One sheet of fronts, and its sheet of backs when backs are printed."""
    from pnp.artefacts.sheet import draw_scale
    from pnp.layout import geometry as g

    c = cards.c
    # a card beside an empty slot of a partly filled sheet keeps full bleed there
    sheet = g.filled(full, len(batch))
    for slot, card in zip(sheet.slots, batch, strict=True):
        cards.front(slot, card)
    if key not in marks:
        marks[key] = _sheet_marks(sheet, opts, fonts)
    code, order, plate = marks[key]
    c.addLiteral(code)
    draw_scale(c, fonts, plate, opts.paper, opts.min_text_pt, order)
    cards.show("front", batch, [s.trim for s in sheet.slots])
    if cards.backs_drawn is not None:
        backs = g.back_slots(sheet, len(batch), opts.duplex, opts.back_offset)
        if turn is not None:        # print.back_scale_pct / back_rotate_deg
            c.saveState()
            c.transform(*turn)
        for slot, design in zip(backs, batch, strict=True):
            cards.back_at(slot, design)
        if turn is not None:
            c.restoreState()
        cards.show("back", batch, [s.trim for s in backs])


def _sheet_marks(sheet: g.Sheet, opts: Options, fonts) -> tuple:
    """A sheet's cut guides, and pointers that survive the cutting order printed on the
    scale plate (geometry.cut_order): (their PDF code, the order, the scale plate)."""
    from pnp.artefacts.sheet import guide_code, scale_plate_length
    from pnp.layout import geometry as g

    guides = g.cut_guides(sheet) if opts.crop_marks else []
    pointers = g.strip_pointers(sheet) if opts.crop_marks else []
    order = g.cut_order(sheet) if opts.crop_marks else None
    need = scale_plate_length(fonts, opts.paper, opts.min_text_pt, order)
    return (guide_code(guides + pointers, opts.guides), order,
            g.scale_plate(g.free_cells(sheet), need, opts.min_text_pt,
                          [slot.area for slot in sheet.slots],
                          [g.guide_box(p) for p in pointers]))


def _back_form(c, renderer, deck, w, h, bleed, result: Written) -> str:
    """Draw the deck's back once as a form XObject; every back on every page reuses it."""
    from pnp.artefacts.sheet import warning_list
    from pnp.draw.pdf import end_form

    name = f"back-{deck.game}-{deck.id}"
    c.beginForm(name, -bleed, -bleed, w + bleed, h + bleed)
    result.warnings += warning_list(renderer.draw_back(c, deck, 0, 0, w, h, bleed))
    end_form(c)
    return name


KIND = Kind(NAME, order=10, artefacts=_artefacts, draw=_draw_deck, units=_units,
            check=_check_images)
