"""Which cards were added, removed or changed since an earlier build (`pnp diff`), and the
reprint PDF of `pnp build --changed-only`.

Compares the latest build record of OUT (pnp.artefacts.drawn) with:
- the build before it (default), or `--since N` (build N of OUT/.pnp-builds);
- `--since GIT-REF`: the project as committed there (cards.yaml, spreadsheets, templates,
  images read from `git archive`), its faces planned by today's renderer.
A card is changed when what is drawn on its front or its back, or its copies, differ.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnp.errors import PnpError

CHANGED_PDF = "changed.pdf"


@dataclass
class Changes:
    since: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, list[str]] = field(default_factory=dict)   # card -> what

    @property
    def reprint(self) -> list[str]:
        """The cards to print again: added and changed, in card order."""
        return sorted(set(self.added) | set(self.changed))

    def as_json(self) -> dict[str, Any]:
        return {"ok": True, "since": self.since, "added": self.added, "removed": self.removed,
                "changed": [{"card": k, "what": v} for k, v in self.changed.items()]}


def compare(old: dict[str, dict], new: dict[str, dict], since: str) -> Changes:
    """The changes from `old` to `new` (the `cards` of two build records)."""
    out = Changes(since)
    out.added = sorted(k for k in new if k not in old)
    out.removed = sorted(k for k in old if k not in new)
    for key in sorted(set(old) & set(new)):
        what = [part for part in ("front", "back", "copies")
                if old[key].get(part) != new[key].get(part)]
        if what:
            out.changed[key] = what
    return out


def _stop(message: str, code: int) -> PnpError:
    return PnpError(message, exit_code=code)


def changes(out: Path, project: Path | None, since: str | None, notify: Any = None) -> Changes:
    """The changes from `since` (default: the build before the latest) to the latest
    build recorded in `out`; `notify(line)` gets the font notices of a git ref's cards."""
    from pnp.artefacts import drawn

    found = drawn.records(out)
    if not found:
        raise _stop(f"no build recorded in {out} (run pnp build first)", 1)
    latest = drawn.read_record(found[-1])
    by_number = {int(p.stem): p for p in found}
    if since is None:
        if len(found) < 2:                  # the first build: every card is new
            return compare({}, latest["cards"], "no earlier build")
        return compare(drawn.read_record(found[-2])["cards"], latest["cards"],
                       f"build {int(found[-2].stem)}")
    if since.isdigit() and int(since) in by_number:
        return compare(drawn.read_record(by_number[int(since)])["cards"], latest["cards"],
                       f"build {int(since)}")
    return compare(cards_at_ref(project, since, notify), latest["cards"], f"git {since}")


def cards_at_ref(project: Path | None, ref: str, notify: Any = None) -> dict[str, dict]:
    """The card entries (pnp.artefacts.drawn) of the project as committed at `ref`."""
    from pnp.project import require_database

    db_path = require_database(project).resolve()
    root = db_path.parent

    def git(*args: str, binary: bool = False):
        try:
            return subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                                  timeout=60, check=False, text=not binary)
        except (OSError, subprocess.SubprocessError) as exc:
            raise _stop(f"--since {ref}: git cannot be run: {exc}", 2) from None

    top = git("rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise _stop(f"--since {ref}: no build {ref} in the output folder and "
                    f"{root} is not in a git repository", 2)
    top_dir = Path(top.stdout.strip()).resolve()
    commit = git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if commit.returncode != 0:
        raise _stop(f"--since {ref}: neither a build number nor a git commit", 2)
    archive = git("archive", "--format=tar", commit.stdout.strip(), binary=True)
    if archive.returncode != 0:
        raise _stop(f"--since {ref}: git archive failed", 2)
    with tempfile.TemporaryDirectory(prefix="pnp-since-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        old_db = Path(tmp) / db_path.relative_to(top_dir)
        if not old_db.is_file():
            raise _stop(f"--since {ref}: {db_path.relative_to(top_dir)} is not in that "
                        "commit", 1)
        return plan_cards(_load(old_db, f"--since {ref}"), notify)


def _load(path: Path, what: str):
    import carddb
    from pnp.artefacts.names import RESERVED_DECK_IDS

    try:
        return carddb.load(path, reserved=RESERVED_DECK_IDS)
    except carddb.DatabaseError as exc:
        raise _stop(f"{what}: {str(exc).splitlines()[0]}", 1) from None


def plan_cards(db: Any, notify: Any = None) -> dict[str, dict]:
    """Every card's entry (pnp.artefacts.drawn) of a database, drawn onto a scratch canvas."""
    from reportlab.pdfgen.canvas import Canvas

    from pnp.artefacts import drawn
    from pnp.draw.render import card_renderer
    from pnp.layout import geometry as g

    renderer = card_renderer(db, notify)
    recorder = drawn.Recorder(db, renderer)
    canvas = Canvas(io.BytesIO(), invariant=1)
    bleed = g.mm(float(db.print.bleed_mm))     # sizes computed as pnp.artefacts.build does
    out: dict[str, dict] = {}
    for gid, game in db.games.items():
        for did, deck in game.decks.items():
            w, h = g.mm(deck.size_mm[0]), g.mm(deck.size_mm[1])
            renderer.draw_back(canvas, deck, 0, 0, w, h, bleed)
            for card in deck.cards:
                renderer.draw_front(canvas, card, deck, 0, 0, w, h, bleed)
            out.update(drawn.deck_entries(db, recorder, gid, did) or {})
    return out


def changes_text(ch: Changes) -> list[str]:
    lines = [f"since {ch.since}: {len(ch.added)} added, {len(ch.removed)} removed, "
             f"{len(ch.changed)} changed"]
    lines += [f"+ {k}" for k in ch.added]
    lines += [f"- {k}" for k in ch.removed]
    lines += [f"~ {k} ({', '.join(v)})" for k, v in ch.changed.items()]
    return lines


def write_changed(out: Path, found: Changes, db: Any, renderer: Any) -> tuple[Path, int] | None:
    """OUT/changed.pdf and its page count: every copy of each added or changed card of
    `found`, one card per page, each front followed by its back (TrimBox/BleedBox set,
    pnp.artefacts.single). None (and the file removed) when nothing changed; `db` and
    `renderer` are only used when something did."""
    from pnp.artefacts.single import Face, write_single

    target = Path(out) / CHANGED_PDF
    wanted = set(found.reprint)
    if not wanted:
        target.unlink(missing_ok=True)
        return None
    pages: list[Face] = []
    for gid, game in db.games.items():
        for did, deck in game.decks.items():
            for card in deck.cards:
                if f"{gid}/{did}/{card.name}" in wanted:
                    for _ in range(card.copies):
                        pages += [Face(deck, card), Face(deck)]
    part = target.with_name(target.name + ".part")
    write_single(part, pages, renderer, db.print.bleed_mm,
                 f"cards changed since {found.since}", checked=False)
    part.replace(target)
    return target, len(pages)
