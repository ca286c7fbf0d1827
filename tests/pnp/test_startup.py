"""What a warm `pnp build` imports: the commands of other modules and the libraries only
a cold load, a proof or a terminal needs stay out (the speed target of issue 15, item 6)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the libraries a build of cards without art never needs (issue 24): PIL.Image (which
# ReportLab imports) stays a lazy module, never loaded
LIBRARIES = ("PIL.Image", "rich", "pypdf", "pypdfium2", "numpy", "openpyxl", "ezdxf",
             "watchfiles", "multiprocessing")
# issue 36: a plain `pnp build` is read without click (pnp.cli.entry), so neither click nor
# the gettext and locale it loads are paid for by a build
UNNEEDED = ("pnp.cli.proof", "pnp.cli.export", "pnp.cli.watch", "pnp.cli.init", "pnp.cli.diff",
            "pnp.exports", "yaml", "carddb.validate", "importlib.metadata", "click",
            "pnp.cli.main", "gettext", "locale", *LIBRARIES,
            # templates come from the bytecode cache: Jinja's compiler is not loaded
            # (pnp.lazy_jinja)
            "jinja2.compiler", "jinja2.lexer", "jinja2.parser", "jinja2.optimizer",
            # pnp.lazy_jinja's finder and loader are plain classes: importlib.abc, and the
            # importlib.resources it imports, are no part of a build
            "importlib.abc", "importlib.resources",
            # a file written atomically takes its temporary name from os.urandom
            # (carddb.files.part_token), not from secrets (and the hmac it imports)
            "secrets", "hmac",
            # tempfile stays a lazy module (pnp.lazy_modules): a plan store that does not
            # spill makes no temporary file (issue 36); so does inspect, which no
            # registry (pnp.plugins) nor dataclass with a docstring of its own runs
            "tempfile", "shutil", "bz2", "lzma", "inspect", "dis", "tokenize", "linecache",
            "ipaddress")
LOADED = ("lambda names: sorted(m for m in names if m in sys.modules and "
          "type(sys.modules[m]).__name__ != '_LazyModule')")
# counted beyond what the interpreter loaded before the command (an editable install's
# finder, run from its .pth file at start-up, is not the command's doing)
PROBE = ("import atexit, runpy, sys\n"
         "started = set(sys.modules)\n"
         f"atexit.register(lambda: print(({LOADED})(set({UNNEEDED!r}) - started), "
         "file=sys.stderr))\n"
         "sys.argv = ['pnp', *sys.argv[1:]]\n"
         "runpy.run_module('pnp', run_name='__main__')\n")


def _probe(code: str) -> subprocess.CompletedProcess:
    """`code` run by a fresh interpreter with this checkout importable: what a process
    imports and installs is the point of these tests, and a test process has it all."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True)


def test_a_warm_build_imports_no_other_command_nor_what_it_does_not_use(cli, tmp_path):
    assert cli("pnp", "init", str(tmp_path), cwd=tmp_path).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(tmp_path / "cache")}
    args = [sys.executable, "-c", PROBE, "build", "--game", "harbour", "--only", "storms",
            "--force"]
    # fresh processes: what a start-up imports is the point (here and below)
    cold = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True)
    warm = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert cold.returncode == warm.returncode == 0, warm.stderr
    assert "'yaml'" in cold.stderr.splitlines()[-1]          # the probe sees a cold load
    assert warm.stderr.splitlines()[-1] == "[]", warm.stderr


def test_an_edit_build_parses_no_yaml_nor_imports_what_only_errors_need(cli, tmp_path):
    """A spreadsheet edited: the database is validated again, from cards.yaml as parsed
    before (carddb.cache, issue 36 item 2), so PyYAML is not imported; neither is what
    only a failing import hook or a misspelt name needs."""
    assert cli("pnp", "init", str(tmp_path), cwd=tmp_path).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(tmp_path / "cache")}
    probe = PROBE.replace(repr(UNNEEDED), repr(("yaml", "importlib.abc", "difflib",
                                                "carddb.validate", "tempfile", "shutil",
                                                "inspect", "tokenize")))
    args = [sys.executable, "-c", probe, "build", "--game", "harbour", "--only", "ships"]
    assert subprocess.run(args, cwd=tmp_path, env=env, capture_output=True).returncode == 0
    ships = tmp_path / "ships.csv"
    ships.write_text(ships.read_text().replace("calm weather.", "calm weather (edited).", 1))
    edit = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert edit.returncode == 0, edit.stderr
    assert edit.stderr.splitlines()[-1] == "['carddb.validate']", edit.stderr


