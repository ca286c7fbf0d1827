"""Benchmark: games per CPU-second of a game with rules declared as data, the `pnp init`
starter's Harbour Lights, played whole by the balance lab (referee/simulate/declared.py)
in this one process (one core, pure Python). Goal (issue 30 item 5): 1,000 games per
CPU-second. Run from the project root:

    PYTHONPATH=$PWD python benchmarks/simulate_declared.py [--games N] [--policy P] [--players N]

Prints the CPU time, games per CPU-second and the goal met or not. Keep N small on a
shared machine (the default, 200 games, takes about a second)."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GOAL = 1000.0  # games per CPU-second, one core


def starter_game():  # type: ignore[no-untyped-def]
    """The starter's game, made by `pnp init` into a temporary folder."""
    from click.testing import CliRunner

    import carddb
    from pnp.cli.main import main
    from referee.table.kit import TableGame

    with tempfile.TemporaryDirectory(prefix="simulate-declared-") as name:
        result = CliRunner().invoke(main, ["init", name])
        if result.exit_code != 0:
            raise SystemExit(f"pnp init failed: {result.output}")
        return TableGame.from_db(carddb.load(str(Path(name) / "cards.yaml")), "harbour")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--policy", choices=["random", "greedy"], default="random")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    from referee.simulate.declared import game_seed, play_game

    game = starter_game()
    started = time.process_time()
    for i in range(args.games):
        play_game(game, args.players, args.policy, game_seed(1, i))
    cpu = time.process_time() - started
    rate = args.games / cpu if cpu else float("inf")
    print(f"Harbour Lights (the starter), {args.players} players, policy {args.policy}: "
          f"{args.games} games in {cpu:.2f} CPU-s, {rate:.0f} games per CPU-second")
    print(f"goal {GOAL:.0f} per CPU-second: {'met' if rate >= GOAL else 'not met'}")


if __name__ == "__main__":
    main()
