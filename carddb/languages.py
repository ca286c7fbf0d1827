"""One game in several languages (docs/CARDS.md, "Languages").

cards.yaml declares `languages: [en, de]` (the first is the default) or, when a language
prints with its own fonts, `languages: {en: {}, de: {fonts: {regular: fonts/X.ttf}}}`.
A translatable value is then written either as it always was (the default language's
text) or as a mapping by language (`text: {en: Draw 2., de: Ziehe 2.}`), or beside its
field as `text@de` (a YAML key, a spreadsheet column).

Validation (carddb.validate) takes the translations out before anything else reads the
value (`Collector`): the database is validated in its default language exactly as a
database without languages, and `Database.languages` keeps the rest. `localised(db,
lang)` is the one step that picks a language's values: a pure function from the
database to the database as printed in that language, whose cards, titles, tokens,
dice, phases and turn summary hold ordinary values. A card keeps its identity, its
default-language name (`Deck.identities`); `card_identity` answers the referee.

What is translated is what the designer translates: once one value of a kind (a card
type's field, the deck titles, the token names, the phases, the turn summary...) has a
translation, every value of that kind needs one in every declared language, and each
one missing is listed (`Languages.missing`: a warning of `pnp validate`). A game
without `languages` pays for none of this: nothing here runs per card.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CODE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*\Z")
FONT_ROLES = ("regular", "bold", "italic", "bolditalic")
# The card fields always translatable besides the declared `text` fields.
CARD_TEXTS = ("name", "text", "flavor")


@dataclass(frozen=True)
class Missing:
    """A translatable value with no text in `lang` (printed in the default language)."""

    lang: str
    where: str              # FILE:LINE:COL or a spreadsheet cell
    path: str               # games.harbour.decks.storms.cards[2].text
    card: str | None = None
    game: str = ""
    deck: str | None = None

    def __str__(self) -> str:
        from carddb.schema import one_line

        named = f" (card '{self.card}')" if self.card is not None else ""
        return one_line(f"{self.where}: {self.path}: no '{self.lang}' translation{named}")


@dataclass(frozen=True)
class Languages:
    """What `languages:` declares and the translations the database holds."""

    codes: tuple[str, ...]                       # the first is the default
    fonts: dict[str, dict[str, str]] = field(default_factory=dict)   # lang -> role -> path
    # lang -> (game id, place) -> value. A card's place is ("card", deck, index, field); a
    # game's other places are paths into it: ("decks", D, "title"), ("tokens", T, "name"),
    # ("phases", 2), ("reference", "lines", 0), ("dice", D, "label")...
    values: dict[str, dict[tuple, Any]] = field(default_factory=dict)
    missing: tuple[Missing, ...] = ()
    # game id -> a card's name in any language, case-folded -> its identity
    names: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def default(self) -> str:
        return self.codes[0]


def codes_of(db: Any) -> tuple[str, ...]:
    """The declared languages of a database (none: empty)."""
    langs = getattr(db, "languages", None)
    return langs.codes if langs is not None else ()


def chosen(db: Any, lang: str | None) -> list[str]:
    """The languages `--lang` names: `all`, one code, or None (the default language, or
    nothing when none is declared). ValueError naming the declared ones otherwise."""
    codes = codes_of(db)
    if lang is None:
        return [codes[0]] if codes else []
    if not codes:
        raise ValueError(f"--lang {lang}: cards.yaml declares no languages (add "
                         "`languages: [en, de]`, the first the default)")
    if lang == "all":
        return list(codes)
    if lang not in codes:
        raise ValueError(f"--lang {lang}: not a language of cards.yaml (it declares "
                         f"{', '.join(codes)}; or all)")
    return [lang]


# ── the resolution step ────────────────────────────────────────────────────────────

def localised(db: Any, lang: str) -> Any:
    """The database as printed in `lang`: every translated value replaced by its `lang`
    text (an untranslated one keeps the default's), the language's own fonts over
    print.fonts, `db.language` set. Pure: `db` is left as it is."""
    langs = db.languages
    if langs is None or lang not in langs.codes:
        raise ValueError(f"{lang!r} is not a declared language")
    table = langs.values.get(lang, {}) if lang != langs.default else {}
    by_game: dict[str, dict[tuple, Any]] = {}
    for (gid, place), value in table.items():
        by_game.setdefault(gid, {})[place] = value
    games = {gid: _game(game, by_game.get(gid, {})) for gid, game in db.games.items()}
    fonts = {**db.print.fonts, **langs.fonts.get(lang, {})}
    profile = dataclasses.replace(db.print, fonts=fonts) if fonts != db.print.fonts else db.print
    return dataclasses.replace(db, games=games, print=profile, language=lang)


def _game(game: Any, places: dict[tuple, Any]) -> Any:
    if not places:
        return game
    cards: dict[str, dict[int, dict[str, Any]]] = {}
    decks: dict[str, dict[tuple, Any]] = {}
    extras: dict[tuple, Any] = {}
    for place, value in places.items():
        if place[0] == "card":
            cards.setdefault(place[1], {}).setdefault(place[2], {})[place[3]] = value
        elif place[0] == "decks":
            decks.setdefault(place[1], {})[place[2:]] = value
        else:
            extras[place] = value
    new_decks = {did: _deck(deck, cards.get(did, {}), decks.get(did, {}))
                 for did, deck in game.decks.items()}
    return dataclasses.replace(game, decks=new_decks, extras=_set_all(game.extras, extras))


def _deck(deck: Any, cards: dict[int, dict[str, Any]], own: dict[tuple, Any]) -> Any:
    if not cards and not own:
        return deck
    changes: dict[str, Any] = {}
    if cards:
        changes["cards"] = tuple(_card(c, cards[i]) if i in cards else c
                                 for i, c in enumerate(deck.cards))
        if any("name" in t for t in cards.values()):
            changes["identities"] = deck.card_ids()
    if ("title",) in own:
        changes["title"] = own[("title",)]
    back = {k[1]: v for k, v in own.items() if k[0] == "back"}
    if back:
        changes["back"] = {**deck.back, **back}
    return dataclasses.replace(deck, **changes)


def _card(card: Any, texts: dict[str, Any]) -> Any:
    fields = {k: v for k, v in texts.items() if k not in ("name", "text")}
    return dataclasses.replace(card, name=texts.get("name", card.name),
                               text=texts.get("text", card.text),
                               fields={**card.fields, **fields} if fields else card.fields)


def _set_all(extras: dict[str, Any], values: dict[tuple, Any]) -> dict[str, Any]:
    """`extras` with each path of `values` set (the containers on the way copied)."""
    if not values:
        return extras
    import copy

    out = copy.deepcopy(extras)
    for path, value in values.items():
        node = out
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return out


def card_identity(db: Any, game: str, name: str) -> str | None:
    """The identity (default-language name) of the card of `game` called `name` in any
    declared language (case-folded), or None."""
    langs = getattr(db, "languages", None)
    if langs is None:
        return None
    return langs.names.get(game, {}).get(name.strip().casefold())


# ── taking the translations out while validating ──────────────────────────────────

def declared(value: Any, pos: Any, report: Any, root: Path) -> Collector | None:
    """The `languages:` of cards.yaml checked; a Collector for the validation, or None
    (none declared, or declared wrong: reported)."""
    from carddb.files import check_path
    from carddb.schema import STR, Struct, kind_of, shown
    from carddb.yamlsource import Pos, key_pos, value_pos

    entries: list[tuple[Any, Any, Pos]]
    if isinstance(value, list):
        entries = [(code, {}, value_pos(value, i, pos)) for i, code in enumerate(value)]
    elif isinstance(value, dict):
        entries = [(code, spec, key_pos(value, code, pos)) for code, spec in value.items()]
    else:
        report.add(pos, "languages", "expected a list of language codes ([en, de], the first "
                   f"the default) or a mapping of them to {{fonts}}, got {kind_of(value)}")
        return None
    if not entries:
        report.add(pos, "languages", "no language: list at least one ([en, de])")
        return None
    ok, seen = True, set()
    fonts: dict[str, dict[str, str]] = {}
    spec = Struct({}, {"fonts": Struct({}, dict.fromkeys(FONT_ROLES, STR))})
    for code, lang_spec, at in entries:
        path = f"languages.{shown(code)}" if isinstance(code, str) else "languages"
        if not isinstance(code, str) or not CODE.match(code):
            report.add(at, path, f"'{shown(code)}' is not a language code (lower-case "
                                 "letters like en, de, pt-BR)")
            ok = False
            continue
        if code in seen:
            report.add(at, path, f"language '{code}' is declared twice")
            ok = False
        seen.add(code)
        if isinstance(value, dict):
            where = value_pos(value, code, Pos(1, 1))
            if lang_spec is None:
                lang_spec = {}
            if not spec.check(lang_spec, path, where, report):
                ok = False
                continue
            own = lang_spec.get("fonts") or {}
            for role, font in own.items():
                check_path(font, f"{path}.fonts.{role}", value_pos(own, role, where), report,
                           root, "font")
            if own:
                fonts[code] = {k: str(v) for k, v in own.items()}
    if not ok:
        return None
    return Collector(tuple(code for code, _, _ in entries), fonts, report)


@dataclass
class _Place:
    """Where a translated value was given (its game, file and card) and in which languages."""
    gid: str
    place: tuple
    where: str
    path: str
    card: str | None
    has: set[str]
    cells: dict[str, str]       # a spreadsheet's cell of each language's column


class _Untranslated:
    """A value given in the default language only (Collector.take): its `_Place`, made
    when a translation of its kind makes it a missing one."""

    __slots__ = ("container", "key", "gid", "place", "path", "card")

    def __init__(self, container: Any, key: Any, gid: str, place: tuple,
                 path: str | tuple[str, Any], card: str | None) -> None:
        # path: the value's field path, or (its container's path, key) to join only when
        # it is placed (a card's values, 24,000 of them in an 8,000-card deck)
        self.container, self.key, self.gid, self.place = container, key, gid, place
        self.path, self.card = path, card

    def place_in(self, collector: Collector) -> _Place:
        from carddb.schema import join
        from carddb.yamlsource import Pos, value_pos

        container, key = self.container, self.key
        here = value_pos(container, key, getattr(container, "pos", Pos(1, 1)))
        where = here.where or f"{collector.report.file}:{here.line}:{here.col}"
        path = self.path if isinstance(self.path, str) else join(*self.path)
        return _Place(self.gid, self.place, where, path, self.card, set(),
                      _cells(container, key, collector.codes))


def _cells(card: Any, key: str, codes: tuple[str, ...]) -> dict[str, str]:
    """Where a sheet row's `key@lang` cells are (a missing translation is written
    there), for a card read from a spreadsheet (carddb.sheets)."""
    found = getattr(card, "_sheet", None)
    if found is None:
        return {}
    sheet, cols, _ = found
    return {lang: sheet.pos(card._row, cols[f"{key}@{lang}"]).where
            for lang in codes[1:] if f"{key}@{lang}" in cols}


class Collector:
    """Takes the translations out of a database being validated (in place: each value
    becomes its default-language text) and keeps them for `Languages`."""

    def __init__(self, codes: tuple[str, ...], fonts: dict[str, dict[str, str]], report: Any):
        self.codes, self.fonts, self.report = codes, fonts, report
        self.values: dict[str, dict[tuple, Any]] = {c: {} for c in codes[1:]}
        self.kinds: dict[tuple, list[_Place | _Untranslated]] = {}
        self.names: dict[str, dict[str, str]] = {}
        self.translated: set[tuple] = set()      # kinds with at least one translation
        self.translated_names: set[str] = set()  # case-folded names given as translations

    def result(self) -> Languages:
        missing = []
        for kind, places in self.kinds.items():
            if kind not in self.translated:
                continue
            for found in places:
                p = found.place_in(self) if isinstance(found, _Untranslated) else found
                deck = p.place[1] if p.place[0] in ("card", "decks") else None
                missing += [Missing(lang, p.cells.get(lang, p.where), p.path, p.card, p.gid,
                                    deck)
                            for lang in self.codes[1:] if lang not in p.has]
        return Languages(self.codes, self.fonts, self.values, tuple(missing), self.names)

    # ── one value ──────────────────────────────────────────────────────────────
    def take(self, container: Any, key: Any, gid: str, place: tuple, kind: tuple, path: str,
             name: bool = False, card: str | None = None, extra: dict | None = None) -> None:
        """Take the translations of `container[key]` (a mapping by language, and
        `extra`: {lang: (value, pos)} from `key@lang` keys) out, leaving its default text."""
        if isinstance(container, list):
            value = container[key]
        elif isinstance(container, dict):
            value = container.get(key)
        else:
            return
        if not extra and not isinstance(value, dict):
            # no translation given (most values): where it is is looked up only if another
            # value of its kind is translated (`result`): a deck of 8,000 cards re-read
            # after a one-card edit does not place every card's text (issue 36 item 2)
            if isinstance(value, str) and value:
                self.kinds.setdefault(kind, []).append(
                    _Untranslated(container, key, gid, place, path, card))
            return
        self._given(container, key, value, gid, place, kind, path, name, card, extra)

    def _given(self, container: Any, key: Any, value: Any, gid: str, place: tuple, kind: tuple,
               path: str, name: bool, card: str | None, extra: dict | None) -> None:
        """`take` of a value given in several languages (a mapping, or `key@lang` keys)."""
        from carddb.schema import NAME, STR, join, shown
        from carddb.yamlsource import LocatedList, Pos, value_pos

        here = value_pos(container, key, getattr(container, "pos", Pos(1, 1)))
        found: dict[str, tuple[Any, Any]] = dict(extra or {})
        default = self.codes[0]
        if isinstance(value, dict):
            for lang, text in value.items():
                at = value_pos(value, lang, here)
                if lang not in self.codes:
                    self.report.add(at, join(path, lang), _unknown(lang, self.codes))
                    continue
                found[lang] = (text, at)
            if default not in value:
                self.report.add(here, path, f"no '{default}' text: the default language's "
                                            f"text is required ({shown(key)}: {{{default}: "
                                            f"..., ...}})")
                return
            container[key] = value[default]
            if isinstance(container, LocatedList):
                container.item_pos[key] = value_pos(value, default, here)
            elif isinstance(getattr(container, "value_pos", None), dict):
                container.value_pos[key] = value_pos(value, default, here)
        elif value is None and found:
            self.report.add(here, path, f"a translation without the '{default}' text "
                                        f"(add {shown(key)}: ...)")
            return
        spec = NAME if name else STR
        has = set()
        for lang, (text, at) in found.items():
            if lang == default:
                continue
            if not spec.check(text, join(path, lang), at, self.report):
                continue
            self.values[lang][(gid, place)] = text
            has.add(lang)
        if found:
            self.translated.add(kind)
        written = container[key] if isinstance(container, list) else container.get(key)
        if isinstance(written, str) and written:
            where = here.where or f"{self.report.file}:{here.line}:{here.col}"
            self.kinds.setdefault(kind, []).append(
                _Place(gid, place, where, path, card, has, _cells(container, key, self.codes)))

    # ── a game's places ────────────────────────────────────────────────────────
    def game(self, gid: str, game: Any, path: str) -> None:
        """Deck titles and backs, tokens, dice, phases and the turn summary of a game."""
        from carddb.schema import join

        if not isinstance(game, dict):
            return
        decks = game.get("decks")
        for did, deck in decks.items() if isinstance(decks, dict) else ():
            dpath = join(join(path, "decks"), did)
            self.take(deck, "title", gid, ("decks", did, "title"), (gid, "deck title"),
                      join(dpath, "title"), name=True)
            back = deck.get("back") if isinstance(deck, dict) else None
            for key in ("title", "subtitle"):
                self.take(back, key, gid, ("decks", did, "back", key), (gid, "back", key),
                          join(join(dpath, "back"), key))
        tokens = game.get("tokens")
        for tid, token in tokens.items() if isinstance(tokens, dict) else ():
            tpath = join(join(path, "tokens"), tid)
            self.take(token, "name", gid, ("tokens", tid, "name"), (gid, "token name"),
                      join(tpath, "name"), name=True)
            self.take(token, "label", gid, ("tokens", tid, "label"), (gid, "token label"),
                      join(tpath, "label"))
        self._dice(gid, game.get("dice"), join(path, "dice"))
        phases = game.get("phases")
        for i, phase in enumerate(phases if isinstance(phases, list) else ()):
            if isinstance(phase, dict) and ("name" in phase or "steps" in phase):
                # a phase with steps (rules as data, carddb.gamerules): its name translated
                self.take(phase, "name", gid, ("phases", i, "name"), (gid, "phases"),
                          join(join(join(path, "phases"), i), "name"), name=True)
                continue
            self.take(phases, i, gid, ("phases", i), (gid, "phases"),
                      join(join(path, "phases"), i), name=True)
        ref = game.get("reference")
        if isinstance(ref, dict):
            rpath = join(path, "reference")
            self.take(ref, "title", gid, ("reference", "title"), (gid, "reference title"),
                      join(rpath, "title"))
            lines = ref.get("lines")
            for i in range(len(lines)) if isinstance(lines, list) else ():
                self.take(lines, i, gid, ("reference", "lines", i),
                          (gid, "reference lines"), join(join(rpath, "lines"), i))

    def _dice(self, gid: str, dice: Any, path: str) -> None:
        from carddb.schema import join

        if not isinstance(dice, dict):
            return
        if "faces" in dice:                     # one die, its sets named
            sets = dice.get("sets")
            for sid, one in sets.items() if isinstance(sets, dict) else ():
                self.take(one, "label", gid, ("dice", "sets", sid, "label"), (gid, "die label"),
                          join(join(join(path, "sets"), sid), "label"))
            return
        for name, die in dice.items():
            self.take(die, "label", gid, ("dice", name, "label"), (gid, "die label"),
                      join(join(path, name), "label"))

    # ── a deck's cards ─────────────────────────────────────────────────────────
    def cards(self, gid: str, did: str, cards: list, path: str, types: dict) -> None:
        """The translations of a deck's cards (before they are checked)."""
        from carddb.schema import join

        # A deck has few types and few sets of columns, many cards: what a card's keys
        # make of it (whether any is `field@lang`, its text fields in order) is worked
        # out once per type and keys (issue 36 item 2: 8,000 cards re-read after an edit)
        shapes: dict[tuple, tuple[bool, set[str], list[str]]] = {}
        for i, card in enumerate(cards):
            if not isinstance(card, dict):
                continue
            tname = card.get("type") if isinstance(card.get("type"), str) else None
            keys = tuple(card)
            shape = shapes.get((tname, keys))
            if shape is None:
                texts = _texts(types.get(tname) if tname is not None else None)
                shape = shapes[(tname, keys)] = (
                    any(isinstance(k, str) and "@" in k for k in keys), texts,
                    sorted(texts & set(keys), key=_field_order))
            suffixed, texts, order = shape
            cpath = f"{path}[{i}]"
            name = card.get("name") if isinstance(card.get("name"), str) else None
            if suffixed:
                extra = self._suffixed(card, cpath, texts)
                for key in sorted(texts & (set(card) | set(extra)), key=_field_order):
                    self.take(card, key, gid, ("card", did, i, key),
                              (gid, "card", tname, key), join(cpath, key),
                              name=key == "name", card=_identity(card, name),
                              extra=extra.get(key))
            else:
                self._plain(card, order, gid, did, i, tname, cpath, name)
            self._name(gid, card, i, did)

    def _plain(self, card: dict, order: list[str], gid: str, did: str, i: int,
               tname: str | None, cpath: str, name: str | None) -> None:
        """`take` of a card's text fields `order` with no `field@lang` key beside them;
        a value's path is joined only if it is ever placed (_Untranslated)."""
        kinds = self.kinds
        identity = _identity(card, name)
        for key in order:
            value = card.get(key)
            if isinstance(value, dict):
                from carddb.schema import join

                self._given(card, key, value, gid, ("card", did, i, key),
                            (gid, "card", tname, key), join(cpath, key), key == "name",
                            identity, None)
                identity = _identity(card, name)    # a name given by language: its text now
            elif isinstance(value, str) and value:
                kinds.setdefault((gid, "card", tname, key), []).append(
                    _Untranslated(card, key, gid, ("card", did, i, key), (cpath, key),
                                  identity))

    def _suffixed(self, card: dict, path: str, texts: set) -> dict[str, dict]:
        """`field@lang` keys of a card, taken out: {field: {lang: (value, pos)}}."""
        from carddb.schema import join, shown
        from carddb.yamlsource import Pos, value_pos

        out: dict[str, dict] = {}
        for key in [k for k in card if isinstance(k, str) and "@" in k]:
            base, _, lang = key.partition("@")
            at = value_pos(card, key, getattr(card, "pos", Pos(1, 1)))
            value = card.pop(key)
            if base not in texts:
                self.report.add(at, join(path, key), f"'{shown(base)}' is not a text field "
                                "of this card: only text is translated")
            elif lang not in self.codes[1:]:
                self.report.add(at, join(path, key), _unknown(lang, self.codes[1:]))
            else:
                out.setdefault(base, {})[lang] = (value, at)
        return out

    def _name(self, gid: str, card: dict, i: int, did: str) -> None:
        """Each name a card has, in any language, names it alone in its game."""
        from carddb.schema import shown

        name = card.get("name")
        if not isinstance(name, str):
            return
        known = self.names.setdefault(gid, {})
        place = (gid, ("card", did, i, "name"))
        own = [(name, False)] + [(v[place], True) for v in self.values.values() if place in v]
        for text, translated in own:
            key = text.strip().casefold()
            if translated:
                self.translated_names.add(key)
            other = known.get(key)
            if other is not None and other != name and key in self.translated_names:
                self.report.add(_pos_of(card, "name"), f"games.{gid}.decks.{did}.cards[{i}].name",
                                f"the translated name '{shown(text)}' is also the name of "
                                f"card '{shown(other)}'")
            known.setdefault(key, name)


def _pos_of(card: dict, key: str) -> Any:
    from carddb.yamlsource import Pos, value_pos

    return value_pos(card, key, getattr(card, "pos", Pos(1, 1)))


def _texts(ctype: Any) -> set[str]:
    """The translatable fields of a card of type `ctype` (None: an undeclared type)."""
    texts = set(CARD_TEXTS)
    if ctype is not None:
        texts.update(f for f, d in ctype.fields.items() if d.kind == "text")
    return texts


def _identity(card: dict, name: str | None) -> str | None:
    value = card.get("name")
    if isinstance(value, dict):
        value = next(iter(value.values()), None)
    return value if isinstance(value, str) else name


def _field_order(key: str) -> tuple[int, str]:
    return (0 if key == "name" else 1, key)


def _unknown(lang: Any, codes: tuple[str, ...]) -> str:
    from carddb.schema import did_you_mean, shown

    return (f"'{shown(lang)}' is not a declared language{did_you_mean(lang, codes)} "
            f"(languages: {', '.join(codes) or 'the default only'})")
