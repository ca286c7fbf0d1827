"""The X-Statix referee through its command line: a scripted 3-player game played to the
end of the deck, refusals with their exit codes, and the log telling the story."""

from __future__ import annotations

import json
import re
import sys

import pytest

from tests.referee.xs.xs_support import Table, play_turn, referee, true_state, without_clock


def test_scripted_three_player_game_runs_to_the_end_of_the_deck(whole_game, cat):
    t = whole_game
    session = t.session
    assert t.state["deck"] == []
    assert t.state["winner"] and set(t.state["winner"]) <= {"Ann", "Bo", "Cy"}
    ranking = t.state["ranking"]
    assert [r["mt"] for r in ranking] == sorted((r["mt"] for r in ranking), reverse=True)
    assert {"draw", "recruit", "attach", "mission", "carnage", "casualties", "success",
            "payoff", "next", "pass", "pay", "event", "discard", "kill", "adjust", "reroll",
            "boost"} <= t.kinds
    # every card is somewhere exactly once: hands, heroes, marketing, discard, deck
    seen = list(t.state["discard"]) + list(t.state["deck"])
    for seat in t.state["table"].values():
        seen += seat["hand"]
        for hero in seat["heroes"]:
            seen += [hero["name"], *hero["marketing"]]
    assert sorted(seen) == sorted(c for c in cat.names("Hero") + cat.names("Power")
                                  + cat.names("Mission") + cat.names("Marketing"))

    log = referee("--session", str(session), "log")
    assert log.returncode == 0, log.stderr
    story = log.stdout
    assert "goes first (XS-1)" in story and "Recruit roll" in story
    assert "Carnage roll" in story and "Payoff roll" in story and "Fortune:" in story
    assert "the deck is empty: the game ends" in story
    assert f"winner: {' and '.join(t.state['winner'])}" in story
    status = referee("--session", str(session), "status")
    assert "Game over" in status.stdout and "1. " in status.stdout


@pytest.fixture
def game(tmp_path):
    session = str(tmp_path / "g.db")
    proc = referee("--session", session, "new", "x-statix", "--deal", "referee", "--players", "A,B",
                             "--seed", "5", "--owner", "A=Coach", "--team", "A=X-Force")
    assert proc.returncode == 0, proc.stderr
    return session


def test_cli_refusals_are_one_line_with_the_ruling_and_change_nothing(game):
    status = referee("--session", game, "status").stdout
    first = "A" if "*A:" in status else "B"
    other = "B" if first == "A" else "A"
    wrong = referee("--session", game, "xs", "draw", "--player", other)
    assert wrong.returncode == 1 and wrong.stderr.count("\n") == 1
    assert "it is" in wrong.stderr and "(XS-1)" in wrong.stderr
    bad_face = referee("--session", game, "xs", "draw", "--roll", "7")
    assert bad_face.returncode == 2 and "--roll" in bad_face.stderr
    before_free_draw = referee("--session", game, "xs", "pass")
    assert before_free_draw.returncode == 1 and "xs draw (XS-3)" in before_free_draw.stderr
    def table(text: str) -> list[str]:  # the clock line moves on meanwhile (issue 32)
        return [line for line in text.splitlines() if not line.startswith("clock: ")]

    assert table(referee("--session", game, "status").stdout) == table(status)
    assert referee("--session", game, "xs", "draw").returncode == 0
    out_of_phase = referee("--session", game, "xs", "carnage")
    assert out_of_phase.returncode == 1 and "(XS-6)" in out_of_phase.stderr
    again = referee("--session", game, "xs", "draw")  # not a paid draw by accident
    assert again.returncode == 1 and "xs draw --extra (or xs buy)" in again.stderr


