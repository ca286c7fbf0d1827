"""One card edited in an N-card deck against `--force`: CPU of a fresh `python -m pnp build`
each, alternating pairs in one run, with the ratio per pair; several deck sizes (and,
with --against, another checkout of pnp) measured in the same alternation.

    PYTHONPATH=. python benchmarks/plan_cache_edit.py [--cards 8000 80] [--pairs 5]
                                                      [--against OTHER_CHECKOUT]

The project is the `pnp init` starter with its Ships deck grown to N cards. The edit
build plans only the edited card again (pnp.draw.plan_cache) and draws only the sheet it
is on (the other sheets are shown as kept: pnp.artefacts.kept_sheets); `--force` plans
and draws every card. Each pair edits a different card, in the middle of the deck.
Targets (issue 36 item 2): the edit at most 0.10 of the CPU of --force at 8,000 cards,
at most 0.5 at 80.
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
TARGETS = {8000: 0.10, 80: 0.5}


def cpu_of(args: list[str], cwd: Path, env: dict) -> float:
    """User + system CPU seconds of one child process."""
    before = os.times()
    run = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    after = os.times()
    if run.returncode != 0:
        sys.exit(f"build failed: {run.stderr.strip()[-400:]}")
    return (after.children_user - before.children_user
            + after.children_system - before.children_system)


class Case:
    """One deck size built by one checkout of pnp, with a cache of its own."""

    def __init__(self, folder: Path, cards: int, code: Path, label: str) -> None:
        self.cards, self.label = cards, label
        self.project = grown_starter(folder / "game", cards)
        self.env = {**os.environ, "PYTHONPATH": str(code),
                    "PNP_CACHE_DIR": str(folder / "cache")}
        self.build = [sys.executable, "-m", "pnp", "build", "--only", "ships"]
        self.forced: list[float] = []
        self.edited: list[float] = []
        cpu_of(self.build, self.project, self.env)          # the first build: the cache

    def pair(self, i: int) -> None:
        self.forced.append(cpu_of([*self.build, "--force"], self.project, self.env))
        k = self.cards // 2 + i                              # a different card each pair
        ships = self.project / "ships.csv"
        text = ships.read_text()
        assert text.count(f"ship number {k}.\n") == 1
        ships.write_text(text.replace(f"ship number {k}.\n", f"ship number {k} (edit).\n"))
        self.edited.append(cpu_of(self.build, self.project, self.env))
        print(f"pair {i + 1} {self.label}: --force {self.forced[-1]:6.2f} s CPU, one card "
              f"edited {self.edited[-1]:6.2f} s CPU, ratio "
              f"{self.edited[-1] / self.forced[-1]:.3f} (load {os.getloadavg()[0]:.2f})",
              flush=True)

    def summary(self) -> str:
        ratios = [e / f for e, f in zip(self.edited, self.forced, strict=True)]
        med = statistics.median(ratios)
        target = TARGETS.get(self.cards)
        verdict = "" if target is None else (
            f"; target <= {target}: {'met' if med <= target else 'NOT met'}")
        return (f"{self.label}: one-card edit / --force CPU = {med:.3f} median (range "
                f"{min(ratios):.3f}-{max(ratios):.3f}); --force {statistics.median(self.forced):.2f}"
                f" s, edit {statistics.median(self.edited):.2f} s CPU median{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, nargs="+", default=[8000])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout of pnp, measured in the same alternation")
    a = parser.parse_args()
    codes = [(ROOT, "this")] + ([(a.against.resolve(), "against")] if a.against else [])
    with tempfile.TemporaryDirectory(prefix="pnp-plan-cache-") as tmp:
        cases = [Case(Path(tmp) / f"{label}-{n}", n, code, f"{n} cards, {label}")
                 for n in a.cards for code, label in codes]
        for i in range(a.pairs):
            for case in cases:
                case.pair(i)
    print(f"{a.pairs} alternating pairs (load {os.getloadavg()[0]:.2f}):")
    for case in cases:
        print("  " + case.summary())


if __name__ == "__main__":
    main()
