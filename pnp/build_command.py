"""`pnp build`: write the print-ready PDFs. Thin layer over pnp.build."""

from __future__ import annotations

import sys
from pathlib import Path

import click

PAPERS = ("letter", "a4")
DUPLEX = ("long-edge", "short-edge")


def _Stop(message: str, code: int):
    """A one-line failure (printed by the pnp group as `pnp: message`)."""
    from pnp.errors import PnpError

    return PnpError(message, exit_code=code)


def _offset(ctx, param, value):
    if value is None:
        return None
    from pnp.geometry import parse_offset

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
              default=Path("output"), show_default=True, help="Output folder.")
@click.option("--duplex", type=click.Choice(DUPLEX),
              help="How the printer turns the sheet (default: print.duplex).")
@click.option("--back-offset", callback=_offset, metavar="X,Y",
              help="Shift the backs by X,Y mm to correct the printer (default: "
                   "print.back_offset_mm; measure it with the calibration page).")
@click.option("--fold", is_flag=True, help="Fronts and backs side by side, to fold and glue.")
@click.option("--no-backs", is_flag=True, help="Fronts only.")
@click.option("--strict", is_flag=True, help="Treat layout warnings (text overflow) as errors.")
def build(game, only, paper, out, duplex, back_offset, fold, no_backs, strict) -> None:
    """Build print-ready PDFs of every deck, mat, label sheet, token sheet and reference
    card into OUT/<game>/<artefact>.pdf."""
    _run(game, only, paper, out, duplex, back_offset, fold, no_backs, strict)


def _load_database():
    import carddb

    try:
        return carddb.load()
    except carddb.DatabaseError as exc:
        raise _Stop(str(exc), 1) from None


def _renderer_errors() -> tuple[type[BaseException], ...]:
    """Exception types the renderer raises for a broken template or a bad card."""
    import jinja2

    kinds: list[type[BaseException]] = [jinja2.TemplateError]
    try:
        import pnp.render as render
    except ImportError:
        return tuple(kinds)
    for name in ("RenderError", "TemplateError", "LookError", "MarkupError"):
        kind = getattr(render, name, None)
        if isinstance(kind, type) and issubclass(kind, BaseException):
            kinds.append(kind)
    return tuple(kinds)


def _one_line(exc: BaseException) -> str:
    import jinja2

    if isinstance(exc, jinja2.TemplateSyntaxError):
        where = exc.filename or exc.name or "template"
        return f"{where}:{exc.lineno}: template syntax error: {exc.message}"
    if isinstance(exc, jinja2.TemplateNotFound):
        return f"template not found: {exc.name}"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _warning_line(w) -> str:
    parts = [getattr(w, k, None) for k in ("game", "deck", "card", "element")]
    game, deck, card, element = parts
    where = "/".join(str(p) for p in (game, deck) if p)
    return f"{where}: {card!s}: {element}: {getattr(w, 'message', w)}"


def _warning_key(w) -> tuple:
    return tuple(getattr(w, k, None) for k in ("game", "deck", "card", "element")) or (str(w),)


def _run(game, only, paper, out, duplex, back_offset, fold, no_backs, strict) -> None:
    from pnp import build as b
    from pnp.fonts import FontError, register_fonts

    db = _load_database()
    try:
        opts = b.options_from_profile(db.print, paper=paper, duplex=duplex,
                                      back_offset_mm=back_offset, fold=fold,
                                      backs=not no_backs)
        todo = b.artefacts(db, game=game, only=only)
        fonts = register_fonts(db.print.fonts, db.root)
    except b.BuildError as exc:
        raise _Stop(str(exc), exc.exit_code) from None
    except FontError as exc:
        raise _Stop(str(exc), 1) from None

    try:
        from pnp.render import CardRenderer
    except ImportError as exc:
        raise _Stop(f"the card renderer is not available: {exc}", 1) from None

    render_errors = _renderer_errors()
    seen: set[tuple] = set()
    written = []
    with _Reporter(sum(b.units(db, a) for a in todo)) as report:
        try:
            renderer = CardRenderer(db, fonts)
            for art in todo:
                report.start(art, art.path(out))
                result = b.build_artefact(db, art, opts, renderer, fonts, out, report.advance)
                fresh = []
                for w in result.warnings:
                    key = _warning_key(w)
                    if key not in seen:
                        seen.add(key)
                        fresh.append(w)
                if fresh and strict:
                    result.path.unlink(missing_ok=True)
                    more = f" (and {len(fresh) - 1} more)" if len(fresh) > 1 else ""
                    raise _Stop(f"{_warning_line(fresh[0])}{more} [--strict]", 1)
                for w in fresh:
                    report.warn(f"warning: {_warning_line(w)}")
                written.append(result)
        except b.BuildError as exc:
            raise _Stop(str(exc), exc.exit_code) from None
        except FontError as exc:
            raise _Stop(str(exc), 1) from None
        except render_errors as exc:
            raise _Stop(_one_line(exc), 1) from None
        except OSError as exc:
            where = exc.filename or out
            raise _Stop(f"cannot write {where}: {exc.strerror or exc}", 2) from None
    _table(written)


class _Reporter:
    """A rich progress bar on a terminal; plain lines otherwise."""

    def __init__(self, total: int):
        self.total = total
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
            click.echo(f"building {path}")

    def advance(self, n: int) -> None:
        if self.progress is not None:
            self.progress.advance(self.task, n)

    def warn(self, line: str) -> None:
        if self.progress is not None:
            self.progress.console.print(line, markup=False, highlight=False)
        else:
            click.echo(line, err=True)


def _table(written) -> None:
    rows = [(str(w.path), str(w.pages), str(w.cards)) for w in written]
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
