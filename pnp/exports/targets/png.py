"""`pnp export png`: one PNG per physical card face at --dpi, bleed included (copies as
files of their own, the deck's back once); see pnp.exports.cards.export_png. --jobs N:
the decks drawn by N worker processes (pnp.artefacts.workers)."""

from __future__ import annotations

from pnp.exports.targets.base import JOBS, Job, Option, Target

DPI = 300


def write(job: Job, dpi: int, jobs: int | None = None):
    from pnp.exports.cards import export_png

    faces = job.faces()
    return export_png(job.db, faces, job.renderer(), job.out, dpi, jobs=jobs)


TARGET = Target(
    "png", "one 300 dpi PNG per card face with bleed, copies expanded", write,
    options=(Option("--dpi", "dpi", "resolution of the images.", kind="int", default=DPI,
                    limits=(72, 1200)),
             JOBS),
)
