"""The X-Statix turn outside the Mission: phases in order, paid rolls (XS-2) for the
Opportunity, Recruitment and Publicity phases, Fame (XS-9), Fortune (XS-10), the End
phase (XS-11), the next turn and the game's end (XS-13)."""

from __future__ import annotations

from typing import Any

from referee.errors import RefereeError
from referee.words import counted, listed
from referee.xs import rolls
from referee.xs.play import (
    HIDDEN,
    MISSION_ORDER,
    PHASE_INDEX,
    PHASE_RULING,
    PHASES,
    Play,
    Result,
    Settled,
    SkipGuard,
)
from referee.xs.rolls import Dice


# ── phases ────────────────────────────────────────────────────────────────────
def enter_phase(play: Play, phase: str, what: str) -> None:
    """Move the active player's turn forward to `phase`, resolving what lies between:
    the open roll is settled, the Mission must be finished, Fame and Fortune are applied.
    Going back is refused: phases come in order."""
    target = PHASE_INDEX[phase]
    current = play.phase_index()
    if target < current:
        raise RefereeError(
            f"{play.active} cannot {what} in the {play.turn['phase']} phase: that belongs to "
            f"the {phase} phase, which is over this turn",
            PHASE_RULING[phase],
        )
    if play.at_table and not play.skip:
        for skipped in PHASES[current:target]:
            reason = could_still_act(play, skipped)
            if reason:
                raise SkipGuard(
                    f"{play.active} cannot {what} yet: that would skip the {skipped} phase, "
                    f"where {reason}; end it with `xs pass`, or add --skip to skip it on "
                    "purpose", PHASE_RULING[skipped])
    if play.turn["open"]:
        label = rolls.LABEL[play.turn["open"]["kind"]]
        ended = play.turn["phase"]
        settle_open(play)
        if play.phase_index() > target:  # the unpaid roll ended this command's phase
            raise Settled(
                f"{play.active} cannot {what}: the open {label} cannot be paid, and that ends "
                f"the {ended} phase (change the roll first, or pay it: xs pay)", "XS-2",
                Result(play.s, f"{play.active}'s open {label} is settled", play.steps,
                       kind="pay", reveal=play.reveal))
    while play.phase_index() < target:
        leave_phase(play)


def could_still_act(play: Play, phase: str) -> str | None:
    """What the active player could still do in `phase` (a slip guard: a later phase's
    command would end it), or None. The Mission phase: no mission played yet this turn,
    heroes in play and a Mission card in hand (XS-6) - at a table with its own deck any
    card in hand may be one."""
    if phase != "mission" or play.turn["missions"] or play.turn.get("mission"):
        return None
    seat = play.seat(play.active)
    if not seat["heroes"]:
        return None
    if any(c in play.cat and play.cat.type(c) == "Mission" for c in seat["hand"]):
        return f"{play.active} has heroes in play and a Mission card in hand (xs mission CARD)"
    if HIDDEN in seat["hand"]:
        return f"{play.active} has heroes in play and may hold a Mission card (xs mission CARD)"
    return None


def leave_phase(play: Play) -> None:
    phase = play.turn["phase"]
    if phase == "mission":
        settle_mission(play)
        mission = play.turn["mission"]
        if mission and mission["stage"] != "done":
            raise RefereeError(f"the mission is not finished: {next_mission_step(mission)}",
                               "XS-6")
    following = PHASES[PHASE_INDEX[phase] + 1]
    play.turn["phase"] = following
    if following == "fame":
        apply_fame(play)
    elif following == "fortune":
        apply_fortune(play)


def next_mission_step(mission: dict) -> str:
    return {
        "mission": "roll the Carnage roll next (xs carnage)",
        "carnage": "resolve the carnage next (xs casualties)",
        "casualties": "roll the Success roll next (xs success)",
        "success": "roll the Payoff roll next (xs payoff)",
        "payoff": "the Payoff roll is made; the mission ends with the phase (xs pass)",
    }.get(mission["stage"], "")


