"""XO! at a physical table (issue 14, items 3 and 7): phases with nothing to decide pass
by themselves, a turn of one attack and one feat takes at most 3 commands, the log's text
names cards, faces and bonuses, `status` shows who attacked and who is ready; dice the
command needs and the players did not give are asked for on a terminal, one prompt per
die in rules order (pexpect on a pseudo-terminal), or, without one, refused naming the
next die, nothing changed."""

from __future__ import annotations

import json
import sys

import pexpect
import pytest

from tests.harness import ROOT, process_env, run_cli

FIXTURE_DB = ROOT / "tests" / "data" / "xo-cards.yaml"
HEROES = ["Captain Volt", "Iron Ward", "Swift", "Mindlock", "Sky Lancer", "Arcana", "Gearhead"]
VILLAINS = ["Doctor Null", "Brute", "Wraith", "Blaze", "Frostbite", "Psyche", "Razor"]


@pytest.fixture
def table(tmp_path, referee):
    path = tmp_path / "table.db"

    def run(*args, code=0):
        result = referee("--session", str(path), "--cards", str(FIXTURE_DB), *args)
        assert result.returncode == code, f"{args}: {result.stdout}{result.stderr}"
        return result

    run("new", "xo", "--players", "Ann,Bob", "--seed", "8")  # heroes first
    run("xo", "pick", "heroes", *HEROES)
    run("xo", "pick", "villains", *VILLAINS)
    run.path = path
    return run


def events(run):
    return len(json.loads(run("log", "--json").stdout)["events"])


def test_a_turn_of_one_attack_and_one_feat_takes_three_commands(table):
    state = json.loads(table("status", "--json").stdout)["state"]
    assert (state["turn"]["number"], state["turn"]["phase"]) == (1, "Attack")  # picks done: turn 1 at once
    before = events(table)
    table("xo", "attack", "Swift", "Razor", "--attack-roll", "3,2", "--defense-roll", "3")
    table("xo", "feat", "Captain Volt", "--roll", "3,1,0")  # the feat ends the Attack phase (XO-11)
    out = table("xo", "next")  # no thwart: the chapter is won, the turn ends
    assert events(table) - before == 3
    state = json.loads(table("status", "--json").stdout)["state"]
    assert (state["turn"]["number"], state["turn"]["phase"], state["won"]) == (2, "Attack", {"1": "heroes"})
    # the Status Check (Razor's Stunned removed) and the draw passed by themselves
    assert "turn 2: villains (Bob) active; Razor: removed <Stunned>" in out.stdout


def test_a_failed_feat_ends_the_turn_in_two_commands(table):
    table("xo", "attack", "Swift", "Razor", "--attack-roll", "1,0", "--defense-roll", "3")
    out = table("xo", "feat", "Captain Volt", "--roll", "1,1,0")
    assert "fails; turn 2: villains (Bob) active" in out.stdout


def test_status_shows_who_attacked_and_who_is_ready(table):
    table("xo", "attack", "Swift", "Razor", "--attack-roll", "3,2", "--defense-roll", "3")
    text = table("status").stdout
    assert "  Swift: ready, has attacked this turn" in text
    assert "  Razor [Stunned]: not ready" in text
    line = next(ln for ln in text.splitlines() if ln.startswith("Attack phase:"))
    assert line == ("Attack phase: heroes attacked with Swift; ready to attack: Captain Volt, Iron Ward, Mindlock, "
                    "Sky Lancer, Arcana, Gearhead (XO-9)")


def test_the_log_names_cards_faces_and_bonuses(table):
    table("xo", "tag", "Swift", "Blinded")  # fixture: -1 ACV
    table("xo", "play", "heroes", "Heroes Energy")
    table("xo", "attack", "Swift", "Razor", "--attack-roll", "3,2", "--defense-roll", "1", "--attack-mod", "1",
          "--play", "Swift Move 1")
    table("xo", "feat", "Captain Volt", "--roll", "1,1,0", "--play", "Teamwork", "--mod", "1")
    log = table("log").stdout
    assert ("Swift attacks Razor (playing Swift Move 1): ACV 3+2 -1 <Blinded> +1 Swift Move 1 +1 --attack-mod = 6 "
            "vs DCV 1 = 1: 5 damage vs Health 2: KOd") in log
    assert "Captain Volt attempts 'Restore the Grid' (playing Teamwork): 1+1+0 +1 Teamwork +1 --mod = 4 vs FCV 4" in log


