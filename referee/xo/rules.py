"""XO! rules as pure functions (rules/xo-extraordinary-rules.txt read by RULINGS.md; the ids: referee/xo/rulings.py).

Nothing here reads files or picks its own randomness: dice faces come in as arguments or
from an injected die source (rolled through `referee.dice.roll_mask`, a seeded RNG or
core's `TableDice`: the table's faces, asked for by name), status
definitions come in from the Status cards of cards.yaml (`StatusDef.from_card`), and
every result carries `steps`, each a `Step(text, ruling)` naming the ruling it applied.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.dice import MASK_FACES, is_moffed, roll_mask  # XO-1, XO-5
from referee.outcome import Step, rulings_of  # one Step for every engine

LEAGUES = ("heroes", "villains")
DICE_PER_PLAYER = 7  # XO-1: each player owns 7 mask dice
PHASES = ("Status Check", "Card Discard/Draw", "Attack", "Feat/Thwart", "Turn Resolution")  # XO-11
HAND_SIZE = 7  # XO-10
MAX_DISCARD = 2  # XO-10
CHAPTERS = 7  # XO-12
CHAPTERS_TO_WIN = 4  # XO-15
THWART_BONUS = 2  # XO-14
ROSTER_SIZE = 7  # each player selects 7 characters (set-up step 3)
STUNNED = "Stunned"  # the status XO-4 tags when damage == Health
KOD = "KOd"  # the status card of a KO: tagging it KOs the character (XO-4), never a tag
OUTCOMES = ("miss", "hit", "stunned", "ko")
ENERGY_RULE = "XO-19"  # Energy played into the league's pool for the turn, lost at its end
RESOURCE_RULE = "XO-20"  # each Resource stack's face-up card, playable by either league
RESOURCE_STACKS = {"npcs": "NPCs", "powers": "Powers", "tech": "Tech", "upgrades": "Upgrades"}


def other_league(league: str) -> str:
    return "villains" if league == "heroes" else "heroes"


# --------------------------------------------------------------------------- statuses


@dataclass(frozen=True)
class StatusDef:
    """A Status card's rules data: `duration` (XO-8), `ready` (XO-9), `effect` list."""

    name: str
    duration: str  # "status_check" | "until_removed"
    ready: bool
    effect: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def from_card(cls, card: Any) -> StatusDef:
        return cls(
            name=card.name,
            duration=card["duration"],
            ready=bool(card["ready"]),
            effect=tuple(card.get("effect") or ()),
        )


def status_defs_from(cards: Iterable[Any]) -> dict[str, StatusDef]:
    """Status definitions by name from the Status cards of cards.yaml."""
    return {card.name: StatusDef.from_card(card) for card in cards if card.type == "Status"}


def _status(name: str, defs: Mapping[str, StatusDef]) -> StatusDef:
    try:
        return defs[name]
    except KeyError:
        raise ValueError(f"no Status card {name!r} in the card database") from None


@dataclass(frozen=True)
class Readiness:
    ready: bool
    steps: tuple[Step, ...]


def readiness(statuses: Sequence[str], ko: bool, defs: Mapping[str, StatusDef]) -> Readiness:
    """XO-9: ready unless KOd or tagged with a status whose card says `ready: false`."""
    if ko:
        return Readiness(False, (Step("KOd: not in play, not ready", "XO-9"),))
    blocking = [name for name in statuses if not _status(name, defs).ready]
    if blocking:
        text = "not ready: tagged " + ", ".join(f"<{name}>" for name in blocking)
        return Readiness(False, (Step(text, "XO-9"),))
    return Readiness(True, (Step("ready", "XO-9"),))


def status_modifier(
    statuses: Sequence[str], defs: Mapping[str, StatusDef], key: str
) -> tuple[int, tuple[Step, ...]]:
    """Sum of one modifier (`attack_mod`, `defense_mod`, `feat_mod`, `thwart_mod`,
    `effect_damage`) that the character's Status cards give (XO-9: data on the card)."""
    total = 0
    steps: list[Step] = []
    for name in statuses:
        for effect in _status(name, defs).effect:
            if key in effect:
                total += int(effect[key])
                steps.append(Step(f"<{name}> gives {key} {int(effect[key]):+d}", "XO-9"))
    return total, tuple(steps)


def status_bonuses(statuses: Sequence[str], defs: Mapping[str, StatusDef], key: str) -> list[tuple[str, int]]:
    """The (<status>, value) of one modifier each status card gives (for the log line)."""
    return [(f"<{name}>", int(effect[key])) for name in statuses for effect in _status(name, defs).effect
            if key in effect]


@dataclass(frozen=True)
class StatusCheckResult:
    statuses: dict[str, list[str]]
    removed: dict[str, list[str]]
    skipped: bool
    steps: tuple[Step, ...]


def status_check(
    statuses_by_character: Mapping[str, Sequence[str]],
    defs: Mapping[str, StatusDef],
    turn_number: int,
) -> StatusCheckResult:
    """XO-8: the Status Check removes every status whose card has `duration: status_check`
    and keeps the `until_removed` ones; the phase is skipped on turn 1."""
    current = {name: list(tags) for name, tags in statuses_by_character.items()}
    if turn_number == 1:
        return StatusCheckResult(current, {}, True, (Step("Status Check skipped on turn 1", "XO-8"),))
    kept: dict[str, list[str]] = {}
    removed: dict[str, list[str]] = {}
    steps: list[Step] = []
    for character, tags in current.items():
        kept[character] = [t for t in tags if _status(t, defs).duration != "status_check"]
        gone = [t for t in tags if _status(t, defs).duration == "status_check"]
        if gone:
            removed[character] = gone
            steps.append(
                Step(f"{character}: removed " + ", ".join(f"<{t}>" for t in gone), "XO-8")
            )
        for tag in kept[character]:
            steps.append(Step(f"{character}: keeps <{tag}> until a card removes it", "XO-8"))
    if not steps:
        steps.append(Step("no statuses to remove", "XO-8"))
    return StatusCheckResult(kept, removed, False, tuple(steps))


