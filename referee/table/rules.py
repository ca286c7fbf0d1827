"""Rules declared as data, played (carddb.gamerules: the vocabulary): expressions
evaluated, token changes within the limits and the bank, card effects, named rolls, the
end and the score. Pure functions on a state dict the caller has copied (the kit's
commands: referee/table/kit.py); dice come from an injected `FaceSource`, a card the
referee draws for the table from an injected `random.Random`."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

from carddb import expr
from carddb.gamerules import HAND, Effect, End, Roll
from referee.errors import RefereeError, UsageError
from referee.table.expr_source import amount as amount_function
from referee.table.expr_source import generated, keeper, rolled_outcome, scan
from referee.words import counted, listed

# referee/table/kit.py's TableGame and TokenKind, and dice.py's FaceSource: named here
# by their role only (the kit imports this module: no import back)
TableGame = Any
TokenKind = Any
FaceSource = Any


# ── expressions ─────────────────────────────────────────────────────────────────
class Env:
    """What an expression's names mean for `player` (None: the table), `card` (card.FIELD),
    `counts`/`total` (a roll's symbols and numeric sum)."""

    __slots__ = ("state", "game", "player", "card", "counts", "total")

    def __init__(self, state: dict, game: TableGame, player: str | None, card: str | None = None,
                 counts: dict[str, int] | None = None, total: int = 0) -> None:
        self.state, self.game, self.player, self.card = state, game, player, card
        self.counts, self.total = counts, total

    def name(self, word: str) -> int:
        if self.counts is not None:
            return self.total if word == "sum" else int(self.counts.get(word, 0))
        return _name_reader(self.game, word)(self)

    def cards(self, zone: str) -> list[str]:
        """The cards in `zone` (the state's own list: read, never changed)."""
        return _zone_reader(self.game, zone)(self)

    def field(self, card: str, name: str) -> int:
        return int(self.game.card_fields.get(card, {}).get(name, 0))

    def count(self, zone: str) -> int:
        if zone == HAND:
            return sum(self.state["hands"][self.player].values()) if self.player else 0
        return len(self.cards(zone))


Compiled = Callable[[Env], int]


def _name_reader(game: TableGame, word: str) -> Compiled:
    """What a name means in `game` outside a roll: a token of the pool, a token of the
    Env's player (none for the table), else the turn's outcome of the roll so named."""
    kind = game.tokens.get(word)
    if kind is not None and kind.shared:
        return lambda env: int(env.state["pool"].get(word, 0))
    if kind is not None:
        return lambda env: 0 if env.player is None else int(
            env.state["tokens"][env.player].get(word, 0))
    return lambda env: int(env.state["turn"].get("rolls", {}).get(word, 0))


def _zone_reader(game: TableGame, zone: str) -> Callable[[Env], list[str]]:
    """The cards in `zone` of `game`: the table's, or the Env's player's (none for the
    table); the hand's are not known to the referee."""
    if zone == HAND:
        return lambda env: []
    found = game.rules.zone(zone)
    if found is not None and found.shared:
        return lambda env: env.state.get("table", {}).get(zone, [])  # type: ignore[no-any-return]
    return lambda env: [] if env.player is None else env.state.get("zones", {}).get(
        env.player, {}).get(zone, [])


def _field_sum(cards: Callable[[Env], list[str]], name: str) -> Compiled:
    """`sum(zone.name)` for an Env of one game: each card's field read once and kept (a
    game's card fields never change)."""
    values: dict[str, int] = {}

    def total(env: Env) -> int:
        out = 0
        for card in cards(env):
            value = values.get(card)
            if value is None:
                value = values[card] = env.field(card, name)
            out += value
        return out
    return total


_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne}


def _binary(head: str, op: str, a: Compiled, b: Compiled, right: expr.Tree) -> Compiled:
    """An operator or a comparison of two values; against a number (`cargo >= 20`), the
    number is held rather than called for."""
    if head == "cmp":
        test = _COMPARE[op]
        if right[0] == "num":
            n = int(right[1])
            return lambda env: int(test(a(env), n))
        return lambda env: int(test(a(env), b(env)))
    if op == "+":
        return lambda env: a(env) + b(env)
    if op == "-":
        return lambda env: a(env) - b(env)
    return lambda env: a(env) * b(env)


