"""A fast parser for the YAML that card templates usually write, with PyYAML as the
judge: `load(text)` parses the common shape itself and hands anything else to PyYAML.

The common shape is a list of one-key flow mappings, one element per line (continued
on indented lines):

    - text: {box: [5, 56.5, 53.5, 22.8], text: "Get -1 to Carnage Rolls", size: 10}

with double-quoted JSON strings (what every `{{ }}` writes), numbers, and bare words.
PyYAML spends milliseconds building such a list; this takes a fraction of that, which
matters when a deck has thousands of cards. Whatever this parser is not certain to read
exactly as PyYAML would (single quotes, anchors, comments inside an element, octal or
sexagesimal numbers, `yes`/`on` keys, blank lines inside an element, ...) is given to
PyYAML unchanged, so the result is always PyYAML's.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from pnp.draw.recent import RecentCache

_DECODER = json.JSONDecoder()
_TOKEN = re.compile(r"""\s*(?:([{}\[\],])|(:)(?=[\s,\]}])|("[^"\\]*(?:\\.[^"\\]*)*")|([^\s{}\[\],:"'!&*|>%@`#?][^{}\[\],:#]*))""")
# The same, the whole token a group too: a line's tokens read at once (`_tokens`)
_TOKENS = re.compile(r"""(\s*(?:([{}\[\],])|(:)(?=[\s,\]}])|("[^"\\]*(?:\\.[^"\\]*)*")|([^\s{}\[\],:"'!&*|>%@`#?][^{}\[\],:#]*)))""")
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_FLOAT = re.compile(r"(?:[-+]?[0-9]+\.[0-9]*|\.[0-9]+)\Z")   # as PyYAML: no "-.5"
_WORDS = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("null", "Null", "NULL", "~"), None),
}
_PLAIN_OK = re.compile(r"[A-Za-z_(][^:#]*\Z")       # a bare word PyYAML reads as a string
_KEY = re.compile(r"- ([A-Za-z_][A-Za-z0-9_]*): ")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONTROL = re.compile(r"[\x00-\x1f]")
# Whitespace to Python that YAML reads as text (a no-break space...): outside quotes, PyYAML
# decides (`0\u00a0` is the text "0\u00a0" to it, not 0 with a trailing space).
_ODD_SPACE = re.compile(r"[^\S \t\n]")


# Characters PyYAML refuses or treats as line breaks: leave such text to PyYAML. Each is
# unprintable to Python (str.isprintable), so only a line that is not printable (a tab, a
# no-break space...) is searched for them (`_unusual`); the pattern itself, a charset
# beyond Latin-1 that costs a millisecond to compile, only when the line reaches U+2028.
_UNUSUAL = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]"
_UNUSUAL_LATIN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")   # those below U+0100


@functools.cache
def _unusual_pattern() -> re.Pattern[str]:
    return re.compile(_UNUSUAL)


def _unusual(line: str) -> bool:
    """Whether a line holds one of the _UNUSUAL characters (the others are U+2028 and up)."""
    if _UNUSUAL_LATIN.search(line):
        return True
    if line.isascii() or max(line) < "\u2028":
        return False
    return _unusual_pattern().search(line) is not None


class _NotSimple(Exception):
    pass


_MEMO = RecentCache(4096)


def load(text: str) -> Any:
    """What PyYAML would return for `text` (raises PyYAML's errors too)."""
    lines = elements(text)
    if lines is not None:
        return [element for _, element in lines]
    return pyyaml(text)


