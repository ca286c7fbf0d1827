"""Exact odds checked against brute-force enumeration (itertools.product) of every face."""

from __future__ import annotations

import itertools
import json
import time
from fractions import Fraction

import pytest

from referee.dice import faces_of
from referee.errors import DiceError
from referee.notation import parse
from referee.odds import MAX_SPREAD, compare, distribution, moffed_probability
from tests.referee._core_support import cli, one_line_error


def enumerate_totals(text: str) -> list[tuple[int, bool]]:
    """Every equally likely outcome as (total, all mask dice 0), by brute force."""
    expr = parse(text)
    dice = [(g.sign, faces_of(g.die), g.die == "mask") for g in expr.groups for _ in range(g.count)]
    outcomes = []
    for faces in itertools.product(*(f for _, f, _ in dice)):
        total = expr.modifier + sum(s * f for (s, _, _), f in zip(dice, faces, strict=True))
        mask = [f for (_, _, m), f in zip(dice, faces, strict=True) if m]
        outcomes.append((total, bool(mask) and all(f == 0 for f in mask)))
    return outcomes


@pytest.mark.parametrize(
    "text", ["1m", "3m", "2d6", "1d6+2", "2m+1d6-1", "3d4", "4m", "0m+3", "1d6-1d6"]
)
def test_distribution_matches_enumeration(text):
    outcomes = enumerate_totals(text)
    n = len(outcomes)
    dist = distribution(parse(text)).fractions()
    brute = {}
    for total, _ in outcomes:
        brute[total] = brute.get(total, 0) + Fraction(1, n)
    assert dist == dict(sorted(brute.items()))
    assert moffed_probability(parse(text)) == Fraction(sum(m for _, m in outcomes), n)


@pytest.mark.parametrize(
    "left, right",
    [
        ("3m", "2m"),
        ("2m", "3m"),
        ("1m", "1m"),
        ("4m+1", "3m"),
        ("2d6", "1d6+3"),
        ("0m", "1m"),
        ("3m", "2m+2"),
    ],
)
def test_comparison_matches_enumeration(left, right):
    a, b = enumerate_totals(left), enumerate_totals(right)
    n = len(a) * len(b)
    win = tie = loss = 0
    margin: dict[int, int] = {}
    for (x, _), (y, _) in itertools.product(a, b):
        win += x > y  # XO-3: a hit needs ACV strictly greater than DCV
        tie += x == y
        loss += x < y
        margin[x - y] = margin.get(x - y, 0) + 1
    result = compare(parse(left), parse(right))
    assert (result.win, result.tie, result.loss) == (
        Fraction(win, n),
        Fraction(tie, n),
        Fraction(loss, n),
    )
    assert result.margin == {m: Fraction(c, n) for m, c in sorted(margin.items())}


def test_known_values():
    assert distribution(parse("1m")).fractions() == {
        0: Fraction(1, 6),
        1: Fraction(1, 3),
        2: Fraction(1, 3),
        3: Fraction(1, 6),
    }
    assert distribution(parse("2d6")).probability(7) == Fraction(1, 6)
    assert moffed_probability(parse("3m")) == Fraction(1, 216)
    assert moffed_probability(parse("0m")) == 0  # XO-5
    assert moffed_probability(parse("2d6")) == 0


def test_fourteen_dice_a_side_in_milliseconds():
    start = time.process_time()   # CPU: the machine's load does not count
    result = compare(parse("14m"), parse("14m"))
    elapsed = time.process_time() - start
    assert result.win + result.tie + result.loss == 1
    assert result.win == result.loss  # symmetric
    assert elapsed < 0.25, elapsed


def test_cli_odds_vs_json():
    data = json.loads(cli("odds", "3m", "vs", "2m", "--json", check=0).stdout)
    result = compare(parse("3m"), parse("2m"))
    assert Fraction(data["win"]["fraction"]) == result.win
    assert Fraction(data["tie"]["fraction"]) == result.tie
    assert Fraction(data["loss"]["fraction"]) == result.loss
    assert Fraction(data["moffed"]["left"]["fraction"]) == Fraction(1, 216)
    assert Fraction(data["moffed"]["right"]["fraction"]) == Fraction(1, 36)
    assert sum(Fraction(v["fraction"]) for v in data["margin"].values()) == 1