def _compile(tree: expr.Tree, game: TableGame | None = None) -> Compiled:
    """The tree as one function of an Env (closures, built once per expression text:
    a rule is evaluated at every step of a simulated game, issue 30); with `game`, its
    names and zones looked up once (for an Env of that game without a roll's counts)."""
    head = tree[0]
    if head == "num":
        n = int(tree[1])
        return lambda env: n
    if head == "name":
        word = tree[1]
        return _name_reader(game, word) if game is not None else lambda env: env.name(word)
    if head == "field":
        name = tree[2]
        return lambda env: env.field(env.card, name) if env.card else 0
    if head == "sum":
        zone, name = tree[1], tree[2]
        if game is not None:
            return _field_sum(_zone_reader(game, zone), name)

        def total(env: Env) -> int:
            field = env.field
            return sum([field(c, name) for c in env.cards(zone)])
        return total
    if head == "count":
        zone = tree[1]
        return lambda env: env.count(zone)
    if head == "neg":
        inner = _compile(tree[1], game)
        return lambda env: -inner(env)
    if head in ("op", "cmp"):
        return _binary(head, tree[1], _compile(tree[2], game), _compile(tree[3], game), tree[3])
    # "if": the value when the test holds, else 0
    value, test = _compile(tree[1], game), _compile(tree[2], game)
    return lambda env: value(env) if test(env) else 0


@lru_cache(maxsize=512)
def parsed(text: str) -> expr.Tree:
    """The tree of a validated expression, parsed once (a named roll's outcome is worked
    out at every roll of a simulated game)."""
    return expr.parse(text)


@lru_cache(maxsize=512)
def compiled(text: str) -> Compiled:
    """The function that evaluates a validated expression."""
    return _compile(expr.parse(text))


@lru_cache(maxsize=512)
def constant(text: str) -> int | None:
    """The value of a validated expression that reads nothing (`+1`, `-2`: most amounts
    of an effect), else None (worked out once: issue 30)."""
    tree = expr.parse(text)
    return None if expr.names(tree) else _compile(tree)(Env({}, None, None))


def per_game(cache: dict, key: Any, game: TableGame, make: Callable[[], Any],
             most: int) -> Any:
    """What `make()` gives for `game`, kept in `cache` under `key` (which holds id(game))
    beside the game itself, so a kept entry is never another game's that took its id;
    the cache is emptied when it holds `most`."""
    hit = cache.get(key)
    if hit is None or hit[0] is not game:
        if len(cache) >= most:
            cache.clear()
        hit = cache[key] = (game, make())
    return hit[1]


# id(game) -> (the game, {expression text: its function})
_FOR_GAME: dict[int, tuple[TableGame, dict[str, Compiled]]] = {}
# id(game) -> (the game, {a roll's outcome text: its function of (state, player, counts, sum)})
_ROLLS_FOR_GAME: dict[int, tuple[TableGame, dict[str, Callable[..., int]]]] = {}
# id(game) -> (the game, {expression text: its function of (state, player, card)})
_AMOUNTS_FOR_GAME: dict[int, tuple[TableGame, dict[str, Callable[..., int]]]] = {}
FOR_GAME_MOST = 1024  # expressions kept a game (then forgotten all at once)


def compiled_for(text: str, game: TableGame) -> Compiled:
    """`compiled(text)` with `game`'s names and zones looked up once, as one function
    (referee/table/expr_source.py): for an Env of `game` outside a roll (a roll's outcome
    reads its counts: `compiled`). Looked up with no allocation (issue 30: at every token
    change of a simulated game)."""
    return _made_for(_FOR_GAME, text, game, _generated)  # type: ignore[no-any-return]


def amount_for(text: str, game: TableGame) -> Callable[[dict, str | None, str | None], int]:
    """`compiled_for(text, game)` as one function of (state, player, card), no Env made
    for it (expr_source.amount; issue 30: an effect's amount at a simulated step)."""
    return _made_for(_AMOUNTS_FOR_GAME, text, game, _amount)  # type: ignore[no-any-return]


def outcome_for(text: str, game: TableGame) -> Callable[[dict, str, dict[str, int], int], int]:
    """`compiled(text)` for an Env of `game` with a roll's counts, as one function of
    (state, player, counts, sum) (referee/table/expr_source.py; issue 30: a simulated game
    rolls every turn)."""
    return _made_for(_ROLLS_FOR_GAME, text, game, _outcome)  # type: ignore[no-any-return]


