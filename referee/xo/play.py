"""XO! session play: state transitions for the session commands (pick, attack, feat,
thwart, tag, untag, play, next). Pure: the state dict, the cards and the dice come in; a
new state, a one-line summary for the log and the steps taken come out. A refusal raises
`RefereeError` citing the ruling (or `UsageError` for a name nobody knows), leaving the
state unchanged.

State (docs/ARCHITECTURE.md, XO! shape) plus these keys of this module:
`hands: {league: cards in hand}` (XO-10, a count: drawn in the Card Discard/Draw phase,
lowered by cards played, raised by `draw` effects), `objectives` (the current chapter's,
for `status`), per roster entry `ready` (XO-9, for `status`), and in `turn`: `attacked`
(characters that attacked this turn) and `feat` (this turn's feat attempt: character,
total, success, pending = waiting for a thwart, thwarted), `energy: {league: Energy in
the pool}` (filled by the Energy played this turn, spent on costs, emptied when the turn
ends; rules, Attack phase) and `resources: {stack: [card names, top first]}` (setup step
4: the top card of each stack is the face-up one, the only one that can be used) and
`resources_used` (the Resources used, in order: spent, out of the game).

Cards played (Action, Modifier, Energy, Resource) change the roll they are played on
with the effects written in cards.yaml; their costs are paid from the pool.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from referee.dice import table_of
from referee.errors import RefereeError, UsageError
from referee.outcome import Result
from referee.state_copy import copy_state
from referee.xo import rules
from referee.xo.rules import LEAGUES, PHASES, StatusDef, Step, other_league

SETUP = "setup"
PLAYABLE_TYPES = ("Action", "Modifier", "Energy", "Resource")
# What a played card's effects may do on each use (docs/CARDS.md XO effect vocabulary);
# cost, energy and draw work on any use (play_cards), anything else is refused.
USES = {
    "attack": {"attack_mod", "dice", "effect_damage", "aoe", "tag"},
    "defense": {"defense_mod", "dice", "counterattack"},
    "feat": {"feat_mod", "dice"},
    "thwart": {"thwart_mod", "dice"},
    "any": {"remove", "tag"},
}
KOD = rules.KOD  # the status card a KO by card play tags (XO-4: the character leaves play)


@dataclass(frozen=True)
class XoCards:
    """The XO! card data the referee plays with, from cards.yaml."""

    characters: dict[str, Any]  # name -> Character card
    objectives: dict[tuple[str, int], Any]  # (league, chapter) -> Objective card
    statuses: dict[str, StatusDef]
    playable: dict[str, Any] = field(default_factory=dict)  # Action, Modifier, Resource cards

    @classmethod
    def from_db(cls, db: Any) -> XoCards:
        game = db.games["xo"]
        return cls(
            characters={c.name: c for c in game.cards(type="Character")},
            objectives={(c["league"], int(c["chapter"])): c for c in game.cards(type="Objective")},
            statuses=rules.status_defs_from(game.cards(type="Status")),
            playable={c.name: c for c in game.cards() if c.type in PLAYABLE_TYPES},
        )

    def character(self, name: str, league: str | None = None) -> Any:
        """The Character card called `name` (case-insensitive); UsageError with a
        did-you-mean otherwise."""
        pool = {n: c for n, c in self.characters.items() if league is None or c["league"] == league}
        folded = {n.casefold(): c for n, c in self.characters.items()}
        other = folded.get(name.casefold())
        if other is not None and other.name not in pool:
            # setup step 3: each player selects super heroes or super villains for his league
            raise UsageError(f"{other.name} is one of the {other['league']}, not the {league}")
        return pool[resolve_name(name, pool, "character")]

    def status(self, name: str) -> str:
        return resolve_name(name, self.statuses, "Status card")

    def objective(self, league: str, chapter: int) -> Any:
        try:
            return self.objectives[(league, chapter)]
        except KeyError:
            raise RefereeError(
                f"cards.yaml has no {league} objective for chapter {chapter}", "XO-12"
            ) from None


def resolve_name(name: str, names: Mapping[str, Any] | Sequence[str], what: str) -> str:
    """The exact name meant by `name` (case-insensitive); UsageError with a did-you-mean."""
    if name in names:
        return name
    folded = {n.casefold(): n for n in names}
    if name.casefold() in folded:
        return folded[name.casefold()]
    close = difflib.get_close_matches(name.casefold(), list(folded), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(folded[c]) for c in close)}?" if close else ""
    raise UsageError(f"unknown {what} {name!r}{hint}")


Outcome = Result  # one result type for every engine (referee/outcome.py)


def refresh(state: dict, cards: XoCards) -> dict:
    """Keep the derived facts `status_lines` shows in the state: each character's
    readiness (XO-9, from the Status cards) and the current chapter's objectives (XO-12)."""
    for league in LEAGUES:
        for entry in state["roster"][league]:
            entry["ready"] = _entry_ready(state, cards, entry)
    objectives = {}
    for league in LEAGUES:
        card = cards.objectives.get((league, state["chapter"]))
        if card is not None:
            objectives[league] = {
                "name": card.name,
                "feat": card["feat"],
                "requires": dict(card["requires"]),
                "fcv": card["fcv"],
                "tcv": card["tcv"],
            }
    state["objectives"] = objectives
    return state


def _done(cards: XoCards, state: dict, summary: str, steps: list[Step], data: dict[str, Any]) -> Outcome:
    return Outcome(refresh(state, cards), summary, steps, data)


def dice_notes(dice: random.Random) -> list[Step]:
    """Which dice the referee rolled itself, and faces given for no roll (core's
    `TableDice`; a plain RNG leaves no notes)."""
    table = table_of(dice)
    if table is None:
        return []
    steps = []
    if table.referee_dice:
        steps.append(Step("rolled by the referee: " + "; ".join(
            f"{label}: {','.join(map(str, faces))}" for label, faces in table.referee_dice), None))
    steps.extend(Step(f"given roll for {role} not needed", None) for role in table.unused_roles())
    return steps


def referee_rolled(dice: random.Random) -> list[dict[str, Any]]:
    """The dice the referee rolled, for --json: [{"roll": what, "faces": [...]}]."""
    table = table_of(dice)
    return [] if table is None else table.referee_rolls()


# --------------------------------------------------------------------------- helpers


