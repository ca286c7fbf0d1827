"""Wall time of `referee roll 3` as a ratio to `python -c "import click"`, in the same run.

Run from the project root:  python benchmarks/referee_startup.py [--runs N]
Both commands start a fresh interpreter; each is timed N times, interleaved so machine
load affects both alike, and the medians are compared. A ratio near 1 means the referee
adds little to the cost of starting Python with click.

Bytecode is cached (in a temporary PYTHONPYCACHEPREFIX, for both commands) as it is for an
installed package, even where PYTHONDONTWRITEBYTECODE is set; `--no-bytecode` measures
with every project module compiled on each start instead."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def wall_time(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--no-bytecode", action="store_true", help="compile on every start")
    options = parser.parse_args()
    runs = options.runs
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cache = tempfile.TemporaryDirectory(prefix="referee-bench-")
    if options.no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache.name
    roll = [sys.executable, "-m", "referee", "roll", "3"]
    click_only = [sys.executable, "-c", "import click"]
    for cmd in (roll, click_only):  # warm the OS file cache
        wall_time(cmd, env)
    roll_times, click_times = [], []
    for _ in range(runs):
        roll_times.append(wall_time(roll, env))
        click_times.append(wall_time(click_only, env))
    roll_median = statistics.median(roll_times)
    click_median = statistics.median(click_times)
    print(f"referee roll 3       median {roll_median * 1000:7.1f} ms  (min {min(roll_times) * 1000:.1f})")
    print(f"python -c 'import click' median {click_median * 1000:7.1f} ms  (min {min(click_times) * 1000:.1f})")
    mode = "no bytecode cache" if options.no_bytecode else "bytecode cached"
    print(f"ratio {roll_median / click_median:.2f}  ({runs} runs each, {mode})")
    cache.cleanup()


if __name__ == "__main__":
    main()
