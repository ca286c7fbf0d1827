"""The four Resource stacks (setup step 4: "separate them into four face-down card stacks:
NPCs, Powers, Tech, and Upgrades. Shuffle each card stack and flip face-up the top card of
each stack"), through the CLI in a session: dealt with the game's seed, only the face-up
card of a stack can be used (for its effect, its cost paid from the Energy pool), then the
next card of that stack flips face up; an empty stack shows none."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = ROOT / "cards.yaml"
FIXTURE = ROOT / "tests" / "data" / "xo-cards.yaml"
LABELS = {"npcs": "NPCs", "powers": "Powers", "tech": "Tech", "upgrades": "Upgrades"}

# Resources of the test card set: three NPCs (their order is the seeded shuffle's), one
# Tech and one Upgrade (always face up), no Powers (an empty stack from the start).
RESOURCES = [
    {"name": "Beat Cop", "type": "Resource", "stack": "npcs", "effect": [{"energy": 1}], "text": "Provides 1 Energy."},
    {"name": "Night Nurse", "type": "Resource", "stack": "npcs", "effect": [{"energy": 1}], "text": "Provides 1 Energy."},
    {"name": "Old Mentor", "type": "Resource", "stack": "npcs", "effect": [{"cost": 2}, {"draw": 1}],
     "text": "Cost 2 Energy. Draw 1 card."},
    {"name": "Jetpack", "type": "Resource", "stack": "tech", "effect": [{"cost": 1}, {"draw": 1}],
     "text": "Cost 1 Energy. Draw 1 card."},
    {"name": "Laser Sight", "type": "Resource", "stack": "upgrades", "effect": [{"attack_mod": 1}], "text": "+1 to ACV."},
]


@pytest.fixture(scope="module")
def resource_cards(tmp_path_factory):
    """The fixture card set with RESOURCES as its Resource cards."""
    data = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    data["games"]["xo"]["decks"]["resources"]["cards"] = RESOURCES
    path = tmp_path_factory.mktemp("cards") / "xo-resources.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def session(referee, cards: Path, path: Path):
    def run(*args: str, code: int = 0):
        result = referee("--session", str(path), "--cards", str(cards), *args)
        assert result.returncode == code, f"{args}: exit {result.returncode}\n{result.stdout}{result.stderr}"
        return result

    run.path = path  # type: ignore[attr-defined]
    return run


def state_of(run) -> dict:
    """The state the referee holds (the stacks' order below the top is not public:
    `status --json` shows those cards as "?")."""
    from referee.session import Session

    with Session.open(str(run.path), write=False) as held:
        return held.state


def public_of(run) -> dict:
    return json.loads(run("status", "--json").stdout)["state"]


def refused(run, *args: str, says: str) -> str:
    """One line on stderr, exit 1, state and log unchanged."""
    before, log = state_of(run), run("log").stdout
    result = run(*args, code=1)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr
    assert state_of(run) == before and run("log").stdout == log
    return lines[0]


def face_up_line(stacks: dict) -> str:
    shown = ", ".join(f"{label} {(stacks[key] or ['(empty)'])[0]}" for key, label in LABELS.items())
    return f"Resources face up (XO-20): {shown}"


@pytest.fixture
def table(referee, resource_cards, picks, tmp_path):
    """Turn 1's Attack phase on the resource card set, heroes active, hands of 7."""
    run = session(referee, resource_cards, tmp_path / "resources.db")
    run("new", "xo", "--players", "Ann,Bob", "--seed", "8")  # heroes first (XO-1)
    run("xo", "pick", "heroes", *picks["heroes"])
    run("xo", "pick", "villains", *picks["villains"])
    return run


def test_bundled_resource_stacks_are_dealt_with_the_seed(referee, tmp_path):
    import carddb

    expected = {key: Counter() for key in LABELS}
    for card in carddb.load(BUNDLED).games["xo"].cards(type="Resource"):
        expected[card["stack"]][card.name] += card.copies
    dealt = []
    for name, seed in (("a", "21"), ("b", "21"), ("c", "22")):
        run = session(referee, BUNDLED, tmp_path / f"{name}.db")
        setup = run("new", "xo", "--players", "Ann,Bob", "--seed", seed).stdout
        stacks = state_of(run)["resources"]  # what the referee holds (private: shuffled)
        assert {key: Counter(cards) for key, cards in stacks.items()} == expected  # every card, right stack
        shown = public_of(run)["resources"]  # the table sees the top cards, the rest face down
        assert shown == {key: cards[:1] + ["?"] * (len(cards) - 1) for key, cards in stacks.items()}
        assert face_up_line(stacks) in run("status").stdout
        assert face_up_line(stacks) in setup and face_up_line(stacks) in run("log").stdout
        dealt.append(stacks)
    assert dealt[0] == dealt[1]  # the same seed deals the same stacks
    assert dealt[0] != dealt[2]  # another seed shuffles them otherwise


