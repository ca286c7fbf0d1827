"""Plug-ins are installed packages (issue 29 item 1): a game registers through the
entry-point group `pnp_referee.games`, a drawing element through `pnp_referee.elements`
(artefact kinds and exports likewise). The worked examples of docs/PLUGINS.md
(docs/plugins/) are installed here as real distributions (a package beside its
`NAME-VERSION.dist-info/` with METADATA and entry_points.txt, put on the path), and play
the way the docs say: Toy plays `new` with its own option, its command, `status`, `undo`,
`log` and `referee play`; the ribbon element draws in a `pnp build`; a broken plug-in is
one line, never a traceback."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.harness import run_cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "plugins"

CARDS = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  toy:
    title: Toy
    players: {min: 2, max: 4}
    types: {Chip: {fields: {}}}
    decks:
      chips: {title: Chips, size: poker, back: {title: Toy}, cards: [{name: Chip, type: Chip}]}
"""


def install(site: Path, example: str, modules: list[str]) -> Path:
    """The example `docs/plugins/EXAMPLE` installed into `site` as pip would leave it: its
    modules, and a dist-info with the entry points its pyproject.toml declares."""
    import tomllib

    project = tomllib.loads((EXAMPLES / example / "pyproject.toml").read_text())["project"]
    for module in modules:
        source = EXAMPLES / example / module
        target = site / module
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    name, version = project["name"], project["version"]
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    points = "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
                     for group, entries in project["entry-points"].items())
    (info / "entry_points.txt").write_text(points)
    return site


def broken(site: Path) -> None:
    """A distribution whose game names a module that is not there."""
    info = site / "broken_game-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pnp_referee.games]\nbad = no_such_module:GAME\n"
                                           "[pnp_referee.elements]\nbad = no_such_module:X\n")


def env(site: Path, **extra: str) -> dict[str, str]:
    """The environment of a real process with `site` on its path: the commands run below
    in processes of their own because an installed plug-in is found on the path a
    process starts with (entry points are read once per process)."""
    found = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    return {**found, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)]), **extra}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """Toy installed on sys.path (in this process), in a project whose cards.yaml has it."""
    from referee import games

    site = tmp_path / "site"
    site.mkdir()
    install(site, "toy-game", ["toy_game"])
    project = tmp_path / "project"
    project.mkdir()
    (project / "cards.yaml").write_text(CARDS)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(project)
    monkeypatch.delenv("REFEREE_SESSION", raising=False)
    monkeypatch.delenv("REFEREE_CARDS", raising=False)
    games.forget_plugins()
    yield project
    games.forget_plugins()
    for name in [m for m in sys.modules if m == "toy_game" or m.startswith("toy_game.")]:
        sys.modules.pop(name)


def referee(*args: str, code: int = 0) -> str:
    from referee.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.stdout + result.stderr
    return result.stdout if code == 0 else result.stderr


def test_an_installed_game_plays_new_its_commands_status_undo_and_log(toy):
    from referee import games

    assert "toy" in games.REGISTRY and games.canonical("Toy!") == "toy"
    out = referee("new", "toy!", "--players", "Ann,Bob", "--target", "4")
    assert out.splitlines()[0] == "Toy: Ann, Bob, first to 4"
    assert "--target" in referee("new", "toy", "--help")          # the game's own option
    assert referee("toy", "score", "ann", "3").splitlines()[0] == "Ann scores 3: 3"
    state = json.loads(referee("status", "--json"))["state"]
    assert state["score"] == {"Ann": 3, "Bob": 0} and state["next"] == "Bob"
    assert "it is Bob's turn" in referee("toy", "score", "Ann", "1", code=1)
    assert referee("undo").splitlines()[:2] == ["undone #2", "Toy: Ann to score"]
    assert [line.split()[2] for line in referee("log").splitlines()] == ["new", "score", "undo"]
    # another game's option is refused in one line naming the game it belongs to
    assert "--owner is an option of X-Statix" in referee(
        "--session", "other.db", "new", "toy", "--players", "A,B", "--owner", "A=Coach", code=2)
    assert "toy" in referee("--help")


def test_an_installed_game_plays_in_referee_play_from_new_to_its_winner(toy, capsys):
    """`referee play` needs nothing of a game but its entry: Toy's state has no `turn`."""
    from referee.play.loop import Table

    lines = ["toy", "Ann,Bob", "help", "", "2", "undo", "status", "2", "score bob 3", "", ""]
    table = Table("toy.db", None, iter([f"{line}\n" for line in lines]))
    assert table.play() == 0
    out = capsys.readouterr()
    assert out.err == "referee: it is Ann's turn, not Bob's\n"  # the one refusal, one line
    text = out.out
    assert "Game (toy, xo, x-statix) > toy" in text
    helped = re.search(r"commands: (.*)", text).group(1).split(", ")
    assert "score" in helped and not {"xs", "xo", "recruit", "token", "simulate"} & set(helped)
    assert "Ann scores 1: 1" in text                              # Enter: the default
    assert "Bob scores how many (1-3)? [1] 2\nBob scores 2: 2" in text   # a typed answer
    assert "undone #3" in text
    assert "Bob scores 1: 3" in text and "Toy: Bob won" in text
    assert text.count("Toy: Bob won") == 1 + 0                   # the table when it ended
    state = json.loads(referee("--session", "toy.db", "status", "--json"))["state"]
    assert state["over"] is True and state["winner"] == ["Bob"]
    assert state["score"] == {"Ann": 2, "Bob": 3}


