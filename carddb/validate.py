"""The rules a card database must satisfy: its shape (schema) and the games'
constraints (references between cards, objective values the dice can reach).
Every problem is reported with the line and column of the YAML that is wrong."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from carddb import limits
from carddb.schema import (
    BOOL,
    COLOR,
    INT,
    NONNEG_INT,
    NUMBER,
    POS_INT,
    STR,
    Choice,
    Effects,
    Id,
    ListOf,
    MapOf,
    OneOf,
    Range,
    Report,
    Spec,
    Struct,
    Type,
    did_you_mean,
    join,
    kind_of,
    shown,
)
from carddb.vocab import MARKUP_ICONS, XO_ICONS, XO_LEAGUES, XO_TIMINGS, XO_VERBS, XS_VERBS
from carddb.yamlsource import Pos, key_pos, value_pos

MASK_FACES = [0, 1, 1, 2, 2, 3]  # XO-1
CORE_DECK_SIZE = 25  # "the (25) core cards in your League Deck"


class Size(Spec):
    """A card size: a name from `card_sizes` or [width, height] in mm."""

    expected = "a size name or [width, height] in mm"

    def __init__(self, names):
        self.names = names

    def check(self, value, path, pos, report):
        if isinstance(value, str):
            if value not in self.names:
                report.add(pos, path, f"unknown card size '{shown(value)}'{did_you_mean(value, self.names)}")
                return False
            return True
        return CARD_SIZE.check(value, path, pos, report)


CARD_SIZE = ListOf(Range(*limits.CARD_MM, "a size in mm"), 2, 2)
BACK_OFFSET = Range(-limits.BACK_OFFSET_MM, limits.BACK_OFFSET_MM, "an offset in mm")
PRINT = Struct({}, {
    "paper": Choice(tuple(limits.PAPER_MM)),
    "bleed_mm": Range(0, limits.BLEED_MM, "a bleed in mm"),
    "duplex": Choice(("long-edge", "short-edge")),
    "back_offset_mm": ListOf(BACK_OFFSET, 2, 2),
    "crop_marks": BOOL,
    "die_label_mm": Range(*limits.DIE_LABEL_MM, "a label size in mm"),
    "fonts": Struct({}, {k: STR for k in ("regular", "bold", "italic", "bolditalic")}),
})
PLAYERS = Struct({"min": POS_INT, "max": POS_INT})
COLORS = Struct({}, {"primary": COLOR, "secondary": COLOR, "paper": COLOR})
BACK = Struct({"title": STR}, {"subtitle": STR, "image": STR})
REFERENCE = Struct({"title": STR, "lines": ListOf(STR, 1)})
TOKEN = Struct({"label": STR, "name": STR,
                "count": Type((int,), "a whole number >= 1", minimum=1, maximum=limits.MAX_TOKENS),
                "diameter_mm": Range(*limits.TOKEN_MM, "a diameter in mm")},
               {"color": COLOR})
COPIES = Type((int,), "a whole number >= 1", minimum=1, maximum=limits.MAX_COPIES)

COMMON_REQUIRED = {"name": STR, "type": STR}
COMMON_OPTIONAL = {"text": STR, "copies": COPIES, "image": STR, "flavor": STR}

XS_EFFECTS = Effects(XS_VERBS, "X-Statix")
XO_EFFECTS = Effects(XO_VERBS, "XO!")

# card type -> (required fields, optional fields)
XS_TYPES = {
    "Hero": ({"ability": XS_EFFECTS}, {}),
    "Power": ({}, {"counts": Struct({}, {"carnage": POS_INT, "success": POS_INT}),
                   "event": XS_EFFECTS}),
    "Mission": ({"mission": Struct({}, {"carnage": INT, "success": INT, "payoff": INT})}, {}),
    "Marketing": ({}, {"counts": Struct({}, {"marketing": POS_INT}), "event": XS_EFFECTS}),
    "Owner": ({"ability": XS_EFFECTS}, {}),
    "Team Name": ({"ability": XS_EFFECTS}, {}),
}
LEAGUE = Choice(XO_LEAGUES)
ICON = Choice(XO_ICONS)
XO_TYPES = {
    "Cover": ({"issue": POS_INT}, {}),
    "Episode": ({"issue": POS_INT, "chapters": Choice((7,))}, {}),
    "Objective": ({
        "chapter": Choice((1, 2, 3, 4, 5, 6, 7)),
        "league": LEAGUE,
        "requires": OneOf((Struct({"icon": ICON}), Struct({"keyword": STR}))),
        "feat": STR,
        "fcv": POS_INT,
        "tcv": POS_INT,
    }, {}),
    "Character": ({
        "league": LEAGUE, "attack": NONNEG_INT, "defense": NONNEG_INT, "health": POS_INT,
        "superpower": ICON, "powers": MapOf(ICON, POS_INT), "actions": ListOf(STR, 5, 5),
    }, {
        "attack_effect": STR, "aoe": BOOL, "keywords": MapOf(STR, POS_INT),
        "abilities": ListOf(Choice(("Counterattack",))),
    }),
    "Action": ({"character": STR, "timing": Choice(XO_TIMINGS), "effect": XO_EFFECTS}, {}),
    "Energy": ({"energy": POS_INT}, {}),
    "Modifier": ({"timing": Choice(XO_TIMINGS), "effect": XO_EFFECTS}, {}),
    "Resource": ({"stack": Choice(("npcs", "powers", "tech", "upgrades")), "effect": XO_EFFECTS}, {}),
    "Status": ({"duration": Choice(("status_check", "until_removed")), "ready": BOOL,
                "effect": XO_EFFECTS}, {}),
}
GAME_TYPES = {"x-statix": XS_TYPES, "xo": XO_TYPES}

# Artefacts of a game other than its decks (pnp.build): a deck may not take their file names.
ARTEFACT_NAMES = ("mats", "mats-tiled", "dice-labels", "tokens", "reference", "calibration")
DECK_ID = Id("deck", reserved=ARTEFACT_NAMES)
GAME_COMMON = {"title": STR, "players": PLAYERS, "decks": MapOf(DECK_ID, Struct({}))}
DIE_SET = Struct({"color": COLOR, "ink": COLOR, "label": STR})
GAME_EXTRAS = {
    "x-statix": ({}, {"colors": COLORS, "reference": REFERENCE,
                      "tokens": Struct({"money": TOKEN, "fame": TOKEN})}),
    "xo": ({
        "dice": Struct({"faces": ListOf(INT, 6, 6),
                        "per_player": Type((int,), "a whole number >= 1", minimum=1,
                                           maximum=limits.MAX_DICE),
                        "sets": Struct({"heroes": DIE_SET, "villains": DIE_SET})}),
        "mats": Struct({"heroes": Struct({}), "villains": Struct({})}),
    }, {"colors": COLORS, "reference": REFERENCE}),
}
MAT = Struct({"title": STR, "size_mm": ListOf(Range(*limits.MAT_MM, "a size in mm"), 2, 2),
              "areas": ListOf(Struct({"label": STR, "rect_mm": ListOf(NUMBER, 4, 4)}))})
DECK = Struct({"title": STR, "size": STR, "back": BACK, "cards": ListOf(Struct({}))})


def _at(mapping, key) -> Pos:
    return value_pos(mapping, key, Pos(1, 1))


def _key_at(mapping, key) -> Pos:
    return key_pos(mapping, key, Pos(1, 1))


def check_path(value, path: str, pos: Pos, report: Report, root: Path, what: str) -> None:
    """A file named in the database must lie inside the project folder and exist."""
    if not isinstance(value, str):
        return
    pure = PurePosixPath(value.replace("\\", "/"))
    if not value or "\0" in value or len(value) > 1024 or any(len(p) > 255 for p in pure.parts):
        report.add(pos, path, f"{what} path '{shown(value)}' is not a usable file name")
        return
    try:
        inside = (root / value).resolve().is_relative_to(root.resolve())
        found = (root / value).is_file()
    except (OSError, ValueError, RuntimeError) as exc:
        report.add(pos, path, f"{what} path '{shown(value)}' cannot be used: {shown(str(exc))}")
        return
    if pure.is_absolute() or not inside:
        report.add(pos, path, f"{what} path '{shown(value)}' escapes the project folder (refused)")
    elif not found:
        report.add(pos, path, f"{what} file '{shown(value)}' not found")


def validate(data, report: Report, root: Path) -> None:
    """Check a loaded cards.yaml document; problems go to `report`."""
    if not isinstance(data, dict):
        report.add(Pos(1, 1), "(top)", f"expected a mapping with 'version' and 'games', got {kind_of(data)}")
        return
    top = Struct({"version": Choice((1,)), "games": Struct({})},
                 {"print": PRINT, "card_sizes": MapOf(STR, CARD_SIZE)})
    top.check(data, "", Pos(1, 1), report, ignore=("games",))
    sizes = data.get("card_sizes") if isinstance(data.get("card_sizes"), dict) else {}
    fonts = (data.get("print") or {}).get("fonts") if isinstance(data.get("print"), dict) else None
    if isinstance(fonts, dict):
        for role, font in fonts.items():
            check_path(font, f"print.fonts.{role}", _at(fonts, role), report, root, "font")
    games = data.get("games")
    if "games" not in data:
        return
    if not isinstance(games, dict) or not games:
        report.add(_at(data, "games"), "games", "expected a mapping of games (x-statix, xo)")
        return
    for gid, game in games.items():
        path = join("games", gid)
        if gid not in GAME_TYPES:
            report.add(_key_at(games, gid), path, f"unknown game '{shown(gid)}'{did_you_mean(gid, GAME_TYPES)}")
            continue
        _validate_game(gid, game, path, _at(games, gid), report, root, sizes, data)
    _validate_totals(data, report)


def _print_setting(data, key, default):
    profile = data.get("print")
    value = profile.get(key, default) if isinstance(profile, dict) else default
    if isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        ok = isinstance(value, type(default))
    return value if ok else default


def _validate_totals(data, report: Report) -> None:
    """Limits over the whole database (carddb/limits.py): card designs in all."""
    designs = 0
    for game in data["games"].values() if isinstance(data.get("games"), dict) else ():
        decks = game.get("decks") if isinstance(game, dict) else None
        for deck in decks.values() if isinstance(decks, dict) else ():
            if isinstance(deck, dict) and isinstance(deck.get("cards"), list):
                designs += len(deck["cards"])
    if designs > limits.MAX_CARDS:
        report.add(_at(data, "games"), "games",
                   f"{designs:,} card designs, more than the limit of {limits.MAX_CARDS:,}")


def _copies(card) -> int:
    """A card's copies as counted in deck totals (a refused value counts as 1)."""
    copies = card.get("copies", 1) if isinstance(card, dict) else 1
    return copies if type(copies) is int and 1 <= copies <= limits.MAX_COPIES else 1


