"""`pnp watch`: rebuild (and re-proof, with --proof) whenever cards.yaml, a template or an
asset changes. Polls file sizes and modification times (no extra dependency); a burst
of saves is taken as one change once the files have been still for one interval.

Builds run in this process through the real `pnp build` command, so they are
incremental (only what changed is redrawn) and print exactly what `pnp build` prints.
A broken edit prints its one-line error and the watch goes on. ReportLab keeps a font
once a process has loaded it, so a changed font file restarts the watch (a fresh process,
whose first build is incremental: only what the font draws is redrawn).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from pnp.cli.options import project_option

Snapshot = dict[Path, tuple[int, int]]


def watched_paths(db_path: Path, db: Any | None) -> list[Path]:
    """Files and folders to watch: the database, the template folders, the project's
    assets folder, and every image and font the database names."""
    from pnp.draw.template_folders import bundled_templates, template_folders

    root = db_path.resolve().parent
    paths = [db_path.resolve(), root / "assets"]
    if db is not None:
        paths += [Path(p) for p in db.sources]      # the spreadsheets its decks read
        paths += template_folders(db)
        for game in db.games.values():
            for deck in game.decks.values():
                rels = [c.image for c in deck.cards if c.image]
                rels += [deck.back["image"]] if (deck.back or {}).get("image") else []
                paths += [root / rel for rel in rels]
        paths += [root / rel for rel in (db.print.fonts or {}).values()]
    else:
        paths += [root / "templates", bundled_templates()]
    seen: list[Path] = []
    for p in paths:
        if p not in seen:
            seen.append(p)
    return seen


def snapshot(paths: Iterable[Path]) -> Snapshot:
    """(mtime_ns, size) of every file under the given files and folders."""
    out: Snapshot = {}
    for path in paths:
        try:
            if path.is_dir():
                for f in path.rglob("*"):
                    if f.is_file() and not f.name.startswith(".") and not f.name.endswith("~"):
                        st = f.stat()
                        out[f] = (st.st_mtime_ns, st.st_size)
            elif path.is_file():
                st = path.stat()
                out[path] = (st.st_mtime_ns, st.st_size)
        except OSError:
            continue  # vanished while we looked: the next poll sees it
    return out


def changes(before: Snapshot, after: Snapshot) -> list[Path]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def describe(paths: list[Path], root: Path) -> str:
    names = []
    for p in paths:
        try:
            names.append(p.relative_to(root).as_posix())
        except ValueError:
            names.append(str(p))
    shown = ", ".join(names[:4])
    return shown + (f" (+{len(names) - 4} more)" if len(names) > 4 else "")


def run_command(args: list[str]) -> int:
    """Run a `pnp` subcommand in this process; its exit status (errors already printed
    as one line by the command)."""
    from pnp.cli.main import main

    try:
        rv = main.main(args=args, prog_name="pnp")
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return rv if isinstance(rv, int) else 0


def changed_decks(before: dict, after: dict) -> list[tuple[str, str]]:
    """(game, artefact) of the manifest entries whose hash changed in a build."""
    return sorted(tuple(key.split("/", 1)) for key, entry in after.items()
                  if before.get(key, {}).get("hash") != entry.get("hash"))


FONT_SUFFIXES = (".ttf", ".otf")


def fonts_changed(paths: list[Path]) -> list[Path]:
    """The font files among changed paths (this process cannot load them again)."""
    return [p for p in paths if p.suffix.lower() in FONT_SUFFIXES]


def watch_loop(db_path: Path, build_args: list[str], proof: bool, out: Path,
               interval: float, echo: Callable[[str], None],
               stop: Callable[[], bool] = lambda: False,
               restart: Callable[[], None] | None = None) -> None:
    """Build, then build again after every settled change; `restart()` (which does not
    return) is called instead when a font file changed."""
    import carddb
    from pnp.artefacts.incremental import Manifest
    from pnp.artefacts.names import RESERVED_DECK_IDS

    def load():
        if not db_path.is_file():
            return None  # the build says so (no cards.yaml: a folder, a FIFO, deleted)
        try:
            return carddb.load(db_path, reserved=RESERVED_DECK_IDS)
        except carddb.DatabaseError:
            return None  # the build reports it

    def cycle(reason: str) -> None:
        echo(reason)
        started = time.perf_counter()
        before = dict(Manifest(out).entries)
        code = run_command(["build", "--out", str(out), "--project", str(root), *build_args])
        took = time.perf_counter() - started
        if code != 0:
            echo(f"build failed (exit {code}) after {took:.2f} s; watching for the next change")
            return
        after = Manifest(out).entries
        rebuilt = changed_decks(before, after)
        echo(f"build done in {took:.2f} s ({len(rebuilt)} artefacts rebuilt)")
        if not proof:
            return
        db = load()
        if db is None:
            return
        decks = [(g, d) for g, d in rebuilt if g in db.games and d in db.games[g].decks]
        if not decks and (out / "proof" / "index.html").exists():
            echo("proof: nothing to re-proof")
            return
        args = ["proof", "--out", str(out / "proof"), "--project", str(root)]
        for _game, deck in decks:
            args += ["--deck", deck]
        if build_args and "--game" in build_args:
            args += ["--game", build_args[build_args.index("--game") + 1]]
        started = time.perf_counter()
        code = run_command(args)
        took = time.perf_counter() - started
        if code != 0:
            echo(f"proof failed (exit {code}) after {took:.2f} s; watching for the next change")
        else:
            echo(f"proof done in {took:.2f} s ({len(decks) or 'all'} decks)")

    root = db_path.resolve().parent
    db = load()
    paths = watched_paths(db_path, db)
    state = snapshot(paths)
    cycle(f"watching {describe(paths, root)}; first build")
    while not stop():
        time.sleep(interval)
        now = snapshot(paths)
        if now == state:
            continue
        # Let a burst of saves settle: wait until two polls agree.
        while True:
            time.sleep(interval)
            settled = snapshot(paths)
            if settled == now:
                break
            now = settled
        changed = changes(state, now)
        state = now
        if restart is not None and fonts_changed(changed):
            echo(f"changed: {describe(changed, root)}; a font changed: restarting the watch "
                 "to load it")
            restart()
        cycle(f"changed: {describe(changed, root)}")
        db = load() or db
        new_paths = watched_paths(db_path, db)
        if new_paths != paths:
            paths = new_paths
            state = snapshot(paths)


def _restart() -> None:
    """Run this same command line again in a fresh process (this one ends here)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