def _made_for(store: dict, text: str, game: TableGame,
              make: Callable[[str, TableGame], Any]) -> Any:
    """The function `make(text, game)` gives, kept in `store` by game and then by text
    (at most FOR_GAME_MOST a game): `compiled_for`, `amount_for` and `outcome_for`,
    looked up with no allocation (issue 30: at every token change of a simulated game)."""
    hit = store.get(id(game))
    fns = hit[1] if hit is not None and hit[0] is game else per_game(
        store, id(game), game, dict, 64)
    fn = fns.get(text)
    if fn is None:
        if len(fns) >= FOR_GAME_MOST:
            fns.clear()
        fn = fns[text] = make(text, game)
    return fn


def _generated(text: str, game: TableGame) -> Compiled:
    return generated(expr.parse(text), game)


def _amount(text: str, game: TableGame) -> Callable[..., int]:
    return amount_function(expr.parse(text), game)


def _outcome(text: str, game: TableGame) -> Callable[..., int]:
    return rolled_outcome(parsed(text), game)


def evaluate(text: str, env: Env) -> int:
    """The value of a validated expression (a comparison: 1 yes, 0 no)."""
    if env.counts is None:
        return compiled_for(text, env.game)(env)
    return compiled(text)(env)


def worked(tree: expr.Tree, env: Env) -> str:
    """A roll's outcome as worked out: `2 sword - 1 shield`, `sum 9 >= 7`."""
    head = tree[0]
    if head == "num":
        return str(tree[1])
    if head == "name":
        return f"{'sum ' + str(env.total) if tree[1] == 'sum' else str(env.name(tree[1])) + ' ' + tree[1]}"
    if head == "neg":
        return f"-{worked(tree[1], env)}"
    if head in ("op", "cmp"):
        return f"{worked(tree[2], env)} {tree[1]} {worked(tree[3], env)}"
    if head == "if":
        return f"{worked(tree[1], env)} if {worked(tree[2], env)}"
    return str(_compile(tree)(env))


# ── tokens within the limits and the bank ───────────────────────────────────────
def bank(state: dict, kind: TokenKind) -> int:
    if kind.shared:
        return kind.count - int(state["pool"].get(kind.id, 0))
    tokens, held = state["tokens"], 0
    for p in state["players"]:  # a loop, not a generator: at every token an effect moves
        held += int(tokens[p].get(kind.id, 0))
    return kind.count - held


def holding(state: dict, who: str | None, kind: TokenKind) -> int:
    return int((state["pool"] if who is None else state["tokens"][who]).get(kind.id, 0))


def moved(state: dict, who: str | None, kind: TokenKind, delta: int) -> int:
    """Change `who`'s (None: the pool's) `kind` by `delta`, held within the kind's min and
    max and what the bank holds (an effect takes what there is); the change made."""
    holder = state["pool"] if who is None else state["tokens"][who]
    before = int(holder.get(kind.id, 0))
    after = before + delta
    if kind.max is not None and after > kind.max and after > before:  # above the most
        after = max(kind.max, before)
    if after < kind.min and after < before:  # below the least
        after = min(kind.min, before)
    most = before + bank(state, kind)
    if after > most:  # more than the bank holds
        after = most
    holder[kind.id] = after
    return after - before


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _changed(state: dict, game: TableGame, who: str | None, tokens: tuple[tuple[str, str], ...],
             player: str | None, card: str | None, tell: bool = True) -> list[str]:
    """Each token change of an effect for `who` (None: the pool), each amount worked out
    for `who` (`each_player: {gold: "sum(market.income)"}`: each their own), else `player`;
    said only when `tell` (the balance lab reads the state alone, issue 30)."""
    parts = []
    for kind_id, amount in tokens:
        kind = game.tokens[kind_id]
        owner = None if kind.shared else who
        fixed = constant(amount)
        delta = fixed if fixed is not None else evaluate(amount, Env(state, game, who or player,
                                                                      card))
        if delta == 0:
            continue
        made = moved(state, owner, kind, delta)
        if not tell:
            continue
        if made == delta:
            parts.append(f"{_signed(made)} {kind.name} -> {holding(state, owner, kind)}")
        else:
            parts.append(f"{_signed(made)} {kind.name} (of {_signed(delta)}: its limits or the "
                         f"bank) -> {holding(state, owner, kind)}")
    return parts


