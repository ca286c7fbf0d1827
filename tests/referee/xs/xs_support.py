"""Helpers of the X-Statix rules tests: the real card catalog from cards.yaml, a small
builder of game states with exactly the cards a test needs, and the scripted table that
plays whole games through the command line."""

from __future__ import annotations

import json
import random
from functools import partial

from referee.xs.catalog import Catalog
from referee.xs.play import Play, fresh_turn
from referee.xs.rolls import Dice
from tests.harness import ROOT, run_cli


def load_catalog() -> Catalog:
    import carddb

    return Catalog.from_db(carddb.load(ROOT / "cards.yaml"))


def make_state(
    players=("A", "B"),
    hands=None,
    heroes=None,
    mt=None,
    owners=None,
    teams=None,
    deck=("Ocelot", "Movies", "Zombies", "Shape Shifting", "PR People", "Media Craze"),
    discard=(),
    phase="opportunity",
    player="A",
    hidden=None,
) -> dict:
    """A game in `player`'s turn. Owner and Team Name default to "-" (no card: no effect),
    heroes are names or (name, ft, [marketing]). `hidden` = {player: n}: a game with the
    table's own deck (XS-16), each such hand holding n hidden cards after the named ones,
    and a deck of as many hidden cards as `deck` names."""
    hands, heroes, mt = hands or {}, heroes or {}, mt or {}
    owners, teams = owners or {}, teams or {}
    table = {}
    for p in players:
        team = []
        for h in heroes.get(p, []):
            name, ft, marketing = (h, 1, []) if isinstance(h, str) else (list(h) + [[]])[:3]
            team.append({"name": name, "ft": ft, "marketing": list(marketing)})
        table[p] = {"mt": mt.get(p, 20), "owner": owners.get(p, "-"), "team": teams.get(p, "-"),
                    "hand": list(hands.get(p, [])), "heroes": team}
    turn = fresh_turn(1, player)
    turn["phase"] = phase
    turn["free_drawn"] = True
    state = {"game": "x-statix", "seed": None, "players": list(players), "table": table,
             "deck": list(deck), "discard": list(discard), "turn": turn, "over": False,
             "winner": None}
    if hidden is not None:
        from referee.xs.play import HIDDEN

        state["deal"] = "table"
        state["deck"] = [HIDDEN] * len(deck)
        for p, n in hidden.items():
            table[p]["hand"] += [HIDDEN] * n
    return state


def act(cat, fn, state, *args, faces=None, seed=0, **kwargs):
    """Run one rules action on a copy of `state` with fixed faces (from the table)."""
    play = Play(state, cat, Dice(random.Random(seed), faces))
    return fn(play, *args, **kwargs)


def texts(result) -> str:
    return "\n".join(f"{s.text} [{s.ruling}]" for s in result.steps)


# ── the CLI ───────────────────────────────────────────────────────────────────
referee = partial(run_cli, "referee")  # the one harness, in this process


def without_clock(status_json: str) -> dict:
    """`status --json` less the turn clock, which runs on between two reads (issue 32): what
    a refused command must leave unchanged."""
    import json

    found = json.loads(status_json)
    found.pop("clock", None)
    found["lines"] = [line for line in found.get("lines", []) if not line.startswith("clock: ")]
    return found


# ── the scripted table (the CLI game tests, the report tests) ────────────────────
MAX_COMMANDS = 2000


