"""What was drawn, card by card: the hashes `pnp build` records and `pnp diff` compares.

A card face's hash is a SHA-256 of the renderer's drawing plan for it, as the renderer
tells it to its observers (`CardRenderer.observe_faces`, a `PlannedFace`): every element's kind, position in points from the trim's corner, colours, text as laid
out: runs, fonts, sizes and positions), the trim size and bleed, the bytes of every image
it draws and of the fonts. It does not depend on where the card sits on a sheet or on
what else is in the PDF (font subsets and image names are per document, so the PDF's
bytes would). It is taken with the version stamp left out: `{{ version }}` and
`{{ build_date }}` change on every release, and a reprint of the changed cards should not
become a reprint of every stamped card.

Each build that drew or recorded a card differently from the build before it adds one
record, OUT/.pnp-builds/NNNN.json (compact JSON, one line):
    {"build": N, "format": FORMAT, "version": ..., "build_date": ...,
     "cards": {"game/deck/card": {"front": hash, "back": hash, "copies": n}},
     "ink_saver": "flag" | "print"}      (only when drawn light: --ink-saver or print.ink_saver)
Decks not built by a run (another --game, --only) keep their entries from the record
before; a card no longer in cards.yaml is dropped.

The stamp itself is pnp.draw.stamp's.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from carddb.files import identity
from pnp.draw.recent import RecentCache
from pnp.draw.stamp import STAMP_KEYS, git_stamp, uses_stamp

BUILDS = ".pnp-builds"
# The record format: how a face's hash is made. Hashes of two formats cannot be
# compared (`pnp diff` says "record format changed" instead of "every card changed").
# 1 (no "format" key): the text of the whole plan; 2: the texts of its operations.
FORMAT = 2
GIT = "git.json"  # whether the stamp was drawn at the last build, and what git said


# ── hashing the drawing plan ──────────────────────────────────────────────────────


def _canon(value: Any) -> Any:
    """JSON-able form of a drawing operation; floats to 1/10000 pt like the PDF code."""
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return value
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, list | tuple):
        return [_canon(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _canon(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _canon(getattr(value, f.name)) for f in dataclasses.fields(value)}
    rgb = getattr(value, "rgb", None)            # a ReportLab colour
    if callable(rgb) and callable(getattr(value, "cmyk", None)):   # given as cmyk(...)
        return ["cmyk", *(f"{c:.4f}" for c in value.cmyk()), f"{value.alpha:.4f}"]
    if callable(rgb):
        return ["color", *(f"{c:.4f}" for c in value.rgba())]
    return repr(value)


def _file_digest(path: str, cache: dict[str, str]) -> str:
    if path not in cache:
        try:
            cache[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            cache[path] = "<missing>"
    return cache[path]


def plan_text(ops: list, files: dict[str, str], colours: dict | None = None) -> str:
    """A canonical text of a planned face (ops as `CardRenderer._plan` returns them):
    the repr of each op's `as_tuple()` (exact; the positional tuples of earlier
    versions, so their hashes stay valid), an image's path replaced by the digest of
    its bytes (a moved project or an image edited in place), every number to 1/1000 pt (`rounded_repr`).
    `colours` keeps the text of each colour for the next faces."""
    plan = [(op[0], op[1], _file_digest(op[2], files), *op[3:])
            if op and op[0] == "image" and isinstance(op[2], str) else op
            for op in (o if type(o) is tuple else o.as_tuple() for _, o in ops)]
    text = rounded_repr(plan, {} if colours is None else colours)
    if " at 0x" in text:                 # an object without a value repr: spell it out
        text = _numbers().sub(_rounded, json.dumps(_canon(plan), sort_keys=True,
                                                ensure_ascii=False))
    return text


# Numbers to 1/1000 pt: the same card at the same size, however its size was computed
# (mm * 72 / 25.4 or mm / 25.4 * 72), gives the same text. Quoted text is kept. The
# steps are offset so that their edges are not binary fractions (glyph widths land on
# those: 93.4375 must not round up on one side and down on the other).
# Compiled when first needed: a forced build whose plans are stored reuses their hashes
# and never rounds a repr.
_NUMBER = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|-?\d+\.\d+(?:e[-+]?\d+)?"


@functools.cache
def _numbers() -> re.Pattern[str]:
    return re.compile(_NUMBER)


def _rounded(match: re.Match) -> str:
    token = match.group()
    if token[0] in "'\"":
        return token
    return str(math.floor(float(token) * 1000 + 0.3183))


def rounded_repr(value: Any, colours: dict) -> str:
    """`_NUMBER` replaced by `_rounded` in `repr(value)`, built while walking the value
    instead of parsed back out of its repr (a third of the time on a card's plan; the per-card
    hashes of earlier builds stay valid). Floats written with a decimal point are
    rounded, the others (1e-05, inf) kept; a ReportLab colour's text is kept in
    `colours` by its components; any other object is its repr with `_rounded` numbers."""
    kind: type = type(value)
    if kind is float:
        # repr writes a decimal point for 1e-4 <= |x| < 1e16, and for some others (9.5e-05)
        if value == 0 or 1e-4 <= abs(value) < 1e16 or "." in repr(value):
            return str(math.floor(value * 1000 + 0.3183))
        return repr(value)
    if kind is str or kind is int or kind is bool or value is None:
        return repr(value)
    if kind is tuple:
        if len(value) == 1:
            return f"({rounded_repr(value[0], colours)},)"
        return "(" + ", ".join([rounded_repr(v, colours) for v in value]) + ")"
    if kind is list:
        return "[" + ", ".join([rounded_repr(v, colours) for v in value]) + "]"
    fields = _repr_fields(kind)
    if fields is not None:
        return f"{kind.__qualname__}(" + ", ".join(
            [f"{name}={rounded_repr(getattr(value, name), colours)}" for name in fields]) + ")"
    if kind is _colour_class():       # its repr is of these four numbers alone (exactly:
        key = tuple(c.hex() if type(c) is float else c       # -0.0 is not 0.0 here)
                    for c in (value.red, value.green, value.blue, value.alpha))
        if key not in colours:
            colours[key] = _numbers().sub(_rounded, repr(value))
        return colours[key]
    return _numbers().sub(_rounded, repr(value))


@functools.cache
def _repr_fields(kind: type) -> tuple[str, ...] | None:
    """The fields a dataclass's generated repr shows (None: not a dataclass, or one with
    a repr of its own: dataclasses wrap theirs, which leaves `__wrapped__`)."""
    if not dataclasses.is_dataclass(kind) or not hasattr(kind.__repr__, "__wrapped__"):
        return None
    return tuple(f.name for f in dataclasses.fields(kind) if f.repr)


@functools.cache
def _colour_class() -> type:
    from reportlab.lib.colors import Color

    return Color


def face_hash(text: str, target: Any, fonts_digest: str) -> str:
    """The hash of one planned face from its `plan_text`."""
    size = f"{float(target.W):.4f} {float(target.H):.4f} {float(target.bleed):.4f}"
    return hashlib.sha256(f"{size}\0{fonts_digest}\0{text}".encode()).hexdigest()


def fonts_digest(db: Any) -> str:
    """A hash of the bytes of the fonts cards.yaml names: of their SHA-256 digests, as
    the incremental build's hasher took them (by stat, kept between runs), so a build
    does not read and hash its fonts twice."""
    from pnp.artefacts.incremental import file_digest
    from pnp.draw.fonts import font_files

    try:
        paths = sorted(str(p) for p in font_files(dict(db.print.fonts or {}),
                                                  Path(db.root)).values())
    except Exception:  # an unusable font setting: the build reports it
        paths = []
    return hashlib.sha256("".join(file_digest(Path(p)) for p in paths).encode()).hexdigest()


class Recorder:
    """Hashes every card face a renderer plans from now on: `faces[(game, deck, card)]`,
    card "(back)" for a deck's back. It listens on the renderer's public hook
    (`CardRenderer.observe_faces`, through wrappers that pass attributes on); a renderer
    without that hook records nothing.

    The face's text is that of its operations in order (`plan_text`), each replayable
    operation's text made once: a frame or a label recurs on every card of a type."""

    def __init__(self, db: Any, renderer: Any):
        self.faces: dict[tuple[str, str, str], str] = {}
        self._files: dict[str, str] = {}
        self._colours: dict = {}  # a colour's text, for every face (plan_text)
        # replay key -> the text of its operation: bounded, a card's own lines age out
        self._texts = RecentCache(4096)
        self._fonts = fonts_digest(db)
        observe = getattr(renderer, "observe_faces", None)
        self.observing = callable(observe)
        if callable(observe):
            observe(self.seen, kept=self.kept)

    def seen(self, face: Any) -> None:
        """A face was planned (`pnp.draw.render.PlannedFace`)."""
        target = face.target
        if not _is_card(target):
            return
        key = (target.game, target.deck, target.card)
        if key in self.faces:
            return
        memo = face.memo.get(MEMO)
        if memo is None or memo[0] != self._fonts:
            memo = face.memo[MEMO] = (self._fonts, self._neutral_hash(face))
        self.faces[key] = memo[1]

    def kept(self, face: Any) -> None:
        """A card front a kept sheet showed (`pnp.draw.render.KeptFace`): its hash as
        kept with its plan, or, when none was kept for these fonts, hashed from its
        plan as `seen` hashes a face."""
        key = (face.game, face.deck, face.card)
        if key in self.faces:
            return
        memo = face.memo.get(MEMO)
        if memo is None or memo[0] != self._fonts:
            self.seen(face.planned())
            return
        self.faces[key] = memo[1]

    def _neutral_hash(self, face: Any) -> str:
        """The face's hash with the version stamp left out: when an operation's text
        shows a stamp value, the face is planned again with the stamp empty."""
        texts = self._op_texts(face.ops)
        values = [v for v in face.stamp.values() if v]
        if values and any(v in t for t in texts for v in values):
            texts = self._op_texts(face.replan(dict.fromkeys(STAMP_KEYS, "")))
        return face_hash("\n".join(texts), face.target, self._fonts)

    def _op_texts(self, ops: list) -> list[str]:
        out = []
        known = self._texts
        for key, op in ops:
            text = known.get(key) if key is not None else None
            if text is None:
                text = plan_text([(key, op)], self._files, self._colours)
                if key is not None and not _is_image(op):
                    known.put(key, text)
            out.append(text)
        return out