def find_character(state: dict, name: str) -> tuple[str, dict]:
    """(league, roster entry) of a picked character (case-insensitive)."""
    for league in LEAGUES:
        for entry in state["roster"][league]:
            if entry["name"].casefold() == name.casefold():
                return league, entry
    picked = [e["name"] for lg in LEAGUES for e in state["roster"][lg]]
    resolve_name(name, picked, "character in play")  # raises with a did-you-mean
    raise AssertionError("unreachable")


def _check_playing(state: dict) -> None:
    if state.get("over"):
        if state.get("winner") is None:
            raise RefereeError("the game is over: a draw", "XO-16")
        raise RefereeError(f"the game is over: {state.get('winner')} won", "XO-15")
    if state["turn"]["phase"] == SETUP:
        raise RefereeError("pick 7 characters for each league first", None)


def _check_phase(state: dict, phase: str, what: str) -> None:
    _check_playing(state)
    current = state["turn"]["phase"]
    if current != phase:
        raise RefereeError(f"{what} only in the {phase} phase, not in the {current} phase", "XO-11")


def _check_ready(state: dict, cards: XoCards, entry: dict, what: str) -> None:
    ready = rules.readiness(entry["statuses"], entry["ko"], cards.statuses)
    if not ready.ready:
        raise RefereeError(f"{entry['name']} cannot {what}: {ready.steps[0].text}", "XO-9")


def _turn_label(state: dict) -> str:
    turn = state["turn"]
    return f"T{turn['number']} {turn['active']}"


def _entry_ready(state: dict, cards: XoCards, entry: dict) -> bool:
    return rules.readiness(entry["statuses"], entry["ko"], cards.statuses).ready


# --------------------------------------------------------------------------- card play


@dataclass
class Played:
    """The summed effects of the cards played on one roll (or with `play`)."""

    mods: dict[str, int] = field(default_factory=dict)  # attack_mod, dice, effect_damage, ...
    aoe: bool = False
    counterattack: bool = False
    tags: list[str] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    bonuses: list[tuple[str, str, int]] = field(default_factory=list)  # (card, key, value), for the log

    def mod(self, key: str) -> int:
        return self.mods.get(key, 0)


def play_cards(state: dict, cards: XoCards, names: Sequence[str], league: str, character: str | None, use: str) -> Played:
    """Check and sum the cards `league` plays for `use` (attack, defense, feat, thwart, any):
    an Action card only for its own character, a Modifier or Energy card only from the
    league's own deck, its timing matching the use (or `any`); a Resource only when face
    up on its stack (setup step 4; the next card flips up). Cards from hand leave it (XO-10
    hand count); `draw` effects refill it. Energy cards and `energy` effects fill the
    league's pool of this turn and every `cost` is paid from it (rules, Attack phase);
    a cost the pool cannot pay refuses the whole play."""
    played = Played()
    hands = state.setdefault("hands", {lg: 0 for lg in LEAGUES})
    from_hand = 0
    provided: list[tuple[str, int]] = []
    costs: list[tuple[str, int]] = []
    for raw in names:
        card = cards.playable[resolve_name(raw, cards.playable, "Action, Modifier, Energy or Resource card")]
        _check_card_fits(card, league, character, use)
        if card.type == "Resource":
            played.steps.extend(_take_resource(state, card))
        if card.type == "Energy":
            provided.append((card.name, int(card["energy"])))
        for effect in card.get("effect") or []:
            for key, value in effect.items():
                if key == "cost":
                    costs.append((card.name, int(value)))
                elif key == "energy":
                    provided.append((card.name, int(value)))
                elif key == "draw":
                    hands[league] = hands.get(league, 0) + int(value)
                    played.steps.append(Step(f"{card.name}: {league} draw {value}", "XO-10"))
                else:
                    _add_effect(played, cards, card, key, value, use)
        if card.type != "Resource":
            from_hand += 1
        played.names.append(card.name)
    _leave_hand(hands, league, from_hand)
    if provided or costs:
        played.steps.extend(_pay_energy(state, league, provided, costs))
    return played


def _check_card_fits(card: Any, league: str, character: str | None, use: str) -> None:
    """An Action card only for its own character, an Action, Modifier or Energy card only
    from the league's own deck, an Action or Modifier only on its timing (or `any`)."""
    if card.type == "Action" and card["character"] != character:
        raise RefereeError(f"{card.name} is {card['character']}'s Action card, not {character or 'anyone'}'s", None)
    if card.type in ("Action", "Modifier", "Energy") and not card.deck.startswith(league):
        raise RefereeError(f"{card.name} is not a {league} card", None)
    timing = card.get("timing")
    if card.type in ("Action", "Modifier") and timing not in (use, "any"):
        raise RefereeError(f"{card.name} is played on {timing}, not on {use}", None)


def _add_effect(played: Played, cards: XoCards, card: Any, key: str, value: Any, use: str) -> None:
    """One effect of a card on the roll it is played on (`USES[use]` says which count)."""
    if key not in USES[use]:
        raise RefereeError(f"{card.name} ({key}: {value}) does nothing "
                           + ("played on its own: play it on the roll it changes" if use == "any"
                              else f"on {'an' if use == 'attack' else 'a'} {use}"), None)
    if key == "aoe":
        played.aoe = played.aoe or bool(value)
    elif key == "counterattack":
        played.counterattack = played.counterattack or bool(value)
    elif key == "tag":
        played.tags.append(cards.status(value))
    elif key == "remove":
        played.removes.append(cards.status(value))
    else:
        played.mods[key] = played.mod(key) + int(value)
        played.bonuses.append((card.name, key, int(value)))
    played.steps.append(Step(f"{card.name}: {key} {value}", None))


def _leave_hand(hands: dict, league: str, from_hand: int) -> None:
    """XO-10: the cards played from hand leave it; a league cannot play more than it holds."""
    if from_hand:
        if hands.get(league, 0) < from_hand:
            raise RefereeError(f"the {league} hold {hands.get(league, 0)} cards and cannot play {from_hand} from hand", "XO-10")
        hands[league] -= from_hand


def _pay_energy(state: dict, league: str, provided: list[tuple[str, int]], costs: list[tuple[str, int]]) -> list[Step]:
    """XO-19: Energy cards and effects fill the league's pool; every cost is paid from it,
    or the whole play is refused."""
    pools = state.setdefault("energy", {lg: 0 for lg in LEAGUES})
    try:
        paid = rules.pay_energy(pools.get(league, 0), provided, costs, league)
    except ValueError as exc:
        raise RefereeError(str(exc), rules.ENERGY_RULE) from None
    pools[league] = paid.pool
    return list(paid.steps)


