"""CPU of README's first command on a fresh venv, as a ratio to a baseline tree's, in one run.

Run from the project root:  python benchmarks/first_install.py [--base main] [--runs 1]

README's first command, `python3 -m pip install -e . && python3 -m pnp build`, run in a
copy of each tree (this checkout's files as they are now, and `git archive` of `--base`)
with a fresh venv for each run (made first, not measured: `python3 -m venv` is not the
command) and a fresh cache folder (PNP_CACHE_DIR: a newcomer has none). The trees take
turns, so machine load affects both alike. CPU is user + system of the child processes
(`resource.getrusage(RUSAGE_CHILDREN)`: pip, its build backend, the C compiler and the
build), not wall time. pip's own cache is what the machine has (warm, normally: say so
when quoting). The issue's goal (36, item 7): at most 25 s of CPU, install and build."""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def copy_tree(ref: str | None, target: Path) -> None:
    """The tracked files of `ref` (None: this checkout's files as they are now)."""
    target.mkdir(parents=True)
    if ref is not None:
        archive = subprocess.run(["git", "archive", ref], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
        return
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           check=True, capture_output=True).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def first_command(tree: Path, work: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(install CPU, build CPU, wall seconds) of README's first command in `tree`."""
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    python = str(venv / "bin" / "python")
    env = {**env, "PNP_CACHE_DIR": str(work / "cache")}
    start, wall = child_cpu(), time.perf_counter()
    subprocess.run([python, "-m", "pip", "install", "-q", "-e", "."], cwd=tree, check=True,
                   env=env, stdout=subprocess.DEVNULL)
    installed = child_cpu()
    subprocess.run([python, "-m", "pnp", "build"], cwd=tree, check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return installed - start, child_cpu() - installed, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the baseline's git ref (default main)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each tree (alternating)")
    options = parser.parse_args()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "REFEREE_MYPYC", "VIRTUAL_ENV", "PNP_CACHE_DIR")}
    trees = {options.base: options.base, "this tree": None}
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="first-install-") as tmp:
        for run in range(options.runs):
            for name, ref in trees.items():
                work = Path(tmp) / f"{run}-{len(results[name])}-{name.replace(' ', '-')}"
                copy_tree(ref, work / "tree")
                results[name].append(first_command(work / "tree", work, env))
                install, build, wall = results[name][-1]
                print(f"{name:<12} install {install:6.1f} s  build {build:5.1f} s  "
                      f"total {install + build:6.1f} s CPU  ({wall:.0f} s wall)", flush=True)
    base = min(i + b for i, b, _ in results[options.base])
    ours = min(i + b for i, b, _ in results["this tree"])
    print(f"least CPU: {options.base} {base:.1f} s, this tree {ours:.1f} s: "
          f"{ours / base:.2f}x (goal: at most 25 s)")


if __name__ == "__main__":
    main()