def apply_effects(state: dict, game: TableGame, effects: tuple[Effect, ...], player: str,
                  source: str, chosen: str | None, card: str | None = None,
                  start: int = 0) -> tuple[list[str], int | None]:
    """Apply `effects` (from index `start`) for `player`, each line naming `source` (a card,
    a step or an option). Returns the lines and, when an effect needs a chosen player and
    `chosen` is None, the index it stopped at (the table is asked; nothing of it applied)."""
    lines: list[str] = []
    for index in range(start, len(effects)):
        effect = effects[index]
        if effect.chooses and chosen is None:
            return lines, index
        lines += _apply(state, game, effect, player, source, chosen, card)
        chosen = None if effect.chooses else chosen
    return lines, None


def apply_quietly(state: dict, game: TableGame, effects: tuple[Effect, ...], player: str,
                  chosen: str | None, card: str | None = None, start: int = 0) -> int | None:
    """`apply_effects` saying nothing (the balance lab's path, issue 30): the index it
    stopped at for a choice of player, else None. The caller has asked `refuses` first,
    so no effect is refused half-way."""
    for index in range(start, len(effects)):
        effect = effects[index]
        if effect.chooses and chosen is None:
            return index
        _apply(state, game, effect, player, "", chosen, card, False)
        chosen = None if effect.chooses else chosen
    return None


# apply(state, player, chosen, card, start) -> the index stopped at, or None
Applier = Callable[[dict, str, "str | None", "str | None", int], "int | None"]


def quiet_effects(game: TableGame, effects: tuple[Effect, ...]) -> Applier:
    """`apply_quietly` for `effects` of `game`, each made once into what it does (the
    balance lab applies the same effects at every turn, issue 30): a token change with
    its amounts' functions looked up once (`_changed` saying nothing), any other effect
    by `_apply`. One effect that chooses no player is its own applier: no loop, and one
    frame fewer at every step that applies it."""
    appliers = [_quiet_effect(game, effect) for effect in effects]
    chooses = [effect.chooses for effect in effects]
    count = len(effects)
    if count == 1 and not chooses[0]:
        return appliers[0]

    def apply(state: dict, player: str, chosen: str | None, card: str | None,
              start: int = 0) -> int | None:
        for index in range(start, count):
            if chooses[index]:
                if chosen is None:
                    return index
                appliers[index](state, player, chosen, card, 0)
                chosen = None
            else:
                appliers[index](state, player, chosen, card, 0)
        return None
    return apply


def _quiet_effect(game: TableGame, effect: Effect) -> Applier:
    """One effect made into what it does, as an `Applier` of itself alone: from `start`
    0 it applies, from past it (1) nothing; never a choice of player left pending (the
    chain's applier asks for one first)."""
    if effect.verb not in TOKEN_VERBS:
        def other(state: dict, player: str, chosen: str | None, card: str | None,
                  start: int = 0) -> None:
            if not start:
                _apply(state, game, effect, player, "", chosen, card, False)
        return other
    parts = [(game.tokens[kind_id], constant(amount),
              None if constant(amount) is not None else amount_for(amount, game))
             for kind_id, amount in effect.tokens]
    verb = effect.verb

    def change(state: dict, player: str, chosen: str | None, card: str | None,
               start: int = 0) -> None:
        if start:
            return
        whom = (player,) if verb == "self" else _whom(verb, state["players"], player, chosen)
        for who in whom:
            for kind, fixed, amount in parts:
                delta = fixed if amount is None else amount(state, who or player, card)
                if delta:
                    moved(state, None if kind.shared else who, kind, delta)
    return change


def may_refuse(effects: tuple[Effect, ...]) -> bool:
    """Whether `refuses` can ever hold for `effects`: only a transfer is refused."""
    return any(effect.verb == "transfer" for effect in effects)


def refuses(effects: tuple[Effect, ...], player: str, chosen: str | None, start: int = 0) -> bool:
    """Whether `apply_effects` (from `start`, for `player`, `chosen`) would refuse before it
    stops or ends: a transfer whose giver is its taker (the one refusal of an effect),
    asked before anything is changed (the balance lab tries answers in place, issue 30)."""
    for index in range(start, len(effects)):
        effect = effects[index]
        if effect.chooses and chosen is None:
            return False
        if effect.verb == "transfer":
            giver = chosen if effect.source == "chosen" else player
            if giver == (chosen if effect.target == "chosen" else player):
                return True
        chosen = None if effect.chooses else chosen
    return False


def _whom(verb: str, seats: list[str], player: str, chosen: str | None) -> list[str | None]:
    """Whose tokens a token effect changes (None: the shared pool)."""
    if verb == "self":
        return [player]
    if verb == "choose_player":
        return [chosen or player]
    if verb == "each_player":
        return list(seats)
    if verb == "each_other":
        return [p for p in seats if p != player]
    return [None]  # pool