def _take_resource(state: dict, card: Any) -> list[Step]:
    """Use the face-up Resource `card` off its stack (setup step 4): the next flips up."""
    if "resources" not in state:
        raise RefereeError("this session was set up without Resource stacks; start a new game", rules.RESOURCE_RULE)
    try:
        taken = rules.take_resource(state["resources"], card.name, card["stack"])
    except ValueError as exc:
        raise RefereeError(str(exc), rules.RESOURCE_RULE) from None
    state["resources"] = taken.stacks
    state.setdefault("resources_used", []).append(card.name)  # spent: out of the game
    return list(taken.steps)


def play(state: dict, cards: XoCards, league_or_player: str, names: Sequence[str], character: str | None = None) -> Outcome:
    """Play cards outside a roll (timing `any`): remove or tag statuses on `character`
    (an Action card's own character when not given), draw, put Energy in the pool."""
    _check_playing(state)
    state = copy_state(state)
    league = league_of(state, league_or_player)
    _check_action_owners_in_play(state, cards, names)
    target_league, target = _play_target(state, cards, names, character)
    played = play_cards(state, cards, names, league, target["name"] if target else None, "any")
    steps = list(played.steps)
    if played.tags or played.removes:
        if target is None:
            raise UsageError("name the character the card works on (--on CHARACTER)")
        _check_status_cards(cards, played, league, target, target_league)
        steps.extend(_remove_and_tag(target, played))
    summary = f"{_turn_label(state)}: {league} play {', '.join(played.names)}"
    notes = [s.text for s in steps if s.ruling in ("XO-8", "XO-9", "XO-10", rules.ENERGY_RULE, rules.RESOURCE_RULE)]
    if notes:
        summary += " - " + "; ".join(notes)
    data = {"league": league, "cards": played.names, "energy": state.get("energy", {}).get(league, 0)}
    return _done(cards, state, summary, steps, data)


def _check_action_owners_in_play(state: dict, cards: XoCards, names: Sequence[str]) -> None:
    """An Action card is in the League Deck only if its character was picked (setup step 3),
    and played only while that character is in play (XO-4)."""
    for name in names:
        card = cards.playable[resolve_name(name, cards.playable, "card")]
        owner = card.get("character") if card.type == "Action" else None
        if owner is None:
            continue
        entry = next((e for lg in LEAGUES for e in state["roster"][lg] if e["name"] == owner), None)
        if entry is None:  # setup step 3: only the picked characters' Action cards are in the deck
            raise RefereeError(f"{card.name} is {owner}'s Action card and {owner} was not picked: "
                               "it is not in the League Deck", "rules: setup 3")
        if entry["ko"]:
            raise RefereeError(f"{card.name} is {owner}'s Action card and {owner} is KOd, out of play", "XO-4")


def _play_target(state: dict, cards: XoCards, names: Sequence[str],
                 character: str | None) -> tuple[str | None, dict | None]:
    """The character the cards work on: the one named, else the Action cards' one owner."""
    if character is not None:
        return find_character(state, character)
    owners = {cards.playable[resolve_name(n, cards.playable, "card")].get("character") for n in names} - {None}
    if len(owners) == 1:
        return None, find_character(state, owners.pop())[1]
    return None, None


def _check_status_cards(cards: XoCards, played: Played, league: str, target: dict,
                        target_league: str | None) -> None:
    """Cards that tag or remove statuses: on a character in play (XO-4); `remove` only on
    the league's own characters (cards.yaml); never spent removing nothing (XO-8)."""
    if target["ko"]:
        raise RefereeError(f"{target['name']} is KOd and has left play", "XO-4")
    if played.removes and target_league not in (None, league):
        # cards.yaml: `remove` works on the card's own character or "one of your characters"
        removing = [n for n in played.names
                    if any("remove" in e for e in cards.playable[n].get("effect") or [])]
        raise RefereeError(
            f"{' and '.join(removing)} removes Status cards only from the {league}' own "
            f"characters: {target['name']} is one of the {target_league}", None)
    for name in played.names:
        # a card that only removes, and finds nothing to remove, would be spent (with its
        # Energy) for nothing
        effects = [(k, v) for e in cards.playable[name].get("effect") or [] for k, v in e.items()]
        removes = [cards.status(v) for k, v in effects if k == "remove"]
        if removes and all(k in ("remove", "cost") for k, _ in effects) and not set(removes) & set(target["statuses"]):
            raise RefereeError(
                f"{target['name']} is not tagged {' or '.join(f'<{r}>' for r in removes)}: "
                f"{name} would remove nothing", "XO-8")


def _remove_and_tag(target: dict, played: Played) -> list[Step]:
    """The statuses removed (XO-8), then those tagged (XO-9)."""
    steps: list[Step] = []
    for status in played.removes:
        if status in target["statuses"]:
            target["statuses"].remove(status)
            steps.append(Step(f"{target['name']}: removed <{status}>", "XO-8"))
        else:
            steps.append(Step(f"{target['name']} is not tagged <{status}>", "XO-8"))
    for status in played.tags:
        if status not in target["statuses"]:
            target["statuses"].append(status)
            steps.append(Step(f"{target['name']} tagged <{status}>", "XO-9"))
    return steps


# --------------------------------------------------------------------------- setup


