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
    builds: int | None = None      # (pending) how many builds OUT has recorded
    latest: int | None = None      # (pending) the latest build's number

    @property
    def reprint(self) -> list[str]:
        """The cards to print again: added and changed, in card order."""
        return sorted(set(self.added) | set(self.changed))

    def as_json(self) -> dict[str, Any]:
        data = {"ok": True, "since": self.since, "added": self.added,
                "removed": self.removed,
                "changed": [{"card": k, "what": v} for k, v in self.changed.items()]}
        if self.builds is not None:
            data.update(builds=self.builds, latest=self.latest)
        return data


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


def _cards(record: dict, label: str) -> dict[str, dict]:
    """A record's cards, when its hashes compare with today's (pnp.artefacts.drawn.FORMAT);
    else the comparison is refused: every card would look changed."""
    from pnp.artefacts import drawn

    found = drawn.record_format(record)
    if found != drawn.FORMAT:
        raise _stop(f"record format changed: {label} was recorded in format {found}, this "
                    f"pnp records format {drawn.FORMAT}, so its cards cannot be compared "
                    "(pnp build records them anew; compare with that build)", 1)
    return record["cards"]


def changes(out: Path, project: Path | None, since: str | None, notify: Any = None) -> Changes:
    """The changes from `since` (default: the build before the latest) to the latest
    build recorded in `out`; `notify(line)` gets the font notices of a git ref's cards."""
    from pnp.artefacts import drawn

    found = drawn.records(out)
    if not found:
        raise _stop(f"no build recorded in {out} (run pnp build first)", 1)
    latest_record = drawn.read_record(found[-1])
    latest = _cards(latest_record, f"build {int(found[-1].stem)}")
    by_number = {int(p.stem): p for p in found}
    if since is None:
        if len(found) < 2:                  # the first build: every card is new
            return compare({}, latest, "no earlier build")
        label = f"build {int(found[-2].stem)}"
        return compare(_cards(drawn.read_record(found[-2]), label), latest, label)
    if since.isdigit() and int(since) in by_number:
        label = f"build {int(since)}"
        return compare(_cards(drawn.read_record(by_number[int(since)]), label), latest, label)
    return compare(cards_at_ref(project, since, notify, _lang(latest_record)), latest,
                   f"git {since}")


def pending(out: Path, project: Path | None, since: str | None = None,
            notify: Any = None) -> Changes:
    """What the cards as they are now (cards.yaml, its spreadsheets, templates and images,
    planned by today's renderer) would change against the latest build recorded in `out`
    (or `since`: a build number or a git commit), as `git diff` shows the work tree
    against HEAD. `Changes.since` names the base; `Changes.builds` counts OUT's builds."""
    from pnp.artefacts import drawn
    from pnp.project import require_database

    found = drawn.records(out)
    by_number = {int(p.stem): p for p in found}
    latest = drawn.read_record(found[-1]) if found else {}
    if since is None:
        label = f"build {int(found[-1].stem)}" if found else "no build"
        base = _cards(latest, label) if found else {}
    elif since.isdigit() and int(since) in by_number:
        label = f"build {int(since)}"
        base = _cards(drawn.read_record(by_number[int(since)]), label)
    elif since.isdigit() and not found:
        raise _stop(f"--since {since}: no build recorded in {out}", 2)
    else:
        base, label = cards_at_ref(project, since, notify, _lang(latest)), f"git {since}"
    import carddb
    from pnp.artefacts.kinds import reserved_deck_ids

    try:
        db = carddb.load(require_database(project), reserved=reserved_deck_ids())
    except carddb.DatabaseError as exc:
        raise _stop(str(exc).splitlines()[0], 1) from None
    # the latest build drew with --ink-saver: plan as a build with it would (as
    # print.ink_saver says otherwise)
    # ... and in the language it printed (OUT/<lang>: carddb.languages)
    db = _in_language(db, _lang(latest))
    now = plan_cards(db, notify, ink_saver=True if latest.get("ink_saver") == "flag" else None)
    out_changes = compare(base, now, label)
    out_changes.builds = len(found)
    out_changes.latest = int(found[-1].stem) if found else None
    return out_changes


def pending_text(ch: Changes, out: Path) -> list[str]:
    """`pnp diff`'s lines: what the base is (the latest of how many builds, the only
    one, none yet, or the one named), the counts, then one line per card."""
    if ch.since == "no build":
        base = f"no build recorded in {out} yet (every card is new)"
    elif ch.since == f"build {ch.latest}":
        base = (f"{ch.since}, the only build in {out}" if ch.builds == 1 else
                f"{ch.since}, the latest of {ch.builds} builds in {out}")
    elif ch.since.startswith("build "):
        base = f"{ch.since} of {ch.builds} in {out} (the latest is build {ch.latest})"
    else:
        base = ch.since
    total = len(ch.added) + len(ch.removed) + len(ch.changed)
    head = (f"the cards now, against {base}: " +
            ("nothing changed" if not total else
             f"{len(ch.added)} added, {len(ch.removed)} removed, {len(ch.changed)} changed"))
    return [head] + changes_text(ch)[1:]


