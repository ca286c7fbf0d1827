"""`pnp build` of one 80-card deck against decksmith (PyPI) on the same 80 cards.

decksmith is set up by ../shared/bench/decksmith-80.sh DIR (a venv with decksmith, its
deck.yaml and the 79 X-Statix common cards + 1 as deck.csv); it is timed as that script
says: `decksmith build --output out && decksmith export out --output deck.pdf`.

Ours: a project holding the bundled X-Statix game (`pnp init --example x-statix`), timed
as `pnp build --game x-statix --only common --force` (the 80-card common deck redrawn in
full, its PDF written) from a warm load cache: the database is not re-validated (carddb
cache) but every card is drawn again (--force: no incremental shortcut).

The floor: benchmarks/reportlab_floor.py, a fresh process that imports ReportLab,
registers the same fonts and draws as many card fronts with plain canvas calls, each
sheet followed by its backs (the back drawn once, as pnp draws it), as a hand-written
ReportLab script would; no program drawing these cards with ReportLab costs much less. All three run as fresh processes,
alternately (decksmith, pnp, floor), ROUNDS times; the medians of their CPU time (user +
system) give the ratios. Targets (issue 36 item 1): pnp at least 40x less CPU than
decksmith and at most 2.0x the floor.

Both run byte-compiled, as installed: pip wrote decksmith's .pyc files into its venv, and
a `pip install` of pnp writes them too. So the benchmark lets Python cache ours (in a
temporary PYTHONPYCACHEPREFIX, nothing written in the repository) even where
PYTHONDONTWRITEBYTECODE is set, which would otherwise make every run compile pnp's
sources again; --no-bytecode measures that case instead.

`--pnp-venv DIR` runs the pnp installed in a venv (`python -m venv DIR && DIR/bin/pip
install .`), as decksmith runs from its own: a venv starts Python without the global
site-packages' .pth hooks, which on some machines (this sandbox's) import packages
into every interpreter start.

`--baseline DIR` also times the pnp of another checkout (say the main branch's, `git
worktree add`) in every round, after ours, on a project and cache folder of its own: a
before-and-after in one alternating run.

    python benchmarks/vs_decksmith.py --decksmith /tmp/decksmith [--rounds 3] [--no-bytecode]
                                      [--pnp-venv DIR | --checkout DIR] [--baseline DIR]
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
TARGET = 1 / 40                 # issue 36 item 1: at least 40x less CPU than decksmith
FLOOR_TARGET = 2.0              # ... and at most 2.0x the bare ReportLab floor
sys.path.insert(0, str(ROOT))


CPU: list[float] = []  # CPU seconds (user + system) of each timed run, in order


def timed(args: list[str], cwd: Path, env: dict | None = None) -> float:
    """Wall-clock seconds of one run; its CPU seconds are appended to CPU (on a shared,
    loaded machine the wall clock mostly measures the other processes)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decksmith", type=Path, required=True,
                        help="folder prepared by ../shared/bench/decksmith-80.sh")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-bytecode", action="store_true",
                        help="compile pnp's sources in every run (as PYTHONDONTWRITEBYTECODE "
                             "without .pyc files does), instead of byte-compiled as installed")
    parser.add_argument("--pnp-venv", type=Path,
                        help="run the pnp installed in this venv instead of this checkout")
    parser.add_argument("--checkout", type=Path, default=ROOT,
                        help="run the pnp of this checkout (default: the one holding this "
                             "benchmark), e.g. the main branch's for a before-and-after")
    parser.add_argument("--baseline", type=Path,
                        help="also time the pnp of this checkout in each round (before/after)")
    args = parser.parse_args()
    ds = args.decksmith.resolve()
    exe = ds / "venv" / "bin" / "decksmith"
    if not exe.is_file():
        print(f"no decksmith in {ds}: run ../shared/bench/decksmith-80.sh {ds} first",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="vs-decksmith-") as tmp:
        project = Path(tmp) / "project"
        env = {**os.environ, "PYTHONPATH": str(args.checkout.resolve()),
               "PNP_CACHE_DIR": str(Path(tmp) / "cache")}
        if not args.no_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        pnp = [sys.executable, "-m", "pnp"]
        if args.pnp_venv is not None:
            pnp = [str(args.pnp_venv.resolve() / "bin" / "python"), "-m", "pnp"]
            del env["PYTHONPATH"]                       # the venv's installed pnp
        subprocess.run([*pnp, "init", str(project), "--example", "x-statix"], env=env,
                       check=True, stdout=subprocess.DEVNULL)
        ours_cmd = [*pnp, "build", "--game", "x-statix", "--only", "common", "--force"]
        timed(ours_cmd, project, env)                   # warms the load cache
        base = _baseline(args.baseline, Path(tmp), env) if args.baseline else None
        base_cmd = [sys.executable, "-m", "pnp", *ours_cmd[3:]]   # from its PYTHONPATH
        if base is not None:
            timed(base_cmd, base[0], base[1])           # its load cache warmed too
        import carddb

        count = carddb.load(project / "cards.yaml").games["x-statix"].decks["common"].count
        floor_cmd = [sys.executable, str(ROOT / "benchmarks" / "reportlab_floor.py"),
                     str(count), str(Path(tmp) / "floor.pdf"), "--backs"]
        timed(floor_cmd, project, env)                  # its byte-compiled files too
        ours, theirs, ours_cpu, theirs_cpu, floor_cpu, base_cpu = [], [], [], [], [], []
        for _ in range(args.rounds):
            CPU.clear()
            theirs.append(timed([str(exe), "build", "--output", "out"], ds)
                          + timed([str(exe), "export", "out", "--output", "deck.pdf",
                                   "--page-size", "Letter"], ds))
            ours.append(timed(ours_cmd, project, env))
            timed(floor_cmd, project, env)
            if base is not None:
                timed(base_cmd, base[0], base[1])
                base_cpu.append(CPU[4])
            theirs_cpu.append(CPU[0] + CPU[1])
            ours_cpu.append(CPU[2])
            floor_cpu.append(CPU[3])
    ratio = statistics.median(ours) / statistics.median(theirs)
    cpu_ratio = statistics.median(ours_cpu) / statistics.median(theirs_cpu)
    floor_ratio = statistics.median(ours_cpu) / statistics.median(floor_cpu)
    print(f"decksmith, 80 cards:      median {statistics.median(theirs):.2f} s "
          f"(runs: {', '.join(f'{t:.2f}' for t in theirs)})")
    print(f"pnp build, {count} cards:      median {statistics.median(ours):.2f} s "
          f"(runs: {', '.join(f'{t:.2f}' for t in ours)})")
    print(f"CPU seconds: decksmith median {statistics.median(theirs_cpu):.2f}, "
          f"pnp median {statistics.median(ours_cpu):.2f}, "
          f"floor median {statistics.median(floor_cpu):.2f}")
    print(f"ratio pnp/decksmith: {ratio:.4f} = 1/{1 / ratio:.0f} wall clock, "
          f"1/{1 / cpu_ratio:.0f} CPU time "
          f"(target under 1/{1 / TARGET:.0f}: wall {'met' if ratio < TARGET else 'missed'}, "
          f"CPU {'met' if cpu_ratio < TARGET else 'missed'}; "
          f"pnp {'compiled from source in every run' if args.no_bytecode else 'byte-compiled'}"
          f"{', installed in ' + str(args.pnp_venv) if args.pnp_venv else ', checkout ' + str(args.checkout)})")
    print(f"ratio pnp/floor: {floor_ratio:.2f}x CPU (target at most {FLOOR_TARGET:.1f}x: "
          f"{'met' if floor_ratio <= FLOOR_TARGET else 'missed'})")
    if base_cpu:
        before = statistics.median(base_cpu)
        print(f"baseline {args.baseline}: CPU median {before:.2f} s = 1/"
              f"{statistics.median(theirs_cpu) / before:.0f} of decksmith, "
              f"{before / statistics.median(floor_cpu):.2f}x the floor; "
              f"ours/baseline {statistics.median(ours_cpu) / before:.3f}")
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


def _baseline(checkout: Path, tmp: Path, env: dict) -> tuple[Path, dict]:
    """(project, env) of the baseline checkout's own runs: its project and cache folder
    apart from ours (each checkout's code keys its caches)."""
    base_env = {**env, "PYTHONPATH": str(checkout.resolve()),
                "PNP_CACHE_DIR": str(tmp / "base-cache")}
    project = tmp / "base-project"
    subprocess.run([sys.executable, "-m", "pnp", "init", str(project), "--example",
                    "x-statix"], env=base_env, check=True, stdout=subprocess.DEVNULL)
    return project, base_env


if __name__ == "__main__":
    raise SystemExit(main())