# --------------------------------------------------------------------------- combat


@dataclass(frozen=True)
class CombatResult:
    """One combat round (Hit Determination, Damage Effect Determination; XO-2..XO-5).
    `counterattack_allowed` is the Counterattack segment's eligibility (XO-6)."""

    attack_roll: tuple[int, ...]
    defense_roll: tuple[int, ...]
    attack_mod: int
    defense_mod: int
    acv: int
    dcv: int
    hit: bool
    attack_moffed: bool
    defense_moffed: bool
    extra_damage_roll: int | None  # the +1 die of a moffed defense, when it applied
    effect_damage: int
    damage: int
    health: int
    outcome: str  # miss | hit | stunned | ko
    statuses: tuple[str, ...]  # statuses this round tagged on the defender
    counterattack_allowed: bool
    is_counterattack: bool
    steps: tuple[Step, ...]
    why: Step | None = None  # the step that decided the outcome (XO-3 miss or XO-4)
    attack_bonuses: tuple[tuple[str, int], ...] = ()  # what makes up attack_mod: (source, value)
    defense_bonuses: tuple[tuple[str, int], ...] = ()

    @property
    def ko(self) -> bool:
        return self.outcome == "ko"

    def as_dict(self) -> dict[str, Any]:
        return {
            "acv": self.acv,
            "dcv": self.dcv,
            "hit": self.hit,
            "damage": self.damage,
            "health": self.health,
            "outcome": self.outcome,
            "attack_roll": list(self.attack_roll),
            "defense_roll": list(self.defense_roll),
            "attack_mod": self.attack_mod,
            "defense_mod": self.defense_mod,
            "attack_moffed": self.attack_moffed,
            "defense_moffed": self.defense_moffed,
            "extra_damage_roll": self.extra_damage_roll,
            "effect_damage": self.effect_damage,
            "statuses": list(self.statuses),
            "counterattack_allowed": self.counterattack_allowed,
            "rulings": rulings_of(self.steps),
            "steps": [s.as_dict() for s in self.steps],
        }


def combat_round(
    attack_roll: Sequence[int],
    defense_roll: Sequence[int],
    health: int,
    defs: Mapping[str, StatusDef],
    *,
    attack_mod: int = 0,
    defense_mod: int = 0,
    effect: str | Sequence[str] | None = None,
    effect_damage: int = 0,
    extra_damage_die: int | None = None,
    has_counterattack: bool = False,
    defender_statuses: Sequence[str] = (),
    is_counterattack: bool = False,
    on_hit_tags: Sequence[str] = (),
) -> CombatResult:
    """Resolve one combat round.

    `effect` is the attack's own effect (XO-4: applied when damage < Health);
    `on_hit_tags` are the played cards' "On a hit: tag the defender X", applied on any hit
    that does not KO (damage <= Health), next to the <Stunned> of damage == Health.
    A tag of <KOd> KOs the defender (the one KO path, XO-4): it is never tagged.

    `extra_damage_die` is the face of the extra mask die a moffed defense costs (XO-5);
    it is required only when the defense is moffed and the attack hits.
    `has_counterattack`: the defender has the Counterattack ability (XO-6).
    `defender_statuses`: what the defender is already tagged with (for readiness).
    `is_counterattack`: this round is itself a counterattack, which never triggers
    another one (XO-6).
    """
    if health < 1:
        raise ValueError(f"health must be at least 1, not {health}")
    effects = _effects(effect)
    card_tags = [t for t in _effects(list(on_hit_tags)) if t not in effects]
    for name in [*effects, *card_tags]:
        _status(name, defs)
    steps: list[Step] = []
    if is_counterattack:
        steps.append(Step("counterattack: a full combat round with the roles swapped", "XO-6"))
    acv, dcv = _combat_values(attack_roll, defense_roll, attack_mod, defense_mod, steps)
    attack_moffed, defense_moffed = _moffs(attack_roll, defense_roll, steps)
    hit = acv > dcv
    if hit:
        damage, applied_effect_damage, extra = _hit_damage(
            acv, dcv, effect_damage, defense_moffed, extra_damage_die, steps)
        outcome, tags, why = _damage_outcome(damage, health, effects, card_tags, steps)
    else:
        damage, applied_effect_damage, extra = 0, 0, None
        outcome, tags, why = _miss(acv, dcv, steps)
    allowed = _counterattack_allowed(
        is_counterattack, has_counterattack, attack_moffed, defender_statuses, tags,
        outcome, defs, steps)
    return CombatResult(
        attack_roll=tuple(attack_roll),
        defense_roll=tuple(defense_roll),
        attack_mod=attack_mod,
        defense_mod=defense_mod,
        acv=acv,
        dcv=dcv,
        hit=hit,
        attack_moffed=attack_moffed,
        defense_moffed=defense_moffed,
        extra_damage_roll=extra,
        effect_damage=applied_effect_damage,
        damage=damage,
        health=health,
        outcome=outcome,
        statuses=tuple(tags),
        counterattack_allowed=allowed,
        is_counterattack=is_counterattack,
        steps=tuple(steps),
        why=why,
    )


