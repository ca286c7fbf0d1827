"""The artefacts `pnp build` writes for a game beside its decks, by file stem (the value
of `--only`). A deck id may not be one of them, or its PDF would take the artefact's
file: pnp passes `RESERVED_DECK_IDS` to `carddb.load(path, reserved=...)` (carddb knows
no pnp names). pnp.artefacts.build names its artefacts from here."""

from __future__ import annotations

MATS = "mats"
MATS_TILED = "mats-tiled"
DICE = "dice-labels"
TOKENS = "tokens"
REFERENCE = "reference"
CALIBRATION = "calibration"

RESERVED_DECK_IDS = (MATS, MATS_TILED, DICE, TOKENS, REFERENCE, CALIBRATION)

