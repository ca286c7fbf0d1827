"""Benchmark: 10,000 three-player X-Statix games through the balance lab (all cores).

Target (issue 8): under 20 s on a 2-core machine. Run from the project root:

    PYTHONPATH=$PWD python benchmarks/simulate_speed.py [--games N] [--workers N] [--policy P]

Prints the wall time, games per second and the CPU time per game of one worker, so a
busy machine (other processes on the cores) shows up in the figures."""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.simulate import runner  # noqa: E402
from referee.simulate.stats import summarize  # noqa: E402

TARGET_SECONDS = 20.0


def single_core_cpu_ms(games: int, policy: str) -> float:
    """CPU milliseconds per game in this process (no multiprocessing)."""
    import carddb
    from referee.simulate.fast_catalog import FastCatalog
    from referee.simulate.policies import make
    from referee.simulate.xs_sim import play_game

    db = carddb.load()
    cat = FastCatalog.from_db(db)
    start = time.process_time()
    for g in range(games):
        play_game(db, cat, [make(policy)] * 3, random.Random(g))
    return (time.process_time() - start) / games * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--policy", default="greedy")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    workers = args.workers or runner.default_workers()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    start = time.perf_counter()
    tally = runner.simulate_xs(args.games, [args.policy] * 3, args.seed, workers)
    elapsed = time.perf_counter() - start
    summary = summarize(tally, 3)
    cpu_ms = single_core_cpu_ms(200, args.policy)
    print(f"{args.games} three-player games ({args.policy}), {workers} worker(s): "
          f"{elapsed:.1f} s wall, {args.games / elapsed:.0f} games/s")
    print(f"one worker: {cpu_ms:.2f} ms CPU per game (200 games); "
          f"mean game {summary['mean_turns']:.1f} turns; load average before the run {load:.2f}")
    verdict = "meets" if elapsed < TARGET_SECONDS else "misses"
    print(f"target < {TARGET_SECONDS:.0f} s: {verdict} it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
