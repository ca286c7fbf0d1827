"""`pnp export pdf-single`: per deck one PDF, one physical card per page with TrimBox and
BleedBox, each front followed by its back unless --no-backs; see
pnp.exports.cards.export_pdf_single."""

from __future__ import annotations

from pnp.exports.targets.base import Job, Option, Target


def write(job: Job, no_backs: bool):
    from pnp.exports.cards import export_pdf_single

    faces = job.faces()
    return export_pdf_single(job.db, faces, job.renderer(), job.out, backs=not no_backs)


TARGET = Target(
    "pdf-single", "one card per page with TrimBox and BleedBox", write,
    options=(Option("--no-backs", "no_backs", "fronts only.", kind="flag", default=False),),
)