def _combat_values(
    attack_roll: Sequence[int], defense_roll: Sequence[int], attack_mod: int, defense_mod: int,
    steps: list[Step],
) -> tuple[int, int]:
    """XO-2: ACV and DCV are the dice rolled plus the modifiers, never below 0."""
    raw_acv = sum(attack_roll) + attack_mod
    raw_dcv = sum(defense_roll) + defense_mod
    steps.append(Step(_cv_text("ACV", attack_roll, attack_mod, raw_acv), "XO-2"))
    acv = floor_zero("ACV", raw_acv, steps)
    steps.append(Step(_cv_text("DCV", defense_roll, defense_mod, raw_dcv), "XO-2"))
    dcv = floor_zero("DCV", raw_dcv, steps)
    return acv, dcv


def _moffs(
    attack_roll: Sequence[int], defense_roll: Sequence[int], steps: list[Step]
) -> tuple[bool, bool]:
    """XO-5: a roll is moffed when every die shows 0 (zero dice are never moffed)."""
    attack_moffed = is_moffed(attack_roll)
    defense_moffed = is_moffed(defense_roll)
    if not attack_roll:
        steps.append(Step("zero attack dice rolled: not moffed", "XO-5"))
    if not defense_roll:
        steps.append(Step("zero defense dice rolled: not moffed", "XO-5"))
    if attack_moffed:
        steps.append(Step("attack moffed (every die shows 0): the defender may counterattack", "XO-5"))
    if defense_moffed:
        steps.append(Step("defense moffed (every die shows 0): +1 die of damage on a hit", "XO-5"))
    return attack_moffed, defense_moffed


def _miss(acv: int, dcv: int, steps: list[Step]) -> tuple[str, list[str], Step]:
    """XO-3: DCV >= ACV is a miss: no damage, no attack effect."""
    steps.append(Step(f"DCV {dcv} >= ACV {acv}: miss, no damage, no attack effect", "XO-3"))
    return "miss", [], steps[-1]


def _hit_damage(
    acv: int, dcv: int, effect_damage: int, defense_moffed: bool, extra_damage_die: int | None,
    steps: list[Step],
) -> tuple[int, int, int | None]:
    """XO-4: a hit deals ACV - DCV plus the attack effect's damage; XO-5: a moffed defense
    adds the extra mask die. Returns (damage, attack-effect damage, extra die)."""
    damage = acv - dcv
    applied_effect_damage = 0
    text = f"ACV {acv} > DCV {dcv}: hit, damage {acv} - {dcv} = {damage}"
    if effect_damage:
        applied_effect_damage = effect_damage
        damage += effect_damage
        text += f", + {effect_damage} attack-effect damage = {damage}"
    steps.append(Step(text, "XO-4"))
    extra: int | None = None
    if defense_moffed:
        if extra_damage_die is None:
            raise ValueError("a moffed defense that is hit needs the extra damage die's face")
        if extra_damage_die not in MASK_FACES:
            raise ValueError(f"extra damage die shows {extra_damage_die}, not a mask face")
        extra = extra_damage_die
        damage += extra
        steps.append(Step(f"moffed defense: extra damage die shows {extra}, damage {damage}", "XO-5"))
    return damage, applied_effect_damage, extra


def _damage_outcome(
    damage: int, health: int, effects: list[str], card_tags: list[str], steps: list[Step]
) -> tuple[str, list[str], Step]:
    """XO-4: damage against Health: below stays in play with the attack effect, equal is
    <Stunned>, above is KOd; the cards' tags land on any hit that does not KO, and a tag
    of <KOd> KOs. Returns (outcome, tags, the step that decided it)."""
    tags: list[str] = []
    if damage < health:
        outcome = "hit"
        text = f"damage {damage} < Health {health}: stays in play"
        if effects:
            tags.extend(effects)
            text += ", attack effect applied: tagged " + ", ".join(f"<{e}>" for e in effects)
        steps.append(Step(text, "XO-4"))
        why = steps[-1]
    elif damage == health:
        outcome = "stunned"
        tags.append(STUNNED)
        steps.append(Step(f"damage {damage} == Health {health}: stays in play, tagged <{STUNNED}>", "XO-4"))
        why = steps[-1]
    if damage <= health and card_tags:
        tags.extend(t for t in card_tags if t not in tags)
        steps.append(Step("on a hit, the cards played tag the defender "
                          + ", ".join(f"<{t}>" for t in card_tags), "XO-4"))
    if damage <= health and KOD in tags:
        outcome = "ko"
        tags = []
        steps.append(Step(f"tagged <{KOD}>: KOd, on top of its League's discard pile (never tagged)", "XO-4"))
        why = steps[-1]
    elif damage > health:
        outcome = "ko"
        steps.append(
            Step(f"damage {damage} > Health {health}: KOd, on top of its League's discard pile", "XO-4")
        )
        why = steps[-1]
    return outcome, tags, why


def _counterattack_allowed(
    is_counterattack: bool, has_counterattack: bool, attack_moffed: bool,
    defender_statuses: Sequence[str], tags: list[str], outcome: str,
    defs: Mapping[str, StatusDef], steps: list[Step],
) -> bool:
    """XO-6: the defender may counterattack when it has the Counterattack ability or the
    attack was moffed (XO-5), and it is still ready; a counterattack never triggers another."""
    allowed = False
    if is_counterattack:
        steps.append(Step("a counterattack never triggers a further counterattack", "XO-6"))
    elif has_counterattack or attack_moffed:
        reason = "the defender has the Counterattack ability" if has_counterattack else "the attacker moffed its ACV (XO-5)"
        after = [*defender_statuses, *[t for t in tags if t not in defender_statuses]]
        ready = readiness(after, outcome == "ko", defs)
        if ready.ready:
            allowed = True
            steps.append(Step(f"counterattack allowed: {reason}", "XO-6"))
        else:
            steps.append(Step(f"no counterattack although {reason}: only ready characters attack", "XO-6"))
            steps.extend(ready.steps)
    else:
        steps.append(Step("no counterattack: no Counterattack ability and the attack was not moffed", "XO-6"))
    return allowed


