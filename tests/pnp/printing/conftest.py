"""Fixtures for the build tests. `standin`: a tiny stand-in for pnp.draw.render.CardRenderer, used only by these tests while the real
renderer is built elsewhere: it paints the bleed area, strokes nothing over the trim
and writes the card name, so geometry and text can be read back from the PDF."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pnp.draw.layout_warning import LayoutWarning


class StandInRenderer:
    def __init__(self, db, fonts):
        self.db = db
        self.fonts = fonts
        self.calls: list[tuple] = []

    def draw_front(self, canvas, card, deck, x, y, w, h, bleed):
        self.calls.append(("front", card.name, x, y, w, h, bleed))
        canvas.setFillColorRGB(0.85, 0.9, 1.0)
        canvas.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
        if card.name.startswith("Red"):
            canvas.setFillColorRGB(0.8, 0.1, 0.1)
            canvas.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
        if card.name.startswith("Glass"):  # a translucent red veil over the lower half
            canvas.saveState()
            canvas.setFillColorRGB(1, 0, 0)
            canvas.setFillAlpha(0.5)
            canvas.rect(x, y, w, h / 2, stroke=0, fill=1)
            canvas.restoreState()
        canvas.setFillColorRGB(0, 0, 0)
        canvas.setFont(self.fonts["bold"], 9)
        canvas.drawString(x + 8, y + h - 18, card.name)
        if card.name.startswith("Overflow"):
            return [LayoutWarning(card.game, card.deck, card.name, "text", "text does not fit")]
        return []

    def bleed_colors(self, card, deck, w, h, bleed):
        # "Red ..." cards have a red bleed; every other card the pale blue one
        paint = "red" if card.name.startswith("Red") else "blue"
        return (paint,) * 4

    def draw_back(self, canvas, deck, x, y, w, h, bleed):
        self.calls.append(("back", deck.id, x, y, w, h, bleed))
        canvas.setFillColorRGB(0.2, 0.2, 0.3)
        canvas.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
        canvas.setFillColorRGB(1, 1, 1)
        canvas.setFont(self.fonts["regular"], 12)
        canvas.drawCentredString(x + w / 2, y + h / 2, deck.title)
        return []

    def draw_mat(self, canvas, game, mat_id, x, y, w, h, bleed=0.0, safe=0.0):
        self.calls.append(("mat", mat_id, x, y, w, h, bleed, safe))
        canvas.setFillColorRGB(0.9, 0.95, 0.9)
        canvas.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed, stroke=1, fill=1)
        canvas.setFillColorRGB(0, 0, 0)
        canvas.setFont(self.fonts["bold"], 24)
        canvas.drawString(x + 20, y + h - 40, f"mat {mat_id}")

    def draw_reference(self, canvas, game, x, y, w, h):
        canvas.setFont(self.fonts["regular"], 12)
        canvas.drawString(x, y + h - 14, f"reference {game}")

    def draw_die_face(self, canvas, game, set_id, value, x, y, size, face=None):
        canvas.setFont(self.fonts["bold"], size / 2)
        canvas.drawCentredString(x + size / 2, y + size / 4, str(value))

    def draw_token(self, canvas, game, token_id, cx, cy, radius, bleed=0.0):
        canvas.setFont(self.fonts["bold"], radius)
        canvas.drawCentredString(cx, cy - radius / 3, token_id[:2].upper())


# ── a small database built from the model types (no cards.yaml needed) ─────────────


def _make_db(root, *, decks=None, extras=None, paper="letter", fonts=None, die_label_mm=16.0,
             size=(63.5, 88.9)):
    from pathlib import Path

    from carddb.model import Card, Database, Deck, Game, PrintProfile, Source

    root = Path(root)
    src = Source("cards.yaml", 1, 1)
    decks = decks if decks is not None else {"main": [("Alpha", 1), ("Beta", 3), ("Gamma", 1)]}
    built = {}
    for deck_id, cards in decks.items():
        items = []
        for i, entry in enumerate(cards):
            name, copies = entry[0], entry[1]
            image = entry[2] if len(entry) > 2 else None
            items.append(Card(name=name, type="Hero", text="", copies=copies, game="g",
                              deck=deck_id, fields={}, source=Source("cards.yaml", 10 + i, 5),
                              image=image))
        built[deck_id] = Deck(deck_id, "g", f"Deck {deck_id}", size, {"title": "G"},
                              tuple(items), src)
    game = Game("g", "Game G", 2, 2, {}, built, extras or {})
    profile = PrintProfile(paper, 3.175, "long-edge", (0.0, 0.0), True, die_label_mm,
                           fonts or {})
    return Database(root / "cards.yaml", profile, {"g": game})


def _cards(n, prefix="Card"):
    return [(f"{prefix} {i:03d}", 1) for i in range(n)]


@pytest.fixture
def standin():
    return StandInRenderer


@pytest.fixture(name="make_db")
def make_db_fixture():
    return _make_db


@pytest.fixture(name="cards")
def cards_fixture():
    return _cards


@pytest.fixture(scope="session")
def bundled_build(tmp_path_factory, worker_id):
    """bundled_build(paper) -> (project folder, output folder, the process): `pnp build
    --paper PAPER --json` of one copy of the bundled cards.yaml, made once a run per
    paper: Letter into the default output/, another paper into output-PAPER/. A full build
    is the costliest thing these tests do (issue 34): test_build_bundled and
    test_home_printer read one Letter build (neither writes into its output folder), and
    the other paper's build, in the same project, finds the cards planned (the plans kept
    are per project folder, pnp.draw.plan_cache). The table goes to stderr with --json;
    the table on stdout is test_build_command's. Under xdist (`--dist loadfile`) the two
    files usually run on both workers: the copy is in the run's shared temporary folder,
    and the first worker to ask for a paper builds it under a lock while the other waits,
    then reads the output and the process's answer it left beside the copy."""
    if worker_id == "master":               # no xdist: this process is the run
        root = tmp_path_factory.mktemp("bundled")
        return _bundled_builds(root, root / "project")
    root = tmp_path_factory.getbasetemp().parent / "bundled-build"   # every worker's
    root.mkdir(exist_ok=True)
    return _bundled_builds(root, root / "project")


def _bundled_builds(root: Path, folder: Path):
    """The builds of `folder` (a copy of the bundled cards.yaml), each paper made once
    under `root`'s lock and its process (exit code, output) kept in root/PAPER.json."""
    import fcntl
    import json
    import subprocess

    from tests.harness import BUNDLED, run_cli

    def build(paper: str) -> tuple[Path, Path, subprocess.CompletedProcess]:
        out = "output" if paper == "letter" else f"output-{paper}"
        answer = root / f"{paper}.json"
        with open(root / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)            # let go when the file closes
            if not answer.exists():
                if not folder.exists():
                    folder.mkdir()
                    shutil.copy(BUNDLED, folder / "cards.yaml")
                shutil.rmtree(folder / out, ignore_errors=True)   # a worker that failed
                where = [] if out == "output" else ["--out", out]
                result = run_cli("pnp", "build", "--paper", paper, "--json", *where,
                                 cwd=folder)
                assert result.returncode == 0, result.stderr
                answer.write_text(json.dumps([result.args, result.returncode, result.stdout,
                                              result.stderr]))
        args, code, stdout, stderr = json.loads(answer.read_text())
        return folder, folder / out, subprocess.CompletedProcess(args, code, stdout, stderr)

    return build