MEMO = "pnp.artefacts.drawn/2"   # the face's hash, kept in PlannedFace.memo


def _is_image(op: Any) -> bool:
    return getattr(op, "kind", None) == "image" or (type(op) is tuple and op[:1] == ("image",))


def _is_card(target: Any) -> bool:
    """Fronts and backs (pnp.draw.checks: mats, tokens, labels and reference cards have
    decks in parentheses)."""
    return bool(getattr(target, "safe", False)) and not str(getattr(target, "deck", "(")
                                                             ).startswith("(")


# ── build records ─────────────────────────────────────────────────────────────────


def card_key(game: str, deck: str, card: str) -> str:
    return f"{game}/{deck}/{card}"


def records(out: Path) -> list[Path]:
    """The build records under OUT, oldest first."""
    folder = Path(out) / BUILDS
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("[0-9]*.json") if p.stem.isdigit())


def read_record(path: Path) -> dict:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("cards"), dict):
        raise ValueError(f"{path}: not a pnp build record")
    return data


def record_format(record: dict | None) -> int:
    """The format of a build record (1: written before records said)."""
    value = (record or {}).get("format", 1)
    return value if type(value) is int else 0


def latest(out: Path) -> dict | None:
    """The latest build record under OUT (to read, never to change: it may be the one
    read or written last by this process, while its file is as it was then)."""
    found = records(out)
    if not found:
        return None
    path = found[-1]
    stat = identity(path)
    if stat is not None and _last and _last[0] == (path, stat):
        return _last[1]
    record = read_record(path)
    if stat is not None:
        _last[:] = [(path, stat), record]
    return record


