"""Dice: XO! mask dice (XO-1) and six-sided dice, rolled with an injected RNG or entered
as the faces rolled at the table."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from referee.errors import DiceError
from referee.inputs import is_digits, is_integer, shown, small_int
from referee.words import counted

__all__ = [
    "MASK_FACES",
    "D6_FACES",
    "DiceError",
    "faces_of",
    "roll_mask",
    "roll_d6",
    "roll",
    "is_moffed",
    "parse_faces",
    "TableDice",
    "DieSource",
    "table_of",
]

# XO-1: one 0, two 1s, two 2s, one 3.
MASK_FACES: tuple[int, ...] = (0, 1, 1, 2, 2, 3)
D6_FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)


def faces_of(die: str | int) -> tuple[int, ...]:
    """The faces of a die: "mask", "d6"/"dN", or an int number of sides."""
    if die == "mask":
        return MASK_FACES
    if isinstance(die, str):
        text = die.lower()
        if not (text.startswith("d") and is_digits(text[1:]) and len(text) < 8):
            raise DiceError(f"unknown die {shown(die)}: use 'mask' or 'dN'")
        die = int(text[1:])
    if die < 2:
        raise DiceError(f"a die needs at least 2 sides, not {die}")
    return tuple(range(1, die + 1))


class DieSource(Protocol):
    """Where a command's dice come from, one protocol for every engine. Two kinds:

    - seeded dice: a `random.Random` (the session's stream, `Tx.rng`; the balance lab's):
      the dice functions below roll them with its `choice`/`getrandbits`;
    - the table's dice (`TableDice`): faces given (`--roll`, by role), asked for by name
      on a terminal, or rolled by the referee and noted. It is a `random.Random` too (its
      shuffles and picks come from the seeded fallback) and adds `take` (the next faces
      of one roll), `pick` (one pick made at the table), `referee_rolls` (what the
      referee rolled, for --json), `unused_roles`, `handed`, `unused` and `ask`.

    Rules code rolls only through `roll`, `roll_mask`, `roll_d6` and asks `table_of(rng)`
    for the table's side: it never tells the two kinds apart itself."""

    def take(self, n: int, faces: tuple[int, ...], label: str | None = None,
             role: str | None = None) -> list[int]: ...

    def pick(self, options: Sequence[str], label: str) -> str: ...

    def referee_rolls(self) -> list[dict[str, Any]]: ...


def table_of(rng: random.Random) -> TableDice | None:
    """The table's die source behind `rng` (faces given or asked for), None for seeded
    dice: the one place the two kinds of `DieSource` are told apart."""
    return rng if type(rng) is not random.Random and hasattr(rng, "take") else None  # type: ignore[return-value]


def roll(n: int, die: str | int, rng: random.Random, label: str | None = None) -> list[int]:
    """Roll `n` dice of kind `die` with `rng` (a `TableDice` hands out the table's faces;
    `label` names the roll when a die is asked for: "Smoke's survival roll")."""
    faces = faces_of(die)
    table = table_of(rng)
    if table is not None:
        return table.take(n, faces, label)
    return [rng.choice(faces) for _ in range(n)]


def roll_mask(n: int, rng: random.Random, label: str | None = None,
              role: str | None = None) -> list[int]:
    """Roll `n` mask dice (XO-1); `role` names the roll for faces given by role (see
    `TableDice`: XO!'s `--attack-roll`, `--neighbour-roll NAME=`)."""
    table = table_of(rng)
    if table is not None:
        return table.take(n, MASK_FACES, label, role)
    return [rng.choice(MASK_FACES) for _ in range(n)]


def roll_d6(n: int, rng: random.Random, label: str | None = None) -> list[int]:
    """Roll `n` six-sided dice."""
    if type(rng) is random.Random:
        return [_d6(rng.getrandbits) for _ in range(n)]
    table = table_of(rng)
    if table is not None:
        return table.take(n, D6_FACES, label)
    return [rng.randint(1, 6) for _ in range(n)]


def _d6(getrandbits) -> int:
    """One face from a plain `random.Random`: the same faces, from the same stream, as
    `rng.randint(1, 6)` (3 random bits, drawn again while they make 6 or 7), in one Python
    call instead of three; the balance lab rolls millions of dice."""
    r = getrandbits(3)
    while r >= 6:
        r = getrandbits(3)
    return 1 + r


