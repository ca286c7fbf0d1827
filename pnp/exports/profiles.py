"""Output profiles: what a print shop asks for, beside the home print profile (`print:`).

A profile says how each card face leaves pnp: `format` (png / jpg images, one per face,
or a `pdf` of one card per page), `dpi`, `bleed_mm`, the card `sizes` the shop prints
(a deck of another size is left out with a warning naming it and the sizes the shop
prints; the export is refused only when it would hold no deck), `copies` (`files`: one file per physical card, as
shops that count files want; `once`: one file per design, the quantity is set at the
shop), `backs`, and `naming` (the file name pattern). cards.yaml may declare its own
under `profiles:`, each optionally `like:` a built-in preset whose values it changes.

The built-in presets (figures as the shops publish them; docs/PROOFS-AND-EXPORTS.md says
where each comes from; re-check them against the shop's current page before an order):
- tgc (The Game Crafter): PNG, 300 dpi, 1/8 in bleed: poker 2.5 x 3.5 in -> 825 x 1125 px,
  and its other card products (TGC_SIZES: bridge 750 x 1125 px, mini 600 x 825, ...).
- mpc (MakePlayingCards): PNG, 300 dpi, poker 822 x 1122 px (0.12 in bleed), and its
  bridge, mini, tarot and square cards (MPC_SIZES).
- dtc (DriveThruCards): one PDF per deck, pages 2.75 x 3.75 in (poker + 1/8 in bleed; the
  card plus 1/8 in for its bridge, mini, tarot and square cards, DTC_SIZES),
  each card's back followed by its front (`back_first`), as PDF/X-1a in CMYK with total
  ink <= 240 %, as they ask (pnp/exports/cmyk.py converts, pnp/exports/pdfx.py writes and
  checks the PDF/X).

`colour: cmyk` (pdf format only) converts the PDF to CMYK through an ICC output profile
(`icc`, else $PNP_CMYK_ICC, else the FOGRA39 profile pnp ships), caps total ink at
`ink_limit` percent and writes PDF/X-1a; the default `rgb` writes what the home build writes.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pnp.errors import PnpError

POKER = (63.5, 88.9)


def _inches(w: float, h: float) -> tuple[float, float]:
    return (round(w * 25.4, 3), round(h * 25.4, 3))


# The card sizes each shop prints (trim, mm), as their product pages name them
# (docs/PROOFS-AND-EXPORTS.md says where each comes from; re-check before an order).
TGC_SIZES: dict[str, tuple[float, float]] = {
    "poker": POKER, "bridge": _inches(2.25, 3.5), "mini": _inches(1.75, 2.5),
    "tarot": _inches(2.75, 4.75), "square": _inches(3.5, 3.5),
    "small-square": _inches(2.5, 2.5), "domino": _inches(1.75, 3.5),
    "business": _inches(2, 3.5)}
MPC_SIZES: dict[str, tuple[float, float]] = {
    "poker": POKER, "bridge": _inches(2.25, 3.5), "mini": _inches(1.75, 2.5),
    "tarot": _inches(2.75, 4.75), "square": _inches(2.5, 2.5)}
DTC_SIZES: dict[str, tuple[float, float]] = {
    "poker": POKER, "bridge": _inches(2.25, 3.5), "mini": _inches(1.75, 2.5),
    "tarot": _inches(2.75, 4.75), "square": _inches(3.5, 3.5)}
FORMATS = ("png", "jpg", "pdf")
COPIES = ("files", "once")
DEFAULT_NAMING = "{game}/{deck}--{card}--{copy}"
COLOURS = ("rgb", "cmyk")
KEYS = ("like", "title", "format", "dpi", "bleed_mm", "sizes", "copies", "backs", "naming",
        "note", "colour", "ink_limit", "icc", "back_first")


@dataclass(frozen=True)
class Profile:
    name: str
    title: str
    format: str = "png"
    dpi: int = 300
    bleed_mm: float = 3.175
    sizes: dict[str, tuple[float, float]] = field(default_factory=dict)  # empty: any size
    copies: str = "files"
    backs: bool = True
    naming: str = DEFAULT_NAMING
    note: str = ""                      # printed after the export (what pnp cannot do)
    colour: str = "rgb"                 # cmyk: PDF/X-1a through pnp.exports.pdfx (format pdf only)
    ink_limit: float = 300.0            # total ink, percent (cmyk)
    icc: str = ""                       # CMYK output profile (cmyk); "": pnp.exports.cmyk.default_icc()
    back_first: bool = False            # pdf with backs: each copy's back page before its front


PRESETS: dict[str, Profile] = {
    "tgc": Profile("tgc", "The Game Crafter", format="png", dpi=300, bleed_mm=3.175,
                   sizes=TGC_SIZES, copies="files"),
    "mpc": Profile("mpc", "MakePlayingCards", format="png", dpi=300, bleed_mm=3.048,
                   sizes=MPC_SIZES, copies="files"),
    "dtc": Profile("dtc", "DriveThruCards", format="pdf", dpi=300, bleed_mm=3.175,
                   sizes=DTC_SIZES, copies="files", naming="{game}/{deck}",
                   colour="cmyk", ink_limit=240.0, back_first=True),
}


def _bad(message: str, code: int = 1) -> PnpError:
    return PnpError(message, exit_code=code)


def profile(db: Any, name: str) -> Profile:
    """The profile NAME: cards.yaml's `profiles.NAME` (on top of its `like:` preset), else
    a built-in preset. A one-line error (exit 2) for an unknown name."""
    declared = dict(getattr(db, "profiles", None) or {})
    if name not in declared:
        if name in PRESETS:
            return PRESETS[name]
        known = sorted(set(PRESETS) | set(declared))
        raise _bad(f"unknown profile {name!r} (choose {', '.join(known)})", 2)
    spec = dict(declared[name])
    where = f"cards.yaml: profiles.{name}"
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise _bad(f"{where}.{unknown[0]}: unknown key (known: {', '.join(KEYS)})")
    like = spec.pop("like", None)
    if like is not None and like not in PRESETS:
        raise _bad(f"{where}.like: unknown preset {like!r} (choose {', '.join(PRESETS)})")
    base = PRESETS[like] if like else Profile(name, name)
    values: dict[str, Any] = {"name": name, "title": spec.pop("title", base.title if like
                                                               else name)}
    _check_choices(spec, where)
    _check_numbers(spec, where)
    if "sizes" in spec:
        spec["sizes"] = _sizes(spec["sizes"], where)
    if "naming" in spec:
        _check_naming(str(spec["naming"]), where)
    for key in ("backs", "back_first"):
        if key in spec and not isinstance(spec[key], bool):
            raise _bad(f"{where}.{key}: expected true or false")
    values.update(spec)
    result = replace(base, **values)
    if result.colour == "cmyk" and result.format != "pdf":
        raise _bad(f"{where}.colour: cmyk needs format: pdf (PDF/X-1a); images stay RGB")
    return result


def _check_choices(spec: dict, where: str) -> None:
    """format, copies and colour: one of their choices; icc: a path."""
    if "format" in spec and spec["format"] not in FORMATS:
        raise _bad(f"{where}.format: {spec['format']!r} is not one of {', '.join(FORMATS)}")
    if "copies" in spec and spec["copies"] not in COPIES:
        raise _bad(f"{where}.copies: {spec['copies']!r} is not one of {', '.join(COPIES)}")
    if "colour" in spec and spec["colour"] not in COLOURS:
        raise _bad(f"{where}.colour: {spec['colour']!r} is not one of {', '.join(COLOURS)}")
    if "icc" in spec and not isinstance(spec["icc"], str):
        raise _bad(f"{where}.icc: expected the path of a CMYK .icc file")


def _check_numbers(spec: dict, where: str) -> None:
    """dpi, bleed_mm and ink_limit: numbers within their ranges."""
    for key in ("dpi", "bleed_mm", "ink_limit"):
        if key in spec:
            value = spec[key]
            low, high = {"dpi": (72, 1200), "bleed_mm": (0, 10), "ink_limit": (100, 400)}[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    low <= value <= high):
                raise _bad(f"{where}.{key}: expected a number from {low} to {high}, "
                           f"got {value!r}")


def _sizes(sizes: Any, where: str) -> dict[str, tuple[float, float]]:
    """sizes: a mapping of name: [width, height] mm, each positive."""
    if not isinstance(sizes, dict) or not all(
            isinstance(v, list | tuple) and len(v) == 2
            and all(isinstance(x, int | float) and x > 0 for x in v)
            for v in sizes.values()):
        raise _bad(f"{where}.sizes: expected a mapping of name: [width, height] mm")
    return {str(k): (float(v[0]), float(v[1])) for k, v in sizes.items()}


NAMING_FIELDS = ("game", "deck", "card", "copy")


def _check_naming(pattern: str, where: str) -> None:
    import string

    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(pattern) if f is not None]
    except ValueError as exc:
        raise _bad(f"{where}.naming: {exc}") from None
    bad = [f for f in fields if f not in NAMING_FIELDS]
    if bad:
        raise _bad(f"{where}.naming: unknown field {{{bad[0]}}} (use "
                   f"{', '.join('{' + f + '}' for f in NAMING_FIELDS)})")
    if ".." in Path(pattern).parts or Path(pattern).is_absolute():
        raise _bad(f"{where}.naming: must stay inside the output folder")


def _prints(prof: Profile, size: tuple[float, float]) -> bool:
    w, h = size
    return any(abs(w - sw) < 0.05 and abs(h - sh) < 0.05 for sw, sh in prof.sizes.values())


def printable(prof: Profile, faces: list) -> tuple[list, list]:
    """The faces of the decks whose card size the shop prints, and a warning for each
    deck it does not (pnp.draw.layout_warning.LayoutWarning); a one-line refusal when
    no deck is left. A profile without `sizes` prints any size."""
    from pnp.draw.layout_warning import LayoutWarning

    if not prof.sizes:
        return faces, []
    kept, refused, warnings = [], [], []
    names = ", ".join(f"{n} {sw:g} x {sh:g} mm" for n, (sw, sh) in prof.sizes.items())
    shop = prof.name if prof.title == prof.name else f"{prof.title} ({prof.name})"
    seen: set = set()
    for face in faces:
        deck = face.deck
        if _prints(prof, deck.size_mm):
            kept.append(face)
            continue
        if (deck.game, deck.id) in seen:
            continue
        seen.add((deck.game, deck.id))
        w, h = deck.size_mm
        why = f"deck {deck.id!r} is {w:g} x {h:g} mm; {shop} prints {names}"
        refused.append(f"{deck.source}: {why}")
        warnings.append(LayoutWarning(deck.game, deck.id, "(deck)", "size",
                                      f"left out: {why}"))
    if faces and not kept:
        raise _bad(refused[0] if len(refused) == 1 else
                   f"no deck of this export is a size {shop} prints: {'; '.join(refused)}")
    return kept, warnings


def _name(prof: Profile, game: str, deck: str, card: str, copy: int, ext: str) -> str:
    return prof.naming.format(game=game, deck=deck, card=card, copy=copy) + f".{ext}"


def export_profile(db: Any, faces: list, renderer: Any, out: Path, prof: Profile):
    """Write what `prof` asks for under `out`; an `Exported` (files, warnings)."""
    from pnp.artefacts.single import Face, card_slugs, write_single
    from pnp.exports import staging
    from pnp.exports.cards import Exported, grouped_by_deck, render_faces, srgb_icc

    faces, left_out = printable(prof, faces)
    conv = _converter(prof, db) if prof.colour == "cmyk" else None   # a bad icc: nothing drawn
    result = Exported(warnings=left_out)
    for (game, deck_id), deck_faces in grouped_by_deck(faces).items():
        deck = deck_faces[0].deck
        if not prof.backs:
            deck_faces = [f for f in deck_faces if f.card is not None]
        if not deck_faces:
            continue
        slugs = card_slugs(deck)
        if prof.format == "pdf":
            pages: list[Face] = []
            for face in deck_faces:
                if face.card is None:
                    continue
                for _ in range(face.card.copies if prof.copies == "files" else 1):
                    pair = [face, Face(deck)] if prof.backs else [face]
                    pages += pair[::-1] if prof.back_first else pair
            path = out / _name(prof, game, deck_id, "all", 1, "pdf")
            path.parent.mkdir(parents=True, exist_ok=True)
            part = staging.part(path)
            title = f"{db.games[game].title}: {deck.title} ({prof.title})"
            drawn = write_single(part, pages, renderer, prof.bleed_mm, title)
            if conv is not None:
                _to_pdfx(part, prof, conv, title)
            staging.place(part, path)
            seen: set = set()
            for face, found in zip(drawn.faces, drawn.warnings, strict=True):
                key = None if face.card is None else face.card.name
                if key not in seen:             # each design's warnings once
                    seen.add(key)
                    result.warnings += found
            result.files.append(path)
            continue
        ext = prof.format
        for face, image, warnings in render_faces(deck_faces, renderer, prof.bleed_mm,
                                                  prof.dpi, f"{game}/{deck_id}"):
            result.warnings += warnings
            card = "back" if face.card is None else slugs[face.card.name]
            copies = 1 if face.card is None or prof.copies == "once" else face.card.copies
            first = out / _name(prof, game, deck_id, card, 1, ext)
            first.parent.mkdir(parents=True, exist_ok=True)
            if ext == "png":
                image.save(staging.target(first), "PNG", dpi=(prof.dpi, prof.dpi),
                           compress_level=3, icc_profile=srgb_icc())
            else:
                image.save(staging.target(first), "JPEG", dpi=(prof.dpi, prof.dpi), quality=95,
                           icc_profile=srgb_icc())
            result.files.append(first)
            for k in range(2, copies + 1):
                again = out / _name(prof, game, deck_id, card, k, ext)
                if again != first:
                    again.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(staging.current(first), staging.target(again))
                    result.files.append(again)
    return result


def _converter(prof: Profile, db: Any):
    """The profile's CMYK converter: its `icc` (in the project), else pnp.exports.cmyk's
    default_icc() ($PNP_CMYK_ICC, else the shipped FOGRA39), else a one-line refusal."""
    from pnp.exports.cmyk import Converter, default_icc

    icc = Path(prof.icc) if prof.icc else default_icc()
    if icc is None:
        raise _bad(f"profile {prof.name}: CMYK needs the printer's ICC output profile and "
                   f"pnp's own is missing from this install (reinstall pnp-referee): set "
                   f"`icc: PATH` in the profile (the shop publishes one) or $PNP_CMYK_ICC")
    if prof.icc and not icc.is_absolute():
        icc = Path(getattr(db, "root", ".")) / icc
    try:
        return Converter(icc, prof.ink_limit / 100)
    except (OSError, ValueError) as exc:
        raise _bad(f"profile {prof.name}: icc {prof.icc}: {exc}") from None


def _to_pdfx(part: Path, prof: Profile, conv: Any, title: str) -> None:
    """Rewrite the RGB PDF `part` as CMYK PDF/X-1a and check it; a one-line PnpError."""
    from pnp.exports.pdfx import PdfxError, check_pdfx, make_pdfx

    rgb = part.with_name(part.name + ".rgb")
    part.replace(rgb)
    try:
        make_pdfx(rgb, part, conv, title)
    except PdfxError as exc:
        part.unlink(missing_ok=True)
        raise _bad(f"profile {prof.name}: {title}: {exc}") from None
    finally:
        rgb.unlink(missing_ok=True)
    problems = check_pdfx(part)
    if problems:
        part.unlink(missing_ok=True)
        raise _bad(f"profile {prof.name}: {title}: not PDF/X-1a: {problems[0]}")
