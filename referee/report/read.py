"""A session file read back as the public record of its game: the states the table saw
(each through its game's `public_state`: hands as counts, no seed, no deck order), the
winners, the length, each player's tokens over the game, the named rolls made (a declared
game's named rolls; X-Statix's mission rolls; XO!'s combat dice, from the attacks the log
tells) and the cards each player put on the table. Read-only, as `referee log` reads
(`Session.log`)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from referee.errors import UsageError

Series = dict[str, dict[str, list[int]]]  # player -> token -> value after each event


@dataclass
class Trials:
    """A named roll's outcome, roll by roll: (its chance of `labels[0]` given its own dice,
    modifiers and target as the log records them, whether it came out so)."""

    dice: str
    outcome: str
    labels: tuple[str, str] = ("success", "fail")
    made: list[tuple[Fraction, bool]] = field(default_factory=list)


@dataclass
class GameRecord:
    path: str
    game: str  # the game's id ("harbour", "x-statix", "xo")
    kind: str  # "table" (a declared game) or the bundled game's id
    title: str
    players: list[str]
    seats: list[str]  # the players in turn order, the first player first
    winners: list[str]
    over: bool
    turns: int | None
    rounds: int | None
    ended: str | None
    tokens: Series
    rolls: dict[str, list[int]] = field(default_factory=dict)  # roll name -> outcomes
    played: dict[str, list[str]] = field(default_factory=dict)  # player -> cards on the table
    odds: dict[str, Any] = field(default_factory=dict)  # roll name -> exact_odds (or None)
    trials: dict[str, Trials] = field(default_factory=dict)  # roll name -> its outcomes


def read_session(path: str) -> GameRecord:
    """The public record of the game a session file holds (its current game, from the
    `new` event that began it); a missing, foreign or corrupt file is a SessionError
    naming it (exit 2)."""
    from referee import games
    from referee.session import Session

    with Session.open(path, write=False) as session:
        events = session.log(with_states=True)
        kept = session.kept_game()
    began = max((i for i, (e, _) in enumerate(events) if e.kind == "new"), default=0)
    lived = [(e, s) for e, s in events[began:]
             if not e.undone and e.kind not in ("undo", "redo")]
    if not lived:
        raise UsageError(f"{path}: no game in this session")
    public = [(e.summary, games.module_of_state(s).public_state(s)) for e, s in lived]
    last = public[-1][1]
    record = _basics(path, last, public[0][1])
    if last.get("kit") == "table":
        _table_game(record, public, kept)
    elif record.game == "x-statix":
        _x_statix(record, public)
    elif record.game == "xo":
        _xo(record, [e.payload for e, _ in lived])
    return record


def _winners(state: dict) -> list[str]:
    winner = state.get("winner")
    if isinstance(winner, str):
        return [winner]
    return [str(w) for w in winner] if isinstance(winner, list) else []


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _seats(state: dict, players: list[str]) -> list[str]:
    """Turn order from the first turn's player (or a declared game's `setup.first`)."""
    setup, turn = _mapping(state.get("setup")), _mapping(state.get("turn"))
    first = setup.get("first") or turn.get("player") or turn.get("active")
    if first in players:
        at = players.index(first)
        return players[at:] + players[:at]
    return list(players)


def _basics(path: str, last: dict, first: dict) -> GameRecord:
    players = [str(p) for p in last.get("players", [])]
    turn = _mapping(last.get("turn"))
    game = str(last.get("game", "?"))
    kind = "table" if last.get("kit") == "table" else game
    from referee import games

    title = str(last.get("title") or games.title(game))
    number, rounds = turn.get("number"), turn.get("round")
    ended = last.get("ended")
    return GameRecord(path=path, game=game, kind=kind, title=title, players=players,
                      seats=_seats(first, players), winners=_winners(last),
                      over=bool(last.get("over")), turns=_count(number, last),
                      rounds=_rounds(rounds, last),
                      ended=ended if isinstance(ended, str) else None,
                      tokens={p: {} for p in players})


def _begun_after_end(last: dict) -> bool:
    turn = last["turn"]
    return bool(last.get("over") and turn.get("step") == 0 and turn.get("done") == 0)


def _count(number: Any, last: dict) -> int | None:
    """Turns played: the last turn's number (a turn begun after the end is not counted)."""
    if not isinstance(number, int):
        return None
    return number - 1 if _begun_after_end(last) and number > 1 else number


def _rounds(number: Any, last: dict) -> int | None:
    """Rounds begun: the last turn's round, less a round the end began at its first turn
    (a last round played out, `finish: round`, or the rounds or a deck at a round's start)."""
    if not isinstance(number, int):
        return None
    first = _mapping(last.get("setup")).get("first")
    at_first = first is not None and last["turn"].get("player") == first
    return number - 1 if _begun_after_end(last) and at_first and number > 1 else number


