"""The XO! referee plays with the bundled cards.yaml (Issue #1 content): a seeded session
of several turns where the dice are rolled by the referee, through the CLI."""

from __future__ import annotations

import json

import pytest

from tests.harness import BUNDLED


@pytest.fixture(scope="module")
def db():
    import carddb

    return carddb.load(BUNDLED)


def test_seeded_turns_with_the_bundled_cards(db, referee, tmp_path):
    session = str(tmp_path / "bundled.db")

    def run(*args: str, code: int = 0):
        result = referee("--session", session, "--cards", str(BUNDLED), *args)
        assert result.returncode == code, f"{args}\n{result.stdout}{result.stderr}"
        return result

    characters = db.games["xo"].cards(type="Character")
    picks = {lg: [c.name for c in characters if c["league"] == lg][:7] for lg in ("heroes", "villains")}
    run("new", "xo", "--players", "Ann,Bob", "--seed", "21")
    run("xo", "pick", "heroes", *picks["heroes"])
    run("xo", "pick", "villains", *picks["villains"])
    for _ in range(4):  # four turns: attack once, attempt the chapter's feat, let it stand
        state = json.loads(run("status", "--json").stdout)["state"]
        while state["turn"]["phase"] != "Attack":
            state = json.loads(run("xo", "next", "--json").stdout)["state"]
        active = state["turn"]["active"]
        other = "villains" if active == "heroes" else "heroes"
        attacker = next(e for e in state["roster"][active] if e["ready"])
        defender = next(e for e in state["roster"][other] if not e["ko"])
        reply = json.loads(run("xo", "attack", attacker["name"], defender["name"], "--json").stdout)
        assert reply["outcome"] in ("miss", "hit", "stunned", "ko") and "XO-2" in reply["rulings"]
        state = json.loads(run("xo", "next", "--json").stdout)["state"]  # Feat/Thwart
        objective = state["objectives"][active]
        need = objective["requires"]
        able = [
            e["name"] for e in state["roster"][active]
            if e["ready"] and (db.games["xo"].card(e["name"]).get("powers", {}).get(need.get("icon"))
                               or db.games["xo"].card(e["name"]).get("keywords", {}).get(need.get("keyword")))
        ]
        if able:
            feat = json.loads(run("xo", "feat", able[0], "--json").stdout)
            assert feat["fcv"] == objective["fcv"] and feat["objective"] == objective["name"]
            state = feat["state"]
        number = state["turn"]["number"]
        while state["turn"]["number"] == number:  # the turn ends; the next passes to its Attack phase
            state = json.loads(run("xo", "next", "--json").stdout)["state"]
    status = run("status").stdout
    assert "chapter" in status and picks["heroes"][0] in status
    log = run("log").stdout
    assert log.count(" attack ") == 4 and log.count(" feat ") >= 2 and "T4 heroes" in log


def test_a_removal_card_works_only_on_its_own_league_and_only_when_it_removes_something(
    db, referee, tmp_path
):
    session = str(tmp_path / "remove.db")

    def run(*args: str, code: int = 0):
        result = referee("--session", session, "--cards", str(BUNDLED), *args)
        assert result.returncode == code, f"{args}\n{result.stdout}{result.stderr}"
        return result

    def state():
        return json.loads(run("status", "--json").stdout)["state"]

    characters = db.games["xo"].cards(type="Character")
    picks = {lg: [c.name for c in characters if c["league"] == lg][:7] for lg in ("heroes", "villains")}
    run("new", "xo", "--players", "Ann,Bob", "--seed", "21")
    run("xo", "pick", "heroes", *picks["heroes"])
    run("xo", "pick", "villains", *picks["villains"])
    run("xo", "next")  # turn 1: both draw 7
    villain = picks["villains"][1]
    run("xo", "tag", villain, "Trapped")
    before = state()
    # "Remove Trapped from one of your characters": not from the other league's
    refusal = run("xo", "play", "heroes", "Energy Surge", "Pull Them Free", "--on", villain, code=1)
    assert f"Pull Them Free removes Status cards only from the heroes' own characters: {villain}" in refusal.stderr
    assert state() == before
    run("xo", "play", "villains", "Dark Energy", "Cut Loose", "--on", villain)
    freed = state()
    assert "Trapped" not in next(e for e in freed["roster"]["villains"] if e["name"] == villain)["statuses"]
    # nothing left to remove: the card and its Energy are not spent for nothing (XO-8)
    refusal = run("xo", "play", "villains", "Dark Energy", "Cut Loose", "--on", villain, code=1)
    assert f"{villain} is not tagged <Trapped>: Cut Loose would remove nothing (XO-8)" in refusal.stderr
    assert state() == freed


def test_next_refuses_two_discard_counts_for_one_league(db, referee, tmp_path):
    session = str(tmp_path / "discard.db")

    def run(*args: str, code: int = 0):
        result = referee("--session", session, "--cards", str(BUNDLED), *args)
        assert result.returncode == code, f"{args}\n{result.stdout}{result.stderr}"
        return result

    characters = db.games["xo"].cards(type="Character")
    run("new", "xo", "--players", "Ann,Bob", "--seed", "21")
    for league in ("heroes", "villains"):
        run("xo", "pick", league, *[c.name for c in characters if c["league"] == league][:7])
    def table() -> dict:  # status less the turn clock, which runs on meanwhile (issue 32)
        found = json.loads(run("status", "--json").stdout)
        found.pop("clock", None)
        found["lines"] = [line for line in found["lines"] if not line.startswith("clock: ")]
        return found

    before = table()
    # Ann plays the heroes: two counts for one league were silently reduced to the last one
    refusal = run("xo", "next", "--discard", "heroes=2", "--discard", "Ann=1", code=2)
    assert refusal.stderr.strip() == "referee: --discard 'Ann=1': the heroes' discard is already given"
    assert table() == before
