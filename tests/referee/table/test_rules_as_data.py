"""Rules as data (issue 29 items 2 and 4): a game of cards.yaml without `rules:` declares
its zones, hand limit, named rolls, phase steps, card effects, end and score, and the
referee plays them: `referee play` walks the `pnp init` starter (Harbour Lights) from
`new` to its winner on Enter alone (the referee rolls every die and draws each Storm),
and the same game with the dice typed plays the same way; a test game (Bazaar) uses
every other key of the vocabulary through `referee play` and the one-shot commands.
Every refusal is one line and leaves the session file's bytes as they were."""

from __future__ import annotations

import io
import json
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[3]
STARTER = ROOT / "pnp" / "starter"


def to_plain(rules: object) -> object:
    """The session's own converter (referee/plain.py), as it keeps a game's rules."""
    from referee.plain import to_data

    return to_data(rules)


def from_plain(data: object) -> object:
    from carddb.gamerules import Rules
    from referee.plain import from_data

    return from_data(Rules, data)


BAZAAR = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  bazaar:
    title: Bazaar
    players: {min: 2, max: 3}
    types:
      Stall: {fields: {income: int, price: int}}
      Event: {fields: {power: {type: int, default: 1}}}
    dice:
      coin: {faces: [sword, sword, shield, blank, blank, blank]}
      d4: {faces: [1, 2, 3, 4]}
    tokens:
      gold: {label: G, name: Gold, count: 60, start: 2, per: player, max: 12}
      fame: {label: F, name: Fame, count: 40}
      favour: {label: V, name: Favour, count: 5, start: 3, per: shared}
    zones: {stalls: player, market: shared}
    hand_limit: 4
    rolls:
      raid: {dice: 2 coin + 1 d4, outcome: sword - shield, say: "{outcome} hit"}
      luck: {dice: 2 d4, outcome: sum >= 5}
    phases:
      - name: Income
        steps:
          - each_player: {gold: "sum(stalls.income) + sum(market.income)"}
          - draw: {deck: stalls, count: 2}
      - name: Market
        steps:
          - play: {to: stalls, deck: stalls, up_to: 2, cost: {gold: price}}
          - choose:
              prompt: Tax or feast
              options: {tax: {choose_player: {gold: -1}}, feast: [{each_other: {fame: +1}}, {self: {fame: +2}}]}
              default: feast
      - name: Raid
        steps:
          - roll: raid
          - self: {fame: "raid if raid > 0"}
          - roll: luck
          - pool: {favour: "-1 if luck"}
          - reveal: {deck: events, count: 1}
          - discard_to: 3
      - Rest
    effects:
      Stall: {when: played, self: {fame: card.income}}
      Pickpocket: {transfer: {gold: 2, from: chosen, to: self}}
      Charity: {transfer: {gold: 1, from: self, to: chosen}}
      Windfall: [{draw: {deck: stalls, count: 1}}, {discard: 1}]
      Festival: {when: revealed, each_player: {gold: "+ card.power"}}
    end:
      - token: {fame: ">= 15"}
      - pool: {favour: "<= 0"}
      - deck_empty: events
      - rounds: 4
    score: fame + count(stalls) * 2
    tie_break: [gold, count(hand)]
    decks:
      stalls:
        title: Stalls
        size: poker
        back: {title: Bazaar}
        cards:
          - {name: Spice Stall, type: Stall, income: 2, price: 3, copies: 3}
          - {name: Fish Stall, type: Stall, income: 1, price: 1, copies: 4}
          - {name: Well, type: Stall, income: 0, price: 0, copies: 2}
      events:
        title: Events
        size: poker
        back: {title: Bazaar}
        cards:
          - {name: Festival, type: Event, power: 2, copies: 2}
          - {name: Pickpocket, type: Event}
          - {name: Charity, type: Event}
          - {name: Windfall, type: Event, copies: 2}
