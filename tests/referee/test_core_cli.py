"""The `referee` group: fast roll path, lazily mounted game groups, and the shared
`session_command` helper that game subcommands use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest

from referee import cli as referee_cli
from referee.command import Reply, Tx, session_command
from referee.errors import RefereeError, UsageError
from referee.session import Session
from tests.harness import ROOT, process_env
from tests.referee._core_support import cli, make_session, one_line_error, read_log

HEAVY = [
    "sqlite3",
    "rich",
    "ezdxf",
    "carddb",
    "yaml",
    "referee.session",
    "referee.xo",
    "referee.xs",
    "referee.odds",
]


def fresh_process(*args: str) -> tuple[str, set[str]]:
    """`referee ARGS` in a fresh process (what start-up imports is the point): what it
    printed, and the modules it had imported when it ended."""
    code = textwrap.dedent(
        f"""
        import sys
        from referee.cli import main
        try:
            main({list(args)!r})
        except SystemExit as exit:
            assert exit.code in (0, None), exit.code
        print("\\n" + " ".join(sorted(sys.modules)))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=process_env(), cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, set(proc.stdout.strip().splitlines()[-1].split())


def test_roll_path_imports_nothing_heavy():
    _, loaded = fresh_process("roll", "3", "--seed", "1")
    assert "referee.notation" in loaded
    assert not [m for m in HEAVY if m in loaded]


def test_status_imports_no_dice(tmp_path):
    """A one-shot `status` rolls nothing, so it imports no dice (issue 36: its start-up is
    measured against `import click`): random, referee.dice and the X-Statix rolls come
    with a roll made or shown."""
    db = tmp_path / "s.db"
    make_session(db)
    printed, loaded = fresh_process("--session", str(db), "status")
    assert "X-Statix: turn 1" in printed
    assert "referee.xs.game" in loaded  # the state was read and shown
    assert not {"random", "referee.dice", "referee.xs.rolls"} & loaded


def test_a_write_that_reads_no_cards_imports_no_card_database(tmp_path):
    """`xs mt` and `undo` read no cards: as a process they import neither carddb nor
    `secrets` (a third of such a command's CPU), though they write the session, its mark
    and the kept game's memory (referee/session_verified.py `write_cache_file`)."""
    db = tmp_path / "s.db"
    cli("--session", str(db), "new", "x-statix", "--deal", "referee", "--players", "Ann,Bob",
        "--seed", "3", check=0)
    printed, loaded = fresh_process("--session", str(db), "xs", "mt", "Ann", "+2")
    assert "Ann MT +2" in printed
    assert "referee.session" in loaded and "referee.xs.cli" in loaded
    assert not {"carddb", "carddb.files", "secrets"} & loaded
    assert read_log(db)[-1][0]["kind"] == "mt"


def test_cache_files_are_written_under_the_one_scheme_of_temporary_names(tmp_path, monkeypatch):
    """The session marks and the kept game's memory are written through a temporary name
    of carddb.files' scheme (PART_NAME: the pid of the writer), spelled without carddb."""
    from carddb.files import PART_NAME
    from referee import session_verified

    names = {session_verified.part_name(str(tmp_path / "m.json")) for _ in range(20)}
    assert len(names) == 20
    for name in names:
        assert name.startswith(str(tmp_path / "m.json."))
        found = PART_NAME.search(name)
        assert found is not None and int(found[1]) == os.getpid()
    replaced = []
    monkeypatch.setattr(session_verified.os, "replace",
                        lambda temp, where: replaced.append((temp, where)))
    session_verified.write_cache_file(str(tmp_path / "c" / "m.json"), {"a": 1})
    [(temp, where)] = replaced
    assert where == str(tmp_path / "c" / "m.json") and PART_NAME.search(temp)
    assert json.loads(Path(temp).read_text()) == {"a": 1}


def test_every_command_has_json():
    import click

    ctx = click.Context(referee_cli.main)
    names = ("roll", "odds", "new", "log", "undo", "redo", "status", "mt", "ft",
             *referee_cli.TABLE_COMMANDS)
    for name in names:  # mt, ft: the short forms of `xs mt`, `xs ft`; the table kit's
        command = referee_cli.main.get_command(ctx, name)
        assert "--json" in [opt for p in command.params for opt in getattr(p, "opts", [])], name


def listed_commands() -> list[str]:
    section = cli("--help", check=0).stdout.split("Commands:")[1]
    return [line.split()[0] for line in section.splitlines() if line.startswith("  ")]


def test_missing_game_groups_are_not_listed():
    for name, (module, _) in referee_cli.LAZY_GROUPS.items():
        listed = name in listed_commands()
        exists = (ROOT / (module.replace(".", "/") + ".py")).exists()
        assert listed == exists, name
    assert cli("simulate-nothing").returncode == 2


