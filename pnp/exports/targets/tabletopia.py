"""`pnp export tabletopia`: the image files a Tabletopia deck is made from.

Tabletopia's game editor builds a deck from one image file per card front and one for
the back; front and back of a component must be the same size, and every component of
one kind exactly the same size in pixels, or stacks and random draws misbehave
(help.tabletopia.com, "Preparing Graphics": a deck of 52 cards is 53 files). So, per
deck, under OUT (default output/export/tabletopia):

- `<game>/<deck>/<card>--<k>.png` for k = 1..copies: each physical card's front, cut at
  the trim (no bleed: the table shows the whole image), at --dpi (300: a poker card
  63.5 x 88.9 mm is 750 x 1050 px);
- `<game>/<deck>/back.png`: the deck's back, the same size.

When whole games are exported (no --deck or --card), each game's dice and tokens too
(issue 33), drawn by its die-face.j2 and token.j2:

- `<game>/dice/<set>/face-<n>.png` for n = 1..faces: one image per face of a die set (a
  Tabletopia custom die takes one image per face), the label's square at --dpi;
- `<game>/tokens/<token>.png`: each kind of token, round, transparent outside its
  circle (a round Token component; its count is set in the editor: `count` of cards.yaml).

That is all it writes: no project file, no upload. In the editor, create a Deck
component and add the fronts of one folder and its back.png (docs/PROOFS-AND-EXPORTS.md,
"Tabletopia"). Copies are files of their own, as the editor counts cards by image.
"""

from __future__ import annotations

from pnp.exports.targets.base import JOBS, Job, Option, Target


def write(job: Job, dpi: int, jobs: int | None = None):
    from pnp.artefacts.workers import FEW_FACES, in_order
    from pnp.exports.cards import Exported, grouped_by_deck

    result = Exported()
    groups = list(grouped_by_deck(job.faces()).values())
    # a forked worker draws with this very renderer, a spawned one makes its own
    for files, warnings in in_order(_deck, (job.db, job.renderer(), job.out, dpi), groups,
                                    jobs, cost=len, spawned=(job.db, None, job.out, dpi),
                                    small=FEW_FACES):
        result.files += files
        result.warnings += warnings
    if not job.decks and not job.cards:
        from pnp.exports.pieces import has_pieces

        for game in [job.game] if job.game else list(job.db.games):
            if has_pieces(job.db.games[game]):
                files, warnings = _pieces(job, game, dpi)
                result.files += files
                result.warnings += warnings
    return result


def _pieces(job: Job, game: str, dpi: int) -> tuple[list, list]:
    """A game's die faces and tokens as Tabletopia images (the module's docstring)."""
    from pnp.exports import pieces
    from pnp.outpaths import inside

    files, warnings = [], []
    folder = inside(job.out, game)
    for die in pieces.dice(job.db, job.renderer(), game, dpi):
        warnings += die.warnings
        die_folder = inside(inside(folder, "dice"), die.set_id)
        files += [pieces.save_png(image, die_folder, f"face-{n}.png", dpi)
                  for n, image in enumerate(die.faces, start=1)]
    for token in pieces.tokens(job.db, job.renderer(), game, dpi):
        warnings += token.warnings
        files.append(pieces.save_png(token.image, inside(folder, "tokens"),
                                     f"{token.token_id}.png", dpi))
    return files, warnings


def _deck(shared: tuple, deck_faces: list) -> tuple[list, list]:
    """One deck's images (a piece of pnp.artefacts.workers.in_order): (files, warnings)."""
    from pnp.artefacts.single import card_slugs
    from pnp.exports import staging
    from pnp.exports.cards import render_faces, save_copies
    from pnp.outpaths import inside

    db, renderer, out, dpi = shared
    if renderer is None:                # a spawned worker
        from pnp.draw.render import card_renderer

        renderer = card_renderer(db)
    files, found = [], []
    deck = deck_faces[0].deck
    game, deck_id = deck.game, deck.id
    folder = inside(inside(out, game), deck_id)
    folder.mkdir(parents=True, exist_ok=True)
    slugs = card_slugs(deck)
    w_mm, h_mm = deck.size_mm
    size = (round(w_mm / 25.4 * dpi), round(h_mm / 25.4 * dpi))
    for face, image, warnings in render_faces(deck_faces, renderer, db.print.bleed_mm, dpi,
                                              f"{game}/{deck_id}"):
        found += warnings
        trimmed = _trim(image, size)
        if face.card is None:
            path = inside(folder, "back.png")
            trimmed.save(staging.target(path), "PNG", dpi=(dpi, dpi), compress_level=6)
            files.append(path)
            continue
        files += save_copies(trimmed, folder, slugs[face.card.name], face.card.copies,
                             format="PNG", dpi=(dpi, dpi), compress_level=6)
    return files, found


def _trim(image, size: tuple[int, int]):
    """The trim of a face rasterised with its bleed: the centred `size` pixels, cut
    without resampling (the rasterised page is the trim plus the bleed on every side,
    to the pixel), so every image of the deck is exactly `size`."""
    w, h = size
    left, top = (image.size[0] - w) // 2, (image.size[1] - h) // 2
    if left < 0 or top < 0:
        raise ValueError(f"a face of {image.size} px is smaller than its trim {size}")
    return image.crop((left, top, left + w, top + h)).convert("RGB")


TARGET = Target(
    "tabletopia", "one image per physical card front plus the back, cut at the trim, "
    "for a Tabletopia deck, and each die face and token", write,
    options=(Option("--dpi", "dpi", "resolution of the images.", kind="int", default=300,
                    limits=(72, 1200)),
             JOBS),
)
