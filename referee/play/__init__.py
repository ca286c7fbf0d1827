"""`referee play`: the table's session in one process. `loop.py` reads lines (a terminal
with history and Tab, or a pipe: one line a command or an answer) and runs each as the
one-shot command it names, in-process; `walk.py` asks, from the state after each line,
what the rules need next (the turn walks itself); `complete.py` completes names."""
