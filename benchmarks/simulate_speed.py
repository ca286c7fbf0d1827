"""Benchmark: 10,000 three-player X-Statix games through the balance lab (all cores).

Target (issue 8): under 20 s on a 2-core machine. Run from the project root:

    PYTHONPATH=$PWD python benchmarks/simulate_speed.py [--games N] [--workers N] [--policy P]

Prints the wall time, games per second and the CPU time per game of one worker, so a
busy machine (other processes on the cores) shows up in the figures. It runs the engine
the tree holds: compiled with mypyc after `REFEREE_MYPYC=1 pip install -e .` (or `python
setup.py build_ext --inplace`), pure Python otherwise (a plain install, no C compiler, or a
source edited since the build); the second line says which."""

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


def single_core_cpu_ms(games: int, policy: str) -> tuple[float, float | None, float | None]:
    """CPU milliseconds per game in this process (no multiprocessing): in all, inside the
    engine's action functions (what `Table.do` calls), and in new_state (setup). The last
    two are None when the simulator is compiled with mypyc (setup.py): its classes cannot
    be patched and its calls to new_state do not go through the module."""
    import carddb
    from referee.simulate import xs_sim
    from referee.simulate.policies import make
    from referee.xs.catalog import Catalog

    db = carddb.load()
    cat = Catalog.from_db(db)
    if not hasattr(xs_sim.play_game, "__code__"):  # compiled
        start = time.process_time()
        for g in range(games):
            xs_sim.play_game(db, cat, [make(policy)] * 3, random.Random(g))
        return (time.process_time() - start) / games * 1000, None, None
    engine = [0.0]
    original = xs_sim.Table.do

    def timed(self, fn, *args, **kwargs):
        start = time.process_time()
        try:
            return original(self, fn, *args, **kwargs)
        finally:
            engine[0] += time.process_time() - start

    setup = [0.0]
    new_state = xs_sim.new_state

    def timed_setup(*args, **kwargs):
        start = time.process_time()
        try:
            return new_state(*args, **kwargs)
        finally:
            setup[0] += time.process_time() - start

    xs_sim.Table.do, xs_sim.new_state = timed, timed_setup
    try:
        start = time.process_time()
        for g in range(games):
            xs_sim.play_game(db, cat, [make(policy)] * 3, random.Random(g))
        total = time.process_time() - start
    finally:
        xs_sim.Table.do, xs_sim.new_state = original, new_state
    return total / games * 1000, engine[0] / games * 1000, setup[0] / games * 1000


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
    cpu_ms, engine_ms, setup_ms = single_core_cpu_ms(200, args.policy)
    print(f"{args.games} three-player games ({args.policy}), {workers} worker(s): "
          f"{elapsed:.1f} s wall, {args.games / elapsed:.0f} games/s; "
          f"mean game {summary['mean_turns']:.1f} turns")
    if engine_ms is None or setup_ms is None:
        print(f"one process, 200 games: {cpu_ms:.2f} ms CPU per game (compiled with mypyc: "
              f"no split by engine and setup); load average before the run {load:.2f} on "
              f"{os.cpu_count()} cores")
    else:
        print(f"one process, 200 games: {cpu_ms:.2f} ms CPU per game (pure Python), of which "
              f"{engine_ms:.2f} ms inside the engine's actions and {setup_ms:.2f} ms in "
              f"setup (new_state); load average before the run {load:.2f} on "
              f"{os.cpu_count()} cores")
        floor = (engine_ms + setup_ms) * args.games / 1000 / workers
        print(f"the engine's own share alone needs >= {floor:.1f} s for {args.games} games "
              f"on {workers} worker(s)")
    full = elapsed * 10_000 / args.games  # the target is for 10,000 games
    verdict = "meets" if full < TARGET_SECONDS else "misses"
    scaled = "" if args.games == 10_000 else f" (scaled to 10,000 games: {full:.1f} s)"
    print(f"target < {TARGET_SECONDS:.0f} s for 10,000 games: {verdict} it{scaled}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
