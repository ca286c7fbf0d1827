"""Exact odds for a designer's own game (issue 30 item 3): mixed pools of the game's dice,
outcomes (a face's count, a net count, the sum, a comparison with a target), opposed
pools, and draws from a deck as cards.yaml declares it. Every answer is checked against a
brute-force enumeration: itertools.product over the faces, itertools.combinations and
permutations over the physical cards of a small deck."""

from __future__ import annotations

import itertools
import json
import textwrap
from collections import Counter
from fractions import Fraction

import pytest

from referee.errors import DiceError, UsageError
from referee.table import draws, pools

CARDS = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  duel:
    title: Duel
    players: {min: 2, max: 4}
    dice:
      battle: {faces: [sword, sword, shield, blank, 1, 2], per_player: 3}
      fate: {faces: [{symbol: sword, value: 1}, shield, 3, blank], per_player: 1}
    types:
      Ship:
        fields:
          speed: {type: int, min: 1, max: 6}
          flag: {type: enum, values: [red, blue, gold]}
          fast: {type: bool, default: false}
      Storm:
        fields:
          strength: {type: int, min: 1}
    decks:
      mixed:
        title: Mixed
        size: poker
        back: {title: Duel}
        cards:
          - {name: Gull, type: Ship, speed: 4, flag: blue, fast: true}
          - {name: Maiden, type: Ship, speed: 2, flag: red, copies: 2}
          - {name: Runner, type: Ship, speed: 5, flag: gold, fast: true}
          - {name: Barnacle, type: Ship, speed: 1, flag: red}
          - {name: Squall, type: Storm, strength: 1, copies: 2}
          - {name: Gale, type: Storm, strength: 3}
      storms:
        title: Storms
        size: poker
        back: {title: Duel}
        cards:
          - {name: Fog, type: Storm, strength: 2}
          - {name: Whirl, type: Storm, strength: 2, copies: 3}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    import carddb

    path = tmp_path_factory.mktemp("duel") / "cards.yaml"
    path.write_text(CARDS)
    return carddb.load(path)


@pytest.fixture(scope="module")
def dice(db):
    from carddb.dice import dice_of

    return dice_of(db.games["duel"].extras)


# ── brute force ─────────────────────────────────────────────────────────────────
def outcome_by_hand(faces, text: str) -> int:
    """`text` (terms of the form [N*]word or a number, joined by + and -) for one roll,
    from the faces' keys and values, read independently of the library's parser."""
    keys = Counter(f.key for f in faces)
    total_value = sum(f.value or 0 for f in faces)
    result = 0
    for sign, term in _signed_terms(text):
        times, _, word = term.rpartition("*")
        times = int(times) if times else 1
        if word.isdigit():
            result += sign * int(word)
        elif word == "sum":
            result += sign * times * total_value
        else:
            result += sign * times * keys[word]
    return result


def _signed_terms(text: str):
    sign = 1
    for token in text.replace("-", " - ").replace("+", " + ").split():
        if token in "+-":
            sign = 1 if token == "+" else -1
        else:
            yield sign, token
            sign = 1


def enumerate_pool(dice, groups):
    """Every equally likely roll of the pool (a die repeated per its count)."""
    rolled = [dice[name].faces for n, name in groups for _ in range(n)]
    return list(itertools.product(*rolled))


def brute_distribution(dice, groups, text):
    rolls = enumerate_pool(dice, groups)
    counts = Counter(outcome_by_hand(r, text) for r in rolls)
    return {v: Fraction(c, len(rolls)) for v, c in sorted(counts.items())}


POOLS = [
    [(3, "battle")],
    [(1, "fate")],
    [(3, "battle"), (1, "fate")],
    [(2, "fate"), (2, "battle")],
    [(1, "battle"), (2, "fate"), (1, "battle")],
]
OUTCOMES = ["sword", "shield", "sword - shield", "sum", "2*sword + sum - 1", "blank - 3",
            "-shield"]


