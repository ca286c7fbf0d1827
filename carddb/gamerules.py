"""Rules declared as data: the small vocabulary a game of cards.yaml without `rules:` may
use so that the referee plays it (docs/CARDS.md, "Rules as data"): zones, a hand limit,
named rolls, phases made of steps, card effects, end conditions, a score and tie-breaks.

`check(game, ...)` reports every mistaken declaration at its `file:line:col` with a
did-you-mean; `rules_of(extras)` reads the validated declaration into `Rules`, a tree of
frozen dataclasses holding only str, int, bool, tuples and dicts of them (plain data: a
session may keep it, a simulator may walk it). Expressions stay as their text (parsed by
carddb.expr, never evaluated here)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from carddb import expr, limits
from carddb.schema import NAME, Report, did_you_mean, join, kind_of, shown
from carddb.yamlsource import Pos, key_pos, value_pos

# the game-level keys of the vocabulary (besides `tokens:`' min and max, and `phases:`)
KEYS = ("zones", "hand_limit", "rolls", "effects", "end", "score", "tie_break")
HAND = "hand"
WHO = ("self", "each_player", "each_other", "choose_player", "pool")
TOKEN_VERBS = WHO
EFFECT_VERBS = (*WHO, "transfer", "draw", "discard")
ASKING_STEPS = ("roll", "play", "choose", "discard_to", "reveal")
STEP_VERBS = (*EFFECT_VERBS, *ASKING_STEPS)
WHEN = ("played", "revealed", "any")
PARTIES = ("self", "chosen")
ZONE_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")
POOL_TEXT = re.compile(r"\s*(\d{1,2})?\s*([a-z][a-z0-9_-]{0,31})\s*\Z")
COMPARE = re.compile(r"\s*(<=|>=|==|!=|<|>)\s*(-?\d{1,9})\s*\Z")
MAX_STEPS = 50


# ── the model ───────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Zone:
    """Cards in play: each player's own (`shared` False) or one for the table."""

    name: str
    shared: bool = False


@dataclass(frozen=True)
class Roll:
    """A named roll: `pool` ((die, how many), ...), its `outcome` expression over the
    symbols rolled (their counts) and `sum`, and the `say` line (`{outcome} knots`)."""

    name: str
    pool: tuple[tuple[str, int], ...]
    outcome: str
    say: str = "{outcome}"


@dataclass(frozen=True)
class Effect:
    """One effect. `verb`: a token change (`self`, `each_player`, `each_other`,
    `choose_player`, `pool`: `tokens` ((kind, amount expression), ...)), `transfer`
    (`tokens` from `source` to `target`, each `self` or `chosen`), `draw` or `discard`
    (`count`, `deck` or ""). `when`: played, revealed or any."""

    verb: str
    tokens: tuple[tuple[str, str], ...] = ()
    source: str = "chosen"
    target: str = "self"
    count: int = 0
    deck: str = ""
    when: str = "any"

    @cached_property
    def chooses(self) -> bool:
        """Whether a player must be chosen to apply it (worked out once: read at every
        effect of a simulated game, issue 30)."""
        return self.verb == "choose_player" or (
            self.verb == "transfer" and "chosen" in (self.source, self.target))


@dataclass(frozen=True)
class Option:
    """One answer of a "choose" step: its name and the effects choosing it applies."""

    name: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class Step:
    """One step of a phase. `kind` "effect" runs by itself (`effect`); the others ask:
    "roll" (`roll`), "play" (up to `count` cards from the hand into `zone`, `deck` "" any,
    paying `cost` ((kind, amount or card field), ...)), "choose" (`options`, `default`,
    `prompt`), "discard_to" (down to `count`, or the hand limit when 0), "reveal" (`count`
    cards of `deck` shown one by one, their effects applied)."""

    kind: str
    effect: Effect | None = None
    roll: str = ""
    zone: str = ""
    deck: str = ""
    count: int = 0
    cost: tuple[tuple[str, str], ...] = ()
    options: tuple[Option, ...] = ()
    default: str = ""
    prompt: str = ""


@dataclass(frozen=True)
class Phase:
    """One phase of a turn: its name and its steps, in order."""

    name: str
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True)
class End:
    """An end condition: "token" (`test`, e.g. `cargo >= 20`, checked for every player
    after every change), "pool" (`test` on a shared kind), "deck_empty" (`deck`, at a turn's
    start), "rounds" (`count` rounds played). `finish`: "now" (the game ends as it holds)
    or "round" (the round is played out first, so every player has had as many turns: the
    game ends as the next round would begin)."""

    kind: str
    test: str = ""
    deck: str = ""
    count: int = 0
    finish: str = "now"


