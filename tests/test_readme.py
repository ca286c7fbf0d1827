"""README.md opens with the two set-up commands, and CI runs the second one verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```(?:sh|bash)?\n(.*?)```", text, re.S)
    assert block and text.index(block.group(0)) < 400, "README must open with the commands"
    return [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("#")]


def test_readme_opens_with_two_commands():
    build, tests = readme_commands()
    assert build == "python3 -m pip install -e . && python3 -m pnp build"
    assert "pip install -e '.[test]'" in tests and tests.endswith("python3 -m pytest")


def test_ci_runs_the_readme_test_command():
    _, tests = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI activates its venv first, so `python3` and `python` are the same interpreter.
    assert tests.replace("python3 ", "python ") in ci.replace("python3 ", "python ")
