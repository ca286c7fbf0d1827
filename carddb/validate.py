"""The shape every card database must have, and each game's cards checked against the
card types and fields the game declares (carddb.fields). What a game's rules add on top
(references between cards, deck sizes, dice) is its rules plug-in's (carddb.rules),
attached by `rules: ID`. Every problem is reported with the line and column of the YAML
(or the spreadsheet cell) that is wrong."""

from __future__ import annotations

import re
from pathlib import Path

from carddb import limits
from carddb.dice import DICE, check_face_icons, unknown_icon
from carddb.fields import ANY, check_card
from carddb.files import check_path
from carddb.schema import (
    BOOL,
    COLOR,
    NAME,
    NUMBER,
    POS_INT,
    STR,
    Choice,
    Id,
    ListOf,
    MapOf,
    Pattern,
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
from carddb.specs import TOKEN
from carddb.vocab import MARKUP_ICONS
from carddb.yamlsource import Pos, key_pos, value_pos


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
    # the backs' scale and turn about the page centre, as calibration.pdf measures them
    "back_scale_pct": ListOf(Range(*limits.BACK_SCALE_PCT, "a percentage"), 2, 2),
    "back_rotate_deg": Range(-limits.BACK_ROTATE_DEG, limits.BACK_ROTATE_DEG,
                             "an angle in degrees"),
    "crop_marks": BOOL,
    "die_label_mm": Range(*limits.DIE_LABEL_MM, "a label size in mm"),
    # the smallest printed text, after every scaling (issue 12: below 6 pt few can read it)
    "min_text_pt": Type((int, float), "a number of points", minimum=4, maximum=12),
    # the band along each paper edge the printer cannot print (docs/PRINTING.md)
    "printer_margin_mm": Type((int, float), "a number of mm from 0 to 25", minimum=0,
                              maximum=25),
    "layout": Choice(("auto", "gutters", "abut")),
    # the rounding of each card's corners, for cutting machines (pnp export cut)
    "corner_radius_mm": Range(0, 20, "a radius in mm"),
    # light frames and backs for home printing (templates read INK_SAVER; pnp build --ink-saver)
    "ink_saver": BOOL,
    "fonts": Struct({}, {k: STR for k in ("regular", "bold", "italic", "bolditalic")}),
    # the look of the sheets' cut and fold guides (pnp/artefacts/guides.py)
    "cut_guides": Struct({}, {"color": COLOR, "halo_color": COLOR,
                              "width": Range(0.05, 5, "a line width in pt"),
                              "halo": Range(0, 10, "a line width in pt"),
                              "mark_width": Range(0.05, 5, "a line width in pt"),
                              "dash": ListOf(Range(0.1, 50, "a length in pt"), 2, 2)}),
})
# The version stamp templates may print ({{ version }}, {{ build_date }}: pnp.artefacts.drawn).
RELEASE = Struct({}, {"version": STR,
                      "date": Pattern(r"\d{4}-\d{2}-\d{2}", "a date YYYY-MM-DD in quotes")})
# Output profiles for print shops (pnp/exports/profiles.py: `like` names a built-in preset).
PROFILE = Struct({}, {
    "like": STR, "title": STR, "format": Choice(("png", "jpg", "pdf")),
    "dpi": Range(72, 1200, "a resolution in dpi"),
    "bleed_mm": Range(0, limits.BLEED_MM, "a bleed in mm"),
    "sizes": MapOf(STR, CARD_SIZE), "copies": Choice(("files", "once")), "backs": BOOL,
    "naming": STR, "note": STR, "colour": Choice(("rgb", "cmyk")),
    "ink_limit": Range(100, 400, "a total ink in percent"), "icc": STR, "back_first": BOOL,
})
PLAYERS = Struct({"min": POS_INT, "max": POS_INT})
COLORS = Struct({}, {"primary": COLOR, "secondary": COLOR, "paper": COLOR})
BACK = Struct({"title": STR}, {"subtitle": STR, "image": STR})
# the turn summary: `copies` (default: players.max, one per player), `size` a card size
# name or [width, height] mm (default: half the page's printable area)
REFERENCE = Struct({"title": STR, "lines": ListOf(STR, 1)},
                   {"copies": Type((int,), "a whole number from 1 to 20", minimum=1, maximum=20),
                    "size": ANY})

