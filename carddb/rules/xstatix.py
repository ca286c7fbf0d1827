"""The X-Statix rules plug-in (`rules: x-statix`): the effects vocabulary of its cards'
abilities and events, and the two token kinds the referee counts with (money, fame)."""

from __future__ import annotations

from carddb.rules import Rules
from carddb.schema import Effects, Struct
from carddb.specs import TOKEN
from carddb.vocab import XS_VERBS

RULES = Rules(
    id="x-statix",
    field_types={"xs-effects": Effects(XS_VERBS, "X-Statix")},
    # XS-2/XS-5: money (MT) and fame (FT) tokens are what the game is counted in.
    game_fields=({}, {"tokens": Struct({"money": TOKEN, "fame": TOKEN})}),
)
