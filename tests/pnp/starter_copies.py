"""One copy of the `pnp init` starter per test, at the same path for every test of a
module (issue 34 item 3: the suite's CPU). The templates a run compiles and the card plans
it keeps are per project folder (pnp.draw.render._templates_for, Jinja's bytecode cache
names each file by its path, pnp.draw.plan_cache), so a test's run compiles and plans only
what it edited, not every template and card again. Nothing else of an earlier test is
left: the playground is made anew (a project's git history too), and the copy keeps the
starter's modification times, so what was cached of an edited file is stale by its time."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.harness import run_cli


def make_starter(folder: Path) -> Path:
    """`pnp init FOLDER` (once a module: each test edits a copy)."""
    done = run_cli("pnp", "init", str(folder))
    assert done.returncode == 0, done.stderr
    return folder


def fresh_copy(starter: Path, playground: Path, name: str = "game") -> Path:
    """A fresh copy of `starter` at `playground/name`, the playground emptied first."""
    shutil.rmtree(playground, ignore_errors=True)
    playground.mkdir()
    folder = playground / name
    shutil.copytree(starter, folder)
    return folder
