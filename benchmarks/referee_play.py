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
average, whatever the length of the log."""

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
    options = parser.parse_args()
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
