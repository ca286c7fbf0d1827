"""The balance lab: automatic X-Statix games played through the referee's own rule
functions (`referee.xs`), exact XO! matchup and objective tables (`referee.odds`,
`referee.xo.rules`), statistics with confidence intervals and PDF reports."""

from __future__ import annotations


def policy_names(text: str, players: int, known: tuple[str, ...] | list[str]) -> list[str]:
    """`--policy`: one name of `known` for every seat, or one a seat in turn order
    separated by commas (`greedy,random`); a one-line refusal (UsageError) otherwise."""
    from referee.errors import UsageError

    names = [n.strip().lower() for n in text.split(",")]
    if not all(n in known for n in names):
        raise UsageError(f"--policy {text!r}: choose from {', '.join(known)} (one name, "
                         "or one a seat in turn order separated by commas)")
    if len(names) not in (1, players):
        raise UsageError(f"--policy {text!r} names {len(names)} policies for {players} players")
    return names