def verdict(play: Play, roll: dict) -> str:
    """What a Mission or Success roll means now, told again after each change: the heroes
    needed against the team (XS-6), the Success roll against the Carnage roll (XS-8)."""
    if roll["kind"] == "mission":
        have = len(play.seat(play.active)["heroes"])
        return (f": {counted(roll['total'], 'hero', 'heroes')} needed, {play.active} has "
                f"{have}")
    mission = play.turn.get("mission")
    if roll["kind"] == "success" and mission is not None:
        carnage = mission["rolls"]["carnage"]["total"]
        return f" against Carnage {carnage}: " + (
            "success" if roll["total"] > carnage else "not higher")
    return ""


def pass_phase(play: Play, player: str | None) -> Result:
    """The player chooses to do no more in this phase (XS-3/4/5/6)."""
    actor = play.check_actor(player, "pass")
    phase = play.turn["phase"]
    if phase == "end":
        raise RefereeError("the End phase ends with the turn: use `xs next`", "XS-11")
    settle_open(play)
    if play.turn["phase"] == phase:  # an unpaid roll may already have ended it (XS-2)
        leave_phase(play)
    while play.turn["phase"] in ("fame", "fortune"):
        leave_phase(play)
    if play.telling:
        play.step(f"{actor} ends the {phase} phase; now the {play.turn['phase']} phase",
                  PHASE_RULING[phase])
    return play.result(f"{actor} passes: {phase} phase over", "pass")


# ── paid rolls (XS-2) ─────────────────────────────────────────────────────────
def roll_options(play: Play, player: str, roll: dict) -> list[str]:
    """What could still change this roll: rerolls and adjustments from heroes in play
    not used up, and event cards in hand that reroll or modify it (told without naming
    them: hands are private, XS-16). At a table also the other players' event cards, in
    turn order from the active player (XS-14), and every hand that holds a card counts:
    the referee then tells nothing about what a hand holds (a roll left open or paid at
    once would tell it)."""
    found = [name for verb in ("reroll", "adjust")
             for name, _, _ in abilities_for(play, player, roll, verb)]
    seats = play.s["players"]
    start = seats.index(player)
    holders = [player] + ([p for p in seats[start + 1:] + seats[:start]] if play.at_table else [])
    paying_for = roll["context"].get("card")
    with_events: list[str] = []
    for holder in holders:
        if play.at_table:  # any card in hand may be such an event: no hand is told (XS-16)
            hand = list(play.seat(holder)["hand"])
            if holder == player and paying_for in hand:
                hand.remove(paying_for)
            could = bool(hand)
        else:
            could = may_change_with_event(play, holder, roll["kind"])
        if could:
            with_events.append(holder)
    if with_events:  # "an event card from Bob's, Cy's or Ann's hand", in turn order
        owners = [f"{name}'s" for name in with_events]
        either = owners[0] if len(owners) == 1 else f"{', '.join(owners[:-1])} or {owners[-1]}"
        found.append(f"an event card from {either} hand")
    return found


def may_change_with_event(play: Play, player: str, kind: str) -> bool:
    """Whether `player` may hold an event card that rerolls or modifies a `kind` roll
    (with the table's own deck: any hidden card may be one)."""
    for card in play.seat(player)["hand"]:
        if card == HIDDEN:
            return True
        for effect in play.cat.event(card):
            if effect.get("reroll") in (kind, "any") or effect.get("modify") == kind:
                return True
    return False


def abilities_for(play: Play, player: str, roll: dict,
                  verb: str) -> list[tuple[str, dict, str | None]]:
    """The `verb` abilities ("reroll", "adjust") of `player`'s cards in play that may
    change `roll` now: its kind (or any roll), and not used up."""
    return [(name, effect, hero) for name, effect, hero in play.sources_with(player, verb)
            if effect[verb] in (roll["kind"], "any") and can_use(play, name, effect, roll)]


def can_use(play: Play, source: str, effect: dict, roll: dict) -> bool:
    """`per_turn: N` abilities: N uses a turn (The Orphan, Venus Dee Milo); the others
    once per roll (Plazm, Succubus)."""
    if "per_turn" in effect:
        return play.turn["used"].get(source, 0) < int(effect["per_turn"])
    return source not in roll["used"]


def start_paid_roll(play: Play, player: str, kind: str, hero: str | None, **context) -> dict:
    roll = play.roll(kind, player, hero=hero, context=context)
    if play.telling:
        play.step(rolls.describe(roll), rolls.RULING[kind])
    options = roll_options(play, player, roll)
    if options:
        play.turn["open"] = roll
        if play.telling:
            play.step(f"the {rolls.LABEL[kind]} is open: {', '.join(options)} may change "
                      "it before it is paid (paid at the next action, or with xs pay)", "XS-2")
    else:
        pay(play, roll)
    return roll


