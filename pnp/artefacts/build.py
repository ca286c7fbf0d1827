"""What `pnp build` makes and how: the artefact list of both games and the drawing of
each artefact onto pages (imposition, duplex backs, marks). The look of a card, mat,
label or token is the renderer's (`pnp.draw.render`); this module only places it.

Pages are streamed: cards come from a generator, one sheet at a time, and each
artefact is written to a temporary file that replaces the target only when complete.
"""

from __future__ import annotations

import io
import json
import os
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnp.artefacts.guides import GuideStyle
from pnp.artefacts.guides import code as guide_code
from pnp.artefacts.guides import from_profile as guides_from_profile
from pnp.artefacts.names import CALIBRATION, DICE, MATS, MATS_TILED, REFERENCE, TOKENS
from pnp.draw.fonts import inside
from pnp.draw.glyphs import describe, draw_string
from pnp.draw.layout_warning import LayoutWarning
from pnp.draw.pdf import end_form, open_canvas
from pnp.layout import geometry as g
from pnp.outpaths import part_of

Progress = Callable[[int], None]

DECK = "deck"

PAGE_MARGIN = g.mm(12.7)
LABEL_GAP = g.mm(3)
TOKEN_GAP = g.mm(3)
HEADING_H = g.mm(12)
HAIRLINE = 0.25  # points: cut and crop lines
# A guide in the bleed or a gutter: a black core on a white halo by default, so it
# shows on any colour; its style is data (pnp.artefacts.guides, print.cut_guides).
TOKEN_BLEED = g.mm(1.5)  # at most: half the gap between tokens