# A deck id becomes a file name. The names a deck may not take (what a program writes
# beside the decks: pnp's artefacts) are the caller's, passed to carddb.load(reserved=).
DECK_ID = Id("deck")
# A game: what every game has, then the components pnp prints for any game that has them.
GAME_REQUIRED = {"title": NAME, "players": PLAYERS, "types": ANY, "decks": MapOf(DECK_ID, Struct({}))}
GAME_OPTIONAL = {"rules": ANY, "colors": COLORS, "reference": REFERENCE,
                 "tokens": MapOf(NAME, TOKEN), "dice": DICE, "mats": MapOf(STR, ANY),
                 "phases": ListOf(ANY, 1), "icons": ANY}
# Rules declared as data (carddb.gamerules), for a game without a rules plug-in; its
# `phases` may then give each phase steps (a phase's name is checked there as a NAME).
RULES_AS_DATA = {key: ANY for key in ("zones", "hand_limit", "rolls", "effects", "end", "score",
                                      "tie_break")}
# Colours that tell kinds apart (card types, suits, leagues...): set name -> kind -> colour,
# for templates to read (game.extras.kind_colors) and pnp to check for colour vision.
GAME_OPTIONAL["kind_colors"] = MapOf(STR, MapOf(STR, COLOR))
MAT = Struct({"title": STR, "size_mm": ListOf(Range(*limits.MAT_MM, "a size in mm"), 2, 2),
              "areas": ListOf(Struct({"label": STR, "rect_mm": ListOf(NUMBER, 4, 4)}))})
DECK = Struct({"title": NAME, "size": STR, "back": BACK, "cards": ListOf(Struct({}))})
SHEET_SOURCE = Struct({"from": STR}, {"sheet": STR, "type": STR})
GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]*\Z")


def _at(mapping, key) -> Pos:
    return value_pos(mapping, key, Pos(1, 1))


def _key_at(mapping, key) -> Pos:
    return key_pos(mapping, key, Pos(1, 1))


def validate(data, report: Report, root: Path) -> None:
    """Check a loaded cards.yaml document; problems go to `report`."""
    if not isinstance(data, dict):
        report.add(Pos(1, 1), "(top)", f"expected a mapping with 'version' and 'games', got {kind_of(data)}")
        return
    top = Struct({"version": Choice((1,)), "games": Struct({})},
                 {"print": PRINT, "card_sizes": MapOf(STR, CARD_SIZE), "release": RELEASE,
                  "profiles": MapOf(Id("profile"), PROFILE), "languages": ANY})
    top.check(data, "", Pos(1, 1), report, ignore=("games",))
    if "languages" in data:             # carddb/languages.py: nothing of it runs otherwise
        from carddb import languages

        report.languages = languages.declared(data["languages"], _at(data, "languages"),
                                              report, root)
    sizes = data.get("card_sizes") if isinstance(data.get("card_sizes"), dict) else {}
    fonts = (data.get("print") or {}).get("fonts") if isinstance(data.get("print"), dict) else None
    if isinstance(fonts, dict):
        for role, font in fonts.items():
            check_path(font, f"print.fonts.{role}", _at(fonts, role), report, root, "font")
    games = data.get("games")
    if "games" not in data:
        return
    if not isinstance(games, dict) or not games:
        report.add(_at(data, "games"), "games", "expected a mapping of games (an id like "
                                                "mygame: {title, players, types, decks})")
        return
    for gid, game in games.items():
        path = join("games", gid)
        if not isinstance(gid, str) or not GAME_ID.match(gid):
            report.add(_key_at(games, gid), path, f"a game id is lower-case letters, digits and "
                                                  f"'-' (it names folders), got '{shown(gid)}'")
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
    """Limits over the whole database (carddb/limits.py): card designs in all (cards read
    from spreadsheets included: validation has put them in place)."""
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
    """A deck's cards must fit the paper of the print profile inside its printer margin
    (what `pnp build` lays out with the profile's settings). Returns the cards per sheet
    (0 when unknown or none fits)."""
    paper = _print_setting(data, "paper", "letter")
    margin = _print_setting(data, "printer_margin_mm", 5.0)
    if paper not in limits.PAPER_MM or not 0 <= margin <= 25:
        return 0                        # reported with the print profile
    per_sheet = limits.cards_per_sheet(size, paper, margin)
    if not per_sheet:
        report.add(pos, path, f"a {size[0]:g} x {size[1]:g} mm card does not fit on {paper} "
                              f"paper inside its {margin:g} mm printer margin")
    return per_sheet


