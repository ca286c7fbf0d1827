"""A small declarative schema language with located error messages.

A spec checks one YAML value and reports every problem it finds (not just the first)
to a `Report`, each at the line and column where the value was written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from carddb import limits, names
from carddb.yamlsource import Pos, key_pos, value_pos


def one_line(text: str) -> str:
    """`text` with line breaks, control and format characters escaped (`\\n`, `\\x07`,
    `\\u200f`: carddb.names.escaped), so that a value written in the database cannot break,
    forge or reorder a message line."""
    return names.escaped(text)


def shown(value, limit: int = 60) -> str:
    """A value as a message shows it: bounded (an alias bomb or a 10 MB string is not
    formatted in full) and on one line."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool) or value is None or isinstance(value, int | float):
        text = str(value)
    else:
        text = kind_of(value)                 # a list or a mapping: never str() of it
    text = one_line(text[:limit + 1])
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(frozen=True)
class Problem:
    """One problem found in a database: where (file:line:col, or a spreadsheet cell),
    the path of the value in the data, and what is wrong, said on one line."""

    file: str
    line: int
    col: int
    path: str
    message: str
    where: str | None = None  # a spreadsheet cell, written instead of file:line:col

    def __str__(self) -> str:
        place = self.where or f"{self.file}:{self.line}:{self.col}"
        return one_line(f"{place}: {self.path}: {self.message}")


@dataclass
class Report:
    """What validating a database found (its problems) and what a later load keeps
    from it (carddb.cache, carddb.edits)."""

    file: str
    problems: list[Problem] = field(default_factory=list)
    # Filled while validating: each game's declared card types (carddb.fields.CardType),
    # the spreadsheets read and the paths checked to exist (for the load cache).
    types: dict = field(default_factory=dict)
    files_read: list = field(default_factory=list)
    paths_checked: list = field(default_factory=list)
    added: int = 0                  # problems reported, kept or not (a row's memo: carddb.cache)
    # `languages:` declared: what takes the translations out (carddb.languages.Collector)
    languages: Any = None
    # What a later load needs to take a spreadsheet edit without validating anew
    # (carddb.edits): each sheet deck's rows as read, by its cards' path, and each game's
    # own icon names.
    sheet_rows: dict = field(default_factory=dict)
    own_icons: dict = field(default_factory=dict)

    # Problems of each spreadsheet past limits.MAX_SHEET_PROBLEMS: counted, not kept.
    skipped: dict = field(default_factory=dict)
    _per_sheet: dict = field(default_factory=dict)

    def add(self, pos: Pos, path: str, message: str) -> None:
        self.added += 1
        if pos.where is not None:                   # a cell: `heroes.csv:3:B`, `b.xlsx[S]!B3`
            cell = _SHEET_OF.match(pos.where)       # always matches (its last branch is `.*`)
            sheet = cell.group() if cell else pos.where
            seen = self._per_sheet[sheet] = self._per_sheet.get(sheet, 0) + 1
            if seen > limits.MAX_SHEET_PROBLEMS:
                self.skipped[sheet] = self.skipped.get(sheet, 0) + 1
                return
        self.problems.append(Problem(self.file, pos.line, pos.col, path or "(top)", message,
                                     pos.where))

    def more(self) -> list[Problem]:
        """One line per spreadsheet with problems left out: "and N more"."""
        return [Problem(self.file, 1, 1, "(sheet)",
                        f"and {n:,} more problems in {sheet} (the first "
                        f"{limits.MAX_SHEET_PROBLEMS} are shown)", sheet)
                for sheet, n in self.skipped.items()]


_SHEET_OF = re.compile(r"[^\[]*?(?=\[|:\d+:[A-Z]+\Z)|.*")


def join(path: str, key) -> str:
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    key = key if type(key) is str and len(key) <= 60 and key.isprintable() else shown(key)
    return f"{path}.{key}" if path else key


def did_you_mean(word, choices) -> str:
    if not isinstance(word, str) or len(word) > limits.MAX_ID:
        return ""
    # imported here: only a misspelt name asks, not a database that loads
    import difflib

    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class CellText(str):
    """A spreadsheet cell's text that its field's type could not read (`lots` for an int):
    a message about it shows the value, escaped and shortened, since a cell has no
    YAML line to look at."""


def kind_of(value) -> str:
    if isinstance(value, CellText):
        return f"text '{shown(str(value), 40)}'"
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


class Spec:
    expected = "a value"

    def check(self, value, path: str, pos: Pos, report: Report) -> bool:
        """Report problems; True when `value` is valid."""
        raise NotImplementedError