class BuildError(Exception):
    """A problem that stops the build; str() is one line saying what and where.
    `exit_code`: 1 for bad data (database, images, fonts), 2 for bad usage/input."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Artefact:
    game: str
    name: str  # file stem and the value of --only
    kind: str
    title: str
    deck: str | None = None
    item: str | None = None  # mat id for one-mat artefacts (unused for the whole set)

    def path(self, out: Path) -> Path:
        """OUT/<game>/<name>.pdf; BuildError if that would leave OUT (pnp.outpaths)."""
        from pnp.outpaths import OutsideOutput, inside

        try:
            return inside(out, self.game, f"{self.name}.pdf")
        except OutsideOutput as exc:
            raise BuildError(f"artefact {self.game}/{self.name}: {exc}") from None

    def layout_path(self, out: Path) -> Path:
        """The layout report written beside the PDF (see `layout_report`)."""
        return out / self.game / f"{self.name}.layout.json"


@dataclass(frozen=True)
class Options:
    paper: str = "letter"
    bleed_mm: float = 3.175
    duplex: str = "long-edge"
    back_offset_mm: tuple[float, float] = (0.0, 0.0)
    fold: bool = False
    backs: bool = True
    crop_marks: bool = True
    die_label_mm: float = 16.0
    min_text_pt: float = 6.0  # print.min_text_pt: the sheets' own text is never smaller
    printer_margin_mm: float = 5.0
    layout: str = "auto"
    ink_saver: bool = False  # print.ink_saver / --ink-saver: the renderer's INK_SAVER
    guides: GuideStyle = GuideStyle()   # print.cut_guides: the guides' colour, widths, dash

    @property
    def bleed(self) -> float:
        return g.mm(self.bleed_mm)

    @property
    def printer_margin(self) -> float:
        return g.mm(self.printer_margin_mm)

    @property
    def back_offset(self) -> tuple[float, float]:
        return g.mm(self.back_offset_mm[0]), g.mm(self.back_offset_mm[1])


def options_from_profile(profile: Any, *, paper: str | None = None, duplex: str | None = None,
                         back_offset_mm: tuple[float, float] | None = None,
                         fold: bool = False, backs: bool = True,
                         printer_margin_mm: float | None = None,
                         layout: str | None = None, ink_saver: bool | None = None) -> Options:
    """The print profile of cards.yaml with the command-line overrides applied."""
    opts = Options(
        paper=(paper or profile.paper).lower(),
        bleed_mm=float(profile.bleed_mm),
        duplex=duplex or profile.duplex,
        back_offset_mm=tuple(back_offset_mm if back_offset_mm is not None
                             else profile.back_offset_mm),
        fold=fold,
        backs=backs,
        crop_marks=bool(profile.crop_marks),
        die_label_mm=float(profile.die_label_mm),
        min_text_pt=float(getattr(profile, "min_text_pt", 6.0)),
        printer_margin_mm=float(printer_margin_mm if printer_margin_mm is not None
                                else getattr(profile, "printer_margin_mm", 5.0)),
        layout=layout or getattr(profile, "layout", "auto"),
        ink_saver=bool(ink_saver if ink_saver is not None
                       else getattr(profile, "ink_saver", False)),
        guides=guides_from_profile(getattr(profile, "cut_guides", None)),
    )
    if opts.paper not in g.PAPERS_MM:
        raise BuildError(f"unknown paper {opts.paper!r} (choose {', '.join(g.PAPERS_MM)})", 2)
    if opts.duplex not in g.DUPLEX_MODES:
        raise BuildError(f"unknown duplex mode {opts.duplex!r} "
                         f"(choose {', '.join(g.DUPLEX_MODES)})", 2)
    if opts.fold and not opts.backs:
        raise BuildError("--fold puts each back beside its front; it cannot go with --no-backs", 2)
    if opts.layout not in g.LAYOUTS:
        raise BuildError(f"unknown layout {opts.layout!r} (choose {', '.join(g.LAYOUTS)})", 2)
    if not 0 <= opts.printer_margin_mm <= 25:
        raise BuildError(f"printer margin {opts.printer_margin_mm:g} mm must be from 0 to "
                         "25 mm", 2)
    if opts.die_label_mm <= 0:
        raise BuildError(f"print.die_label_mm must be positive, not {opts.die_label_mm}")
    return opts


# ── the artefact list ─────────────────────────────────────────────────────────────


def artefacts(db: Any, game: str | None = None, only: str | None = None) -> list[Artefact]:
    """Everything `pnp build` writes, in build order; filtered by game and artefact name.
    BuildError (exit 2) for an unknown game or artefact."""
    if game is not None and game not in db.games:
        raise BuildError(f"unknown game {game!r} (choose {', '.join(db.games)})", 2)
    out: list[Artefact] = []
    for gid, gm in db.games.items():
        if game is not None and gid != game:
            continue
        for deck_id, deck in gm.decks.items():
            out.append(Artefact(gid, deck_id, DECK, f"{gm.title}: {deck.title}", deck=deck_id))
        extras = gm.extras
        if extras.get("mats"):
            out.append(Artefact(gid, MATS, MATS, f"{gm.title}: player mats, full size"))
            out.append(Artefact(gid, MATS_TILED, MATS_TILED, f"{gm.title}: player mats, tiled"))
        if extras.get("dice"):
            out.append(Artefact(gid, DICE, DICE, f"{gm.title}: dice sticker labels"))
        if extras.get("tokens"):
            out.append(Artefact(gid, TOKENS, TOKENS, f"{gm.title}: token sheets"))
        if extras.get("reference"):
            out.append(Artefact(gid, REFERENCE, REFERENCE, f"{gm.title}: turn summary"))
        out.append(Artefact(gid, CALIBRATION, CALIBRATION, f"{gm.title}: duplex calibration"))
    if only is not None:
        chosen = [a for a in out if a.name == only]
        if not chosen:
            names = sorted({a.name for a in out})
            raise BuildError(f"unknown artefact {only!r} (choose {', '.join(names)})", 2)
        out = chosen
    return out


def units(db: Any, art: Artefact) -> int:
    """How many progress steps an artefact takes (cards, labels, tokens, pages)."""
    gm = db.games[art.game]
    if art.kind == DECK:
        return gm.decks[art.deck].count
    if art.kind in (MATS, MATS_TILED):
        return len(gm.extras["mats"])
    if art.kind == DICE:
        return sum(len(die.sets) * die.per_player * len(die.faces) for die in _dice(gm).values())
    if art.kind == TOKENS:
        return sum(int(t["count"]) for t in gm.extras["tokens"].values())
    return 1


# ── checks before drawing ─────────────────────────────────────────────────────────


def check_images(db: Any, art: Artefact) -> None:
    """Every image an artefact uses exists inside the project folder (BuildError naming
    the card and the path otherwise)."""
    if art.kind != DECK:
        return
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


def check_output(out: Path, game: str) -> Path:
    """Make `out/<game>/` and prove it is writable (BuildError exit 2 otherwise)."""
    from pnp.outpaths import OutsideOutput, inside

    try:
        folder = inside(out, game)
    except OutsideOutput as exc:
        raise BuildError(f"game {game!r}: {exc}") from None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".pnp-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise BuildError(f"cannot write to output folder {folder}: {reason}", 2) from None
    return folder


# ── results ───────────────────────────────────────────────────────────────────────


@dataclass
class Written:
    artefact: Artefact
    path: Path
    pages: int = 0
    cards: int = 0  # physical cards, or labels / tokens / tiles for the other artefacts
    warnings: list[Any] = field(default_factory=list)
    layout: list[dict] = field(default_factory=list)  # the pages of `layout_report`
    # (written, target) files drawn but not yet in place: build_artefact(commit=False)
    staged: list[tuple[Path, Path]] = field(default_factory=list)


def _mm3(points: float) -> float:
    return round(g.to_mm(points), 3)


class _Pages:
    """Counts pages as they are shown and records each one for the layout report:
    its size, side and the trim box of every card on it, in mm from the top-left."""

    def __init__(self, canvas, result: Written | None = None):
        self.canvas = canvas
        self.count = 0
        self.layout = result.layout if result is not None else []

    def show(self, side: str = "other", cards=()) -> None:
        w, h = self.canvas._pagesize
        self.count += 1
        self.layout.append({
            "page": self.count, "size_mm": [_mm3(w), _mm3(h)], "side": side,
            "cards": [{"name": name, "trim_mm": [_mm3(t.x), _mm3(h - t.top), _mm3(t.w),
                                                 _mm3(t.h)]} for name, t in cards]})
        self.canvas.showPage()


def layout_report(out: Path, results) -> dict:
    """The layout of built artefacts: {"artefacts": [{"path", "pages": [{"page",
    "size_mm", "side" (front, back or other), "cards": [{"name", "trim_mm": [x, y, w,
    h]}]}]}]}, lengths in mm, x and y from the page's top-left corner; paths relative
    to `out`."""
    return {"artefacts": [{"path": Path(r.path).relative_to(out).as_posix(),
                           "pages": r.layout} for r in results]}


def build_artefact(db: Any, art: Artefact, opts: Options, renderer: Any, fonts: dict[str, str],
                   out: Path, progress: Progress | None = None, *, commit: bool = True) -> Written:
    """Draw one artefact to `out/<game>/<name>.pdf` and its layout report (atomically: a
    failed build leaves any earlier file in place). `commit=False` leaves the drawn files
    beside their targets (`result.staged`) for `commit_staged` or `discard_staged`, so a
    build of several artefacts replaces none of them until all are drawn and accepted."""
    check_images(db, art)
    check_output(out, art.game)
    path = art.path(out)
    part = part_of(path)                    # unique: two builds never share one
    layout = art.layout_path(out)
    layout_part = part_of(layout)
    result = Written(art, path)
    step = progress or (lambda n: None)
    try:
        _DRAW[art.kind](db, art, opts, renderer, fonts, part, result, step)
        report = layout_report(out, [result])
        # compact: the indenting encoder is pure Python, slow on a 10,000-card deck
        layout_part.write_text(json.dumps(report, separators=(",", ":")) + "\n",
                               encoding="utf-8")
    except BaseException:
        part.unlink(missing_ok=True)
        layout_part.unlink(missing_ok=True)
        raise
    result.staged = [(part, path), (layout_part, layout)]
    if commit:
        commit_staged([result])
    return result


class _NullSink(io.RawIOBase):
    """A file that keeps nothing: where `check_artefact` writes its PDF."""

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        return len(data)


def check_artefact(db: Any, art: Artefact, opts: Options, renderer: Any,
                   fonts: dict[str, str], progress: Progress | None = None) -> Written:
    """Everything `build_artefact` does except writing: the images checked and every page
    drawn, through the same renderer and checks, into a sink that keeps nothing. Raises
    what the build would raise; the result's warnings are the build's (`pnp validate`)."""
    check_images(db, art)
    result = Written(art, Path(art.game) / f"{art.name}.pdf")
    _DRAW[art.kind](db, art, opts, renderer, fonts, _NullSink(), result,
                    progress or (lambda n: None))
    return result


def commit_staged(results: list[Written]) -> None:
    """Put the staged files of `results` in place (each one an atomic rename)."""
    for result in results:
        for written, target in result.staged:
            os.replace(written, target)
        result.staged = []


def discard_staged(results: list[Written]) -> None:
    """Remove the staged files of `results`: their targets stay as they were."""
    for result in results:
        for written, _ in result.staged:
            written.unlink(missing_ok=True)
        result.staged = []


def _warnings(value: Any) -> list[Any]:
    return list(value) if value else []


def _clipped(c, area: g.Rect):
    """Start a clip to `area` (caller restores state). Written as a literal operator:
    this runs twice per card and ReportLab's path objects cost more than the card's
    own plumbing."""
    c.saveState()
    c.addLiteral(f"{area.x:.4f} {area.y:.4f} {area.w:.4f} {area.h:.4f} re W n")


# ── decks ─────────────────────────────────────────────────────────────────────────


def deck_cards(deck: Any) -> Iterator[tuple[int, Any]]:
    """(design index, card) for the physical cards of a deck in order, copies repeated
    (lazily)."""
    for index, card in enumerate(deck.cards):
        for _ in range(card.copies):
            yield index, card


def _guide_code(guides: list[g.Guide], style: GuideStyle, dash: bool = False) -> str:
    """PDF operators for cut guides in `style` (print.cut_guides; pnp.artefacts.guides)."""
    return guide_code(guides, style, dash)


def _scale_form(c, fonts, paper: str, label_pt: float = 6) -> tuple[str, float, float]:
    """The scale bar (2 in on Letter, 50 mm on A4) with its label on a white plate, so
    it shows on any bleed colour: drawn once per document as a form, (name, w, h). A
    label above 6 pt (a higher print.min_text_pt) makes the plate that much taller."""
    length, label = g.scale_length(paper)
    w, h = length + g.mm(2), g.scale_plate_height(label_pt)
    name = f"scale-{paper}-{label_pt:g}"
    if not c.hasForm(name):      # drawn once per document (ReportLab knows its forms)
        c.beginForm(name, 0, 0, w, h)
        c.setFillColorRGB(1, 1, 1)
        c.rect(0, 0, w, h, stroke=0, fill=1)
        c.setFillColorRGB(0, 0, 0)
        x0 = (w - length) / 2
        bar_y = h - g.mm(1.6)
        c.rect(x0, bar_y, length, g.mm(0.6), stroke=0, fill=1)
        for x in (x0, x0 + length - g.mm(0.25)):  # end ticks: measure their outsides
            c.rect(x, bar_y - g.mm(0.6), g.mm(0.25), g.mm(1.8), stroke=0, fill=1)
        draw_string(c, w / 2, g.mm(0.9), label, fonts["regular"], label_pt, "centre")
        end_form(c)
    return name, w, h


def _draw_scale(c, fonts, plate: g.ScalePlate | None, paper: str,
                label_pt: float = 6) -> None:
    """The 100 % check in `plate` (turned a quarter anticlockwise when it stands)."""
    if plate is None:
        return
    name, _, _ = _scale_form(c, fonts, paper, max(6.0, label_pt))
    r = plate.rect
    c.saveState()
    if plate.vertical:
        c.translate(r.x + r.w, r.y)
        c.rotate(90)
    else:
        c.translate(r.x, r.y)
    c.doForm(name)
    c.restoreState()


def _sheet_choices(deck, opts: Options, w: float, h: float) -> list[g.Sheet]:
    try:
        return g.sheet_choices(*g.paper_size(opts.paper), w, h, opts.bleed,
                               opts.printer_margin, opts.layout)
    except ValueError as exc:
        raise BuildError(f"{deck.source}: deck {deck.id!r}: {exc}") from None


class _Batches:
    """The deck's cards sheet by sheet. With several impositions to choose from (layout
    auto), each sheet takes the first whose shared cut lines join cards with the same
    bleed paint; the last sheet takes full bleed when that still holds its cards."""

    def __init__(self, deck, choices: list[g.Sheet], renderer, w, h, bleed):
        self.cards = deck_cards(deck)
        self.pending: deque = deque()
        self.choices = choices
        self.deck = deck
        self.paint = getattr(renderer, "bleed_colors", None)
        self.size = (w, h, bleed)
        self.known: dict[int, tuple] = {}

    def _edges(self, design: tuple[int, Any]) -> tuple:
        index, card = design
        if index not in self.known:
            if self.paint is None:  # unknown bleed: never shared
                self.known[index] = tuple(("unknown", index),) * 4
            else:
                self.known[index] = tuple(self.paint(card, self.deck, *self.size))
        return self.known[index]

    def _fits(self, sheet: g.Sheet, batch: list) -> bool:
        for i, j, axis in g.abutting(sheet, len(batch)):
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
              art.title)


def draw_deck(deck, opts: Options, renderer, fonts, target, result: Written,
              step: Progress | None = None, title: str | None = None) -> None:
    """Impose `deck` (every copy of its cards) on sheets of `opts.paper` into the PDF
    `target`: cut guides, bleed, scale bar and duplex backs (or fold sheets) as `pnp
    build` prints it. A reprint passes a deck of some of its cards (pnp.exports.diff)."""
    step = step or (lambda n: None)
    w, h = g.mm(deck.size_mm[0]), g.mm(deck.size_mm[1])
    bleed = opts.bleed
    if opts.fold:
        try:
            fold = g.fold_sheet(opts.paper, w, h, bleed, opts.printer_margin)
        except ValueError as exc:
            raise BuildError(f"{deck.source}: deck {deck.id!r}: {exc}") from None
        page = (fold.grid.page_w, fold.grid.page_h)
    else:
        choices = _sheet_choices(deck, opts, w, h)
        page = (choices[0].page_w, choices[0].page_h)
    layout = "fold-and-glue" if opts.fold else (
        f"{opts.duplex} duplex" if opts.backs else "fronts only")
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=title or deck.title,
                    subject=f"{deck.count} cards, {opts.paper} paper, {layout}")
    pages = _Pages(c, result)
    back = _back_form(c, renderer, deck, w, h, bleed, result) if opts.backs else None

    forms: dict[int, str] = {}

    def front(slot: g.Slot, design: tuple[int, Any]) -> None:
        index, card = design
        if card.copies > 1 and index not in forms:
            # A card with copies is drawn once, as a form XObject every copy reuses.
            forms[index] = f"front-{deck.game}-{deck.id}-{index}"
            c.beginForm(forms[index], -bleed, -bleed, w + bleed, h + bleed)
            result.warnings += _warnings(renderer.draw_front(c, card, deck, 0, 0, w, h, bleed))
            end_form(c)
        _clipped(c, slot.area)
        t = slot.trim
        if index in forms:
            c.translate(t.x, t.y)
            c.doForm(forms[index])
        else:
            result.warnings += _warnings(
                renderer.draw_front(c, card, deck, t.x, t.y, t.w, t.h, bleed))
        c.restoreState()
        result.cards += 1
        step(1)

    def back_at(slot: g.Slot) -> None:
        _clipped(c, slot.area)
        c.translate(slot.trim.x, slot.trim.y)
        if slot.rotate == 180:
            c.translate(w, h)
            c.rotate(180)
        c.doForm(back)
        c.restoreState()

    if opts.fold:
        units = fold.grid.slots
        for batch in g.chunks(deck_cards(deck), fold.per_sheet):
            for pair, card in zip(fold.pairs, batch, strict=False):
                front(pair.front, card)
                back_at(pair.back)
            if opts.crop_marks:
                c.addLiteral(_guide_code(g.cut_guides(fold.grid, len(batch)), opts.guides))
                c.addLiteral(_guide_code(g.fold_guides(fold, len(batch)), opts.guides,
                                          dash=True))
            lines = [pair.fold for pair in fold.pairs[:len(batch)]]
            cells = g.free_cells(fold.grid, len(batch), [f.x0 for f in lines if f.x0 == f.x1],
                                 [f.y0 for f in lines if f.y0 == f.y1])
            _draw_scale(c, fonts, g.scale_plate(cells, g.scale_length(opts.paper)[0],
                                                opts.min_text_pt),
                        opts.paper, opts.min_text_pt)
            # a fold sheet lists what is cut out: each front with its back
            pages.show("other", [(card.name, unit.trim)
                                 for unit, (_, card) in zip(units, batch, strict=False)])
    else:
        length = g.scale_length(opts.paper)[0]
        marks: dict[tuple[int, int], tuple] = {}  # a few (sheet, count) pairs recur
        for sheet, batch in _Batches(deck, choices, renderer, w, h, bleed):
            for slot, card in zip(sheet.slots, batch, strict=False):
                front(slot, card)
            key = (choices.index(sheet), len(batch))
            if key not in marks:
                guides = g.cut_guides(sheet, len(batch)) if opts.crop_marks else []
                marks[key] = (_guide_code(guides, opts.guides),
                              g.scale_plate(g.free_cells(sheet, len(batch)), length,
                                            opts.min_text_pt))
            code, plate = marks[key]
            c.addLiteral(code)
            _draw_scale(c, fonts, plate, opts.paper, opts.min_text_pt)
            names = [card.name for _, card in batch]
            pages.show("front", list(zip(names, (s.trim for s in sheet.slots), strict=False)))
            if back is not None:
                backs = g.back_slots(sheet, len(batch), opts.duplex, opts.back_offset)
                for slot in backs:
                    back_at(slot)
                pages.show("back", list(zip(names, (s.trim for s in backs), strict=True)))
    c.save()
    result.pages = pages.count


def _back_form(c, renderer, deck, w, h, bleed, result: Written) -> str:
    """Draw the deck's back once as a form XObject; every back on every page reuses it."""
    name = f"back-{deck.game}-{deck.id}"
    c.beginForm(name, -bleed, -bleed, w + bleed, h + bleed)
    result.warnings += _warnings(renderer.draw_back(c, deck, 0, 0, w, h, bleed))
    end_form(c)
    return name


