"""Many `pnp` commands, one after another, in one process of their own: bounded in memory
and CPU, watched by an audit hook (PEP 578). The hostile-sheet tests started 32 `python -m
pnp` processes, each paying the interpreter's and pnp's start-up (most of its CPU) for a
command that reads one file and stops (issue 34: the suite's CPU). What a process each
gave them is kept, command by command:

- the real entry point (pnp.cli.entry.main, what `python -m pnp` runs), its exit status,
  and what it wrote on its stdout and stderr (the file descriptors, as a parent sees them);
- its CPU (user + system, the process's and any child's, counted around the command);
- its peak memory: the process's peak is reset before each command (/proc/self/clear_refs,
  Linux); where it cannot be, the peak so far, which bounds the command's from above;
- the programs it started and the files under its folder it opened: the hook is installed
  before anything is imported and writes each command's events to that command's log.

A process of its own is still the point: its limits (RLIMIT_AS, RLIMIT_CPU) make a
blow-up fail the tests, not the machine, and the timeout catches a hang. A command the
process did not live to finish gets the process's exit status and the end of its stderr.
Between commands the garbage of the last one is collected (pnp freezes the heap at the
end of a command, as a process about to exit can)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.pnp.hostile_support import Run, audited, limits

ROOT = Path(__file__).resolve().parents[2]
_RUN_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
               "os.fork", "os.forkpty", "pty.spawn"}


@dataclass(frozen=True)
class Command:
    """`pnp ARGS` in `cwd`; files opened under `watch` are recorded, `watch/cache` is its
    cache folder (PNP_CACHE_DIR) and `watch/.audit` holds its log and output."""

    args: tuple[str, ...]
    cwd: Path
    watch: Path


def run_bounded(commands: list[Command], scratch: Path, *, max_mb: int = 900, cpu_s: int = 60,
                timeout: float = 180, env: dict[str, str] | None = None) -> list[Run]:
    """Run `commands` in order in one process limited to `max_mb` of address space and
    `cpu_s` of CPU, its environment this one's with `env` applied (a PATH, say); one Run
    per command (hostile_support's, read the same way)."""
    scratch.mkdir(parents=True, exist_ok=True)
    spec = []
    for i, command in enumerate(commands):
        audit = command.watch / ".audit"
        audit.mkdir(parents=True, exist_ok=True)
        spec.append({"args": list(command.args), "cwd": str(command.cwd),
                     "watch": str(command.watch.resolve()), "cache": str(command.watch / "cache"),
                     "log": str(audit / f"log-{i}"), "out": str(audit / f"out-{i}"),
                     "err": str(audit / f"err-{i}")})
    (scratch / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    results = scratch / "results.jsonl"
    try:
        proc = subprocess.run([sys.executable, "-m", "tests.carddb.bounded", str(scratch)],
                              cwd=scratch, env={**os.environ, **(env or {}),
                                                "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              timeout=timeout, preexec_fn=limits(max_mb, cpu_s))
        ended = f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    except subprocess.TimeoutExpired:
        ended = f"did not finish in {timeout} s"
    done = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()] \
        if results.exists() else []
    return [_read(spec[i], done[i]) if i < len(done)
            else Run(-1, "", f"the bounded process ended before this command ({ended})",
                     float("nan"), float("nan"), [], [])
            for i in range(len(spec))]


def _read(command: dict, result: dict) -> Run:
    log = Path(command["log"])
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    started, opened = audited(lines)
    return Run(result["code"], Path(command["out"]).read_text(encoding="utf-8"),
               Path(command["err"]).read_text(encoding="utf-8"), result["cpu"],
               result["rss_kb"] / 1024, started, opened)


# --- the bounded process (python -m tests.carddb.bounded SCRATCH) ---

_audit: dict = {"fd": None, "watch": ""}


def _hook(event: str, args: tuple) -> None:
    fd = _audit["fd"]
    if fd is None:
        return
    if event in _RUN_EVENTS:
        os.write(fd, ("run\t" + event + "\t" + repr(args)[:300].replace("\n", " ")
                      + "\n").encode("utf-8", "replace"))
    elif event == "open" and args and isinstance(args[0], (str, bytes)):
        path = os.fsdecode(args[0])
        if path.startswith(_audit["watch"]):
            mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            write = any(c in mode for c in "wax+") or flags & (os.O_WRONLY | os.O_RDWR)
            os.write(fd, (("write" if write else "read") + "\t" + path + "\n").encode(
                "utf-8", "replace"))


def _cpu() -> float:
    own, children = (resource.getrusage(who)
                     for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_kb(reset: bool) -> int:
    if reset:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss     # KB on Linux


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)        # sys.exit("text"): printed, status 1
    return 1


def _command(args: list[str]) -> int:
    """`pnp ARGS` as `python -m pnp` runs it; an escaped exception is a traceback and 1."""
    import traceback

    from pnp.cli.entry import main

    sys.argv = ["pnp", *args]
    try:
        main()
    except SystemExit as done:
        return _exit_code(done.code)
    except BaseException:               # noqa: BLE001 (what the interpreter would print)
        traceback.print_exc()
        return 1
    return 0


def _one(command: dict) -> dict:
    import gc

    gc.unfreeze()
    gc.collect()
    reset = _reset_peak()
    os.environ["PNP_CACHE_DIR"] = command["cache"]
    os.chdir(command["cwd"])
    out = os.open(command["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(command["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    log = os.open(command["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    saved = os.dup(1), os.dup(2)
    os.dup2(out, 1)
    os.dup2(err, 2)
    _audit.update(fd=log, watch=command["watch"])
    before = _cpu()
    try:
        code = _command(command["args"])
    finally:
        cpu = _cpu() - before
        _audit.update(fd=None)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (out, err, log, *saved):
            os.close(fd)
    return {"code": code, "cpu": cpu, "rss_kb": _peak_kb(reset)}


def main(scratch: Path) -> None:
    sys.addaudithook(_hook)             # before pnp (or anything it imports) is loaded
    commands = json.loads((scratch / "spec.json").read_text(encoding="utf-8"))
    with open(scratch / "results.jsonl", "w", encoding="utf-8") as results:
        for command in commands:
            results.write(json.dumps(_one(command)) + "\n")
            results.flush()             # kept if a later command kills the process


if __name__ == "__main__":
    main(Path(sys.argv[1]))