def pool_text(groups):
    return " + ".join(f"{n} {name}" for n, name in groups)


@pytest.mark.parametrize("groups", POOLS, ids=pool_text)
@pytest.mark.parametrize("outcome", OUTCOMES)
def test_an_outcome_of_a_mixed_pool_matches_an_enumeration(dice, groups, outcome):
    pool, parsed = pools.named_roll(dice, pool_text(groups), outcome)
    dist = pools.distribution(pool, parsed)
    assert dist.fractions() == brute_distribution(dice, groups, outcome)
    assert dist.denominator == len(enumerate_pool(dice, groups))  # one weight a roll
    for k in range(-5, 9):  # a comparison with a target, each way
        brute = brute_distribution(dice, groups, outcome)
        assert dist.at_least(k) == sum((p for v, p in brute.items() if v >= k), Fraction(0))
        assert dist.at_most(k) == sum((p for v, p in brute.items() if v <= k), Fraction(0))


@pytest.mark.parametrize("left, right, outcome", [
    ([(3, "battle")], [(2, "battle")], "sword"),
    ([(3, "battle")], [(2, "battle")], "sword - shield"),
    ([(2, "battle"), (1, "fate")], [(2, "fate")], "sum"),
    ([(1, "fate")], [(1, "fate"), (1, "battle")], "shield + 1"),
])
def test_opposed_pools_match_an_enumeration(dice, left, right, outcome):
    a = [outcome_by_hand(r, outcome) for r in enumerate_pool(dice, left)]
    b = [outcome_by_hand(r, outcome) for r in enumerate_pool(dice, right)]
    n = len(a) * len(b)
    margin = Counter(x - y for x, y in itertools.product(a, b))
    both = pools.Pool(pools.parse_pool(pool_text(left), dice).groups
                      + pools.parse_pool(pool_text(right), dice).groups)
    result = pools.opposed(pools.parse_pool(pool_text(left), dice),
                           pools.parse_pool(pool_text(right), dice),
                           pools.parse_outcome(outcome, both))
    assert result.win == Fraction(sum(c for m, c in margin.items() if m > 0), n)
    assert result.tie == Fraction(margin[0], n)
    assert result.loss == Fraction(sum(c for m, c in margin.items() if m < 0), n)
    assert result.margin == {m: Fraction(c, n) for m, c in sorted(margin.items())}


def test_an_outcome_too_wide_to_be_instant_is_refused(dice):
    pool, outcome = pools.named_roll(dice, "30 battle", "40*sword + sum")
    with pytest.raises(UsageError, match="values span 1200; exact odds stop at 1000"):
        pools.distribution(pool, outcome)
    pool, outcome = pools.named_roll(dice, "20 battle + 10 fate", "sword - shield + sum")
    assert sum(pools.distribution(pool, outcome).fractions().values()) == 1  # 30 dice: quick


def test_one_roll_at_the_table_gives_its_outcome(dice):
    pool, outcome = pools.named_roll(dice, "2 battle + 1 fate", "sword - shield + sum")
    battle, fate = dice["battle"], dice["fate"]
    faces = [battle.face("sword"), battle.face("2"), fate.face("sword")]
    assert pools.value(outcome, faces) == 2 - 0 + (2 + 1)
    assert str(outcome) == "sword - shield + sum" and str(pool) == "2 battle + 1 fate"
    assert str(pools.parse_outcome("2 * SWORD - 1", pool)) == "2*sword - 1"


def test_a_question_reads_pools_vs_and_the_outcome(dice):
    q = pools.parse_question("3 battle + 1 fate vs 2 battle sword - shield", dice)
    assert [str(side.pool) for side in q.sides] == ["3 battle + 1 fate", "2 battle"]
    assert [str(side.outcome) for side in q.sides] == ["sword - shield"] * 2  # shared
    q = pools.parse_question("3 battle sword vs 2 battle shield", dice)
    assert [str(side.outcome) for side in q.sides] == ["sword", "shield"]  # each its own
    assert pools.parse_question("2 Fate", dice).sides[0].outcome is None


