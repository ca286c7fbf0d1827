"""CPU of one `referee play` line, as a ratio to `python -c "import click"`, in one run.

Run from the project root:  python benchmarks/referee_play.py [--lines N] [--events 10,1000,50000]

`play` answers every line in-process (referee/play/loop.py), so a line costs what its
command costs once the interpreter runs: the session opened (with the verified mark:
the same at event 10 and 50,000), the click command, the state read again for the next
question. Measured with `time.process_time()` around `Table.feed(line)` plus the next
question (`Table.refresh`, `next_question`), through the library API, on a 3-player
X-Statix session (the table's deck) of each size: `status` (reads), `mt Ann +0` (writes
one event), `log --last 20` (a screenful); and a whole 2-player X-Statix game played
through `Table.play()` from scripted lines (every turn passed, discards named: the walk's
compulsory steps, free draws, phase passes and `xs next` included), its CPU divided by the
lines fed. `import click` is a child process, measured as
in benchmarks/referee_startup.py. The goal (issue 23, item 1): a line <= 20 ms of CPU on
average, whatever the length of the log.

`--base REF` (issue 36, item 5) compares this tree with `git archive REF` in one run: each
tree measures in a child process of its own, on copies of the same sessions (each made by
its tree: the same events, in the session format that tree writes), the trees taking turns (`--rounds`): a writing line (`mt Ann +0`) and `status` at each size (CPU per
line, the mean of `--lines`), and the first open of each session without its verified
mark (`Session.check` on a fresh copy: CPU, the least of 3; and the peak memory,
VmHWM, of a process that does only that). Goals: a writing line at 50,000 events at
most 1.2x the line at 10; the first open of 50,000 events at most 200 ms of CPU."""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

LINES = ("status", "mt Ann +0", "log --last 20")


