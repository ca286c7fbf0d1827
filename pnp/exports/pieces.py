"""A game's dice and tokens as images for the tabletop exports (issue 33 item 3): each
face of each die set and each kind of token drawn by the game's own die-face.j2 and
token.j2 (so they look as printed), rasterised at `dpi`:

    faces(db, renderer, game, dpi)   -> [DieImages]     one per die set: its faces, in order
    tokens(db, renderer, game, dpi)  -> [TokenImage]    one per kind: a round RGBA picture

A face is the label's square, trim only; a token is its circle (the fill's bleed cut
off, transparent outside, with a thin transparent border), the shape TTS cuts a custom
token from and Tabletopia shows.
pnp.exports.tts and pnp.exports.targets.tabletopia lay these out as each table wants.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

PIECE_DPI = 300
TOKEN_BORDER = 0.02     # of the diameter, transparent, each side of a token's picture


@dataclass
class DieImages:
    game: str
    die: Any                # carddb.dice.Die
    set_id: str
    label: str              # the set's label: "Storm", "White Mask"
    faces: list[Any]        # PIL images, one per face in declared order
    warnings: list[Any] = field(default_factory=list)


@dataclass
class TokenImage:
    game: str
    token_id: str
    spec: dict
    image: Any              # PIL RGBA, transparent outside the circle
    warnings: list[Any] = field(default_factory=list)


def has_pieces(game: Any) -> bool:
    return bool(game.extras.get("dice") or game.extras.get("tokens"))


def dice(db: Any, renderer: Any, game_id: str, dpi: float = PIECE_DPI) -> list[DieImages]:
    """Every die set's face images, drawn at print.die_label_mm."""
    from carddb.dice import dice_of
    from pnp.layout import geometry as g

    game = db.games[game_id]
    size = g.mm(db.print.die_label_mm)
    found = []
    for die in dice_of(game.extras, game.title, game.extras.get("colors")).values():
        for die_set in die.sets:
            warnings: list[Any] = []

            def draw(c, face, set_id=die_set.id, warnings=warnings):
                value = face.value if face.symbol is None else face.key
                warnings.extend(renderer.draw_die_face(c, game_id, set_id, value, 0, 0, size,
                                                       face=face))

            pages = [(size, size, lambda c, f=face: draw(c, f)) for face in die.faces]
            images = list(_rasterise(pages, renderer, dpi, f"{game.title}: dice"))
            found.append(DieImages(game_id, die, die_set.id, die_set.label, images, warnings))
    return found


def tokens(db: Any, renderer: Any, game_id: str, dpi: float = PIECE_DPI) -> list[TokenImage]:
    """Every kind of token as a round picture of its diameter (no bleed)."""
    from PIL import Image, ImageDraw

    from pnp.layout import geometry as g

    game = db.games[game_id]
    found = []
    for token_id, spec in (game.extras.get("tokens") or {}).items():
        d = g.mm(float(spec["diameter_mm"]))
        warnings: list[Any] = []

        def draw(c, token_id=token_id, d=d, warnings=warnings):
            warnings.extend(renderer.draw_token(c, game_id, token_id, d / 2, d / 2, d / 2))

        [image] = _rasterise([(d, d, draw)], renderer, dpi, f"{game.title}: tokens")
        mask = Image.new("L", image.size, 0)
        ImageDraw.Draw(mask).ellipse((0, 0, image.size[0] - 1, image.size[1] - 1), fill=255)
        disc = image.convert("RGBA")
        disc.putalpha(mask)
        # a transparent border round the disc: TTS cuts a token's shape out cleaner so
        # (its knowledge base, custom-content/custom-token)
        border = max(2, round(image.size[0] * TOKEN_BORDER))
        round_image = Image.new("RGBA", (image.size[0] + 2 * border,
                                         image.size[1] + 2 * border), (0, 0, 0, 0))
        round_image.paste(disc, (border, border))
        found.append(TokenImage(game_id, token_id, dict(spec), round_image, warnings))
    return found


def _rasterise(pages: list, renderer: Any, dpi: float, title: str):
    """Each (width, height, draw(canvas)) as one PDF page, rendered to RGB images."""
    from pnp.artefacts.single import rasterise
    from pnp.draw.pdf import open_canvas

    pdf = io.BytesIO()
    c = None
    for w, h, draw in pages:
        if c is None:
            c = open_canvas(pdf, (w, h), title=title, font=renderer.fonts["regular"])
        c.setPageSize((w, h))
        draw(c)
        c.showPage()
    if c is None:
        return iter(())
    c.save()
    return rasterise(pdf.getvalue(), dpi)


def save_png(image: Any, folder: Any, name: str, dpi: float | None = None) -> Any:
    """`image` written as the PNG `folder/name` (the folder made when missing) through the
    export's stage (pnp.exports.staging: whole or not at all); returns the path."""
    from pnp.exports import staging
    from pnp.outpaths import inside

    folder.mkdir(parents=True, exist_ok=True)
    path = inside(folder, name)
    extra = {"dpi": (dpi, dpi)} if dpi is not None else {}
    image.save(staging.target(path), "PNG", compress_level=6, **extra)
    return path
