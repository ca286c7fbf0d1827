"""Exact odds of a pool of a game's own dice (`3 battle + 1 fate`) for an outcome: the
count of a face (`sword`), a net count (`sword - shield`), the numeric sum (`sum`), or any
whole-number combination of those (`2*sword + sum - 1`). Pure: no click, no files.

The outcome is linear in the dice, so each die adds its own value (the outcome of its one
face) and the pool's distribution is the convolution of its dice's: integer weights over
the common denominator `faces ** dice` (`referee.odds.Distribution`, as XO!'s odds). A
comparison with a target reads that distribution (`at_least`, `at_most`, `probability`);
two pools compared by one outcome give `opposed`. One roll at the table gives `value`.

The same model is a game's named roll (cards.yaml `rolls: {weather: {dice: 3 storm,
outcome: wind - wave}}`): `named_roll(dice, "3 storm", "wind - wave")` reads its outcome
through carddb.expr, the parse the table plays it by (referee/table/rules.py `roll`), a
comparison (`sum >= 7`) being a yes/no `test`; `distribution` answers it. One place says
what a named roll's outcome is, for the odds, the report and the table."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from carddb.dice import Die, Face
from referee.errors import DiceError, UsageError
from referee.inputs import natural, shown
from referee.odds import (
    MAX_SPREAD,
    Comparison,
    Distribution,
    compare_distributions,
    convolve,
)
from referee.table.dice import MAX_DICE

SUM = "sum"  # the outcome word for the numeric sum of the faces' values
_TOKEN = re.compile(r"\s*(?:(?P<number>[0-9]+)|(?P<word>[^\W\d][\w-]*)|(?P<op>[-+*]))")


@dataclass(frozen=True)
class Pool:
    """Dice rolled together: (how many, which die) in the order written."""

    groups: tuple[tuple[int, Die], ...]

    def __str__(self) -> str:
        return " + ".join(f"{n} {die.name}" for n, die in self.groups)

    @property
    def dice_count(self) -> int:
        return sum(n for n, _ in self.groups)

    @property
    def keys(self) -> tuple[str, ...]:
        """Every face key of the pool's dice, in the order of the dice and their faces."""
        return tuple(dict.fromkeys(k for _, die in self.groups for k in die.symbols))

    @property
    def symbols(self) -> tuple[str, ...]:
        """The face keys that are symbols (not plain numbers): what a count counts."""
        return tuple(dict.fromkeys(f.symbol for _, die in self.groups for f in die.faces
                                   if f.symbol is not None))

    @property
    def numeric(self) -> bool:
        """Some face of the pool has a value, so `sum` is worth asking."""
        return any(f.value is not None for _, die in self.groups for f in die.faces)


@dataclass(frozen=True)
class Outcome:
    """`constant` + the sum of `coefficient * term` over `terms`, a term being the count
    of a face key among the dice, or SUM (the faces' values added, a face without one
    adding 0); with a `test` (`(">=", 7)`, a named roll's `sum >= 7`), whether that sum
    passes it: 1 yes, 0 no (as referee.table.rules plays it)."""

    terms: tuple[tuple[int, str], ...]
    constant: int = 0
    test: tuple[str, int] | None = None

    def __str__(self) -> str:
        text = ""
        for coefficient, term in self.terms:
            size = abs(coefficient)
            word = term if size == 1 else f"{size}*{term}"
            text += (word if coefficient > 0 else f"-{word}") if not text else \
                (f" + {word}" if coefficient > 0 else f" - {word}")
        if self.constant or not text:
            text += (f"{self.constant}" if not text else
                     f" {'+' if self.constant > 0 else '-'} {abs(self.constant)}")
        return text if self.test is None else f"{text} {self.test[0]} {self.test[1]}"

    def passes(self, total: int) -> int:
        """The outcome of a roll whose linear part came to `total`."""
        if self.test is None:
            return total
        op, bound = self.test
        return int({"<": total < bound, "<=": total <= bound, ">": total > bound,
                    ">=": total >= bound, "==": total == bound, "!=": total != bound}[op])

    def of_face(self, face: Face) -> int:
        """What one die showing `face` adds to the outcome."""
        total = 0
        for coefficient, term in self.terms:
            if term == SUM:
                total += coefficient * (face.value or 0)
            elif face.key.casefold() == term.casefold():
                total += coefficient
        return total


