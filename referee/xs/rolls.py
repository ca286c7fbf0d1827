"""Rolls of X-Statix: dice from the referee's RNG or from the table, modifiers with their
source, the total (never below 0, XS-2), and the text that shows it."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from referee.dice import pick_prompt, roll_d6, table_of
from referee.errors import UsageError

# The ruling that governs each roll.
RULING = {
    "opportunity": "XS-3",
    "recruit": "XS-4",
    "marketing": "XS-5",
    "mission": "XS-6",
    "carnage": "XS-7",
    "sendoff": "XS-7",
    "success": "XS-8",
    "payoff": "XS-8",
    "fortune": "XS-10",
    "survival": "XS-7",
}
LABEL = {
    "opportunity": "Opportunity roll",
    "recruit": "Recruit roll",
    "marketing": "Marketing roll",
    "mission": "Mission roll",
    "carnage": "Carnage roll",
    "sendoff": "Sendoff roll",
    "success": "Success roll",
    "payoff": "Payoff roll",
    "survival": "survival roll",
}
DICE = {"payoff": 2}  # every other roll is 1D6
PAID = ("opportunity", "recruit", "marketing")  # XS-2: rolled, then paid in MT
MISSION_ROLLS = ("mission", "carnage", "sendoff", "success", "payoff")


class Dice:
    """Where faces come from: `faces` given (used in order), else the RNG (the CLI's RNG
    is core's `TableDice` when the table gave --roll). Random picks (casualties, stolen
    cards) always come from the RNG's random stream, never from the faces."""

    def __init__(self, rng: random.Random, faces: list[int] | None = None,
                 offer: Callable[[str], str] | None = None) -> None:
        self.rng = rng
        # a choice the table makes when it comes up (U-Go Girl's switch): `offer(question)`
        # -> the typed answer; None where nobody is asked (a script says it in advance)
        self.offer = offer
        self.given = list(faces) if faces else []
        self.from_table = bool(faces)
        # the rolls are named only for a die source that may ask for a die (the balance
        # lab's plain Random never needs the names)
        self.labelled = table_of(rng) is not None

    def d6(self, n: int = 1, label: str | None = None) -> list[int]:
        """`n` dice of one roll; `label` names it when a die is asked for at the table
        ("Smoke's survival roll")."""
        if self.from_table:
            if len(self.given) < n:
                raise UsageError("not enough dice faces given for this action")
            taken, self.given = self.given[:n], self.given[n:]
            return taken
        return roll_d6(n, self.rng, label)  # a core TableDice: --roll, then asked

    def pick(self, options: list[Any], label: str | None = None, given_with: str = "") -> Any:
        """A random pick. By the referee's RNG; with `label` (the table's own deck, XS-16)
        made at the table instead: asked for by name on a terminal like a die (core's
        `TableDice.pick`; Enter = the referee picks it), else the command is refused naming
        the pick and `given_with`, the option that gives it."""
        if label is None:
            return self.rng.choice(options)
        table = table_of(self.rng)
        if table is not None and table.ask is not None:
            return table.pick(options, label)
        raise UsageError(f"the next pick needed: {pick_prompt(label, options)}; pick it at "
                         f"the table and give it with {given_with} (XS-16; nothing was changed)")

    def sample(self, options: list[Any], n: int) -> list[Any]:
        return self.rng.sample(options, n)

    def check_used(self) -> None:
        if self.given:
            n = len(self.given)
            raise UsageError(f"{n} {'die face' if n == 1 else 'dice faces'} given "
                             f"{'was' if n == 1 else 'were'} not needed by this action")


def modifier(by: int, source: str, ruling: str | None, minimum: int | None = None) -> dict:
    return {"by": by, "source": source, "ruling": ruling, "min": minimum}


def new_roll(kind: str, faces: list[int], mods: list[dict],
             context: dict[str, Any] | None = None) -> dict:
    roll: dict[str, Any] = {"kind": kind, "faces": list(faces), "mods": list(mods), "used": [],
                            "context": {} if context is None else context}
    roll["total"] = total(roll)
    return roll


def total(roll: dict) -> int:
    """Faces summed, each modifier applied in order (a modifier with `min` never takes the
    total below that minimum, Anarchist), never below 0 (XS-2)."""
    value = sum(roll["faces"])
    for mod in roll["mods"]:
        new = value + mod["by"]
        if mod.get("min") is not None:
            new = max(new, min(mod["min"], value))
        value = new
    return max(0, value)


def refresh(roll: dict) -> dict:
    roll["total"] = total(roll)
    return roll


def describe(roll: dict) -> str:
    """E.g. `Carnage roll 4 +2 (Bush Rangers) -1 (Dead Girl) = 5`."""
    faces = roll["faces"]
    shown = "+".join(map(str, faces)) if len(faces) > 1 else str(faces[0])
    parts = [f"{LABEL.get(roll['kind'], roll['kind'])} {shown}"]
    for mod in roll["mods"]:
        if mod["by"] or mod.get("survivors"):
            parts.append(f"{mod['by']:+d} ({mod['source']})")
    text = " ".join(parts)
    if len(parts) > 1 or len(faces) > 1 or total(roll) != sum(faces):
        text += f" = {roll['total']}"
    return text