def _finite(value: float) -> float:
    # FloatRange lets NaN through (every comparison with it is false); sleep() refuses it.
    import math

    if not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of seconds")
    return value


@click.command("watch", context_settings={"ignore_unknown_options": True})
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder of the build (default: output in the project).")
@click.option("--proof", is_flag=True, help="Also re-proof the decks that were rebuilt.")
@click.option("--interval", type=click.FloatRange(0.05, 60), default=0.5, show_default=True,
              callback=lambda ctx, param, value: _finite(value), help="Seconds between polls.")
@project_option
@click.argument("build_args", nargs=-1, type=click.UNPROCESSED)
def watch(out, proof, interval, project, build_args) -> int:
    """Rebuild on every change to cards.yaml, the spreadsheets it reads, templates or
    assets (BUILD_ARGS go to `pnp build`, e.g. --game xo --paper a4). Stop with Ctrl-C.
    A project whose cards.yaml is missing is watched until it appears."""
    from pnp.cli.build import build
    from pnp.cli.support import announce
    from pnp.project import database_path, output

    # A mistyped option is no broken edit: no save can fix it, so it ends the watch
    # with the build's usage error (exit 2) instead of failing on every change.
    out = output(out, project, "output")
    build.make_context("pnp build", ["--out", str(out), *build_args])

    def echo(line: str) -> None:
        click.echo(f"[{time.strftime('%H:%M:%S')}] {line}")

    announce(database_path(project))    # even before it exists: the file watched for
    try:
        watch_loop(database_path(project), list(build_args), proof, out, interval, echo,
                   restart=_restart)
    except KeyboardInterrupt:
        echo("stopped watching")
    return 0
