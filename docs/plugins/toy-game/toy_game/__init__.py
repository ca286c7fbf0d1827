"""Toy: each player in turn scores 1 to 3 points; the first to the target wins. The
game's entry in the referee's game contract: everything `referee new`, its commands and
`referee play` need of it, as names ("module:attribute") imported only when used."""

from referee.games import Game

GAME = Game(
    "toy", "Toy", "toy_game.rules", aliases=("toy!",),
    group=("toy", "toy_game.cli:toy", "Toy game commands (see `referee toy --help`)."),
    schema="toy_game.rules:check_state", card_names="toy_game.rules:card_names",
    players="A,B[,C...]",
    options="toy_game.cli:NEW_OPTIONS",      # `referee new toy --target 5`
    walk="toy_game.walk:question",           # what `referee play` asks next
    names="toy_game.walk:names",             # what Tab completes
    turn="toy_game.walk:turn",               # play shows the table when this changes
)
