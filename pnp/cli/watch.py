"""`pnp watch`: rebuild (and re-proof, with --proof) whenever cards.yaml, a template or an
asset changes. Listens to file-system events (watchfiles: inotify, FSEvents, ...; no
polling, so an edit starts a build as soon as it settles); a burst of saves is taken
as one change once no event has come for one interval.

Builds run in this process through the library call of `pnp build`
(pnp.artefacts.project_build.build_project, with BUILD_ARGS parsed by the `build`
command), so they are incremental (only what changed is redrawn) and print exactly what
`pnp build` prints. A broken edit prints its one-line error and the watch goes on.
ReportLab keeps a font once a process has loaded it, so a changed font file restarts
the watch (a fresh process, whose first build is incremental: only what the font draws
is redrawn).
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

SETTLE_S = 0.05    # the default --interval: a save's burst of events is over by then


def watched_paths(db_path: Path, db: Any | None) -> list[Path]:
    """Files and folders to watch: the database, the template folders, the project's
    assets folder, and every image, own icon (`icons:`) and font the database names."""
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
        from pnp.artefacts.incremental import icon_paths

        paths += [p for gid in db.games for p in icon_paths(db, gid)]
        paths += [root / rel for rel in (db.print.fonts or {}).values()]
    else:
        paths += [root / "templates", bundled_templates()]
    seen: list[Path] = []
    for p in paths:
        p = p.resolve()
        if p not in seen:
            seen.append(p)
    return seen


def watch_roots(paths: Iterable[Path]) -> list[Path]:
    """The existing folders whose events cover `paths`: a folder itself, else the
    nearest existing folder above the file (a file or folder not made yet included),
    none inside another."""
    found: set[Path] = set()
    for path in paths:
        folder = path if path.is_dir() else path.parent
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        found.add(folder)
    return sorted(f for f in found if not any(o in f.parents for o in found))


def relevant(events: Iterable[tuple[Any, str]], paths: list[Path]) -> list[Path]:
    """The changed files of a batch of (change, path) events that a build reads: one of
    `paths` or inside one of them (the build's own output, editor backups `x~` and
    hidden files are not)."""
    out: set[Path] = set()
    for _, name in events:
        changed = Path(name)
        if changed.name.startswith(".") or changed.name.endswith("~"):
            continue
        changed = changed.resolve()
        if any(changed == p or p in changed.parents for p in paths):
            out.add(changed)
    return sorted(out)


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


FONT_SUFFIXES = (".ttf", ".otf")


def fonts_changed(paths: list[Path]) -> list[Path]:
    """The font files among changed paths (this process cannot load them again)."""
    return [p for p in paths if p.suffix.lower() in FONT_SUFFIXES]


def build_once(build_args: list[str], out: Path, root: Path) -> tuple[int, Any]:
    """One `pnp build` with BUILD_ARGS in this process: (exit status, BuildReport or
    None); a failure is printed as one line, as `pnp build` prints it."""
    from pnp.cli.build import build, run
    from pnp.errors import PnpError, fail

    try:
        ctx = build.make_context("pnp build", ["--out", str(out), "--project", str(root),
                                               *build_args])
        return 0, run(ctx.params)
    except (click.ClickException, PnpError) as exc:     # (PnpError: no click exception)
        fail(exc.format_message(), exc.exit_code, [])      # one line, as `pnp build` says it
        return exc.exit_code, None


class _Events:
    """The watchfiles events of `roots`, from a thread started before the build it
    follows: an edit saved while a build runs (or just after it) is not missed."""

    def __init__(self, roots: list[Path], settle_ms: int):
        import queue
        import threading

        self.roots = roots
        self.queue: queue.Queue = queue.Queue()
        self.stopped = threading.Event()
        threading.Thread(target=self._listen, args=(settle_ms,), daemon=True).start()

    def _listen(self, settle_ms: int) -> None:
        import watchfiles

        try:
            # step: a burst of saves is one batch once no event came for `settle_ms`
            for batch in watchfiles.watch(*self.roots, watch_filter=None, step=settle_ms,
                                          debounce=max(1600, 4 * settle_ms),
                                          stop_event=self.stopped, rust_timeout=500,
                                          raise_interrupt=False):
                self.queue.put(batch)
        except Exception as exc:  # a folder that cannot be watched: the loop says so
            self.queue.put(exc)

    def next(self, timeout: float):
        """The next batch of (change, path) events, or None after `timeout` seconds."""
        import queue

        try:
            batch = self.queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(batch, Exception):
            raise batch
        return batch

    def close(self) -> None:
        self.stopped.set()


def live_proof(db_path: Path, live: Any, serve: Any, echo: Callable[[str], None]) -> None:
    """`--serve`: proof the faces whose inputs changed (pnp.exports.live_proof) and tell
    the open gallery which PNGs to swap, or the save's one-line error."""
    import carddb
    from pnp.artefacts.kinds import reserved_deck_ids
    from pnp.cli.support import make_renderer, one_line_errors
    from pnp.errors import PnpError, one_line

    started = time.perf_counter()
    first = not live.digests
    try:
        from pnp.exports.staging import staged

        db = carddb.load(db_path, reserved=reserved_deck_ids())
        with one_line_errors(), staged(live.out):  # as `pnp proof` writes: whole files
            changed = live.update(db, make_renderer(db))
    except carddb.DatabaseError as exc:
        problems = getattr(exc, "problems", None) or [exc]
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        serve.publish([], error=one_line(str(problems[0])) + more)
        return
    except PnpError as exc:
        serve.publish([], error=one_line(exc.format_message()))
        return
    serve.publish(changed, reload=live.index_changed and not first)
    echo(f"proof: {len(changed)} faces in {time.perf_counter() - started:.2f} s; "
         f"the gallery is told")


