"""X-Statix rules tests: the catalog fixture and one whole scripted game; xs_support (next
to this file) importable by the test modules under pytest's importlib import mode."""

from __future__ import annotations

import fcntl
import json

import pytest

from referee.xs.catalog import Catalog  # noqa: E402
from tests.referee.xs.xs_support import (  # noqa: E402
    Table,
    load_catalog,
    play_to_the_end,
    true_state,
)


@pytest.fixture(scope="session")
def cat() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def whole_game(tmp_path_factory, worker_id, cat) -> Table:
    """A 3-player game (seed 1) played through the command line to the end of the deck,
    once per test run: some 330 commands, which the CLI game test checks and the report
    tests read. Under xdist the modules that read it run on both workers, which each played
    it (`--dist loadfile`, about 3.5 s of CPU each): the first worker to ask plays it under
    a lock in the run's shared temporary folder, the other reads that session (and the kinds
    of command it used) when the lock is let go. Read-only: a test that writes to it copies
    the file first."""
    if worker_id == "master":  # no xdist: this process is the run
        return play_to_the_end(tmp_path_factory.mktemp("whole") / "game.db", cat, "Ann,Bo,Cy", 1)
    shared = tmp_path_factory.getbasetemp().parent / "xs-whole-game"  # the run's, every worker's
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # let go when the file closes
        played = shared / "played.json"
        if not played.exists():
            for left in shared.glob("game.db*"):  # a worker that failed half-way
                left.unlink()
            t = play_to_the_end(shared / "game.db", cat, "Ann,Bo,Cy", 1)
            played.write_text(json.dumps({"kinds": sorted(t.kinds), "commands": t.commands}))
    t = Table(shared / "game.db", cat)
    t.state = true_state(t.session)
    found = json.loads(played.read_text())
    t.kinds, t.commands = set(found["kinds"]), found["commands"]
    return t
