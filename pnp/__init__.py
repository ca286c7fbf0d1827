"""pnp: print-and-play production pipeline for the card database.

Importing pnp (or calling the library: pnp.artefacts.project_build.build_project) changes
nothing in the caller's process. The speed-ups the `pnp` command uses (dataclass methods
kept compiled, a lazy PIL.Image) are installed by the command itself (pnp.cli.main)."""
