"""Event abilities (XS-12) and the heroes' reroll/adjust abilities. An event card is
discarded from the hand of the player whose turn it is, when its effect applies; used as
an event it does not also count as a Power or Marketing card."""

from __future__ import annotations

from referee.errors import RefereeError, UsageError
from referee.words import counted
from referee.xs import rolls
from referee.xs.play import Play, Result
from referee.xs.turn import verdict

ROLL_STAGES = ("mission", "carnage", "success", "payoff")


def open_roll(play: Play, sendoff: str | None = None) -> dict | None:
    """The roll that can still be rerolled or adjusted: a paid roll not yet paid, or the
    roll of the mission step under way; with `sendoff`, the Sendoff roll of that hero,
    killed on the mission under way."""
    if sendoff is not None:
        return sendoff_roll(play, sendoff)
    if play.turn.get("open"):
        return play.turn["open"]
    mission = play.turn.get("mission")
    if mission and mission["stage"] in ROLL_STAGES:
        return mission["rolls"][mission["stage"]]
    return None


def sendoff_roll(play: Play, hero_text: str) -> dict:
    name = play.card(hero_text)
    mission = play.turn.get("mission")
    if mission and mission["stage"] != "done":
        for roll in mission.get("sendoffs", []):
            if roll["context"].get("hero_name") == name:
                return roll
    raise RefereeError(f"{name} has no Sendoff roll on a mission under way", "XS-7")


def roll_made(play: Play, kind: str) -> str:
    """'open' if `kind` is the open roll, 'later' if it is still to come this turn
    (modifiers queue for it), 'past' otherwise."""
    roll = open_roll(play)
    if roll is not None and roll["kind"] == kind:
        return "open"
    return "later" if play.roll_to_come(kind) else "past"


def after_change(play: Play, roll: dict, before: int) -> None:
    """A Payoff or Sendoff already gained is corrected when its roll changes."""
    if roll["kind"] in ("payoff", "sendoff") and roll["total"] != before:
        play.gain_mt(play.active, roll["total"] - before,
                     f"{rolls.LABEL[roll['kind']]} changed", rolls.RULING[roll["kind"]])


def reroll_refusal(play: Play, source: str, wanted: str, sendoff: str | None) -> RefereeError | None:
    """Why `source` cannot reroll now (`wanted`: the roll it rerolls), or None."""
    roll = open_roll(play, sendoff)
    if roll is None:
        return RefereeError(f"{source}: there is no roll open to reroll", "XS-12")
    if wanted not in (roll["kind"], "any"):
        return RefereeError(f"{source} rerolls the {rolls.LABEL[wanted]}, but the open roll "
                            f"is the {rolls.LABEL[roll['kind']]}", "XS-12")
    return None


def do_reroll(play: Play, source: str, wanted: str, effect: dict | None,
              sendoff: str | None = None) -> None:
    refusal = reroll_refusal(play, source, wanted, sendoff)
    if refusal is not None:
        raise refusal
    roll = open_roll(play, sendoff)
    assert roll is not None  # reroll_refusal said there is one
    if effect is not None:
        use(play, source, effect, roll)
    before = roll["total"]
    old = roll["faces"]
    roll["faces"] = play.dice.d6(len(old), f"{source}'s reroll of the {rolls.LABEL[roll['kind']]}")
    rolls.refresh(roll)
    play.step(f"{source} rerolls the {rolls.LABEL[roll['kind']]} ({'+'.join(map(str, old))} "
              f"-> {'+'.join(map(str, roll['faces']))}): {rolls.describe(roll)}"
              f"{verdict(play, roll)}",
              rolls.RULING.get(roll["kind"]))
    after_change(play, roll, before)


def use(play: Play, source: str, effect: dict, roll: dict) -> None:
    """Count a hero ability's use: `per_turn` ones per turn, the others once per roll."""
    if "per_turn" in effect:
        used = play.turn["used"].get(source, 0)
        if used >= int(effect["per_turn"]):
            times = {1: "once", 2: "twice"}.get(int(effect["per_turn"]),
                                                f"{effect['per_turn']} times")
            raise RefereeError(f"{source}'s ability is used {times} a turn, already used", None)
        play.turn["used"][source] = used + 1
    else:
        if source in roll["used"]:
            raise RefereeError(f"{source} has already rerolled this roll", None)
    roll["used"].append(source)