"""


# ── the table: one-shot commands and `referee play`, in process ───────────────────
@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.delenv("REFEREE_SESSION", raising=False)
    monkeypatch.delenv("REFEREE_CARDS", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def harbour(folder: Path) -> Path:
    """The `pnp init` starter, as it writes it (its files copied)."""
    shutil.copytree(STARTER, folder / "harbour")
    return folder / "harbour"


def bazaar(folder: Path) -> Path:
    (folder / "bazaar").mkdir()
    (folder / "bazaar" / "cards.yaml").write_text(BAZAAR)
    return folder / "bazaar"


def referee(project: Path, session: Path):
    from tests.harness import run_cli

    def run(*args: str, code: int = 0) -> SimpleNamespace:
        cards = ["--cards", str(project / "cards.yaml")]
        result = run_cli("referee", "--session", str(session), *cards, *args, cwd=Path.cwd())
        assert result.returncode == code, f"{args}: {result.returncode}\n{result.stdout}{result.stderr}"
        return SimpleNamespace(out=result.stdout, err=result.stderr)

    return run


def refused(run, session: Path, *args: str, code: int, says: str) -> None:
    before = session.read_bytes()
    result = run(*args, code=code)
    assert says in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1, result.err
    assert "Traceback" not in result.err
    assert session.read_bytes() == before


def state(run) -> dict:
    return json.loads(run("status", "--json").out)["state"]


def copied(session: Path, folder: Path) -> Path:
    """A copy of `session` in `folder` (a file the referee has not opened yet)."""
    target = folder / session.name
    shutil.copyfile(session, target)
    return target


def play(project: Path, session: Path, lines, answer=None) -> str:
    """`referee play` fed `lines` (or asked through `answer(prompt)`): its transcript."""

    from referee.play.loop import Table

    out = io.StringIO()
    table = Table(str(session), str(project / "cards.yaml"), iter(lines), out)
    if answer is not None:
        def typed(prompt: str) -> str | None:
            line = answer(prompt)
            if line is not None:
                out.write(f"{prompt}{line}\n")
            return line
        table.input = typed
    with redirect_stdout(out), redirect_stderr(out):  # the commands' lines, in order
        table.play()
    return out.getvalue()


# ── the starter, walked to its winner ───────────────────────────────────────────
def test_the_starter_plays_to_its_winner_on_enter_alone(folder, starter_game):
    project, played, transcript = starter_game("11")
    session = copied(played, folder)
    run = referee(project, session)
    end = state(run)
    assert end["over"] is True
    assert isinstance(end["winner"], list) and end["winner"]
    assert set(end["winner"]) <= {"Ann", "Bob"}
    assert re.search(r"the game ends\. Score: Ann -?\d+, Bob -?\d+\. (Ann|Bob|Ann and Bob) "
                     r"(wins|share the win)\.", transcript), transcript[-2000:]
    # the compulsory steps ran by themselves, the questions took their defaults
    assert "Draw: Ann draws 1 card from ships" in transcript or \
        "Draw: Bob draws 1 card from ships" in transcript
    assert "chooses trade" in transcript and "Weather roll, 3 storm:" in transcript
    assert re.search(r"\d wind - \d wave = -?\d knots", transcript)
    assert "(drawn by the referee)" in transcript
    refused(run, session, "step", code=1, says="the game is over")
    refused(run, session, "token", "Ann", "cargo", "+1", code=1, says="the game is over")
    # play ends on the first Enter after the winner is said: the pipe's other lines unread
    assert transcript.count("The game is over (undo takes back the last move; Enter "
                            "leaves) > ") == 1
    assert transcript.rstrip().endswith("Enter leaves) >")


def test_at_the_end_undo_takes_back_the_last_move_and_play_goes_on(folder, starter_game):
    project, played, _ = starter_game("11")
    session = copied(played, folder)
    run = referee(project, session)
    assert state(run)["over"] is True
    before = json.loads(run("log", "--json").out)
    transcript = play(project, session, ["undo", "quit"])
    # taken at the end's prompt (not "Enter leaves"): the last move is undone, and what
    # the rules run by themselves after it (perhaps the same end) runs again
    assert f"undone #{before['events'][-1]['seq']}" in transcript
    assert transcript.rstrip().endswith("quit")


def test_the_starter_with_the_dice_typed_plays_the_same_game(folder, starter_game):
    """Typing at each roll the faces the referee rolled in a first game (the module's game
    on Enter alone) gives the same game (the referee's Storm draws follow the state, so
    they fall the same)."""
    project, played, by_referee = starter_game("11")
    first, second = copied(played, folder), folder / "b.db"
    run_a, run_b = referee(project, first), referee(project, second)
    run_b("--seed", "11", "new", "harbour", "--players", "Ann,Bob")
    rolled = re.findall(r"Weather roll, 3 storm: (\S+ \S+ \S+)  ", by_referee)
    assert len(rolled) >= 3
    faces = list(rolled)

    def answer(prompt: str) -> str | None:
        if "weather roll" in prompt:
            return faces.pop(0)
        return "" if faces or not state(run_b)["over"] else None

    by_table = play(project, second, [], answer)
    assert not faces
    assert state(run_a) == state(run_b)
    said = [line for line in by_table.splitlines() if "roll" not in line]
    assert said == [line for line in by_referee.splitlines() if "roll" not in line][:len(said)]


def test_the_starters_rules_read_back_as_declared():
    """The starter declares each piece the issue asks: zones, steps of both kinds, a
    named roll, three card effects or more, a hand limit, an end and a score."""
    import carddb
    from referee.table.kit import TableGame

    game = TableGame.from_db(carddb.load(STARTER / "cards.yaml"), "harbour")
    r = game.rules
    assert [z.name for z in r.zones] == ["harbour"] and r.hand_limit == 3
    assert r.rolls["weather"].pool == (("storm", 3),)
    kinds = {s.kind for p in r.phases for s in p.steps}
    assert {"effect", "play", "roll", "choose", "reveal", "discard_to"} <= kinds
    assert len(r.card_effects) + len(r.type_effects) >= 3
    assert {e.kind for e in r.end} == {"token", "pool", "deck_empty", "rounds"}
    assert r.score == "cargo + sum(harbour.cargo)" and r.tie_break == ("count(harbour)",)
    assert from_plain(json.loads(json.dumps(to_plain(r)))) == r  # plain data, both ways


# ── Bazaar: every other key of the vocabulary ────────────────────────────────────
def test_bazaars_rules_round_trip_through_json(folder):
    import carddb
    from referee.table.kit import TableGame

    rules = TableGame.from_db(carddb.load(bazaar(folder) / "cards.yaml"), "bazaar").rules
    assert rules.zone("market") is not None and rules.zone("market").shared
    assert set(rules.type_effects) == {"Stall"} and "Festival" in rules.card_effects
    assert from_plain(json.loads(json.dumps(to_plain(rules)))) == rules


def test_a_turn_of_steps_answered_one_by_one(folder):
    project = bazaar(folder)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "3", "new", "bazaar", "--players", "Ann,Bob")
    first = state(run)["turn"]["player"]
    other = "Bob" if first == "Ann" else "Ann"
    assert state(run)["tokens"][first] == {"gold": 2, "fame": 0}  # fame: start 0 by default
    out = run("step").out  # each_player: the income summed over stalls and market (0 yet)
    assert "comes to 0" in out
    assert "draws 2 cards from stalls" in run("step").out
    refused(run, session, "step", "spice stall", code=1, says="Spice Stall costs 3 Gold")
    refused(run, session, "step", "fish stal", code=2, says="did you mean Fish Stall?")
    out = run("step", "Fish Stall, Well").out  # play up to 2, cost: the card's price
    assert f"{first} pays 1 Gold (1)" in out and f"{first} pays 0 Gold (1)" in out
    assert "Fish Stall: " + first + " +1 Fame -> 1" in out  # Stall (a type): played
    assert f"Well goes into {first}'s stalls (Fish Stall, Well)" in out
    out = run("step", "tax").out  # choose: an option whose effect chooses a player
    assert f"{first} chooses tax" in out
    assert state(run)["pending"]["option"] == "tax"
    refused(run, session, "step", "Cyd", code=2, says="no player 'Cyd'")
    out = run("step", other.lower()).out
    assert f"tax: {other} -1 Gold -> 1" in out
    refused(run, session, "step", "sword", "sheild", "4", code=2,
            says="faces 'sword sheild 4': face 'sheild' at column 7 is not a face of the coin")
    refused(run, session, "step", "sword", "shield", "4", "1", code=2, says="1 face left over")
    out = run("step", "sword", "shield", "4").out  # a mixed pool typed
    assert "Raid roll, 2 coin + 1 d4: sword shield 4  1 sword - 1 shield = 0 hit" in out
    assert "Raid: no change" in run("step").out  # raid if raid > 0
    out = run("step", "3", "4").out
    assert "Luck roll, 2 d4: 3 4  sum 7 >= 5 = yes" in out
    assert "the shared pool -1 Favour -> 2" in run("step").out
    out = run("step", "festival").out  # reveal: card.power for each player
    assert f"Festival: {first} +2 Gold" in out and f"Festival: {other} +2 Gold" in out
    assert "nothing to discard" in run("step").out
    assert state(run)["turn"]["phase"] == "Rest"
    out = run("step").out  # a phase without steps: on to the next player's turn
    now = state(run)
    assert now["turn"]["player"] == other and now["turn"]["phase"] == "Income"
    assert now["zones"][first]["stalls"] == ["Fish Stall", "Well"]
    # the score: fame + 2 per stall; in status and the public state
    assert now["scores"][first] == now["tokens"][first]["fame"] + 4
    assert f"stalls 2 (Fish Stall, Well); score {now['scores'][first]}" in run("status").out
    # income summed over the stalls in play
    out = run("step").out
    assert f"Income: {first} +1 Gold" in out


def test_one_shot_moves_of_the_vocabulary(folder):
    project = bazaar(folder)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "3", "new", "bazaar", "--players", "Ann,Bob,Cy")
    run("draw", "ann", "3", "--deck", "stalls")
    run("show", "Ann", "Spice Stall")
    out = run("put", "ANN", "spice stall").out  # the only zone of a player's own: stalls
    assert "Ann puts Spice Stall into stalls" in out and "Spice Stall: Ann +2 Fame" in out
    out = run("put", "Ann", "Fish Stall", "--to", "market").out  # the shared zone
    assert "Ann puts Fish Stall into market (Fish Stall)" in out
    assert state(run)["table"] == {"market": ["Fish Stall"]}
    refused(run, session, "put", "Ann", "Well", "--to", "stals", code=2,
            says="no zone 'stals' (did you mean stalls?)")
    out = run("discard", "Ann", "spice stall", "--from", "stalls").out  # out of play
    assert "Ann takes Spice Stall out of stalls onto the discard pile" in out
    assert state(run)["decks"]["stalls"]["seen"] == ["Spice Stall"]
    refused(run, session, "discard", "Ann", "Well", "--from", "stalls", code=1,
            says="Well is not in Ann's stalls")
    # every player at once, and the bank and max of a token kind
    out = run("token", "all", "gold", "+3").out
    assert "every player Gold +3: Ann 5, Bob 5, Cy 5" in out
    refused(run, session, "token", "all", "gold", "+8", code=1, says="leaves the limits")
    refused(run, session, "token", "all", "favor", "+1", code=2,
            says="no token 'favor' (did you mean favour?)")
    refused(run, session, "token", "Ann", "gold", "+8", code=1,
            says="Ann would hold 13 Gold: tokens.gold allows 0 to 12")
    refused(run, session, "draw", "Ann", "1", "--deck", "stals", code=2,
            says="no deck 'stals' (did you mean stalls?)")
    # player to player
    assert "Bob gives Cy 2 Gold (Bob 3, Cy 7)" in run("give", "bob", "CY", "gold", "2").out
    refused(run, session, "give", "Bob", "Cy", "gold", "9", code=1, says="Bob has 3 Gold")
    refused(run, session, "give", "Bob", "Cyy", "gold", "1", code=2,
            says="no player 'Cyy' (did you mean Cy?)")
    # a card revealed: named, with its chosen player, or drawn by the referee
    out = run("reveal", "Cy", "Pickpocket", "--deck", "events", "--target", "Ann").out
    assert "Pickpocket: Ann gives Cy 2 Gold (Ann 3, Cy 9)" in out
    out = run("reveal", "Ann", "charity", "--deck", "events", "--target", "bob").out
    assert "Charity: Ann gives Bob 1 Gold (Ann 2, Bob 4)" in out
    out = run("reveal", "Bob", "Windfall", "--deck", "events").out
    assert "Windfall: Bob draws 1 card from stalls" in out
    assert "Windfall: Bob discards 1 card face down" in out
    out = run("reveal", "Bob", "--deck", "events").out
    assert "(drawn by the referee)" in out
    refused(run, session, "roll", "2", "coins", code=2, says="(did you mean coin?)")
    out = run("roll", "raid", "--roll", "sword,shield,2").out  # a named roll, one-shot
    assert out.strip() == "Raid roll, 2 coin + 1 d4: sword shield 2  1 sword - 1 shield = 0 hit"
    assert state(run)["turn"]["rolls"]["raid"] == 0
    refused(run, session, "roll", "raide", code=2, says="no roll 'raide' (did you mean raid?)")
    refused(run, session, "reveal", "Bob", "Well", "--deck", "events", code=2,
            says="Well is a card of the stalls deck")


def test_the_end_the_score_and_the_tie_break(folder):
    project = bazaar(folder)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "3", "new", "bazaar", "--players", "Ann,Bob")
    run("token", "Ann", "fame", "=9")
    run("token", "Bob", "fame", "=11")
    run("draw", "Ann", "1", "--deck", "stalls")
    run("put", "Ann", "Well")  # score: 9 fame + 2 a stall = 11, as Bob's
    run("token", "Bob", "gold", "+3")  # the tie-break: gold
    out = run("token", "Bob", "fame", "=15").out
    assert "Bob reaches 15 Fame (fame >= 15): the game ends. Score: Ann 11, Bob 15. Bob wins." in out
    end = state(run)
    assert end["over"] is True and end["winner"] == ["Bob"]
    refused(run, session, "next", code=1, says="the game is over (Bob won)")
    run("undo")
    assert state(run)["over"] is False
    run("token", "Bob", "fame", "=9")
    run("token", "Ann", "gold", "+3")
    # a shared pool's condition; Ann 9+2 = 11 against Bob 9 + 0 stalls
    out = run("token", "favour", "=0").out
    assert "the shared Favour is at 0 (favour <= 0): the game ends" in out
    assert state(run)["winner"] == ["Ann"]


def test_a_tie_shares_the_win_and_rounds_end_the_game(folder):
    project = bazaar(folder)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "3", "new", "bazaar", "--players", "Ann,Bob")
    for _ in range(4 * 2 * 4 - 1):  # 4 rounds of 2 turns of 4 phases: `next` each
        run("next")
    assert state(run)["over"] is False
    out = run("next").out
    assert "4 rounds played: the game ends. Score: Ann 0, Bob 0. Ann and Bob share the win." in out
    assert sorted(state(run)["winner"]) == ["Ann", "Bob"]


def test_an_end_with_finish_round_plays_the_round_out(folder):
    """`finish: round`: the condition makes the round the last; the other player has their
    turn, and the game ends as the next round would begin (the same turns for each)."""
    project = bazaar(folder)
    cards = project / "cards.yaml"
    cards.write_text(BAZAAR.replace('- token: {fame: ">= 15"}',
                                    '- {token: {fame: ">= 15"}, finish: round}'))
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "3", "new", "bazaar", "--players", "Ann,Bob")
    first = state(run)["setup"]["first"]
    other = "Bob" if first == "Ann" else "Ann"
    out = run("token", first, "fame", "=15").out
    assert f"{first} reaches 15 Fame (fame >= 15): this round is the last" in out
    assert state(run)["over"] is False and state(run)["last_round"].startswith(first)
    for _ in range(4):  # the first player's phases, then the other's whole turn
        run("next")
    assert state(run)["turn"]["player"] == other and state(run)["over"] is False
    run("token", first, "fame", "=3")  # fallen back: the last round still ends the game
    for _ in range(3):
        run("next")
    assert state(run)["over"] is False
    out = run("next").out
    assert f"{first} reaches 15 Fame (fame >= 15): the game ends." in out
    end = state(run)
    assert end["over"] is True and end["turn"] == {**end["turn"], "round": 2, "player": first}
    run("undo")
    assert state(run)["over"] is False and state(run)["turn"]["player"] == other


def test_bazaar_through_play_enter_and_typed_answers(folder):
    project = bazaar(folder)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "3", "new", "bazaar", "--players", "Ann,Bob")
    first = state(run)["turn"]["player"]
    transcript = play(project, session, ["status", "fish stall", "", "tax", "", "sword sword 2",
                                         "1 1", "pickpocket", "", ""])
    assert "Income: every player: gold + sum(stalls.income) + sum(market.income)" in transcript
    assert f"{first}: a card into stalls for its price in gold? [none]" in transcript
    assert f"{first}: a card into stalls for its price in gold (1 of 2)? [none]" in transcript
    assert "Tax or feast (tax, feast)? [feast]" in transcript
    assert "tax: which player? [" in transcript
    assert f"{first}'s raid roll, 2 coin + 1 d4" in transcript
    assert "2 sword - 0 shield = 2 hit" in transcript
    assert "Luck roll, 2 d4: 1 1  sum 2 >= 5 = no" in transcript
    assert "Pickpocket: which player?" in transcript
    assert re.search(rf"Pickpocket: \w+ gives {first} 1 Gold", transcript)  # all Ann had
    assert f"{first}'s turn, Rest (roll, token, draw, ...; Enter: next)" in transcript
    now = state(run)
    assert now["tokens"][first]["fame"] == 1 + 2  # Fish Stall played (1), the raid (2)
    assert now["turn"]["phase"] == "Market" and now["turn"]["player"] != first  # Income ran


def test_a_game_without_rules_plays_as_before(folder):
    """No vocabulary key: no zones, steps or scores in the state; Enter: the next phase."""
    project = harbour(folder)
    text = (project / "cards.yaml").read_text()
    cut = text.index("    zones:")
    text = text[:cut] + "    phases: [Draw, Sail, Storm]\n" + text[text.index("    decks:"):]
    (project / "cards.yaml").write_text(text)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "1", "new", "harbour", "--players", "Ann,Bob")
    now = state(run)
    assert "zones" not in now and "scores" not in now and "step" not in now["turn"]
    assert now["winner"] == [] and now["over"] is False
    transcript = play(project, session, ["", ""])
    assert "(roll, token, draw, ...; Enter: next)" in transcript
    assert state(run)["turn"]["phase"] == "Storm"


# ── validation: each mistaken declaration, one located line ─────────────────────
MISTAKES = [
    ("zones: {stalls: player, market: shared}", "zones: {stalls: player, market: public}",
     "public", "'public' is not a zone's owner (one of: player, shared)"),
    ("zones: {stalls: player", "zones: {hand: player", "hand", "`hand` is every player's hand"),
    ("hand_limit: 4", "hand_limit: many", "many", "expected a whole number from 1 to 1000"),
    ("raid: {dice: 2 coin + 1 d4", "raid: {dice: 2 coins + 1 d4", "2 coins",
     "'coins' is not a die of the game (did you mean 'coin'?)"),
    ("outcome: sword - shield", "outcome: sword - sheild", "sword - sheild",
     "'sheild' is not a name here (did you mean 'shield'?)"),
    ("outcome: sum >= 5", "outcome: sum >= ", "sum >= ", "expected a number or a name"),
    ("- each_player: {gold:", "- every_player: {gold:", "every_player",
     "unknown step 'every_player' (did you mean 'each_player'?)"),
    ('{gold: "sum(stalls.income) +', '{gold: "sum(stals.income) +', '"sum(stals',
     "'stals' is not a zone (did you mean 'stalls'?)"),
    ('sum(market.income)"}', 'sum(market.incom)"}', '"sum(stalls',
     "no card type has a field 'incom' (did you mean 'income'?)"),
    ("- draw: {deck: stalls, count: 2}", "- draw: {deck: stals, count: 2}", "stals",
     "'stals' is not a deck (did you mean 'stalls'?)"),
    ("play: {to: stalls,", "play: {to: stall,", "stall,", "'stall' is not a zone"),
    ("cost: {gold: price}", "cost: {gld: price}", "gld", "'gld' is not a token (did you mean"),
    ("default: feast", "default: feats", "feats", "'feats' is not an option (did you mean 'feast'?)"),
    ("- roll: raid", "- roll: raids", "raids", "'raids' is not a roll (did you mean 'raid'?)"),
    ("- discard_to: 3", "- discard_to: lots", "lots", "expected a whole number"),
    ("Stall: {when: played,", "Stall: {when: playd,", "playd",
     "'playd' is not a moment (did you mean 'played'?)"),
    ("Pickpocket: {transfer:", "Pickpockt: {transfer:", "Pickpockt",
     "'Pickpockt' is not a card or card type of the game (did you mean 'Pickpocket'?)"),
    ("{transfer: {gold: 2, from: chosen, to: self}}", "{transfer: {gold: 2, from: self, to: self}}",
     "{gold: 2, from: self", "a transfer goes from one party to the other"),
    ('{gold: "+ card.power"}', '{gold: "+ card.powr"}', '"+ card.powr"',
     "no card type has a field 'powr' (did you mean 'power'?)"),
    ('self: {fame: "raid if raid > 0"}', 'self: {fame: "card.income"}', '"card.income"',
     "only a card effect may name card.FIELD"),
    ('- token: {fame: ">= 15"}', '- token: {fame: "at least 15"}', '"at least 15"',
     "expected a comparison like '>= 20'"),
    ('- pool: {favour: "<= 0"}', '- token: {favour: "<= 0"}', "favour",
     "'favour' is a shared token: write pool:"),
    ("- deck_empty: events", "- deck_empty: event", "event", "'event' is not a deck"),
    ("- rounds: 4", "- round: 4", "round", "'round' is not an end condition (did you mean 'rounds'?)"),
    ("- deck_empty: events", "- {deck_empty: events, finish: rond}", "rond",
     "'rond' is not a finish (did you mean 'round'?)"),
    ("- deck_empty: events", "- {deck_empty: events, rounds: 3}", "{deck_empty",
     "an end condition has one of token, pool, deck_empty, rounds"),
    ("score: fame + count(stalls) * 2", "score: fame + + 2", "fame + + 2",
     "expected a number or a name, got '+'"),
    ("tie_break: [gold, count(hand)]", "tie_break: [gold, glory]", "glory",
     "'glory' is not a name here"),
    ("gold: {label: G, name: Gold, count: 60, start: 2, per: player, max: 12}",
     "gold: {label: G, name: Gold, count: 60, start: 2, per: player, min: 5, max: 2}", "2}",
     "max 2 is below min 5"),
    ("{self: {fame: +2}}]}", "{self: {fam: +2}}]}", "fam", "'fam' is not a token (did you mean 'fame'?)"),
    ("luck: {dice: 2 d4, outcome: sum >= 5}", "gold: {dice: 2 d4, outcome: sum >= 5}", "gold:",
     "'gold' names a token already"),
    ("      - Rest\n", "      - Raid\n", "Raid\n", "phase 'Raid' is declared twice"),
    ("    hand_limit: 4\n", "    sore: fame\n    hand_limit: 4\n", "sore",
     "unknown field 'sore' (did you mean 'score'?)"),
]


@pytest.mark.parametrize("old,new,token,message", MISTAKES, ids=[m[3][:40] for m in MISTAKES])
def test_each_mistaken_declaration_is_one_located_line(tmp_path, old, new, token, message):
    import carddb

    assert BAZAAR.count(old) == 1, old
    text = BAZAAR.replace(old, new)
    (tmp_path / "cards.yaml").write_text(text)
    with pytest.raises(carddb.DatabaseError) as caught:
        carddb.load(tmp_path / "cards.yaml")
    lines = [str(p) for p in caught.value.problems]
    hits = [line for line in lines if message in line]
    assert hits, lines
    at = text.index(new)
    line = text.count("\n", 0, at) + 1
    assert all("\n" not in h for h in hits)
    assert any(f"cards.yaml:{line}:" in h.split(" ")[0] for h in hits), (line, hits)


def test_the_vocabulary_is_refused_beside_a_rules_plug_in(tmp_path):
    import carddb

    text = BAZAAR.replace("    players: {min: 2, max: 3}", "    rules: xo\n    players: {min: 2, max: 3}")
    (tmp_path / "cards.yaml").write_text(text)
    with pytest.raises(carddb.DatabaseError) as caught:
        carddb.load(tmp_path / "cards.yaml")
    assert any("unknown field 'zones'" in str(p) for p in caught.value.problems)


def test_a_minimal_token_and_die_validate_and_print(cli, tmp_path):
    """`{label, name, count, start, per}` and a die of faces alone: sizes and colours by
    default, printed on the token sheet and the die labels."""
    project = tmp_path / "p"
    shutil.copytree(STARTER, project)
    text = (project / "cards.yaml").read_text()
    text = re.sub(r"      cargo: \{name: Cargo.*\n.*\n", "      cargo: {label: C, name: Cargo, "
                  "count: 40, start: 3, per: player}\n", text)
    text = text.replace("        per_player: 3\n", "")
    (project / "cards.yaml").write_text(text)
    import carddb

    game = carddb.load(project / "cards.yaml").games["harbour"]
    assert game.extras["tokens"]["cargo"]["diameter_mm"] == 20
    assert game.extras["tokens"]["cargo"]["color"] == "#1d5c8c"  # the game's primary colour
    done = cli("pnp", "build", "--only", "tokens", cwd=project)
    assert done.returncode == 0, done.stderr
    from tests.pdftext import words

    text = words(project / "output" / "harbour" / "tokens.pdf")
    assert "CARGO" in text


def test_the_playtest_whole_game_is_what_the_referee_prints(folder):
    """docs/PLAYTEST.md, "a whole game, refereed": `referee new` as written, then `referee
    play` fed the answers its transcript shows (after each `] `): the same transcript."""
    project = harbour(folder)
    text = (ROOT / "docs" / "PLAYTEST.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ (referee new .*?)\n(.*?)\$ referee play\n(.*?)```", text,
                      re.S)
    assert block is not None
    import shlex

    session = project / "referee-session.db"
    run = referee(project, session)
    new = run(*shlex.split(block[1])[1:]).out
    assert new.replace(str(session), "referee-session.db") == block[2]
    answers = [m[1] for m in re.finditer(r"(?m)^[^ \n].*?\] (.*)$", block[3])]
    assert "the gull" in answers and "odds weather --at-least 1" in answers
    assert play(project, session, answers) == block[3]
    assert state(run)["over"] is True and state(run)["winner"] == ["Ann"]


def test_the_hand_limit_asks_for_the_cards_discarded(folder):
    project = bazaar(folder)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "3", "new", "bazaar", "--players", "Ann,Bob")
    who = state(run)["turn"]["player"]
    run("next")
    run("next")  # the Raid phase, at its first step
    run("draw", who, "5", "--deck", "stalls")
    run("show", who, "Spice Stall")
    for answer in (["blank", "blank", "1"], [], ["1", "1"], [], ["Windfall"]):
        run("step", *answer)  # the rolls, their steps, a card revealed (1 drawn, 1 discarded)
    assert state(run)["hands"][who]["stalls"] == 5
    transcript = play(project, session, ["spice stall"])
    assert f"{who} holds 5 cards (limit 3): discard 2 [face down] spice stall" in transcript
    assert f"{who} discards Spice Stall" in transcript
    assert f"{who} discards 1 card face down: 3 in hand" in transcript
    now = state(run)
    assert now["hands"][who]["stalls"] == 3 and "Spice Stall" in now["decks"]["stalls"]["seen"]


def test_bazaar_to_its_end_on_enter_alone(folder):
    """Every default: feast (each other player +1 fame, self +2), the referee's rolls and
    draws; the game ends by one of its conditions, its winner announced."""
    project = bazaar(folder)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "8", "new", "bazaar", "--players", "Ann,Bob,Cy")
    transcript = play(project, session, [""] * 600)
    assert "feast: " in transcript and "+1 Fame" in transcript and "+2 Fame" in transcript
    assert "the game ends" in transcript
    end = state(run)
    assert end["over"] is True and end["winner"]
    assert end["scores"] == {p: end["tokens"][p]["fame"] + 2 * len(end["zones"][p]["stalls"])
                             for p in end["players"]}


def test_odds_of_a_named_roll(folder):
    """`referee odds ROLL`: the exact distribution of a named roll's outcome (its dice and
    outcome as cards.yaml declares them)."""
    project = harbour(folder)
    run = referee(project, folder / "unused.db")
    out = run("odds", "weather", "--at-least", "1").out
    assert "weather: 3 storm (wind, wave, calm, 2), outcome wind - wave" in out
    assert "P(wind - wave >= 1) = 10/27 = 37.04%" in out
    assert "1d6: mean 3.500" in run("odds", "d6").out  # dice notation as before


def test_undo_in_play_shows_the_table_once(folder):
    """`undo`'s reply is the table; play does not print it again for the turn it restores."""
    project = harbour(folder)
    session = folder / "s.db"
    run = referee(project, session)
    run("--seed", "3", "new", "harbour", "--players", "Ann,Bob")

    def to_bobs_first_question():
        while state(run)["turn"]["number"] == 1:
            yield ""

    play(project, session, to_bobs_first_question())  # Bob's Draw ran by itself
    # Bob's draw and the step that ended Ann's turn: Ann's turn again
    transcript = play(project, session, ["undo 2", "quit"])
    after = transcript.split("undone #", 1)[1]
    assert after.count("Harbour Lights: round 1, turn 1") == 1, after
