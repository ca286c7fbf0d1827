"""Benchmark: games per CPU-second of a game with rules declared as data, the `pnp init`
starter's Harbour Lights, played whole by the balance lab (referee/simulate/declared.py)
in this one process (one core, pure Python), beside X-Statix's figure (its simulator,
compiled with mypyc when the tree is built so: benchmarks/simulate_speed.py). Goal (issue
30 item 5): 1,000 declared games per CPU-second. `--sweep` also times a sweep of 10
variants x 1,000 games on 2 processes (goal: under 20 s wall on an idle machine), with the
CPU seconds it took and the load average, since the machine may be shared. Run from the
project root:

    PYTHONPATH=$PWD python benchmarks/simulate_declared.py [--games N] [--policy P]
        [--players N] [--xs-games N] [--sweep] [--identity N]

Keep N small on a shared machine (the default, 500 games, takes under two seconds idle).
`--identity N` prints one hash of the records of N games for each of seeds 1, 7 and 42, both
policies and 2, 3 and 4 players: a change made for speed must leave it as it was."""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GOAL = 1000.0  # declared games per CPU-second, one core
SWEEP_GOAL = 20.0  # seconds wall: 10 variants x 1,000 games, 2 processes, an idle machine
SWEEP = ("end.rounds", ["6", "7", "8", "9", "10"]), ("hand_limit", ["2", "3"])


def starter_db():  # type: ignore[no-untyped-def]
    """The starter's card database, made by `pnp init` into a temporary folder."""
    from click.testing import CliRunner

    import carddb
    from pnp.cli.main import main

    with tempfile.TemporaryDirectory(prefix="simulate-declared-") as name:
        result = CliRunner().invoke(main, ["init", name])
        if result.exit_code != 0:
            raise SystemExit(f"pnp init failed: {result.output}")
        return carddb.load(str(Path(name) / "cards.yaml"))


def declared_rate(game, games: int, players: int, policy: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(CPU seconds, games per CPU-second) of `games` games in this process."""
    from referee.simulate.declared import game_seed, play_game

    play_game(game, players, policy, game_seed(0, 0))  # warm: imports, caches
    started = time.process_time()
    for i in range(games):
        play_game(game, players, policy, game_seed(1, i))
    cpu = time.process_time() - started
    return cpu, games / cpu if cpu else float("inf")


def xs_rate(games: int, policy: str) -> str:
    """X-Statix's games per CPU-second (three players), and how its simulator runs."""
    from benchmarks.simulate_speed import single_core_cpu_ms
    from referee.simulate import xs_sim

    compiled = not hasattr(xs_sim.play_game, "__code__")
    ms = single_core_cpu_ms(games, policy)[0]
    how = "compiled with mypyc" if compiled else "pure Python (not built with mypyc)"
    return f"X-Statix, 3 players, policy {policy}: {1000 / ms:.0f} games per CPU-second ({how})"


def sweep(db, policy: str) -> None:  # type: ignore[no-untyped-def]
    """10 variants x 1,000 games on 2 processes: wall, CPU seconds (this process and its
    workers) and the load average before."""
    from referee.simulate import declared

    combos = declared.sweep(db, "harbour", list(SWEEP))
    variants = [declared.variant(db, "harbour", c) for c in combos]
    load = os.getloadavg()[0]
    cpu_before = _cpu()
    started = time.perf_counter()
    declared.simulate(variants, 2, policy, 1000, 1, jobs=2)
    wall = time.perf_counter() - started
    cpu = _cpu() - cpu_before
    print(f"sweep, {len(variants)} variants x 1,000 games, 2 processes, policy {policy}: "
          f"{wall:.1f} s wall, {cpu:.1f} CPU-s (load average before {load:.2f} on "
          f"{os.cpu_count()} cores); goal < {SWEEP_GOAL:.0f} s wall idle: "
          f"{'met' if wall < SWEEP_GOAL else 'not met'} here")


def identity(game, games: int) -> str:  # type: ignore[no-untyped-def]
    """One hash of the records of `games` games for each seed of 1, 7 and 42, each policy
    and 2, 3 and 4 players: equal before and after a change of speed exactly when the same
    seeds still give the same games (winners, turns, scores, ends, named rolls, cards)."""
    import hashlib
    import json

    from referee.simulate.declared import POLICIES, game_seed, play_game

    total = hashlib.sha256()
    for seed in (1, 7, 42):
        for policy in POLICIES:
            for players in (2, 3, 4):
                for i in range(games):
                    record = play_game(game, players, policy, game_seed(seed, i))
                    total.update(json.dumps(record, sort_keys=True).encode())
    return total.hexdigest()


def _cpu() -> float:
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--policy", choices=["random", "greedy"], default="random")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--xs-games", type=int, default=100, help="0: no X-Statix figure")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--identity", type=int, default=0, metavar="N",
                        help="print the hash of N games a seed, policy and player count")
    args = parser.parse_args()
    from referee.table.kit import TableGame

    db = starter_db()
    game = TableGame.from_db(db, "harbour")
    cpu, rate = declared_rate(game, args.games, args.players, args.policy)
    print(f"Harbour Lights (the starter), {args.players} players, policy {args.policy}: "
          f"{args.games} games in {cpu:.2f} CPU-s, {rate:.0f} games per CPU-second")
    print(f"goal {GOAL:.0f} per CPU-second: {'met' if rate >= GOAL else 'not met'} "
          f"(load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    if args.xs_games:
        print(xs_rate(args.xs_games, "greedy"))
    if args.sweep:
        sweep(db, args.policy)
    if args.identity:
        print(f"identity, {args.identity} games x seeds 1, 7, 42 x random, greedy x 2, 3, 4 "
              f"players: sha256 {identity(game, args.identity)}")


if __name__ == "__main__":
    main()
