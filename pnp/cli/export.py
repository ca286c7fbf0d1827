"""`pnp export`: the click command over pnp.exports. Its targets are the modules of
pnp.exports.targets (png, pdf-single, tts, cut, tabletopia and any registered one), each
mounted with the options it declares; `--profile NAME` writes a print shop's files
instead of a target."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from pnp.cli.options import lang_option, project_option, selection_options
from pnp.cli.support import (
    echo_warnings_once,
    font_notice,
    load,
    make_renderer,
    one_line_errors,
)
from pnp.cli.support import faces as choose_faces
from pnp.exports.cards import Exported
from pnp.exports.staging import staged
from pnp.project import output


def target_options() -> dict[str, tuple[Any, list[str]]]:
    """Every target's options by `dest`: (the Option, the targets declaring it). Two
    targets may share an option only if they declare it alike."""
    from pnp.exports.targets import registry

    found: dict[str, tuple[Any, list[str]]] = {}
    for name, target in registry().items():
        for opt in target.options:
            if opt.dest in _SHARED:
                raise ValueError(f"export target {name}: option {opt.flags} clashes with "
                                 f"the shared option of pnp export")
            if opt.dest in found:
                first, owners = found[opt.dest]
                if (first.flags, first.kind, first.default, first.limits) != (
                        opt.flags, opt.kind, opt.default, opt.limits):
                    raise ValueError(f"export targets {owners[0]} and {name} declare "
                                     f"{opt.flags} differently")
                owners.append(name)
            else:
                found[opt.dest] = (opt, [name])
    return found


def _click_option(opt: Any, owners: list[str]) -> click.Option:
    text = f"{', '.join(owners)}: {opt.help}"
    decls = [opt.flags, opt.dest]
    if opt.kind == "flag":
        if "/" in opt.flags:
            return click.Option(decls, default=opt.default, show_default=True, help=text)
        return click.Option(decls, is_flag=True, default=bool(opt.default), help=text)
    kind: type | click.ParamType = {"str": str, "float": float, "int": int}[opt.kind]
    if opt.kind == "int" and opt.limits is not None:
        kind = click.IntRange(*opt.limits)
    return click.Option(decls, type=kind, default=opt.default, metavar=opt.metavar,
                        show_default=opt.default is not None, help=text)


class ExportCommand(click.Command):
    """`pnp export`, its TARGET choice and options read from the target registry when
    the command line is parsed or its help written (so a registered target is mounted
    too)."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        from pnp.exports.targets import registry

        target = click.Argument(["target"], type=click.Choice(list(registry())),
                                metavar="[TARGET]", required=False)
        extra = [_click_option(opt, owners) for opt, owners in target_options().values()]
        *own, help_option = super().get_params(ctx)
        return [target, *own, *extra, help_option]

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from pnp.exports.targets import registry

        super().format_help_text(ctx, formatter)
        with formatter.section("Targets"):
            formatter.write_dl([(n, t.summary) for n, t in registry().items()])


_SHARED = {"target", "game", "decks", "cards", "out", "project", "profile", "lang"}


@click.command("export", cls=ExportCommand)
@selection_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: output/export/TARGET in the project).")
@project_option
@click.option("--profile", metavar="NAME",
              help="Write what a print shop asks for instead of a TARGET: a profile of "
                   "cards.yaml or a preset (tgc, mpc, dtc); see pnp/exports/profiles.py.")
@lang_option
def export(target, game, decks, cards, out, project, profile, lang, **options) -> int:
    """Export card faces to TARGET (below, each with its options), or --profile NAME (a
    print shop's files)."""
    from pnp.exports.targets import Job, registry

    targets = registry()
    if (target is None) == (profile is None):
        raise click.UsageError(f"give a TARGET ({', '.join(targets)}) or --profile NAME")
    _refuse_options_of_other_targets(target, options)
    from pnp.artefacts.project_build import in_language, language_folder

    db = in_language(load(project), lang)
    if profile is not None:
        return _with_profile(db, profile, game, decks, cards, out, project)
    chosen = targets[target]
    out = language_folder(output(out, project, Path("output") / "export" / target), lang)
    job = Job(db, out, game, decks, cards, choose=choose_faces, make_renderer=make_renderer,
              notify=font_notice, report=click.echo)
    with one_line_errors(), staged(out, notify=font_notice):  # as pnp build: whole or not
        result = chosen.write(job, **{opt.dest: options[opt.dest] for opt in chosen.options})
    return _finish(target, result, out)


def _refuse_options_of_other_targets(target: str | None, options: dict[str, Any]) -> None:
    ctx = click.get_current_context()
    for dest, (opt, owners) in target_options().items():
        if target in owners or ctx.get_parameter_source(dest) is not ParameterSource.COMMANDLINE:
            continue
        which = " and ".join(owners)
        raise click.UsageError(f"{opt.flags} goes with the {which} target"
                               f"{'s' if len(owners) > 1 else ''}")


def _finish(target: str, result: Exported, out: Path) -> int:
    echo_warnings_once(result.warnings)
    click.echo(f"{target}: wrote {len(result.files)} files to {out}")
    return 0


def _with_profile(db: Any, name: str, game, decks, cards, out, project) -> int:
    """`pnp export --profile NAME`: OUT defaults to output/export/NAME in the project."""
    from pnp.artefacts.project_build import language_folder
    from pnp.exports.profiles import export_profile, profile

    prof = profile(db, name)
    chosen = choose_faces(db, game, decks, cards, backs=True)
    out = language_folder(output(out, project, Path("output") / "export" / name),
                          getattr(db, "language", None))
    with one_line_errors(), staged(out, notify=font_notice):
        result = export_profile(db, chosen, make_renderer(db), out, prof)
    echo_warnings_once(result.warnings)
    if prof.note:
        click.echo(f"note: {prof.note}", err=True)
    kind = (f" (CMYK PDF/X-1a, total ink <= {prof.ink_limit:g} %)" if prof.colour == "cmyk"
            else "")
    click.echo(f"{prof.title} ({prof.name}): wrote {len(result.files)} files{kind} to {out}")
    return 0