def test_only_the_face_up_resource_is_used_then_the_next_flips_up(table):
    order = state_of(table)["resources"]["npcs"]
    assert sorted(order) == ["Beat Cop", "Night Nurse", "Old Mentor"]
    assert face_up_line(state_of(table)["resources"]).endswith("Powers (empty), Tech Jetpack, Upgrades Laser Sight")
    line = refused(table, "xo", "play", "heroes", order[1], says="is not face up")
    assert line == f"referee: {order[1]} is not face up: the NPCs stack shows {order[0]} (XO-20)"

    table("xo", "play", "heroes", "Heroes Energy", "Heroes Energy")  # pool 2, for Old Mentor's cost
    for i, name in enumerate(order):
        out = table("xo", "play", "heroes", name)
        flipped = f"{order[i + 1]} flips face up" if i + 1 < len(order) else "the stack is now empty"
        assert f"{name} taken from the NPCs stack; {flipped}" in out.stdout
        stacks = state_of(table)["resources"]
        assert stacks["npcs"] == order[i + 1:]
        assert face_up_line(stacks) in table("status").stdout
    assert "NPCs (empty)" in table("status").stdout
    refused(table, "xo", "play", "villains", order[0], says="the NPCs stack is empty")
    state = state_of(table)
    # 2 Energy played + 1 + 1 from the NPCs - 2 for Old Mentor; Resources are not from the
    # hand: 7 - 2 Energy cards + 1 drawn by Old Mentor
    assert state["energy"]["heroes"] == 2 and state["hands"]["heroes"] == 6


def test_a_resource_cost_is_paid_from_the_pool(table):
    line = refused(table, "xo", "play", "villains", "Jetpack", says="1 short")
    assert "the villains need 1 Energy (Jetpack: 1)" in line
    assert state_of(table)["resources"]["tech"] == ["Jetpack"]  # still face up
    table("xo", "play", "villains", "Villains Energy")
    out = table("xo", "play", "villains", "Jetpack")
    assert "Jetpack costs 1 Energy: paid, the villains' pool holds 0" in out.stdout
    assert "Jetpack taken from the Tech stack; the stack is now empty" in out.stdout
    state = state_of(table)
    assert state["resources"]["tech"] == [] and state["hands"]["villains"] == 7  # 7 - 1 + 1 drawn


def test_a_face_up_resource_is_played_for_its_effect_on_a_roll(table):
    out = json.loads(table("xo", "attack", "Captain Volt", "Brute", "--play", "Laser Sight",
                           "--attack-roll", "1,1,1", "--defense-roll", "1,1", "--json").stdout)
    assert out["acv"] == 4 and out["played"] == ["Laser Sight"]  # 3 + Laser Sight's +1
    assert out["state"]["resources"]["upgrades"] == [] and out["state"]["hands"]["heroes"] == 7
    refused(table, "xo", "attack", "Iron Ward", "Brute", "--play", "Laser Sight", says="the Upgrades stack is empty")


def test_deal_and_take_resource_pure_functions():
    import random

    from referee.xo import rules
    from referee.xo.game import deal_resource_stacks

    cards = [("A", "npcs", 1), ("B", "npcs", 2), ("T", "tech", 1)]
    stacks = deal_resource_stacks(cards, random.Random(3))
    assert stacks == deal_resource_stacks(cards, random.Random(3))
    assert sorted(stacks["npcs"]) == ["A", "B", "B"] and stacks["tech"] == ["T"] and stacks["powers"] == []
    assert rules.face_up_resources(stacks) == {"npcs": stacks["npcs"][0], "powers": None, "tech": "T", "upgrades": None}
    taken = rules.take_resource(stacks, "T", "tech")
    assert taken.stacks["tech"] == [] and stacks["tech"] == ["T"]  # the given stacks are left alone
    with pytest.raises(ValueError, match="the Tech stack is empty"):
        rules.take_resource(taken.stacks, "T", "tech")
    with pytest.raises(ValueError, match="A is not face up: the NPCs stack shows B"):
        rules.take_resource({"npcs": ["B", "A"]}, "A", "npcs")