def ability_of(play: Play, player: str, hero_text: str, verb: str) -> tuple[str, dict]:
    name = play.card(hero_text)
    hero = play.hero(player, name)
    if hero is None:
        raise RefereeError(f"{name} is not a hero on {player}'s team: it is {play.where(name)}")
    for effect in play.cat.ability(name):
        if verb in effect:
            return name, effect
    raise RefereeError(f"{name} has no {verb} ability")


def reroll(play: Play, player: str | None, source_text: str, sendoff: str | None = None
           ) -> Result:
    """Reroll the open roll (or a Sendoff roll of this mission) with a hero's ability (The
    Orphan, Plazm, Succubus) or an event card from the hand (Regeneration, Freeze Time...)."""
    if player is not None and play.player_named(player) != play.active:  # an event (XS-14)
        return out_of_turn_event(play, play.player_named(player), source_text, sendoff)
    actor = play.check_actor(player, "reroll")
    name = play.card(source_text)
    if play.holds(actor, name) and play.cat.event(name):
        return play_event(play, actor, name, sendoff=sendoff)
    source, effect = ability_of(play, actor, name, "reroll")
    do_reroll(play, source, effect["reroll"], effect, sendoff)
    return play.result(f"{actor} rerolls with {source}", "reroll")


def adjust(play: Play, player: str | None, source_text: str, by: int,
           sendoff: str | None = None) -> Result:
    """Venus Dee Milo: give +1 or -1 to one target roll on the player's turn."""
    actor = play.check_actor(player, "adjust a roll")
    source, effect = ability_of(play, actor, source_text, "adjust")
    allowed = [int(b) for b in effect.get("by", [])]
    if by not in allowed:
        raise UsageError(f"{source} gives {' or '.join(f'{b:+d}' for b in allowed)}, not {by:+d}")
    roll = open_roll(play, sendoff)
    if roll is None or effect["adjust"] not in (roll["kind"], "any"):
        raise RefereeError(f"{source}: there is no roll open to adjust")
    use(play, source, effect, roll)
    before = roll["total"]
    roll["mods"].append(rolls.modifier(by, source, rolls.RULING.get(roll["kind"])))
    rolls.refresh(roll)
    play.step(f"{source} gives {by:+d}: {rolls.describe(roll)}{verdict(play, roll)}",
              rolls.RULING.get(roll["kind"]))
    after_change(play, roll, before)
    return play.result(f"{actor} adjusts the {rolls.LABEL[roll['kind']]} with {source}", "adjust")


def play_event(
    play: Play,
    player: str | None,
    card_text: str,
    target: str | None = None,
    hero: str | None = None,
    pick: str | None = None,
    sendoff: str | None = None,
) -> Result:
    """Discard a card from hand for its E ability (XS-12). `sendoff` names the killed hero
    whose Sendoff roll a reroll or Sendoff modifier is for. Another player than the active
    one may play an event on the active player's open roll (XS-14)."""
    if player is not None and play.player_named(player) != play.active:
        return out_of_turn_event(play, play.player_named(player), card_text, sendoff)
    actor = play.check_actor(player, "play an event")
    card = play.card(card_text)
    refusal = event_refusal(play, actor, card, target, hero, pick, sendoff)
    if refusal is not None:
        raise refusal
    play.require_in_hand(actor, card, "XS-12")  # the table's own deck: the card is shown
    play.discard_from_hand(actor, card)
    play.step(f"{actor} discards {card} for its Event ability", "XS-12")
    for effect in play.cat.event(card):
        apply_effect(play, actor, card, effect, target, hero, pick, sendoff)
    return play.result(f"{actor} plays {card}", "event")


