"""Card types and their fields, as a game declares them in cards.yaml:

    types:
      Location:
        fields:
          power: int                          # required, an integer
          terrain: {type: enum, values: [forest, sea]}
          art: optional image
          tags: {type: list, of: text, default: []}

`parse_types` checks the declarations (located errors, did-you-mean) and turns each field
into a `carddb.schema.Spec` that checks a card's value. Field types: text, int, number,
bool, list, enum, image (a file in the project), icon (an icon the printer draws), map,
record, and those a game's rules plug-in adds (`xo-effects`, ...). docs/CARDS.md is the
designer's reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from carddb import limits
from carddb.files import check_path
from carddb.schema import (
    BOOL,
    NAME,
    STR,
    Choice,
    ListOf,
    MapOf,
    Report,
    Spec,
    Struct,
    Type,
    did_you_mean,
    join,
    kind_of,
    shown,
)
from carddb.vocab import MARKUP_ICONS
from carddb.yamlsource import Pos, key_pos, value_pos

BASE_TYPES = ("text", "int", "number", "bool", "list", "enum", "image", "icon", "map", "record")
# Keys every card has; a declared field cannot take one of these names.
COMMON_REQUIRED: dict[str, Spec] = {"name": NAME, "type": STR}
COPIES = Type((int,), "a whole number >= 1", minimum=1, maximum=limits.MAX_COPIES)
COMMON_OPTIONAL: dict[str, Spec] = {"text": STR, "copies": COPIES, "image": STR, "flavor": STR}
COMMON_KINDS = {"name": "text", "type": "text", "text": "text", "copies": "int", "image": "image",
                "flavor": "text"}
# The options each field type takes besides type, required and default.
OPTIONS = {"text": (), "int": ("min", "max"), "number": ("min", "max"), "bool": (),
           "list": ("of", "min_items", "max_items"), "enum": ("values",), "image": (),
           "icon": (), "map": ("keys", "values"), "record": ("fields",)}


class _NoDefault:
    """A field declared without a default. It pickles as this module's one instance, so
    card types kept for a load after an edit (carddb.edits) still tell it by identity."""

    def __reduce__(self) -> str:
        return "NO_DEFAULT"

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()


class Any_(Spec):
    """Anything (its parts are checked elsewhere)."""

    expected = "a value"

    def check(self, value, path, pos, report):
        return True


ANY = Any_()


class Number(Spec):
    """An integer (or any number) with optional bounds; the messages of schema.Type."""

    def __init__(self, kinds: tuple, minimum=None, maximum=None):
        self.kinds, self.minimum, self.maximum = kinds, minimum, maximum
        whole = kinds == (int,)
        if minimum is None:
            self.expected = "an integer" if whole else "a number"
        elif whole and minimum in (0, 1):
            self.expected = f"a whole number >= {minimum}"
        else:
            self.expected = f"{'an integer' if whole else 'a number'} >= {minimum}"
        self.base = Type(kinds, self.expected, minimum)

    def check(self, value, path, pos, report):
        if not self.base.check(value, path, pos, report):
            return False
        if self.maximum is not None and value > self.maximum:
            report.add(pos, path, f"must be at most {self.maximum}, got {value}")
            return False
        return True


class ImagePath(Spec):
    """A path to a file inside the project folder."""

    expected = "an image path"

    def __init__(self, root: Path):
        self.root = root

    def check(self, value, path, pos, report):
        if not STR.check(value, path, pos, report):
            return False
        before = len(report.problems)
        check_path(value, path, pos, report, self.root, "image")
        return len(report.problems) == before


class IconName(Spec):
    """A built-in icon or one of the game's own (`icons:`, carddb.icons)."""

    expected = "an icon name"

    def __init__(self, own: tuple[str, ...] = ()):
        self.known = (*MARKUP_ICONS, *own)

    def check(self, value, path, pos, report):
        if not isinstance(value, str) or value not in self.known:
            shown = value if isinstance(value, str) else kind_of(value)
            report.add(pos, path, f"unknown icon '{shown}'{did_you_mean(value, self.known)} "
                                  f"(icons: {', '.join(self.known)})")
            return False
        return True


