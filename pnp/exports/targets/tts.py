"""`pnp export tts`: Tabletop Simulator deck sheets, one back per deck and a saved-object
JSON; see pnp.exports.tts."""

from __future__ import annotations

from pnp.exports.targets.base import JOBS, Job, Option, Target


def write(job: Job, jpeg: bool, jobs: int | None = None):
    from pnp.exports.tts import export_tts

    faces = job.faces()
    return export_tts(job.db, faces, job.renderer(), job.out, jpeg=jpeg, jobs=jobs)


TARGET = Target(
    "tts", "Tabletop Simulator deck sheets, backs and saved-object JSON", write,
    options=(Option("--jpeg/--png-sheets", "jpeg", "deck sheets as JPEG (smaller) or PNG.",
                    kind="flag", default=True),
             JOBS),
)
