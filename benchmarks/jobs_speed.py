"""`--jobs 2` against `--jobs 1`: wall time of the full bundled build (`pnp build
--force`) and of `pnp proof`, each a fresh process, alternating pairs in one run; or,
with --analyse, the speed-up an idle 2-core machine would show, worked out from CPU
times (which a busy machine does not distort much).

    PYTHONPATH=. python benchmarks/jobs_speed.py [--pairs 5] [--dpi 100]
    PYTHONPATH=. python benchmarks/jobs_speed.py --analyse [--dpi 100]

Target (issue 24): both at least 1.5x faster with 2 jobs on an idle 2-core machine. On a
shared machine the wall clock mostly measures the other processes: the load average is
printed with the result.

--analyse runs each command once with 1 job and once with 2 in a fresh process that
times (CPU) its phases and every piece of work (an artefact, a proofed deck), in this
process or in a worker, and prints: the serial part, the longest piece (the critical
path), the workers' start-up and the results they send back, and the predicted 2-job
wall time: the parent's CPU before and after the workers, plus the workers' pieces
dealt out in the order they were taken to two idle workers (each to the first free),
or the CPU of the workers and the parent while they work shared by two cores if more.
"""

from __future__ import annotations

import time

_BOOT = time.process_time()     # the interpreter's start, before anything of pnp

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5


def wall(args: list[str], env: dict) -> float:
    started = time.perf_counter()
    run = subprocess.run(args, env=env, capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}: {run.stderr.strip()[-300:]}")
    return time.perf_counter() - started


