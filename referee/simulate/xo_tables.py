"""Exact XO! tables for designers: every roster attacker against every defender, and
every objective's best feat and best thwart. Exact, not sampled: the dice distributions
come from the core's `referee.odds`, and each (attack total, defense total, extra die)
case is resolved by the referee's own `referee.xo.rules.combat_round`.

Why enumerating totals is exact: a combat round depends on the dice only through their
sums and on whether a roll is moffed (XO-5). Mask faces are never negative, so a roll of
one or more dice is moffed exactly when its sum is 0; each total is therefore resolved
once with a representative roll of that total.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from referee import odds
from referee.dice import MASK_FACES
from referee.notation import DiceExpr, Group
from referee.xo import rules

NEAR_CERTAIN = Fraction(9, 10)  # flag objectives above 90%
NEAR_IMPOSSIBLE = Fraction(1, 10)  # and below 10%
# A chapter leans to one league when that league wins it on one attempt more than 4/3
# times as often as the other (30% against 20% is 1.5): both work on the same chapter
# (XO-12), so the lean decides who takes it. Mask dice are coarse: one step of an FCV or
# TCV often moves a chapter by 1.2 times, which is left unflagged.
LEAN = Fraction(4, 3)


def mask_expr(n: int) -> DiceExpr:
    """`n` mask dice, as the odds command parses `Nm`."""
    return DiceExpr((Group(n, "mask"),)) if n else DiceExpr(())


def representative(n: int, total: int) -> tuple[int, ...]:
    """A roll of `n` mask dice summing to `total` (largest faces first)."""
    top = max(MASK_FACES)
    faces = []
    left = total
    for _ in range(n):
        face = min(top, left)
        faces.append(face)
        left -= face
    if left:
        raise ValueError(f"{n} mask dice cannot total {total}")
    return tuple(faces)


@dataclass(frozen=True)
class Matchup:
    attacker: str
    defender: str
    league: str  # the attacker's league
    attack_dice: int
    defense_dice: int
    health: int
    hit: Fraction
    stunned: Fraction  # the defender ends the attack tagged <Stunned> (XO-4 or the effect)
    ko: Fraction
    expected_damage: Fraction
    counterattack: Fraction  # the defender may strike back (XO-6)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"attacker": self.attacker, "defender": self.defender,
                               "league": self.league,
                               "attack_dice": self.attack_dice,
                               "defense_dice": self.defense_dice, "health": self.health}
        for key in ("hit", "stunned", "ko", "expected_damage", "counterattack"):
            value = getattr(self, key)
            out[key] = {"fraction": str(value), "value": float(value)}
        return out


def matchup(attacker: Any, defender: Any, statuses: dict[str, rules.StatusDef]) -> Matchup:
    """One attack of `attacker` on `defender` (Character cards), both untagged, no cards
    played: P(hit), P(Stunned), P(KO), E[damage] and P(counterattack allowed)."""
    a_n, d_n = int(attacker["attack"]), int(defender["defense"])
    health = int(defender["health"])
    a_dist = odds.distribution(mask_expr(a_n))
    d_dist = odds.distribution(mask_expr(d_n))
    extra = {face: Fraction(MASK_FACES.count(face), len(MASK_FACES)) for face in set(MASK_FACES)}
    effect = attacker.get("attack_effect")
    counter = "Counterattack" in (defender.get("abilities") or [])
    hit = stunned = ko = damage = can_counter = Fraction(0)
    for a_total, a_p in a_dist.fractions().items():
        a_roll = representative(a_n, a_total)
        for d_total, d_p in d_dist.fractions().items():
            d_roll = representative(d_n, d_total)
            moffed_hit = rules.is_moffed(d_roll) and a_total > d_total
            for face, f_p in (extra.items() if moffed_hit else [(None, Fraction(1))]):
                p = a_p * d_p * f_p
                result = rules.combat_round(a_roll, d_roll, health, statuses, effect=effect,
                                            extra_damage_die=face, has_counterattack=counter)
                if result.hit:
                    hit += p
                if rules.STUNNED in result.statuses:
                    stunned += p
                if result.ko:
                    ko += p
                damage += p * result.damage
                if result.counterattack_allowed:
                    can_counter += p
    return Matchup(attacker.name, defender.name, attacker["league"], a_n, d_n, health, hit, stunned, ko, damage,
                   can_counter)


def roster(db: Any) -> dict[str, list[Any]]:
    chars = db.games["xo"].cards(type="Character")
    return {league: [c for c in chars if c["league"] == league] for league in rules.LEAGUES}


def status_defs(db: Any) -> dict[str, rules.StatusDef]:
    return rules.status_defs_from(db.games["xo"].cards(type="Status"))


def matchups(db: Any) -> list[Matchup]:
    """Every character of each league attacking every character of the other league."""
    teams = roster(db)
    defs = status_defs(db)
    table = []
    for league in rules.LEAGUES:
        for attacker in teams[league]:
            for defender in teams[rules.other_league(league)]:
                table.append(matchup(attacker, defender, defs))
    return table


@dataclass(frozen=True)
class ObjectiveOdds:
    name: str
    chapter: int
    league: str
    requires: str
    fcv: int
    tcv: int
    feat_by: str | None
    feat: Fraction
    thwart_by: str | None
    thwart: Fraction
    flags: tuple[str, ...]

    @property
    def completed(self) -> Fraction:
        """P(feat succeeds and the best thwart fails) for one attempt (XO-13, XO-14)."""
        return self.feat * (1 - self.thwart)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"objective": self.name, "chapter": self.chapter,
                               "league": self.league, "requires": self.requires,
                               "fcv": self.fcv, "tcv": self.tcv, "feat_by": self.feat_by,
                               "thwart_by": self.thwart_by, "flags": list(self.flags)}
        for key in ("feat", "thwart", "completed"):
            value = getattr(self, key)
            out[key] = {"fraction": str(value), "value": float(value)}
        return out


def best_roll(characters: list[Any], requires: dict, target: int) -> tuple[str | None, Fraction]:
    """The character with the best P(dice >= target) for this icon/keyword (XO-13)."""
    best: tuple[str | None, Fraction] = (None, Fraction(0))
    for card in characters:
        n, _ = rules.feat_dice(card.get("powers") or {}, card.get("keywords") or {}, requires)
        if n is None:
            continue
        p = odds.distribution(mask_expr(n)).at_least(target)
        if best[0] is None or p > best[1]:
            best = (card.name, p)
    return best


def objectives(db: Any) -> list[ObjectiveOdds]:
    """Each objective: its league's best character's feat probability (>= FCV, XO-13)
    and the other league's best thwart probability (>= TCV, XO-14); flags > 90% and
    < 10%, and objectives nobody can attempt or thwart."""
    teams = roster(db)
    rows = []
    for card in sorted(db.games["xo"].cards(type="Objective"), key=lambda c: (c["chapter"], c["league"])):
        league = card["league"]
        requires = dict(card["requires"])
        need = f"icon {requires['icon']}" if "icon" in requires else f"keyword {requires['keyword']}"
        feat_by, feat = best_roll(teams[league], requires, int(card["fcv"]))
        thwart_by, thwart = best_roll(teams[rules.other_league(league)], requires, int(card["tcv"]))
        flags = []
        if feat_by is None:
            flags.append(f"no {league} character has the {need}")
        elif feat > NEAR_CERTAIN:
            flags.append("feat near-certain (> 90%)")
        elif feat < NEAR_IMPOSSIBLE:
            flags.append("feat near-impossible (< 10%)")
        if thwart_by is None:
            flags.append("cannot be thwarted")
        elif thwart > NEAR_CERTAIN:
            flags.append("thwart near-certain (> 90%)")
        elif thwart < NEAR_IMPOSSIBLE:
            flags.append("thwart near-impossible (< 10%)")
        rows.append(ObjectiveOdds(card.name, int(card["chapter"]), league, need,
                                  int(card["fcv"]), int(card["tcv"]), feat_by, feat, thwart_by,
                                  thwart, tuple(flags)))
    return rows


@dataclass(frozen=True)
class ChapterBalance:
    """One chapter's two objectives side by side: each league's P(won on one attempt)."""

    chapter: int
    heroes: Fraction
    villains: Fraction

    @property
    def leans(self) -> str | None:
        """The league the chapter leans to (LEAN), or None when it is even enough."""
        high, low = max(self.heroes, self.villains), min(self.heroes, self.villains)
        if high == low or (low and high / low <= LEAN):
            return None
        return "heroes" if self.heroes > self.villains else "villains"

    def as_dict(self) -> dict[str, Any]:
        return {"chapter": self.chapter, "leans": self.leans,
                **{league: {"fraction": str(getattr(self, league)), "value": float(getattr(self, league))}
                   for league in rules.LEAGUES}}


def chapters(objectives: list[ObjectiveOdds]) -> list[ChapterBalance]:
    """Each chapter with both leagues' objectives: their P(won on one attempt)."""
    by_chapter: dict[int, dict[str, Fraction]] = {}
    for o in objectives:
        by_chapter.setdefault(o.chapter, {})[o.league] = o.completed
    return [ChapterBalance(ch, odds_["heroes"], odds_["villains"])
            for ch, odds_ in sorted(by_chapter.items()) if set(odds_) == set(rules.LEAGUES)]