def test_cli_turn_and_json(game):
    draw = referee("--session", game, "xs", "draw", "--json")
    assert draw.returncode == 0, draw.stderr
    reply = json.loads(draw.stdout)
    assert reply["ok"] and reply["steps"][0]["ruling"] == "XS-3"
    mt = reply["state"]["table"][reply["state"]["turn"]["player"]]["mt"]
    bought = referee("--session", game, "xs", "draw", "--extra", "--roll", "2", "--json")
    assert bought.returncode == 0, bought.stderr
    reply = json.loads(bought.stdout)
    assert reply["state"]["turn"]["open"]["total"] == 2  # B holds cards: open till the next action
    passed = referee("--session", game, "xs", "pass", "--json")
    assert passed.returncode == 0 and "recruitment phase" in passed.stdout
    reply = json.loads(passed.stdout)
    assert reply["state"]["table"][reply["state"]["turn"]["player"]]["mt"] == mt - 2
    me = reply["state"]["turn"]["player"]
    hand = referee("--session", game, "xs", "hand", "--player", me, "--json")
    assert len(json.loads(hand.stdout)["hand"]) == 9 == reply["state"]["table"][me]["hand"]
    anyone = referee("--session", game, "xs", "hand")  # whose? say it (XS-16)
    assert anyone.returncode == 2 and "--player" in anyone.stderr


def test_cli_undo_takes_back_an_xs_command(game):
    before = json.loads(referee("--session", game, "status", "--json").stdout)["state"]
    draw = referee("--session", game, "xs", "draw", "--json")
    assert draw.returncode == 0
    undo = referee("--session", game, "undo")
    assert undo.returncode == 0, undo.stderr
    after = json.loads(referee("--session", game, "status", "--json").stdout)["state"]
    assert after == before


def test_cli_a_stolen_card_is_shown_as_the_card_taken_not_as_the_thieves_hand(tmp_path):
    session = str(tmp_path / "steal.db")
    # seed 13: A goes first holding Chameleon Powers (and six more cards)
    assert referee("--session", session, "new", "x-statix", "--deal", "referee", "--players", "A,B",
                             "--seed", "13").returncode == 0
    assert referee("--session", session, "xs", "draw").returncode == 0
    hand = {"state": true_state(session)}
    assert "Chameleon Powers" in hand["state"]["table"]["A"]["hand"]
    steal = referee("--session", session, "xs", "event", "Chameleon Powers")
    assert steal.returncode == 0, steal.stderr
    seen = [line for line in steal.stdout.splitlines() if line.startswith("seen")]
    taken = {"state": true_state(session)}
    stolen = (set(hand["state"]["table"]["B"]["hand"]) - set(taken["state"]["table"]["B"]["hand"])).pop()
    assert seen == [f"seen by A only: A takes {stolen}"]


def test_fair_dice_undo_and_the_same_command_rolls_the_same_dice(game):
    """Issue 14 item 4: a command's referee dice follow the game's state and the command,
    not the log's length: `undo` then the same command gives the same roll."""
    assert referee("--session", game, "xs", "draw").returncode == 0  # the free card
    rolled = []
    for _ in range(3):
        bought = referee("--session", game, "xs", "buy", "--json")
        assert bought.returncode == 0, bought.stderr
        rolled.append([s["text"] for s in json.loads(bought.stdout)["steps"]])
        assert referee("--session", game, "undo").returncode == 0
    assert rolled[0] == rolled[1] == rolled[2] and "Opportunity roll" in rolled[0][0]
    again = referee("--session", game, "xs", "draw", "--seed", "4")
    assert again.returncode == 2 and "--seed" in again.stderr


def test_xs16_no_hand_content_or_deck_order_in_status_or_log_of_a_referee_dealt_game(tmp_path,
                                                                                    cat):
    """Issue 14 item 2: `status`, `status --json`, `log`, `log --json` show hands and the
    deck as counts: no card that has only ever been in a hand or the deck is named."""
    import re

    from referee.session import Session

    session = tmp_path / "private.db"
    new = referee("--session", str(session), "new", "x-statix", "--deal", "referee",
                            "--players", "Ann,Bo,Cy", "--seed", "2", "--json")
    assert new.returncode == 0
    t = Table(session, cat)
    t.state = true_state(session)
    outputs = [new.stdout]
    for _ in range(7):
        play_turn(t)
        for args in (["status"], ["status", "--json"], ["log"], ["log", "--json"]):
            proc = referee("--session", str(session), *args)
            assert proc.returncode == 0
            outputs.append(proc.stdout)
    shown = json.loads(referee("--session", str(session), "status", "--json").stdout)
    assert "seed" not in shown["state"] and isinstance(shown["state"]["deck"], int)
    assert all(isinstance(seat["hand"], int) for seat in shown["state"]["table"].values())
    with Session.open(session, write=False) as s:
        states = [state for _, state in s.log(with_states=True)]
    ever_public = set()
    for state in states:
        ever_public |= set(state["discard"])
        for seat in state["table"].values():
            ever_public |= {seat["owner"], seat["team"]}
            for hero in seat["heroes"]:
                ever_public |= {hero["name"], *hero["marketing"]}
        mission = (state["turn"].get("mission") or {}).get("card")
        ever_public |= {mission} if mission else set()
    final = states[-1]
    hidden = set(final["deck"]) | {c for seat in final["table"].values() for c in seat["hand"]}
    never_shown = hidden - ever_public
    assert len(never_shown) > 20 and len(final["deck"]) > 5
    text = "\n".join(outputs)
    leaked = [c for c in never_shown if re.search(rf"(?<![\w']){re.escape(c)}(?![\w'])", text)]
    assert leaked == []


