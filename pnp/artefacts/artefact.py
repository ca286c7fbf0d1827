"""What one artefact of `pnp build` is (`Artefact`: a game's PDF, its file stem and its
kind), how it is printed (`Options`), what drawing it gave (`Written`) and the error
that stops a build (`BuildError`). Shared by the build (pnp.artefacts.build) and the
artefact kinds that draw (pnp.artefacts.kinds), below both so neither imports the
other's module back; light at import, as the kind registry is read on every load."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pnp.artefacts.guides import GuideStyle

Progress = Callable[[int], None]


class BuildError(Exception):
    """A problem that stops the build; str() is one line saying what and where.
    `exit_code`: 1 for bad data (database, images, fonts), 2 for bad usage/input."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Artefact:
    """One PDF a build can write for a game (a deck, the tokens, a mat ...), drawn by its kind."""
    game: str
    name: str  # file stem and the value of --only
    kind: str  # the name of its kind (pnp.artefacts.kinds), which draws it
    title: str
    deck: str | None = None
    item: str | None = None  # mat id for one-mat artefacts (unused for the whole set)

    def path(self, out: Path) -> Path:
        """OUT/<game>/<name>.pdf; BuildError if that would leave OUT (pnp.outpaths)."""
        from pnp.outpaths import OutsideOutput, inside

        try:
            return inside(out, self.game, f"{self.name}.pdf")
        except OutsideOutput as exc:
            raise BuildError(f"artefact {self.game}/{self.name}: {exc}") from None

    def layout_path(self, out: Path) -> Path:
        """The layout report written beside the PDF (see `build.layout_report`)."""
        return out / self.game / f"{self.name}.layout.json"


def _default_guides() -> GuideStyle:
    """Today's look (pnp.artefacts.guides), imported when an Options is made."""
    from pnp.artefacts.guides import GuideStyle

    return GuideStyle()


@dataclass(frozen=True)
class Options:
    """The print settings a build draws with: cards.yaml's print profile and the overrides."""
    paper: str = "letter"
    bleed_mm: float = 3.175
    duplex: str = "long-edge"
    back_offset_mm: tuple[float, float] = (0.0, 0.0)
    # the backs' scale (percent per axis) and turn (degrees) about the page centre
    back_scale_pct: tuple[float, float] = (100.0, 100.0)
    back_rotate_deg: float = 0.0
    fold: bool = False
    backs: bool = True
    crop_marks: bool = True
    die_label_mm: float = 16.0
    min_text_pt: float = 6.0  # print.min_text_pt: the sheets' own text is never smaller
    printer_margin_mm: float = 5.0
    layout: str = "auto"
    ink_saver: bool = False  # print.ink_saver / --ink-saver: the renderer's INK_SAVER
    contrast: bool = False   # --contrast: text contrast measured on each face (pnp.draw.contrast)
    large_print: bool = False  # --large-print: text as large as its box allows (LARGE_PRINT_PT)
    # print.cut_guides: the guides' colour, widths, dash
    guides: GuideStyle = field(default_factory=_default_guides)

    @property
    def bleed(self) -> float:
        from pnp.layout.geometry import mm

        return mm(self.bleed_mm)

    @property
    def printer_margin(self) -> float:
        from pnp.layout.geometry import mm

        return mm(self.printer_margin_mm)

    @property
    def back_offset(self) -> tuple[float, float]:
        from pnp.layout.geometry import mm

        return mm(self.back_offset_mm[0]), mm(self.back_offset_mm[1])


@dataclass
class Written:
    """An artefact's PDF as drawn: where, how many pages and cards, its warnings and layout."""
    artefact: Artefact
    path: Path
    pages: int = 0
    cards: int = 0  # physical cards, or labels / tokens / tiles for the other artefacts
    warnings: list[Any] = field(default_factory=list)
    layout: list[dict] = field(default_factory=list)  # the pages of `layout_report`
    # (written, target) files drawn but not yet in place: build_artefact(commit=False)
    staged: list[tuple[Path, Path]] = field(default_factory=list)
