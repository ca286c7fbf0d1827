"""README.md opens with the two set-up commands, and CI runs the second one verbatim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```(?:sh|bash)?\n(.*?)```", text, re.S)
    assert block and text.index(block.group(0)) < 400, "README must open with the commands"
    return [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("#")]


def test_readme_opens_with_two_commands():
    build, tests = readme_commands()
    assert build == "python3 -m pip install -e . && python3 -m pnp build"
    assert "pip install -e '.[test]'" in tests
    # on every core, a file's tests together (its module fixtures are made once)
    assert tests.endswith("python3 -m pytest -n auto --dist loadfile")


def test_ci_runs_the_readme_test_command():
    _, tests = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI activates its venv first, so `python3` and `python` are the same interpreter.
    assert tests.replace("python3 ", "python ") in ci.replace("python3 ", "python ")


def test_a_ci_run_that_collects_no_test_fails(pytester, monkeypatch):
    """pytest exits 5 when it collects nothing, with the README's -n auto too, and .ci/run
    stops on any non-zero exit: a run that tests nothing does not pass. The run is
    pytester's in this process (its modules and paths put back after): a child pytest
    cost a second of CPU importing what this process holds; xdist's worker is still a
    process of its own, as in CI."""
    pytest.importorskip("xdist")
    _, tests = readme_commands()
    options = tests.split("python3 -m pytest", 1)[1].split()
    # only xdist of the installed plugins; and `-n auto` as one worker, not one a core
    # (each an interpreter importing pytest, for no test)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "1")
    empty = pytester.runpytest_inprocess("-p", "xdist", *options, "-p", "no:cacheprovider")
    stdout = str(empty.stdout)
    assert empty.ret == 5 and "1 worker [0 items]" in stdout, stdout[-2000:]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "set -euo pipefail" in ci
    run = next(ln for ln in ci.splitlines() if "-m pytest" in ln)
    assert run.rstrip().endswith("python -m pytest" + tests.split("python3 -m pytest", 1)[1])
