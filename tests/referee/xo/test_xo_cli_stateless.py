"""Stateless `referee xo combat|feat|thwart`: real invocations through the one harness
(tests.harness.run_cli, in this process)."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def xo(referee, fixture_db_path):
    def run(*args: str):
        return referee("--cards", str(fixture_db_path), "xo", *args)

    return run


def as_json(result):
    assert result.stdout.strip(), result.stderr
    return json.loads(result.stdout)


def test_xo4_damage_equal_to_health_is_stunned(xo):
    r = xo("combat", "--attack-dice", "3", "--defense-dice", "2", "--health", "3",
           "--attack-roll", "3,2,1", "--defense-roll", "1,2", "--effect", "Burned", "--json")
    assert r.returncode == 0, r.stderr
    data = as_json(r)
    assert (data["acv"], data["dcv"], data["damage"], data["outcome"]) == (6, 3, 3, "stunned")
    assert data["hit"] and data["statuses"] == ["Stunned"]
    assert "XO-4" in data["rulings"] and "XO-2" in data["rulings"]
    assert not data["attack_moffed"] and not data["defense_moffed"] and not data["counterattack_allowed"]


def test_xo4_damage_one_over_health_is_ko(xo):
    data = as_json(xo("combat", "--attack-dice", "3", "--defense-dice", "2", "--health", "3",
                      "--attack-roll", "3,2,1", "--defense-roll", "1,1", "--json"))
    assert (data["damage"], data["outcome"], data["statuses"]) == (4, "ko", [])


def test_xo3_dcv_equal_to_acv_misses_in_text(xo):
    r = xo("combat", "--attack-dice", "2", "--defense-dice", "2", "--health", "3",
           "--attack-roll", "2,1", "--defense-roll", "3,0")
    assert r.returncode == 0
    assert "MISS" in r.stdout and "[XO-3] DCV 3 >= ACV 3" in r.stdout


def test_xo5_xo6_moffed_attack_lets_defender_counterattack(xo):
    data = as_json(xo("combat", "--attack-dice", "2", "--defense-dice", "1", "--health", "3",
                      "--attack-roll", "0,0", "--attack-mod", "2", "--defense-roll", "1",
                      "--counter-attack-dice", "2", "--counter-defense-dice", "1", "--counter-health", "2",
                      "--counter-attack-roll", "3,1", "--counter-defense-roll", "2", "--json"))
    assert data["attack_moffed"] and data["outcome"] == "hit" and data["counterattack_allowed"]
    counter = data["counterattack"]
    assert (counter["acv"], counter["dcv"], counter["damage"], counter["outcome"]) == (4, 2, 2, "stunned")
    assert not counter["counterattack_allowed"]  # XO-6: no chained counterattack
    assert "XO-6" in data["rulings"] and "XO-5" in data["rulings"]


def test_xo6_counterattack_ability_without_numbers_only_reports(xo):
    r = xo("combat", "--attack-dice", "1", "--defense-dice", "1", "--health", "3",
           "--attack-roll", "1", "--defense-roll", "2", "--counterattack")
    assert r.returncode == 0 and "Counterattack allowed (XO-6)" in r.stdout


def test_xo5_moffed_defense_takes_extra_die(xo):
    data = as_json(xo("combat", "--attack-dice", "1", "--defense-dice", "2", "--health", "4",
                      "--attack-roll", "2", "--defense-roll", "0,0", "--extra-damage-roll", "2", "--json"))
    assert data["defense_moffed"] and data["extra_damage_roll"] == 2
    assert (data["damage"], data["outcome"]) == (4, "stunned")


def test_xo5_zero_dice_rolled_not_moffed(xo):
    data = as_json(xo("combat", "--attack-dice", "0", "--defense-dice", "0", "--health", "2",
                      "--attack-mod", "1", "--json"))
    assert (data["acv"], data["dcv"], data["outcome"]) == (1, 0, "hit")
    assert not data["attack_moffed"] and not data["defense_moffed"]


def test_xo7_aoe_hits_defender_and_given_neighbours_with_one_roll(xo):
    data = as_json(xo("combat", "--attack-dice", "2", "--defense-dice", "1", "--health", "3",
                      "--attack-roll", "3,2", "--defense-roll", "1", "--aoe",
                      "--neighbour", "2:2:1,1", "--neighbour", "1:4:3", "--json"))
    # row order (XO-6, XO-7): neighbour 1 is left of the defender, neighbour 2 right
    assert [t["target"] for t in data["targets"]] == ["neighbour 1", "defender", "neighbour 2"]
    assert [t["acv"] for t in data["targets"]] == [5, 5, 5]
    assert [t["outcome"] for t in data["targets"]] == ["ko", "ko", "hit"]
    assert "XO-7" in data["rulings"]


def test_expect_right_and_wrong(xo):
    args = ["combat", "--attack-dice", "2", "--defense-dice", "1", "--health", "3",
            "--attack-roll", "3,2", "--defense-roll", "2"]
    right = xo(*args, "--expect", "stunned")
    assert right.returncode == 0 and "Expected stunned: correct" in right.stdout
    wrong = xo(*args, "--expect", "ko")
    assert wrong.returncode == 1
    assert wrong.stderr.strip().splitlines() == [
        "referee: expected ko, but the outcome is stunned: damage 3 == Health 3: stays in play, "
        "tagged <Stunned> (XO-4)"
    ]


def test_seeded_roll_is_reproducible(xo):
    args = ["combat", "--attack-dice", "4", "--defense-dice", "3", "--health", "3", "--seed", "11", "--json"]
    first, second = as_json(xo(*args)), as_json(xo(*args))
    assert first["attack_roll"] == second["attack_roll"] and len(first["attack_roll"]) == 4


@pytest.mark.parametrize(
    "args, message",
    [
        (["--attack-dice", "2", "--defense-dice", "1", "--health", "3", "--attack-roll", "4,1"], "impossible on a mask die"),
        (["--attack-dice", "2", "--defense-dice", "1", "--health", "3", "--attack-roll", "1"], "the next die needed: attacker's attack roll, die 2 of 2"),
        (["--attack-dice", "2", "--health", "3"], "missing --defense-dice"),
        (["--attack-dice", "1", "--defense-dice", "1", "--health", "3", "--effect", "Burnd"], "did you mean 'Burned'"),
        (["--attack-dice", "1", "--defense-dice", "1", "--health", "0"], "Invalid value"),
    ],
)
def test_bad_input_is_one_line_exit_2(xo, args, message):
    r = xo("combat", *args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_xo13_feat_with_mod_and_bonus(xo):
    data = as_json(xo("feat", "--dice", "2", "--fcv", "5", "--roll", "2,0", "--mod", "1", "--bonus", "2", "--json"))
    assert (data["total"], data["success"], data["outcome"]) == (5, True, "success")
    assert data["rulings"] == ["XO-13", "XO-14"]
    failed = xo("feat", "--dice", "2", "--fcv", "5", "--roll", "2,0", "--expect", "success")
    assert failed.returncode == 1 and "expected success, but the feat is a fail" in failed.stderr
    assert "(XO-13)" in failed.stderr


def test_xo14_thwart_meets_tcv(xo):
    data = as_json(xo("thwart", "--dice", "3", "--tcv", "4", "--roll", "2,1,1", "--json"))
    assert (data["total"], data["success"], data["tcv"]) == (4, True, 4) and data["rulings"] == ["XO-14"]
    r = xo("thwart", "--dice", "1", "--tcv", "4", "--roll", "3", "--expect", "fail")
    assert r.returncode == 0 and "correct" in r.stdout


def test_session_only_options_refused_statelessly(xo):
    r = xo("combat", "--attack-dice", "1", "--defense-dice", "1", "--health", "2", "--neighbour-roll", "X=1")
    assert r.returncode == 2 and "only in a session" in r.stderr


def test_old_stateless_attack_points_to_combat_in_one_line(xo):
    """Issue 34: `xo attack` is the session's, `xo combat` the stateless calculator; a script
    written for the old `xo attack --attack-dice ...` fails in one line naming the new form."""
    r = xo("attack", "--attack-dice", "3", "--defense-dice", "2", "--health", "3", "--roll", "1,2,3,0,1")
    assert r.returncode == 2 and r.stdout == ""
    line, = r.stderr.strip().splitlines()
    assert "--attack-dice" in line and "referee xo combat" in line and "Traceback" not in line
    same = xo("combat", "--attack-dice", "3", "--defense-dice", "2", "--health", "3", "--roll", "1,2,3,0,1")
    assert same.returncode == 0 and same.stdout.startswith("Attack: ACV 6 vs DCV 1")


def test_attack_without_characters_points_to_combat(xo):
    r = xo("attack", "--attack-roll", "3")
    assert r.returncode == 2
    line, = r.stderr.strip().splitlines()
    assert "attack takes ATTACKER DEFENDER" in line and "referee xo combat" in line


def test_combat_refuses_session_options_naming_attack(xo):
    r = xo("combat", "--attack-dice", "1", "--defense-dice", "1", "--health", "2", "--play", "Overload")
    assert r.returncode == 2
    line, = r.stderr.strip().splitlines()
    assert "--play: only in a session: referee xo attack ATTACKER DEFENDER" in line


def test_attack_and_combat_share_no_side_only_option(xo):
    """The split is real: no `Stateless:`/`Session:` help left on either command."""
    for command in ("attack", "combat"):
        text = xo(command, "--help").stdout
        assert "Stateless:" not in text and "Session:" not in text
    assert "--attack-dice" not in xo("attack", "--help").stdout
    assert "--play" not in xo("combat", "--help").stdout
