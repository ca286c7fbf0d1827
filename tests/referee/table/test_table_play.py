"""`referee play` on a declared game (issue 31 item 3), played in-process on the `pnp init`
starter (Harbour Lights: the storm die, cargo and lantern tokens, ships and storms decks,
phases Draw, Sail, Storm) as a table types it: all the faces of a roll at once, any
command at any prompt (dice prompts included), Tab on the game's names, `help` with only
this game's commands, the start prompt naming the project's own games, and the table shown
once after setup."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.harness import run_cli

SETUP = ["harbour", "Ann,Bob", "1", "2", "3 4"]  # first-player d6s, then the 2d6 lanterns


@pytest.fixture
def harbour(tmp_path, monkeypatch):
    project = tmp_path / "harbour"
    assert run_cli("pnp", "init", str(project)).returncode == 0
    cards = project / "cards.yaml"  # its phases as names only: its rules as data left out
    text = cards.read_text()        # (test_rules_as_data.py walks those)
    cards.write_text(text[:text.index("    zones:")] + "    phases: [Draw, Sail, Storm]\n"
                     + text[text.index("    decks:"):])
    monkeypatch.chdir(project)
    monkeypatch.delenv("REFEREE_SESSION", raising=False)
    monkeypatch.delenv("REFEREE_CARDS", raising=False)
    return project


def play(lines: list[str], capsys) -> tuple[str, str]:
    from referee.play.loop import Table

    table = Table("s.db", None, iter([f"{line}\n" for line in lines]))
    assert table.play() in (0, 1)
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return out.out, out.err


def state() -> dict:
    result = run_cli("referee", "--session", "s.db", "status", "--json", cwd=Path.cwd())
    return json.loads(result.stdout)["state"]


def test_the_start_names_the_projects_games_and_the_table_shows_once(harbour, capsys):
    out, err = play(SETUP, capsys)
    assert err == ""
    # the project's game offered first and as the default, the bundled ones beside it (not
    # the exact list: a game registered tomorrow joins it)
    offered = re.search(r"Game \((harbour(?:, [\w-]+)*)\) > harbour", out)
    assert offered and {"xo", "x-statix"} <= set(offered.group(1).split(", ")), out
    assert out.count("deck ships:") == 1, out          # `new` showed it; play does not again
    # the lantern's 2d6 typed at once at the setup prompt
    assert "shared Lantern start (2d6), die 1 of 2, d6 (1, 2, 3, 4, 5, 6; up to 2 at once" in out
    assert state()["pool"]["lantern"] == 7


def test_all_the_faces_of_a_roll_typed_at_once(harbour, capsys):
    out, err = play([*SETUP, "", "roll 3", "wind,wave calm", "roll 3", "calm wave",
                     "wind", "roll 2", "wind fog", "wind wind wind", "calm,2"], capsys)
    assert "3 storm: wind wave calm" in out
    assert "3 storm: calm wave wind" in out           # two at once, then the last one
    assert "2 storm: calm 2" in out
    assert "'fog': the storm die shows wind, wave, calm, 2" in err  # asked again
    assert "'wind wind wind': 3 faces, but 2 dice are left to roll" in err
    assert state()["last_roll"]["faces"] == ["calm", "2"]


def test_any_command_is_taken_at_a_dice_prompt(harbour, capsys):
    play([*SETUP, "roll 1", "calm"], capsys)
    out, _ = play(["roll 3", "status", "roll 2", "wind", "undo"], capsys)
    # status at a die: the roll stops with nothing written, the table is shown
    assert "play: roll 3 stopped, nothing written\nHarbour Lights: round 1" in out
    # undo at the second die of a roll: the roll stops, the roll before it is undone
    assert "play: roll 2 stopped, nothing written\nundone #2" in out
    assert state()["last_roll"] is None
    # help at a die is said and the die asked again; quit there leaves, nothing written
    before = open("s.db", "rb").read()
    out, _ = play(["roll 1", "help", "quit"], capsys)
    assert out.count("roll of 1 storm die, storm (") == 2 and "commands: " in out
    assert out.rstrip().endswith("play: roll 1 stopped, nothing written")
    assert open("s.db", "rb").read() == before


def test_help_lists_only_this_games_commands(harbour, capsys):
    out, _ = play([*SETUP, "help"], capsys)
    helped = out.split("commands: ", 1)[1].splitlines()[0].split(", ")
    assert {"token", "draw", "discard", "show", "shuffle", "next", "hand", "roll", "status",
            "undo", "log"} <= set(helped)
    assert not {"xs", "xo", "mt", "ft", "simulate", "play"} & set(helped), helped


def test_tab_completes_the_games_cards_tokens_dice_and_decks(harbour, capsys):
    from referee.play.complete import completions
    from referee.play.loop import Table

    play(SETUP, capsys)
    table = Table("s.db", None, iter(()))
    table.refresh()
    commands, names = table.names()
    assert {"Ann", "Bob", "Cargo", "Lantern", "storm", "ships", "storms"} <= set(names)
    assert "Squall" in names and "token" in commands and "xs recruit" not in commands
    assert completions("token ann carg", commands, names) == ["token ann Cargo"]
    assert completions("roll 2 sto", commands, names) == ["roll 2 storm", "roll 2 storms"]
    assert completions("show Ann squ", commands, names) == ["show Ann Squall"]
    assert completions("shuffle shi", commands, names) == ["shuffle ships"]


def test_tab_completes_a_token_name_on_a_terminal(harbour, capsys):
    """On a pseudo-terminal (readline): Tab after `token ann carg` writes `Cargo`."""
    import os
    import sys
    from pathlib import Path

    pexpect = pytest.importorskip("pexpect")
    pytest.importorskip("readline")
    play(SETUP, capsys)
    root = Path(__file__).resolve().parents[3]
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    child = pexpect.spawn(sys.executable, ["-m", "referee", "--session", "s.db", "play"],
                          cwd=str(harbour), env={**env, "PYTHONPATH": str(root)},
                          encoding="utf-8", timeout=30, dimensions=(50, 200))
    child.expect_exact("(roll, token, draw, ...; Enter: next) > ")
    child.send("token ann carg\t")
    child.expect_exact("Cargo")
    child.sendline(" +2")
    child.expect_exact("Ann Cargo +2")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert "Traceback" not in child.before
    assert state()["tokens"]["Ann"]["cargo"] == 5


def test_a_face_named_like_a_command_is_the_face_at_its_die(harbour, capsys):
    """A word the die's prompt offers is its answer: a storm face `next` is rolled at the
    die, where `status` (offered nowhere) is still the command."""
    from referee.play.loop import offered

    cards = harbour / "cards.yaml"
    cards.write_text(cards.read_text().replace("faces: [wind, wind, wave, wave, calm, 2]",
                                               "faces: [wind, wind, wave, next, calm, 2]"))
    out, _ = play([*SETUP, "roll 2", "next", "status", "roll 1", "next"], capsys)
    assert "play: roll 2 stopped, nothing written" in out
    assert "1 storm: next" in out and state()["last_roll"]["faces"] == ["next"]
    assert offered("next", "die 1 of 1, storm (wind, wave, next, calm, 2; Enter: ...)")
    assert not offered("nex", "storm (wind, wave, next)") and not offered("status", "storm")
