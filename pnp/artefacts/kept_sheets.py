"""Finished sheets kept across builds (issue 36 item 2): an edit to one card of a big
deck redraws the sheets that card is on, not every sheet of the deck.

A deck's PDF is drawn sheet by sheet (pnp.artefacts.kinds.deck). Each sheet drawn is
kept, its pages as shown (`pnp.draw.pdf.KeptPage`: the deflated content stream, the
forms it draws by name, its graphics states), under a key made of
- the plan key of each card on it (pnp.draw.plan_cache: everything its plan reads), with
  its design index and copies (a card with copies is drawn through a form named by its
  index), and the sheet's layout (which imposition, how many cards);
- where the document's fonts stand when the sheet starts: ReportLab gives each TrueType
  font's characters their codes in the order they are first drawn, so the same text is
  other bytes after other text (each font's name in the document and a digest of its
  assignments in order, as pnp.draw.textcode does for one text).
With the sheet are kept the characters it gave codes to (in order), the layout report's
entries of its pages, its cards' warnings, the other cards their plans looked up and the
files they draw (checked as the plan store checks them), and what the build record's
observers kept about each card's plan (its hash: pnp.artefacts.drawn).

A sheet whose key is kept is shown again instead of drawn: its characters get the same
codes (so the document, and every later sheet, stands as drawing it would have left it),
its pages are added as kept. What else a sheet made in the document is made again in
drawing order (fonts are named and objects numbered in that order): the fonts it used
first, named as drawing named them, and the form XObjects it drew (the first sheet's
scale plate), each before the page it was made on, when the document's objects are
numbered on from where they were then (`_Made`). A sheet that made anything else (an
image, a font of another kind) is drawn every time; every form a kept page draws must be
in the document or made by its sheet. The deck's back, a form drawn before any sheet
(naming the fonts of its text first), is kept the same way, under its plan key and where
the fonts stand (`KeptSheets.back`), and told to the build record's observers as kept.
The PDF is byte for byte the one `--force` writes, whatever is kept (tests/pnp/
test_kept_sheets.py).

One file per deck, project and language, beside the card plans (FOLDER/sheets/<digest>.pickle),
with a header of what every sheet of it depends on (the build's options, fonts, page,
backs, the sheet code, ReportLab's and zlib's versions): another header, nothing is
reused. A file that cannot be read is a note and every sheet drawn, never an error. It
keeps the sheets of the last build and, up to as many again, older ones (an edit undone
is a hit). `--force` shows none, and writes the file only when it drew a sheet not kept
under its key already.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import pickle
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FORMAT = "pnp-kept-sheets-1"
# The sources whose code decides a sheet's bytes besides a card's plan (plan keys hold
# the drawing code's own hash).
_SHEET_CODE = ("artefacts", "layout", "draw/pdf.py", "draw/glyphs.py")


class _Sheet:
    """A kept sheet: its pages and the layout report's entries of them, the characters it
    gave codes to per font, its warnings and cards, what else it made in the
    document (`_Made`, or None when it made nothing but pages and character codes) and
    the PDF features its drawing asked the document's version for (`asked`: a translucent
    fill makes the file PDF 1.4, and showing the sheet must make it so too)."""

    __slots__ = ("pages", "entries", "fonts", "warnings", "cards", "made", "asked")

    def __init__(self, pages: list, entries: list, fonts: list, warnings: list,
                 cards: list, made: _Made | None = None, asked: tuple = ()) -> None:
        self.pages, self.entries, self.fonts = pages, entries, fonts
        self.warnings, self.cards, self.made, self.asked = warnings, cards, made, asked

    def __getstate__(self) -> tuple:
        return (self.pages, self.entries, self.fonts, self.warnings, self.cards, self.made,
                self.asked)

    def __setstate__(self, state: tuple) -> None:
        # a file of an earlier version (five or six fields) is read, and its header then
        # differs: the fields it lacks are empty
        lacking: tuple = (None, ())[len(state) - 5:]
        (self.pages, self.entries, self.fonts, self.warnings, self.cards, self.made,
         self.asked) = (*state, *lacking)


class _Made:
    """What a sheet made in the document besides its pages and character codes, to make
    again in the same order when it is shown: the fonts it used first (named in the
    document in this order: `F<n>`), the form XObjects it drew (each pickled as drawn,
    by its name, before the page it was made on) and the document's object counter when
    it started (objects are numbered in the order they are made: the same counter, the
    same numbers). The first sheet of a deck makes the fonts its cards use first and
    the scale plate's form; the last, often, a scale plate of its own."""

    __slots__ = ("counter", "named", "order")

    def __init__(self, counter: int, named: tuple, order: tuple) -> None:
        # order: (page index, ((form name, pickled form), ...) made before that page)
        self.counter, self.named, self.order = counter, named, order

    def __getstate__(self) -> tuple:
        return (self.counter, self.named, self.order)

    def __setstate__(self, state: tuple) -> None:
        self.counter, self.named, self.order = state

    def forms(self) -> list[str]:
        return [name for _, made in self.order for name, _ in made]


