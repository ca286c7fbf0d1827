"""The Mission phase of X-Statix: the Mission roll (XS-6), the Carnage roll and its
casualties (XS-7), the Success and Payoff rolls (XS-8). One step per command; the roll of
the current step stays open to rerolls and adjustments until the next step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.errors import RefereeError
from referee.words import counted
from referee.xs import rolls
from referee.xs.play import HIDDEN, STAGE_MADE, Play, Result
from referee.xs.turn import enter_phase, finish_mission, next_mission_step, settle_mission, verdict


def current(play: Play, stage: str, what: str, own: bool = True) -> dict:
    """The mission under way at `stage`, else a refusal saying what comes next (`own`:
    the command is the step after `stage`; if that step is done, say so)."""
    mission = play.turn.get("mission")
    if not mission or mission["stage"] == "done":
        raise RefereeError(f"cannot {what}: no mission is under way this turn", "XS-6")
    if mission["stage"] != stage:
        if mission["stage"] == "mission":
            needed = mission["rolls"]["mission"]["total"]
            have = len(play.seat(play.active)["heroes"])
            if have < needed:  # the next step (carnage) would be refused too: say why now
                raise RefereeError(
                    f"cannot {what}: {mission['card']} needs {counted(needed, 'hero', 'heroes')}"
                    f" and {play.active} has {have}: the mission is not attempted (reroll the "
                    "Mission roll, or pass)", "XS-6")
        if own and STAGE_MADE.get(mission["stage"], 0) > STAGE_MADE.get(stage, 0):
            done = DONE_AS.get(stage, stage)
            raise RefereeError(f"cannot {what}: {done} is done already this mission (made by "
                               f"the command before, or chained after it); "
                               f"{next_mission_step(mission)}", "XS-6")
        raise RefereeError(f"cannot {what} now: {next_mission_step(mission)}", "XS-6")
    return mission


# the step already made, as a refusal of its command names it (a chained step, XS-7/XS-8)
DONE_AS = {"mission": "the Carnage roll", "carnage": "the carnage (xs casualties)",
           "casualties": "the Success roll", "success": "the Payoff roll"}


def either(items: list[str]) -> str:
    """`["a", "b", "c"]` is "a, b or c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def may_hold(play: Play, player: str, kind: str) -> bool:
    """Whether `player`'s hand may hold a card of `kind` (with the table's own deck any
    unseen card may be one, XS-16)."""
    for card in play.seat(player)["hand"]:
        if card == HIDDEN or (card in play.cat and play.cat.type(card) == kind):
            return True
    return False


def next_compulsory(play: Play) -> tuple[str, str]:
    """What the rules make next in the mission under way when the player decides nothing
    (the chain of the one-shot CLI and of `referee play`): ("carnage" | "casualties" |
    "success" | "payoff", "") for the compulsory step; ("", what is asked) when a
    decision of the active player comes first (Power cards against carnage or for
    success, a sacrifice, the casualties chosen under Ratings Bonanza); ("", "") when the
    mission is over or not attempted. Whether another player changes the roll just made
    (XS-14) is asked by the caller (`roll_options`)."""
    mission = play.turn.get("mission")
    if not mission or mission["stage"] in ("done", "payoff"):
        return "", ""
    actor = play.active
    stage = mission["stage"]
    if stage == "mission":
        needed = mission["rolls"]["mission"]["total"]
        return ("carnage", "") if len(play.seat(actor)["heroes"]) >= needed else ("", "")
    if stage == "carnage":
        return _before_casualties(play, actor, mission)
    if stage == "casualties":
        return _before_success(play, actor, mission)
    if stage == "success":
        roll = mission["rolls"]["success"]
        if roll["total"] > mission["rolls"]["carnage"]["total"]:
            return "payoff", ""  # XS-8: the Payoff follows a success, compulsory
        if may_hold(play, actor, "Power"):
            return "", (f"the Success roll is not higher than the Carnage roll: {actor} may "
                        "add Power cards (xs boost --power CARD), or the mission fails "
                        "with the phase (xs pass)")
    return "", ""


