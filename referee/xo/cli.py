"""`referee xo`: the XO! referee at the table. Thin: parse, call referee.xo.rules /
referee.xo.play, print.

A combat round has two commands: `combat`, stateless, every number given (`referee xo
combat --attack-dice 3 --defense-dice 2 --health 3`), for a quick ruling, and `attack`, in
the session (`referee xo attack ATTACKER DEFENDER`), numbers from the cards and state; an
option of the one given to the other is refused in one line naming the other. `feat` and
`thwart` work both ways: stateless with the numbers given, in the session with CHARACTER.
`--expect OUTCOME` checks what the players worked out.
`pick`, `tag`, `untag` and `next` work on the session only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from referee.click_types import WHOLE, WholeNumber
from referee.command import (
    Reply,
    Tx,
    check_faces_used,
    emit,
    fail,
    global_options,
    guard,
    json_option,
    load_cards,
    seed_option,
    session_command,
    table_dice,
)
from referee.errors import RefereeError, UsageError
from referee.inputs import natural
from referee.xo.rulings import help_text

OUTCOMES = ("miss", "hit", "stunned", "ko")
ROLL_OUTCOMES = ("success", "fail")


@click.group(help=help_text())
def xo() -> None:
    pass  # the help lists every ruling (referee/xo/rulings.py)


# ── shared plumbing ────────────────────────────────────────────────────────────
def _rng(ctx: click.Context, seed: int | None) -> Any:
    import random

    seed = seed if seed is not None else global_options(ctx).seed
    return random.Random(seed) if seed is not None else random.SystemRandom()


def _stateless(as_json: bool, fn: Callable[[], tuple[Reply, RefereeError | None]]) -> None:
    """Run a stateless ruling; print it; then, when the players' --expect was wrong, say
    why on stderr and exit 1."""
    with guard(as_json):
        reply, wrong = fn()
    emit(reply, as_json)
    if wrong is not None:
        fail(wrong.message, 1, wrong.ruling, False)


def _in_session(ctx: click.Context, seed: int | None, as_json: bool, fn: Callable[[Tx], Reply],
                entered: str | None = None) -> None:
    """Like core's `session_command` (a die asked for at the table lets go of the write
    lock first, `Tx.rng`), for the commands that are stateless without positional
    arguments and session commands with them."""
    with guard(as_json):
        from referee.command import with_faces_typed
        from referee.session import Session

        options = global_options(ctx)
        tx = None
        try:
            with Session.open(options.session) as session:
                tx = Tx(session, options, seed, entered)
                reply = fn(tx)
        except RefereeError as error:  # the dice typed are said if the session changed
            raise with_faces_typed(error, tx) from None
    emit(reply, as_json)


def _faces(text: str | None, n: int, what: str, rng: Any) -> list[int]:
    """The faces entered for a roll of `n` mask dice, or a fresh roll."""
    from referee.dice import parse_faces, roll_mask

    if text is None or (n == 0 and not text.strip()):
        return roll_mask(n, rng)
    faces = parse_faces(text, "mask")
    if len(faces) != n:
        raise UsageError(f"{what}: {n} dice rolled but {len(faces)} faces given ({text!r})")
    return faces


def role_option(role: str) -> str:
    """The option that enters the faces of a dice role (for messages)."""
    kind, _, name = role.partition(":")
    option = {"attack": "--attack-roll", "defense": "--neighbour-roll" if name else "--defense-roll",
              "extra": "--neighbour-extra-roll" if name else "--extra-damage-roll",
              "counter-attack": "--counter-attack-roll", "counter-defense": "--counter-defense-roll",
              "counter-extra": "--counter-extra-damage-roll"}.get(kind, "--roll")
    return f"{option} {name}=..." if name else option


def stateless_option(role: str, neighbours: tuple[str, ...]) -> str:
    """`role_option` without a session: a neighbour's faces go in its own --neighbour
    (DICE:HEALTH:FACES:EXTRA), as typed with the part missing named."""
    kind, _, name = role.partition(":")
    if not name.startswith("neighbour ") or kind not in ("defense", "extra"):
        return role_option(role)
    number = name.split()[-1]
    parts = neighbours[int(number) - 1].split(":") if number.isdigit() else ["DICE", "HEALTH"]
    head = ":".join(parts[:2])
    if kind == "defense":
        return f"--neighbour {head}:FACES"
    return f"--neighbour {head}:{parts[2] if len(parts) > 2 else 'FACES'}:FACE"


def _step_lines(steps: Any, indent: str = "  ") -> list[str]:
    return [f"{indent}[{s.ruling or '-'}] {s.text}" for s in steps]


def _status_defs(ctx: click.Context) -> dict:
    from referee.xo import rules

    db = load_cards(global_options(ctx).cards, "xo")
    return rules.status_defs_from(db.games["xo"].cards(type="Status"))


def _cards(tx: Tx) -> Any:
    from referee.xo.play import XoCards

    return XoCards.from_db(tx.db)


def _not_here(given: dict[str, Any], mode: str) -> None:
    named = [f"--{k.replace('_', '-')}" for k, v in given.items() if v not in (None, (), False)]
    if named:
        reason = "the numbers come from the cards and the state" if mode == "session" else "only in a session"
        raise UsageError(f"{', '.join(named)}: not in {'a session' if mode == 'session' else 'a stateless'} command ({reason})")


def _record(tx: Tx, kind: str, out: Any, command: dict[str, Any]) -> Reply:
    steps = [s.as_dict() for s in out.steps]
    seq = tx.record(kind, out.summary, {"command": command, "result": out.data, "steps": steps}, out.state)
    lines = [out.summary, *_step_lines(out.steps)]
    return Reply(lines, {"seq": seq, "summary": out.summary, **out.data, "steps": steps, "state": out.state})


# ── attack (session) and combat (stateless) ──────────────────────────────────
class _PointingCommand(click.Command):
    """A command that refuses an option of its sibling in one line naming the sibling
    (`--attack-dice` on `attack` points to `combat`, `--play` on `combat` to `attack`)."""

    sibling: click.Command | None = None
    pointer: str = ""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            theirs = {o for p in (self.sibling.params if self.sibling else ()) for o in (*p.opts, *p.secondary_opts)}
            if error.option_name not in theirs:
                raise
            raise click.UsageError(f"{error.option_name}: {self.pointer}", ctx) from None


def _options(*decorators: Callable) -> Callable:
    """Apply click option decorators in the order listed (as if stacked above the function)."""
    def apply(fn: Callable) -> Callable:
        for decorator in reversed(decorators):
            fn = decorator(fn)
        return fn
    return apply


_ROUND_OPTIONS = _options(
    click.option("--attack-roll", metavar="FACES", help="Attack faces rolled at the table, e.g. 3,0,2."),
    click.option("--defense-roll", metavar="FACES", help="Defense faces rolled at the table."),
    click.option("--extra-damage-roll", metavar="FACE", help="The extra damage die of a moffed defense (XO-5)."),
    click.option("--attack-mod", type=WHOLE, default=0, show_default=True, help="Card modifiers to ACV."),
    click.option("--defense-mod", type=WHOLE, default=0, show_default=True, help="Card modifiers to DCV."),
    click.option("--effect", metavar="STATUS", help="The attack's effect (a Status card)."),
    click.option("--effect-damage", type=WholeNumber(min=0), default=0, help="Attack-effect damage (XO-4)."),
    click.option("--aoe", is_flag=True, help="An AOE attack: the defender and its neighbours (XO-7)."),
)
_COUNTER_ROLL_OPTIONS = _options(
    click.option("--counter-attack-roll", "counter_attack_rolls", multiple=True, metavar="[NAME=]FACES",
                 help="A counterattack's attack faces (NAME: an AOE neighbour's counterattack, in a session)."),
    click.option("--counter-defense-roll", "counter_defense_rolls", multiple=True, metavar="[NAME=]FACES",
                 help="The attacker's defense faces against a counterattack."),
    click.option("--counter-extra-damage-roll", "counter_extra_damage_rolls", multiple=True, metavar="[NAME=]FACE",
                 help="Extra die if the attacker's defense against a counterattack is moffed."),
    click.option("--roll", "roll_text", metavar="FACES",
                 help="Faces rolled at the table, in the order the rules need them, for the dice not given above; "
                 "on a terminal the rest are asked for."),
    click.option("--expect", type=click.Choice(OUTCOMES), help="The outcome the players worked out: checked."),
    seed_option,
    json_option,
)


@xo.command(cls=_PointingCommand)
@click.argument("characters", nargs=-1, metavar="ATTACKER DEFENDER")
@_ROUND_OPTIONS
@click.option("--neighbour-roll", "neighbour_rolls", multiple=True, metavar="NAME=FACES",
              help="AOE: a neighbour's defense faces.")
@click.option("--neighbour-extra-roll", "neighbour_extra_rolls", multiple=True, metavar="NAME=FACE",
              help="AOE: a moffed neighbour's extra damage die (XO-5).")
@click.option("--counterattack/--no-counterattack", default=None,
              help="--no-counterattack: the defender declines to counterattack (XO-6).")
@_COUNTER_ROLL_OPTIONS
@click.option("--play", "plays", multiple=True, metavar="CARD",
              help="An attack card the attacker's league plays (Action, Modifier, a face-up "
              "Resource; Energy cards to pay the costs).")
@click.option("--defense-play", "defense_plays", multiple=True, metavar="CARD",
              help="A defense card the defender's league plays (Energy cards too).")
@click.option("--counter-play", "counter_plays", multiple=True, metavar="[NAME=]CARD",
              help="A card played on a counterattack by the defender (or NAME), if it happens (XO-6).")
@click.option("--counter-defense-play", "counter_defense_plays", multiple=True, metavar="[NAME=]CARD",
              help="A card the attacker's league plays on its defense against that counterattack.")
@click.pass_context
def attack(ctx: click.Context, characters: tuple[str, ...], seed: int | None, as_json: bool, **o: Any) -> None:
    """Attack in the session: ATTACKER on DEFENDER (XO-2..XO-7), numbers from the cards.

    \b
    attack ATTACKER DEFENDER [--attack-roll F,..] [--defense-roll F,..] [--play CARD] ...
    With every number given instead, without a session: `referee xo combat`."""
    if len(characters) != 2:
        with guard(as_json):
            raise UsageError("attack takes ATTACKER DEFENDER (quote names with spaces); "
                             "with the numbers given instead: referee xo combat --attack-dice N ...")
    _in_session(ctx, seed, as_json, lambda tx: _session_attack(tx, characters[0], characters[1], o),
                o["roll_text"])


@xo.command(cls=_PointingCommand)
@click.option("--attack-dice", type=WholeNumber(0, 7), help="The attacker's attack dice.")
@click.option("--defense-dice", type=WholeNumber(0, 7), help="The defender's defense dice.")
@click.option("--health", type=WholeNumber(min=1), help="The defender's Health.")
@_ROUND_OPTIONS
@click.option("--neighbour", "neighbours", multiple=True, metavar="DICE:HEALTH[:FACES]",
              help="AOE: a neighbour's defense dice, Health and faces (at most 2).")
@click.option("--counterattack/--no-counterattack", default=None,
              help="The defender has the Counterattack ability (XO-6).")
@click.option("--counter-attack-dice", type=WholeNumber(0, 7), help="The defender's attack dice.")
@click.option("--counter-defense-dice", type=WholeNumber(0, 7), help="The attacker's defense dice.")
@click.option("--counter-health", type=WholeNumber(min=1), help="The attacker's Health.")
@click.option("--counter-effect", metavar="STATUS", help="The counterattack's effect.")
@click.option("--counter-attack-mod", type=WHOLE, default=0, help="Card modifiers to the counterattack's ACV.")
@click.option("--counter-defense-mod", type=WHOLE, default=0, help="Card modifiers to the attacker's DCV against it.")
@_COUNTER_ROLL_OPTIONS
@click.pass_context
def combat(ctx: click.Context, seed: int | None, as_json: bool, **o: Any) -> None:
    """Resolve a combat round with every number given, no session (XO-2..XO-7).

    \b
    combat --attack-dice N --defense-dice N --health N [--attack-roll F,..] ...
    In the session, numbers from the cards: `referee xo attack ATTACKER DEFENDER`."""
    _stateless(as_json, lambda: _stateless_attack(ctx, seed, o))


def _point(command: click.Command, sibling: click.Command, pointer: str) -> None:
    assert isinstance(command, _PointingCommand)
    command.sibling, command.pointer = sibling, pointer


_point(attack, combat, "an option of the stateless calculator: referee xo combat "
                       "(same options; attack takes ATTACKER DEFENDER)")
_point(combat, attack, "only in a session: referee xo attack ATTACKER DEFENDER "
                       "(combat takes every number as an option)")


def _stateless_attack(ctx: click.Context, seed: int | None, o: dict[str, Any]) -> tuple[Reply, RefereeError | None]:
    """The same resolution as the session's (`rules.resolve_attack`), with the numbers given:
    the attacker is "attacker", the defender "defender", the neighbours "neighbour 1" (left
    of the defender) and "neighbour 2" (right)."""
    from referee.xo import play, rules

    _check_combat_numbers(o)
    defs = _status_defs(ctx)
    attacker, defender = _combat_fighters(o, defs)
    given = _given_faces(o, stateless=True)
    row = _aoe_row(o["neighbours"], defender, given)
    dice = table_dice(o["roll_text"], _rng(ctx, seed), ask=True, given=given,
                      option_of=lambda role: stateless_option(role, o["neighbours"]), note_rolls=True)
    resolvable = all(o[k] is not None for k in ("counter_attack_dice", "counter_defense_dice", "counter_health"))
    # a counterattack the numbers were not given for is reported, not resolved
    unresolved = [f.name for f in row if f.name != "defender" or not resolvable]
    result = rules.resolve_attack(
        attacker, row, "defender", dice, defs,
        on_attack=rules.Mods(attack_mod=o["attack_mod"], effect_damage=o["effect_damage"]),
        on_defense=rules.Mods(defense_mod=o["defense_mod"]),
        aoe=o["aoe"], decline=unresolved,
        counter_mods={"defender": (rules.Mods(attack_mod=o["counter_attack_mod"]),
                                   rules.Mods(defense_mod=o["counter_defense_mod"]))},
    )
    check_faces_used(o["roll_text"], dice)
    main = result.round_of("defender")
    lines, data = _combat_report(result)
    lines += _step_lines(play.dice_notes(dice))
    data["kod"] = list(result.kod)
    data["referee_rolled"] = play.referee_rolled(dice)
    data["rulings"] = rules.rulings_of([*result.steps, *play.dice_notes(dice)])
    wrong = _check_expected(o["expect"], main, lines, data)
    return Reply(lines, data), wrong


def _check_combat_numbers(o: dict[str, Any]) -> None:
    """The numbers a stateless round needs; --neighbour only on an AOE attack, at most 2 (XO-7)."""
    missing = [f"--{k.replace('_', '-')}" for k in ("attack_dice", "defense_dice", "health") if o[k] is None]
    if missing:
        raise UsageError(f"missing {', '.join(missing)} (or play in the session: referee xo attack ATTACKER DEFENDER)")
    if o["neighbours"] and not o["aoe"]:
        raise UsageError("--neighbour is for an --aoe attack (XO-7)")
    if len(o["neighbours"]) > 2:
        raise UsageError("an AOE attack reaches at most 2 neighbours, left and right (XO-7)")


def _combat_fighters(o: dict[str, Any], defs: dict) -> tuple[Any, Any]:
    """"attacker" and "defender" from the numbers given (a counterattack's numbers may be
    missing: it is then reported, not resolved)."""
    from referee.xo import play, rules

    effect = play.resolve_name(o["effect"], defs, "Status card") if o["effect"] else None
    c_effect = play.resolve_name(o["counter_effect"], defs, "Status card") if o["counter_effect"] else None
    attacker = rules.Fighter("attacker", o["attack_dice"], o["counter_defense_dice"] or 0, o["counter_health"] or 1,
                             effect=effect)
    defender = rules.Fighter("defender", o["counter_attack_dice"] or 0, o["defense_dice"], o["health"],
                             counterattack=bool(o["counterattack"]), effect=c_effect)
    return attacker, defender


def _aoe_row(neighbours: tuple[str, ...], defender: Any, given: dict[str, list[int]]) -> list[Any]:
    """XO-7: the defender's row: "neighbour 1" left of it, "neighbour 2" right, each from
    its --neighbour DICE:HEALTH[:FACES[:EXTRA]] (the faces go into `given`)."""
    from referee.xo import rules

    row = [defender]
    for i, text in enumerate(neighbours, 1):
        parts = text.split(":")
        if len(parts) not in (2, 3, 4) or not all(natural(p.strip()) is not None for p in parts[:2]):
            raise UsageError(f"--neighbour {text!r}: write DICE:HEALTH, DICE:HEALTH:FACES or DICE:HEALTH:FACES:EXTRA")
        if int(parts[1]) < 1:
            raise UsageError(f"--neighbour {text!r}: Health must be at least 1")
        name = f"neighbour {i}"
        for role, faces in ((f"defense:{name}", parts[2:3]), (f"extra:{name}", parts[3:4])):
            if faces:
                given[role] = _parse(faces[0])
        fighter = rules.Fighter(name, 0, int(parts[0]), int(parts[1]))
        row = [fighter, *row] if i == 1 else [*row, fighter]
    return row


def _combat_report(result: Any) -> tuple[list[str], dict[str, Any]]:
    """The defender's round, then the AOE neighbours' (XO-7) and the counterattack (XO-6)."""
    main = result.round_of("defender")
    lines = [f"Attack: {_headline(main)}"]
    lines += _step_lines(s for s in result.steps if not s.text.startswith(("vs ", "defender counterattacks", "neighbour"))
                         and not s.text.endswith("declines to counterattack"))  # unresolved: reported below
    lines += _step_lines(main.steps)
    data: dict[str, Any] = main.as_dict()
    data["aoe"] = result.aoe
    if result.aoe:
        data["targets"] = [{"target": name, **r.as_dict()} for name, r in result.rounds]
        for name, r in result.rounds:
            if name != "defender":
                lines.append(f"AOE {name}: {_headline(r)}")
                lines += _step_lines(r.steps)
    data["counterattack"] = None
    counter = result.counter_of("defender")
    if counter is not None:
        lines.append(f"Counterattack: {_headline(counter)}")
        lines += _step_lines(counter.steps)
        data["counterattack"] = counter.as_dict()
    lines += _unresolved_counter_lines(result)
    return lines, data


def _unresolved_counter_lines(result: Any) -> list[str]:
    """XO-6: the counterattacks allowed but not resolved here, and one the attacker's KO stopped."""
    lines: list[str] = []
    for name in result.declined:
        if name == "defender":
            lines.append("Counterattack allowed (XO-6): give --counter-attack-dice, --counter-defense-dice "
                         "and --counter-health to resolve it")
        else:
            lines.append(f"{name} may counterattack (XO-6): resolve it as its own attack (roles swapped) "
                         "unless the attacker is KOd first")
    if "defender" in result.skipped:
        lines.append("No counterattack: the attacker is already KOd (XO-6)")
    return lines