@functools.cache
def _code_digest() -> str:
    import zlib

    import reportlab

    from carddb.cache import package_sources, sources_digest

    package = Path(__file__).resolve().parents[1]
    return sources_digest(f"{FORMAT}\0{reportlab.Version}\0{zlib.ZLIB_RUNTIME_VERSION}".encode(),
                          package, package_sources(package, _SHEET_CODE))


def for_deck(canvas: Any, drawer: Any, opts: Any, fonts: dict, page: tuple) -> KeptSheets | None:
    """The kept sheets of the one deck `drawer` (deck._CardDrawer) draws on `canvas`; None
    when sheets cannot be kept (no plan store, caching off, a canvas that cannot show a
    kept page)."""
    renderer = drawer.renderer
    store = getattr(renderer, "plan_store", None)
    where = getattr(store, "where", None)
    if (where is None or len(drawer.decks) != 1 or not callable(getattr(canvas, "show_kept", None))
            or not callable(getattr(renderer, "front_key", None))):
        return None
    deck = drawer.decks[0]
    project = str(getattr(store, "project", ""))
    # by language too: `--lang de` and the default build keep their sheets apart
    lang = getattr(renderer, "language", None)
    name = hashlib.sha256(f"{project}\0{deck.game}/{deck.id}\0{lang}".encode()).hexdigest()[:32]
    header = hashlib.sha256(repr((
        _code_digest(), getattr(store, "context", ""), repr(opts), sorted(fonts.items()), page,
        deck.game, deck.id, drawer.w, drawer.h, drawer.bleed,
    )).encode()).hexdigest()
    # a build that plans every card anew (--force) reads no kept sheet (the store that
    # workers' plans pass through reads what the build's own store reads)
    read = bool(getattr(getattr(store, "store", store), "read", False))
    return KeptSheets(Path(where).parent / "sheets" / f"{name}.pickle", header, read,
                      canvas, drawer)


