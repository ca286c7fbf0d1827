"""The tiny expression language of rules declared as data (docs/CARDS.md, "Rules as
data"): a score, an income, a roll's outcome, an end threshold. Parsed here into a tree
of tuples, never `eval`ed; the referee evaluates the tree (referee/table/rules.py).

    value   := compare ("if" compare)?
    compare := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)?
    sum     := ("+" | "-")? product (("+" | "-") product)*
    product := atom ("*" atom)*
    atom    := NUMBER | NAME | NAME "." NAME | NAME "(" NAME ("." NAME)? ")" | "(" value ")"

A NAME is a token kind, a named roll, a die symbol (in a roll's outcome), `sum` (a roll's
numeric sum); `card.FIELD` a field of the card whose effect runs; `sum(ZONE.FIELD)` the
field summed over the cards in a zone, `count(ZONE)` the cards in it (`hand` included).

Trees: ("num", n), ("name", word), ("field", word, field), ("sum", zone, field),
("count", zone), ("neg", t), ("op", "+"|"-"|"*", a, b), ("cmp", op, a, b), ("if", a, b).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

Tree = tuple[Any, ...]
_TOKEN = re.compile(r"\s*(?:(\d{1,9})|([A-Za-z_][A-Za-z0-9_-]*)|(<=|>=|==|!=|[-+*()<>.]))")
COMPARISONS = ("<=", ">=", "==", "!=", "<", ">")
MAX_NESTING = 16  # parentheses inside parentheses: what a rule never needs, a stack never meets
FUNCTIONS = ("sum", "count")
MAX_LENGTH = 400


class ExprError(ValueError):
    """A mistaken expression: `column` is 1-based in the expression's text."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message, self.column = message, column


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, column): kinds num, name, sym, end."""
    out: list[tuple[str, str, int]] = []
    i = 0
    while i < len(text):
        if text[i:].strip() == "":
            break
        m = _TOKEN.match(text, i)
        if m is None:
            col = i + len(text[i:]) - len(text[i:].lstrip()) + 1
            raise ExprError(f"'{text[col - 1]}' is not part of an expression", col)
        col = m.start(m.lastindex or 0) + 1
        kind = "num" if m.group(1) else "name" if m.group(2) else "sym"
        out.append((kind, m.group(m.lastindex or 0), col))
        i = m.end()
    out.append(("end", "", len(text) + 1))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.items = _tokens(text)
        self.at = 0
        self.depth = 0

    def peek(self) -> tuple[str, str, int]:
        return self.items[self.at]

    def take(self) -> tuple[str, str, int]:
        item = self.items[self.at]
        self.at += 1
        return item

    def expect(self, text: str) -> None:
        kind, got, col = self.take()
        if got != text:
            raise ExprError(f"expected '{text}', got {_said(kind, got)}", col)

    def value(self) -> Tree:
        tree = self.compare()
        if self.peek()[1] == "if":
            self.take()
            tree = ("if", tree, self.compare())
        return tree

    def compare(self) -> Tree:
        tree = self.sum()
        if self.peek()[1] in COMPARISONS:
            op = self.take()[1]
            tree = ("cmp", op, tree, self.sum())
        return tree

    def sum(self) -> Tree:
        sign = self.take()[1] if self.peek()[1] in ("+", "-") else "+"
        tree = self.product()
        if sign == "-":
            tree = ("neg", tree)
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            tree = ("op", op, tree, self.product())
        return tree

    def product(self) -> Tree:
        tree = self.atom()
        while self.peek()[1] == "*":
            self.take()
            tree = ("op", "*", tree, self.atom())
        return tree

    def atom(self) -> Tree:
        kind, text, col = self.take()
        if kind == "num":
            return ("num", int(text))
        if text == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise ExprError(f"more than {MAX_NESTING} parentheses inside each other", col)
            tree = self.value()
            self.expect(")")
            self.depth -= 1
            return tree
        if kind != "name" or text == "if":
            raise ExprError(f"expected a number or a name, got {_said(kind, text)}", col)
        if self.peek()[1] == "(" and text in FUNCTIONS:
            self.take()
            kind2, zone, col2 = self.take()
            if kind2 != "name":
                raise ExprError(f"{text}( takes a zone, got {_said(kind2, zone)}", col2)
            if text == "sum":
                self.expect(".")
                kind3, field, col3 = self.take()
                if kind3 != "name":
                    raise ExprError(f"sum({zone}. takes a field, got {_said(kind3, field)}", col3)
                self.expect(")")
                return ("sum", zone, field)
            self.expect(")")
            return ("count", zone)
        if self.peek()[1] == ".":
            self.take()
            kind2, field, col2 = self.take()
            if kind2 != "name":
                raise ExprError(f"{text}. takes a field, got {_said(kind2, field)}", col2)
            return ("field", text, field)
        return ("name", text)


def _said(kind: str, text: str) -> str:
    return "the end" if kind == "end" else f"'{text}'"


@lru_cache(maxsize=512)
def parse(text: str) -> Tree:
    """The tree of `text`; ExprError (with its column) when it is not an expression."""
    if len(text) > MAX_LENGTH:
        raise ExprError(f"an expression of at most {MAX_LENGTH} characters", MAX_LENGTH + 1)
    parser = _Parser(text)
    if parser.peek()[0] == "end":
        raise ExprError("an empty expression", 1)
    tree = parser.value()
    kind, rest, col = parser.peek()
    if kind != "end":
        raise ExprError(f"unexpected {_said(kind, rest)} (an operator missing?)", col)
    return tree


def names(tree: Tree) -> list[Tree]:
    """Every leaf that names something (name, field, sum, count), in order."""
    head = tree[0]
    if head in ("name", "field", "sum", "count"):
        return [tree]
    if head == "num":
        return []
    return [leaf for part in tree[1:] if isinstance(part, tuple) for leaf in names(part)]


def is_test(tree: Tree) -> bool:
    """A comparison: its value is yes (1) or no (0)."""
    return tree[0] == "cmp"


def text_of(value: int | str) -> str:
    """An amount as written in cards.yaml (`-1`, `+ sum(harbour.speed)`) as expression text."""
    return str(value).strip()
