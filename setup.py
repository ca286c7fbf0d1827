"""The mypyc build of the balance lab's hot modules (the X-Statix rules engine and the
simulator): the same code, compiled to C, plays a game with about 1.8x fewer instructions
(issue 8's speed target needs it). Everything else is in pyproject.toml.

- `pip install .` and `pip install -e .` install pure Python: printing never runs these
  modules, and the compile was nearly all of a first install's time (issue 36, item 7).
- `REFEREE_MYPYC=1 pip install -e .` (or `python setup.py build_ext --inplace`) compiles
  them (build_backend.py then asks pip for mypy) when mypy and a C compiler work; otherwise it prints one line (shown with `pip -v`)
  and installs pure Python. Never a failed install.

A compiled build writes referee/_mypyc_manifest.txt (the sources' stamps and hashes); `referee`
checks it at import and runs pure Python, with a one-line notice, once a compiled
module's source has changed (referee/_mypyc.py)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# The module list and the source hashes, shared with the import-time guard (not `import
# referee`: that would run the guard).
_spec = importlib.util.spec_from_file_location("referee_mypyc", HERE / "referee/_mypyc.py")
guard = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(guard)
sys.path.insert(0, str(HERE))
from build_backend import compiling  # noqa: E402 (the one reading of REFEREE_MYPYC)

BUILDS = {"bdist_wheel", "build", "build_ext", "editable_wheel", "install", "develop"}


def notice(why: str) -> None:
    print(f"pnp-referee: installing pure Python, not compiled with mypyc ({why})",
          file=sys.stderr)


def wanted() -> bool:
    """Asked for: REFEREE_MYPYC=1 on a run that builds (metadata-only runs compile nothing),
    or `python setup.py build_ext --inplace` (a compiled tree rebuilt after an edit)."""
    commands = set(sys.argv[1:])
    return "build_ext" in commands or (compiling() and bool(BUILDS & commands))


def extensions() -> list:
    if not wanted():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        notice("mypy is not installed")
        return []
    cwd = os.getcwd()
    try:
        os.chdir(HERE)
        return mypycify([os.path.relpath(guard.source(m), HERE) for m in guard.COMPILED],
                        opt_level="3", group_name="referee")
    except (Exception, SystemExit) as e:  # mypy reports type errors with sys.exit
        notice(f"mypyc failed: {e}")
        return []
    finally:
        os.chdir(cwd)


class OptionalBuildExt(build_ext):
    """Builds the mypyc extensions; if the C compiler fails, removes whatever was built
    so that the package is plain Python again, and goes on."""

    def run(self) -> None:
        target = Path(self.build_lib if not self.inplace else HERE) / "referee" / guard.MANIFEST
        target.unlink(missing_ok=True)
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as e:  # CompileError, LinkError, missing compiler, ...
            notice(f"C build failed: {e}")
            self._remove_outputs()
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(guard.manifest_text())

    def _remove_outputs(self) -> None:
        for ext in self.extensions:
            name = self.get_ext_filename(self.get_ext_fullname(ext.name))
            for root in (self.build_lib, HERE if self.inplace else None):
                if root is not None:
                    Path(root, name).unlink(missing_ok=True)


class BuildPyWithGames(build_py):
    """Ships the bundled games as package data: the repository's cards.yaml and
    templates/ (the source of truth, where the project layout wants them) are copied into
    carddb/_bundled/ of the build, which is where an installed carddb looks for them."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return  # an editable install reads the repository's own files
        import shutil

        target = Path(self.build_lib) / "carddb" / "_bundled"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        shutil.copyfile(HERE / "cards.yaml", target / "cards.yaml")
        shutil.copytree(HERE / "templates", target / "templates")


setup(ext_modules=extensions(),
      cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPyWithGames})