def _rules_of(game, path, report):
    """The game's rules plug-in (`rules: xo`), or None."""
    from carddb import rules

    if not isinstance(game, dict) or "rules" not in game:
        return None
    rid = game["rules"]
    if not isinstance(rid, str) or rid not in rules.REGISTRY:
        report.add(_at(game, "rules"), join(path, "rules"),
                   f"unknown rules '{rid}'{did_you_mean(rid, rules.REGISTRY)} (rules plug-ins: "
                   f"{', '.join(rules.REGISTRY)}; a game without special rules has no `rules` key)")
        return None
    return rules.load(rid)


def _validate_game(gid, game, path, pos, report, root, sizes, data) -> None:
    """One game: its fields (the rules plug-in's too), players, mats, icons, reference
    card, declared types, then each deck and its cards; the plug-in's own checks (or,
    without one, the rules declared as data: carddb.gamerules)."""
    plugin = _rules_of(game, path, report)
    if not _check_game_fields(gid, game, path, pos, report, plugin):
        return
    _check_players(game, path, report)
    _check_mats(game, path, report)
    own = report.own_icons[gid] = _own_icons(game, path, report, root)
    _check_reference(game, path, report, sizes, data)
    if plugin is not None:
        plugin.check_game(game, path, pos, report)
    types = _game_types(gid, game, path, report, root, plugin, own)
    decks = game.get("decks")
    if not isinstance(decks, dict):
        if "decks" in game:             # `decks: oops`, `decks: [1]`: the loader needs a mapping
            report.add(_at(game, "decks"), join(path, "decks"),
                       f"expected a mapping of deck ids to decks, got {kind_of(decks)}")
        return
    declared = _declared(game, types)
    names: dict[str, dict] = {}
    cards: list = []  # (card mapping, path, pos, deck id)
    for did, deck in decks.items():
        cards.extend(_validate_deck(gid, did, deck, decks, path, report, root, sizes, data,
                                    types, declared, own, names))
    if plugin is not None:
        plugin.check_cards(game, cards, path, report)
    else:
        from carddb import gamerules

        gamerules.check(game, path, pos, report, types,
                        tuple(str(c["name"]) for c, _, _, _ in cards))


def _check_game_fields(gid, game, path, pos, report, plugin) -> bool:
    """The game's own fields and those its rules plug-in adds (required or optional);
    False when the game is not even a mapping."""
    required, optional = dict(GAME_REQUIRED), dict(GAME_OPTIONAL)
    if plugin is not None:
        extra_required, extra_optional = plugin.game_fields
        for key in extra_required:
            optional.pop(key, None)
        required.update(extra_required)
        optional.update(extra_optional)
        optional.setdefault("phases", ListOf(NAME, 1))
        phases = optional.get("phases")
        if isinstance(phases, ListOf) and phases.item is ANY:
            optional["phases"] = ListOf(NAME, 1)  # steps are rules as data: not with a plug-in
    else:
        optional.update(RULES_AS_DATA)
    spec = Struct(required, optional)
    if report.languages is not None:    # translations out: the rest sees default values
        report.languages.game(gid, game, path)
    if not spec.check(game, path, pos, report, ignore=("decks", "types")):
        if not isinstance(game, dict):
            return False
    return True


def _check_players(game, path, report) -> None:
    players = game.get("players")
    if isinstance(players, dict) and isinstance(players.get("min"), int) and isinstance(players.get("max"), int):
        if players["min"] > players["max"]:
            report.add(_at(game, "players"), join(path, "players"), "min is larger than max")


def _check_mats(game, path, report) -> None:
    if isinstance(game.get("mats"), dict):
        mats = game["mats"]
        for mat_id, mat in mats.items():
            _validate_mat(mat, join(path, f"mats.{mat_id}"), _at(mats, mat_id), report)


def _check_reference(game, path, report, sizes, data) -> None:
    """The reference card's size: known, and fitting on the sheet."""
    reference = game.get("reference")
    if isinstance(reference, dict) and "size" in reference:
        rpath = join(path, "reference.size")
        if Size(sizes).check(reference["size"], rpath, _at(reference, "size"), report):
            size = sizes[reference["size"]] if isinstance(reference["size"], str) \
                else reference["size"]
            if CARD_SIZE.check(size, "", Pos(1, 1), Report("")):
                _check_fits(size, rpath, _at(reference, "size"), report, data)


def _game_types(gid, game, path, report, root, plugin, own) -> dict:
    """The card types the game declares (`types:`), checked against the plug-ins' field types."""
    from carddb import rules as plugins
    from carddb.fields import Declarations

    types = {}
    if "types" in game:
        owners = {name: rid for rid in plugins.REGISTRY for name in plugins.load(rid).field_types}
        decl = Declarations(report, root, plugin.field_types if plugin else {},
                            plugin.id if plugin else None, owners, own)
        types = decl.types(game["types"], join(path, "types"), _at(game, "types"))
        report.types[gid] = types
    return types