# ── a declared game (the table kit) ──────────────────────────────────────────────
def _table_game(record: GameRecord, public: list[tuple[str, dict]], kept: Any) -> None:
    names = _token_names(public)
    for _, state in public:
        for p in record.players:
            held = state.get("tokens", {}).get(p, {})
            for name in names:
                record.tokens[p].setdefault(name, []).append(int(held.get(name, 0)))
    rolls = {}
    if kept is not None and kept.kind == "table":
        game = kept.table_game()
        rolls = game.rules.rolls
        for name, roll in rolls.items():
            record.odds[name] = exact_odds(game.dice, roll)
    record.rolls = _table_rolls(public, set(rolls))
    record.played = _zones(public, record.players)


def exact_odds(dice: Any, roll: Any) -> Any:
    """A named roll's exact distribution (referee/table/pools.py), its outcome as the rules
    give it (`pools.roll_outcome`, the parse referee/table/rules.py `roll` plays by): a
    count or sum expression, or a test of one (`sum >= 5`: 1 when it holds, else 0); None
    when the outcome reads more than the dice (a token, a zone), whose odds depend on the
    game."""
    from referee.errors import UsageError as Unreadable
    from referee.table.pools import distribution, named_roll

    text = " + ".join(f"{n} {die}" for die, n in roll.pool)
    try:
        pool, outcome = named_roll(dice, text, roll.outcome)
        exact = distribution(pool, outcome)
    except Unreadable:
        return None
    return {"dice": str(pool), "outcome": roll.outcome if outcome.test else str(outcome),
            "exact": exact}


def _token_names(public: list[tuple[str, dict]]) -> list[str]:
    names: list[str] = []
    for _, state in public:
        for held in state.get("tokens", {}).values():
            names += [n for n in held if n not in names]
    return names


def _table_rolls(public: list[tuple[str, dict]], named: set[str]) -> dict[str, list[int]]:
    """Each named roll's outcomes: an event whose `last_roll` is new, or the same as
    before but said by the event (`Weather roll, ...`: the same dice again)."""
    rolls: dict[str, list[int]] = {name: [] for name in sorted(named)}
    before = None
    for summary, state in public:
        roll = state.get("last_roll")
        if isinstance(roll, dict) and roll.get("die") in named:
            name = str(roll["die"])
            if roll != before or f"{name} roll".casefold() in summary.casefold():
                rolls[name].append(int(roll["outcome"]))
        before = roll
    return rolls


def _zones(public: list[tuple[str, dict]], players: list[str]) -> dict[str, list[str]]:
    """Every card each player had in a zone of their own at any point (face up)."""
    played: dict[str, list[str]] = {p: [] for p in players}
    for _, state in public:
        for p in players:
            for cards in state.get("zones", {}).get(p, {}).values():
                for card in cards if isinstance(cards, list) else []:
                    name = card.get("name") if isinstance(card, dict) else card
                    if isinstance(name, str) and name not in played[p]:
                        played[p].append(name)
    return played


# ── X-Statix ───────────────────────────────────────────────────────────────────
XS_MISSION_DICE = {"mission": 1, "carnage": 1, "success": 1, "payoff": 2}  # XS-6..XS-8


def _sum_of_d6(n: int) -> Any:
    from referee.odds import Distribution, convolve

    weights = {0: 1}
    for _ in range(n):
        weights = convolve(weights, {face: 1 for face in range(1, 7)})
    return Distribution(weights, 6 ** n)


def _x_statix(record: GameRecord, public: list[tuple[str, dict]]) -> None:
    """MT and FT (the sum of a player's heroes' FT) after each event; the heroes, Owner and
    Team Name each player put on the table; the mission rolls' dice (XS-6..XS-8), and the
    Mission and Success rolls' outcomes against each roll's own modifiers and target."""
    _xs_tables(record, public)
    record.rolls = {kind: [] for kind in XS_MISSION_DICE}
    record.trials = {
        "mission outcome": Trials("1d6 and each roll's own modifiers",
                                  "total <= the player's heroes in play (XS-6)",
                                  ("met", "not met")),
        "success outcome": Trials("1d6 and each roll's own modifiers",
                                  "total > the Carnage roll's total (XS-8)")}
    for state, mission, kind, roll in _xs_new_rolls(public):
        record.rolls[kind].append(sum(int(f) for f in roll["faces"]))
        target = _xs_target(state, mission, kind)
        if target is not None:
            name, beats = target
            record.trials[name].made.append((_xs_chance(roll, beats), beats(roll["total"])))
    record.odds = {kind: {"dice": f"{n}d6", "outcome": "the dice before modifiers",
                          "exact": _sum_of_d6(n)} for kind, n in XS_MISSION_DICE.items()}