def pyyaml(text: str) -> Any:
    """PyYAML's reading of `text`, bounded as a database is (carddb.yamlsource: nesting,
    aliases expanded, control characters): a template's output is untrusted too. Raises
    PyYAML's errors, or carddb.yamlsource.YamlProblem for a bound exceeded."""
    import yaml

    from carddb.yamlsource import check_depth, check_nodes

    check_depth(text)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        check_nodes(node)
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def elements(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """[(element line, element)] when `text` has the common shape, else None. Lines
    repeat from card to card (frames, labels), so each line is parsed once: callers
    may key caches on the line. The returned mappings are shared: do not modify them."""
    try:
        lines = _split(text)
    except _NotSimple:
        return None
    out = []
    for line in lines:
        element = _MEMO.get(line)
        if element is None:
            try:
                element = _element(line)
            except _NotSimple:
                return None
            _MEMO.put(line, element)
        out.append((line, element))
    return out


def _load_simple(text: str) -> list[Any]:
    return [_element(line) for line in _split(text)]


def _split(text: str) -> list[str]:
    if "\r" in text:
        raise _NotSimple
    elements: list[str] = []
    gap = False
    for line in text.split("\n"):          # every line checked, comments and blanks too
        if not line.isprintable() and _unusual(line):
            raise _NotSimple
        stripped = line.strip(" \t")          # YAML's blanks only: see _ODD_SPACE
        if not stripped:
            if "\t" in line:               # PyYAML refuses most lines of blanks with a tab
                raise _NotSimple
            gap = True
            continue
        if line.startswith("- "):
            elements.append(line.rstrip(" \t"))
            gap = False
        elif line[0] in " \t" and elements and not gap and not stripped.startswith("#"):
            elements[-1] += " " + stripped
        elif line.startswith("#"):
            gap = True
        else:
            raise _NotSimple
    if not elements:
        raise _NotSimple                       # empty or comment-only: PyYAML decides
    return elements


def _element(line: str) -> dict[str, Any]:
    match = _KEY.match(line)
    if not match or match.group(1) in _WORDS:
        raise _NotSimple
    tokens = _tokens(line, match.end())
    value, pos = _value(tokens, 0)
    if pos != len(tokens):
        raise _NotSimple
    return {match.group(1): value}


def _tokens(text: str, pos: int) -> list[tuple[str, Any]]:
    """The flow tokens of `text` from `pos`. Per line (each is read once, then memoised)
    but still most of reading a face: a line whose every blank is YAML's own is not
    searched for odd spaces token by token, and a quoted string without escapes is its
    text between the quotes (what the JSON decoder would return for it)."""
    odd = _ODD_SPACE.search(text, pos) is not None    # else no token can hold one
    if not odd:
        found = _all_tokens(text, pos)
        if found is not None:
            return found
    out: list[tuple[str, Any]] = []
    end = len(text)
    match = _TOKEN.match
    while pos < end:
        m = match(text, pos)
        if not m:
            if text[pos:].strip(" \t") == "":
                break
            raise _NotSimple
        group = m.lastindex                 # which alternative matched (1-4; no nesting)
        if odd and _ODD_SPACE.search(text, pos, m.start(3) if group == 3 else m.end()):
            raise _NotSimple
        if group == 1:
            out.append((m.group(1), None))
        elif group == 2:
            out.append((":", None))
        elif group == 3:
            out.append(("s", _string(m.group(3))))
        elif group == 4:
            out.append(("p", m.group(4).rstrip()))
        else:
            raise _NotSimple
        pos = m.end()
    return out


def _all_tokens(text: str, pos: int) -> list[tuple[str, Any]] | None:
    """`_tokens` of a line without odd spaces, its tokens found by one search of the
    line, not one match per token; None when they do not follow each other up to its
    end (then the token by token reading decides). The search takes at each place the
    token `_tokens` would take there, so tokens that cover the line are its tokens."""
    found = _TOKENS.findall(text, pos)
    if sum([len(token[0]) for token in found]) != len(text) - pos:
        return None
    plain = "\\" not in text and _CONTROL.search(text, pos) is None   # strings as written
    out: list[tuple[str, Any]] = []
    for _, punctuation, colon, string, word in found:
        if punctuation:
            out.append((punctuation, None))
        elif colon:
            out.append((":", None))
        elif string:
            out.append(("s", string[1:-1] if plain else _string(string)))
        else:
            out.append(("p", word.rstrip()))
    return out


def _string(string: str) -> str:
    """A double-quoted JSON string token's value; _NotSimple for a control character
    (which PyYAML and JSON read differently) or anything JSON would not read exactly."""
    if _CONTROL.search(string):
        raise _NotSimple
    if "\\" not in string:                 # the token's pattern allows no bare quote inside
        return string[1:-1]
    try:
        value, used = _DECODER.raw_decode(string)
    except ValueError:
        raise _NotSimple from None
    if used != len(string):
        raise _NotSimple
    return value


def _scalar(word: str) -> Any:
    if word in _WORDS:
        return _WORDS[word]
    if _INT.match(word):
        if len(word.lstrip("+-")) > 1 and word.lstrip("+-")[0] == "0":
            raise _NotSimple
        return int(word)
    if _FLOAT.match(word):
        return float(word)
    if _PLAIN_OK.match(word) and word not in ("<<", "="):
        return word
    raise _NotSimple


def _value(tokens, i):
    if i >= len(tokens):
        raise _NotSimple
    kind, value = tokens[i]
    if kind == "s":
        return value, i + 1
    if kind == "p":
        return _scalar(value), i + 1
    if kind == "[":
        return _flow_list(tokens, i + 1)
    if kind == "{":
        return _flow_mapping(tokens, i + 1)
    raise _NotSimple


def _flow_list(tokens, i):
    """`[a, b]` from the token after `[`: the list and the index after its `]`."""
    items: list[Any] = []
    if i < len(tokens) and tokens[i][0] == "]":
        return items, i + 1
    while True:
        item, i = _value(tokens, i)
        items.append(item)
        if i >= len(tokens):
            raise _NotSimple
        if tokens[i][0] == ",":
            i += 1
            continue
        if tokens[i][0] == "]":
            return items, i + 1
        raise _NotSimple


def _flow_mapping(tokens, i):
    """`{k: v, ...}` from the token after `{`: the mapping and the index after its `}`;
    keys plain words (not YAML's special words) or quoted, each once."""
    mapping: dict[Any, Any] = {}
    if i < len(tokens) and tokens[i][0] == "}":
        return mapping, i + 1
    while True:
        if i >= len(tokens) or tokens[i][0] not in ("p", "s"):
            raise _NotSimple
        key_kind, key = tokens[i]
        if key_kind == "p":
            if not _NAME.fullmatch(key) or key in _WORDS:
                raise _NotSimple
        if i + 1 >= len(tokens) or tokens[i + 1][0] != ":" or key in mapping:
            raise _NotSimple
        item, i = _value(tokens, i + 2)
        mapping[key] = item
        if i >= len(tokens):
            raise _NotSimple
        if tokens[i][0] == ",":
            i += 1
            continue
        if tokens[i][0] == "}":
            return mapping, i + 1
        raise _NotSimple