def _effects(effect: str | Sequence[str] | None) -> list[str]:
    """The attack's effects (its own and the cards' "on a hit: tag"), without repeats."""
    if effect is None:
        return []
    names = [effect] if isinstance(effect, str) else list(effect)
    return list(dict.fromkeys(names))


def _cv_text(label: str, roll: Sequence[int], mod: int, value: int) -> str:
    faces = "+".join(str(f) for f in roll) if roll else "no dice"
    mod_text = f" {mod:+d}" if mod else ""
    return f"{label} = {faces}{mod_text} = {value}"


def floor_zero(label: str, raw: int, steps: list[Step]) -> int:
    """XO-17: a total that modifiers would take below 0 counts as 0 (noted in `steps`)."""
    if raw >= 0:
        return raw
    steps.append(Step(f"{label} {raw} counts as 0: totals never go below 0", "XO-17"))
    return 0


def take_dice(dice: random.Random, role: str, n: int, label: str, steps: list[Step]) -> list[int]:
    """`n` mask dice for one roll, at most the 7 a player owns (XO-1: "rolls as many dice
    as s/he can"), from `dice` (a plain RNG, or core's `TableDice`: the faces given at the
    table by `role` (`attack`, `defense:Swift`, ...) or with --roll, else asked for by
    `label`, "Swift's defense roll")."""
    if n > DICE_PER_PLAYER:
        steps.append(Step(f"{label}: {n} dice, but a player owns {DICE_PER_PLAYER}", "XO-1"))
        n = DICE_PER_PLAYER
    return roll_mask(max(n, 0), dice, label, role)


@dataclass(frozen=True)
class Fighter:
    """A character in a combat: its dice and Health from its card, its statuses now, its
    Counterattack ability (XO-6), its attack effect (XO-4) and Superpower icon (damage type)."""

    name: str
    attack: int
    defense: int
    health: int
    statuses: tuple[str, ...] = ()
    counterattack: bool = False
    effect: str | None = None
    superpower: str | None = None


@dataclass(frozen=True)
class Mods:
    """What cards played on one side of a combat round (and modifiers the players give) add:
    the attacking side's ACV, dice, effect damage and on-a-hit tags; the defending side's
    DCV, dice and a granted Counterattack ability."""

    attack_mod: int = 0
    attack_dice: int = 0
    effect_damage: int = 0
    tags: tuple[str, ...] = ()
    defense_mod: int = 0
    defense_dice: int = 0
    counterattack: bool = False
    attack_from: tuple[tuple[str, int], ...] = ()  # (source, value) making up attack_mod, for the log
    defense_from: tuple[tuple[str, int], ...] = ()


NO_MODS = Mods()


def counter_roles(counterattacker: str, defender: str) -> tuple[str, str, str]:
    """The dice roles of `counterattacker`'s counterattack: its attack roll, the attacker's
    defense roll and the attacker's extra damage die (the defender's without a name)."""
    suffix = "" if counterattacker == defender else f":{counterattacker}"
    return f"counter-attack{suffix}", f"counter-defense{suffix}", f"counter-extra{suffix}"


@dataclass(frozen=True)
class AttackResult:
    """An attack: one combat round per target in row order, all sharing one attack roll
    (XO-7), then the counterattacks that happened (XO-6), and everyone's statuses after."""

    acv: int
    attack_moffed: bool
    rounds: tuple[tuple[str, CombatResult], ...]  # (target, round) in row order
    counters: tuple[tuple[str, CombatResult], ...]  # (counterattacker, round) in row order
    skipped: tuple[str, ...]  # allowed counterattacks that did not happen: the attacker was KOd
    declined: tuple[str, ...]
    aoe: bool
    statuses: dict[str, tuple[str, ...]]  # everyone involved, after the attack
    kod: tuple[str, ...]  # KOd by this attack, in the order it happened
    steps: tuple[Step, ...]  # the whole story, each round's steps named by its target

    def round_of(self, name: str) -> CombatResult:
        return dict(self.rounds)[name]

    def counter_of(self, name: str) -> CombatResult | None:
        return dict(self.counters).get(name)


def _round_dice(
    dice: random.Random, roles: tuple[str, str, str], labels: tuple[str, str, str],
    n_attack: int | None, attack_roll: Sequence[int] | None, n_defense: int,
    attack_mod: int, defense_mod: int, steps: list[Step],
) -> tuple[list[int], list[int], int | None]:
    """A round's dice in rules order: attack roll (unless shared), defense roll, and the
    extra damage die only when the defense is moffed and hit (XO-5)."""
    if attack_roll is None:
        attack_roll = take_dice(dice, roles[0], n_attack or 0, labels[0], steps)
    defense_roll = take_dice(dice, roles[1], n_defense, labels[1], steps)
    extra = None
    acv = max(0, sum(attack_roll) + attack_mod)  # XO-17: totals floored at 0, as the round
    dcv = max(0, sum(defense_roll) + defense_mod)
    if is_moffed(defense_roll) and acv > dcv:
        extra = take_dice(dice, roles[2], 1, labels[2], steps)[0]
    return list(attack_roll), defense_roll, extra