class OwnDeck(Table):
    """The players with their own printed deck (XS-16): they shuffle and deal it here,
    draw from it when the referee counts a draw, and name each card as they show it. The
    referee's state holds only counts and the cards shown."""

    def __init__(self, session, cat, players, seed):
        import random

        super().__init__(session, cat)
        self.deck = [c for c in cat.names() if cat.copies(c)]
        random.Random(seed).shuffle(self.deck)
        self.hands = {p: [] for p in players}
        for _ in range(7):
            for p in players:
                self.hands[p].append(self.deck.pop(0))
        self.refused: dict[str, str] = {}
        self.picks = random.Random(1)  # the table's own random picks (XS-16)

    def held(self) -> list[str]:
        return list(self.hands[self.me])

    def run(self, *args: str, expect: int = 0) -> dict:
        if args[:2] == ("xs", "casualties") and expect == 0:
            args = self.picked_at_the_table(args)
        reply = super().run(*args, expect=expect)
        if expect == 0:
            self.sync()
        return reply

    def picked_at_the_table(self, args: tuple[str, ...]) -> tuple[str, ...]:
        """XS-16: the table makes each random casualty pick itself. Without a terminal the
        referee refuses (exit 2, nothing changed) naming the next pick needed and its
        options; the table picks one and gives it with --picked, until the command passes
        (then undone, to be played for real: the same state and command, the same dice)."""
        while True:
            proc = referee("--session", self.session, *args, "--json")
            if proc.returncode == 0:
                undo = referee("--session", self.session, "undo")
                assert undo.returncode == 0, undo.stderr
                return args
            error = json.loads(proc.stdout)["error"]
            found = re.search(r"the next pick needed: Carnage casualty[^,]*, one of (.*?); ",
                              error)
            assert proc.returncode == 2 and found, (args, error)
            args = (*args, "--picked", self.picks.choice(found.group(1).split(", ")))

    def sync(self) -> None:
        """Follow the referee's counts with the physical cards: a card shown in play or
        on the discard pile has left its hand, one named in another hand moved there, and
        each card more in a hand's count is drawn from the top of the deck."""
        state = self.state
        public = set(state["discard"])
        for seat in state["table"].values():
            for hero in seat["heroes"]:
                public |= {hero["name"], *hero["marketing"]}
        mission = state["turn"].get("mission")
        if mission and not mission.get("discarded"):
            public.add(mission["card"])
        named = {p: [c for c in state["table"][p]["hand"] if c != "?"] for p in self.hands}
        for p, hand in self.hands.items():
            elsewhere = {c for q, cards in named.items() if q != p for c in cards}
            hand[:] = [c for c in hand if c not in public and c not in elsewhere]
            hand += [c for c in named[p] if c not in hand]
            while len(hand) < len(state["table"][p]["hand"]):
                hand.append(self.deck.pop(0))
            assert len(hand) == len(state["table"][p]["hand"]), (p, hand, state["table"][p])
        assert len(self.deck) == len(state["deck"])

    def try_refusals(self) -> None:
        """Slips the referee must catch, each refused (exit 1) with nothing changed."""
        others = [h["name"] for p, seat in self.state["table"].items() if p != self.me
                  for h in seat["heroes"]]
        if (self.phase() == "recruitment" and others and "in play" not in self.refused
                and not self.state["turn"].get("open")):
            reply = self.xs("recruit", others[0], expect=1)
            self.refused["in play"] = reply["error"]
        gone = [c for c in self.state["discard"] if self.cat.type(c) == "Marketing"]
        heroes = self.seat()["heroes"]
        if (self.phase() == "publicity" and gone and heroes and "copy" not in self.refused
                and not self.state["turn"].get("open")):
            reply = self.xs("attach", gone[0], heroes[0]["name"], expect=1)
            self.refused["copy"] = reply["error"]


