"""Dataclasses as plain JSON-able data and back, generically over their fields.

`to_data(value)` turns a (frozen) dataclass, with whatever fields it has (nested
dataclasses, tuples, dicts keyed by names, `X | None`), into dicts, lists, text, numbers,
true/false and null; `from_data(cls, data)` builds the dataclass again from its type
hints, checking every value on the way: a value of the wrong type is a `SchemaError` that
says where (`data.dice.storm.faces[2].value: expected a whole number, found text '2'`).
So a field added to a dataclass rides along without a line here; a field added later
needs a default for the data written before it (missing without a default is an error).

Used by the session to keep the game it plays (referee/kept.py: `TableGame.to_data()`).
No carddb or referee game imports: it knows only types."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from functools import cache
from typing import Any

from referee.state_schema import SchemaError

_PLAIN = (str, int, float, bool, type(None))


def to_data(value: Any, where: str = "data") -> Any:
    """`value` as plain data: a dataclass as {field: value} (every field, in order), a
    tuple, list, set or frozenset as a list, a dict as a dict (its keys must be text)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name), f"{where}.{f.name}")
                for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return to_data(value.value, where)
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str) and type(key) is not int:
                raise TypeError(f"{where}: a key {key!r} that is neither text nor a whole number")
        return {str(key): to_data(item, f"{where}.{key}") for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [to_data(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        return [to_data(item, f"{where}[{i}]") for i, item in enumerate(sorted(value))]
    if isinstance(value, _PLAIN):
        return value
    raise TypeError(f"{where}: {type(value).__name__} is not plain data")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_data(cls: type, data: Any, where: str = "data") -> Any:
    """An instance of `cls` (a dataclass, or any type `to_data` makes plain) from `data`,
    every value checked against its type hint; SchemaError naming where otherwise."""
    return _build(cls, data, where)


def _fail(where: str, expected: str, value: Any) -> SchemaError:
    from referee.state_schema import _found

    return SchemaError(f"{where}: expected {expected}, found {_found(value)}")


def _build(hint: Any, value: Any, where: str) -> Any:
    if hint is Any or hint is object:
        return _checked_plain(value, where)
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return _union(typing.get_args(hint), value, where)
    if origin is typing.Literal:
        if value not in typing.get_args(hint):
            raise _fail(where, " or ".join(map(repr, typing.get_args(hint))), value)
        return value
    if origin in (tuple, list, set, frozenset):
        return _sequence(origin, typing.get_args(hint), value, where)
    if origin is dict or hint is dict:
        return _mapping(typing.get_args(hint), value, where)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(hint, value, where)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            choices = " or ".join(repr(m.value) for m in hint)
            raise _fail(where, choices, value) from None
    return _scalar(hint, value, where)


def _union(options: tuple, value: Any, where: str) -> Any:
    if value is None and type(None) in options:
        return None
    problems = []
    for option in options:
        if option is type(None):
            continue
        try:
            return _build(option, value, where)
        except SchemaError as error:
            problems.append(error)
    if len(problems) == 1:
        raise problems[0]
    names = " or ".join(getattr(o, "__name__", str(o)) for o in options)
    raise _fail(where, names, value)


def _sequence(origin: type, args: tuple, value: Any, where: str) -> Any:
    if not isinstance(value, list):
        raise _fail(where, "a list", value)
    if origin is tuple and args and args[-1] is not Ellipsis:  # tuple[float, float]
        if len(value) != len(args):
            raise SchemaError(f"{where}: expected {len(args)} values, found {len(value)}")
        return tuple(_build(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True)))
    item = args[0] if args else Any
    items = [_build(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    return items if origin is list else origin(items)


def _mapping(args: tuple, value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise _fail(where, "an object", value)
    numbered = bool(args) and args[0] is int  # dict[int, X]: JSON keys are text
    item = args[1] if len(args) == 2 else Any
    built: dict = {}
    for key, element in value.items():
        if not isinstance(key, str):
            raise _fail(f"{where} key", "text", key)
        if numbered and not (key.lstrip("-").isascii() and key.lstrip("-").isdigit()):
            raise _fail(f"{where} key", "a whole number", key)
        built[int(key) if numbered else key] = _build(item, element, f"{where}.{key}")
    return built


def _dataclass(cls: type, value: Any, where: str) -> Any:
    if not isinstance(value, dict):
        raise _fail(where, "an object", value)
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = [key for key in value if key not in fields]
    if unknown:
        raise SchemaError(f"{where}: unknown key {unknown[0]!r}")
    given = {}
    for name, field in fields.items():
        if name in value:
            given[name] = _build(hints[name], value[name], f"{where}.{name}")
        elif (field.default is dataclasses.MISSING
              and field.default_factory is dataclasses.MISSING):
            raise SchemaError(f"{where}: missing {name!r}")
    return cls(**given)


def _scalar(hint: Any, value: Any, where: str) -> Any:
    if hint is bool:
        if type(value) is not bool:
            raise _fail(where, "true or false", value)
    elif hint is int:
        if type(value) is not int:
            raise _fail(where, "a whole number", value)
    elif hint is float:
        if type(value) not in (int, float):
            raise _fail(where, "a number", value)
        return float(value)
    elif hint is str:
        if not isinstance(value, str):
            raise _fail(where, "text", value)
    elif hint is type(None):
        if value is not None:
            raise _fail(where, "null", value)
    else:
        raise TypeError(f"{where}: cannot build a {hint!r} from plain data")
    return value


def _checked_plain(value: Any, where: str) -> Any:
    """An `Any` field: JSON values only (what `json.loads` gives), kept as they are."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _fail(f"{where} key", "text", key)
            _checked_plain(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _checked_plain(item, f"{where}[{i}]")
    elif not isinstance(value, _PLAIN):
        raise _fail(where, "plain data", value)
    return value


SCALARS = (str, int, float, bool, type(None))


def unsupported(hint: Any, where: str = "data", seen: frozenset = frozenset()) -> list[str]:
    """Where `hint` (a class's, recursively) names a type `from_data` cannot build: empty
    when every field round-trips (a test holds TableGame to it, so a field added with a
    type this module does not know is found at once, not at a player's `referee new`)."""
    if hint is Any or hint is object or hint in SCALARS:
        return []
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType or origin in (tuple, list, set,
                                                                         frozenset):
        return [p for i, a in enumerate(args) if a is not Ellipsis
                for p in unsupported(a, f"{where}[{i}]", seen)]
    if origin is typing.Literal:
        return [] if all(isinstance(a, SCALARS) for a in args) else [where]
    if origin is dict or hint is dict:
        if args and args[0] not in (str, int):
            return [f"{where} key"]
        return unsupported(args[1], f"{where}.value", seen) if args else []
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return []
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if hint in seen:
            return []
        inner = seen | {hint}
        return [p for name, h in _hints(hint).items()
                for p in unsupported(h, f"{where}.{name}", inner)]
    return [f"{where} ({getattr(hint, '__name__', hint)})"]