def _check_fits(size, path, pos, report, data) -> int:
    """A deck's cards must fit the paper of the print profile with its bleed (what
    `pnp build` draws with the profile's settings). Returns the cards per sheet (0 when
    unknown or none fits)."""
    paper = _print_setting(data, "paper", "letter")
    bleed = _print_setting(data, "bleed_mm", 3.175)
    if paper not in limits.PAPER_MM or not 0 <= bleed <= limits.BLEED_MM:
        return 0                        # reported with the print profile
    per_sheet = limits.cards_per_sheet(size, bleed, paper)
    if not per_sheet:
        report.add(pos, path, f"a {size[0]:g} x {size[1]:g} mm card with {bleed:g} mm bleed "
                              f"does not fit on {paper} paper")
    return per_sheet


def _validate_game(gid, game, path, pos, report, root, sizes, data) -> None:
    required, optional = GAME_EXTRAS[gid]
    spec = Struct({**GAME_COMMON, **required}, optional)
    if not spec.check(game, path, pos, report, ignore=("decks", "mats")):
        if not isinstance(game, dict):
            return
    players = game.get("players")
    if isinstance(players, dict) and isinstance(players.get("min"), int) and isinstance(players.get("max"), int):
        if players["min"] > players["max"]:
            report.add(_at(game, "players"), join(path, "players"), "min is larger than max")
    if gid == "xo" and isinstance(game.get("mats"), dict):
        mats = game["mats"]
        Struct({"heroes": Struct({}), "villains": Struct({})}).check(
            mats, join(path, "mats"), _at(game, "mats"), report, ignore=("heroes", "villains"))
        for league in XO_LEAGUES:
            if league in mats:
                _validate_mat(mats[league], join(path, f"mats.{league}"), _at(mats, league), report)
    if gid == "xo" and isinstance(game.get("dice"), dict):
        faces = game["dice"].get("faces")
        if isinstance(faces, list) and all(isinstance(f, int) for f in faces) and sorted(faces) != MASK_FACES:
            report.add(_at(game["dice"], "faces"), join(path, "dice.faces"),
                       "XO-1: a mask die has the faces 0, 1, 1, 2, 2, 3")
    decks = game.get("decks")
    if not isinstance(decks, dict):
        if "decks" in game:             # `decks: oops`, `decks: [1]`: the loader needs a mapping
            report.add(_at(game, "decks"), join(path, "decks"),
                       f"expected a mapping of deck ids to decks, got {kind_of(decks)}")
        return
    names: dict[str, Pos] = {}
    cards = []  # (card mapping, path, pos, deck id)
    for did, deck in decks.items():
        dpath, dpos = join(join(path, "decks"), did), _at(decks, did)
        if not DECK_ID.check(did, dpath, _key_at(decks, did), report):
            continue
        if not DECK.check(deck, dpath, dpos, report, ignore=("size", "back", "cards")):
            if not isinstance(deck, dict):
                continue
        per_sheet = 0
        if "size" in deck:
            if Size(sizes).check(deck["size"], join(dpath, "size"), _at(deck, "size"), report):
                size = sizes[deck["size"]] if isinstance(deck["size"], str) else deck["size"]
                if CARD_SIZE.check(size, "", Pos(1, 1), Report("")):
                    per_sheet = _check_fits(size, join(dpath, "size"), _at(deck, "size"),
                                            report, data)
        if isinstance(deck.get("cards"), list):
            count = sum(_copies(c) for c in deck["cards"])
            pages = 2 * -(-count // per_sheet) if per_sheet else 0     # fronts and backs
            if count > limits.MAX_DECK_CARDS:
                report.add(_at(deck, "cards"), join(dpath, "cards"),
                           f"{count:,} cards (copies counted), more than the limit of "
                           f"{limits.MAX_DECK_CARDS:,} in one deck")
            elif pages > limits.MAX_PAGES:
                report.add(_at(deck, "cards"), join(dpath, "cards"),
                           f"{count:,} cards print on {pages:,} pages, more than the limit of "
                           f"{limits.MAX_PAGES:,} for one deck")
        if "back" in deck:
            if BACK.check(deck["back"], join(dpath, "back"), _at(deck, "back"), report):
                if "image" in deck["back"]:
                    check_path(deck["back"]["image"], join(dpath, "back.image"),
                               _at(deck["back"], "image"), report, root, "image")
        deck_cards = deck.get("cards")
        if not isinstance(deck_cards, list):
            # Missing is reported by DECK; present but not a list (`cards:` left empty)
            # would otherwise pass and break loading.
            if "cards" in deck:
                report.add(_at(deck, "cards"), join(dpath, "cards"),
                           f"expected a list of cards, got {kind_of(deck_cards)}")
            continue
        if not deck_cards:
            report.add(_at(deck, "cards"), join(dpath, "cards"),
                       "a deck needs at least one card (it would print an empty PDF)")
        for i, card in enumerate(deck_cards):
            cpath, cpos = join(join(dpath, "cards"), i), deck_cards.at(i)
            if _validate_card(gid, card, cpath, cpos, report, root):
                cards.append((card, cpath, cpos, did))
                name = card["name"]
                if name in names:
                    report.add(_at(card, "name"), join(cpath, "name"),
                               f"duplicate card name '{shown(name)}' (first at line {names[name].line})")
                else:
                    names[name] = _at(card, "name")
    if gid == "xo":
        _validate_xo_references(cards, report)
        for league in XO_LEAGUES:
            deck = decks.get(f"{league}-core")
            if isinstance(deck, dict) and isinstance(deck.get("cards"), list):
                count = sum(c.get("copies", 1) for c in deck["cards"]
                            if isinstance(c, dict) and isinstance(c.get("copies", 1), int))
                if count != CORE_DECK_SIZE:
                    report.add(_at(decks, f"{league}-core"), join(path, f"decks.{league}-core"),
                               f"a core League deck has {CORE_DECK_SIZE} cards (copies counted), this one has {count}")


def _validate_mat(mat, path, pos, report) -> None:
    if not MAT.check(mat, path, pos, report):
        return
    width, height = mat["size_mm"]
    for i, area in enumerate(mat["areas"]):
        x, y, w, h = area["rect_mm"]
        if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > width or y + h > height:
            report.add(mat["areas"].at(i), join(path, f"areas[{i}].rect_mm"),
                       f"area '{area['label']}' does not lie inside the {width} x {height} mm mat")


def _validate_card(gid, card, path, pos, report, root) -> bool:
    types = GAME_TYPES[gid]
    if not isinstance(card, dict):
        report.add(pos, path, f"expected a card mapping with name and type, got {kind_of(card)}")
        return False
    ctype = card.get("type")
    if not isinstance(ctype, str) or ctype not in types:
        # Without a known type only the common fields can be checked.
        if isinstance(ctype, str):
            report.add(_at(card, "type"), join(path, "type"),
                       f"'{shown(ctype)}' is not a card type of {gid}{did_you_mean(ctype, types)}")
        # A key that is a field of some card type of the game is left alone; one that is
        # a field of none (`tpye`) is still reported, with its did-you-mean.
        known = {**COMMON_REQUIRED, **COMMON_OPTIONAL}
        any_type = {k for required, optional in types.values() for k in (*required, *optional)}
        Struct(COMMON_REQUIRED, COMMON_OPTIONAL).check(
            card, path, pos, report, ignore=tuple(k for k in card if k not in known and k in any_type))
        return False
    required, optional = types[ctype]
    Struct({**COMMON_REQUIRED, **required}, {**COMMON_OPTIONAL, **optional}).check(card, path, pos, report)
    if "image" in card:
        check_path(card["image"], join(path, "image"), _at(card, "image"), report, root, "image")
    for key in ("text", "flavor"):
        _check_inline_icons(card.get(key), join(path, key), _at(card, key), report)
    # Cross-reference checks still see a card whose other fields are wrong, so one
    # mistake does not cascade into false "no such card" reports.
    return isinstance(card.get("name"), str)


_INLINE_ICON = re.compile(r"\\.|\{icon:([^{}\s]*)\}", re.S)  # `\{` escapes the brace


def _check_inline_icons(text, path: str, pos: Pos, report: Report) -> None:
    """`{icon:NAME}` in card text must name an icon the printer can draw: caught here,
    not first by `pnp build` in the middle of a deck."""
    if not isinstance(text, str):
        return
    for m in _INLINE_ICON.finditer(text):
        name = m.group(1)
        if name is not None and name not in MARKUP_ICONS:
            report.add(pos, path, f"unknown icon {{icon:{name}}}{did_you_mean(name, MARKUP_ICONS)}")


def _feat_dice(character: dict, requires: dict) -> int:
    traits = character.get("powers" if "icon" in requires else "keywords")
    dice = traits.get(requires.get("icon", requires.get("keyword"))) if isinstance(traits, dict) else 0
    return dice if isinstance(dice, int) and not isinstance(dice, bool) else 0


def _str_list(value) -> list:
    return value if isinstance(value, list) else []


def _validate_xo_references(cards, report) -> None:
    by_type: dict[str, list] = {}
    for entry in cards:
        by_type.setdefault(entry[0]["type"], []).append(entry)
    statuses = {c["name"] for c, *_ in by_type.get("Status", [])}
    characters = {c["name"]: c for c, *_ in by_type.get("Character", [])}
    actions = {c["name"]: c for c, *_ in by_type.get("Action", [])}

    def check_status(name, path, pos):
        if name not in statuses:
            report.add(pos, path, f"no Status card named '{shown(name)}'{did_you_mean(name, statuses)}")

    for card, path, _pos, did in cards:
        for i, effect in enumerate(_str_list(card.get("effect"))):
            for verb in ("tag", "remove"):
                if isinstance(effect, dict) and isinstance(effect.get(verb), str):
                    check_status(effect[verb], join(path, f"effect[{i}].{verb}"), _at(effect, verb))
        league_prefix = did.split("-")[0]
        if "league" in card and league_prefix in XO_LEAGUES and card["league"] != league_prefix:
            report.add(_at(card, "league"), join(path, "league"),
                       f"a {card['league']} card in the {did} deck")
    for card, path, _pos, _did in by_type.get("Character", []):
        if isinstance(card.get("attack_effect"), str):
            check_status(card["attack_effect"], join(path, "attack_effect"), _at(card, "attack_effect"))
        for i, action in enumerate(_str_list(card.get("actions"))):
            apath, apos = join(path, f"actions[{i}]"), card["actions"].at(i)
            if not isinstance(action, str):
                continue
            if action not in actions:
                report.add(apos, apath, f"no Action card named '{shown(action)}'{did_you_mean(action, actions)}")
            elif actions[action].get("character") not in (card["name"], None):
                report.add(apos, apath, f"Action card '{shown(action)}' belongs to '{shown(actions[action]['character'])}'")
    for card, path, _pos, _did in by_type.get("Action", []):
        if isinstance(card.get("character"), str) and card["character"] not in characters:
            report.add(_at(card, "character"), join(path, "character"),
                       f"no Character named '{shown(card['character'])}'{did_you_mean(card['character'], characters)}")
    # XO-12: seven chapters, each with one objective per league.
    seen: dict[tuple, Pos] = {}
    for card, path, pos, _did in by_type.get("Objective", []):
        if not (card.get("chapter") in range(1, 8) and card.get("league") in XO_LEAGUES):
            continue
        key = (card["chapter"], card["league"])
        if key in seen:
            report.add(_at(card, "chapter"), join(path, "chapter"),
                       f"chapter {key[0]} already has a {key[1]} objective (line {seen[key].line})")
        seen[key] = pos
        _validate_objective_values(card, path, characters, report)
    if by_type.get("Objective"):
        missing = [f"{c} {lg}" for c in range(1, 8) for lg in XO_LEAGUES if (c, lg) not in seen]
        if missing:
            first = by_type["Objective"][0]
            report.add(first[2], first[1].rsplit(".cards", 1)[0],
                       "XO-12: missing objectives for chapter " + ", ".join(missing))


def _validate_objective_values(card, path, characters, report) -> None:
    """XO-13/XO-14: the FCV must be reachable by a character of the objective's league
    with the required icon or keyword, the TCV by one of the other league."""
    requires = card.get("requires")
    if not (isinstance(requires, dict) and len(requires) == 1
            and isinstance(requires.get("icon", requires.get("keyword")), str)):
        return
    what = f"icon '{requires['icon']}'" if "icon" in requires else f"keyword '{requires['keyword']}'"
    own = card["league"]
    other = "villains" if own == "heroes" else "heroes"
    for value_key, league in (("fcv", own), ("tcv", other)):
        dice = max((_feat_dice(c, requires) for c in characters.values() if c.get("league") == league),
                   default=0)
        value = card.get(value_key)
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        if dice == 0:
            report.add(_at(card, "requires"), join(path, "requires"),
                       f"no {league} character has the {what}, so the {value_key.upper()} cannot be reached")
        elif value > 3 * dice:
            report.add(_at(card, value_key), join(path, value_key),
                       f"{value_key.upper()} {value} is impossible: the best {league} character rolls "
                       f"{dice} mask dice (at most {3 * dice})")
