"""Worker processes for work whose pieces are independent (artefacts of `pnp build`,
decks of `pnp proof` and `pnp export png|tts|tabletopia`; issue 24): `Workers(jobs, initializer,
initargs)`, `submit(key, fn, arg)`, `result(key)` in any order, `close()`; and
`in_order(work, shared, pieces, jobs)`, the results of `work(shared, piece)` in order.

A piece whose worker fails gives None: the caller does it again in its own process,
which raises the error a one-process run raises (one line, no traceback from a worker).
Workers ignore Ctrl-C: the parent hears it, cancels what has not started and waits for
the pieces being drawn, whose files it can then discard (`close()` returns them).

Start-up: forked where the system has fork and this process runs no other thread, so a
worker starts with the parent's imports, database, fonts and renderer (nothing is
pickled to it); spawned where there is no fork (Windows): each worker imports pnp
afresh and is sent its initargs pickled. With other threads (pnp watch) nothing is
forked (a thread may hold a lock the child would copy) and the pieces are done in this
process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any


def job_count(jobs: int | None) -> int:
    """Worker processes for `jobs` (None: the machine's cores)."""
    if jobs is None:
        return max(1, os.cpu_count() or 1)
    return max(1, int(jobs))


def start_method() -> str | None:
    """How workers start here: "fork", "spawn" (a system without fork), or None (other
    threads run in this process: the pieces are done in it)."""
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        return "fork" if threading.active_count() == 1 else None
    return "spawn" if "spawn" in methods else None


def usable() -> bool:
    """Whether worker processes can be started here (see `start_method`)."""
    return start_method() is not None


def pool_size(jobs: int | None, pieces: int) -> int:
    """Worker processes worth starting for `pieces` independent pieces: 0 (do them in
    this process) when one would do, or workers cannot start here."""
    n = min(job_count(jobs), pieces)
    return n if n > 1 and usable() else 0


# Below this many card faces to draw, an export or proof with the default number of jobs
# draws in this process (`in_order(..., small=FEW_FACES)`): each worker imports the
# drawing modules and loads the fonts and art again, so two workers cost 0.1-0.2 s more
# CPU than one process for the `pnp init` starter (13 faces: 0.33-0.57 s of drawing in
# one process for proof, png, tts, tabletopia) and were no sooner by the clock on two
# cores. `--jobs N` is taken as asked.
FEW_FACES = 16


def in_order(work: Callable[[Any, Any], Any], shared: Any, pieces: list, jobs: int | None,
             cost: Callable[[Any], float] | None = None,
             spawned: Any = None, small: float = 0) -> Iterator[Any]:
    """`work(shared, piece)` for each piece, the results in the pieces' order, the work
    shared by up to `jobs` workers (None: the machine's cores) which start with `shared`
    (forked: nothing is copied; spawned: pickled, and `spawned` instead when given: what
    can be pickled) and take the costliest pieces first. With the default jobs (None),
    pieces whose costs add up to less than `small` are done here: too little work to
    share. `work` is a module's function returning something other than None; a piece
    whose worker fails is done again here, raising what it raises."""
    n = 0 if jobs is None and cost is not None and sum(map(cost, pieces)) < small \
        else pool_size(jobs, len(pieces))
    if not n:
        for piece in pieces:
            yield work(shared, piece)
        return
    order = list(range(len(pieces)))
    if cost is not None:
        order.sort(key=lambda i: -cost(pieces[i]))
    method = start_method()
    sent = spawned if method == "spawn" and spawned is not None else shared
    with Workers(n, _keep, (work, sent), method) as workers:
        for i in order:
            workers.submit(i, _work, pieces[i])
        for i, piece in enumerate(pieces):
            done = workers.result(i)
            yield work(shared, piece) if done is None else done


_WORKER: dict[str, Any] = {}


def _keep(work: Callable[[Any, Any], Any], shared: Any) -> None:
    _WORKER.update(work=work, shared=shared)


def _work(piece: Any) -> Any:
    try:
        return _WORKER["work"](_WORKER["shared"], piece)
    except Exception:  # the parent does it again and raises what it raises
        return None


def _start(initializer: Callable[..., None], initargs: tuple) -> None:
    import signal

    # Ctrl-C is the parent's to handle: a worker finishes the piece it draws
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    initializer(*initargs)


class Workers:
    """`jobs` processes, each started by `initializer(*initargs)`. Pieces are taken in
    the order submitted (submit the costliest first: the last piece to finish decides
    the wall time)."""

    def __init__(self, jobs: int, initializer: Callable[..., None], initargs: tuple,
                 method: str | None = None):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.method = method or start_method() or "spawn"
        context = multiprocessing.get_context(self.method)
        self.executor = ProcessPoolExecutor(jobs, mp_context=context, initializer=_start,
                                            initargs=(initializer, initargs))
        self.futures: dict[Any, Any] = {}
        self.taken: set[Any] = set()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def submit(self, key: Any, fn: Callable[[Any], Any], arg: Any) -> None:
        self.futures[key] = self.executor.submit(fn, arg)

    def result(self, key: Any) -> Any | None:
        self.taken.add(key)
        try:
            return self.futures[key].result()
        except Exception:  # a worker died or its result could not be sent: None
            return None

    def close(self) -> list[Any]:
        """Stop the workers; the results done but not taken (for the caller to undo).
        Pieces not started are cancelled, those being done are waited for."""
        for key, future in self.futures.items():
            if key not in self.taken:
                future.cancel()
        left = []
        for key, future in self.futures.items():
            if key in self.taken or future.cancelled():
                continue
            self.taken.add(key)
            try:
                found = future.result()
            except Exception:  # a piece that failed left nothing behind
                found = None
            if found is not None:
                left.append(found)
        self.executor.shutdown(wait=True)
        return left