def watch_loop(db_path: Path, build_args: list[str], proof: bool, out: Path,
               interval: float, echo: Callable[[str], None],
               stop: Callable[[], bool] = lambda: False,
               restart: Callable[[], None] | None = None, serve: Any = None) -> None:
    """Build, then build again after every settled change (file events, settled for
    `interval` seconds); `restart()` (which does not return) is called instead when a
    font file changed. `serve` (a pnp.exports.gallery_server.GalleryServer): before each
    build, the changed faces are proofed into its folder and the gallery told (the
    `proof` step is then that)."""
    live = None
    if serve is not None:
        from pnp.exports.live_proof import LiveProof

        live = LiveProof(serve.gallery.out)
        proof = False

    def load():
        return _load(db_path)

    def cycle(reason: str) -> None:
        echo(reason)
        if live is not None:
            live_proof(db_path, live, serve, echo)
        started = time.perf_counter()
        code, report = _paused_gc(build_once, build_args, out, root)
        took = time.perf_counter() - started
        if code != 0:
            echo(f"build failed (exit {code}) after {took:.2f} s; watching for the next change")
            return
        rebuilt = [(a.game, a.name) for a in report.built]
        echo(f"build done in {took:.2f} s ({len(rebuilt)} artefacts rebuilt)")
        if proof:
            _proof_rebuilt(rebuilt, load(), build_args, out, root, echo)

    from pnp.artefacts import incremental, kept_sheets

    kept_sheets.hold()      # resident: each build shows the sheets the last one kept
    incremental.hold()      # ... and hashes only the cards that changed anew
    root = db_path.resolve().parent
    db = load()
    paths = watched_paths(db_path, db)
    settle = max(1, round(interval * 1000))
    events = _Events(watch_roots(paths), settle)
    try:
        cycle(f"watching {describe(paths, root)}; first build")
        while not stop():
            batch = events.next(timeout=0.2)
            changed = relevant(batch or (), paths)
            if not changed:
                continue
            if restart is not None and fonts_changed(changed):
                echo(f"changed: {describe(changed, root)}; a font changed: restarting the "
                     "watch to load it")
                events.close()
                restart()
            cycle(f"changed: {describe(changed, root)}")
            db = load() or db
            paths = watched_paths(db_path, db)
            if watch_roots(paths) != events.roots:      # watch the new folders too
                before, events = events, _Events(watch_roots(paths), settle)
                before.close()
    finally:
        events.close()


def _paused_gc(call: Callable[..., Any], *args: Any) -> Any:
    """`call(*args)` without the cyclic garbage collector: a build allocates far more
    than it frees, and a resident watch holds a big heap (the database, kept sheets) that
    each collection of the oldest generation would walk again."""
    import gc

    collecting = gc.isenabled()
    gc.disable()
    try:
        return call(*args)
    finally:
        if collecting:
            gc.enable()


def _load(db_path: Path) -> Any:
    """The database as it is now, or None (the build reports why)."""
    import carddb
    from pnp.artefacts.kinds import reserved_deck_ids

    if not db_path.is_file():
        return None  # the build says so (no cards.yaml: a folder, a FIFO, deleted)
    try:
        return carddb.load(db_path, reserved=reserved_deck_ids())
    except carddb.DatabaseError:
        return None  # the build reports it


def _proof_rebuilt(rebuilt: list, db: Any, build_args: list[str], out: Path, root: Path,
                   echo: Callable[[str], None]) -> None:
    """`pnp proof` of the decks just rebuilt (all of them the first time)."""
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
@click.option("--interval", type=click.FloatRange(0.01, 60), default=None,
              callback=lambda ctx, param, value: None if value is None else _finite(value),
              help="Seconds without a file event after which a burst of saves is one change "
                   "[default: 0.05: an editor's save is one burst of a few ms].")
@click.option("--serve", is_flag=True,
              help="Serve the proof gallery on 127.0.0.1 with live updates: after each save "
                   "only the changed cards are proofed and the open page swaps their images.")
@click.option("--port", type=click.IntRange(0, 65535), default=8050, show_default=True,
              help="The gallery's port with --serve (0: any free one).")
@project_option
@click.argument("build_args", nargs=-1, type=click.UNPROCESSED)
def watch(out, proof, interval, serve, port, project, build_args) -> int:
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
    server = None
    if serve:
        from pnp.errors import PnpError
        from pnp.exports.gallery_server import GalleryServer

        try:
            server = GalleryServer(out / "proof", "127.0.0.1", port)
        except OSError as exc:
            raise PnpError(f"--port {port}: cannot serve there ({exc.strerror})",
                           exit_code=2) from None
        (out / "proof").mkdir(parents=True, exist_ok=True)
        echo(f"serving the proof gallery: {server.url} (Ctrl-C stops)")
    if interval is None:    # an editor's save is one burst of a few ms (issue 36)
        interval = SETTLE_S
    try:
        watch_loop(database_path(project), list(build_args), proof, out, interval, echo,
                   restart=_restart, serve=server)
    except KeyboardInterrupt:
        echo("stopped watching")
    finally:
        if server is not None:
            server.close()
    return 0