TOKEN_VERBS = frozenset({"self", "choose_player", "each_player", "each_other", "pool"})


def _apply(state: dict, game: TableGame, effect: Effect, player: str, source: str,
           chosen: str | None, card: str | None, tell: bool = True) -> list[str]:
    """One effect applied; its lines when `tell`."""
    verb = effect.verb
    if verb in TOKEN_VERBS:
        return _token_effect(state, game, effect, player, source, chosen, card, tell)
    if verb == "transfer":
        return _transfer(state, game, effect, player, source, chosen, card, tell)
    if verb == "draw":
        deck = effect.deck or next(iter(game.decks))
        pile = state["decks"][deck]
        n = min(effect.count, pile["deck"])
        pile["deck"] -= n
        state["hands"][player][deck] += n
        if not tell:
            return []
        short = "" if n == effect.count else f" (the deck held {n})"
        return [f"{source}: {player} draws {counted(n, 'card')} from {deck}{short}: "
                f"{hand_size(state, player)} in hand"]
    # discard N face down (the hand's cards of any deck, the shown ones last)
    return [f"{source}: " + discard_face_down(state, game, player, effect.count,
                                              effect.deck or None)]


def _token_effect(state: dict, game: TableGame, effect: Effect, player: str, source: str,
                  chosen: str | None, card: str | None, tell: bool) -> list[str]:
    out = []
    for who in _whom(effect.verb, state["players"], player, chosen):
        parts = _changed(state, game, who, effect.tokens, player, card, tell)
        if parts:
            out.append(f"{source}: {who or 'the shared pool'} " + ", ".join(parts))
    if out or not tell:
        return out
    return [f"{source}: no change ({', '.join(f'{k} {a}' for k, a in effect.tokens)} comes to 0)"]


def _transfer(state: dict, game: TableGame, effect: Effect, player: str, source: str,
              chosen: str | None, card: str | None, tell: bool) -> list[str]:
    giver = chosen if effect.source == "chosen" else player
    taker = chosen if effect.target == "chosen" else player
    if giver == taker:
        raise UsageError(f"{source}: {player} chooses another player (a transfer between "
                         "two players)")
    assert giver is not None and taker is not None
    out = []
    for kind_id, amount in effect.tokens:
        kind = game.tokens[kind_id]
        want = evaluate(amount, Env(state, game, player, card))
        n = max(0, min(want, holding(state, giver, kind)))
        state["tokens"][giver][kind_id] -= n
        state["tokens"][taker][kind_id] = state["tokens"][taker].get(kind_id, 0) + n
        if tell:
            out.append(f"{source}: {giver} gives {taker} {n} {kind.name} ({giver} "
                       f"{holding(state, giver, kind)}, {taker} {holding(state, taker, kind)})")
    return out


def hand_size(state: dict, player: str) -> int:
    return sum(state["hands"][player].values())


def discard_face_down(state: dict, game: TableGame, player: str, n: int,
                      deck: str | None = None) -> str:
    """`n` cards of `player`'s hand onto their discard piles face down (unseen first)."""
    done = 0
    for d in ([deck] if deck else list(state["hands"][player])):
        while done < n and state["hands"][player][d] > 0:
            state["hands"][player][d] -= 1
            state["decks"][d]["discard"] += 1
            shown_here = [c for c in state["shown"][player] if game.cards.get(c) == d]
            if len(shown_here) >= state["hands"][player][d] + 1 and shown_here:
                state["shown"][player].remove(shown_here[-1])
                state["decks"][d]["seen"].append(shown_here[-1])
            done += 1
    return f"{player} discards {counted(done, 'card')} face down: {hand_size(state, player)} in hand"


# ── named rolls ─────────────────────────────────────────────────────────────────
def roll(state: dict, game: TableGame, named: Roll, player: str,
         source: FaceSource) -> tuple[str, dict[str, Any]]:
    """Roll `named`'s pool for `player`: its line (`3 storm: wind wind wave  2 wind - 1 wave
    = 1 knots`) and its data; the outcome kept in the turn (`turn.rolls`)."""
    keys, counts, total, value = rolled(state, game, named, player, source)
    env = Env(state, game, player, counts=counts, total=total)  # read, never changed
    tree = parsed(named.outcome)
    outcome = ("yes" if value else "no") if expr.is_test(tree) else str(value)
    said = named.say.replace("{outcome}", outcome)
    pool = " + ".join(f"{n} {d}" for d, n in named.pool)
    line = f"{named.name.title()} roll, {pool}: {' '.join(keys)}  " \
           f"{worked(tree, env)} = {said}"
    data = {"roll": named.name, "faces": keys, "counts": dict(counts),
            "sum": total, "outcome": value, "say": said}
    return line, data