def test_the_command_imports_no_library_before_a_command_needs_it():
    probe = f"import sys, pnp.cli.main\nprint(({LOADED})({(*LIBRARIES, 'jinja2', 'reportlab')!r}))"
    result = _probe(probe)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_art_still_loads_pillow_when_drawn():
    """A lazy PIL.Image is the real one at its first use (pnp.lazy_pillow)."""
    probe = ("import sys, pnp.lazy_pillow\npnp.lazy_pillow.install()\n"
             "import reportlab.lib.utils\n"
             "from PIL import Image\n"
             "lazy = type(sys.modules['PIL.Image']).__name__\n"
             "print(lazy, Image.new('RGB', (2, 1)).size, type(sys.modules['PIL.Image']).__name__)")
    result = _probe(probe)
    assert result.stdout.split() == ["_LazyModule", "(2,", "1)", "module"], result.stderr


def test_a_lazy_module_is_the_real_one_at_its_first_use():
    """`import tempfile` leaves it lazy (the import statement reads its __spec__ only);
    the first attribute runs it in the same module object, which every holder sees
    (pnp.lazy_modules)."""
    probe = ("import sys, pnp.lazy_modules\npnp.lazy_modules.install()\n"
             "import tempfile\n"
             "held = tempfile\n"
             "print(type(tempfile).__name__, 'shutil' in sys.modules)\n"
             "with tempfile.TemporaryFile() as f:\n"
             "    f.write(b'x'); f.seek(0); print(f.read().decode())\n"
             "print(type(held).__name__, held is sys.modules['tempfile'], 'shutil' in sys.modules,"
             " held.gettempdir() == tempfile.gettempdir())")
    result = _probe(probe)
    assert result.stdout.split() == ["_LazyModule", "False", "x", "module", "True", "True",
                                     "True"], result.stderr


def test_a_name_taken_from_a_lazy_module_runs_it_when_first_called():
    """`from inspect import getattr_static` (jinja2.filters) leaves inspect lazy; the
    stand-in runs it at its first call and gives the real function's answer."""
    probe = ("import sys, pnp.lazy_modules\npnp.lazy_modules.install()\n"
             "from inspect import getattr_static\n"
             "print(type(sys.modules['inspect']).__name__, 'dis' in sys.modules)\n"
             "class A:\n    x = property(lambda self: 1 / 0)\n"
             "print(type(getattr_static(A(), 'x')).__name__)\n"
             "import inspect\n"
             "print(type(inspect).__name__, inspect.getattr_static is not getattr_static,"
             " inspect.getmodulename('a.py'))")
    result = _probe(probe)
    assert result.stdout.split() == ["_LazyModule", "False", "property", "module", "True",
                                     "a"], result.stderr


def test_registries_find_the_modules_pkgutil_finds(tmp_path):
    """pnp.plugins lists a package's modules itself (pkgutil would run inspect): the
    same names for files of every suffix Python imports, packages and plain folders."""
    import pkgutil

    from pnp.plugins import module_names

    for name in ("a.py", "b.abi3.so", "c.pyc", "d.txt", "__init__.py", "x.y.py", "_p.py"):
        (tmp_path / name).write_text("")
    for folder, init in (("pkg", "__init__.py"), ("plain", None), ("a", "__init__.py"),
                         ("dot.dir", "__init__.py")):
        (tmp_path / folder).mkdir()
        if init:
            (tmp_path / folder / init).write_text("")
    other = tmp_path / "plain"
    (other / "a.py").write_text("")
    (other / "z.py").write_text("")
    folders = [str(tmp_path), str(other), str(tmp_path / "missing")]
    assert module_names(folders) == [m.name for m in pkgutil.iter_modules(folders)]
    assert module_names(folders) == ["_p", "a", "b", "c", "pkg", "z"]
    import pnp.artefacts.kinds
    import pnp.draw.elements

    for package in (pnp.draw.elements, pnp.artefacts.kinds):
        assert module_names(package.__path__) == [
            m.name for m in pkgutil.iter_modules(package.__path__)]


def test_jinja_still_compiles_a_template_when_its_compiler_is_deferred():
    """The stand-ins of pnp.lazy_jinja give way to the real compiler at its first use."""
    probe = ("import sys, pnp.lazy_jinja\npnp.lazy_jinja.install()\n"
             "import jinja2, jinja2.environment as e\n"
             "print('jinja2.compiler' in sys.modules, type(e.Parser).__name__)\n"
             "print(jinja2.Environment().from_string('{{ 1 + x }}').render(x=2))\n"
             "print('jinja2.compiler' in sys.modules, e.Parser.__module__,"
             " e.Environment.code_generator_class.__module__)")
    result = _probe(probe)
    assert result.stdout.split() == ["False", "_Later", "3", "True", "jinja2.parser",
                                     "jinja2.compiler"], result.stderr