class Type(Spec):
    """A value of one of `types`; numbers finite and within [minimum, maximum], text at
    most limits.MAX_TEXT characters (what a real game never meets: docs/ARCHITECTURE.md)."""

    ranged = False      # Range(): a value out of bounds reads "expected <what> from .. to .."

    def __init__(self, types: tuple, expected: str, minimum=None, maximum=None):
        self.types, self.expected, self.minimum = types, expected, minimum
        if maximum is None and int in types:
            maximum = limits.MAX_NUMBER
        if minimum is None and int in types:
            minimum = -limits.MAX_NUMBER
        self.minimum, self.maximum = minimum, maximum

    def check(self, value, path, pos, report):
        if isinstance(value, bool) and bool not in self.types:
            ok = False
        else:
            ok = isinstance(value, self.types)
        if not ok:
            report.add(pos, path, f"expected {self.expected}, got {kind_of(value)}")
            return False
        if isinstance(value, bool):
            return True
        if isinstance(value, float) and not math.isfinite(value):
            report.add(pos, path, f"expected {self.expected}, got {value} (not a finite number)")
            return False
        if self.ranged and not self.minimum <= value <= self.maximum:
            report.add(pos, path, f"expected {self.expected}, got {shown(value)}")
            return False
        if self.minimum is not None and value < self.minimum:
            report.add(pos, path, f"must be at least {_n(self.minimum)}, got {shown(value)}")
            return False
        if self.maximum is not None and value > self.maximum:
            report.add(pos, path, f"must be at most {_n(self.maximum)}, got {shown(value)}")
            return False
        if isinstance(value, str) and len(value) > limits.MAX_TEXT:
            report.add(pos, path, f"text of {len(value)} characters is longer than the limit "
                                  f"of {limits.MAX_TEXT}")
            return False
        return True


INT = Type((int,), "an integer")
NONNEG_INT = Type((int,), "a whole number >= 0", minimum=0)
POS_INT = Type((int,), "a whole number >= 1", minimum=1)
NUMBER = Type((int, float), "a number")
POS_NUMBER = Type((int, float), "a number > 0", minimum=0.001)
STR = Type((str,), "text")


class Name(Type):
    """Text a name may be (carddb.names): printable characters only, as the referee
    prints and stores it."""

    def __init__(self) -> None:
        super().__init__((str,), "a name")

    def check(self, value, path, pos, report):
        if not super().check(value, path, pos, report):
            return False
        refused = names.first_refused(value)
        if refused:
            report.add(pos, path, f"a name may not hold {refused}: the referee prints names "
                                  f"on one line and stores them (write it without)")
            return False
        return True


NAME = Name()
BOOL = Type((bool,), "true or false")


def _n(number) -> str:
    return f"{number:g}" if isinstance(number, float) else str(number)


def Range(low: float, high: float, what: str = "a number") -> Type:
    """A number from `low` to `high` (limits.py)."""
    spec = Type((int, float), f"{what} from {low:g} to {high:g}", minimum=low, maximum=high)
    spec.ranged = True
    return spec


class Pattern(Spec):
    """Text matching `regex` (fully), described by `expected`."""

    def __init__(self, regex: str, expected: str):
        self.regex, self.expected = re.compile(regex), expected

    def check(self, value, path, pos, report):
        if not isinstance(value, str) or not self.regex.fullmatch(value):
            got = f"'{shown(value)}'" if isinstance(value, str) else kind_of(value)
            report.add(pos, path, f"expected {self.expected}, got {got}")
            return False
        return True


