"""Effect vocabularies: the verbs a card's machine-readable effect may use.

Each effect is a mapping with exactly one verb key (plus that verb's own parameters
where the table says so). A parameter spec is a `Spec` from carddb.schema. The
referee reads these forms; docs/CARDS.md explains them for designers.
"""

from __future__ import annotations

from carddb.schema import (
    BOOL,
    INT,
    NONNEG_INT,
    STR,
    Choice,
    IntList,
    OneOf,
    Struct,
    true_only,
)

XS_ROLLS = (
    "opportunity", "recruit", "marketing", "mission", "carnage",
    "sendoff", "success", "payoff", "fortune",
)
XS_ROLL = Choice(XS_ROLLS)
XS_ROLL_OR_ANY = Choice((*XS_ROLLS, "any"))

_modify = Struct({"by": INT}, optional={"min": INT, "target": Choice(("self",))})
_draw = Struct({"draw": NONNEG_INT})
_modify_effect = Struct({"modify": XS_ROLL, "by": INT})
_survive = Struct({"survive_on": Choice((1, 2, 3, 4, 5, 6))})
_to_hand = Struct({"to_hand_on": Choice((1, 2, 3, 4, 5, 6))})
_negate = Struct({"negate_carnage": NONNEG_INT})

# verb -> (spec of the verb's value, spec of sibling parameters or None)
XS_VERBS = {
    "modify": (XS_ROLL, _modify),
    "reroll": (XS_ROLL_OR_ANY, Struct({}, optional={"per_turn": NONNEG_INT})),
    "adjust": (Choice(("any",)), Struct({"by": IntList()}, optional={"per_turn": NONNEG_INT})),
    "take_casualty": (true_only, None),
    "on_killed": (OneOf((_draw, _survive, _to_hand, _modify_effect)), None),
    "on_other_killed": (_survive, None),
    "sacrifice": (OneOf((_modify_effect, _negate)), None),
    "power_value": (Struct({}, optional={"success": NONNEG_INT, "carnage": NONNEG_INT}), None),
    "on_mission_start": (_draw, None),
    "discard_any_for": (_modify_effect, None),
    "hand_limit": (NONNEG_INT, None),
    "recruit_fame": (NONNEG_INT, None),
    "end_phase_kill": (Struct({"gain_mt": Choice(("1d6",))}), None),
    "draw": (NONNEG_INT, None),
    "opponent_discards": (
        Struct({"count": NONNEG_INT, "chosen_by": Choice(("random", "opponent"))}), None),
    "steal_card": (Choice(("random",)), None),
    "steal_hero": (Choice(("random",)), None),
    "discard_opponent_hero": (Choice(("random",)), None),
    "hero_from_discard": (Choice(("top",)), None),
    "look_at_hand": (Choice(("opponent",)), None),
    "discard_marketing": (Choice(("target_hero",)), None),
    "extra_turn": (true_only, None),
    "gain_mt": (INT, None),
    "hero_fame": (INT, None),
    "choose_casualties": (true_only, None),
}

XO_ICONS = (
    "energy", "strength", "speed", "flight", "mind",
    "magic", "tech", "stealth", "agility", "durability",
)
# Icons card text may name inline as `{icon:NAME}` (pnp.draw.icons draws each; a test keeps
# the two lists equal); `blank` draws nothing (a blank die face). A game adds its own
# (`icons:`, carddb.icons).
MARKUP_ICONS = (*XO_ICONS, "mask", "mt", "ft", "attack", "defense", "health", "dice", "blank")
XO_LEAGUES = ("heroes", "villains")
XO_TIMINGS = ("attack", "defense", "feat", "thwart", "any")

# The XO! verbs; `tag`/`remove` name a Status card (checked as a reference).
XO_VERBS = {
    "attack_mod": (INT, None),
    "defense_mod": (INT, None),
    "feat_mod": (INT, None),
    "thwart_mod": (INT, None),
    "effect_damage": (INT, None),
    "tag": (STR, None),
    "remove": (STR, None),
    "aoe": (true_only, None),
    "counterattack": (true_only, None),
    "draw": (NONNEG_INT, None),
    "energy": (NONNEG_INT, None),
    "dice": (INT, None),
    "cost": (NONNEG_INT, None),
    "ready": (BOOL, None),
}