def test_help_still_lists_every_command(cli):
    result = cli("pnp", "--help")
    commands = result.stdout.split("Commands:", 1)[1].split()
    for name in ("build", "diff", "export", "init", "list", "preview", "proof", "validate",
                 "watch"):
        assert name in commands
    assert cli("pnp", "proof", "--help").stdout.startswith("Usage: pnp proof")


# ── issue 36, item 6: the library changes nothing in its caller's process ───────────
# A program of its own: sys.modules and `dataclasses` as they were, then `import pnp` and a
# whole build through the library; every module it found stays the same object, none is
# a lazy stand-in, and `dataclasses` and `re`'s compiler gained and lost nothing.
LIBRARY_CALLER = """import dataclasses, re._compiler, sys
from pathlib import Path
before = dict(sys.modules)
hooks = dict(vars(dataclasses))
compiler = dict(vars(re._compiler))
import pnp
from pnp.artefacts.project_build import BuildOptions, build_project
from pnp.cli.init import write_project
project = Path(sys.argv[1])
write_project(project, None)
report = build_project(project, BuildOptions(out=project / "out"))
replaced = sorted(m for m, module in before.items() if sys.modules.get(m) is not module)
lazy = sorted(m for m, module in sys.modules.items()
              if type(module).__name__ == "_LazyModule")
changed = sorted(k for k in {*hooks, *vars(dataclasses)}
                 if vars(dataclasses).get(k) is not hooks.get(k))
changed += sorted(k for k in {*compiler, *vars(re._compiler)}
                  if vars(re._compiler).get(k) is not compiler.get(k))
print(len(report.built) > 0, replaced, lazy, changed, "PIL.Image" in sys.modules)
"""


def test_importing_pnp_and_building_through_the_library_patches_nothing(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", LIBRARY_CALLER, str(tmp_path / "game")],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    # ReportLab imports PIL.Image, the real module, as it does in any program
    assert result.stdout.split() == ["True", "[]", "[]", "[]", "True"], result.stdout
    assert not list((tmp_path / "cache").glob("dataclass-code-*"))  # nothing kept either
    assert not list((tmp_path / "cache").glob("re-code-*"))


# The `pnp` command, run as its console script and `python -m pnp` run it (Commands.main):
# at exit, whether `dataclasses` and `re` compile through the kept code and PIL.Image is
# lazy.
SPEED_UPS = ("import atexit, dataclasses, re._compiler, runpy, sys\n"
             "def seen():\n"
             "    from pnp import dataclass_code, pattern_code\n"
             "    image = sys.modules.get('PIL.Image')\n"
             "    print(getattr(dataclasses, 'exec', None) is dataclass_code._exec,\n"
             "          re._compiler.compile is pattern_code._compile,\n"
             "          type(image).__name__, file=sys.stderr)\n"
             "atexit.register(seen)\n"
             "sys.argv = ['pnp', *sys.argv[1:]]\n"
             "runpy.run_module('pnp', run_name='__main__')\n")


def test_the_pnp_command_still_installs_its_speed_ups(cli, tmp_path):
    assert cli("pnp", "init", str(tmp_path), cwd=tmp_path).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", SPEED_UPS, "build", "--game", "harbour",
                             "--only", "storms"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "True True _LazyModule", result.stderr
    assert list((tmp_path / "cache").glob("dataclass-code-*"))  # kept for the next run
    assert list((tmp_path / "cache").glob("re-code-*"))


# every dataclass a build makes, with a __doc__ `dataclasses` wrote (Name(field: type, ...))
AUTO_DOCS = ("lambda: sorted(f'{c.__module__}.{c.__qualname__}' for m in list(sys.modules.values()) "
             "if (getattr(m, '__name__', '') or '').split('.')[0] in ('pnp', 'carddb') "
             "for c in vars(m).values() if isinstance(c, type) and c.__module__ == m.__name__ "
             "and '__dataclass_fields__' in vars(c) "
             "and (c.__doc__ or '').startswith(c.__name__ + '('))")


def test_a_build_makes_no_dataclass_whose_docstring_dataclasses_must_write(cli, tmp_path):
    """Without a docstring of its own, `dataclasses` writes a class's __doc__ from its
    signature through inspect, in every process that makes the class: the classes a
    warm build makes say what they are instead (issue 36 item 1)."""
    assert cli("pnp", "init", str(tmp_path), cwd=tmp_path).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(tmp_path / "cache")}
    probe = PROBE.replace(f"({LOADED})(set({UNNEEDED!r}) - started)", f"({AUTO_DOCS})()")
    assert probe != PROBE
    args = [sys.executable, "-c", probe, "build", "--game", "harbour", "--only", "storms",
            "--force"]
    subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, check=True)  # cold load
    result = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "[]", result.stderr