# The build record this process read or wrote last, by its path and the stat of its file
# then: a build reads the latest record to know whether it may skip its work
# (`recorded`), then to add to it, and a resident watch reads next the one it wrote; at
# 8,000 cards each read was ~15 ms of JSON on the way from a saved edit to its PDF.
_last: list = []


def deck_entries(db: Any, recorder: Recorder, art_game: str, art_deck: str) -> dict | None:
    """The entries of one deck from what the recorder saw; None when a face was not
    planned (a renderer without plans, or a deck skipped as up to date)."""
    deck = db.games[art_game].decks[art_deck]
    back = recorder.faces.get((art_game, art_deck, "(back)"))
    out = {}
    # keyed by each card's identity: its default-language name (carddb.languages)
    for card, ident in zip(deck.cards, deck.card_ids(), strict=True):
        front = recorder.faces.get((art_game, art_deck, card.name))
        if front is None:
            return None
        out[card_key(art_game, art_deck, ident)] = {"front": front, "back": back,
                                                   "copies": card.copies}
    return out


def has_deck(record: dict | None, db: Any, game: str, deck: str) -> bool:
    """Whether the record holds every card of a deck (so skipping its build is safe)."""
    if not record:
        return False
    cards = record["cards"]
    return all(card_key(game, deck, ident) in cards
               for ident in db.games[game].decks[deck].card_ids())