def out_of_turn_event(play: Play, player: str, card_text: str, sendoff: str | None) -> Result:
    """XS-14: `player` plays an event card in another player's turn, on the open roll it
    applies to (a paid roll not yet paid, the roll of the mission step under way, or a
    Sendoff roll of this mission): a reroll (Regeneration on a Carnage roll, Freeze Time on
    a Payoff roll) or a modifier (Telekinesis on a Mission roll). Players who want to
    change the same roll act in turn order from the active player (the table's order: the
    referee records them as typed)."""
    card = play.card(card_text)
    if not play.turn["free_drawn"]:
        raise RefereeError(f"{player} cannot play {card} now: {play.active}'s turn starts "
                           "with its free card", "XS-14")
    effects = play.cat.event(card)
    if not play.holds(player, card):
        raise play.not_in_hand(player, card, "XS-14")
    if not effects:
        raise RefereeError(f"{card} has no Event ability", "XS-12")
    for effect in effects:
        applies = (("reroll" in effect
                    and reroll_refusal(play, card, effect["reroll"], sendoff) is None)
                   or ("modify" in effect
                       and modify_when(play, effect["modify"], sendoff) == "open"))
        if not applies:
            roll = open_roll(play, sendoff)
            now = f"the open roll is the {rolls.LABEL[roll['kind']]}" if roll else "no roll is open"
            raise RefereeError(f"{player} cannot play {card} in {play.active}'s turn: out of "
                               f"turn an event changes only an open roll it applies to, and "
                               f"{now}", "XS-14")
    play.require_in_hand(player, card, "XS-14")  # the table's own deck: the card is shown
    play.discard_from_hand(player, card)
    play.step(f"{player} discards {card} for its Event ability in {play.active}'s turn",
              "XS-14")
    for effect in effects:
        apply_effect(play, player, card, effect, None, None, None, sendoff)
    return play.result(f"{player} plays {card} in {play.active}'s turn", "event")


def event_refusal(play: Play, actor: str, card: str, target: str | None = None,
                  hero: str | None = None, pick: str | None = None,
                  sendoff: str | None = None) -> RefereeError | UsageError | None:
    """Why `actor` cannot play `card` for its Event ability now (XS-12): the error
    `play_event` raises, or None. It changes nothing and draws nothing at random, so the
    balance lab's players ask it before they choose a card. Every effect of the card is
    checked before any is applied (Shockwave: each still needs its roll to modify)."""
    if not play.holds(actor, card):
        try:
            play.require_in_hand(actor, card, "XS-12")  # raises, saying where the card is
        except RefereeError as not_in_hand:
            return not_in_hand
    pending = play.turn.get("open")
    if pending and pending["context"].get("card") == card:
        return RefereeError(f"{card} is being paid for with the open "
                            f"{rolls.LABEL[pending['kind']]}", "XS-12")
    effects = play.cat.event(card)
    if not effects:
        return RefereeError(f"{card} has no Event ability", "XS-12")
    for effect in effects:
        try:
            refusal = effect_refusal(play, actor, card, effect, target, hero, pick, sendoff)
        except (RefereeError, UsageError) as error:  # from the lookups it makes
            return error
        if refusal is not None:
            return refusal
    return None


def modify_when(play: Play, kind: str, sendoff: str | None) -> str:
    """When an event's modifier to a `kind` roll applies: 'open', 'later' or 'past'."""
    return "open" if sendoff is not None and kind == "sendoff" else roll_made(play, kind)


def effect_refusal(play: Play, actor: str, card: str, effect: dict, target: str | None,
                   hero: str | None, pick: str | None,
                   sendoff: str | None) -> RefereeError | UsageError | None:
    """Why `effect` of `card` cannot be applied now, or None (`apply_effect` applies the
    effects this allows). A lookup that fails (an unknown player or hero) raises."""
    if "reroll" in effect:
        return reroll_refusal(play, card, effect["reroll"], sendoff)
    if "modify" in effect:
        kind = effect["modify"]
        if modify_when(play, kind, sendoff) == "past":
            return RefereeError(f"{card}: no {rolls.LABEL[kind]} is left to modify this turn",
                                "XS-12")
    elif "choose_casualties" in effect:
        if roll_made(play, "sendoff") != "later":
            return RefereeError(f"{card}: no mission casualties are still to come this turn",
                                "XS-12")
    elif "hero_from_discard" in effect:
        if not any(c in play.cat and play.cat.type(c) == "Hero" for c in play.s["discard"]):
            return RefereeError(f"{card}: there is no Hero in the discard pile", "XS-12")
    elif any(key in effect for key in OPPONENT_EFFECTS):
        return _opponent_refusal(play, actor, card, effect, target, pick)
    elif "discard_marketing" in effect or "hero_fame" in effect:
        return _hero_target_refusal(play, card, effect, hero)
    elif not any(key in effect for key in ("draw", "gain_mt", "extra_turn")):
        return RefereeError(f"{card}: the referee does not know the effect {effect}", "XS-12")
    return None