def true_state(session) -> dict:
    """The whole state, hands and deck included, read from the session file (what the
    referee knows; no command prints it): the last event's, rebuilt from its anchor when
    stored as a change (referee/state_delta.py). Read with SQL, as whole_rows reads them
    (tests/referee/_core_support.py): a Session's open checks the file, a quarter of the
    scripted table's CPU after every command it ran; the next command checks it anyway."""
    import sqlite3

    from referee import state_delta

    conn = sqlite3.connect(f"file:{session}?mode=ro", uri=True)
    try:
        seq, stored = conn.execute(
            "SELECT seq, state_json FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        if state_delta.is_delta(stored):
            anchor, changes = state_delta.split(seq, stored, "state")
            (whole,) = conn.execute("SELECT state_json FROM events WHERE seq = ?",
                                    (anchor,)).fetchone()
            stored = state_delta.rebuild(whole, changes, "state")
    finally:
        conn.close()
    return json.loads(stored)


class Table:
    """Plays commands on one session and keeps the state of the last reply."""

    def __init__(self, session, cat):
        self.session = str(session)
        self.cat = cat
        self.commands = 0
        self.state: dict = {}
        self.kinds: set[str] = set()

    def run(self, *args: str, expect: int = 0) -> dict:
        self.commands += 1
        assert self.commands < MAX_COMMANDS
        proc = referee("--session", self.session, *args, "--json")
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
        reply = json.loads(proc.stdout.strip().splitlines()[-1])
        if expect == 0:
            self.state = true_state(self.session)  # the replies show no hand, no deck
            self.kinds.add(args[1] if args[0] == "xs" else args[0])
        return reply

    def xs(self, *args: str, expect: int = 0) -> dict:
        return self.run("xs", *args, expect=expect)

    # ── what the active player holds ──────────────────────────────────────────
    @property
    def me(self) -> str:
        return self.state["turn"]["player"]

    def seat(self, player=None) -> dict:
        return self.state["table"][player or self.me]

    def held(self) -> list[str]:
        """The cards the active player holds."""
        return list(self.seat()["hand"])

    def hand(self, type_: str) -> list[str]:
        return [c for c in self.held() if self.cat.type(c) == type_]

    def phase(self) -> str:
        return self.state["turn"]["phase"]

    def settle(self) -> None:
        """An open paid roll: lower it with an adjust ability if one is unused (Venus Dee
        Milo), reroll a high one with a hero (The Orphan), then pay."""
        roll = self.state["turn"].get("open")
        if not roll:
            return
        used = self.state["turn"].get("used", {})
        for hero in self.seat()["heroes"]:
            for effect in self.cat.ability(hero["name"]):
                if "adjust" in effect and used.get(hero["name"], 0) < effect.get("per_turn", 1):
                    self.xs("adjust", hero["name"], "--by", "-1")
                    used = self.state["turn"].get("used", {})
                if ("reroll" in effect and effect["reroll"] == "any" and roll["total"] >= 5
                        and used.get(hero["name"], 0) < effect.get("per_turn", 1)):
                    self.xs("reroll", hero["name"])
                    used = self.state["turn"].get("used", {})
        if self.state["turn"].get("open"):
            self.xs("pay")


def play_turn(t: Table) -> None:
    """A simple, legal strategy that uses many of the referee's decisions."""
    t.xs("draw")  # the free card: the turn's own first step (XS-3)
    if t.state["deck"] and t.seat()["mt"] >= 4:
        t.xs("draw", "--extra")  # one bought draw
        t.settle()
    for card in t.held():  # events that help now
        effects = t.cat.event(card)
        if t.phase() == "opportunity" and any(("draw" in e or "gain_mt" in e) for e in effects):
            t.xs("event", card)
    if t.phase() == "opportunity":
        t.xs("pass")
    recruited = 0
    while t.phase() == "recruitment" and recruited < 2 and t.hand("Hero") and t.seat()["mt"] >= 5:
        t.xs("recruit", t.hand("Hero")[0])
        t.settle()
        recruited += 1
    if t.phase() == "recruitment":
        t.xs("pass")
    for hero in t.seat()["heroes"]:
        marketing = [c for c in t.hand("Marketing") if not t.cat.event(c)]
        room = hero["ft"] - sum(t.cat.counts(m, "marketing") for m in hero["marketing"])
        if (t.phase() == "publicity" and marketing and room >= t.cat.counts(marketing[0],
                                                                            "marketing")
                and t.seat()["mt"] >= 6):
            t.xs("attach", marketing[0], hero["name"])
            t.settle()
    if t.phase() == "publicity":
        t.xs("pass")
    missions = t.hand("Mission")
    if t.phase() == "mission" and missions and t.seat()["heroes"]:
        play_mission(t, missions[0])
    if t.phase() == "mission":
        t.xs("pass")
    if t.state["over"]:
        return
    owner = t.cat.ability(t.seat()["owner"])
    weak = sorted((h["ft"], h["name"]) for h in t.seat()["heroes"] if not h["marketing"])
    if any("end_phase_kill" in e for e in owner) and len(t.seat()["heroes"]) >= 2 and weak:
        t.xs("kill", weak[0][1])  # Coach sells a hero without marketing for 1D6 MT
    limits = [e["hand_limit"] for e in owner if "hand_limit" in e]
    hand, limit = t.held(), (limits or [5])[0]
    if len(hand) > limit:
        t.xs("discard", *hand[: len(hand) - limit])
    t.xs("next")


def play_mission(t: Table, card: str) -> None:
    t.xs("mission", card)
    rolls = t.state["turn"]["mission"]["rolls"]
    if rolls["mission"]["total"] > len(t.seat()["heroes"]):
        rerolls = [c for c in t.held()
                   if any(e.get("reroll") in ("mission", "any") for e in t.cat.event(c))]
        if not rerolls:
            return  # not attempted: `pass` discards the card (XS-6)
        t.xs("reroll", rerolls[0])
        if t.state["turn"]["mission"]["rolls"]["mission"]["total"] > len(t.seat()["heroes"]):
            return
    t.xs("carnage")
    carnage = t.state["turn"]["mission"]["rolls"]["carnage"]["total"]
    powers = [c for c in t.hand("Power") if not t.cat.event(c)]
    powers = powers[: min(carnage, max(0, len(powers) - 1))]  # keep one for the Success roll
    t.xs("casualties", *[a for p in powers for a in ("--power", p)])
    if t.state["turn"]["mission"]["stage"] != "casualties":
        return  # no survivor
    t.xs("success")
    mission = t.state["turn"]["mission"]
    short = mission["rolls"]["carnage"]["total"] - mission["rolls"]["success"]["total"] + 1
    spare = [c for c in t.hand("Power") if not t.cat.event(c)]
    if 0 < short <= len(spare):
        t.xs("boost", *[a for p in spare[:short] for a in ("--power", p)])
    mission = t.state["turn"]["mission"]
    if mission["rolls"]["success"]["total"] > mission["rolls"]["carnage"]["total"]:
        t.xs("payoff")


def play_to_the_end(session, cat, players: str, seed: int) -> Table:
    """A new referee-dealt game (`players` as --players takes them) played by `play_turn`
    until it is over: the table with its last state and the kinds of command it used."""
    new = referee("--session", str(session), "new", "x-statix", "--deal", "referee",
                  "--players", players, "--seed", str(seed), "--json")
    assert new.returncode == 0, new.stderr
    t = Table(session, cat)
    t.state = true_state(session)
    turns = 0
    while not t.state["over"]:
        play_turn(t)
        turns += 1
        assert turns < 200
    return t
