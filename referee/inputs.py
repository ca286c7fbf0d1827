"""What the players type, read strictly, and values shown back in messages.

Numbers are ASCII digits with an optional sign and a bounded length: `str.isdigit()` also
accepts `²` (then `int()` fails) and `٣` (then `int()` reads 3), and `int()` of more than
4,300 digits raises ValueError. Light to import: on `referee roll`'s start-up path."""

from __future__ import annotations

MAX_DIGITS = 18  # any count, amount, face or modifier at a table has far fewer
SEED_DIGITS = 40  # a seed: more than 128 bits, `date +%s%N` fits
SHOWN_CHARS = 60  # a value echoed in a message is cut after this many characters

_ASCII_DIGITS = frozenset("0123456789")


def is_digits(text: str) -> bool:
    """Only ASCII digits 0-9, at least one."""
    return bool(text) and all(char in _ASCII_DIGITS for char in text)


def is_integer(text: str) -> bool:
    """ASCII digits with an optional leading + or - (any length)."""
    return is_digits(text[1:] if text[:1] in ("+", "-") else text)


def small_int(text: str, max_digits: int = MAX_DIGITS) -> int | None:
    """The whole number `text` spells (optional sign, ASCII digits, at most `max_digits`
    digits), else None."""
    if not is_integer(text) or len(text.lstrip("+-")) > max_digits:
        return None
    return int(text)


def natural(text: str, max_digits: int = MAX_DIGITS) -> int | None:
    """A count written without a sign (ASCII digits, at most `max_digits`), else None."""
    return small_int(text, max_digits) if is_digits(text) else None


def integer_problem(text: str, max_digits: int = MAX_DIGITS) -> str:
    """Why `text` is not a whole number `small_int` accepts ("" when it is)."""
    if not is_integer(text):
        return f"{shown(text)} is not a whole number (digits 0-9)"
    if len(text.lstrip("+-")) > max_digits:
        return f"{shown(text)} has {len(text.lstrip('+-'))} digits; at most {max_digits}"
    return ""


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """`repr(value)` for a message: control characters escaped (so one line stays one line),
    cut after `limit` characters with the full length said."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def one_line(message: str) -> str:
    """A message as exactly one printable line: line breaks and other control characters
    are written as escapes (`\\n`, `\\x1b`), so a value cannot fake a second line."""
    if message.isprintable():
        return message
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in message)