def test_a_side_scored_by_its_own_outcome_matches_an_enumeration(dice):
    q = pools.parse_question("3 battle sword vs 1 fate + 1 battle shield + 1", dice)
    a = [outcome_by_hand(r, "sword") for r in enumerate_pool(dice, [(3, "battle")])]
    b = [outcome_by_hand(r, "shield + 1")
         for r in enumerate_pool(dice, [(1, "fate"), (1, "battle")])]
    n = len(a) * len(b)
    margin = Counter(x - y for x, y in itertools.product(a, b))
    left, right = q.sides
    result = pools.opposed(left.pool, right.pool, left.outcome, right.outcome)
    assert result.margin == {m: Fraction(c, n) for m, c in sorted(margin.items())}
    assert result.win == Fraction(sum(c for m, c in margin.items() if m > 0), n)


@pytest.mark.parametrize("text, says", [
    ("3 battle sword vs 2 fate + 1 battle vs 1 fate", "odds compares two sides: LEFT vs RIGHT"),
    ("vs 2 battle", "needs a pool on each side"),
    ("3 battle 2 vs 2 fate", "2 fate cannot be scored by 2: it has no face '2'; write its "
                             "own outcome after it (faces sword, shield, 3, blank)"),
])
def test_a_bad_opposed_question_is_one_line(dice, text, says):
    with pytest.raises(UsageError) as err:
        pools.parse_question(text, dice, "Duel")
    assert says in str(err.value)


# ── named rolls (cards.yaml `rolls:`, read by the rules-as-data loader; given here) ──
ROLLS = {"attack": ("3 battle + 1 fate", "sword - shield"), "guard": ("2 battle", "shield"),
         "luck": ("2 fate", "sum")}


def test_a_named_roll_by_name_alone(dice):
    (side,) = pools.parse_question("attack", dice, "Duel", ROLLS).sides
    assert side.roll == "attack" and str(side.pool) == "3 battle + 1 fate"
    brute = brute_distribution(dice, [(3, "battle"), (1, "fate")], "sword - shield")
    assert pools.distribution(side.pool, side.outcome).fractions() == brute


def test_opposed_named_rolls_and_pools_compared_by_a_rolls_outcome(dice):
    left, right = pools.parse_question("attack vs 2 battle", dice, "Duel", ROLLS).sides
    assert (left.roll, str(right.outcome)) == ("attack", "sword - shield")
    left, right = pools.parse_question("3 battle vs 2 battle attack", dice, "Duel", ROLLS).sides
    assert right.roll == "attack" and [str(left.pool), str(right.pool)] == ["3 battle",
                                                                             "2 battle"]
    a = [outcome_by_hand(r, "sword - shield") for r in enumerate_pool(dice, [(3, "battle")])]
    b = [outcome_by_hand(r, "sword - shield") for r in enumerate_pool(dice, [(2, "battle")])]
    win = Fraction(sum(x > y for x, y in itertools.product(a, b)), len(a) * len(b))
    assert pools.opposed(left.pool, right.pool, left.outcome, right.outcome).win == win
    left, right = pools.parse_question("attack vs guard", dice, "Duel", ROLLS).sides
    assert (str(left.outcome), str(right.outcome)) == ("sword - shield", "shield")
    # a face of the pool is the face, not a roll of the same name
    assert pools.parse_question("2 battle sword", dice, "Duel",
                                {"sword": ("1 fate", "sum")}).sides[0].roll is None