# ── mats ──────────────────────────────────────────────────────────────────────────


def _mat_size(gm, mat_id: str) -> tuple[float, float]:
    mw, mh = gm.extras["mats"][mat_id]["size_mm"]
    return g.mm(mw), g.mm(mh)


def _draw_mats(db, art, opts, renderer, fonts, target, result: Written, step) -> None:
    """Each mat on a page of its trim size plus bleed (TrimBox and BleedBox set for a
    print shop); nothing but background within the printer margin of the trim, so a
    mat printed at home on paper of its own size loses nothing."""
    gm = db.games[art.game]
    bleed = opts.bleed
    safe = max(g.mm(3.175), opts.printer_margin)
    c = None
    for mat_id, mat in gm.extras["mats"].items():
        mw, mh = _mat_size(gm, mat_id)
        size = (mw + 2 * bleed, mh + 2 * bleed)
        if c is None:
            c = open_canvas(target, font=fonts["regular"], page_size=size, title=art.title,
                            subject="player mats at full size, with bleed")
            pages = _Pages(c, result)
        c.setPageSize(size)
        c.setTrimBox((bleed, bleed, bleed + mw, bleed + mh))
        c.setBleedBox((0, 0, *size))
        result.warnings += _warnings(renderer.draw_mat(c, art.game, mat_id, bleed, bleed, mw,
                                                       mh, bleed=bleed, safe=safe))
        pages.show("other", [(mat.get("title", mat_id), g.Rect(bleed, bleed, mw, mh))])
        result.cards += 1
        step(1)
    c.save()
    result.pages = pages.count


