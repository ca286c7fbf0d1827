"""A test-only export target, one module like those of pnp/exports/targets: `pnp export
card-list` writes, per deck, `<game>/<deck>.txt` with one line per physical card
(`--upper` shouts). tests/pnp/test_export_targets.py registers it and runs it end to
end through `pnp export`."""

from __future__ import annotations

from pnp.exports.cards import Exported, grouped_by_deck
from pnp.exports.targets import Option, Target
from pnp.outpaths import inside


def write(job, upper: bool) -> Exported:
    result = Exported()
    for (game, deck_id), faces in grouped_by_deck(job.faces()).items():
        lines = [face.card.name for face in faces if face.card is not None
                 for _ in range(face.card.copies)]
        folder = inside(job.out, game)
        folder.mkdir(parents=True, exist_ok=True)
        path = inside(folder, f"{deck_id}.txt")
        text = "\n".join(lines) + "\n"
        path.write_text(text.upper() if upper else text)
        result.files.append(path)
    return result


TARGET = Target("card-list", "one line per physical card, per deck", write,
                options=(Option("--upper", "upper", "card names in capitals.", kind="flag",
                                default=False),))
