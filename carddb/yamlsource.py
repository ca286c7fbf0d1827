"""Safe YAML loading that remembers where every value was written.

Mappings load as `LocatedDict` and sequences as `LocatedList`: plain dicts and lists
that also carry the 1-based (line, col) of each of their values, so validation
messages can point at the line of YAML that is wrong. Only the safe YAML subset is
accepted (no Python tags); merge keys (`<<: *anchor`) work as usual.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class Pos:
    """1-based line and column. `where`, when set, replaces `FILE:LINE:COL` in messages:
    a spreadsheet cell (`heroes.csv:3:B`, `book.xlsx[Villains]!C12`)."""

    line: int
    col: int
    where: str | None = None


def _pos(mark: yaml.Mark) -> Pos:
    return Pos(mark.line + 1, mark.column + 1)


class LocatedDict(dict):
    pos: Pos
    value_pos: dict
    key_pos: dict

    def at(self, key) -> Pos:
        """Where the value of `key` was written (the mapping itself if it is missing)."""
        return self.value_pos.get(key, self.pos)

    def key_at(self, key) -> Pos:
        return self.key_pos.get(key, self.pos)


class LocatedList(list):
    pos: Pos
    item_pos: list

    def at(self, index: int) -> Pos:
        return self.item_pos[index] if 0 <= index < len(self.item_pos) else self.pos


def value_pos(container, key, fallback: Pos) -> Pos:
    """Where `container[key]` was written, or `fallback` for data built in memory."""
    if isinstance(container, LocatedDict | LocatedList):
        return container.at(key)
    return fallback


def key_pos(mapping, key, fallback: Pos) -> Pos:
    """Where the key `key` of `mapping` was written, or `fallback`."""
    return mapping.key_at(key) if isinstance(mapping, LocatedDict) else fallback


class YamlProblem(Exception):
    """The file cannot be read as YAML; `pos` says where."""

    def __init__(self, message: str, pos: Pos = Pos(1, 1)):
        super().__init__(message)
        self.message = message
        self.pos = pos


# libyaml's parser (when PyYAML was built with it) gives the same nodes and marks about
# six times faster than the pure-Python one: every `referee` command loads cards.yaml.
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):
    def __init__(self, stream):
        super().__init__(stream)
        self.duplicates: list[tuple[str, Pos, Pos]] = []


def _construct_mapping(loader: _Loader, node: yaml.MappingNode):
    data = LocatedDict()
    data.pos, data.value_pos, data.key_pos = _pos(node.start_mark), {}, {}
    yield data
    # Duplicate keys among the keys written here (merged keys may be overridden).
    first_seen: dict = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            if key in first_seen:
                loader.duplicates.append((str(key), _pos(key_node.start_mark), first_seen[key]))
            else:
                first_seen[key] = _pos(key_node.start_mark)
        except TypeError:
            raise YamlProblem("a mapping key must be a plain value", _pos(key_node.start_mark)) from None
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise YamlProblem("a mapping key must be a plain value", _pos(key_node.start_mark)) from None
        data[key] = loader.construct_object(value_node, deep=True)
        data.value_pos[key] = _pos(value_node.start_mark)
        data.key_pos[key] = _pos(key_node.start_mark)


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode):
    data = LocatedList()
    data.pos, data.item_pos = _pos(node.start_mark), []
    yield data
    for item in node.value:
        data.append(loader.construct_object(item, deep=True))
        data.item_pos.append(_pos(item.start_mark))


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)


def load_yaml(raw: bytes):
    """Parse `raw` safely. Returns (data, duplicates) where duplicates lists
    (key, pos, first_pos) for each key written twice in one mapping.
    Raises YamlProblem for binary, empty or malformed input."""
    if b"\x00" in raw:
        raise YamlProblem("not a text file (binary data)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise YamlProblem("not UTF-8 text (binary data?)", Pos(line, 1)) from None
    if not text.strip() or all(
        not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()
    ):
        raise YamlProblem("the file is empty")
    loader = _Loader(text)
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or exc.context or "malformed YAML"
        if exc.context and exc.problem:
            message = f"{exc.problem} ({exc.context})"
        raise YamlProblem(f"YAML syntax: {message}", _pos(mark) if mark else Pos(1, 1)) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(f"YAML: {exc}") from None
    finally:
        loader.dispose()
    return data, loader.duplicates