def next_record(db: Any, previous: dict | None, built: dict[str, dict],
                stamp_values: dict[str, str]) -> dict:
    """The record after a build: the decks built now, the others as recorded before,
    cards no longer in the database dropped."""
    known = {card_key(g, d, ident) for g, game in db.games.items()
             for d, deck in game.decks.items() for ident in deck.card_ids()}
    built_decks = {k.rsplit("/", 1)[0] for k in built}
    cards = {k: v for k, v in (previous or {}).get("cards", {}).items()
             if k in known and k.rsplit("/", 1)[0] not in built_decks}
    before = (previous or {}).get("cards", {})
    for key, entry in built.items():
        if entry.get("back") is None and key in before:     # --no-backs drew no back:
            entry = {**entry, "back": before[key].get("back")}  # keep what was printed
        cards[key] = entry
    return {"format": FORMAT, "version": stamp_values.get("version", ""),
            "build_date": stamp_values.get("build_date", ""),
            "cards": dict(sorted(cards.items()))}


def stamp_used(db: Any, files: Callable[[str], list[Path]] | None = None) -> bool:
    """Whether a template of any game mentions the stamp (then git may change a build);
    `files(game)`: its template files, when the caller has found them already."""
    from pnp.draw.template_folders import template_files

    found = files or (lambda gid: template_files(db, gid))
    return any(uses_stamp(found(gid)) for gid in db.games)


def recorded(out: Path, root: Path) -> bool:
    """Whether OUT has a build record still true to git: when the last full build's
    templates drew the stamp, git (asked only then) must say what it said then."""
    try:
        seen = json.loads((Path(out) / BUILDS / GIT).read_text(encoding="utf-8"))
        if seen.get("uses") and seen.get("git") != git_stamp(root):
            return False
    except (OSError, ValueError, AttributeError):
        return False
    return latest(out) is not None


def save_record(out: Path, record: dict, db: Any = None,
                uses: bool | None = None) -> Path | None:
    """Add `record` as the next build, unless it says what the latest already says;
    with `db`, remember whether its stamp came from git (for `recorded`); `uses`:
    `stamp_used(db)` when the caller already knows it."""
    from carddb.files import part_of

    if db is not None:
        folder = Path(out) / BUILDS
        folder.mkdir(parents=True, exist_ok=True)
        if uses is None:
            uses = stamp_used(db)
        seen = {"uses": uses, "git": git_stamp(Path(db.root)) if uses else None}
        (folder / GIT).write_text(json.dumps(seen, sort_keys=True) + "\n", encoding="utf-8")
    before = latest(out)
    if before is not None and {k: v for k, v in before.items() if k != "build"} == record:
        return None
    folder = Path(out) / BUILDS
    folder.mkdir(parents=True, exist_ok=True)
    found = records(out)
    number = int(found[-1].stem) + 1 if found else 1
    path = folder / f"{number:04d}.json"
    part = part_of(path)
    # compact: read by programs only (pnp diff, the next build), and at 8,000 cards the
    # indented text was most of a one-card edit's cost of recording (issue 36 item 2)
    text = json.dumps({"build": number, **record}, sort_keys=True, separators=(",", ":"))
    part.write_text(text + "\n", encoding="utf-8")
    os.replace(part, path)
    stat = identity(path)       # the next build's `latest`, read here (its PDFs are in place)
    if stat is not None:
        _last[:] = [(path, stat), json.loads(text)]
    return path