def settle_open(play: Play) -> None:
    roll = play.turn.get("open")
    if roll:
        play.turn["open"] = None
        pay(play, roll)


def pay(play: Play, roll: dict) -> bool:
    """XS-2: pay the roll's total in MT and do the action; a player who cannot pay the
    whole amount pays nothing, the action does not happen, and the phase ends."""
    player = play.active
    seat = play.seat(player)
    amount = roll["total"]
    ctx = roll["context"]
    card = ctx.get("card")
    hero = play.hero(player, ctx["onto"]) if roll["kind"] == "marketing" else None
    if (card is not None and card not in seat["hand"]) or (roll["kind"] == "marketing" and (
            hero is None or play.marketing_load(hero) + play.cat.counts(card, "marketing")
            > hero["ft"])) or (roll["kind"] == "opportunity" and not play.s["deck"]):
        play.step(f"{paid_for(roll)} can no longer happen: nothing is paid", "XS-2")
        return False
    if seat["mt"] < amount:
        phase = play.turn["phase"]
        play.step(f"{player} cannot pay {amount} MT for {paid_for(roll)} (has {seat['mt']}): "
                  f"pays nothing, {not_done(roll)}, and the {phase} phase ends", "XS-2")
        leave_phase(play)
        return False
    seat["mt"] -= amount
    if play.telling:
        play.step(f"{player} pays {amount} MT for {paid_for(roll)} (now {seat['mt']})", "XS-2")
    if roll["kind"] == "opportunity":
        play.draw(player, 1, "XS-3", "extra draw")
    elif roll["kind"] == "recruit":
        seat["hand"].remove(card)
        ft = 1
        bonus = []
        for name, extra, _ in play.with_verb(player, "recruit_fame"):
            ft += int(extra)
            bonus.append(f"+{extra} ({name})")
        play.add_hero(player, {"name": card, "ft": ft, "marketing": []})
        if play.telling:
            play.step(f"{card} joins {player}'s team with {ft} FT"
                      + (f" (1 {' '.join(bonus)})" if bonus else ""), "XS-4")
    else:
        assert hero is not None  # checked above: a marketing roll with no hero pays nothing
        seat["hand"].remove(card)
        hero["marketing"].append(card)
        if play.telling:
            play.step(f"{card} attached to {hero['name']} ({play.marketing_load(hero)}/"
                      f"{hero['ft']} by FT)", "XS-5")
    return True


def paid_for(roll: dict) -> str:
    """What a paid roll buys, as told in the steps."""
    ctx = roll["context"]
    if roll["kind"] == "opportunity":
        return "an extra draw"
    if roll["kind"] == "recruit":
        return f"recruiting {ctx.get('card')}"
    return f"attaching {ctx.get('card')} to {ctx.get('onto')}"


def not_done(roll: dict) -> str:
    """What does not happen when a paid roll is not paid (XS-2)."""
    ctx = roll["context"]
    if roll["kind"] == "opportunity":
        return "no extra card is drawn"
    if roll["kind"] == "recruit":
        return f"{ctx.get('card')} is not recruited"
    return f"{ctx.get('card')} is not attached"


def pay_now(play: Play, player: str | None) -> Result:
    actor = play.check_actor(player, "pay")
    if not play.turn.get("open"):
        raise RefereeError("there is no open roll to pay", "XS-2")
    kind = play.turn["open"]["kind"]
    settle_open(play)
    return play.result(f"{actor} pays the {rolls.LABEL[kind]}", "pay")


def check_marketing_room(play: Play, hero: dict, card: str) -> None:
    load = play.marketing_load(hero) + play.cat.counts(card, "marketing")
    if load > hero["ft"]:
        as_two = "" if play.cat.counts(card, "marketing") == 1 else \
            f" ({card} counts as {play.cat.counts(card, 'marketing')})"
        raise RefereeError(
            f"{hero['name']} has {hero['ft']} FT and would hold {counted(load, 'marketing card')}"
            f"{as_two}: no more marketing than FT", "XS-5")