def count(symbol: str) -> Outcome:
    """The outcome `symbol`: how many dice show it."""
    return Outcome(((1, symbol),))


# ── reading pools and outcomes ──────────────────────────────────────────────────
def _tokens(text: str, what: str) -> list[tuple[str, str, int]]:
    """(kind, text, 1-based column) of each number, word and operator of `text`."""
    out: list[tuple[str, str, int]] = []
    pos = 0
    while text[pos:].strip():
        match = _TOKEN.match(text, pos)
        if match is None or match.lastgroup is None:
            column = len(text) - len(text[pos:].lstrip()) + 1
            raise DiceError(f"bad {what} {shown(text)} at column {column}: "
                            f"{shown(text[column - 1])} is not a number, a word, + or -")
        out.append((match.lastgroup, match[match.lastgroup], match.start(match.lastgroup) + 1))
        pos = match.end()
    return out


def closest(word: str, choices: Sequence[str]) -> str:
    """`; did you mean 'X'?` for the choice nearest `word` (case-insensitive), or ''."""
    folded = {c.casefold(): c for c in choices}
    close = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=0.6)
    return f"; did you mean {shown(folded[close[0]])}?" if close else ""


def die_of(dice: Mapping[str, Die], name: str, owner: str = "the game") -> Die:
    """The die `name` (case-insensitive) of `dice`; a UsageError naming the dice there
    are, and the closest, when it is not one."""
    found = {n.casefold(): d for n, d in dice.items()}.get(name.casefold())
    if found is None:
        if not dice:
            raise UsageError(f"{owner} declares no dice in cards.yaml (dice:)")
        raise UsageError(f"{owner} has no die {shown(name)}{closest(name, list(dice))} "
                         f"(its dice: {', '.join(dice)})")
    return found


def parse_pool(text: str, dice: Mapping[str, Die], owner: str = "the game") -> Pool:
    """`3 battle + 1 fate`: how many of each of `dice`, at most MAX_DICE in all."""
    tokens = _tokens(text, "pool")
    pool, rest = _pool(tokens, text, dice, owner)
    if rest:
        kind, word, column = tokens[len(tokens) - len(rest)]
        raise DiceError(f"bad pool {shown(text)} at column {column}: expected '+' or the end, "
                        f"found {shown(word)}")
    return pool


def _pool(tokens: list[tuple[str, str, int]], text: str, dice: Mapping[str, Die],
          owner: str) -> tuple[Pool, list[tuple[str, str, int]]]:
    """A pool read from the front of `tokens`, and the tokens after it."""
    groups: list[tuple[int, Die]] = []
    i = 0
    while True:
        if i + 1 >= len(tokens) or tokens[i][0] != "number" or tokens[i + 1][0] != "word":
            column = tokens[i][2] if i < len(tokens) else len(text) + 1
            raise DiceError(f"bad pool {shown(text)} at column {column}: expected N DIE "
                            f"(as in 3 {next(iter(dice), 'storm')})")
        n = natural(tokens[i][1])
        if n is None or not 1 <= n <= MAX_DICE:
            raise DiceError(f"bad pool {shown(text)} at column {tokens[i][2]}: a number of "
                            f"dice from 1 to {MAX_DICE}, not {shown(tokens[i][1])}")
        groups.append((n, die_of(dice, tokens[i + 1][1], owner)))
        i += 2
        if i < len(tokens) and tokens[i][1] == "+":  # another N DIE: an outcome never starts so
            i += 1
            continue
        break
    pool = Pool(tuple(groups))
    if pool.dice_count > MAX_DICE:
        raise DiceError(f"bad pool {shown(text)}: at most {MAX_DICE} dice in one roll, "
                        f"not {pool.dice_count}")
    return pool, tokens[i:]


def parse_outcome(text: str, pool: Pool) -> Outcome:
    """`sword`, `sword - shield`, `sum`, `2*sword + sum - 1`: each word a face of a die of
    `pool` (case-insensitive) or `sum`; a number is a constant, except a number face of
    the pool written alone (`6`: how many dice show 6)."""
    return _outcome(_tokens(text, "outcome"), text, pool)


