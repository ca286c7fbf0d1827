"""`pnp build`'s options, once, as data: the click command is made from this table
(pnp.cli.build), and so is `pnp build`'s own reading of a plain command line
(`fast_params`, pnp.cli.entry), which spares the command importing click (issue 36).

`fast_params` reads only what it reads exactly as click does, the same values for the
same words; anything else (help, a usage error, a repeated option, a value it would
have to guess about) is left to click, which then answers as it always has."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, NamedTuple


class Spec(NamedTuple):
    """One option: its flags (`-j` too), the parameter it sets, its help, and its kind:
    text, dir (a folder path), choice, float, range (a float in `bounds`), jobs (an int in
    `bounds`), offset (X,Y), scale (SX,SY) or flag."""

    flags: tuple[str, ...]
    dest: str
    help: str
    kind: str = "text"
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    case_sensitive: bool = True
    bounds: tuple[float, float] | None = None
    default: Any = False            # a flag's value when not given (--ink-saver: None)


PAPERS = ("letter", "a4")
DUPLEX = ("long-edge", "short-edge")
LAYOUTS = ("auto", "gutters", "abut")

PROJECT = Spec(("--project",), "project", kind="dir",
               help="Project folder: its cards.yaml is the database, its output/ the default "
                    "output (default: the current folder).")

OPTIONS: tuple[Spec, ...] = (
    Spec(("--game",), "game", "Only this game (x-statix, xo)."),
    Spec(("--only",), "only", metavar="ARTEFACT",
         help="Only this artefact, e.g. common, statuses, mats, mats-tiled, dice-labels, "
              "tokens, reference, calibration."),
    Spec(("--paper",), "paper", kind="choice", choices=PAPERS, case_sensitive=False,
         help="Paper size (default: print.paper in cards.yaml)."),
    Spec(("--out",), "out", kind="dir", help="Output folder (default: output in the project)."),
    PROJECT,
    Spec(("--duplex",), "duplex", kind="choice", choices=DUPLEX,
         help="How the printer turns the sheet (default: print.duplex)."),
    Spec(("--back-offset",), "back_offset", kind="offset", metavar="X,Y",
         help="Shift the backs by X,Y mm to correct the printer (default: "
              "print.back_offset_mm; measure it with the calibration page)."),
    Spec(("--back-scale",), "back_scale", kind="scale", metavar="SX,SY",
         help="Scale the backs by SX,SY percent about the page centre (default: "
              "print.back_scale_pct, 100,100; pnp calibrate works it out)."),
    Spec(("--back-rotate",), "back_rotate", kind="range", bounds=(-2, 2), metavar="DEG",
         help="Turn the backs DEG degrees anticlockwise (as seen on the back) about the "
              "page centre (default: print.back_rotate_deg, 0; pnp calibrate)."),
    Spec(("--printer-margin",), "printer_margin", kind="float", metavar="MM",
         help="The band along each paper edge your printer leaves unprinted, mm "
              "(default: print.printer_margin_mm, 5); cards and cut guides stay inside."),
    Spec(("--layout",), "layout", kind="choice", choices=LAYOUTS,
         help="gutters: full bleed on every card edge; abut: neighbours share cut "
              "lines; auto (default: print.layout): gutters where they cost no card, "
              "shared lines only between cards whose bleed matches."),
    Spec(("--fold",), "fold", kind="flag", help="Fronts and backs side by side, to fold and glue."),
    Spec(("--ink-saver",), "ink_saver", kind="flag", default=None,
         help="Light frames and backs for a home printer: outlines instead of solid "
              "fills (default: print.ink_saver; templates read INK_SAVER)."),
    Spec(("--contrast",), "contrast", kind="flag",
         help="Measure each text's contrast against what is painted behind it "
              "(WCAG 4.5:1, 3:1 for large text) and warn below it, as pnp validate "
              "always does (it adds about the drawing time again)."),
    Spec(("--large-print",), "large_print", kind="flag",
         help="Set every text as large as its box allows, up to 18 pt; report the "
              "boxes that cannot hold 18 pt."),
    Spec(("--no-backs",), "no_backs", kind="flag", help="Fronts only."),
    Spec(("--strict",), "strict", kind="flag",
         help="Treat layout warnings (text overflow) as errors: list them all and "
              "leave every output as it was."),
    Spec(("--force",), "force", kind="flag",
         help="Rebuild every artefact, even those up to date."),
    Spec(("--jobs", "-j"), "jobs", kind="jobs", bounds=(1, 64), metavar="N",
         help="Draw artefacts in N worker processes, and plan the cards of a large "
              "deck in them (default: the machine's cores; 1: in this process). The "
              "output is the same whatever N."),
    Spec(("--json",), "as_json", kind="flag",
         help="Print the layout report (every page, every card's trim box) as one "
              "JSON object on stdout; the table and progress go to stderr."),
    Spec(("--changed-only",), "changed_only", kind="flag",
         help="Also write OUT/changed.pdf: only the cards added or changed since the "
              "build before (or --since), every copy, on sheets of the deck's paper "
              "with its cut guides, bleed and duplex backs, for a reprint."),
    Spec(("--since",), "since", metavar="BUILD|GIT-REF",
         help="--changed-only: compare with this build number or git commit."),
    Spec(("--lang",), "lang", metavar="LANG|all",
         help="Print in this language of cards.yaml's `languages` into OUT/LANG "
              "(all: each into its own folder); default: the first, into OUT."),
)


class _Declined(Exception):
    """A command line `fast_params` leaves to click."""


def fast_params(argv: list[str]) -> dict[str, Any] | None:
    """The parameters click would give `pnp build` for `argv` (the words after `pnp`),
    or None where click must read it: not `build` first, help, an unknown, repeated or
    malformed option, a value click would refuse or one starting with `-`, the option
    pairs `run` refuses, or shell completion asked for."""
    if not argv or argv[0] != "build" or "_PNP_COMPLETE" in os.environ:
        return None
    try:
        params = _read(argv[1:])
    except (_Declined, ValueError):
        return None
    if params["since"] is not None and not params["changed_only"]:
        return None                     # click's usage errors, said by pnp.cli.building.run
    if params["as_json"] and params["changed_only"]:
        return None
    return params


_BY_FLAG = {flag: spec for spec in OPTIONS for flag in spec.flags}


def _read(words: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {s.dest: (s.default if s.kind == "flag" else None)
                              for s in OPTIONS}
    given: set[str] = set()
    i = 0
    while i < len(words):
        word, value = words[i], None
        if word.startswith("--") and "=" in word:
            word, value = word.split("=", 1)
        spec = _BY_FLAG.get(word)
        if spec is None or spec.dest in given:
            raise _Declined
        given.add(spec.dest)
        if spec.kind == "flag":
            if value is not None:
                raise _Declined         # click: the option does not take a value
            params[spec.dest] = True
            i += 1
            continue
        if value is None:
            if i + 1 >= len(words):
                raise _Declined
            value = words[i + 1]
            i += 1
        i += 1
        if not value or value.startswith("-"):
            raise _Declined
        params[spec.dest] = _value(spec, value)
    return params


def _value(spec: Spec, word: str) -> Any:
    """`word` as click converts it for `spec`; _Declined or ValueError where click would
    refuse it (then click says so)."""
    kind = spec.kind
    if kind == "text":
        return word
    if kind == "dir":
        return _folder(word)
    if kind == "choice":
        for choice in spec.choices:
            if word == choice or (not spec.case_sensitive and word.casefold() == choice.casefold()):
                return choice
        raise _Declined
    if kind in ("float", "range", "jobs"):
        number = int(word) if kind == "jobs" else float(word)
        if spec.bounds is not None and (number < spec.bounds[0] or number > spec.bounds[1]):
            raise _Declined
        return number
    from pnp.layout.geometry import parse_offset, parse_scale

    return parse_offset(word) if kind == "offset" else parse_scale(word)


def _folder(word: str) -> Path:
    """click.Path(file_okay=False, path_type=Path): a path that is not an existing file,
    nor an existing folder this process cannot read."""
    try:
        found = os.stat(word)
    except OSError:
        return Path(word)
    if stat.S_ISREG(found.st_mode) or not os.access(word, os.R_OK):
        raise _Declined
    return Path(word)
