"""The build as a library call: `build_project(project, options, progress) -> BuildReport`.

What `pnp build` and `pnp watch` do, without click: read the project's cards.yaml, skip
what is up to date (pnp.artefacts.incremental), draw the rest (pnp.artefacts.build),
record what was drawn (pnp.artefacts.drawn). Nothing is printed: the caller's
`progress` hears of each step, notice and warning.

    from pnp.artefacts.project_build import BuildOptions, build_project

    report = build_project(Path("my-game"), BuildOptions(paper="a4", strict=True))
    for result in report.results:
        print(result.path, result.pages, result.cards)

A build is all or nothing: every artefact drawn now is written beside its file and put
in place only when the whole build succeeded, so a refusal (`strict` with warnings:
`StrictRefusal`) or any error leaves OUT as it was. Errors are `PnpError` (a missing or
invalid cards.yaml, --strict), `BuildError`, and what drawing raises (RenderError,
TemplateError, FontError, OSError...; `pnp.cli.support.one_line_errors` makes each one
line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnp.artefacts.renderers import checked_renderer, plan_store
from pnp.artefacts.workers import job_count, pool_size  # noqa: F401 (job_count: the tests')
from pnp.errors import PnpError


@dataclass(frozen=True)
class BuildOptions:
    """What `pnp build` takes; None = the `print:` section of cards.yaml decides."""

    out: Path | None = None              # default: output/ in the project
    game: str | None = None
    only: str | None = None              # one artefact (common, mats, tokens, ...)
    paper: str | None = None
    duplex: str | None = None
    back_offset_mm: tuple[float, float] | None = None
    back_scale_pct: tuple[float, float] | None = None
    back_rotate_deg: float | None = None
    fold: bool = False
    backs: bool = True
    printer_margin_mm: float | None = None
    layout: str | None = None
    ink_saver: bool | None = None
    contrast: bool = False               # measure text contrast (pnp.draw.contrast)
    large_print: bool = False            # text as large as each box allows
    strict: bool = False                 # warnings refuse the build (StrictRefusal)
    force: bool = False                  # redraw everything (and read no cached plan)
    jobs: int | None = None              # worker processes (None: the machine's cores;
                                         # 1: in this process); the output is the same
    lang: str | None = None              # a declared language: printed into OUT/<lang>
                                         # (carddb.languages); None: the default, into OUT

    def run_args(self) -> dict[str, Any]:
        """The options as the manifest keys a run by (pnp.artefacts.incremental): the
        keys of earlier versions stay valid, so an upgrade alone redoes nothing."""
        args: dict[str, Any] = {
            "game": self.game, "only": self.only, "paper": self.paper,
            "duplex": self.duplex, "back_offset": self.back_offset_mm, "fold": self.fold,
            "no_backs": not self.backs}
        if self.printer_margin_mm is not None or self.layout is not None:
            args.update(printer_margin=self.printer_margin_mm, layout=self.layout)
        if self.ink_saver:
            args.update(ink_saver=True)
        if self.back_scale_pct is not None or self.back_rotate_deg is not None:
            args.update(back_scale=self.back_scale_pct, back_rotate=self.back_rotate_deg)
        if self.lang is not None:
            args.update(lang=self.lang)
        if self.contrast:
            args.update(contrast=True)
        if self.large_print:
            args.update(large_print=True)
        from pnp.artefacts.kinds import registered

        if registered():    # a kind from elsewhere adds artefacts: not the run without it
            args.update(kinds=list(registered()))
        from pnp.draw import elements

        if elements.registered():  # an element from elsewhere draws: not the run without it
            args.update(elements=list(elements.registered()))
        return args

    def overrides(self) -> dict[str, Any]:
        """Keyword arguments of `pnp.artefacts.build.options_from_profile`."""
        return {"paper": self.paper, "duplex": self.duplex,
                "back_offset_mm": self.back_offset_mm, "fold": self.fold,
                "backs": self.backs, "printer_margin_mm": self.printer_margin_mm,
                "layout": self.layout, "ink_saver": self.ink_saver,
                "back_scale_pct": self.back_scale_pct, "back_rotate_deg": self.back_rotate_deg,
                "contrast": self.contrast, "large_print": self.large_print}


class Progress:
    """What a build reports as it goes. This base class ignores everything; a caller
    overrides what it shows (the CLI: a progress bar or plain lines)."""

    def reading(self, path: Path) -> None:
        """The cards.yaml the build reads (before anything else)."""

    def begin(self, total: int) -> None:
        """Drawing starts: `total` steps (cards, labels, tokens, pages) in all."""

    def start(self, art: Any, path: Path) -> None:
        """An artefact is being drawn to `path`."""

    def skip(self, path: Path, units: int) -> None:
        """An artefact is up to date."""

    def advance(self, n: int) -> None:
        """`n` more steps are drawn."""

    def notice(self, line: str) -> None:
        """A notice (a font role filled from another)."""

    def warning(self, warning: Any) -> None:
        """A layout warning (`pnp.draw.layout_warning.LayoutWarning`), each problem once."""

    def end(self) -> None:
        """Drawing is over (also after a failure)."""


class StrictRefusal(PnpError):
    """`strict` and the build warned: nothing was written. `.warnings` lists them all."""

    def __init__(self, warnings: list[Any], out: Path):
        n = len(warnings)
        what = "a warning" if n == 1 else f"{n} warnings"
        super().__init__(f"{what} above with --strict: nothing written, {out} is as it "
                         "was [--strict]", exit_code=1)
        self.warnings = warnings


@dataclass
class BuildReport:
    """What one `pnp build` did: the results per artefact, those drawn now, the warnings."""
    out: Path
    db_path: Path
    results: list[Any]                   # Written (drawn or up to date) per artefact
    built: list[Any] = field(default_factory=list)     # the Artefacts drawn now
    warnings: list[Any] = field(default_factory=list)  # each problem once
    nothing_to_do: bool = False          # every file was up to date, nothing loaded

    def layout(self) -> dict:
        """The layout report of the build (`pnp build --json`): recorded pages of the
        artefacts built now, the layout files of those up to date."""
        entries = []
        for r in self.results:
            pages = getattr(r, "layout", None) or _layout_beside(Path(r.path))
            entries.append({"path": Path(r.path).relative_to(self.out).as_posix(),
                            "pages": pages or []})
        return {"artefacts": entries}


def _layout_beside(pdf: Path) -> list | None:
    from pnp.artefacts import incremental

    try:
        data = json.loads(incremental.layout_file(pdf).read_text(encoding="utf-8"))
        return list(data["artefacts"][0]["pages"])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def output_folder(project: Path | None, options: BuildOptions) -> Path:
    """OUT: --out or the project's output/; a language's build goes into OUT/<lang>."""
    from pnp.project import output

    return language_folder(output(options.out, project, "output"), options.lang)


def language_folder(out: Path, lang: str | None) -> Path:
    """Where a language's files go: OUT/<lang> (the default language without --lang:
    OUT itself). A name that is no language code is refused (exit 2), never a path."""
    if lang is None:
        return out
    from carddb.languages import CODE

    if lang != "all" and not CODE.match(lang):
        raise PnpError(f"--lang {lang}: not a language code (en, de, pt-BR...)", exit_code=2)
    return out / lang


def languages_of(project: Path | None) -> list[str]:
    """Every language the project's cards.yaml declares (`--lang all`); a PnpError (exit
    2) when it declares none."""
    from carddb import languages
    from pnp.project import require_database

    try:
        return languages.chosen(load_database(require_database(project)), "all")
    except ValueError as exc:
        raise PnpError(str(exc), exit_code=2) from None


def untranslated(db: Any, options: BuildOptions) -> list[Any]:
    """The texts of a build in a language (`--lang de`) that have no translation into
    it, each a warning (printed in the default language; `strict` refuses them, as pnp
    validate --strict does). The games and artefacts not built are left out."""
    lang = getattr(db, "language", None)
    langs = getattr(db, "languages", None)
    if lang is None or langs is None or lang == langs.default:
        return []
    from pnp.draw.layout_warning import LayoutWarning

    decks = {(a.game, a.deck) for a in _chosen(db, options)}
    return [LayoutWarning(m.game, m.deck or "(game)", m.card or "-", m.path.rsplit(".", 1)[-1],
                          f"no '{lang}' translation: printed in '{langs.default}' ({m.where})")
            for m in langs.missing
            if m.lang == lang and options.game in (None, m.game) and (
                options.only is None or (m.game, m.deck) in decks)]


def _chosen(db: Any, options: BuildOptions) -> list[Any]:
    from pnp.artefacts import build as b

    return [a for a in b.artefacts(db, game=options.game, only=options.only) if a.deck]


def in_language(db: Any, lang: str | None) -> Any:
    """The database as printed in `lang` (carddb.languages.localised); `db` itself when
    no language is named. A language it does not declare: PnpError, exit 2."""
    if lang is None:
        return db
    from carddb import languages

    try:
        languages.chosen(db, lang)
    except ValueError as exc:
        raise PnpError(str(exc), exit_code=2) from None
    return languages.localised(db, lang)


def build_project(project: Path | None, options: BuildOptions | None = None,
                  progress: Progress | None = None) -> BuildReport:
    """Build the project's artefacts into `options.out` (see the module's docstring).
    One build at a time writes to one OUT: a second waits for the lock of the first
    (pnp.outpaths.lock_output), or refuses in one line after its wait."""
    from pnp.artefacts import drawn, incremental
    from pnp.project import require_database

    options = options or BuildOptions()
    progress = progress or Progress()
    out = output_folder(project, options)
    db_path = require_database(project)
    progress.reading(db_path)
    args = options.run_args()
    # Without a build record (pnp.artefacts.drawn) the cards must be drawn once to record
    # them; a new git commit may change the version stamp.
    quick = None if options.force or not drawn.recorded(out, db_path.parent) else (
        incremental.unchanged_build(out, db_path, args))
    warnings = _Warnings(progress)
    if quick is not None:
        for result in quick:
            progress.skip(result.path, 0)
            warnings.add(result)
        if options.lang is not None:
            warnings.extend(untranslated(in_language(load_database(db_path), options.lang),
                                         options))
        if options.strict and warnings.all:
            raise StrictRefusal(warnings.all, out)
        return BuildReport(out, db_path, list(quick), [], warnings.all, nothing_to_do=True)

    from pnp.artefacts import build as b
    from pnp.artefacts import kept_sheets
    from pnp.outpaths import lock_output

    db = in_language(load_database(db_path), options.lang)
    opts = b.options_from_profile(db.print, **options.overrides())
    todo = b.artefacts(db, game=options.game, only=options.only)
    if opts.ink_saver:
        _ink_saver_notices(db, todo, bool(options.ink_saver), progress)
    warnings.extend(untranslated(db, options))
    # taken once the database is known good: a refused database makes no OUT
    release = lock_output(out, notify=progress.notice)
    try:
        # the decks' kept sheets written once the PDFs are in place (under the lock)
        with kept_sheets.saved_later():
            return _draw_and_record(db, db_path, opts, options, todo, out, args, progress,
                                    warnings)
    finally:
        release()


def _ink_saver_notices(db: Any, todo: list, flag: bool, progress: Progress) -> None:
    """A notice for each game the ink saver cannot lighten: none of its templates reads
    INK_SAVER, so the build draws exactly what it draws without it (issue 33)."""
    from pnp.draw.template_folders import reads_variable

    asked = "--ink-saver" if flag else "print.ink_saver"
    for game in dict.fromkeys(art.game for art in todo):
        if not reads_variable(db, game, "INK_SAVER"):
            progress.notice(f"{asked} changes nothing for {game}: none of its templates "
                            f"(templates/{game}/) reads INK_SAVER (templates/README.md)")


@dataclass(frozen=True)
class _InProcess:
    """What drawing in one process (the build's own or a worker) needs: fonts, plan
    store, renderer and the recorder of the faces it plans."""
    fonts: dict[str, str]
    store: Any
    renderer: Any
    recorder: Any

    def draw(self, db: Any, art: Any, opts: Any, out: Path, advance: Any) -> tuple[Any, Any]:
        """`art` drawn beside its target (commit=False), and its deck's card entries."""
        from pnp.artefacts import build as b
        from pnp.artefacts import drawn

        result = b.build_artefact(db, art, opts, self.renderer, self.fonts, out, advance,
                                  commit=False)
        entries = (drawn.deck_entries(db, self.recorder, art.game, art.deck)
                   if art.deck else None)
        return result, entries


def _in_process(db: Any, opts: Any, force: bool, notify: Any = None,
                stamp: dict[str, str] | None = None) -> _InProcess:
    """`stamp`: the version stamp, when the build has it (`_DrawnHere`)."""
    from pnp.artefacts import drawn
    from pnp.artefacts.deck_planning import Planned
    from pnp.draw.fonts import register_fonts

    fonts = register_fonts(db.print.fonts, db.root, notify=notify)
    store = Planned(plan_store(db, force))     # a large deck's plans may come from workers
    renderer = checked_renderer(db, fonts, opts.ink_saver, store, opts, stamp)
    return _InProcess(fonts, store, renderer, drawn.Recorder(db, renderer))


def _draw_and_record(db: Any, db_path: Path, opts: Any, options: BuildOptions, todo: list,
                     out: Path, args: dict, progress: Progress,
                     warnings: _Warnings) -> BuildReport:
    """The locked part of `build_project`: draw what changed, then record the build."""
    from pnp.artefacts import build as b
    from pnp.artefacts import deck_planning, drawn, incremental
    from pnp.draw.art import listen as listen_art
    from pnp.draw.fonts import register_fonts

    plan = incremental.Plan(db, opts, out, options.force)
    written: list[Any] = []
    staged: list[Any] = []        # drawn now, put in place only when the whole build succeeds
    previous = drawn.latest(out)
    built_cards: dict[str, dict] = {}
    progress.begin(sum(b.units(db, a) for a in todo))
    ready = _up_to_date(plan, db, todo, previous)
    # A large deck is drawn here first, its cards planned by workers, before the workers
    # drawing the other artefacts start (nothing is forked beside their pool's thread).
    large = [art for art, result in zip(todo, ready, strict=True) if result is None
             and deck_planning.worth_it(db, art, options.jobs, options.force)]
    to_draw = [art for art, result in zip(todo, ready, strict=True) if result is None
               and art not in large]
    jobs = _pool_jobs(db, options.jobs, to_draw)
    pool = None
    here = _DrawnHere(db, opts, options, out, progress, plan.hasher.template_files)
    try:
        listen_art(progress.notice)         # art downsampled for print is told (workers too)
        early = _draw_first(large, here, out, progress, staged)
        if jobs:
            register_fonts(db.print.fonts, db.root, notify=progress.notice)
            pool = _Pool(db, opts, out, options.force, jobs, by_cost(db, to_draw))
        for art, result in zip(todo, ready, strict=True):
            if result is not None:
                progress.skip(result.path, b.units(db, art))
            else:
                result, entries = early.get(id(art)) or _drawn_now(art, pool, here, db, out,
                                                                    progress, staged)
                if art.deck:
                    built_cards.update(entries or {})
            warnings.add(result)
            written.append(result)
        if options.strict and warnings.all:
            raise StrictRefusal(warnings.all, out)
        b.commit_staged(staged)
    except BaseException:
        if pool is not None:
            for result in pool.close():   # drawn by a worker, not yet taken
                b.discard_staged([result])
        b.discard_staged(staged)          # a refused build changes nothing in OUT
        raise
    finally:
        listen_art(None)                    # the caller's process is left as it was
        if pool is not None:
            pool.close()
        progress.end()
    _record_build(db, db_path, opts, options, out, args, todo, plan, staged, previous, built_cards)
    if here.made is not None:
        here.made.store.save()
    return BuildReport(out, db_path, written, [r.artefact for r in staged], warnings.all)


def _draw_first(large: list, here: _DrawnHere, out: Path, progress: Progress,
                staged: list) -> dict[int, tuple[Any, Any]]:
    """The large decks drawn before anything else (by id of artefact)."""
    return {id(art): _drawn_now(art, None, here, here.db, out, progress, staged)
            for art in large}


def _drawn_now(art: Any, pool: Any, here: _DrawnHere, db: Any, out: Path, progress: Progress,
               staged: list) -> tuple[Any, Any]:
    """One artefact drawn (told to `progress`), its result staged."""
    progress.start(art, art.path(out))
    result, entries = _drawn(art, pool, here, db, progress)
    staged.append(result)
    return result, entries


def _up_to_date(plan: Any, db: Any, todo: list, previous: Any) -> list[Any]:
    """Per artefact, its Written when it is up to date, else None: to draw (a deck the
    previous build's record lacks is drawn once to record its cards)."""
    from pnp.artefacts import drawn

    ready: list[Any] = []
    for art in todo:
        result = plan.up_to_date(art)
        if result is not None and art.deck and not drawn.has_deck(
                previous, db, art.game, art.deck):
            result = None               # draw it once to record its cards
        ready.append(result)
    return ready


class _DrawnHere:
    """Draws artefacts in this process, with fonts, renderer and card recorder
    (_InProcess) made at the first one. `template_files(game)`: each game's template
    files as the build's input hash found them (incremental.Hasher), which tell the
    renderer whether its templates draw the version stamp without a second look
    through every template folder (pnp.draw.stamp)."""

    def __init__(self, db: Any, opts: Any, options: BuildOptions, out: Path,
                 progress: Progress, template_files: Any = None) -> None:
        self.db, self.opts, self.options, self.out, self.progress = db, opts, options, out, progress
        self.template_files = template_files
        self.made: _InProcess | None = None      # made when the first artefact is drawn here

    def draw(self, art: Any) -> tuple[Any, Any]:
        from pnp.artefacts import deck_planning

        if self.made is None:
            self.made = _in_process(self.db, self.opts, self.options.force,
                                    self.progress.notice, self._stamp())
        planners = None
        if deck_planning.worth_it(self.db, art, self.options.jobs, self.options.force):
            planners = deck_planning.DeckPlanners(self.db, art, self.opts, self.options.jobs,
                                                  self.made.store)
        try:
            return self.made.draw(self.db, art, self.opts, self.out, self.progress.advance)
        finally:
            if planners is not None:
                planners.close()

    def _stamp(self) -> dict[str, str] | None:
        if self.template_files is None:
            return None
        from pnp.artefacts import drawn
        from pnp.draw.stamp import stamp

        return stamp(self.db, drawn.stamp_used(self.db, self.template_files))


def _drawn(art: Any, pool: Any, here: _DrawnHere, db: Any, progress: Progress) -> tuple[Any, Any]:
    """One artefact drawn: taken from a worker, or drawn in this process (or again here,
    to raise the error a worker met)."""
    from pnp.artefacts import build as b

    drawn_now = pool.result(art) if pool is not None else None
    if drawn_now is not None:
        result, entries = drawn_now
        progress.advance(b.units(db, art))
        return result, entries
    return here.draw(art)               # in this process (or again here, to raise)


def _record_build(db: Any, db_path: Path, opts: Any, options: BuildOptions, out: Path, args: dict,
                  todo: list, plan: Any, staged: list, previous: Any, built_cards: dict) -> None:
    """Remember what was built (incremental builds) and which cards each deck drew (pnp diff)."""
    from pnp.artefacts import drawn
    from pnp.draw.stamp import stamp

    for result in staged:
        plan.built(result.artefact, result)
    plan.finished(args, db, db_path, todo)
    uses = drawn.stamp_used(db, plan.hasher.template_files)  # as hashed; once for both
    record = drawn.next_record(db, previous, built_cards, stamp(db, uses))
    if opts.ink_saver:          # so that pnp diff plans the cards as this build drew them
        record["ink_saver"] = "flag" if options.ink_saver else "print"
    if options.lang is not None:    # ... and in this language
        record["lang"] = options.lang
    drawn.save_record(out, record, db, uses)
    plan.save()


# ── drawing artefacts in worker processes ─────────────────────────────────────────
# Each worker draws whole artefacts with its own renderer (PDFs are independent: font
# subsets, forms and replayed code are per document), writes them beside their targets
# like the in-process build (commit=False) and returns the Written and the deck's card
# entries; the parent takes them in the artefacts' order and commits all or nothing. A
# worker that fails returns nothing: the parent draws that artefact itself, which
# raises the error as a one-process build would.

_WORKER: dict[str, Any] = {}


def _worker_start(db: Any, opts: Any, out: Path, force: bool) -> None:
    _WORKER.clear()
    _WORKER.update(db=db, opts=opts, out=out, force=force)


def _worker_draw(art: Any) -> tuple[Any, Any] | None:
    w = _WORKER
    try:
        if "made" not in w:
            w["made"] = _in_process(w["db"], w["opts"], w["force"])
        drawn_now = w["made"].draw(w["db"], art, w["opts"], w["out"], None)
        w["made"].store.save()
        return drawn_now
    except Exception:  # the parent draws it again and raises what it raises
        return None


def cost(db: Any, art: Any) -> float:
    """What drawing `art` costs, in designs: a deck by its designs (each is planned), far
    more than by its copies (placed) or its sheets; tokens, labels, mats and the one-page
    sheets cost a few designs each (benchmarks/jobs_speed.py --analyse measures it)."""
    if not art.deck:
        return 2.0
    cards = db.games[art.game].decks[art.deck].cards
    return 1 + len(cards) + sum(c.copies for c in cards) / 8


def by_cost(db: Any, arts: list) -> list:
    """`arts` costliest first, for the workers: the last artefact to finish decides the
    wall time."""
    return sorted(arts, key=lambda a: -cost(db, a))     # stable: equal costs keep their order


# Below this many designs to draw (`cost`), a build with the default number of jobs draws
# in this process: starting workers (forking this process, each making its renderer and
# loading the stored plans) costs more than the drawing they share. The `pnp init` starter
# (24) drew in 0.115 s of CPU alone and in 0.16 s with two workers, no sooner by the clock.
SMALL = 40


def _pool_jobs(db: Any, jobs: int | None, arts: list) -> int:
    """Workers to draw `arts` with (0: this process). `--jobs N` is taken as asked; the
    default (the machine's cores) starts none for a small build (SMALL)."""
    if jobs is None and sum(cost(db, art) for art in arts) < SMALL:
        return 0
    return pool_size(jobs, len(arts))


class _Pool:
    """Worker processes drawing `arts` (in that order); `result(art)` waits for one."""

    def __init__(self, db: Any, opts: Any, out: Path, force: bool, jobs: int, arts: list):
        # imported before the fork, so each worker starts with them (issue 24)
        import pnp.draw.checks  # noqa: F401
        import pnp.draw.render  # noqa: F401
        from pnp.artefacts.workers import Workers

        self.workers = Workers(jobs, _worker_start, (db, opts, out, force))
        for art in arts:
            self.workers.submit(art, _worker_draw, art)

    def result(self, art: Any) -> tuple[Any, Any] | None:
        """What a worker drew of `art`; None: draw it here (failed, or never sent)."""
        if art not in self.workers.futures:
            return None
        return self.workers.result(art)

    def close(self) -> list[Any]:
        """Stop the workers; the Written drawn but not taken (to discard)."""
        return [found[0] for found in self.workers.close()]


class _Warnings:
    """Each problem once (a card's copies and later pages repeat it), told as it comes."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.seen: set[tuple] = set()
        self.all: list[Any] = []

    def add(self, result: Any) -> None:
        self.extend(result.warnings)

    def extend(self, found: list[Any]) -> None:
        for w in found:
            key = warning_key(w)
            if key not in self.seen:
                self.seen.add(key)
                self.all.append(w)
                self.progress.warning(w)


def warning_key(w: Any) -> tuple:
    """One problem of a card's element: its copies and later pages repeat it, but an
    element may have two (text cut at the floor and a character no font has)."""
    return tuple(getattr(w, k, None) for k in ("game", "deck", "card", "element", "message"))


def load_database(path: Path) -> Any:
    """The validated database; a PnpError (exit 1) naming the first problem, and the
    card's name when the problem is located at one."""
    import carddb
    from pnp.artefacts.kinds import reserved_deck_ids

    try:
        return carddb.load(path, reserved=reserved_deck_ids())
    except carddb.DatabaseError as exc:
        raise PnpError(_with_card_name(str(exc), path), exit_code=1) from None


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