def _check_expected(expect: str | None, main: Any, lines: list[str], data: dict[str, Any]) -> RefereeError | None:
    """--expect: the outcome the players worked out, checked against the round's."""
    if not expect:
        return None
    right = expect == main.outcome
    why = main.why or main.steps[-1]
    data["expect"] = {"outcome": expect, "correct": right, "why": why.text}
    if right:
        lines.append(f"Expected {expect}: correct")
        return None
    return RefereeError(f"expected {expect}, but the outcome is {main.outcome}: {why.text}", why.ruling)


def _parse(text: str) -> list[int]:
    from referee.dice import parse_faces

    return [] if not text.strip() else parse_faces(text, "mask")


def _named(option: str, text: str) -> tuple[str | None, str]:
    """`NAME=FACES` or `FACES` (the defender's) of a repeatable roll option."""
    name, sep, faces = text.partition("=")
    if not sep:
        return None, text
    if not name.strip():
        raise UsageError(f"{option} {text!r}: write FACES or NAME=FACES")
    return name.strip(), faces


def _given_faces(o: dict[str, Any], stateless: bool, resolve: Callable[[str], str] | None = None) -> dict[str, list[int]]:
    """The faces entered by role (core's `TableDice` `given`): every die of a round can be given (XO-5..XO-7)."""
    given: dict[str, list[int]] = {}
    for option, role in (("attack_roll", "attack"), ("defense_roll", "defense"), ("extra_damage_roll", "extra")):
        if o[option] is not None:
            given[role] = _parse(o[option])
    named = [("neighbour_rolls", "--neighbour-roll", "defense", False), ("neighbour_extra_rolls", "--neighbour-extra-roll", "extra", False),
             ("counter_attack_rolls", "--counter-attack-roll", "counter-attack", True),
             ("counter_defense_rolls", "--counter-defense-roll", "counter-defense", True),
             ("counter_extra_damage_rolls", "--counter-extra-damage-roll", "counter-extra", True)]
    for key, option, kind, bare in named:
        for text in o.get(key) or ():
            name, faces = _named(option, text)
            if name is None and not bare:
                raise UsageError(f"{option} {text!r}: write NAME=FACES")
            if name is not None:
                if stateless:
                    raise UsageError(f"{option} {text!r}: names only in a session")
                name = resolve(name) if resolve else name
            role = kind if name is None or (kind.startswith("counter") and name == o.get("_defender")) else f"{kind}:{name}"
            if role in given:
                raise UsageError(f"{option} {text!r}: those faces are already given")
            given[role] = _parse(faces)
    return given