COLOR = Pattern(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?", "a colour #rrggbb (or #rgb)")


class Id(Spec):
    """A key that becomes a file or folder name (a deck id): a safe slug."""

    expected = "an id"

    def __init__(self, what: str, reserved: tuple = ()):
        self.what, self.reserved = what, reserved

    def check(self, value, path, pos, report):
        if not limits.safe_id(value):
            got = f"'{shown(value)}'" if isinstance(value, str) else kind_of(value)
            report.add(pos, path, f"a {self.what} id becomes a file name: use "
                                  f"{limits.ID_RULE} characters, got {got}")
            return False
        if value in self.reserved:
            report.add(pos, path, f"'{value}' is the name of another artefact of the game; "
                                  f"choose another {self.what} id")
            return False
        return True


class Choice(Spec):
    def __init__(self, values: tuple):
        self.values = values
        self.expected = "one of " + ", ".join(str(v) for v in values)

    def check(self, value, path, pos, report):
        # Same type as well as equal: 7.0 == 7 and True == 1, but build wants the 7.
        ok = any(type(value) is type(v) and value == v for v in self.values)
        if not ok:
            report.add(pos, path, f"'{shown(value)}' is not {self.expected}"
                                  f"{did_you_mean(value, self.values)}")
        return ok


true_only = Choice((True,))


class ListOf(Spec):
    def __init__(self, item: Spec, min_len: int = 0, max_len: int | None = None):
        self.item, self.min_len, self.max_len = item, min_len, max_len
        self.expected = f"a list of {item.expected}"

    def check(self, value, path, pos, report):
        if not isinstance(value, list):
            report.add(pos, path, f"expected {self.expected}, got {kind_of(value)}")
            return False
        ok = True
        if len(value) < self.min_len or (self.max_len is not None and len(value) > self.max_len):
            size = f"exactly {self.min_len}" if self.min_len == self.max_len else (
                f"at least {self.min_len}" if self.max_len is None else f"{self.min_len} to {self.max_len}")
            report.add(pos, path, f"needs {size} items, has {len(value)}")
            ok = False
        for i, item in enumerate(value):
            item_pos = value_pos(value, i, pos)
            ok = self.item.check(item, join(path, i), item_pos, report) and ok
        return ok


def IntList(min_len: int = 1) -> ListOf:
    return ListOf(INT, min_len=min_len)


class MapOf(Spec):
    """A mapping with free keys (checked by `key`) and values checked by `value`."""

    def __init__(self, key: Spec, value: Spec):
        self.key, self.value = key, value
        self.expected = f"a mapping of {key.expected} to {value.expected}"

    def check(self, value, path, pos, report):
        if not isinstance(value, dict):
            report.add(pos, path, f"expected {self.expected}, got {kind_of(value)}")
            return False
        ok = True
        for k, v in value.items():
            kpos = key_pos(value, k, pos)
            vpos = value_pos(value, k, pos)
            ok = self.key.check(k, join(path, k), kpos, report) and ok
            ok = self.value.check(v, join(path, k), vpos, report) and ok
        return ok


class Struct(Spec):
    """A mapping with known keys: `required` must be present, `optional` may be."""

    def __init__(self, required: dict[str, Spec], optional: dict[str, Spec] | None = None,
                 expected: str | None = None):
        self.required, self.optional = required, optional or {}
        keys = [*required, *self.optional]
        self.expected = expected or ("{" + ", ".join(keys) + "}" if keys else "a mapping")

    @property
    def fields(self) -> dict[str, Spec]:
        return {**self.required, **self.optional}

    def check(self, value, path, pos, report, ignore: tuple = ()):
        if not isinstance(value, dict):
            report.add(pos, path, f"expected a mapping {self.expected}, got {kind_of(value)}")
            return False
        ok = True
        for key in self.required:
            if key not in value:
                report.add(pos, path, f"missing field '{shown(key)}'")
                ok = False
        fields = self.fields
        for key, item in value.items():
            if key in ignore:
                continue
            kpos = key_pos(value, key, pos)
            vpos = value_pos(value, key, pos)
            if key not in fields:
                report.add(kpos, join(path, key), f"unknown field '{shown(key)}'{did_you_mean(key, fields)}")
                ok = False
            else:
                ok = fields[key].check(item, join(path, key), vpos, report) and ok
        return ok


class OneOf(Spec):
    """One of several mapping shapes, told apart by their required keys."""

    def __init__(self, options: tuple[Struct, ...]):
        self.options = options
        self.expected = " or ".join(o.expected for o in options)

    def check(self, value, path, pos, report):
        if isinstance(value, dict):
            for option in self.options:
                if option.required and set(option.required) <= set(value):
                    return option.check(value, path, pos, report)
        got = kind_of(value) if not isinstance(value, dict) else \
            "{" + ", ".join(shown(k, 30) for k in list(value)[:6]) + "}"
        report.add(pos, path, f"expected {self.expected}, got {got}")
        return False


class Effects(Spec):
    """A list of effects; each is a mapping with exactly one verb from `verbs`
    (verb -> (value spec, sibling-parameter Struct or None))."""

    def __init__(self, verbs: dict, game: str):
        self.verbs, self.game = verbs, game
        self.expected = f"a list of {game} effects"

    def check(self, value, path, pos, report):
        if not isinstance(value, list):
            report.add(pos, path, f"expected {self.expected} (e.g. [{{{next(iter(self.verbs))}: ...}}]), got {kind_of(value)}")
            return False
        ok = True
        for i, effect in enumerate(value):
            epath = join(path, i)
            epos = value_pos(value, i, pos)
            if not isinstance(effect, dict) or not effect:
                report.add(epos, epath, f"an effect is a mapping like {{verb: value}}, got {kind_of(effect)}")
                ok = False
                continue
            verbs = [k for k in effect if k in self.verbs]
            if len(verbs) != 1:
                unknown = [k for k in effect if k not in self.verbs]
                if verbs:
                    report.add(epos, epath, f"one verb per effect, got {', '.join(map(str, verbs))}")
                elif unknown:
                    k = unknown[0]
                    kpos = key_pos(effect, k, epos)
                    report.add(kpos, join(epath, k), f"unknown effect '{shown(k)}'{did_you_mean(k, self.verbs)}")
                ok = False
                continue
            verb = verbs[0]
            value_spec, params = self.verbs[verb]
            vpos = value_pos(effect, verb, epos)
            ok = value_spec.check(effect[verb], join(epath, verb), vpos, report) and ok
            siblings = {k for k in effect if k != verb}
            if params is not None:
                ok = params.check(effect, epath, epos, report, ignore=(verb,)) and ok
            elif siblings:
                k = sorted(siblings, key=str)[0]
                kpos = key_pos(effect, k, epos)
                report.add(kpos, join(epath, k), f"'{verb}' takes no parameter '{shown(k)}'")
                ok = False
        return ok
