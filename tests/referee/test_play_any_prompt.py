"""`referee play` takes any command at any prompt, for every game (issue 31 item 3): a
command typed where a running command asks for a die stops that command (nothing
written) and runs as typed; `help` there is said and the die asked again; `quit` leaves.
Here X-Statix's Recruit roll, asked by name inside `xs recruit` (XS-4)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.harness import run_cli

SETUP = ["--owner", "Ann=Spike Freeman", "--roll", "5,4,6,3,2,2,5,1,6,2"]


def referee(session: str, *args: str) -> str:
    result = run_cli("referee", "--session", session, *args, cwd=Path.cwd())
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_a_command_typed_at_an_x_statix_die_stops_the_command_and_runs(tmp_path, monkeypatch,
                                                                      capsys):
    from referee.play.loop import Table

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_CARDS", raising=False)
    session = str(tmp_path / "xs.db")
    referee(session, "new", "x-statix", "--players", "Ann,Bob", *SETUP)
    capsys.readouterr()
    lines = ["", "dead girl", "help", "status", "dead girl", "quit"]
    assert Table(session, None, iter([f"{line}\n" for line in lines])).play() == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    text = out.out
    assert text.count("Recruit roll, 1D6") == 3            # asked, asked again after help
    assert "play: xs recruit 'Dead Girl' stopped, nothing written\n" in text
    assert text.count("play: xs recruit 'Dead Girl' stopped, nothing written") == 2  # + quit
    assert "commands: " in text and "recruit" in text.split("commands: ")[1]
    state = json.loads(referee(session, "status", "--json"))["state"]
    assert state["turn"]["phase"] == "recruitment" and not state["turn"].get("open")
    assert [h["name"] for h in state["table"]["Ann"]["heroes"]] == []
    kinds = [e["kind"] for e in json.loads(referee(session, "log", "--all", "--json"))["events"]]
    assert "recruit" not in kinds