def _headline(r: Any) -> str:
    text = f"ACV {r.acv} vs DCV {r.dcv}"
    if r.outcome == "miss":
        return text + ": MISS"
    text += f": hit for {r.damage} vs Health {r.health}: "
    return text + {"hit": "HIT", "stunned": "STUNNED", "ko": "KO"}[r.outcome] + (
        f" [{', '.join(r.statuses)}]" if r.statuses and r.outcome != "ko" else ""
    )


def _session_attack(tx: Tx, attacker: str, defender: str, o: dict[str, Any]) -> Reply:
    from referee.xo import play

    state = tx.require_game("xo")
    cards = _cards(tx)

    def resolve(name: str) -> str:
        return play.find_character(state, name)[1]["name"]

    o = {**o, "_defender": resolve(defender)}
    given = _given_faces(o, stateless=False, resolve=resolve)
    counter_plays: dict[str, list[str]] = {}
    counter_defense_plays: dict[str, list[str]] = {}
    for key, option, into in (("counter_plays", "--counter-play", counter_plays),
                              ("counter_defense_plays", "--counter-defense-play", counter_defense_plays)):
        for text in o[key]:
            name, card = _named(option, text)
            into.setdefault(resolve(name) if name else o["_defender"], []).append(card.strip())
    dice = tx.rng(ask=True, given=given, option_of=role_option, note_rolls=True)
    out = play.attack(
        state, cards, attacker, defender, dice,
        attack_mod=o["attack_mod"], defense_mod=o["defense_mod"], effect=o["effect"],
        effect_damage=o["effect_damage"], aoe=o["aoe"], counterattack=o["counterattack"] is not False,
        plays=o["plays"], defense_plays=o["defense_plays"],
        counter_plays=counter_plays, counter_defense_plays=counter_defense_plays,
    )
    tx.check_entered_faces_used()
    if o["expect"] and o["expect"] != out.data["outcome"]:
        why = out.data["why"]
        raise RefereeError(
            f"expected {o['expect']}, but the outcome is {out.data['outcome']}: {why['text']}; nothing recorded",
            why["ruling"],
        )
    return _record(tx, "attack", out, {"attacker": attacker, "defender": defender,
                                       "plays": list(o["plays"]), "defense_plays": list(o["defense_plays"]),
                                       "counter_plays": counter_plays, "counter_defense_plays": counter_defense_plays})