def _before_casualties(play: Play, actor: str, mission: dict) -> tuple[str, str]:
    """XS-7: after the Carnage roll, the casualties, unless the player may first negate
    carnage (Power cards, a sacrifice), choose the casualties or name U-Go Girl's stand-in."""
    if mission["rolls"]["carnage"]["total"] <= 0:
        return "casualties", ""  # XS-7: nothing to negate, nobody killed
    asks = []
    if may_hold(play, actor, "Power"):
        asks.append("discard Power cards against it (--power CARD)")
    if any("negate_carnage" in (e.get("sacrifice") or {})
           for h in play.seat(actor)["heroes"] for e in play.cat.ability(h["name"])
           if may_kill_off(mission, h["name"])):
        asks.append("sacrifice a hero against it (--sacrifice HERO)")
    if play.turn["choose_casualties"]:
        asks.append("choose the casualties (--choose HERO, Ratings Bonanza)")
    if [n for n, e, _ in play.with_verb(actor, "take_casualty") if e]:
        asks.append("name who U-Go Girl stands in for (--swap-for HERO)")
    if asks:
        total = mission["rolls"]["carnage"]["total"]
        return "", (f"{actor} may {either(asks)} before the "
                    f"{counted(total, 'carnage point')} kill: xs casualties [...]")
    return "casualties", ""


def _before_success(play: Play, actor: str, mission: dict) -> tuple[str, str]:
    """XS-8: after the casualties, the Success roll, unless the player may first add to it
    (Power cards, a hero's discard bonus, a sacrifice's bonus)."""
    asks = []
    if may_hold(play, actor, "Power"):
        asks.append("discard Power cards for +1 each (--power CARD)")
    if play.seat(actor)["hand"] and [
            n for n, e, _ in play.with_verb(actor, "discard_any_for")
            if e.get("modify") == "success"]:
        asks.append("discard cards for a hero's bonus (--discard CARD)")
    if len(team_in_play(play, mission)) > 1 and any(
            (e.get("sacrifice") or {}).get("modify") == "success"
            for h in play.seat(actor)["heroes"] for e in play.cat.ability(h["name"])
            if may_kill_off(mission, h["name"])):
        asks.append("sacrifice a hero for its bonus (--sacrifice HERO)")
    if asks:
        return "", f"{actor} may {either(asks)} before the Success roll: xs success [...]"
    return "success", ""


def team_in_play(play: Play, mission: dict) -> list[str]:
    team = set(mission["team"])
    return [h["name"] for h in play.seat(play.active)["heroes"] if h["name"] in team]


def start(play: Play, player: str | None, card_text: str) -> Result:
    """Play one Mission card (XS-6: one a turn) and make the Mission roll (Anarchist -1,
    minimum 1)."""
    actor = play.check_actor(player, "go on a mission")
    card = play.card(card_text)
    enter_phase(play, "mission", "play a mission")
    if play.turn["missions"] >= 1:
        raise RefereeError(f"{actor} has already played a mission this turn: one a turn",
                           "XS-6")
    play.require_in_hand(actor, card, "XS-6")
    if play.cat.type(card) != "Mission":
        raise RefereeError(f"{card} is a {play.cat.type(card)} card, not a Mission", "XS-6")
    seat = play.seat(actor)
    seat["hand"].remove(card)
    play.turn["missions"] += 1
    mission: dict[str, Any] = {"card": card, "stage": "mission", "team": [h["name"] for h in seat["heroes"]],
               "rolls": {}, "discarded": False}
    play.turn["mission"] = mission
    if play.telling:
        play.step(f"{actor} plays the mission {card} with "
                  f"{counted(len(seat['heroes']), 'hero', 'heroes')}", "XS-6")
    for source, effect, _ in play.with_verb(actor, "on_mission_start"):
        if "draw" in effect:
            play.draw(actor, int(effect["draw"]), None, f"{source} at the start of the mission")
    roll = play.roll("mission", actor)
    mission["rolls"]["mission"] = roll
    if play.telling:
        play.step(f"{rolls.describe(roll)}{verdict(play, roll)}", "XS-6")
    return play.result(f"{actor} plays {card}: Mission roll {roll['total']}", "mission")


def carnage(play: Play, player: str | None) -> Result:
    """XS-7: Carnage roll 1D6 + mission CR + O-Force/Dead Girl and events."""
    actor = play.check_actor(player, "roll carnage")
    mission = current(play, "mission", "roll carnage")
    needed = mission["rolls"]["mission"]["total"]
    have = len(play.seat(actor)["heroes"])
    if have < needed:
        raise RefereeError(
            f"{mission['card']} needs {counted(needed, 'hero', 'heroes')} and {actor} has "
            f"{have}: the mission is not attempted (reroll the Mission roll, or pass)", "XS-6")
    mission["team"] = [h["name"] for h in play.seat(actor)["heroes"]]
    card_mod = play.cat.mission(mission["card"]).get("carnage", 0)
    extra = [rolls.modifier(card_mod, mission["card"], "XS-7")] if card_mod else []
    roll = play.roll("carnage", actor, extra=extra)
    mission["rolls"]["carnage"] = roll
    mission["stage"] = "carnage"
    if play.telling:
        play.step(rolls.describe(roll), "XS-7")
    return play.result(f"{actor}'s Carnage roll {roll['total']}", "carnage")


