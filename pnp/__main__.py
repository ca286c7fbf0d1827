from pnp.cli.entry import main

if __name__ == "__main__":      # not when a spawned worker imports it (pnp.artefacts.workers)
    main()