def _xs_new_rolls(public: list[tuple[str, dict]]) -> Iterator[tuple[dict, dict, str, dict]]:
    """(state, mission, kind, roll) of each Mission, Carnage, Success and Payoff roll made,
    in the state that first shows it: a roll is new when the turn's mission shows it for
    the first time, or with other faces or one more reroll used (a reroll rolls the dice
    again; a boost changes only the modifiers)."""
    seen: dict[str, tuple] = {}
    for _, state in public:
        turn = _mapping(state.get("turn"))
        mission = _mapping(turn.get("mission"))
        for kind, roll in _mapping(mission.get("rolls")).items():
            faces = roll.get("faces") if isinstance(roll, dict) else None
            if kind not in XS_MISSION_DICE or not isinstance(faces, list):
                continue
            key = (turn.get("number"), mission.get("card"), tuple(faces), len(roll.get("used", [])))
            if seen.get(kind) != key:
                yield state, mission, kind, roll
            seen[kind] = key


def _xs_target(state: dict, mission: dict, kind: str) -> Any:
    """(trial name, test of a total) of a Mission roll (met when no more than the heroes
    the player has, XS-6) or a Success roll (above the Carnage roll, XS-8); None for
    another roll, or when the log lacks the target."""
    if kind == "mission":
        player = _mapping(state.get("turn")).get("player")
        heroes = _mapping(_mapping(state.get("table")).get(player)).get("heroes")
        if not isinstance(heroes, list):
            return None
        return "mission outcome", lambda total: total <= len(heroes)
    carnage = _mapping(_mapping(mission.get("rolls")).get("carnage")).get("total")
    if kind == "success" and isinstance(carnage, int):
        return "success outcome", lambda total: total > carnage
    return None


def _xs_chance(roll: dict, beats: Any) -> Fraction:
    """The chance that fresh dice, with this roll's own modifiers applied as the rules
    apply them (referee.xs.rolls.total: in order, a minimum kept, never below 0), give a
    total that `beats` the target."""
    import itertools

    from referee.xs.rolls import total

    n = len(roll["faces"])
    mods = list(roll.get("mods") or [])
    hits = sum(bool(beats(total({"faces": list(faces), "mods": mods})))
               for faces in itertools.product(range(1, 7), repeat=n))
    return Fraction(hits, 6 ** n)


def _xs_tables(record: GameRecord, public: list[tuple[str, dict]]) -> None:
    record.played = {p: [] for p in record.players}
    for _, state in public:
        for p in record.players:
            seat = state.get("table", {}).get(p, {})
            heroes = [h for h in seat.get("heroes", []) if isinstance(h, dict)]
            record.tokens[p].setdefault("MT", []).append(int(seat.get("mt", 0)))
            record.tokens[p].setdefault("FT", []).append(sum(int(h.get("ft", 0)) for h in heroes))
            shown = [str(h.get("name")) for h in heroes]
            shown += [str(seat[k]) for k in ("owner", "team") if seat.get(k) not in (None, "-")]
            record.played[p] += [n for n in shown if n not in record.played[p]]


# ── XO! ────────────────────────────────────────────────────────────────────────
COMBAT_DICE = "combat dice"


FIRST_DICE = "first-player dice"
FEAT_DICE = "feat and thwart dice"


def _xo(record: GameRecord, payloads: list[dict]) -> None:
    """Every mask die the log tells (XO-1): the first-player roll's, every combat's
    (XO-1..XO-7: the shared attack roll, each target's defense roll and extra damage die,
    each counterattack's dice), every feat's and thwart's (XO-13, XO-14); and each feat's
    and thwart's outcome against its own dice, modifiers and FCV or TCV."""
    from referee.dice import MASK_FACES
    from referee.odds import Distribution

    results = [_mapping(payload.get("result")) for payload in payloads]
    faces = [f for result in results for f in _attack_faces(result)]
    first = [f for payload in payloads for f in _first_player_faces(payload)]
    feats = [r for r in results if isinstance(r.get("roll"), list)
             and isinstance(r.get("fcv", r.get("tcv")), int)]
    record.rolls = {COMBAT_DICE: faces, FIRST_DICE: first,
                    FEAT_DICE: [f for r in feats for f in r["roll"] if isinstance(f, int)]}
    weights = {face: MASK_FACES.count(face) for face in sorted(set(MASK_FACES))}
    one_die = {"dice": "1 mask", "outcome": "each die's face",
               "exact": Distribution(weights, len(MASK_FACES))}
    record.odds = {COMBAT_DICE: one_die, FIRST_DICE: one_die, FEAT_DICE: one_die}
    record.trials = {
        "feat outcome": Trials("each attempt's own mask dice and modifiers",
                               "total >= FCV (XO-13)"),
        "thwart outcome": Trials("each attempt's own mask dice and modifiers",
                                 "total >= TCV (XO-14)")}
    for result in feats:
        name = "feat outcome" if "fcv" in result else "thwart outcome"
        record.trials[name].made.append((_xo_chance(result), bool(result.get("success"))))
    record.trials["attack hits"] = Trials(
        "each round's own mask dice and modifiers", "ACV > DCV: a hit (XO-2, XO-3)",
        ("hit", "miss"),
        [(_hit_chance(r), bool(r.get("hit"))) for result in results for r in _combat_rounds(result)])