def _opponent_refusal(play: Play, actor: str, card: str, effect: dict, target: str | None,
                      pick: str | None) -> RefereeError | UsageError | None:
    """An effect aimed at an opponent (XS-12): a card of its hand needs one there, picked
    as XS-16 says; a hero of its team needs one in play."""
    other = play.opponent(actor, target, card)
    seat = play.seat(other)
    if "steal_card" in effect or "opponent_discards" in effect:
        refusal = _hand_card_refusal(play, other, seat, card, effect, pick)
        if refusal is not None:
            return refusal
    if "steal_hero" in effect or "discard_opponent_hero" in effect:
        if not seat["heroes"]:
            return RefereeError(f"{card}: {other} has no hero in play", "XS-12")
        if pick is not None and play.card(pick) not in [h["name"] for h in seat["heroes"]]:
            return RefereeError(f"{play.card(pick)} is not in {other}'s team", "XS-12")
    return None


def _hand_card_refusal(play: Play, other: str, seat: dict, card: str, effect: dict,
                       pick: str | None) -> RefereeError | UsageError | None:
    """A card of `other`'s hand: chosen by `other` (--pick), or a random card of a hidden
    hand: picked at the table with the table's own deck, else by the referee (XS-16)."""
    if not seat["hand"]:
        return RefereeError(f"{card}: {other} has no card in hand", "XS-12")
    chooser = (effect.get("opponent_discards") or {}).get("chosen_by")
    if chooser == "opponent" and pick is None:
        return UsageError(f"{card}: {other} chooses the card; give it with --pick")
    if chooser != "opponent":  # a random card of a hidden hand (XS-16)
        if play.table_deck and pick is None:
            return UsageError(f"{card}: pick {other}'s card at random at the table, "
                              "face down, and give it with --pick (XS-16)")
        if not play.table_deck and pick is not None:  # before any look at the hand
            return UsageError(f"{card}: the referee dealt the cards and picks {other}'s "
                              "card at random: no --pick (XS-16)")
    if pick is not None and not play.holds(other, play.card(pick)):
        return play.not_in_hand(other, play.card(pick), "XS-12")
    return None


def _hero_target_refusal(play: Play, card: str, effect: dict,
                         hero: str | None) -> RefereeError | UsageError | None:
    """An effect on a hero named with --hero (XS-12): marketing to discard, FT to lose."""
    if hero is None:
        return UsageError(f"{card}: name the target hero with --hero")
    _, target_hero = play.hero_anywhere(hero, "XS-12")
    if "discard_marketing" in effect and not target_hero["marketing"]:
        return RefereeError(f"{card}: {target_hero['name']} has no marketing", "XS-12")
    if "hero_fame" in effect and target_hero["ft"] + int(effect["hero_fame"]) < 0:
        return RefereeError(f"{card}: {target_hero['name']} has no FT to lose", "XS-12")
    return None


# Event effects aimed at an opponent (named with --target when there are two).
OPPONENT_EFFECTS = ("look_at_hand", "steal_card", "opponent_discards", "steal_hero",
                    "discard_opponent_hero")


def random_pick(play: Play, options: list[str], given: str | None, where: str,
                hand_of: str | None = None, label: str | None = None) -> str:
    """A random card: the table's own random pick (--pick), or picked by the referee; with
    the table's own deck and a `label` naming the pick, made at the table instead (asked
    for on a terminal, else refused, XS-16). `hand_of`: the options are that player's hand
    (a refusal then never tells where the card is, XS-16)."""
    if given is None:
        return play.dice.pick(options, label if play.table_deck else None, "--pick")
    name = play.card(given)
    if name not in options:
        if hand_of is not None:
            raise play.not_in_hand(hand_of, name, "XS-12")
        raise RefereeError(f"{name} is not in {where}", "XS-12")
    return name


def opponent_hero(play: Play, actor: str, target, card: str, pick) -> tuple[str, dict]:
    """The opponent an event targets and one hero of theirs, picked at random (or as the
    table picked): Celebrity Status and TV Talk Show (XS-12)."""
    other = play.opponent(actor, target, card)
    heroes = play.seat(other)["heroes"]
    by_name = {h["name"]: h for h in heroes}
    return other, by_name[random_pick(play, list(by_name), pick, f"{other}'s team",
                                      label=f"{card}: {other}'s hero")]


