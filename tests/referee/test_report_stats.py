"""The goodness-of-fit tests of `referee report` (referee/report/stats.py) against known
values: chi-square tables, closed forms of the incomplete gamma function, and exact
multinomial tests worked by hand."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from referee.report.stats import (
    chi_square_p,
    exact_multinomial_p,
    goodness_of_fit,
    poisson_binomial,
    poisson_binomial_p,
    upper_gamma_q,
)


@pytest.mark.parametrize("statistic, dof, p", [
    (3.841458820694124, 1, 0.05),  # the 5% critical values of chi-square tables
    (6.634896601021214, 1, 0.01),
    (11.070497693516351, 5, 0.05),
    (18.307038053275146, 10, 0.05),
    (0.5, 3, 0.9188914116546758),
    (30.0, 10, 0.000856641210775),
    (0.0, 4, 1.0),
])
def test_chi_square_p_values_of_the_tables(statistic, dof, p):
    assert chi_square_p(statistic, dof) == pytest.approx(p, rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("x", [0.1, 0.9, 2.0, 7.5, 30.0])
def test_the_incomplete_gamma_function_in_closed_form(x):
    assert upper_gamma_q(1, x) == pytest.approx(math.exp(-x), rel=1e-12)
    assert upper_gamma_q(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-10)
    assert upper_gamma_q(2, x) == pytest.approx((1 + x) * math.exp(-x), rel=1e-12)


def test_exact_multinomial_by_hand():
    half = [F(1, 2), F(1, 2)]
    assert exact_multinomial_p([3, 0], half) == pytest.approx(2 / 8)  # 3-0 or 0-3
    assert exact_multinomial_p([2, 1], half) == pytest.approx(1.0)
    # a die rolled twice, 6 both times (1/36): as unlikely are the other five doubles;
    # two different faces (2/36) are more likely, so p = 6 doubles x 1/36
    sixth = [F(1, 6)] * 6
    assert exact_multinomial_p([0, 0, 0, 0, 0, 2], sixth) == pytest.approx(6 / 36)


def test_which_test_is_used():
    assert goodness_of_fit([1, 2], [F(1, 2), F(1, 2)])[0] == "exact"
    test, statistic, p = goodness_of_fit([50, 50], [F(1, 2), F(1, 2)])
    assert (test, statistic, p) == ("chi-square", 0.0, 1.0)
    assert goodness_of_fit([0, 1], [F(1), F(0)]) == ("impossible outcome", None, 0.0)
    assert goodness_of_fit([0, 0], [F(1, 2), F(1, 2)]) == ("none", None, None)


def test_poisson_binomial_by_hand():
    # chances 1/2 and 1/4: P(0) = 1/2 * 3/4, P(1) = 1/2 * 3/4 + 1/2 * 1/4, P(2) = 1/8
    assert poisson_binomial([0.5, 0.25]) == pytest.approx([0.375, 0.5, 0.125])
    # equal chances: the binomial
    assert poisson_binomial([0.5] * 4) == pytest.approx([1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16])


def test_poisson_binomial_p_adds_every_count_no_likelier():
    assert poisson_binomial_p([0.5, 0.25], 2) == pytest.approx(0.125)
    assert poisson_binomial_p([0.5, 0.25], 0) == pytest.approx(0.5)  # 3/8 + 1/8
    assert poisson_binomial_p([0.5, 0.25], 1) == pytest.approx(1.0)
    assert poisson_binomial_p([0.5] * 4, 0) == pytest.approx(2 / 16)


def test_poisson_binomial_p_with_nothing_to_test():
    assert poisson_binomial_p([], 0) is None
    assert poisson_binomial_p([1.0, 0.0], 1) is None  # certain, and so it came out
    assert poisson_binomial_p([1.0, 0.0], 2) == 0.0  # a certain fail succeeded
    assert poisson_binomial_p([1.0, 0.5], 0) == 0.0
