"""The game contract (issue 21): every game of the referee is one module registered in
one place (referee/games.py), satisfying `GameRules`; the registries that used to be
edited by hand (`referee new`, the lazy command groups, the state schemas, the card-name
checks, the carddb rules plug-ins) all follow the registry. A toy game registered by the
test alone plays `new`, `status`, its own command and `undo`."""

from __future__ import annotations

import inspect
import json
import sys
import textwrap

import click
import pytest

from referee import games

ALL = [*games.REGISTRY.values(), games.TABLE_KIT]


@pytest.mark.parametrize("game", ALL, ids=lambda g: g.id)
def test_every_registered_game_satisfies_the_contract(game):
    module = game.rules_module()
    assert isinstance(module, games.GameRules), game.id
    for name in ("new_state", "setup_summary", "status_lines", "public_state"):
        assert callable(getattr(module, name)), (game.id, name)
    assert "players" in inspect.signature(module.new_state).parameters
    assert callable(game.schema_check()) and callable(game.names_of())
    from referee.cli import new

    core = {p.name for p in new.params}
    for option in game.new_options():  # its own click options, none a core one of `new`
        assert isinstance(option, click.Option) and option.name not in core, game.id
    for target in (game.walk, game.context, game.names, game.turn):
        assert target is None or callable(games.resolve(target)), (game.id, target)
    if game.group is not None:
        name, target, help_line = game.group
        assert isinstance(games.resolve(target), click.Group) and help_line
    if game.rules is not None:
        from carddb import rules

        assert game.rules in rules.REGISTRY  # its cards.yaml game names this plug-in
    for alias in game.aliases:
        assert games.canonical(alias) == game.id


def test_the_other_registries_follow_the_game_registry():
    from referee import cli, state_schema

    assert set(games.REGISTRY) <= set(state_schema.SCHEMAS[1])  # each game's sessions checked
    for game in games.REGISTRY.values():
        if game.group:
            assert cli.RefereeGroup.lazy()[game.group[0]] == tuple(game.group[1].split(":"))
    from carddb import rules

    assert {g.rules for g in games.REGISTRY.values() if g.rules} <= set(rules.REGISTRY)


def test_the_xs_token_commands_belong_to_xs_with_short_forms_kept():
    from referee.cli import main
    from referee.xs.cli import xs

    assert {"mt", "ft"} <= set(xs.commands)
    ctx = click.Context(main)
    assert main.get_command(ctx, "mt") is xs.commands["mt"]
    assert "mt" not in main.commands  # not a core command any more


TOY = '''
"""A toy game: a counter each player pushes up."""
from referee.state_schema import SchemaError, record, players, seed, whole, mapping, equals, name

setup_summary = lambda state: f"toy: {', '.join(state['players'])}"
status_lines = lambda state: [f"{p}: {state['score'][p]}" for p in state["players"]]
public_state = lambda state: {k: v for k, v in state.items() if k != "seed"}

def new_state(players, db, rng, seed=None, **options):
    return {"game": "toy", "seed": seed, "players": list(players),
            "score": {p: 0 for p in players}}

_STATE = record({"game": equals("toy"), "seed": seed, "players": players,
                 "score": mapping(whole())})

def check_state(state, where="state"):
    _STATE(state, where)

def card_names(state):
    return iter(())
'''

TOY_CLI = '''
import click
from referee.command import Reply, session_command

@click.group()
def toy():
    "Toy game commands."

@toy.command()
@click.argument("player")
@session_command(rolls=False)
def push(tx, player):
    state = tx.require_game("toy")
    state["score"][player] += 1
    tx.record("push", f"{player} pushes", {"player": player}, state)
    return Reply([f"{player}: {state['score'][player]}"], {"score": state["score"]})
'''

CARDS = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  toy:
    title: Toy
    players: {min: 2, max: 2}
    types: {Chip: {fields: {}}}
    decks:
      chips: {title: Chips, size: poker, back: {title: Toy}, cards: [{name: Chip, type: Chip}]}
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    (tmp_path / "toy_game.py").write_text(textwrap.dedent(TOY))
    (tmp_path / "toy_cli.py").write_text(textwrap.dedent(TOY_CLI))
    (tmp_path / "cards.yaml").write_text(CARDS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_SESSION", raising=False)
    monkeypatch.delenv("REFEREE_CARDS", raising=False)
    game = games.register(games.Game(
        "toy", "Toy", "toy_game", aliases=("toy!",), group=("toy", "toy_cli:toy", "Toy."),
        schema="toy_game:check_state", card_names="toy_game:card_names"))
    yield game
    games.unregister("toy")
    for name in ("toy_game", "toy_cli"):
        sys.modules.pop(name, None)


def test_a_toy_game_registered_in_one_place_plays_new_status_undo(toy, tmp_path):
    test_every_registered_game_satisfies_the_contract(toy)
    from tests.harness import run_cli

    def run(*args, code=0):
        result = run_cli("referee", "--session", str(tmp_path / "toy.db"), *args, cwd=tmp_path)
        assert result.returncode == code, result.stdout + result.stderr
        return result.stdout

    assert run("new", "toy!", "--players", "Ann,Bob").splitlines()[0] == "toy: Ann, Bob"
    assert run("toy", "push", "Ann") == "Ann: 1\n"
    assert json.loads(run("status", "--json"))["state"]["score"] == {"Ann": 1, "Bob": 0}
    assert run("undo").splitlines() == ["undone #2", "Ann: 0", "Bob: 0"]
    assert run("status").splitlines() == ["Ann: 0", "Bob: 0"]
    assert "toy" in run("--help")
    # its schema guards its sessions like any game's: X-Statix's --owner is refused
    err = run_cli("referee", "--session", str(tmp_path / "b.db"), "new", "toy", "--players",
                  "A,B", "--owner", "A=Coach", cwd=tmp_path)
    assert err.returncode == 2 and "--owner is an option of X-Statix" in err.stderr


def test_a_toy_game_without_a_walk_or_a_turn_plays_in_referee_play(toy, tmp_path, capsys):
    """`referee play` assumes nothing of a game's state (this toy has no `turn`, no walk):
    it shows the table and takes the game's commands at its free prompt."""
    from referee.cli import main
    from referee.play.loop import Table

    session = str(tmp_path / "toy.db")
    assert main.main(["--session", session, "new", "toy", "--players", "Ann,Bob"],
                     standalone_mode=False) in (0, None)
    capsys.readouterr()
    lines = iter(["push Ann\n", "toy push Bob\n", "undo\n", "help\n", "log --all\n"])
    assert Table(session, None, lines).play() == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err and out.err == "", out.err
    assert out.out.startswith("Ann: 0\nBob: 0\n> push Ann\nAnn: 1\n> toy push Bob\nBob: 1\n")
    assert "undone #3" in out.out
    helped = out.out.split("commands: ", 1)[1].splitlines()[0].split(", ")
    assert "push" in helped and "xs" not in helped and "token" not in helped
    assert [line.split()[2] for line in out.out.split("> log --all\n")[1].splitlines()
            if line[:4].strip().isdigit()] == ["new", "push", "push", "undo"]