def test_a_named_roll_through_the_answer_the_cli_gives(db, dice):
    from referee.table import odds_cli

    reply = odds_cli.dice_answer(db, "luck", 4, lambda game: ROLLS if game == "duel" else {})
    assert reply.data["roll"] == "luck" and reply.data["at_least"]["fraction"] == "3/16"
    assert reply.lines[0].startswith("luck: 2 fate (sword, shield, 3, blank), outcome sum")
    reply = odds_cli.dice_answer(db, "attack vs attack", None, lambda game: ROLLS)
    assert reply.data["win"] == reply.data["loss"]  # the same roll each side
    assert reply.lines[0].startswith("3 battle + 1 fate (attack: sword - shield) vs 3 battle + "
                                     "1 fate (attack: sword - shield): left wins")
    with pytest.raises(UsageError, match="roll bad: .*no die 'storm'"):
        odds_cli.dice_answer(db, "bad", None, lambda game: {"bad": ("3 storm", "wind")})


@pytest.mark.parametrize("outcome", ["sum >= 5", "2 * sword - shield", "sword * 2 + 1",
                                     "(sword - shield) * 3", "6", "sword >= shield",
                                     "-(sum - 3) < 0"])
def test_a_named_rolls_odds_are_the_outcome_the_table_plays(dice, outcome):
    """One model of a named roll's outcome (issue 36 review): its odds and one roll's
    value are what referee.table.rules makes of the same text at the table (carddb.expr:
    a number a constant, a comparison yes 1 / no 0), over every roll."""
    from referee.table import rules

    groups = [(2, "battle"), (1, "fate")]
    pool, parsed = pools.named_roll(dice, pool_text(groups), outcome)
    played = Counter()
    for faces in enumerate_pool(dice, groups):
        env = rules.Env({}, None, None, counts=dict(Counter(f.key for f in faces)),
                        total=sum(f.value or 0 for f in faces))
        at_table = rules.evaluate(outcome, env)
        assert pools.value(parsed, faces) == at_table, faces
        played[at_table] += 1
    total = sum(played.values())
    assert pools.distribution(pool, parsed).fractions() == {
        v: Fraction(n, total) for v, n in sorted(played.items())}


def test_a_named_roll_not_linear_in_its_dice_has_no_exact_odds(dice):
    for outcome in ("sword * shield", "sword if sum > 3"):
        with pytest.raises(DiceError, match="no exact odds"):
            pools.named_roll(dice, "2 battle", outcome)


# ── decks ───────────────────────────────────────────────────────────────────────
def physical(deck):
    return [card for card in deck.cards for _ in range(card.copies)]


def by_hand(card, condition: str) -> bool:
    """The conditions of the tests below, evaluated without the library."""
    return {
        "Squall": card.name == "Squall",
        "storm": card.type == "Storm",
        "speed >= 4": card.get("speed") is not None and card.get("speed") >= 4,
        "speed < 2": card.get("speed") is not None and card.get("speed") < 2,
        "flag = RED": card.get("flag") == "red",
        "flag != red": card.get("flag") is not None and card.get("flag") != "red",
        "fast": card.get("fast") is True,
        "type = Ship": card.type == "Ship",
        "strength > 1": card.get("strength") is not None and card.get("strength") > 1,
    }[condition]


@pytest.mark.parametrize("condition", ["Squall", "storm", "speed >= 4", "speed < 2",
                                       "flag = RED", "flag != red", "fast", "type = Ship",
                                       "strength > 1"])
@pytest.mark.parametrize("n", [1, 3, 5, 8])
def test_a_draw_matches_every_hand_of_the_deck(db, condition, n):
    deck = db.games["duel"].decks["mixed"]
    cards = physical(deck)
    assert len(cards) == 8
    hands = list(itertools.combinations(range(len(cards)), n))
    counts = Counter(sum(by_hand(cards[i], condition) for i in hand) for hand in hands)
    expected = {k: Fraction(c, len(hands)) for k, c in sorted(counts.items())}
    dist = draws.draw(deck.cards, n, draws.parse_condition(condition, deck.cards))
    assert dist.fractions() == expected


