"""The guard against stale compiled modules (referee/_mypyc.py, setup.py's mypyc build):
a compiled module whose source changed since the build must never run."""

from __future__ import annotations

import importlib.machinery
import os
from pathlib import Path

import pytest

from referee import _mypyc


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A fake project tree holding the sources of the compiled modules."""
    monkeypatch.setattr(_mypyc, "ROOT", str(tmp_path))
    for module in _mypyc.COMPILED:
        path = Path(_mypyc.source(module))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {module}\n")
    return tmp_path


def compile_fake(module: str) -> None:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    Path(_mypyc.source(module)[:-3] + suffix).write_bytes(b"")


def write_manifest(tree) -> None:
    (tree / "referee" / _mypyc.MANIFEST).write_text(_mypyc.manifest_text())


def test_pure_python_tree_is_never_stale(tree):
    assert _mypyc.stale() == []


def test_compiled_modules_without_a_manifest_are_all_stale(tree):
    compile_fake("referee.xs.play")
    assert _mypyc.stale() == list(_mypyc.COMPILED)


def test_fresh_build_is_not_stale_and_an_edit_makes_it_stale(tree):
    for module in _mypyc.COMPILED:
        compile_fake(module)
    write_manifest(tree)
    assert _mypyc.stale() == []
    Path(_mypyc.source("referee.xs.turn")).write_text("# edited\n")
    assert _mypyc.stale() == ["referee.xs.turn"]


def test_a_touched_but_unchanged_source_is_not_stale(tree):
    for module in _mypyc.COMPILED:
        compile_fake(module)
    write_manifest(tree)
    path = _mypyc.source("referee.xs.play")
    os.utime(path, ns=(0, 0))  # a checkout may rewrite a file with the same content
    assert _mypyc.stale() == []


def test_sources_finder_loads_the_py_file(tree):
    spec = _mypyc.Sources.find_spec("referee.xs.play")
    assert spec is not None and spec.origin == _mypyc.source("referee.xs.play")
    assert _mypyc.Sources.find_spec("referee.cli") is None  # only the compiled modules


def test_this_install_runs_no_stale_compiled_code():
    """Compiled (a manifest was written by the build) or not, nothing stale is loaded."""
    from referee.xs import play

    manifest = Path(_mypyc.ROOT, "referee", _mypyc.MANIFEST)
    if manifest.exists() and not _mypyc.stale():
        assert not hasattr(play.Play.roll, "__code__")  # the compiled module is in use
    else:
        assert hasattr(play.Play.roll, "__code__")  # pure Python


# ── issue 36, item 7: an install compiles only when asked ──────────────────────────
def _backend():
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("build_backend", root / "build_backend.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return root, module


@pytest.mark.parametrize("value, compiles", [(None, False), ("0", False), ("1", True),
                                             ("yes", False)])
def test_the_install_fetches_mypy_only_when_asked_to_compile(monkeypatch, value, compiles):
    import tomllib

    root, backend = _backend()
    if value is None:
        monkeypatch.delenv("REFEREE_MYPYC", raising=False)
    else:
        monkeypatch.setenv("REFEREE_MYPYC", value)
    assert backend.compiling() is compiles
    asked = backend._with_mypy(["setuptools>=68"])
    assert asked == (["setuptools>=68", backend.MYPY] if compiles else ["setuptools>=68"])
    system = tomllib.loads((root / "pyproject.toml").read_text())["build-system"]
    assert system["build-backend"] == "build_backend" and system["backend-path"] == ["."]
    assert not any(r.startswith("mypy") for r in system["requires"])  # never for printing
