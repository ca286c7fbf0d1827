"""The dice of a designer's own game (cards.yaml `dice:`, read by `carddb.dice`): rolls
with an injected RNG or the faces the table rolled, and exact odds of symbol counts and
numeric sums. Pure: no click, no session."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from carddb.dice import Die, Face
from referee.errors import DiceError, UsageError
from referee.inputs import shown, small_int
from referee.words import counted

MAX_DICE = 30  # one roll, one odds question: more is a typo at a table


def faces_text(die: Die) -> str:
    return ", ".join(die.symbols)


def die_named(dice: dict[str, Die], name: str | None, game_title: str) -> Die:
    """The die `name` of the game (case-insensitive); the only one when `name` is None."""
    if not dice:
        raise UsageError(f"{game_title} declares no dice in cards.yaml (dice:)")
    if name is None:
        if len(dice) == 1:
            return next(iter(dice.values()))
        raise UsageError(f"{game_title} has {len(dice)} dice: name one ({', '.join(dice)})")
    found = {n.casefold(): d for n, d in dice.items()}.get(name.strip().casefold())
    if found is None:
        import difflib

        close = difflib.get_close_matches(name.strip().casefold(), list(dice), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UsageError(f"{game_title} has no die {shown(name)}{hint}: its dice are "
                         f"{', '.join(dice)}")
    return found


def count_of(text: str, what: str = "dice") -> int:
    value = small_int(text.strip())
    if value is None or not 1 <= value <= MAX_DICE:
        raise UsageError(f"{what} {shown(text)}: a number of dice from 1 to {MAX_DICE}")
    return value


def parse_entered(text: str, die: Die) -> list[Face]:
    """Faces the table rolled (`wind,calm,2`, commas and/or spaces), each a face of `die`
    (case-insensitive); DiceError naming the column and the faces the die has."""
    result: list[Face] = []
    position = 0
    for raw in text.replace(",", " ").split(" "):
        if not raw:
            continue
        position = text.find(raw, position)
        face = die.face(raw)
        if face is None:
            raise DiceError(f"--roll {shown(text)}: face {shown(raw)} at column {position + 1} is "
                            f"not a face of the {die.name} die (faces {faces_text(die)})")
        result.append(face)
        position += len(raw)
    if not result:
        raise DiceError("--roll: no faces given")
    return result


# ask(what, die, most): up to `most` faces of `die` typed at the table (several at once:
# the rest of a roll), or None: the referee rolls this die
Ask = Callable[[str, Die, int], "list[Face] | None"]


class FaceSource:
    """Where a command's dice come from: the `--roll` faces in order, then on a terminal
    each die asked for by name (`ask`; None = the referee rolls it), else the referee's
    seeded `rng`. `referee` lists every die the referee rolled, as (what, face key)."""

    def __init__(self, rng: random.Random, entered: str | None = None,
                 ask: Ask | None = None) -> None:
        self.rng = rng
        self.entered = entered
        self.ask = ask
        self.given: list[str] = [] if entered is None else [
            t for t in entered.replace(",", " ").split(" ") if t]
        if entered is not None and not self.given:
            raise DiceError("--roll: no faces given")
        self.used = 0
        self.referee: list[tuple[str, str]] = []

    def take(self, n: int, die: Die, label: str) -> list[Face]:
        result: list[Face] = []
        while len(result) < n:
            i = len(result)
            what = f"{label}, die {i + 1} of {n}" if n > 1 else label
            if self.used < len(self.given):
                raw = self.given[self.used]
                face = die.face(raw)
                if face is None:
                    column = _column(self.entered or "", self.used)
                    raise DiceError(f"--roll {shown(self.entered or '')}: face {shown(raw)} at "
                                    f"column {column} is not a face of the {die.name} die "
                                    f"(faces {faces_text(die)})")
                self.used += 1
                result.append(face)
                continue
            if self.given and self.ask is None:
                raise DiceError(f"--roll {shown(self.entered or '')}: "
                                f"{counted(len(self.given), 'face')} given, but the next die "
                                f"needed is {what} ({die.name}: {faces_text(die)}); nothing "
                                "was changed")
            typed = self.ask(what, die, n - i) if self.ask is not None else None
            if typed:  # one face or several (the rest of the roll at once)
                result += typed[: n - i]
                continue
            face = self.rng.choice(die.faces)
            self.referee.append((what, face.key))
            result.append(face)
        return result

    @property
    def unused(self) -> int:
        return len(self.given) - self.used

    def check_all_used(self) -> None:
        if self.unused:
            raise DiceError(f"--roll {shown(self.entered or '')}: the command rolled "
                            f"{counted(self.used, 'die', 'dice')}, {counted(self.unused, 'face')} "
                            "left over")


def _column(text: str, index: int) -> int:
    position = 0
    seen = -1
    for raw in text.replace(",", " ").split(" "):
        if not raw:
            continue
        position = text.find(raw, position)
        seen += 1
        if seen == index:
            return position + 1
        position += len(raw)
    return position + 1


def summary(faces: Sequence[Face], die: Die | None = None) -> dict[str, Any]:
    """The faces as they fell, the count of each symbol, and the sum of the numeric
    values (None when the die has no numeric face)."""
    counts = Counter(f.symbol for f in faces if f.symbol is not None)
    values = [f.value for f in faces if f.value is not None]
    numeric = any(f.value is not None for f in (die.faces if die is not None else faces))
    return {"faces": [f.key for f in faces], "counts": dict(counts),
            "sum": sum(values) if numeric else None}


def roll_line(die: Die, faces: Sequence[Face]) -> str:
    data = summary(faces, die)
    parts = [f"{n} {sym}" for sym, n in data["counts"].items()]
    if data["sum"] is not None:
        parts.append(f"sum {data['sum']}")
    return f"{len(faces)} {die.name}: {' '.join(data['faces'])}  ({', '.join(parts)})"


# ── exact odds ──────────────────────────────────────────────────────────────────
def _convolve(a: dict[int, Fraction], b: dict[int, Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, Fraction(0)) + p * q
    return out


def symbol_counts(n: int, die: Die) -> dict[str, dict[int, Fraction]]:
    """For each symbol of `die`, the exact distribution of how many of `n` dice show it."""
    sides = len(die.faces)
    result: dict[str, dict[int, Fraction]] = {}
    for symbol in dict.fromkeys(f.symbol for f in die.faces if f.symbol is not None):
        hits = sum(1 for f in die.faces if f.symbol == symbol)
        one = {1: Fraction(hits, sides), 0: Fraction(sides - hits, sides)}
        dist: dict[int, Fraction] = {0: Fraction(1)}
        for _ in range(n):
            dist = _convolve(dist, one)
        result[symbol] = dict(sorted((k, v) for k, v in dist.items() if v))
    return result


def numeric_sum(n: int, die: Die) -> dict[int, Fraction] | None:
    """The exact distribution of the sum of the faces' values (a face without one adds 0);
    None when no face has a value."""
    if all(f.value is None for f in die.faces):
        return None
    sides = len(die.faces)
    one: dict[int, Fraction] = {}
    for f in die.faces:
        one[f.value or 0] = one.get(f.value or 0, Fraction(0)) + Fraction(1, sides)
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(n):
        dist = _convolve(dist, one)
    return dict(sorted(dist.items()))


def at_least(n: int, die: Die, k: int, symbol: str) -> Fraction:
    """P(at least `k` of `n` dice show `symbol`); `symbol` may be a number face's key."""
    face = die.face(symbol)
    if face is None:
        raise UsageError(f"the {die.name} die has no face {shown(symbol)} (faces {faces_text(die)})")
    sides = len(die.faces)
    hits = sum(1 for f in die.faces if f.key == face.key)
    one = {1: Fraction(hits, sides), 0: Fraction(sides - hits, sides)}
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(n):
        dist = _convolve(dist, one)
    return sum((p for c, p in dist.items() if c >= k), Fraction(0))