def _draw_mats_tiled(db, art, opts: Options, renderer, fonts, target, result: Written,
                     step) -> None:
    gm = db.games[art.game]
    c = None
    for mat_id, mat in gm.extras["mats"].items():
        mw, mh = _mat_size(gm, mat_id)
        plan = g.tile_plan(mw, mh, opts.paper)
        if c is None:
            c = open_canvas(target, font=fonts["regular"], page_size=(plan.page_w, plan.page_h), title=art.title,
                            subject=f"player mats tiled on {opts.paper} paper, "
                                    f"{g.to_mm(plan.overlap):.0f} mm overlap")
            pages = _Pages(c, result)
        form = f"mat-{art.game}-{mat_id}"
        c.beginForm(form, 0, 0, mw, mh)
        result.warnings += _warnings(renderer.draw_mat(
            c, art.game, mat_id, 0, 0, mw, mh, safe=max(g.mm(3.175), opts.printer_margin)))
        end_form(c)
        for tile in plan.tiles:
            c.setPageSize((plan.page_w, plan.page_h))
            ox, oy = tile.origin
            window = tile.window.shifted(ox, oy)
            _clipped(c, window)
            c.translate(ox, oy)
            c.doForm(form)
            c.restoreState()
            _tile_marks(c, plan, tile, window)
            _tile_caption(c, fonts, opts, plan, tile, mat.get("title", mat_id), result)
            pages.show()
            result.cards += 1
        step(1)
    c.save()
    result.pages = pages.count


