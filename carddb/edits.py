"""A load after a spreadsheet edit (issue 36 item 2): the last valid database of the same
cards.yaml, with the rows the edit changed validated and put in its place.

Validating a database anew after one row of a deck's sheet changed re-checks everything
that row cannot change: cards.yaml's games, decks, dice and rules (carddb.validate,
carddb.gamerules, both rules plug-ins imported to know their field types), the
translations of every card (carddb.languages) and every other row's card. What a row's
validation reads besides its own cells is all in cards.yaml and the sheet's header, so
while those are the same (the cache entry is keyed by cards.yaml's bytes and carddb's
code, the header is compared), an unchanged row gives the card it gave before, at the
same place as long as no row was added or removed.

So a changed row is read and validated as a full load does (carddb.sheets.edited_rows,
carddb.validate's card check) and its card replaces the old one; the checks across
cards keep their result because what they read is kept: the card's name (names are
unique in a game, and the rules as data name cards: carddb.gamerules), its type and its
copies (deck and database totals). Anything else makes this answer None and the load
validates the whole database, so a problem is always reported by the full validation,
with its message and place, and a cache never makes a bad file good:

- a row added, removed or emptied, another header, the sheet's limits passed;
- a changed row with a problem, or whose name, type or copies changed;
- a row checking a file's existence (an image): the entry's checked paths stay those
  of a full load;
- a game with a rules plug-in (its `check_cards` reads every card's values);
- translated cards in the game, a `field@lang` column, or a value given by language
  (carddb.languages: a translation is checked across cards);
- a file the entry was validated against (an image, a font) gone, or a spreadsheet
  changed that is not a recorded sheet deck's.
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

from carddb.cache import digest_of
from carddb.model import Database, Deck

# The entry's facts: ([(sheet, digest)], [checked paths]) (carddb.cache).
Facts = tuple[list, list]


def spliced(db: Database, facts: Facts, edits: Any, name: str
            ) -> tuple[Database, Facts, Any] | None:
    """`db`, validated against `facts`, with the rows of each spreadsheet that changed
    since validated and put in place, with the facts and edits it now holds; None when
    only a full validation can tell (see the module's docstring). `edits`: what the load
    of `db` recorded (carddb.cache.save): each sheet deck's rows by its cards' path, each
    game's card types and own icons. `name`: the cards.yaml as messages call it."""
    sheets, checked = facts
    if not all(Path(p).is_file() for p in checked):
        return None
    now = [(p, digest_of(p)) for p, _ in sheets]
    edited = {p for (p, d), (_, n) in zip(sheets, now, strict=True) if d != n}
    recorded, types, own = edits
    rows = dict(recorded)                   # the record of `db` stays as it is
    decks = {spath: read for spath, read in rows.items() if read.file in edited}
    if not edited or edited - {read.file for read in decks.values()}:
        return None
    games = dict(db.games)
    digests: dict[str, str | None] = {}
    for gid, game in db.games.items():
        for did, deck in game.decks.items():
            read = decks.get(_cards_path(gid, did))
            if read is None:
                continue
            done = _deck_edited(db, deck, read, _cards_path(gid, did), types.get(gid, {}),
                                own.get(gid, ()), name)
            if done is None:
                return None
            new_deck, rows[_cards_path(gid, did)], digest = done
            if digests.setdefault(read.file, digest) != digest:
                return None                 # two decks read it, another save between
            games[gid] = replace(games[gid], decks={**games[gid].decks, did: new_deck})
    facts = ([(p, digests.get(p, d)) for p, d in now], checked)
    return replace(db, games=games), facts, (rows, types, own)


def _cards_path(gid: str, did: str) -> str:
    """The field path of a deck's cards, as carddb.validate names it."""
    from carddb.schema import join

    return join(join(join("games", gid), "decks"), did) + ".cards"


def _deck_edited(db: Database, deck: Deck, read: Any, spath: str, types: dict, own: tuple,
                 name: str) -> tuple[Deck, Any, str] | None:
    """The deck with its changed rows' cards in place, its rows as read now and the digest
    of the sheet's bytes read; None when only a full validation can tell."""
    from carddb.schema import Report
    from carddb.sheets import edited_rows

    game = db.games[deck.game]
    if game.rules is not None or _translated(db, deck.game):
        return None
    report = Report(name)
    found = edited_rows(read, spath, types, report)
    if found is None:
        return None
    now, changed = found
    if len(now.keys) != len(deck.cards) + 1:
        return None
    cards = list(deck.cards)
    defaults = {t: tuple(ct.defaults().items()) for t, ct in types.items()}
    for index, card in changed.items():
        new = _card_checked(card, cards[index], f"{spath}[{index}]", types, own, db, report,
                            defaults)
        if new is None:
            return None
        cards[index] = new
    return replace(deck, cards=tuple(cards)), now, report.files_read[-1][1]


def _card_checked(card: Any, old: Any, path: str, types: dict, own: tuple, db: Database,
                  report: Any, defaults: dict) -> Any:
    """The Card of a changed row validated as a full load validates it, when it checks no
    file and keeps the old card's name, type and copies (what the checks across cards
    read); else None."""
    from carddb.fields import check_card
    from carddb.model import card_of

    if db.languages is not None and any(isinstance(v, dict) for v in card.values()):
        return None                         # a value given by language: carddb.languages
    if any(isinstance(k, str) and "@" in k for k in card):
        return None
    ok = check_card(old.game, types, card, path, card.pos, report, db.root, frozenset(),
                        own)
    if not ok or report.added or report.paths_checked:
        return None
    copies = card.get("copies", 1)
    if card.get("name") != old.name or card.get("type") != old.type or type(copies) is not int \
            or copies != old.copies:
        return None
    return card_of(card, old.game, old.deck, card.pos, report.file, defaults)


def _translated(db: Database, gid: str) -> bool:
    """Whether a card of the game has a translation (carddb.languages checks them across
    cards: a kind translated once is missing wherever else it is not)."""
    langs = db.languages
    if langs is None:
        return False
    return any(g == gid and place[0] == "card" for table in langs.values.values()
               for g, place in table)


def previous(entry: Any) -> tuple[Database, Facts, Any] | None:
    """(database, facts, edits) of a cache entry (carddb.cache.entry) whose edits were
    recorded, or None."""
    sheets, checked, pickled, edits = entry
    recorded = unpickled(edits) if edits is not None else None
    if recorded is None:
        return None
    try:
        return pickle.loads(pickled), (sheets, checked), recorded
    except Exception:  # from another version
        return None


def unpickled(edits: bytes | None) -> Any:
    """Recorded edits (carddb.cache.save) as objects again; None for none or a foreign
    pickle."""
    try:
        return pickle.loads(edits) if edits is not None else None
    except Exception:
        return None


def pickled(edits: Any) -> bytes:
    return pickle.dumps(edits, protocol=pickle.HIGHEST_PROTOCOL)