@dataclass(frozen=True)
class Rules:
    """A game's rules as data (`rules:` in cards.yaml): zones, hand limit, rolls, the
    phases of a turn, the effects of cards and card types, how it ends and is scored."""

    zones: tuple[Zone, ...] = ()
    hand_limit: int | None = None
    rolls: dict[str, Roll] = field(default_factory=dict)
    phases: tuple[Phase, ...] = ()
    card_effects: dict[str, tuple[Effect, ...]] = field(default_factory=dict)
    type_effects: dict[str, tuple[Effect, ...]] = field(default_factory=dict)
    end: tuple[End, ...] = ()
    score: str = ""
    tie_break: tuple[str, ...] = ()

    @cached_property
    def declared(self) -> bool:
        """Whether the game declares any rule beyond plain phase names (worked out once)."""
        return bool(self.zones or self.hand_limit is not None or self.rolls or self.end
                    or self.score or self.card_effects or self.type_effects
                    or any(p.steps for p in self.phases))

    def zone(self, name: str) -> Zone | None:
        for z in self.zones:
            if z.name == name:
                return z
        return None

    def effects_of(self, card: str, card_type: str, when: str) -> tuple[Effect, ...]:
        """The effects a card has when `when` (played or revealed): its type's, then its own
        (worked out once for each: a simulated game asks at every card, issue 30)."""
        key = (card, card_type, when)
        effects = self._effects.get(key)
        if effects is None:
            found = (*self.type_effects.get(card_type, ()), *self.card_effects.get(card, ()))
            effects = self._effects[key] = tuple(e for e in found if e.when in ("any", when))
        return effects

    @cached_property
    def _effects(self) -> dict[tuple[str, str, str], tuple[Effect, ...]]:
        return {}


# ── reading the validated declaration ──────────────────────────────────────────
def rules_of(extras: dict[str, Any], type_names: Iterable[str] = ()) -> Rules:
    """The rules a validated game declares (`Rules()` when none); `type_names`: its card
    types (an `effects:` key names a card type or a card)."""
    types = set(type_names)
    effects = extras.get("effects") or {}
    return Rules(
        zones=_zones(extras.get("zones")),
        hand_limit=extras.get("hand_limit"),
        rolls={n: _roll(n, r) for n, r in (extras.get("rolls") or {}).items()},
        phases=tuple(_phase(p) for p in extras.get("phases") or ()),
        card_effects={k: _effects(v) for k, v in effects.items() if k not in types},
        type_effects={k: _effects(v) for k, v in effects.items() if k in types},
        end=tuple(_end(e) for e in extras.get("end") or ()),
        score=expr.text_of(extras["score"]) if "score" in extras else "",
        tie_break=tuple(expr.text_of(t) for t in extras.get("tie_break") or ()),
    )


def _zones(raw: Any) -> tuple[Zone, ...]:
    if isinstance(raw, list):
        return tuple(Zone(str(z)) for z in raw)
    return tuple(Zone(str(z), per == "shared") for z, per in (raw or {}).items())


def pool_of(text: str) -> tuple[tuple[str, int], ...]:
    """`3 storm + 1 sun` -> (("storm", 3), ("sun", 1)) (a validated text)."""
    out = []
    for part in str(text).split("+"):
        m = POOL_TEXT.match(part)
        assert m is not None
        out.append((m[2], int(m[1] or 1)))
    return tuple(out)


def _roll(name: str, raw: dict) -> Roll:
    return Roll(name, pool_of(raw["dice"]), expr.text_of(raw["outcome"]),
                str(raw.get("say", "{outcome}")))


def _amount(value: Any) -> str:
    return expr.text_of(value)


def _effect(raw: dict) -> Effect:
    when = str(raw.get("when", "any"))
    verb = next(k for k in raw if k != "when")
    value = raw[verb]
    if verb in WHO:
        return Effect(verb, tuple((k, _amount(v)) for k, v in value.items()), when=when)
    if verb == "transfer":
        tokens = tuple((k, _amount(v)) for k, v in value.items() if k not in ("from", "to"))
        return Effect(verb, tokens, str(value.get("from", "chosen")), str(value.get("to", "self")),
                      when=when)
    if isinstance(value, int):
        return Effect(verb, count=value, when=when)
    return Effect(verb, count=int(value.get("count", 1)), deck=str(value.get("deck", "")),
                  when=when)


