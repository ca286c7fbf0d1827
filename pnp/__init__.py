"""pnp: print-and-play production pipeline for the card database."""