def _after(statuses: dict[str, tuple[str, ...]], kod: list[str], name: str, result: CombatResult) -> None:
    """A round's effect on its defender: KOd (it leaves play, never tagged, XO-4) or tags."""
    if result.ko:
        statuses[name] = ()
        kod.append(name)
    else:
        statuses[name] = (*statuses[name], *(t for t in result.statuses if t not in statuses[name]))


def resolve_attack(
    attacker: Fighter,
    targets: Sequence[Fighter],
    defender: str,
    dice: random.Random,
    defs: Mapping[str, StatusDef],
    *,
    on_attack: Mods = NO_MODS,
    on_defense: Mods = NO_MODS,
    aoe: bool = False,
    counter_mods: Mapping[str, tuple[Mods, Mods]] | None = None,
    decline: Iterable[str] = (),
) -> AttackResult:
    """An attack of `attacker` on `defender` and, for an AOE attack, its neighbours:
    `targets` in row order. One shared attack roll, one combat round per target
    (XO-2..XO-5, XO-7); then, in row order, each target allowed to counterattack does so
    in a full combat round with the roles swapped (XO-6), with the cards of
    `counter_mods[name]` = (its side's attack cards, the attacker's defense cards) — until
    the attacker is KOd: the remaining counterattacks do not happen. Status modifiers
    (XO-9) come from each fighter's statuses at the time, so a status this attack tagged
    counts in the counterattack. `decline`: the targets that decline to counterattack.
    Dice are taken from `dice` in the order the rules need them."""
    _check_targets(targets, defender, aoe)
    counter_mods = counter_mods or {}
    decline = set(decline)
    steps: list[Step] = []
    statuses = {f.name: tuple(f.statuses) for f in (attacker, *targets)}
    kod: list[str] = []
    if aoe:
        others = ", ".join(t.name for t in targets if t.name != defender) or "none"
        steps.append(Step(f"AOE: one attack roll shared by {defender} and its neighbours ({others})", "XO-7"))
    a_mod, a_steps = status_modifier(attacker.statuses, defs, "attack_mod")
    steps.extend(Step(f"{attacker.name}: {s.text}", s.ruling) for s in a_steps)
    a_mod += on_attack.attack_mod
    a_bonuses = (*status_bonuses(attacker.statuses, defs, "attack_mod"), *on_attack.attack_from)
    _plan_attack_dice(dice, attacker, targets, defender, on_attack, on_defense)
    attack_roll = take_dice(dice, "attack", attacker.attack + on_attack.attack_dice,
                            f"{attacker.name}'s attack roll", steps)
    rounds: list[tuple[str, CombatResult]] = []
    for target in targets:
        side = on_defense if target.name == defender else NO_MODS
        result = _target_round(attacker, target, defender, side, on_attack, attack_roll, a_mod,
                               dice, defs, steps)
        result = replace(result, attack_bonuses=a_bonuses)
        steps.extend(Step(f"vs {target.name}: {s.text}", s.ruling) for s in result.steps)
        _after(statuses, kod, target.name, result)
        rounds.append((target.name, result))

    counters: list[tuple[str, CombatResult]] = []
    skipped: list[str] = []
    declined: list[str] = []
    for target, (_, round_) in zip(targets, rounds, strict=True):
        if not round_.counterattack_allowed:
            continue
        if target.name in decline:
            declined.append(target.name)
            steps.append(Step(f"{target.name} declines to counterattack", "XO-6"))
            continue
        if attacker.name in kod:
            skipped.append(target.name)
            steps.append(Step(f"no counterattack by {target.name}: {attacker.name} is already KOd", "XO-6"))
            continue
        c_side, a_side = counter_mods.get(target.name, (NO_MODS, NO_MODS))
        result = _counterattack(target, attacker, defender, c_side, a_side, statuses, dice, defs, steps)
        steps.extend(Step(f"{target.name} counterattacks {attacker.name}: {s.text}", s.ruling) for s in result.steps)
        _after(statuses, kod, attacker.name, result)
        counters.append((target.name, result))
    first_round = rounds[0][1]
    return AttackResult(first_round.acv, first_round.attack_moffed, tuple(rounds), tuple(counters),
                        tuple(skipped), tuple(declined), aoe, statuses, tuple(kod), tuple(steps))


def _check_targets(targets: Sequence[Fighter], defender: str, aoe: bool) -> None:
    """XO-7: one defender, or for an AOE attack the defender and at most its two neighbours."""
    if not targets:
        raise ValueError("an attack needs a defender")
    names = [t.name for t in targets]
    if defender not in names:
        raise ValueError(f"{defender} is not among the targets")
    if len(targets) > 1 and not aoe:
        raise ValueError("only an AOE attack has more than one target")
    if len(targets) > 3:
        raise ValueError("an AOE attack hits the defender and at most its two neighbours")


def _plan_attack_dice(
    dice: random.Random, attacker: Fighter, targets: Sequence[Fighter], defender: str,
    on_attack: Mods, on_defense: Mods,
) -> None:
    """Tell `dice` the rolls this attack takes: one attack roll, one defense roll per target
    (XO-1: at most the dice a player owns)."""
    from referee.dice import plan

    plan(dice, [("attack", f"{attacker.name}'s attack roll",
                 max(0, min(attacker.attack + on_attack.attack_dice, DICE_PER_PLAYER)))]
         + [("defense" if t.name == defender else f"defense:{t.name}", f"{t.name}'s defense roll",
             max(0, min(t.defense + (on_defense.defense_dice if t.name == defender else 0),
                        DICE_PER_PLAYER)))
            for t in targets])