def test_an_installed_game_plays_through_a_pipe_in_its_own_process(toy, tmp_path):
    """`referee play` in a process of its own finds Toy on the path it starts with; the
    session is made and read here (the `toy` fixture puts Toy on this process's path)."""
    referee("--session", "t.db", "new", "toy", "--players", "Ann,Bob", "--target", "2")
    played = subprocess.run([sys.executable, "-m", "referee", "--session", "t.db", "play"],
                            cwd=toy, env=env(tmp_path / "site"), input="\n\n\nundo\n\n\n",
                            capture_output=True, text=True, timeout=120)
    assert played.returncode == 0 and played.stderr == "", played.stderr
    assert "undone #4" in played.stdout and "Toy: Ann won" in played.stdout, played.stdout
    assert json.loads(referee("--session", "t.db", "status", "--json"))["state"]["winner"] \
        == ["Ann"]


def test_a_broken_plug_in_is_one_line_naming_it_and_the_rest_works(toy, tmp_path):
    from referee import games

    broken(tmp_path / "site")
    games.forget_plugins()      # looked for afresh, as a process starting with it would
    made = run_cli("referee", "--session", "t.db", "new", "toy", "--players", "Ann,Bob",
                   cwd=toy)
    assert made.returncode == 0, made.stderr
    assert made.stderr.splitlines() == [
        "referee: notice: plug-in broken-game (pnp_referee.games: bad = no_such_module:GAME) "
        "left out: ModuleNotFoundError: No module named 'no_such_module'"]
    # a session of a bundled game never looks for plug-ins (looking again would say the
    # broken one again)
    games.forget_plugins()
    other = run_cli("referee", "--session", "x.db", "new", "xo", "--players", "A,B", cwd=toy)
    assert other.returncode == 0 and other.stderr == "", other.stderr
    # neither does `referee roll`, which the real entry point answers without click
    done = subprocess.run([sys.executable, "-m", "referee", "roll", "3"], cwd=toy,
                          env=env(tmp_path / "site"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_an_installed_drawing_element_draws_in_a_build(tmp_path):
    from pypdf import PdfReader

    site = tmp_path / "site"
    site.mkdir()
    install(site, "stripe-element", ["stripe_element.py"])
    broken(site)  # its element is left out with one line; the build goes on
    project = tmp_path / "game"
    assert run_cli("pnp", "init", str(project)).returncode == 0
    storm = project / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text()
                     + "- ribbon: {box: [0, 40, {{ W }}, 8], caption: PLUGGED IN}\n")
    built = subprocess.run([sys.executable, "-m", "pnp", "build", "--project", str(project),
                            "--out", str(tmp_path / "out"), "--only", "storms"],
                           env=env(site), capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "Traceback" not in built.stderr
    notices = [line for line in built.stderr.splitlines() if "broken-game" in line]
    assert notices and set(notices) == {
        "notice: plug-in broken-game (pnp_referee.elements: bad = no_such_module:X) left out: "
        "ModuleNotFoundError: No module named 'no_such_module'"}
    pdf = PdfReader(tmp_path / "out" / "harbour" / "storms.pdf")
    assert pdf.pages[0].extract_text().count("PLUGGED IN") == 9    # the first sheet: 9 of 12 storms
    # without the distribution on the path, the element is unknown again
    alone = subprocess.run([sys.executable, "-m", "pnp", "build", "--project", str(project),
                            "--out", str(tmp_path / "out2"), "--only", "storms"],
                           env=env(tmp_path / "nothing"), capture_output=True, text=True,
                           timeout=300)
    assert alone.returncode == 1 and "unknown element 'ribbon'" in alone.stdout + alone.stderr


def test_the_docs_show_the_examples_the_tests_install():
    """Each file of docs/plugins/ shown in docs/PLUGINS.md is shown whole and as it is."""
    doc = (ROOT / "docs" / "PLUGINS.md").read_text()
    blocks = dict(re.findall(r"```\w+\n# (docs/plugins/\S+)\n(.*?)```", doc, re.S))
    files = {str(p.relative_to(ROOT)) for p in EXAMPLES.rglob("*") if p.is_file()
             and "__pycache__" not in p.parts}
    assert set(blocks) == files
    for path, text in blocks.items():
        assert (ROOT / path).read_text() == text, path


def test_play_and_the_cli_switch_on_no_bundled_game():
    """Everything `play` and `new` need of a game comes from its entry (referee/games.py):
    no string equal to a bundled game's id, alias or group is compared or looked up in
    referee/play/ (but the bundled games' own walk functions in walk.py) or referee/cli.py."""
    import ast

    from referee import games

    bundled = {g.id for g in games.REGISTRY.values() if g.id in ("xo", "x-statix")}
    words = bundled | {a for g in games.REGISTRY.values() if g.id in bundled for a in g.aliases}
    words |= {"xs", "xo"}
    files = [ROOT / "referee" / "cli.py", *(ROOT / "referee" / "play").glob("*.py")]
    for path in files:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith(("xs_", "xo_", "_")) \
                    and path.name == "walk.py":
                node.body = []  # X-Statix's and XO!'s own questions: their walk, not a switch
        found = [n.value for n in ast.walk(tree)
                 if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in words]
        assert not found, (path.name, found)


def test_loading_plug_ins_costs_no_import_when_none_is_installed(tmp_path):
    probe = ("import sys\nfrom carddb import entry_points\n"
             "print(entry_points.load('pnp_referee.games', lambda n, o: None),"
             " 'importlib.metadata' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], env=env(tmp_path / "nothing"),
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.stdout.split() == ["[]", "False"], done.stderr


def test_the_toy_game_of_the_docs_satisfies_the_contract(toy):
    import click

    from referee import games

    game = games.entry("toy")
    assert isinstance(game.rules_module(), games.GameRules)
    assert all(isinstance(o, click.Option) for o in game.new_options())
    for target in (game.walk, game.names, game.turn, game.schema, game.card_names):
        assert callable(games.resolve(target))


BOOKLET = '''
"""A rules booklet: one page with the game's title (an artefact kind plug-in)."""
from pnp.artefacts.artefact import Artefact
from pnp.artefacts.kinds.base import Kind


def artefacts(game_id, game):
    return [Artefact(game_id, "rules", "booklet", f"{game.title}: rules booklet")]


def draw(db, art, opts, renderer, fonts, target, result, step):
    from pnp.artefacts.sheet import PAGE_MARGIN, Pages, text
    from pnp.draw.pdf import open_canvas
    from pnp.layout.geometry import paper_size

    w, h = paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=(w, h), title=art.title,
                    subject="rules booklet")
    pages = Pages(c, result)
    text(c, fonts, opts, "bold", 24, PAGE_MARGIN, h - PAGE_MARGIN - 24,
         f"{db.games[art.game].title} rules", result=result, element="title")
    pages.show()
    c.save()
    result.pages = pages.count
    step(1)


KIND = Kind("booklet", order=65, artefacts=artefacts, draw=draw, reserves=("rules",))
CLASH = Kind("clash", order=66, artefacts=artefacts, draw=draw, reserves=("reference",))
'''


def test_an_installed_artefact_kind_and_export_target_work_through_pnp(tmp_path):
    from pypdf import PdfReader

    site = tmp_path / "site"
    site.mkdir()
    (site / "booklet_kind.py").write_text(BOOKLET)
    shutil.copy(ROOT / "tests" / "pnp" / "export_target_plugin.py", site)
    info = site / "pnp_extras-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pnp-extras\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pnp_referee.artefact_kinds]\nbooklet = booklet_kind:KIND\nclash = booklet_kind:CLASH\n"
        "[pnp_referee.exports]\ncard-list = export_target_plugin:TARGET\n")
    project = tmp_path / "game"

    def pnp(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pnp", *args], env=env(site),
                              capture_output=True, text=True, timeout=300)

    assert run_cli("pnp", "init", str(project)).returncode == 0
    built = pnp("build", "--project", str(project), "--out", str(tmp_path / "out"),
                "--only", "rules")
    assert built.returncode == 0, built.stdout + built.stderr
    assert PdfReader(tmp_path / "out" / "harbour" / "rules.pdf").pages[0].extract_text() \
        .startswith("Harbour Lights rules")
    # a kind reserving a stem another kind holds is left out, in one line
    assert ("notice: plug-in 'clash' (pnp_referee.artefact_kinds) left out: artefact kinds "
            "reference and clash both reserve 'reference'\n") in built.stderr, built.stderr
    assert "Traceback" not in built.stderr
    exported = pnp("export", "card-list", "--deck", "ships", "--upper", "--project",
                   str(project), "--out", str(tmp_path / "list"))
    assert exported.returncode == 0, exported.stdout + exported.stderr
    assert "IRON MAIDEN" in (tmp_path / "list" / "harbour" / "ships.txt").read_text()


def test_a_bundled_games_command_looks_for_no_plug_in(tmp_path):
    """`referee xs ...`, `referee mt ...` on an X-Statix session: found among the bundled
    games, without the plug-in scan (nor carddb's package it lives in)."""
    made = run_cli("referee", "--session", "x.db", "new", "x-statix", "--players", "A,B",
                   cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    probe = ("import sys\nfrom referee.cli import main\n"
             "for args in (['mt', 'A', '+1'], ['xs', 'mt', 'B', '+1']):\n"
             "    try:\n        main(['--session', 'x.db', *args])\n"
             "    except SystemExit as done:\n        assert done.code in (0, None), done\n"
             "print('carddb.entry_points' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path,
                          env=env(tmp_path / "nothing"), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False", done.stdout
