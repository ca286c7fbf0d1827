"""What the commands share: reading the project's database (saying which), the real
renderer with its fonts, the chosen card faces, and turning a failure into one line
(pnp.errors.PnpError)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from pnp.errors import PnpError
from pnp.project import require_database


def announce(path: Path, err: bool = False) -> None:
    """The first line of every command that reads a database: which cards.yaml it is
    (on stderr for a command printing JSON, err=True, so that stdout stays one object)."""
    click.echo(f"reading {path.resolve()}", err=err)


def load(project: Path | None, path: Path | None = None):
    """The validated database of the project (or at PATH), or a one-line error naming the
    first problem."""
    import carddb

    path = require_database(project, path)
    announce(path)
    try:
        return carddb.load(path)
    except carddb.DatabaseError as exc:
        raise PnpError(str(exc)) from None


def make_renderer(db: Any) -> Any:
    """The card renderer of `pnp build` with the database's fonts registered (a notice on
    stderr for each font role filled from another)."""
    from pnp.draw.render import card_renderer

    return card_renderer(db, notify=font_notice)


def font_notice(line: str) -> None:
    """A font role print.fonts leaves out, and what draws it instead (pnp.draw.fonts)."""
    click.echo(f"notice: {line}", err=True)


def faces(db: Any, game: str | None, decks, cards, backs: bool = True) -> list:
    from pnp.artefacts.single import select_faces

    try:
        chosen = select_faces(db, game, decks, cards, backs)
    except ValueError as exc:
        raise PnpError(str(exc), exit_code=2) from None
    if not chosen:
        raise PnpError("nothing selected: no card matches the options", exit_code=2)
    return chosen


def _render_errors() -> tuple[type[BaseException], ...]:
    kinds: list[type[BaseException]] = []
    for module, name in (("pnp.draw.render", "RenderError"), ("pnp.draw.fonts", "FontError"),
                         ("pnp.artefacts.build", "BuildError"), ("jinja2", "TemplateError"),
                         ("pnp.outpaths", "OutsideOutput")):
        try:
            mod = __import__(module, fromlist=[name])
        except ImportError:
            continue
        kind = getattr(mod, name, None)
        if isinstance(kind, type):
            kinds.append(kind)
    return tuple(kinds)


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Renderer, font and file-system failures become one-line PnpErrors."""
    kinds = _render_errors()
    try:
        yield
    except PnpError:
        raise
    except kinds as exc:
        code = getattr(exc, "exit_code", 1)
        raise PnpError(one_line(exc), exit_code=code if isinstance(code, int) else 1) from None
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise PnpError(f"cannot write{where}: {exc.strerror or exc}", exit_code=2) from None


def warning_line(w: Any) -> str:
    from pnp.errors import one_line

    return one_line(f"warning: {w.game}/{w.deck}: {w.card}: {w.element}: {w.message}")


def echo_warnings_once(warnings: list) -> None:
    """An export's warnings on stderr, one line for each card element (a card drawn for
    several files warns once)."""
    seen: set = set()
    for w in warnings:
        key = (w.game, w.deck, w.card, w.element)
        if key not in seen:
            seen.add(key)
            click.echo(warning_line(w), err=True)
