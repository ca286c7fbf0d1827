"""The XO! rules plug-in (`rules: xo`): mask dice (XO-1), the two leagues' mats, the
effects vocabulary, references between cards (Action <-> Character, Status names),
seven chapters of objectives (XO-12) whose values the dice can reach (XO-13/XO-14), and
25-card core League decks."""

from __future__ import annotations

from carddb.dice import DIE_SET
from carddb.dice import PER_PLAYER as DICE_PER_PLAYER
from carddb.rules import Rules
from carddb.schema import (
    INT,
    STR,
    Choice,
    Effects,
    ListOf,
    OneOf,
    Struct,
    did_you_mean,
    join,
    shown,
)
from carddb.vocab import XO_ICONS, XO_LEAGUES, XO_VERBS
from carddb.yamlsource import Pos, value_pos

MASK_FACES = [0, 1, 1, 2, 2, 3]  # XO-1
CORE_DECK_SIZE = 25  # "the (25) core cards in your League Deck"


class _AnyValue(Struct):
    def __init__(self):
        super().__init__({})

    def check(self, value, path, pos, report, ignore=()):
        return True


_ANY = _AnyValue()
_SET = DIE_SET
DICE = Struct({"faces": ListOf(INT, 6, 6), "per_player": DICE_PER_PLAYER,
               "sets": Struct({"heroes": _SET, "villains": _SET})})
MATS = Struct({"heroes": _ANY, "villains": _ANY})
REQUIREMENT = OneOf((Struct({"icon": Choice(XO_ICONS)}), Struct({"keyword": STR})))


def _at(mapping, key) -> Pos:
    return value_pos(mapping, key, Pos(1, 1))


def check_game(game, path, pos, report) -> None:
    dice = game.get("dice")
    if isinstance(dice, dict):
        faces = dice.get("faces")
        if isinstance(faces, list) and all(isinstance(f, int) for f in faces) and sorted(faces) != MASK_FACES:
            report.add(_at(dice, "faces"), join(path, "dice.faces"),
                       "XO-1: a mask die has the faces 0, 1, 1, 2, 2, 3")


def check_cards(game, cards, path, report) -> None:
    _references(cards, report)
    decks = game.get("decks")
    for league in XO_LEAGUES:
        deck = decks.get(f"{league}-core")
        if isinstance(deck, dict) and isinstance(deck.get("cards"), list):
            count = sum(c.get("copies", 1) for c in deck["cards"]
                        if isinstance(c, dict) and isinstance(c.get("copies", 1), int))
            if count != CORE_DECK_SIZE:
                report.add(_at(decks, f"{league}-core"), join(path, f"decks.{league}-core"),
                           f"a core League deck has {CORE_DECK_SIZE} cards (copies counted), this one has {count}")


def _feat_dice(character: dict, requires: dict) -> int:
    traits = character.get("powers" if "icon" in requires else "keywords")
    dice = traits.get(requires.get("icon", requires.get("keyword"))) if isinstance(traits, dict) else 0
    return dice if isinstance(dice, int) and not isinstance(dice, bool) else 0


def _str_list(value) -> list:
    return value if isinstance(value, list) else []


def _references(cards, report) -> None:
    """What cards name: Status cards (effects, attack effects), Action and Character cards,
    a card's league and its deck's; the objectives of the story line (XO-12)."""
    by_type: dict[str, list] = {}
    for entry in cards:
        by_type.setdefault(entry[0]["type"], []).append(entry)
    statuses = {c["name"] for c, *_ in by_type.get("Status", [])}
    characters = {c["name"]: c for c, *_ in by_type.get("Character", [])}
    actions = {c["name"]: c for c, *_ in by_type.get("Action", [])}
    _effect_and_league_references(cards, statuses, report)
    _character_references(by_type.get("Character", []), statuses, actions, report)
    for card, path, _pos, _did in by_type.get("Action", []):
        if isinstance(card.get("character"), str) and card["character"] not in characters:
            report.add(_at(card, "character"), join(path, "character"),
                       f"no Character named '{shown(card['character'])}'{did_you_mean(card['character'], characters)}")
    _story_line(by_type.get("Objective", []), characters, report)


def _check_status(name, path, pos, statuses, report) -> None:
    if name not in statuses:
        report.add(pos, path, f"no Status card named '{shown(name)}'{did_you_mean(name, statuses)}")


def _effect_and_league_references(cards, statuses, report) -> None:
    """The Status cards effects tag or remove; a card's league matches its deck's."""
    for card, path, _pos, did in cards:
        for i, effect in enumerate(_str_list(card.get("effect"))):
            for verb in ("tag", "remove"):
                if isinstance(effect, dict) and isinstance(effect.get(verb), str):
                    _check_status(effect[verb], join(path, f"effect[{i}].{verb}"), _at(effect, verb),
                                  statuses, report)
        league_prefix = str(did).split("-")[0]
        if "league" in card and league_prefix in XO_LEAGUES and card["league"] != league_prefix:
            report.add(_at(card, "league"), join(path, "league"),
                       f"a {card['league']} card in the {did} deck")


def _character_references(characters, statuses, actions, report) -> None:
    """A character's attack effect is a Status card; its actions are its own Action cards."""
    for card, path, _pos, _did in characters:
        if isinstance(card.get("attack_effect"), str):
            _check_status(card["attack_effect"], join(path, "attack_effect"), _at(card, "attack_effect"),
                          statuses, report)
        for i, action in enumerate(_str_list(card.get("actions"))):
            apath, apos = join(path, f"actions[{i}]"), value_pos(card["actions"], i, _pos)
            if not isinstance(action, str):
                continue
            if action not in actions:
                report.add(apos, apath, f"no Action card named '{shown(action)}'{did_you_mean(action, actions)}")
            elif actions[action].get("character") not in (card["name"], None):
                report.add(apos, apath, f"Action card '{shown(action)}' belongs to '{shown(actions[action]['character'])}'")


def _story_line(objectives, characters, report) -> None:
    """XO-12: seven chapters, each with one objective per league (values: XO-13, XO-14)."""
    seen: dict[tuple, Pos] = {}
    for card, path, pos, _did in objectives:
        if not (card.get("chapter") in range(1, 8) and card.get("league") in XO_LEAGUES):
            continue
        key = (card["chapter"], card["league"])
        if key in seen:
            report.add(_at(card, "chapter"), join(path, "chapter"),
                       f"chapter {key[0]} already has a {key[1]} objective (line {seen[key].line})")
        seen[key] = pos
        _objective_values(card, path, characters, report)
    if objectives:
        missing = [f"{c} {lg}" for c in range(1, 8) for lg in XO_LEAGUES if (c, lg) not in seen]
        if missing:
            first = objectives[0]
            report.add(first[2], first[1].rsplit(".cards", 1)[0],
                       "XO-12: missing objectives for chapter " + ", ".join(missing))


def _objective_values(card, path, characters, report) -> None:
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


RULES = Rules(
    id="xo",
    field_types={"xo-effects": Effects(XO_VERBS, "XO!"), "xo-requirement": REQUIREMENT},
    game_fields=({"dice": DICE, "mats": MATS}, {}),
    check_game=check_game,
    check_cards=check_cards,
)
