"""The legal decisions at a point of an X-Statix turn, worked out from the engine's own
public functions and data (`referee.xs`), never from a second copy of the rules.

The X-Statix engine validates a decision when it is made (and refuses an illegal one);
an automatic player needs to know *beforehand* which decisions will be accepted. Each
function here answers that from the same checks the engine runs: the phase order
(`Play.phase_index`), the Marketing limit (`turn.check_marketing_room`), which roll is open
or still to come (`events.open_roll`, `events.roll_made`), which abilities are not used up
(`turn.can_use`), whether an event card may be played (`events.event_refusal`). The tests drive every decision the policies make through the engine's
validation on a fresh copy of the state, as the referee CLI does, and assert no refusal.
"""

from __future__ import annotations

from referee.errors import RefereeError
from referee.xs import events, turn
from referee.xs.play import PHASES, Play

PLAYER_PHASES = ("opportunity", "recruitment", "publicity", "mission")


POSITION = {name: i for i, name in enumerate(PHASES)}  # the engine's phase order


def phase_open(play: Play, phase: str) -> bool:
    """Can the active player still act in `phase` this turn (phases only go forward)?"""
    return POSITION[play.s["turn"]["phase"]] <= POSITION[phase]


def hand(play: Play, kind: str | None = None) -> list[str]:
    cards = play.s["table"][play.s["turn"]["player"]]["hand"]
    if kind is None:
        return list(cards)
    cat = play.cat
    return [c for c in cards if cat.type(c) == kind]


def can_buy_draw(play: Play) -> bool:
    """XS-3: extra draws in the Opportunity phase, never from an empty deck."""
    return phase_open(play, "opportunity") and bool(play.s["deck"])


def recruitable(play: Play) -> list[str]:
    """XS-4: Hero cards in hand while the Recruitment phase is not over."""
    return hand(play, "Hero") if phase_open(play, "recruitment") else []


def has_room(play: Play, hero: dict, card: str) -> bool:
    """XS-5 through the engine's own check."""
    try:
        turn.check_marketing_room(play, hero, card)
    except RefereeError:
        return False
    return True


def marketing_options(play: Play) -> tuple[list[str], list[dict]]:
    """XS-5 before the Marketing limit: the Marketing cards in hand and the own heroes,
    while the Publicity phase is not over (`has_room` tells which pairs fit)."""
    if not phase_open(play, "publicity"):
        return [], []
    return hand(play, "Marketing"), play.seat(play.active)["heroes"]


def attachable(play: Play) -> list[tuple[str, dict]]:
    """XS-5: (Marketing card in hand, own hero with room for it)."""
    cards, heroes = marketing_options(play)
    return [(card, hero) for card in cards for hero in heroes if has_room(play, hero, card)]


def can_attach(play: Play, card: str) -> bool:
    """XS-5: could `card` be attached to one of the own heroes now?"""
    cards, heroes = marketing_options(play)
    return card in cards and any(has_room(play, hero, card) for hero in heroes)


def playable_missions(play: Play) -> list[str]:
    """XS-6: one Mission card a turn, in or before the Mission phase."""
    if not phase_open(play, "mission") or play.turn["missions"] >= 1:
        return []
    return hand(play, "Mission")


def mission_stage(play: Play) -> str | None:
    mission = play.turn.get("mission")
    return None if mission is None else mission["stage"]


# ── changing the open roll ────────────────────────────────────────────────────
def hero_rerolls(play: Play, roll: dict | None = None) -> list[str]:
    """Heroes whose reroll ability applies to the open roll and is not used up. `roll`:
    the open roll (`events.open_roll`) when the caller has it already."""
    roll = roll or events.open_roll(play)
    if roll is None:
        return []
    return [name for name, _, hero in turn.abilities_for(play, play.active, roll, "reroll")
            if hero is not None]


def hero_adjusts(play: Play, roll: dict | None = None) -> list[tuple[str, list[int]]]:
    """Heroes who may give a modifier to the open roll (Venus Dee Milo), with the choices.
    `roll`: the open roll (`events.open_roll`) when the caller has it already."""
    roll = roll or events.open_roll(play)
    if roll is None:
        return []
    return [(name, [int(b) for b in effect.get("by", [])])
            for name, effect, hero in turn.abilities_for(play, play.active, roll, "adjust")
            if hero is not None]


# ── event abilities (XS-12) ───────────────────────────────────────────────────
def event_playable(play: Play, card: str, target: str | None = None, hero: str | None = None,
                   pick: str | None = None) -> bool:
    """Would the engine let the active player play `card` for its Event ability now (every
    effect of it applying)? The engine's own answer: `events.event_refusal`."""
    return events.event_refusal(play, play.active, card, target, hero, pick) is None


def events_in_hand(play: Play) -> list[str]:
    return [c for c in play.seat(play.active)["hand"] if play.cat.event(c)]
