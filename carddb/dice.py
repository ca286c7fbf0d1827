"""A game's dice, as cards.yaml declares them (`dice:`), checked and read the same way by
`pnp build` (the sticker labels) and the referee (rolls, odds).

Two forms:

- one die (today's form): `dice: {faces: [...], per_player: N, sets: {ID: {color, ink,
  label}}}` (`sets` optional: one set in the game's colours), several coloured sets of
  the same die (XO!'s White and Black Mask dice);
- several named dice: `dice: {NAME: {faces: [...], per_player: N, color, ink, label}}`.

A face is a number (`2`), a symbol (`wind`) or `{symbol, icon, value}` (`icon` is what
the label prints, `value` what the face adds to a numeric sum). A symbol is a word typed
at the table (`--roll wind,calm,2`): letters, digits, `-` and `_`, not only digits. A
symbol named like one of the game's own icons (`icons:`, carddb.icons), or `blank`,
prints that icon (blank: nothing) unless the face names another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from carddb import limits
from carddb.schema import (
    COLOR,
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
from carddb.yamlsource import Pos, key_pos, value_pos

SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,31}\Z")
DIE_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")
ONE_DIE_KEYS = ("faces", "per_player", "sets", "color", "ink", "label")
DEFAULT_SET = "dice"  # the set id of a one-die declaration without `sets`
BLANK = "blank"       # the built-in icon that draws nothing (carddb.vocab.MARKUP_ICONS)


@dataclass(frozen=True)
class Face:
    """One face: `symbol` (None for a plain number), `icon` (what a label prints instead
    of the symbol), `value` (what it adds to a numeric sum; None: nothing)."""

    symbol: str | None
    icon: str | None
    value: int | None

    @property
    def key(self) -> str:
        """What the table types and the counts are keyed by: the symbol, else the number."""
        return self.symbol if self.symbol is not None else str(self.value)

    @property
    def label(self) -> str:
        """What a printed label shows: the icon if any, else the symbol or the number."""
        return self.icon or self.key


@dataclass(frozen=True)
class DieSet:
    """One coloured set of a die: its id, body colour, ink and label."""

    id: str
    color: str
    ink: str
    label: str


@dataclass(frozen=True)
class Die:
    """A die a game declares: its faces, how many each player has, and its sets."""

    name: str
    faces: tuple[Face, ...]
    per_player: int
    sets: tuple[DieSet, ...]

    @property
    def symbols(self) -> tuple[str, ...]:
        """The distinct face keys, in the order of the faces."""
        return tuple(dict.fromkeys(face.key for face in self.faces))

    @property
    def numeric(self) -> bool:
        """Every face has a value (a number die, or symbols that all count)."""
        return all(face.value is not None for face in self.faces)

    def face(self, text: str) -> Face | None:
        """The face typed as `text` (case-insensitive), or None."""
        wanted = text.strip().casefold()
        return next((f for f in self.faces if f.key.casefold() == wanted), None)


class FaceSpec(Spec):
    """A face: a whole number, a symbol word, or {symbol, icon, value}."""

    expected = "a number, a symbol word or {symbol, icon, value}"
    _MAPPING = Struct({"symbol": Type((str,), "a symbol word")},
                      {"icon": Type((str,), "an icon name"),
                       "value": Type((int,), "a whole number")})

    def check(self, value, path, pos, report):
        if isinstance(value, bool):
            report.add(pos, path, f"expected {self.expected}, got {kind_of(value)}")
            return False
        if isinstance(value, int):
            return True
        if isinstance(value, str):
            return _symbol_ok(value, path, pos, report)
        if isinstance(value, dict):
            if not self._MAPPING.check(value, path, pos, report):
                return False
            return _symbol_ok(value["symbol"], join(path, "symbol"), value_pos(value, "symbol", pos),
                              report)
        report.add(pos, path, f"expected {self.expected}, got {kind_of(value)}")
        return False


def _symbol_ok(text: str, path: str, pos: Pos, report: Report) -> bool:
    if SYMBOL.match(text):
        return True
    if text.strip().lstrip("+-").isdigit():
        report.add(pos, path, f"face '{shown(text)}' is a number in quotes: write it without quotes")
    else:
        report.add(pos, path, f"face '{shown(text)}' is not a symbol word (letters, digits, - and _, "
                              "starting with a letter; at most 32)")
    return False


class FacesSpec(ListOf):
    """A die's faces: 2 to limits.MAX_DIE_FACES (each face is a label `pnp build` draws
    for every die of every player: a 10,000-face die took minutes to label)."""

    def __init__(self) -> None:
        super().__init__(FaceSpec(), 2)

    def check(self, value, path, pos, report):
        if isinstance(value, list) and len(value) > limits.MAX_DIE_FACES:
            report.add(pos, path, f"a die of {len(value):,} faces; a die has at most "
                                  f"{limits.MAX_DIE_FACES}")
            return False
        return super().check(value, path, pos, report)


FACES = FacesSpec()
PER_PLAYER = Type((int,), "a whole number >= 1", minimum=1, maximum=limits.MAX_DICE)
DIE_SET = Struct({"color": COLOR, "ink": COLOR, "label": Type((str,), "a text")})
ONE_DIE = Struct({"faces": FACES},
                 {"per_player": PER_PLAYER, "sets": MapOf(Type((str,), "a set id"), DIE_SET),
                  "color": COLOR, "ink": COLOR, "label": Type((str,), "a text")})
NAMED_DIE = Struct({"faces": FACES},
                   {"per_player": PER_PLAYER, "color": COLOR, "ink": COLOR,
                    "label": Type((str,), "a text")})


class DiceSpec(Spec):
    """`dice:` in either form (the module's docstring)."""

    expected = "{faces, per_player, ...} or {NAME: {faces, per_player, ...}, ...}"

    def check(self, value, path, pos, report):
        if not isinstance(value, dict) or not value:
            report.add(pos, path, f"expected {self.expected}, got {kind_of(value)}")
            return False
        if any(key in value for key in ONE_DIE_KEYS):
            return (_faces_distinct(value, path, pos, report)
                    and _labels_bounded(value, path, pos, report)) \
                if ONE_DIE.check(value, path, pos, report) else False
        ok = True
        for name, die in value.items():
            kpos, vpos = key_pos(value, name, pos), value_pos(value, name, pos)
            if not isinstance(name, str) or not DIE_NAME.match(name):
                report.add(kpos, join(path, name), f"die name '{shown(name)}' is not a lower-case word "
                                                   "(letters, digits, - and _)")
                ok = False
                continue
            if NAMED_DIE.check(die, join(path, name), vpos, report):
                ok = (_faces_distinct(die, join(path, name), vpos, report)
                      and _labels_bounded(die, join(path, name), vpos, report) and ok)
            else:
                ok = False
        return ok


def _labels_bounded(die: dict, path: str, pos: Pos, report: Report) -> bool:
    """The labels `pnp build` prints for one die: faces x per_player x sets, at most
    limits.MAX_DIE_LABELS."""
    sets = max(1, len(die.get("sets") or {}))
    per_player = die.get("per_player", 1)  # one a player when not said
    labels = len(die["faces"]) * per_player * sets
    if labels <= limits.MAX_DIE_LABELS:
        return True
    report.add(pos, path, f"{len(die['faces'])} faces x {per_player} per player"
                          + (f" x {sets} sets" if sets > 1 else "")
                          + f" = {labels:,} labels to print; at most {limits.MAX_DIE_LABELS:,}")
    return False


def _faces_distinct(die: dict, path: str, pos: Pos, report: Report) -> bool:
    """One face key means one thing: `wind` cannot count 1 on one face and 2 on another."""
    seen: dict[str, Face] = {}
    for index, raw in enumerate(die["faces"]):
        face = face_of(raw)
        other = seen.setdefault(face.key.casefold(), face)
        if other != face:
            report.add(pos, join(path, f"faces[{index}]"),
                       f"face '{shown(face.key)}' is declared twice with different icon or value")
            return False
    return True


DICE = DiceSpec()
START_DICE = re.compile(r"([1-9][0-9]?)d([1-9][0-9]{0,2})\Z")


class StartSpec(Spec):
    """A token's `start`: a whole number, or dice rolled at the table's setup (`2d6`)."""

    expected = "a whole number >= 0 or dice like 2d6"

    def check(self, value, path, pos, report):
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= limits.MAX_TOKENS:
            return True
        if isinstance(value, str) and START_DICE.match(value.strip().lower()) \
                and int(START_DICE.match(value.strip().lower())[2]) >= 2:
            return True
        report.add(pos, path, f"expected {self.expected}, got {shown(value) if isinstance(value, str) else kind_of(value)}")
        return False


TOKEN_START = StartSpec()


def face_of(raw: Any, own_icons: tuple[str, ...] = ()) -> Face:
    """A face as declared; a symbol that names an icon (`own_icons`, or `blank`) and
    declares none prints that icon."""
    if isinstance(raw, dict):
        symbol = str(raw["symbol"])
        icon = raw.get("icon") or (symbol if symbol in (*own_icons, BLANK) else None)
        return Face(symbol, icon, raw.get("value"))
    if isinstance(raw, str):
        return Face(raw, raw if raw in (*own_icons, BLANK) else None, None)
    return Face(None, None, int(raw))


def unknown_icon(name: str, known: tuple[str, ...]) -> str:
    """The message for an icon name that is neither built in nor the game's own."""
    return f"unknown icon '{shown(name)}'{did_you_mean(name, known)} (icons: built in, " \
           "or the game's own under `icons:`)"


def check_face_icons(value: Any, path: str, pos: Pos, report: Report,
                     known: tuple[str, ...]) -> None:
    """Each face's `icon:` names a built-in icon or one of the game's own (`known`)."""
    if not isinstance(value, dict):
        return
    groups = {"": value} if any(key in value for key in ONE_DIE_KEYS) else value
    for name, die in groups.items():
        dpath = join(path, name) if name else path
        dpos = value_pos(value, name, pos) if name else pos
        faces = die.get("faces") if isinstance(die, dict) else None
        if not isinstance(faces, list):
            continue
        fpos = value_pos(die, "faces", dpos)
        for index, raw in enumerate(faces):
            icon = raw.get("icon") if isinstance(raw, dict) else None
            if isinstance(icon, str) and icon not in known:
                at = value_pos(raw, "icon", value_pos(faces, index, fpos))
                report.add(at, join(dpath, f"faces[{index}].icon"), unknown_icon(icon, known))


def dice_of(extras: dict[str, Any], title: str = "", colors: dict | None = None) -> dict[str, Die]:
    """The game's dice by name, from its validated `dice:` (`{}` when it has none). A
    one-die declaration is the die `dice` (its `sets` its coloured sets)."""
    declared = extras.get("dice")
    if not isinstance(declared, dict) or not declared:
        return {}
    colors = colors or {}
    own = tuple(extras["icons"]) if isinstance(extras.get("icons"), dict) else ()
    paper, primary = colors.get("paper", "#ffffff"), colors.get("primary", "#000000")
    if any(key in declared for key in ONE_DIE_KEYS):
        groups = {"dice": declared}
        sets_of = {"dice": declared.get("sets") or {DEFAULT_SET: {
            "color": declared.get("color", paper), "ink": declared.get("ink", primary),
            "label": declared.get("label", title or "Dice")}}}
    else:
        groups = declared
        sets_of = {name: {name: {"color": die.get("color", paper), "ink": die.get("ink", primary),
                                 "label": die.get("label", name.replace("-", " ").title())}}
                   for name, die in declared.items()}
    result = {}
    for name, die in groups.items():
        sets = tuple(DieSet(sid, str(s.get("color", paper)), str(s.get("ink", primary)),
                            str(s.get("label", sid)))
                     for sid, s in sets_of[name].items())
        result[name] = Die(name, tuple(face_of(f, own) for f in die["faces"]),
                           int(die.get("per_player", 1)), sets)
    return result


def die_set(extras: dict[str, Any], set_id: str, title: str = "",
            colors: dict | None = None) -> tuple[Die, DieSet] | None:
    """The die and the coloured set `set_id` of it (a label sheet's one die set)."""
    for die in dice_of(extras, title, colors).values():
        for found in die.sets:
            if found.id == set_id:
                return die, found
    return None