def rolled(state: dict, game: TableGame, named: Roll, player: str,
           source: FaceSource) -> tuple[list[str], dict[str, int], int, int]:
    """`roll` saying nothing (the balance lab's path, issue 30): the faces' keys, their
    counts, their sum and the outcome, kept in the turn and as the last roll."""
    drawn: list[tuple[str, int]] = []
    for die_name, n in named.pool:
        drawn += source.drawn(n, game.dice[die_name], f"{player}'s {named.name} roll "
                                                      f"({n} {die_name})")
    keys: list[str] = []  # the lab's faces read each key once a game, not a roll
    counts: dict[str, int] = {}
    total = 0
    for key, value in drawn:
        keys.append(key)
        counts[key] = counts.get(key, 0) + 1
        total += value
    value = outcome_for(named.outcome, game)(state, player, counts, total)
    state["turn"].setdefault("rolls", {})[named.name] = value
    state["last_roll"] = {"who": player, "die": named.name, "faces": keys,
                          "counts": dict(counts), "sum": total, "outcome": value}
    return keys, counts, total, value


# ── the end and the score ───────────────────────────────────────────────────────
def scores(state: dict, game: TableGame) -> dict[str, int]:
    if not game.rules.score:
        return {}
    score = compiled_for(game.rules.score, game)
    return {p: score(Env(state, game, p)) for p in state["players"]}


def _ranks(state: dict, game: TableGame) -> dict[str, tuple[int, ...]]:
    """Each player's score, then each tie-break: what the standing sorts by (worked out
    once a player)."""
    out = {}
    for p in state["players"]:
        env = Env(state, game, p)
        out[p] = (evaluate(game.rules.score, env) if game.rules.score else 0,
                  *(evaluate(t, env) for t in game.rules.tie_break))
    return out


def standing(state: dict, game: TableGame) -> list[str]:
    """The players in order of score, then of each tie-break (highest first)."""
    return sorted(state["players"], key=_ranks(state, game).__getitem__, reverse=True)


def winners(state: dict, game: TableGame) -> list[str]:
    ranks = _ranks(state, game)
    order = sorted(state["players"], key=ranks.__getitem__, reverse=True)  # `standing`
    return [p for p in order if ranks[p] == ranks[order[0]]]


def finish(state: dict, game: TableGame, reason: str) -> list[str]:
    """The game ends: scores, the winner(s) (a list: a tie shares the win)."""
    state["over"] = True
    state["ended"] = reason
    won = winners(state, game)
    state["winner"] = won
    state["scores"] = scores(state, game)
    said = ", ".join(f"{p} {n}" for p, n in state["scores"].items())
    verb = "wins" if len(won) == 1 else "share the win"
    return [f"{reason}: the game ends." + (f" Score: {said}." if said else "")
            + f" {listed(won)} {verb}."]


def end_tests(game: TableGame) -> tuple[tuple[End, Compiled], ...]:
    """Each end condition on tokens of `game` (a player's or the pool's), in order, with
    its test compiled."""
    return tuple((end, compiled_for(end.test, game)) for end in game.rules.end
                 if end.kind in ("token", "pool"))


def token_ends(state: dict, game: TableGame,
               tests: tuple[tuple[End, Compiled], ...] | None = None) -> Iterator[tuple[End, str]]:
    """The end conditions on tokens that hold now, in order, each said (`Ann reaches 20
    cargo (cargo >= 20)`); `tests`: `end_tests(game)`, when the caller keeps them."""
    for end, test in end_tests(game) if tests is None else tests:
        if end.kind == "token":
            for p in state["players"]:
                if test(Env(state, game, p)):
                    kind = game.tokens[end.test.split()[0]]
                    yield end, f"{p} reaches {holding(state, p, kind)} {kind.name} ({end.test})"
                    break
        elif test(Env(state, game, None)):
            kind = game.tokens[end.test.split()[0]]
            yield end, f"the shared {kind.name} is at {holding(state, None, kind)} ({end.test})"


def token_end(state: dict, game: TableGame) -> str | None:
    """The first end condition on tokens that holds now, said."""
    return next((reason for _, reason in token_ends(state, game)), None)


