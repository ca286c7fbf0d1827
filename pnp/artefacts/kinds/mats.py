"""Player mats at full size: one artefact per game with mats (cards.yaml `mats:`),
each mat on a page of its trim size plus bleed, for a print shop or paper of its size.
The tiled set for home printers is its neighbour (mats_tiled)."""

from __future__ import annotations

from typing import Any

from pnp.artefacts.artefact import Artefact, Written
from pnp.artefacts.kinds.base import Kind

NAME = "mats"


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    if not game.extras.get("mats"):
        return []
    return [Artefact(game_id, NAME, NAME, f"{game.title}: player mats, full size")]


def mat_count(db: Any, art: Artefact) -> int:
    """One progress step per mat (the tiled set's too)."""
    return len(db.games[art.game].extras["mats"])


def mat_size(gm, mat_id: str) -> tuple[float, float]:
    """A mat's trim size in points."""
    from pnp.layout import geometry as g

    mw, mh = gm.extras["mats"][mat_id]["size_mm"]
    return g.mm(mw), g.mm(mh)


def _draw_mats(db, art, opts, renderer, fonts, target, result: Written, step) -> None:
    """Each mat on a page of its trim size plus bleed (TrimBox and BleedBox set for a
    print shop); nothing but background within the printer margin of the trim, so a
    mat printed at home on paper of its own size loses nothing."""
    from pnp.artefacts.sheet import Pages, warning_list
    from pnp.draw.pdf import open_canvas
    from pnp.layout import geometry as g

    gm = db.games[art.game]
    bleed = opts.bleed
    safe = max(g.mm(3.175), opts.printer_margin)
    c = None
    for mat_id, mat in gm.extras["mats"].items():
        mw, mh = mat_size(gm, mat_id)
        size = (mw + 2 * bleed, mh + 2 * bleed)
        if c is None:
            c = open_canvas(target, font=fonts["regular"], page_size=size, title=art.title,
                            subject="player mats at full size, with bleed")
            pages = Pages(c, result)
        c.setPageSize(size)
        c.setTrimBox((bleed, bleed, bleed + mw, bleed + mh))
        c.setBleedBox((0, 0, *size))
        result.warnings += warning_list(renderer.draw_mat(c, art.game, mat_id, bleed, bleed,
                                                          mw, mh, bleed=bleed, safe=safe))
        pages.show("other", [(mat.get("title", mat_id), g.Rect(bleed, bleed, mw, mh))])
        result.cards += 1
        step(1)
    if c is None:   # no mats: never planned (_artefacts plans this kind for a game with mats)
        return
    c.save()
    result.pages = pages.count


KIND = Kind(NAME, order=20, artefacts=_artefacts, draw=_draw_mats, reserves=(NAME,),
            units=mat_count)