class KeptSheets:
    """The kept sheets of one deck being drawn: `sheet(batch, layout, draw)` shows the kept
    sheet or draws it (and keeps it); `paint` gives _Batches a card's edge paint without
    planning it when kept; `close()` stops listening, `save()` writes what was kept."""

    def __init__(self, path: Path, header: str, read: bool, canvas: Any, drawer: Any) -> None:
        self.path, self.header, self.canvas, self.drawer = path, header, canvas, drawer
        self.deck = drawer.decks[0]
        self.size = (drawer.w, drawer.h, drawer.bleed)
        self.sheets: dict[str, _Sheet] = {}
        self.edges: dict[str, tuple] = {}         # plan key -> edge paint (no depends)
        self.made: dict[str, _Sheet] = {}         # shown or drawn by this build
        self.made_edges: dict[str, tuple] = {}
        self.changed = False
        self.memos: dict[str, dict] = {}          # card name -> its plan's memo
        self._keys: dict[int, str | None] = {}    # id(card) -> plan key
        self._digests: dict[tuple[str, int], bytes] = {}
        self.read = read
        self._load()
        self.renderer = drawer.renderer
        self.renderer.observe_faces(self._seen, kept=self._shown)
        self._front_key = self.renderer.front_key     # asked for each card: found once

    # ── the file ──────────────────────────────────────────────────────────────────
    def _load(self) -> None:
        held = _held.get(self.path)
        from carddb.files import identity

        if held is not None and held[0] == identity(self.path):
            if held[1] == self.header:       # the file as this process wrote or read it
                self.sheets, self.edges = dict(held[2]), dict(held[3])
            return
        try:
            with open(self.path, "rb") as f:
                stat = os.fstat(f.fileno())
                data = pickle.load(f)
        except OSError:         # none yet, or a folder it cannot be read from: a miss
            return
        except Exception as exc:  # damaged, truncated, not ours: every sheet drawn
            self._note(f"kept sheets of deck {self.deck.id!r} unreadable "
                       f"({type(exc).__name__}): every sheet drawn again")
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            self._note(f"kept sheets of deck {self.deck.id!r} unreadable (not {FORMAT}): "
                       f"every sheet drawn again")
            return
        if data.get("header") == self.header:
            self.sheets, self.edges = dict(data["sheets"]), dict(data["edges"])
        _hold(self.path, (stat.st_ino, stat.st_mtime_ns, stat.st_size), data.get("header"),
              self.sheets, self.edges)

    def _note(self, line: str) -> None:
        from pnp.draw.art import tell

        tell(("kept-sheets", str(self.path)), f"{self.path}: {line}")

    def save(self) -> None:
        """Write the sheets of this build and, up to as many again, older ones, when
        anything was drawn anew (atomically; an unwritable folder keeps none); inside
        `saved_later()`, when it ends."""
        if not self.changed:
            return
        if _later is not None:
            _later.append(self._write)
        else:
            self._write()

    def _write(self) -> None:
        from carddb.files import part_of

        kept = dict(self.made)
        for key, found in self.sheets.items():
            if len(kept) >= 2 * len(self.made):
                break
            kept.setdefault(key, found)
        keys = {card[0] for found in kept.values() for card in found.cards}
        edges = {k: v for k, v in {**self.edges, **self.made_edges}.items() if k in keys}
        part = part_of(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(part, "wb") as f:
                pickle.dump({"format": FORMAT, "header": self.header, "sheets": kept,
                             "edges": edges}, f, protocol=pickle.HIGHEST_PROTOCOL)
                f.flush()
                stat = os.fstat(f.fileno())
            os.replace(part, self.path)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            part.unlink(missing_ok=True)
            return
        _hold(self.path, (stat.st_ino, stat.st_mtime_ns, stat.st_size), self.header, kept,
              edges)

    def close(self) -> None:
        self.renderer.unobserve_faces(self._seen)

    # ── cards ─────────────────────────────────────────────────────────────────────
    def _seen(self, face: Any) -> None:
        target = face.target
        if target.deck == self.deck.id and target.game == self.deck.game:
            self.memos[target.card] = face.memo

    def _shown(self, face: Any) -> None:
        """A card front of a kept sheet shown (a KeptFace): nothing to do, as its memo is
        already the one in the sheet's entry. Taking kept faces here is what keeps the
        renderer from making each one's PlannedFace for `_seen`, which would only
        read it back."""

    def key_of(self, card: Any) -> str | None:
        found = self._keys.get(id(card), "")
        if found == "":
            found = self._keys[id(card)] = self._front_key(card, self.deck, *self.size)
        return found

    def paint(self, card: Any, deck: Any, w: float, h: float, bleed: float) -> tuple:
        """A front's edge paint (CardRenderer.bleed_colors) as kept when its plan is the
        one kept and reads nothing else; else planned."""
        key = self.key_of(card)
        found = self.edges.get(key) if key is not None and self.read else None
        if found is not None:
            self.made_edges[key] = found        # type: ignore[index]
            return found
        edges = self.renderer.bleed_colors(card, deck, w, h, bleed)
        if key is not None and self.renderer.front_depends(card, deck, w, h, bleed) == ({}, {}):
            self.made_edges[key] = edges
        return edges

    # ── sheets ────────────────────────────────────────────────────────────────────
    def sheet(self, batch: list, layout: tuple, draw: Any) -> None:
        """Show the kept sheet of `batch` ((design, card) pairs) on the imposition
        `layout`, or `draw()` it (and keep it when it can be)."""
        key = self._key(batch, layout)
        if key is None:
            draw()
            return
        found = self.sheets.get(key)
        if self.read and found is not None and self._holds(found):
            self._show(found, batch)
            self.made[key] = found
            return
        made = self._drawn(batch, draw)
        if made is not None:
            self.made[key] = made
            # a forced build writes no sheet kept already under its key (it is this one)
            self.changed = self.changed or found is None

    def _key(self, batch: list, layout: tuple) -> str | None:
        c = self.canvas
        if c._code or c._codeStack:          # not at the start of an empty page
            return None
        cards = []
        for (where, card) in batch:
            key = self.key_of(card)
            if key is None:
                return None
            cards.append((key, where[1], card.copies))
        return hashlib.sha256(repr((layout, cards, self._fonts())).encode()).hexdigest()

    def _fonts(self) -> tuple:
        """Where the document's fonts stand: each font's name there and, for a TrueType
        font, a digest of its characters' codes (their order of assignment)."""
        doc = self.canvas._doc
        out: list[Any] = [tuple(doc.fontMapping.items())]
        for font in doc.delayedFonts:
            state = getattr(font, "state", {}).get(doc)
            if state is None:
                continue
            assigned = state.assignments
            n = len(assigned)
            digest = self._digests.get((font.fontName, n))
            if digest is None:
                digest = hashlib.blake2b(array("q", assigned).tobytes(), digest_size=16).digest()
                self._digests[(font.fontName, n)] = digest
            out.append((font.fontName, state.internalName, n, digest))
        return tuple(out)

    def _holds(self, found: _Sheet) -> bool:
        """Whether a kept sheet may be shown here: every form its pages draw is in the
        document or made by the sheet (and those not yet), the fonts it names first are
        registered, the document's objects are numbered on from where they were, the
        cards its plans looked up and the files they draw are as they were."""
        from reportlab.pdfbase.pdfdoc import xObjectName

        doc = self.canvas._doc
        objects = doc.idToObject
        made = found.made
        own = set(made.forms()) if made is not None else set()
        if made is not None and (made.counter != doc.objectcounter
                                 or any(name in objects for name in own)
                                 or not _registered(made.named)):
            return False
        if any(xObjectName(name) not in objects and xObjectName(name) not in own
               for page in found.pages for name in page.forms):
            return False
        return all(self.renderer.depends_hold(self.deck.game, card[2], card[3])
                   for card in found.cards if card[2] or card[3])

    def _show(self, found: _Sheet, batch: list) -> None:
        c, drawer = self.canvas, self.drawer
        doc = c._doc
        _codes_again(doc, found)
        made = found.made
        touch = self.renderer.plan_store.touch
        bucket = f"{self.deck.game}/{self.deck.id}"
        shown = []
        for (_, card), (key, _name, _looked, _files, memo) in zip(batch, found.cards,
                                                                strict=True):
            touch(bucket, key)
            shown.append((card, memo))
        self.renderer.kept_fronts(self.deck, *self.size, shown)
        drawer.result.cards += len(shown)
        drawer.step(len(shown))
        drawer.result.warnings += found.warnings
        forms = dict(made.order) if made is not None else {}
        for index, (page, entry) in enumerate(zip(found.pages, found.entries, strict=True)):
            for name, form in forms.get(index, ()):
                _add_form(doc, name, form)
            drawer.pages.shown_again(entry, lambda page=page: c.show_kept(page))

    # ── the back ──────────────────────────────────────────────────────────────────
    def back(self, draw: Any) -> str:
        """The deck's back form (deck._back_form): made again as kept, or `draw()`n
        (and kept when it can be); its name. The back is drawn before any sheet, into
        no page: it names the fonts its text uses first and makes its form."""
        deck, (w, h, bleed) = self.deck, self.size
        keyed = getattr(self.renderer, "back_key", None)    # (a stand-in renderer: none)
        back = keyed(deck, w, h, bleed) if callable(keyed) else None
        if back is None or self.canvas._formData:
            return draw()
        key = hashlib.sha256(repr(("back", back, self._fonts())).encode()).hexdigest()
        found = self.sheets.get(key)
        if (self.read and found is not None and found.made is not None
                and len(found.made.forms()) == 1 and self._holds(found)):
            doc = self.canvas._doc
            _codes_again(doc, found)
            (_, ((name, form),)), = found.made.order
            _add_form(doc, name, form)
            self.renderer.kept_back(deck, w, h, bleed, dict(found.cards[0][4] or {}))
            self.drawer.result.warnings += found.warnings
            self.made[key] = found
            return name[len("FormXob."):]
        made, name = self._drawn_back(back, draw)
        if made is not None:
            self.made[key] = made
            self.changed = self.changed or found is None
        return name

    def _drawn_back(self, back: str, draw: Any) -> tuple[_Sheet | None, str]:
        """`draw()` the back: (what to keep of it, or None when it made anything but its
        one form and fonts named first; its form's name)."""
        doc, drawer = self.canvas._doc, self.drawer
        before = (len(doc.idToObject), len(doc.fontMapping), len(doc.delayedFonts),
                  doc.objectcounter)
        assigned = _assigned(doc)
        warnings = len(drawer.result.warnings)
        with _asking(doc) as asked:
            name = draw()
        fonts = _new_codes(doc, assigned)
        keep, made = _made_in(doc, before, 0, {font for font, _ in fonts})
        deck, (w, h, bleed) = self.deck, self.size
        files = self.renderer.back_files(deck, w, h, bleed) if keep else None
        if made is None or files is None or made.forms() != [f"FormXob.{name}"]:
            return None, name
        memo = self.memos.get("(back)")
        return _Sheet([], [], fonts, list(drawer.result.warnings[warnings:]),
                      [(back, "(back)", {}, files, None if memo is None else _observed(memo))],
                      made, tuple(asked)), name

    def _drawn(self, batch: list, draw: Any) -> _Sheet | None:
        """`draw()` the sheet; what to keep of it, or None when it made anything in the
        document that showing it could not make again (`_made_in`)."""
        c, drawer = self.canvas, self.drawer
        doc = c._doc
        before = (len(doc.idToObject), len(doc.fontMapping), len(doc.delayedFonts),
                  doc.objectcounter)
        forms = len(drawer.forms)
        assigned = _assigned(doc)
        warnings, entries = len(drawer.result.warnings), len(drawer.pages.layout)
        c.kept_pages = []
        try:
            with _asking(doc) as asked:
                draw()
            pages = c.kept_pages
        finally:
            c.kept_pages = None
        # a card with copies makes a form the drawer names (drawer.forms): not kept
        if not pages or None in pages or len(drawer.forms) != forms:
            return None
        fonts = _new_codes(doc, assigned)
        keep, made = _made_in(doc, before, len(pages), {name for name, _ in fonts})
        if not keep:
            return None
        cards = []
        for (_, card) in batch:
            depends: tuple[dict, dict] = (self.renderer.front_depends(card, self.deck,
                                                                      *self.size) or ({}, {}))
            memo = self.memos.get(card.name)
            cards.append((self.key_of(card), card.name, depends[0], depends[1],
                          None if memo is None else _observed(memo)))
        return _Sheet(pages, [dict(e) for e in drawer.pages.layout[entries:]], fonts,
                      list(drawer.result.warnings[warnings:]), cards, made, tuple(asked))


def _made_in(doc: Any, before: tuple, pages: int, split: set) -> tuple[bool, _Made | None]:
    """(whether a sheet drawn from `before` (the document's object, font name and
    TrueType font counts, its object counter) into `pages` pages can be kept, what it
    made besides its pages and character codes). It can when all it made is form
    XObjects and fonts named first (each with characters given codes, in `split`):
    what `_show` makes again. Anything else (an image, a font of another kind, an
    object made without a name) and the sheet is drawn every time."""
    from reportlab.pdfbase.pdfdoc import PDFFormXObject, PDFPage

    objects, names, delayed, counter = before
    new = _last(doc.idToObject, len(doc.idToObject) - objects)
    named = _last(doc.fontMapping, len(doc.fontMapping) - names)
    if (doc.objectcounter - counter != len(new) or not split.issuperset(named)
            or named != [font.fontName for font in doc.delayedFonts[delayed:]]):
        return False, None
    if len(new) == pages and not named:
        return True, None
    order: list[tuple[int, tuple]] = []
    forms: list[tuple[str, bytes]] = []
    page = 0
    for name in new:
        obj = doc.idToObject[name]
        if type(obj) is PDFPage:
            if forms:
                order.append((page, tuple(forms)))
                forms = []
            page += 1
        elif type(obj) is PDFFormXObject and name.startswith("FormXob."):
            # pickled now: saving the document formats (and changes) it
            forms.append((name, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)))
        else:
            return False, None
    if page != pages:
        return False, None
    if forms:                           # made after the last page (a back: no page)
        order.append((page, tuple(forms)))
    return True, _Made(counter, tuple(named), tuple(order))


