"""Stage 4, proofs and exports from the built cards: PNGs, one-card PDFs, Tabletop
Simulator sheets, shop profiles (CMYK, PDF/X), cutting-machine files, the proof gallery
and what changed since the last print."""
