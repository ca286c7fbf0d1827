"""The proof gallery kept up with the designer (`pnp watch --serve`): after each save,
only the card faces whose drawing inputs changed are proofed again, and their PNGs named
for the open page to swap.

A face's inputs, digested (pnp.draw.plan_cache's digests): what its template sees
(`front_context`: the card's fields, its deck's and game's contexts), the sources of its
template and of every template that one reaches, and the size and time of each file the
card names (its image). A back: its deck's `back`, the deck's context and `back.j2`.
Not seen: what a template reads of another card (`card_named`) - an edit of that other
card re-proofs only it; the `pnp build` that follows redraws the print as ever."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pnp.exports.proof import (
    INDEX,
    PROOF_DPI,
    _proof_deck,
    current_entries,
    gallery_html,
    grouped_by_deck_faces,
    load_record,
    save_record,
)


def face_key(face: Any) -> str:
    card = face.card
    return f"{face.deck.game}/{face.deck.id}/{card.name if card is not None else ''}"


class FaceDigests:
    """Digests of every face's drawing inputs, for one database and renderer."""

    def __init__(self, db: Any, renderer: Any) -> None:
        self.db, self.renderer = db, renderer
        self._templates: dict[str, str] = {}

    def _template(self, name: str) -> str:
        from pnp.draw.plan_cache import template_digest

        if name not in self._templates:
            self._templates[name] = template_digest(self.renderer.templates, name)
        return self._templates[name]

    def of(self, face: Any) -> str:
        from pnp.draw.plan_cache import file_stamp, quick_digest
        from pnp.draw.render import template_slug

        deck, card = face.deck, face.card
        if card is None:
            return quick_digest(("back", deck.back, self.renderer._deck_context(deck),
                                 self._template(f"{deck.game}/back.j2")))
        context = {k: v for k, v in self.renderer.front_context(card, deck).items()
                   if k != "card_named"}
        image = None
        if card.image:
            image = file_stamp(str(Path(self.db.root) / card.image))
        return quick_digest((context, image,
                             self._template(f"{deck.game}/{template_slug(card.type)}.j2")))


class LiveProof:
    """The proof folder `out` kept current: `update(db, renderer)` proofs the faces that
    changed since the last update (every face the first time, and any whose PNG is gone)
    and returns their PNGs (relative to `out`); `index_changed` tells whether the gallery
    page itself was written again (faces added, removed or their warnings changed)."""

    def __init__(self, out: Path, dpi: float = PROOF_DPI) -> None:
        self.out, self.dpi = out, dpi
        self.digests: dict[str, str] = {}
        self.index_changed = False

    def update(self, db: Any, renderer: Any) -> list[str]:
        from pnp.artefacts.single import select_faces
        faces = select_faces(db)
        digest = FaceDigests(db, renderer)
        now = {face_key(f): digest.of(f) for f in faces}
        record = load_record(self.out)
        changed = [f for f in faces if self.digests.get(face_key(f)) != now[face_key(f)]
                   or face_key(f) not in record]
        entries = []
        for group in grouped_by_deck_faces(changed):
            found, _warnings, _files = _proof_deck(db, group, renderer, self.out, self.dpi,
                                                   False)
            entries += found
        before = {k: (e.png, e.warnings) for k, e in record.items()}
        for entry in entries:
            record[entry.key] = entry
        record = current_entries(db, record, self.out)
        after = {k: (e.png, e.warnings) for k, e in record.items()}
        index = self.out / INDEX
        self.index_changed = after != before or not index.exists()
        if self.index_changed:
            save_record(self.out, record)
            index.write_text(gallery_html(db, record), encoding="utf-8")
        self.digests = now
        return [e.png for e in entries]