def _assigned(doc: Any) -> dict[str, int]:
    """How many characters each TrueType font named in `doc` has given codes to."""
    return {font.fontName: len(font.state[doc].assignments)
            for font in doc.delayedFonts if doc in getattr(font, "state", {})}


def _new_codes(doc: Any, assigned: dict[str, int]) -> list[tuple[str, tuple]]:
    """The characters each font named in `doc` gave codes to since `_assigned`, in order."""
    fonts = []
    for font in doc.delayedFonts:
        new = list(font.state[doc].assignments)[assigned.get(font.fontName, 0):]
        if new:
            fonts.append((font.fontName, tuple(new)))
    return fonts


@contextlib.contextmanager
def _asking(doc: Any) -> Iterator[list[str]]:
    """The PDF features (ReportLab's `ensureMinPdfVersion` keys) asked for while drawing
    into `doc`, recorded as they are asked: the document's version only rises, so what a
    sheet asked cannot be told from the version before and after it (an earlier sheet
    may have raised it first, and an edit may take that one away)."""
    asked: list[str] = []
    ensure = doc.ensureMinPdfVersion

    def recording(*keys: str) -> None:
        asked.extend(keys)
        ensure(*keys)

    doc.ensureMinPdfVersion = recording
    try:
        yield asked
    finally:
        del doc.ensureMinPdfVersion   # the class's method again


