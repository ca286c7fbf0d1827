"""Counted nouns for the referees' messages: `counted(1, "card")` is "1 card",
`counted(2, "hero", "heroes")` "2 heroes", `counted(0, "die", "dice")` "0 dice"."""

from __future__ import annotations


def counted(n: int, noun: str, many: str | None = None) -> str:
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def listed(names: list[str]) -> str:
    """`["A"]` is "A", `["A", "B"]` "A and B", `["A", "B", "C"]` "A, B and C"."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"