def line_cpu(table: object, line: str) -> float:
    from referee.play.loop import Table

    assert isinstance(table, Table)
    sink = io.StringIO()
    start = time.process_time()
    with redirect_stdout(sink), redirect_stderr(sink):
        table.feed(line, None)
        table.refresh()
        table.next_question()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=30, help="lines of each kind per size")
    parser.add_argument("--events", default="10,1000,50000")
    parser.add_argument("--base", help="compare with this git ref (e.g. main), in turns")
    parser.add_argument("--rounds", type=int, default=2, help="turns of each tree (--base)")
    parser.add_argument("--child", nargs=2, metavar=("TREE", "SESSIONS"), help=argparse.SUPPRESS)
    parser.add_argument("--peak", nargs=2, metavar=("TREE", "SESSION"), help=argparse.SUPPRESS)
    parser.add_argument("--make", nargs=2, metavar=("TREE", "FOLDER"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        return child(*options.child, options.lines)
    if options.peak:
        return peak(*options.peak)
    if options.make:
        return make(*options.make, options.events)
    if options.base:
        return compare(options)
    from referee_startup import child_cpu, make_session

    work = tempfile.mkdtemp(prefix="referee-play-bench-")
    os.environ["PNP_CACHE_DIR"] = str(Path(work) / "cache")  # the verified mark, as at a table
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    click_cpu = statistics.median(child_cpu([sys.executable, "-c", "import click"], env)
                                  for _ in range(9))
    from referee.play.loop import Table

    print(f"import click (child process): {click_cpu * 1000:.1f} ms CPU (median of 9)")
    print(f"{'line':<16}{'events':>8}{'mean ms':>10}{'median ms':>11}{'x click':>9}")
    for size in [int(n) for n in options.events.split(",") if n.strip()]:
        path = Path(work) / f"session-{size}.db"
        make_session(path, size)
        table = Table(str(path), None, iter(()), io.StringIO())
        table.refresh()
        for line in LINES:  # warm: imports, the card database, the mark
            line_cpu(table, line)
        for line in LINES:
            times = [line_cpu(table, line) for _ in range(options.lines)]
            mean = statistics.mean(times)
            print(f"{line:<16}{size:>8}{mean * 1000:>10.1f}"
                  f"{statistics.median(times) * 1000:>11.1f}{mean / click_cpu:>9.2f}")
    cpu, fed, events = whole_game(work)
    per = cpu / fed
    print(f"a whole game: {fed} lines, {events} events, {cpu:.2f} s CPU: "
          f"{per * 1000:.1f} ms a line = {per / click_cpu:.2f}x import click")


def _fresh_copy(source: Path, folder: Path) -> Path:
    import shutil

    target = folder / f"copy-{len(list(folder.iterdir()))}-{source.name}"
    shutil.copyfile(source, target)
    return target


def _use_tree(tree: str) -> None:
    sys.path[:] = [tree, *[p for p in sys.path if p not in (str(ROOT), tree)]]


def child(tree: str, sessions: str, lines: int) -> None:
    """In a process of its own, with `tree`'s referee: print the figures as JSON."""
    import json
    import shutil

    _use_tree(tree)
    work = Path(tempfile.mkdtemp(prefix="referee-play-child-"))
    os.environ["PNP_CACHE_DIR"] = str(work / "cache")  # this tree's own marks
    from referee.play.loop import Table
    from referee.session import Session

    assert Path(sys.modules["referee"].__file__ or "").is_relative_to(tree)
    figures: dict[str, float] = {}
    for source in sorted(Path(sessions).glob("session-*.db")):
        size = int(source.stem.split("-")[1])
        opens = []
        for _ in range(3):
            fresh = _fresh_copy(source, work)
            start = time.process_time()
            Session.check(str(fresh))
            opens.append(time.process_time() - start)
        figures[f"first open @{size}"] = min(opens)
        path = work / source.name
        shutil.copyfile(source, path)
        table = Table(str(path), None, iter(()), io.StringIO())
        table.refresh()
        for line in ("status", "mt Ann +0"):
            line_cpu(table, line)  # warm
        for line in ("mt Ann +0", "status"):
            figures[f"{line} @{size}"] = statistics.mean(line_cpu(table, line)
                                                         for _ in range(lines))
    print(json.dumps(figures))
    shutil.rmtree(work, ignore_errors=True)


def make(tree: str, folder: str, events: str) -> None:
    """With `tree`'s referee: the sessions of `events` events in `folder`."""
    _use_tree(tree)
    os.environ["PNP_CACHE_DIR"] = "off"
    from referee_startup import make_session

    import carddb.model  # noqa: F401  (from `tree`: make_session puts this tree on the path)
    import referee.command  # noqa: F401
    import referee.games  # noqa: F401

    assert Path(sys.modules["referee"].__file__ or "").is_relative_to(tree)
    for size in [int(n) for n in events.split(",") if n.strip()]:
        make_session(Path(folder) / f"session-{size}.db", size)


def peak(tree: str, session: str) -> None:
    """Peak memory (KiB) of a process that imports the referee and opens `session` (a
    fresh copy: no mark): VmHWM, the high-water mark of this process's own memory
    (ru_maxrss keeps the parent's across fork and exec: it made the sessions)."""
    import resource

    _use_tree(tree)
    os.environ["PNP_CACHE_DIR"] = "off"
    from referee.session import Session

    Session.check(session)
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
    except OSError:
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def compare(options: argparse.Namespace) -> None:
    import json
    import shutil
    import subprocess

    work = Path(tempfile.mkdtemp(prefix="referee-play-compare-"))
    sizes = [int(n) for n in options.events.split(",") if n.strip()]
    base = work / "base"
    base.mkdir()
    archive = subprocess.run(["git", "archive", options.base], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
    trees = {options.base: str(base), "this tree": str(ROOT)}
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PNP_CACHE_DIR")}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    me = str(Path(__file__).resolve())
    sessions = {name: work / f"sessions-{i}" for i, name in enumerate(trees)}
    for name, tree in trees.items():
        sessions[name].mkdir()
        subprocess.run([sys.executable, me, "--make", tree, str(sessions[name]), "--events",
                        options.events], env=env, check=True)
    for _ in range(options.rounds):
        for name, tree in trees.items():
            largest = sessions[name] / f"session-{max(sizes)}.db"
            out = subprocess.run([sys.executable, me, "--child", tree, str(sessions[name]),
                                  "--lines", str(options.lines)], env=env, check=True,
                                 capture_output=True, text=True).stdout
            figures = json.loads(out.strip().splitlines()[-1])
            fresh = _fresh_copy(largest, work)
            kib = subprocess.run([sys.executable, me, "--peak", tree, str(fresh)], env=env,
                                 check=True, capture_output=True, text=True).stdout
            figures[f"peak MiB, first open @{max(sizes)}"] = int(kib.split()[-1]) * 1024
            fresh.unlink()
            results[name].append(figures)
    least = {name: {key: min(r[key] for r in runs) for key in runs[0]}
             for name, runs in results.items()}
    this, before = least["this tree"], least[options.base]
    print(f"least over {options.rounds} rounds (the trees in turns): CPU ms; peak MiB")
    print(f"  {'':<34}{options.base:>10}{'this tree':>11}{'ratio':>8}")
    for key in before:
        scale = 1 / 2**20 if key.startswith("peak") else 1000
        print(f"  {key:<34}{before[key] * scale:>10.1f}{this[key] * scale:>11.1f}"
              f"{this[key] / before[key]:>7.2f}x")
    small, big = min(sizes), max(sizes)
    for name, figures in least.items():
        write = figures[f"mt Ann +0 @{big}"] / figures[f"mt Ann +0 @{small}"]
        read = figures[f"status @{big}"] / figures[f"status @{small}"]
        print(f"  {name}: at {big} events a writing line costs {write:.2f}x the line at "
              f"{small}, status {read:.2f}x")
    shutil.rmtree(work, ignore_errors=True)


def whole_game(work: str) -> tuple[float, int, int]:
    """(CPU seconds, lines fed, events) of a whole scripted game through `Table.play()`."""
    import subprocess

    from referee.command import load_cards
    from referee.play.loop import Table

    path = Path(work) / "game.db"
    subprocess.run([sys.executable, "-m", "referee", "--session", str(path), "new", "x-statix",
                    "--players", "Ann,Bob", "--owner", "Ann=Spike Freeman", "--owner",
                    "Bob=Solomon O’Sullivan", "--roll", "5,4,6,3,2,2,5,1,6,2"],
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    db = load_cards(None, "x-statix")
    names = iter([c.name for c in db.games["x-statix"].decks["common"].cards
                  for _ in range(c.copies)])
    lines = []
    for turn in range(70):
        lines += ["", "", ", ".join(next(names, "") for _ in range(3 if turn == 1 else 1))]
    fed = iter(lines)
    count = {"n": 0}

    def counted() -> Iterator[str]:
        for line in fed:
            count["n"] += 1
            yield line

    table = Table(str(path), None, counted(), io.StringIO())
    sink = io.StringIO()
    start = time.process_time()
    with redirect_stdout(sink), redirect_stderr(sink):
        table.play()
    cpu = time.process_time() - start
    assert "game over" in table.out.getvalue()  # type: ignore[attr-defined]
    return cpu, count["n"], table.seq


if __name__ == "__main__":
    main()
