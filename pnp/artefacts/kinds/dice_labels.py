"""Dice sticker labels: one artefact per game with dice (cards.yaml `dice:`), each face
of every die of every set as a square label of print.die_label_mm, one row per die. The
dice share their sheets: every die of every set is packed in order onto as few pages as
fit, each page's heading saying which dice it holds ("3 Storm dice, 1 Battle die")."""

from __future__ import annotations

from typing import Any

from pnp.artefacts.artefact import Artefact, BuildError, Options, Written
from pnp.artefacts.kinds.base import Kind

NAME = "dice-labels"
LABEL_GAP_MM = 3


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    if not game.extras.get("dice"):
        return []
    return [Artefact(game_id, NAME, NAME, f"{game.title}: dice sticker labels")]


def _dice(gm) -> dict:
    """The game's dice as cards.yaml declares them, one die or several named ones
    (carddb.dice: the referee reads the same declaration)."""
    from carddb.dice import dice_of

    return dice_of(gm.extras, gm.title, gm.extras.get("colors"))


def _units(db: Any, art: Artefact) -> int:
    return sum(len(die.sets) * die.per_player * len(die.faces)
               for die in _dice(db.games[art.game]).values())


def _rows(dice: dict) -> list[tuple[Any, Any]]:
    """One (die, set) per physical die, in the order declared."""
    return [(die, die_set) for die in dice.values() for die_set in die.sets
            for _ in range(die.per_player)]


def _page_heading(batch: list[tuple[Any, Any]], opts: Options) -> tuple[str, str]:
    counts: dict[str, int] = {}
    for _die, die_set in batch:
        counts[die_set.label] = counts.get(die_set.label, 0) + 1
    what = ", ".join(f"{n} {label} {'die' if n == 1 else 'dice'}" for label, n in counts.items())
    faces = "; ".join(dict.fromkeys(
        f"{die_set.label}: " + ", ".join(f.label for f in die.faces) for die, die_set in batch))
    return (f"Dice labels: {what}",
            f"{opts.die_label_mm:g} mm, one row per die ({faces}); cut on the grey lines")


def _draw_dice(db, art, opts: Options, renderer, fonts, target, result: Written, step) -> None:
    from pnp.artefacts.sheet import HEADING_H, PAGE_MARGIN, Pages, cut_rect, heading, heading_scale
    from pnp.draw.pdf import open_canvas
    from pnp.layout import geometry as g

    gm = db.games[art.game]
    dice = _dice(gm)
    size = g.mm(opts.die_label_mm)
    page = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title,
                    subject=f"{opts.die_label_mm:g} mm dice labels")
    pages = Pages(c, result)
    width = max(len(die.faces) for die in dice.values())
    area = g.Rect(PAGE_MARGIN, PAGE_MARGIN, page[0] - 2 * PAGE_MARGIN,
                  page[1] - 2 * PAGE_MARGIN - HEADING_H)
    try:
        grid = g.item_grid(area, size, size, g.mm(LABEL_GAP_MM), max_cols=width)
    except ValueError as exc:
        raise BuildError(f"print.die_label_mm {opts.die_label_mm:g}: {exc}") from None
    faces_drawn: dict[tuple[str, Any], str] = {}
    queue = _rows(dice)
    while queue:
        batch: list[tuple[Any, Any]] = []
        used = 0          # rows; a die wider than the page takes as many as it needs
        while queue and used + _rows_of(queue[0][0], grid.cols) <= grid.rows:
            used += _rows_of(queue[0][0], grid.cols)
            batch.append(queue.pop(0))
        if not batch:
            raise BuildError(f"print.die_label_mm {opts.die_label_mm:g}: one die's labels do "
                             f"not fit a page of {opts.paper} paper")
        heading(c, fonts, opts, *page, *_page_heading(batch, opts), result)
        heading_scale(c, fonts, page, opts.paper, opts.min_text_pt)
        row = 0
        for die, die_set in batch:
            for index, face in enumerate(die.faces):
                cell = grid.cells[(row + index // grid.cols) * grid.cols + index % grid.cols]
                form = _face_form(c, renderer, art.game, die_set.id, face, size, faces_drawn,
                                  result)
                c.saveState()
                c.translate(cell.x, cell.y)
                c.doForm(form)
                c.restoreState()
                cut_rect(c, cell)
                result.cards += 1
                step(1)
            row += _rows_of(die, grid.cols)
        pages.show()
    c.save()
    result.pages = pages.count


def _rows_of(die: Any, cols: int) -> int:
    """The rows one die's labels take: one, or more where its faces outnumber `cols`."""
    return -(-len(die.faces) // cols)


def _face_form(c, renderer, game: str, set_id: str, face, size: float, drawn: dict,
               result: Written) -> str:
    """The form a face of a set is drawn in: drawn once, then reused."""
    from pnp.artefacts.sheet import warning_list
    from pnp.draw.pdf import end_form

    key = (set_id, face.key)
    if key not in drawn:
        drawn[key] = f"die-{game}-{set_id}-{face.key}"
        c.beginForm(drawn[key], 0, 0, size, size)
        value = face.value if face.symbol is None else face.key
        result.warnings += warning_list(
            renderer.draw_die_face(c, game, set_id, value, 0, 0, size, face=face))
        end_form(c)
    return drawn[key]


KIND = Kind(NAME, order=40, artefacts=_artefacts, draw=_draw_dice, reserves=(NAME,),
            units=_units)