def _effects(raw: Any) -> tuple[Effect, ...]:
    items = raw if isinstance(raw, list) else [raw]
    return tuple(_effect(e) for e in items)


def _phase(raw: Any) -> Phase:
    if isinstance(raw, str):
        return Phase(raw)
    return Phase(str(raw["name"]), tuple(_step(s) for s in raw.get("steps") or ()))


def _step(raw: dict) -> Step:
    verb = next(iter(raw))
    value = raw[verb]
    if verb in EFFECT_VERBS and not (verb == "draw" and isinstance(value, dict)
                                     and value.get("reveal")):
        return Step("effect", effect=_effect(raw))
    if verb == "draw":  # draw {reveal: true}: shown one by one
        return Step("reveal", deck=str(value.get("deck", "")), count=int(value.get("count", 1)))
    if verb == "reveal":
        value = value if isinstance(value, dict) else {"deck": value}
        return Step("reveal", deck=str(value.get("deck", "")), count=int(value.get("count", 1)))
    if verb == "roll":
        return Step("roll", roll=str(value))
    if verb == "play":
        return Step("play", zone=str(value["to"]), deck=str(value.get("deck", "")),
                    count=int(value.get("up_to", 1)),
                    cost=tuple((k, _amount(v)) for k, v in (value.get("cost") or {}).items()),
                    prompt=str(value.get("prompt", "")))
    if verb == "choose":
        options = tuple(Option(str(k), _effects(v)) for k, v in value["options"].items())
        return Step("choose", options=options, default=str(value.get("default", options[0].name)),
                    prompt=str(value.get("prompt", "")))
    # discard_to: hand_limit | N
    return Step("discard_to", count=0 if value == "hand_limit" else int(value))


def _end(raw: dict) -> End:
    verb, value = next((k, v) for k, v in raw.items() if k != "finish")
    finish = str(raw.get("finish", "now"))
    if verb in ("token", "pool"):
        kind, test = next(iter(value.items()))
        return End(verb, f"{kind} {str(test).strip()}", finish=finish)
    if verb == "deck_empty":
        return End(verb, deck=str(value), finish=finish)
    return End("rounds", count=int(value), finish=finish)


# ── validation ──────────────────────────────────────────────────────────────────
@dataclass
class _Names:
    """What a game declares that its rules may name."""

    tokens: dict[str, bool]  # kind -> shared
    dice: dict[str, tuple[str, ...]]  # die -> its face symbols
    decks: tuple[str, ...]
    types: dict[str, tuple[str, ...]]  # type -> its fields
    cards: tuple[str, ...]
    zones: tuple[str, ...] = ()
    rolls: tuple[str, ...] = ()
    hand_limit: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f for fs in self.types.values() for f in fs))