ALIGN_R = g.mm(3)


def _tile_marks(c, plan: g.TilePlan, tile: g.Tile, window: g.Rect) -> None:
    """The tile's edge (thin grey) and the alignment marks (circle + cross) in it."""
    c.saveState()
    c.setLineWidth(HAIRLINE)
    c.setStrokeColorRGB(0.5, 0.5, 0.5)
    c.rect(window.x, window.y, window.w, window.h, stroke=1, fill=0)
    c.setStrokeColorRGB(0, 0, 0)
    for mx, my in plan.marks:
        if not tile.window.contains(mx, my):
            continue
        x, y = tile.on_page(mx, my)
        c.setFillColorRGB(1, 1, 1)
        c.circle(x, y, ALIGN_R, stroke=1, fill=1)
        c.line(x - 1.6 * ALIGN_R, y, x + 1.6 * ALIGN_R, y)
        c.line(x, y - 1.6 * ALIGN_R, x, y + 1.6 * ALIGN_R)
    c.restoreState()


def _text(c, fonts, opts: Options, role: str, size: float, x: float, y: float, text: str,
          anchor: str = "left", result: Written | None = None, element: str = "") -> None:
    """Sheet text (headings, captions, scales): never below print.min_text_pt, and
    characters the font lacks drawn with its fallback (pnp.draw.glyphs); with `result`,
    characters no font has are a warning on the artefact's `element`."""
    missing = draw_string(c, x, y, text, fonts[role], max(size, opts.min_text_pt), anchor)
    if missing and result is not None:
        art = result.artefact
        result.warnings.append(LayoutWarning(
            art.game, f"({art.name})", "page", element,
            f"no font has {describe(missing)}: printed as an empty box"))