# ── feat and thwart ────────────────────────────────────────────────────────────
def _roll_command(kind: str) -> Callable:
    target = "fcv" if kind == "feat" else "tcv"

    @click.argument("character", nargs=-1)
    @click.option("--dice", type=WholeNumber(0, 7), help="Stateless: how many dice the character rolls (XO-1: at most 7).")
    @click.option(f"--{target}", "target", type=WHOLE, help=f"Stateless: the objective's {target.upper()}.")
    @click.option("--roll", "roll_text", metavar="FACES", help="Faces rolled at the table.")
    @click.option("--mod", type=WHOLE, default=0, show_default=True, help="Card modifiers.")
    @click.option("--play", "plays", multiple=True, metavar="CARD", help=f"Session: a {kind} card played (Energy cards to pay for it, a face-up Resource).")
    @click.option("--expect", type=click.Choice(ROLL_OUTCOMES), help="The result the players worked out: checked.")
    @click.option("--discard", "discards", multiple=True, metavar="LEAGUE=N",
                  help="Session: the discards (0-2, XO-10) of the turn this command ends "
                       "(a failed feat, a thwart).")
    @seed_option
    @json_option
    @click.pass_context
    def command(ctx: click.Context, character: tuple[str, ...], dice: int | None, target: int | None,
                roll_text: str | None, mod: int, plays: tuple[str, ...], expect: str | None,
                discards: tuple[str, ...], seed: int | None, as_json: bool, bonus: int = 0) -> None:
        o = {"dice": dice, "target": target, "roll": roll_text, "mod": mod, "expect": expect, "bonus": bonus,
             "plays": plays, "discards": discards}
        if character:
            name = " ".join(character)
            _in_session(ctx, seed, as_json, lambda tx: _session_roll(tx, kind, name, o), roll_text)
        else:
            _stateless(as_json, lambda: _stateless_roll(ctx, seed, kind, o))

    return command


