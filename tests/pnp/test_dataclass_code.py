"""Compiled dataclass methods kept between runs (pnp.dataclass_code, issue 24): a class
made from kept code is the class dataclasses makes, and a second run compiles none."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

import carddb.cache
from pnp import dataclass_code

ROOT = Path(__file__).resolve().parents[2]
PROBE = ("import pnp.cli.main, pnp.dataclass_code as d\n"
         "pnp.cli.main.speed_ups()  # as the `pnp` command does (not `import pnp`: issue 36)\n"
         "import pnp.layout.geometry, carddb\n"
         "print(d._new, len(d._codes))")


def _run(cache: Path) -> list[str]:
    # a fresh process: what a start-up compiles (or finds kept) is the point
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(cache)}
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_a_second_run_compiles_no_dataclass_method(tmp_path):
    first = _run(tmp_path)
    assert first[0] == "True" and int(first[1]) > 50
    assert list(tmp_path.glob("dataclass-code-*"))
    assert _run(tmp_path) == ["False", first[1]]


def test_a_damaged_file_means_compiling_again(tmp_path):
    _run(tmp_path)
    (kept,) = tmp_path.glob("dataclass-code-*")       # (the kept patterns beside it)
    kept.write_bytes(b"\x00not marshal")
    assert _run(tmp_path)[0] == "True"


def test_a_class_from_kept_code_is_the_same_class(monkeypatch):
    def make(exec_):
        monkeypatch.setattr(dataclasses, "exec", exec_, raising=False)

        @dataclasses.dataclass(frozen=True, order=True)
        class Point:
            x: float
            y: float = 0.0
            tags: tuple = dataclasses.field(default=())

        return Point

    plain = make(exec)
    for _ in range(2):              # compiled, then from the kept code
        kept = make(dataclass_code._exec)
        p = kept(1.5, tags=("a",))
        assert repr(p) == repr(plain(1.5, tags=("a",)))
        assert p == kept(1.5, 0.0, ("a",)) and p < kept(2.0)
        assert hash(p) == hash(kept(1.5, tags=("a",)))
        assert kept.__init__.__annotations__ == plain.__init__.__annotations__
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.x = 2.0


@pytest.mark.parametrize("env", [{"PNP_CACHE_DIR": "off"}, {"PNP_CACHE_DIR": "/x/y"},
                                 {"XDG_CACHE_HOME": "/x/z"}, {"HOME": "/x/home"}])
def test_the_folder_is_carddbs(monkeypatch, env):
    for name in ("PNP_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    chosen = carddb.cache.folder()
    assert dataclass_code.folder() == (None if chosen is None else str(chosen))
