"""`referee play` (issue 23 items 1-2): the table's session in one process. On a
pseudo-terminal a whole X-Statix turn with a Mission takes at most 6 typed lines besides
the dice and the table's picks, an XO! turn with one attack and one feat at most 3; fed
from a pipe it plays a whole X-Statix game with the table's own deck; no answer shows a
hand, the deck's order or the seed; another terminal's command beside a waiting `play`
is handled as today."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import ROOT, default_sigint, process_env, run_cli


def referee(session: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`referee --session SESSION ARGS` through the harness, in this process (`play` fed
    from a pipe included: its stdin is `stdin`)."""
    return run_cli("referee", "--session", str(session), *args, input=stdin)


def spawn(session: Path):
    """`referee play` on a pseudo-terminal (a process: the terminal is the point). Ctrl-C is a KeyboardInterrupt there even when
    the test run was started with SIGINT ignored (as a shell's background job is): an
    ignored signal is inherited across exec, and Python then installs no handler."""
    pexpect = pytest.importorskip("pexpect")
    return pexpect.spawn(sys.executable, ["-m", "referee", "--session", str(session), "play"],
                         cwd=str(ROOT), env=process_env(), encoding="utf-8", timeout=30,
                         dimensions=(50, 200), preexec_fn=default_sigint)


def asleep_in_read(child, timeout: float = 30) -> None:
    """Wait until the child sleeps (state S in /proc), as it does in readline's select()
    once a prompt is out. CPython's readline checks for a SIGINT only when that select()
    returns: a Ctrl-C sent between the prompt and the select() would wait for a key. The
    kernel sends no notice of that state: it is read again each millisecond, up to
    `timeout`; without /proc the test cannot know and skips."""
    import time

    stat = Path(f"/proc/{child.pid}/stat")
    if not stat.exists():
        pytest.skip(f"{stat} not found: no way to see the child wait in readline's select()")
    deadline = time.monotonic() + timeout
    while stat.read_text().rsplit(")", 1)[1].split()[0] != "S":
        assert time.monotonic() < deadline, f"the child never waited for a key in {timeout} s"
        time.sleep(0.001)  # a poll of the observable state, not a guess of a duration


DIE = r"\(Enter: the referee (?:rolls|picks)\): "


def drive(child, script: list[tuple[str, str]], until: str) -> int:
    """Answer each prompt matching a pattern of `script` (in order, the first match) until
    `until` shows; dice and picks answered from the script too; typed lines counted: a
    non-empty answer to a question of the walk (not to a die or a pick)."""
    typed = 0
    patterns = [until, DIE, r"\[[a-z]+\] $", r"\(Enter: no\) $", r"> $"]
    answers = list(script)
    while True:
        which = child.expect(patterns)
        if which == 0:
            return typed
        shown = child.before + child.after
        answer = ""
        for i, (pattern, text) in enumerate(answers):
            if re.search(pattern, shown.splitlines()[-1] if shown.splitlines() else shown):
                answer = text
                del answers[i]
                break
        if answer and which != 1:
            typed += 1
        child.sendline(answer)


def test_a_whole_x_statix_turn_with_a_mission_takes_at_most_6_typed_lines(tmp_path):
    session = tmp_path / "xs.db"
    made = referee(session, "new", "x-statix", "--players", "Ann,Bob", "--owner",
                   "Ann=Spike Freeman", "--team", "Ann=X-Statix",
                   "--roll", "5,4,6,3,2,2,5,1,6,2")
    assert made.returncode == 0, made.stderr
    child = spawn(session)
    child.expect_exact("Ann's opportunity phase")
    typed = drive(child, [
        ("Recruit a hero", "dead girl"), ("Recruit roll", "2"),
        ("Recruit a hero", "orbit"), ("Recruit roll", "1"),
        ("Play a Mission", "zombies"), ("Mission roll", "2"), ("Carnage roll", "4"),
        ("Powers against carnage", "healing powers"), ("Carnage casualty", "orbit"),
        ("Sendoff roll", "5"), ("Success roll", "5"), ("Payoff roll", "3 4"),
    ], until="Bob's opportunity phase")
    child.sendline("quit")
    child.expect(r"\$|$")
    assert typed <= 6, typed
    after = referee(session, "status").stdout
    assert "Dead Girl: 2 FT" in after and "turn 2, Bob's" in after, after
    assert "Orbit" not in after  # the casualty of the mission


