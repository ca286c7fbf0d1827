"""Complete X-Statix games played by automatic policies through the X-Statix engine's own
action functions (`referee.xs.turn`, `.mission`, `.events`): no rule is implemented here.
The driver only sequences a turn (XS-3 .. XS-13) and records what happened.

Two ways to run the same game (same seed, same dice, same result):
- fast: one working copy of the state is changed in place by the engine's functions
  (what `Play` does inside one action), with no deep copy between actions;
- strict: every decision goes through a fresh `Play` on a deep copy of the state, exactly
  as the referee's CLI runs one command; a refusal raises `IllegalDecision`.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import RefereeError, UsageError
from referee.simulate import xs_options as opt
from referee.simulate.policies import Decision, Policy, opponent_pick
from referee.xs import events, mission, turn
from referee.xs.catalog import Catalog
from referee.xs.game import new_state
from referee.xs.play import Play
from referee.xs.rolls import Dice

MAX_CHANGES = 12  # decisions on one roll (rerolls, events); guards against a policy loop
MAX_TURNS = 500  # a game always ends (each turn draws a card); this only catches a bug


class IllegalDecision(Exception):
    """A policy made a decision that the engine refused (a bug in the policy)."""


@dataclass
class GameRecord:
    """What one game tells the statistics (small: it crosses process boundaries)."""

    turns: int
    # per player in turn order (position 1 = the first player): owner, team, policy, MT, won
    seats: list[dict[str, Any]]
    # (mission card, attempted, success, payoff MT)
    missions: list[tuple[str, bool, bool, int]] = field(default_factory=list)
    # (hero, survived) for each hero that went on a mission
    hero_missions: list[tuple[str, bool]] = field(default_factory=list)
    recruited: list[str] = field(default_factory=list)
    alive_at_end: list[str] = field(default_factory=list)
    # MT of each position after each of its own turns
    mt_curves: list[list[int]] = field(default_factory=list)


_hero_name = operator.itemgetter("name")


class FastPlay(Play):
    """The engine's `Play`, for the fast mode only: the same actions on the same state,
    minus the bookkeeping a simulation never reads.

    - The effects a player's cards give (`sources`, `with_verb`, `sources_with`) are
      remembered for each team until it changes (`add_hero`,
      `take_hero`: the only ways a team changes), and for each team seen this game.
    - The told steps are not kept (the hottest ones are not even formatted: `telling`),
      and an action returns no `Result`.

    The tests play the same seeded games in strict mode (the real `Play`, a deep copy per
    decision) and check the results are identical."""

    telling = False

    def __init__(self, state: dict, cat: Catalog, dice: Dice) -> None:
        super().__init__(state, cat, dice)
        # the cards giving effects (Owner, Team Name, heroes in play, in order) -> theirs
        self._effects: dict[tuple, TeamEffects] = {}
        self._team: dict[str, TeamEffects] = {}  # player -> the above
        self._cards: dict[tuple[str, bool], CardEffects] = {}  # (card, as a hero) -> ...

    @staticmethod
    def working_copy(state: dict) -> dict:
        # The Table's state was made by new_state for this game alone and is changed in
        # place from the first action on: no copy of it is needed.
        return state

    def step(self, text: str, ruling: str | None = None) -> None:
        return None

    def result(self, summary: str, kind: str) -> None:  # type: ignore[override]
        return None

    def add_hero(self, player: str, hero: dict) -> None:
        super().add_hero(player, hero)
        self._team.pop(player, None)

    def take_hero(self, player: str, hero: dict) -> None:
        super().take_hero(player, hero)
        self._team.pop(player, None)

    def _effects_of(self, player: str) -> TeamEffects:
        """The remembered effects of `player`'s cards in play."""
        found = self._team.get(player)
        if found is None:
            seat = self.s["table"][player]
            cards = (seat["owner"], seat["team"], *map(_hero_name, seat["heroes"]))
            found = self._effects.get(cards)
            if found is None:
                found = self._effects[cards] = TeamEffects(
                    [self._card_effects(name, i >= 2) for i, name in enumerate(cards)])
            self._team[player] = found
        return found

    def _card_effects(self, name: str, hero: bool) -> CardEffects:
        found = self._cards.get((name, hero))
        if found is None:
            # Play.sources: the Owner and Team Name cards (if cards of the catalog) give
            # their effects with no hero, each hero in play as that hero
            effects = self.cat.ability(name) if hero or name in self.cat else ()
            found = self._cards[(name, hero)] = CardEffects(name, effects,
                                                            name if hero else None)
        return found

    def sources(self, player: str) -> list[tuple[str, dict, str | None]]:
        return (self._team.get(player) or self._effects_of(player)).sources

    # The engine and the policies only read these lists: they are shared, not copied.
    def with_verb(self, player: str, verb: str) -> list[tuple[str, Any, str | None]]:
        team = self._team.get(player) or self._effects_of(player)
        found = team.verbs.get(verb)
        if found is None:
            found = team.verbs[verb] = [v for card in team.cards for v in card.verbs.get(verb, ())]
        return found

    def sources_with(self, player: str, key: str) -> list[tuple[str, dict, str | None]]:
        team = self._team.get(player) or self._effects_of(player)
        found = team.withs.get(key)
        if found is None:
            found = team.withs[key] = [w for card in team.cards for w in card.withs.get(key, ())]
        return found