def _field_name(name, fields: dict, path: str, pos: Pos, report) -> bool:
    """A declared field's name is text; YAML reads a bare `on`, `yes`, `no`, `true` key as
    true/false and `1` as a number (such a name crashed validation with a traceback)."""
    if isinstance(name, str) and name.strip():
        return True
    hint = " (YAML reads it as true/false: quote it)" if isinstance(name, bool) else ""
    report.add(key_pos(fields, name, pos), path, f"a field's name is text{hint}")
    return False


@dataclass(frozen=True)
class FieldDecl:
    """One declared field: its check, whether a card must have it, its default, and its
    kind (the base type name, or the plug-in type's) for reading spreadsheet cells."""

    name: str
    spec: Spec
    required: bool
    default: Any = NO_DEFAULT
    kind: str = "text"
    item: FieldDecl | None = None       # a list's items
    values: tuple = ()                  # an enum's values


@dataclass(frozen=True)
class CardType:
    """A card type a game declares: its fields, each required or with a default."""

    name: str
    fields: dict[str, FieldDecl] = field(default_factory=dict)

    @property
    def required(self) -> dict[str, Spec]:
        return {k: f.spec for k, f in self.fields.items() if f.required}

    @property
    def optional(self) -> dict[str, Spec]:
        return {k: f.spec for k, f in self.fields.items() if not f.required}

    def defaults(self) -> dict[str, Any]:
        return {k: f.default for k, f in self.fields.items() if f.default is not NO_DEFAULT}


