"""Dice expressions: `3` and `3m` (mask dice, XO-1), `2d6`, `d6`, `1d6+2`, `4d6-1`, `3m+2`,
`2d6+1d6`. A bare number first means that many mask dice; after a sign it is a modifier.
Errors name the 1-based column where the expression goes wrong."""

from __future__ import annotations

from typing import Any

from referee.errors import DiceError
from referee.inputs import MAX_DIGITS, shown
from referee.words import counted

MAX_DICE = 100  # per expression: enough for any table roll, small enough to stay fast
MAX_SIDES = 1000


# Plain classes rather than dataclasses: this module is on `referee roll`'s start-up path
# and a dataclass costs milliseconds to build at import.
class Group:
    """`count` dice of one kind. `die` is "mask" or the number of sides; `sign` is +1 or -1."""

    __slots__ = ("count", "die", "sign")

    def __init__(self, count: int, die: str | int, sign: int = 1) -> None:
        self.count = count
        self.die = die
        self.sign = sign

    def _key(self) -> tuple:
        return (self.count, self.die, self.sign)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Group) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Group({self.count!r}, {self.die!r}, {self.sign!r})"

    def __str__(self) -> str:
        kind = "m" if self.die == "mask" else f"d{self.die}"
        return f"{self.count}{kind}"


class DiceExpr:
    """A parsed expression: dice groups plus a constant modifier."""

    __slots__ = ("groups", "modifier")

    def __init__(self, groups: tuple[Group, ...], modifier: int = 0) -> None:
        self.groups = groups
        self.modifier = modifier

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DiceExpr) and (self.groups, self.modifier) == (
            other.groups,
            other.modifier,
        )

    def __hash__(self) -> int:
        return hash((self.groups, self.modifier))

    def __repr__(self) -> str:
        return f"DiceExpr({self.groups!r}, {self.modifier!r})"

    @property
    def mask_dice(self) -> int:
        return sum(g.count for g in self.groups if g.die == "mask")

    @property
    def dice_count(self) -> int:
        return sum(g.count for g in self.groups)

    def __str__(self) -> str:
        text = ""
        for group in self.groups:
            if text or group.sign < 0:
                text += "+" if group.sign > 0 else "-"
            text += str(group)
        if self.modifier:
            text += f"{self.modifier:+d}"
        return text or "0"


def parse(text: str) -> DiceExpr:
    """Parse a dice expression; `DiceError` names the column of the first problem."""
    return _Parser(text).parse()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str, pos: int | None = None) -> DiceError:
        column = (self.pos if pos is None else pos) + 1
        return DiceError(f"bad dice expression {shown(self.text)} at column {column}: {message}")

    def skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        return self.text[self.pos].lower() if self.pos < len(self.text) else ""

    def number(self) -> int | None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in "0123456789":
            self.pos += 1
        if self.pos - start > MAX_DIGITS:  # int() of 4,301+ digits would raise, and no roll needs it
            raise self.fail(f"a number of at most {MAX_DIGITS} digits", start)
        return int(self.text[start : self.pos]) if self.pos > start else None

    def parse(self) -> DiceExpr:
        groups: list[Group] = []
        modifier = 0
        sign = 1
        first = True
        self.skip_spaces()
        if not self.text.strip():
            raise self.fail("empty expression: try 3, 3m, 2d6 or 1d6+2")
        if self.peek() in ("+", "-"):  # a leading sign, as in "-1d4+2"
            sign = 1 if self.peek() == "+" else -1
            self.pos += 1
        while True:
            self.skip_spaces()
            start = self.pos
            count = self.number()
            kind = self.peek()
            if kind == "m":
                self.pos += 1
                groups.append(Group(1 if count is None else count, "mask", sign))
            elif kind == "d":
                self.pos += 1
                sides_at = self.pos
                sides = self.number()
                if sides is None:
                    raise self.fail("expected the number of sides after 'd' (as in 2d6)")
                if not 2 <= sides <= MAX_SIDES:
                    raise self.fail(f"a die has 2 to {MAX_SIDES} sides, not {sides}", sides_at)
                groups.append(Group(1 if count is None else count, sides, sign))
            elif count is not None:
                if first:  # "3" on its own: three mask dice
                    groups.append(Group(count, "mask", sign))
                else:
                    modifier += sign * count
            else:
                found = self.text[self.pos] if self.pos < len(self.text) else "end of input"
                raise self.fail(f"expected a number, 'NdS' or 'Nm', found {found!r}")
            if groups and groups[-1].count > MAX_DICE:
                raise self.fail(f"at most {MAX_DICE} dice, not {groups[-1].count}", start)
            first = False
            self.skip_spaces()
            if self.pos == len(self.text):
                break
            char = self.text[self.pos]
            if char not in "+-":
                raise self.fail(f"expected '+', '-' or the end, found {char!r}")
            sign = 1 if char == "+" else -1
            self.pos += 1
            self.skip_spaces()
            if self.pos == len(self.text):
                raise self.fail(f"expected a term after {char!r}")
        expr = DiceExpr(tuple(groups), modifier)
        if expr.dice_count > MAX_DICE:
            raise DiceError(
                f"bad dice expression {shown(self.text)}: at most {MAX_DICE} dice in all, "
                f"not {expr.dice_count}"
            )
        return expr


