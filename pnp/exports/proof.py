"""The proofs of `pnp proof`: every card face as a PNG rasterised (pypdfium2) from the same PDF drawing
code as `pnp build` -- the proof is the print -- with optional guides (trim line, bleed
area, safe zone), a contact sheet per deck and a static gallery, output/proof/index.html.

Files under OUT (default output/proof):
  <game>/<deck>/<card>.png, <game>/<deck>/back.png   the faces, bleed included
  <game>/<deck>-contact.png                          the deck's contact sheet
  index.html                                         the gallery (works offline)
  vision/<vision>/<game>/<deck>/<card>.png, vision/<vision>/<game>/<deck>-contact.png
      with --vision: each face and contact sheet as seen with deuteranopia, protanopia
      or tritanopia (pnp.draw.vision: Machado et al. 2009, severity 1.0)
  proof.json                                         what has been proofed so far

`proof.json` lets a proof of a few cards (`--card`) update the gallery without losing
the others: the gallery shows every proofed face of a card still in the database.
"""

from __future__ import annotations

import html
import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pnp.exports import staging

PROOF_DPI = 150
INDEX = "index.html"
RECORD = "proof.json"
THUMB_W = 180


@dataclass
class Proofed:
    """One proofed face: where its PNG is and what the checks found."""

    game: str
    deck: str
    card: str | None  # None: the deck's back
    type: str
    copies: int
    png: str  # relative to the proof folder, with /
    warnings: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return proof_key(self.game, self.deck, self.card)


def proof_key(game: str, deck: str, card: str | None) -> str:
    """A proofed face's key in proof.json (`card` None: the deck's back)."""
    return f"{game}/{deck}/{card if card is not None else ''}"


@dataclass
class ProofResult:
    faces: list[Proofed] = field(default_factory=list)
    warnings: list[Any] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def draw_guides(image: Any, box: Any, dpi: float) -> Any:
    """The proof with its guides: bleed area tinted, trim line solid, safe zone dashed."""
    from PIL import Image, ImageDraw

    scale = dpi / 72
    w, h = image.size
    trim = [round(v * scale) for v in box.trim_box]
    safe = [round(v * scale) for v in box.safe_box]
    # PDF y runs up, image y runs down.
    t = (trim[0], h - trim[3], trim[2], h - trim[1])
    s = (safe[0], h - safe[3], safe[2], h - safe[1])
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    d = ImageDraw.Draw(overlay)
    tint = (255, 0, 80, 70)
    d.rectangle((0, 0, w, t[1]), fill=tint)
    d.rectangle((0, t[3], w, h), fill=tint)
    d.rectangle((0, t[1], t[0], t[3]), fill=tint)
    d.rectangle((t[2], t[1], w, t[3]), fill=tint)
    line = max(1, round(dpi / 150))
    d.rectangle(t, outline=(0, 150, 255, 255), width=line)
    dash = max(4, round(dpi / 20))
    for x0, y0, x1, y1 in ((s[0], s[1], s[2], s[1]), (s[0], s[3], s[2], s[3]),
                           (s[0], s[1], s[0], s[3]), (s[2], s[1], s[2], s[3])):
        length = max(abs(x1 - x0), abs(y1 - y0))
        for start in range(0, length, 2 * dash):
            end = min(start + dash, length)
            if x0 == x1:
                d.line((x0, y0 + start, x0, y0 + end), fill=(0, 170, 60, 255), width=line)
            else:
                d.line((x0 + start, y0, x0 + end, y0), fill=(0, 170, 60, 255), width=line)
    return Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")


def proof_faces(db: Any, faces: list, renderer: Any, out: Path, dpi: float = PROOF_DPI,
                guides: bool = False, changes: Any = None, jobs: int | None = 1,
                visions: tuple[str, ...] = ()) -> ProofResult:
    """Rasterise each face from a one-card-per-page PDF, run the layout checks, write the
    PNGs, the deck contact sheets and the gallery. `jobs` > 1 (None: the machine's
    cores): the decks, each with its contact sheet, are proofed by that many worker
    processes (pnp.artefacts.workers); the files are the same whatever `jobs`.
    `visions` (names of pnp.draw.colour.VISION): each face and contact sheet also as
    seen with that colour vision deficiency, under OUT/vision/<vision>/."""
    from pnp.artefacts.workers import FEW_FACES, in_order

    result = ProofResult()
    record = load_record(out)
    groups = grouped_by_deck_faces(faces)
    shared = (db, renderer, record, out, dpi, guides, visions)
    sheets = []
    # a forked worker draws with this very renderer, a spawned one makes its own
    for entries, warnings, files, sheet in in_order(
            _deck_task, shared, groups, jobs, cost=len, small=FEW_FACES,
            spawned=(db, None, record, out, dpi, guides, visions)):
        result.warnings += warnings
        result.files += files
        sheets.append(sheet)
        result.faces += entries
    for entry in result.faces:
        record[entry.key] = entry
    record = current_entries(db, record, out)
    save_record(out, record)
    result.files += sheets
    index = out / INDEX
    staging.target(index).write_text(gallery_html(db, record, changes), encoding="utf-8")
    result.files.append(index)
    return result


