"""`pnp export tts`: Tabletop Simulator deck sheets, one back per deck and a saved-object
JSON, and, when whole games are exported (no --deck or --card), each game's dice as
custom dice and its tokens as custom tokens; see pnp.exports.tts. `--base-url URL`
writes links a shared save can load; without it the saves name this computer's files,
which the command says."""

from __future__ import annotations

from pnp.exports.targets.base import JOBS, Job, Option, Target


def write(job: Job, jpeg: bool, jobs: int | None = None, base_url: str | None = None):
    from pnp.exports.pieces import has_pieces
    from pnp.exports.tts import export_tts

    if base_url is not None:
        _check_url(base_url)
    faces = job.faces()
    games = () if job.decks or job.cards else \
        tuple(g for g in ([job.game] if job.game else job.db.games)
              if has_pieces(job.db.games[g]))
    result = export_tts(job.db, faces, job.renderer(), job.out, jpeg=jpeg, jobs=jobs,
                        base_url=base_url, pieces_of=games)
    if base_url is None and job.report is not None:
        job.report("tts: the saves name files on this computer (file://): only it can load "
                   "them; to share a save, put the folder online and export with "
                   "--base-url URL")
    return result


def _check_url(url: str) -> None:
    from urllib.parse import urlsplit

    from pnp.errors import PnpError

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or "?" in url or "#" in url:
        raise PnpError(f"--base-url {url!r}: expected an http:// or https:// address of the "
                       "folder the export is served from (no query or fragment)")


TARGET = Target(
    "tts", "Tabletop Simulator deck sheets, backs and saved-object JSON, and the game's "
    "dice and tokens", write,
    options=(Option("--jpeg/--png-sheets", "jpeg", "deck sheets as JPEG (smaller) or PNG.",
                    kind="flag", default=True),
             JOBS,
             Option("--base-url", "base_url", "where the export folder will be served "
                    "(https://...): the saves link their images there, so a shared save "
                    "loads anywhere; default: this computer's files.", metavar="URL")),
)