def _target_round(
    attacker: Fighter, target: Fighter, defender: str, side: Mods, on_attack: Mods,
    attack_roll: list[int], a_mod: int, dice: random.Random, defs: Mapping[str, StatusDef],
    steps: list[Step],
) -> CombatResult:
    """The combat round (XO-2..XO-5) of the shared attack roll against one target, with its
    status modifiers (XO-9) and, for the defender, its side's defense cards."""
    is_defender = target.name == defender
    d_mod, d_steps = status_modifier(target.statuses, defs, "defense_mod")
    steps.extend(Step(f"{target.name}: {s.text}", s.ruling) for s in d_steps)
    d_mod += side.defense_mod
    roles = ("attack", "defense", "extra") if is_defender else ("attack", f"defense:{target.name}", f"extra:{target.name}")
    labels = ("", f"{target.name}'s defense roll", f"{target.name}'s extra damage die (moffed defense, XO-5)")
    _, defense_roll, extra = _round_dice(dice, roles, labels, None, attack_roll, target.defense + side.defense_dice,
                                         a_mod, d_mod, steps)
    result = combat_round(
        attack_roll, defense_roll, target.health, defs,
        attack_mod=a_mod, defense_mod=d_mod, effect=attacker.effect, effect_damage=on_attack.effect_damage,
        extra_damage_die=extra, has_counterattack=target.counterattack or side.counterattack,
        defender_statuses=target.statuses, on_hit_tags=on_attack.tags,
    )
    return replace(result, defense_bonuses=(*status_bonuses(target.statuses, defs, "defense_mod"),
                                            *side.defense_from))


def _counterattack(
    target: Fighter, attacker: Fighter, defender: str, c_side: Mods, a_side: Mods,
    statuses: dict[str, tuple[str, ...]], dice: random.Random, defs: Mapping[str, StatusDef],
    steps: list[Step],
) -> CombatResult:
    """XO-6: `target`'s counterattack, a full combat round with the roles swapped, with the
    statuses (XO-9) as this attack left them and its damage type from the Superpower icon."""
    c_mod, c_steps = status_modifier(statuses[target.name], defs, "attack_mod")
    t_mod, t_steps = status_modifier(statuses[attacker.name], defs, "defense_mod")
    steps.extend(Step(f"{target.name}: {s.text}", s.ruling) for s in c_steps)
    steps.extend(Step(f"{attacker.name}: {s.text}", s.ruling) for s in t_steps)
    c_mod += c_side.attack_mod
    t_mod += a_side.defense_mod
    labels = (f"{target.name}'s counterattack roll",
              f"{attacker.name}'s defense roll against {target.name}'s counterattack",
              f"{attacker.name}'s extra damage die (moffed defense, XO-5)")
    c_roll, t_roll, extra = _round_dice(dice, counter_roles(target.name, defender), labels,
                                        target.attack + c_side.attack_dice, None,
                                        attacker.defense + a_side.defense_dice, c_mod, t_mod, steps)
    result = combat_round(
        c_roll, t_roll, attacker.health, defs,
        attack_mod=c_mod, defense_mod=t_mod, effect=target.effect, effect_damage=c_side.effect_damage,
        extra_damage_die=extra, defender_statuses=statuses[attacker.name], is_counterattack=True,
        on_hit_tags=c_side.tags,
    )
    if target.superpower:
        step = Step(f"counterattack damage type: {target.superpower} (Superpower icon)", "XO-6")
        result = replace(result, steps=(result.steps[0], step, *result.steps[1:]))
    return replace(result,
                   attack_bonuses=(*status_bonuses(statuses[target.name], defs, "attack_mod"), *c_side.attack_from),
                   defense_bonuses=(*status_bonuses(statuses[attacker.name], defs, "defense_mod"),
                                    *a_side.defense_from))


def neighbours(row: Sequence[str], out_of_play: Iterable[str], defender: str) -> list[str]:
    """XO-7: the defender's left and right neighbours in its league's row. KOd characters
    have left play (XO-4), so the row closes up: the nearest characters still in play."""
    gone = set(out_of_play)
    in_play = [name for name in row if name not in gone or name == defender]
    if defender not in in_play:
        raise ValueError(f"{defender} is not in the row")
    i = in_play.index(defender)
    result = []
    if i > 0:
        result.append(in_play[i - 1])
    if i + 1 < len(in_play):
        result.append(in_play[i + 1])
    return result


# --------------------------------------------------------------------------- feats


@dataclass(frozen=True)
class RollResult:
    """A feat (XO-13) or thwart (XO-14) roll against its completion value."""

    kind: str  # "feat" | "thwart"
    roll: tuple[int, ...]
    mod: int
    bonus: int
    total: int
    target: int  # FCV or TCV
    success: bool
    steps: tuple[Step, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "roll": list(self.roll),
            "mod": self.mod,
            "bonus": self.bonus,
            "total": self.total,
            "fcv" if self.kind == "feat" else "tcv": self.target,
            "success": self.success,
            "outcome": "success" if self.success else "fail",
            "rulings": rulings_of(self.steps),
            "steps": [s.as_dict() for s in self.steps],
        }


def feat(roll: Sequence[int], fcv: int, *, mod: int = 0, bonus: int = 0) -> RollResult:
    """XO-13: total = dice + card modifiers + any thwart bonus; success when >= FCV."""
    parts = _roll_text(roll, mod)
    steps: list[Step] = []
    total = floor_zero("feat total", sum(roll) + mod + bonus, steps)
    if bonus:
        parts += f" + {bonus} thwart bonus"
        steps.append(Step(f"thwart bonus +{bonus} on this feat attempt", "XO-14"))
    success = total >= fcv
    verdict = "succeeds" if success else "fails, the phase ends"
    cmp = ">=" if success else "<"
    steps.insert(0, Step(f"feat roll {parts} = {total} {cmp} FCV {fcv}: {verdict}", "XO-13"))
    return RollResult("feat", tuple(roll), mod, bonus, total, fcv, success, tuple(steps))


