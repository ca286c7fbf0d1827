"""A small declarative schema language with located error messages.

A spec checks one YAML value and reports every problem it finds (not just the first)
to a `Report`, each at the line and column where the value was written.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from carddb.yamlsource import Pos, key_pos, value_pos


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    col: int
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.path}: {self.message}"


@dataclass
class Report:
    file: str
    problems: list[Problem] = field(default_factory=list)

    def add(self, pos: Pos, path: str, message: str) -> None:
        self.problems.append(Problem(self.file, pos.line, pos.col, path or "(top)", message))


def join(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def did_you_mean(word: str, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def kind_of(value) -> str:
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
    def __init__(self, types: tuple, expected: str, minimum=None, maximum=None):
        self.types, self.expected, self.minimum = types, expected, minimum
        self.maximum = maximum

    def check(self, value, path, pos, report):
        if isinstance(value, bool) and bool not in self.types:
            ok = False
        else:
            ok = isinstance(value, self.types)
        if not ok:
            report.add(pos, path, f"expected {self.expected}, got {kind_of(value)}")
            return False
        if self.minimum is not None and value < self.minimum:
            report.add(pos, path, f"must be at least {self.minimum}, got {value}")
            return False
        if self.maximum is not None and value > self.maximum:
            report.add(pos, path, f"must be at most {self.maximum}, got {value}")
            return False
        return True


INT = Type((int,), "an integer")
NONNEG_INT = Type((int,), "a whole number >= 0", minimum=0)
POS_INT = Type((int,), "a whole number >= 1", minimum=1)
NUMBER = Type((int, float), "a number")
POS_NUMBER = Type((int, float), "a number > 0", minimum=0.001)
STR = Type((str,), "text")
BOOL = Type((bool,), "true or false")


class Choice(Spec):
    def __init__(self, values: tuple):
        self.values = values
        self.expected = "one of " + ", ".join(str(v) for v in values)

    def check(self, value, path, pos, report):
        try:
            ok = value in self.values and not (isinstance(value, bool) != isinstance(self.values[0], bool))
        except TypeError:
            ok = False
        if not ok:
            report.add(pos, path, f"'{value}' is not {self.expected}{did_you_mean(value, self.values)}")
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
                report.add(pos, path, f"missing field '{key}'")
                ok = False
        fields = self.fields
        for key, item in value.items():
            if key in ignore:
                continue
            kpos = key_pos(value, key, pos)
            vpos = value_pos(value, key, pos)
            if key not in fields:
                report.add(kpos, join(path, key), f"unknown field '{key}'{did_you_mean(key, fields)}")
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
        report.add(pos, path, f"expected {self.expected}, got {kind_of(value) if not isinstance(value, dict) else '{' + ', '.join(map(str, value)) + '}'}")
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
                    report.add(epos, epath, f"one verb per effect, got {', '.join(verbs)}")
                elif unknown:
                    k = unknown[0]
                    kpos = key_pos(effect, k, epos)
                    report.add(kpos, join(epath, k), f"unknown effect '{k}'{did_you_mean(k, self.verbs)}")
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
                report.add(kpos, join(epath, k), f"'{verb}' takes no parameter '{k}'")
                ok = False
        return ok
