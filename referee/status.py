"""`referee status`: the table as the session holds it. Click-free, so that the one-shot
path (referee/oneshot.py) shows it without loading click; referee/cli.py mounts it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.command import Reply

if TYPE_CHECKING:
    from referee.command import Tx


def status_reply(tx: Tx) -> Reply:
    """The turn, tokens and cards in play, and the turn clock."""
    from referee import clock

    state = tx.state
    stand = tx.session.clock()
    lines = [*tx.game.status_lines(state), *clock.lines(stand)]
    return Reply(lines, {"seq": tx.session.last_seq, "lines": lines, "state": tx.public(state),
                         "clock": stand})
