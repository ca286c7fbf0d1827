"""The specs several modules of carddb share, in a leaf below them: validate.py (the
database's shape) and the rules plug-ins (carddb/rules/) import them from here, so none
of those imports another to get them (tests/test_package_layers.py keeps carddb, pnp and
referee free of import cycles). Checking a file's path is carddb.files' (a card's image:
carddb.fields), so that checking a card imports no game-level spec."""

from __future__ import annotations

from carddb import limits
from carddb.dice import TOKEN_START
from carddb.schema import COLOR, NAME, STR, Choice, Range, Struct, Type

# a token kind (`tokens:`); `start`, `per`, `min` and `max` are read by the referee's table
# kit; `icon` (a built-in or own icon, checked with the game's `icons:`) is what token.j2
# may draw, `plural` the name's plural where the English rule fails (sheet headings);
# `diameter_mm` and `color` have defaults (carddb._with_defaults)
_HOLDING = Type((int,), "a whole number >= 0", minimum=0, maximum=limits.MAX_TOKENS)
TOKEN = Struct({"label": STR, "name": NAME,
                "count": Type((int,), "a whole number >= 1", minimum=1, maximum=limits.MAX_TOKENS)},
               {"diameter_mm": Range(*limits.TOKEN_MM, "a diameter in mm"), "color": COLOR,
                "start": TOKEN_START, "per": Choice(("player", "shared")), "min": _HOLDING,
                "max": _HOLDING, "icon": STR, "plural": NAME})
