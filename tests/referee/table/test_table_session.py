"""A designer's own game at the table (issue 21): the `pnp init` starter, whose cards.yaml
declares the die `storm: {faces: [wind, wind, wave, wave, calm, 2], per_player: 3}`, two
kinds of token and three phases, is printed (dice labels with the symbols in the PDF
text) and played through a whole scripted session with the table kit: rolls with given
faces, a refused face, tokens up and down past the bank, draw/discard counts, `next`
through the phases, undo/redo. Every refusal is one line, exit 1 or 2, and leaves the
session file's bytes unchanged."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.harness import ROOT, run_cli
from tests.referee._core_support import whole_rows


@pytest.fixture(scope="module")
def starter(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("own") / "harbour"
    done = run_cli("pnp", "init", str(folder))
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="module")
def project(starter, tmp_path_factory) -> Path:
    """The starter without its rules as data (tests/referee/table/test_rules_as_data.py
    plays those): a game of dice, tokens, decks and phase names, as the kit plays it."""
    import shutil

    folder = tmp_path_factory.mktemp("plain") / "harbour"
    shutil.copytree(starter, folder)
    text = (folder / "cards.yaml").read_text()
    text = text[:text.index("    zones:")] + "    phases: [Draw, Sail, Storm]\n" + \
        text[text.index("    decks:"):]
    (folder / "cards.yaml").write_text(text)
    return folder


@pytest.fixture
def table(project, tmp_path):
    """`referee ARGS` in the project folder (the harness, in this process), on a fresh
    session file."""
    session = tmp_path / "harbour.db"

    def run(*args: str, code: int = 0):
        result = run_cli("referee", "--session", str(session), *args, cwd=project)
        assert result.returncode == code, f"{args}: exit {result.returncode}\n{result.stdout}{result.stderr}"
        return SimpleNamespace(out=result.stdout, err=result.stderr, session=session)

    run.session = session
    return run


def refused(run, *args: str, code: int, says: str) -> str:
    """One line on stderr, exit `code`, the session file byte for byte as it was."""
    before = run.session.read_bytes()
    result = run(*args, code=code)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.err
    assert "Traceback" not in result.err
    assert result.session.read_bytes() == before
    return lines[0]


def state(run) -> dict:
    return json.loads(run("status", "--json").out)["state"]


@pytest.fixture
def started(table):
    # first player by a d6 each (the storm die's faces do not all count): Ann 5, Bob 4;
    # then the shared lanterns' 2d6 start: 2 + 3
    out = table("new", "harbour", "--players", "Ann,Bob", "--seed", "3", "--roll", "5,4,2,3").out
    assert out.splitlines()[0] == "Harbour Lights: Ann, Bob; Ann goes first (rolled Ann 5, Bob 4)"
    return table


def test_a_starter_project_plays_a_whole_session(started):
    run = started
    s = state(run)
    assert s["tokens"] == {"Ann": {"cargo": 3}, "Bob": {"cargo": 3}} and s["pool"] == {"lantern": 5}
    assert s["turn"] == {"number": 1, "round": 1, "player": "Ann", "phase": "Draw"}
    assert "seed" not in s and "shown" not in s  # public: no seed, no hand contents

    # roll with the faces as they fell; --json counts each symbol and sums the numbers
    out = json.loads(run("roll", "3", "storm", "--roll", "wind,calm,2", "--json").out)
    assert out["faces"] == ["wind", "calm", "2"]
    assert out["counts"] == {"wind": 1, "calm": 1} and out["sum"] == 2
    assert run("roll", "3", "--roll", "WAVE wave wind").out.strip() == \
        "3 storm: wave wave wind  (2 wave, 1 wind, sum 0)"
    line = refused(run, "roll", "3", "--roll", "wind,fire,2", code=2, says="fire")
    assert line == ("referee: --roll 'wind,fire,2': face 'fire' at column 6 is not a face of "
                    "the storm die (faces wind, wave, calm, 2)")
    refused(run, "roll", "2", "--roll", "wind,wind,wind", code=2, says="1 face left over")
    refused(run, "roll", "2", "moon", code=2, says="no die 'moon': its dice are storm")

    # tokens: up, down, set; past the bank and below zero refused
    assert "Ann Cargo +33: 3 -> 36" in run("token", "Ann", "cargo", "+33").out
    line = refused(run, "token", "Bob", "cargo", "+2", code=1, says="bank")
    assert line == "referee: the bank holds 1 Cargo (of 40); Bob cannot take 2, nothing changed"
    refused(run, "token", "Ann", "cargo", "-40", code=1, says="below zero")
    assert "Ann Cargo -30: 36 -> 6" in run("token", "ann", "Cargo", "-30").out
    assert "the shared pool Lantern =20: 5 -> 20" in run("token", "lantern", "=20").out
    refused(run, "token", "lantern", "+1", code=1, says="the bank holds 0 Lantern")
    refused(run, "token", "Ann", "lantern", "+1", code=2, says="shared")
    refused(run, "token", "Ann", "gold", "+1", code=2, says="tokens are cargo, lantern")
    refused(run, "token", "Cy", "cargo", "+1", code=2, says="no player 'Cy'")
    refused(run, "token", "Ann", "cargo", "5", code=2, says="write +N")

    # decks and hands, as counts; a card is learned only when shown
    assert "Ann draws 3 cards from ships: 3 in hand, 9 left" in run("draw", "Ann", "3", "--deck", "ships").out
    run("draw", "Bob", "2", "--deck", "storms")
    refused(run, "draw", "Bob", "11", "--deck", "storms", code=1, says="holds 10 cards")
    refused(run, "draw", "Bob", "1", code=2, says="name one with --deck")
    refused(run, "discard", "Ann", "Squall", code=1, says="holds no storms card")
    assert "Bob discards Squall: 1 in hand" in run("discard", "Bob", "squall").out
    assert "Ann discards 2 cards face down: 1 in hand" in run("discard", "Ann", "-n", "2", "--deck", "ships").out
    refused(run, "discard", "Ann", "Kraken", code=2, says="not a card of Harbour Lights")
    run("show", "Bob", "Gale")
    s = state(run)
    assert s["hands"] == {"Ann": {"ships": 1, "storms": 0}, "Bob": {"ships": 0, "storms": 1}}
    assert s["decks"]["storms"] == {"deck": 10, "discard": 1, "seen": ["Squall"]}
    assert "Gale" not in run("status").out and "Gale" not in json.dumps(s)
    assert "shown: Gale" in run("hand", "Bob").out  # the private command only
    assert "2 cards from the discard pile" in run("shuffle", "ships").out

    # turns: next steps through the phases, then the next player; a new round at Ann
    seen = [run("next").out.strip() for _ in range(6)]
    assert seen == ["round 1, turn 1: Ann, Sail", "round 1, turn 1: Ann, Storm",
                    "round 1, turn 2: Bob, Draw", "round 1, turn 2: Bob, Sail",
                    "round 1, turn 2: Bob, Storm", "round 2, turn 3: Ann, Draw"]

    # undo / redo
    assert "Harbour Lights: round 1, turn 2: Bob, Storm" in run("undo").out
    assert "round 2, turn 3: Ann, Draw" in run("redo").out
    log = run("log").out
    assert "roll     Ann rolls 3 storm: wind calm 2  (1 wind, 1 calm, sum 2)" in log
    assert "Gale" in log  # shown to the table: in the log (XS-16 alike), never a hidden card


def test_status_shows_every_players_tokens_and_the_piles(started):
    out = started("status").out.splitlines()
    assert out[:4] == ["Harbour Lights: round 1, turn 1: Ann, Draw",
                       "  Ann: 3 cargo; 0 cards in hand", "  Bob: 3 cargo; 0 cards in hand",
                       "  shared: 5 lantern"]


def test_a_bundled_game_session_refuses_the_kit_commands(table, project):
    table("--cards", str(ROOT / "cards.yaml"), "new", "x-statix", "--players", "A,B", "--seed", "1")
    refused(table, "token", "A", "cargo", "+1", code=1, says="holds a X-Statix game")
    refused(table, "next", code=1, says="for a game of your own cards.yaml")
    assert "White Mask" in table("roll", "3").out  # dice notation: the session is not the kit's
    before = json.loads(table("status", "--json").out)["state"]["table"]["A"]["mt"]
    assert table("mt", "A", "+1").out.startswith(f"A MT +1: {before} -> {before + 1}")  # short form
    assert table("xs", "mt", "A", "-1").out.startswith(f"A MT -1: {before + 1} -> {before}")


def test_new_refuses_an_unknown_game_naming_the_projects_games(table):
    result = table("new", "chess", "--players", "A,B", code=2)
    said = result.err.strip()  # one line, naming the project's game and the bundled ones
    assert said.startswith("referee: unknown game 'chess': choose ") and "\n" not in said
    assert said.endswith(" (the games of cards.yaml and the bundled ones)")
    named = said.split("choose ", 1)[1].split(" (", 1)[0].split(", ")
    assert {"harbour", "xo", "x-statix"} <= set(named)
    result = table("new", "harbour", "--players", "A", code=2)
    assert "Harbour Lights is for 2 to 4 players, not 1" in result.err


def test_the_setup_refuses_a_wrong_face_and_faces_left_over(table):
    table("new", "harbour", "--players", "Ann,Bob", "--roll", "5,4,2,9", code=2)
    assert not table("status", code=2).session.exists()
    result = table("new", "harbour", "--players", "Ann,Bob", "--roll", "5,4,2,3,1", code=2)
    assert "1 face left over" in result.err


def test_the_dice_labels_print_the_symbols(project):
    done = run_cli("pnp", "build", "--only", "dice-labels", "--project", str(project))
    assert done.returncode == 0, done.stderr
    from tests.pdftext import page_texts

    pdf = project / "output" / "harbour" / "dice-labels.pdf"
    pages = page_texts(pdf)
    assert len(pages) == 1
    words = pages[0].split()
    for symbol, times in (("wind", 6), ("wave", 6), ("calm", 3), ("2", 3)):
        assert words.count(symbol) >= times, (symbol, words)
    assert "Storm" in words


@pytest.mark.parametrize("where, value, says", [
    (["tokens", "Ann", "cargo"], -2, "state.tokens.Ann.cargo"),
    (["hands", "Bob", "ships"], "3", "state.hands.Bob.ships"),
    (["turn", "player"], "Mallory", "state.turn.player"),
    (["shown", "Bob"], ["Kraken"], "'Kraken' is not a card of harbour"),
])
def test_a_hand_edited_kit_session_is_refused_in_one_line(started, where, value, says):
    """The kit's states pass its schema (referee/table/game.py) and its card names are
    checked against cards.yaml, like any game's: exit 2, nothing written."""
    import sqlite3

    from referee import session as store

    run = started
    rows = whole_rows(run.session)  # forged as format 1: every state whole
    state = json.loads(rows[-1][5])
    node = state
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    rows[-1] = (*rows[-1][:5], json.dumps(state))
    for suffix in ("", "-wal", "-shm"):
        Path(f"{run.session}{suffix}").unlink(missing_ok=True)
    conn = sqlite3.connect(run.session, isolation_level=None)  # forged: right seq and CRC
    conn.execute(f"PRAGMA application_id = {store.APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(store._SCHEMA)
    for row in rows:
        conn.execute(store._INSERT, (*row, store.row_crc(row)))
    conn.close()
    refused(run, "token", "Ann", "cargo", "+1", code=2, says=says)


def test_dice_are_asked_for_by_name_on_a_terminal(project, monkeypatch, tmp_path):
    """On a terminal each die is asked for by name (stderr); a face the die lacks is asked
    again; Enter lets the referee roll it."""
    import referee.command

    monkeypatch.setattr(referee.command, "at_terminal", lambda: True)
    session = str(tmp_path / "asked.db")
    # Ann's d6, Bob's d6, then the lanterns' 2d6: Enter twice (the referee rolls them)
    new = run_cli("referee", "--session", session, "new", "harbour", "--players", "Ann,Bob",
                  cwd=project, input="6\n2\n\n\n")
    assert new.returncode == 0, new.stderr
    assert "Ann goes first (rolled Ann 6, Bob 2)" in new.stdout
    assert "Ann's first-player roll (d6)" in new.stderr
    roll = run_cli("referee", "--session", session, "roll", "2", "--json", cwd=project,
                   input="fire\nwind\n\n")
    assert roll.returncode == 0, roll.stderr
    data = json.loads(roll.stdout)
    assert data["faces"][0] == "wind" and len(data["faces"]) == 2
    assert "'fire': the storm die shows wind, wave, calm, 2" in roll.stderr
    assert data["referee_rolled"] == [{"roll": "Ann's roll of 2 storm dice, die 2 of 2",
                                       "faces": [data["faces"][1]]}]


def test_the_playtest_walkthrough_is_what_the_referee_prints(starter, monkeypatch, tmp_path):
    """docs/PLAYTEST.md, replayed: every `$ referee ...` command of its blocks prints the
    lines the walkthrough shows (timestamps aside; `...` ends a shortened output)."""
    import re
    import shlex
    import shutil

    # click's runner itself, not the harness: its `output` interleaves stdout and stderr as
    # the terminal of the walkthrough shows them
    from click.testing import CliRunner

    from referee.cli import main

    folder = tmp_path / "harbour"  # its own copy: the walkthrough's default session file
    shutil.copytree(starter, folder, ignore=shutil.ignore_patterns("output", "*.db*"))
    monkeypatch.chdir(folder)
    monkeypatch.delenv("REFEREE_SESSION", raising=False)
    monkeypatch.delenv("REFEREE_CARDS", raising=False)
    text = (ROOT / "docs" / "PLAYTEST.md").read_text(encoding="utf-8")
    stamp = re.compile(r"\d{4}-\d{2}-\d{2}T\S+")
    checked = 0
    # ```text blocks are `referee play` transcripts (test_rules_as_data.py replays them)
    for kind, block in re.findall(r"(?m)^```(\w*)\n(.*?)^```", text, re.S):
        if kind:
            continue
        commands = re.split(r"^\$ ", block, flags=re.M)[1:]
        for chunk in commands:
            line, _, shown_out = chunk.partition("\n")
            if line.startswith("sed -i "):  # cards.yaml edited mid-game (issue 29 item 3)
                if shutil.which("sed") is None:
                    pytest.skip("the walkthrough edits cards.yaml with sed, not installed")
                subprocess.run(shlex.split(line), check=True, cwd=folder)
                continue
            if not line.startswith("referee "):
                continue
            args = shlex.split(line)[1:]
            result = CliRunner().invoke(main, args)
            clock = re.compile(r"\d+:\d\d(?=[ ;]|$)")  # the turn clock's times (issue 32)
            got = clock.sub("M:SS", stamp.sub("TS", result.output)).splitlines()  # as a terminal shows both
            want = clock.sub("M:SS", stamp.sub("TS", shown_out)).splitlines()
            if want and want[-1] == "...":
                want, got = want[:-1], got[:len(want) - 1]
            assert got == want, line
            checked += 1
    assert checked >= 15


def test_a_card_is_named_in_any_language_of_the_game(started):
    """Issue 35: the starter prints its ships in German too (`name@de` in ships.csv); a
    table playing the German print types the German names, and the referee answers with
    the card's identity, its default-language name, as the session keeps it."""
    run = started
    run("draw", "Ann", "3", "--deck", "ships")
    assert "Ann shows The Gull" in run("show", "Ann", "die möwe").out
    assert "Ann discards Iron Maiden: 2 in hand" in run("discard", "Ann", "Eiserne Jungfrau").out
    s = state(run)
    assert s["decks"]["ships"]["seen"] == ["Iron Maiden"]
    refused(run, "discard", "Ann", "Möwe", code=2, says="not a card of Harbour Lights")
    stored = json.loads(run("status", "--json").out)
    assert "Die Möwe" not in json.dumps(stored["state"])
