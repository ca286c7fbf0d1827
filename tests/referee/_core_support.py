"""Shared helpers for the referee core tests: run the CLI (the harness), build sessions."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from carddb.model import Card, Database, Deck, Game, PrintProfile, Source
from tests.harness import ROOT, run_cli


def cli(*args: str, check: int | None = None, cwd: Path | str | None = None,
        env: dict | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    """`referee ARGS` through the one harness (tests.harness.run_cli, in this process), in
    `cwd` (default: the current folder); `check`: the exit code the command must give."""
    proc = run_cli("referee", *args, cwd=cwd or Path.cwd(), env=env, input=input)
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def referee_json(*args: str, check: int = 0) -> dict:
    """`cli(*args, "--json")`, parsed."""
    return json.loads(cli(*args, "--json", check=check).stdout)


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    """The stderr of a refused command: exactly one line, no traceback."""
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def whole_rows(path: Path | str) -> list[tuple]:
    """Every row `(seq, ts, kind, summary, payload_json, state_json)` of the session at
    `path`, oldest first, each state whole (format 2 stores most as deltas: state_delta),
    as format 1 stored them."""
    import sqlite3

    from referee import state_delta

    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT seq, ts, kind, summary, payload_json, state_json "
                            "FROM events ORDER BY seq").fetchall()
    finally:
        conn.close()
    texts: dict[int, str] = {}
    whole = []
    for seq, *columns, state in rows:
        if state_delta.is_delta(state):
            anchor, changes = state_delta.split(seq, state, "state")
            state = state_delta.rebuild(texts[anchor], changes, "state")
        texts[seq] = state
        whole.append((seq, *columns, state))
    return whole


def _card(name: str, type_: str, deck: str, game: str, copies: int = 1, **fields) -> Card:
    return Card(name, type_, "", copies, game, deck, fields, Source("test", 1, 1))


def hand_built_db() -> Database:
    """A small but complete database in the shape `carddb.load` returns: the X-Statix
    common deck has 79 physical cards (one with 2 copies), 3 Owners and 3 Team Names."""
    common = [_card(f"Hero {i}", "Hero", "common", "x-statix") for i in range(1, 25)]
    common += [_card(f"Power {i}", "Power", "common", "x-statix") for i in range(1, 21)]
    common += [_card(f"Mission {i}", "Mission", "common", "x-statix") for i in range(1, 15)]
    common += [_card(f"Marketing {i}", "Marketing", "common", "x-statix") for i in range(1, 20)]
    common.append(_card("Cult of Personality", "Marketing", "common", "x-statix", copies=2))
    owners = [
        _card(n, "Owner", "owners", "x-statix")
        for n in ("Coach", "Spike Freeman", "Solomon O'Sullivan")
    ]
    teams = [
        _card(n, "Team Name", "team-names", "x-statix") for n in ("X-Statix", "X-Force", "O-Force")
    ]
    src = Source("test", 1, 1)

    def deck(id_: str, game: str, cards: list[Card]) -> Deck:
        return Deck(id_, game, id_, (63.5, 88.9), {}, tuple(cards), src)

    xs = Game(
        "x-statix",
        "X-Statix",
        2,
        3,
        {},
        {
            "common": deck("common", "x-statix", common),
            "owners": deck("owners", "x-statix", owners),
            "team-names": deck("team-names", "x-statix", teams),
        },
    )
    xo = Game("xo", "XO!", 2, 2, {}, {})
    profile = PrintProfile("letter", 3.175, "long-edge", (0, 0), True, 16, {})
    return Database(ROOT / "cards.yaml", profile, {"x-statix": xs, "xo": xo})


def bundled_db() -> Database:
    """The repository's cards.yaml, as the referee loads it in a test (cwd = ROOT)."""
    import carddb

    return carddb.load(ROOT / "cards.yaml")


def make_session(
    path: Path, game: str = "x-statix", players=("Ann", "Bob"), seed: int = 7, heroes=None,
    db: Database | None = None,
) -> dict:
    """A session file holding a fresh game (seeded) made with `db` (default: the small
    `hand_built_db`, whose names the referee's commands that load cards.yaml refuse: pass
    `bundled_db()` for those); `heroes` = {player: [(name, ft)]} puts heroes in play.
    Returns the initial state."""
    from referee.games import module
    from referee.session import Session

    mod = module(game)
    state = mod.new_state(list(players), db or hand_built_db(), random.Random(seed), seed=seed)
    for player, cards in (heroes or {}).items():
        state["table"][player]["heroes"] = [
            {"name": name, "ft": ft, "marketing": []} for name, ft in cards
        ]
    Session.create(path, state, mod.setup_summary(state))
    return state


def read_log(path: Path) -> list[tuple[dict, dict]]:
    """Every (event, state) of a session, via the public API."""
    from referee.session import Session

    with Session.open(path, write=False) as session:
        return [(event.as_json(), state) for event, state in session.log(with_states=True)]