def turn_start_ends(state: dict, game: TableGame, rounds_played: int) -> Iterator[tuple[End, str]]:
    """The end conditions checked as a turn begins that hold: a deck empty, the rounds
    played."""
    for end in game.rules.end:
        if end.kind == "deck_empty" and state["decks"][end.deck]["deck"] == 0:
            yield end, f"the {game.deck_titles.get(end.deck, end.deck)} deck is empty"
        elif end.kind == "rounds" and rounds_played >= end.count:
            yield end, f"{counted(end.count, 'round')} played"


def turn_start_end(state: dict, game: TableGame, rounds_played: int) -> str | None:
    """The first end condition checked as a turn begins that holds, said."""
    return next((reason for _, reason in turn_start_ends(state, game, rounds_played)), None)


def ending(state: dict, game: TableGame, held: Iterable[tuple[End, str]],
           round_over: bool) -> list[str]:
    """The game over at the first condition that holds and finishes now (or, `round_over`,
    as a round begins); a condition with `finish: round` makes the round the last one: the
    others play their turns, and the game ends as the next round would begin."""
    lines: list[str] = []
    for end, reason in held:
        if end.finish != "round" or round_over:
            return lines + finish(state, game, reason)
        if not state.get("last_round"):
            state["last_round"] = reason
            lines.append(f"{reason}: this round is the last (the game ends when it is over).")
    return lines


def settle(state: dict, game: TableGame) -> list[str]:
    """After every change of a declared game: the scores kept up to date, and the game
    over (or in its last round) when a token condition holds."""
    return settler(game)(state)


# ── the score and the token ends, worked out once for what they read ─────────────
def _read(tree: expr.Tree, names: set[str], zones: set[str]) -> None:
    """The names and zones an expression reads (a card's field reads the Env's card: none
    for a player's score or an end test, and the fields never change)."""
    head = tree[0]
    if head == "name":
        names.add(tree[1])
    elif head in ("sum", "count"):
        zones.add(tree[1])
    elif head == "neg":
        _read(tree[1], names, zones)
    elif head in ("op", "cmp"):
        _read(tree[2], names, zones)
        _read(tree[3], names, zones)
    elif head == "if":
        _read(tree[1], names, zones)
        _read(tree[2], names, zones)


def _settle_reads(game: TableGame) -> tuple[set[str], set[str]]:
    """The names and zones the score and the end tests on tokens read (`settle`)."""
    names: set[str] = set()
    zones: set[str] = set()
    texts = [game.rules.score] if game.rules.score else []
    texts += [end.test for end in game.rules.end if end.kind in ("token", "pool")]
    for text in texts:
        _read(expr.parse(text), names, zones)
    return names, zones


def settle_parts(game: TableGame) -> frozenset[str]:
    """The parts of a state `settle` reads, by the names `effect_parts` gives what a rule
    changes: "tokens" (a player's or the pool's), "rolls" (the turn's outcomes), "hands"
    (a count of the hand), "zones" (the cards in play, a player's or the table's)."""
    names, zones = _settle_reads(game)
    parts = {"tokens" if name in game.tokens else "rolls" for name in names}
    parts |= {"hands" if zone == HAND else "zones" for zone in zones}
    return frozenset(parts)


def effect_parts(effect: Effect) -> frozenset[str]:
    """The parts of a state `effect` may change (`settle_parts`' names; "decks" beside):
    a draw or a discard the hand and the decks, any other effect tokens."""
    if effect.verb in ("draw", "discard"):
        return frozenset({"hands", "decks"})
    return frozenset({"tokens"})


# id(game) -> (the game, its settle scan: expr_source.scan)
_SCANS: dict[int, tuple[TableGame, Callable[[dict], tuple[dict[str, int], bool]]]] = {}
_KEEPERS: dict[int, tuple[TableGame, Callable[[dict], bool]]] = {}


def _scan_of(game: TableGame, make: Callable[..., Any] = scan) -> Any:
    ends = [end for end in game.rules.end if end.kind in ("token", "pool")]
    return make(game, parsed(game.rules.score) if game.rules.score else None,
                [parsed(e.test) for e in ends if e.kind == "token"],
                [parsed(e.test) for e in ends if e.kind != "token"])


def _scan(game: TableGame) -> Callable[[dict], tuple[dict[str, int], bool]]:
    hit = _SCANS.get(id(game))
    if hit is not None and hit[0] is game:
        return hit[1]
    return per_game(_SCANS, id(game), game, lambda: _scan_of(game), 64)  # type: ignore[no-any-return]