def test_the_first_cards_of_a_shuffled_deck_in_order(db):
    """The first 3 of every ordering of the 8 cards (permutations): the same odds."""
    deck = db.games["duel"].decks["mixed"]
    cards = physical(deck)
    firsts = Counter(sum(cards[i].type == "Storm" for i in order[:3])
                     for order in itertools.permutations(range(len(cards))))
    total = sum(firsts.values())
    dist = draws.draw(deck.cards, 3, draws.parse_condition("Storm", deck.cards))
    assert dist.fractions() == {k: Fraction(c, total) for k, c in sorted(firsts.items())}
    assert dist.at_least(1) == 1 - Fraction(5 * 4 * 3, 8 * 7 * 6)


@pytest.mark.parametrize("condition, says", [
    ("Squal", "no card, type or yes/no field 'Squal'; did you mean 'Squall'?"),
    ("sped >= 4", "no card has a field 'sped'; did you mean 'speed'?"),
    ("flag >= red", ">= compares numbers"),
    ("speed >= fast", "the field is a whole number"),
    ("type = Shp", "has no card of type 'Shp'; did you mean 'Ship'?"),
    ("fast = maybe", "the field is yes or no"),
])
def test_a_bad_condition_is_one_line_naming_it(db, condition, says):
    with pytest.raises(UsageError) as err:
        draws.parse_condition(condition, db.games["duel"].decks["mixed"].cards, "deck mixed")
    assert says in str(err.value)


def test_hypergeometric_sums_to_one_and_refuses_impossible_draws(db):
    for population, hits, drawn in [(52, 4, 5), (60, 20, 7), (10, 0, 3), (10, 10, 10)]:
        dist = draws.hypergeometric(population, hits, drawn)
        assert sum(dist.fractions().values()) == 1
        assert dist.mean() == Fraction(drawn * hits, population)
    deck = db.games["duel"].decks["storms"]
    with pytest.raises(UsageError, match="the deck has 4 cards; draw 1 to 4"):
        draws.draw(deck.cards, 5, draws.parse_condition("Fog", deck.cards))


# ── the command ─────────────────────────────────────────────────────────────────
@pytest.fixture
def referee_odds(tmp_path):
    (tmp_path / "cards.yaml").write_text(CARDS)
    from tests.harness import run_cli

    def run(*args, code=0):
        result = run_cli("referee", "odds", *args, cwd=tmp_path)
        assert result.returncode == code, result.stdout + result.stderr
        return result

    return run


def fractions_of(data):
    return {int(k): Fraction(v["fraction"]) for k, v in data.items()}


def test_cli_a_net_count_of_a_mixed_pool(referee_odds, dice):
    groups = [(3, "battle"), (1, "fate")]
    brute = brute_distribution(dice, groups, "sword - shield")
    data = json.loads(referee_odds("3 battle + 1 fate", "sword - shield", "--json",
                                   "--at-least", "1").stdout)
    assert fractions_of(data["distribution"]) == brute
    assert data["outcome"] == "sword - shield" and data["pool"] == "3 battle + 1 fate"
    p = sum((q for v, q in brute.items() if v >= 1), Fraction(0))
    assert data["at_least"] == {"k": 1, "fraction": str(p), "value": float(p)}
    out = referee_odds("3 battle + 1 fate", "sword - shield", "--at-least", "1").stdout
    assert out.splitlines()[0] == ("3 battle + 1 fate (battle: sword, shield, blank, 1, 2; "
                                   "fate: sword, shield, 3, blank), outcome sword - shield: "
                                   f"mean {float(sum(v * q for v, q in brute.items())):.3f}")
    assert f"  P(sword - shield >= 1) = {p} = " in out


def test_cli_a_sum_threshold(referee_odds, dice):
    brute = brute_distribution(dice, [(2, "fate")], "sum")
    p = sum((q for v, q in brute.items() if v >= 4), Fraction(0))
    out = referee_odds("2 fate", "--at-least", "4", "sum").stdout
    assert f"  P(sum >= 4) = {p} = " in out
    assert p == Fraction(3, 16)  # 3+1, 1+3, 3+3 of 16


