"""Typed commands per X-Statix turn (issue 23, item 3): a scripted 3-player game with the
table's own deck (XS-16), played to the end through the one-shot CLI (in-process).

Run from the project root:  python benchmarks/xs_turn_commands.py [--games N] [--seed S]

The script is the table: it shuffles a printed deck of its own (cards.yaml's common
deck, each card its copies) and deals 7 each, one at a time in seat order, so it knows
what each player holds while the referee sees only what is shown. Each turn: `xs draw`,
recruit the heroes in hand it can afford (at most 2), a Mission if it holds one and has
heroes, then `xs discard` down to the hand limit and `xs next`. The dice are given with
--roll (real dice typed in a script); a mission command gives the faces of every roll that
could follow (the chain takes what it reaches, the rest is ignored and said), the
casualties every hero as a pick.

Counted: the commands typed per turn with a Mission, and the steps the chain made in them
(the old CLI typed each of those as a command of its own: `xs carnage`, `xs casualties`,
`xs success`, `xs payoff`). "before" = typed + chained, "after" = typed. The goal: a
mean of at most 6 typed commands for a turn with a Mission (besides the dice and picks,
which are options of those commands)."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HAND_LIMIT = 5


class Table:
    def __init__(self, session: str, seed: int) -> None:
        from click.testing import CliRunner

        import carddb
        from referee.cli import main
        from referee.xs.catalog import Catalog

        self.main, self.runner = main, CliRunner()
        self.session = session
        self.rng = random.Random(seed)
        db = carddb.load(ROOT / "cards.yaml")
        self.cat = Catalog.from_db(db)
        self.deck = [c.name for c in db.xs.decks["common"].cards for _ in range(c.copies)]
        from collections import Counter

        self.copies = Counter(self.deck)
        self.rng.shuffle(self.deck)
        self.typed = 0

    def run(self, *args: str, ok: tuple[int, ...] = (0,)) -> tuple[int, dict]:
        self.typed += 1
        result = self.runner.invoke(self.main, ["--session", self.session, *args, "--json"])
        if result.exit_code not in ok:
            raise SystemExit(f"{args}: exit {result.exit_code}: {result.output}")
        lines = [ln for ln in result.stdout.splitlines() if ln.startswith("{")]
        return result.exit_code, json.loads(lines[-1]) if lines else {}

    def faces(self, n: int) -> str:
        return ",".join(str(self.rng.randint(1, 6)) for _ in range(n))

    def state(self) -> dict:
        from referee.session import Session

        with Session.open(self.session, write=False) as s:
            return s.state


def play_game(seed: int) -> tuple[list[int], list[int], list[bool], int]:
    """(typed per turn with a Mission, chained steps in those turns, whether each was
    attempted (the Carnage roll made), turns without one)"""
    with tempfile.TemporaryDirectory() as folder:
        t = Table(os.path.join(folder, "g.db"), seed)
        players = ["Ann", "Bob", "Cy"]
        t.run("new", "x-statix", "--players", ",".join(players), "--seed", str(seed))
        t.typed = 0
        hands: dict[str, list[str]] = {p: [] for p in players}
        for _ in range(7):
            for p in players:
                hands[p].append(t.deck.pop(0))
        with_mission: list[int] = []
        chained_steps: list[int] = []
        attempted: list[bool] = []
        without = 0
        for _turn in range(400):
            state = t.state()
            if state.get("over"):
                break
            me = state["turn"]["player"]
            t.typed = 0
            chained = 0
            t.run("xs", "draw")
            hands[me].append(t.deck.pop(0)) if t.deck else None
            seat = state["table"][me]
            heroes = len(seat["heroes"])
            heroes += recruit(t, me, hands)
            missions = [c for c in hands[me] if t.cat.type(c) == "Mission"]
            played = False
            if missions and heroes:
                card = missions[0]
                code, reply = t.run("xs", "mission", card, "--roll", t.faces(12), ok=(0, 1))
                if code == 0:
                    played = True
                    hands[me].remove(card)
                    chained += len(reply.get("events", [1])) - 1
                    chained += follow_mission(t, me, hands, reply)
            # the End phase: discard down to the limit, then the next turn
            sync_hands(t, hands)
            now = t.state()
            went = "carnage" in ((now["turn"].get("mission") or {}).get("rolls") or {})
            if not now.get("over"):
                end_phase(t, me, hands, now, played)
            if played:
                with_mission.append(t.typed)
                chained_steps.append(chained)
                attempted.append(went)
            else:
                without += 1
        return with_mission, chained_steps, attempted, without


def recruit(t: Table, me: str, hands: dict[str, list[str]]) -> int:
    """Recruit up to two Heroes from the hand while the MT lasts; the heroes recruited."""
    recruited = 0
    for hero in [c for c in hands[me] if t.cat.type(c) == "Hero"][:2]:
        if t.state()["table"][me]["mt"] < 8:
            break
        code, _ = t.run("xs", "recruit", hero, "--roll", t.faces(1), ok=(0, 1))
        if code == 0:  # shown: the referee names it in the hand until it is paid
            recruited += 1
    return recruited


def end_phase(t: Table, me: str, hands: dict[str, list[str]], now: dict, played: bool) -> None:
    """The End phase: discard down to the hand limit, then the next turn."""
    held = list(now["table"][me]["hand"])
    pending = now["turn"].get("open")  # paid by the next command: counted paid
    if pending and now["table"][me]["mt"] >= pending["total"]:
        if pending["kind"] == "opportunity":
            held.append("?")
            hands[me].append(t.deck.pop(0)) if t.deck else None
        elif pending["context"].get("card") in held:
            held.remove(pending["context"]["card"])
    limit = 7 if now["table"][me]["owner"] == "Spike Freeman" else HAND_LIMIT
    skip = () if played else ("--skip",)
    paying = (pending or {}).get("context", {}).get("card")
    if len(held) > limit:
        cards = [c for c in hands[me] if c != paying][: len(held) - limit]
        t.run("xs", "discard", *cards, *skip)
        for c in cards:
            hands[me].remove(c)
        skip = ()
    code, reply = t.run("xs", "next", *skip, ok=(0, 1))
    if code == 1:  # over the limit after all (a card drawn on the way)
        over = int(re.search(r"discard (\d+) first", reply["error"]).group(1))
        cards = hands[me][:over]
        t.run("xs", "discard", *cards, *skip)
        for c in cards:
            hands[me].remove(c)
        t.run("xs", "next")
    sync_hands(t, hands)


def follow_mission(t: Table, me: str, hands: dict[str, list[str]], reply: dict) -> int:
    """Type the mission's decisions the chain stopped at: casualties (no Power cards
    played: this script's player never negates), then the Success roll. Returns the steps
    chained after them."""
    chained = 0
    for _ in range(6):
        mission = t.state()["turn"].get("mission") or {}
        stage = mission.get("stage")
        if stage == "carnage":
            picks = [h["name"] for h in t.state()["table"][me]["heroes"]]
            t.rng.shuffle(picks)
            args = [a for h in picks + picks for a in ("--picked", h)]
            _, reply = t.run("xs", "casualties", *args, "--roll", t.faces(12))
        elif stage == "casualties":
            _, reply = t.run("xs", "success", "--roll", t.faces(12))
        elif stage == "mission" and mission["rolls"]["mission"]["total"] > len(
                t.state()["table"][me]["heroes"]):
            return chained  # not attempted (XS-6): the phase ends with the next command
        elif stage == "mission":  # the chain stopped before the Carnage roll
            _, reply = t.run("xs", "carnage", "--roll", t.faces(12))
        else:
            return chained
        chained += len(reply.get("events", [1])) - 1
    return chained


def sync_hands(t: Table, hands: dict[str, list[str]]) -> None:
    """Draws made by the referee's steps (the next player's free card is its own command;
    an Opportunity roll is not bought by this script): keep the counts equal."""
    from collections import Counter

    state = t.state()
    elsewhere = Counter(state["discard"])  # every card the referee has seen out of hands
    for seat in state["table"].values():
        for h in seat["heroes"]:
            elsewhere[h["name"]] += 1
            elsewhere.update(h["marketing"])
    mission = state["turn"].get("mission") or {}
    if mission.get("card") and not mission.get("discarded"):
        elsewhere[mission["card"]] += 1
    for p, seat in state["table"].items():
        for card in list(hands[p]):  # recruited, attached, killed: not in this hand
            if hands[p].count(card) > t.copies[card] - elsewhere[card]:
                hands[p].remove(card)
        while len(hands[p]) > len(seat["hand"]):
            hands[p].pop()
        while len(hands[p]) < len(seat["hand"]) and t.deck:
            hands[p].append(t.deck.pop(0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    typed: list[int] = []
    chained: list[int] = []
    went: list[bool] = []
    without = 0
    for game in range(args.games):
        t, c, a, w = play_game(args.seed + game)
        typed += t
        chained += c
        went += a
        without += w
    print(f"{args.games} games, {len(typed)} turns with a Mission ({sum(went)} attempted: "
          f"the Carnage roll made), {without} without")
    for name, keep in (("every turn with a Mission", [True] * len(typed)),
                       ("a Mission attempted", went)):
        after = [n for n, k in zip(typed, keep, strict=True) if k]
        before = [n + c for n, c, k in zip(typed, chained, keep, strict=True) if k]
        if not after:
            continue
        print(f"{name}: typed commands before (each step its own command) mean "
              f"{statistics.mean(before):.2f} (max {max(before)}), after (chained) mean "
              f"{statistics.mean(after):.2f} (max {max(after)}); after/before "
              f"{statistics.mean(after) / statistics.mean(before):.2f}")

if __name__ == "__main__":
    main()