def _outcome(tokens: list[tuple[str, str, int]], text: str, pool: Pool) -> Outcome:
    if not tokens:
        raise DiceError(f"bad outcome {shown(text)}: name a face ({', '.join(pool.keys)}) "
                        "or sum")
    if len(tokens) == 1 and tokens[0][0] == "number" and tokens[0][1] in pool.keys:
        return count(tokens[0][1])  # `--at-least 2 6`: how many dice show the face 6
    terms: dict[str, int] = {}
    constant = 0
    i = 0
    sign = 1
    if tokens[0][1] in "+-" and tokens[0][0] == "op":
        sign = -1 if tokens[0][1] == "-" else 1
        i = 1
    while True:
        if i >= len(tokens):
            raise DiceError(f"bad outcome {shown(text)} at column {len(text) + 1}: expected a "
                            f"face, sum or a number after {shown(tokens[i - 1][1])}")
        kind, word, column = tokens[i]
        multiplier = 1
        if kind == "number" and i + 2 < len(tokens) and tokens[i + 1][1] == "*":
            multiplier = _number(word, column, text)
            i += 2
            kind, word, column = tokens[i]
        if kind == "number":
            constant += sign * _number(word, column, text)
        elif kind == "word":
            key = _term(word, column, text, pool)
            terms[key] = terms.get(key, 0) + sign * multiplier
        else:
            raise DiceError(f"bad outcome {shown(text)} at column {column}: expected a face, "
                            f"sum or a number, found {shown(word)}")
        i += 1
        if i == len(tokens):
            break
        kind, word, column = tokens[i]
        if word not in ("+", "-"):
            raise DiceError(f"bad outcome {shown(text)} at column {column}: expected '+', '-' "
                            f"or the end, found {shown(word)}")
        sign = 1 if word == "+" else -1
        i += 1
    return Outcome(tuple((c, t) for t, c in terms.items() if c), constant)


def _number(word: str, column: int, text: str) -> int:
    number = natural(word)
    if number is None:
        raise DiceError(f"bad outcome {shown(text)} at column {column}: {shown(word)} has too "
                        "many digits")
    return number


def _term(word: str, column: int, text: str, pool: Pool) -> str:
    """The face key (as the die spells it) or SUM that `word` names."""
    if word.casefold() == SUM:
        if not pool.numeric:
            raise DiceError(f"outcome {shown(text)}: no die of {pool} has a number face, so "
                            "its sum is always 0")
        return SUM
    found = {k.casefold(): k for k in pool.keys}.get(word.casefold())
    if found is not None:
        return found
    parts = [p for p in re.split(r"[-+]", word) if p]
    if len(parts) > 1 and all(p.casefold() in {k.casefold() for k in pool.keys} | {SUM}
                              for p in parts):
        spaced = re.sub(r"([-+])", r" \1 ", word)
        raise DiceError(f"outcome {shown(text)} at column {column}: no face {shown(word)}; "
                        f"write spaces around the sign: {shown(spaced)}")
    dice = list(dict.fromkeys(die for _, die in pool.groups))
    which = f"the {dice[0].name} die" if len(dice) == 1 else f"no die of {pool}"
    raise DiceError(f"{which} {'has no' if len(dice) == 1 else 'has a'} face {shown(word)}"
                    f"{closest(word, [*pool.keys, SUM] if pool.numeric else pool.keys)} "
                    f"(faces {', '.join(pool.keys)})")


# a game's named rolls: name -> (its dice, its outcome), as cards.yaml writes them
# (`rolls: {weather: {dice: 3 storm, outcome: wind - wave}}`: {"weather": ("3 storm",
# "wind - wave")}); read by the rules-as-data loader, never here
Rolls = Mapping[str, tuple[str, str]]


@dataclass(frozen=True)
class Side:
    """One pool of a question, scored by `outcome` (None: none named), and the named roll
    its dice or its outcome come from (`roll`, or None)."""

    pool: Pool
    outcome: Outcome | None = None
    roll: str | None = None


@dataclass(frozen=True)
class Question:
    """What `referee odds` asks of a game's dice: one side, or two (LEFT vs RIGHT)."""

    sides: tuple[Side, ...]