def apply_effect(play: Play, actor: str, card: str, effect: dict, target, hero, pick,
                 sendoff=None) -> None:
    """Apply one effect that `effect_refusal` allows (XS-12): the first key of `effect` in
    `EFFECTS` (their order) says which."""
    for key, apply in EFFECTS.items():
        if key in effect:
            apply(play, actor, card, effect, target, hero, pick, sendoff)
            return


def _reroll(play: Play, actor: str, card: str, effect: dict, target, hero, pick, sendoff) -> None:
    do_reroll(play, card, effect["reroll"], None, sendoff)


def _modify(play: Play, actor: str, card: str, effect: dict, target, hero, pick, sendoff) -> None:
    """+N/-N to the open roll now, or to the actor's next roll of that kind this turn."""
    kind, by = effect["modify"], int(effect["by"])
    if modify_when(play, kind, sendoff) == "open":
        roll = open_roll(play, sendoff if kind == "sendoff" else None)
        assert roll is not None  # roll_made said "open"
        before = roll["total"]
        roll["mods"].append(rolls.modifier(by, card, "XS-12"))
        rolls.refresh(roll)
        play.step(f"{card} gives {by:+d}: {rolls.describe(roll)}{verdict(play, roll)}",
                  "XS-12")
        after_change(play, roll, before)
    else:  # later
        play.turn["queued"].append({"kind": kind, "by": by, "source": card, "ruling": "XS-12"})
        play.step(f"{card}: {by:+d} to {actor}'s next {rolls.LABEL[kind]} this turn", "XS-12")


def _draw(play: Play, actor: str, card: str, effect: dict, target, hero, pick, sendoff) -> None:
    play.draw(actor, int(effect["draw"]), "XS-12", card)


def _gain_mt(play: Play, actor: str, card: str, effect: dict, target, hero, pick, sendoff) -> None:
    play.gain_mt(actor, int(effect["gain_mt"]), card, "XS-12")


def _extra_turn(play: Play, actor: str, card: str, effect: dict, target, hero, pick, sendoff) -> None:
    play.turn["another_turn"] = True
    play.step(f"{card}: {actor} takes another turn after this one", "XS-12")


def _choose_casualties(play: Play, actor: str, card: str, effect: dict, target, hero, pick,
                       sendoff) -> None:
    mission = play.turn.get("mission")
    play.turn["choose_casualties"] = True
    play.step(f"{card}: {actor} chooses the casualties of "
              + (f"{mission['card']}" if mission else "this turn's mission"), "XS-12")


def _hero_from_discard(play: Play, actor: str, card: str, effect: dict, target, hero, pick,
                       sendoff) -> None:
    """The top Hero of the discard pile goes to the actor's hand."""
    heroes = [c for c in play.s["discard"] if c in play.cat and play.cat.type(c) == "Hero"]
    top = heroes[-1]
    play.s["discard"].reverse()
    play.s["discard"].remove(top)  # the topmost copy (the pile's top is its end)
    play.s["discard"].reverse()
    play.seat(actor)["hand"].append(top)
    play.step(f"{card}: {top}, the top Hero of the discard pile, goes to {actor}'s hand",
              "XS-12")


def _look_at_hand(play: Play, actor: str, card: str, effect: dict, target, hero, pick,
                  sendoff) -> None:
    other = play.opponent(actor, target, card)
    hand = list(play.seat(other)["hand"])
    if play.table_deck:  # the players show the cards themselves
        play.step(f"{card}: {other} shows {actor} the hand ({counted(len(hand), 'card')})", "XS-12")
    else:
        play.reveal[other] = hand
        play.step(f"{card}: {actor} looks at {other}'s hand ({counted(len(hand), 'card')})", "XS-12")


