"""`referee board` (issue 32): the public board as JSON, page and event stream; nothing
private in any of them; the turn clock kept in the session (undo, quit and resume); the
page in headless Chromium follows commands typed in other processes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from referee import clock
from referee.board.server import BoardServer
from tests._browser import CHROMIUM, SKIP_REASON, Browser
from tests.harness import ROOT, default_sigint, process_env, run_process
from tests.referee._core_support import cli


def xs_session(path: Path, deal: str = "referee") -> Path:
    cli("--session", str(path), "new", "x-statix", "--players", "Ann,Bob", "--seed", "3",
        "--deal", deal, check=0)
    return path


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read()


def caught_up(url: str, path: Path, timeout: float = 10.0) -> dict:
    """The board served at `url` once it shows the session's last event: the board reads
    the session a poll after each commit (referee.board.server.POLL_S), so a read just
    after a command may still be the board before it. Read again until then, up to
    `timeout` (a poll of the observable state, not a guess of a duration)."""
    from referee.session import Session

    with Session.open(str(path), write=False) as session:
        last = session.last_seq
    deadline = time.monotonic() + timeout
    board = json.loads(get(url + "state"))
    while board.get("seq") != last:
        assert time.monotonic() < deadline, (board.get("seq"), last)
        time.sleep(0.01)
        board = json.loads(get(url + "state"))
    return board


def first_events(url: str, count: int, timeout: float = 10.0) -> list[dict]:
    """The first `count` events of the stream at `url` (bounded in time)."""
    found: list[dict] = []
    with urllib.request.urlopen(url, timeout=timeout) as stream:
        for raw in stream:
            line = raw.decode("utf-8")
            if line.startswith("data: "):
                found.append(json.loads(line[6:]))
                if len(found) == count:
                    break
    return found


@pytest.fixture
def served(tmp_path):
    servers = []

    def start(path: Path) -> BoardServer:
        server = BoardServer(str(path), "127.0.0.1", 0).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


# ── what the board serves, and what it never serves ─────────────────────────────
def private_names(path: Path) -> set[str]:
    """The cards of the hands and the deck (the referee dealt them: they are in the state)."""
    from referee.session import Session

    with Session.open(str(path), write=False) as session:
        state = session.state
    names = {card for seat in state["table"].values() for card in seat["hand"]}
    names |= set(state["deck"])
    return names - {"?"}


def test_state_page_and_stream_hold_no_hand_no_deck_no_seed(tmp_path, served):
    path = xs_session(tmp_path / "s.db")
    cli("--session", str(path), "xs", "draw", check=0)
    secret = private_names(path)
    assert len(secret) > 50  # the whole deck and both hands: names the state holds
    server = served(path)
    page = get(server.url).decode()
    state = get(server.url + "state").decode()
    events = json.dumps(first_events(server.url + "events", 1))
    public = json.loads(state)
    assert public["state"] == json.loads(cli("--session", str(path), "status", "--json").stdout)[
        "state"]  # /state's state is status --json's
    assert public["players"][1]["stats"][2] == ["cards in hand", 8]
    for text in (page, state, events):
        assert not [name for name in secret if name in text]
        assert '"seed"' not in text
    # and the check can fail: Ann's own hand (private) names cards of `secret`
    hand = cli("--session", str(path), "xs", "hand", "--player", "Ann", "--json").stdout
    assert len([name for name in secret if name in hand]) >= 5


def test_xo_resource_stacks_show_their_face_up_cards_only(tmp_path, served):
    from referee.session import Session

    path = tmp_path / "xo.db"
    cli("--session", str(path), "new", "xo", "--players", "Ann,Bob", "--seed", "4", check=0)
    with Session.open(str(path), write=False) as session:
        stacks = session.state["resources"]
    tops = {cards[0] for cards in stacks.values() if cards}
    below = {card for cards in stacks.values() for card in cards[1:]} - tops
    assert below  # the shuffled order under the tops: the referee's alone
    server = served(path)
    state = get(server.url + "state").decode()
    events = json.dumps(first_events(server.url + "events", 1))
    assert not [name for name in below if name in state or name in events]
    assert all(top in state for top in tops)


def test_hidden_cards_of_the_tables_own_deck_and_a_kit_hand_stay_hidden(tmp_path, served):
    path = xs_session(tmp_path / "t.db", deal="table")
    server = served(path)
    board = json.loads(get(server.url + "state"))
    assert board["state"]["table"]["Ann"]["hand"] == 7 and isinstance(board["state"]["deck"], int)
    assert '"?"' not in json.dumps(board)


def test_the_board_writes_nothing(tmp_path, served):
    path = xs_session(tmp_path / "s.db")
    before = path.read_bytes()
    server = served(path)
    for method in ("POST", "PUT", "DELETE"):
        request = urllib.request.Request(server.url + "state", data=b"{}", method=method)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 405
    with pytest.raises(urllib.error.HTTPError) as missing:
        get(server.url + "nothing-here")
    assert missing.value.code == 404
    assert path.read_bytes() == before


def test_xo_board_shows_leagues_chapters_and_mask_dice(tmp_path, served):
    from referee.board import view

    class Event:  # what Session.log gives
        def __init__(self, seq, kind, payload):
            self.seq, self.kind, self.summary, self.payload, self.undone = (
                seq, kind, f"event {seq}", payload, False)

    state = {"game": "xo", "players": ["Ann", "Bob"], "leagues": {"heroes": "Dawn",
             "villains": "Dusk"}, "roster": {"heroes": [{"name": "Swift", "statuses":
             ["Stunned"], "ko": False}], "villains": []}, "chapter": 2, "won": {"1": "heroes"},
             "turn": {"number": 3, "active": "villains", "phase": "action"}, "over": False,
             "winner": None, "hands": {"heroes": 4, "villains": 5}}
    attack = Event(5, "attack", {"result": {"attack_roll": [3, 0, 2], "defense_roll": [1]}})
    stand = clock.standing(None, state, 0)
    shown = view.board(5, state, ["XO!"], stand, [attack], [state])
    ann, bob = shown["players"]
    assert ["chapters won", 1] in ann["stats"] and bob["turn"] and not ann["turn"]
    assert ann["items"] == [{"name": "Swift", "detail": "", "tags": ["Stunned"]}]
    assert shown["roll"]["groups"] == [  # XO-1: the villains attack with Black Mask dice
        {"name": "attack roll", "die": "mask", "faces": [3, 0, 2], "league": "villains"},
        {"name": "defense roll", "die": "mask", "faces": [1], "league": "heroes"}]
    from referee.xo.game import public_state

    over = public_state({**state, "over": True, "winner": "heroes"})
    assert view.board(6, over, [], stand, [], [])["winner"] == "Ann (heroes: Dawn) wins"
    drawn = public_state({**state, "over": True, "winner": None})
    assert view.board(6, drawn, [], stand, [], [])["winner"] == "a draw (XO-16)"


def test_a_declared_games_new_public_keys_show_generically():
    from referee.board import view

    state = {"game": "harbour", "kit": "table", "players": ["Ann", "Bob"], "title": "Harbour",
             "turn": {"number": 1, "round": 1, "player": "Ann", "phase": "Sail"},
             "tokens": {"Ann": {"cargo": 3}, "Bob": {"cargo": 1}}, "pool": {"cargo": 20},
             "decks": {}, "hands": {"Ann": {"ships": 2}, "Bob": {}}, "over": False,
             "winner": None, "last_roll": None,
             "score": {"Ann": 7, "Bob": 2}, "zones": {"Ann": {"harbour": ["Kestrel"]},
                                                      "Bob": {"harbour": []}},
             "weather": "calm"}
    shown = view.board(2, state, [], clock.standing(None, state, 0), [], [])
    ann = shown["players"][0]
    assert ["cargo", 3] in ann["stats"] and ["score", 7] in ann["stats"]
    assert {"name": "harbour", "detail": "Kestrel", "tags": []} in ann["items"]
    bob = shown["players"][1]
    assert bob["items"] == [{"name": "harbour", "detail": "no cards", "tags": []}]
    assert ["weather", "calm"] in shown["facts"] and ["cargo (shared)", 20] in shown["facts"]


def test_a_declared_games_roll_is_drawn_as_its_label_prints_it(tmp_path, monkeypatch):
    from pnp.cli.init import write_project
    from referee.board.server import declared_of, read_board

    project = tmp_path / "game"
    write_project(project, None)
    cards = project / "cards.yaml"
    cards.write_text(cards.read_text().replace(
        "faces: [wind, wind, wave, wave, calm, 2]",
        "faces: [wind, wind, wave, wave, {symbol: calm, icon: defense}, 2]"))
    monkeypatch.chdir(project)
    path = str(project / "k.db")
    cli("--session", path, "new", "harbour", "--players", "Ann,Bob", "--seed", "1", check=0)
    cli("--session", path, "roll", "3", "--roll", "calm,wind,2", check=0)
    cli("--session", path, "token", "Ann", "cargo", "+2", check=0)
    shown = read_board(path, *declared_of(path, None))
    group = shown["roll"]["groups"][0]
    assert shown["roll"]["who"] == shown["turn"] and group["faces"] == ["calm", "wind", "2"]
    assert group["color"] == "#1d5c8c" and group["ink"] == "#ffffff"
    assert group["icons"] == {"calm": "defense"}
    ann = shown["players"][0]  # the game's own names: its token's, its zone's, its decks'
    assert ["Cargo", 5] in ann["stats"] and ["score", 5] in ann["stats"]
    assert ann["items"] == [{"name": "harbour", "detail": "no cards", "tags": []}]
    assert ["Lantern (shared)", shown["state"]["pool"]["lantern"]] in shown["facts"]
    assert any(label == "deck Ships" for label, _ in shown["facts"])


# ── the turn clock ───────────────────────────────────────────────────────────────
def test_clock_charges_the_player_on_turn_and_stops_when_paused():
    state = {"players": ["Ann", "Bob"], "turn": {"player": "Bob"}, "over": False}
    c = clock.advance(clock.start(100.0), state, 130.0)
    assert c["used"] == {"Bob": 30.0}
    paused = {**state, "clock": {"paused": True}}
    assert clock.advance(c, paused, 500.0)["used"] == {"Bob": 30.0}
    xo = {"players": ["Ann", "Bob"], "turn": {"active": "heroes"}}
    assert clock.standing(c, xo, 140.0)["used"] == {"Ann": 10, "Bob": 30}
    assert clock.line(clock.standing(c, paused, 999.0)) == (
        "clock: Ann 0:00 · Bob 0:30; paused (referee clock resume)")
    assert clock.mmss(3725) == "1:02:05"


def fake_time(monkeypatch, start: float = 1_000_000.0) -> list[float]:
    from referee import session

    now = [start]
    monkeypatch.setattr(session, "_time", lambda: now[0])
    return now


def test_clock_survives_undo_pause_quit_and_resume(tmp_path, monkeypatch):
    now = fake_time(monkeypatch)
    path = str(xs_session(tmp_path / "s.db"))  # Bob starts (seed 3)

    def used() -> dict:
        return json.loads(cli("--session", path, "status", "--json").stdout)["clock"]

    now[0] += 60
    cli("--session", path, "xs", "draw", check=0)
    now[0] += 30
    assert used()["used"] == {"Ann": 0, "Bob": 90} and used()["running"] == "Bob"
    cli("--session", path, "undo", check=0)  # the draw taken back: Bob's minute stays his
    now[0] += 10
    assert used()["used"]["Bob"] == 100
    assert cli("--session", path, "clock", "pause", check=0).stdout.startswith("clock:")
    now[0] += 600  # a break
    assert used() == {"used": {"Ann": 0, "Bob": 100}, "running": None, "paused": True,
                      "known": True}
    assert "paused" in cli("--session", path, "status").stdout.splitlines()[-1]
    refused = cli("--session", path, "clock", "pause")
    assert refused.returncode == 1 and "already paused" in refused.stderr
    cli("--session", path, "clock", "resume", check=0)
    now[0] += 5
    # quit and resume: a new process (the point: nothing in memory) reads the clock from
    # the session alone
    code = (f"from referee import session; session._time = lambda: {now[0]!r}; "
            f"from referee.cli import main; main(['--session', {path!r}, 'status', '--json'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=process_env(), cwd=ROOT, timeout=60)
    assert json.loads(proc.stdout)["clock"]["used"] == {"Ann": 0, "Bob": 105}
    # undo of the resume pauses it again, like any command taken back
    cli("--session", path, "undo", check=0)
    assert used()["paused"] is True


def record_apart(path: Path, states: list[dict], now: list[float], together: bool) -> None:
    """`states` recorded 10, 20, 30 s... apart: by one command, or by one command each."""
    from referee.session import Session

    if together:
        with Session.open(path) as session:
            for i, state in enumerate(states):
                now[0] += 10 * (i + 1)
                session.record("mt", f"#{i}", {}, state)
        return
    for i, state in enumerate(states):
        now[0] += 10 * (i + 1)
        with Session.open(path) as session:
            session.record("mt", f"#{i}", {}, state)


def test_events_of_one_command_charge_the_clock_as_events_of_one_command_each(tmp_path,
                                                                             monkeypatch):
    """A command that records several events: each one's clock charges whoever the one
    before left on the clock (Session._clock_after knows that of an event the same
    command appended without reading it back), as when each is a command of its own. The
    turn passes Bob, Ann, Bob; once the players are a tuple (their JSON is a list)."""
    from referee.session import Session
    from tests.referee._core_support import make_session

    now = fake_time(monkeypatch)
    clocks = []
    for together in (True, False):
        path = tmp_path / f"{together}.db"
        now[0] = 1_000_000.0
        first = make_session(path)["turn"]["player"]
        states = []
        for player, players in ((first, ["Ann", "Bob"]), ({"Ann": "Bob"}.get(first, "Ann"),
                                ("Ann", "Bob")), (first, ["Ann", "Bob"])):
            with Session.open(path, write=False) as session:
                state = session.state
            state["turn"]["player"], state["players"] = player, players
            states.append(state)
        record_apart(path, states, now, together)
        with Session.open(path, write=False) as session:
            clocks.append([event.payload["clock"]["used"] for event in session.log()][1:])
    other = "Bob" if first == "Ann" else "Ann"
    assert clocks[0] == clocks[1] == [{first: 10.0}, {first: 30.0},
                                      {first: 30.0, other: 30.0}]


# ── the running board: another process's commands, a play session at once ─────────
def test_the_stream_follows_commands_of_other_processes_within_200ms(tmp_path, served):
    path = xs_session(tmp_path / "s.db")
    server = served(path)
    events = queue_of(server.url + "events", stamped=True)
    got = [events.get(timeout=10)]  # the board as it is, once the stream is open
    committed = []
    for command in (["xs", "draw"], ["xs", "pass"]):
        # another process writes (the point: the board follows other processes' commits)
        done = run_process("referee", "--session", str(path), *command)
        assert done.returncode == 0, done.stderr
        committed.append(time.monotonic())
        got.append(events.get(timeout=10))
    assert [board["seq"] for _, board in got] == [1, 2, 3]
    for done_at, (seen, _) in zip(committed, got[1:], strict=True):
        assert seen - done_at < 0.2, seen - done_at


def test_a_session_reached_through_a_link_is_followed(tmp_path, served):
    real = xs_session(tmp_path / "real.db")
    link = tmp_path / "elsewhere" / "table.db"
    link.parent.mkdir()
    link.symlink_to(real)
    server = served(link)
    events = queue_of(server.url + "events")
    assert events.get(timeout=10)["seq"] == 1
    # another process writes (as at the table: a board never shares a writer's process)
    assert run_process("referee", "--session", str(link), "xs", "draw").returncode == 0
    assert events.get(timeout=10)["seq"] == 2


def queue_of(url: str, stamped: bool = False):
    """The stream's boards on a queue, read by a thread (each wait bounded by the caller);
    `stamped`: each as (time.monotonic() when it came, board)."""
    import queue

    found: queue.Queue = queue.Queue()

    def read() -> None:
        with urllib.request.urlopen(url, timeout=20) as stream:
            for raw in stream:
                line = raw.decode()
                if line.startswith("data: "):
                    board = json.loads(line[6:])
                    found.put((time.monotonic(), board) if stamped else board)

    threading.Thread(target=read, daemon=True).start()
    return found


def test_play_and_one_shot_commands_at_once(tmp_path, served):
    """`referee play --board` walking the turn while another terminal runs commands: the
    board follows both, and ends cleanly when play ends."""
    path = xs_session(tmp_path / "s.db")
    server = served(path)
    play = subprocess.Popen(  # processes: play and one-shot commands at once is the point
        [sys.executable, "-m", "referee", "--session", str(path), "play", "--board",
         "--board-port", "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=process_env(), cwd=ROOT)
    try:
        first = play.stdout.readline()
        assert re.match(r"board: http://127\.0\.0\.1:\d+/ ", first), first
        own = first.split()[1]
        for _ in range(3):  # one-shot commands from another process meanwhile
            done = run_process("referee", "--session", str(path), "mt", "Ann", "+1")
            assert done.returncode == 0, done.stderr
        out, err = play.communicate("status\nquit\n", timeout=60)
    finally:
        if play.poll() is None:
            play.kill()
            play.wait(timeout=10)
    assert play.returncode == 0, err
    assert "Traceback" not in err
    board = caught_up(server.url, path)
    assert board["ok"] and board["state"]["table"]["Ann"]["mt"] == 11
    kinds = [e["kind"] for e in board["log"]]
    assert kinds.count("mt") == 3 and "draw" in kinds  # play's free draw (run by itself)
    with pytest.raises(OSError):  # play's own board ended with it
        get(own + "state")


def test_board_command_ends_cleanly_on_ctrl_c_and_binds_loopback(tmp_path):
    path = xs_session(tmp_path / "s.db")
    # a process: a SIGINT to the real command is the point
    proc = subprocess.Popen([sys.executable, "-m", "referee", "--session", str(path), "board",
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=process_env(), cwd=ROOT,
                            preexec_fn=default_sigint)
    try:
        first = proc.stdout.readline()
        assert first.startswith("board: http://127.0.0.1:"), first
        assert json.loads(get(first.split()[1] + "state"))["seq"] == 1
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)  # a hang guard, not a speed bound
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 0 and err == "" and out.strip() == "board: stopped"


def test_board_of_no_session_is_one_line_exit_2(tmp_path):
    proc = cli("--session", str(tmp_path / "none.db"), "board", "--port", "0")
    assert proc.returncode == 2 and "no session here" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_every_network_prints_the_address_and_a_qr_code(capsys, monkeypatch):
    from types import SimpleNamespace

    from referee.board import cli as board_cli
    from referee.board import server as board_server
    from referee.board.cli import qr_text

    monkeypatch.setattr(board_server, "lan_address", lambda: "192.168.1.20")
    board_cli.announce(SimpleNamespace(host="0.0.0.0", port=8040, url="http://127.0.0.1:8040/"))
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("board: http://192.168.1.20:8040/ (open it on a phone")
    assert "\n".join(printed[1:-1]) == qr_text("http://192.168.1.20:8040/")
    assert printed[-1] == ""  # where `play --board` stops relaying the code

    code = qr_text("http://192.168.1.20:8040/")
    lines = code.splitlines()
    assert len(lines) > 10 and len({len(line) for line in lines}) == 1
    assert set("".join(lines)) <= set(" █▀▄")


# ── the page in a real browser ─────────────────────────────────────────────────────
@pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)
def test_page_in_chromium_follows_another_process_and_fits_tv_and_phone(tmp_path, served):
    path = xs_session(tmp_path / "s.db")
    cli("--session", str(path), "xs", "draw", check=0)
    cli("--session", str(path), "xs", "pass", check=0)
    cli("--session", str(path), "xs", "recruit", "Plazm", "--roll", "5", check=0)
    server = served(path)
    browser = Browser(tmp_path / "profile", 1920, 1080)
    try:
        browser.open(server.url)
        assert browser.wait_for("document.body.dataset.seq") == "4"
        browser.js("window.loadedOnce = true")
        names = browser.js("[...document.querySelectorAll('.player .name')].map(e => e.textContent)")
        assert names == ["Ann", "Bob"]
        assert browser.js("document.querySelectorAll('#dice .die').length") == 1
        tv = browser.screenshot(tmp_path / "board-1920x1080.png")
        # another process writes: the page following it is the point
        assert run_process("referee", "--session", str(path), "mt", "Ann", "+5").returncode == 0
        assert browser.wait_for("document.body.dataset.seq == '5' && window.loadedOnce", 5)
        assert browser.js("document.querySelector('.player .stat b').textContent") == "13"
        browser.size(390, 844, mobile=True)
        assert browser.wait_for("document.querySelector('main').getBoundingClientRect().width"
                                " <= 390")
        overflow = browser.js("document.documentElement.scrollWidth")
        phone = browser.screenshot(tmp_path / "board-390x844.png")
    finally:
        browser.close()
    assert overflow <= 390  # one column, nothing wider than the phone
    from PIL import Image

    assert Image.open(tv).size == (1920, 1080) and Image.open(phone).size == (390, 844)
    if os.environ.get("BOARD_SCREENSHOTS"):  # to look at them: BOARD_SCREENSHOTS=DIR
        for shot in (tv, phone):
            Path(os.environ["BOARD_SCREENSHOTS"], shot.name).write_bytes(shot.read_bytes())


def test_a_named_roll_made_by_the_walk_shows_with_its_outcome(tmp_path, monkeypatch):
    """Rules as data: the weather roll a `play` walk makes (a `step`, not a `roll`
    command) is the board's last roll, its total the roll's outcome (wind - wave)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from pnp.cli.init import write_project
    from referee.board.server import dice_looks_of, read_board
    from referee.play.loop import Table

    project = tmp_path / "game"
    write_project(project, None)
    monkeypatch.chdir(project)
    path = str(project / "k.db")
    cli("--session", path, "new", "harbour", "--players", "Ann,Bob", "--seed", "3", check=0)
    out = io.StringIO()
    table = Table(path, str(project / "cards.yaml"), iter([""] * 4), out)
    with redirect_stdout(out), redirect_stderr(out):
        table.play()
    assert "Weather roll, 3 storm:" in out.getvalue(), out.getvalue()
    kept = json.loads(cli("--session", path, "status", "--json", check=0).stdout)["state"][
        "last_roll"]
    shown = read_board(path, dice_looks_of(path, None))
    assert shown["roll"]["groups"][0]["faces"] == [str(f) for f in kept["faces"]]
    assert shown["roll"]["total"] == kept["outcome"]
