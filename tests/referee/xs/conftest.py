"""X-Statix rules tests: the catalog fixture; xs_support (next to this file) importable
by the test modules under pytest's importlib import mode."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from xs_support import load_catalog  # noqa: E402

from referee.xs.catalog import Catalog  # noqa: E402


@pytest.fixture(scope="session")
def cat() -> Catalog:
    return load_catalog()
