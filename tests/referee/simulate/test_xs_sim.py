"""X-Statix simulation: the policies' decisions are all accepted by the engine's own
validation (in the fast driver, and for the first games of each seating in strict mode:
a fresh Play on a deep copy per decision, as the referee CLI runs a command); the fast
driver plays the very same games as strict mode; a seed gives the same result with 1 and
2 workers."""

from __future__ import annotations

import random

import pytest

from referee.simulate import runner
from referee.simulate.policies import POLICIES, make
from referee.simulate.stats import XsTally, summarize
from referee.simulate.xs_sim import IllegalDecision, Table, play_game
from referee.xs import turn
from referee.xs.catalog import Catalog

SEATINGS = [("greedy", "greedy", "greedy"), ("cautious", "cautious", "cautious"),
            ("cautious", "greedy", "cautious"), ("greedy", "cautious"), ("cautious", "greedy")]


def legal_rng(seating: tuple[str, ...], game: int) -> random.Random:
    return random.Random(f"legal/{seating}/{game}")


STRICT = 5  # the first games of each seating played in strict mode too


def seated_games(db, games: int, strict: bool) -> dict[tuple[str, ...], list]:
    cat = Catalog.from_db(db)
    return {seating: [play_game(db, cat, [make(p) for p in seating], legal_rng(seating, game),
                                strict=strict) for game in range(games)]
            for seating in SEATINGS}


@pytest.fixture(scope="module")
def fast_games(db) -> dict[tuple[str, ...], list]:
    """40 games per seating played by the fast driver, once for the module: what the
    legality test checks (a decision the engine refuses raises IllegalDecision there as in
    strict mode, and an event played where it does not apply too)."""
    return seated_games(db, 40, strict=False)


@pytest.fixture(scope="module")
def strict_games(db) -> dict[tuple[str, ...], list]:
    """The first STRICT games per seating played in strict mode (a fresh Play on a deep
    copy per decision, as the referee CLI runs a command): what the fast driver must
    have played."""
    return seated_games(db, STRICT, strict=True)


@pytest.mark.parametrize("seating", SEATINGS)
def test_policies_never_make_an_illegal_move(fast_games, strict_games, seating):
    """XS-1..XS-13: 40 games per seating (200 in all) with every decision checked by the
    engine, any refusal raising IllegalDecision; the first 5 a seating (25) in strict
    mode too, each decision on a fresh Play as the CLI makes one, and the same games
    (test_fast_driver_plays_the_same_games_as_strict)."""
    checked = 0
    for record in fast_games[seating] + strict_games[seating]:
        assert record.turns >= 1
        assert any(seat["won"] for seat in record.seats)  # XS-13: someone wins
        assert all(seat["mt"] >= 0 for seat in record.seats)  # XS-2
        checked += 1
    assert checked == 40 + STRICT


@pytest.mark.parametrize("strict", [True, False])
def test_strict_mode_refuses_what_the_engine_refuses(db, strict):
    """The check is real, in both modes: a decision the rules forbid is refused and
    reported."""
    cat = Catalog.from_db(db)
    from referee.xs.game import new_state

    state = new_state(["A", "B"], db, random.Random(1))
    table = Table(state, cat, random.Random(2), strict=strict)
    power = next(c for c in db.games["x-statix"].cards(type="Power"))
    with pytest.raises(IllegalDecision, match="not a Hero|not in"):
        table.do(turn.recruit, power.name)  # XS-4: only Hero cards are recruited


def test_fast_driver_plays_the_same_games_as_strict(fast_games, strict_games):
    """The strict games (5 a seating, 25) are those the fast driver played."""
    for seating in SEATINGS:
        assert len(strict_games[seating]) == STRICT
        assert fast_games[seating][:STRICT] == strict_games[seating]