def test_xs16_a_three_player_game_with_the_tables_own_deck_runs_to_the_end(tmp_path, cat):
    """Issue 14 item 1: `new x-statix` (table deck, the default) played through the CLI to
    XS-13's end; each draw counted, each card named when shown; the referee refuses a
    card already in play and a second copy of a unique card (the fourth card named from a
    hand of three: the next test)."""
    session = tmp_path / "own.db"
    new = referee("--session", str(session), "new", "x-statix", "--players",
                          "Ann,Bo,Cy", "--seed", "5", "--json")
    assert new.returncode == 0, new.stderr
    shown = json.loads(new.stdout)["state"]
    assert shown["deal"] == "table" and shown["table"]["Ann"]["hand"] == 7
    t = OwnDeck(session, cat, ["Ann", "Bo", "Cy"], seed=5)
    t.state = true_state(session)
    assert t.state["deck"] == ["?"] * len(t.deck)
    original = play_turn.__globals__["Table"]
    turns = 0
    while not t.state["over"]:
        turn_with_checks(t)
        turns += 1
        assert turns < 200
    assert original is Table
    assert t.state["deck"] == [] and t.deck == [] and t.state["winner"]
    assert {"draw", "recruit", "attach", "mission", "carnage", "casualties", "success",
            "next", "pass", "pay", "discard"} <= t.kinds
    assert "in play on" in t.refused["in play"]
    assert "cannot be in" in t.refused["copy"] and "discard pile" in t.refused["copy"]
    log = referee("--session", str(session), "log").stdout
    assert "the players deal their own deck" in log and "the deck is empty: the game ends" in log


def turn_with_checks(t: OwnDeck) -> None:
    """`play_turn`, with the slips tried at each phase they fit."""
    original = t.run

    def run(*args, expect=0):
        reply = original(*args, expect=expect)
        if expect == 0 and not t.state["over"]:
            t.try_refusals()
        return reply

    t.run = run
    try:
        play_turn(t)
    finally:
        t.run = original


def test_xs16_a_fourth_card_named_from_a_hand_of_three_is_refused(tmp_path):
    session = str(tmp_path / "three.db")

    def xs(*args, expect=0):
        proc = referee("--session", session, "xs", *args)
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
        return proc

    new = referee("--session", session, "new", "x-statix", "--players", "A,B",
                            "--owner", "A=Coach", "--team", "A=X-Force",
                            "--roll", "6,6,6,6,6,6,6,6,6,5")
    assert new.returncode == 0, new.stderr
    xs("draw")  # 8 cards
    xs("pass")
    for hero in ("Ocelot", "Phat", "Dead Girl", "Lacuna"):  # named as they are recruited
        xs("recruit", hero, "--roll", "1")
    xs("pass")
    xs("pass")
    xs("mission", "Zombies", "--roll", "1")
    xs("carnage", "--roll", "6")
    hand = json.loads(referee("--session", session, "xs", "hand", "--player", "A",
                                        "--json").stdout)
    assert hand["count"] == 3 and hand["hand"] == []
    before = without_clock(referee("--session", session, "status", "--json").stdout)
    refused = xs("casualties", "--power", "Energy Blasts", "--power", "Flight", "--power",
                 "Teleportation", "--power", "Shockwave", expect=1)
    assert ("A holds 3 cards, all named already: Energy Blasts, Flight, Teleportation; "
            "Shockwave would be one more (XS-7)") in refused.stderr
    assert without_clock(referee("--session", session, "status",
                                           "--json").stdout) == before