def _lang(record: dict | None) -> str | None:
    """The language a build record's cards were printed in (None: the default)."""
    value = (record or {}).get("lang")
    return value if isinstance(value, str) else None


def _in_language(db: Any, lang: str | None) -> Any:
    """`db` in `lang` when it declares it; else as it is (a commit before the language)."""
    from carddb import languages

    return languages.localised(db, lang) if lang in languages.codes_of(db) else db


def cards_at_ref(project: Path | None, ref: str, notify: Any = None,
                 lang: str | None = None) -> dict[str, dict]:
    """The card entries (pnp.artefacts.drawn) of the project as committed at `ref` (in
    `lang`, when that commit declares it)."""
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
        return plan_cards(_in_language(_load(old_db, f"--since {ref}"), lang), notify)


def _load(path: Path, what: str):
    import carddb
    from pnp.artefacts.kinds import reserved_deck_ids

    try:
        return carddb.load(path, reserved=reserved_deck_ids())
    except carddb.DatabaseError as exc:
        raise _stop(f"{what}: {str(exc).splitlines()[0]}", 1) from None


def plan_cards(db: Any, notify: Any = None, ink_saver: bool | None = None) -> dict[str, dict]:
    """Every card's entry (pnp.artefacts.drawn) of a database, drawn onto a scratch canvas
    (`ink_saver`: as `pnp build --ink-saver` draws them; None: as print.ink_saver says)."""
    from reportlab.pdfgen.canvas import Canvas

    from pnp.artefacts import drawn
    from pnp.draw.fonts import register_fonts
    from pnp.draw.render import CardRenderer
    from pnp.layout import geometry as g

    renderer = CardRenderer(db, register_fonts(db.print.fonts, db.root, notify=notify),
                            ink_saver=ink_saver)
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


def write_changed(out: Path, found: Changes, db: Any, renderer: Any, opts: Any = None,
                  fonts: dict[str, str] | None = None) -> tuple[Path, int] | None:
    """OUT/changed.pdf and its page count: every copy of each added or changed card of
    `found`, on sheets of the build's paper exactly as `pnp build` prints a deck (`opts`:
    pnp.artefacts.build.Options, the build's; cut guides, bleed, duplex backs, each
    behind its own front, or fold sheets), the cards of every deck of one card size
    packed together (two changed cards of two poker decks share one sheet), with its
    layout report OUT/changed.layout.json. None (and both files removed) when nothing
    changed; `db`, `renderer` and `fonts` are only used when something did."""
    import dataclasses
    import json
    import os

    from pypdf import PdfReader, PdfWriter

    from pnp.artefacts import build as b
    from pnp.artefacts.kinds.deck import artefact as deck_artefact
    from pnp.outpaths import part_of

    target = Path(out) / CHANGED_PDF
    layout = target.with_name("changed.layout.json")
    wanted = set(found.reprint)
    if not wanted:
        target.unlink(missing_ok=True)
        layout.unlink(missing_ok=True)
        return None
    opts = opts if opts is not None else b.options_from_profile(db.print)
    fonts = fonts if fonts is not None else renderer.fonts
    writer = PdfWriter()
    pages: list[dict] = []
    by_size: dict[tuple[float, float], list] = {}     # decks in order, grouped by size
    for gid, game in db.games.items():
        for did, deck in game.decks.items():
            picked = [(card, ident) for card, ident in zip(deck.cards, deck.card_ids(),
                                                           strict=True)
                      if f"{gid}/{did}/{ident}" in wanted]   # a card's identity (`lang`)
            if picked:
                ids = tuple(ident for _, ident in picked) if deck.identities else ()
                by_size.setdefault(tuple(deck.size_mm), []).append(dataclasses.replace(
                    deck, cards=tuple(card for card, _ in picked), identities=ids))
    with tempfile.TemporaryDirectory(prefix="pnp-changed-", dir=out) as tmp:
        for decks in by_size.values():
            first = decks[0]
            names = ", ".join(f"{db.games[d.game].title}: {d.title}" for d in decks)
            art = deck_artefact(first.game, first.id, f"{names}, reprint")
            result = b.Written(art, target)
            part = Path(tmp) / f"{len(pages):05d}.pdf"
            b.draw_decks(decks, opts, renderer, fonts, part, result,
                         title=f"{art.title} (changed since {found.since})")
            writer.append(PdfReader(part))
            for page in result.layout:
                # each page names its deck; a page packed from several, each card its own
                owners = list(dict.fromkeys(card.get("deck", f"{first.game}/{first.id}")
                                            for card in page["cards"]))
                pages.append({**page, "page": len(pages) + 1,
                              **({"deck": owners[0]} if len(owners) == 1 else
                                 {"decks": owners})})
        writer.add_metadata({"/Title": f"cards changed since {found.since}"})
        part = part_of(target)          # unique: two at once never share one
        with open(part, "wb") as fh:
            writer.write(fh)
    report = {"artefacts": [{"path": CHANGED_PDF, "pages": pages}]}
    layout_part = part_of(layout)
    layout_part.write_text(json.dumps(report, separators=(",", ":")) + "\n", encoding="utf-8")
    os.replace(part, target)
    os.replace(layout_part, layout)
    return target, len(pages)
