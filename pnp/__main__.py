from pnp.cli.main import main

main()
