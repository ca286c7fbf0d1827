"""Token sheets: one artefact per game with tokens (cards.yaml `tokens:`), each kind
of token drawn once and placed `count` times on punch-out sheets with a cut circle."""

from __future__ import annotations

from typing import Any

from pnp.artefacts.artefact import Artefact, BuildError, Options, Written
from pnp.artefacts.kinds.base import Kind

NAME = "tokens"
TOKEN_GAP_MM = 3
TOKEN_BLEED_MM = 1.5  # at most: half the gap between tokens


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    if not game.extras.get("tokens"):
        return []
    return [Artefact(game_id, NAME, NAME, f"{game.title}: token sheets")]


def _units(db: Any, art: Artefact) -> int:
    return sum(int(t["count"]) for t in db.games[art.game].extras["tokens"].values())


def _draw_tokens(db, art, opts: Options, renderer, fonts, target, result: Written, step) -> None:
    from pnp.artefacts.sheet import HAIRLINE, Pages, heading, heading_scale, warning_list
    from pnp.draw.pdf import end_form, open_canvas
    from pnp.layout import geometry as g

    token_gap = g.mm(TOKEN_GAP_MM)
    gm = db.games[art.game]
    page = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title, subject="punch-out tokens")
    pages = Pages(c, result)
    # The fill runs past the cut circle, never into the neighbour's.
    bleed = min(opts.bleed, g.mm(TOKEN_BLEED_MM), token_gap / 2)
    for token_id, spec in gm.extras["tokens"].items():
        d = g.mm(float(spec["diameter_mm"]))
        remaining = int(spec["count"])
        name = spec.get("name", token_id)
        form = f"token-{art.game}-{token_id}"  # every token of a kind is the same drawing
        c.beginForm(form, -bleed, -bleed, d + bleed, d + bleed)
        result.warnings += warning_list(renderer.draw_token(c, art.game, token_id, d / 2,
                                                            d / 2, d / 2, bleed=bleed))
        end_form(c)
        while remaining > 0:
            area = heading(c, fonts, opts, *page, f"{name}s ({spec.get('label', token_id)})",
                           f"{spec['count']} tokens, {spec['diameter_mm']:g} mm; "
                           "cut or punch along the circles", result)
            try:
                grid = g.item_grid(area, d, d, token_gap)
            except ValueError as exc:
                raise BuildError(f"tokens.{token_id}.diameter_mm: {exc}") from None
            heading_scale(c, fonts, page, opts.paper, opts.min_text_pt)
            n = min(remaining, grid.per_page)
            for cell in grid.cells[:n]:
                cx, cy = cell.x + d / 2, cell.y + d / 2
                c.saveState()
                c.translate(cell.x, cell.y)
                c.doForm(form)
                c.restoreState()
                c.saveState()
                c.setLineWidth(HAIRLINE)
                c.setStrokeColorRGB(0, 0, 0)
                c.circle(cx, cy, d / 2, stroke=1, fill=0)
                c.restoreState()
                result.cards += 1
                step(1)
            remaining -= n
            pages.show()
    c.save()
    result.pages = pages.count


KIND = Kind(NAME, order=50, artefacts=_artefacts, draw=_draw_tokens, reserves=(NAME,),
            units=_units)
