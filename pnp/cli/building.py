"""What `pnp build` does with its parsed options, free of click (issue 36): the click
command (pnp.cli.build) and `pnp build`'s own reading of a plain command line
(pnp.cli.entry, pnp.cli.build_options) both call `run`. Thin layer over
pnp.artefacts.project_build."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pnp.errors import echo

if TYPE_CHECKING:
    from rich.progress import Progress as Bar

    # _Reporter is a Progress (mypy checks its methods against it); at run time the build
    # module is imported only when a build starts (pnp's start-up stays light)
    from pnp.artefacts.project_build import Progress as _Progress
else:
    _Progress = object


def run(params: dict):
    """What `pnp build` does with its parsed options (`pnp watch` parses BUILD_ARGS with
    this command and calls this): pnp.artefacts.project_build.build_project, its
    progress, warnings and table printed, then --changed-only's reprint. Returns the
    BuildReport (with `--lang all`: the last language's)."""
    if params["since"] is not None and not params["changed_only"]:
        _usage("--since goes with --changed-only (or use pnp diff --since)")
    if params["as_json"] and params["changed_only"]:
        _usage("--changed-only prints its own summary: run it without --json")
    if params.get("lang") != "all":
        return _run_one(params, params.get("lang"))
    from pnp.artefacts.project_build import languages_of

    reports = {}
    for code in languages_of(params["project"]):      # one output folder per language
        reports[code] = _run_one(params, code, quiet_json=True)
    if params["as_json"]:
        import json

        echo(json.dumps({"languages": {c: r.layout() for c, r in reports.items()}}))
    return reports[code]


def _usage(message: str) -> None:
    """click's usage error (these pairs reach `run` only through click: pnp.cli.entry
    leaves them to it, pnp watch parses its build options with it)."""
    import click

    raise click.UsageError(message)


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
            echo(json.dumps(report.layout()))
    elif params["changed_only"]:
        _write_changed(out, project, params["since"], options.overrides(), lang)
    return report


def _build(project, options, out: Path, quiet: bool):
    """build_project with what it reports printed: `quiet` (--json) sends the human
    output to stderr."""
    from pnp.artefacts.project_build import build_project
    from pnp.cli.support import one_line_errors

    say = (lambda line: echo(line, err=True)) if quiet else echo
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
        echo(f"changed-only: no card changed since {found.since}")
        return
    target, pages = written
    n = len(found.reprint)
    echo(f"changed-only: {target} ({n} card{'' if n == 1 else 's'}, {pages} pages; "
               f"since {found.since})")


class _Reporter(_Progress):
    """What a build reports (pnp.artefacts.project_build.Progress), shown: a rich
    progress bar on a terminal, plain lines otherwise; warnings and notices on stderr."""

    def __init__(self, say=echo, err: bool = False):
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
            echo(line, err=True)


def _table(written, to_stderr: bool = False) -> None:
    rows = [(str(w.path), str(w.pages), str(w.cards)) for w in written]
    if to_stderr:
        width = max([len("file")] + [len(r[0]) for r in rows])
        echo(f"{'file':<{width}}  {'pages':>5}  {'cards':>5}", err=True)
        for f, p, c in rows:
            echo(f"{f:<{width}}  {p:>5}  {c:>5}", err=True)
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
    echo(f"{'file':<{width}}  {'pages':>5}  {'cards':>5}")
    for f, p, c in rows:
        echo(f"{f:<{width}}  {p:>5}  {c:>5}")
