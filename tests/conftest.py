"""Session-wide test set-up; the harness that runs the commands is tests/harness.py."""

from __future__ import annotations

import gc
import hashlib
import os
import sys
import tempfile
from pathlib import Path

import pytest

from tests.harness import ROOT, run_cli


def _compile_once() -> None:
    """Under PYTHONDONTWRITEBYTECODE (set on some machines) every test process and every
    CLI subprocess compiled the project, and pytest rewrote every test module, from source
    again: a third of a `pnp build` subprocess's CPU. The run keeps compiled code in one
    folder outside the tree instead (PYTHONPYCACHEPREFIX; subprocesses and xdist workers
    share it, Python checks each file against its source)."""
    if not sys.dont_write_bytecode:
        return
    key = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    prefix = str(Path(tempfile.gettempdir()) / f"pnp-referee-tests-pycache-{key}")
    sys.dont_write_bytecode = False
    sys.pycache_prefix = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix


_compile_once()


@pytest.fixture(autouse=True, scope="session")
def _private_load_cache(tmp_path_factory):
    """Validated databases are cached on disk (carddb.cache): the tests keep theirs apart
    from the user's ~/.cache, subprocesses included."""
    os.environ["PNP_CACHE_DIR"] = str(tmp_path_factory.mktemp("pnp-cache"))


@pytest.fixture
def cli():
    return run_cli


# Started first: the longest test (a wheel built and installed, ~45 s), mostly waiting on
# pip; under `-n auto --dist loadfile` it then runs beside the other files, not alone last.
FIRST = ("test_wheel.py",)


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.path.name not in FIRST)


def pytest_collection_finish(session):
    """A test process, like a `pnp` process (pnp.cli.process.command_process), allocates
    far more than it frees: the cyclic collector walked every module, fixture and cache
    a worker holds, again and again, ~6 % of the CPU of tests/pnp (issue 34 item 3).
    What is alive once the tests are collected (imports, collected items) is frozen out
    of its walks, and collections are as rare as pnp's own. Garbage is still collected;
    a test that needs it gone at once calls gc.collect()."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
