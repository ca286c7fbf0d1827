"""CPU of running test files (or the whole suite) in this tree and in another, in one run.

Run from the project root:

    python benchmarks/suite_cpu.py --base ../base tests/referee/xo tests/pnp/test_cut_dxf.py
    python benchmarks/suite_cpu.py --base ../base --rounds 3 --workers 2     # the whole suite
    python benchmarks/suite_cpu.py --base ../base --rounds 3 --workers 2 --same-tests

Each round runs `python -m pytest -q -p no:cacheprovider [-n W --dist loadfile] FILES` once
in each tree, the trees taking turns (the machine's load then weighs on both alike), and
reads the CPU (user + system) the run and its children used from `RUSAGE_CHILDREN`: pytest,
its xdist workers and every subprocess a test starts. Both trees get their own cache
folder (PNP_CACHE_DIR), their own temporary folders (--basetemp: pytest otherwise keeps the
last three runs' folders in one place and deletes the oldest at the start of a run, so each
tree paid for deleting the other's files) and the same environment. Printed: each tree's
CPU and wall per round, the least and the median of the rounds, and their ratios this /
base (issue 34, item 3: the suite's CPU halved). A run whose tests fail is reported as
failing, not measured.

`--same-tests`: both trees run only the tests both have (a test is its name and
parameters, whichever file holds it: a test moved to another file is the same test), so
tests added since the base for behaviour it lacks, and tests since removed, weigh on
neither side ("with the same behaviours covered"). Without it, each runs its whole suite."""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(tree: Path, files: list[str], workers: int,
        scratch: Path) -> tuple[float, float, float, int]:
    """(CPU seconds, of them in the kernel, wall seconds, exit code) of one pytest run in
    `tree`, its cache folder and its temporary folders in `scratch` (the tree's own, kept
    from round to round)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--basetemp", str(scratch / "basetemp"), *files]
    if workers:
        command[4:4] = ["-n", str(workers), "--dist", "loadfile"]
    scratch.mkdir(exist_ok=True)
    env = {**os.environ, "PNP_CACHE_DIR": str(scratch / "cache")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    kernel = after.ru_stime - before.ru_stime
    cpu = after.ru_utime - before.ru_utime + kernel
    if done.returncode != 0:
        print(done.stdout[-3000:], file=sys.stderr)
    return cpu, kernel, wall, done.returncode


def collected(tree: Path, files: list[str]) -> list[str]:
    """The node ids pytest collects in `tree` (FILES, or the suite)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", "-o", "addopts=--import-mode=importlib",
                           *files], cwd=tree, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"collecting the tests of {tree} failed:\n{done.stdout[-2000:]}")
    return [line for line in done.stdout.splitlines() if "::" in line]


def same_tests(trees: dict[str, Path], files: list[str], scratch: Path) -> dict[str, list[str]]:
    """Per tree, the pytest argument `@FILE` of the node ids of the tests both trees have
    (a test is what follows its file in its node id: class, name and parameters)."""
    def test_of(nid: str) -> str:
        return nid.split("::", 1)[1]

    ids = {name: collected(tree, files) for name, tree in trees.items()}
    both = set.intersection(*({test_of(nid) for nid in found} for found in ids.values()))
    args = {}
    for name, found in ids.items():
        chosen = [nid for nid in found if test_of(nid) in both]
        listing = scratch / f"{name}-tests.txt"
        listing.write_text("\n".join(chosen) + "\n")
        print(f"{name}: {len(chosen)} of its {len(found)} tests run (those both trees have)")
        args[name] = [f"@{listing}"]
    return args


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="test files or folders (default: the suite)")
    parser.add_argument("--base", required=True, help="the other tree (a checkout)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=0, help="xdist workers (0: none)")
    parser.add_argument("--same-tests", action="store_true",
                        help="run in each tree only the tests both trees have")
    args = parser.parse_args()
    trees = {"base": Path(args.base).resolve(), "this": ROOT}
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    failed = False
    with tempfile.TemporaryDirectory(prefix="suite-cpu-") as scratch:
        files = (same_tests(trees, args.files, Path(scratch)) if args.same_tests
                 else {name: args.files for name in trees})
        for round_ in range(1, args.rounds + 1):
            for name, tree in trees.items():
                seconds, kernel, wall, code = run(tree, files[name], args.workers,
                                                  Path(scratch) / name)
                verdict = "" if code == 0 else f"  FAILED (exit {code})"
                failed = failed or code != 0
                print(f"round {round_} {name}: {seconds:7.1f} s CPU ({kernel:5.1f} s in the "
                      f"kernel) {wall:7.1f} s wall{verdict}",
                      flush=True)
                cpu[name].append(seconds)
    if failed:
        sys.exit("a run failed: no ratio (its output is above)")
    base, this = min(cpu["base"]), min(cpu["this"])
    print(f"least CPU: base {base:.1f} s, this {this:.1f} s, ratio {this / base:.2f}")
    base, this = statistics.median(cpu["base"]), statistics.median(cpu["this"])
    print(f"median CPU: base {base:.1f} s, this {this:.1f} s, ratio {this / base:.2f}")


if __name__ == "__main__":
    main()
