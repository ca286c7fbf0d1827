"""Many X-Statix games on all cores. The games are split into fixed chunks; chunk i plays
with an RNG seeded from (seed, i) alone, and the chunks' integer tallies are merged in
chunk order, so a seed gives the same result whatever the number of workers."""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable, Sequence
from typing import Any

from referee.simulate.stats import XsTally

GAME = "x-statix"  # the game simulated, by its id in cards.yaml
CHUNK_GAMES = 50  # games per chunk: part of what a seed means, never derived from workers

_cache: dict[str | None, tuple[Any, Any]] = {}


def derived_seed(label: str, seed: int, index: int) -> int:
    """A 64-bit seed for part `index` of a `label` run seeded `seed` (stable across Python
    versions and processes: no `hash()`)."""
    digest = hashlib.sha256(f"{label}/{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def chunk_seed(seed: int, index: int) -> int:
    """A 64-bit seed for chunk `index` of an X-Statix run seeded `seed`."""
    return derived_seed("x-statix", seed, index)


def chunks(games: int) -> list[tuple[int, int]]:
    """(index, number of games) of each chunk."""
    return [(i, min(CHUNK_GAMES, games - start))
            for i, start in enumerate(range(0, games, CHUNK_GAMES))]


def _cards(path: str | None) -> tuple[Any, Any]:
    """The card database and its X-Statix catalog, loaded once per process, as the referee
    loads it (`load_cards`): --cards, else ./cards.yaml when it has the X-Statix game, else
    the bundled games, so a designer's own project folder still simulates X-Statix; a
    --cards database without it is refused (UsageError, exit 2) before any game."""
    if path not in _cache:
        from referee.command import load_cards
        from referee.xs.catalog import Catalog

        db = load_cards(path, GAME)
        _cache[path] = (db, Catalog.from_db(db))
    return _cache[path]


def run_chunk(job: tuple[str | None, tuple[str, ...], int, int, int, bool]) -> tuple[int, dict]:
    """Play one chunk of games; returns (chunk index, plain tally)."""
    from referee.simulate.policies import make
    from referee.simulate.xs_sim import play_game

    cards, policy_names, seed, index, count, strict = job
    db, cat = _cards(cards)
    policies = [make(name) for name in policy_names]
    rng = random.Random(chunk_seed(seed, index))
    tally = XsTally()
    for _ in range(count):
        game_rng = random.Random(rng.getrandbits(64))
        tally.add(play_game(db, cat, policies, game_rng, strict=strict))
    return index, tally.plain()


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def process_pool(workers: int) -> Any:
    """A pool of `workers` processes, forked where the platform can (the workers inherit
    what the parent loaded), else the platform's default start method."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return context.Pool(workers)


def simulate_xs(
    games: int,
    policy_names: Sequence[str],
    seed: int,
    workers: int | None = None,
    cards: str | None = None,
    strict: bool = False,
    progress: Callable[[int], None] | None = None,
) -> XsTally:
    """Play `games` games, seat i played by `policy_names[i]`; `progress(n)` is called
    with the number of games each finished chunk held."""
    jobs = [(cards, tuple(policy_names), seed, i, n, strict) for i, n in chunks(games)]
    workers = max(1, min(workers or default_workers(), len(jobs) or 1))
    results: dict[int, dict] = {}
    if workers == 1:
        _cards(cards)  # a bad database fails here, before any game
        for job in jobs:
            index, plain = run_chunk(job)
            results[index] = plain
            if progress:
                progress(job[4])
    else:
        _cards(cards)  # loaded before forking: the workers inherit it
        sizes = {job[3]: job[4] for job in jobs}
        with process_pool(workers) as pool:
            for index, plain in pool.imap_unordered(run_chunk, jobs):
                results[index] = plain
                if progress:
                    progress(sizes[index])
    total = XsTally()
    for index in sorted(results):
        total.merge(XsTally.from_plain(results[index]))
    return total
