"""Stage 3, the artefacts that are built: print-ready PDFs (decks, mats, dice labels,
tokens, reference, calibration) imposed with pnp.layout and drawn with pnp.draw, the
one-card-per-page PDF, incremental builds and the per-card record of what was drawn."""