class _Checker:
    def __init__(self, names: _Names, report: Report) -> None:
        self.n, self.report = names, report

    def add(self, pos: Pos, path: str, message: str) -> None:
        self.report.add(pos, path, message)

    # expressions
    def expression(self, value: Any, path: str, pos: Pos, allowed: tuple[str, ...],
                   card: bool = False, test: bool | None = None) -> None:
        """An expression (or a whole number) whose names are `allowed`; `card`: card.FIELD
        may appear; `test`: must (True) or must not (False) be a comparison."""
        if isinstance(value, bool) or not isinstance(value, int | str):
            self.add(pos, path, f"expected a number or an expression, got {kind_of(value)}")
            return
        if isinstance(value, int):
            if test:
                self.add(pos, path, "expected a comparison like '>= 10'")
            return
        try:
            tree = expr.parse(value)
        except expr.ExprError as error:
            self.add(pos, path, f"'{shown(value)}': {error.message} (column {error.column})")
            return
        if test is not None and expr.is_test(tree) != test:
            self.add(pos, path, f"'{shown(value)}': "
                     + ("expected a comparison like 'cargo >= 10'" if test else
                        "a comparison gives yes or no, not an amount"))
            return
        for leaf in expr.names(tree):
            self._leaf(leaf, value, path, pos, allowed, card)

    def _leaf(self, leaf: tuple, text: str, path: str, pos: Pos, allowed: tuple[str, ...],
              card: bool) -> None:
        head = leaf[0]
        where = f"'{shown(text)}'"
        if head == "name" and leaf[1] not in allowed:
            self.add(pos, path, f"{where}: '{shown(leaf[1])}' is not a name here"
                     f"{did_you_mean(leaf[1], allowed)} (names: {', '.join(allowed) or 'none'})")
        elif head == "field":
            if not card or leaf[1] != "card":
                self.add(pos, path, f"{where}: '{shown(leaf[1])}.{shown(leaf[2])}': only a card "
                                    "effect may name card.FIELD")
            elif leaf[2] not in self.n.fields:
                self.add(pos, path, f"{where}: no card type has a field '{shown(leaf[2])}'"
                                    f"{did_you_mean(leaf[2], self.n.fields)}")
        elif head in ("sum", "count"):
            zones = self.n.zones if head == "sum" else (*self.n.zones, HAND)
            if leaf[1] not in zones:
                self.add(pos, path, f"{where}: '{shown(leaf[1])}' is not a zone"
                         f"{did_you_mean(leaf[1], zones)} (zones: {', '.join(zones) or 'none'})")
            elif head == "sum" and leaf[2] not in self.n.fields:
                self.add(pos, path, f"{where}: no card type has a field '{shown(leaf[2])}'"
                                    f"{did_you_mean(leaf[2], self.n.fields)}")

    def player_names(self) -> tuple[str, ...]:
        return (*self.n.tokens, *self.n.rolls)

    # pieces
    def mapping(self, value: Any, path: str, pos: Pos, what: str) -> bool:
        if not isinstance(value, dict) or not value:
            self.add(pos, path, f"expected {what}, got {kind_of(value)}")
            return False
        return True

    def keys(self, value: dict, path: str, pos: Pos, required: tuple, optional: tuple) -> bool:
        ok = True
        for key in required:
            if key not in value:
                self.add(pos, path, f"missing field '{key}'")
                ok = False
        for key in value:
            if key not in required and key not in optional:
                self.add(key_pos(value, key, pos), join(path, key), f"unknown field "
                         f"'{shown(key)}'{did_you_mean(key, (*required, *optional))}")
                ok = False
        return ok

    def count(self, value: Any, path: str, pos: Pos, low: int = 1) -> bool:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 1000:
            self.add(pos, path, f"expected a whole number from {low} to 1000, got "
                                f"{shown(value) if isinstance(value, int) else kind_of(value)}")
            return False
        return True

    def choice(self, value: Any, path: str, pos: Pos, values: tuple, what: str) -> bool:
        if not isinstance(value, str) or value not in values:
            self.add(pos, path, f"'{shown(value)}' is not {what}{did_you_mean(value, values)}"
                                f" (one of: {', '.join(map(str, values)) or 'none'})")
            return False
        return True

    def deck(self, value: Any, path: str, pos: Pos) -> bool:
        return self.choice(value, path, pos, self.n.decks, "a deck")

    def token_changes(self, value: Any, path: str, pos: Pos, card: bool, shared: bool | None,
                      skip: tuple = ()) -> None:
        """{KIND: amount, ...}: a signed number or expression per token kind; `shared`: the
        kinds must be shared (True) or a player's (False)."""
        if not self.mapping(value, path, pos, "a mapping of tokens to amounts ({cargo: -1})"):
            return
        for kind, amount in value.items():
            if kind in skip:
                continue
            kpos, vpos = key_pos(value, kind, pos), value_pos(value, kind, pos)
            if not self.choice(kind, join(path, kind), kpos, tuple(self.n.tokens), "a token"):
                continue
            if shared is not None and self.n.tokens[kind] != shared:
                self.add(kpos, join(path, kind), f"'{kind}' is "
                         + ("a player's token: not in the shared pool" if shared else
                            "a shared token: use pool: {" + kind + ": ...}"))
                continue
            self.expression(amount, join(path, kind), vpos, self.player_names(), card, test=False)

    def effect(self, raw: Any, path: str, pos: Pos, card: bool, steps: bool = False) -> None:
        verb = self._verb(raw, path, pos, steps)
        if verb is None:
            return
        if "when" in raw:
            self._when(raw, path, pos, steps)
        value, vpath, vpos = raw[verb], join(path, verb), value_pos(raw, verb, pos)
        if verb in WHO:
            self.token_changes(value, vpath, vpos, card, True if verb == "pool" else False)
        elif verb == "transfer":
            self._transfer(value, vpath, vpos, card)
        elif verb in ("draw", "discard", "reveal"):
            self._draw(verb, value, vpath, vpos)
        elif verb == "roll":
            self.choice(value, vpath, vpos, self.n.rolls, "a roll")
        elif verb == "play":
            self._play(value, vpath, vpos)
        elif verb == "choose":
            self._choose(value, vpath, vpos)
        elif verb == "discard_to":
            self._discard_to(value, vpath, vpos)

    def _verb(self, raw: Any, path: str, pos: Pos, steps: bool) -> str | None:
        """The one verb of an effect (or a phase's step) besides `when`; None once reported."""
        verbs = STEP_VERBS if steps else EFFECT_VERBS
        what = "a step" if steps else "an effect"
        if not self.mapping(raw, path, pos, f"{what} like {{self: {{TOKEN: +1}}}}"):
            return None
        found = [k for k in raw if k != "when"]
        if len(found) != 1:
            self.add(pos, path, f"{what} has exactly one of {', '.join(verbs)}"
                     + (f", got {', '.join(map(str, found))}" if found else ""))
            return None
        verb = found[0]
        if verb not in verbs:
            self.add(key_pos(raw, verb, pos), join(path, verb), f"unknown {what[2:].strip()} "
                     f"'{shown(verb)}'{did_you_mean(verb, verbs)} ({', '.join(verbs)})")
            return None
        return verb

    def _when(self, raw: dict, path: str, pos: Pos, steps: bool) -> None:
        if steps:
            self.add(key_pos(raw, "when", pos), join(path, "when"),
                     "a step runs when its phase comes: `when` is for a card's effects")
        else:
            self.choice(raw["when"], join(path, "when"), value_pos(raw, "when", pos), WHEN,
                        "a moment")

    def _transfer(self, value: Any, vpath: str, vpos: Pos, card: bool) -> None:
        if self.mapping(value, vpath, vpos, "{TOKEN: amount, from: chosen, to: self}"):
            for end in ("from", "to"):
                if end in value:
                    self.choice(value[end], join(vpath, end), value_pos(value, end, vpos),
                                PARTIES, "a party")
            if value.get("from", "chosen") == value.get("to", "self"):
                self.add(vpos, vpath, "a transfer goes from one party to the other")
            if not [k for k in value if k not in ("from", "to")]:
                self.add(vpos, vpath, "a transfer names a token and an amount")
            else:
                self.token_changes(value, vpath, vpos, card, False, skip=("from", "to"))

    def _discard_to(self, value: Any, vpath: str, vpos: Pos) -> None:
        if value == "hand_limit":
            if not self.n.hand_limit:
                self.add(vpos, vpath, "discard_to: hand_limit needs a `hand_limit:` of the game")
        else:
            self.count(value, vpath, vpos, 0)

    def _draw(self, verb: str, value: Any, path: str, pos: Pos) -> None:
        if isinstance(value, int) and not isinstance(value, bool):
            self.count(value, path, pos)
            if verb == "reveal" or len(self.n.decks) > 1 and verb != "discard":
                self.add(pos, path, f"{verb}: N names no deck; write {{deck: D, count: N}} "
                                    f"(decks: {', '.join(self.n.decks)})")
            return
        if verb == "reveal" and isinstance(value, str):
            self.deck(value, path, pos)
            return
        if not self.mapping(value, path, pos, "a count or {deck, count}"):
            return
        optional = ("deck", "count", "reveal") if verb == "draw" else ("deck", "count")
        self.keys(value, path, pos, (), optional)
        if "deck" in value:
            self.deck(value["deck"], join(path, "deck"), value_pos(value, "deck", pos))
        elif len(self.n.decks) > 1 and verb != "discard":
            self.add(pos, path, f"name the deck (decks: {', '.join(self.n.decks)})")
        if "count" in value:
            self.count(value["count"], join(path, "count"), value_pos(value, "count", pos))
        if "reveal" in value and not isinstance(value["reveal"], bool):
            self.add(value_pos(value, "reveal", pos), join(path, "reveal"), "expected true or false")

    def _play(self, value: Any, path: str, pos: Pos) -> None:
        if not self.mapping(value, path, pos, "{to: ZONE, up_to: N, cost: {TOKEN: N}}"):
            return
        self.keys(value, path, pos, ("to",), ("from", "deck", "up_to", "cost", "prompt"))
        if "to" in value:
            self.choice(value["to"], join(path, "to"), value_pos(value, "to", pos),
                        self.n.zones, "a zone")
        if "from" in value:
            self.choice(value["from"], join(path, "from"), value_pos(value, "from", pos),
                        (HAND,), "a zone to play from")
        if "deck" in value:
            self.deck(value["deck"], join(path, "deck"), value_pos(value, "deck", pos))
        if "up_to" in value:
            self.count(value["up_to"], join(path, "up_to"), value_pos(value, "up_to", pos))
        if "cost" in value:
            cost, cpath, cpos = value["cost"], join(path, "cost"), value_pos(value, "cost", pos)
            if self.mapping(cost, cpath, cpos, "{TOKEN: N or a card field}"):
                for kind, amount in cost.items():
                    kpos, apos = key_pos(cost, kind, cpos), value_pos(cost, kind, cpos)
                    if self.choice(kind, join(cpath, kind), kpos, tuple(self.n.tokens), "a token"):
                        if isinstance(amount, str) and amount in self.n.fields:
                            continue
                        self.expression(amount, join(cpath, kind), apos, self.player_names(),
                                        True, test=False)
        if "prompt" in value and not isinstance(value["prompt"], str):
            self.add(value_pos(value, "prompt", pos), join(path, "prompt"), "expected text")

    def _choose(self, value: Any, path: str, pos: Pos) -> None:
        if not self.mapping(value, path, pos, "{options: {NAME: [effects]}, default: NAME}"):
            return
        self.keys(value, path, pos, ("options",), ("default", "prompt"))
        options = value.get("options")
        opath, opos = join(path, "options"), value_pos(value, "options", pos)
        if not self.mapping(options, opath, opos, "a mapping of option names to effects"):
            return
        for name, effects in options.items():
            self.effects(effects, join(opath, name), value_pos(options, name, opos), False)
        if "default" in value:
            self.choice(value["default"], join(path, "default"), value_pos(value, "default", pos),
                        tuple(str(k) for k in options), "an option")
        if "prompt" in value and not isinstance(value["prompt"], str):
            self.add(value_pos(value, "prompt", pos), join(path, "prompt"), "expected text")

    def effects(self, raw: Any, path: str, pos: Pos, card: bool) -> None:
        items = raw if isinstance(raw, list) else [raw]
        if isinstance(raw, list) and not raw:
            self.add(pos, path, "expected an effect or a list of effects, got an empty list")
        for i, item in enumerate(items):
            ipath = join(path, i) if isinstance(raw, list) else path
            self.effect(item, ipath, value_pos(raw, i, pos) if isinstance(raw, list) else pos,
                        card)