def _combat_rounds(result: dict) -> list[dict]:
    """An attack's combat rounds with dice of their own: the first target's (an AOE's
    other targets share its attack roll, XO-7, so they are not independent of it and are
    left out) and every counterattack's (XO-6)."""
    targets = result.get("targets")
    if not isinstance(targets, list) or not targets:
        return []
    first = {**_mapping(targets[0]), "attack_roll": result.get("attack_roll")}
    counters = [_mapping(_mapping(t).get("counterattack")) for t in targets]
    rounds = [first, *(c for c in counters if c)]
    return [r for r in rounds if isinstance(r.get("attack_roll"), list)
            and isinstance(r.get("defense_roll"), list) and isinstance(r.get("hit"), bool)]


def _mask_sums(dice: int) -> dict[int, int]:
    """How many ways `dice` mask dice (XO-1) give each total."""
    from referee.dice import MASK_FACES
    from referee.odds import convolve

    weights = {0: 1}
    for _ in range(dice):
        weights = convolve(weights, {face: MASK_FACES.count(face) for face in set(MASK_FACES)})
    return weights


def _hit_chance(round_: dict) -> Fraction:
    """The chance of a hit with as many attack and defense dice as the round rolled and its
    modifiers (`hit_chance`)."""
    return hit_chance(len(round_["attack_roll"]), len(round_["defense_roll"]),
                      int(round_.get("attack_mod") or 0), int(round_.get("defense_mod") or 0))


@functools.lru_cache(maxsize=512)
def hit_chance(attack_dice: int, defense_dice: int, attack_mod: int, defense_mod: int) -> Fraction:
    """P(hit) of a combat round: each pair of mask dice totals judged by the rule function
    (referee.xo.rules.combat_round: XO-2's values, XO-17's floor, XO-3's miss when
    DCV >= ACV)."""
    from referee.dice import MASK_FACES
    from referee.xo import rules

    attack, defense = _mask_sums(attack_dice), _mask_sums(defense_dice)
    hits = sum(wa * wd for a, wa in attack.items() for d, wd in defense.items()
               if rules.combat_round((a,), (d,), 99, {}, attack_mod=attack_mod,
                                     defense_mod=defense_mod, extra_damage_die=0).hit)
    return Fraction(hits, len(MASK_FACES) ** (attack_dice + defense_dice))


def _first_player_faces(payload: dict) -> list[int]:
    """The first-player roll's dice (XO-1: one mask die each, ties rerolled), from the
    `new` event's setup."""
    rolls = _mapping(payload.get("setup")).get("first_player_rolls")
    return [f for each in rolls if isinstance(each, dict) for f in each.values()
            if isinstance(f, int)] if isinstance(rolls, list) else []


def _xo_chance(result: dict) -> Fraction:
    """The chance of a feat (XO-13) or thwart (XO-14) with as many mask dice as it rolled,
    its modifiers and thwart bonus, against its FCV or TCV: each total of the dice judged
    by the rule function itself (referee.xo.rules.feat / thwart: XO-17's floor at 0)."""
    from referee.dice import MASK_FACES
    from referee.xo import rules

    weights = _mask_sums(len(result["roll"]))
    mod, bonus = int(result.get("mod") or 0), int(result.get("bonus") or 0)
    if "fcv" in result:
        wins = sum(w for s, w in weights.items()
                   if rules.feat([s], int(result["fcv"]), mod=mod, bonus=bonus).success)
    else:
        wins = sum(w for s, w in weights.items()
                   if rules.thwart([s], int(result["tcv"]), mod=mod).success)
    return Fraction(wins, len(MASK_FACES) ** len(result["roll"]))


def _attack_faces(result: dict) -> list[int]:
    targets = result.get("targets")
    if not isinstance(targets, list):
        return []
    faces = list(result.get("attack_roll") or [])  # one attack roll for every target (XO-7)
    for target in targets:
        faces += _round_faces(_mapping(target), attack=False)
        faces += _round_faces(_mapping(_mapping(target).get("counterattack")), attack=True)
    return [f for f in faces if isinstance(f, int)]


def _round_faces(round_: dict, attack: bool) -> list[Any]:
    faces = list(round_.get("attack_roll") or []) if attack else []
    faces += list(round_.get("defense_roll") or [])
    extra = round_.get("extra_damage_roll")
    return faces + ([extra] if isinstance(extra, int) else [])
