"""What a name in the card database may hold: one rule for `pnp validate` and the referee.

A name (a game's title, a deck's title, a card's name, a token's id and name, a phase:
what the referee reads of a game besides dice, whose names and symbols are words) is printed by the referee on one line of its answers and its log
and stored in its sessions, whose rows hold printable text only (referee.state_schema,
referee.session: `str.isprintable`). So a name holds printable characters only, the
test Python's `str.isprintable` makes: no control character (an escape, a tab, a line
break), no format character (a soft hyphen, a zero-width joiner, a left-to-right or
right-to-left mark, a bidi embedding or isolate: invisible, or reordering the text around
them on a terminal), no separator other than the plain space (a no-break space, a line
separator), no private-use or unassigned code point. `pnp validate` (carddb.schema.NAME)
refuses any other at its `file:line:col`, so what validation accepts the referee takes,
and the referee reads names only through a validated database (carddb.load).

Where such a character is printed in a message it is written as an escape (`escaped`):
`\\x1b`, `\\xad`, `\\u200f`. Stdlib only, nothing imported at module level."""

from __future__ import annotations


def allowed(text: str) -> bool:
    """The rule: every character of `text` printable (`str.isprintable`)."""
    return text.isprintable()


def first_refused(text: str) -> str | None:
    """The first character of `text` a name may not hold, described for a message
    (`U+00AD SOFT HYPHEN`), or None when `text` is a name."""
    if allowed(text):
        return None
    import unicodedata

    char = next(c for c in text if not c.isprintable())
    kind = _KINDS.get(unicodedata.category(char), "a character")
    return f"U+{ord(char):04X} {unicodedata.name(char, '') or kind}"


_KINDS = {"Cc": "(a control character)", "Co": "(a private-use character)",
          "Cn": "(an unassigned code point)", "Cs": "(a lone surrogate)"}


def escaped(text: str) -> str:
    """`text` with every character the rule refuses written as its escape (`\\n`, `\\x1b`,
    `\\xad`, `\\u200f`): printed, it is one line and shows what it holds, in order."""
    if allowed(text):
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
