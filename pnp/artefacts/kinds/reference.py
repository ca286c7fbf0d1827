"""The reference card: one artefact per game with a turn summary (cards.yaml
`reference:`), drawn by the renderer inside the page margin, with the scale bar."""

from __future__ import annotations

from typing import Any

from pnp.artefacts.artefact import Artefact, Written
from pnp.artefacts.kinds.base import Kind

NAME = "reference"


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    if not game.extras.get("reference"):
        return []
    return [Artefact(game_id, NAME, NAME, f"{game.title}: turn summary")]


def _draw_reference(db, art, opts, renderer, fonts, target, result: Written,
                    step) -> None:
    from pnp.artefacts.sheet import PAGE_MARGIN, Pages, draw_scale, warning_list
    from pnp.draw.pdf import open_canvas
    from pnp.layout import geometry as g

    page = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title, subject="turn summary")
    pages = Pages(c, result)
    box = g.Rect(PAGE_MARGIN, PAGE_MARGIN, page[0] - 2 * PAGE_MARGIN, page[1] - 2 * PAGE_MARGIN)
    result.warnings += warning_list(renderer.draw_reference(c, art.game, box.x, box.y, box.w,
                                                            box.h))
    length = g.scale_length(opts.paper)[0]
    plate_w = length + g.mm(2)
    plate_h = g.scale_plate_height(opts.min_text_pt)
    draw_scale(c, fonts, g.ScalePlate(g.Rect((page[0] - plate_w) / 2,
                                             PAGE_MARGIN - plate_h - g.mm(0.5),
                                             plate_w, plate_h), False),
               opts.paper, opts.min_text_pt)
    pages.show()
    c.save()
    result.pages = 1
    result.cards = 1
    step(1)


KIND = Kind(NAME, order=60, artefacts=_artefacts, draw=_draw_reference, reserves=(NAME,))