def _tile_caption(c, fonts, opts: Options, plan: g.TilePlan, tile: g.Tile, title: str,
                  result: Written) -> None:
    c.saveState()
    c.setFillColorRGB(0.3, 0.3, 0.3)
    text = (f"{title} \u2014 tile {tile.label} (row {chr(ord('A') + tile.row)} of {plan.rows}, "
            f"column {tile.col + 1} of {plan.cols}). Neighbouring tiles overlap by "
            f"{g.to_mm(plan.overlap):.0f} mm: trim one edge, lay it over the next and line "
            f"up the circled crosses.")
    # inside the printable band, below the tile
    _text(c, fonts, opts, "regular", 7, plan.margin,
          max(plan.margin / 2 - 2, opts.printer_margin + g.mm(0.5)), text, result=result,
          element="tile caption")
    c.restoreState()


# ── dice labels ───────────────────────────────────────────────────────────────────


def _heading(c, fonts, opts: Options, page_w: float, page_h: float, title: str,
             note: str, result: Written) -> g.Rect:
    """Draw a page heading; returns the content area left below it."""
    c.setFillColorRGB(0, 0, 0)
    _text(c, fonts, opts, "bold", 12, PAGE_MARGIN, page_h - PAGE_MARGIN - 10, title,
          result=result, element="heading")
    _text(c, fonts, opts, "regular", 8, PAGE_MARGIN, page_h - PAGE_MARGIN - 21, note,
          result=result, element="heading")
    return g.Rect(PAGE_MARGIN, PAGE_MARGIN, page_w - 2 * PAGE_MARGIN,
                  page_h - 2 * PAGE_MARGIN - HEADING_H)


def _dice(gm) -> dict:
    """The game's dice as cards.yaml declares them, one die or several named ones
    (carddb.dice: the referee reads the same declaration)."""
    from carddb.dice import dice_of

    return dice_of(gm.extras, gm.title, gm.extras.get("colors"))


def _draw_dice(db, art, opts: Options, renderer, fonts, target, result: Written, step) -> None:
    gm = db.games[art.game]
    dice = _dice(gm)
    size = g.mm(opts.die_label_mm)
    page = g.paper_size(opts.paper)
    counts = ", ".join(f"{d.per_player} x {len(d.faces)} faces" for d in dice.values())
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title,
                    subject=f"{opts.die_label_mm:g} mm labels, dice of {counts} per set")
    pages = _Pages(c, result)
    faces_drawn: dict[tuple[str, Any], str] = {}
    for die in dice.values():
        faces = die.faces
        per_player = die.per_player
        for die_set in die.sets:
            set_id, label = die_set.id, die_set.label
            labels = [(n, face) for n in range(per_player) for face in faces]
            first = True
            while labels:
                area = _heading(c, fonts, opts, *page, f"{label} dice \u2014 sticker labels",
                                f"{per_player} dice x {len(faces)} faces ("
                                + ", ".join(f.label for f in faces) + f"), "
                                f"{opts.die_label_mm:g} mm; one row per die; cut on the grey lines"
                                + ("" if first else " (continued)"), result)
                try:
                    grid = g.item_grid(area, size, size, LABEL_GAP, max_cols=len(faces))
                    _heading_scale(c, fonts, page, opts.paper, opts.min_text_pt)
                except ValueError as exc:
                    raise BuildError(f"print.die_label_mm {opts.die_label_mm:g}: {exc}") from None
                batch, labels = labels[:grid.per_page], labels[grid.per_page:]
                for cell, (_n, face) in zip(grid.cells, batch, strict=False):
                    key = (set_id, face.key)
                    if key not in faces_drawn:  # each face is drawn once, then reused
                        faces_drawn[key] = f"die-{art.game}-{set_id}-{face.key}"
                        c.beginForm(faces_drawn[key], 0, 0, size, size)
                        value = face.value if face.symbol is None else face.key
                        result.warnings += _warnings(
                            renderer.draw_die_face(c, art.game, set_id, value, 0, 0, size,
                                                   face=face))
                        end_form(c)
                    c.saveState()
                    c.translate(cell.x, cell.y)
                    c.doForm(faces_drawn[key])
                    c.restoreState()
                    _cut_rect(c, cell)
                    result.cards += 1
                    step(1)
                pages.show()
                first = False
    c.save()
    result.pages = pages.count


def _heading_scale(c, fonts, page: tuple[float, float], paper: str,
                   label_pt: float = 6) -> None:
    """The scale bar at the right end of a page heading."""
    length = g.scale_length(paper)[0]
    plate_w = length + g.mm(2)
    plate_h = g.scale_plate_height(label_pt)
    rect = g.Rect(page[0] - PAGE_MARGIN - plate_w, page[1] - PAGE_MARGIN - plate_h,
                  plate_w, plate_h)
    _draw_scale(c, fonts, g.ScalePlate(rect, False), paper, label_pt)


def _cut_rect(c, r: g.Rect) -> None:
    c.saveState()
    c.setLineWidth(HAIRLINE)
    c.setStrokeColorRGB(0.55, 0.55, 0.55)
    c.rect(r.x, r.y, r.w, r.h, stroke=1, fill=0)
    c.restoreState()