def _stateless_roll(ctx: click.Context, seed: int | None, kind: str, o: dict[str, Any]) -> tuple[Reply, RefereeError | None]:
    from referee.xo import rules

    label = "FCV" if kind == "feat" else "TCV"
    _not_here({"play": o["plays"], "discard": o["discards"]}, "stateless")
    if o["dice"] is None or o["target"] is None:
        raise UsageError(f"missing --dice or --{label.lower()} (or give CHARACTER to play in the session)")
    if o["bonus"] not in (0, rules.THWART_BONUS):
        raise UsageError(f"--bonus {o['bonus']}: the thwart bonus is +{rules.THWART_BONUS} (XO-14); "
                         f"give {rules.THWART_BONUS}, or leave it out")
    roll = _faces(o["roll"], o["dice"], "--roll", _rng(ctx, seed))
    if kind == "feat":
        result = rules.feat(roll, o["target"], mod=o["mod"], bonus=o["bonus"])
    else:
        result = rules.thwart(roll, o["target"], mod=o["mod"])
    verdict = "SUCCESS" if result.success else "FAIL"
    lines = [f"{kind.capitalize()}: {result.total} vs {label} {result.target}: {verdict}", *_step_lines(result.steps)]
    data = result.as_dict()
    wrong = None
    outcome = "success" if result.success else "fail"
    if o["expect"]:
        data["expect"] = {"outcome": o["expect"], "correct": o["expect"] == outcome, "why": result.steps[-1].text}
        if o["expect"] == outcome:
            lines.append(f"Expected {o['expect']}: correct")
        else:
            step = next(s for s in result.steps if s.ruling == ("XO-13" if kind == "feat" else "XO-14"))
            wrong = RefereeError(f"expected {o['expect']}, but the {kind} is a {outcome}: {step.text}", step.ruling)
    return Reply(lines, data), wrong