def pick(state: dict, cards: XoCards, league_or_player: str, names: Sequence[str]) -> Outcome:
    """Set-up step 3: a player picks characters of its league's roster, 7 in all; once
    both leagues hold 7, turn 1 begins (its Status Check skipped, XO-8)."""
    if state["turn"]["phase"] != SETUP:
        raise RefereeError("characters are picked before turn 1 only", "XO-11")
    league = league_of(state, league_or_player)
    state = copy_state(state)
    roster = state["roster"][league]
    picked: list[str] = []
    start = len(roster)
    for raw in names:
        card = cards.character(raw, league)
        taken = {e["name"] for e in roster}
        if card.name in taken:
            raise RefereeError(f"{card.name} is already picked for the {league}", None)
        if len(roster) >= rules.ROSTER_SIZE:
            if start >= rules.ROSTER_SIZE:
                raise RefereeError(f"the {league} already have {rules.ROSTER_SIZE} characters", "rules: setup 3")
            raise RefereeError(
                f"the {league} have {start} characters and can pick {rules.ROSTER_SIZE - start} more, "
                f"not {len(names)}: a league has {rules.ROSTER_SIZE}", "rules: setup 3")
        roster.append({"name": card.name, "statuses": [], "ko": False})
        picked.append(card.name)
    steps = [Step(f"{league} pick {', '.join(picked)} ({len(roster)}/{rules.ROSTER_SIZE})", None)]
    summary = f"{league} pick {', '.join(picked)}"
    if all(len(state["roster"][lg]) == rules.ROSTER_SIZE for lg in LEAGUES):
        state["turn"] = _new_turn(1, state["turn"]["active"], PHASES[1])
        state.setdefault("hands", {lg: 0 for lg in LEAGUES})
        steps.append(Step("Status Check skipped on turn 1", "XO-8"))
        steps.append(Step(f"turn 1 begins: {state['turn']['active']} active, {PHASES[1]} phase", "XO-11"))
        _pass_automatic(state, cards, steps, None)
        summary += f"; turn 1 begins, {state['turn']['active']} active; each draws 7; {PHASES[2]} phase"
    return _done(cards, state, summary, steps, {"league": league, "picked": picked})


def league_of(state: dict, text: str) -> str:
    if text.casefold() in LEAGUES:
        return text.casefold()
    for league, player in state["leagues"].items():
        if player.casefold() == text.casefold():
            return league
    raise UsageError(f"unknown league or player {text!r}: use heroes, villains or a player name")


def _new_turn(number: int, active: str, phase: str) -> dict:
    return {"number": number, "active": active, "phase": phase, "attacked": [], "feat": None}


# --------------------------------------------------------------------------- statuses


def _status_change(state: dict, cards: XoCards, character: str, status: str,
                   out_of_play: str) -> tuple[dict, str, dict]:
    """What tag and untag share: the game is on, the status is a Status card, and the
    character (in a copy of the state) is still in play (XO-4)."""
    _check_playing(state)
    status = cards.status(status)
    state = copy_state(state)
    _, entry = find_character(state, character)
    if entry["ko"]:
        raise RefereeError(f"{entry['name']} {out_of_play}", "XO-4")
    return state, status, entry


def _readiness_done(state: dict, cards: XoCards, entry: dict, status: str, verb: str,
                    ruling: str) -> Outcome:
    ready = "ready" if _entry_ready(state, cards, entry) else "not ready"
    step = Step(f"{entry['name']} {verb} <{status}>: now {ready}", ruling)
    return _done(cards, state, f"{_turn_label(state)}: {step.text}", [step],
                 {"character": entry["name"], "status": status})


def tag(state: dict, cards: XoCards, character: str, status: str) -> Outcome:
    """Attach a Status card to a character in play (a card or an attack effect says so)."""
    state, status, entry = _status_change(state, cards, character, status,
                                          "is KOd and out of play")
    if status in entry["statuses"]:
        raise RefereeError(f"{entry['name']} is already tagged <{status}>", None)
    if status == KOD:  # a card KOs the character: it leaves play like a KO by damage
        knock_out(entry)
        step = Step(f"{entry['name']} is KOd and leaves play, on top of its League's discard pile", "XO-4")
        return _done(cards, state, f"{_turn_label(state)}: {step.text}", [step], {"character": entry["name"], "status": status})
    entry["statuses"].append(status)
    return _readiness_done(state, cards, entry, status, "tagged", "XO-9")


def untag(state: dict, cards: XoCards, character: str, status: str) -> Outcome:
    """Remove a Status card (a card instructs it; XO-8 keeps the lasting ones until then)."""
    state, status, entry = _status_change(state, cards, character, status,
                                          "is KOd and has left play")
    if status not in entry["statuses"]:
        raise RefereeError(f"{entry['name']} is not tagged <{status}>", None)
    entry["statuses"].remove(status)
    return _readiness_done(state, cards, entry, status, "untagged", "XO-8")


# --------------------------------------------------------------------------- phases


# Phases with nothing to decide pass by themselves (issue 14): the Status Check removes
# what XO-8 says, the Card Discard/Draw draws back up to 7 (the discards, 0 to 2 cards
# chosen at the table, are told with `next --discard`), Turn Resolution checks the end.
AUTOMATIC = (PHASES[0], PHASES[1], PHASES[4])


def next_phase(state: dict, cards: XoCards, discards: Mapping[str, int] | None = None) -> Outcome:
    """XO-11: end the current phase (the Attack phase, or the Feat/Thwart phase and with it
    the turn) and pass the phases that need no decision: the Status Check (XO-8), the
    discard/draw (XO-10), Turn Resolution (a successful feat left unthwarted wins the
    chapter, XO-14; the game end, XO-15, XO-16), the expiry of an unused thwart bonus
    (XO-14), the Energy pools emptying when the turn ends (rules, Attack phase)."""
    _check_playing(state)
    state = copy_state(state)
    ending = _turn_label(state)  # the turn this command is played in
    steps: list[Step] = []
    _step(state, cards, steps, discards)
    passed = _pass_automatic(state, cards, steps, discards)
    if discards and not passed and not state.get("over"):  # a game that ended draws no more
        raise RefereeError(f"discards only in the {PHASES[1]} phase, which this command does not reach", "XO-10")
    now = _turn_label(state)
    notes = _auto_notes(steps)
    if now == ending:
        summary = f"{now}: {state['turn']['phase']} phase"
        if notes:
            summary += " - " + "; ".join(notes)
    else:  # the `next` that ends a turn is logged under the turn it ends
        summary = f"{ending}: the turn ends" + (" - " + "; ".join(notes) if notes else "")
        if not state.get("over"):
            summary += f"; now {now}: {state['turn']['phase']} phase"
    return _done(cards, state, summary, steps, {"phase": state["turn"]["phase"], "turn": state["turn"]["number"]})


def _auto_notes(steps: Sequence[Step]) -> list[str]:
    """What the phases passed by themselves did, for the log line: the new turn, the
    Status Check's removals, the draws, the expired bonus, the Energy gone, the end."""
    notes = []
    for step in steps:
        if step.ruling == "XO-11" and not step.text.startswith("turn "):
            continue
        if step.text.endswith(": the game goes on") or step.text.endswith("draw 0 back up to 7"):
            continue
        if step.text == "no statuses to remove":
            continue
        notes.append(step.text)
    return notes


