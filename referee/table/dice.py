"""The dice of a designer's own game (cards.yaml `dice:`, read by `carddb.dice`): rolls
with an injected RNG or the faces the table rolled. Exact odds of a pool are
referee.table.pools'. Pure: no click, no session."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
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

    def drawn(self, n: int, die: Die, label: str) -> list[tuple[str, int]]:
        """Each face `take` gives as (its key, its value or 0): what a named roll counts and
        sums (`rules.rolled`; a source may give them without reading each face anew)."""
        return [(face.key, face.value or 0) for face in self.take(n, die, label)]

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
