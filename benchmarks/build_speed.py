"""How fast is `pnp build`?

1. The full build of the bundled cards.yaml (every artefact of both games) against the
   same number of card frames drawn by bare ReportLab calls in the same process: each
   frame the elements of an X-Statix Hero front written out by hand (no templates, no
   markup), same fonts, same page layout. Frames = the fronts and backs placed plus the
   labels, tokens, mats, tiles and pages of the other artefacts. Target: the build within
   1.5x of that baseline.
2. A synthetic deck of 10,000 cards (the bundled X-Statix cards, renamed and repeated),
   run in a fresh process so its peak memory is its own. Targets: under 1.5 ms per card,
   peak memory under 300 MB.

Run from the project root:  PYTHONPATH=. python benchmarks/build_speed.py [--cards N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _setup():
    import carddb
    from pnp.draw.fonts import register_fonts
    from pnp.draw.render import CardRenderer

    db = carddb.load(ROOT / "cards.yaml")
    fonts = register_fonts(db.print.fonts, db.root)
    return db, fonts, CardRenderer


def full_build(out: Path) -> tuple[tuple[float, float], int]:
    """(wall, CPU) seconds for every artefact of the bundled database, and the frames."""
    from pnp.artefacts import build as b

    db, fonts, CardRenderer = _setup()
    opts = b.options_from_profile(db.print)
    start, cpu = time.perf_counter(), time.process_time()
    renderer = CardRenderer(db, fonts)
    frames = 0
    for art in b.artefacts(db):
        result = b.build_artefact(db, art, opts, renderer, fonts, out)
        # a deck draws each card twice (front and back); the rest one item each
        frames += result.cards * (2 if art.kind == "deck" and opts.backs else 1)
    return (time.perf_counter() - start, time.process_time() - cpu), frames


def bare_reportlab(frames: int, out: Path, fonts: dict[str, str]) -> tuple[float, float]:
    """Seconds to draw `frames` poker cards, 9 to a Letter page, with plain ReportLab calls
    and no templates: the same elements as an X-Statix Hero front (bleed, panel, name
    banner, type tag, tinted art window with a mask icon, wrapped rules text, footer)."""
    from reportlab.lib.colors import HexColor
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen.canvas import Canvas

    mm = 72 / 25.4
    red, ink, paper = HexColor("#d7262e"), HexColor("#111111"), HexColor("#fdf6e3")
    text = "Give +1 or -1 to one target roll on your turn"
    start, cpu = time.perf_counter(), time.process_time()
    c = Canvas(str(out), pagesize=letter, invariant=1, pageCompression=1,
               initialFontName=fonts["regular"])
    w, h, b = 63.5 * mm, 88.9 * mm, 3.175 * mm
    for i in range(frames):
        slot = i % 9
        x, y = 18 + (slot % 3) * (w + 2 * b), 18 + (slot // 3) * h
        c.saveState()
        p = c.beginPath()
        p.rect(x - b, y, w + 2 * b, h)
        c.clipPath(p, stroke=0, fill=0)
        c.setFillColor(ink)
        c.rect(x - b, y - b, w + 2 * b, h + 2 * b, stroke=0, fill=1)
        c.setFillColor(paper)
        c.roundRect(x + 2.4 * mm, y + 2.4 * mm, w - 4.8 * mm, h - 4.8 * mm, 2.2 * mm, stroke=0, fill=1)
        c.setFillColor(red)
        c.roundRect(x + 2.4 * mm, y + h - 15 * mm, w - 4.8 * mm, 12.6 * mm, 2.2 * mm, stroke=0, fill=1)
        c.rect(x + 2.4 * mm, y + h - 15 * mm, w - 4.8 * mm, 6 * mm, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.setFont(fonts["bold"], 13)
        c.drawString(x + 5 * mm, y + h - 10 * mm, f"Hero frame {i}")
        c.saveState()
        c.setFillColor(red)
        c.setFillAlpha(0.16)
        c.rect(x + 5 * mm, y + h - 53.5 * mm, w - 10 * mm, 36 * mm, stroke=0, fill=1)
        c.setFillAlpha(0.12)
        p = c.beginPath()
        p.moveTo(x + 5 * mm, y + h - 53.5 * mm)
        p.lineTo(x + w - 5 * mm, y + h - 30 * mm)
        p.lineTo(x + w - 5 * mm, y + h - 53.5 * mm)
        p.close()
        c.drawPath(p, stroke=0, fill=1)
        c.restoreState()
        cx, cy = x + w / 2, y + h - 35.5 * mm  # the mask icon: outline and two eye holes
        c.setFillColor(red)
        p = c.beginPath()
        p.moveTo(cx - 11 * mm, cy)
        p.curveTo(cx - 10 * mm, cy + 8 * mm, cx - 2 * mm, cy + 5 * mm, cx, cy + 3 * mm)
        p.curveTo(cx + 2 * mm, cy + 5 * mm, cx + 10 * mm, cy + 8 * mm, cx + 11 * mm, cy)
        p.curveTo(cx + 10 * mm, cy - 7 * mm, cx + 2 * mm, cy - 5 * mm, cx, cy - 2 * mm)
        p.curveTo(cx - 2 * mm, cy - 5 * mm, cx - 10 * mm, cy - 7 * mm, cx - 11 * mm, cy)
        p.ellipse(cx - 8 * mm, cy - 2 * mm, 5 * mm, 3.5 * mm)
        p.ellipse(cx + 3 * mm, cy - 2 * mm, 5 * mm, 3.5 * mm)
        c.drawPath(p, stroke=0, fill=1, fillMode=0)
        c.setStrokeColor(ink)
        c.setLineWidth(0.8)
        c.rect(x + 5 * mm, y + h - 53.5 * mm, w - 10 * mm, 36 * mm, stroke=1, fill=0)
        c.setFillColor(ink)
        c.roundRect(x + w - 27 * mm, y + h - 18.8 * mm, 22 * mm, 5.2 * mm, 0.8 * mm, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.setFont(fonts["bold"], 7)
        c.drawCentredString(x + w - 16 * mm, y + h - 17.2 * mm, "HERO")
        size = 10.0  # shrink the rules text until it fits its box, as the templates do
        while True:
            lines = simpleSplit(text, fonts["regular"], size, w - 11.2 * mm)
            if len(lines) * size * 1.2 <= 22 * mm or size <= 6:
                break
            size -= 0.5
        c.setFillColor(ink)
        c.setFont(fonts["regular"], size)
        for n, line in enumerate(lines):
            width = stringWidth(line, fonts["regular"], size)
            c.drawString(x + (w - width) / 2, y + 25 * mm - n * size * 1.2, line)
        c.setLineWidth(0.4)
        c.line(x + 5 * mm, y + 8.6 * mm, x + w - 5 * mm, y + 8.6 * mm)
        c.setFillColor(HexColor("#777777"))
        c.setFont(fonts["bold"], 5.5)
        c.drawCentredString(x + w / 2, y + 5.2 * mm, "X-STATIX  ·  COMMON DECK")
        c.restoreState()
        if slot == 8:
            c.showPage()
    c.showPage()
    c.save()
    return time.perf_counter() - start, time.process_time() - cpu


def synthetic(n: int, out: Path) -> dict:
    """Build one deck of `n` cards; report seconds, ms per card and peak RSS in MB."""
    from pnp.artefacts import build as b

    db, fonts, CardRenderer = _setup()
    game = db.games["x-statix"]
    pool = [c for deck in game.decks.values() for c in deck.cards]
    source = game.decks["common"]
    cards = tuple(dataclasses.replace(pool[i % len(pool)], name=f"{pool[i % len(pool)].name} {i}",
                                      copies=1, deck="synthetic") for i in range(n))
    deck = dataclasses.replace(source, id="synthetic", title="Synthetic", cards=cards)
    synth_game = dataclasses.replace(game, decks={"synthetic": deck})
    db = dataclasses.replace(db, games={**db.games, "x-statix": synth_game})
    art = b.Artefact("x-statix", "synthetic", "deck", "Synthetic deck", deck="synthetic")
    opts = b.options_from_profile(db.print)
    start, cpu = time.perf_counter(), time.process_time()
    result = b.build_artefact(db, art, opts, CardRenderer(db, fonts), fonts, out)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    return {"cards": result.cards, "pages": result.pages, "seconds": seconds,
            "ms_per_card": 1000 * seconds / result.cards,
            "cpu_ms_per_card": 1000 * cpu_seconds / result.cards, "peak_mb": peak_kb / 1024,
            "bytes": result.path.stat().st_size}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000, help="synthetic deck size")
    parser.add_argument("--repeat", type=int, default=3, help="best of N for the full build")
    parser.add_argument("--synthetic-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if args.synthetic_only:
            print(json.dumps(synthetic(args.cards, out)))
            return 0

        _, fonts, _ = _setup()
        full_build(out / "warm")  # imports, template compilation, font subsets
        builds, bases = [], []
        for i in range(args.repeat):
            times, frames = full_build(out / f"run{i}")
            builds.append(times)
            bases.append(bare_reportlab(frames, out / f"bare{i}.pdf", fonts))
        # Best of N; CPU time is the fairer figure on a machine shared with other work.
        build_wall, build_cpu = min(t[0] for t in builds), min(t[1] for t in builds)
        base_wall, base_cpu = min(t[0] for t in bases), min(t[1] for t in bases)
        ratio = build_cpu / base_cpu
        print(f"full build of the bundled database: {build_cpu * 1000:.0f} ms CPU "
              f"({build_wall * 1000:.0f} ms wall) for {frames} card frames")
        print(f"bare ReportLab, same frames:        {base_cpu * 1000:.0f} ms CPU "
              f"({base_wall * 1000:.0f} ms wall)")
        print(f"ratio: {ratio:.2f}x CPU, {build_wall / base_wall:.2f}x wall  "
              f"(target <= 1.5x: {'ok' if ratio <= 1.5 else 'MISSED'})")

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, __file__, "--synthetic-only", "--cards",
                               str(args.cards)], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        s = json.loads(proc.stdout)
        print(f"synthetic deck: {s['cards']} cards, {s['pages']} pages, {s['seconds']:.2f} s wall, "
              f"{s['cpu_ms_per_card']:.3f} ms CPU/card ({s['ms_per_card']:.3f} wall) "
              f"(target < 1.5: {'ok' if s['cpu_ms_per_card'] < 1.5 else 'MISSED'}), "
              f"peak RSS {s['peak_mb']:.0f} MB "
              f"(target < 300: {'ok' if s['peak_mb'] < 300 else 'MISSED'}), "
              f"{s['bytes'] / 1e6:.1f} MB file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