def test_dice_as_they_fall_casualties_asks_each_die_by_name_on_a_terminal(tmp_path):
    """Issue 14 item 3: on a terminal `xs casualties` asks for each die by name, in the
    order the rules need them; the number of dice depends on the dice (Smoke surviving
    skips his Sendoff roll); Enter lets the referee roll that die. Without a terminal,
    --roll with too few faces exits 2 naming the next die and changes nothing."""
    import pexpect

    from tests.harness import ROOT, process_env

    session = str(tmp_path / "dice.db")

    def xs(*args, expect=0):
        proc = referee("--session", session, *args)
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
        return proc

    xs("new", "x-statix", "--players", "A,B", "--owner", "A=Coach", "--team", "A=X-Force",
       "--roll", "6,6,6,6,6,6,6,6,6,5")
    for args in (["draw"], ["pass"], ["recruit", "Smoke", "--roll", "1"],
                 ["recruit", "Ocelot", "--roll", "1"], ["pass"], ["pass"],
                 ["mission", "Zombies", "--roll", "1"], ["carnage", "--roll", "1"]):
        xs("xs", *args)

    def at_terminal(*answers: str) -> str:
        # a process: the questions on a terminal (a pty) are the point
        child = pexpect.spawn(sys.executable, ["-m", "referee", "--session", session, "xs",
                                               "casualties", "--picked", "Smoke"],
                              cwd=str(ROOT), env=process_env(), encoding="utf-8", timeout=30)
        for prompt, answer in answers:
            child.expect_exact(prompt)
            child.sendline(answer)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0, child.before
        return child.before

    survival = "Smoke's survival roll, 1D6 (Enter: the referee rolls):"
    sendoff = "Smoke's Sendoff roll, 1D6 (Enter: the referee rolls):"
    lives = at_terminal((survival, "6"))  # one die: he lives, no Sendoff roll
    assert "Smoke lives on a roll of 6" in lives and "Sendoff" not in lives
    xs("undo")
    dies = at_terminal((survival, "2"), (sendoff, ""))  # two dice: the second the referee's
    assert "Smoke dies on a roll of 2" in dies
    # said once, under its prompt, not again in the reply
    assert len(re.findall(r"the referee rolls [1-6] for Smoke's Sendoff roll, 1D6", dies)) == 1
    xs("undo")
    before = without_clock(xs("status", "--json").stdout)
    short = xs("xs", "casualties", "--picked", "Smoke", "--roll", "2", expect=2)
    assert "the next die needed: Smoke's Sendoff roll, 1D6" in short.stderr
    assert without_clock(xs("status", "--json").stdout) == before


def test_a_command_waiting_at_a_dice_prompt_holds_no_write_lock(tmp_path):
    """The same way as XO!'s (core's Tx.rng lets go of the write lock before asking):
    while `xs casualties` waits for Smoke's survival roll on a terminal, `referee undo`
    on the same session completes at once; the waiting command then records nothing."""
    import time

    import pexpect

    from tests.harness import ROOT, process_env

    session = str(tmp_path / "dice.db")
    referee("--session", session, "new", "x-statix", "--players", "A,B", "--owner", "A=Coach",
                      "--team", "A=X-Force", "--roll", "6,6,6,6,6,6,6,6,6,5")
    for args in (["draw"], ["pass"], ["recruit", "Smoke", "--roll", "1"],
                 ["recruit", "Ocelot", "--roll", "1"], ["pass"], ["pass"],
                 ["mission", "Zombies", "--roll", "1"], ["carnage", "--roll", "1"]):
        assert referee("--session", session, "xs", *args).returncode == 0
    # a process on a terminal (a pty): the point is a command waiting at its prompt
    child = pexpect.spawn(sys.executable, ["-m", "referee", "--session", session, "xs", "casualties",
                                           "--picked", "Smoke"],
                          cwd=str(ROOT), env=process_env(), encoding="utf-8", timeout=30)
    child.expect_exact("Smoke's survival roll, 1D6 (Enter: the referee rolls):")
    start = time.monotonic()
    other = referee("--session", session, "undo")  # here, beside the waiting process
    waited = time.monotonic() - start
    assert other.returncode == 0, other.stderr
    assert waited < 10, f"undo waited {waited:.1f} s for the lock"  # busy timeout: 30 s
    child.sendline("6")
    child.expect_exact("the session changed while this command waited")
    child.expect_exact("with the dice rolled: --roll ")  # issue 23: retyped with --roll
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    kinds = [e["kind"] for e in json.loads(referee("--session", session, "log", "--json").stdout)["events"]]
    assert kinds[-1] == "undo"