def _session_roll(tx: Tx, kind: str, name: str, o: dict[str, Any]) -> Reply:
    from referee.xo import play

    _not_here({"dice": o["dice"], ("fcv" if kind == "feat" else "tcv"): o["target"], "bonus": o["bonus"] or None}, "session")
    state = tx.require_game("xo")
    dice = tx.rng(ask=True, note_rolls=True)
    fn = play.feat if kind == "feat" else play.thwart
    counts = discard_counts(state, o["discards"])
    out = fn(state, _cards(tx), name, dice, mod=o["mod"], plays=o["plays"], discards=counts)
    tx.check_entered_faces_used()
    outcome = "success" if out.data["success"] else "fail"
    if o["expect"] and o["expect"] != outcome:
        step = next(s for s in out.steps if s.ruling == ("XO-13" if kind == "feat" else "XO-14") and "roll" in s.text)
        raise RefereeError(f"expected {o['expect']}, but the {kind} is a {outcome}: {step.text}; nothing recorded", step.ruling)
    return _record(tx, kind, out, {"character": name, "plays": list(o["plays"])})


feat = xo.command("feat", help="Attempt a feat (XO-13).\n\n\b\nStateless: feat --dice N --fcv V [--roll F,..] [--mod M] [--bonus B]\nSession:   feat CHARACTER [--roll F,..] [--mod M]")(
    click.option("--bonus", type=WHOLE, default=0, help="Stateless: a thwart bonus (XO-14: +2).")(_roll_command("feat"))
)
thwart = xo.command("thwart", help="Thwart the feat just completed (XO-14).\n\n\b\nStateless: thwart --dice N --tcv V [--roll F,..] [--mod M]\nSession:   thwart CHARACTER [--roll F,..] [--mod M]")(
    _roll_command("thwart")
)


