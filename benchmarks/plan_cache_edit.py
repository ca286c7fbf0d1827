"""One card edited in an N-card deck against `--force`: CPU of a fresh `python -m pnp build`
each, alternating pairs in one run, with the ratio per pair; several deck sizes (and,
with --against, another checkout of pnp) measured in the same alternation.

    PYTHONPATH=. python benchmarks/plan_cache_edit.py [--cards 8000 80] [--pairs 5]
                                                      [--against OTHER_CHECKOUT]
                                                      [--resident ROUNDS]

Three figures, each a different reading of "one card edited":
- **fresh process** (the first, as before): `python -m pnp build` after one card was
  edited against `python -m pnp build --force`, each a process of its own, CPU of the
  child (user + system). Both pay the interpreter's start and the imports.
- **import floor**: a fresh process that sets itself up as the `pnp` command does
  (pnp.cli.process.command_process: the speed-ups, the collector's thresholds) and
  imports exactly the modules an edit build ends up with (listed from a real edit build
  of the same deck, in their order), then exits. No build can cost less, so floor /
  --force bounds the fresh-process ratio from below: when it is above the target, the
  target cannot be met by a fresh process whatever the edit build does beyond imports.
- **resident** (`--resident ROUNDS`): the edit against `--force` in ONE warm process,
  built as `pnp watch` builds (pnp.cli.watch.build_once, kept_sheets.hold(),
  incremental.hold(), the collector paused), CPU per build by time.process_time: a
  warm-up pair, then PAIRS alternating pairs, each editing a different card; ROUNDS
  such processes per checkout, alternating between checkouts. Imports are paid once,
  before the pairs, so this is the edit's own work against a forced build's.

The project is the `pnp init` starter with its Ships deck grown to N cards. The edit
build plans only the edited card again (pnp.draw.plan_cache) and draws only the sheet it
is on (the other sheets are shown as kept: pnp.artefacts.kept_sheets); `--force` plans
and draws every card. Each pair edits a different card, in the middle of the deck.
Targets (issue 36 item 2): the edit at most 0.10 of the CPU of --force at 8,000 cards,
at most 0.5 at 80.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _starter import grown_starter  # benchmarks/, the script's folder

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {8000: 0.10, 80: 0.5}


def cpu_of(args: list[str], cwd: Path, env: dict) -> float:
    """User + system CPU seconds of one child process (getrusage: microseconds, where
    os.times counts clock ticks of 10 ms, a twentieth of an 80-card edit)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        sys.exit(f"build failed: {run.stderr.strip()[-400:]}")
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


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
        self.floors: list[float] = []
        self.resident: list[tuple[float, float]] = []      # (--force, edit) per pair
        cpu_of(self.build, self.project, self.env)          # the first build: the cache
        self.modules = folder / "modules.txt"
        edit_card(self.project, 0)
        cpu_of([sys.executable, "-c", MODULES, str(self.modules), *self.build[3:]],
               self.project, self.env)                      # what an edit build imports

    def pair(self, i: int) -> None:
        self.forced.append(cpu_of([*self.build, "--force"], self.project, self.env))
        k = self.cards // 2 + i                              # a different card each pair
        ships = self.project / "ships.csv"
        text = ships.read_text()
        assert text.count(f"ship number {k}.\n") == 1
        ships.write_text(text.replace(f"ship number {k}.\n", f"ship number {k} (edit).\n"))
        self.edited.append(cpu_of(self.build, self.project, self.env))
        self.floors.append(cpu_of([sys.executable, "-c", FLOOR, str(self.modules)],
                                  self.project, self.env))
        print(f"pair {i + 1} {self.label}: --force {self.forced[-1]:6.2f} s CPU, one card "
              f"edited {self.edited[-1]:6.2f} s CPU, ratio "
              f"{self.edited[-1] / self.forced[-1]:.3f}; import floor {self.floors[-1]:6.2f} s, "
              f"floor/force {self.floors[-1] / self.forced[-1]:.3f} "
              f"(load {os.getloadavg()[0]:.2f})",
              flush=True)

    def resident_round(self, pairs: int) -> None:
        """One warm process, as `pnp watch` builds: a warm-up pair, then `pairs` pairs."""
        with tempfile.NamedTemporaryFile("r", suffix=".json") as result:
            args = [sys.executable, "-c", RESIDENT, result.name, str(pairs),
                    str(self.cards // 4 + len(self.resident)), str(self.cards)]
            run = subprocess.run(args, cwd=self.project, env=self.env, text=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if run.returncode != 0:
                sys.exit(f"resident builds failed: {run.stderr.strip()[-400:]}")
            got = [tuple(p) for p in json.load(result)]
        self.resident += got
        print(f"resident {self.label}: " + ", ".join(
            f"{f * 1000:.0f}/{e * 1000:.0f} ms" for f, e in got)
            + f" (--force/edit CPU; load {os.getloadavg()[0]:.2f})", flush=True)

    def summary(self) -> list[str]:
        target = TARGETS.get(self.cards)
        lines = [f"{self.label}, fresh process: one-card edit / --force CPU = "
                 + _ratios(self.edited, self.forced, target)
                 + f"; --force {statistics.median(self.forced):.2f} s, edit "
                   f"{statistics.median(self.edited):.2f} s CPU median",
                 f"{self.label}, import floor / --force CPU = "
                 + _ratios(self.floors, self.forced, None)
                 + f"; floor {statistics.median(self.floors):.2f} s CPU median: the least a "
                   "fresh edit process can cost" + _headroom(self.floors, self.forced, target)]
        if self.resident:
            forced, edited = ([p[i] for p in self.resident] for i in (0, 1))
            lines.append(f"{self.label}, resident (as pnp watch): one-card edit / --force "
                         "CPU = " + _ratios(edited, forced, target)
                         + f"; --force {statistics.median(forced) * 1000:.0f} ms, edit "
                           f"{statistics.median(edited) * 1000:.0f} ms CPU median, "
                           f"{len(forced)} pairs")
        return lines


def _ratios(part: list[float], whole: list[float], target: float | None) -> str:
    """The median of part/whole pair by pair, its range, and the verdict on `target`."""
    ratios = [p / w for p, w in zip(part, whole, strict=True)]
    med = statistics.median(ratios)
    verdict = "" if target is None else (
        f", target <= {target}: {'met' if med <= target else 'NOT met'}")
    return f"{med:.3f} median (range {min(ratios):.3f}-{max(ratios):.3f}{verdict})"


def _headroom(floors: list[float], forced: list[float], target: float | None) -> str:
    """What the target leaves a fresh edit process beyond its imports (median)."""
    if target is None:
        return ""
    left = statistics.median(target * f - c for c, f in zip(floors, forced, strict=True))
    return (f"; the target leaves {left * 1000:.0f} ms for the edit's work beyond them"
            if left > 0 else "; the target is out of a fresh process's reach")


def edit_card(project: Path, k: int) -> None:
    """Card `k` of ships.csv given a new text: "(edit 1)", then "(edit 2)", ... (after
    a pair's "(edit)": "(edit 1)")."""
    ships = project / "ships.csv"
    text, n = re.subn(rf"ship number {k}(?: \(edit ?(\d*)\))?\.\n",
                      lambda m: f"ship number {k} (edit {int(m[1] or 0) + 1}).\n",
                      ships.read_text())
    assert n == 1, k
    ships.write_text(text)


# A real edit build (python -m pnp build ...) that writes, at exit, the modules it ended up
# with, in the order they were imported: neither those the interpreter had before the
# command, nor the lazy stand-ins (pnp.lazy_pillow), which the floor must not load.
MODULES = """import atexit, runpy, sys
started, path = set(sys.modules), sys.argv[1]
def listed():
    with open(path, "w") as out:
        out.write("\\n".join(m for m, module in list(sys.modules.items())
                             if m not in started and m != "__main__" and module is not None
                             and type(module).__name__ != "_LazyModule"))
atexit.register(listed)
sys.argv = ["pnp", *sys.argv[2:]]
runpy.run_module("pnp", run_name="__main__")
"""

# The import floor: the `pnp` command's process set up as pnp.cli.entry sets it up, then
# the edit build's modules imported in their order, and nothing built.
FLOOR = """import importlib, sys
names = open(sys.argv[1]).read().split()
from pnp.cli.process import command_process
with command_process():
    for name in names:
        if name not in sys.modules:
            importlib.import_module(name)
sys.exit(0)
"""

# Resident builds, as `pnp watch` builds (pnp.cli.watch.watch_loop): in the command's
# process, kept sheets and card digests held, each build through build_once with the
# collector paused; a warm-up pair, then PAIRS (--force, edit) pairs timed by
# time.process_time, each editing the next card from FIRST; the pairs written as JSON.
RESIDENT = """import json, sys, time
from pathlib import Path
sys.path.insert(0, HERE)
from plan_cache_edit import edit_card
out_file, pairs, first, CARDS = sys.argv[1], *map(int, sys.argv[2:5])
from pnp.cli.process import command_process
with command_process():
    from pnp.artefacts import incremental, kept_sheets
    from pnp.cli.watch import _paused_gc, build_once
    from pnp.project import output
    kept_sheets.hold()
    incremental.hold()
    root = Path.cwd()
    out = output(None, root, "output")
    def built(extra):
        started = time.process_time()
        code, _ = _paused_gc(build_once, ["--only", "ships", *extra], out, root)
        took = time.process_time() - started
        assert code == 0, code
        return took
    got = []
    for i in range(-1, pairs):                  # -1: the warm-up pair, not kept
        forced = built(["--force"])
        edit_card(root, (first + i + 1) % CARDS)
        edited = built([])
        if i >= 0:
            got.append((forced, edited))
    with open(out_file, "w") as f:
        json.dump(got, f)
""".replace("HERE", repr(str(Path(__file__).resolve().parent)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, nargs="+", default=[8000])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout of pnp, measured in the same alternation")
    parser.add_argument("--resident", type=int, default=0, metavar="ROUNDS",
                        help="also ROUNDS warm processes per checkout building as pnp watch "
                             "does, each with PAIRS pairs after a warm-up (default: none)")
    a = parser.parse_args()
    codes = [(ROOT, "this")] + ([(a.against.resolve(), "against")] if a.against else [])
    with tempfile.TemporaryDirectory(prefix="pnp-plan-cache-") as tmp:
        cases = [Case(Path(tmp) / f"{label}-{n}", n, code, f"{n} cards, {label}")
                 for n in a.cards for code, label in codes]
        for i in range(a.pairs):
            for case in cases:
                case.pair(i)
        for _ in range(a.resident):
            for case in cases:
                case.resident_round(a.pairs)
    print(f"{a.pairs} alternating pairs (load {os.getloadavg()[0]:.2f}):")
    for case in cases:
        for line in case.summary():
            print("  " + line)


if __name__ == "__main__":
    main()
