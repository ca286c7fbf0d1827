"""Run the real `referee` on hostile input inside time and memory bounds (a process is the
point: the bounds are resource limits set in the child, so a regression that eats memory
or CPU fails the test instead of the test run), and check the answer has the agreed shape:
one line on stderr, the exit code, a JSON object with --json (for any CompletedProcess,
the harness's in-process run_cli included)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

from tests.harness import ROOT, process_env

MEMORY_BYTES = 1 << 30  # address space: Python + sqlite + click need ~300 MB of it
CPU_SECONDS = 20
WALL_SECONDS = 60  # a hang guard only: what the child may spend is its CPU limit


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def bounded_referee(*args: str, cwd: Path | None = None, preexec=None) -> subprocess.CompletedProcess:
    """`python -m referee ARGS` under RLIMIT_AS / RLIMIT_CPU and a wall-clock timeout;
    `preexec` runs in the child too (after the limits)."""

    def setup() -> None:
        _limits()
        if preexec is not None:
            preexec()

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        env=process_env(),
        cwd=cwd or ROOT,
        timeout=WALL_SECONDS,
        preexec_fn=setup,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # its own CPU (user + system): a loaded machine does not make it look slow
    proc.cpu = (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)  # type: ignore[attr-defined]
    return proc


def refused(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    """The one error line of a refused command (exit `code`, no traceback)."""
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: "), proc.stderr[-2000:]
    return lines[0]


def refused_json(proc: subprocess.CompletedProcess, code: int = 2) -> dict:
    """With --json: the one error line, and stdout exactly one JSON object saying the same."""
    line = refused(proc, code)
    data = json.loads(proc.stdout)
    assert isinstance(data, dict) and data["ok"] is False and data["exit_code"] == code, data
    assert data["error"] in line
    return data
