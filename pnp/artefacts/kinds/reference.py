"""The turn summary: one artefact per game with a `reference:` in cards.yaml, one copy
per player (`players.max`, or the reference's `copies`), each drawn by the game's
reference.j2 at the reference's `size` (a card size, or by default half the page's
printable area) and packed onto as few pages as fit, with grey cut lines, under a page
heading with the scale bar."""

from __future__ import annotations

from typing import Any

from pnp.artefacts.artefact import Artefact, BuildError, Written
from pnp.artefacts.kinds.base import Kind

NAME = "reference"
GAP_MM = 3


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    if not game.extras.get("reference"):
        return []
    return [Artefact(game_id, NAME, NAME, f"{game.title}: turn summary")]


def copies(game: Any) -> int:
    """How many turn summaries print: the reference's `copies`, else one per player."""
    return int(game.extras["reference"].get("copies") or game.max_players)


def _units(db: Any, art: Artefact) -> int:
    return copies(db.games[art.game])


def _draw_reference(db, art, opts, renderer, fonts, target, result: Written,
                    step) -> None:
    from pnp.artefacts.sheet import (
        HEADING_H,
        PAGE_MARGIN,
        Pages,
        cut_rect,
        heading,
        heading_scale,
        warning_list,
    )
    from pnp.draw.pdf import open_canvas
    from pnp.layout import geometry as g

    game = db.games[art.game]
    page = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title,
                    subject="turn summary")
    pages = Pages(c, result)
    area = g.Rect(PAGE_MARGIN, PAGE_MARGIN, page[0] - 2 * PAGE_MARGIN,
                  page[1] - 2 * PAGE_MARGIN - HEADING_H)
    gap = g.mm(GAP_MM)
    size = game.extras["reference"].get("size")
    w, h = (g.mm(size[0]), g.mm(size[1])) if size else (area.w, (area.h - gap) / 2)
    try:
        grid = g.item_grid(area, w, h, gap)
    except ValueError as exc:
        raise BuildError(f"reference.size: {exc}") from None
    left = total = copies(game)
    why = "" if game.extras["reference"].get("copies") else ", one per player"
    while left:
        n = min(left, grid.per_page)
        done = total - left
        part = "" if n == total else f" ({done + 1}-{done + n} of {total})"
        heading(c, fonts, opts, *page, f"Turn summary x {n}{why}{part}",
                f"{g.to_mm(w):.0f} x {g.to_mm(h):.0f}"
                " mm; cut on the grey lines", result)
        heading_scale(c, fonts, page, opts.paper, opts.min_text_pt)
        for cell in grid.cells[:n]:
            result.warnings += warning_list(renderer.draw_reference(c, art.game, cell.x, cell.y,
                                                                    cell.w, cell.h))
            cut_rect(c, cell)
            result.cards += 1
            step(1)
        pages.show()
        left -= n
    c.save()
    result.pages = pages.count


KIND = Kind(NAME, order=60, artefacts=_artefacts, draw=_draw_reference, reserves=(NAME,),
            units=_units)
