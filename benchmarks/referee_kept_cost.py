"""CPU of one-shot referee commands on a session that keeps its game (referee/kept.py),
this checkout against another one (`--against DIR`, e.g. an export of main), in one run.

Run from the project root:
    git archive main | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    python benchmarks/referee_kept_cost.py --against /tmp/base [--runs N]

Each command starts a fresh interpreter (the console script's three lines) with
PYTHONPATH set to one checkout or the other; the two are run alternately (A B B A ...)
so that machine load affects both alike, and each figure is the median CPU (user +
system) of the child process (`resource.getrusage(RUSAGE_CHILDREN)`), wall time on a
shared machine saying more about the neighbours. Bytecode is cached in a temporary
PYTHONPYCACHEPREFIX for both trees, and the card cache (PNP_CACHE_DIR) is a temporary
folder, warmed by a first unmeasured run of each command.

Sessions: a 3-player X-Statix game (`new x-statix`), on which `status`, `xs mt A +0`
(neither reads cards) and `xs recruit B Zombies` (refused after reading the card
database: the kept game read and compared with cards.yaml); and the declared game of
`pnp init` (harbour), on which `token Ann cargo +0` (the kept TableGame read and
compared). Printed: each command's median CPU in ms for both and the ratio this/against.

`--in-process`: what `referee play` and the test suite pay instead (tests run commands
in-process, tests/harness.py `run_cli`): each child process runs the command 20 times
through click's CliRunner after one warm-up, and reports the median CPU
(`time.process_time`) of one; children of both trees alternate, `--runs` of each.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFEREE = "import sys\nfrom referee.cli import main\nsys.exit(main())\n"
IN_PROCESS = """import statistics, sys, time
from click.testing import CliRunner
from referee.cli import main
runner, words, times = CliRunner(), sys.argv[1:], []
runner.invoke(main, words)
for _ in range(20):
    start = time.process_time()
    runner.invoke(main, words)
    times.append(time.process_time() - start)
print(statistics.median(times))
"""
PNP = "import sys\nfrom pnp.cli.main import main\nsys.exit(main())\n"
COMMANDS = [
    ("xs", ["status"]),
    ("xs", ["xs", "mt", "A", "+0"]),
    ("xs", ["xs", "recruit", "B", "Zombies"]),
    ("declared", ["token", "Ann", "cargo", "+0"]),
]


def child_cpu(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def in_process_cpu(words: list[str], env: dict[str, str], cwd: Path) -> float:
    done = subprocess.run([sys.executable, "-c", IN_PROCESS, *words], env=env, cwd=cwd,
                          check=True, capture_output=True, text=True)
    return float(done.stdout.split()[-1])


def setup(folder: Path, env: dict[str, str]) -> dict[str, Path]:
    """The two sessions, made with this checkout."""
    xs = folder / "xs"
    xs.mkdir(parents=True)
    subprocess.run([sys.executable, "-c", REFEREE, "new", "x-statix", "--players", "A,B,C",
                    "--seed", "3"], env=env, cwd=xs, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-c", PNP, "init", "declared"], env=env, cwd=folder,
                   check=True, stdout=subprocess.DEVNULL)
    declared = folder / "declared"
    subprocess.run([sys.executable, "-c", REFEREE, "new", "harbour", "--players", "Ann,Bob"],
                   env=env, cwd=declared, check=True, stdout=subprocess.DEVNULL)
    return {"xs": xs, "declared": declared}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", required=True, help="the other checkout (a folder)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()
    trees = {"this": ROOT, "against": Path(args.against).resolve()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = {**os.environ, "PNP_CACHE_DIR": str(folder / "cache"),
                "PYTHONPYCACHEPREFIX": str(folder / "pyc"), "PYTHONDONTWRITEBYTECODE": ""}
        envs = {name: {**base, "PYTHONPATH": str(tree)} for name, tree in trees.items()}
        places = setup(folder / "sessions", envs["this"])
        print(f"{'command':32} {'this ms':>8} {'against ms':>10} {'ratio':>6}")
        for where, words in COMMANDS:
            session = places[where]
            cpu: dict[str, list[float]] = {name: [] for name in trees}
            for name in trees:  # warm: bytecode, card cache, kept memory
                child_cpu([sys.executable, "-c", REFEREE, *words], envs[name], session)
            for run in range(args.runs):
                for name in list(trees)[::1 if run % 2 else -1]:  # A B B A: neither first
                    cpu[name].append(
                        in_process_cpu(words, envs[name], session) if args.in_process
                        else child_cpu([sys.executable, "-c", REFEREE, *words], envs[name],
                                       session))
            this, other = (statistics.median(cpu[n]) * 1000 for n in ("this", "against"))
            print(f"{' '.join(words):32} {this:8.1f} {other:10.1f} {this / other:6.2f}")
        shutil.rmtree(folder / "sessions", ignore_errors=True)


if __name__ == "__main__":
    main()
