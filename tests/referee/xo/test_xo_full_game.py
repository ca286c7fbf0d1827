"""A scripted full game of XO! through the CLI in a session, every roll fixed, to the
winner (XO-15); then `referee log` tells the story and `referee status` the table.

Runs in this process through the harness (dozens of commands; a subprocess each would be
slow), on the fixture card set tests/data/xo-cards.yaml."""

from __future__ import annotations

import json

import pytest

# (args, exit code, text the reply must contain). Exit 1 lines are refusals: nothing is
# recorded, the game goes on.
SCRIPT: list[tuple[list[str], int, str]] = [
    (["new", "xo", "--players", "Ann,Bob", "--seed", "8"], 0, "heroes (Ann) is active on turn 1 (XO-1)"),
    (["xo", "pick", "heroes", "Captian Volt"], 2, "did you mean 'Captain Volt'"),
    (["xo", "pick", "heroes", "Captain Volt", "Iron Ward", "Swift", "Mindlock"], 0, "(4/7)"),
    (["xo", "pick", "Ann", "Swift"], 1, "already picked"),
    (["xo", "pick", "Ann", "Sky Lancer", "Arcana", "Gearhead"], 0, "(7/7)"),
    (["xo", "next"], 1, "pick 7 characters"),
    # no Status Check on turn 1, both draw 7: nothing to decide, on to the Attack phase
    (["xo", "pick", "villains", "Doctor Null", "Brute", "Wraith", "Blaze", "Frostbite", "Psyche", "Razor"], 0,
     "turn 1 begins, heroes active; each draws 7; Attack phase"),
    # ── turn 1, heroes: a stun, a feat thwarted (bonus for the villains' turn 2)
    (["xo", "next", "--discard", "heroes=1"], 1, "(XO-10)"),  # Attack -> Feat/Thwart: no draw on the way
    (["xo", "attack", "Brute", "Swift"], 1, "only the active heroes attack"),
    (["xo", "attack", "Swift", "Razor", "--attack-roll", "3,2", "--defense-roll", "3"], 0, "Stunned"),
    (["xo", "thwart", "Blaze", "--roll", "3,3,3"], 1, "(XO-11)"),
    (["xo", "feat", "Swift", "--roll", "3,3,3"], 1, "no energy power icon (XO-13)"),
    (["xo", "feat", "Captain Volt", "--roll", "3,1,0"], 0, "success; the villains may thwart"),  # ends the attacks
    (["xo", "attack", "Iron Ward", "Brute"], 1, "(XO-11)"),
    (["xo", "thwart", "Blaze", "--roll", "2,1,1"], 0, "thwarted; villains +2 on their feat on turn 2; "
     "turn 2: villains (Bob) active; Razor: removed <Stunned>"),
    # ── turn 2, villains: AOE, moffed attack and counterattack
    (["xo", "attack", "Blaze", "Swift", "--attack-roll", "3,3", "--defense-roll", "1,1",
      "--neighbour-roll", "Iron Ward=3,2,0", "--neighbour-roll", "Mindlock=3"], 0,
     "Iron Ward: ACV 3+3 = 6 vs DCV 3+2+0 = 5: 1 damage vs Health 4: hit, tagged Burned; "
     "Swift: ACV 3+3 = 6 vs DCV 1+1 = 2: 4 damage vs Health 2: KOd; "
     "Mindlock: ACV 3+3 = 6 vs DCV 3 = 3: 3 damage vs Health 3: Stunned"),
    (["xo", "attack", "Brute", "Captain Volt", "--attack-roll", "0,0,0", "--defense-roll", "1,1",
      "--counter-attack-roll", "3,3,3", "--counter-defense-roll", "1,1"], 0,
     "Captain Volt counterattacks: ACV 3+3+3 = 9 vs DCV 1+1 = 2: 7 damage vs Health 4: KOd"),
    (["xo", "attack", "Razor", "Swift"], 1, "KOd and has left play"),
    (["xo", "feat", "Doctor Null", "--roll", "1,1,0", "--expect", "success"], 0, "2 thwart bonus"),
    (["xo", "thwart", "Gearhead", "--roll", "1,1,0"], 0, "fails; villains win chapter 1"),
    # ── turn 3, heroes: chapter 2 unthwarted
    (["xo", "attack", "Swift", "Razor"], 1, "(XO-9)"),
    (["xo", "attack", "Captain Volt", "Brute"], 1, "(XO-4)"),
    (["xo", "attack", "Captain Volt", "Frostbite", "--play", "Captain Volt Move 5"], 1, "1 short"),  # costs 1 Energy
    (["xo", "play", "heroes", "Heroes Energy"], 0, "the heroes' pool holds 1"),
    (["xo", "attack", "Captain Volt", "Frostbite", "--play", "Captain Volt Move 5", "--attack-roll", "1,1,1,0",
      "--defense-roll", "1,1"], 0, "damage 3 - 2 = 1, + 1 attack-effect damage = 2"),
    (["xo", "feat", "Iron Ward", "--roll", "2,1,1"], 0, "Hold the Bridge"),
    (["xo", "feat", "Iron Ward", "--roll", "2,1,1"], 1, "already attempted a feat this turn (with Iron Ward) (XO-13)"),
    (["xo", "thwart", "Brute"], 1, "KOd"),
    (["xo", "next"], 0, "villains do not thwart; heroes win chapter 2"),
    # ── turn 4, villains: a stun on Arcana, chapter 3 (no hero can thwart a stealth feat)
    (["xo", "attack", "Razor", "Arcana", "--attack-roll", "3,2,1", "--defense-roll", "2,1"], 0, "Stunned"),
    (["xo", "feat", "Wraith", "--roll", "3,1,0"], 0, "'Vanish': 3+1+0 = 4 vs FCV 4: success"),
    (["xo", "thwart", "Gearhead"], 1, "no stealth power icon (XO-14)"),
    (["xo", "next"], 0, "villains win chapter 3"),
    # ── turn 5, heroes: chapter 4 thwarted by Psyche
    (["xo", "feat", "Mindlock", "--roll", "3,1,0"], 0, "success"),
    (["xo", "thwart", "Psyche", "--roll", "2,1,1", "--expect", "fail"], 1, "nothing recorded"),
    (["xo", "thwart", "Psyche", "--roll", "2,1,1"], 0, "thwarted; villains +2 on their feat on turn 6"),
    # ── turn 6, villains: Psyche trapped by a card; no feat: the bonus expires
    (["xo", "tag", "Psyche", "trapped"], 0, "Psyche tagged <Trapped>: now not ready"),
    (["xo", "tag", "Psyche", "Trapped"], 1, "already tagged"),
    (["xo", "feat", "Psyche", "--roll", "3,3,3"], 1, "(XO-9)"),
    (["xo", "next"], 0, "Feat/Thwart"),
    (["xo", "next"], 0, "the villains' thwart bonus expired unused"),
    # ── turn 7, heroes: chapter 4 won, the trapped Psyche cannot thwart
    (["xo", "feat", "Mindlock", "--roll", "3,2,0"], 0, "success"),
    (["xo", "thwart", "Psyche"], 1, "(XO-9)"),
    (["xo", "thwart", "Doctor Null", "--roll", "1,1"], 0, "heroes win chapter 4"),
    # ── turn 8, villains: Psyche freed by a card; chapter 5 (keyword feat)
    (["xo", "untag", "Psyche", "Trapped"], 0, "now ready"),
    (["xo", "feat", "Psyche", "--roll", "3,1"], 0, "keyword Mastermind: 2 dice"),
    (["xo", "thwart", "Mindlock", "--roll", "1,0"], 0, "villains win chapter 5"),
    # ── turn 9, heroes: chapter 6
    (["xo", "feat", "Arcana", "--roll", "3,1,1"], 0, "success"),
    (["xo", "thwart", "Wraith", "--roll", "1,0"], 0, "heroes win chapter 6"),
    # ── turn 10, villains: a failed feat ends the phase and the turn
    (["xo", "feat", "Blaze", "--roll", "1,1,0"], 0, "'Melt the Core': 1+1+0 = 2 vs FCV 5: fails; turn 11: heroes (Ann) active"),
    # ── turn 11, heroes: chapter 7 and the game
    (["xo", "feat", "Gearhead", "--roll", "3,2,1"], 0, "'Shut Down the Reactor': 3+2+1 = 6 vs FCV 5: success"),
    (["xo", "thwart", "Doctor Null", "--roll", "1,1,1"], 0, "game over, heroes win"),
    (["xo", "next"], 1, "the game is over: heroes won (XO-15)"),
]