def parse_question(text: str, dice: Mapping[str, Die], owner: str = "the game",
                   rolls: Rolls | None = None) -> Question:
    """`3 battle + 1 fate`, `3 storm wind - wave`, `3 battle vs 2 battle sword`, `3 battle
    sword vs 2 battle shield`: a pool and its outcome (the words after it), optionally
    `vs` a second. A side without an outcome is scored by the other side's. With the
    game's `rolls`, a side may be a named roll (`weather`: its dice and outcome) and an
    outcome a roll's name (`3 storm vs 2 storm weather`)."""
    by_name = {name.casefold(): (name, spec) for name, spec in (rolls or {}).items()}
    tokens = _tokens(text, "dice question")
    cuts = [i for i, t in enumerate(tokens) if t[0] == "word" and t[1].casefold() == "vs"]
    if len(cuts) > 1:
        raise UsageError("odds compares two sides: LEFT vs RIGHT")
    parts = [tokens[:cuts[0]], tokens[cuts[0] + 1:]] if cuts else [tokens]
    if any(not part for part in parts):
        raise UsageError("odds LEFT vs RIGHT needs a pool on each side")
    sides = [_side(part, text, dice, owner, by_name) for part in parts]
    if len(sides) == 2 and (sides[0].outcome is None) != (sides[1].outcome is None):
        given, other = (sides[0], 1) if sides[0].outcome is not None else (sides[1], 0)
        assert given.outcome is not None
        _fits(given.outcome, sides[other].pool, given.roll)
        sides[other] = Side(sides[other].pool, given.outcome, sides[other].roll or given.roll)
    return Question(tuple(sides))


def _side(tokens: list[tuple[str, str, int]], text: str, dice: Mapping[str, Die], owner: str,
          rolls: dict[str, tuple[str, tuple[str, str]]]) -> Side:
    """A named roll (its dice and outcome), or a pool and the outcome written after it
    (a face sum of terms, or a roll's name: its outcome)."""
    if tokens[0][0] == "word" and tokens[0][1].casefold() in rolls:
        name, (pool_text, outcome_text) = rolls[tokens[0][1].casefold()]
        if len(tokens) > 1:
            raise DiceError(f"bad dice question {shown(text)} at column {tokens[1][2]}: "
                            f"expected vs or the end after the roll {name}")
        try:
            pool, outcome = named_roll(dice, pool_text, outcome_text, owner)
        except UsageError as error:
            raise UsageError(f"roll {name}: {error}") from None
        return Side(pool, outcome, name)
    pool, rest = _pool(tokens, text, dice, owner)
    if not rest:
        return Side(pool)
    word = rest[0][1].casefold()
    if len(rest) == 1 and word in rolls and word not in {k.casefold() for k in pool.keys} | {SUM}:
        name, (_, outcome_text) = rolls[word]
        try:
            return Side(pool, roll_outcome(outcome_text, pool), name)
        except UsageError as error:
            raise UsageError(f"roll {name}: {error}") from None
    return Side(pool, _outcome(rest, text, pool))


def _fits(outcome: Outcome, pool: Pool, roll: str | None) -> None:
    """A side scored by the other side's outcome: each face it counts is one of its own."""
    keys = {k.casefold() for k in pool.keys}
    for _, term in outcome.terms:
        if term == SUM and not pool.numeric or term != SUM and term.casefold() not in keys:
            by = f"the roll {roll}'s outcome" if roll else f"{outcome}"
            raise DiceError(f"{pool} cannot be scored by {by}: it has no "
                            f"{'number face' if term == SUM else f'face {shown(term)}'}; write "
                            f"its own outcome after it (faces {', '.join(pool.keys)})")


def named_roll(dice: Mapping[str, Die], pool_text: str, outcome_text: str,
               owner: str = "the game") -> tuple[Pool, Outcome]:
    """A game's named roll (`dice: 3 storm`, `outcome: wind - wave`) read against its
    dice: the pool and the outcome `distribution` and `value` take."""
    pool = parse_pool(pool_text, dice, owner)
    return pool, roll_outcome(outcome_text, pool)