def check(game: dict, path: str, pos: Pos, report: Report, types: dict, cards: tuple) -> None:
    """Report every mistaken rules declaration of `game` (validated shape aside)."""
    from carddb.dice import dice_of

    raw = game.get("tokens")
    tokens: dict = raw if isinstance(raw, dict) else {}
    from carddb.dice import DICE

    try:  # dice refused already (their own lines): no roll is checked against them
        valid = "dice" not in game or DICE.check(game["dice"], "", pos, Report(report.file))
        dice = {n: d.symbols for n, d in dice_of(game).items()} if valid else None
    except (KeyError, TypeError, ValueError):
        dice = None
    names = _Names({str(k): isinstance(t, dict) and t.get("per") == "shared"
                    for k, t in tokens.items()}, dice or {},
                   tuple(str(d) for d in (game.get("decks") or {})),
                   {str(t): tuple(ct.fields) for t, ct in types.items()}, cards)
    ch = _Checker(names, report)

    def at(key: str) -> Pos:
        return value_pos(game, key, pos)

    _check_tokens(ch, tokens, join(path, "tokens"), at("tokens"))
    if "zones" in game:
        names.zones = _check_zones(ch, game["zones"], join(path, "zones"), at("zones"))
    if "hand_limit" in game:
        names.hand_limit = ch.count(game["hand_limit"], join(path, "hand_limit"), at("hand_limit"))
    if "rolls" in game:
        names.rolls = _check_rolls(ch, game["rolls"], join(path, "rolls"), at("rolls"),
                                   dice is not None)
    if isinstance(game.get("phases"), list):
        _check_phases(ch, game["phases"], join(path, "phases"), at("phases"))
    if "effects" in game:
        _check_effects(ch, game["effects"], join(path, "effects"), at("effects"))
    if "end" in game:
        _check_end(ch, game["end"], join(path, "end"), at("end"))
    for key in ("score",):
        if key in game:
            ch.expression(game[key], join(path, key), at(key), tuple(names.tokens), test=False)
    if "tie_break" in game:
        raw, tpath, tpos = game["tie_break"], join(path, "tie_break"), at("tie_break")
        if not isinstance(raw, list) or not raw:
            ch.add(tpos, tpath, f"expected a list of expressions, got {kind_of(raw)}")
        else:
            for i, item in enumerate(raw):
                ch.expression(item, join(tpath, i), value_pos(raw, i, tpos), tuple(names.tokens),
                              test=False)