def thwart(roll: Sequence[int], tcv: int, *, mod: int = 0) -> RollResult:
    """XO-14: total >= TCV thwarts the feat (and earns a +2 on the thwarting league's
    next feat, on its very next turn); otherwise the active league wins the chapter."""
    floored: list[Step] = []
    total = floor_zero("thwart total", sum(roll) + mod, floored)
    success = total >= tcv
    if success:
        verdict = (
            f">= TCV {tcv}: thwarted, the feat fails; +{THWART_BONUS} on the thwarting "
            "league's next feat attempt if made on its very next turn"
        )
    else:
        verdict = f"< TCV {tcv}: thwart fails, the active league wins the chapter"
    steps = (*floored, Step(f"thwart roll {_roll_text(roll, mod)} = {total} {verdict}", "XO-14"))
    return RollResult("thwart", tuple(roll), mod, 0, total, tcv, success, steps)


def _roll_text(roll: Sequence[int], mod: int) -> str:
    text = "+".join(str(f) for f in roll) if roll else "no dice"
    return text + (f" {mod:+d}" if mod else "")


def feat_dice(
    powers: Mapping[str, int], keywords: Mapping[str, int], requires: Mapping[str, str]
) -> tuple[int | None, Step]:
    """XO-13: how many dice a character rolls for an objective: its dice for the required
    power icon, or for the required keyword (keywords compare case-insensitively).
    None when the character lacks the icon or keyword."""
    if "icon" in requires:
        icon = requires["icon"]
        dice = powers.get(icon)
        if dice is None:
            return None, Step(f"no {icon} power icon", "XO-13")
        return dice, Step(f"{icon} power icon: {dice} dice", "XO-13")
    keyword = requires["keyword"]
    for name, dice in keywords.items():
        if name.casefold() == keyword.casefold():
            return dice, Step(f"keyword {name}: {dice} dice", "XO-13")
    return None, Step(f"no {keyword} keyword", "XO-13")


def thwart_bonus_for(bonus: Mapping[str, Any] | None, league: str, turn_number: int) -> int:
    """XO-14: the +2 applies to `league`'s feat only on the turn it was granted for."""
    if bonus and bonus["league"] == league and bonus["turn"] == turn_number:
        return THWART_BONUS
    return 0


# --------------------------------------------------------------------------- energy and resources


@dataclass(frozen=True)
class EnergyResult:
    pool: int
    steps: tuple[Step, ...]


def pay_energy(
    pool: int, provided: Sequence[tuple[str, int]], costs: Sequence[tuple[str, int]], league: str
) -> EnergyResult:
    """Cards need "the requisite Energy Cards" (rules, Attack phase): the Energy the cards
    played now provide (`provided`, (card, energy) pairs) goes into `league`'s pool of
    this turn, then every card's cost ((card, cost) pairs) is paid from it. ValueError
    naming the shortfall when the pool cannot pay them all (then nothing is paid)."""
    steps: list[Step] = []
    for name, energy in provided:
        pool += energy
        steps.append(Step(f"{name} provides {energy} Energy: the {league}' pool holds {pool}", ENERGY_RULE))
    need = sum(cost for _, cost in costs)
    if need > pool:
        what = ", ".join(f"{name}: {cost}" for name, cost in costs)
        raise ValueError(
            f"the {league} need {need} Energy ({what}) but their pool holds {pool}: "
            f"{need - pool} short; play Energy cards first"
        )
    for name, cost in costs:
        pool -= cost
        steps.append(Step(f"{name} costs {cost} Energy: paid, the {league}' pool holds {pool}", ENERGY_RULE))
    return EnergyResult(pool, tuple(steps))


def empty_energy(pools: Mapping[str, int]) -> tuple[dict[str, int], tuple[Step, ...]]:
    """The Energy played in a turn is for that turn only: both pools empty when it ends."""
    steps = tuple(
        Step(f"the {league}' {pools[league]} unspent Energy is gone with the turn", ENERGY_RULE)
        for league in LEAGUES
        if pools.get(league)
    )
    return {league: 0 for league in LEAGUES}, steps


@dataclass(frozen=True)
class ResourceResult:
    stacks: dict[str, list[str]]
    steps: tuple[Step, ...]


def face_up_resources(stacks: Mapping[str, Sequence[str]]) -> dict[str, str | None]:
    """Setup step 4: the top card of each Resource stack is face up (None: stack empty)."""
    return {stack: next(iter(stacks.get(stack) or ()), None) for stack in RESOURCE_STACKS}


def take_resource(stacks: Mapping[str, Sequence[str]], name: str, stack: str) -> ResourceResult:
    """Only the face-up Resource of its stack can be used (setup step 4 keeps the rest
    face down); once used, the next card of that stack flips face up. ValueError
    otherwise."""
    label = RESOURCE_STACKS[stack]
    cards = list(stacks.get(stack) or [])
    if not cards:
        raise ValueError(f"{name} is not face up: the {label} stack is empty")
    if cards[0] != name:
        raise ValueError(f"{name} is not face up: the {label} stack shows {cards[0]}")
    rest = cards[1:]
    flipped = f"{rest[0]} flips face up" if rest else "the stack is now empty"
    new = {key: list(value) for key, value in stacks.items()}
    new[stack] = rest
    return ResourceResult(new, (Step(f"{name} taken from the {label} stack; {flipped}", RESOURCE_RULE),))


