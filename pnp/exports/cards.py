"""The card faces for `pnp export png|pdf-single` (print-on-demand shops, print shops that
take PDF), and what the tts target and the shop profiles share. Every target starts from
the one-card-per-page PDF of pnp.artefacts.single, drawn by the build's renderer (so
exports look exactly like the print).

Layout under OUT (default output/export/<target>):
- png:        <game>/<deck>--<card>--<k>.png for k = 1..copies, <game>/<deck>--back.png;
              each face at DPI (300) with its bleed: poker 63.5 x 88.9 mm -> 825 x 1125 px.
- pdf-single: <game>/<deck>.pdf, one physical card per page (copies expanded), each
              front followed by its back (unless --no-backs); TrimBox and BleedBox set.
- tts:        see pnp.exports.tts.
- cut:        per sheet a PDF with a cutting machine's registration marks and an SVG and a
              DXF of the cut paths; see pnp.exports.cutting.
- tabletopia: see pnp.exports.targets.tabletopia.

Each target is a module of pnp.exports.targets (its options and its `write`), which
`pnp export` mounts.
"""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pnp.exports import staging

PNG_DPI = 300
# The date written in the embedded sRGB profile (littleCMS writes the current time):
# fixed, so two exports of the same cards are byte-identical.
_SRGB_DATE = bytes.fromhex("07d0" "0001" "0001" "0000" "0000" "0000")   # 2000-01-01 00:00:00


@lru_cache(maxsize=1)
def srgb_icc() -> bytes:
    """The ICC profile saying an exported image's pixels are sRGB (what pypdfium2 renders),
    for the `icc_profile` of PNGs and JPEGs shops receive (issue 22): without one a shop's
    RIP guesses."""
    from PIL import ImageCms

    data = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    data[24:36] = _SRGB_DATE               # ICC header: dateTimeNumber, bytes 24-35
    return bytes(data)


@dataclass
class Exported:
    files: list[Path] = field(default_factory=list)
    warnings: list[Any] = field(default_factory=list)


def grouped_by_deck(faces: list) -> dict[tuple[str, str], list]:
    out: dict[tuple[str, str], list] = {}
    for face in faces:
        out.setdefault((face.deck.game, face.deck.id), []).append(face)
    return out


def render_faces(faces: list, renderer: Any, bleed_mm: float, dpi: float,
                 title: str = "card faces"):
    """(face, PIL image with bleed, warnings) for each face, from a single-card PDF."""
    from pnp.artefacts.single import rasterise, write_single

    pdf = io.BytesIO()
    drawn = write_single(pdf, faces, renderer, bleed_mm, title)
    images = rasterise(pdf.getvalue(), dpi)
    yield from zip(drawn.faces, images, drawn.warnings, strict=True)


def export_png(db: Any, faces: list, renderer: Any, out: Path, dpi: float = PNG_DPI,
               jobs: int | None = 1) -> Exported:
    """One PNG per physical card face at `dpi`, bleed included; copies are files of their
    own (`--1`, `--2`...), the deck's back once. `jobs` > 1 (None: the machine's cores):
    the decks are drawn by that many worker processes (pnp.artefacts.workers); the
    files are the same whatever `jobs`."""
    from pnp.artefacts.workers import FEW_FACES, in_order

    result = Exported()
    groups = list(grouped_by_deck(faces).values())
    # a forked worker draws with this very renderer, a spawned one makes its own
    for files, warnings in in_order(_png_deck, (db, renderer, out, dpi), groups, jobs,
                                    cost=len, spawned=(db, None, out, dpi), small=FEW_FACES):
        result.files += files
        result.warnings += warnings
    return result


def _png_deck(shared: tuple, deck_faces: list) -> tuple[list[Path], list[Any]]:
    """One deck's PNGs (a piece of pnp.artefacts.workers.in_order): (files, warnings)."""
    from pnp.artefacts.single import card_slugs
    from pnp.outpaths import inside

    db, renderer, out, dpi = shared
    if renderer is None:                # a spawned worker
        from pnp.draw.render import card_renderer

        renderer = card_renderer(db)
    files: list[Path] = []
    found: list[Any] = []
    game, deck_id = deck_faces[0].deck.game, deck_faces[0].deck.id
    folder = inside(out, game)
    folder.mkdir(parents=True, exist_ok=True)
    slugs = card_slugs(deck_faces[0].deck)
    inside(folder, f"{deck_id}--back.png")     # checked before anything is drawn
    for face, image, warnings in render_faces(deck_faces, renderer, db.print.bleed_mm, dpi,
                                              f"{game}/{deck_id}"):
        found += warnings
        if face.card is None:
            path = inside(folder, f"{deck_id}--back.png")
            image.save(staging.target(path), "PNG", dpi=(dpi, dpi), compress_level=3,
                       icc_profile=srgb_icc())
            files.append(path)
            continue
        files += save_copies(image, folder, f"{deck_id}--{slugs[face.card.name]}",
                             face.card.copies, format="PNG", dpi=(dpi, dpi), compress_level=3,
                             icc_profile=srgb_icc())
    return files, found


def save_copies(image: Any, folder: Path, stem: str, copies: int,
                **save_options: Any) -> list[Path]:
    """One file per physical copy of a card: the image saved as STEM--1.png in `folder`
    (PIL's `save` with `save_options`, `format` among them: the file is staged under
    another name, pnp.exports.staging), STEM--2.png ... STEM--N.png copies of it
    (pnp.outpaths.inside checks each)."""
    from pnp.outpaths import inside

    first = inside(folder, f"{stem}--1.png")
    image.save(staging.target(first), **save_options)
    files = [first]
    for k in range(2, copies + 1):
        copy = inside(folder, f"{stem}--{k}.png")
        shutil.copyfile(staging.current(first), staging.target(copy))
        files.append(copy)
    return files


def export_pdf_single(db: Any, faces: list, renderer: Any, out: Path,
                      backs: bool = True) -> Exported:
    """One PDF per deck: every physical card (copies expanded) on its own page, its back
    on the next page, TrimBox = cut line, BleedBox = page."""
    from pnp.artefacts.single import Face, write_single
    from pnp.outpaths import inside

    result = Exported()
    for (game, deck_id), deck_faces in grouped_by_deck(faces).items():
        deck = deck_faces[0].deck
        pages: list[Face] = []
        for face in deck_faces:
            if face.card is None:
                continue
            for _ in range(face.card.copies):
                pages.append(face)
                if backs:
                    pages.append(Face(deck))
        if not pages:
            continue
        folder = inside(out, game)
        folder.mkdir(parents=True, exist_ok=True)
        path = inside(folder, f"{deck_id}.pdf")
        part = staging.part(path)
        title = f"{db.games[game].title}: {deck.title} (one card per page)"
        drawn = write_single(part, pages, renderer, db.print.bleed_mm, title)
        staging.place(part, path)
        for warnings in _distinct(drawn.faces, drawn.warnings):
            result.warnings += warnings
        result.files.append(path)
    return result


def _distinct(faces: list, warnings: list[list]) -> list[list]:
    """Each design's warnings once, however many copies were drawn."""
    seen: set = set()
    out = []
    for face, found in zip(faces, warnings, strict=True):
        key = (face.deck.game, face.deck.id, face.card.name if face.card else None)
        if key not in seen:
            seen.add(key)
            out.append(found)
    return out
