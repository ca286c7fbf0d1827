"""The proof gallery kept up with the designer (`pnp watch --serve`): after each save,
only the card faces whose drawing inputs changed are proofed again, and their PNGs named
for the open page to swap.

A face's inputs, digested (pnp.draw.plan_cache's digests): the card's own data (what
`front_context` builds its `card` from: fields, name, type, text, copies, image), its
deck's and game's contexts, the sources of its template and of every template that one
reaches, and the size and time of the image file the card names. A back: its deck's
`back`, the deck's context and `back.j2`. Not seen: what a template reads of another card
(`card_named`) - an edit of that other card re-proofs only it; the `pnp build` that
follows redraws the print as ever.

Fast on a big deck: the record of what is proofed (proof.json) and the file-name slugs
are kept in memory between saves, so an edit costs the load of the database, one digest
per face and the drawing of the changed faces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pnp.exports import staging
from pnp.exports.proof import (
    INDEX,
    PROOF_DPI,
    Proofed,
    _proof_deck,
    current_entries,
    gallery_html,
    grouped_by_deck_faces,
    load_record,
    proof_key,
    save_record,
)


def face_key(face: Any) -> str:
    """The face's key in proof.json (Proofed.key)."""
    card = face.card
    return proof_key(face.deck.game, face.deck.id, card.name if card is not None else None)


class FaceDigests:
    """Digests of every face's drawing inputs, for one database and renderer."""

    def __init__(self, db: Any, renderer: Any) -> None:
        self.db, self.renderer = db, renderer
        self._templates: dict[str, str] = {}
        self._decks: dict[int, tuple[Any, str]] = {}
        self._types: dict[tuple[str, str], str] = {}  # (game, card type) -> template digest

    def _template(self, name: str) -> str:
        from pnp.draw.plan_cache import template_digest

        if name not in self._templates:
            self._templates[name] = template_digest(self.renderer.templates, name)
        return self._templates[name]

    def _deck(self, deck: Any) -> str:
        """What every face of `deck` shares: the deck's and the game's contexts."""
        from pnp.draw.plan_cache import quick_digest

        found = self._decks.get(id(deck))
        if found is None or found[0] is not deck:
            game = self.renderer._game(deck.game)
            found = (deck, quick_digest((self.renderer._deck_context(deck),
                                         self.renderer._game_context(game))))
            self._decks[id(deck)] = found
        return found[1]

    def of(self, face: Any) -> str:
        from pnp.draw.plan_cache import quick_digest

        return quick_digest(self.inputs(face))

    def inputs(self, face: Any) -> tuple:
        """What the face's digest is made of (compared as it is between two saves: a
        tuple compares faster than it hashes)."""
        from pnp.draw.plan_cache import file_stamp
        from pnp.draw.render import template_slug

        deck, card = face.deck, face.card
        if card is None:
            return ("back", deck.back, self._deck(deck), self._template(f"{deck.game}/back.j2"))
        image = file_stamp(str(Path(self.db.root) / card.image)) if card.image else None
        kind = (deck.game, card.type)
        template = self._types.get(kind)
        if template is None:
            template = self._types[kind] = self._template(
                f"{deck.game}/{template_slug(card.type)}.j2")
        return (self._deck(deck), card.name, card.type, card.text, card.copies, card.image,
                card.fields, image, template)


class LiveProof:
    """The proof folder `out` kept current (call `update` inside `staging.staged(out)`, as
    `pnp proof` writes: under the output folder's lock, each file swapped in whole, so
    the served page never reads half a PNG): `update(db, renderer)` proofs the faces that
    changed since the last update (the first time: those proof.json does not hold with
    their PNG) and returns their PNGs (relative to `out`); `index_changed` tells whether
    the gallery page itself was written again (faces added, removed or their warnings
    changed)."""

    def __init__(self, out: Path, dpi: float = PROOF_DPI) -> None:
        self.out, self.dpi = out, dpi
        self.digests: dict[str, str] = {}
        self.index_changed = False
        self._record: dict[str, Proofed] | None = None
        self._slugs: dict[tuple, dict[str, str]] = {}
        self._inputs: dict[str, tuple] = {}  # the faces' inputs at the last update

    def _slugs_of(self, deck: Any) -> dict[str, str]:
        from pnp.artefacts.single import card_slugs

        names = (deck.game, deck.id, tuple(c.name for c in deck.cards))
        if names not in self._slugs:
            self._slugs = {k: v for k, v in self._slugs.items() if k[:2] != names[:2]}
            self._slugs[names] = card_slugs(deck)
        return self._slugs[names]

    def update(self, db: Any, renderer: Any) -> list[str]:
        from pnp.artefacts.single import Face
        from pnp.draw.plan_cache import quick_digest

        digest = FaceDigests(db, renderer)
        now: dict[str, str] = {}
        inputs: dict[str, tuple] = {}
        kept: dict[str, tuple[Any, Any]] = {}  # key -> (deck, card or None)
        for game in db.games.values():
            for deck in game.decks.values():
                for card in [*deck.cards, None]:
                    face = _Side(deck, card)
                    key = face_key(face)
                    inputs[key] = found = digest.inputs(face)
                    same = self._inputs.get(key) == found and key in self.digests
                    now[key] = self.digests[key] if same else quick_digest(found)
                    kept[key] = (deck, card)
        self._inputs = inputs
        if self._record is None:  # the first time: what an earlier proof left, checked
            self._record = current_entries(db, load_record(self.out), self.out)
            self.digests = self.digests or _load_digests(self.out)
        record = self._record
        changed = [Face(*kept[key]) for key in now
                   if self.digests.get(key) != now[key] or key not in record]
        entries: list[Proofed] = []
        for group in grouped_by_deck_faces(changed):
            proofed, _warnings, _files = _proof_deck(db, group, renderer, self.out, self.dpi,
                                                     False, self._slugs_of(group[0].deck))
            entries += proofed
        before = [(k, e.png, e.warnings) for k, e in record.items()]
        for entry in entries:
            record[entry.key] = entry
        ordered = {key: record[key] for key in now if key in record}  # database order
        for key, entry in ordered.items():
            deck, card = kept[key]
            entry.type = card.type if card is not None else "Back"
            entry.copies = card.copies if card is not None else deck.count
        self._record = ordered
        after = [(k, e.png, e.warnings) for k, e in ordered.items()]
        index = self.out / INDEX
        self.index_changed = after != before or not index.exists()
        if self.index_changed:
            save_record(self.out, ordered)
            staging.target(index).write_text(gallery_html(db, ordered), encoding="utf-8")
        self.digests = now
        if entries:
            _save_digests(self.out, now)
        return [e.png for e in entries]


class _Side:
    """A face as `face_key` and `FaceDigests.of` read it (pnp.artefacts.single.Face
    without the dataclass: one per face of a big deck on every save)."""

    __slots__ = ("deck", "card")

    def __init__(self, deck: Any, card: Any) -> None:
        self.deck, self.card = deck, card


DIGESTS = "live.json"  # beside proof.json: a restarted watch proofs only what changed


def _load_digests(out: Path) -> dict[str, str]:
    import json

    try:
        found = json.loads((out / DIGESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}


def _save_digests(out: Path, digests: dict[str, str]) -> None:
    import json

    staging.target(out / DIGESTS).write_text(json.dumps(digests), encoding="utf-8")