def environment(tmp: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(Path(tmp) / "c")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
    return env


def command(name: str, jobs: int, tmp: str, dpi: int) -> list[str]:
    """The pnp arguments of one run."""
    if name == "build":
        return ["build", "--force", "--out", str(Path(tmp) / f"b{jobs}"), "--jobs", str(jobs)]
    return ["proof", "--dpi", str(dpi), "--out", str(Path(tmp) / f"p{jobs}"), "--jobs",
            str(jobs)]


def pairs(a: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="pnp-jobs-") as tmp:
        env = environment(tmp)
        pnp = [sys.executable, "-m", "pnp"]
        wall([*pnp, *command("build", 1, tmp, a.dpi)], env)        # warm the caches
        results = {"build": ([], []), "proof": ([], [])}
        for i in range(a.pairs):
            for name in results:
                one, two = results[name]
                first, second = (1, 2) if i % 2 == 0 else (2, 1)   # alternate the order
                took = {first: wall([*pnp, *command(name, first, tmp, a.dpi)], env)}
                took[second] = wall([*pnp, *command(name, second, tmp, a.dpi)], env)
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


# ── --analyse: one instrumented run per process (--probe) ──────────────────────────

_PROBE: dict = {"phases": {}, "here": [], "log": None}


def _timed(module, name: str, label: str) -> None:
    """Add the CPU time of module.name's calls to the phase `label`."""
    original = getattr(module, name)

    def timed(*args, **kwargs):
        started = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            phases = _PROBE["phases"]
            phases[label] = phases.get(label, 0.0) + time.process_time() - started

    setattr(module, name, timed)


def _piece_name(piece) -> str:
    if isinstance(piece, list):                 # a deck's faces (proof)
        return f"{piece[0].deck.game}/{piece[0].deck.id}"
    return f"{piece.game}/{piece.name}"         # an Artefact (build)


def _log_piece(piece, started: float, began: float, result) -> None:
    import pickle

    entry = {"pid": os.getpid(), "piece": _piece_name(piece), "cpu": time.process_time()
             - started, "cpu_at_start": started, "began": began,
             "bytes": len(pickle.dumps(result)), "failed": result is None}
    with open(_PROBE["log"], "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


def _probe_draw(art):
    """project_build._worker_draw, timed (forked workers find it in __main__)."""
    began, started = time.time(), time.process_time()
    result = _PROBE["draw"](art)
    _log_piece(art, started, began, result)
    return result


def _probe_work(piece):
    """workers._work (in_order's pieces: proof decks), timed."""
    began, started = time.time(), time.process_time()
    result = _PROBE["work"](piece)
    _log_piece(piece, started, began, result)
    return result


def probe(name: str, jobs: int, tmp: str, dpi: int) -> dict:
    """Run `pnp NAME` here, instrumented; what it measured (CPU seconds)."""
    import resource

    import pnp.cli.main
    from pnp.artefacts import build, project_build, workers
    from pnp.cli import support
    from pnp.draw import fonts
    from pnp.exports import proof

    cli = time.process_time()
    _PROBE["log"] = str(Path(tmp) / f"pieces-{name}-{jobs}.jsonl")
    Path(_PROBE["log"]).unlink(missing_ok=True)
    _timed(project_build, "load_database", "database")
    _timed(support, "load", "database")
    _timed(fonts, "register_fonts", "fonts")
    _timed(support, "make_renderer", "renderer")
    _timed(proof, "gallery_html", "gallery")
    from pnp.artefacts import drawn, incremental
    from pnp.draw import stamp

    _timed(incremental.Plan, "__init__", "input hashes")
    _timed(incremental.Plan, "digest", "input hashes")
    _timed(incremental.Plan, "finished", "manifest")
    _timed(incremental.Plan, "save", "manifest")
    _timed(drawn, "latest", "reprint record")
    _timed(drawn, "next_record", "reprint record")
    _timed(drawn, "save_record", "reprint record")
    _timed(stamp, "stamp", "reprint record")
    _timed(build, "commit_staged", "commit")
    for module, attr in ((build, "build_artefact"), (proof, "proof_deck")):
        original = getattr(module, attr)

        def here(*args, _original=original, **kwargs):
            piece = args[1]
            started = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                _PROBE["here"].append((_piece_name(piece), time.process_time() - started))

        setattr(module, attr, here)
    _PROBE["draw"], project_build._worker_draw = project_build._worker_draw, _probe_draw
    _PROBE["work"], workers._work = workers._work, _probe_work
    marks: dict[str, float] = {}
    opened, closed = workers.Workers.__init__, workers.Workers.close

    def opening(self, *args, **kwargs):
        marks.setdefault("pool_start", time.process_time())
        marks.setdefault("pool_wall", time.time())
        opened(self, *args, **kwargs)

    def closing(self):
        left = closed(self)
        marks["pool_end"] = time.process_time()
        return left

    workers.Workers.__init__, workers.Workers.close = opening, closing
    started = time.process_time()
    try:
        pnp.cli.main.main(command(name, jobs, tmp, dpi))
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
    total = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    pieces = []
    if Path(_PROBE["log"]).exists():
        pieces = [json.loads(line) for line in Path(_PROBE["log"]).read_text().splitlines()]
    return {"boot": _BOOT, "imports": cli - _BOOT, "run": total - started, "total": total,
            "phases": _PROBE["phases"], "here": _PROBE["here"], "workers": pieces,
            "pool_start": marks.get("pool_start"), "pool_end": marks.get("pool_end"),
            "pool_wall": marks.get("pool_wall"),
            "children": children.ru_utime + children.ru_stime}


def start_cost() -> dict:
    """Starting 2 workers that hold the bundled database, by each start method: wall
    and CPU (this process and the workers) until both answered a no-op."""
    import multiprocessing
    import pickle
    import resource
    from concurrent.futures import ProcessPoolExecutor

    from pnp.artefacts.project_build import load_database

    db = load_database(ROOT / "cards.yaml")
    found = {"database_pickled_bytes": len(pickle.dumps(db))}
    for method in ("fork", "forkserver", "spawn"):
        if method not in multiprocessing.get_all_start_methods():
            continue
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu, started = time.process_time(), time.perf_counter()
        with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(method),
                                 initializer=_hold, initargs=(db,)) as pool:
            list(pool.map(_noop, range(2)))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        found[method] = {"wall": time.perf_counter() - started,
                         "parent_cpu": time.process_time() - cpu,
                         "workers_cpu": (after.ru_utime + after.ru_stime)
                         - (before.ru_utime + before.ru_stime)}
    return found


_HELD: list = []


def _hold(db) -> None:
    import pnp.draw.render  # noqa: F401  (what a worker needs before its first piece)

    _HELD.append(db)


def _noop(_: int) -> int:
    time.sleep(0.05)         # both workers answer, not one twice
    return os.getpid()


def greedy(costs: list[float], workers: int = 2) -> tuple[float, list[float]]:
    """The wall time of pieces taken in this order by `workers` idle workers, each
    piece to the first free one; and each worker's busy time."""
    free = [0.0] * workers
    for cost in costs:
        i = free.index(min(free))
        free[i] += cost
    return max(free, default=0.0), free


def analyse(a: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="pnp-jobs-") as tmp:
        env = environment(tmp)
        wall([sys.executable, "-m", "pnp", *command("build", 1, tmp, a.dpi)], env)  # warm
        runs = {}
        for name in ("build", "proof"):
            for jobs in (1, 2):
                done = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--probe", name,
                     "--jobs", str(jobs), "--dpi", str(a.dpi), "--tmp", tmp],
                    env=env, capture_output=True, text=True, cwd=ROOT)
                if done.returncode != 0:
                    sys.exit(f"probe {name} {jobs} failed: {done.stderr.strip()[-500:]}")
                runs[name, jobs] = json.loads(done.stdout.strip().splitlines()[-1])
        starts = json.loads(subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--probe", "start"], env=env,
            capture_output=True, text=True, cwd=ROOT, check=True).stdout.splitlines()[-1])
    load = os.getloadavg()
    print(f"CPU-time analysis, {os.cpu_count()} cores, load average {load[0]:.1f} "
          f"{load[1]:.1f} {load[2]:.1f} (CPU seconds; wall times are not used)")
    predictions = {name: report(name, runs[name, 1], runs[name, 2]) for name in ("build",
                                                                                "proof")}
    print("worker start-up (2 workers holding the bundled database, until both answered; "
          f"database pickled: {starts.pop('database_pickled_bytes') / 1024:.0f} KiB):")
    for method, m in starts.items():
        theirs = ("n/a (the server's children)" if method == "forkserver"
                  else f"{m['workers_cpu']:.3f}")
        print(f"  {method:10} wall {m['wall']:.3f} s, parent CPU {m['parent_cpu']:.3f}, "
              f"workers' CPU {theirs}")
    for name, up in predictions.items():
        print(f"{name}: predicted 2-job speed-up on an idle 2-core machine {up:.2f}x "
              f"(target >= {TARGET}x: {'met' if up >= TARGET else 'NOT met'})")


