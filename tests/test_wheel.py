"""A package like any other (issue 15): a wheel built from the repository, installed in a
fresh virtual environment outside it, gives working `pnp` and `referee` commands in an
empty folder: the bundled games, templates and the `pnp init` starter are package data.
The venv has no system site-packages and holds what the wheel declares (issue 22 item 1):
a missing dependency in pyproject.toml fails here.

pip builds the wheel and installs it, as a user's pip does; the dependencies the wheel
declares (and theirs, markers evaluated for this interpreter) are the ones this test run
has, linked into the venv first, so pip finds them installed and reaches no index
(--no-index: a declared requirement they do not satisfy fails the install). Letting pip
resolve them from an index read every index page of ~30 projects and checked ~30,000
file names against the interpreter's tags: two thirds of the test's CPU, for pip's work,
not the package's. Checked in one test: the build and the install are the cost."""

from __future__ import annotations

import email.parser
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from pypdf import PdfReader

from pnp.exports.pdfx import check_pdfx, colour_operations

ROOT = Path(__file__).resolve().parent.parent


def run(*args, cwd: Path, env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def declared(wheel: Path) -> list[Requirement]:
    """The wheel's Requires-Dist: what pip installs with it."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))
    return [Requirement(line) for line in metadata.get_all("Requires-Dist") or []]


def needed(requirements: list[Requirement]) -> list[importlib.metadata.Distribution]:
    """The distributions of this environment that `requirements` need, and what those
    need in turn: markers evaluated for this interpreter (the venv's), extras followed."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [(req, "") for req in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(req.name)
        if key not in found:
            try:
                found[key] = importlib.metadata.distribution(req.name)
            except importlib.metadata.PackageNotFoundError:
                raise AssertionError(f"{req} is declared; the tests' environment lacks it") \
                    from None
        todo += [(Requirement(line), e) for line in found[key].requires or []
                 for e in ("", *req.extras)]
    return list(found.values())


def link_into(site: Path, dist: importlib.metadata.Distribution) -> None:
    """`dist`'s files (its RECORD: modules, compiled modules, data, its .dist-info) put in
    `site` as pip would have unpacked them, scripts outside site-packages left out: hard
    links (nothing writes to an installed file in place; a new compiled module replaces
    its file), symbolic ones across file systems. Thousands of files: os calls, not
    pathlib, and a symbolic link costs some kernels twenty times a hard one."""
    source_root = os.fspath(dist.locate_file(""))
    made: set[str] = set()
    for file in dist.files or ():
        name = os.fspath(file)
        if name.startswith(".."):
            continue
        source, target = os.path.join(source_root, name), os.path.join(site, name)
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        try:
            os.link(source, target)
        except FileExistsError:         # a file two distributions both list: the first's
            pass
        except FileNotFoundError:       # listed, not there (as pip would find it)
            pass
        except OSError:                 # another file system, or links refused
            os.symlink(source, target)


_BUILT = shutil.ignore_patterns(".git", "output", "build", "*.egg-info", "__pycache__", ".venv",
                                ".*_cache", ".hypothesis", "*.so")
# Folders of the checkout's top no wheel takes a file from (pyproject.toml's packages are
# carddb, pnp, referee): half its bytes, copied for nothing (the wheel is the same without).
_NOT_PACKAGED = {"tests", "docs", "benchmarks"}


def left_out(folder: str, names: list[str]) -> set[str]:
    """What the copy the wheel is built from leaves out of `folder` (shutil.copytree)."""
    top = _NOT_PACKAGED & set(names) if Path(folder) == ROOT else set()
    return set(_BUILT(folder, names)) | top


def _pip_folder() -> Path:
    """This interpreter's pip package, found from its installed metadata: importing pip
    here, or asking the import system for it (importlib.util.find_spec), turns off
    setuptools' distutils shim (_distutils_hack) for the rest of this worker, and a later
    test that loads setuptools then fails (test_mypyc_guard)."""
    folder = Path(str(importlib.metadata.distribution("pip").locate_file("pip")))
    assert (folder / "__init__.py").is_file(), folder
    return folder


def _builds_wheels() -> bool:
    """Whether this environment's setuptools builds wheels itself (70.1 and later: its own
    bdist_wheel; before, with the `wheel` package), asked of its metadata, not by importing
    it (see _pip_folder)."""
    if importlib.util.find_spec("wheel") is not None:
        return True
    try:
        return Version(importlib.metadata.version("setuptools")) >= Version("70.1")
    except importlib.metadata.PackageNotFoundError:
        return False


def test_wheel_installs_working_pnp_and_referee(tmp_path):
    # REFEREE_MYPYC unset: the plain install, which compiles nothing (issue 36, item 7)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PNP_CMYK_ICC", "REFEREE_MYPYC")}
    env.update(PNP_CACHE_DIR=str(tmp_path / "cache"), PIP_NO_INPUT="1")
    wheels = tmp_path / "wheels"
    # Without build isolation when the build tools are here (the test extras' setuptools:
    # a second of CPU less than pip making a build environment, and no download).
    isolation = ["--no-build-isolation"] if _builds_wheels() else []
    # Built from a copy: pip builds in the source tree (build/, *.egg-info).
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=left_out)
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation, "-w",
                wheels, source, cwd=tmp_path, env=env)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = wheels.glob("pnp_referee-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name  # pure Python: no compile
    venv = tmp_path / "venv"
    # No pip of its own (bootstrapping one is seconds of the test): this pip installs into it.
    made = run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path, env=env)
    assert made.returncode == 0, made.stderr
    bin_dir = venv / "bin"
    site = Path(sysconfig.get_path("purelib", "venv", vars={"base": str(venv)}))
    assert site.is_dir(), site
    for dist in needed(declared(wheel)):
        link_into(site, dist)
    # This pip run by the venv's interpreter, as the venv's own pip would be, with only the
    # pip package on its path: it sees the venv alone. (pip's --python does the same from
    # a second pip process, 0.3-0.45 s more CPU.) --no-compile: pip byte-compiling the
    # package proves nothing here; the commands below import (and so compile) what they run.
    runner = tmp_path / "pip-only"
    runner.mkdir()
    (runner / "pip").symlink_to(_pip_folder(), target_is_directory=True)
    installed = run(bin_dir / "python", "-m", "pip", "install", "-q",
                    "--disable-pip-version-check", "--no-compile", "--no-index", wheel,
                    cwd=tmp_path, env={**env, "PYTHONPATH": str(runner)})
    assert installed.returncode == 0, installed.stderr[-2000:]
    # What the wheel declares is enough: nothing comes from the interpreter's site-packages.
    # The installed package, not this checkout, answers (the venv never sees the
    # repository), with the CMYK profile it ships. One process asks all three.
    asked = run(bin_dir / "python", "-c", "import sys; print(sys.prefix != sys.base_prefix, "
                "any('site-packages' in p and not p.startswith(sys.prefix) for p in sys.path))\n"
                "import carddb; print(carddb.bundled_path())\n"
                "from pnp.exports import cmyk; print(cmyk.SHIPPED_ICC)", cwd=tmp_path, env=env)
    alone, where, shipped = asked.stdout.splitlines()
    assert alone.split() == ["True", "False"], asked
    assert str(venv) in where and where.endswith("_bundled/cards.yaml"), asked
    assert shipped.startswith(str(venv)) and shipped.endswith("pnp-fogra39.icc"), asked

    empty = tmp_path / "empty"
    empty.mkdir()
    pnp, referee = bin_dir / "pnp", bin_dir / "referee"
    nothing = run(pnp, "build", cwd=empty, env=env)
    assert nothing.returncode == 1 and "pnp init" in nothing.stderr, nothing.stderr
    assert not (empty / "output").exists()
    for args in (["init"], ["validate"], ["build"], ["proof"]):
        result = run(pnp, *args, cwd=empty, env=env)
        assert result.returncode == 0, (args, result.stderr)
    assert (empty / "output" / "harbour" / "ships.pdf").is_file()
    assert (empty / "output" / "proof" / "index.html").is_file()
    # DriveThruCards' CMYK PDF/X-1a from a plain install: the profile pnp ships (issue 22
    # item 2) is the OutputIntent, and every colour operator is CMYK.
    dtc = run(pnp, "export", "--deck", "ships", "--profile", "dtc", "--out", empty / "dtc",
              cwd=empty, env=env)
    assert dtc.returncode == 0, dtc.stderr
    pdf = PdfReader(empty / "dtc" / "harbour" / "ships.pdf")
    intent = pdf.trailer["/Root"]["/OutputIntents"][0].get_object()
    assert intent["/DestOutputProfile"].get_object().get_data() == Path(shipped).read_bytes()
    ops = {op for page in pdf.pages for op, _, _ in colour_operations(pdf, page)}
    assert ops and ops <= {"k", "K"}
    assert check_pdfx(empty / "dtc" / "harbour" / "ships.pdf") == []
    # The bundled games, from the package, beside a project of another game.
    for game in ("x-statix", "xo"):
        result = run(referee, "--session", empty / f"{game}.db", "new", game,
                     "--players", "Ann,Bob", "--seed", "1", cwd=empty, env=env)
        assert result.returncode == 0, (game, result.stderr)
    example = tmp_path / "example"
    assert run(pnp, "init", example, "--example", "xo", cwd=tmp_path, env=env).returncode == 0
    result = run(pnp, "build", "--project", example, "--only", "statuses", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert (example / "output" / "xo" / "statuses.pdf").is_file()
