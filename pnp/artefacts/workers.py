"""Worker processes for work whose pieces are independent (artefacts of `pnp build`,
decks of `pnp proof`): `Workers(jobs, initializer, initargs)`, `submit(key, fn, arg)`,
`result(key)` in any order. A piece whose worker fails gives None: the caller does it
again in its own process, which raises the error a one-process run raises. Workers are
forked (the parent's imports and loaded database come along), only where `usable()`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any


def job_count(jobs: int | None) -> int:
    """Worker processes for `jobs` (None: the machine's cores)."""
    if jobs is None:
        return max(1, os.cpu_count() or 1)
    return max(1, int(jobs))


def usable() -> bool:
    """Whether workers can be forked here: a system with fork, and no other thread in
    this process (forking one may copy a held lock into the child; pnp watch's file
    events run in a thread). Spawning instead would run `python -m pnp`'s main module
    again in each worker. Without it the pieces are done in this process."""
    import multiprocessing
    import threading

    return "fork" in multiprocessing.get_all_start_methods() and (
        threading.active_count() == 1)


class Workers:
    def __init__(self, jobs: int, initializer: Callable[..., None], initargs: tuple):
        import multiprocessing
        import threading
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        # forking a process with other threads (pnp watch's file events) may copy a held
        # lock into the child: then the workers start afresh (spawn), which is slower
        fork = "fork" in methods and threading.active_count() == 1
        context = multiprocessing.get_context("fork" if fork else "spawn")
        self.executor = ProcessPoolExecutor(jobs, mp_context=context, initializer=initializer,
                                            initargs=initargs)
        self.futures: dict[Any, Any] = {}
        self.taken: set[Any] = set()

    def submit(self, key: Any, fn: Callable[[Any], Any], arg: Any) -> None:
        self.futures[key] = self.executor.submit(fn, arg)

    def result(self, key: Any) -> Any | None:
        self.taken.add(key)
        try:
            return self.futures[key].result()
        except Exception:  # a worker died or its result could not be sent: None
            return None

    def close(self) -> list[Any]:
        """Stop the workers; the results done but not taken (for the caller to undo)."""
        left = []
        for key, future in self.futures.items():
            if key in self.taken:
                continue
            self.taken.add(key)
            if future.cancel():
                continue
            try:
                found = future.result()
            except Exception:
                found = None
            if found is not None:
                left.append(found)
        self.executor.shutdown(wait=True)
        return left