def _pass_automatic(state: dict, cards: XoCards, steps: list[Step], discards: Mapping[str, int] | None) -> bool:
    """Pass the phases that need no decision, up to the next Attack phase (or the end);
    True when a Card Discard/Draw phase was passed (it took the discards)."""
    drew = False
    while state["turn"]["phase"] in AUTOMATIC and not state.get("over"):
        drew = drew or state["turn"]["phase"] == PHASES[1]
        _step(state, cards, steps, discards if state["turn"]["phase"] == PHASES[1] else None)
    return drew


def _step(state: dict, cards: XoCards, steps: list[Step], discards: Mapping[str, int] | None) -> None:
    """Leave the current phase for the next one (XO-11), applying what it does."""
    turn = state["turn"]
    phase = turn["phase"]
    if phase == PHASES[1]:  # leaving Card Discard/Draw: discard, then draw (XO-10)
        hands = state.setdefault("hands", {lg: 0 for lg in LEAGUES})
        try:
            drawn = rules.discard_and_draw(turn["number"], hands, discards)
        except ValueError as exc:
            raise RefereeError(str(exc), "XO-10") from None
        state["hands"] = drawn.hands
        steps.extend(drawn.steps)
    if phase == PHASES[3]:  # leaving Feat/Thwart
        pending = turn.get("feat")
        if pending and pending.get("pending"):
            steps.append(Step(f"{other_league(turn['active'])} do not thwart", "XO-14"))
            steps.extend(_win_chapter(state, turn["active"]))
            pending["pending"] = False

    new_phase, new_turn = rules.next_phase(phase, turn["number"])
    if new_turn:
        state["energy"], spent = rules.empty_energy(state.get("energy") or {})
        steps.extend(spent)
        number = turn["number"] + 1
        active = other_league(turn["active"])
        state["turn"] = _new_turn(number, active, new_phase)
        steps.append(Step(f"turn {number}: {active} ({state['leagues'][active]}) active", "XO-11"))
        bonus = state.get("thwart_bonus")
        if bonus and bonus["turn"] < number:
            steps.append(Step(f"the {bonus['league']}' thwart bonus expired unused (turn {bonus['turn']} is over)", "XO-14"))
            state["thwart_bonus"] = None
        steps.extend(_status_check(state, cards))
    else:
        state["turn"]["phase"] = new_phase
        steps.append(Step(f"{new_phase} phase", "XO-11"))
        if new_phase == PHASES[4]:
            steps.extend(_resolve_turn(state, cards))


def _status_check(state: dict, cards: XoCards) -> list[Step]:
    """XO-8 on every character in play."""
    tags = {e["name"]: e["statuses"] for lg in LEAGUES for e in state["roster"][lg] if not e["ko"]}
    result = rules.status_check(tags, cards.statuses, state["turn"]["number"])
    for league in LEAGUES:
        for entry in state["roster"][league]:
            if entry["name"] in result.statuses:
                entry["statuses"] = result.statuses[entry["name"]]
    return [s for s in result.steps if "keeps" not in s.text]


def _resolve_turn(state: dict, cards: XoCards) -> list[Step]:
    """Turn Resolution: XO-15 game end, else XO-16 stalemate."""
    end = rules.game_end(state["won"])
    if not end.over:
        stuck = rules.stalemate(state["won"], {lg: can_attempt(state, cards, lg) for lg in LEAGUES})
        # a stalemate ends the game: the score's "the game goes on" is not told before it
        before = () if stuck.over else end.steps
        end = rules.GameEnd(stuck.over, stuck.winner, (*before, *stuck.steps))
    if end.over:
        state["over"] = True
        state["winner"] = end.winner
    return list(end.steps)


def can_attempt(state: dict, cards: XoCards, league: str) -> bool:
    """XO-16: the league has a character in play (not KOd) with its current objective's
    power icon or keyword (XO-13's requirement, readiness aside)."""
    objective = cards.objectives.get((league, state["chapter"]))
    if objective is None:
        return False
    for entry in state["roster"][league]:
        card = cards.characters[entry["name"]]
        n, _ = rules.feat_dice(card.get("powers") or {}, card.get("keywords") or {}, objective["requires"])
        if n is not None and not entry["ko"]:
            return True
    return False


def _win_chapter(state: dict, league: str) -> list[Step]:
    result = rules.win_chapter(state["won"], league)
    state["won"] = result.won
    state["chapter"] = result.chapter or rules.CHAPTERS
    return list(result.steps)


def _end_feat_phase(state: dict, cards: XoCards, discards: Mapping[str, int] | None = None) -> list[Step]:
    """The Feat/Thwart phase is over (failed feat XO-13, or thwart resolved XO-14): on to
    Turn Resolution, and the next turn's discards (XO-10) as told with the command."""
    state["turn"]["phase"] = PHASES[4]
    steps = [Step(f"{PHASES[3]} phase ends; {PHASES[4]} phase", "XO-11"), *_resolve_turn(state, cards)]
    _pass_automatic(state, cards, steps, discards)
    return steps


# --------------------------------------------------------------------------- attack