# ── session-only commands ──────────────────────────────────────────────────────
@xo.command()
@click.argument("league")
@click.argument("names", nargs=-1, required=True)
@session_command()
def pick(tx: Tx, league: str, names: tuple[str, ...]) -> Reply:
    """Pick characters for LEAGUE (heroes, villains or the player's name), 7 in all;
    quote names with spaces."""
    from referee.xo import play

    out = play.pick(tx.require_game("xo"), _cards(tx), league, names)
    return _record(tx, "pick", out, {"league": league, "names": list(names)})


@xo.command()
@click.argument("character")
@click.argument("status", nargs=-1, required=True)
@session_command()
def tag(tx: Tx, character: str, status: tuple[str, ...]) -> Reply:
    """Tag CHARACTER with a Status card (as a card instructs)."""
    from referee.xo import play

    out = play.tag(tx.require_game("xo"), _cards(tx), character, " ".join(status))
    return _record(tx, "tag", out, {"character": character, "status": " ".join(status)})


@xo.command()
@click.argument("character")
@click.argument("status", nargs=-1, required=True)
@session_command()
def untag(tx: Tx, character: str, status: tuple[str, ...]) -> Reply:
    """Remove a Status card from CHARACTER (as a card instructs; XO-8)."""
    from referee.xo import play

    out = play.untag(tx.require_game("xo"), _cards(tx), character, " ".join(status))
    return _record(tx, "untag", out, {"character": character, "status": " ".join(status)})