def test_an_xo_turn_with_an_attack_and_a_feat_takes_at_most_3_typed_lines(tmp_path):
    session = tmp_path / "xo.db"
    assert referee(session, "new", "xo", "--players", "Ann,Bob", "--seed", "5").returncode == 0
    assert referee(session, "xo", "pick", "Ann", "Captain Volt", "Updraft", "Granite Grace",
                   "Hotfoot", "Doctor Lumen", "Commander Halcyon", "Ghostwire").returncode == 0
    assert referee(session, "xo", "pick", "Bob", "Gravelmaw", "Static Jack", "Nightjar",
                   "Madame Rime", "Doctor Null", "Mister Murmur", "Pyra Vex").returncode == 0
    child = spawn(session)
    typed = drive(child, [("attack A D", "attack captain volt static jack"),
                          ("attack A D", "feat captain volt")],
                  until=r"villains \(Bob\) active")
    child.sendline("quit")
    assert typed <= 3, typed
    log = referee(session, "log", "--all").stdout
    assert "attacks Static Jack" in log and "attempts" in log, log


def test_a_command_of_another_terminal_beside_a_waiting_play_is_handled_as_today(tmp_path):
    """`play` waiting at a question holds no lock: another terminal's `mt` runs at once and
    `play` reads the session again; a command waiting at a die holds none either, and is
    refused when the session changed meanwhile (nothing recorded), and the loop goes on."""
    session = tmp_path / "xs.db"
    assert referee(session, "new", "x-statix", "--players", "Ann,Bob", "--owner",
                   "Ann=Spike Freeman", "--roll", "5,4,6,3,2,2,5,1,6,2").returncode == 0
    child = spawn(session)
    child.expect_exact("[pass] ")
    beside = referee(session, "mt", "Bob", "+3")
    assert beside.returncode == 0, beside.stderr
    child.sendline("")
    child.expect_exact("Recruit a hero? [none] ")
    child.sendline("status")
    child.expect_exact("Bob: 13 MT")  # 10 + 3, read again
    child.expect_exact("Recruit a hero? [none] ")
    child.sendline("dead girl")
    child.expect_exact("Recruit roll, 1D6")
    beside = referee(session, "mt", "Bob", "+1")
    assert beside.returncode == 0, beside.stderr
    child.sendline("4")
    child.expect_exact("the session changed while this command waited")
    child.expect_exact("Recruit a hero? [none] ")
    child.sendline("quit")
    assert "Dead Girl" not in referee(session, "status").stdout


def table_deck_names(session: Path) -> list[str]:
    """Every card of the common deck, each as often as it is printed: discards that the
    table's deck can always show (XS-16: a card shown replaces a hidden one)."""
    from referee.command import load_cards

    db = load_cards(None, "x-statix")
    return [c.name for c in db.games["x-statix"].decks["common"].cards
            for _ in range(c.copies)]


def test_fed_from_a_pipe_play_plays_a_whole_x_statix_game_to_its_end(tmp_path):
    """Two players pass every turn with the table's own deck, discarding down to the hand
    limit (Ann's Spike Freeman: 7, Bob's Owner: 5) with cards they name, until the deck
    runs out (XS-13). One
    line a command or an answer; no hand, deck order or seed in the output."""
    session = tmp_path / "game.db"
    made = referee(session, "new", "x-statix", "--players", "Ann,Bob", "--owner",
                   "Ann=Spike Freeman", "--owner", "Bob=Solomon O’Sullivan", "--seed", "424242",
                   "--roll", "5,4,6,3,2,2,5,1,6,2")
    assert made.returncode == 0, made.stderr
    names = iter(table_deck_names(session))
    lines = []
    for turn in range(70):  # each turn: pass the extra draw and recruiting, discard
        many = 3 if turn == 1 else 1  # Bob's first: 8 cards, limit 5
        lines += ["", "", ", ".join(next(names, "") for _ in range(many))]
    fed = referee(session, "play", stdin="\n".join(lines) + "\n")
    assert fed.returncode == 0, fed.stderr[-2000:]
    assert "game over" in fed.stdout, fed.stdout[-3000:]
    assert fed.stdout.count("Game over:") == 1, fed.stdout[-3000:]  # the final table once
    assert "424242" not in fed.stdout and "seed" not in fed.stdout.casefold()
    assert "Traceback" not in fed.stderr
    status = referee(session, "status").stdout
    assert "game over" in status


def test_enter_alone_at_a_question_without_a_default_says_it_needs_an_answer(tmp_path):
    """A discard down to the hand limit (XS-11) has no default (the players hold the cards): Enter
    alone there changes nothing and says so, then the same question is asked again."""
    session = tmp_path / "game.db"
    made = referee(session, "new", "x-statix", "--players", "Ann,Bob", "--owner",
                   "Ann=Spike Freeman", "--owner", "Bob=Solomon O’Sullivan", "--seed", "424242",
                   "--roll", "5,4,6,3,2,2,5,1,6,2")
    assert made.returncode == 0, made.stderr
    name = table_deck_names(session)[0]
    fed = referee(session, "play", stdin=f"\n\n\n{name}\nquit\n")
    assert fed.returncode == 0, fed.stderr
    out = fed.stdout
    said = "play: this question has no default: type the answer (Tab completes the names;"
    assert out.count(said) == 1, out[-3000:]
    asked = re.findall(r"Ann holds \d+ cards \(limit 7\): discard 1 >", out)
    assert len(asked) == 2, out[-3000:]         # asked again after the Enter
    assert out.index(said) < out.rindex(asked[-1]) and f"discards {name}" in out, out[-3000:]