# dice as they fall ------------------------------------------------------------------


def test_without_a_terminal_too_few_faces_name_the_next_die_and_change_nothing(table):
    before = events(table)
    out = table("xo", "attack", "Captain Volt", "Brute", "--roll", "3,2", code=2)
    assert out.stderr.splitlines() == [
        # issue 23: every die known to be needed is named, not "at least 3"
        "referee: --roll '3,2': 2 faces given, but the command rolls 5 dice with --roll (Captain Volt's "
        "attack roll 3, Brute's defense roll 2; more only if a roll calls for them); the next die needed: "
        "Captain Volt's attack roll, die 3 of 3, mask 0-3 (give it with --roll or --attack-roll, or type it "
        "on a terminal; nothing was changed)"]
    assert events(table) == before
    out = table("xo", "attack", "Captain Volt", "Brute", "--roll", "3,2,1", code=2)
    assert "the next die needed: Brute's defense roll, die 1 of 2, mask 0-3" in out.stderr
    done = json.loads(table("xo", "attack", "Captain Volt", "Brute", "--roll", "3,2,1,1,0", "--json").stdout)
    assert (done["attack_roll"], done["defense_roll"], done["referee_rolled"]) == ([3, 2, 1], [1, 0], [])
    assert "the next die needed: Captain Volt's feat roll, die 2 of 3, mask 0-3 (give it with --roll," in table(
        "xo", "feat", "Captain Volt", "--roll", "3", code=2).stderr


def test_a_stateless_aoe_refusal_names_all_its_dice_and_a_valid_option():
    """Issue 23: an AOE's --roll refusal names all its dice (not "at least"); the option
    it suggests for a neighbour's extra die is one the stateless command takes."""
    def stateless(*args):
        return run_cli("referee", "xo", "combat", "--attack-dice", "3", "--defense-dice", "2",
                       "--health", "3", "--aoe", *args)

    short = stateless("--neighbour", "2:3", "--neighbour", "2:3", "--roll", "3,3")
    assert short.returncode == 2
    assert ("2 faces given, but the command rolls 9 dice with --roll (attacker's attack roll 3, "
            "neighbour 1's defense roll 2, defender's defense roll 2, neighbour 2's defense roll 2;") in short.stderr
    moffed = stateless("--neighbour", "2:3:0,0", "--neighbour", "2:3:1,1", "--attack-roll", "3,3,3",
                    "--defense-roll", "1,1")
    assert moffed.returncode == 2
    assert "give it with --roll or --neighbour 2:3:0,0:FACE," in moffed.stderr
    done = stateless("--neighbour", "2:3:0,0:1", "--neighbour", "2:3:1,1", "--attack-roll", "3,3,3",
                  "--defense-roll", "1,1")
    assert done.returncode == 0, done.stderr
    assert "moffed defense: extra damage die shows 1, damage 10" in done.stdout


def test_faces_left_over_are_refused(table):
    out = table("xo", "feat", "Captain Volt", "--roll", "3,1,0,2", code=2)
    assert "1 face left over" in out.stderr
    out = table("xo", "attack", "Swift", "Razor", "--attack-roll", "3,2", "--defense-roll", "3", "--roll", "1", code=2)
    assert "referee: --roll '1': the command rolled 3 dice, 1 face left over" in out.stderr  # role faces count


def spawn(path, *args):
    """The real command on a pseudo-terminal (a process: what it asks there is the point)."""
    return pexpect.spawn(sys.executable, ["-m", "referee", "--session", str(path), "--cards", str(FIXTURE_DB), *args],
                         env=process_env({"COLUMNS": "200"}), encoding="utf-8", timeout=30, cwd=str(ROOT))