class CardEffects:
    """One card's part of `Play.sources` (name, effect, hero), sorted by the effects' keys:
    `verbs` as `Play.with_verb` gives them, `withs` as `Play.sources_with` does."""

    def __init__(self, name: str, effects: Sequence[dict], hero: str | None) -> None:
        self.entries = [(name, effect, hero) for effect in effects]
        self.verbs: dict[str, list[tuple[str, Any, str | None]]] = {}
        self.withs: dict[str, list[tuple[str, dict, str | None]]] = {}
        for entry in self.entries:
            for key, value in entry[1].items():
                self.verbs.setdefault(key, []).append((name, value, hero))
                self.withs.setdefault(key, []).append(entry)


class TeamEffects:
    """The effects of a team of cards (Owner, Team Name, heroes): `Play.sources`, and the
    answers of `with_verb` and `sources_with`, each put together from the cards' own the
    first time it is asked for (the same lists, in the same order)."""

    def __init__(self, cards: list[CardEffects]) -> None:
        self.cards = cards
        self.sources = [entry for card in cards for entry in card.entries]
        self.verbs: dict[str, list[tuple[str, Any, str | None]]] = {}
        self.withs: dict[str, list[tuple[str, dict, str | None]]] = {}


class Table:
    """The game in progress and the one way decisions reach the engine (`do`)."""

    def __init__(self, state: dict, cat: Catalog, rng: random.Random, strict: bool) -> None:
        self.cat = cat
        self.rng = rng
        self.strict = strict
        self.play = (Play if strict else FastPlay)(state, cat, Dice(rng))
        self.decisions = 0

    def do(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.decisions += 1
        if not self.strict:
            try:
                fn(self.play, None, *args, **kwargs)
            except (RefereeError, UsageError) as error:
                raise IllegalDecision(f"turn {self.play.turn['number']} {self.play.active}: "
                                      f"{getattr(fn, '__name__', fn)}{args} {kwargs} refused: "
                                      f"{error}") from error
            return
        fresh = Play(self.play.s, self.cat, Dice(self.rng))  # a deep copy, as the CLI does
        try:
            result = fn(fresh, None, *args, **kwargs)
        except (RefereeError, UsageError) as error:
            raise IllegalDecision(
                f"turn {self.play.turn['number']} {self.play.active} "
                f"({self.play.turn['phase']}): {getattr(fn, '__name__', fn)}{args} {kwargs} "
                f"refused: {error}") from error
        self.play.take_state(result.state)

    def apply(self, decision: Decision) -> None:
        if decision.action == "event":
            card = decision.args[0]
            if not opt.event_playable(self.play, card, **decision.kwargs) and not self.strict:
                raise IllegalDecision(f"policy played {card} when its event does not apply")
            self.do(events.play_event, *decision.args, **decision.kwargs)
        elif decision.action == "reroll":
            self.do(events.reroll, *decision.args)
        elif decision.action == "adjust":
            self.do(events.adjust, *decision.args)
        elif decision.action == "boost":
            self.do(mission.boost, **decision.kwargs)
        else:
            raise ValueError(f"unknown decision {decision.action}")

    @property
    def phase(self) -> str:
        return self.play.turn["phase"]

    def pass_if(self, phase: str) -> None:
        if self.phase == phase:
            self.do(turn.pass_phase)


def play_game(
    db: Any,
    cat: Catalog,
    policies: Sequence[Policy],
    rng: random.Random,
    strict: bool = False,
) -> GameRecord:
    """One complete game; `policies[i]` plays seat i (seat order as dealt, XS-1)."""
    names = [f"P{i + 1}" for i in range(len(policies))]
    by_name = dict(zip(names, policies, strict=True))
    state = new_state(names, db, rng)
    table = Table(state, cat, rng, strict)
    first = state["turn"]["player"]  # turn 1's free card comes with its first action (XS-3)
    order = names[names.index(first):] + names[:names.index(first)]
    curves: dict[str, list[int]] = {n: [] for n in names}
    record = GameRecord(turns=0, seats=[])
    while not table.play.s["over"]:
        if table.play.turn["number"] > MAX_TURNS:
            raise IllegalDecision("the game did not end")
        actor = table.play.active
        play_turn(table, by_name[actor], record)
        table.do(turn.next_turn)  # the End phase after Fortune (XS-10, XS-11)
        curves[actor].append(table.play.seat(actor)["mt"])
    final = table.play.s
    winners = set(final["winner"] or [])
    record.turns = final["turn"]["number"]
    for name in order:
        seat = final["table"][name]
        record.seats.append({"owner": seat["owner"], "team": seat["team"],
                             "policy": by_name[name].name, "mt": seat["mt"],
                             "won": name in winners, "shared": len(winners) > 1})
        record.alive_at_end += [h["name"] for h in seat["heroes"]]
        record.mt_curves.append(curves[name])
    return record


def play_turn(table: Table, policy: Policy, record: GameRecord) -> None:
    """One turn of the active player: the phases in order (XS-3..XS-11)."""
    if not table.play.turn["free_drawn"]:  # turn 1: the engine's `draw` makes the free draw
        table.do(turn.draw)
    changes(table, policy.turn_event)
    # Opportunity (XS-3): the free card is drawn when the turn begins.
    # Phases are not passed one by one: the engine moves the turn forward to the phase of
    # the next action (`turn.enter_phase`), resolving Fame and Fortune on the way.
    bought = 0
    while table.phase == "opportunity" and policy.buy_draw(table.play, bought):
        table.do(turn.buy_draw)
        bought += 1
        settle_paid_roll(table, policy)
    # Recruitment (XS-4)
    while opt.phase_open(table.play, "recruitment"):
        card = policy.recruit(table.play)
        if card is None:
            break
        table.do(turn.recruit, card)
        settle_paid_roll(table, policy)
        if any(h["name"] == card for h in table.play.seat(table.play.active)["heroes"]):
            record.recruited.append(card)
    # Publicity (XS-5)
    while opt.phase_open(table.play, "publicity"):
        choice = policy.attach(table.play)
        if choice is None:
            break
        table.do(turn.attach, *choice)
        settle_paid_roll(table, policy)
    # Mission (XS-6..XS-8), then Fame (XS-9) and Fortune (XS-10) on leaving it
    card = policy.mission(table.play)
    if card is not None:
        run_mission(table, policy, card)
        table.pass_if("mission")
        note_mission(table, record)
    # End (XS-11)
    play = table.play
    actor = play.active
    # Coach's kill first: a killed hero may draw cards (Ooze) or return to the hand.
    if play.with_verb(actor, "end_phase_kill") and play.turn["coach_kills"] == 0:
        victim = policy.coach_kill(play)
        if victim is not None:
            table.do(turn.end_phase_kill, victim)
    play = table.play
    limit, _ = play.hand_limit(actor)
    excess = len(play.seat(actor)["hand"]) - limit
    if excess > 0:
        table.do(turn.discard, policy.end_discards(play, excess))


def run_mission(table: Table, policy: Policy, card: str) -> None:
    """XS-6..XS-8 one step at a time, the policy deciding between the steps."""
    table.do(mission.start, card)
    changes(table, policy.roll_decision)
    current = table.play.turn["mission"]
    if current["stage"] != "mission":
        return
    if len(table.play.seat(table.play.active)["heroes"]) < current["rolls"]["mission"]["total"]:
        return  # not attempted: passing the phase discards the card (XS-6)
    table.do(mission.carnage)
    changes(table, policy.roll_decision)
    plan = policy.casualty_plan(table.play)
    left = table.play.turn["mission"]["rolls"]["carnage"]["total"] - sum(
        table.play.cat.counts(c, "carnage") for c in plan.powers)
    if left > 0:
        for event_card in policy.casualty_events(table.play):
            if opt.event_playable(table.play, event_card):
                table.do(events.play_event, event_card)
        plan = policy.casualty_plan(table.play)
    table.do(mission.casualties, powers=plan.powers, sacrifices=plan.sacrifices,
             choose=plan.choose, swap_for=plan.swap_for)
    if table.play.turn["mission"]["stage"] == "done":
        return
    table.do(mission.success)
    changes(table, policy.success_decision)
    current = table.play.turn["mission"]
    if current["rolls"]["success"]["total"] > current["rolls"]["carnage"]["total"]:
        table.do(mission.payoff)
        changes(table, policy.roll_decision)


def note_mission(table: Table, record: GameRecord) -> None:
    current = table.play.turn.get("mission")
    if not current:
        return
    made = current["rolls"]
    attempted = "carnage" in made
    success = "payoff" in made
    payoff = made["payoff"]["total"] if success else 0
    record.missions.append((current["card"], attempted, success, payoff))
    if attempted:
        survivors = set(table.play.turn["fame"])
        record.hero_missions += [(h, h in survivors) for h in current["team"]]


def changes(table: Table, decide: Callable[[Play], Decision | None]) -> None:
    for _ in range(MAX_CHANGES):
        decision = decide(table.play)
        if decision is None:
            return
        table.apply(decision)


def settle_paid_roll(table: Table, policy: Policy) -> None:
    """XS-2: a paid roll left open to rerolls is changed (or not), then paid."""
    if table.play.turn.get("open"):
        changes(table, policy.roll_decision)
        if table.play.turn.get("open"):
            table.do(turn.pay_now)


__all__ = ["GameRecord", "IllegalDecision", "Table", "play_game", "opponent_pick"]
