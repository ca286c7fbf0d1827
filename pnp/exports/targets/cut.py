"""`pnp export cut --machine M`: the build's sheets with a cutting machine's registration
marks, and an SVG and a DXF of the cut paths; see pnp.exports.cutting."""

from __future__ import annotations

from pnp.exports.targets.base import Job, Option, Target


def write(job: Job, machine: str | None, corner_radius: float | None,
          cut_bleed: float | None):
    from pnp.exports.cards import Exported
    from pnp.exports.cutting import run

    return Exported(*run(job.db, machine, job.game, job.decks, job.cards, job.out,
                         corner_radius, notify=job.notify, bleed=cut_bleed,
                         report=job.report))


TARGET = Target(
    "cut", "sheets with a cutting machine's registration marks, SVG and DXF cut paths",
    write,
    options=(
        Option("--machine", "machine", "the cutting machine whose registration marks to "
               "print (silhouette, cricut).", metavar="NAME"),
        Option("--corner-radius", "corner_radius", "the rounding of each card's cut "
               "corners, 0 for square (default: print.corner_radius_mm, 3.175 = 1/8 in).",
               kind="float", metavar="MM"),
        Option("--bleed", "cut_bleed", "the bleed each card keeps (default: print.bleed_mm, "
               "less where that would cost a card a sheet).", kind="float", metavar="MM"),
    ),
)