def attack(
    state: dict,
    cards: XoCards,
    attacker: str,
    defender: str,
    dice: random.Random,
    *,
    attack_mod: int = 0,
    defense_mod: int = 0,
    effect: str | None = None,
    effect_damage: int = 0,
    aoe: bool = False,
    counterattack: bool = True,
    plays: Sequence[str] = (),
    defense_plays: Sequence[str] = (),
    counter_plays: Mapping[str, Sequence[str]] | None = None,
    counter_defense_plays: Mapping[str, Sequence[str]] | None = None,
) -> Outcome:
    """One attack of the Attack phase, resolved by `rules.resolve_attack`: the combat
    round(s) (XO-2..XO-5), the AOE's neighbours (XO-7), the counterattacks when allowed
    (XO-6; `counterattack` False = the targets decline), KOd characters leaving play (XO-4).
    `counter_plays[name]`: cards name's league plays on name's counterattack;
    `counter_defense_plays[name]`: cards the attacker's league plays on its defense against
    it. They are played (and paid) only if that counterattack happens."""
    _check_phase(state, PHASES[2], "attacks")
    state = copy_state(state)
    a_league, a_entry = find_character(state, attacker)
    d_league, d_entry = find_character(state, defender)
    _check_attacker_and_defender(state, cards, a_league, a_entry, d_league, d_entry)
    a_card = cards.characters[a_entry["name"]]
    on_attack = play_cards(state, cards, plays, a_league, a_entry["name"], "attack")
    on_defense = play_cards(state, cards, defense_plays, d_league, d_entry["name"], "defense")
    aoe = aoe or bool(a_card.get("aoe")) or on_attack.aoe
    effect = cards.status(effect) if effect is not None else a_card.get("attack_effect")

    in_row = _targets(state, d_league, d_entry["name"], aoe)
    counter_cards = _counter_cards(state, cards, a_entry["name"], a_league, d_league, in_row,
                                   counter_plays or {}, counter_defense_plays or {})
    result = rules.resolve_attack(
        fighter(cards, a_entry, effect=effect),
        [fighter(cards, find_character(state, name)[1]) for name in in_row],
        d_entry["name"], dice, cards.statuses,
        on_attack=_attack_mods(on_attack, attack_mod, effect_damage),
        on_defense=_defense_mods(on_defense, defense_mod),
        aoe=aoe,
        counter_mods={name: (_attack_mods(c), _defense_mods(d)) for name, (c, d) in counter_cards.items()},
        decline=() if counterattack else in_row,
    )
    steps: list[Step] = [*on_attack.steps, *on_defense.steps, *result.steps]
    played_on_counters = _play_counter_cards(state, cards, result, in_row, a_entry["name"], a_league, d_league,
                                             counter_plays or {}, counter_defense_plays or {}, steps)
    _apply_attack(state, result, a_entry["name"])
    steps.extend(dice_notes(dice))

    parts, rounds_data = _attack_rounds_told(result, played_on_counters, aoe, a_entry["name"])
    cards_text = _cards_text(on_attack.names, on_defense.names)
    what = "AOE attacks" if aoe else "attacks"
    summary = f"{_turn_label(state)}: {a_entry['name']} {what} {d_entry['name']}{cards_text}: " + "; ".join(parts)
    main = result.round_of(d_entry["name"])
    why = main.why or main.steps[-1]
    data = {"attacker": a_entry["name"], "defender": d_entry["name"], "aoe": aoe, **main.as_dict(),
            "targets": rounds_data, "played": on_attack.names, "defense_played": on_defense.names,
            "why": why.as_dict(), "kod": list(result.kod), "referee_rolled": referee_rolled(dice)}
    return _done(cards, state, summary, steps, data)


def _check_attacker_and_defender(state: dict, cards: XoCards, a_league: str, a_entry: dict,
                                 d_league: str, d_entry: dict) -> None:
    """Only the active league attacks (XO-11), the other league's character still in play
    (XO-4), with a ready character (XO-9) that has not attacked this phase (XO-18)."""
    active = state["turn"]["active"]
    if a_league != active:
        raise RefereeError(f"{a_entry['name']} is one of the {a_league}: only the active {active} attack this turn", "XO-11")
    if d_league == a_league:
        raise RefereeError(f"{d_entry['name']} is on the attacker's own league", None)
    if d_entry["ko"]:
        raise RefereeError(f"{d_entry['name']} is KOd and has left play: it cannot be attacked", "XO-4")
    _check_ready(state, cards, a_entry, "attack")
    if a_entry["name"] in state["turn"].get("attacked", []):
        raise RefereeError(f"{a_entry['name']} has already attacked this turn: each ready "
                           "character attacks at most once a phase", "XO-18")


def _targets(state: dict, d_league: str, defender: str, aoe: bool) -> list[str]:
    """The defender and, for an AOE attack, its neighbours still in play (XO-7), in row
    order, left to right (XO-6, XO-7)."""
    row = [e["name"] for e in state["roster"][d_league]]
    out = [e["name"] for e in state["roster"][d_league] if e["ko"]]
    hit = {defender, *(rules.neighbours(row, out, defender) if aoe else [])}
    return [name for name in row if name in hit]


def _play_counter_cards(state: dict, cards: XoCards, result: rules.AttackResult, in_row: Sequence[str],
                        attacker: str, a_league: str, d_league: str,
                        counter_plays: Mapping[str, Sequence[str]],
                        counter_defense_plays: Mapping[str, Sequence[str]],
                        steps: list[Step]) -> dict[str, dict[str, list[str]]]:
    """XO-6: a counterattack's cards are played (and paid) only if it happened; otherwise
    they stay in hand. Returns the cards played on each counterattack."""
    countered = dict(result.counters)
    played_on_counters: dict[str, dict[str, list[str]]] = {}
    for name in in_row:
        c_names = list(counter_plays.get(name, ()))
        d_names = list(counter_defense_plays.get(name, ()))
        if not (c_names or d_names):
            continue
        if name in countered:
            c = play_cards(state, cards, c_names, d_league, name, "attack")
            d = play_cards(state, cards, d_names, a_league, attacker, "defense")
            steps.extend([*c.steps, *d.steps])
            played_on_counters[name] = {"played": c.names, "defense_played": d.names}
        else:
            steps.append(Step(f"{', '.join(c_names + d_names)} not played: {name} did not counterattack; "
                              "the cards stay in hand", "XO-6"))
    return played_on_counters


def _apply_attack(state: dict, result: rules.AttackResult, attacker: str) -> None:
    """The statuses the attack tagged, the KOd leaving play (XO-4), and the attacker has
    attacked this phase (XO-18)."""
    for name, statuses in result.statuses.items():
        _, entry = find_character(state, name)
        if name in result.kod:
            knock_out(entry)
        else:
            entry["statuses"] = list(statuses)
    state["turn"].setdefault("attacked", []).append(attacker)


