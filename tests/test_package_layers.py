"""The three packages depend one way (issue 24 item 4): carddb imports neither pnp nor
referee, referee does not import pnp, and no module of any of them is part of an
import cycle, counting the imports inside functions too (tests/pnp/test_layers.py
checks the stages inside pnp). carddb holds no pnp artefact name and its generic model
no bundled game's name: pnp passes its reserved deck ids to carddb.load."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("carddb", "pnp", "referee")


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "starter" in parts or "_bundled" in parts:
                continue
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


@functools.cache
def import_statements(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """The file's import statements, wherever they are. Parsed once for every test here:
    parsing the three packages' 220 files is nearly all of this file's time."""
    return tuple(node for node in ast.walk(ast.parse(path.read_text(), str(path)))
                 if isinstance(node, (ast.Import, ast.ImportFrom)))


def imported(path: Path, known: set[str]) -> set[str]:
    """The modules of the three packages a file imports, wherever the statement is.
    `from package import module` imports that module (and runs the package's
    `__init__`, which holds no import back when its own imports are lazy), so it
    counts as the module; `from package import name` counts as the package."""
    out: set[str] = set()
    for node in import_statements(path):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{a.name}" for a in node.names} & known
            names = [a.name for a in node.names if f"{node.module}.{a.name}" not in known]
            out |= subs
            if names and node.module in known:
                out.add(node.module)
    return out


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {m: imported(p, known) - {m} for m, p in mods.items()}


def find_cycle(deps: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        if m in path:
            return path[path.index(m):] + [m]
        if m in done:
            return None
        path.append(m)
        for d in sorted(deps.get(m, ())):
            found = visit(d)
            if found:
                return found
        path.pop()
        done.add(m)
        return None

    for m in sorted(deps):
        found = visit(m)
        if found:
            return found
    return None


def test_no_import_cycle_in_carddb_pnp_or_referee():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_check_sees_a_cycle_through_a_function_level_import():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("package, forbidden", [("carddb", ("pnp", "referee")),
                                                 ("referee", ("pnp",))])
def test_the_packages_depend_one_way(package, forbidden):
    wrong = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in import_statements(path):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            wrong += [f"{path.relative_to(ROOT)} imports {n}" for n in names
                      if n.split(".")[0] in forbidden]
    assert wrong == []


def _strings(path: Path) -> set[str]:
    return {n.value for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_carddb_holds_no_pnp_artefact_name_and_its_model_no_game_name():
    from pnp.artefacts.kinds import reserved_deck_ids

    # mats, tokens and reference are also cards.yaml keys of a game; these are pnp's only
    own = {"mats-tiled", "dice-labels", "calibration"}
    assert own <= set(reserved_deck_ids())
    for path in sorted((ROOT / "carddb").rglob("*.py")):
        assert not own & _strings(path), path
    generic = ("__init__.py", "model.py", "schema.py", "validate.py", "fields.py",
               "specs.py", "cache.py")
    for name in generic:
        assert not {"xo", "x-statix", "xs"} & _strings(ROOT / "carddb" / name), name


def test_reserved_deck_ids_are_the_callers_and_refused_where_written(tmp_path):
    import carddb
    from pnp.artefacts.kinds import reserved_deck_ids

    base = (ROOT / "tests" / "data" / "minimal-cards.yaml").read_text(encoding="utf-8")
    text = base.replace("      common:", "      calibration:", 1)
    path = tmp_path / "cards.yaml"
    path.write_text(text, encoding="utf-8")
    assert "calibration" in carddb.load(path).games["x-statix"].decks    # carddb: any id
    with pytest.raises(carddb.DatabaseError) as refused:
        carddb.load(path, reserved=reserved_deck_ids())
    at = text.index("      calibration:") + 6
    line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert str(refused.value.problems[0]).endswith(
        f":{line}:{col}: games.x-statix.decks.calibration: 'calibration' is the name of "
        "another artefact of the game; choose another deck id")


def test_pnp_validate_and_build_refuse_a_deck_named_like_an_artefact(tmp_path, cli):
    assert cli("pnp", "init", str(tmp_path / "p")).returncode == 0
    cards = tmp_path / "p" / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    assert "\n      ships:" in text
    text = text.replace("\n      ships:", "\n      tokens:", 1).replace("deck: ships", "deck: tokens")
    cards.write_text(text, encoding="utf-8")
    for command in (("validate",), ("build", "--force")):
        done = cli("pnp", *command, cwd=tmp_path / "p")
        assert done.returncode == 1, done.stderr
        assert "decks.tokens: 'tokens' is the name of another artefact" in done.stderr
    assert not (tmp_path / "p" / "output" / "harbour").exists()