def test_on_a_terminal_each_die_is_asked_for_in_rules_order(table):
    """Sky Lancer's AOE on Wraith (neighbours Brute, Blaze): attack roll, each target's
    defense in row order, an extra die only for a moffed defense that is hit; Enter lets
    the referee roll a die and says so."""
    child = spawn(table.path, "xo", "attack", "Sky Lancer", "Wraith", "--attack-roll", "3")
    child.expect_exact("Sky Lancer's attack roll, die 2 of 2, mask 0-3 (Enter: the referee rolls): ")
    child.sendline("2")
    child.expect_exact("Brute's defense roll, die 1 of 2, mask 0-3 (Enter: the referee rolls): ")
    child.sendline("0 0")  # two faces at one prompt: the rest of that roll
    child.expect_exact("Brute's extra damage die (moffed defense, XO-5), mask 0-3 (Enter: the referee rolls): ")
    child.sendline("7")  # impossible: asked again
    child.expect_exact("'7': this die shows 0, 1, 2, 3")
    child.expect_exact("Brute's extra damage die (moffed defense, XO-5), mask 0-3")
    child.sendline("1")
    child.expect_exact("Wraith's defense roll, die 1 of 2")
    child.sendline("")  # Enter: the referee rolls this die
    child.expect(r"the referee rolls [0-3] for Wraith's defense roll, die 1 of 2, mask 0-3")
    child.expect_exact("Wraith's defense roll, die 2 of 2")
    child.sendline("0")
    child.expect_exact("Blaze's defense roll, mask 0-3")
    child.sendline("3")
    child.expect_exact("Sky Lancer AOE attacks Wraith: Brute: ACV 3+2 = 5 vs DCV 0+0 = 0 (defense moffed): "
                       "6 damage (+1 extra die) vs Health 4: KOd")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    log = json.loads(table("log", "--json").stdout)["events"][-1]
    rolled = log["payload"]["result"]["referee_rolled"]
    assert [r["roll"] for r in rolled] == ["Wraith's defense roll, die 1 of 2"]


def test_on_a_terminal_several_faces_fill_a_roll_and_enter_rolls_one_die_through_cores_dice(table):
    """XO! asks through core's TableDice (the one dice-prompting mechanism): "1 1" at die 1
    of 3 fills two dice, Enter at die 3 lets the referee roll it, said at once and noted."""
    child = spawn(table.path, "xo", "feat", "Captain Volt")
    child.expect_exact("Captain Volt's feat roll, die 1 of 3, mask 0-3 (Enter: the referee rolls): ")
    child.sendline("1 1")
    child.expect_exact("Captain Volt's feat roll, die 3 of 3, mask 0-3 (Enter: the referee rolls): ")
    child.sendline("")
    child.expect(r"the referee rolls ([0-3]) for Captain Volt's feat roll, die 3 of 3, mask 0-3")
    rolled = int(child.match.group(1))
    child.expect_exact(f"Captain Volt attempts 'Restore the Grid': 1+1+{rolled} = {2 + rolled} vs FCV 4")
    child.expect_exact(f"rolled by the referee: Captain Volt's feat roll, die 3 of 3: {rolled}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    result = json.loads(table("log", "--json").stdout)["events"][-1]["payload"]["result"]
    assert result["roll"] == [1, 1, rolled]


def test_a_command_waiting_at_a_dice_prompt_holds_no_write_lock(table):
    """While `xo attack` waits for a die on a terminal, another command writes the same
    session at once (no wait for SQLite's 30 s busy timeout); the waiting command then
    finds its session changed and records nothing (one line, exit 1)."""
    import time

    child = spawn(table.path, "xo", "attack", "Swift", "Razor")
    child.expect_exact("Swift's attack roll, die 1 of 2, mask 0-3 (Enter: the referee rolls): ")
    start = time.monotonic()
    other = table("xo", "tag", "Iron Ward", "Blinded")  # here, beside the waiting process
    waited = time.monotonic() - start
    assert other.returncode == 0, other.stderr
    assert waited < 10, f"the second command waited {waited:.1f} s for the lock"  # busy timeout: 30 s
    child.sendline("3 2")
    child.expect_exact("Razor's defense roll")
    child.sendline("1")
    child.expect_exact("referee: the session changed while this command waited (now #4: T1 heroes: "
                       "Iron Ward tagged <Blinded>: now ready); nothing was recorded: type the command again, "
                       "with the dice rolled: --roll 3,2,1")  # issue 23: the faces typed are kept
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    log = json.loads(table("log", "--json").stdout)["events"]
    assert [e["kind"] for e in log][-2:] == ["pick", "tag"]  # the attack wrote nothing