def test_cli_odds_text_shows_fraction_and_percent():
    out = cli("odds", "3m", "vs", "2m", check=0).stdout
    win = compare(parse("3m"), parse("2m")).win
    assert f"win   {win}  = {float(win) * 100:.2f}%" in out
    assert "margin" in out and "moffed" in out


def test_cli_odds_at_least_for_a_feat():
    data = json.loads(cli("odds", "4m", "--at-least", "6", "--json", check=0).stdout)
    brute = enumerate_totals("4m")
    expected = Fraction(sum(t >= 6 for t, _ in brute), len(brute))
    assert Fraction(data["at_least"]["fraction"]) == expected
    out = cli("odds", "4m", "--at-least", "6", check=0).stdout
    assert f"P(total >= 6) = {expected}" in out


def test_cli_odds_xstatix_with_modifier():
    data = json.loads(cli("odds", "2d6+2", "--json", check=0).stdout)
    assert Fraction(data["distribution"]["9"]["fraction"]) == Fraction(1, 6)
    assert Fraction(data["mean"]["fraction"]) == 9


def test_cli_odds_bad_usage():
    proc = cli("odds", "3m", "vs")
    assert proc.returncode == 2 and one_line_error(proc)
    proc = cli("odds", "3m", "vs", "2m", "--at-least", "3")
    assert proc.returncode == 2 and one_line_error(proc)


def test_odds_refuse_expressions_too_wide_to_be_instant():
    """The refusal is decided by the size of the computation (the span of totals, which
    bounds the convolution's work), not by a clock: a span of exactly MAX_SPREAD is
    computed exactly, one face more is refused before any convolution."""
    proc = cli("odds", "50d100")
    assert proc.returncode == 2 and "exact odds stop at" in one_line_error(proc)
    at_limit = distribution(parse("10d100+2d6"))  # 10*99 + 2*5 = 1000: just inside
    assert len(at_limit.weights) == MAX_SPREAD + 1
    assert sum(at_limit.weights.values()) == at_limit.denominator == 100**10 * 6**2
    with pytest.raises(DiceError, match="span 1005 values; exact odds stop at 1000"):
        distribution(parse("10d100+3d6"))
    proc = cli("odds", "10d100+3d6")
    assert proc.returncode == 2 and "span 1005 values" in one_line_error(proc)


# ── properties ───────────────────────────────────────────────────────────────
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

groups = st.lists(
    st.tuples(st.integers(0, 4), st.sampled_from(["m", "d4", "d6", "d8"]), st.sampled_from("+-")),
    min_size=1,
    max_size=3,
)


def as_text(parts, modifier):
    text = ""
    for i, (count, kind, sign) in enumerate(parts):
        text += ("" if i == 0 and sign == "+" else sign) + f"{count}{kind}"
    return text + (f"{modifier:+d}" if modifier else "")


@settings(max_examples=60, deadline=None)
@given(groups, st.integers(-5, 5))
def test_distribution_is_exact_and_consistent(parts, modifier):
    expr = parse(as_text(parts, modifier))
    assert parse(str(expr)) == expr  # the canonical text parses back to the same thing
    dist = distribution(expr)
    fractions = dist.fractions()
    assert sum(fractions.values()) == 1
    expected_mean = expr.modifier + sum(
        g.sign * g.count * Fraction(sum(faces_of(g.die)), len(faces_of(g.die))) for g in expr.groups
    )
    assert dist.mean() == expected_mean
    low = min(fractions)
    assert dist.at_least(low) == 1 and dist.at_least(max(fractions) + 1) == 0


@settings(max_examples=40, deadline=None)
@given(groups, groups)
def test_comparison_is_antisymmetric(left_parts, right_parts):
    left, right = parse(as_text(left_parts, 0)), parse(as_text(right_parts, 0))
    forward, backward = compare(left, right), compare(right, left)
    assert forward.win == backward.loss and forward.tie == backward.tie
    assert forward.win + forward.tie + forward.loss == 1
