"""`pnp build`: write the print-ready PDFs. Thin layer over pnp.artefacts.build."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pnp.cli.options import project_option

if TYPE_CHECKING:
    from rich.progress import Progress as Bar

    # _Reporter is a Progress (mypy checks its methods against it); at run time the build
    # module is imported only when a build starts (pnp's start-up stays light)
    from pnp.artefacts.project_build import Progress as _Progress
else:
    _Progress = object

PAPERS = ("letter", "a4")
DUPLEX = ("long-edge", "short-edge")
LAYOUTS = ("auto", "gutters", "abut")


def _offset(ctx, param, value):
    if value is None:
        return None
    from pnp.layout.geometry import parse_offset

    try:
        return parse_offset(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _scale(ctx, param, value):
    if value is None:
        return None
    from pnp.layout.geometry import parse_scale

    try:
        return parse_scale(value)
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
@click.option("--back-scale", "back_scale", callback=_scale, metavar="SX,SY",
              help="Scale the backs by SX,SY percent about the page centre (default: "
                   "print.back_scale_pct, 100,100; pnp calibrate works it out).")
@click.option("--back-rotate", "back_rotate", type=click.FloatRange(-2, 2), metavar="DEG",
              help="Turn the backs DEG degrees anticlockwise (as seen on the back) about the "
                   "page centre (default: print.back_rotate_deg, 0; pnp calibrate).")
@click.option("--printer-margin", "printer_margin", type=float, metavar="MM",
              help="The band along each paper edge your printer leaves unprinted, mm "
                   "(default: print.printer_margin_mm, 5); cards and cut guides stay inside.")
@click.option("--layout", type=click.Choice(LAYOUTS),
              help="gutters: full bleed on every card edge; abut: neighbours share cut "
                   "lines; auto (default: print.layout): gutters where they cost no card, "
                   "shared lines only between cards whose bleed matches.")
@click.option("--fold", is_flag=True, help="Fronts and backs side by side, to fold and glue.")
@click.option("--ink-saver", "ink_saver", is_flag=True, default=None,
              help="Light frames and backs for a home printer: outlines instead of solid "
                   "fills (default: print.ink_saver; templates read INK_SAVER).")
@click.option("--contrast", is_flag=True,
              help="Measure each text's contrast against what is painted behind it "
                   "(WCAG 4.5:1, 3:1 for large text) and warn below it, as pnp validate "
                   "always does (it adds about the drawing time again).")
@click.option("--large-print", "large_print", is_flag=True,
              help="Set every text as large as its box allows, up to 18 pt; report the "
                   "boxes that cannot hold 18 pt.")
@click.option("--no-backs", is_flag=True, help="Fronts only.")
@click.option("--strict", is_flag=True,
              help="Treat layout warnings (text overflow) as errors: list them all and "
                   "leave every output as it was.")
@click.option("--force", is_flag=True, help="Rebuild every artefact, even those up to date.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None, metavar="N",
              help="Draw artefacts in N worker processes, and plan the cards of a large "
                   "deck in them (default: the machine's cores; 1: in this process). The "
                   "output is the same whatever N.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the layout report (every page, every card's trim box) as one "
                   "JSON object on stdout; the table and progress go to stderr.")
@click.option("--changed-only", is_flag=True,
              help="Also write OUT/changed.pdf: only the cards added or changed since the "
                   "build before (or --since), every copy, on sheets of the deck's paper "
                   "with its cut guides, bleed and duplex backs, for a reprint.")
@click.option("--since", metavar="BUILD|GIT-REF",
              help="--changed-only: compare with this build number or git commit.")
@click.option("--lang", metavar="LANG|all",
              help="Print in this language of cards.yaml's `languages` into OUT/LANG "
                   "(all: each into its own folder); default: the first, into OUT.")
def build(game, only, paper, out, project, duplex, back_offset, printer_margin, layout, fold,
          no_backs, strict, force, as_json, changed_only, since, ink_saver, jobs,
          lang=None, back_scale=None, back_rotate=None, contrast=False,
          large_print=False) -> None:
    """Build print-ready PDFs of every deck, mat, label sheet, token sheet and reference
    card into OUT/<game>/<artefact>.pdf, each with its layout report
    OUT/<game>/<artefact>.layout.json. The first line names the cards.yaml read."""
    run(dict(game=game, only=only, paper=paper, out=out, project=project, duplex=duplex,
             back_offset=back_offset, printer_margin=printer_margin, layout=layout, fold=fold,
             no_backs=no_backs, strict=strict, force=force, as_json=as_json,
             changed_only=changed_only, since=since, ink_saver=ink_saver, jobs=jobs,
             back_scale=back_scale, back_rotate=back_rotate, lang=lang, contrast=contrast,
             large_print=large_print))


def run(params: dict):
    """What `pnp build` does with its parsed options (`pnp watch` parses BUILD_ARGS with
    this command and calls this): pnp.artefacts.project_build.build_project, its
    progress, warnings and table printed, then --changed-only's reprint. Returns the
    BuildReport (with `--lang all`: the last language's)."""
    if params["since"] is not None and not params["changed_only"]:
        raise click.UsageError("--since goes with --changed-only (or use pnp diff --since)")
    if params["as_json"] and params["changed_only"]:
        raise click.UsageError("--changed-only prints its own summary: run it without --json")
    if params.get("lang") != "all":
        return _run_one(params, params.get("lang"))
    from pnp.artefacts.project_build import languages_of

    reports = {}
    for code in languages_of(params["project"]):      # one output folder per language
        reports[code] = _run_one(params, code, quiet_json=True)
    if params["as_json"]:
        import json

        click.echo(json.dumps({"languages": {c: r.layout() for c, r in reports.items()}}))
    return reports[code]


def _run_one(params: dict, lang: str | None, quiet_json: bool = False):
    """One language's build (`lang`: None, the default into OUT)."""
    from pnp.artefacts.project_build import BuildOptions, output_folder

    options = BuildOptions(
        out=params["out"], game=params["game"], only=params["only"], paper=params["paper"],
        duplex=params["duplex"], back_offset_mm=params["back_offset"], fold=params["fold"],
        backs=not params["no_backs"], printer_margin_mm=params["printer_margin"],
        layout=params["layout"], ink_saver=params["ink_saver"], strict=params["strict"],
        force=params["force"], jobs=params.get("jobs"), lang=lang,
        back_scale_pct=params.get("back_scale"), back_rotate_deg=params.get("back_rotate"),
        contrast=bool(params.get("contrast")), large_print=bool(params.get("large_print")))
    project = params["project"]
    out = output_folder(project, options)
    quiet = params["as_json"]
    report = _build(project, options, out, quiet)
    if quiet:
        if not quiet_json:
            import json

            # (a failure prints {"ok": false, "error", "exit_code"} instead: OneLineGroup)
            click.echo(json.dumps(report.layout()))
    elif params["changed_only"]:
        _write_changed(out, project, params["since"], options.overrides(), lang)
    return report


def _build(project, options, out: Path, quiet: bool):
    """build_project with what it reports printed: `quiet` (--json) sends the human
    output to stderr."""
    from pnp.artefacts.project_build import build_project
    from pnp.cli.support import one_line_errors

    say = (lambda line: click.echo(line, err=True)) if quiet else click.echo
    with one_line_errors(out):
        report = build_project(project, options, _Reporter(say, err=quiet))
    if report.nothing_to_do:
        say(f"nothing to do: {len(report.results)} artefacts up to date (--force rebuilds)")
    _table(report.results, quiet)
    return report


def _write_changed(out: Path, project: Path | None, since: str | None,
                   overrides: dict, lang: str | None = None) -> None:
    """--changed-only: OUT/changed.pdf with the cards changed since `since`, on sheets
    of the deck's paper as the build prints them (`overrides`: the build's options)."""
    from pnp.cli.support import font_notice, load, one_line_errors
    from pnp.exports.diff import changes, write_changed

    found = changes(out, project, since, notify=font_notice)
    written = None
    if found.reprint:
        from pnp.artefacts import build as b
        from pnp.artefacts.project_build import in_language
        from pnp.draw.fonts import register_fonts
        from pnp.draw.render import CardRenderer

        db = in_language(load(project), lang)      # the cards as this language printed them
        with one_line_errors(out):
            opts = b.options_from_profile(db.print, **overrides)
            fonts = register_fonts(db.print.fonts, db.root, notify=font_notice)
            renderer = CardRenderer(db, fonts, ink_saver=opts.ink_saver)
            written = write_changed(out, found, db, renderer, opts, fonts)
    else:
        write_changed(out, found, None, None)        # removes an older changed.pdf
    if written is None:
        click.echo(f"changed-only: no card changed since {found.since}")
        return
    target, pages = written
    n = len(found.reprint)
    click.echo(f"changed-only: {target} ({n} card{'' if n == 1 else 's'}, {pages} pages; "
               f"since {found.since})")


class _Reporter(_Progress):
    """What a build reports (pnp.artefacts.project_build.Progress), shown: a rich
    progress bar on a terminal, plain lines otherwise; warnings and notices on stderr."""

    def __init__(self, say=click.echo, err: bool = False):
        self.say = say
        self.err = err
        self.tty = sys.stderr.isatty()
        self.progress: Bar | None = None

    def reading(self, path: Path) -> None:
        from pnp.cli.support import announce

        announce(path, err=self.err)

    def begin(self, total: int) -> None:
        if self.tty:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                     MofNCompleteColumn(), transient=True,
                                     console=Console(stderr=True))
            self.progress.start()
            self.task = self.progress.add_task("building", total=total)

    def end(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

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

    def notice(self, line: str) -> None:
        self._stderr(f"notice: {line}")

    def warning(self, warning) -> None:
        from pnp.cli.support import warning_line

        self._stderr(warning_line(warning))

    def _stderr(self, line: str) -> None:
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