def _attack_rounds_told(result: rules.AttackResult, played_on_counters: Mapping[str, dict[str, list[str]]],
                        aoe: bool, attacker: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The summary's parts, each round then the counterattacks, which follow all the rounds
    of the shared roll (XO-6, XO-7); and each round's data."""
    countered = dict(result.counters)
    parts = []
    later = []
    rounds_data = []
    for name, round_ in result.rounds:
        parts.append(f"{name}: {_round_text(round_)}" if aoe else _round_text(round_))
        data = {"target": name, **round_.as_dict()}
        counter = countered.get(name)
        if counter is not None:
            later.append(f"{name} counterattacks: {_round_text(counter)}")
            data["counterattack"] = {"counterattacker": name, "target": attacker, **counter.as_dict(),
                                     **played_on_counters.get(name, {"played": [], "defense_played": []})}
        elif name in result.skipped:
            later.append(f"{name} cannot counterattack: {attacker} is KOd")
        rounds_data.append(data)
    return parts + later, rounds_data


def fighter(cards: XoCards, entry: dict, effect: str | None | Literal[False] = False) -> rules.Fighter:
    """A character in play as the rules' combat sees it (its card and its statuses now);
    `effect` replaces its attack effect when given."""
    card = cards.characters[entry["name"]]
    return rules.Fighter(
        name=entry["name"], attack=int(card["attack"]), defense=int(card["defense"]), health=int(card["health"]),
        statuses=tuple(entry["statuses"]), counterattack="Counterattack" in (card.get("abilities") or []),
        effect=card.get("attack_effect") if effect is False else effect, superpower=card.get("superpower"),
    )


def _attack_mods(played: Played, attack_mod: int = 0, effect_damage: int = 0) -> rules.Mods:
    return rules.Mods(attack_mod=attack_mod + played.mod("attack_mod"), attack_dice=played.mod("dice"),
                      effect_damage=effect_damage + played.mod("effect_damage"), tags=tuple(played.tags),
                      attack_from=_sources(played, "attack_mod", attack_mod, "--attack-mod"))


def _defense_mods(played: Played, defense_mod: int = 0) -> rules.Mods:
    return rules.Mods(defense_mod=defense_mod + played.mod("defense_mod"), defense_dice=played.mod("dice"),
                      counterattack=played.counterattack,
                      defense_from=_sources(played, "defense_mod", defense_mod, "--defense-mod"))


def _sources(played: Played, key: str, given: int = 0, option: str = "--mod") -> tuple[tuple[str, int], ...]:
    """Where a roll's modifier comes from: each card's, and the players' own (the option)."""
    found = [(card, value) for card, k, value in played.bonuses if k == key]
    return (*found, *([(option, given)] if given else []))


def _bonus_text(bonuses: Sequence[tuple[str, int]]) -> str:
    return "".join(f" {value:+d} {source}" for source, value in bonuses)


def _faces_text(roll: Sequence[int]) -> str:
    return "+".join(map(str, roll)) if roll else "no dice"


def _counter_cards(state: dict, cards: XoCards, attacker: str, a_league: str, d_league: str, targets: Sequence[str],
                   counter_plays: Mapping[str, Sequence[str]], counter_defense_plays: Mapping[str, Sequence[str]],
                   ) -> dict[str, tuple[Played, Played]]:
    """The cards for each possible counterattack (XO-6: a full combat round, cards may be
    played on it), checked on a copy of the state: nothing is paid until it happens."""
    for name in [*counter_plays, *counter_defense_plays]:
        if name not in targets:
            raise RefereeError(f"{name} is not a target of this attack and cannot counterattack", "XO-6")
    scratch = copy_state(state)
    result = {}
    for name in targets:
        c = play_cards(scratch, cards, counter_plays.get(name, ()), d_league, name, "attack")
        d = play_cards(scratch, cards, counter_defense_plays.get(name, ()), a_league, attacker, "defense")
        if c.aoe:
            raise RefereeError(f"{', '.join(c.names)}: a counterattack strikes only its attacker, not an area", "XO-6")
        if d.counterattack:
            raise RefereeError(f"{', '.join(d.names)}: a counterattack never triggers a further counterattack", "XO-6")
        result[name] = (c, d)
    return result


def knock_out(entry: dict) -> None:
    """The one KO path (XO-4): the character leaves play, on top of its League's discard
    pile, and carries no status (XO-6: a KOd character is never tagged)."""
    entry["ko"] = True
    entry["statuses"] = []


def _cards_text(played: Sequence[str], defense_played: Sequence[str]) -> str:
    parts = []
    if played:
        parts.append("playing " + ", ".join(played))
    if defense_played:
        parts.append("defending with " + ", ".join(defense_played))
    return f" ({'; '.join(parts)})" if parts else ""


def _round_text(r: rules.CombatResult) -> str:
    """A combat round for the log: each value with its dice faces and every bonus."""
    acv = f"ACV {_faces_text(r.attack_roll)}{_bonus_text(r.attack_bonuses)} = {r.acv}"
    dcv = f"DCV {_faces_text(r.defense_roll)}{_bonus_text(r.defense_bonuses)} = {r.dcv}"
    text = f"{acv} vs {dcv}"
    if r.attack_moffed:
        text += " (attack moffed)"
    if r.defense_moffed:
        text += " (defense moffed)"
    if r.outcome == "miss":
        return text + ": miss"
    extra = []
    if r.effect_damage:
        extra.append(f"+{r.effect_damage} attack-effect damage")
    if r.extra_damage_roll is not None:
        extra.append(f"+{r.extra_damage_roll} extra die")
    text += f": {r.damage} damage{' (' + ', '.join(extra) + ')' if extra else ''} vs Health {r.health}"
    if r.outcome == "ko":
        return text + ": KOd"
    if r.outcome == "stunned":
        others = [s for s in r.statuses if s != rules.STUNNED]
        return text + ": Stunned" + (f", tagged {', '.join(others)}" if others else "")
    return text + (f": hit, tagged {', '.join(r.statuses)}" if r.statuses else ": hit")


# --------------------------------------------------------------------------- feat and thwart


def feat(state: dict, cards: XoCards, character: str, dice: random.Random, *, mod: int = 0, plays: Sequence[str] = (),
         discards: Mapping[str, int] | None = None) -> Outcome:
    """XO-13: the active league's one feat attempt of the turn on its current objective."""
    if state["turn"]["phase"] != PHASES[2]:  # a feat in the Attack phase ends it (XO-11)
        _check_phase(state, PHASES[3], "feats are attempted")
    _check_playing(state)
    state = copy_state(state)
    turn = state["turn"]
    ended_attacks = turn["phase"] == PHASES[2]
    turn["phase"] = PHASES[3]
    league, entry = find_character(state, character)
    if league != turn["active"]:
        raise RefereeError(f"only the active {turn['active']} attempt a feat this turn; {entry['name']} is one of the {league}", "XO-13")
    if turn.get("feat"):
        raise RefereeError(f"the {league} already attempted a feat this turn (with {turn['feat']['character']})", "XO-13")
    _check_ready(state, cards, entry, "attempt a feat")
    objective = cards.objective(league, state["chapter"])
    card = cards.characters[entry["name"]]
    n, dice_step = rules.feat_dice(card.get("powers") or {}, card.get("keywords") or {}, objective["requires"])
    if n is None:
        raise RefereeError(f"{entry['name']} cannot attempt {objective.name!r}: {dice_step.text}", "XO-13")
    played = play_cards(state, cards, plays, league, entry["name"], "feat")
    status_mod, mod_steps = rules.status_modifier(entry["statuses"], cards.statuses, "feat_mod")
    mod_steps = (*played.steps, *mod_steps)
    bonus = rules.thwart_bonus_for(state.get("thwart_bonus"), league, turn["number"])
    cap: list[Step] = []
    roll = rules.take_dice(dice, "feat", n + played.mod("dice"), f"{entry['name']}'s feat roll", cap)
    result = rules.feat(roll, int(objective["fcv"]), mod=mod + status_mod + played.mod("feat_mod"), bonus=bonus)
    if bonus:
        state["thwart_bonus"] = None  # used: only the next feat attempt gets it (XO-14)
    steps = [Step(f"chapter {state['chapter']}: {objective.name} ({objective['feat']})", "XO-12"), dice_step, *mod_steps,
             *cap, *result.steps, *dice_notes(dice)]
    if ended_attacks:
        steps.insert(0, Step(f"{PHASES[2]} phase ends with the feat attempt; {PHASES[3]} phase", "XO-11"))
    turn["feat"] = {
        "character": entry["name"],
        "objective": objective.name,
        "total": result.total,
        "success": result.success,
        "pending": result.success,
        "thwarted": False,
    }
    if result.success:  # who could thwart it (XO-14): ready, with the objective's icon or keyword
        turn["feat"]["thwarters"] = thwarters(state, cards, other_league(league), objective)
    bonuses = (*rules.status_bonuses(entry["statuses"], cards.statuses, "feat_mod"), *_sources(played, "feat_mod", mod),
               *([("thwart bonus", bonus)] if bonus else []))
    text = (f"{_turn_label(state)}: {entry['name']} attempts {objective.name!r}{_cards_text(played.names, ())}: "
            f"{_faces_text(roll)}{_bonus_text(bonuses)} = {result.total} vs FCV {objective['fcv']}")
    if result.success:
        text += f": success; the {other_league(league)} may thwart"
        if discards:  # XO-10: the turn goes on; told again with the thwart or `next`
            steps.append(Step("the discards wait for the end of the turn (the thwart or next "
                              "--discard)", "XO-10"))
    else:
        text += ": fails"
        ended = _end_feat_phase(state, cards, discards)
        steps.extend(ended)
        text += "".join(f"; {note}" for note in _auto_notes(ended[1:]))
    return _done(cards, state, text, steps, {"character": entry["name"], "objective": objective.name, **result.as_dict()})


def thwarters(state: dict, cards: XoCards, league: str, objective: Any) -> list[str]:
    """The `league`'s characters that could thwart a feat on `objective` now (XO-14)."""
    found = []
    for entry in state["roster"][league]:
        card = cards.characters[entry["name"]]
        n, _ = rules.feat_dice(card.get("powers") or {}, card.get("keywords") or {}, objective["requires"])
        if n is not None and _entry_ready(state, cards, entry):
            found.append(entry["name"])
    return found


def thwart(state: dict, cards: XoCards, character: str, dice: random.Random, *, mod: int = 0, plays: Sequence[str] = (),
           discards: Mapping[str, int] | None = None) -> Outcome:
    """XO-14: the responding league's thwart of a successful feat."""
    _check_phase(state, PHASES[3], "thwarts")
    state = copy_state(state)
    turn = state["turn"]
    pending = turn.get("feat")
    if not pending or not pending.get("pending"):
        raise RefereeError("no successful feat to thwart this turn", "XO-14")
    league, entry = find_character(state, character)
    responder = other_league(turn["active"])
    if league != responder:
        raise RefereeError(f"only the responding {responder} thwart; {entry['name']} is one of the {league}", "XO-14")
    _check_ready(state, cards, entry, "thwart")
    objective = cards.objective(turn["active"], state["chapter"])
    card = cards.characters[entry["name"]]
    n, dice_step = rules.feat_dice(card.get("powers") or {}, card.get("keywords") or {}, objective["requires"])
    if n is None:
        raise RefereeError(f"{entry['name']} cannot thwart {objective.name!r}: {dice_step.text}", "XO-14")
    played = play_cards(state, cards, plays, league, entry["name"], "thwart")
    status_mod, mod_steps = rules.status_modifier(entry["statuses"], cards.statuses, "thwart_mod")
    mod_steps = (*played.steps, *mod_steps)
    cap: list[Step] = []
    roll = rules.take_dice(dice, "thwart", n + played.mod("dice"), f"{entry['name']}'s thwart roll", cap)
    result = rules.thwart(roll, int(objective["tcv"]), mod=mod + status_mod + played.mod("thwart_mod"))
    steps = [dice_step, *mod_steps, *cap, *result.steps, *dice_notes(dice)]
    pending["pending"] = False
    bonuses = (*rules.status_bonuses(entry["statuses"], cards.statuses, "thwart_mod"), *_sources(played, "thwart_mod", mod))
    text = (f"{_turn_label(state)}: {entry['name']} tries to thwart{_cards_text(played.names, ())}: "
            f"{_faces_text(roll)}{_bonus_text(bonuses)} = {result.total} vs TCV {objective['tcv']}")
    if result.success:
        pending["thwarted"] = True
        state["thwart_bonus"] = {"league": league, "turn": turn["number"] + 1}
        text += f": thwarted; {league} +{rules.THWART_BONUS} on their feat on turn {turn['number'] + 1}"
    else:
        chapter_steps = _win_chapter(state, turn["active"])
        steps.extend(chapter_steps)
        text += f": fails; {chapter_steps[0].text}"
    ended = _end_feat_phase(state, cards, discards)
    steps.extend(ended)
    if state.get("over"):
        text += f"; game over, {state['winner']} win" if state.get("winner") else "; game over, a draw"
    else:
        text += "".join(f"; {note}" for note in _auto_notes(ended[1:]))
    return _done(cards, state, text, steps, {"character": entry["name"], "objective": objective.name, **result.as_dict()})
