"""The one test harness (issue 34): run `pnp` and `referee` as a user would, in this
process (fast) or, where a real process is the point, in a subprocess.

Both return a `subprocess.CompletedProcess` (returncode, stdout, stderr as text), so a test
reads the same whichever it used:

    run_cli("pnp", "validate", cwd=project)            # in-process, ~50 ms
    run_process("referee", "play", input="...")         # a real `python -m referee`

In-process runs go through the command's own `main` (click's CliRunner), in the folder
`cwd`, with `env` applied to os.environ for the call only (a value of None removes a
variable) and REFEREE_SESSION/REFEREE_CARDS cleared unless `env` sets them, so a test does
not inherit the developer's shell. An exception the command did not turn into a one-line
error is not swallowed: its traceback is appended to stderr and the exit code is 1, as a
real process would show it (tests that assert "Traceback" not in stderr still catch it).

Use run_process only where a process is the point: signals, the installed wheel, the
exit code of the real entry point, concurrent writers, a pty, start-up imports.
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
BUNDLED = ROOT / "cards.yaml"

# Variables a developer's shell may hold that change what a command does.
_CLEARED = {"REFEREE_SESSION": None, "REFEREE_CARDS": None}


def _command(program: str):
    if program == "pnp":
        from pnp.cli.main import main
        return main
    if program == "referee":
        from referee.cli import main
        return main
    raise ValueError(f"run_cli runs pnp or referee, not {program!r}")


def run_cli(program: str, *args: str, cwd: Path | str | None = None,
            env: Mapping[str, str | None] | None = None, input: str | bytes | None = None,
            timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run `program ARGS` in this process (program is "pnp" or "referee").

    `timeout` is accepted for symmetry with run_process and ignored: an in-process command
    that hangs is a failing test either way."""
    from click.testing import CliRunner

    command = _command(program)
    runner = CliRunner(env={**_CLEARED, **(env or {})})
    here = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        result = runner.invoke(command, [str(a) for a in args], input=input,
                               prog_name=program, catch_exceptions=True)
    finally:
        os.chdir(here)
    stderr = result.stderr
    code = result.exit_code
    error = result.exception
    if error is not None and not isinstance(error, SystemExit):
        assert result.exc_info is not None
        stderr += "".join(traceback.format_exception(*result.exc_info))
        code = 1
    return subprocess.CompletedProcess([program, *map(str, args)], code, result.stdout, stderr)


def process_env(env: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """os.environ with the checkout importable and the developer's session variables
    cleared, then `env` applied (None removes)."""
    merged: dict[str, str | None] = {**os.environ, "PYTHONPATH": str(ROOT), **_CLEARED,
                                     **(env or {})}
    return {key: value for key, value in merged.items() if value is not None}


def default_sigint() -> None:
    """A `preexec_fn` for a child a test sends SIGINT (Ctrl-C) to: the signal back at its
    default. A run started with SIGINT ignored (a shell's background job, `pytest ... &`)
    passes the ignoring on across exec, and Python then installs no KeyboardInterrupt
    handler: the child would never see the Ctrl-C the test is about."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_process(program: str, *args: str, cwd: Path | str | None = None,
                env: Mapping[str, str | None] | None = None, input: str | None = None,
                timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `python -m program ARGS` in a real process, with the checkout importable."""
    return subprocess.run([sys.executable, "-m", program, *map(str, args)], cwd=cwd or ROOT,
                          env=process_env(env), capture_output=True, text=True, input=input,
                          timeout=timeout)
