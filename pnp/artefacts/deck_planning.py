"""One large deck on every core (issue 36 item 3): its card fronts planned in worker
processes while this process draws them.

Planning a front (its template rendered, its elements compiled and laid out, its plan
hashed for the build record) is most of the CPU of a forced build of a big deck; placing
and writing the planned cards is the rest, and must stay in one process (one PDF: its
font subsets, forms and object numbers are made in drawing order). So the deck's cards
are cut into runs of `RUN` cards, the workers plan the runs in order, each plan put in
its worker's plan store as usual (pnp.draw.plan_cache); the entries are sent back, and
this process finds them in its own store as if an earlier build had stored them
(`Planned.get`), waiting only for the run that holds the card it is about to draw.

The PDF is byte for byte the one a single process writes: a plan taken from the store is
the plan made here (that is what every rebuild relies on: tests/pnp/test_plan_cache.py),
the drawing order is unchanged, and the face hashes of the build record were made by the
same code in the worker. A run whose worker failed sends nothing: its cards are planned
here, and the error is the one a one-process build raises. A notice a worker's planning
raises (art downsampled for print, when --contrast draws a face to measure it) is sent
with the plan of its card and told when this process takes that plan: in card order,
once, as a one-process build tells it (pnp.draw.art.tell).

Only a build that plans the deck anew asks workers (`--force`, or no plan of the deck
stored: a first build, or PNP_CACHE_DIR=off); otherwise what to plan is the few edited
cards, cheaper here than starting workers and sending them the deck.
"""

from __future__ import annotations

from typing import Any

LARGE = 400     # designs: a smaller deck is planned here (a worker's start costs more)
RUN = 100       # cards a worker plans at a time (the first run is waited for)


def worth_it(db: Any, art: Any, jobs: int | None, force: bool) -> bool:
    """Whether to plan `art`'s fronts in workers: a deck of at least LARGE designs,
    planned anew (`force`, or no plan of it stored), more than one job, and workers that
    can start here."""
    from pnp.artefacts.workers import pool_size

    if not art.deck or len(db.games[art.game].decks[art.deck].cards) < LARGE:
        return False
    if pool_size(jobs, 2) == 0:
        return False
    if force:
        return True
    from pnp.artefacts.renderers import plan_store

    return not plan_store(db).stored(f"{art.game}/{art.deck}")


