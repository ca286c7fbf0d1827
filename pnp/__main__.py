from pnp.cli.main import main

if __name__ == "__main__":      # not when a spawned worker imports it (pnp.artefacts.workers)
    main()
