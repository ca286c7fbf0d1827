"""The floors CI installs (.ci/floors, issue 34 item 4): every runtime and test dependency
of pyproject.toml declares a `>=` floor, pinned there as `name==floor`."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def floors_module():
    spec = importlib.util.spec_from_file_location("ci_floors", ROOT / ".ci" / "floors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_dependency_is_pinned_at_its_declared_floor():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    pins = floors_module().floors(ROOT / "pyproject.toml")
    assert len(pins) == len(declared)
    assert "reportlab==4.4.3" in pins and "pypdf==4.2" in pins and "mypy==2.4.1" in pins
    assert all(pin.count("==") == 1 for pin in pins), pins


@pytest.mark.parametrize("requirement", ["numpy", "numpy<3", "numpy==1.24"])
def test_a_dependency_without_a_floor_is_refused(tmp_path, requirement):
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\ndependencies = ["{requirement}"]\n'
        '[project.optional-dependencies]\ntest = ["pytest>=8"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match=f"'{requirement}' declares no `>=` floor"):
        floors_module().floors(tmp_path / "pyproject.toml")


def test_a_range_and_a_marker_keep_the_floor(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\ndependencies = ["mypy>=2.4.1,<2.5", "rl_accel>=0.9; python_version>\'3\'"]\n'
        '[project.optional-dependencies]\ntest = []\n', encoding="utf-8")
    assert floors_module().floors(tmp_path / "pyproject.toml") == ["mypy==2.4.1",
                                                                    "rl_accel==0.9"]