def _check_tokens(ch: _Checker, tokens: dict, path: str, pos: Pos) -> None:
    for kind, t in tokens.items():
        if not isinstance(t, dict):
            continue
        tpos = value_pos(tokens, kind, pos)
        low, high = t.get("min", 0), t.get("max")
        if isinstance(low, int) and isinstance(high, int) and high < low:
            ch.add(value_pos(t, "max", tpos), join(join(path, kind), "max"),
                   f"max {high} is below min {low}")


def _check_zones(ch: _Checker, raw: Any, path: str, pos: Pos) -> tuple[str, ...]:
    if isinstance(raw, list) and raw:
        items = [(z, "player", value_pos(raw, i, pos), join(path, i)) for i, z in enumerate(raw)]
    elif isinstance(raw, dict) and raw:
        items = [(z, per, key_pos(raw, z, pos), join(path, z)) for z, per in raw.items()]
        for z, per in raw.items():
            ch.choice(per, join(path, z), value_pos(raw, z, pos), ("player", "shared"),
                      "a zone's owner")
    else:
        ch.add(pos, path, f"expected a list of zones ([harbour]) or {{ZONE: player|shared}}, got "
                          f"{kind_of(raw)}")
        return ()
    found = []
    for name, _per, zpos, zpath in items:
        if not isinstance(name, str) or not ZONE_NAME.match(name):
            ch.add(zpos, zpath, f"a zone is a lower-case word, got '{shown(name)}'")
        elif name == HAND:
            ch.add(zpos, zpath, "`hand` is every player's hand already: name the zones in play")
        elif name in found:
            ch.add(zpos, zpath, f"zone '{name}' is declared twice")
        else:
            found.append(name)
    return tuple(found)