class Declarations:
    """Parses field declarations of one game; `extra` are the plug-in's field types."""

    def __init__(self, report: Report, root: Path, extra: dict[str, Spec], rules: str | None,
                 plugin_types: dict[str, str], own_icons: tuple[str, ...] = ()):
        self.report, self.root, self.extra = report, root, extra
        self.rules, self.plugin_types = rules, plugin_types
        self.own_icons = own_icons

    def types(self, decl, path: str, pos: Pos) -> dict[str, CardType]:
        if not isinstance(decl, dict) or not decl:
            self.report.add(pos, path, "expected a mapping of card types to their fields "
                                       f"(e.g. {{Hero: {{fields: {{power: int}}}}}}), got {kind_of(decl)}")
            return {}
        out = {}
        for name, body in decl.items():
            tpath, tpos = join(path, name), value_pos(decl, name, pos)
            if not isinstance(name, str) or not name.strip():
                self.report.add(key_pos(decl, name, pos), tpath, "a card type's name is text")
                continue
            if body is None:
                out[name] = CardType(name)
                continue
            if not Struct({}, {"fields": ANY}).check(body, tpath, tpos, self.report):
                if not isinstance(body, dict):
                    continue
            fields = body.get("fields") or {}
            fpath, fpos = join(tpath, "fields"), value_pos(body, "fields", tpos)
            if not isinstance(fields, dict):
                self.report.add(fpos, fpath, f"expected a mapping of field names to types, got {kind_of(fields)}")
                continue
            decls = {}
            for fname, fdecl in fields.items():
                fp, fv = join(fpath, fname), value_pos(fields, fname, fpos)
                if not _field_name(fname, fields, fp, fpos, self.report):
                    continue
                if fname in COMMON_KINDS:
                    self.report.add(key_pos(fields, fname, fpos), fp,
                                    f"'{fname}' is a field of every card; it needs no declaration")
                    continue
                parsed = self.field(fname, fdecl, fp, fv)
                if parsed is not None:
                    decls[fname] = parsed
            out[name] = CardType(name, decls)
        return out

    def field(self, name: str, decl, path: str, pos: Pos, in_record: bool = True) -> FieldDecl | None:
        report = self.report
        if isinstance(decl, str):
            words = decl.split()
            optional = len(words) == 2 and words[0] == "optional"
            decl = {"type": words[-1] if optional or len(words) == 1 else decl,
                    "required": not optional}
        if not isinstance(decl, dict) or "type" not in decl:
            report.add(pos, path, f"a field is declared by its type (text, int, ...) or "
                                  f"{{type: ..., ...}}, got {kind_of(decl) if not isinstance(decl, dict) else 'no type'}")
            return None
        kind = decl["type"]
        tpos = value_pos(decl, "type", pos)
        known = (*BASE_TYPES, *self.extra)
        if not isinstance(kind, str) or kind not in known:
            if isinstance(kind, str) and kind in self.plugin_types:
                report.add(tpos, join(path, "type"), f"field type '{kind}' comes with "
                                                     f"`rules: {self.plugin_types[kind]}`")
            else:
                report.add(tpos, join(path, "type"), f"unknown field type '{kind}'"
                                                     f"{did_you_mean(kind, known)} (choose {', '.join(known)})")
            return None
        options = OPTIONS.get(kind, ())
        allowed = {"type", "required", "default", *options}
        ok = True
        for key in decl:
            if key not in allowed:
                report.add(key_pos(decl, key, pos), join(path, key),
                           f"'{kind}' takes no option '{key}'{did_you_mean(key, allowed)}")
                ok = False
        required = decl.get("required", True)
        if not isinstance(required, bool):
            report.add(value_pos(decl, "required", pos), join(path, "required"),
                       f"expected true or false, got {kind_of(required)}")
            ok = False
        if not ok:
            return None
        built = self._spec(kind, decl, path, pos)
        if built is None:
            return None
        spec, item, values = built
        default = decl.get("default", NO_DEFAULT)
        if default is not NO_DEFAULT:
            if not spec.check(default, join(path, "default"), value_pos(decl, "default", pos), report):
                return None
            required = False
        return FieldDecl(name, spec, bool(required), default, kind, item, values)

    def _spec(self, kind: str, decl: dict, path: str, pos: Pos):
        """The check of a field of `kind`, the declaration of a list's items and an enum's
        values; None after reporting a bad declaration."""
        if kind in self.extra:
            return self.extra[kind], None, ()
        if kind == "text":
            return STR, None, ()
        if kind == "bool":
            return BOOL, None, ()
        if kind == "image":
            return ImagePath(self.root), None, ()
        if kind == "icon":
            return IconName(self.own_icons), None, ()
        if kind in ("int", "number"):
            return self._number(kind, decl, path, pos)
        if kind == "enum":
            return self._enum(decl, path, pos)
        if kind == "list":
            return self._list(decl, path, pos)
        if kind == "map":
            keys = self._part(decl, "keys", path, pos)
            values = self._part(decl, "values", path, pos)
            if keys is None or values is None:
                return None
            return MapOf(keys.spec, values.spec), None, ()
        return self._record(decl, path, pos)

    def _number(self, kind: str, decl: dict, path: str, pos: Pos):
        """An int or number field, with its optional `min` and `max`."""
        kinds = (int,) if kind == "int" else (int, float)
        bounds = []
        for key in ("min", "max"):
            value = decl.get(key)
            if value is not None and not Type(kinds, f"{'an integer' if kind == 'int' else 'a number'}").check(
                    value, join(path, key), value_pos(decl, key, pos), self.report):
                return None
            bounds.append(value)
        return Number(kinds, *bounds), None, ()

    def _enum(self, decl: dict, path: str, pos: Pos):
        """An enum field: `values`, a list of the texts or integers it allows."""
        values = decl.get("values")
        vpos = value_pos(decl, "values", pos)
        if not isinstance(values, list) or not values or not all(
                isinstance(v, str | int) and not isinstance(v, bool) for v in values):
            self.report.add(vpos, join(path, "values"), "an enum needs `values`: a list of the "
                                                        "texts or integers it allows")
            return None
        return Choice(tuple(values)), None, tuple(values)

    def _list(self, decl: dict, path: str, pos: Pos):
        """A list field: its items' declaration (`of`), optional `min_items`, `max_items`."""
        item = self._part(decl, "of", path, pos)
        if item is None:
            return None
        lengths = []
        for key in ("min_items", "max_items"):
            value = decl.get(key)
            if value is not None and not Type((int,), "a whole number >= 0", minimum=0).check(
                    value, join(path, key), value_pos(decl, key, pos), self.report):
                return None
            lengths.append(value)
        return ListOf(item.spec, lengths[0] or 0, lengths[1]), item, ()

    def _record(self, decl: dict, path: str, pos: Pos):
        """A record field: `fields`, a mapping of its field names to their declarations."""
        report = self.report
        fields = decl.get("fields")
        fpos = value_pos(decl, "fields", pos)
        if not isinstance(fields, dict) or not fields:
            report.add(fpos, join(path, "fields"), "a record needs `fields`: a mapping of its "
                                                   "field names to their types")
            return None
        parts = {}
        for name, sub in fields.items():
            if not _field_name(name, fields, join(join(path, "fields"), name), fpos, report):
                return None
            parsed = self.field(name, sub, join(join(path, "fields"), name), value_pos(fields, name, fpos))
            if parsed is None:
                return None
            parts[name] = parsed
        return Struct({k: f.spec for k, f in parts.items() if f.required},
                      {k: f.spec for k, f in parts.items() if not f.required}), None, ()

    def _part(self, decl: dict, key: str, path: str, pos: Pos) -> FieldDecl | None:
        """The declaration of a list's items or a map's keys/values (default: text)."""
        if key not in decl:
            return FieldDecl(key, STR, True)
        return self.field(key, decl[key], join(path, key), value_pos(decl, key, pos))