def test_seeded_run_is_identical_with_one_and_two_workers(small_chunks):
    assert len(small_chunks) == 3  # 24 games: chunks of 10, 10 and 4
    one = runner.simulate_xs(24, ["greedy", "cautious", "greedy"], seed=7, workers=1)
    two = runner.simulate_xs(24, ["greedy", "cautious", "greedy"], seed=7, workers=2)
    assert one.plain() == two.plain()
    assert one.games == 24
    other = runner.simulate_xs(24, ["greedy", "cautious", "greedy"], seed=8, workers=2)
    assert other.plain() != one.plain()


def test_chunks_do_not_depend_on_workers():
    assert runner.chunks(120) == [(0, 50), (1, 50), (2, 20)]
    assert runner.chunk_seed(7, 1) == runner.chunk_seed(7, 1) != runner.chunk_seed(7, 2)


def test_tally_counts_add_up(db):
    tally = runner.simulate_xs(60, ["cautious", "greedy"], seed=3, workers=1)
    summary = summarize(tally, 2)
    assert summary["games"] == 60
    assert [row["n"] for row in summary["seats"]] == [60, 60]
    assert sum(row["n"] for row in summary["owners"]) == 120
    assert sum(row["n"] for row in summary["by_policy"]) == 120
    assert sum(row["wins"] for row in summary["seats"]) >= 60  # shared wins count twice
    for row in summary["missions"]:
        assert row["played"] >= row["attempted"] >= row["successes"]
        assert row["low"] <= row["rate"] <= row["high"]
    for row in summary["heroes"]:
        assert row["missions"] >= row["survived"]
    assert summary["mean_turns"] > 2
    assert set(summary["mt_curves"]) == {"1", "2"}


def test_policies_behave_differently(db):
    """Greedy spends: more recruits and more missions than cautious over the same seeds."""
    cat = Catalog.from_db(db)
    totals = {}
    for name in POLICIES:
        recruited = missions = 0
        for game in range(30):
            record = play_game(db, cat, [make(name)] * 3, random.Random(game))
            recruited += len(record.recruited)
            missions += len(record.missions)
        totals[name] = (recruited, missions)
    assert totals["greedy"][0] > totals["cautious"][0]
    assert totals["greedy"][1] > totals["cautious"][1]


def test_tally_merge_is_order_free(db):
    cat = Catalog.from_db(db)
    records = [play_game(db, cat, [make("greedy")] * 2, random.Random(g)) for g in range(6)]
    a, b = XsTally(), XsTally()
    for r in records[:3]:
        a.add(r)
    for r in records[3:]:
        b.add(r)
    forward, backward = XsTally(), XsTally()
    forward.merge(a)
    forward.merge(b)
    backward.merge(b)
    backward.merge(a)
    assert forward.plain() == backward.plain()


def test_edited_cards_are_simulated_by_their_data(tmp_path):
    """A designer's edit (Teleportation +3, Bush Rangers Payoff +6) is played through the
    engine without refusals, and the edited mission's payoff shows in the statistics."""
    import carddb
    from tests.referee.simulate.sim_support import CARDS

    text = CARDS.read_text(encoding="utf-8")
    edited = text.replace("event: [{modify: success, by: 2}]", "event: [{modify: success, by: 3}]")
    edited = edited.replace("mission: {carnage: 2, payoff: 4}}\n          - {name: Mister Code",
                            "mission: {carnage: 2, payoff: 6}}\n          - {name: Mister Code")
    assert edited.count("by: 3}]") >= 1 and "payoff: 6}" in edited
    path = tmp_path / "cards.yaml"
    path.write_text(edited, encoding="utf-8")
    db = carddb.load(path)
    assert db.games["x-statix"].card("Bush Rangers")["mission"]["payoff"] == 6
    cat = Catalog.from_db(db)
    tally = XsTally()
    for game in range(25):
        tally.add(play_game(db, cat, [make("greedy"), make("cautious")],
                            random.Random(game), strict=True))
    played, attempted, wins, payoff = tally.missions["Bush Rangers"]
    assert played > 0
    if wins:
        assert payoff / wins >= 2 + 6 + 0  # 2D6 + 6 at least (modifiers only add here)
