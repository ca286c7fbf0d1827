"""`--jobs 2` against `--jobs 1`: wall time of the full bundled build (`pnp build
--force`) and of `pnp proof`, each a fresh process, alternating pairs in one run.

    PYTHONPATH=. python benchmarks/jobs_speed.py [--pairs 5] [--dpi 100]

Target (issue 24): both at least 1.5x faster with 2 jobs on an idle 2-core machine. On a
shared machine the wall clock mostly measures the other processes: the load average is
printed with the result.
"""

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
TARGET = 1.5


def wall(args: list[str], env: dict) -> float:
    started = time.perf_counter()
    run = subprocess.run(args, env=env, capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}: {run.stderr.strip()[-300:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--dpi", type=int, default=100)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pnp-jobs-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(Path(tmp) / "c")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        pnp = [sys.executable, "-m", "pnp"]

        def build(jobs: int) -> list[str]:
            return [*pnp, "build", "--force", "--out", str(Path(tmp) / f"b{jobs}"),
                    "--jobs", str(jobs)]

        def proof(jobs: int) -> list[str]:
            return [*pnp, "proof", "--dpi", str(a.dpi), "--out",
                    str(Path(tmp) / f"p{jobs}"), "--jobs", str(jobs)]

        wall(build(1), env)                              # warm the caches
        results = {"build": ([], []), "proof": ([], [])}
        for i in range(a.pairs):
            for name, command in (("build", build), ("proof", proof)):
                one, two = results[name]
                first, second = (1, 2) if i % 2 == 0 else (2, 1)   # alternate the order
                took = {first: wall(command(first), env)}
                took[second] = wall(command(second), env)
                one.append(took[1])
                two.append(took[2])
                print(f"pair {i + 1} {name}: 1 job {took[1]:.2f} s, 2 jobs {took[2]:.2f} s, "
                      f"speed-up {took[1] / took[2]:.2f}x", flush=True)
    load = os.getloadavg()[0]
    for name, (one, two) in results.items():
        ups = [o / t for o, t in zip(one, two, strict=True)]
        med = statistics.median(ups)
        print(f"{name}: 2 jobs vs 1, {a.pairs} alternating pairs: {med:.2f}x median "
              f"(range {min(ups):.2f}-{max(ups):.2f}x; {os.cpu_count()} cores, load "
              f"{load:.1f}); target >= {TARGET}x on an idle 2-core machine: "
              f"{'met' if med >= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