def pick_prompt(label: str, options: Sequence[str]) -> str:
    """How a pick at the table is named: "Carnage casualty 1 of 2, one of Ocelot, Phat"."""
    return f"{label}, one of {', '.join(options)}"


def die_name(faces: tuple[int, ...]) -> str:
    return "a mask die" if faces == MASK_FACES else f"1D{len(faces)}"


def die_kind(faces: tuple[int, ...]) -> str:
    """The die a prompt asks for, with the faces it shows: "mask 0-3", "1D6"."""
    return "mask 0-3" if faces == MASK_FACES else f"1D{len(faces)}"


class TableDice(random.Random):
    """The die source of a command: faces the players rolled at the table (`--roll 3,0,2`),
    handed out in order to the dice functions of this module. Everything else random
    (shuffles, random picks) comes from `fallback`, so a rules function needs no special
    case: it rolls dice with `roll_mask`/`roll_d6`/`roll` and shuffles with `rng.shuffle`.

    Faces by role (`given`, XO!'s `--attack-roll`, `--neighbour-roll NAME=`): a roll the
    rules name with a `role` takes that role's faces first, then the `--roll` faces;
    `option_of(role)` names the option for messages.

    Dice as they fall: when the given faces run out, each further die is asked for by
    name with `ask(prompt, faces, most) -> face | [faces] | None` (a terminal: "Smoke's
    survival roll, 1D6", "Volt's attack roll, die 1 of 3, mask 0-3"; up to `most` faces,
    the rest of the roll, may come at once; None = the referee rolls that die with
    `fallback`, noted in `rolled` and told with `tell`), in the order the rules roll them.
    With no `ask` (no terminal) the command is refused (exit 2) naming the next die
    needed, unless `roll_missing` (nothing was given at the table): the referee rolls the
    roll then. The rules name their rolls with the dice functions' `label`. Every die the
    referee rolled is in `referee_dice` as (what it was, faces).

    Picks at the table (XS-16: a random casualty, Celebrity Status's hero) are asked for
    the same way, with `pick`: `ask(prompt, names, 1) -> name | None`."""

    def __init__(self, text: str, fallback: random.Random,
                 ask: Callable[[str, tuple[Any, ...], int], Any] | None = None,
                 given: Mapping[str, Sequence[int]] | None = None,
                 option_of: Callable[[str], str] | None = None,
                 roll_missing: bool = False,
                 tell: Callable[[str], None] | None = None) -> None:
        self.fallback = fallback
        super().__init__()
        self.text = text
        self.ask = ask
        self.given: dict[str, list[int]] = {k: list(v) for k, v in (given or {}).items()}
        self.option_of = option_of
        self.roll_missing = roll_missing
        self.tell = tell
        # "the referee rolls 4 for Smoke's survival roll, 1D6", for the reply: the ones not
        # told already under their prompt
        self.rolled: list[str] = []
        self.referee_dice: list[tuple[str, list[int]]] = []  # ("Volt's attack roll", [1, 3])
        self.roles: list[str] = []  # the roles rolled, in order
        self.asked = 0
        self.handed = 0  # faces handed out so far
        self.tokens: list[tuple[int, str]] = []  # (column, token)
        position = 0
        for raw in text.replace(",", " ").split(" "):
            if raw:
                position = text.find(raw, position)
                self.tokens.append((position + 1, raw))
                position += len(raw)
        if not self.tokens and ask is None and not self.given and not roll_missing:
            raise DiceError("--roll: no faces given")
        self.used = 0
        # the rolls the command is known to make, (role, label, n), in order (`plan`):
        # a refusal then names every die still needed, not just the next one
        self.planned: list[tuple[str, str, int]] = []
        self.faces: list[int] = []  # every face handed out, in order (given, typed, rolled)

    def take(self, n: int, faces: tuple[int, ...], label: str | None = None,
             role: str | None = None) -> list[int]:
        """The next `n` faces, each checked against the die's `faces`: the role's given
        ones, the `--roll` ones, then (see the class) each die asked for, rolled by the
        referee or a refusal naming it."""
        what = label or "the next roll"
        result: list[int] = []
        if role is not None:
            self.roles.append(role)
            if role in self.given:
                result = self._by_role(role, n, faces, what)
        by_role = len(result)  # given with the role's own option, not with --roll
        result.extend(self._given(min(n - len(result), self.unused), faces))
        if len(result) < n and self.ask is None and self.roll_missing and not result:
            rest = [self._referee_face(faces) for _ in range(n)]
            self.referee_dice.append((what, rest))
            self.rolled.append(f"the referee rolls {','.join(map(str, rest))} for {what}")
            result = rest
        while len(result) < n:
            i = len(result)
            name = f"{what}, die {i + 1} of {n}" if n > 1 else what
            prompt = f"{name}, {die_kind(faces)}"
            if self.ask is None:
                raise DiceError(self._refusal(prompt, role, i))
            answer = self.ask(prompt, faces, n - i)
            self.asked += 1
            if answer is None:
                face = self._referee_face(faces)
                note = f"the referee rolls {face} for {prompt}"
                self.referee_dice.append((name, [face]))
                if self.tell is not None:
                    self.tell(note)     # said at once: the reply need not say it again
                else:
                    self.rolled.append(note)
                result.append(face)
                continue
            answers: list[Any] = list(answer) if isinstance(answer, (list, tuple)) else [answer]
            if len(answers) > n - i:
                raise DiceError(f"{prompt}: {counted(len(answers), 'face')} for "
                                f"{counted(n - i, 'die', 'dice')}")
            for face in answers:
                if face not in faces:
                    raise DiceError(f"{prompt}: {face} is impossible on {die_name(faces)}")
                result.append(int(face))
        self.handed += n
        self.faces.extend(result[by_role:])
        return result

    def mark(self) -> tuple[int, int, int, int, int, int, int]:
        """Where the faces stand, to go back to with `restore` (a step tried and given up:
        the X-Statix chain stopping where its dice run out)."""
        return (self.used, self.handed, len(self.faces), len(self.rolled),
                len(self.referee_dice), len(self.roles), self.asked)

    def restore(self, mark: tuple[int, int, int, int, int, int, int]) -> None:
        self.used, self.handed = mark[0], mark[1]
        del self.faces[mark[2]:], self.rolled[mark[3]:], self.referee_dice[mark[4]:]
        del self.roles[mark[5]:]
        self.asked = mark[6]

    def referee_rolls(self) -> list[dict[str, Any]]:
        """Every die the referee rolled, for --json: [{"roll": what, "faces": [...]}]."""
        return [{"roll": label, "faces": list(faces)} for label, faces in self.referee_dice]

    def _by_role(self, role: str, n: int, faces: tuple[int, ...], what: str) -> list[int]:
        mine = self.given[role]
        if len(mine) > n:
            raise DiceError(f"{what}: {counted(n, 'die', 'dice')} rolled but "
                            f"{counted(len(mine), 'face')} given ({self._option(role)})")
        for face in mine:
            if face not in faces:
                raise DiceError(f"{what}: {face} is impossible on {die_name(faces)} "
                                f"({self._option(role)})")
        return list(mine)

    def _option(self, role: str | None) -> str:
        return self.option_of(role) if role is not None and self.option_of is not None else "--roll"

    def _refusal(self, prompt: str, role: str | None, taken: int) -> str:
        """The one line refusing a die nobody gave, naming it and how to give it."""
        lead = ""
        known = [(label, n - min(n, len(self.given.get(role, ()))))
                 for role, label, n in self.planned]
        known = [(label, n) for label, n in known if n > 0]
        needed = sum(n for _, n in known)
        if self.tokens and needed > self.handed + taken:
            rolls = ", ".join(f"{label} {n}" for label, n in known)
            lead = (f"--roll {shown(self.text)}: {counted(len(self.tokens), 'face')} given, but "
                    f"the command rolls {counted(needed, 'die', 'dice')} with --roll ({rolls}; "
                    "more only if a roll calls for them); ")
        elif self.tokens:
            lead = (f"--roll {shown(self.text)}: {counted(len(self.tokens), 'face')} given, but "
                    f"the command rolls at least "
                    f"{counted(self.handed + taken + 1, 'die', 'dice')}; ")
        option = self._option(role)
        how = "--roll" if option == "--roll" else f"--roll or {option}"
        return (f"{lead}the next die needed: {prompt} (give it with {how}, or type it on a "
                f"terminal; nothing was changed)")

    def _referee_face(self, faces: tuple[int, ...]) -> int:
        # the very die the referee would roll without a terminal
        return roll_d6(1, self.fallback)[0] if faces == D6_FACES else self.fallback.choice(faces)

    def unused_roles(self) -> list[str]:
        """Roles faces were given for that the command never rolled."""
        return [role for role in self.given if role not in self.roles]

    def pick(self, options: Sequence[str], label: str) -> str:
        """One random pick made at the table, asked for by name like a die ("Carnage
        casualty 1 of 2, one of Ocelot, Phat, Lacuna"); None from `ask` = the referee picks
        it with `fallback`, noted in `rolled`. With no `ask` the command is refused naming
        the pick (the caller says how to give it)."""
        prompt = pick_prompt(label, options)
        if self.ask is None:
            raise DiceError(f"the next pick needed: {prompt}")
        choice = self.ask(prompt, tuple(options), 1)
        if choice is None:
            choice = self.fallback.choice(list(options))
            self.rolled.append(f"the referee picks {choice} for {prompt}")
        elif choice not in options:
            raise DiceError(f"{prompt}: {shown(str(choice))} is not one of them")
        return str(choice)

    def _given(self, n: int, faces: tuple[int, ...]) -> list[int]:
        result = []
        for column, raw in self.tokens[self.used : self.used + n]:
            value = small_int(raw)  # ASCII digits only: "²" and "٣" are not faces
            if value is None or value not in faces:
                die = "a mask die" if faces == MASK_FACES else f"a d{len(faces)}"
                faces_shown = ",".join(str(f) for f in sorted(set(faces)))
                what = (
                    "is not a number"
                    if not is_integer(raw)
                    else f"is impossible on {die} (faces {faces_shown})"
                )
                raise DiceError(
                    f"--roll {shown(self.text)}: face {shown(raw)} at column {column} {what}"
                )
            result.append(value)
        self.used += n
        return result

    @property
    def unused(self) -> int:
        return len(self.tokens) - self.used

    # randomness that is not a die roll comes from the fallback generator
    def random(self) -> float:
        return self.fallback.random()

    def getrandbits(self, k: int) -> int:
        return self.fallback.getrandbits(k)

    def seed(self, *args: object, **kwargs: object) -> None:
        pass  # nothing to seed: faces come from the table, the rest from `fallback`


