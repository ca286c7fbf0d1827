"""The build backend: setuptools' own, asking for mypy only when the install compiles.

The referee's engine and the balance lab compile to C with mypyc only on request
(`REFEREE_MYPYC=1 pip install .`, setup.py): printing never runs them, and the compile
was nearly all of a first install's time (issue 36, item 7). So mypy is not in
[build-system] requires (pip would fetch and unpack it for every install); it is asked
for here, for the builds that compile, and setup.py then finds it."""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (every hook pip may call, as setuptools has it)

MYPY = "mypy==2.4.1"  # the mypyc the compiled modules are checked with (docs/ARCHITECTURE.md)


def compiling() -> bool:
    """REFEREE_MYPYC=1 compiles; anything else (unset, 0) installs pure Python."""
    return os.environ.get("REFEREE_MYPYC", "").strip() == "1"


def _with_mypy(requires: list[str]) -> list[str]:
    return [*requires, MYPY] if compiling() else requires


def get_requires_for_build_wheel(config_settings=None):
    return _with_mypy(_setuptools.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(config_settings=None):
    return _with_mypy(_setuptools.get_requires_for_build_editable(config_settings))
