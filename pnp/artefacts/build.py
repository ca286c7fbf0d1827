"""What `pnp build` makes and how, whatever the artefact: the artefact list of a
database (each game's, from the kind registry, pnp.artefacts.kinds), the build options
from the print profile, and the drawing of one artefact by its kind into a file that
replaces the target only when complete (or into a sink that keeps nothing, for `pnp
validate`), with its layout report. What each kind contributes and how it is drawn is
its own module's (pnp/artefacts/kinds/); the sheets they share, pnp.artefacts.sheet.

`Artefact`, `Options`, `Written` and `BuildError` are pnp.artefacts.artefact's, and
`draw_deck`, `draw_decks` and `deck_cards` the deck kind's, importable from here too.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from pnp.artefacts import kinds
from pnp.artefacts.artefact import Artefact, BuildError, Options, Progress, Written
from pnp.artefacts.guides import from_profile as guides_from_profile
from pnp.artefacts.kinds.deck import deck_cards, draw_deck, draw_decks
from pnp.layout import geometry as g
from pnp.outpaths import part_of

__all__ = ["Artefact", "BuildError", "Options", "Progress", "Written", "artefacts",
           "build_artefact", "check_artefact", "check_images", "check_output",
           "commit_staged", "deck_cards", "discard_staged", "draw_deck", "draw_decks",
           "layout_report",
           "options_from_profile", "units"]


def _pair(values: Any) -> tuple[float, float]:
    first, second = values
    return float(first), float(second)


def options_from_profile(profile: Any, *, paper: str | None = None, duplex: str | None = None,
                         back_offset_mm: tuple[float, float] | None = None,
                         fold: bool = False, backs: bool = True,
                         printer_margin_mm: float | None = None,
                         layout: str | None = None, ink_saver: bool | None = None,
                         back_scale_pct: tuple[float, float] | None = None,
                         back_rotate_deg: float | None = None,
                         contrast: bool = False, large_print: bool = False) -> Options:
    """The print profile of cards.yaml with the command-line overrides applied."""
    opts = Options(
        paper=(paper or profile.paper).lower(),
        bleed_mm=float(profile.bleed_mm),
        duplex=duplex or profile.duplex,
        back_offset_mm=tuple(back_offset_mm if back_offset_mm is not None
                             else profile.back_offset_mm),
        back_scale_pct=_pair(back_scale_pct if back_scale_pct is not None
                             else getattr(profile, "back_scale_pct", (100.0, 100.0))),
        back_rotate_deg=float(back_rotate_deg if back_rotate_deg is not None
                              else getattr(profile, "back_rotate_deg", 0.0)),
        fold=fold,
        backs=backs,
        crop_marks=bool(profile.crop_marks),
        die_label_mm=float(profile.die_label_mm),
        min_text_pt=float(getattr(profile, "min_text_pt", 6.0)),
        printer_margin_mm=float(printer_margin_mm if printer_margin_mm is not None
                                else getattr(profile, "printer_margin_mm", 5.0)),
        layout=layout if layout else getattr(profile, "layout", "auto"),
        ink_saver=bool(ink_saver if ink_saver is not None
                       else getattr(profile, "ink_saver", False)),
        guides=guides_from_profile(getattr(profile, "cut_guides", None)),
        contrast=contrast, large_print=large_print,
    )
    if opts.paper not in g.PAPERS_MM:
        raise BuildError(f"unknown paper {opts.paper!r} (choose {', '.join(g.PAPERS_MM)})", 2)
    if opts.duplex not in g.DUPLEX_MODES:
        raise BuildError(f"unknown duplex mode {opts.duplex!r} "
                         f"(choose {', '.join(g.DUPLEX_MODES)})", 2)
    if opts.fold and not opts.backs:
        raise BuildError("--fold puts each back beside its front; it cannot go with --no-backs", 2)
    if opts.layout not in g.LAYOUTS:
        raise BuildError(f"unknown layout {opts.layout!r} (choose {', '.join(g.LAYOUTS)})", 2)
    if not 0 <= opts.printer_margin_mm <= 25:
        raise BuildError(f"printer margin {opts.printer_margin_mm:g} mm must be from 0 to "
                         "25 mm", 2)
    if opts.die_label_mm <= 0:
        raise BuildError(f"print.die_label_mm must be positive, not {opts.die_label_mm}")
    return opts


# ── the artefact list ─────────────────────────────────────────────────────────────


def artefacts(db: Any, game: str | None = None, only: str | None = None) -> list[Artefact]:
    """Everything `pnp build` writes, in build order (game by game, each kind's in the
    kinds' order); filtered by game and artefact name. BuildError (exit 2) for an
    unknown game or artefact."""
    if game is not None and game not in db.games:
        raise BuildError(f"unknown game {game!r} (choose {', '.join(db.games)})", 2)
    out: list[Artefact] = []
    for gid, gm in db.games.items():
        if game is not None and gid != game:
            continue
        out += kinds.artefacts_of(gid, gm)
    if only is not None:
        chosen = [a for a in out if a.name == only]
        if not chosen:
            names = sorted({a.name for a in out})
            raise BuildError(f"unknown artefact {only!r} (choose {', '.join(names)})", 2)
        out = chosen
    return out


def units(db: Any, art: Artefact) -> int:
    """How many progress steps an artefact takes (cards, labels, tokens, pages)."""
    return kinds.kind(art.kind).units(db, art)


# ── checks before drawing ─────────────────────────────────────────────────────────


def check_images(db: Any, art: Artefact) -> None:
    """The artefact kind's checks before anything is drawn: for a deck, every image it
    uses exists inside the project folder (BuildError naming the card and the path
    otherwise)."""
    kinds.kind(art.kind).check(db, art)


def check_output(out: Path, game: str) -> Path:
    """Make `out/<game>/` and prove it is writable (BuildError exit 2 otherwise)."""
    from pnp.outpaths import OutsideOutput, inside

    try:
        folder = inside(out, game)
    except OutsideOutput as exc:
        raise BuildError(f"game {game!r}: {exc}") from None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".pnp-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise BuildError(f"cannot write to output folder {folder}: {reason}", 2) from None
    return folder


# ── results ───────────────────────────────────────────────────────────────────────


def layout_json(report: dict) -> str:
    """`json.dumps(report, separators=(",", ":"))` of a layout report, each page shown
    again (pnp.artefacts.sheet.ShownAgain) written from its kept entry's JSON, made once
    per kept entry: a resident watch writes the same ~1,800 entries of an 8,000-card
    deck after every edit, and encoding them (their trim boxes' floats) was ~4 % of its
    edit build (issue 36 item 2)."""
    artefacts = report.get("artefacts")
    if (list(report) != ["artefacts"] or type(artefacts) is not list
            or any(type(a) is not dict or list(a) != ["path", "pages"]
                   or type(a["pages"]) is not list for a in artefacts)):
        return json.dumps(report, separators=(",", ":"))
    written = [f'{{"path":{json.dumps(a["path"])},"pages":[{",".join(map(_page_json, a["pages"]))}]}}'
               for a in artefacts]
    return '{"artefacts":[' + ",".join(written) + "]}"


# id(kept entry) -> (the entry, the JSON of its keys but its first, "page")
_KEPT_JSON: dict[int, tuple[dict, str]] = {}


def _page_json(page: dict) -> str:
    kept = getattr(page, "kept", None)
    number = page.get("page")
    if (kept is None or type(number) is not int or len(page) < 2 or next(iter(page)) != "page"
            or len(kept) != len(page) or next(iter(kept)) != "page"):
        return json.dumps(page, separators=(",", ":"))
    found = _KEPT_JSON.get(id(kept))
    if found is None or found[0] is not kept:
        if len(_KEPT_JSON) > 65536:         # entries of decks long gone
            _KEPT_JSON.clear()
        found = _KEPT_JSON[id(kept)] = (kept, json.dumps(
            {k: v for k, v in kept.items() if k != "page"}, separators=(",", ":"))[1:])
    return '{"page":' + str(number) + "," + found[1]


def layout_report(out: Path, results) -> dict:
    """The layout of built artefacts: {"artefacts": [{"path", "pages": [{"page",
    "size_mm", "side" (front, back or other), "cards": [{"name", "trim_mm": [x, y, w,
    h]}]}]}]}, lengths in mm, x and y from the page's top-left corner; paths relative
    to `out`."""
    return {"artefacts": [{"path": Path(r.path).relative_to(out).as_posix(),
                           "pages": r.layout} for r in results]}


def build_artefact(db: Any, art: Artefact, opts: Options, renderer: Any, fonts: dict[str, str],
                   out: Path, progress: Progress | None = None, *, commit: bool = True) -> Written:
    """Draw one artefact to `out/<game>/<name>.pdf` and its layout report (atomically: a
    failed build leaves any earlier file in place). `commit=False` leaves the drawn files
    beside their targets (`result.staged`) for `commit_staged` or `discard_staged`, so a
    build of several artefacts replaces none of them until all are drawn and accepted."""
    check_images(db, art)
    check_output(out, art.game)
    path = art.path(out)
    part = part_of(path)                    # unique: two builds never share one
    layout = art.layout_path(out)
    layout_part = part_of(layout)
    result = Written(art, path)
    step = progress or (lambda n: None)
    try:
        kinds.kind(art.kind).draw(db, art, opts, renderer, fonts, part, result, step)
        game_checks(db, art, result)
        report = layout_report(out, [result])
        # compact: the indenting encoder is pure Python, slow on a 10,000-card deck
        layout_part.write_text(layout_json(report) + "\n", encoding="utf-8")
    except BaseException:
        part.unlink(missing_ok=True)
        layout_part.unlink(missing_ok=True)
        raise
    result.staged = [(part, path), (layout_part, layout)]
    if commit:
        commit_staged([result])
    return result


class _NullSink(io.RawIOBase):
    """A file that keeps nothing: where `check_artefact` writes its PDF (undeflated:
    pnp.draw.pdf.open_canvas reads `keeps_nothing`)."""

    keeps_nothing = True

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        return len(data)


def check_artefact(db: Any, art: Artefact, opts: Options, renderer: Any,
                   fonts: dict[str, str], progress: Progress | None = None) -> Written:
    """Everything `build_artefact` does except writing: the kind's checks run and every page
    drawn, through the same renderer and checks, into a sink that keeps nothing. Raises
    what the build would raise; the result's warnings are the build's (`pnp validate`)."""
    check_images(db, art)
    result = Written(art, Path(art.game) / f"{art.name}.pdf")
    kinds.kind(art.kind).draw(db, art, opts, renderer, fonts, _NullSink(), result,
                              progress or (lambda n: None))
    game_checks(db, art, result)
    return result


def game_checks(db: Any, art: Artefact, result: Written) -> None:
    """The checks of the artefact's game as a whole, carried by each of its artefacts (a
    build of one of them warns too; the build and validate list each warning once):
    kind colours that collapse under a colour vision deficiency (pnp.draw.vision)."""
    from pnp.draw.vision import kind_colour_warnings

    game = db.games.get(art.game)
    if game is not None:
        result.warnings.extend(kind_colour_warnings(game))


def commit_staged(results: list[Written]) -> None:
    """Put the staged files of `results` in place (each one an atomic rename)."""
    for result in results:
        for written, target in result.staged:
            os.replace(written, target)
        result.staged = []


def discard_staged(results: list[Written]) -> None:
    """Remove the staged files of `results`: their targets stay as they were."""
    for result in results:
        for written, _ in result.staged:
            written.unlink(missing_ok=True)
        result.staged = []
