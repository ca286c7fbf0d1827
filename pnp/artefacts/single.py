"""One card face per page: the shared primitive of proofs, PNG/TTS exports and `pdf-single`.

Each page is exactly the card's trim size plus its bleed on every side (MediaBox =
BleedBox), with the TrimBox set to the cut line. The face is drawn by the same renderer
as `pnp build`, so rasterising a page of this PDF (pypdfium2) shows what will print.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

PT_PER_MM = 72 / 25.4
SAFE_MM = 3.175  # the safe zone: 1/8 in inside the trim


@dataclass(frozen=True)
class Face:
    """One side of one card design; `card is None` means the deck's back."""

    deck: Any
    card: Any = None

    @property
    def side(self) -> str:
        return "back" if self.card is None else "front"

    @property
    def label(self) -> str:
        return f"{self.deck.game}/{self.deck.id}: " + (
            "back" if self.card is None else self.card.name)


@dataclass(frozen=True)
class PageBox:
    """Page geometry of a single-card page, in points (origin: lower-left of the page)."""

    trim_w: float
    trim_h: float
    bleed: float

    @property
    def page_w(self) -> float:
        return self.trim_w + 2 * self.bleed

    @property
    def page_h(self) -> float:
        return self.trim_h + 2 * self.bleed

    @property
    def trim_box(self) -> tuple[float, float, float, float]:
        b = self.bleed
        return (b, b, b + self.trim_w, b + self.trim_h)

    @property
    def bleed_box(self) -> tuple[float, float, float, float]:
        return (0.0, 0.0, self.page_w, self.page_h)

    @property
    def safe_box(self) -> tuple[float, float, float, float]:
        s = self.bleed + SAFE_MM * PT_PER_MM
        return (s, s, self.page_w - s, self.page_h - s)


def page_box(deck: Any, bleed_mm: float) -> PageBox:
    w, h = deck.size_mm
    return PageBox(w * PT_PER_MM, h * PT_PER_MM, bleed_mm * PT_PER_MM)


def slug(text: str) -> str:
    """`U-Go Girl` -> `u-go-girl`: safe in file names and URLs."""
    # Bounded (carddb.limits.MAX_SLUG): a 5,000-character name is no file name.
    from carddb.limits import MAX_SLUG

    return re.sub(r"[^a-z0-9]+", "-", text.lower())[:MAX_SLUG].strip("-") or "card"


def card_slugs(deck: Any) -> dict[str, str]:
    """A distinct file-name slug for each card of a deck (suffix -2, -3 on collisions)."""
    out: dict[str, str] = {}
    used: set[str] = {"back"}
    for card in deck.cards:
        base = slug(card.name)
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        out[card.name] = name
    return out


def select_faces(db: Any, game: str | None = None, decks: Iterable[str] = (),
                 cards: Iterable[str] = (), backs: bool = True) -> list[Face]:
    """The faces of the chosen game/decks/cards, in database order: each deck's card fronts
    followed by its back. Naming cards keeps only those cards' decks (and their backs).
    ValueError (one line) for an unknown game, deck or card."""
    decks, cards = list(decks), list(cards)
    if game is not None and game not in db.games:
        raise ValueError(f"unknown game {game!r} (choose {', '.join(db.games)})")
    games = [g for gid, g in db.games.items() if game in (None, gid)]
    known_decks = {d for g in games for d in g.decks}
    for d in decks:
        if d not in known_decks:
            raise ValueError(f"unknown deck {d!r} (choose {', '.join(sorted(known_decks))})")
    known_cards = {c.name for g in games for c in g.cards()}
    for name in cards:
        if name not in known_cards:
            where = f" in game {game!r}" if game else ""
            raise ValueError(f"unknown card {name!r}{where}")
    faces: list[Face] = []
    for g in games:
        for did, deck in g.decks.items():
            if decks and did not in decks:
                continue
            chosen = [c for c in deck.cards if not cards or c.name in cards]
            if not chosen:
                continue
            faces += [Face(deck, c) for c in chosen]
            if backs:
                faces.append(Face(deck))
    return faces


@dataclass
class SinglePdf:
    """What `write_single` drew: page i shows faces[i]; warnings[i] are that face's."""

    faces: list[Face]
    boxes: list[PageBox]
    warnings: list[list[Any]] = field(default_factory=list)


def write_single(target: str | Path | BinaryIO, faces: list[Face], renderer: Any,
                 bleed_mm: float, title: str, checked: bool = True) -> SinglePdf:
    """Draw each face on its own page (trim + bleed), with TrimBox and BleedBox set.

    `renderer` follows the pnp renderer contract (draw_front / draw_back). With `checked`
    the layout checks of pnp.draw.checks run on every face and add to its warnings."""
    from pnp.draw.pdf import open_canvas

    if not faces:
        raise ValueError("no card faces to draw")
    if checked:
        from pnp.draw.checks import CheckedRenderer

        renderer = CheckedRenderer(renderer)
    first = page_box(faces[0].deck, bleed_mm)
    # The renderer's regular face (CardRenderer keeps its fonts) replaces ReportLab's
    # unembedded initial Helvetica.
    c = open_canvas(target, (first.page_w, first.page_h), title=title,
                    font=renderer.fonts["regular"], subject=f"{len(faces)} card faces, one per page, "
                            f"{bleed_mm:g} mm bleed; TrimBox = cut line")
    result = SinglePdf(faces=list(faces), boxes=[])
    for face in faces:
        box = page_box(face.deck, bleed_mm)
        c.setPageSize((box.page_w, box.page_h))
        c.setTrimBox(box.trim_box)
        c.setBleedBox(box.bleed_box)
        x, y = box.bleed, box.bleed
        if face.card is None:
            warnings = renderer.draw_back(c, face.deck, x, y, box.trim_w, box.trim_h, box.bleed)
        else:
            warnings = renderer.draw_front(c, face.card, face.deck, x, y, box.trim_w,
                                           box.trim_h, box.bleed)
        c.showPage()
        result.boxes.append(box)
        result.warnings.append(list(warnings or []))
    c.save()
    return result


# ── rasterising ────────────────────────────────────────────────────────────────────


def pixel_size(points: float, dpi: float) -> int:
    """Pixels for a length in points at `dpi` (2.75 in at 300 dpi -> 825)."""
    return round(points * dpi / 72)


def rasterise(pdf: str | Path | bytes, dpi: float, pages: Iterable[int] | None = None
              ) -> Iterator[Any]:
    """Render pages of a PDF to RGB PIL images at `dpi`, each exactly
    round(page size x dpi / 72) pixels (pdfium rounds up a float's last bit otherwise)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        indices = range(len(doc)) if pages is None else pages
        for i in indices:
            page = doc[i]
            w_pt, h_pt = page.get_size()
            want = (pixel_size(w_pt, dpi), pixel_size(h_pt, dpi))
            # Scale slightly under the exact ratio so pdfium's ceil() lands on `want`.
            scale = min(want[0] / w_pt, want[1] / h_pt) * (1 - 1e-9)
            image = page.render(scale=scale, may_draw_forms=True).to_pil().convert("RGB")
            if image.size != want:
                image = image.resize(want)
            page.close()
            yield image
    finally:
        doc.close()