def draw(play: Play, player: str | None) -> Result:
    """`xs draw`: the turn's free card (XS-3); an extra card is `buy_draw`."""
    actor = play.check_actor(player, "draw", free_draw=True)
    if play.turn["free_drawn"]:
        raise RefereeError(f"{actor} has drawn this turn's free card; an extra card costs an "
                           "Opportunity roll: xs draw --extra (or xs buy)", "XS-3")
    play.free_draw()
    return play.result(f"{actor} draws the free card", "draw")


def buy_draw(play: Play, player: str | None) -> Result:
    """XS-3: an extra draw costs an Opportunity roll (The Spike -1)."""
    actor = play.check_actor(player, "buy an extra card")
    enter_phase(play, "opportunity", "draw")
    if not play.s["deck"]:
        raise RefereeError("the deck is empty: no more draws", "XS-3")
    start_paid_roll(play, actor, "opportunity", None)
    return play.result(f"{actor} buys a draw", "draw")


def recruit(play: Play, player: str | None, card_text: str) -> Result:
    """XS-4: Recruit roll per hero (Solomon O'Sullivan -1), the recruit enters with 1 FT."""
    actor = play.check_actor(player, "recruit")
    card = play.card(card_text)
    enter_phase(play, "recruitment", f"recruit {card}")
    play.require_in_hand(actor, card, "XS-4")
    if play.cat.type(card) != "Hero":
        raise RefereeError(f"{card} is a {play.cat.type(card)} card, not a Hero: only heroes "
                           "are recruited", "XS-4")
    start_paid_roll(play, actor, "recruit", None, card=card)
    return play.result(f"{actor} recruits {card}", "recruit")


def attach(play: Play, player: str | None, card_text: str, hero_text: str) -> Result:
    """XS-5: Marketing roll per card (El Guapo -2 for himself); no more marketing than FT."""
    actor = play.check_actor(player, "attach marketing")
    card = play.card(card_text)
    enter_phase(play, "publicity", f"attach {card}")
    play.require_in_hand(actor, card, "XS-5")
    if play.cat.type(card) != "Marketing":
        raise RefereeError(f"{card} is a {play.cat.type(card)} card, not Marketing", "XS-5")
    hero = play.require_hero(actor, hero_text, "XS-5")
    check_marketing_room(play, hero, card)
    start_paid_roll(play, actor, "marketing", hero["name"], card=card, onto=hero["name"])
    return play.result(f"{actor} attaches {card} to {hero['name']}", "attach")


# ── mission bookkeeping shared with the phase flow ────────────────────────────
def settle_mission(play: Play) -> None:
    """End the mission when nothing is left to decide: a Mission roll that asks for more
    heroes than the team has (XS-6), a failed Success roll (XS-8), a Payoff made."""
    mission = play.turn.get("mission")
    if not mission or mission["stage"] == "done":
        return
    stage = mission["stage"]
    if stage == "mission":
        needed = mission["rolls"]["mission"]["total"]
        have = len(play.seat(play.active)["heroes"])
        if have >= needed:
            return
        play.step(f"{mission['card']} is not attempted: "
                  f"{counted(needed, 'hero', 'heroes')} needed, {play.active} has {have}", "XS-6")
        finish_mission(play, went=False)
    elif stage == "success":
        success = mission["rolls"]["success"]["total"]
        carnage = mission["rolls"]["carnage"]["total"]
        if success > carnage:
            return
        play.step(f"the mission fails: Success roll {success} is not higher than Carnage "
                  f"roll {carnage}", "XS-8")
        finish_mission(play, went=True)
    elif stage == "payoff":
        finish_mission(play, went=True)


def finish_mission(play: Play, went: bool) -> None:
    mission = play.turn["mission"]
    play.s["discard"].append(mission["card"])
    mission["discarded"] = True
    mission["stage"] = "done"
    play.turn["choose_casualties"] = False
    leftover = [m for m in play.turn["queued"] if m["kind"] in MISSION_ORDER]
    for mod in leftover:
        play.step(f"{mod['source']}'s {mod['by']:+d} to the {rolls.LABEL[mod['kind']]} is "
                  "unused: no such roll was made", mod.get("ruling", "XS-12"))
    play.turn["queued"] = [m for m in play.turn["queued"] if m["kind"] not in MISSION_ORDER]
    if went:
        team = set(mission["team"])
        play.turn["fame"] = [h["name"] for h in play.seat(play.active)["heroes"]
                             if h["name"] in team]