# --------------------------------------------------------------------------- turn and story


def next_phase(phase: str, turn_number: int) -> tuple[str, bool]:
    """XO-11: the phase after `phase`; True when a new turn starts (then the phase is the
    new turn's first one, the Status Check)."""
    i = PHASES.index(phase)
    if i + 1 < len(PHASES):
        return PHASES[i + 1], False
    return PHASES[0], True


@dataclass(frozen=True)
class DrawResult:
    hands: dict[str, int]
    drawn: dict[str, int]
    steps: tuple[Step, ...]


def discard_and_draw(
    turn_number: int, hands: Mapping[str, int], discards: Mapping[str, int] | None = None
) -> DrawResult:
    """XO-10: turn 1 each player draws 7; later each may discard up to 2, then draws
    back up to 7. `hands` and `discards` are card counts per league."""
    discards = dict(discards or {})
    steps: list[Step] = []
    new_hands: dict[str, int] = {}
    drawn: dict[str, int] = {}
    for league in LEAGUES:
        size = hands.get(league, 0)
        n = discards.get(league, 0)
        if turn_number == 1 and n:
            raise ValueError("no discards on turn 1: each player draws 7 (XO-10)")
        if n < 0 or n > MAX_DISCARD:
            raise ValueError(f"{league} may discard 0 to {MAX_DISCARD} cards, not {n} (XO-10)")
        if n > size:
            raise ValueError(f"{league} holds {size} cards and cannot discard {n} (XO-10)")
        if n:
            steps.append(Step(f"{league} discard {n}", "XO-10"))
        size -= n
        drawn[league] = max(HAND_SIZE - size, 0)
        new_hands[league] = size + drawn[league]
        what = "draw 7" if turn_number == 1 else f"draw {drawn[league]} back up to {HAND_SIZE}"
        steps.append(Step(f"{league} {what}", "XO-10"))
    return DrawResult(new_hands, drawn, tuple(steps))


def current_chapter(won: Mapping[str, str]) -> int | None:
    """XO-12: the lowest chapter not yet won; None once all 7 are won."""
    for chapter in range(1, CHAPTERS + 1):
        if str(chapter) not in won:
            return chapter
    return None


@dataclass(frozen=True)
class ChapterResult:
    won: dict[str, str]
    chapter: int | None  # the new current chapter
    steps: tuple[Step, ...]


def win_chapter(won: Mapping[str, str], league: str) -> ChapterResult:
    """XO-12: the first unthwarted completion wins the current chapter for `league`; the
    next chapter becomes current."""
    chapter = current_chapter(won)
    if chapter is None:
        raise ValueError("every chapter is already won")
    new_won = {**won, str(chapter): league}
    nxt = current_chapter(new_won)
    text = f"{league} win chapter {chapter}"
    text += f"; chapter {nxt} is now current" if nxt else "; that was the last chapter"
    return ChapterResult(new_won, nxt, (Step(text, "XO-12"),))


def score(won: Mapping[str, str]) -> dict[str, int]:
    return {league: sum(1 for w in won.values() if w == league) for league in LEAGUES}


@dataclass(frozen=True)
class GameEnd:
    over: bool
    winner: str | None
    steps: tuple[Step, ...] = field(default=())


def game_end(won: Mapping[str, str]) -> GameEnd:
    """XO-15: checked in Turn Resolution: the game ends once the 7th chapter is won; the
    league holding 4 or more chapters wins."""
    points = score(won)
    decided = [league for league in LEAGUES if points[league] >= CHAPTERS_TO_WIN]
    if decided and current_chapter(won) is not None:  # XO-21: the rest cannot change it
        winner = decided[0]
        text = (f"{winner} win their {CHAPTERS_TO_WIN}th chapter: game over, {winner} win "
                f"{points[winner]}-{points[other_league(winner)]}")
        return GameEnd(True, winner, (Step(text, "XO-21"),))
    if current_chapter(won) is not None:
        return GameEnd(False, None, (Step(f"chapters won {points['heroes']}-{points['villains']}: the game goes on", "XO-15"),))
    winner = next(league for league in LEAGUES if points[league] >= CHAPTERS_TO_WIN)
    text = f"7th chapter won: game over, {winner} win {points[winner]}-{points[other_league(winner)]}"
    return GameEnd(True, winner, (Step(text, "XO-15"),))


def stalemate(won: Mapping[str, str], able: Mapping[str, bool]) -> GameEnd:
    """XO-16, checked in Turn Resolution: `able[league]` says whether the league has a
    character in play (not KOd) with the current chapter's power icon or keyword. If neither
    has one, nobody can ever win the chapter: the game ends, more chapters wins, equal is a
    draw (winner None). If one league still can, play goes on."""
    if any(able.get(league) for league in LEAGUES):
        lacking = [league for league in LEAGUES if not able.get(league)]
        if lacking:
            return GameEnd(False, None, (Step(f"the {lacking[0]} have no character left for the current "
                                              "chapter; the game goes on", "XO-16"),))
        return GameEnd(False, None)
    points = score(won)
    text = (f"stalemate: neither league has a character in play for chapter {current_chapter(won)}: "
            "no one can win it, the game ends; ")
    if points["heroes"] == points["villains"]:
        return GameEnd(True, None, (Step(text + f"{points['heroes']}-{points['villains']}: a draw", "XO-16"),))
    winner = max(LEAGUES, key=lambda league: points[league])
    text += f"{winner} win {points[winner]}-{points[other_league(winner)]}"
    return GameEnd(True, winner, (Step(text, "XO-16"),))