def check_card(gid: str, types: dict, card: Any, path: str, pos: Pos, report: Report, root: Path,
               exempt: frozenset = frozenset(), own: tuple[str, ...] = ()) -> bool:
    """One card against its game's declared types (`types`: carddb.fields.CardType by
    name): its common fields and its type's, its image, the icons its text names (`own`:
    the game's own). True when the checks across cards may read it (it has a name), even
    with problems. Here, beside the types, so that a load after a spreadsheet edit checks
    a changed row without importing the game-level validation (carddb.edits)."""
    if not isinstance(card, dict):
        report.add(pos, path, f"expected a card mapping with name and type, got {kind_of(card)}")
        return False
    ctype = card.get("type")
    if not isinstance(ctype, str) or ctype not in types:
        # Without a known type only the common fields can be checked.
        if isinstance(ctype, str):
            report.add(_at(card, "type"), join(path, "type"),
                       f"'{shown(ctype)}' is not a card type of {gid}{did_you_mean(ctype, types)}"
                       + ("" if types else " (it declares no `types`)"))
        # A key that is a field of some card type of the game is left alone; one that is
        # a field of none (`tpye`) is still reported, with its did-you-mean.
        known = {**COMMON_REQUIRED, **COMMON_OPTIONAL}
        any_type = {k for t in types.values() for k in t.fields}
        Struct(COMMON_REQUIRED, COMMON_OPTIONAL).check(
            card, path, pos, report, ignore=tuple(k for k in card if k not in known and k in any_type))
        return False
    ctype = types[ctype]
    required = {k: v for k, v in {**COMMON_REQUIRED, **ctype.required}.items() if k not in exempt}
    Struct(required, {**COMMON_OPTIONAL, **ctype.optional}).check(card, path, pos, report)
    if "image" in card:
        check_path(card["image"], join(path, "image"), _at(card, "image"), report, root, "image")
    for key in ("text", "flavor"):
        check_inline_icons(card.get(key), join(path, key), _at(card, key), report, own)
    # Cross-reference checks still see a card whose other fields are wrong, so one
    # mistake does not cascade into false "no such card" reports.
    return isinstance(card.get("name"), str)


def _at(mapping: Any, key: str) -> Pos:
    return value_pos(mapping, key, Pos(1, 1))


_INLINE_ICON = re.compile(r"\\.|\{icon:([^{}\s]*)\}", re.S)  # `\{` escapes the brace


def check_inline_icons(text: Any, path: str, pos: Pos, report: Report,
                       own: tuple[str, ...] = ()) -> None:
    """`{icon:NAME}` in card text must name an icon the printer can draw (built in or the
    game's own): caught here, not first by `pnp build` in the middle of a deck."""
    if not isinstance(text, str):
        return
    known = (*MARKUP_ICONS, *own)
    for m in _INLINE_ICON.finditer(text):
        name = m.group(1)
        if name is not None and name not in known:
            report.add(pos, path, f"unknown icon {{icon:{name}}}{did_you_mean(name, known)}")