def report(name: str, one: dict, two: dict) -> float:
    """Print the analysis of one command; the predicted 2-job speed-up."""
    t1 = one["total"]
    here = one["here"]
    pieces = sum(c for _, c in here)
    longest = max(here, key=lambda p: p[1])
    phases = one["phases"]
    if "renderer" in phases:            # (proof) the fonts are registered by it
        phases["renderer (fonts included)"] = phases.pop("renderer")
        phases.pop("fonts", None)
    named = sum(v for k, v in phases.items() if k != "gallery")
    rest = one["run"] - pieces - named
    serial = t1 - pieces
    print(f"\n{name} --jobs 1: {t1:.3f} s CPU in all = interpreter {one['boot']:.3f} + "
          f"imports {one['imports']:.3f} + " + " + ".join(
              f"{k} {v:.3f}" for k, v in phases.items() if k != "gallery")
          + f" + {len(here)} pieces {pieces:.3f} + the rest {rest:.3f} (renderer and "
          "first-use imports, card entries, gallery...)")
    print(f"  serial part {serial:.3f} s ({serial / t1:.0%}); longest piece {longest[0]} "
          f"{longest[1]:.3f} s = critical path {longest[1] / t1:.0%} of the run, "
          f"{longest[1] / pieces:.0%} of the pieces")
    amdahl = t1 / (serial + max(pieces / 2, longest[1]))
    print(f"  bound with 2 workers (serial + max(pieces / 2, longest)): {amdahl:.2f}x")
    top = sorted(here, key=lambda p: -p[1])[:5]
    print("  costliest pieces: " + ", ".join(f"{n} {c:.3f}" for n, c in top))
    w = sorted(two["workers"], key=lambda p: p["began"])     # the order they were taken
    if not w:
        print(f"  --jobs 2 used no workers (run {two['total']:.3f} s)")
        return t1 / two["total"]
    by_pid: dict[int, list] = {}
    for p in w:
        by_pid.setdefault(p["pid"], []).append(p)
    # a worker's CPU before its first piece (its start after the fork) goes with that piece
    costs = []
    for p in w:
        first = by_pid[p["pid"]][0] is p
        costs.append(p["cpu"] + (p["cpu_at_start"] if first else 0.0))
    span, busy = greedy(costs)
    before = two["pool_start"] if two["pool_start"] is not None else two["total"]
    after = two["total"] - (two["pool_end"] if two["pool_end"] is not None else before)
    during = (two["pool_end"] or before) - before
    # the parent's CPU while the workers draw takes a core from them (2 cores, 3 processes)
    t2 = before + max(span, (sum(busy) + during) / 2) + after
    done_by = {pid: sum(p["cpu"] for p in ps) + ps[0]["cpu_at_start"]
               for pid, ps in by_pid.items()}
    extra = sum(costs) - pieces
    sent = [p["bytes"] for p in w]
    print(f"{name} --jobs 2: parent {before:.3f} s before the workers, {during:.3f} while "
          f"they work, {after:.3f} after; {len(by_pid)} workers did "
          + ", ".join(f"{len(by_pid[pid])} pieces in {c:.3f}" for pid, c in done_by.items())
          + f" (the pieces cost {extra:+.3f} s more than in one process: each worker's "
          "first-use warm-up)")
    print(f"  results sent back: {sum(sent) / 1024:.0f} KiB in all, largest "
          f"{max(sent) / 1024:.0f} KiB; failed in a worker: "
          f"{sum(p['failed'] for p in w)}")
    print(f"  dealt to 2 idle workers in the order taken: {span:.3f} s (busy "
          + " / ".join(f"{b:.3f}" for b in busy) + f"); predicted wall {t2:.3f} s vs "
          f"{t1:.3f} s with 1 job: {t1 / t2:.2f}x")
    return t1 / t2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--dpi", type=int, default=100)
    parser.add_argument("--analyse", action="store_true",
                        help="predict the idle 2-core speed-up from CPU times")
    parser.add_argument("--probe", choices=("build", "proof", "start"), help=argparse.SUPPRESS)
    parser.add_argument("--jobs", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--tmp", help=argparse.SUPPRESS)
    a = parser.parse_args()
    if a.probe == "start":
        print(json.dumps(start_cost()))
    elif a.probe:
        print(json.dumps(probe(a.probe, a.jobs, a.tmp, a.dpi)))
    elif a.analyse:
        analyse(a)
    else:
        pairs(a)


if __name__ == "__main__":
    main()