def _check_rolls(ch: _Checker, raw: Any, path: str, pos: Pos,
                 dice_ok: bool = True) -> tuple[str, ...]:
    if not ch.mapping(raw, path, pos, "a mapping of roll names to {dice, outcome, say}"):
        return ()
    found = []
    for name, roll in raw.items():
        rpath, rpos = join(path, name), value_pos(raw, name, pos)
        if not isinstance(name, str) or not ZONE_NAME.match(name):
            ch.add(key_pos(raw, name, pos), rpath, f"a roll's name is a lower-case word, got "
                                                   f"'{shown(name)}'")
            continue
        if name in ch.n.tokens:
            ch.add(key_pos(raw, name, pos), rpath, f"'{name}' names a token already: an "
                                                   "expression could not tell them apart")
            continue
        found.append(name)
        if not dice_ok:
            continue
        if not ch.mapping(roll, rpath, rpos, "{dice: 3 storm, outcome: wind - wave, say: TEXT}"):
            continue
        ch.keys(roll, rpath, rpos, ("dice", "outcome"), ("say",))
        symbols: list[str] = []
        dice = roll.get("dice")
        dpath, dpos = join(rpath, "dice"), value_pos(roll, "dice", rpos)
        if "dice" in roll:
            parts = str(dice).split("+") if isinstance(dice, str) else None
            if not parts or any(POOL_TEXT.match(p) is None for p in parts):
                ch.add(dpos, dpath, f"expected dice like '3 storm' or '2 storm + 1 sun', got "
                                    f"{shown(dice) if isinstance(dice, str) else kind_of(dice)}")
            else:
                for die, n in pool_of(dice):
                    if die not in ch.n.dice:
                        ch.add(dpos, dpath, f"'{die}' is not a die of the game"
                               f"{did_you_mean(die, ch.n.dice)} (dice: "
                               f"{', '.join(ch.n.dice) or 'none: declare dice:'})")
                    elif not 1 <= n <= limits.MAX_DICE:
                        ch.add(dpos, dpath, f"{n} {die}: from 1 to {limits.MAX_DICE} dice")
                    else:
                        symbols += [s for s in ch.n.dice[die] if not s.lstrip("-").isdigit()]
        if "outcome" in roll:
            allowed = (*dict.fromkeys(symbols), "sum")
            ch.expression(roll["outcome"], join(rpath, "outcome"),
                          value_pos(roll, "outcome", rpos), allowed)
        if "say" in roll and not isinstance(roll["say"], str):
            ch.add(value_pos(roll, "say", rpos), join(rpath, "say"), "expected text with {outcome}")
    return tuple(found)


