"""`referee play`'s X-Statix walk (issue 31 items 1 and 5), driven in-process as a pipe
drives it (`referee.play.loop.Table` reading the table's lines): every roll asked about
before the walk goes on (XS-14), Ratings Bonanza's casualties chosen after Enter, U-Go
Girl's switch offered once the casualty is picked, one Coach kill, card names without
quotes, one undo for a command and its payment, The Orphan named at the roll question,
`1` buying nothing; and a refused command changing nothing, not even an open roll."""

from __future__ import annotations

import json

import pytest

from referee.play.loop import Table
from tests.referee.xs.xs_support import referee

# Ann (Spike Freeman, X-Statix) goes first; the table's own deck (hands hidden, XS-16)
SETUP = ("--players", "Ann,Bob", "--owner", "Ann=Spike Freeman", "--team", "Ann=X-Statix",
         "--roll", "5,4,6,3,2,2,5,1,6,2")


def game(tmp_path, *commands: tuple[str, ...], owner: str = "Spike Freeman") -> str:
    session = str(tmp_path / "xs.db")
    setup = [a.replace("Spike Freeman", owner) for a in SETUP]
    assert referee("--session", session, "new", "x-statix", *setup).returncode == 0
    for args in commands:
        done = referee("--session", session, *args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return session


def at_the_mission(tmp_path, *heroes: str, owner: str = "Spike Freeman") -> str:
    """Ann's turn 1 at the Mission phase with `heroes` recruited (1 MT each)."""
    recruits = [c for h in heroes for c in (("xs", "recruit", h, "--roll", "1"), ("xs", "pay"))]
    return game(tmp_path, ("xs", "draw"), ("xs", "pass"), *recruits, ("xs", "pass"),
                ("xs", "pass"), owner=owner)


def walk(session: str, lines: list[str], capsys) -> str:
    """The transcript of `referee play` fed `lines` (then the end of the input)."""
    capsys.readouterr()
    Table(session, None, iter(line + "\n" for line in lines)).play()
    out = capsys.readouterr()
    return out.out + out.err


def state(session: str) -> dict:
    return json.loads(referee("--session", session, "status", "--json").stdout)["state"]


def in_order(text: str, *parts: str) -> None:
    at = 0
    for part in parts:
        found = text.find(part, at)
        assert found >= 0, (part, text[at:])
        at = found + len(part)


def test_xs14_the_walk_asks_about_the_mission_and_the_payoff_roll_before_going_on(tmp_path, capsys):
    """Flight on a Mission roll, Freeze Time on an opponent's Payoff: the walk asks after
    each roll whether anyone changes it, before the Carnage roll and before the phase
    ends; Bob's Freeze Time rerolls both dice of the Payoff (XS-20), Ann's MT corrected."""
    session = at_the_mission(tmp_path, "Dead Girl", "Orbit")
    out = walk(session, ["zombies", "1", "", "2", "", "", "orbit", "1", "6", "", "3 4",
                         "reroll freeze time --player Bob", "1 1", ""], capsys)
    in_order(out, "Mission roll 1: 1 hero needed", "changing this roll? (Enter: no)",
             "Carnage roll", "Payoff roll 3+4", "changing this roll? (Enter: no)",
             "Freeze Time rerolls the Payoff roll (3+4 -> 1+1)", "Payoff roll changed",
             "ends the mission phase")
    assert "Traceback" not in out
    # 16, Orbit's Sendoff 1+1 (X-Statix), the Payoff 2 after Freeze Time, Fortune 2 (XS-10)
    assert state(session)["table"]["Ann"]["mt"] == 16 + 2 + 2 + 2


def test_ratings_bonanza_enter_at_the_powers_still_asks_the_casualties_chosen(tmp_path, capsys):
    session = at_the_mission(tmp_path, "Dead Girl", "Orbit", "Phat")
    out = walk(session, ["zombies", "1", "", "2", "event ratings bonanza", "", "", "orbit",
                         "2", "quit"], capsys)
    in_order(out, "Ann discards Ratings Bonanza", "Powers against carnage? [none]",
             "Casualties chosen, in order (Ratings Bonanza)? [random] orbit",
             "Orbit chosen as the casualty")
    assert "Carnage casualty" not in out  # not picked at random
    heroes = [h["name"] for h in state(session)["table"]["Ann"]["heroes"]]
    assert heroes == ["Dead Girl", "Phat"]


def test_u_go_girl_switch_is_offered_once_the_casualty_is_picked(tmp_path, capsys):
    session = at_the_mission(tmp_path, "U-Go Girl", "Dead Girl", "Orbit")
    out = walk(session, ["zombies", "1", "", "2", "", "", "orbit", "y", "4", "quit"], capsys)
    in_order(out, "Carnage casualty, one of", "U-Go Girl takes Orbit's place as the casualty? "
             "(y, or Enter: no): y", "U-Go Girl takes Orbit's place as the casualty (XS-7)")
    heroes = [h["name"] for h in state(session)["table"]["Ann"]["heroes"]]
    assert heroes == ["Dead Girl", "Orbit"]


def test_u_go_girl_switch_declined_with_enter(tmp_path, capsys):
    session = at_the_mission(tmp_path, "U-Go Girl", "Dead Girl", "Orbit")
    out = walk(session, ["zombies", "1", "", "2", "", "", "orbit", "", "4", "quit"], capsys)
    assert "takes Orbit's place as the casualty (XS-7)" not in out
    heroes = [h["name"] for h in state(session)["table"]["Ann"]["heroes"]]
    assert heroes == ["U-Go Girl", "Dead Girl"]


def test_after_a_coach_kill_the_kill_is_not_asked_again(tmp_path, capsys):
    session = at_the_mission(tmp_path, "Dead Girl", "Orbit", owner="Coach")
    out = walk(session, ["", "zombies", "orbit", "4", "", ""], capsys)
    in_order(out, "Kill a team member for 1D6 MT? [none] orbit", "Coach: 1D6 = 4",
             "xs next", "turn 2")
    assert out.count("Kill a team member") == 1
    assert "referee:" not in out


def test_card_names_of_several_words_need_no_quotes(tmp_path):
    """`xs recruit Dead Girl` as typed at a table; options take several words too."""
    session = game(tmp_path, ("xs", "draw"), ("xs", "pass"),
                   ("xs", "recruit", "dead", "girl", "--roll", "1"), ("xs", "pay"),
                   ("xs", "recruit", "Orbit", "--roll", "1"), ("xs", "pay"), ("xs", "pass"),
                   ("xs", "attach", "Movies", "dead", "girl", "--roll", "1"), ("xs", "pay"),
                   ("xs", "mission", "mysterious", "fan", "boy", "--roll", "1"),
                   ("xs", "carnage", "--roll", "3"))
    done = referee("--session", session, "xs", "casualties", "--power", "healing",
                             "powers", "--picked", "dead", "girl", "--roll", "1")
    assert done.returncode == 0, done.stderr
    assert "Healing Powers discarded: negates 2 carnage points" in done.stdout
    assert "random casualty (picked at the table): Dead Girl" in done.stdout
    seat = state(session)["table"]["Ann"]
    assert [h["name"] for h in seat["heroes"]] == ["Orbit"]


def test_an_attach_of_names_that_cut_two_ways_says_to_quote_them(tmp_path):
    session = game(tmp_path, ("xs", "draw"), ("xs", "pass"),
                   ("xs", "recruit", "Dead Girl", "--roll", "1"), ("xs", "pay"), ("xs", "pass"))
    before = open(session, "rb").read()
    done = referee("--session", session, "xs", "attach", "nothing", "known", "here")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert 'each in quotes: xs attach "CARD" "HERO"' in done.stderr
    assert open(session, "rb").read() == before


def test_one_undo_takes_back_a_recruit_and_its_payment(tmp_path, capsys):
    session = game(tmp_path, ("xs", "draw"), ("xs", "pass"))
    out = walk(session, ["dead girl", "3", "", "undo", "quit"], capsys)
    assert "Dead Girl joins Ann's team" in out
    after = state(session)
    assert after["table"]["Ann"]["heroes"] == [] and after["table"]["Ann"]["mt"] == 18
    assert after["turn"]["open"] is None and after["turn"]["phase"] == "recruitment"


def test_the_roll_question_names_the_active_players_own_reroll_hero(tmp_path, capsys):
    session = game(tmp_path, ("xs", "draw"), ("xs", "pass"),
                   ("xs", "recruit", "The Orphan", "--roll", "1"), ("xs", "pay"))
    out = walk(session, ["dead girl", "3", "quit"], capsys)
    assert "Ann (The Orphan) or Bob changing this roll? [no]" in out, out


def test_typing_1_at_extra_card_buys_nothing(tmp_path, capsys):
    session = game(tmp_path)
    out = walk(session, ["1", "quit"], capsys)
    assert "Extra card for an Opportunity roll 1D6 MT? [pass] 1" in out
    assert "Opportunity roll 1D6 MT? [pass] 1\nplay: '1': type a command" in out
    assert "pays" not in out
    assert state(session)["table"]["Ann"]["hand"] == 8  # 7 and the free card


def test_a_refused_recruit_does_not_pay_the_open_roll_of_the_one_before(tmp_path):
    """Issue 31 item 5: `xs recruit Lacuna` refused (Lacuna is in play) leaves the open
    Recruit roll of Dead Girl open and unpaid: one line, exit 1, the bytes unchanged."""
    session = game(tmp_path, ("xs", "draw"), ("xs", "pass"),
                   ("xs", "recruit", "Lacuna", "--roll", "1"), ("xs", "pay"),
                   ("xs", "recruit", "Dead Girl", "--roll", "3"))
    before = open(session, "rb").read()
    done = referee("--session", session, "xs", "recruit", "Lacuna", "--roll", "2")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Lacuna" in done.stderr
    assert open(session, "rb").read() == before
    after = state(session)
    assert [h["name"] for h in after["table"]["Ann"]["heroes"]] == ["Lacuna"]
    assert after["turn"]["open"]["total"] == 3


@pytest.mark.parametrize("command", [("xs", "kill", "Lacuna"), ("xs", "draw", "--extra"),
                                     ("xs", "recruit", "Lacuna")])
def test_no_refusal_pays_an_open_roll(tmp_path, command):
    session = game(tmp_path, ("xs", "draw"), ("xs", "pass"),
                   ("xs", "recruit", "Lacuna", "--roll", "3"))
    before = open(session, "rb").read()
    done = referee("--session", session, *command)
    assert done.returncode in (1, 2) and done.stdout == "" and done.stderr.count("\n") == 1
    assert open(session, "rb").read() == before


def test_xs19_the_card_bloke_drew_is_played_on_the_mission_roll_at_the_walk(tmp_path, capsys):
    """Bloke's card, drawn before the Mission roll, may be played on it: the walk asks
    before the Carnage roll (XS-14) and the card shown is Flight."""
    session = at_the_mission(tmp_path, "Bloke", "Ocelot")
    out = walk(session, ["zombies", "2", "event flight", "1", "quit"], capsys)
    in_order(out, "Bloke at the start of the mission: Ann draws 1 card",
             "Mission roll 2: 2 heroes needed, Ann has 2", "changing this roll? (Enter: no) "
             "event flight", "Flight rerolls the Mission roll (2 -> 1)")


def test_an_event_and_fame_tokens_take_names_of_several_words_too(tmp_path):
    session = at_the_mission(tmp_path, "Dead Girl")
    done = referee("--session", session, "xs", "event", "popularity", "ratings",
                             "--hero", "dead", "girl")
    assert done.returncode == 0, done.stderr
    assert "Popularity Ratings: Dead Girl (Ann) gains 1 FT (now 2)" in done.stdout
    done = referee("--session", session, "ft", "Dead", "Girl", "-1")
    assert done.returncode == 0, done.stderr
    assert "Dead Girl (Ann) FT -1: 2 -> 1" in done.stdout


def test_quoted_names_after_an_option_read_as_before(tmp_path):
    """The words after `--hero` join it only once the command's own name is given: a
    quoted card after the option is still the card; `--player` never takes more words."""
    session = at_the_mission(tmp_path, "Dead Girl")
    done = referee("--session", session, "xs", "event", "--player", "Ann", "--hero",
                             "Dead Girl", "Popularity Ratings")
    assert done.returncode == 0, done.stderr
    assert "Popularity Ratings: Dead Girl (Ann) gains 1 FT (now 2)" in done.stdout