def findings(matchups: list, objectives: list) -> list[str]:
    """Plain-language notes: flagged objectives, the leagues side by side, the strongest
    and weakest attacker, the toughest defender, the deadliest matchup."""
    notes = []
    flagged = [o for o in objectives if o.flags]
    for o in flagged:
        notes.append(f"Chapter {o.chapter} {o.league} objective {o.name!r}: "
                     f"{'; '.join(o.flags)} (feat {float(o.feat):.0%} by {o.feat_by or 'nobody'}, "
                     f"thwart {float(o.thwart):.0%} by {o.thwart_by or 'nobody'}).")
    if objectives and not flagged:
        notes.append("No objective is near-certain (> 90%) or near-impossible (< 10%).")
    balance = chapters(objectives)
    leaning = [(c, c.leans) for c in balance if c.leans]
    for c, leans in leaning:
        mine, theirs = getattr(c, leans), getattr(c, rules.other_league(leans))
        ratio = f"{float(mine / theirs):.1f} times" if theirs else "only"
        notes.append(f"Chapter {c.chapter} leans to the {leans}: one attempt wins it {float(mine):.0%} of the "
                     f"time for them, {float(theirs):.0%} for the {rules.other_league(leans)} ({ratio} as often; "
                     f"flagged above {float(LEAN):.2f}).")
    if balance and not leaning:
        notes.append(f"No chapter leans to one league (each league's odds of winning a chapter on one attempt "
                     f"are within {float(LEAN):.2f} times the other's).")
    if objectives:
        for league in ("heroes", "villains"):
            mine = [o for o in objectives if o.league == league]
            if mine:
                won = sum(float(o.completed) for o in mine) / len(mine)
                hard = min(mine, key=lambda o: o.feat)
                notes.append(f"{league.capitalize()}: an objective is won on one attempt "
                             f"{won:.0%} of the time on average; the hardest feat is chapter "
                             f"{hard.chapter} {hard.name!r} ({float(hard.feat):.0%}).")
    if matchups:
        for league in ("heroes", "villains"):
            mine = [m for m in matchups if m.league == league]
            if mine:
                hit = sum(float(m.hit) for m in mine) / len(mine)
                ko = sum(float(m.ko) for m in mine) / len(mine)
                notes.append(f"{league.capitalize()} attacking: P(hit) {hit:.0%} and P(KO) "
                             f"{ko:.0%} on average over every matchup.")
        by_attacker: dict[str, list] = {}
        by_defender: dict[str, list] = {}
        for m in matchups:
            by_attacker.setdefault(m.attacker, []).append(float(m.expected_damage))
            by_defender.setdefault(m.defender, []).append(float(m.ko))
        mean = {k: sum(v) / len(v) for k, v in by_attacker.items()}
        strong, weak = max(mean, key=mean.__getitem__), min(mean, key=mean.__getitem__)
        notes.append(f"Strongest attacker: {strong} ({mean[strong]:.2f} expected damage per "
                     f"attack); weakest: {weak} ({mean[weak]:.2f}).")
        safe = {k: sum(v) / len(v) for k, v in by_defender.items()}
        tough, frail = min(safe, key=safe.__getitem__), max(safe, key=safe.__getitem__)
        notes.append(f"Toughest defender: {tough} (KOd by {safe[tough]:.0%} of attacks on "
                     f"average); frailest: {frail} ({safe[frail]:.0%}).")
        ko = max(matchups, key=lambda m: m.ko)
        notes.append(f"Deadliest matchup: {ko.attacker} KOs {ko.defender} in one attack "
                     f"{float(ko.ko):.0%} of the time.")
    return notes
