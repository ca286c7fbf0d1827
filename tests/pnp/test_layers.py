"""The shape of the pnp package (issue 17, item 6): one sub-package per stage of the
pipeline, each importing only the stages below it, and no import cycle between modules,
counting the imports inside functions too (docs/ARCHITECTURE.md, "pnp layout")."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pnp"
# Lowest first. A module may import its own stage and the stages before it.
STAGES = ("base", "layout", "draw", "artefacts", "exports", "cli", "main")
BASE = {"pnp", "pnp.errors", "pnp.plugins", "pnp.outpaths", "pnp.project", "pnp.dataclass_code",
        "pnp.pattern_code",
        "pnp.lazy_pillow", "pnp.lazy_jinja", "pnp.lazy_modules"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage(module: str) -> str:
    if module in BASE:
        return "base"
    if module == "pnp.__main__":
        return "main"
    return module.split(".")[1]


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))
            if "starter" not in p.relative_to(PACKAGE).parts}


def imported(path: Path, known: set[str]) -> set[str]:
    """The pnp modules a file imports, wherever the import statement is."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        out |= {n for n in names if n in known}
    return out


@cache
def graph() -> dict[str, set[str]]:
    """Each module's pnp imports: parsed once for the tests that read it (every module of
    the package parsed and walked costs 0.7 s CPU; issue 34). Read only."""
    mods = modules()
    known = set(mods)
    return {m: imported(p, known) - {m} for m, p in mods.items()}


def test_every_module_belongs_to_a_stage():
    for module in modules():
        assert stage(module) in STAGES, f"{module} is in no stage of {STAGES}"


def test_imports_flow_from_the_cli_down_to_the_layout_only():
    wrong = []
    for module, deps in graph().items():
        for dep in deps:
            if dep in ("pnp",):          # the package itself holds nothing to import
                continue
            if STAGES.index(stage(dep)) > STAGES.index(stage(module)):
                wrong.append(f"{module} ({stage(module)}) imports {dep} ({stage(dep)})")
    assert wrong == []


def test_no_import_cycle_between_modules():
    deps = graph()
    done: set[str] = set()
    path: list[str] = []

    def visit(m: str) -> None:
        if m in path:
            raise AssertionError("import cycle: " + " -> ".join(path[path.index(m):] + [m]))
        if m in done:
            return
        path.append(m)
        for d in sorted(deps.get(m, ())):
            visit(d)
        path.pop()
        done.add(m)

    for m in sorted(deps):
        visit(m)


def test_the_layout_stage_draws_nothing():
    for module, path in modules().items():
        if stage(module) == "layout":
            tree = ast.parse(path.read_text())
            roots = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                     for a in n.names}
            roots |= {n.module.split(".")[0] for n in ast.walk(tree)
                      if isinstance(n, ast.ImportFrom) and n.module}
            assert not roots & {"reportlab", "PIL", "pypdfium2", "pypdf", "click"}, module


def test_the_stages_below_the_cli_define_no_command():
    for module, path in modules().items():
        if stage(module) not in ("cli", "main"):
            text = path.read_text()
            assert "@click.command" not in text and "@click.option" not in text, module