def _steal_card(play: Play, actor: str, card: str, effect: dict, target, hero, pick, sendoff) -> None:
    """A random card of the opponent's hand: picked at the table (XS-16) or by the referee."""
    other = play.opponent(actor, target, card)
    hand = play.seat(other)["hand"]
    if play.table_deck:  # picked at the table, then shown (XS-16)
        assert pick is not None  # effect_refusal asks for it
        stolen = play.card(pick)
        play.require_in_hand(other, stolen, "XS-12")
        play.step(f"{card}: {actor} steals {stolen}, picked at random from {other}'s "
                  "hand at the table", "XS-16")
    else:
        stolen = random_pick(play, list(hand), pick, f"{other}'s hand", other)
        play.reveal[actor] = [stolen]
        play.step(f"{card}: {actor} steals a random card from {other}'s hand", "XS-12")
    hand.remove(stolen)
    play.seat(actor)["hand"].append(stolen)


def _opponent_discards(play: Play, actor: str, card: str, effect: dict, target, hero, pick,
                       sendoff) -> None:
    """The opponent discards cards: chosen by them, or at random (XS-16: at the table)."""
    spec = effect["opponent_discards"]
    other = play.opponent(actor, target, card)
    hand = play.seat(other)["hand"]
    for _ in range(min(int(spec.get("count", 1)), len(hand))):
        if spec.get("chosen_by") == "opponent":
            if pick is None:
                raise UsageError(f"{card}: {other} chooses the card; give it with --pick")
            chosen = play.card(pick)
            play.require_in_hand(other, chosen, "XS-12")
            pick = None
        elif play.table_deck:  # picked at the table, face down, then shown (XS-16)
            if pick is None:
                raise UsageError(f"{card}: pick {other}'s card at the table and give it "
                                 "with --pick (XS-16)")
            chosen = play.card(pick)
            play.require_in_hand(other, chosen, "XS-12")
            pick = None
        else:
            chosen = random_pick(play, list(hand), pick, f"{other}'s hand", other)
            pick = None
        play.discard_from_hand(other, chosen)
        play.step(f"{card}: {other} discards {chosen}", "XS-12")


def _steal_hero(play: Play, actor: str, card: str, effect: dict, target, hero, pick, sendoff) -> None:
    other, taken = opponent_hero(play, actor, target, card, pick)
    play.take_hero(other, taken)
    play.add_hero(actor, taken)
    play.step(f"{card}: {actor} steals {taken['name']} from {other}, with its "
              f"{taken['ft']} FT and marketing", "XS-12")


def _discard_opponent_hero(play: Play, actor: str, card: str, effect: dict, target, hero, pick,
                           sendoff) -> None:
    other, gone = opponent_hero(play, actor, target, card, pick)
    play.remove_hero(other, gone)
    play.step(f"{card}: {other}'s {gone['name']} is discarded with its FT and marketing "
              "(discarded, not killed)", "XS-12")


def _discard_marketing(play: Play, actor: str, card: str, effect: dict, target, hero, pick,
                       sendoff) -> None:
    owner, target_hero = play.hero_anywhere(hero, "XS-12")
    play.s["discard"].extend(target_hero["marketing"])
    play.step(f"{card}: {', '.join(target_hero['marketing'])} on {target_hero['name']} "
              f"({owner}) discarded", "XS-12")
    target_hero["marketing"] = []


def _hero_fame(play: Play, actor: str, card: str, effect: dict, target, hero, pick, sendoff) -> None:
    """A hero gains or loses FT; its marketing must still fit (XS-5)."""
    owner, target_hero = play.hero_anywhere(hero, "XS-12")
    by = int(effect["hero_fame"])
    target_hero["ft"] += by
    play.step(f"{card}: {target_hero['name']} ({owner}) {'gains' if by > 0 else 'loses'} "
              f"{abs(by)} FT (now {target_hero['ft']})", "XS-12")
    play.fit_marketing(owner, target_hero, "XS-5")


# The event effects `apply_effect` knows, by the key naming each, in the order it looks.
EFFECTS = {
    "reroll": _reroll, "modify": _modify, "draw": _draw, "gain_mt": _gain_mt,
    "extra_turn": _extra_turn, "choose_casualties": _choose_casualties,
    "hero_from_discard": _hero_from_discard, "look_at_hand": _look_at_hand,
    "steal_card": _steal_card, "opponent_discards": _opponent_discards,
    "steal_hero": _steal_hero, "discard_opponent_hero": _discard_opponent_hero,
    "discard_marketing": _discard_marketing, "hero_fame": _hero_fame,
}
