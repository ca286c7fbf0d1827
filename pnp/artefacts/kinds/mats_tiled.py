"""Player mats tiled on the build's paper: one artefact per game with mats, each mat
cut into overlapping tiles with alignment marks (circled crosses) and a caption saying
where each tile goes (the plan is pnp.layout.geometry.tile_plan)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pnp.artefacts.artefact import Artefact, Options, Written
from pnp.artefacts.kinds.base import Kind
from pnp.artefacts.kinds.mats import mat_count, mat_size

if TYPE_CHECKING:
    from pnp.layout import geometry as g

NAME = "mats-tiled"
ALIGN_R_MM = 3  # the alignment circles' radius


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    if not game.extras.get("mats"):
        return []
    return [Artefact(game_id, NAME, NAME, f"{game.title}: player mats, tiled")]


def _draw_mats_tiled(db, art, opts: Options, renderer, fonts, target, result: Written,
                     step) -> None:
    from pnp.artefacts.sheet import Pages, clipped, warning_list
    from pnp.draw.pdf import end_form, open_canvas
    from pnp.layout import geometry as g

    gm = db.games[art.game]
    c = None
    for mat_id, mat in gm.extras["mats"].items():
        mw, mh = mat_size(gm, mat_id)
        plan = g.tile_plan(mw, mh, opts.paper)
        if c is None:
            c = open_canvas(target, font=fonts["regular"], page_size=(plan.page_w, plan.page_h), title=art.title,
                            subject=f"player mats tiled on {opts.paper} paper, "
                                    f"{g.to_mm(plan.overlap):.0f} mm overlap")
            pages = Pages(c, result)
        form = f"mat-{art.game}-{mat_id}"
        c.beginForm(form, 0, 0, mw, mh)
        result.warnings += warning_list(renderer.draw_mat(
            c, art.game, mat_id, 0, 0, mw, mh, safe=max(g.mm(3.175), opts.printer_margin)))
        end_form(c)
        for tile in plan.tiles:
            c.setPageSize((plan.page_w, plan.page_h))
            ox, oy = tile.origin
            window = tile.window.shifted(ox, oy)
            clipped(c, window)
            c.translate(ox, oy)
            c.doForm(form)
            c.restoreState()
            _tile_marks(c, plan, tile, window)
            _tile_caption(c, fonts, opts, plan, tile, mat.get("title", mat_id), result)
            pages.show()
            result.cards += 1
        step(1)
    if c is None:   # no mats: never planned (_artefacts plans this kind for a game with mats)
        return
    c.save()
    result.pages = pages.count


def _tile_marks(c, plan: g.TilePlan, tile: g.Tile, window: g.Rect) -> None:
    """The tile's edge (thin grey) and the alignment marks (circle + cross) in it."""
    from pnp.artefacts.sheet import HAIRLINE
    from pnp.layout.geometry import mm

    align_r = mm(ALIGN_R_MM)
    c.saveState()
    c.setLineWidth(HAIRLINE)
    c.setStrokeColorRGB(0.5, 0.5, 0.5)
    c.rect(window.x, window.y, window.w, window.h, stroke=1, fill=0)
    c.setStrokeColorRGB(0, 0, 0)
    for mx, my in plan.marks:
        if not tile.window.contains(mx, my):
            continue
        x, y = tile.on_page(mx, my)
        c.setFillColorRGB(1, 1, 1)
        c.circle(x, y, align_r, stroke=1, fill=1)
        c.line(x - 1.6 * align_r, y, x + 1.6 * align_r, y)
        c.line(x, y - 1.6 * align_r, x, y + 1.6 * align_r)
    c.restoreState()


def _tile_caption(c, fonts, opts: Options, plan: g.TilePlan, tile: g.Tile, title: str,
                  result: Written) -> None:
    from pnp.artefacts.sheet import text as _text
    from pnp.layout import geometry as g

    c.saveState()
    c.setFillColorRGB(0.3, 0.3, 0.3)
    text = (f"{title} \u2014 tile {tile.label} (row {chr(ord('A') + tile.row)} of {plan.rows}, "
            f"column {tile.col + 1} of {plan.cols}). Neighbouring tiles overlap by "
            f"{g.to_mm(plan.overlap):.0f} mm: trim one edge, lay it over the next and line "
            f"up the circled crosses.")
    # inside the printable band, below the tile
    _text(c, fonts, opts, "regular", 7, plan.margin,
          max(plan.margin / 2 - 2, opts.printer_margin + g.mm(0.5)), text, result=result,
          element="tile caption")
    c.restoreState()


KIND = Kind(NAME, order=30, artefacts=_artefacts, draw=_draw_mats_tiled, reserves=(NAME,),
            units=mat_count)
