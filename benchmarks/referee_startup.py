"""CPU of one-shot `referee` commands as a ratio to `python -c "import click"`, in one run.

Run from the project root:  python benchmarks/referee_startup.py [--runs N] [--events 10,1000]

Each command starts a fresh interpreter through the console script pip installs, as at
the table. The commands (`roll 3`, and on a 3-player X-Statix session of each size:
`status`, `mt Ann +0`, `log --limit 20`: a screenful, what `log` shows at a terminal) and
`python -c "import click"` are run in turn, interleaved, so that machine load affects
all alike; the figures are the median and the least CPU (user + system) of the child
process, read from `resource.getrusage(RUSAGE_CHILDREN)` before and after it (wall time on a shared machine
says more about the neighbours than about the referee). The issue's goal (23, item 5):
`status` and `roll 3` at most 1.3x `import click`, at 10 and at 5,000 events; every
command costs the same whatever the length of the log (item 4).

A session of N events is made through the library (`Session.create`, then N-1 `mt`
events recorded in one transaction), not by N processes. `mt Ann +0` adds an event per
run (a few, against thousands). Bytecode is cached (in a temporary PYTHONPYCACHEPREFIX,
for every command) as it is for an installed package; `--no-bytecode` compiles every
project module on each start instead.

`--instructions` counts instead of timing: each command once under valgrind's callgrind
(deterministic, whatever else the machine runs; a few seconds a command), as a ratio to
`import click`'s count."""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ["Ann", "Bob", "Cy"]
# The console script pip writes for the `referee` entry of pyproject.toml
# (`referee.oneshot:main`): what a table runs when it types `referee status`
# (`python -m referee` adds runpy's imports).
CONSOLE_SCRIPT = """import re
import sys
from {module} import {function}
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit({function}())
"""


def console_script() -> str:
    """The `referee` script pip would write for this tree's pyproject.toml."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    module, _, function = project["scripts"]["referee"].partition(":")
    return CONSOLE_SCRIPT.format(module=module, function=function)


def child_cpu(cmd: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) the command's process used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def child_instructions(cmd: list[str], env: dict[str, str]) -> int:
    """Instructions the command's process executed (valgrind --tool=callgrind)."""
    import re

    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           *cmd], env=env, check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    return int(re.findall(r"Collected : (\d+)", done.stderr)[-1])


def make_session(path: Path, events: int) -> None:
    """A 3-player X-Statix session (the table's deck) of `events` events, via the library."""
    sys.path.insert(0, str(ROOT))
    from referee import games
    from referee.command import load_cards
    from referee.session import Session

    module = games.module("x-statix")
    state = module.new_state(PLAYERS, load_cards(None, "x-statix"), random.Random(1), seed=1,
                             deal="table")
    Session.create(path, state, module.setup_summary(state), {"setup": state.get("setup")})
    if events > 1:
        with Session.open(path) as session:
            for i in range(events - 1):
                state = session.state
                before = state["table"]["Ann"]["mt"]
                after = before + (1 if i % 2 == 0 else -1)
                state["table"]["Ann"]["mt"] = after
                session.record("mt", f"Ann MT {after - before:+d}: {before} -> {after}",
                               {"player": "Ann", "op": "+", "amount": 1, "before": before,
                                "after": after}, state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--events", default="10,1000,50000",
                        help="session sizes, comma-separated (default 10,1000,50000)")
    parser.add_argument("--no-bytecode", action="store_true", help="compile on every start")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions (valgrind) instead of CPU time")
    options = parser.parse_args()
    sizes = [int(n) for n in options.events.split(",") if n.strip()]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REFEREE_SESSION", None)
    env.pop("REFEREE_CARDS", None)
    work = tempfile.TemporaryDirectory(prefix="referee-bench-")
    if options.no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(work.name) / "pycache")
    script = Path(work.name) / "referee"  # what `pip install` puts on the PATH as `referee`
    script.write_text(console_script(), encoding="utf-8")
    referee = [sys.executable, str(script)]
    commands: dict[str, list[str]] = {"import click": [sys.executable, "-c", "import click"],
                                      "roll 3": [*referee, "roll", "3"]}
    for size in sizes:
        path = Path(work.name) / f"session-{size}.db"
        make_session(path, size)
        # log --limit 20: a screenful (what `log` shows at a terminal), by the option's
        # old name, which referees before `--last` know too (to measure a "before")
        for words in (["status"], ["mt", "Ann", "+0"], ["log", "--limit", "20"]):
            commands[f"{' '.join(words)} @{size}"] = [*referee, "--session", str(path), *words]
    for cmd in commands.values():  # warm the OS file cache and the bytecode
        child_cpu(cmd, env)
    if options.instructions:
        counts = {name: child_instructions(cmd, env) for name, cmd in commands.items()}
        print("instructions per command (valgrind callgrind); ratio to `import click`")
        for name, count in counts.items():
            print(f"  {name:<22} {count / 1e6:8.1f} M  {count / counts['import click']:6.3f}x")
        work.cleanup()
        return
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(options.runs):
        for name, cmd in commands.items():
            times[name].append(child_cpu(cmd, env))
    click_median = statistics.median(times["import click"])
    click_min = min(times["import click"])
    mode = "no bytecode cache" if options.no_bytecode else "bytecode cached"
    print(f"CPU per command over {options.runs} runs ({mode}); ratio to `import click` "
          "(the median, and the least: the one a busy machine disturbs least)")
    print(f"  {'':<22} {'median':>8}     {'ratio':>6}  {'least':>8}     {'ratio':>6}")
    for name, values in times.items():
        median, least = statistics.median(values), min(values)
        print(f"  {name:<22} {median * 1000:8.1f} ms  {median / click_median:6.2f}x"
              f"  {least * 1000:8.1f} ms  {least / click_min:6.2f}x")
    work.cleanup()


if __name__ == "__main__":
    main()