@xo.command("play")
@click.argument("league")
@click.argument("names", nargs=-1, required=True)
@click.option("--on", "character", metavar="CHARACTER", help="The character the card works on.")
@session_command()
def play_command(tx: Tx, league: str, names: tuple[str, ...], character: str | None) -> Reply:
    """LEAGUE (heroes, villains or a player) plays cards outside a roll (timing any):
    Energy cards into the league's Energy pool for this turn, remove or tag statuses,
    draw; a Resource only when face up. Costs are paid from the pool. Quote names with
    spaces."""
    from referee.xo import play

    out = play.play(tx.require_game("xo"), _cards(tx), league, names, character)
    return _record(tx, "play", out, {"league": league, "names": list(names), "on": character})


@xo.command("next")
@click.option("--discard", "discards", multiple=True, metavar="LEAGUE=N",
              help="Card Discard/Draw phase: cards a league discards (0-2, XO-10).")
@session_command()
def next_(tx: Tx, discards: tuple[str, ...]) -> Reply:
    """Advance to the next phase (XO-11) and apply what it does by itself: Status Check
    (XO-8), discard/draw (XO-10), an unthwarted feat winning the chapter (XO-12, XO-14),
    the game end (XO-15)."""
    from referee.xo import play

    state = tx.require_game("xo")
    counts = discard_counts(state, discards)
    out = play.next_phase(state, _cards(tx), counts)
    return _record(tx, "next", out, {"discards": counts})


def discard_counts(state: dict, discards: tuple[str, ...]) -> dict[str, int]:
    """`("heroes=2", "Bob=1")` -> {"heroes": 2, "villains": 1} (XO-10's discards)."""
    from referee.xo import play

    counts: dict[str, int] = {}
    for text in discards:
        league, sep, n = text.partition("=")
        if not sep or natural(n.strip()) is None:
            raise UsageError(f"--discard {text!r}: write LEAGUE=N")
        who = play.league_of(state, league.strip())
        if who in counts:
            raise UsageError(f"--discard {text!r}: the {who}' discard is already given")
        counts[who] = int(n)
    return counts