def power_cards(play: Play, player: str, cards: list[str], ruling: str) -> list[str]:
    names = [play.card(c) for c in cards]
    for name in names:
        play.require_in_hand(player, name, ruling)
        if play.cat.type(name) != "Power":
            raise RefereeError(f"{name} is a {play.cat.type(name)} card, not a Power card",
                               ruling)
    if len(set(names)) != len(names):
        raise RefereeError("a card is named twice (each card exists once)", ruling)
    return names


def sacrifice_effect(play: Play, player: str, hero_text: str, key: str, ruling: str) -> tuple:
    """The hero killed off for its own ability (Overkill, Battering Ram) and that ability;
    at most once per mission, even when a survival ability saved it (XS-15)."""
    name = play.card(hero_text)
    mission = play.turn["mission"]
    if name in mission.get("killed_off", ()):
        raise RefereeError(f"{name} has already been killed off on this mission: once per "
                           "mission, even when a survival ability saves the hero", "XS-15")
    hero = play.require_hero(player, name, ruling)
    for effect in play.cat.ability(hero["name"]):
        sac = effect.get("sacrifice") or {}
        if key in sac:
            mission.setdefault("killed_off", []).append(name)
            return hero["name"], sac
    raise RefereeError(f"{hero['name']} has no such sacrifice ability", ruling)


def may_kill_off(mission: dict, name: str) -> bool:
    """Whether `name` may still be killed off for its own ability on `mission` (XS-15)."""
    return name not in mission.get("killed_off", ())



def casualties(
    play: Play,
    player: str | None,
    powers: Sequence[str] = (),
    sacrifices: Sequence[str] = (),
    choose: Sequence[str] = (),
    swap_for: Sequence[str] = (),
    picked: Sequence[str] = (),
) -> Result:
    """XS-7: the Power cards discarded negate carnage (one point each, Healing Powers two),
    sacrificed heroes negate theirs (Battering Ram); each point left kills a random hero
    (chosen with Ratings Bonanza; U-Go Girl may take the casualty's place; `picked`: the
    table's own random picks). Each hero killed pays a Sendoff roll."""
    actor = play.check_actor(player, "resolve carnage")
    mission = current(play, "carnage", "resolve carnage")
    points = mission["rolls"]["carnage"]["total"]
    points = _negate_with_powers(play, actor, powers, points)
    points = _negate_with_sacrifices(play, actor, sacrifices, points)
    points = max(0, points)
    chosen = [play.card(c) for c in choose]
    if chosen and not play.turn["choose_casualties"]:
        raise RefereeError("casualties are random unless an event lets the player choose them "
                           "(Ratings Bonanza)", "XS-7")
    table_picks = [play.card(c) for c in picked]
    swappers = [n for n, e, _ in play.with_verb(actor, "take_casualty") if e]
    swap = [play.card(c) for c in swap_for]
    if swap and not swappers:
        raise RefereeError(f"{actor} has no hero who may take a casualty's place", "XS-7")
    if play.telling:
        play.step(f"{counted(points, 'carnage point')} not negated", "XS-7")
    for number in range(1, points + 1):
        # XS-17: a hero a survival ability saved is still in play, and may be picked again
        alive = [h["name"] for h in play.seat(actor)["heroes"]]
        if not alive:
            play.step("no hero is left to kill", "XS-7")
            break
        chosen_now = bool(chosen)
        victim = _pick_casualty(play, actor, alive, chosen, table_picks, number, points)
        victim = _take_casualtys_place(play, victim, alive, swappers, swap, chosen_now)
        play.kill(actor, victim, "mission casualty", sendoff=True)
    if table_picks:  # a script may give every pick the dice could ask for (XS-17)
        play.step(f"{counted(len(table_picks), 'pick')} given not needed, ignored: "
                  f"{', '.join(table_picks)}", "XS-17")
    survivors = _survivors(play, mission)
    lost = len(mission["team"]) - len(survivors)
    return play.result(f"{actor}'s carnage: {counted(lost, 'hero', 'heroes')} lost",
                       "casualties")


def _negate_with_powers(play: Play, actor: str, powers: Sequence[str], points: int) -> int:
    """XS-7: each Power card discarded negates its carnage points (Healing Powers two)."""
    for name in power_cards(play, actor, list(powers), "XS-7"):
        if points <= 0:
            raise RefereeError(f"the carnage is already negated: {name} is not needed", "XS-7")
        value = play.cat.counts(name, "carnage")
        play.discard_from_hand(actor, name)
        points -= value
        play.step(f"{name} discarded: negates {counted(value, 'carnage point')}", "XS-7")
    return points