@pytest.fixture
def play_game(referee, fixture_db_path, tmp_path):
    session = str(tmp_path / "game.db")

    def run(*args: str):
        return referee("--session", session, "--cards", str(fixture_db_path), *args)

    for args, code, text in SCRIPT:
        result = run(*args)
        shown = result.stdout + result.stderr
        assert result.returncode == code, f"{args}: exit {result.returncode}\n{shown}"
        assert text in shown, f"{args}: {text!r} not in\n{shown}"
        if code:
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return run


def test_xo15_scripted_full_game_reaches_a_winner(play_game):
    status = play_game("status", "--json")
    state = json.loads(status.stdout)["state"]
    # issue 29: `winner` lists the winning players, as in every game; the league beside it
    assert state["over"] and state["winning_league"] == "heroes"
    assert state["winner"] == [state["leagues"]["heroes"]]
    assert state["won"] == {"1": "villains", "2": "heroes", "3": "villains", "4": "heroes",
                            "5": "villains", "6": "heroes", "7": "heroes"}
    text = play_game("status").stdout
    assert "Game over: the heroes win 4-3 (XO-15)" in text
    assert "Swift: KOd, out of play" in text and "Brute: KOd, out of play" in text


def test_referee_log_tells_the_whole_story(play_game):
    log = play_game("log").stdout
    story = [  # the cards played, the dice faces and every bonus are in the text (issue 14)
        "first player mask die: heroes 1, villains 1 | reroll heroes 2, villains 1",
        "heroes pick Captain Volt, Iron Ward, Swift, Mindlock",
        "turn 1 begins, heroes active; each draws 7; Attack phase",
        "T1 heroes: Swift attacks Razor: ACV 3+2 = 5 vs DCV 3 = 3: 2 damage vs Health 2: Stunned",
        "T1 heroes: Captain Volt attempts 'Restore the Grid': 3+1+0 = 4 vs FCV 4: success",
        "T1 heroes: Blaze tries to thwart: 2+1+1 = 4 vs TCV 4: thwarted; villains +2 on their feat on turn 2; "
        "turn 2: villains (Bob) active; Razor: removed <Stunned>",
        "T2 villains: Blaze AOE attacks Swift",
        "Captain Volt counterattacks: ACV 3+3+3 = 9 vs DCV 1+1 = 2",
        "T2 villains: Doctor Null attempts 'Cut the Power': 1+1+0 +2 thwart bonus = 4 vs FCV 4: success",
        "T2 villains: Gearhead tries to thwart: 1+1+0 = 2 vs TCV 4: fails; villains win chapter 1",
        "T3 heroes: Captain Volt attacks Frostbite (playing Captain Volt Move 5): ACV 1+1+1+0 = 3 vs DCV 1+1 = 2: "
        "2 damage (+1 attack-effect damage) vs Health 3: hit, tagged Burned, Injured",
        "heroes win chapter 2",
        "Frostbite: removed <Burned>; heroes draw 2 back up to 7",
        "villains win chapter 3",
        "T5 heroes: Psyche tries to thwart: 2+1+1 = 4 vs TCV 3: thwarted",
        "T6 villains: Psyche tagged <Trapped>",
        "the villains' thwart bonus expired unused",
        "heroes win chapter 4",
        "villains win chapter 5",
        "heroes win chapter 6",
        "T10 villains: Blaze attempts 'Melt the Core': 1+1+0 = 2 vs FCV 5: fails",
        "heroes win chapter 7; that was the last chapter; game over, heroes win",
    ]
    position = 0
    for line in story:
        found = log.find(line, position)
        assert found >= 0, f"{line!r} missing (or out of order) in the log:\n{log}"
        position = found
    assert "[undone]" not in log