def test_cli_a_number_face_alone_is_counted(referee_odds, dice):
    """As before (`"3 storm" --at-least 1 2`): a number face written alone is counted; in
    a sum of terms a number is a constant."""
    rolls = enumerate_pool(dice, [(2, "battle")])
    p = Fraction(sum(any(f.key == "2" for f in r) for r in rolls), len(rolls))
    data = json.loads(referee_odds("2 battle", "--at-least", "1", "2", "--json").stdout)
    assert data["at_least"]["fraction"] == str(p) and data["at_least"]["symbol"] == "2"
    data = json.loads(referee_odds("2 battle", "sword + 2", "--json").stdout)
    assert fractions_of(data["distribution"]) == brute_distribution(dice, [(2, "battle")],
                                                                    "sword + 2")


def test_cli_a_mixed_pool_alone_gives_each_count_and_the_sum(referee_odds, dice):
    data = json.loads(referee_odds("2 battle + 1 fate", "--json").stdout)
    groups = [(2, "battle"), (1, "fate")]
    for symbol in ("sword", "shield", "blank"):
        assert fractions_of(data["counts"][symbol]) == brute_distribution(dice, groups, symbol)
    assert fractions_of(data["sum"]) == brute_distribution(dice, groups, "sum")
    assert data["dice"] == [{"die": "battle", "n": 2}, {"die": "fate", "n": 1}]


def test_cli_opposed_pools(referee_odds, dice):
    a = [outcome_by_hand(r, "sword") for r in enumerate_pool(dice, [(3, "battle")])]
    b = [outcome_by_hand(r, "sword") for r in enumerate_pool(dice, [(2, "battle")])]
    win = Fraction(sum(x > y for x, y in itertools.product(a, b)), len(a) * len(b))
    data = json.loads(referee_odds("3 battle", "vs", "2 battle", "sword", "--json").stdout)
    assert Fraction(data["win"]["fraction"]) == win
    assert data["left"] == {"pool": "3 battle", "outcome": "sword", "roll": None}
    out = referee_odds("3 battle", "vs", "2 battle", "sword").stdout
    assert out.splitlines()[1] == f"  win   {win}  = {float(win) * 100:.2f}%"
    line = referee_odds("3 battle", "vs", "2 battle", code=2).stderr.strip()
    assert line.startswith("referee: odds \"3 battle vs 2 battle\": name what the sides compare")


def test_cli_a_deck_question(referee_odds, db):
    deck = db.games["duel"].decks["mixed"]
    cards = physical(deck)
    hands = list(itertools.combinations(cards, 5))
    p = Fraction(sum(any(c.get("speed", 0) >= 4 for c in h) for h in hands), len(hands))
    data = json.loads(referee_odds("draw", "5", "mixed", "speed >= 4", "--at-least", "1",
                                   "--json").stdout)
    assert data["at_least"] == {"k": 1, "fraction": str(p), "value": float(p)}
    assert data["cards"] == 8 and data["matching"] == 2 and data["count"] == "speed >= 4"
    out = referee_odds("draw 5 mixed", "--at-least", "1", "Storm").stdout.splitlines()
    storms = Fraction(sum(any(c.type == "Storm" for c in h) for h in hands), len(hands))
    assert out[0] == "draw 5 of mixed (8 cards, 3 Storm):"
    assert out[1] == f"  P(at least 1 Storm) = {storms} = {float(storms) * 100:.2f}%"


@pytest.mark.parametrize("args, says", [
    (["3 batle"], "Duel has no die 'batle'; did you mean 'battle'? (its dice: battle, fate)"),
    (["40 battle"], "a number of dice from 1 to 30, not '40'"),
    (["2 fate", "--at-least", "9", "sun"], "did you mean 'sum'?"),
    (["2 fate", "--at-least", "2"], "name what is counted, e.g. --at-least 2 sword"),
    (["draw 5 strom Fog"], "name the deck after the number; did you mean 'storms'?"),
    (["draw 9 storms Fog"], "the deck has 4 cards; draw 1 to 4"),
    (["draw", "2", "storms"], "name what to count in deck storms"),
    (["draw", "x"], "a number of cards after draw"),
])
def test_cli_refusals_are_one_line_exit_2(referee_odds, args, says):
    result = referee_odds(*args, code=2)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], lines
    assert result.stdout == ""