@pytest.fixture
def demo_group(tmp_path, monkeypatch):
    """A game group mounted the way `xo`/`xs`/`simulate` are, using `session_command`."""
    module = tmp_path / "core_demo_group.py"
    module.write_text(
        textwrap.dedent(
            """
            import click
            from referee.command import Reply, session_command
            from referee.errors import RefereeError, UsageError

            @click.group()
            def demo():
                "A demo game group."

            @demo.command("pay")
            @click.argument("player")
            @click.argument("amount", type=int)
            @session_command()
            def pay(tx, player, amount):
                state = tx.require_game("x-statix")
                if amount > 1000:
                    raise UsageError(f"amount {amount}: at most 1000")
                state["table"][player]["mt"] -= amount
                tx.record("pay", f"{player} pays {amount}", {"player": player}, state)
                if state["table"][player]["mt"] < 0:
                    raise RefereeError(f"{player} cannot pay {amount}", "XS-2")
                from referee.dice import roll_d6
                die = roll_d6(1, tx.rng())[0]
                return Reply([f"{player} paid {amount}, rolled {die}"], {"mt": state["table"][player]["mt"], "die": die})
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(referee_cli.LAZY_GROUPS, "demo", ("core_demo_group", "demo"))
    sys.modules.pop("core_demo_group", None)
    yield
    sys.modules.pop("core_demo_group", None)


def test_lazy_group_is_listed_but_imported_only_when_invoked(demo_group, tmp_path):
    assert "demo" in listed_commands()
    assert "core_demo_group" not in sys.modules
    db = tmp_path / "g.db"
    start = make_session(db)["table"]["Ann"]["mt"]
    data = json.loads(
        cli("--session", str(db), "demo", "pay", "Ann", "2", "--json", check=0).stdout
    )
    assert "core_demo_group" in sys.modules
    assert data["ok"] is True and data["mt"] == start - 2
    assert read_log(db)[-1][0]["kind"] == "pay"


def test_session_command_dice_follow_the_state_and_the_command_not_the_log(demo_group, tmp_path):
    """Fair referee dice: the same command on the same state rolls the same dice, so
    `undo` and the same command again gives the same die; --seed is refused (exit 2)."""
    db = tmp_path / "g.db"
    make_session(db, seed=5)

    def pay() -> int:
        out = cli("--session", str(db), "demo", "pay", "Ann", "0", "--json", check=0).stdout
        return json.loads(out)["die"]

    with Session.open(db, write=False) as s:
        digest = s.state_digest()
    import random

    from referee.dice import roll_d6

    first = pay()
    assert first == roll_d6(1, random.Random(f"5/{digest}/demo pay"))[0]
    dice = [first]
    for _ in range(6):
        cli("--session", str(db), "undo", check=0)
        dice.append(pay())
    assert dice == [first] * 7  # the log grew by 12 events, the dice did not change
    proc = cli("--session", str(db), "demo", "pay", "Ann", "0", "--seed", "8")
    assert proc.returncode == 2 and "No such option '--seed'" in one_line_error(proc)
    proc = cli("--session", str(db), "--seed", "8", "demo", "pay", "Ann", "0")
    assert proc.returncode == 2 and "--seed is for `new`" in one_line_error(proc)
    assert len(read_log(db)) == 14


def test_session_command_takes_table_dice(demo_group, tmp_path):
    db = tmp_path / "g.db"
    make_session(db)
    data = json.loads(
        cli(
            "--session", str(db), "demo", "pay", "Ann", "0", "--roll", "6", "--json", check=0
        ).stdout
    )
    assert data["die"] == 6
    for faces, words in (("7", "impossible"), ("6,6", "left over")):
        proc = cli("--session", str(db), "demo", "pay", "Ann", "0", "--roll", faces)
        assert proc.returncode == 2 and words in one_line_error(proc)
    assert len(read_log(db)) == 2  # the refused ones wrote nothing


def test_session_command_refusal_rolls_back_and_exits_1(demo_group, tmp_path):
    db = tmp_path / "g.db"
    make_session(db)
    proc = cli("--session", str(db), "demo", "pay", "Ann", "999", "--json")
    assert proc.returncode == 1
    assert one_line_error(proc) == "referee: Ann cannot pay 999 (XS-2)"
    assert json.loads(proc.stdout) == {
        "ok": False,
        "error": "Ann cannot pay 999",
        "ruling": "XS-2",
        "exit_code": 1,
    }
    assert len(read_log(db)) == 1  # the event recorded before the refusal was rolled back


def test_session_command_bad_input_exits_2(demo_group, tmp_path):
    db = tmp_path / "g.db"
    make_session(db)
    proc = cli("--session", str(db), "demo", "pay", "Ann", "1001")
    assert proc.returncode == 2 and "at most 1000" in one_line_error(proc)
    proc = cli("--session", str(db), "demo", "pay", "Ann", "lots")  # click's own usage error
    assert proc.returncode == 2 and "'lots' is not a valid integer" in one_line_error(proc)
    proc = cli("--session", str(db), "demo", "pay", "Ann", "-1", "--json")
    assert proc.returncode == 2 and "No such option" in one_line_error(proc)
    assert json.loads(proc.stdout)["exit_code"] == 2


def test_session_command_wrong_game_exit_1(demo_group, tmp_path):
    db = tmp_path / "g.db"
    make_session(db, game="xo")
    proc = cli("--session", str(db), "demo", "pay", "Ann", "1")
    assert proc.returncode == 1 and "XO!" in one_line_error(proc)


def test_helper_is_usable_directly():
    @click.command()
    @session_command(write=False)
    def peek(tx: Tx) -> Reply:
        return Reply([tx.state["game"]])

    assert {p.name for p in peek.params} >= {"as_json"}
    assert "seed" not in {p.name for p in peek.params}
    assert issubclass(RefereeError, Exception) and issubclass(UsageError, Exception)


def test_roll_refuses_more_mask_dice_than_a_player_owns():
    """XO-1: each player owns 7 mask dice of the league's set: `roll 8` is refused (it
    used to roll 8 and call them White Mask), 7 of either set are rolled."""
    refused = cli("roll", "8", "--league", "villains")
    assert refused.returncode == 1
    assert refused.stderr.strip() == ("referee: 8m: 8 mask dice, but a player owns 7 Black Mask dice and "
                                      "rolls as many as they can: roll at most 7 (XO-1)")
    assert cli("roll", "3m+5m").returncode == 1
    done = cli("roll", "7", "--league", "villains", "--seed", "1")
    assert done.returncode == 0 and done.stdout.startswith("7m: Black Mask ")
    assert cli("roll", "8d6", "--seed", "1").returncode == 0
