"""Incremental build speed: the full build of the bundled database, a no-op build and a
build after changing one card, in the same run, each as `python -m pnp build` in a fresh
process (what a designer waits for), printed with their ratios to the full build.

    PYTHONPATH=. python benchmarks/incremental_build.py [--runs N]

Target (issue 4): a no-op build under 0.3 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOOP_TARGET_S = 0.3


def build(project: Path, *args: str) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "pnp", "build", *args], cwd=project, env=env,
                         capture_output=True, text=True)
    took = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"build failed: {run.stderr.strip()}")
    return took, run.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="repetitions of each timing")
    runs = parser.parse_args().runs

    sys.path.insert(0, str(ROOT))
    import carddb

    with tempfile.TemporaryDirectory(prefix="pnp-incremental-") as tmp:
        project = Path(tmp)
        shutil.copy(ROOT / "cards.yaml", project / "cards.yaml")
        db = carddb.load(project / "cards.yaml")
        card = next(c for c in db.games["x-statix"].decks["owners"].cards if c.text)
        text = (project / "cards.yaml").read_text()
        assert text.count(card.text) == 1, "the benchmark edits one unique card text"

        full = [build(project, "--force")[0] for _ in range(max(1, runs // 2))]
        noop = []
        for _ in range(runs):
            took, out = build(project)
            assert "building " not in out, "a no-op build rebuilt something"
            noop.append(took)
        one = []
        for i in range(runs):
            edited = text.replace(card.text, f"{card.text} (edit {i})")
            (project / "cards.yaml").write_text(edited)
            took, out = build(project)
            rebuilt = [line for line in out.splitlines() if line.startswith("building ")]
            assert len(rebuilt) == 1, rebuilt
            one.append(took)
        artefacts = sum(1 for line in out.splitlines() if line.startswith(("building ",
                                                                            "up to date: ")))

    f, n, o = (statistics.median(x) for x in (full, noop, one))
    print(f"bundled database: {artefacts} artefacts; median of {runs} runs, "
          f"each a fresh `python -m pnp build`")
    print(f"full build (--force):      {f:7.3f} s   1.000")
    print(f"no-op build:               {n:7.3f} s   {n / f:.3f} of full")
    print(f"one card changed ({card.deck}): {o:7.3f} s   {o / f:.3f} of full "
          f"(rebuilt: {rebuilt[0].split()[-1]})")
    verdict = "met" if n < NOOP_TARGET_S else "NOT met"
    print(f"target no-op < {NOOP_TARGET_S} s: {verdict} (min {min(noop):.3f} s, "
          f"max {max(noop):.3f} s)")


if __name__ == "__main__":
    main()
