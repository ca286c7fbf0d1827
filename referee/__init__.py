"""referee: the table referee for XO! and X-Statix."""
