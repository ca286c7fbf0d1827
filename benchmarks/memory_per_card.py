"""Peak memory of `pnp build` per card, and of `pnp export tts`.

    PYTHONPATH=. python benchmarks/memory_per_card.py [--cards 19995] [--small 80]
        [--runs 1] [--against DIR]

The project is the `pnp init` starter with its Ships deck grown to N cards (ships.csv, as
benchmarks/plan_cache_edit.py makes it; 19,995 by default: with the starter's other
cards, 20,000 designs, carddb's limit). Each figure is one fresh
`python -m pnp build --force --jobs 1` (every artefact drawn in that one process), its
peak read inside the process when it ends: VmHWM, the high-water mark of its own resident
memory (ru_maxrss would keep the parent's across fork and exec), and its CPU (user + sys).

Per card, two ways:
- the issue's figure (issue 36): the peak at N cards divided by N;
- the marginal figure: (peak at N cards - peak at the small deck) / (N - small), what
  one more card costs once the imports, fonts and templates are paid.
Targets (issue 36 item 4): at most 10 KiB per card at 20,000 cards (the issue's figure),
and `pnp export tts --jobs 1` of the 80-card starter deck under 100 MiB.

`--against DIR`: a checkout of the code before (e.g. `git archive main | tar -x -C DIR`):
each size is built with it and with this checkout alternately (A B A B ...), and the
ratios of peak and CPU are printed, medians of `--runs`. Each checkout has a plan cache
of its own (PNP_CACHE_DIR): when their drawing code differs, so do their plans' keys, and
a --force build reads the stored plans of its deck (to keep, not re-pickle, the same
ones): sharing one cache, each would also read the other's plans. The first run of each
size starts with no plans stored; a later run (`--runs 2`) finds the first one's.
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
BUILD_TARGET_KIB = 10
TTS_TARGET_MIB = 100

# Runs the pnp command in this process, then prints its peak (KiB) and CPU (s) on stderr.
CHILD = """\
import os, runpy, sys
sys.argv = ["pnp", *sys.argv[1:]]
try:
    runpy.run_module("pnp", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
else:
    code = 0
finally:
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
    t = os.times()
    sys.stderr.write(f"\\n@@peak {hwm} {t.user + t.system:.4f}\\n")
sys.exit(code)
"""


def measure(code: Path, project: Path, cache: Path, *args: str) -> tuple[int, float]:
    """(peak KiB, CPU seconds) of `pnp ARGS` in a fresh process running `code`."""
    env = {**os.environ, "PYTHONPATH": str(code), "PNP_CACHE_DIR": str(cache)}
    run = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=project, env=env,
                         capture_output=True, text=True)
    last = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ""
    if run.returncode != 0 or not last.startswith("@@peak "):
        sys.exit(f"pnp {' '.join(args)} failed: {run.stderr.strip()[-600:]}")
    _, kib, cpu = last.split()
    return int(kib), float(cpu)


def make_project(where: Path, cards: int) -> Path:
    """The starter project with a Ships deck of `cards` cards."""
    return grown_starter(where / f"game-{cards}", cards)


BUILD = ("build", "--force", "--jobs", "1")
TTS = ("export", "tts", "--jobs", "1")


def figures(codes: list[Path], projects: dict[int, Path], cache: Path,
            runs: int) -> dict[tuple[str, int | str], list[tuple[int, float]]]:
    """Peaks and CPU per (code label, deck size or 'tts'), runs alternating the codes."""
    out: dict[tuple[str, int | str], list[tuple[int, float]]] = {}
    labels = ["before", "after"] if len(codes) == 2 else ["this"]
    for _ in range(runs):
        for size, project in projects.items():
            for label, code in zip(labels, codes, strict=True):
                out.setdefault((label, size), []).append(
                    measure(code, project, cache / label, *BUILD))
        small = min(projects)
        for label, code in zip(labels, codes, strict=True):
            out.setdefault((label, "tts"), []).append(
                measure(code, projects[small], cache / label, *TTS))
    return out


def report(found: dict, sizes: tuple[int, int], labels: list[str]) -> None:
    small, large = sizes
    med = {k: (statistics.median(p for p, _ in v), statistics.median(c for _, c in v))
           for k, v in found.items()}
    for label in labels:
        (lo, _), (hi, cpu) = med[(label, small)], med[(label, large)]
        per_card = hi / large
        marginal = (hi - lo) / (large - small)
        tts = med[(label, "tts")][0] / 1024
        print(f"[{label}] build --force --jobs 1: {small} cards {lo / 1024:.0f} MiB, "
              f"{large} cards {hi / 1024:.0f} MiB ({cpu:.2f} s CPU)")
        print(f"[{label}]   per card: {per_card:.1f} KiB (peak / N; target <= "
              f"{BUILD_TARGET_KIB}: {'met' if per_card <= BUILD_TARGET_KIB else 'NOT met'}), "
              f"marginal {marginal:.1f} KiB ((peak N - peak {small}) / (N - {small}))")
        print(f"[{label}] export tts, {small} cards: {tts:.0f} MiB (target < {TTS_TARGET_MIB}: "
              f"{'met' if tts < TTS_TARGET_MIB else 'NOT met'})")
    if len(labels) == 2:
        for key in (small, large, "tts"):
            a, b = found[("before", key)], found[("after", key)]
            peaks = [y[0] / x[0] for x, y in zip(a, b, strict=True)]
            cpus = [y[1] / x[1] for x, y in zip(a, b, strict=True)]
            print(f"after / before, {key}: peak {statistics.median(peaks):.3f}, CPU "
                  f"{statistics.median(cpus):.3f} (median of {len(a)} alternating pairs; "
                  f"CPU range {min(cpus):.3f}-{max(cpus):.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=19_995)
    parser.add_argument("--small", type=int, default=80)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--against", type=Path, default=None,
                        help="a checkout of the code before: alternate and compare")
    a = parser.parse_args()
    codes = [a.against.resolve(), ROOT] if a.against else [ROOT]
    with tempfile.TemporaryDirectory(prefix="pnp-memory-") as tmp:
        projects = {n: make_project(Path(tmp), n) for n in (a.small, a.cards)}
        cache = Path(tmp) / "cache"
        found = figures(codes, projects, cache, a.runs)
    report(found, (a.small, a.cards), ["before", "after"] if a.against else ["this"])


if __name__ == "__main__":
    main()
