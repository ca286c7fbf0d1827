"""Exact odds of dice expressions: distributions as integer weights over a common
denominator (convolution), turned into `fractions.Fraction` at the edges. Fast: 14 mask
dice a side is a few thousand multiplications."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from referee.dice import faces_of
from referee.errors import DiceError
from referee.notation import DiceExpr

MAX_SPREAD = 1000  # highest minus lowest total of one side: keeps exact odds instant


@dataclass(frozen=True)
class Distribution:
    """P(total = v) = weights[v] / denominator (exact)."""

    weights: dict[int, int]
    denominator: int

    def probability(self, value: int) -> Fraction:
        return Fraction(self.weights.get(value, 0), self.denominator)

    def at_least(self, value: int) -> Fraction:
        return Fraction(sum(w for v, w in self.weights.items() if v >= value), self.denominator)

    def at_most(self, value: int) -> Fraction:
        return Fraction(sum(w for v, w in self.weights.items() if v <= value), self.denominator)

    def fractions(self) -> dict[int, Fraction]:
        return {v: Fraction(w, self.denominator) for v, w in sorted(self.weights.items())}

    def mean(self) -> Fraction:
        return Fraction(sum(v * w for v, w in self.weights.items()), self.denominator)

    def floored(self, low: int) -> Distribution:
        """Totals below `low` counted as `low` (XO-17: an ACV or DCV never below 0)."""
        weights: dict[int, int] = {}
        for v, w in self.weights.items():
            weights[max(v, low)] = weights.get(max(v, low), 0) + w
        return Distribution(weights, self.denominator)


def convolve(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for va, wa in a.items():
        for vb, wb in b.items():
            out[va + vb] = out.get(va + vb, 0) + wa * wb
    return out


def distribution(expr: DiceExpr) -> Distribution:
    spread = sum(g.count * (max(faces_of(g.die)) - min(faces_of(g.die))) for g in expr.groups)
    if spread > MAX_SPREAD:
        raise DiceError(
            f"{expr}: totals span {spread} values; exact odds stop at {MAX_SPREAD} per side"
        )
    weights = {expr.modifier: 1}
    denominator = 1
    for group in expr.groups:
        faces = faces_of(group.die)
        one: dict[int, int] = {}
        for face in faces:
            one[group.sign * face] = one.get(group.sign * face, 0) + 1
        for _ in range(group.count):
            weights = convolve(weights, one)
            denominator *= len(faces)
    return Distribution(weights, denominator)


def moffed_probability(expr: DiceExpr) -> Fraction:
    """XO-5: P(every mask die shows 0); zero mask dice is never moffed."""
    n = expr.mask_dice
    if n == 0:
        return Fraction(0)
    zeros = sum(1 for face in faces_of("mask") if face == 0)
    return Fraction(zeros, len(faces_of("mask"))) ** n


@dataclass(frozen=True)
class Comparison:
    """Left vs right: `win` = left strictly greater (an XO! hit, XO-3), `tie`, `loss`;
    `margin` = distribution of left - right."""

    win: Fraction
    tie: Fraction
    loss: Fraction
    margin: dict[int, Fraction]


def compare(left: DiceExpr, right: DiceExpr, floor: int | None = None) -> Comparison:
    """`floor`: each side's total counts as at least this (XO-17: 0 for an ACV vs a DCV)."""
    a, b = distribution(left), distribution(right)
    if floor is not None:
        a, b = a.floored(floor), b.floored(floor)
    return compare_distributions(a, b)


def compare_distributions(a: Distribution, b: Distribution) -> Comparison:
    """Two independent totals: left wins when strictly greater (as XO-3)."""
    negated = {-v: w for v, w in b.weights.items()}
    margin = Distribution(convolve(a.weights, negated), a.denominator * b.denominator)
    return Comparison(
        win=margin.at_least(1),
        tie=margin.probability(0),
        loss=margin.at_most(-1),
        margin=margin.fractions(),
    )
