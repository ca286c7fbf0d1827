"""One large deck on two cores (issue 36 item 3): `pnp build --force --jobs 2` against
`--jobs 1` for an N-card deck, each a fresh process, alternating pairs in one run: the
wall time, the CPU of the build's own process and of its workers, and whether the two
PDFs are the same bytes.

    PYTHONPATH=. python benchmarks/deck_jobs.py [--cards 8000] [--pairs 3]

The project is the `pnp init` starter with its Ships deck grown to N cards (as
benchmarks/plan_cache_edit.py makes it). With 2 jobs the deck's fronts are planned by
the workers while the build draws them (pnp.artefacts.deck_planning). Target: at least
1.5x faster in wall time with 2 jobs on an idle 2-core machine. On a shared machine the
wall clock mostly measures the other processes: the load average is printed, and the
wall time an idle machine would show is worked out from the CPU split: the build's own
CPU or half of all the CPU, whichever is longer (each process on its own core at best).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _starter import grown_starter  # benchmarks/, the script's folder

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5
CHILD = ("import resource, sys, runpy; sys.argv = ['pnp'] + sys.argv[1:]\n"
         "try:\n    runpy.run_module('pnp', run_name='__main__')\n"
         "except SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
         "s = resource.getrusage(resource.RUSAGE_SELF); "
         "c = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
         "print('CPU', s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime, file=sys.stderr)\n"
         "sys.exit(code)")


def run(project: Path, env: dict, jobs: int, out: str) -> tuple[float, float, float, str]:
    """Wall seconds, the build's own CPU, its workers' CPU, and the PDF's sha256."""
    args = [sys.executable, "-c", CHILD, "build", "--only", "ships", "--force",
            "--jobs", str(jobs), "--out", out]
    started = time.perf_counter()
    done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"build failed: {done.stderr.strip()[-400:]}")
    own, workers = (float(x) for x in done.stderr.split("CPU ")[-1].split())
    pdf = project / out / "harbour" / "ships.pdf"
    return wall, own, workers, hashlib.sha256(pdf.read_bytes()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=8000)
    parser.add_argument("--pairs", type=int, default=3)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pnp-deck-jobs-") as tmp:
        project = grown_starter(Path(tmp) / "game", a.cards)
        env = {**os.environ, "PYTHONPATH": str(ROOT),
               "PNP_CACHE_DIR": str(Path(tmp) / "cache")}
        walls: dict[int, list[float]] = {1: [], 2: []}
        idle: dict[int, list[float]] = {1: [], 2: []}
        digests = set()
        for i in range(a.pairs):
            for jobs in (1, 2):
                wall, own, workers, digest = run(project, env, jobs, f"out{jobs}")
                digests.add(digest)
                walls[jobs].append(wall)
                idle[jobs].append(max(own, (own + workers) / 2) if jobs > 1 else own + workers)
                print(f"pair {i + 1} jobs {jobs}: wall {wall:6.2f} s, own CPU {own:6.2f} s, "
                      f"workers' CPU {workers:6.2f} s, load {os.getloadavg()[0]:.2f}",
                      flush=True)
    wall = [o / t for o, t in zip(walls[1], walls[2], strict=True)]
    model = [o / t for o, t in zip(idle[1], idle[2], strict=True)]
    print(f"{a.cards}-card deck, --force, {a.pairs} alternating pairs (load "
          f"{os.getloadavg()[0]:.2f}): wall jobs 1 / jobs 2 = {statistics.median(wall):.2f} "
          f"median; on an idle 2-core machine (from the CPU split) "
          f"{statistics.median(model):.2f}; target >= {TARGET}")
    print("PDFs byte-identical with 1 and 2 jobs:", "yes" if len(digests) == 1 else "NO")


if __name__ == "__main__":
    main()
