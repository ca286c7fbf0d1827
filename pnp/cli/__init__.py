"""Stage 5, the `pnp` command on top: click commands that parse, call the stages below
and print (pnp.cli.main is the entry point)."""
