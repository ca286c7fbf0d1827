"""An expression of a declared game (carddb.expr's tree) as one Python function of an
Env (referee/table/rules.py), written as source and compiled once per game and
expression text (issue 30 item 5: the score, the end tests and an effect's amount are
worked out at most steps of a simulated game, and one function reads the state in a
single call where a closure per node of the tree made a call per node).

It means what `rules._compile(tree, game)` means, node for node (tests/referee/table/
test_lab_steps.py checks both on every state of many games). The source holds nothing
of the declaration as code: every name, zone and field is a string literal written by
`repr`, every number an `int` written by `str`, and every operator one of a fixed set,
so a card file cannot put code into it; the tree comes from carddb.expr's parser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from carddb import expr
from carddb.gamerules import HAND

TableGame = Any  # referee/table/kit.py's TableGame (the kit imports rules, rules this)
Env = Any  # rules.Env

_OPERATORS = frozenset({"+", "-", "*", "<", "<=", ">", ">=", "==", "!="})


class _Writer:
    """The source of one expression of `game`, and the constants it names (each card's
    value of a field, read once: a game's card fields never change)."""

    def __init__(self, game: TableGame) -> None:
        self.game = game
        self.constants: dict[str, dict[str, int]] = {}
        # whose the expression is: "env" (`p`, the Env's player, may be None), "player"
        # (`p` a seat: its tokens `T` and zones `Z` bound once, `bound`), "table" (None) or
        # "roll" (as "env", but a name reads the roll's counts `k` and sum `t`: `Env.name`)
        self.who = "env"
        self.bound: set[str] = set()
        self.card_read = False  # whether the source reads `c` (a card's field)
        # a seat's tokens the score reads, each read once a seat into a local (`V0`, ...)
        # that the end tests read too: {token: local}; `keeping` while the score is written
        self.kept: dict[str, str] = {}
        self.keeping = False
        # in "player" mode, each sum of a field over a seat's zone worked out once a seat by
        # a loop written before the score (`S0`, ...) rather than a call to `_total`:
        # {(zone, field): (local, its lines)}
        self.sums: dict[tuple[str, str], tuple[str, list[str]]] = {}

    def fields(self, name: str) -> str:
        """The name of a constant: each card's value of the field `name` (0 when none)."""
        key = f"F{len(self.constants)}"
        self.constants[key] = {card: int(values.get(name, 0))
                               for card, values in self.game.card_fields.items()}
        return key

    def cards(self, zone: str) -> str:
        """The cards in `zone` (the Env's player's, or the table's; the hand's: none)."""
        if zone == HAND:
            return "()"
        found = self.game.rules.zone(zone)
        if found is not None and found.shared:
            return f"s.get('table', _E).get({zone!r}, ())"
        if self.who == "player":
            self.bound.add("Z")
            return f"Z.get({zone!r}, ())"
        if self.who == "table":
            return "()"
        return f"(() if p is None else s.get('zones', _E).get(p, _E).get({zone!r}, ()))"

    def name(self, word: str) -> str:
        if self.who == "roll":  # a roll's outcome: every name one of its counts, or the sum
            return "t" if word == "sum" else f"int(k.get({word!r}, 0))"
        kind = self.game.tokens.get(word)
        if kind is not None and kind.shared:
            return f"int(s['pool'].get({word!r}, 0))"
        if kind is not None and self.who == "player":
            self.bound.add("T")
            if self.keeping:
                return self.kept.setdefault(word, f"V{len(self.kept)}")
            return self.kept.get(word, f"int(T.get({word!r}, 0))")
        if kind is not None:
            return "0" if self.who == "table" else \
                f"(0 if p is None else int(s['tokens'][p].get({word!r}, 0)))"
        return f"int(s['turn'].get('rolls', _E).get({word!r}, 0))"

    def count(self, zone: str) -> str:
        if zone == HAND:
            return {"player": "sum(s['hands'][p].values())", "table": "0"}.get(
                self.who, "(sum(s['hands'][p].values()) if p else 0)")
        return f"len({self.cards(zone)})"

    def write(self, tree: expr.Tree) -> str:
        head = tree[0]
        if head == "num":
            return str(int(tree[1]))
        if head == "name":
            return self.name(str(tree[1]))
        if head == "field":
            self.card_read = True
            return f"({self.fields(str(tree[2]))}.get(c, 0) if c else 0)"
        if head == "sum":
            if self.who == "player":
                return self.seat_sum(str(tree[1]), str(tree[2]))
            return f"_total({self.fields(str(tree[2]))}, {self.cards(str(tree[1]))})"
        if head == "count":
            return self.count(str(tree[1]))
        if head == "neg":
            return f"(-{self.write(tree[1])})"
        if head in ("op", "cmp"):
            both = self.both(tree)
            return f"int({both})" if head == "cmp" else f"({both})"
        # "if": the value when the test holds, else 0 (the test read first)
        return f"({self.write(tree[1])} if {self.test(tree[2])} else 0)"

    def seat_sum(self, zone: str, name: str) -> str:
        """A seat's `sum(zone.name)` in the settle scan: a local, summed by a loop once a
        seat (`sums`); it reads only the state, so working it out before the score and the
        end tests that name it means what `_total` where it stands means."""
        found = self.sums.get((zone, name))
        if found is None:
            local, values, cards = f"S{len(self.sums)}", self.fields(name), self.cards(zone)
            found = self.sums[(zone, name)] = (local, [
                f"        {local} = 0", f"        for q in {cards}:",
                f"            {local} += {values}.get(q, 0)"])
        return found[0]

    def test(self, tree: expr.Tree) -> str:
        """The tree read only for whether it holds (an `if`'s test, an end test): a
        comparison as Python's own, its truth the same as its 1 or 0's."""
        return f"({self.both(tree)})" if tree[0] == "cmp" else self.write(tree)

    def both(self, tree: expr.Tree) -> str:
        """An operator or a comparison's two sides, the operator one of a fixed set."""
        op = str(tree[1])
        if op not in _OPERATORS:
            raise ValueError(f"not an operator: {op!r}")
        return f"{self.write(tree[2])} {op} {self.write(tree[3])}"


_EMPTY: dict = {}  # what a missing part reads as (only ever read: `.get` on it)


def _total(values: dict[str, int], cards: Any) -> int:
    """A field summed over cards (`sum(zone.field)`)."""
    out = 0
    for card in cards:
        out += values.get(card, 0)
    return out


def _function(lines: list[str], writer: _Writer) -> Any:
    """The function `f` of the source `lines`, its names: the writer's constants, `_total`,
    `_E` (an empty dict, read only) and the four builtins the source calls."""
    scope: dict[str, Any] = {"_total": _total, "_E": _EMPTY, "__builtins__": {"bool": bool, "int": int,
                                                                "len": len, "sum": sum}}
    scope.update(writer.constants)
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<declared expression>", "exec"), scope)  # noqa: S102 - literals only
    return scope["f"]


def generated(tree: expr.Tree, game: TableGame) -> Callable[[Env], int]:
    """The tree as one function of an Env of `game` outside a roll."""
    writer = _Writer(game)
    body = writer.write(tree)
    return _function(["def f(env):", "    s, p, c = env.state, env.player, env.card",  # type: ignore[no-any-return]
                      f"    return {body}"], writer)


def amount(tree: expr.Tree, game: TableGame) -> Callable[[dict, str | None, str | None], int]:
    """`generated` as one function of (state, player, card) with no Env to make: an
    effect's amount, worked out at a token change of most lab steps (issue 30)."""
    writer = _Writer(game)
    body = writer.write(tree)
    return _function(["def f(s, p, c):", f"    return {body}"], writer)  # type: ignore[no-any-return]


def rolled_outcome(tree: expr.Tree, game: TableGame) -> Callable[[dict, str, dict[str, int], int], int]:
    """A roll's outcome as one function `f(state, player, counts, total)`: what the tree
    means for an Env of `game` with a roll's counts (issue 30: the lab rolls every turn,
    and an Env and a closure a node cost more than the outcome)."""
    writer = _Writer(game)
    writer.who = "roll"
    body = writer.write(tree)
    return _function(["def f(s, p, k, t):", "    c = None",  # type: ignore[no-any-return]
                      f"    return {body}"], writer)


def _scan_body(game: TableGame, score: expr.Tree | None, player_tests: list[expr.Tree],
               pool_tests: list[expr.Tree]) -> tuple[list[str], _Writer]:
    """The lines that work out `scores` (each player's) and `held` (an end test holds) of a
    state `s`, and their writer."""
    writer = _Writer(game)
    writer.who = "table"
    pool = " or ".join(writer.test(t) for t in pool_tests)
    writer.who = "player"  # each seat's tokens and zones bound once
    writer.keeping = True  # the tokens the score reads: read once a seat, before it
    scored = writer.write(score) if score is not None else "0"
    writer.keeping = False
    tests = " or ".join(writer.test(t) for t in player_tests)
    each = [*(f"        {local} = int(T.get({word!r}, 0))" for word, local in writer.kept.items()),
            *(line for _, lines in writer.sums.values() for line in lines),
            f"        scores[p] = {scored}"]
    if tests:
        each += [f"        if not held and ({tests}):", "            held = True"]
    # each seat's tokens and zones: the state's two dicts read once, before the seats
    hoists = {"T": "    TS = s.get('tokens', _E)", "Z": "    ZS = s.get('zones', _E)"}
    binds = {"T": "        T = TS[p]", "Z": "        Z = ZS.get(p, _E)"}
    # `c` bound only where a field is read; `held` a bool without a call to bool()
    return [*(["    c = None"] if writer.card_read else []), "    scores = {}",
            f"    held = True if ({pool}) else False" if pool else "    held = False",
            *(hoists[name] for name in sorted(writer.bound)),
            "    for p in s['players']:", *(binds[name] for name in sorted(writer.bound)),
            *each], writer


def scan(game: TableGame, score: expr.Tree | None, player_tests: list[expr.Tree],
         pool_tests: list[expr.Tree]) -> Callable[[dict], tuple[dict[str, int], bool]]:
    """One function of a state of `game`: each player's score (`score`; 0 when None) and
    whether an end test holds (one of `player_tests` for a player, or of `pool_tests` for
    the table): what `rules.settle` reads after every step, in one call (issue 30)."""
    body, writer = _scan_body(game, score, player_tests, pool_tests)
    return _function(["def f(s):", *body, "    return scores, held"], writer)  # type: ignore[no-any-return]


def keeper(game: TableGame, score: expr.Tree | None, player_tests: list[expr.Tree],
           pool_tests: list[expr.Tree]) -> Callable[[dict], bool]:
    """`scan` as `rules.settle` uses it, in the same call: nothing for a game over (False);
    else the scores kept in the state (`s['scores']`, when `score` is declared) and whether
    an end test holds (the balance lab settles after most steps, issue 30)."""
    body, writer = _scan_body(game, score, player_tests, pool_tests)
    keep = ["    s['scores'] = scores"] if score is not None else []
    return _function(["def f(s):", "    if s.get('over'):",  # type: ignore[no-any-return]
                      "        return False", *body, *keep, "    return held"], writer)