def _negate_with_sacrifices(play: Play, actor: str, sacrifices: Sequence[str], points: int) -> int:
    """XS-7: a sacrificed hero negates its carnage (Battering Ram), even when it lives (XS-15)."""
    for text in sacrifices:
        if points <= 0:
            raise RefereeError(f"the carnage is already negated: {text} is not needed", "XS-7")
        name, sac = sacrifice_effect(play, actor, text, "negate_carnage", "XS-7")
        died = play.kill(actor, name, "sacrificed to negate carnage", sendoff=True)
        points -= int(sac["negate_carnage"])
        negates = counted(int(sac["negate_carnage"]), "carnage point")
        play.step(f"{name}'s sacrifice negates {negates}", "XS-7")
        if not died:
            play.step(f"{name} lives: the sacrifice still negates {negates}", "XS-15")
    return points


def _pick_casualty(play: Play, actor: str, alive: list[str], chosen: list[str], table_picks: list[str],
                   number: int, points: int) -> str:
    """One casualty: chosen (Ratings Bonanza, XS-7), picked at the table (XS-17) or drawn
    at random among the heroes still in play (XS-16, XS-17)."""
    if chosen:
        victim = chosen.pop(0)
        if victim not in alive:
            raise RefereeError(f"{victim} is not a hero on {actor}'s team to be chosen",
                               "XS-7")
        play.step(f"{victim} chosen as the casualty", "XS-7")
    elif table_picks:
        victim = table_picks.pop(0)
        if victim not in alive:
            raise RefereeError(f"{victim} is not a hero on {actor}'s team", "XS-7")
        play.step(f"random casualty (picked at the table): {victim}", "XS-17")
    else:  # the table's own deck: picked at the table, or asked for (XS-16)
        label = f"Carnage casualty {number} of {points}" if points > 1 else "Carnage casualty"
        victim = play.dice.pick(alive, label if play.table_deck else None, "--picked")
        if play.telling:  # each point its own pick among the heroes still in play
            play.step(f"random casualty: {victim}", "XS-17")
    return victim


def _take_casualtys_place(play: Play, victim: str, alive: list[str], swappers: list[str],
                          swap: list[str], chosen_now: bool) -> str:
    """XS-7: U-Go Girl may take a random casualty's place (asked once the pick is known)."""
    stand_in = next((s for s in swappers if s in alive and s != victim), None)
    if stand_in and not chosen_now and victim not in swap and play.dice.offer is not None:
        answer = play.dice.offer(f"{stand_in} takes {victim}'s place as the casualty? "
                                 "(y, or Enter: no)")
        if answer.strip().casefold() in ("y", "yes", stand_in.casefold()):
            swap.append(victim)  # U-Go Girl's switch, offered once the pick is known (XS-7)
    if victim in swap and stand_in:
        play.step(f"{stand_in} takes {victim}'s place as the casualty", "XS-7")
        swappers.remove(stand_in)
        victim = stand_in
    return victim


def _survivors(play: Play, mission: dict) -> list[str]:
    """XS-8: the team's survivors; with none, the mission fails."""
    survivors = team_in_play(play, mission)
    if not survivors:
        play.step("no hero survived: the mission fails", "XS-8")
        mission["stage"] = "casualties"
        finish_mission(play, went=True)
    else:
        mission["stage"] = "casualties"
        if play.telling:
            play.step(f"{'survivor' if len(survivors) == 1 else 'survivors'}: "
                      f"{', '.join(survivors)}", "XS-8")
    return survivors


