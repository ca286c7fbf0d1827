"""Wilson 95% confidence intervals (stats.wilson)."""

from __future__ import annotations

import pytest

from referee.simulate.stats import wilson


def test_wilson_matches_known_values():
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == 1.0


def test_wilson_narrows_with_more_games():
    small = wilson(30, 100)
    large = wilson(3000, 10000)
    assert small[1] - small[0] > large[1] - large[0]
    assert large[0] < 0.3 < large[1]


def test_wilson_without_games_says_nothing():
    assert wilson(0, 0) == (0.0, 1.0)