def _check_phases(ch: _Checker, phases: list, path: str, pos: Pos) -> None:
    seen: set[str] = set()
    for i, phase in enumerate(phases):
        ppath, ppos = join(path, i), value_pos(phases, i, pos)
        name = phase if isinstance(phase, str) else (
            phase.get("name") if isinstance(phase, dict) else None)
        if isinstance(phase, str) and not NAME.check(phase, ppath, ppos, ch.report):
            continue
        if isinstance(name, str):
            if name in seen:
                ch.add(ppos, ppath, f"phase '{shown(name)}' is declared twice")
            seen.add(name)
        if isinstance(phase, str):
            continue
        if not ch.mapping(phase, ppath, ppos, "a phase name or {name, steps}"):
            continue
        ch.keys(phase, ppath, ppos, ("name",), ("steps",))
        if "name" in phase:
            NAME.check(phase["name"], join(ppath, "name"), value_pos(phase, "name", ppos),
                       ch.report)
        steps = phase.get("steps")
        if "steps" not in phase:
            continue
        spath, spos = join(ppath, "steps"), value_pos(phase, "steps", ppos)
        if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
            ch.add(spos, spath, f"expected a list of 1 to {MAX_STEPS} steps, got {kind_of(steps)}")
            continue
        for j, step in enumerate(steps):
            ch.effect(step, join(spath, j), value_pos(steps, j, spos), False, steps=True)


def _check_effects(ch: _Checker, raw: Any, path: str, pos: Pos) -> None:
    if not ch.mapping(raw, path, pos, "a mapping of card (or card type) names to effects"):
        return
    known = (*ch.n.types, *ch.n.cards)
    for name, effects in raw.items():
        epath, epos = join(path, name), value_pos(raw, name, pos)
        if name in ch.n.types and name in ch.n.cards:
            ch.add(key_pos(raw, name, pos), epath, f"'{shown(name)}' is both a card type and a "
                                                   "card: rename one")
        elif name not in known:
            ch.add(key_pos(raw, name, pos), epath, f"'{shown(name)}' is not a card or card type "
                   f"of the game{did_you_mean(name, known)}")
            continue
        ch.effects(effects, epath, epos, True)


FINISHES = ("now", "round")


def _check_end(ch: _Checker, raw: Any, path: str, pos: Pos) -> None:
    if not isinstance(raw, list) or not raw:
        ch.add(pos, path, f"expected a list of end conditions, got {kind_of(raw)}")
        return
    verbs = ("token", "pool", "deck_empty", "rounds")
    for i, item in enumerate(raw):
        ipath, ipos = join(path, i), value_pos(raw, i, pos)
        if not ch.mapping(item, ipath, ipos, "{token: {TOKEN: '>= N'}}, {deck_empty: DECK} or "
                                              "{rounds: N}"):
            continue
        if "finish" in item:
            ch.choice(item["finish"], join(ipath, "finish"), value_pos(item, "finish", ipos),
                      FINISHES, "a finish")
        named = [k for k in item if k != "finish"]
        if len(named) != 1:
            ch.add(ipos, ipath, f"an end condition has one of {', '.join(verbs)}"
                   + (" (and may say finish: now or round)" if "finish" in item else ""))
            continue
        verb, value = named[0], item[named[0]]
        vpath, vpos = join(ipath, verb), value_pos(item, verb, ipos)
        if not ch.choice(verb, vpath, key_pos(item, verb, ipos), verbs, "an end condition"):
            continue
        if verb in ("token", "pool"):
            if not ch.mapping(value, vpath, vpos, "{TOKEN: '>= N'}") or len(value) != 1:
                if isinstance(value, dict) and len(value) > 1:
                    ch.add(vpos, vpath, "one token a condition (write another condition)")
                continue
            kind, test = next(iter(value.items()))
            kpath = join(vpath, kind)
            if not ch.choice(kind, kpath, key_pos(value, kind, vpos), tuple(ch.n.tokens), "a token"):
                continue
            if ch.n.tokens[kind] != (verb == "pool"):
                ch.add(key_pos(value, kind, vpos), kpath, f"'{kind}' is " + (
                    "a shared token: write pool: {" if verb == "token" else
                    "a player's token: write token: {") + f"{kind}: ...}}")
            elif not isinstance(test, str) or COMPARE.match(test) is None:
                ch.add(value_pos(value, kind, vpos), kpath, "expected a comparison like '>= 20' "
                       f"(<, <=, >, >=, ==, !=), got {shown(test) if isinstance(test, str | int) else kind_of(test)}")
        elif verb == "deck_empty":
            ch.deck(value, vpath, vpos)
        else:
            ch.count(value, vpath, vpos)