def boosts(play: Play, actor: str, mission: dict, powers, discards, sacrifices) -> list[dict]:
    """Success-roll modifiers the player buys (XS-8): Power cards (+1 each, Superhuman
    Strength counts 2, Orbit makes each +2), any card for Gin Genie, Overkill's sacrifice."""
    mods = []
    per_power = [(n, e) for n, e, _ in play.with_verb(actor, "power_value") if "success" in e]
    value, why = 1, ""
    if per_power:
        source, effect = max(per_power, key=lambda pe: pe[1]["success"])
        value, why = int(effect["success"]), f", {source}"
    for name in power_cards(play, actor, list(powers), "XS-8"):
        count = play.cat.counts(name, "success")
        play.discard_from_hand(actor, name)
        # XS-18: Orbit's +2 is for these cards only, never for those that negated carnage
        mods.append(rolls.modifier(count * value, f"{name} discarded{why}",
                                   "XS-18" if per_power else "XS-8"))
    if discards:
        genies = [(n, e) for n, e, _ in play.with_verb(actor, "discard_any_for")
                  if e.get("modify") == "success"]
        if not genies:
            raise RefereeError(f"{actor} has no hero that turns discarded cards into Success",
                               "XS-8")
        source, effect = genies[0]
        for text in discards:
            name = play.card(text)
            play.require_in_hand(actor, name, "XS-8")
            play.discard_from_hand(actor, name)
            mods.append(rolls.modifier(int(effect["by"]), f"{name} discarded for {source}",
                                       "XS-8"))
    for text in sacrifices:
        name, sac = sacrifice_effect(play, actor, text, "modify", "XS-8")
        if sac["modify"] != "success":
            raise RefereeError(f"{name}'s sacrifice does not help the Success roll", "XS-8")
        if team_in_play(play, mission) == [name]:
            raise RefereeError(f"{name} is the last survivor: the Success roll needs one",
                               "XS-8")
        died = play.kill(actor, name, "sacrificed for the Success roll", sendoff=True)
        mods.append(rolls.modifier(int(sac["by"]), f"{name} sacrificed", "XS-8"))
        if not died:
            play.step(f"{name} lives: the sacrifice still gives {int(sac['by']):+d}", "XS-15")
    return mods


def survivor_mod(play: Play, mission: dict) -> dict:
    mod = rolls.modifier(len(team_in_play(play, mission)), "survivors", "XS-8")
    mod["survivors"] = True
    return mod


def success(play: Play, player: str | None, powers=(), discards=(), sacrifices=()) -> Result:
    """XS-8: Success roll 1D6 + survivors + Vivisector, mission SR, Power cards..."""
    actor = play.check_actor(player, "roll success")
    mission = current(play, "casualties", "roll success")
    bought = boosts(play, actor, mission, powers, discards, sacrifices)
    card_mod = play.cat.mission(mission["card"]).get("success", 0)
    extra = [survivor_mod(play, mission)]
    if card_mod:
        extra.append(rolls.modifier(card_mod, mission["card"], "XS-8"))
    roll = play.roll("success", actor, extra=extra + bought)
    mission["rolls"]["success"] = roll
    mission["stage"] = "success"
    if play.telling:
        play.step(f"{rolls.describe(roll)}{verdict(play, roll)}", "XS-8")
    return play.result(f"{actor}'s Success roll {roll['total']}", "success")


def boost(play: Play, player: str | None, powers=(), discards=(), sacrifices=()) -> Result:
    """Add to the Success roll already made (the rules let Power cards be discarded after
    seeing it)."""
    actor = play.check_actor(player, "add to the Success roll")
    mission = current(play, "success", "add to the Success roll", own=False)
    if not (powers or discards or sacrifices):
        raise RefereeError("name the Power cards, cards or heroes that add to the roll", "XS-8")
    roll = mission["rolls"]["success"]
    roll["mods"] += boosts(play, actor, mission, powers, discards, sacrifices)
    for mod in roll["mods"]:
        if mod.get("survivors"):
            mod["by"] = len(team_in_play(play, mission))
    rolls.refresh(roll)
    play.step(f"{rolls.describe(roll)}{verdict(play, roll)}", "XS-8")
    return play.result(f"{actor}'s Success roll now {roll['total']}", "boost")


def payoff(play: Play, player: str | None) -> Result:
    """XS-8: a successful mission pays 2D6 MT + mission PR, X-Force, Lacuna, Interviews."""
    actor = play.check_actor(player, "roll the payoff")
    mission = current(play, "success", "roll the payoff")
    success_total = mission["rolls"]["success"]["total"]
    carnage_total = mission["rolls"]["carnage"]["total"]
    if success_total <= carnage_total:
        raise RefereeError(f"the mission failed (Success {success_total} is not higher than "
                           f"Carnage {carnage_total}): no Payoff", "XS-8")
    card_mod = play.cat.mission(mission["card"]).get("payoff", 0)
    extra = [rolls.modifier(card_mod, mission["card"], "XS-8")] if card_mod else []
    roll = play.roll("payoff", actor, extra=extra)
    mission["rolls"]["payoff"] = roll
    mission["stage"] = "payoff"
    play.gain_mt(actor, roll["total"], f"mission success: {rolls.describe(roll)}", "XS-8")
    return play.result(f"{actor}'s {mission['card']} pays {roll['total']} MT", "payoff")


__all__ = ["next_compulsory", "start", "carnage", "casualties", "success", "boost", "payoff", "settle_mission"]
