"""Automatic X-Statix players: what an automatic player decides at each point of its turn.

A policy only *decides*; `xs_sim` carries the decision out through the engine's own
functions (`referee.xs.turn`, `.mission`, `.events`), which validate it. Every decision is
picked from what `xs_options` says is legal now, so the engine never refuses one (the
tests check that over hundreds of games).

Two policies differ in how they spend money, cards and heroes:

- `cautious` keeps a reserve of MT, goes on missions only when it can cover the carnage,
  protects its heroes, and keeps Power cards to negate carnage.
- `greedy` spends every MT it has on draws, recruits and marketing, goes on the best-paying
  mission whenever it has a hero, and spends Power cards on the Success roll and on their
  Event abilities.

Both use the free hero abilities (rerolls, Venus Dee Milo's +-1) where they help, and the
Event abilities that are plainly good (draws, extra turn, stealing a hero); Ratings Bonanza
and PR Spin when a hero is going to die (the driver, `xs_sim.run_mission`). Never used:
Sense Vulnerability (an automatic player learns nothing from a look) and Paralysis
Neurotoxin (+1 Carnage and +1 Success only adds deaths); both stay Power cards. The full
table of choices is in docs/referee-simulate.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.simulate import xs_options as opt
from referee.xs import events
from referee.xs.mission import may_kill_off
from referee.xs.play import Play

# ── decisions the driver carries out ──────────────────────────────────────────


@dataclass(frozen=True)
class Decision:
    """One call of an engine action: `action` is "reroll" (source), "adjust" (source, by),
    "event" (card, target/hero/pick) or "boost" (powers/discards/sacrifices)."""

    action: str
    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CasualtyPlan:
    """Arguments of `mission.casualties` (XS-7)."""

    powers: list[str]
    sacrifices: list[str]
    choose: list[str]
    swap_for: list[str]


LOWER_IS_BETTER = {"opportunity", "recruit", "marketing", "mission", "carnage"}


def card_value(play: Play, player: str, card: str) -> float:
    """How much a card in hand is worth keeping (for the hand limit and for an opponent's
    forced discard): heroes most, then Power cards (carnage insurance), missions,
    marketing."""
    cat = play.cat
    kind = cat.type(card)
    if kind == "Hero":
        return 4.0
    if kind == "Power":
        return 2.0 + max(cat.counts(card, "carnage"), cat.counts(card, "success")) - 1 + (
            0.5 if cat.event(card) else 0)
    if kind == "Mission":
        missions = sum(1 for c in play.seat(player)["hand"] if cat.type(c) == "Mission")
        return 2.5 if missions <= 1 else 1.0
    return 1.5 + (0.5 if cat.event(card) else 0)


def rank_opponents(play: Play, key: str = "mt") -> list[str]:
    """Opponents, the strongest first (most MT, or most heroes / cards)."""
    players = play.s["players"]

    def score(p: str) -> tuple:
        seat = play.seat(p)
        main = seat["mt"] if key == "mt" else len(seat[key])  # "heroes" or "hand"
        return (-main, -seat["mt"], players.index(p))
    return sorted(play.opponents(play.active), key=score)


def event_cards(play: Play, test: Callable[[Sequence[dict]], bool],
                power_ok: bool = True) -> list[str]:
    """Cards in the active player's hand whose Event ability (XS-12) passes `test` and
    applies now; chosen by what the card does, not by its name, so a designer's edited
    card is still played the way its text says. `power_ok` False skips Power cards."""
    found = []
    for card in opt.events_in_hand(play):
        if not power_ok and play.cat.type(card) == "Power":
            continue
        if test(play.cat.event(card)) and opt.event_playable(play, card):
            found.append(card)
    return sorted(found)


def _is(verb: str, value: Any = None, sign: int = 0) -> Callable[[Sequence[dict]], bool]:
    """A test for single-effect events: `verb` (with `value`, e.g. reroll: success) and for
    `modify` the sign of `by`."""
    def test(effects: Sequence[dict]) -> bool:
        if len(effects) != 1 or verb not in effects[0]:
            return False
        effect = effects[0]
        if value is not None and effect[verb] not in (value if isinstance(value, tuple) else (value,)):
            return False
        return not sign or (int(effect.get("by", 0)) * sign > 0)
    return test


def _shockwave(effects: Sequence[dict]) -> bool:
    """Modifiers only, lowering the Carnage roll together with another roll (Shockwave:
    Carnage -2 and Success -2: fewer deaths, the same margin)."""
    mods = {e.get("modify"): int(e.get("by", 0)) for e in effects if "modify" in e}
    return len(mods) == len(effects) and mods.get("carnage", 0) < 0 and len(mods) > 1


def lower_with_heroes(play: Play, roll: dict, reroll_from: int) -> Decision | None:
    """A free hero ability that lowers `roll`: a reroll when it is `reroll_from` or more,
    else a -1 (Venus Dee Milo)."""
    if roll["total"] >= reroll_from:
        rerolls = opt.hero_rerolls(play, roll)
        if rerolls:
            return Decision("reroll", (rerolls[0],))
    for name, choices in opt.hero_adjusts(play, roll):
        if -1 in choices:
            return Decision("adjust", (name, -1))
    return None


def event_bonus(play: Play, card: str, kind: str) -> int:
    return sum(int(e.get("by", 0)) for e in play.cat.event(card) if e.get("modify") == kind)


def _richest(play: Play, ranks: dict[str, list[str]]) -> list[str]:
    """The opponents by MT, ranked once a turn event needs them."""
    if "mt" not in ranks:
        ranks["mt"] = rank_opponents(play, "mt")
    return ranks["mt"]


def _own_turn_event(play: Play, card: str, kind: str, effect: dict,
                    ranks: dict[str, list[str]]) -> Decision | None:
    """Draw-2 while the deck has cards, an extra turn, MT that cannot attach, Reanimation."""
    if "draw" in effect and play.s["deck"]:
        return Decision("event", (card,))
    if "extra_turn" in effect and not play.turn["another_turn"]:
        return Decision("event", (card,))
    if "gain_mt" in effect and not opt.can_attach(play, card):
        return Decision("event", (card,))
    if "hero_from_discard" in effect and opt.event_playable(play, card):
        return Decision("event", (card,))
    return None


def _opponent_hero_event(play: Play, card: str, kind: str, effect: dict,
                         ranks: dict[str, list[str]]) -> Decision | None:
    """Stealing or discarding a hero of the first ranked opponent with one."""
    for key in ("steal_hero", "discard_opponent_hero"):
        if key in effect:
            for other in rank_opponents(play, "heroes"):
                if play.seat(other)["heroes"]:
                    return Decision("event", (card,), {"target": other})
    return None


def _fame_event(play: Play, card: str, kind: str, effect: dict,
                ranks: dict[str, list[str]]) -> Decision | None:
    """Popularity Ratings on the most famous own hero, Reality TV on the most famous
    opponent hero."""
    if "hero_fame" not in effect:
        return None
    actor = play.active
    if effect["hero_fame"] > 0 and play.seat(actor)["heroes"]:
        best = max(play.seat(actor)["heroes"], key=lambda h: (h["ft"], h["name"]))
        return Decision("event", (card,), {"hero": best["name"]})
    if effect["hero_fame"] < 0:
        targets = [h for o in _richest(play, ranks) for h in play.seat(o)["heroes"] if h["ft"] > 0]
        if targets:
            best = max(targets, key=lambda h: (h["ft"], h["name"]))
            return Decision("event", (card,), {"hero": best["name"]})
    return None


def _marketing_event(play: Play, card: str, kind: str, effect: dict,
                     ranks: dict[str, list[str]]) -> Decision | None:
    """Discarding the marketing of the opponent hero carrying the most (2 or more)."""
    if "discard_marketing" not in effect:
        return None
    targets = [h for o in _richest(play, ranks) for h in play.seat(o)["heroes"]
               if play.marketing_load(h) >= 2]
    if targets:
        best = max(targets, key=lambda h: (play.marketing_load(h), h["name"]))
        return Decision("event", (card,), {"hero": best["name"]})
    return None


def _hand_event(play: Play, card: str, kind: str, effect: dict,
                ranks: dict[str, list[str]]) -> Decision | None:
    """Power events on an opponent's hand (Toxic Sweat, Acid Spray): the first ranked
    opponent holding cards."""
    if kind == "Power" and ("steal_card" in effect or "opponent_discards" in effect):
        for other in rank_opponents(play, "hand"):
            if play.seat(other)["hand"]:
                kwargs: dict[str, Any] = {"target": other}
                spec = effect.get("opponent_discards") or {}
                if spec.get("chosen_by") == "opponent":
                    kwargs["pick"] = opponent_pick(play, other)
                return Decision("event", (card,), kwargs)
    return None


class Policy:
    """The shared skeleton; subclasses set the thresholds and a few choices (see each
    method's docstring for the rule it plays by)."""

    name = "base"
    draw_reserve = 0  # keep this many MT after an extra draw is paid for (expected cost)
    max_extra_draws = 0
    recruit_reserve: float = 0
    marketing_reserve: float = 0
    min_heroes_for_mission = 1
    uses_power_events = False  # spends Power cards on their Event abilities
    attach_event_marketing = True  # attaches Marketing cards that also have an Event

    # ── Opportunity (XS-3) ───────────────────────────────────────────────────
    def buy_draw(self, play: Play, bought: int) -> bool:
        """Buy another draw while MT stays above the reserve after an average roll (3.5),
        up to `max_extra_draws` a turn, and while the hand is below the hand limit."""
        if bought >= self.max_extra_draws or not opt.can_buy_draw(play):
            return False
        seat = play.seat(play.active)
        if seat["mt"] - 3.5 < self.draw_reserve:
            return False
        limit, _ = play.hand_limit(play.active)
        return len(seat["hand"]) < limit

    # ── Recruitment (XS-4) ───────────────────────────────────────────────────
    def recruit(self, play: Play) -> str | None:
        """Recruit a Hero from hand while MT after an average roll stays above the reserve.
        Heroes with abilities go first; Ocelot (no ability) last."""
        if play.seat(play.active)["mt"] - 3.5 < self.recruit_reserve:
            return None
        heroes = opt.recruitable(play)
        if not heroes:
            return None
        return max(heroes, key=lambda h: (len(play.cat.ability(h)), h))

    # ── Publicity (XS-5) ─────────────────────────────────────────────────────
    def attach(self, play: Play) -> tuple[str, str] | None:
        """Attach Marketing while MT stays above the reserve: Cult of Personality first
        (counts 2), onto El Guapo first (-2 to the roll), then the hero with most room."""
        if play.seat(play.active)["mt"] - 3.5 < self.marketing_reserve:
            return None
        cards, heroes = opt.marketing_options(play)
        if not self.attach_event_marketing:
            cards = [c for c in cards if not play.cat.event(c)]
        if not cards or not heroes:
            return None
        cat = play.cat
        # the hero's part of the score: El Guapo first, then the most room
        by_hero = {hero["name"]: (
            any(m.get("target") == "self" and m.get("modify") == "marketing"
                for m in cat.ability(hero["name"])),
            hero["ft"] - play.marketing_load(hero)) for hero in heroes}

        weight = {card: cat.counts(card, "marketing") for card in cards}

        def score(option: tuple[str, dict]) -> tuple:
            card, hero = option
            return (weight[card], *by_hero[hero["name"]], card, hero["name"])

        # The score does not depend on the engine's room check (and no two options score
        # the same), so the best option that fits is the first that fits, best first.
        options = sorted([(c, h) for c in cards for h in heroes], key=score, reverse=True)
        for card, hero in options:
            if opt.has_room(play, hero, card):
                return card, hero["name"]
        return None

    # ── Mission (XS-6..XS-8) ─────────────────────────────────────────────────
    def negation_in_hand(self, play: Play) -> int:
        return sum(play.cat.counts(c, "carnage") for c in opt.hand(play, "Power"))

    def mission(self, play: Play) -> str | None:
        raise NotImplementedError

    def casualty_plan(self, play: Play) -> CasualtyPlan:
        raise NotImplementedError

    def spend_powers(self, play: Play, points: int, keep_success: bool) -> list[str]:
        """Power cards to negate `points` of carnage, cheapest first: cards without an
        Event ability, Healing Powers (2) when 2+ points remain, Superhuman Strength last
        when the Success roll may need it. Never one more than needed (the engine refuses
        a card once the carnage is negated)."""
        if points <= 0:
            return []
        cat = play.cat
        powers = opt.hand(play, "Power")

        def cost(card: str) -> tuple:
            return (cat.counts(card, "success") > 1 if keep_success else 0,
                    bool(cat.event(card)), -cat.counts(card, "carnage"), card)

        chosen: list[str] = []
        for card in sorted(powers, key=cost):
            if points <= 0:
                break
            value = cat.counts(card, "carnage")
            if value > 1 and points < value:
                # Healing Powers on a last single point is fine but a 1-point card is
                # cheaper if there is one left.
                if any(cat.counts(c, "carnage") == 1 for c in powers if c not in chosen
                       and c != card):
                    continue
            chosen.append(card)
            points -= value
        return chosen

    def casualty_events(self, play: Play) -> list[str]:
        """Events to play when carnage is going to kill: choosing the casualties (Ratings
        Bonanza) and a bigger Sendoff (PR Spin)."""
        return (event_cards(play, _is("choose_casualties"))
                + event_cards(play, _is("modify", "sendoff", +1)))

    def victims(self, play: Play, heroes: list[dict], n: int) -> list[str]:
        """The heroes to lose first when the player may choose (Ratings Bonanza): those who
        gain from dying or may survive it, then the least famous."""
        def score(hero: dict) -> tuple:
            bonus = 0
            for effect in play.cat.ability(hero["name"]):
                if "on_killed" in effect:
                    bonus = 1
            return (-bonus, hero["ft"] + play.marketing_load(hero), hero["name"])
        return [h["name"] for h in sorted(heroes, key=score)[:n]]

    def success_decision(self, play: Play) -> Decision | None:
        """After the Success roll (XS-8): if it is not above the Carnage roll, close the gap
        with, in order, a hero's free reroll when the gap is 3+, Venus Dee Milo's +1 for a
        gap of 1, Teleportation's +2, Power cards (Orbit makes each +2), Gin Genie's
        discards or Overkill's sacrifice when they are enough, then reroll events."""
        mission = play.turn["mission"]
        roll = mission["rolls"]["success"]
        gap = mission["rolls"]["carnage"]["total"] - roll["total"] + 1
        if gap <= 0:
            return None
        rerolls = opt.hero_rerolls(play)
        if gap >= 3 and rerolls:
            return Decision("reroll", (rerolls[0],))
        for name, choices in opt.hero_adjusts(play):
            if gap == 1 and 1 in choices:
                return Decision("adjust", (name, 1))
        capacity, plan = self.boost_capacity(play)
        for card in event_cards(play, _is("modify", "success", +1)):  # Teleportation
            if gap <= event_bonus(play, card, "success") + capacity:
                return Decision("event", (card,))
        if capacity >= gap:
            return Decision("boost", (), self.minimal_boost(play, plan, gap))
        if rerolls:
            return Decision("reroll", (rerolls[0],))
        if gap >= 2:  # Control Body Mass first, then the any-roll rerolls
            cards = event_cards(play, _is("reroll", "success")) or \
                event_cards(play, _is("reroll", "any"))
            if cards:
                return Decision("event", (cards[0],))
        return None

    def boost_capacity(self, play: Play) -> tuple[int, list[tuple[str, str, int]]]:
        """What the Success roll can still gain: (kind, card or hero, value) options."""
        actor = play.active
        cat = play.cat
        per_power = max([int(e["success"]) for _, e, _ in play.with_verb(actor, "power_value")
                         if "success" in e] or [1])
        plan: list[tuple[str, str, int]] = []
        for card in opt.hand(play, "Power"):
            plan.append(("powers", card, cat.counts(card, "success") * per_power))
        genie = [e for _, e, _ in play.with_verb(actor, "discard_any_for")
                 if e.get("modify") == "success"]
        if genie:
            for card in opt.hand(play):
                if cat.type(card) != "Power":
                    plan.append(("discards", card, int(genie[0]["by"])))
        mission = play.turn["mission"]
        alive = [h["name"] for h in play.seat(actor)["heroes"] if h["name"] in mission["team"]]
        for name in alive:
            for effect in cat.ability(name):
                sac = effect.get("sacrifice") or {}
                if sac.get("modify") == "success" and len(alive) > 1 \
                        and may_kill_off(mission, name):  # once per mission (XS-15)
                    plan.append(("sacrifices", name, int(sac["by"])))
        return sum(v for _, _, v in plan), plan

    def minimal_boost(self, play: Play, plan: list[tuple[str, str, int]], gap: int) -> dict:
        """The fewest, cheapest boosts that reach `gap`: discards (Gin Genie) before Power
        cards, a sacrifice last."""
        order = {"discards": 0, "powers": 1, "sacrifices": 2}
        chosen: dict[str, list[str]] = {"powers": [], "discards": [], "sacrifices": []}
        total = 0
        for kind, name, value in sorted(plan, key=lambda p: (order[p[0]], -p[2], p[1])):
            if total >= gap:
                break
            chosen[kind].append(name)
            total += value
        return chosen

    # ── rolls that can still change ──────────────────────────────────────────
    def roll_decision(self, play: Play) -> Decision | None:
        """The open roll of a paid action, the Mission roll or the Carnage roll: lower is
        better. Free hero rerolls on a high roll (5+, or a Mission roll the team cannot
        meet), Venus Dee Milo's -1 when it matters, then Event cards (mission: Telekinesis
        -1, Flight / Roadshow rerolls; carnage: Regeneration, Shockwave)."""
        roll = events.open_roll(play)
        if roll is None:
            return None
        kind = roll["kind"]
        total = roll["total"]
        if kind == "payoff":
            return self.payoff_decision(play, roll)
        if kind not in LOWER_IS_BETTER:
            return None
        # Each option is worked out only where its rule may use it (they are all read
        # from the same state, so the order of asking does not matter).
        if kind == "mission":
            return self.mission_roll_decision(play, roll, total)
        if kind == "carnage":
            return self.carnage_roll_decision(play, roll, total)
        # a paid roll (XS-2): only free hero abilities, kept for the mission if one is planned
        if total < 2 or opt.playable_missions(play):
            return None
        return lower_with_heroes(play, roll, reroll_from=5)

    def mission_roll_decision(self, play: Play, roll: dict, total: int) -> Decision | None:
        """A Mission roll the team cannot meet (XS-6): Venus Dee Milo's -1 for a gap of 1,
        Telekinesis, a free hero reroll, then Roadshow or Flight."""
        heroes = len(play.seat(play.active)["heroes"])
        if total <= heroes:
            return None
        gap = total - heroes
        if gap == 1:
            for name, choices in opt.hero_adjusts(play, roll):
                if -1 in choices:
                    return Decision("adjust", (name, -1))
        for card in event_cards(play, _is("modify", "mission", -1),
                                self.uses_power_events):  # Telekinesis
            if gap <= -event_bonus(play, card, "mission"):
                return Decision("event", (card,))
        rerolls = opt.hero_rerolls(play, roll)
        if rerolls:
            return Decision("reroll", (rerolls[0],))
        cards = event_cards(play, _is("reroll", "mission"), self.uses_power_events)
        if cards:  # Roadshow (Marketing), Flight (Power, greedy only)
            return Decision("event", (cards[0],))
        return None

    def carnage_roll_decision(self, play: Play, roll: dict, total: int) -> Decision | None:
        """A Carnage roll (XS-7) more than the Power cards in hand negate: free hero abilities
        from 4, Regeneration from 5, Shockwave when 2 or more would remain."""
        cover = self.negation_in_hand(play)
        if total <= cover:
            return None
        lowered = lower_with_heroes(play, roll, reroll_from=4)
        if lowered is not None:
            return lowered
        if total >= 5:
            cards = event_cards(play, _is("reroll", "carnage"))  # Regeneration
            if cards:
                return Decision("event", (cards[0],))
        if total - cover >= 2:
            cards = event_cards(play, _shockwave)  # Shockwave
            if cards:
                return Decision("event", (cards[0],))
        return None

    def payoff_decision(self, play: Play, roll: dict) -> Decision | None:
        """The Payoff roll (XS-8): Interviews +3 if held; a free reroll of a low roll (4-)."""
        cards = event_cards(play, _is("modify", "payoff", +1))  # Interviews
        if cards:
            return Decision("event", (cards[0],))
        rerolls = opt.hero_rerolls(play, roll)
        if rerolls and sum(roll["faces"]) <= 4:
            return Decision("reroll", (rerolls[0],))
        return None

    # ── Event abilities at the start of the turn (XS-12) ─────────────────────
    def turn_event(self, play: Play) -> Decision | None:
        """Events played right after the Opportunity draw: draw-2 cards, an extra turn,
        stealing or discarding an opponent's hero, Popularity Ratings on the most famous
        own hero, Reality TV on the most famous opponent hero; Reanimation when a hero is
        in the discard pile. The greedy policy also spends Power events (Toxic Sweat,
        Acid Spray, Chameleon Powers) on the richest opponent."""
        hand = opt.events_in_hand(play)
        if not hand:
            return None
        ranks: dict[str, list[str]] = {}  # opponents by MT, ranked when first needed
        for card in hand:
            kind = play.cat.type(card)
            effect = play.cat.event(card)[0]
            if kind == "Power" and not self.uses_power_events and "draw" not in effect \
                    and "hero_from_discard" not in effect:
                continue
            for choice in (_own_turn_event, _opponent_hero_event, _fame_event, _marketing_event,
                           _hand_event):
                decision = choice(play, card, kind, effect, ranks)
                if decision is not None:
                    return decision
        return None

    # ── End phase (XS-11) ────────────────────────────────────────────────────
    def end_discards(self, play: Play, n: int) -> list[str]:
        """Discard the `n` least valuable cards (see `card_value`)."""
        actor = play.active
        ranked = sorted(opt.hand(play), key=lambda c: (card_value(play, actor, c), c))
        return ranked[:n]

    def coach_kill(self, play: Play) -> str | None:
        raise NotImplementedError


def opponent_pick(play: Play, opponent: str) -> str:
    """The card an opponent chooses to discard when an event lets it choose (Acid Spray):
    its least valuable one."""
    hand = play.seat(opponent)["hand"]
    return min(hand, key=lambda c: (card_value(play, opponent, c), c))


class Cautious(Policy):
    """Keeps money in reserve and its heroes alive.

    - Draws: at most one extra draw a turn, only with 12+ MT left after it (on average).
    - Recruits while 6+ MT would remain; attaches marketing while 8+ would remain, and
      keeps Marketing cards with an Event ability for the event.
    - Missions: only with 2+ heroes and enough Power cards that heroes plus negation reach
      4 + the mission's Carnage modifier; picks the mission with the lowest Carnage
      modifier (then the best Payoff).
    - Carnage: negates every point it can with Power cards, then Battering Ram; U-Go Girl
      takes the place of a more famous casualty.
    - Power cards are kept for carnage: their Event abilities are used only to draw or to
      bring a hero back.
    - Coach: kills a hero in the End phase only when the deck is empty (the last turn).
    """

    name = "cautious"
    draw_reserve = 12
    max_extra_draws = 1
    recruit_reserve: float = 6
    marketing_reserve: float = 8
    min_heroes_for_mission = 2
    uses_power_events = False
    attach_event_marketing = False

    def mission(self, play: Play) -> str | None:
        heroes = len(play.seat(play.active)["heroes"])
        if heroes < self.min_heroes_for_mission:
            return None
        missions = opt.playable_missions(play)
        if not missions:
            return None

        def safest(m: str) -> tuple:
            terms = play.cat.mission(m)
            return (terms.get("carnage", 0), -terms.get("payoff", 0), m)

        card = min(missions, key=safest)
        risk = 4 + play.cat.mission(card).get("carnage", 0)
        return card if heroes + self.negation_in_hand(play) >= risk else None

    def casualty_plan(self, play: Play) -> CasualtyPlan:
        mission = play.turn["mission"]
        points = mission["rolls"]["carnage"]["total"]
        powers = self.spend_powers(play, points, keep_success=False)
        points -= sum(play.cat.counts(c, "carnage") for c in powers)
        return self.finish_plan(play, powers, max(0, points))

    def finish_plan(self, play: Play, powers: list[str], points: int) -> CasualtyPlan:
        actor = play.active
        heroes = play.seat(actor)["heroes"]
        sacrifices: list[str] = []
        # the heroes' sacrifice abilities, hero by hero (the engine's own list of effects)
        for _, effect, hero_name in play.sources_with(actor, "sacrifice"):
            sac = effect["sacrifice"] or {}
            if hero_name is not None and "negate_carnage" in sac and points >= 2 \
                    and len(heroes) > 1:
                sacrifices.append(hero_name)
                points -= int(sac["negate_carnage"])
        points = max(0, points)
        left = [h for h in heroes if h["name"] not in sacrifices]
        choose = self.victims(play, left, points) if play.turn["choose_casualties"] else []
        swappers = [n for n, e, _ in play.with_verb(actor, "take_casualty") if e]
        swap_for = [h["name"] for h in left if swappers and h["name"] not in swappers
                    and h["ft"] >= 2] if points and not choose else []
        return CasualtyPlan(powers, sacrifices, choose, swap_for)

    def coach_kill(self, play: Play) -> str | None:
        heroes = play.seat(play.active)["heroes"]
        if play.s["deck"] or not heroes:
            return None
        return min(heroes, key=lambda h: (h["ft"], h["name"]))["name"]


class Greedy(Cautious):
    """Spends everything for the biggest payoff.

    - Draws: extra draws while 3+ MT would remain (on average), up to 3 a turn and up to
      the hand limit.
    - Recruits every hero it can pay for; attaches every Marketing card that fits.
    - Missions: whenever it has a hero, the mission with the best Payoff modifier.
    - Carnage: negates only what would kill the whole team (keeps one survivor), saving
      Power cards for the Success roll; chooses its least valuable heroes as casualties.
    - Uses Power cards' Event abilities (Telekinesis, Flight, Toxic Sweat, Acid Spray,
      Chameleon Powers) against the richest opponent.
    - Coach: kills its least famous hero in the End phase once the deck holds fewer cards
      than there are players (probably its last turn).
    """

    name = "greedy"
    draw_reserve = 3
    max_extra_draws = 3
    recruit_reserve = -2.5  # any MT at all: a failed payment only ends the phase (XS-2)
    marketing_reserve = -2.5
    min_heroes_for_mission = 1
    uses_power_events = True
    attach_event_marketing = True

    def mission(self, play: Play) -> str | None:
        if len(play.seat(play.active)["heroes"]) < self.min_heroes_for_mission:
            return None
        missions = opt.playable_missions(play)
        if not missions:
            return None

        def best_paid(m: str) -> tuple:
            terms = play.cat.mission(m)
            return (terms.get("payoff", 0), -terms.get("carnage", 0), m)

        return max(missions, key=best_paid)

    def casualty_plan(self, play: Play) -> CasualtyPlan:
        mission = play.turn["mission"]
        points = mission["rolls"]["carnage"]["total"]
        heroes = len(play.seat(play.active)["heroes"])
        must = max(0, points - heroes + 1)  # keep one survivor
        powers = self.spend_powers(play, must, keep_success=True)
        points -= sum(play.cat.counts(c, "carnage") for c in powers)
        return self.finish_plan(play, powers, max(0, points))

    def coach_kill(self, play: Play) -> str | None:
        heroes = play.seat(play.active)["heroes"]
        if len(play.s["deck"]) >= len(play.s["players"]) or not heroes:
            return None
        return min(heroes, key=lambda h: (h["ft"] + play.marketing_load(h), h["name"]))["name"]


POLICIES: dict[str, type[Policy]] = {"cautious": Cautious, "greedy": Greedy}


def make(name: str) -> Policy:
    return POLICIES[name]()
