"""Tab at `referee play`'s prompt (stdlib readline): commands, then the names the current
question takes, the players, the heroes or characters in play and the game's cards. A name
is completed whole, spaces included (`dead g` -> `Dead Girl`), quoted after a command."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def completions(line: str, commands: Iterable[str], names: Iterable[str]) -> list[str]:
    """Every whole line `line` may complete to: the longest tail of it (from a word's
    start) that begins one of the phrases."""
    commands = list(commands)
    names = list(dict.fromkeys(names))
    starts = [0] + [i + 1 for i, ch in enumerate(line) if ch == " "]
    for start in starts:
        fragment = line[start:].lstrip('"').casefold()
        head = line[:start]
        phrases = commands if start == 0 else []
        phrases = [*phrases, *names]
        found = [p for p in phrases if p.casefold().startswith(fragment)]
        if fragment == "" and start != len(line):
            continue
        if found:
            quote = bool(head.strip()) and head.split()[0] in {c.split()[0] for c in commands}
            return sorted({head + (f'"{p}"' if quote and " " in p else p) for p in found})
    return []


def install(names: Callable[[], tuple[list[str], list[str]]]) -> None:
    """Tab and history with the arrow keys at a terminal (readline: nothing when missing)."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline: plain input, no Tab
        return
    state: dict[str, list[str]] = {}

    def complete(text: str, index: int) -> str | None:
        if index == 0:
            line = readline.get_line_buffer()[: readline.get_endidx()]
            commands, known = names()
            state["found"] = completions(line, commands, known)
        found = state.get("found", [])
        return found[index] if index < len(found) else None

    readline.set_completer_delims("")
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")
    keep_history(readline)


def keep_history(readline: object) -> None:
    """The lines of earlier `play` sessions, for the up arrow: a file beside the
    sessions' verified marks (PNP_CACHE_DIR=off: this session's lines only)."""
    import atexit
    import os

    from referee.session_verified import folder

    where = folder()
    if where is None:
        return
    path = os.path.join(os.path.dirname(where), "play-history")
    try:
        readline.read_history_file(path)  # type: ignore[attr-defined]
    except OSError:
        pass  # none yet, or unreadable: start empty
    readline.set_history_length(1000)  # type: ignore[attr-defined]

    def save() -> None:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            readline.write_history_file(path)  # type: ignore[attr-defined]
        except OSError:
            pass  # a cache: never a reason to fail

    atexit.register(save)
