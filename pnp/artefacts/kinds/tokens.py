"""Token sheets: one artefact per game with tokens (cards.yaml `tokens:`). Each kind of
token is drawn once and placed `count` times; the kinds share their sheets, packed in
order onto as few pages as fit, one size at a time (a page holds tokens of one
diameter), each page's heading saying how many of which it holds ("40 Cargo, 20
Lanterns", plurals from `plural:` where the English rule fails). Tokens sit on a pitch a
standard circle punch of their size fits (PUNCHES_MM: the smallest one at least the
token's diameter, plus PUNCH_CLEARANCE_MM), with a cut circle round each."""

from __future__ import annotations

from typing import Any

from pnp.artefacts.artefact import Artefact, BuildError, Options, Written
from pnp.artefacts.kinds.base import Kind

NAME = "tokens"
TOKEN_GAP_MM = 3
TOKEN_BLEED_MM = 1.5  # at most: half the gap between tokens
# the circle punches sold for crafts, by the diameter they cut: 1/2 in up to 3 in
PUNCHES_MM = (12.7, 15.875, 19.05, 25.4, 31.75, 38.1, 44.45, 50.8, 63.5, 76.2)
PUNCH_CLEARANCE_MM = 1.0  # between one punch's cut and the next token's


def punch_mm(diameter_mm: float) -> float | None:
    """The smallest standard punch that cuts a token of `diameter_mm` whole (None: none)."""
    return next((p for p in PUNCHES_MM if p >= diameter_mm - 1e-6), None)


def pitch_mm(diameter_mm: float) -> float:
    """Centre to centre of neighbouring tokens: room for the punch of their size, or the
    cutting gap for a token larger than any punch."""
    punch = punch_mm(diameter_mm)
    gap = diameter_mm + TOKEN_GAP_MM
    return gap if punch is None else max(gap, punch + PUNCH_CLEARANCE_MM)


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    if not game.extras.get("tokens"):
        return []
    return [Artefact(game_id, NAME, NAME, f"{game.title}: token sheets")]


def _units(db: Any, art: Artefact) -> int:
    return sum(int(t["count"]) for t in db.games[art.game].extras["tokens"].values())


def _by_size(tokens: dict) -> dict[float, list[tuple[str, dict]]]:
    """The token kinds grouped by diameter, in the order they are declared."""
    groups: dict[float, list[tuple[str, dict]]] = {}
    for token_id, spec in tokens.items():
        groups.setdefault(float(spec["diameter_mm"]), []).append((token_id, spec))
    return groups


def _page_heading(batch: list[tuple[str, dict]], diameter: float) -> tuple[str, str]:
    from pnp.artefacts.kinds._plurals import counted

    counts: dict[str, int] = {}
    for token_id, _spec in batch:
        counts[token_id] = counts.get(token_id, 0) + 1
    specs = dict(batch)
    what = ", ".join(counted(n, specs[t].get("name", t), specs[t].get("plural"))
                     for t, n in counts.items())
    punch = punch_mm(diameter)
    tool = (f"cut, or punch with a {punch:g} mm ({punch / 25.4:g} in) punch"
            if punch else "cut along the circles")
    return f"Tokens: {what}", f"{diameter:g} mm tokens; {tool}"


def _draw_tokens(db, art, opts: Options, renderer, fonts, target, result: Written, step) -> None:
    from pnp.artefacts.sheet import HAIRLINE, Pages, heading, heading_scale, warning_list
    from pnp.draw.pdf import end_form, open_canvas
    from pnp.layout import geometry as g

    gm = db.games[art.game]
    page = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title,
                    subject="punch-out tokens")
    pages = Pages(c, result)
    for diameter, kinds in _by_size(gm.extras["tokens"]).items():
        d = g.mm(diameter)
        token_gap = g.mm(pitch_mm(diameter)) - d
        # The fill runs past the cut circle, never into the neighbour's.
        bleed = min(opts.bleed, g.mm(TOKEN_BLEED_MM), token_gap / 2)
        for token_id, _spec in kinds:
            c.beginForm(_form(art.game, token_id), -bleed, -bleed, d + bleed, d + bleed)
            result.warnings += warning_list(renderer.draw_token(c, art.game, token_id, d / 2,
                                                                d / 2, d / 2, bleed=bleed))
            end_form(c)
        queue = [(token_id, spec) for token_id, spec in kinds for _ in range(int(spec["count"]))]
        while queue:
            try:          # the heading's height is the same whatever it says
                area = g.Rect(*_content_area(opts, page))
                grid = g.item_grid(area, d, d, token_gap)
            except ValueError as exc:
                raise BuildError(f"tokens.{kinds[0][0]}.diameter_mm: {exc}") from None
            batch, queue = queue[:grid.per_page], queue[grid.per_page:]
            heading(c, fonts, opts, *page, *_page_heading(batch, diameter), result)
            heading_scale(c, fonts, page, opts.paper, opts.min_text_pt)
            for cell, (token_id, _spec) in zip(grid.cells, batch, strict=False):
                c.saveState()
                c.translate(cell.x, cell.y)
                c.doForm(_form(art.game, token_id))
                c.restoreState()
                c.saveState()
                c.setLineWidth(HAIRLINE)
                c.setStrokeColorRGB(0, 0, 0)
                c.circle(cell.x + d / 2, cell.y + d / 2, d / 2, stroke=1, fill=0)
                c.restoreState()
                result.cards += 1
                step(1)
            pages.show()
    c.save()
    result.pages = pages.count


def _form(game: str, token_id: str) -> str:
    return f"token-{game}-{token_id}"   # every token of a kind is the same drawing


def _content_area(opts: Options, page: tuple[float, float]) -> tuple[float, ...]:
    """What `sheet.heading` leaves below itself (the same on every page)."""
    from pnp.artefacts.sheet import HEADING_H, PAGE_MARGIN

    return (PAGE_MARGIN, PAGE_MARGIN, page[0] - 2 * PAGE_MARGIN,
            page[1] - 2 * PAGE_MARGIN - HEADING_H)


KIND = Kind(NAME, order=50, artefacts=_artefacts, draw=_draw_tokens, reserves=(NAME,),
            units=_units)
