"""`referee report SESSION...`: what the table's own games say (issue 30 item 4).

`read` turns a session file into the public record of its game (every state through the
game's `public_state`, never a hidden hand), `summary` totals many games of one game
(winners by seat, length, tokens over the game, the named rolls against their exact odds),
`stats` holds the goodness-of-fit tests, `pdf` draws the report and `cli` is the command."""
