"""Goodness of fit of observed counts against exact odds, with the standard library only:
Pearson's chi-square (its p-value from the regularised upper incomplete gamma function)
and, for small counts, the exact multinomial test."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

EXACT_UP_TO = 200_000  # the exact test enumerates at most this many ways to share the counts
SMALL_EXPECTED = 5.0  # a cell expected fewer times than this: the chi-square is unreliable


def upper_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the regularised upper incomplete gamma function: a series
    below x = a + 1, Lentz's continued fraction above (Numerical Recipes 6.2)."""
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi_square_p(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square with `dof` degrees of freedom."""
    if dof <= 0:
        return 1.0
    return upper_gamma_q(dof / 2, statistic / 2)


def chi_square(observed: Sequence[int], probabilities: Sequence[Fraction]) -> float:
    n = sum(observed)
    return sum((o - n * float(p)) ** 2 / (n * float(p))
               for o, p in zip(observed, probabilities, strict=True) if p)


def _ways(n: int, cells: int) -> int:
    return math.comb(n + cells - 1, cells - 1)


def _compositions(n: int, cells: int):  # type: ignore[no-untyped-def]
    if cells == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, cells - 1):
            yield (first, *rest)


def _log_multinomial(counts: Sequence[int], logs: Sequence[float]) -> float:
    total = math.lgamma(sum(counts) + 1)
    for c, lp in zip(counts, logs, strict=True):
        total += c * lp - math.lgamma(c + 1)
    return total


def exact_multinomial_p(observed: Sequence[int], probabilities: Sequence[Fraction]) -> float:
    """The exact multinomial test: the total probability of every way to share the same
    number of rolls among the outcomes that is no more likely than the one observed."""
    n = sum(observed)
    logs = [math.log(float(p)) for p in probabilities]
    seen = _log_multinomial(observed, logs)
    tolerance = 1e-9
    total = 0.0
    for counts in _compositions(n, len(observed)):
        lp = _log_multinomial(counts, logs)
        if lp <= seen + tolerance:
            total += math.exp(lp)
    return min(1.0, total)


def goodness_of_fit(observed: Sequence[int], probabilities: Sequence[Fraction]
                    ) -> tuple[str, float | None, float | None]:
    """(test, statistic, p-value) of `observed` counts against `probabilities` (summing to
    1; an outcome that cannot happen yet was observed gives p = 0). The exact test when a
    cell is expected fewer than 5 times and the enumeration is small, else chi-square; no
    test (p None) without observations or with a single possible outcome."""
    n = sum(observed)
    if any(o and not p for o, p in zip(observed, probabilities, strict=True)):
        return "impossible outcome", None, 0.0
    kept = [(o, p) for o, p in zip(observed, probabilities, strict=True) if p]
    if n == 0 or len(kept) < 2:
        return "none", None, None
    obs, probs = [o for o, _ in kept], [p for _, p in kept]
    statistic = chi_square(obs, probs)
    small = min(n * float(p) for p in probs) < SMALL_EXPECTED
    if small and _ways(n, len(obs)) <= EXACT_UP_TO:
        return "exact", statistic, exact_multinomial_p(obs, probs)
    return "chi-square", statistic, chi_square_p(statistic, len(obs) - 1)


def poisson_binomial(chances: Sequence[float]) -> list[float]:
    """P(exactly k of independent trials succeed), k = 0..n, trial i with chance
    `chances[i]` (the Poisson-binomial distribution, by the standard recurrence: each trial
    added to the distribution of the ones before it)."""
    dist = [1.0]
    for q in chances:
        nxt = [0.0] * (len(dist) + 1)
        for k, p in enumerate(dist):
            nxt[k] += p * (1 - q)
            nxt[k + 1] += p * q
        dist = nxt
    return dist


def poisson_binomial_p(chances: Sequence[float], successes: int) -> float | None:
    """The exact two-sided test of a success count against trials of their own chances:
    the total probability of every count no likelier than the one seen (as the exact
    multinomial test reads "as extreme"); None without a trial or when every trial was
    certain either way and came out so (nothing to test), 0 when they did not."""
    if not chances:
        return None
    dist = poisson_binomial(chances)
    if all(q in (0.0, 1.0) for q in chances):
        return None if dist[successes] == 1.0 else 0.0
    seen = dist[successes]
    return min(1.0, sum(p for p in dist if p <= seen * (1 + 1e-9)))
