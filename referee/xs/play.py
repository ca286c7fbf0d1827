"""The working copy of an X-Statix game while one action is resolved: the table, the
cards' effects, the dice, and the steps told so far. Every action works on a deep copy;
the caller's state is never changed (a refusal leaves it as it was)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.errors import RefereeError, UsageError
from referee.outcome import Result, Step
from referee.state_copy import copy_state
from referee.words import counted, listed
from referee.xs import rolls
from referee.xs.catalog import Catalog
from referee.xs.rolls import Dice

PHASES = ("opportunity", "recruitment", "publicity", "mission", "fame", "fortune", "end")
PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
PHASE_RULING = {
    "opportunity": "XS-3",
    "recruitment": "XS-4",
    "publicity": "XS-5",
    "mission": "XS-6",
    "fame": "XS-9",
    "fortune": "XS-10",
    "end": "XS-11",
}
HAND_LIMIT = 5  # XS-11
MISSION_ORDER = ("mission", "carnage", "sendoff", "success", "payoff")
# How far a mission has gone: the index in MISSION_ORDER of the last roll made.
STAGE_MADE = {"mission": 0, "carnage": 1, "casualties": 2, "success": 3, "payoff": 4}
HIDDEN = "?"  # a card in a hand or deck the referee does not see (the table's own deck, XS-16)
NOT_AVAILABLE = "not available"  # a hidden card's place, or none: never told apart (XS-16)


class Settled(RefereeError):
    """A command refused because settling the open roll first (XS-2) would end the phase of
    the command itself: the roll cannot be paid. `result` is the state the settlement would
    leave (the rules' view); the CLI records nothing: a refusal changes nothing (issue 31)."""

    def __init__(self, message: str, ruling: str | None, result: Result) -> None:
        super().__init__(message, ruling)
        self.result = result


class SkipGuard(RefereeError):
    """A command refused because it would end a phase in which the player could still act
    (the Mission phase with a mission to play): on a terminal the CLI asks instead, and
    runs it again with `skip` when the player says so."""


def fresh_turn(number: int, player: str) -> dict:
    return {
        "number": number,
        "player": player,
        "phase": "opportunity",
        "open": None,  # a paid roll waiting for rerolls/adjustments before it is paid
        "used": {},  # per-turn uses of abilities ("The Orphan": 1)
        "queued": [],  # event modifiers waiting for their roll this turn (XS-12)
        "mission": None,
        "missions": 0,
        "choose_casualties": False,
        "another_turn": False,
        "coach_kills": 0,
        "fame": [],  # heroes owed 1 FT in the Fame phase (XS-9)
        "free_drawn": False,  # XS-3: made as the turn starts (turn 1: with its first action)
    }


class Play:
    # False where nobody reads the steps (the balance lab's fast mode): the hottest steps
    # are then not formatted at all. The rules never depend on it.
    telling = True

    def __init__(self, state: dict, cat: Catalog, dice: Dice, at_table: bool = False,
                 skip: bool = False) -> None:
        self.s = self.working_copy(state)
        self.cat = cat
        self.dice = dice
        # Commands typed at a table (the CLI): the free draw is its own step (`xs draw`),
        # and a phase in which the player could still act is not ended by a later phase's
        # command unless `skip` says so on purpose. The balance lab and the rules tests
        # play without these guards (the free draw made with the turn's first action).
        self.at_table = at_table
        self.skip = skip
        self.steps: list[Step] = []
        self.reveal: dict[str, Any] = {}
        if self.s.get("over"):
            raise RefereeError(
                f"the game is over: {listed(self.s.get('winner') or [])} won", "XS-13"
            )
        base = fresh_turn(self.s["turn"]["number"], self.s["turn"]["player"])
        self.s["turn"] = {**base, **self.s["turn"]}
        self.s["turn"].pop("paid_alone", None)  # true only right after `play`'s `xs pay`
        self._follow_turn()

    @staticmethod
    def working_copy(state: dict) -> dict:
        """The state this action changes: a deep copy, so a refusal leaves the caller's
        state as it was."""
        return copy_state(state)

    # ── telling ────────────────────────────────────────────────────────────────
    def step(self, text: str, ruling: str | None = None) -> None:
        self.steps.append(Step(text, ruling))

    def result(self, summary: str, kind: str) -> Result:
        self.dice.check_used()
        return Result(self.s, summary, self.steps, kind=kind, reveal=self.reveal)

    # ── who and where ──────────────────────────────────────────────────────────
    # `turn` (the state's turn) and `active` (whose turn it is) are attributes, read
    # thousands of times a game; they follow the state's turn, which only start_turn
    # replaces.
    def _follow_turn(self) -> None:
        self.turn: dict = self.s["turn"]
        self.active: str = self.turn["player"]

    def start_turn(self, number: int, player: str) -> None:
        self.s["turn"] = fresh_turn(number, player)
        self._follow_turn()

    def take_state(self, state: dict) -> None:
        """Go on from `state`, the result of another Play's action (the balance lab's
        strict mode)."""
        self.s = state
        self._follow_turn()

    def seat(self, player: str) -> dict:
        return self.s["table"][player]

    def check_actor(self, player: str | None, what: str, free_draw: bool = False) -> str:
        """The acting player: the active one. Anyone else is refused (XS-1: turns go
        clockwise, one player at a time). The turn's free draw comes first (XS-3): at a
        table it is its own step (`xs draw`, `free_draw=True`), else it is made now."""
        name = self.active if player is None else self.player_named(player)
        if name != self.active:
            raise RefereeError(f"{name} cannot {what}: it is {self.active}'s turn", "XS-1")
        if not self.turn["free_drawn"] and not free_draw:
            if self.at_table:
                raise RefereeError(f"{name} cannot {what} yet: the turn starts with its free "
                                   "card: xs draw", "XS-3")
            self.free_draw()
        return name

    def free_draw(self) -> None:
        if not self.turn["free_drawn"]:
            self.turn["free_drawn"] = True
            self.draw(self.active, 1, "XS-3", "free draw of the turn")

    def player_named(self, text: str) -> str:
        for p in self.s["players"]:
            if p.casefold() == text.strip().casefold():
                return p
        raise UsageError(f"no player {text!r} (players: {', '.join(self.s['players'])})")

    def opponents(self, player: str) -> list[str]:
        return [p for p in self.s["players"] if p != player]

    def opponent(self, player: str, chosen: str | None, what: str) -> str:
        """The targeted opponent: named, or the only one in a 2-player game."""
        others = self.opponents(player)
        if chosen is None:
            if len(others) == 1:
                return others[0]
            raise UsageError(f"{what}: name the opponent with --target ({', '.join(others)})")
        name = self.player_named(chosen)
        if name == player:
            raise UsageError(f"{what}: {name} is not an opponent of {player}")
        return name

    def card(self, text: str) -> str:
        name = self.cat.resolve(text)
        if name is None:
            import difflib

            from referee.xs.catalog import fold

            folded = {fold(n): n for n in self.cat.names()}
            close = difflib.get_close_matches(fold(text), list(folded), n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(folded[c]) for c in close)}?" if close else ""
            raise UsageError(f"there is no X-Statix card {text!r}{hint}")
        return name

    def where(self, name: str) -> str:
        """Where the one copy of a card is (each card exists once), as far as the table may
        know: a hidden place (another player's hand, the deck) reads "not available", the
        same as a card that is nowhere, so a refusal never tells where a hidden card is."""
        for p in self.s["players"]:
            seat = self.seat(p)
            if p == self.active and name in seat["hand"]:
                return f"in {p}'s hand"
            for hero in seat["heroes"]:
                if hero["name"] == name:
                    return f"in play on {p}'s team"
                if name in hero["marketing"]:
                    return f"attached to {hero['name']} ({p})"
            if name in (seat["owner"], seat["team"]):
                return f"{p}'s {'Owner' if name == seat['owner'] else 'Team Name'} card"
        mission = self.turn.get("mission")
        if mission and mission.get("card") == name and not mission.get("discarded"):
            return "on the table as this turn's mission"
        if name in self.s["discard"]:
            return "in the discard pile"
        return NOT_AVAILABLE

    # ── hands: named cards, and with the table's own deck (XS-16) hidden ones ─────
    # A hand is a list of card names; with the table's own deck (state "deal": "table")
    # the cards the referee has not seen are HIDDEN entries, and so is every card of the
    # deck. A card is named when it is shown: it then takes the place of a hidden one.
    @property
    def table_deck(self) -> bool:
        return self.s.get("deal") == "table"

    def holds(self, player: str, name: str) -> bool:
        """Whether `player` may hold `name`: named in the hand, or (the table's own deck)
        one of the hidden cards may be it. Changes nothing."""
        hand = self.seat(player)["hand"]
        return name in hand or (HIDDEN in hand and self.available(name))

    def available(self, name: str) -> bool:
        """With the table's own deck: a printed copy of `name` may still be hidden (in a
        hand or the deck): fewer copies have been shown, in hands, in play, on the table
        or in the discard pile, than the common deck has (cards.yaml `copies`)."""
        copies = self.cat.copies(name)
        if not copies:
            return False
        shown = self.s["discard"].count(name)
        for p in self.s["players"]:
            seat = self.seat(p)
            shown += seat["hand"].count(name)
            for hero in seat["heroes"]:
                shown += (hero["name"] == name) + hero["marketing"].count(name)
        mission = self.turn.get("mission")
        if mission and mission.get("card") == name and not mission.get("discarded"):
            shown += 1
        return shown < copies

    def require_in_hand(self, player: str, name: str, ruling: str | None) -> None:
        """`name` must be in `player`'s hand. With the table's own deck a hidden card is
        named `name` now (it is being shown): refused if every printed copy is shown
        already, or if every card of the hand is named already."""
        hand = self.seat(player)["hand"]
        if name in hand:
            return
        if not self.table_deck:
            raise self.not_in_hand(player, name, ruling)
        if not self.available(name):
            place = self.where(name) if self.cat.copies(name) else "not a card of the deck"
            raise RefereeError(f"{name} cannot be in {player}'s hand: it is {place} (each "
                               "printed card once)", ruling)
        if HIDDEN not in hand:
            named = f": {', '.join(hand)}" if hand else ""
            raise RefereeError(f"{player} holds {counted(len(hand), 'card')}, all named already"
                               f"{named}; {name} would be one more", ruling)
        hand[hand.index(HIDDEN)] = name

    def not_in_hand(self, player: str, name: str, ruling: str | None) -> RefereeError:
        """The refusal for a card not in `player`'s hand: where it is if that is public,
        else "not available", the same for the deck, another hand or nowhere (XS-16)."""
        return RefereeError(f"{name} is not in {player}'s hand: it is {self.where(name)} "
                            "(each card exists once)", ruling)

    def hero(self, player: str, name: str) -> dict | None:
        for hero in self.seat(player)["heroes"]:
            if hero["name"] == name:
                return hero
        return None

    def require_hero(self, player: str, text: str, ruling: str | None) -> dict:
        name = self.card(text)
        hero = self.hero(player, name)
        if hero is None:
            raise RefereeError(
                f"{name} is not a hero on {player}'s team: it is {self.where(name)}", ruling
            )
        return hero

    def hero_anywhere(self, text: str, ruling: str | None) -> tuple[str, dict]:
        name = self.card(text)
        for p in self.s["players"]:
            hero = self.hero(p, name)
            if hero is not None:
                return p, hero
        raise RefereeError(f"{name} is not a hero in play: it is {self.where(name)}", ruling)

    # ── effects of the cards a player has in play ─────────────────────────────
    def sources(self, player: str) -> list[tuple[str, dict, str | None]]:
        """(card name, effect, hero name or None) for the Owner card, the Team Name card
        and each hero in play: the `ability` effects that work for this player."""
        seat = self.seat(player)
        found: list[tuple[str, dict, str | None]] = []
        for name in (seat["owner"], seat["team"]):
            if name in self.cat:
                found += [(name, effect, None) for effect in self.cat.ability(name)]
        for hero in seat["heroes"]:
            found += [(hero["name"], e, hero["name"]) for e in self.cat.ability(hero["name"])]
        return found

    def with_verb(self, player: str, verb: str) -> list[tuple[str, Any, str | None]]:
        return [(n, e[verb], h) for n, e, h in self.sources(player) if verb in e]

    def sources_with(self, player: str, key: str) -> list[tuple[str, dict, str | None]]:
        """The `sources` whose effect has `key` (as `with_verb`, with the whole effect)."""
        return [(n, e, h) for n, e, h in self.sources(player) if key in e]

    def card_mods(self, player: str, kind: str, hero: str | None = None) -> list[dict]:
        """Modifiers to a roll from the player's cards in play (`modify: kind`);
        `target: self` ones only for that hero's own roll (El Guapo, Zeitgeist)."""
        mods = []
        for name, effect, owner_hero in self.sources_with(player, "modify"):
            if effect["modify"] != kind:
                continue
            if effect.get("target") == "self" and owner_hero != hero:
                continue
            mods.append(rolls.modifier(effect["by"], name, rolls.RULING[kind], effect.get("min")))
        return mods

    def take_queued(self, kind: str) -> list[dict]:
        """Event modifiers waiting for the next roll of this kind (XS-12), used up."""
        if not self.turn["queued"]:
            return []
        taken = [m for m in self.turn["queued"] if m["kind"] == kind]
        self.turn["queued"] = [m for m in self.turn["queued"] if m["kind"] != kind]
        return [rolls.modifier(m["by"], m["source"], m["ruling"]) for m in taken]

    def roll(self, kind: str, player: str, hero: str | None = None, extra: Sequence[dict] = (),
             context: dict[str, Any] | None = None) -> dict:
        """A roll of `kind` for `player` (`hero`: whose own roll it is), with the `extra`
        modifiers, then the cards' and the queued events' ones; `context` says what the
        roll is for (the card recruited, the hero killed...)."""
        label = None
        if self.dice.labelled:
            whose = hero if kind == "sendoff" and hero else player
            label = f"{whose}'s {rolls.LABEL.get(kind, kind)}"
        faces = self.dice.d6(rolls.DICE.get(kind, 1), label)
        mods = [*extra, *self.card_mods(player, kind, hero), *self.take_queued(kind)]
        return rolls.new_roll(kind, faces, mods, context)

    def hand_limit(self, player: str) -> tuple[int, str | None]:
        limits = self.with_verb(player, "hand_limit")
        if limits:
            name, value, _ = limits[0]
            return int(value), name
        return HAND_LIMIT, None

    # ── cards moving ───────────────────────────────────────────────────────────
    def draw(self, player: str, n: int, ruling: str | None, why: str) -> list[str]:
        """Draw up to n cards; never from an empty deck (XS-3)."""
        deck = self.s["deck"]
        drawn = deck[:n]
        del deck[:n]
        self.seat(player)["hand"].extend(drawn)
        if len(drawn) < n:
            held = f"holds only {counted(len(drawn), 'card')}" if drawn else "is empty"
            self.step(f"{why}: the deck {held}", "XS-3")
        if drawn and self.telling:
            self.step(f"{why}: {player} draws {counted(len(drawn), 'card')}", ruling)
        return drawn

    def discard_from_hand(self, player: str, name: str) -> None:
        self.seat(player)["hand"].remove(name)
        self.s["discard"].append(name)

    # A team changes only through add_hero and take_hero (the balance lab remembers each
    # team's effects until it changes).
    def add_hero(self, player: str, hero: dict) -> None:
        self.seat(player)["heroes"].append(hero)

    def take_hero(self, player: str, hero: dict) -> None:
        self.seat(player)["heroes"].remove(hero)

    def remove_hero(self, player: str, hero: dict, to_hand: bool = False) -> None:
        """The hero leaves play: its FT are lost and its marketing discarded (XS-7)."""
        seat = self.seat(player)
        self.take_hero(player, hero)
        self.s["discard"].extend(hero["marketing"])
        if to_hand:
            seat["hand"].append(hero["name"])
        else:
            self.s["discard"].append(hero["name"])

    def gain_mt(self, player: str, amount: int, why: str, ruling: str | None) -> None:
        seat = self.seat(player)
        seat["mt"] = max(0, seat["mt"] + amount)
        if self.telling:
            self.step(f"{why}: {player} {'gains' if amount >= 0 else 'loses'} {abs(amount)} MT "
                      f"(now {seat['mt']})", ruling)

    def fit_marketing(self, player: str, hero: dict, ruling: str | None) -> None:
        """A hero holds no more marketing than FT (XS-5): after losing FT, the marketing
        attached last is discarded until it fits."""
        while hero["marketing"] and self.marketing_load(hero) > hero["ft"]:
            dropped = hero["marketing"].pop()
            self.s["discard"].append(dropped)
            self.step(f"{hero['name']} has {hero['ft']} FT: {dropped} is discarded", ruling)

    def marketing_load(self, hero: dict) -> int:
        attached = hero["marketing"]
        return sum(self.cat.counts(m, "marketing") for m in attached) if attached else 0

    def kill(self, player: str, name: str, cause: str, sendoff: bool,
             ruling: str = "XS-7") -> bool:
        """Kill a hero of `player`'s team. Survival first (the hero's own `on_killed:
        survive_on`, then teammates' `on_other_killed`), then the Sendoff roll when killed
        on a mission, then the hero's other `on_killed` effects. True if the hero died.
        `ruling`: the rule that kills (XS-7 on a mission, XS-11 for Coach)."""
        hero = self.hero(player, name)
        assert hero is not None
        if self.telling:
            self.step(f"{name} is killed ({cause})", ruling)
        for effect in self.cat.ability(name):
            survive = (effect.get("on_killed") or {}).get("survive_on")
            if survive and self._survives(name, survive, name):
                return False
        for source, effect, owner_hero in self.with_verb(player, "on_other_killed"):
            if owner_hero != name and effect.get("survive_on"):
                if self._survives(name, effect["survive_on"], source):
                    return False
        to_hand = False
        if sendoff:
            roll = self.roll("sendoff", player, hero=name, context={"hero_name": name})
            mission = self.turn.get("mission")
            if mission is not None and mission["stage"] != "done":
                mission.setdefault("sendoffs", []).append(roll)  # open till the mission ends
            why = f"{rolls.describe(roll)} for {name}" if self.telling else "Sendoff roll"
            self.gain_mt(player, roll["total"], why, "XS-7")
        for effect in self.cat.ability(name):
            on_killed = effect.get("on_killed") or {}
            if "draw" in on_killed:
                self.draw(player, int(on_killed["draw"]), None, f"{name} killed")
            if "modify" in on_killed:
                kind, by = on_killed["modify"], int(on_killed["by"])
                if self.roll_to_come(kind):
                    self.turn["queued"].append({"kind": kind, "by": by, "source": name,
                                                "ruling": rolls.RULING[kind]})
                    self.step(f"{name} killed: {by:+d} to the {rolls.LABEL[kind]}",
                              rolls.RULING[kind])
                else:  # killed by Coach in the End phase (Sluk): no such roll is left
                    self.step(f"{name} killed: no {rolls.LABEL[kind]} is left this turn for "
                              f"its {by:+d}", rolls.RULING[kind])
            if "to_hand_on" in on_killed:
                face = self.dice.d6(1, f"{name}'s roll to go back to the hand")[0]
                to_hand = face >= on_killed["to_hand_on"]
                self.step(f"{name}'s roll {face} (needs {on_killed['to_hand_on']}+): "
                          + ("goes back to the hand" if to_hand else "stays dead"), None)
        if self.telling:
            lost = f"; {hero['ft']} FT lost" + (
                f"; {', '.join(hero['marketing'])} discarded" if hero["marketing"] else "")
            self.step(f"{name} leaves play{lost}", "XS-7")
        self.remove_hero(player, hero, to_hand=to_hand)
        return True

    def _survives(self, name: str, needed: int, source: str) -> bool:
        label = None
        if self.dice.labelled:
            label = f"{name}'s survival roll" + (f" ({source})" if source != name else "")
        face = self.dice.d6(1, label)[0]
        lives = face >= needed
        self.step(f"{source}: {name} {'lives' if lives else 'dies'} on a roll of {face} "
                  f"(needs {needed}+)", None)
        return lives

    def phase_index(self, phase: str | None = None) -> int:
        return PHASE_INDEX[phase or self.turn["phase"]]

    def roll_to_come(self, kind: str) -> bool:
        """Whether a roll of this mission `kind` may still be made this turn (a modifier
        queued for it waits for it): the Mission phase not over, and the turn's mission not
        played yet or not past that roll."""
        if kind not in MISSION_ORDER or self.phase_index() > PHASE_INDEX["mission"]:
            return False
        mission = self.turn.get("mission")
        if mission is None:
            return self.turn["missions"] == 0
        if mission["stage"] == "done":
            return False
        return MISSION_ORDER.index(kind) > STAGE_MADE[mission["stage"]]