# ── Fame, Fortune, End ────────────────────────────────────────────────────────
def apply_fame(play: Play) -> None:
    """XS-9: each hero that went on this turn's mission and survived gains 1 FT."""
    player = play.active
    gained = []
    for name in play.turn["fame"]:
        hero = play.hero(player, name)
        if hero is not None:
            hero["ft"] += 1
            gained.append(f"{name} ({hero['ft']} FT)")
    if gained:
        play.step(f"Fame: {', '.join(gained)} gain{'s' if len(gained) == 1 else ''} 1 FT",
                  "XS-9")
    else:
        mission = play.turn.get("mission")
        went = mission is not None and "carnage" in mission["rolls"]
        play.step("Fame: no hero survived the mission" if went else
                  "Fame: no hero went on a mission this turn", "XS-9")


def fortune_income(play: Play, player: str) -> tuple[int, str]:
    """XS-10: +1 MT per FT and per marketing card in play (Cult of Personality counts
    2), plus `modify: fortune` abilities (Phat)."""
    seat = play.seat(player)
    ft = sum(h["ft"] for h in seat["heroes"])
    marketing = sum(play.marketing_load(h) for h in seat["heroes"])
    text = f"{ft} FT + {marketing} marketing"
    income = ft + marketing
    for mod in play.card_mods(player, "fortune"):
        income += mod["by"]
        text += f" {mod['by']:+d} ({mod['source']})"
    return max(0, income), text


def apply_fortune(play: Play) -> None:
    player = play.active
    income, text = fortune_income(play, player)
    play.gain_mt(player, income, f"Fortune: {text}", "XS-10")


def discard(play: Play, player: str | None, cards: list[str]) -> Result:
    """XS-11: in the End phase the player discards down to the hand limit."""
    actor = play.check_actor(player, "discard")
    enter_phase(play, "end", "discard")
    limit, source = play.hand_limit(actor)
    names = [play.card(c) for c in cards]
    excess = len(play.seat(actor)["hand"]) - limit
    held = len(play.seat(actor)["hand"])
    if excess <= 0:
        raise RefereeError(
            f"{actor} holds {held} card{'s' if held != 1 else ''}, within the hand limit of "
            f"{limit}" + (f" ({source})" if source else "") + ": nothing to discard", "XS-11")
    if not names or len(names) > excess:
        over = "only the 1 card" if excess == 1 else f"only the {excess} cards"
        raise RefereeError(
            f"{actor} holds {held} cards: {over} over the hand limit of {limit}"
            + (f" ({source})" if source else "")
            + (" is" if excess == 1 else " are") + " discarded", "XS-11")
    for name in names:
        play.require_in_hand(actor, name, "XS-11")
        play.discard_from_hand(actor, name)
    hand = len(play.seat(actor)["hand"])
    play.step(f"{actor} discards {', '.join(names)}; hand {hand}/{limit}"
              + (f" ({source})" if source else ""), "XS-11")
    return play.result(f"{actor} discards {counted(len(names), 'card')}", "discard")


def end_phase_kill(play: Play, player: str | None, hero_text: str) -> Result:
    """XS-11: an Owner with `end_phase_kill` (Coach) kills one of the team's heroes in the
    End phase for 1D6 MT, once a turn."""
    actor = play.check_actor(player, "kill a team member")
    enter_phase(play, "end", "kill a team member")
    abilities = play.with_verb(actor, "end_phase_kill")
    if not abilities:
        raise RefereeError(f"{actor}'s cards give no End-phase kill", "XS-11")
    source, effect, _ = abilities[0]
    if play.turn["coach_kills"] >= 1:
        raise RefereeError(f"{source}'s kill is used once a turn", "XS-15")
    hero = play.require_hero(actor, hero_text, "XS-11")
    play.turn["coach_kills"] += 1
    face = play.dice.d6(1, f"{source}'s 1D6 MT for killing {hero['name']}")[0]
    died = play.kill(actor, hero["name"], f"by {source}", sendoff=False, ruling="XS-11")
    gain = face if str(effect.get("gain_mt")) == "1d6" else int(effect.get("gain_mt", 0))
    if died:
        play.gain_mt(actor, gain, f"{source}: 1D6 = {face}", "XS-11")
    else:  # paid all the same (XS-15)
        play.gain_mt(actor, gain, f"{source}: 1D6 = {face}, paid though {hero['name']} lives",
                     "XS-15")
    return play.result(f"{actor} ({source}) kills {hero['name']}", "kill")


