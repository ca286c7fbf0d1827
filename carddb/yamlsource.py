"""Safe YAML loading that remembers where every value was written.

Mappings load as `LocatedDict` and sequences as `LocatedList`: plain dicts and lists
that also carry the 1-based (line, col) of each of their values, so validation
messages can point at the line of YAML that is wrong. Only the safe YAML subset is
accepted (no Python tags); merge keys (`<<: *anchor`) work as usual.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from carddb import limits

if TYPE_CHECKING:
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


def _base_loader() -> Any:
    """libyaml's parser (when PyYAML was built with it): the same nodes and marks about
    six times faster than the pure-Python one (every `referee` command loads cards.yaml)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# The loader class: made at the first parse (`_loader`), so that PyYAML is imported only
# by a process that parses YAML: a build whose cards.yaml comes parsed from the cache
# (carddb.cache.parsed) does not import it, which was a tenth of a one-card edit build.
_Loader: Any = None


def _loader() -> Any:
    """The loader class, with the located mapping, sequence and integer constructors."""
    global _Loader
    if _Loader is None:
        made: Any = type("_Loader", (_base_loader(),), {})
        made.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
        made.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)
        made.add_constructor("tag:yaml.org,2002:int", _construct_int)
        _Loader = made
    return _Loader


def _construct_mapping(loader: Any, node: yaml.MappingNode):
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


def _construct_sequence(loader: Any, node: yaml.SequenceNode):
    data = LocatedList()
    data.pos, data.item_pos = _pos(node.start_mark), []
    yield data
    for item in node.value:
        data.append(loader.construct_object(item, deep=True))
        data.item_pos.append(_pos(item.start_mark))


def _construct_int(loader: Any, node: yaml.ScalarNode):
    # Python refuses to read an integer of more than 4,300 digits (ValueError, no
    # position); no database needs one of more than a few.
    if len(node.value) > limits.MAX_INT_CHARS:
        raise YamlProblem(f"an integer of {len(node.value)} characters is longer than the "
                          f"limit of {limits.MAX_INT_CHARS}", _pos(node.start_mark))
    import yaml

    return yaml.SafeLoader.construct_yaml_int(loader, node)


@functools.cache
def _forbidden() -> re.Pattern[str]:
    """Characters YAML does not allow in a document (libyaml reports them without a
    line). Compiled when first needed: its ranges make it cost as much to compile as the
    rest of this module to import, on the way of a load that parses nothing (carddb.edits)."""
    return re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f"
                      "\ud800-\udfff\ufffe\uffff]")


# Characters that open a nesting level: fewer of them than this cannot nest deep
# enough to matter to libyaml's recursive composer (it crashes past ~25,000 levels).
_OPENERS = "[{:?-"
_CHEAP_OPENERS = 10_000


def _pos_in(text: str, index: int) -> Pos:
    line = text.count("\n", 0, index) + 1
    return Pos(line, index - (text.rfind("\n", 0, index) + 1) + 1)


def _check_depth_by_events(text: str) -> None:
    """Refuse nesting deeper than limits.MAX_DEPTH before anything is composed."""
    import yaml

    loader = _base_loader()(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > limits.MAX_DEPTH:
                    raise YamlProblem(f"values nested more than {limits.MAX_DEPTH} levels deep",
                                      _pos(event.start_mark))
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as exc:
        # PyYAML 6.0.4's scanner refuses 1,000 flow levels itself, scanning ahead of the
        # events counted here: the same refusal, in the same words
        if "maximum nesting depth" not in str(getattr(exc, "problem", "") or exc):
            raise
        mark = getattr(exc, "problem_mark", None)
        raise YamlProblem(f"values nested more than {limits.MAX_DEPTH} levels deep",
                          _pos(mark) if mark is not None else Pos(1, 1)) from None
    finally:
        loader.dispose()


def check_nodes(root: yaml.Node | None) -> int:
    """Refuse a composed document that nests deeper than limits.MAX_DEPTH, holds more
    than limits.MAX_YAML_VALUES values once its aliases are expanded (a few hundred
    bytes of aliases can stand for billions of values), or contains itself. Returns
    how many values it holds, aliases expanded."""
    if root is None:
        return 0
    import yaml

    sizes: dict[int, int] = {}          # expanded size of each collection (aliases share)
    on_path: set[int] = set()
    scalar = yaml.ScalarNode

    def size(node, depth: int) -> int:  # recursion is bounded by MAX_DEPTH
        key = id(node)
        known = sizes.get(key)
        if known is not None:
            return known
        if key in on_path:
            raise YamlProblem("a value that contains itself (a recursive alias)",
                              _pos(node.start_mark))
        if depth > limits.MAX_DEPTH:
            raise YamlProblem(f"values nested more than {limits.MAX_DEPTH} levels deep",
                              _pos(node.start_mark))
        on_path.add(key)
        total = 1
        items = node.value if isinstance(node, yaml.SequenceNode) else \
            [n for pair in node.value for n in pair]
        for child in items:
            total += 1 if type(child) is scalar else size(child, depth + 1)
        on_path.discard(key)
        if total > limits.MAX_YAML_VALUES:
            raise YamlProblem(f"more than {limits.MAX_YAML_VALUES:,} values once aliases "
                              "are expanded (an alias bomb?)", _pos(node.start_mark))
        sizes[key] = total
        return total

    return 1 if type(root) is scalar else size(root, 1)


def safe_text(text: str) -> None:
    """Refuse text YAML cannot hold (control characters) with the place of the first one,
    and nesting too deep to compose."""
    bad = _forbidden().search(text)
    if bad:
        raise YamlProblem(f"control character U+{ord(bad.group()):04X} is not allowed "
                          "(write it as an escape inside double quotes)",
                          _pos_in(text, bad.start()))
    check_depth(text)


def check_depth(text: str, cheap: int = _CHEAP_OPENERS) -> None:
    """Refuse nesting deeper than limits.MAX_DEPTH before libyaml composes it (its
    composer recurses in C: far deeper nesting crashes the process). Text with at most
    `cheap` characters that open a level is left to the composer."""
    if sum(text.count(ch) for ch in _OPENERS) > cheap:
        import yaml

        try:
            _check_depth_by_events(text)
        except yaml.YAMLError:
            pass                                   # reported, located, by the real parse


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
    safe_text(text)
    import yaml

    loader = _loader()(text)
    loader.duplicates = []          # (key, where written again, where first)
    try:
        node = loader.get_single_node()
        check_nodes(node)
        data = loader.construct_document(node) if node is not None else None
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