def _validate_deck(gid, did, deck, decks, path, report, root, sizes, data, types, declared, own,
                   names) -> list:
    """One deck: its id, fields, size, back, its cards (a list or a spreadsheet) and their
    count; the cards that check, as (card, path, pos, deck id)."""
    dpath, dpos = join(join(path, "decks"), did), _at(decks, did)
    if not DECK_ID.check(did, dpath, _key_at(decks, did), report):
        return []
    if not DECK.check(deck, dpath, dpos, report, ignore=("size", "back", "cards")):
        if not isinstance(deck, dict):
            return []
    per_sheet = _deck_per_sheet(deck, dpath, report, sizes, data)
    _check_back(deck, dpath, report, root)
    deck_cards = deck.get("cards")
    exempt: dict[int, frozenset] = {}
    rows = None
    if isinstance(deck_cards, dict):
        deck_cards, exempt, rows = _from_sheet(deck_cards, join(dpath, "cards"),
                                               _at(deck, "cards"), report, root, types,
                                               declared)
        if deck_cards is None:
            return []
        deck["cards"] = deck_cards        # the cards read, for the rest of loading
    if not isinstance(deck_cards, list):
        # Missing is reported by DECK; present but not a list (`cards:` left empty)
        # would otherwise pass and break loading.
        if "cards" in deck:
            report.add(_at(deck, "cards"), join(dpath, "cards"),
                       f"expected a list of cards, got {kind_of(deck_cards)} (or a spreadsheet: "
                       "{from: FILE.csv})")
        return []
    _check_deck_count(deck, deck_cards, dpath, per_sheet, report)
    cards = _checked_cards(gid, did, deck_cards, dpath, dpos, report, root, types, exempt, rows,
                           own, names)
    if rows is not None:
        rows.save()
    return cards


def _deck_per_sheet(deck, dpath, report, sizes, data) -> int:
    """The deck's card size: known and fitting on the sheet; the cards per sheet (0 unknown)."""
    per_sheet = 0
    if "size" in deck:
        if Size(sizes).check(deck["size"], join(dpath, "size"), _at(deck, "size"), report):
            size = sizes[deck["size"]] if isinstance(deck["size"], str) else deck["size"]
            if CARD_SIZE.check(size, "", Pos(1, 1), Report("")):
                per_sheet = _check_fits(size, join(dpath, "size"), _at(deck, "size"), report, data)
    return per_sheet


def _check_back(deck, dpath, report, root) -> None:
    if "back" in deck:
        if BACK.check(deck["back"], join(dpath, "back"), _at(deck, "back"), report):
            if "image" in deck["back"]:
                check_path(deck["back"]["image"], join(dpath, "back.image"),
                           _at(deck["back"], "image"), report, root, "image")


