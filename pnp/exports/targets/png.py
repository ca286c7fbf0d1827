"""`pnp export png`: one PNG per physical card face at --dpi, bleed included (copies as
files of their own, the deck's back once); see pnp.exports.cards.export_png."""

from __future__ import annotations

from pnp.exports.targets.base import Job, Option, Target

DPI = 300


def write(job: Job, dpi: int):
    from pnp.exports.cards import export_png

    faces = job.faces()
    return export_png(job.db, faces, job.renderer(), job.out, dpi)


TARGET = Target(
    "png", "one 300 dpi PNG per card face with bleed, copies expanded", write,
    options=(Option("--dpi", "dpi", "resolution of the images.", kind="int", default=DPI,
                    limits=(72, 1200)),),
)