def _never(state: dict) -> bool:
    return False


def settle_check(game: TableGame) -> Callable[[dict], bool]:
    """The first half of `settle` for `game`, one call written for it (expr_source.keeper):
    a declared game not over has its scores kept in the state; whether an end test holds
    (then `settle_end`). The balance lab calls both halves itself (issue 30)."""
    if not game.rules.declared:
        return _never
    return per_game(_KEEPERS, id(game), game, lambda: _scan_of(game, keeper), 64)  # type: ignore[no-any-return]


def settle_end(game: TableGame) -> Callable[[dict], list[str]]:
    """The second half of `settle`, where `settle_check` held: the ends that hold, said."""
    return lambda state: ending(state, game, list(token_ends(state, game)), False)


def settled(state: dict, game: TableGame) -> tuple[dict[str, int], list[tuple[End, str]]]:
    """`scores` and the `token_ends` that hold: each player's score and whether an end
    test holds worked out in one call written for the game (referee/table/expr_source.py,
    issue 30: the balance lab settles after most steps); the ends said by `token_ends`
    when one holds."""
    scores, held = _scan(game)(state)
    ends = list(token_ends(state, game)) if held else []
    return (scores if game.rules.score else {}), ends


def settler(game: TableGame) -> Callable[[dict], list[str]]:
    """`settle` for `game`, what it reads of the game looked up once (the balance lab
    settles after most steps, issue 30): `settle_check`, then `settle_end` where it held."""
    check, end = settle_check(game), settle_end(game)

    def settle_it(state: dict) -> list[str]:
        return end(state) if check(state) else []
    return settle_it


# ── the turn ────────────────────────────────────────────────────────────────────
def turn_line(state: dict) -> str:
    turn = state["turn"]
    phase = f", {turn['phase']}" if turn.get("phase") else ""
    return f"round {turn['round']}, turn {turn['number']}: {turn['player']}{phase}"


def next_phase(state: dict, game: TableGame) -> list[str]:
    """The next phase, or the next player's turn (a new round back at the first player);
    a declared game's turn starts afresh (step 0, no roll yet) and its end is checked as
    the turn begins (a deck empty, the rounds played)."""
    new_turn = _move_on(state, game)
    lines = [turn_line(state)]
    if new_turn and game.rules.declared and not state.get("over"):
        lines += _turn_start(state, game)
    return lines


def next_phase_quietly(state: dict, game: TableGame) -> None:
    """`next_phase` saying nothing (the balance lab's path, issue 30)."""
    if _move_on(state, game) and game.rules.declared and not state.get("over"):
        _turn_start(state, game)


def _move_on(state: dict, game: TableGame) -> bool:
    """The turn moved to the next phase, or the next player's turn: whether a new turn."""
    turn = state["turn"]
    phases = game.phases
    following = game.phase_after.get(turn.get("phase"))
    new_turn = following is None
    if not new_turn:
        turn["phase"] = following
    else:
        seats = state["players"]
        turn["player"] = seats[(seats.index(turn["player"]) + 1) % len(seats)]
        turn["number"] += 1
        if turn["player"] == state["setup"]["first"]:
            turn["round"] += 1
        turn["phase"] = phases[0] if phases else None
    if "step" in turn:
        turn["step"] = 0
        turn["done"] = 0
        if new_turn:
            turn["rolls"] = {}
    return new_turn


def _turn_start(state: dict, game: TableGame) -> list[str]:
    """As a turn begins: a condition checked then that holds ends the game, or makes this
    round the last; as a round begins, a last round is over (`finish: round`)."""
    turn = state["turn"]
    round_over = turn["player"] == state["setup"]["first"]
    if round_over and state.get("last_round"):
        return ["The last round is over.", *finish(state, game, state["last_round"])]
    return ending(state, game, turn_start_ends(state, game, turn["round"] - 1), round_over)


def refuse_when_over(state: dict) -> None:
    if state.get("over"):
        won = state.get("winner") or []
        who = f"{listed(list(won))} won" if won else "it is over"
        raise RefereeError(f"the game is over ({who}): `referee new` starts another; status, "
                           "log and undo still work")


def choose_default(state: dict, player: str) -> str:
    """The player a choice falls on by default: the next in seat order after `player`."""
    seats = state["players"]
    return seats[(seats.index(player) + 1) % len(seats)]


def need(condition: bool, message: str) -> None:
    if not condition:
        raise UsageError(message)