def roll_outcome(text: str, pool: Pool) -> Outcome:
    """A named roll's `outcome:` (cards.yaml) as the odds model: read by carddb.expr, the
    parse referee.table.rules plays it by, so the odds and the table agree on what it is
    (a number is a constant, a name a face's count or `sum`, a comparison a yes/no test).
    A DiceError when it is not linear in the dice (`wind * wave`, `wind if sum > 3`):
    it has no exact odds here."""
    from carddb import expr

    try:
        tree = expr.parse(text)
    except expr.ExprError as error:
        raise DiceError(f"bad outcome {shown(text)} at column {error.column}: "
                        f"{error.message}") from None
    if tree[0] == "cmp":
        left, right = _linear(tree[2], text, pool), _linear(tree[3], text, pool)
        terms = dict(left[0])
        for term, coefficient in right[0].items():
            terms[term] = terms.get(term, 0) - coefficient
        if right[0]:  # a test against the dice themselves: (left - right) op 0
            return _made(terms, left[1] - right[1], (tree[1], 0))
        return _made(terms, left[1], (tree[1], right[1]))
    terms, constant = _linear(tree, text, pool)
    return _made(terms, constant)


def _made(terms: dict[str, int], constant: int, test: tuple[str, int] | None = None) -> Outcome:
    return Outcome(tuple((c, t) for t, c in terms.items() if c), constant, test)


def _linear(tree: tuple, text: str, pool: Pool) -> tuple[dict[str, int], int]:
    """({term: coefficient}, constant) of an expression tree linear in the dice."""
    head = tree[0]
    if head == "num":
        return {}, int(tree[1])
    if head == "name":
        return {_term(tree[1], 1, text, pool): 1}, 0
    if head == "neg":
        terms, constant = _linear(tree[1], text, pool)
        return {t: -c for t, c in terms.items()}, -constant
    if head == "op":
        a, b = _linear(tree[2], text, pool), _linear(tree[3], text, pool)
        if tree[1] == "*":
            if a[0] and b[0]:
                raise DiceError(f"outcome {shown(text)}: a product of two counts has no "
                                "exact odds here")
            (terms, constant), k = (a, b[1]) if a[0] else (b, a[1])
            return {t: c * k for t, c in terms.items()}, constant * k
        sign = 1 if tree[1] == "+" else -1
        terms = dict(a[0])
        for term, coefficient in b[0].items():
            terms[term] = terms.get(term, 0) + sign * coefficient
        return terms, a[1] + sign * b[1]
    raise DiceError(f"outcome {shown(text)} reads more than the dice (a test inside it, "
                    "a token, a zone, a card): it has no exact odds here")


# ── exact odds ──────────────────────────────────────────────────────────────────
def distribution(pool: Pool, outcome: Outcome) -> Distribution:
    """The exact distribution of `outcome` over every equally likely roll of `pool`;
    a DiceError when its values would span more than MAX_SPREAD (as dice notation's)."""
    spread = sum(n * (max(outcome.of_face(f) for f in die.faces)
                      - min(outcome.of_face(f) for f in die.faces)) for n, die in pool.groups)
    if spread > MAX_SPREAD:
        raise DiceError(f"{pool}, outcome {outcome}: values span {spread}; exact odds stop at "
                        f"{MAX_SPREAD}")
    weights = {outcome.constant: 1}
    denominator = 1
    for n, die in pool.groups:
        one: dict[int, int] = {}
        for face in die.faces:
            v = outcome.of_face(face)
            one[v] = one.get(v, 0) + 1
        for _ in range(n):
            weights = convolve(weights, one)
            denominator *= len(die.faces)
    if outcome.test is not None:  # yes (1) or no (0)
        tested: dict[int, int] = {}
        for v, w in weights.items():
            tested[outcome.passes(v)] = tested.get(outcome.passes(v), 0) + w
        weights = tested
    return Distribution({v: w for v, w in weights.items() if w}, denominator)


def opposed(left: Pool, right: Pool, outcome: Outcome,
            right_outcome: Outcome | None = None) -> Comparison:
    """`left` scored by `outcome` vs `right` scored by `right_outcome` (default: the
    same): win = left's strictly greater."""
    return compare_distributions(distribution(left, outcome),
                                 distribution(right, right_outcome or outcome))


def value(outcome: Outcome, faces: Sequence[Face]) -> int:
    """The outcome of one roll, the faces as they fell."""
    return outcome.passes(outcome.constant + sum(outcome.of_face(f) for f in faces))
