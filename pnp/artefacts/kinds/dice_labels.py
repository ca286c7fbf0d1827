"""Dice sticker labels: one artefact per game with dice (cards.yaml `dice:`), each
face of every die of every set as a square label of print.die_label_mm, one row per
die, under a page heading with the scale bar."""

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


def _draw_dice(db, art, opts: Options, renderer, fonts, target, result: Written, step) -> None:
    from pnp.artefacts.sheet import Pages, cut_rect, heading, heading_scale, warning_list
    from pnp.draw.pdf import end_form, open_canvas
    from pnp.layout import geometry as g

    gm = db.games[art.game]
    dice = _dice(gm)
    size = g.mm(opts.die_label_mm)
    page = g.paper_size(opts.paper)
    counts = ", ".join(f"{d.per_player} x {len(d.faces)} faces" for d in dice.values())
    c = open_canvas(target, font=fonts["regular"], page_size=page, title=art.title,
                    subject=f"{opts.die_label_mm:g} mm labels, dice of {counts} per set")
    pages = Pages(c, result)
    faces_drawn: dict[tuple[str, Any], str] = {}
    for die in dice.values():
        faces = die.faces
        per_player = die.per_player
        for die_set in die.sets:
            set_id, label = die_set.id, die_set.label
            labels = [(n, face) for n in range(per_player) for face in faces]
            first = True
            while labels:
                area = heading(c, fonts, opts, *page, f"{label} dice \u2014 sticker labels",
                               f"{per_player} dice x {len(faces)} faces ("
                               + ", ".join(f.label for f in faces) + f"), "
                               f"{opts.die_label_mm:g} mm; one row per die; cut on the grey lines"
                               + ("" if first else " (continued)"), result)
                try:
                    grid = g.item_grid(area, size, size, g.mm(LABEL_GAP_MM),
                                       max_cols=len(faces))
                    heading_scale(c, fonts, page, opts.paper, opts.min_text_pt)
                except ValueError as exc:
                    raise BuildError(f"print.die_label_mm {opts.die_label_mm:g}: {exc}") from None
                batch, labels = labels[:grid.per_page], labels[grid.per_page:]
                for cell, (_n, face) in zip(grid.cells, batch, strict=False):
                    key = (set_id, face.key)
                    if key not in faces_drawn:  # each face is drawn once, then reused
                        faces_drawn[key] = f"die-{art.game}-{set_id}-{face.key}"
                        c.beginForm(faces_drawn[key], 0, 0, size, size)
                        value = face.value if face.symbol is None else face.key
                        result.warnings += warning_list(
                            renderer.draw_die_face(c, art.game, set_id, value, 0, 0, size,
                                                   face=face))
                        end_form(c)
                    c.saveState()
                    c.translate(cell.x, cell.y)
                    c.doForm(faces_drawn[key])
                    c.restoreState()
                    cut_rect(c, cell)
                    result.cards += 1
                    step(1)
                pages.show()
                first = False
    c.save()
    result.pages = pages.count


KIND = Kind(NAME, order=40, artefacts=_artefacts, draw=_draw_dice, reserves=(NAME,),
            units=_units)