def test_an_answer_reveals_no_hand_deck_order_or_seed(tmp_path):
    """With the referee's own virtual deck (it knows every card): the table, the questions
    and the commands' answers name no card of a hand or of the deck."""
    session = tmp_path / "dealt.db"
    assert referee(session, "new", "x-statix", "--players", "Ann,Bob", "--deal", "referee",
                   "--seed", "77").returncode == 0
    from referee.session import Session

    with Session.open(str(session), write=False) as s:
        state = s.state
    hidden = set(state["table"]["Ann"]["hand"]) | set(state["table"]["Bob"]["hand"])
    hidden |= set(state["deck"][:5])
    fed = referee(session, "play", stdin="status\n\nlog\n\n")
    assert fed.returncode == 0, fed.stderr
    out = fed.stdout
    assert "Extra card" in out and "Recruit a hero" in out
    shown = [name for name in hidden if re.search(rf"\b{re.escape(name)}\b", out)]
    assert not shown, (shown, out)
    assert not re.search(r"\b77\b", out) and "seed" not in out.casefold()


def test_tab_completes_commands_and_names_whole():
    from referee.play.complete import completions

    names = ["Dead Girl", "Dead Girl", "Doop", "Ann"]
    assert completions("dead g", ["xs recruit", "status"], names) == ["Dead Girl"]
    assert completions("xs recruit dead", ["xs recruit"], names) == ['xs recruit "Dead Girl"']
    assert completions("sta", ["status", "xs recruit"], names) == ["status"]


def test_a_mission_roll_above_the_team_asks_instead_of_running_the_carnage(tmp_path):
    """XS-6: with fewer heroes than the Mission roll the mission is not attempted: the walk
    asks (a reroll may be typed), Enter passes; no Carnage roll is refused on the way."""
    session = tmp_path / "xs.db"
    assert referee(session, "new", "x-statix", "--players", "Ann,Bob", "--owner",
                   "Ann=Spike Freeman", "--roll", "5,4,6,3,2,2,5,1,6,2").returncode == 0
    fed = referee(session, "play", stdin="\ndead girl\n2\n\n\n\nzombies\n5\n\n")
    assert fed.returncode == 0, fed.stderr
    assert "2 heroes needed" not in fed.stdout
    assert "5 heroes needed, Ann has 1: the mission is not attempted" in fed.stdout, fed.stdout
    assert "referee:" not in fed.stderr, fed.stderr
    assert "turn 2, Bob's" in referee(session, "status").stdout


