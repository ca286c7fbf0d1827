"""What the commands share: reading the project's database (saying which), the real
renderer with its fonts, the chosen card faces, and turning a failure into one line
(pnp.errors.PnpError)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pnp.errors import PnpError, echo
from pnp.project import require_database


def announce(path: Path, err: bool = False) -> None:
    """The first line of every command that reads a database: which cards.yaml it is
    (on stderr for a command printing JSON, err=True, so that stdout stays one object)."""
    echo(f"reading {path.resolve()}", err=err)


def load(project: Path | None, path: Path | None = None):
    """The validated database of the project (or at PATH), or a one-line error naming the
    first problem."""
    import carddb
    from pnp.artefacts.kinds import reserved_deck_ids

    path = require_database(project, path)
    announce(path)
    try:
        return carddb.load(path, reserved=reserved_deck_ids())
    except carddb.DatabaseError as exc:
        raise PnpError(str(exc)) from None


def make_renderer(db: Any) -> Any:
    """The card renderer of `pnp build` with the database's fonts registered (a notice on
    stderr for each font role filled from another)."""
    from pnp.draw.render import card_renderer

    return card_renderer(db, notify=font_notice)


def font_notice(line: str) -> None:
    """A font role print.fonts leaves out, and what draws it instead (pnp.draw.fonts)."""
    echo(f"notice: {line}", err=True)


def faces(db: Any, game: str | None, decks, cards, backs: bool = True) -> list:
    from pnp.artefacts.single import select_faces

    try:
        chosen = select_faces(db, game, decks, cards, backs)
    except ValueError as exc:
        raise PnpError(str(exc), exit_code=2) from None
    if not chosen:
        raise PnpError("nothing selected: no card matches the options", exit_code=2)
    return chosen


def render_errors() -> tuple[type[BaseException], ...]:
    """What drawing raises for a broken template, card, font or output path."""
    import jinja2

    from pnp.artefacts.build import BuildError
    from pnp.draw.art import ArtError
    from pnp.draw.render import RenderError
    from pnp.draw.templates import TemplateError
    from pnp.draw.ttf import FontError
    from pnp.outpaths import OutsideOutput

    return (RenderError, TemplateError, FontError, BuildError, OutsideOutput, ArtError,
            jinja2.TemplateError)


def first_line(exc: BaseException) -> str:
    """An exception as one line; a Jinja syntax error or missing template with where."""
    if type(exc).__module__.startswith("jinja2"):
        import jinja2

        if isinstance(exc, jinja2.TemplateSyntaxError):
            where = exc.filename or exc.name or "template"
            return f"{where}:{exc.lineno}: template syntax error: {exc.message}"
        if isinstance(exc, jinja2.TemplateNotFound):
            return f"template not found: {exc.name}"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


@contextmanager
def one_line_errors(where: Path | None = None) -> Iterator[None]:
    """Renderer, font and file-system failures become one-line PnpErrors (a file
    system error names its file, else `where`)."""
    try:
        yield
    except PnpError:
        raise
    except Exception as exc:
        if isinstance(exc, render_errors()):     # before OSError: TemplateNotFound is one
            code = getattr(exc, "exit_code", 1)
            raise PnpError(first_line(exc), exit_code=code if isinstance(code, int) else 1
                           ) from None
        if isinstance(exc, OSError):
            place = exc.filename or where
            at = f" {place}" if place else ""
            raise PnpError(f"cannot write{at}: {exc.strerror or exc}", exit_code=2) from None
        raise


def warning_text(w: Any) -> str:
    """A layout warning as `game/deck: card: element: message` (control characters
    escaped)."""
    from pnp.errors import one_line

    where = "/".join(str(p) for p in (getattr(w, "game", None), getattr(w, "deck", None)) if p)
    return one_line(f"{where}: {getattr(w, 'card', None)!s}: {getattr(w, 'element', None)}: "
                    f"{getattr(w, 'message', w)}")


def warning_line(w: Any) -> str:
    return f"warning: {warning_text(w)}"


def warning_key(w: Any) -> tuple:
    """One line per problem of a card's element (pnp.artefacts.project_build's key)."""
    from pnp.artefacts.project_build import warning_key as key

    return key(w)


def echo_warnings_once(warnings: list) -> None:
    """An export's warnings on stderr, each problem once (a card drawn for several files
    warns once)."""
    seen: set = set()
    for w in warnings:
        key = warning_key(w)
        if key not in seen:
            seen.add(key)
            echo(warning_line(w), err=True)