def next_turn(play: Play, player: str | None) -> Result:
    """End the turn (the End phase's hand limit must be met, XS-11) and start the next
    player's (or this player's again after an extra turn). A player who is to start a
    turn with the deck empty ends the game (XS-13)."""
    actor = play.check_actor(player, "end the turn")
    enter_phase(play, "end", "end the turn")
    limit, source = play.hand_limit(actor)
    hand = len(play.seat(actor)["hand"])
    if hand > limit:
        raise RefereeError(
            f"{actor} holds {hand} cards: discard {hand - limit} first (hand limit {limit}"
            + (f", {source}" if source else "") + ")", "XS-11")
    if play.turn["another_turn"]:
        following = actor
        if play.s["deck"]:  # else the game ends instead (XS-13)
            play.step(f"{actor} takes another turn", "XS-12")
    else:
        seats = play.s["players"]
        following = seats[(seats.index(actor) + 1) % len(seats)]
    begin_turn(play, following, play.turn["number"] + 1)
    if play.s["over"]:
        return play.result(f"{actor} ends turn; game over: {listed(play.s['winner'])} "
                           "won", "next")
    return play.result(f"{actor} ends turn {play.turn['number'] - 1}; {following}'s turn",
                       "next")


def begin_turn(play: Play, player: str, number: int) -> None:
    if not play.s["deck"]:
        end_game(play, player)
        return
    play.start_turn(number, player)
    if play.at_table:  # the free draw is the turn's first step, announced
        play.step(f"turn {number}: {player}'s Opportunity phase: {player} draws the free "
                  "card first (xs draw)", "XS-3")
        return
    if play.telling:
        play.step(f"turn {number}: {player}'s Opportunity phase", "XS-3")
    play.free_draw()


def ranking(state: dict) -> list[dict]:
    """XS-13: most MT first, then most FT in play; equal players share a place."""
    rows = []
    for p in state["players"]:
        seat = state["table"][p]
        rows.append({"player": p, "mt": seat["mt"], "ft": sum(h["ft"] for h in seat["heroes"])})
    rows.sort(key=lambda r: (-r["mt"], -r["ft"]))
    for i, row in enumerate(rows):
        same = i > 0 and (row["mt"], row["ft"]) == (rows[i - 1]["mt"], rows[i - 1]["ft"])
        row["place"] = rows[i - 1]["place"] if same else i + 1
    return rows


def end_game(play: Play, player: str) -> None:
    table = ranking(play.s)
    play.s["over"] = True
    play.s["winner"] = [r["player"] for r in table if r["place"] == 1]
    play.s["ranking"] = table
    play.s["turn"]["phase"] = "over"
    play.step(f"{player} is to start a turn and the deck is empty: the game ends", "XS-13")
    for row in table:
        play.step(f"{row['place']}. {row['player']}: {row['mt']} MT, {row['ft']} FT in play",
                  "XS-13")
    winners = play.s["winner"]
    play.step(f"{'winner' if len(winners) == 1 else 'winners'}: {listed(winners)}",
              "XS-13")


def who_may_change(state: dict, cat: Any, roll: dict) -> list[str]:
    """Who may change `roll` now (XS-14), in turn order from the active player: the active
    player's heroes that reroll or adjust it ("Ann (The Orphan)"), and every player holding
    a card (any card in hand may be an event: hands are private, XS-16). Empty: nobody."""
    import random

    play = Play(state, cat, Dice(random.Random(0)), at_table=True)
    active = play.active
    seats = play.s["players"]
    start = seats.index(active)
    found = []
    for player in seats[start:] + seats[:start]:
        own = [name for verb in ("reroll", "adjust")
               for name, _, _ in abilities_for(play, player, roll, verb)] if player == active else []
        if own:
            found.append(f"{player} ({', '.join(own)})")
        elif play.seat(player)["hand"]:
            found.append(player)
    return found