class Planned:
    """A plan store (pnp.draw.plan_cache.PlanStore) that also holds the plans workers
    made for this build: `get` returns a card's plan from its run (waiting for that run),
    puts it in the store (saved with the others), and otherwise asks the store. Between
    decks planned in workers it is the store itself (`expect`, `done`)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.hits = self.misses = 0
        self._given: dict[tuple[str, str], Any] = {}
        self._notices: dict[tuple[str, str], list] = {}     # told when the plan is taken
        self._runs: list[Any] = []          # what a run's result is waited on by, in order
        self._take: Any = None

    def __getattr__(self, name: str) -> Any:   # context, where, ...: the store's
        return getattr(self.store, name)

    @property
    def read(self) -> bool:
        return bool(self._runs or self._given) or self.store.read

    def expect(self, runs: list, take: Any) -> None:
        """Plans for this build will come from `take(run)` for each of `runs`, in order
        (a list of (bucket, key, entry, notices), or None: planned here instead)."""
        self._runs, self._take = list(runs), take

    def done(self) -> None:
        """Stop waiting for runs (the deck is drawn, or the build failed)."""
        self._runs, self._take = [], None
        self._given.clear()
        self._notices.clear()

    def get(self, bucket: str, key: str) -> Any | None:
        while (bucket, key) not in self._given and self._runs:
            for found_bucket, found_key, entry, notices in self._take(self._runs.pop(0)) or ():
                self._given[(found_bucket, found_key)] = entry
                if notices:
                    self._notices.setdefault((found_bucket, found_key), []).extend(notices)
        entry = self._given.get((bucket, key))
        if entry is not None:
            self._tell(self._notices.pop((bucket, key), ()))
            self.store.put(bucket, key, entry)
            return entry
        return self.store.get(bucket, key) if self.store.read else None

    def put(self, bucket: str, key: str, entry: Any) -> None:
        self.store.put(bucket, key, entry)

    @staticmethod
    def _tell(notices: Any) -> None:
        if notices:
            from pnp.draw.art import tell

            for told, line in notices:
                tell(told, line)

    def changed(self, bucket: str, key: str) -> None:
        self.store.changed(bucket, key)

    def save(self) -> None:
        self.store.save()


class _Capture:
    """A worker's plan store: every plan made is kept to be sent to the parent; nothing
    stored is read (the parent has asked for the cards because they must be planned)
    and nothing is written (the parent saves what it is sent)."""

    read = False

    def __init__(self, context: str) -> None:
        self.context = context
        self.hits = self.misses = 0
        self.made: list[tuple[str, str, Any]] = []

    def get(self, bucket: str, key: str) -> None:
        return None

    def put(self, bucket: str, key: str, entry: Any) -> None:
        self.made.append((bucket, key, entry))

    def changed(self, bucket: str, key: str) -> None:
        """(the entry is sent when its run is planned)"""

    def take(self) -> list[tuple[str, str, Any]]:
        made, self.made = self.made, []
        return made


# ── in the workers ────────────────────────────────────────────────────────────────

_WORKER: dict[str, Any] = {}


def _start(db: Any, opts: Any, deck: tuple[str, str]) -> None:
    from pnp.draw.art import keep_notices

    _WORKER.clear()
    _WORKER.update(db=db, opts=opts, deck=deck)
    keep_notices()          # sent with the plans, told by the build in card order


def _renderer() -> tuple[Any, _Capture]:
    """The worker's renderer (made at its first run), as the build makes its own, with
    the recorder that hashes each face for the build record."""
    w = _WORKER
    if "renderer" not in w:
        from pnp.artefacts import drawn
        from pnp.artefacts.renderers import checked_renderer
        from pnp.draw.fonts import register_fonts

        db, opts = w["db"], w["opts"]
        fonts = register_fonts(db.print.fonts, db.root)
        store = _Capture(drawn.fonts_digest(db))
        renderer = checked_renderer(db, fonts, opts.ink_saver, store, opts)
        w.update(renderer=renderer, store=store, recorder=drawn.Recorder(db, renderer))
    return w["renderer"], w["store"]


def _plan_run(run: tuple[int, int]) -> list | None:
    """Plan the fronts of cards run[0]:run[1] of the deck: their store entries, each as
    (bucket, key, entry, the notices its planning raised)."""
    from pnp.draw.art import keep_notices
    from pnp.layout import geometry as g

    try:
        renderer, store = _renderer()
        db, opts = _WORKER["db"], _WORKER["opts"]
        game, deck_id = _WORKER["deck"]
        deck = db.games[game].decks[deck_id]
        w, h = g.mm(deck.size_mm[0]), g.mm(deck.size_mm[1])
        store.take()
        keep_notices()
        made, notices = [], []
        for card in deck.cards[run[0]:run[1]]:
            renderer.bleed_colors(card, deck, w, h, opts.bleed)
            notices += keep_notices()
            for bucket, key, entry in store.take():     # the card's notices with its plan
                made.append((bucket, key, entry, notices))
                notices = []
        if notices and made:
            made[-1][3].extend(notices)
        return made
    except Exception:  # planned again in the parent, which raises what it raises
        return None


# ── in the build ──────────────────────────────────────────────────────────────────


class DeckPlanners:
    """Workers planning one deck's fronts for `store` (a `Planned`) while the build draws
    it; `close()` when the deck is drawn or the build failed."""

    def __init__(self, db: Any, art: Any, opts: Any, jobs: int | None, store: Planned) -> None:
        # imported before the fork, so each worker starts with them (issue 24)
        import pnp.draw.checks  # noqa: F401
        import pnp.draw.render  # noqa: F401
        from pnp.artefacts.workers import Workers, job_count

        count = len(db.games[art.game].decks[art.deck].cards)
        runs = [(start, min(start + RUN, count)) for start in range(0, count, RUN)]
        self.store = store
        self.workers = Workers(min(job_count(jobs), len(runs)), _start,
                               (db, opts, (art.game, art.deck)))
        for run in runs:
            self.workers.submit(run, _plan_run, run)
        store.expect(runs, self.workers.result)

    def close(self) -> None:
        self.store.done()
        self.workers.close()
