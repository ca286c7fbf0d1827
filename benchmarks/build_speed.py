"""How fast is `pnp build`?

1. The full build of the bundled cards.yaml (every artefact of both games) against the
   same number of card frames drawn by bare ReportLab calls (a filled frame, a title and
   three lines of text each, same fonts, same pages) in the same process. Target: the
   build within 1.5x of that baseline.
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
    from pnp.render import CardRenderer

    import carddb
    from pnp.fonts import register_fonts

    db = carddb.load(ROOT / "cards.yaml")
    fonts = register_fonts(db.print.fonts, db.root)
    return db, fonts, CardRenderer


def full_build(out: Path) -> tuple[float, int]:
    """Seconds for every artefact of the bundled database, and the frames drawn."""
    from pnp import build as b

    db, fonts, CardRenderer = _setup()
    opts = b.options_from_profile(db.print)
    start = time.perf_counter()
    renderer = CardRenderer(db, fonts)
    frames = 0
    for art in b.artefacts(db):
        result = b.build_artefact(db, art, opts, renderer, fonts, out)
        # a deck draws each card twice (front and back); the rest one item each
        frames += result.cards * (2 if art.kind == b.DECK and opts.backs else 1)
    return time.perf_counter() - start, frames


def bare_reportlab(frames: int, out: Path, fonts: dict[str, str]) -> float:
    """Seconds to draw `frames` poker-card frames, 9 to a Letter page, with plain calls."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen.canvas import Canvas

    start = time.perf_counter()
    c = Canvas(str(out), pagesize=letter, invariant=1, pageCompression=1,
               initialFontName=fonts["regular"])
    w, h = 63.5 * 72 / 25.4, 88.9 * 72 / 25.4
    for i in range(frames):
        slot = i % 9
        x, y = 18 + (slot % 3) * (w + 9), 18 + (slot // 3) * h
        c.setFillColorRGB(0.95, 0.93, 0.85)
        c.setStrokeColorRGB(0.1, 0.1, 0.1)
        c.roundRect(x + 6, y + 6, w - 12, h - 12, 6, stroke=1, fill=1)
        c.setFillColorRGB(0, 0, 0)
        c.setFont(fonts["bold"], 10)
        c.drawString(x + 12, y + h - 24, f"Card frame {i}")
        c.setFont(fonts["regular"], 8)
        for line in range(3):
            c.drawString(x + 12, y + h / 2 - 10 * line, "Get -1 to the Mission Roll (Minimum of 1)")
        if slot == 8:
            c.showPage()
    c.showPage()
    c.save()
    return time.perf_counter() - start


def synthetic(n: int, out: Path) -> dict:
    """Build one deck of `n` cards; report seconds, ms per card and peak RSS in MB."""
    from pnp import build as b

    db, fonts, CardRenderer = _setup()
    game = db.games["x-statix"]
    pool = [c for deck in game.decks.values() for c in deck.cards]
    source = game.decks["common"]
    cards = tuple(dataclasses.replace(pool[i % len(pool)], name=f"{pool[i % len(pool)].name} {i}",
                                      copies=1, deck="synthetic") for i in range(n))
    deck = dataclasses.replace(source, id="synthetic", title="Synthetic", cards=cards)
    synth_game = dataclasses.replace(game, decks={"synthetic": deck})
    db = dataclasses.replace(db, games={**db.games, "x-statix": synth_game})
    art = b.Artefact("x-statix", "synthetic", b.DECK, "Synthetic deck", deck="synthetic")
    opts = b.options_from_profile(db.print)
    start = time.perf_counter()
    result = b.build_artefact(db, art, opts, CardRenderer(db, fonts), fonts, out)
    seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    return {"cards": result.cards, "pages": result.pages, "seconds": seconds,
            "ms_per_card": 1000 * seconds / result.cards, "peak_mb": peak_kb / 1024,
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
            seconds, frames = full_build(out / f"run{i}")
            builds.append(seconds)
            bases.append(bare_reportlab(frames, out / f"bare{i}.pdf", fonts))
        build_s, base_s = min(builds), min(bases)
        ratio = build_s / base_s
        print(f"full build of the bundled database: {build_s * 1000:.1f} ms "
              f"for {frames} card frames")
        print(f"bare ReportLab, same frames:        {base_s * 1000:.1f} ms")
        print(f"ratio: {ratio:.2f}x  (target <= 1.5x: {'ok' if ratio <= 1.5 else 'MISSED'})")

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, __file__, "--synthetic-only", "--cards",
                               str(args.cards)], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        s = json.loads(proc.stdout)
        print(f"synthetic deck: {s['cards']} cards, {s['pages']} pages, {s['seconds']:.2f} s, "
              f"{s['ms_per_card']:.3f} ms/card (target < 1.5: "
              f"{'ok' if s['ms_per_card'] < 1.5 else 'MISSED'}), peak RSS {s['peak_mb']:.0f} MB "
              f"(target < 300: {'ok' if s['peak_mb'] < 300 else 'MISSED'}), "
              f"{s['bytes'] / 1e6:.1f} MB file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