def plan(rng: random.Random, rolls: Sequence[tuple[str, str, int]]) -> None:
    """Tell the command's die source the rolls it is known to make, (role, label, n) in
    order, before the first: a refusal for dice not given then names all of them (an AOE
    attack's every defense roll), not only the next die. Nothing for seeded dice."""
    table = table_of(rng)
    if table is not None:
        table.planned = list(rolls)


def is_moffed(faces: Sequence[int]) -> bool:
    """XO-5: one or more dice, every face 0. A zero-die roll is never moffed."""
    return len(faces) > 0 and all(face == 0 for face in faces)


def parse_faces(text: str, die: str | int) -> list[int]:
    """Faces entered at the table, e.g. "3,0,2" (commas and/or spaces). Raises `DiceError`
    naming the first face the die cannot show."""
    allowed = set(faces_of(die))
    faces: list[int] = []
    position = 0
    for raw in text.replace(",", " ").split(" "):
        position = text.find(raw, position) if raw else position
        if not raw:
            continue
        value = small_int(raw)  # ASCII digits only: "²" and "٣" are not faces
        if not is_integer(raw):
            raise DiceError(
                f"face {shown(raw)} at column {position + 1} of {shown(text)} is not a number"
            )
        if value is None or value not in allowed:
            name = "a mask die" if die == "mask" else f"a d{len(allowed)}"
            faces_shown = ",".join(str(f) for f in sorted(allowed))
            raise DiceError(
                f"face {shown(raw)} at column {position + 1} of {shown(text)} is impossible on "
                f"{name} (faces {faces_shown})"
            )
        faces.append(value)
        position += len(raw)
    if not faces:
        raise DiceError("no faces given")
    return faces
