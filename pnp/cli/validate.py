"""`pnp validate`: everything `pnp build` would refuse or warn about, with nothing written.

First the database (carddb: every problem, located `FILE:LINE:COL`), then every artefact
the build would write is drawn through the build's own renderer and layout checks into a
sink that keeps nothing (`pnp.artefacts.build.check_artefact`), so that the two cannot
disagree: template syntax errors and misspelt fields (with the nearest declared field),
card types without a template, dice or tokens without theirs, art that is missing, not
an image, too small or needlessly large, text that does not fit, characters no font
has, text without enough contrast against what is behind it (measured on each face:
`pnp build` measures it only with --contrast) and kind colours that collapse for
colour-blind players (docs/CARDS.md, Accessibility). Refusals are one line each on stderr (exit 1); warnings are listed in full.
"""

from __future__ import annotations

from pathlib import Path

import click

from pnp.cli.options import DATABASE_ARG, project_option


@click.command()
@DATABASE_ARG
@project_option
@click.option("--game", help="Only this game's artefacts (the database is checked whole).")
@click.option("--strict", is_flag=True, help="Warnings count as problems (as pnp build "
                                             "--strict refuses them): exit 1.")
def validate(path: Path | None, project: Path | None, game: str | None, strict: bool) -> int:
    """Check PATH (default: the project's cards.yaml) against the schema, the card types
    its games declare and their rules, then draw everything `pnp build` would (writing
    nothing) and report what the build would refuse or warn about.

    Prints every problem as one located line; exits 1 when the build would refuse."""
    import carddb
    from pnp.artefacts.kinds import reserved_deck_ids
    from pnp.cli.support import announce, font_notice
    from pnp.draw.art import listen as listen_art
    from pnp.project import require_database

    if path is None:                # an explicit PATH is carddb's to read (or refuse)
        path = require_database(project)
    if path.is_file():
        announce(path)
    try:
        db = carddb.load(path, reserved=reserved_deck_ids())
    except carddb.DatabaseError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        return _count(len(exc.problems))
    listen_art(font_notice)     # art far above print resolution: embedded at 300 dpi, told once
    try:
        problems, warnings = _languages(db, game)
    finally:
        listen_art(None)        # the caller's process is left as it was
    for line in problems:
        click.echo(line, err=True)
    for line in warnings:
        click.echo(f"warning: {line}", err=True)
    if problems or (strict and warnings):
        return _count(len(problems) + (len(warnings) if strict else 0),
                      "" if problems else " [--strict]")
    cards = sum(len(g.cards()) for g in db.games.values())
    decks = sum(len(g.decks) for g in db.games.values())
    said = f"; {len(warnings)} warning{'s' if len(warnings) != 1 else ''}" if warnings else ""
    click.echo(f"{carddb.display_name(db.path)}: valid ({len(db.games)} games, {decks} "
               f"decks, {cards} card designs){said}")
    return 0


def _count(n: int, why: str = "") -> int:
    click.echo(f"{n} problem{'s' if n != 1 else ''} found{why}", err=True)
    return 1


def _languages(db, game: str | None) -> tuple[list[str], list[str]]:
    """`_drawn` in each language cards.yaml declares (carddb.languages), after the
    translations missing: the default language's problems and warnings as they are, each
    other language's warnings that the default has not (by card identity), marked
    `[LANG]` (German text that overflows is German's alone), and its refusals when the
    default has none. A database without languages is drawn once, as it is."""
    from carddb import languages
    from pnp.draw.contrast import Backgrounds

    codes = languages.codes_of(db)
    backgrounds = Backgrounds()     # a face's frame is rasterised once, not per language
    refused, warnings = _drawn(db, game, backgrounds)
    said = [text for text, _ in warnings]
    if not codes:
        return refused, said
    said = [str(m) for m in db.languages.missing] + said
    seen = {key for _, key in warnings}
    for code in codes[1:]:
        found, warned = _drawn(languages.localised(db, code), game, backgrounds)
        if not refused:
            refused += [f"[{code}] {line}" for line in found]
        said += [f"[{code}] {text}" for text, key in warned if key not in seen]
    return refused, said


def _identity(db):
    """A warning's key with its card named by identity (the default-language name)."""
    from pnp.cli.support import warning_key

    names = {(gid, did, card.name): ident for gid, g in db.games.items()
             for did, deck in g.decks.items() if deck.identities
             for card, ident in zip(deck.cards, deck.identities, strict=True)}

    def key(w) -> tuple:
        game, deck, card = (getattr(w, k, None) for k in ("game", "deck", "card"))
        found = warning_key(w)
        return (found[0], found[1], names.get((game, deck, card), card), *found[3:])

    return key


def _drawn(db, game: str | None, backgrounds=None) -> tuple[list[str], list[tuple[str, tuple]]]:
    """(refusals, warnings) of drawing every artefact as `pnp build` does, each line
    once (a broken back template refuses every deck with the same line); each warning
    with its key, its card named by identity (carddb.languages)."""
    from pnp.artefacts import build as b
    from pnp.cli.support import first_line, font_notice, render_errors
    from pnp.draw.checks import CheckedRenderer
    from pnp.draw.fonts import register_fonts
    from pnp.draw.render import CardRenderer
    from pnp.errors import PnpError

    problems: list[str] = []
    try:
        fonts = register_fonts(db.print.fonts, db.root, notify=font_notice)
        opts = b.options_from_profile(db.print)
        todo = b.artefacts(db, game=game)
    except render_errors() as exc:
        if getattr(exc, "exit_code", 1) == 2:           # --game names no game: usage
            raise PnpError(first_line(exc), exit_code=2) from None
        return [first_line(exc)], []
    plain = CardRenderer(db, fonts)
    plain.check_contrast = True     # text contrast, measured (pnp.draw.contrast)
    plain.contrast_backgrounds = backgrounds
    renderer = CheckedRenderer(plain)
    warnings = _checked(db, todo, opts, renderer, fonts, problems)
    return problems, warnings


def _checked(db, todo: list, opts, renderer, fonts, problems: list[str]) -> list[tuple[str, tuple]]:
    """The warnings of drawing each artefact, each once; a refusal's line added to
    `problems` (once)."""
    from pnp.artefacts import build as b
    from pnp.cli.support import first_line, render_errors, warning_text

    warnings: list[tuple[str, tuple]] = []
    seen: set = set()
    identity_key = _identity(db)
    refused: tuple[type[BaseException], ...] = (*render_errors(), OSError)
    for art in todo:
        try:
            result = b.check_artefact(db, art, opts, renderer, fonts)
        except refused as exc:
            line = first_line(exc)
            if line not in problems:
                problems.append(line)
            continue
        for w in result.warnings:
            key = identity_key(w)
            if key not in seen:
                seen.add(key)
                warnings.append((warning_text(w), key))
    return warnings
