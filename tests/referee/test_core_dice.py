"""Dice (XO-1 mask dice, d6), moffed detection (XO-5), faces entered at the table."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from referee.dice import MASK_FACES, DiceError, is_moffed, parse_faces, roll_d6, roll_mask
from tests.referee._core_support import cli, one_line_error

# chi-square critical values at p = 0.001 (a fair die fails this 1 time in 1000 seeds)
CHI2_CRITICAL_001 = {3: 16.266, 5: 20.515}


def chi_square(observed: Counter, expected: dict[int, float]) -> float:
    return sum((observed[v] - e) ** 2 / e for v, e in expected.items())


def test_mask_die_faces_are_xo1():
    assert sorted(MASK_FACES) == [0, 1, 1, 2, 2, 3]


def test_chi_square_over_60000_seeded_mask_rolls():
    n = 60_000
    counts = Counter(roll_mask(n, random.Random(20261129)))
    assert set(counts) == {0, 1, 2, 3}
    expected = {0: n / 6, 1: 2 * n / 6, 2: 2 * n / 6, 3: n / 6}  # XO-1 face weights
    assert chi_square(counts, expected) < CHI2_CRITICAL_001[3]


def test_chi_square_detects_a_loaded_die():
    # the same statistic must reject a die whose 0 and 3 are swapped for 1s
    n = 60_000
    rng = random.Random(1)
    counts = Counter(rng.choice((0, 1, 1, 1, 2, 2)) for _ in range(n))
    expected = {0: n / 6, 1: 2 * n / 6, 2: 2 * n / 6, 3: n / 6}
    assert chi_square(counts, expected) > CHI2_CRITICAL_001[3]


def test_chi_square_over_60000_seeded_d6_rolls():
    n = 60_000
    counts = Counter(roll_d6(n, random.Random(99)))
    assert chi_square(counts, {v: n / 6 for v in range(1, 7)}) < CHI2_CRITICAL_001[5]


def test_d6_faces_are_randints_of_the_same_stream():
    """The fast d6 path keeps every seeded result: the faces randint(1, 6) would give, and
    the RNG left in the same state afterwards."""
    for seed in range(20):
        fast, plain = random.Random(seed), random.Random(seed)
        assert roll_d6(300, fast) == [plain.randint(1, 6) for _ in range(300)]
        assert fast.random() == plain.random()


def test_same_seed_same_rolls():
    assert roll_mask(20, random.Random(5)) == roll_mask(20, random.Random(5))


@pytest.mark.parametrize(
    "faces, moffed",
    [
        ([0], True),
        ([0, 0, 0], True),
        ([0] * 14, True),
        ([], False),  # XO-5: a zero-die roll is never moffed
        ([1], False),
        ([0, 0, 1], False),
        ([3, 0], False),
    ],
)
def test_moffed_xo5(faces, moffed):
    assert is_moffed(faces) is moffed


def test_parse_faces_accepts_table_entry():
    assert parse_faces("3,0,2", "mask") == [3, 0, 2]
    assert parse_faces("3 0, 2", "mask") == [3, 0, 2]
    assert parse_faces("6,1", "d6") == [6, 1]


@pytest.mark.parametrize(
    "text, die, column",
    [
        ("3,4,2", "mask", 3),
        ("0,-1", "mask", 3),
        ("1,x", "mask", 3),
        ("0", "d6", 1),
        ("6,7", "d6", 3),
    ],
)
def test_parse_faces_rejects_impossible_faces(text, die, column):
    with pytest.raises(DiceError) as error:
        parse_faces(text, die)
    assert f"column {column}" in str(error.value)


def test_cli_roll_moffed_from_table_faces():
    proc = cli("roll", "3", "--roll", "0,0,0", "--league", "villains", "--json", check=0)
    data = json.loads(proc.stdout)
    assert data["moffed"] is True and data["total"] == 0 and data["dice"] == [0, 0, 0]
    assert data["league"] == "villains" and data["entered"] is True
    text = cli("roll", "3", "--roll", "0,0,0", check=0).stdout
    assert "MOFFED" in text and "XO-5" in text


def test_cli_roll_not_moffed_with_one_nonzero_face():
    data = json.loads(cli("roll", "3m", "--roll", "0,1,0", "--json", check=0).stdout)
    assert data["moffed"] is False and data["total"] == 1


def test_cli_roll_zero_dice_is_not_moffed():
    data = json.loads(cli("roll", "0m+2", "--json", check=0).stdout)
    assert data["moffed"] is False and data["dice"] == [] and data["total"] == 2


def test_cli_roll_rejects_impossible_table_face():
    proc = cli("roll", "3", "--roll", "0,4,1")
    assert proc.returncode == 2
    line = one_line_error(proc)
    assert "die 2" in line and "4" in line and proc.stdout == ""


def test_cli_roll_rejects_wrong_face_count():
    proc = cli("roll", "2d6", "--roll", "3")
    assert proc.returncode == 2 and "2 dice" in one_line_error(proc)


def test_cli_roll_seeded_is_reproducible_and_total_adds_up():
    first = json.loads(cli("roll", "4d6+2", "--seed", "11", "--json", check=0).stdout)
    again = json.loads(cli("--seed", "11", "roll", "4d6+2", "--json", check=0).stdout)
    assert first == again
    assert len(first["dice"]) == 4 and all(1 <= f <= 6 for f in first["dice"])
    assert first["total"] == sum(first["dice"]) + 2
    assert {"expression", "dice", "total", "moffed"} <= set(first)


def test_cli_roll_mixed_expression_entered_faces():
    data = json.loads(cli("roll", "2m+1d6-1", "--roll", "0 0 6", "--json", check=0).stdout)
    assert data["total"] == 5 and data["moffed"] is True


def test_table_dice_hand_out_faces_and_leave_shuffles_to_the_rng():
    from referee.dice import TableDice

    table = TableDice("3,0 2, 6", random.Random(1))
    assert roll_mask(3, table) == [3, 0, 2] and roll_d6(1, table) == [6] and table.unused == 0
    cards, expected = list(range(10)), list(range(10))
    table.shuffle(cards)
    random.Random(1).shuffle(expected)
    assert cards == expected  # shuffles come from the fallback, not the table's faces
    with pytest.raises(DiceError, match="rolls at least 5"):
        roll_d6(1, table)
    with pytest.raises(DiceError, match="column 3"):
        roll_mask(2, TableDice("3,7", random.Random(1)))


# One die source for both games (XO! through core's TableDice, issue: one dice-prompting
# mechanism): faces by role, then --roll, then asked for; several faces at one prompt.


def test_table_dice_take_a_roles_faces_first_then_roll_faces_then_ask():
    from referee.dice import TableDice

    asked = []

    def ask(prompt, faces, most):
        asked.append((prompt, most))
        return [2, 0] if most == 2 else [3]

    table = TableDice("1", random.Random(1), ask, given={"attack": [3]})
    assert roll_mask(4, table, "Volt's attack roll", "attack") == [3, 1, 2, 0]
    assert roll_mask(1, table, "Brute's defense roll", "defense") == [3]
    # several faces at one prompt fill the rest of the roll; each prompt names its die
    assert asked == [("Volt's attack roll, die 3 of 4, mask 0-3", 2), ("Brute's defense roll, mask 0-3", 1)]
    assert table.roles == ["attack", "defense"] and table.unused_roles() == [] and table.rolled == []


def test_table_dice_enter_lets_the_referee_roll_that_die_from_the_fallback_and_say_so():
    from referee.dice import TableDice

    told = []
    table = TableDice("", random.Random(7), lambda prompt, faces, most: None, tell=told.append)
    faces = roll_mask(2, table, "Volt's feat roll", "feat")
    assert faces == roll_mask(2, random.Random(7))  # the very dice it rolls without a terminal
    assert told == [f"the referee rolls {faces[0]} for Volt's feat roll, die 1 of 2, mask 0-3",
                    f"the referee rolls {faces[1]} for Volt's feat roll, die 2 of 2, mask 0-3"]
    assert table.rolled == []           # told at once: the reply does not say it again
    assert table.referee_dice == [("Volt's feat roll, die 1 of 2", [faces[0]]),
                                  ("Volt's feat roll, die 2 of 2", [faces[1]])]
    assert table.referee_rolls() == [{"roll": "Volt's feat roll, die 1 of 2", "faces": [faces[0]]},
                                     {"roll": "Volt's feat roll, die 2 of 2", "faces": [faces[1]]}]
    untold = TableDice("", random.Random(7), lambda prompt, faces, most: None)
    roll_mask(2, untold, "Volt's feat roll", "feat")
    assert untold.rolled == told        # nobody told: the reply says it


def test_table_dice_refuse_an_impossible_or_extra_face_typed_at_a_prompt():
    from referee.dice import TableDice

    with pytest.raises(DiceError, match="impossible on a mask die"):
        roll_mask(1, TableDice("", random.Random(1), lambda p, f, m: [5]), "a roll")
    with pytest.raises(DiceError, match="3 faces for 2 dice"):
        roll_mask(2, TableDice("", random.Random(1), lambda p, f, m: [1, 1, 1]), "a roll")


def test_table_dice_without_a_terminal_name_the_next_die_and_its_option():
    from referee.dice import TableDice

    table = TableDice("", random.Random(1), given={"defense:Swift": [1]},
                      option_of=lambda role: f"--option-for-{role}")
    with pytest.raises(DiceError) as refused:
        roll_mask(2, table, "Swift's defense roll", "defense:Swift")
    assert str(refused.value.message) == (
        "the next die needed: Swift's defense roll, die 2 of 2, mask 0-3 (give it with --roll or "
        "--option-for-defense:Swift, or type it on a terminal; nothing was changed)")
    with pytest.raises(DiceError, match=r"1 die rolled but 2 faces given \(--roll\)"):
        roll_mask(1, TableDice("", random.Random(1), given={"attack": [1, 2]}), "a roll", "attack")


def test_table_dice_with_nothing_given_and_no_terminal_the_referee_rolls_and_notes_it():
    from referee.dice import TableDice

    table = TableDice("", random.Random(3), roll_missing=True, given=None)
    faces = roll_mask(3, table, "Volt's attack roll", "attack")
    assert faces == roll_mask(3, random.Random(3))
    assert table.referee_dice == [("Volt's attack roll", faces)]