def test_cli_mask_dice_odds_are_unchanged(referee_odds):
    out = referee_odds("3m", "vs", "2m").stdout.splitlines()
    assert out[:4] == ["3m vs 2m: a hit needs left > right (XO-3), each total at least 0 (XO-17)",
                       "  win   439/648  = 67.75%", "  tie   565/3888  = 14.53%",
                       "  loss  689/3888  = 17.72%"]
    assert "bad dice expression '3x' at column 2" in referee_odds("3x", code=2).stderr


def test_the_docs_example_reads_the_starter(tmp_path):
    """docs/PLAYTEST.md's deck question, on the starter's own cards.yaml."""
    import shutil
    from pathlib import Path

    import pnp

    starter = Path(pnp.__file__).parent / "starter"
    shutil.copytree(starter, tmp_path / "p")
    from tests.harness import run_cli

    result = run_cli("referee", "odds", "draw", "3", "ships", "--at-least", "1", "speed >= 4",
                     cwd=tmp_path / "p")
    assert result.returncode == 0, result.stderr
    # ships.csv: speeds 4, 2, 5, 1, 6, 3, two copies each: six of twelve have speed >= 4,
    # 1 - C(6,3)/C(12,3) = 1 - 20/220
    assert "  P(at least 1 card with speed >= 4) = 10/11 = 90.91%" in result.stdout
    assert textwrap.dedent(result.stdout).startswith("draw 3 of ships (12 cards, 6 with")


# ── properties: random dice, pools and outcomes against the enumeration ──────────
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from carddb.dice import Die, Face  # noqa: E402

faces = st.one_of(st.builds(lambda s: Face(s, None, None), st.sampled_from(["a", "b", "c"])),
                  st.builds(lambda v: Face(None, None, v), st.integers(0, 4)),
                  st.builds(lambda s, v: Face(s, None, v), st.sampled_from(["a", "b"]),
                            st.integers(1, 3)))
random_dice = st.lists(st.lists(faces, min_size=2, max_size=4), min_size=1, max_size=2)


@settings(max_examples=60, deadline=None)
@given(random_dice, st.lists(st.integers(1, 2), min_size=2, max_size=2),
       st.lists(st.integers(-2, 2), min_size=4, max_size=4), st.integers(-3, 3))
def test_any_linear_outcome_matches_the_enumeration(dice_faces, counts, coefficients, constant):
    """outcome = x*a + y*b + z*c + w*sum + constant, over a pool of one or two dice kinds."""
    dice = {f"d{i}": Die(f"d{i}", tuple(fs), 1, ()) for i, fs in enumerate(dice_faces)}
    pool = pools.Pool(tuple((counts[i], die) for i, die in enumerate(dice.values())))
    terms = tuple((c, t) for c, t in zip(coefficients, ["a", "b", "c", pools.SUM], strict=True) if c)
    outcome = pools.Outcome(terms, constant)
    rolled = [die.faces for n, die in pool.groups for _ in range(n)]
    rolls = list(itertools.product(*rolled))
    brute: Counter = Counter()
    for roll in rolls:
        keys = Counter(f.key for f in roll)
        by_term = {"a": keys["a"], "b": keys["b"], "c": keys["c"],
                   pools.SUM: sum(f.value or 0 for f in roll)}
        brute[constant + sum(c * by_term[t] for c, t in terms)] += 1
    assert pools.distribution(pool, outcome).fractions() == {
        v: Fraction(n, len(rolls)) for v, n in sorted(brute.items())}
    assert pools.value(outcome, rolls[0]) == constant + sum(
        c * (sum(f.value or 0 for f in rolls[0]) if t == pools.SUM
             else sum(f.key == t for f in rolls[0])) for c, t in terms)
