"""Plurals for sheet headings ("40 Cargo tokens", "20 Glories"): a declared `plural:`
wins, else the English rule for regular nouns (issue 33: "Glorys", "1 dice")."""

from __future__ import annotations

VOWELS = set("aeiou")


def plural(word: str, declared: str | None = None) -> str:
    """The plural of `word`: `declared` if given, else the regular English rule
    (-y after a consonant -> -ies; -s, -x, -z, -ch, -sh -> -es; else -s)."""
    if declared:
        return declared
    lower = word.lower()
    if len(word) > 1 and lower.endswith("y") and lower[-2] not in VOWELS:
        return word[:-1] + ("IES" if word.isupper() else "ies")
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return word + ("ES" if word.isupper() else "es")
    return word + ("S" if word.isupper() else "s")


def counted(n: int, word: str, declared: str | None = None) -> str:
    """`1 Lantern`, `20 Lanterns`."""
    return f"{n} {word if n == 1 else plural(word, declared)}"
