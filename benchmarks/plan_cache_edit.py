"""One card edited in an 8,000-card deck against `--force`: CPU of a fresh
`python -m pnp build` each, alternating pairs in one run, with the ratio per pair.

    PYTHONPATH=. python benchmarks/plan_cache_edit.py [--cards 8000] [--pairs 5]

The project is the `pnp init` starter with its Ships deck grown to N cards. The edit
build rebuilds the whole Ships PDF (every card replayed, written and recorded) but plans
only the edited card again (pnp.draw.plan_cache); `--force` plans every card.
Target (issue 24): the edit at most 25 % of the CPU of --force.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _starter import grown_starter  # benchmarks/, the script's folder

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.25


def cpu_of(args: list[str], cwd: Path, env: dict) -> float:
    """User + system CPU seconds of one child process."""
    before = os.times()
    run = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    after = os.times()
    if run.returncode != 0:
        sys.exit(f"build failed: {run.stderr.strip()[-400:]}")
    return (after.children_user - before.children_user
            + after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=8000)
    parser.add_argument("--pairs", type=int, default=5)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pnp-plan-cache-") as tmp:
        project = grown_starter(Path(tmp) / "game", a.cards)
        ships = project / "ships.csv"
        env = {**os.environ, "PYTHONPATH": str(ROOT),
               "PNP_CACHE_DIR": str(Path(tmp) / "cache")}
        build = [sys.executable, "-m", "pnp", "build", "--only", "ships"]
        cpu_of(build, project, env)                      # the first build: the cache
        forced, edited = [], []
        for i in range(a.pairs):
            forced.append(cpu_of([*build, "--force"], project, env))
            k = a.cards // 2 + i                         # a different card each pair
            text = ships.read_text()
            assert text.count(f"ship number {k}.\n") == 1
            ships.write_text(text.replace(f"ship number {k}.\n", f"ship number {k} (edit).\n"))
            edited.append(cpu_of(build, project, env))
            print(f"pair {i + 1}: --force {forced[-1]:6.2f} s CPU, one card edited "
                  f"{edited[-1]:6.2f} s CPU, ratio {edited[-1] / forced[-1]:.3f}", flush=True)
    ratios = [e / f for e, f in zip(edited, forced, strict=True)]
    med = statistics.median(ratios)
    print(f"{a.cards}-card deck, {a.pairs} alternating pairs: one-card edit / --force CPU "
          f"= {med:.3f} median (range {min(ratios):.3f}-{max(ratios):.3f}); "
          f"target <= {TARGET}: {'met' if med <= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
