"""A card told from an earlier load's card of the same values (issue 36 item 2).

A resident `pnp watch` loads the database again after every edit: each card is a new
object with, but for the edited ones, the values it had. What is worked out from a
card's values alone (its front's plan key, pnp.draw.render; its JSON in the manifest's
digest, pnp.artefacts.incremental) is kept with the card it was made of and its `shape`,
and reused for a card that is `same`: the same object, or equal values of the same
types with its fields in the same order, so the same repr and the same JSON."""

from __future__ import annotations

from typing import Any

# The values a shape may hold: equal values of these types have the same repr and JSON
# (an int and a bool, 0.0 and -0.0, a str and a str subclass, or a dict's order do not;
# containers are not compared).
SCALARS = frozenset({str, int, bool, type(None)})


def shape(card: Any) -> tuple | None:
    """(its values, the order of its fields, the types of its values); None when it
    holds anything but SCALARS (then nothing made of it is kept)."""
    now = values(card)
    types = tuple(map(type, now))
    if not SCALARS.issuperset(types):
        return None
    return (now, tuple(card.fields), types)


def values(card: Any) -> tuple:
    """Everything a card's context and data hold, in order (not where it was read)."""
    return (card.name, card.type, card.text, card.copies, card.game, card.deck, card.image,
            *card.fields.values())


def same(found: tuple, card: Any) -> bool:
    """Whether `card` is the card `found` ((card, its shape, ...)) was kept for, to the
    byte of its repr: the same object, or equal values of the same types with its
    fields in the same order."""
    if found[0] is card:
        return True
    was, fields, types = found[1]
    now = values(card)
    return now == was and tuple(map(type, now)) == types and tuple(card.fields) == fields