def _codes_again(doc: Any, found: _Sheet) -> None:
    """The characters a kept sheet gave codes to given them again, the fonts it named
    first named in the order drawing named them, and the PDF version its drawing asked
    for asked again."""
    from reportlab.pdfbase.pdfmetrics import getFont

    if found.asked:
        doc.ensureMinPdfVersion(*found.asked)
    for name, codes in found.fonts:
        getFont(name).splitString("".join(map(chr, codes)), doc)
    if found.made is not None:
        for name in found.made.named:
            getFont(name).getSubsetInternalName(0, doc)


def _last(mapping: dict, n: int) -> list:
    """The last `n` keys of `mapping`, in order (without listing the others)."""
    return list(itertools.islice(reversed(mapping), n))[::-1] if n > 0 else []


def _registered(fonts: tuple) -> bool:
    """Whether every font named is registered with ReportLab (a fallback face is
    registered when a plan first needs it: pnp.draw.glyphs)."""
    if not fonts:
        return True
    from reportlab.pdfbase.pdfmetrics import getRegisteredFontNames

    return set(fonts) <= set(getRegisteredFontNames())


def _add_form(doc: Any, name: str, form: bytes) -> None:
    """A kept form XObject added to `doc` under its name (`FormXob.<name>`), as the
    canvas's endForm added it (pnp.draw.pdf.end_form)."""
    obj = pickle.loads(form)
    vars(obj).pop("__InternalName__", None)         # the name it had in its document
    doc.addForm(name[len("FormXob."):], obj)


