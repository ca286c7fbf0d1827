"""The generic table kit: any game of cards.yaml without a `rules:` plug-in."""