class Rolled:
    """The result of rolling an expression: faces per group, in the expression's order;
    `entered` when the players gave the faces rather than the referee rolling them."""

    __slots__ = ("expr", "faces", "entered")

    def __init__(self, expr: DiceExpr, faces: tuple[tuple[int, ...], ...], entered: bool) -> None:
        self.expr = expr
        self.faces = faces
        self.entered = entered

    @property
    def dice(self) -> list[int]:
        return [face for group in self.faces for face in group]

    @property
    def total(self) -> int:
        return self.expr.modifier + sum(
            group.sign * sum(faces)
            for group, faces in zip(self.expr.groups, self.faces, strict=True)
        )

    @property
    def moffed(self) -> bool:
        """XO-5 on the mask dice of the roll (modifiers do not matter)."""
        from referee.dice import is_moffed

        mask = [
            f
            for g, fs in zip(self.expr.groups, self.faces, strict=True)
            if g.die == "mask"
            for f in fs
        ]
        return is_moffed(mask)


def roll(expr: DiceExpr, rng: Any = None, entered: str | None = None) -> Rolled:
    """Roll `expr` with `rng`, or take the faces the players `entered` ("3,0,2": every die
    of the expression in order). Impossible faces or a wrong count raise `DiceError`."""
    from referee.dice import parse_faces
    from referee.dice import roll as roll_dice

    if entered is None:
        if rng is None:
            raise ValueError("roll needs an rng or entered faces")
        rolled = tuple(tuple(roll_dice(g.count, g.die, rng)) for g in expr.groups)
        return Rolled(expr, rolled, entered=False)
    tokens = [t for t in entered.replace(",", " ").split() if t]
    if len(tokens) != expr.dice_count:
        raise DiceError(
            f"{counted(len(tokens), 'face')} entered in {shown(entered)}, but {expr} has "
            f"{counted(expr.dice_count, 'die', 'dice')}"
        )
    groups: list[tuple[int, ...]] = []
    start = 0
    for group in expr.groups:
        faces: list[int] = []
        for index in range(start, start + group.count):
            try:
                faces.extend(parse_faces(tokens[index], group.die))
            except DiceError as error:
                reason = str(error).split(f" of {shown(tokens[index])}", 1)[-1].strip()
                raise DiceError(
                    f"die {index + 1} of {shown(entered)} ({group}): {shown(tokens[index])} {reason}"
                ) from None
        groups.append(tuple(faces))
        start += group.count
    return Rolled(expr, tuple(groups), entered=True)