# The kept sheets to write when `saved_later()` ends (None: written at once).
_later: list | None = None


@contextlib.contextmanager
def saved_later() -> Iterator[None]:
    """Write the kept sheets of the decks drawn inside when it ends (also after a
    failure), not as each deck is drawn: a build writes them after its PDFs are in
    place, so the pickling of an 8,000-card deck's sheets is not between a saved edit
    and its PDF (`pnp watch`, issue 36 item 2)."""
    global _later
    if _later is not None:          # inside another: that one writes them
        yield
        return
    _later = []
    try:
        yield
    finally:
        writes, _later = _later, None
        for write in writes:
            write()


# In a resident process (`pnp watch`: `hold()`), the kept sheets of the files it last
# read or wrote, by path: (the file's inode, mtime and size then, its header, sheets,
# edges); reading 8,000 cards' sheets back was a fifth of an edit's build. A file
# changed since (another build, another process) is read again. A one-off build holds
# nothing (its memory is not kept for a next build).
_held: dict[Path, tuple] = {}
_holding = False


def hold() -> None:
    """Keep the kept sheets read or written in memory for this process's next builds,
    and the cards' plan keys their sheets are found by (pnp.draw.render.hold_front_keys)."""
    from pnp.draw.render import hold_front_keys

    global _holding
    _holding = True
    hold_front_keys()


def _hold(path: Path, stat: tuple, header: Any, sheets: dict, edges: dict) -> None:
    if _holding:
        _held[path] = (stat, header, sheets, edges)


def _observed(memo: dict) -> dict:
    """What observers kept about a plan, without the text code the plan store keeps in
    its memo (pnp.draw.textcode: reused only with the plan itself)."""
    from pnp.draw.render import _KeptText

    return {k: v for k, v in memo.items() if k != _KeptText.MEMO}