def _check_deck_count(deck, deck_cards, dpath, per_sheet, report) -> None:
    """At least one card; at most the limits of cards in a deck and of pages it prints on."""
    if not deck_cards:
        report.add(_at(deck, "cards"), join(dpath, "cards"),
                   "a deck needs at least one card (it would print an empty PDF)")
    count = sum(_copies(c) for c in deck_cards)
    pages = 2 * -(-count // per_sheet) if per_sheet else 0     # fronts and backs
    if count > limits.MAX_DECK_CARDS:
        report.add(_at(deck, "cards"), join(dpath, "cards"),
                   f"{count:,} cards (copies counted), more than the limit of "
                   f"{limits.MAX_DECK_CARDS:,} in one deck")
    elif pages > limits.MAX_PAGES:
        report.add(_at(deck, "cards"), join(dpath, "cards"),
                   f"{count:,} cards print on {pages:,} pages, more than the limit of "
                   f"{limits.MAX_PAGES:,} for one deck")


def _checked_cards(gid, did, deck_cards, dpath, dpos, report, root, types, exempt, rows, own,
                   names) -> list:
    """Each card of the deck checked; a name used twice in the game reported at the second."""
    cards = []
    cards_path = join(dpath, "cards")
    if report.languages is not None:
        report.languages.cards(gid, did, deck_cards, cards_path, types)
    reused = rows.reused if rows is not None else {}
    for i, card in enumerate(deck_cards):
        cpath, cpos = f"{cards_path}[{i}]", value_pos(deck_cards, i, dpos)
        # A remembered row that checked no path is valid as it is (carddb.cache.Rows).
        if reused.get(i) == () or _checked_card(gid, types, card, cpath, cpos, report, root,
                                                exempt.get(i, frozenset()), rows, i, own):
            cards.append((card, cpath, cpos, did))
            name = card["name"]
            if name in names:
                report.add(_at(card, "name"), join(cpath, "name"),
                           f"duplicate card name '{shown(name)}' (first at "
                           f"{_where(_at(names[name], 'name'))})")
            else:
                names[name] = card          # its position made only for a message
    return cards


def _own_icons(game: dict, path: str, report: Report, root: Path) -> tuple[str, ...]:
    """The game's own icons (`icons:`, carddb.icons) checked, and its dice faces' icons
    checked against them and the built-in ones; the own icons' names."""
    from carddb.icons import check_icons, icon_names

    if "icons" in game:
        check_icons(game["icons"], join(path, "icons"), _at(game, "icons"), report, root,
                    MARKUP_ICONS)
    own = tuple(n for n in icon_names(game) if isinstance(n, str) and n not in MARKUP_ICONS)
    known = (*MARKUP_ICONS, *own)
    if "dice" in game:
        check_face_icons(game["dice"], join(path, "dice"), _at(game, "dice"), report, known)
    tokens = game.get("tokens")
    for tid, token in tokens.items() if isinstance(tokens, dict) else ():
        icon = token.get("icon") if isinstance(token, dict) else None
        if isinstance(icon, str) and icon not in known:
            report.add(_at(token, "icon"), join(path, f"tokens.{tid}.icon"),
                       unknown_icon(icon, known))
    return own


def _where(pos: Pos) -> str:
    return pos.where or f"line {pos.line}"


def _declared(game, types) -> tuple:
    """What the validation of a spreadsheet's row reads of its game besides the row: the
    card type declarations as written, as parsed (a field whose default names a missing
    image is left out) and the rules plug-in (the key of remembered rows: carddb.cache)."""
    written = game.get("types") if isinstance(game, dict) else None
    parsed = tuple((t, tuple((f.name, f.kind, f.required) for f in ct.fields.values()))
                   for t, ct in types.items())
    # A located mapping's repr is a dict's: the values as written, without positions.
    # (the game's own icon names: `{icon:NAME}` in a row is checked against them)
    return repr(written), repr(game.get("rules")), parsed, repr(game.get("icons"))


def _checked_card(gid, types, card, path, pos, report, root, exempt, rows, i,
                  own: tuple[str, ...] = ()) -> bool:
    """`check_card`, or for a card whose sheet row validated in an earlier load
    (carddb.cache.Rows) only its image paths checked again; a row that validates
    without a problem is remembered."""
    if rows is None:
        return check_card(gid, types, card, path, pos, report, root, exempt, own)
    paths = rows.reused.get(i)
    if paths is not None:
        scratch = Report(report.file)
        for rel in paths:
            check_path(rel, path, pos, scratch, root, "image")
        if not scratch.added:
            report.paths_checked.extend(scratch.paths_checked)
            return True
    before, checked = report.added, len(report.paths_checked)
    ok = check_card(gid, types, card, path, pos, report, root, exempt, own)
    if ok and report.added == before:
        rows.validated(i, tuple(str(Path(p).relative_to(root))
                                for p in report.paths_checked[checked:]))
    return ok


def _from_sheet(source, path, pos, report, root, types, declared=None):
    """A deck's cards read from a spreadsheet (`cards: {from: heroes.csv}`), and its
    remembered rows (carddb.cache.Rows) or None."""
    from carddb import sheets

    if not SHEET_SOURCE.check(source, path, pos, report):
        return None, {}, None
    before = len(report.problems)
    check_path(source["from"], join(path, "from"), _at(source, "from"), report, root, "spreadsheet")
    if len(report.problems) > before:
        return None, {}, None
    return sheets.read_cards(root / source["from"], source, path, pos, report, types, declared)


def _validate_mat(mat, path, pos, report) -> None:
    if not MAT.check(mat, path, pos, report):
        return
    width, height = mat["size_mm"]
    for i, area in enumerate(mat["areas"]):
        x, y, w, h = area["rect_mm"]
        if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > width or y + h > height:
            report.add(mat["areas"].at(i), join(path, f"areas[{i}].rect_mm"),
                       f"area '{area['label']}' does not lie inside the {width} x {height} mm mat")