# ── tokens ────────────────────────────────────────────────────────────────────────


def _draw_tokens(db, art, opts: Options, renderer, fonts, target, result: Written, step) -> None:
    gm = db.games[art.game]
    page = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title, subject="punch-out tokens")
    pages = _Pages(c, result)
    # The fill runs past the cut circle, never into the neighbour's.
    bleed = min(opts.bleed, TOKEN_BLEED, TOKEN_GAP / 2)
    for token_id, spec in gm.extras["tokens"].items():
        d = g.mm(float(spec["diameter_mm"]))
        remaining = int(spec["count"])
        name = spec.get("name", token_id)
        form = f"token-{art.game}-{token_id}"  # every token of a kind is the same drawing
        c.beginForm(form, -bleed, -bleed, d + bleed, d + bleed)
        result.warnings += _warnings(renderer.draw_token(c, art.game, token_id, d / 2, d / 2,
                                                         d / 2, bleed=bleed))
        end_form(c)
        while remaining > 0:
            area = _heading(c, fonts, opts, *page, f"{name}s ({spec.get('label', token_id)})",
                            f"{spec['count']} tokens, {spec['diameter_mm']:g} mm; "
                            "cut or punch along the circles", result)
            try:
                grid = g.item_grid(area, d, d, TOKEN_GAP)
            except ValueError as exc:
                raise BuildError(f"tokens.{token_id}.diameter_mm: {exc}") from None
            _heading_scale(c, fonts, page, opts.paper, opts.min_text_pt)
            n = min(remaining, grid.per_page)
            for cell in grid.cells[:n]:
                cx, cy = cell.x + d / 2, cell.y + d / 2
                c.saveState()
                c.translate(cell.x, cell.y)
                c.doForm(form)
                c.restoreState()
                c.saveState()
                c.setLineWidth(HAIRLINE)
                c.setStrokeColorRGB(0, 0, 0)
                c.circle(cx, cy, d / 2, stroke=1, fill=0)
                c.restoreState()
                result.cards += 1
                step(1)
            remaining -= n
            pages.show()
    c.save()
    result.pages = pages.count


# ── reference card ────────────────────────────────────────────────────────────────


def _draw_reference(db, art, opts: Options, renderer, fonts, target, result: Written,
                    step) -> None:
    page = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title, subject="turn summary")
    pages = _Pages(c, result)
    box = g.Rect(PAGE_MARGIN, PAGE_MARGIN, page[0] - 2 * PAGE_MARGIN, page[1] - 2 * PAGE_MARGIN)
    result.warnings += _warnings(renderer.draw_reference(c, art.game, box.x, box.y, box.w, box.h))
    length = g.scale_length(opts.paper)[0]
    plate_w = length + g.mm(2)
    plate_h = g.scale_plate_height(opts.min_text_pt)
    _draw_scale(c, fonts, g.ScalePlate(g.Rect((page[0] - plate_w) / 2,
                                              PAGE_MARGIN - plate_h - g.mm(0.5),
                                              plate_w, plate_h), False),
                opts.paper, opts.min_text_pt)
    pages.show()
    c.save()
    result.pages = 1
    result.cards = 1
    step(1)


# ── duplex calibration ────────────────────────────────────────────────────────────

CAL_RANGE_MM = 10  # the back's scales read -10 .. +10 mm


def calibration_points(page_w: float, page_h: float) -> list[tuple[float, float]]:
    """The crosses on the front of the calibration sheet: centre and four corners."""
    inset = g.mm(40)
    return [(page_w / 2, page_h / 2), (inset, inset), (page_w - inset, inset),
            (inset, page_h - inset), (page_w - inset, page_h - inset)]


def calibration_arrow(page_w: float, page_h: float) -> g.Rect:
    """The box of the front's "this edge up" arrow: off the centre lines both ways, so
    that its partner on the back lands behind it only when the sheet was turned over
    the edge the build assumes."""
    return g.Rect(g.mm(70), page_h - g.mm(115), g.mm(10), g.mm(55))


def _arrow(c, box: g.Rect, up: bool = True) -> None:
    """A filled arrow filling `box`, pointing to the box's top (or bottom)."""
    c.saveState()
    if not up:
        c.translate(box.x + box.w, box.y + box.h)
        c.rotate(180)
        box = g.Rect(0, 0, box.w, box.h)
    head = box.w * 1.2
    shaft = box.w * 0.35
    cx = box.x + box.w / 2
    p = c.beginPath()
    p.moveTo(cx - shaft / 2, box.y)
    p.lineTo(cx - shaft / 2, box.top - head)
    p.lineTo(box.x, box.top - head)
    p.lineTo(cx, box.top)
    p.lineTo(box.right, box.top - head)
    p.lineTo(cx + shaft / 2, box.top - head)
    p.lineTo(cx + shaft / 2, box.y)
    p.close()
    c.drawPath(p, stroke=0, fill=1)
    c.restoreState()