def grouped_by_deck_faces(faces: list) -> list[list]:
    from pnp.exports.cards import grouped_by_deck

    return list(grouped_by_deck(faces).values())


def proof_deck(db: Any, deck_faces: list, renderer: Any, record: dict[str, Proofed],
               out: Path, dpi: float, guides: bool, visions: tuple[str, ...] = ()
               ) -> tuple[list[Proofed], list[Any], list[Path], Path]:
    """One deck's faces proofed and its contact sheet drawn: (entries, warnings, PNG
    files written, the contact sheet). `record`: what was proofed before (the sheet
    shows the deck's other faces proofed earlier too); it is not changed."""
    from pnp.outpaths import inside

    entries, warnings, files = _proof_deck(db, deck_faces, renderer, out, dpi, guides)
    deck = deck_faces[0].deck
    for vision in visions:
        files += _vision_proofs(entries, out, vision, deck.title)
    mine = {k: replace(e) for k, e in record.items()    # copies: refreshed below
            if (e.game, e.deck) == (deck.game, deck.id)}
    mine.update((e.key, e) for e in entries)
    shown = current_entries(db, mine, out, only=(deck.game, deck.id))
    path = inside(out, deck.game, f"{deck.id}-contact.png")
    contact_sheet(list(shown.values()), out, deck.title).save(staging.target(path), "PNG")
    return entries, warnings, files, path


def _proof_deck(db: Any, deck_faces: list, renderer: Any, out: Path, dpi: float,
                guides: bool, slugs: dict[str, str] | None = None
                ) -> tuple[list[Proofed], list[Any], list[Path]]:
    """One deck's faces proofed: (entries, warnings, PNG files written). `slugs`: the
    deck's `card_slugs` when the caller has them (a big deck's take a while)."""
    from pnp.artefacts.single import card_slugs, rasterise, write_single
    from pnp.draw.checks import text_outside_safe_zone
    from pnp.outpaths import inside

    deck = deck_faces[0].deck
    game, deck_id = deck.game, deck.id
    folder = inside(out, game, deck_id)
    folder.mkdir(parents=True, exist_ok=True)
    slugs = card_slugs(deck) if slugs is None else slugs
    pdf = io.BytesIO()
    drawn = write_single(pdf, deck_faces, renderer, db.print.bleed_mm,
                         f"proof of {game}/{deck_id}")
    text_found = text_outside_safe_zone(pdf.getvalue(), drawn.faces, drawn.boxes)
    images = rasterise(pdf.getvalue(), dpi)
    entries, all_warnings, files = [], [], []
    for face, box, image, found, more in zip(drawn.faces, drawn.boxes, images,
                                             drawn.warnings, text_found, strict=True):
        warnings = _distinct(found + more)
        all_warnings += warnings
        if guides:
            image = draw_guides(image, box, dpi)
        name = "back" if face.card is None else slugs[face.card.name]
        path = inside(folder, f"{name}.png")
        image.save(staging.target(path), "PNG", dpi=(dpi, dpi), compress_level=1)
        files.append(path)
        entries.append(Proofed(game, deck_id, None if face.card is None else face.card.name,
                               "Back" if face.card is None else face.card.type,
                               deck.count if face.card is None else face.card.copies,
                               path.relative_to(out).as_posix(),
                               [f"{w.element}: {w.message}" for w in warnings]))
    return entries, all_warnings, files


