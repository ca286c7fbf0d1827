"""What an export target declares (`Target`), the options it takes (`Option`, data the
`pnp export` command turns into click options) and what it is given to write (`Job`).

    TARGET = Target("png", "one PNG per card face", write, options=(Option(...),))
    def write(job: Job, dpi: int) -> Exported: ...

`write` receives the job and one keyword per option (its `dest`); it returns the files
it wrote and the layout warnings met (pnp.exports.cards.Exported). It raises PnpError
for a refusal; the caller turns renderer and file-system failures into one-line errors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("str", "int", "float", "flag")


@dataclass(frozen=True)
class Option:
    """One option of one target: `flags` as on the command line ("--dpi", "--no-backs",
    "--jpeg/--png-sheets" for an on/off pair), `dest` the keyword `write` receives,
    `kind` one of KINDS, `limits` an inclusive (low, high) for an int."""
    flags: str
    dest: str
    help: str
    kind: str = "str"
    default: Any = None
    limits: tuple[int, int] | None = None
    metavar: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"option {self.flags}: kind {self.kind!r} is not one of {KINDS}")
        if not self.flags.startswith("--"):
            raise ValueError(f"option {self.flags!r} must start with --")


@dataclass
class Job:
    """What one export writes from: the database, the output folder and the selection
    (`game`, `decks`, `cards` as `--game/--deck/--card` give them). `faces()` and
    `renderer()` are made on first use, by the callables given (the CLI passes its
    own, which turn a bad selection into a one-line usage error), so a target that
    needs neither (cut imposes whole decks itself) pays for neither."""
    db: Any
    out: Path
    game: str | None = None
    decks: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()
    choose: Callable[..., list] | None = None          # (db, game, decks, cards) -> faces
    make_renderer: Callable[[Any], Any] | None = None  # db -> renderer
    notify: Callable[[str], None] | None = None        # font notices
    report: Callable[[str], None] | None = None        # lines for the terminal (cut's grid)
    _faces: list | None = field(default=None, repr=False)
    _renderer: Any = field(default=None, repr=False)

    def faces(self) -> list:
        """The selected faces, each deck's back included."""
        if self._faces is None:
            if self.choose is None:
                from pnp.artefacts.single import select_faces

                self._faces = select_faces(self.db, self.game, self.decks, self.cards, True)
            else:
                self._faces = self.choose(self.db, self.game, self.decks, self.cards)
        return self._faces

    def renderer(self) -> Any:
        if self._renderer is None:
            if self.make_renderer is None:
                from pnp.draw.render import card_renderer

                self._renderer = card_renderer(self.db, notify=self.notify)
            else:
                self._renderer = self.make_renderer(self.db)
        return self._renderer


@dataclass(frozen=True)
class Target:
    """An export target: its `name` (`pnp export NAME`), a one-line `summary` of what it
    writes (the command's help lists it), `write(job, **options)` and its options."""
    name: str
    summary: str
    write: Callable[..., Any]
    options: tuple[Option, ...] = ()


# What every target that rasterises deck by deck takes (png, tabletopia, tts; issue 24):
# the decks drawn by N worker processes (pnp.artefacts.workers.in_order).
JOBS = Option("--jobs", "jobs", "draw the decks in N worker processes (default: the "
              "machine's cores; 1: in this process); the files are the same whatever N.",
              kind="int", limits=(1, 64), metavar="N")
