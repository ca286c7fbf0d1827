"""X-Statix rules tests: the catalog fixture; xs_support (next to this file) importable
by the test modules under pytest's importlib import mode."""

from __future__ import annotations

import pytest

from referee.xs.catalog import Catalog  # noqa: E402
from tests.referee.xs.xs_support import load_catalog  # noqa: E402


@pytest.fixture(scope="session")
def cat() -> Catalog:
    return load_catalog()