def _draw_calibration(db, art, opts: Options, renderer, fonts, target, result: Written,
                      step) -> None:
    pw, ph = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=(pw, ph), title=art.title,
                    subject=f"measure --back-offset for {opts.duplex} duplex")
    pages = _Pages(c, result)
    arm = g.mm(6)
    length = g.scale_length(opts.paper)[0]
    plate_w = length + g.mm(2)
    plate = g.ScalePlate(g.Rect((pw - plate_w) / 2, g.mm(18), plate_w,
                                g.scale_plate_height(opts.min_text_pt)), False)
    _text(c, fonts, opts, "bold", 12, PAGE_MARGIN, ph - PAGE_MARGIN - 10,
          "Duplex calibration \u2014 front")
    lines = [
        f"Print both pages on one sheet, duplex, {opts.duplex} flip, at 100 % (no fit-to-page).",
        "Hold the sheet against a light. On the back, read where each cross of this side falls",
        "on the scales: X on the horizontal scale, Y on the vertical (mm, as seen from the back).",
        "Add the readings to the current offset "
        f"({opts.back_offset_mm[0]:g},{opts.back_offset_mm[1]:g}) and build with "
        "--back-offset X,Y (or set print.back_offset_mm).",
    ]
    for i, line in enumerate(lines):
        _text(c, fonts, opts, "regular", 9, PAGE_MARGIN, ph - PAGE_MARGIN - 26 - 11 * i, line)
    c.setLineWidth(0.5)
    for x, y in calibration_points(pw, ph):
        c.line(x - arm, y, x + arm, y)
        c.line(x, y - arm, x, y + arm)
        c.circle(x, y, g.mm(1), stroke=1, fill=0)
    arrow = calibration_arrow(pw, ph)
    _arrow(c, arrow)
    _text(c, fonts, opts, "bold", 10, arrow.right + g.mm(3), arrow.top - g.mm(4), "THIS EDGE UP")
    for i, line in enumerate(("front: the top of every card. On the back, the grey arrow",
                              "must lie behind this one, pointing the same way; if it",
                              "does not, the printer turned the sheet over the other",
                              "edge: build with the other --duplex mode.")):
        _text(c, fonts, opts, "regular", 8, arrow.right + g.mm(3), arrow.top - g.mm(8) - 10 * i,
              line)
    _draw_scale(c, fonts, plate, opts.paper, opts.min_text_pt)
    _text(c, fonts, opts, "regular", 8, pw / 2, plate.rect.top + g.mm(2),
          f"This bar must measure {g.scale_length(opts.paper)[1].split(' at')[0]}"
          " exactly; if not, the sheet was not printed at 100 %.", anchor="centre")
    pages.show("front")

    _text(c, fonts, opts, "bold", 12, PAGE_MARGIN, ph - PAGE_MARGIN - 10,
          "Duplex calibration \u2014 back")
    _text(c, fonts, opts, "regular", 9, PAGE_MARGIN, ph - PAGE_MARGIN - 26,
          "Read X and Y where the front's crosses show through; 0,0 = aligned.")
    _text(c, fonts, opts, "regular", 9, PAGE_MARGIN, ph - PAGE_MARGIN - 37,
          "This arrow must sit behind the front's arrow and point the same way "
          "(to the front's top edge).")
    ox, oy = opts.back_offset
    for x, y in calibration_points(pw, ph):
        # Where the front's cross lands on this side, with the current offset applied.
        spot = g.back_slot(g.Slot(0, 0, 0, g.Rect(x, y, 0, 0), g.Edges()), pw, ph,
                           opts.duplex, (ox, oy)).trim
        _scale(c, fonts, opts, spot.x, spot.y)
    partner = g.back_slot(g.Slot(0, 0, 0, arrow, g.Edges()), pw, ph, opts.duplex, (ox, oy))
    c.setFillColorRGB(0.45, 0.45, 0.45)
    _arrow(c, partner.trim, up=partner.rotate != 180)
    c.setFillColorRGB(0, 0, 0)
    label_x = partner.trim.x - g.mm(3)
    _text(c, fonts, opts, "bold", 8, label_x, partner.trim.y + partner.trim.h / 2,
          "behind the front's arrow", anchor="right")
    _draw_scale(c, fonts, g.ScalePlate(plate.rect.shifted(0, 0), False), opts.paper,
                opts.min_text_pt)
    pages.show("back")
    c.save()
    result.pages = 2
    result.cards = 0
    step(1)


def _scale(c, fonts, opts: Options, x: float, y: float) -> None:
    """Millimetre scales through (x, y): ticks every mm, longer and numbered every 5."""
    span = g.mm(CAL_RANGE_MM)
    c.setLineWidth(0.3)
    c.line(x - span, y, x + span, y)
    c.line(x, y - span, x, y + span)
    size = max(6.0, opts.min_text_pt)        # numbers every 5 mm: room for 6 pt
    for i in range(-CAL_RANGE_MM, CAL_RANGE_MM + 1):
        t = g.mm(i)
        tick = g.mm(1.6 if i % 5 == 0 else 0.8)
        c.line(x + t, y - tick, x + t, y + tick)
        c.line(x - tick, y + t, x + tick, y + t)
        if i % 5 == 0 and i:
            # X numbers above their axis, Y numbers left of theirs: at 6 pt, numbers
            # below and right of the axes collide in the (+X, -Y) quarter
            _text(c, fonts, opts, "regular", size, x + t, y + tick + 1, f"{i:+d}", "centre")
            _text(c, fonts, opts, "regular", size, x - tick - 1, y + t - size * 0.35,
                  f"{i:+d}", "right")


_DRAW = {
    DECK: _draw_deck,
    MATS: _draw_mats,
    MATS_TILED: _draw_mats_tiled,
    DICE: _draw_dice,
    TOKENS: _draw_tokens,
    REFERENCE: _draw_reference,
    CALIBRATION: _draw_calibration,
}