def _vision_proofs(entries: list[Proofed], out: Path, vision: str, title: str) -> list[Path]:
    """The deck's proofs as seen with `vision`: each face and a contact sheet of them,
    under OUT/vision/<vision>/ (the same paths as the proofs' own)."""
    from PIL import Image

    from pnp.draw.vision import simulate_image
    from pnp.outpaths import inside

    files: list[Path] = []
    seen: list[Proofed] = []
    for e in entries:
        png = f"vision/{vision}/{e.png}"
        path = inside(out, *png.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        with Image.open(staging.current(inside(out, *e.png.split("/")))) as im:
            simulate_image(im, vision).save(staging.target(path), "PNG", compress_level=1)
        files.append(path)
        seen.append(replace(e, png=png))
    if seen:
        first = seen[0].png.split("/")
        sheet = inside(out, *first[:-2], f"{first[-2]}-contact.png")
        contact_sheet(seen, out, f"{title} ({vision})").save(
            staging.target(sheet), "PNG")
        files.append(sheet)
    return files


def _deck_task(shared: tuple, deck_faces: list) -> tuple:
    """`proof_deck` as a piece of pnp.artefacts.workers.in_order (the cost of a deck:
    its faces, each drawn, rasterised, written and shown)."""
    db, renderer, record, out, dpi, guides, visions = shared
    if renderer is None:                # a spawned worker
        from pnp.draw.render import card_renderer

        renderer = card_renderer(db)
    return proof_deck(db, deck_faces, renderer, record, out, dpi, guides, visions)


def _distinct(warnings: list[Any]) -> list[Any]:
    seen, out = set(), []
    for w in warnings:
        key = (w.game, w.deck, w.card, w.element, w.message)
        if key not in seen:
            seen.add(key)
            out.append(w)
    return out


# ── the record of what has been proofed ───────────────────────────────────────────


def load_record(out: Path) -> dict[str, Proofed]:
    try:
        raw = json.loads((out / RECORD).read_text(encoding="utf-8"))
        entries = [Proofed(**item) for item in raw["faces"]]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {e.key: e for e in entries}


def save_record(out: Path, record: dict[str, Proofed]) -> None:
    data = {"faces": [vars(e) for e in record.values()]}
    staging.target(out / RECORD).write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")


def current_entries(db: Any, record: dict[str, Proofed], out: Path,
                    only: tuple[str, str] | None = None) -> dict[str, Proofed]:
    """The record in database order, without cards that no longer exist or lost their
    PNG; types and copies refreshed from the database. `only` (game, deck id): that
    deck's alone."""
    ordered: dict[str, Proofed] = {}
    for gid, game in db.games.items():
        for did, deck in game.decks.items():
            if only is not None and only != (gid, did):
                continue
            for card in [*deck.cards, None]:
                key = f"{gid}/{did}/{card.name if card is not None else ''}"
                entry = record.get(key)
                if entry is None or not _recorded_png(out, entry.png):
                    continue
                entry.type = card.type if card is not None else "Back"
                entry.copies = card.copies if card is not None else deck.count
                ordered[key] = entry
    return ordered


def _recorded_png(out: Path, png: Any) -> bool:
    """A PNG named in proof.json exists inside the proof folder (the record is a file
    anyone can edit: it must not make the proof read elsewhere)."""
    from pnp.outpaths import OutsideOutput, inside

    try:
        return staging.current(inside(out, *str(png).split("/"))).is_file()
    except (OutsideOutput, OSError):
        return False


# ── contact sheet ─────────────────────────────────────────────────────────────────


def _font(size: int):
    from PIL import ImageFont

    try:
        from pnp.draw.fonts import reportlab_font_dir

        return ImageFont.truetype(str(reportlab_font_dir() / "Vera.ttf"), size)
    except (ImportError, OSError):
        return ImageFont.load_default(size)


def contact_sheet(entries: list[Proofed], out: Path, title: str, cols: int = 6) -> Any:
    """Thumbnails of a deck's proofed faces with their names; faces with warnings framed
    in red."""
    from PIL import Image, ImageDraw

    thumbs = []
    for e in entries:
        with Image.open(staging.current(out / e.png)) as im:
            h = round(im.height * THUMB_W / im.width)
            thumbs.append((e, im.convert("RGB").resize((THUMB_W, h), Image.Resampling.LANCZOS)))
    cell_h = max((t.height for _, t in thumbs), default=250) + 34
    pad, head = 12, 40
    rows = max(1, -(-len(thumbs) // cols))
    sheet = Image.new("RGB", (pad + cols * (THUMB_W + pad), head + rows * (cell_h + pad)),
                      "white")
    d = ImageDraw.Draw(sheet)
    d.text((pad, 10), f"{title} \u2014 {len(entries)} faces", fill="black", font=_font(18))
    small = _font(11)
    for i, (e, thumb) in enumerate(thumbs):
        x = pad + (i % cols) * (THUMB_W + pad)
        y = head + (i // cols) * (cell_h + pad)
        sheet.paste(thumb, (x, y))
        if e.warnings:
            d.rectangle((x - 3, y - 3, x + THUMB_W + 2, y + thumb.height + 2),
                        outline=(220, 0, 0), width=3)
        label = e.card if e.card is not None else "(back)"
        d.text((x, y + thumb.height + 4), _fit(d, label, small), fill="black", font=small)
        extra = f"{e.type} x{e.copies}" + (f" \u2014 {len(e.warnings)} warning(s)"
                                           if e.warnings else "")
        d.text((x, y + thumb.height + 18), _fit(d, extra, small),
               fill=(200, 0, 0) if e.warnings else (90, 90, 90), font=small)
    return sheet


def _fit(d, text: str, font) -> str:
    while len(text) > 1 and d.textlength(text, font=font) > THUMB_W:
        text = text.removesuffix("\u2026")[:-1] + "\u2026"
    return text


# ── gallery ───────────────────────────────────────────────────────────────────────

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f3f1ec;color:#222}
header{position:sticky;top:0;background:#222;color:#fff;padding:10px 16px;display:flex;
gap:16px;align-items:center;flex-wrap:wrap;z-index:1}
header h1{font-size:18px;margin:0}
header input[type=search]{font-size:15px;padding:4px 8px;width:22em}
main{padding:8px 16px}
h2{border-bottom:2px solid #222;margin:24px 0 8px}
h3{margin:16px 0 8px}
h3 small{font-weight:normal;color:#666}
.cards{display:flex;flex-wrap:wrap;gap:14px}
figure{margin:0;width:190px;background:#fff;padding:6px;border-radius:6px;
box-shadow:0 1px 3px #0003}
figure img{width:100%;display:block;background:#ddd}
figure img.broken{outline:3px solid red;min-height:60px}
figcaption{font-size:12px;margin-top:4px}
figcaption .meta{color:#666}
ul.warnings{color:#b00;margin:4px 0 0;padding-left:16px;font-size:11px}
figure.warn{box-shadow:0 0 0 3px #d00}
figure.changed{outline:3px solid #e69b00;outline-offset:2px}
.change{color:#a86b00;font-weight:bold}
.hidden{display:none}
"""

_SCRIPT = """
const box = document.getElementById('filter');
const onlyWarn = document.getElementById('only-warnings');
const onlyChanged = document.getElementById('only-changed');  // when a build diff is known
const count = document.getElementById('count');
function apply() {
  const words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
  let shown = 0;
  for (const fig of document.querySelectorAll('figure.card')) {
    const hay = fig.dataset.search;
    const ok = words.every(w => hay.includes(w)) &&
               (!onlyWarn.checked || fig.classList.contains('warn')) &&
               (!onlyChanged || !onlyChanged.checked || fig.classList.contains('changed'));
    fig.classList.toggle('hidden', !ok);
    if (ok) shown++;
  }
  for (const sec of document.querySelectorAll('section.deck, section.game')) {
    sec.classList.toggle('hidden', !sec.querySelector('figure.card:not(.hidden)'));
  }
  count.textContent = shown + ' shown';
}
// index.html#q=WORDS opens the gallery filtered (a bookmarkable filter).
if (location.hash.startsWith('#q=')) box.value = decodeURIComponent(location.hash.slice(3));
box.addEventListener('input', apply);
onlyWarn.addEventListener('change', apply);
if (onlyChanged) onlyChanged.addEventListener('change', apply);
window.addEventListener('load', () => {
  // Mark images that did not load, so a missing file shows at a glance.
  const imgs = [...document.images];
  const broken = imgs.filter(img => !img.complete || img.naturalWidth === 0);
  broken.forEach(img => img.classList.add('broken'));
  document.body.dataset.imagesChecked = imgs.length;
  document.body.dataset.imagesBroken = broken.length;
});
apply();
"""


def gallery_html(db: Any, record: dict[str, Proofed], changes: Any = None) -> str:
    """A self-contained page: cards grouped by game and deck, each with its name, type,
    copies and warnings, and a filter box (plain JS). Image paths are relative, so the
    page works when opened straight from the disk. With `changes` (pnp.exports.diff.Changes) the
    cards added or changed since that build are outlined and labelled, with a switch to
    show only them."""
    esc = html.escape
    total = len(record)
    warned = sum(1 for e in record.values() if e.warnings)
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>Card proofs</title>", f"<style>{_STYLE}</style></head><body>",
             "<header><h1>Card proofs</h1>",
             '<input type="search" id="filter" placeholder="Filter: name, type, text, warning"'
             ' autofocus>',
             '<label><input type="checkbox" id="only-warnings"> only cards with warnings'
             "</label>",
             *_changes_header(changes),
             f'<span id="count">{total} shown</span>',
             f"<span>{total} faces, {warned} with warnings</span></header><main>"]
    for gid, game in db.games.items():
        decks = []
        for did, deck in game.decks.items():
            entries = [e for e in record.values() if (e.game, e.deck) == (gid, did)]
            if entries:
                decks.append((did, deck, entries))
        if not decks:
            continue
        parts.append(f'<section class="game" id="{esc(gid)}"><h2>{esc(game.title)}</h2>')
        for did, deck, entries in decks:
            contact = f"{gid}/{did}-contact.png"
            parts.append(
                f'<section class="deck" id="{esc(gid)}-{esc(did)}"><h3>{esc(deck.title)} '
                f"<small>{esc(did)} \u00b7 {len(deck.cards)} designs, {deck.count} cards \u00b7 "
                f'<a href="{esc(contact)}">contact sheet</a></small></h3><div class="cards">')
            for e in entries:
                parts.append(_figure(e, db, _change_of(changes, e)))
            parts.append("</div></section>")
        parts.append("</section>")
    parts.append(f"</main><script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def _changes_header(changes: Any) -> list[str]:
    if changes is None:
        return []
    n = len(changes.reprint)
    gone = f", {len(changes.removed)} removed" if changes.removed else ""
    return ['<label><input type="checkbox" id="only-changed"> only cards changed since '
            f"{html.escape(changes.since)}</label>",
            f'<span class="change">{n} added or changed{html.escape(gone)}</span>']


def _change_of(changes: Any, e: Proofed) -> str | None:
    """"added" / "changed: front, back" for a card face, None when unchanged or unknown.
    A deck's back is marked when any card's back changed."""
    if changes is None:
        return None
    if e.card is None:
        prefix = f"{e.game}/{e.deck}/"
        if any(k.startswith(prefix) and "back" in v for k, v in changes.changed.items()):
            return "changed: back"
        return None
    key = f"{e.game}/{e.deck}/{e.card}"
    if key in changes.added:
        return "added"
    if key in changes.changed:
        return "changed: " + ", ".join(changes.changed[key])
    return None


def _figure(e: Proofed, db: Any, change: str | None = None) -> str:
    esc = html.escape
    name = e.card if e.card is not None else "(back)"
    text = ""
    if e.card is not None:
        try:
            text = db.games[e.game].card(e.card).text
        except KeyError:
            text = ""
    search = " ".join([name, e.type, e.deck, text, *e.warnings, change or ""]).lower()
    classes = "card" + (" warn" if e.warnings else "") + (" changed" if change else "")
    warn_items = "".join(f"<li>{esc(w)}</li>" for w in e.warnings)
    return (f'<figure class="{classes}" data-search="{esc(search)}">'
            f'<a href="{esc(e.png)}"><img src="{esc(e.png)}" alt="{esc(name)}"></a>'
            f"<figcaption><b>{esc(name)}</b><br><span class=\"meta\">{esc(e.type)} \u00b7 "
            f"{e.copies} {'copy' if e.copies == 1 else 'copies'}</span>"
            + (f'<br><span class="change">{esc(change)}</span>' if change else "")
            + (f'<ul class="warnings">{warn_items}</ul>' if e.warnings else "")
            + "</figcaption></figure>")


def gallery_changes(builds: Path, project: Path | None, since: str | None,
                    notify: Any = None) -> Any:
    """What `pnp diff` says for the gallery; None (no marks) when nothing was built yet
    and no --since was asked for, or when the build before was recorded in another
    format (an upgrade: its cards cannot be compared)."""
    from pnp.artefacts import drawn
    from pnp.exports.diff import changes

    found = drawn.records(builds)
    if since is None and not found:
        return None
    if since is None and len(found) > 1 and len({
            drawn.record_format(drawn.read_record(p)) for p in found[-2:]}) > 1:
        return None
    return changes(builds, project, since, notify)
