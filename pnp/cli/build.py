"""`pnp build`: write the print-ready PDFs. Thin layer over pnp.artefacts.build."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pnp.cli.options import project_option

PAPERS = ("letter", "a4")
DUPLEX = ("long-edge", "short-edge")
LAYOUTS = ("auto", "gutters", "abut")


def _Stop(message: str, code: int):
    """A one-line failure (printed by the pnp group as `pnp: message`)."""
    from pnp.errors import PnpError

    return PnpError(message, exit_code=code)


def _offset(ctx, param, value):
    if value is None:
        return None
    from pnp.layout.geometry import parse_offset

    try:
        return parse_offset(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("build")
@click.option("--game", help="Only this game (x-statix, xo).")
@click.option("--only", "only", metavar="ARTEFACT",
              help="Only this artefact, e.g. common, statuses, mats, mats-tiled, dice-labels, "
                   "tokens, reference, calibration.")
@click.option("--paper", type=click.Choice(PAPERS, case_sensitive=False),
              help="Paper size (default: print.paper in cards.yaml).")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: output in the project).")
@project_option
@click.option("--duplex", type=click.Choice(DUPLEX),
              help="How the printer turns the sheet (default: print.duplex).")
@click.option("--back-offset", callback=_offset, metavar="X,Y",
              help="Shift the backs by X,Y mm to correct the printer (default: "
                   "print.back_offset_mm; measure it with the calibration page).")
@click.option("--printer-margin", "printer_margin", type=float, metavar="MM",
              help="The band along each paper edge your printer leaves unprinted, mm "
                   "(default: print.printer_margin_mm, 5); cards and cut guides stay inside.")
@click.option("--layout", type=click.Choice(LAYOUTS),
              help="gutters: full bleed on every card edge; abut: neighbours share cut "
                   "lines; auto (default: print.layout): gutters where they cost no card, "
                   "shared lines only between cards whose bleed matches.")
@click.option("--fold", is_flag=True, help="Fronts and backs side by side, to fold and glue.")
@click.option("--no-backs", is_flag=True, help="Fronts only.")
@click.option("--strict", is_flag=True, help="Treat layout warnings (text overflow) as errors.")
@click.option("--force", is_flag=True, help="Rebuild every artefact, even those up to date.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the layout report (every page, every card's trim box) as one "
                   "JSON object on stdout; the table and progress go to stderr.")
@click.option("--changed-only", is_flag=True,
              help="Also write OUT/changed.pdf: only the cards added or changed since the "
                   "build before (or --since), each copy with its back, for a reprint.")
@click.option("--since", metavar="BUILD|GIT-REF",
              help="--changed-only: compare with this build number or git commit.")
def build(game, only, paper, out, project, duplex, back_offset, printer_margin, layout, fold,
          no_backs, strict, force, as_json, changed_only, since) -> None:
    """Build print-ready PDFs of every deck, mat, label sheet, token sheet and reference
    card into OUT/<game>/<artefact>.pdf, each with its layout report
    OUT/<game>/<artefact>.layout.json. The first line names the cards.yaml read."""
    from pnp.project import output

    if since is not None and not changed_only:
        raise click.UsageError("--since goes with --changed-only (or use pnp diff --since)")
    if as_json and changed_only:
        raise click.UsageError("--changed-only prints its own summary: run it without --json")
    out = output(out, project, "output")
    if not as_json:
        _run(game, only, paper, out, duplex, back_offset, fold, no_backs, strict, force,
             project, printer_margin, layout)
        if changed_only:
            _write_changed(out, project, since)
        return
    import json

    # (a failure prints {"ok": false, "error", "exit_code"} instead: pnp.errors.OneLineGroup)
    report = _run(game, only, paper, out, duplex, back_offset, fold, no_backs, strict,
                  force, project, printer_margin, layout, quiet=True)
    click.echo(json.dumps(report))


def _write_changed(out: Path, project: Path | None, since: str | None) -> None:
    """--changed-only: OUT/changed.pdf with the cards changed since `since`."""
    from pnp.cli.support import font_notice, load, make_renderer
    from pnp.exports.diff import changes, write_changed

    found = changes(out, project, since, notify=font_notice)
    db = load(project) if found.reprint else None
    written = write_changed(out, found, db, make_renderer(db) if db is not None else None)
    if written is None:
        click.echo(f"changed-only: no card changed since {found.since}")
        return
    target, pages = written
    click.echo(f"changed-only: {target} ({len(found.reprint)} cards, {pages} pages; "
               f"since {found.since})")


def _load_database(path: Path):
    import carddb
    from pnp.artefacts.names import RESERVED_DECK_IDS

    try:
        return carddb.load(path, reserved=RESERVED_DECK_IDS)
    except carddb.DatabaseError as exc:
        raise _Stop(_with_card_name(str(exc), path), 1) from None


def _with_card_name(message: str, path: Path) -> str:
    """Add the card's name to a problem located at `games.G.decks.D.cards[N]`, so a
    missing image names its card; the message is left as it is if that cannot be done."""
    import re

    import yaml

    found = re.search(r"games\.([\w-]+)\.decks\.([\w-]+)\.cards\[(\d+)\]", message)
    if not found:
        return message
    game, deck, index = found.group(1), found.group(2), int(found.group(3))
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        name = data["games"][game]["decks"][deck]["cards"][index]["name"]
    except Exception:  # a broken file is already being reported; keep that report
        return message
    return f"{message} (card {name!r})"


def _run(game, only, paper, out, duplex, back_offset, fold, no_backs, strict,
         force=False, project=None, printer_margin=None, layout=None, quiet=False) -> dict:
    """Build. `quiet` (--json): the human output goes to stderr and the layout report
    is returned."""
    from pnp.artefacts import incremental
    from pnp.cli.support import announce
    from pnp.project import require_database

    db_path = require_database(project)
    announce(db_path, err=quiet)
    from pnp.artefacts import drawn
    from pnp.draw.stamp import stamp

    args = {"game": game, "only": only, "paper": paper, "duplex": duplex,
            "back_offset": back_offset, "fold": fold, "no_backs": no_backs}
    if printer_margin is not None or layout is not None:  # keys of earlier runs stay valid
        args.update(printer_margin=printer_margin, layout=layout)
    say = (lambda line: click.echo(line, err=True)) if quiet else click.echo
    # Without a build record (pnp.artefacts.drawn) the cards must be drawn once to record them; a
    # new git commit may change the version stamp.
    quick = None if force or not drawn.recorded(out, db_path.parent) else (
        incremental.unchanged_build(out, db_path, args))
    if quick is not None:
        seen: set[tuple] = set()
        for result in quick:
            say(f"up to date: {result.path}")
            _warn_once(result, seen, strict, lambda line: click.echo(line, err=True))
        say(f"nothing to do: {len(quick)} artefacts up to date (--force rebuilds)")
        _table(quick, quiet)
        return _report(out, quick) if quiet else {}

    from pnp.artefacts import build as b
    from pnp.cli.support import one_line_errors
    from pnp.draw.fonts import register_fonts

    db = _load_database(db_path)
    with one_line_errors():
        opts = b.options_from_profile(db.print, paper=paper, duplex=duplex,
                                      back_offset_mm=back_offset, fold=fold,
                                      backs=not no_backs, printer_margin_mm=printer_margin,
                                      layout=layout)
        todo = b.artefacts(db, game=game, only=only)

    plan = incremental.Plan(db, opts, out, force)
    seen: set[tuple] = set()
    written = []
    renderer = fonts = recorder = None
    previous = drawn.latest(out)
    built_cards: dict[str, dict] = {}
    with _Reporter(sum(b.units(db, a) for a in todo), say) as report, one_line_errors(out):
        try:
            for art in todo:
                result = plan.up_to_date(art)
                if result is not None and art.deck and not drawn.has_deck(
                        previous, db, art.game, art.deck):
                    result = None               # draw it once to record its cards
                if result is not None:
                    report.skip(result.path, b.units(db, art))
                else:
                    if renderer is None:
                        fonts = register_fonts(db.print.fonts, db.root, notify=lambda line:
                                               report.warn(f"notice: {line}"))
                        renderer = _renderer(db, fonts)
                        recorder = drawn.Recorder(db, renderer)
                    report.start(art, art.path(out))
                    result = b.build_artefact(db, art, opts, renderer, fonts, out,
                                              report.advance)
                    plan.built(art, result)
                    if art.deck:
                        built_cards.update(
                            drawn.deck_entries(db, recorder, art.game, art.deck) or {})
                _warn_once(result, seen, strict, report.warn)
                written.append(result)
            plan.finished(args, db, db_path, todo)
            drawn.save_record(out, drawn.next_record(db, previous, built_cards,
                                                     stamp(db)), db)
        finally:
            plan.save()
    _table(written, quiet)
    return _report(out, written) if quiet else {}


def _report(out: Path, results) -> dict:
    """The layout report of a build: recorded pages of the artefacts built now, the
    layout files of those up to date (which the up-to-date checks require to exist)."""
    entries = []
    for r in results:
        pages = getattr(r, "layout", None) or _layout_beside(Path(r.path))
        entries.append({"path": Path(r.path).relative_to(out).as_posix(), "pages": pages or []})
    return {"artefacts": entries}


def _layout_beside(pdf: Path) -> list | None:
    import json

    from pnp.artefacts import incremental

    try:
        data = json.loads(incremental.layout_file(pdf).read_text(encoding="utf-8"))
        return list(data["artefacts"][0]["pages"])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def _renderer(db, fonts):
    """The card renderer, wrapped in the layout checks (pnp.draw.checks)."""
    from pnp.draw.checks import CheckedRenderer
    from pnp.draw.render import CardRenderer

    return CheckedRenderer(CardRenderer(db, fonts))


def _warn_once(result, seen: set, strict: bool, warn) -> None:
    """Print each new warning of an artefact once; with --strict the first one stops the
    build (and removes the artefact, so the next build redoes it)."""
    from pnp.cli.support import warning_key, warning_line, warning_text

    fresh = []
    for w in result.warnings:
        key = warning_key(w)
        if key not in seen:
            seen.add(key)
            fresh.append(w)
    if fresh and strict:
        result.path.unlink(missing_ok=True)
        more = f" (and {len(fresh) - 1} more)" if len(fresh) > 1 else ""
        raise _Stop(f"{warning_text(fresh[0])}{more} [--strict]", 1)
    for w in fresh:
        warn(warning_line(w))


class _Reporter:
    """A rich progress bar on a terminal; plain lines otherwise."""

    def __init__(self, total: int, say=click.echo):
        self.total = total
        self.say = say
        self.tty = sys.stderr.isatty()
        self.progress = None

    def __enter__(self):
        if self.tty:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                     MofNCompleteColumn(), transient=True,
                                     console=Console(stderr=True))
            self.progress.start()
            self.task = self.progress.add_task("building", total=self.total)
        return self

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.stop()
        return False

    def start(self, art, path: Path) -> None:
        if self.progress is not None:
            self.progress.update(self.task, description=f"{art.game}/{art.name}")
        else:
            self.say(f"building {path}")

    def skip(self, path: Path, units: int) -> None:
        if self.progress is not None:
            self.progress.console.print(f"up to date: {path}", markup=False, highlight=False)
            self.progress.advance(self.task, units)
        else:
            self.say(f"up to date: {path}")

    def advance(self, n: int) -> None:
        if self.progress is not None:
            self.progress.advance(self.task, n)

    def warn(self, line: str) -> None:
        if self.progress is not None:
            self.progress.console.print(line, markup=False, highlight=False)
        else:
            click.echo(line, err=True)


def _table(written, to_stderr: bool = False) -> None:
    rows = [(str(w.path), str(w.pages), str(w.cards)) for w in written]
    if to_stderr:
        width = max([len("file")] + [len(r[0]) for r in rows])
        click.echo(f"{'file':<{width}}  {'pages':>5}  {'cards':>5}", err=True)
        for f, p, c in rows:
            click.echo(f"{f:<{width}}  {p:>5}  {c:>5}", err=True)
        return
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Column, Table

        table = Table("file", Column("pages", justify="right"), Column("cards", justify="right"))
        for row in rows:
            table.add_row(*row)
        Console().print(table)
        return
    width = max([len("file")] + [len(r[0]) for r in rows])
    click.echo(f"{'file':<{width}}  {'pages':>5}  {'cards':>5}")
    for f, p, c in rows:
        click.echo(f"{f:<{width}}  {p:>5}  {c:>5}")