def test_a_designers_game_walks_its_declared_phases_by_enter(tmp_path):
    """The table kit (the `pnp init` starter, Harbour Lights, without its rules as data:
    phases Draw, Sail, Storm and the storm die): Enter is `next` through the phases and the
    turns; `roll 3` asks each die by name from the same lines."""
    project = tmp_path / "harbour"
    made = run_cli("pnp", "init", str(project))
    assert made.returncode == 0, made.stderr
    cards = project / "cards.yaml"  # its phases as names only: its rules as data left out
    text = cards.read_text()        # (tests/referee/table/test_rules_as_data.py walks those)
    cards.write_text(text[:text.index("    zones:")] + "    phases: [Draw, Sail, Storm]\n"
                     + text[text.index("    decks:"):])

    def here(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return run_cli("referee", *args, cwd=project, input=stdin)

    assert here("new", "harbour", "--players", "Ann,Bob").returncode == 0
    fed = here("play", stdin="\nroll 3\nwind\nwave\ncalm\n\n\n")
    assert fed.returncode == 0, fed.stderr
    out = fed.stdout
    first = re.search(r"turn 1: (\w+), Draw", out).group(1)
    second = "Bob" if first == "Ann" else "Ann"
    assert f"{first}'s turn, Sail" in out and f"{first}'s turn, Storm" in out, out
    assert "3 storm: wind wave calm" in out, out
    assert f"round 1, turn 2: {second}, Draw" in out, out


def test_tab_completes_a_card_name_and_ctrl_c_cancels_only_the_line(tmp_path):
    """On a terminal: Tab completes `dead g` to `Dead Girl` (readline); Ctrl-C at a
    question cancels the line and asks again (no traceback, nothing run)."""
    pytest.importorskip("readline")
    session = tmp_path / "xs.db"
    assert referee(session, "new", "x-statix", "--players", "Ann,Bob", "--owner",
                   "Ann=Spike Freeman", "--roll", "5,4,6,3,2,2,5,1,6,2").returncode == 0
    child = spawn(session)
    child.expect_exact("[pass] ")
    asleep_in_read(child)
    child.sendintr()
    child.expect_exact("^C")
    child.expect_exact("[pass] ")  # asked again: the phase is still the Opportunity's
    child.sendline("")
    child.expect_exact("Recruit a hero? [none] ")
    child.send("dead g\t")
    child.expect_exact("Dead Girl")
    child.sendline("")
    child.expect_exact("Recruit roll, 1D6")
    child.sendline("3")
    child.expect_exact("changing this roll? [no] ")
    child.sendline("quit")
    child.expect(__import__("pexpect").EOF)
    assert "Traceback" not in child.before
    assert "open roll: Recruit roll 3" in referee(session, "status").stdout  # left open


def xs_state(**turn) -> dict:
    seat = {"mt": 10, "owner": "Coach", "team": "X-Force", "hand": ["?"] * 3, "heroes": []}
    state = {"game": "x-statix", "players": ["Ann", "Bob", "Cy"],
             "table": {p: {**seat, "hand": list(seat["hand"]), "heroes": []}
                       for p in ("Ann", "Bob", "Cy")},
             "deck": ["?"] * 40, "discard": [], "over": False,
             "turn": {"number": 4, "player": "Bob", "phase": "mission", "free_drawn": True,
                      **turn}}
    state["table"]["Bob"]["heroes"] = [{"name": "Orbit", "ft": 1, "marketing": []},
                                       {"name": "Doop", "ft": 1, "marketing": []}]
    return state


def test_the_walk_names_who_may_change_a_roll_in_turn_order_from_the_active_player():
    """XS-14: every player holding a card, from the active one on (Bob, Cy, Ann); a
    player with an empty hand is not named."""
    from referee.play.walk import xs_question

    state = xs_state(phase="recruitment", open={"kind": "recruit", "faces": [3]})
    asked = xs_question(state, None, set())
    assert asked.prompt.startswith("Bob, Cy or Ann changing this roll?"), asked.prompt
    assert asked.enter == ["xs", "pay"]  # Enter: nobody, paid at once
    state["table"]["Cy"]["hand"] = []
    assert xs_question(state, None, set()).prompt.startswith("Bob or Ann changing")


def test_the_walk_asks_once_per_carnage_roll_then_the_powers_then_chosen_casualties():
    """A Carnage roll: "changing this roll?" once (Enter moves on), then powers against it;
    after Ratings Bonanza (choose_casualties) the casualties chosen, both in one command.
    A Carnage roll of 0 after modifiers has no casualty step to decide: it runs itself."""
    from referee.play.walk import Question, xs_question

    roll = {"kind": "carnage", "faces": [4], "total": 3}
    state = xs_state(choose_casualties=True, mission={
        "card": "Zombies", "stage": "carnage", "rolls": {"carnage": roll}})
    answered: set = set()
    first = xs_question(state, None, answered)
    assert "changing this roll? (Enter: no)" in first.prompt and first.enter is None
    answered.add(first.once)
    powers = xs_question(state, None, answered)
    assert powers.prompt == "Powers against carnage? [none]"
    follow = powers.answer("Healing Powers")
    assert isinstance(follow, Question) and "Casualties chosen" in follow.prompt
    assert follow.answer("doop, orbit") == ["xs", "casualties", "--power", "Healing Powers",
                                            "--choose", "Doop", "--choose", "Orbit"]
    state["turn"]["mission"]["rolls"]["carnage"] = {**roll, "total": 0}
    answered.add((4, "carnage", (4,), 0))
    auto = xs_question(state, None, answered)
    assert auto.auto and auto.enter == ["xs", "casualties"]


def test_the_walk_asks_nothing_a_player_with_an_empty_hand_could_answer():
    """Only what the rules need: with no card in hand there is nothing to recruit, attach,
    play as a Mission or as a Power against carnage: those steps run by themselves."""
    from referee.play.walk import xs_question

    for phase in ("recruitment", "publicity", "mission"):
        state = xs_state(phase=phase)
        assert not xs_question(state, None, set()).auto, phase
        state["table"]["Bob"]["hand"] = []
        asked = xs_question(state, None, set())
        assert asked.auto and asked.enter == ["xs", "pass"], phase
    state = xs_state(mission={"card": "Zombies", "stage": "carnage",
                              "rolls": {"carnage": {"kind": "carnage", "faces": [5], "total": 5}}})
    state["table"]["Bob"]["hand"] = []
    answered = {(4, "carnage", (5,), 5)}
    asked = xs_question(state, None, answered)
    assert asked.auto and asked.enter == ["xs", "casualties"]
