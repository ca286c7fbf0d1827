"""A list of event seqs kept as runs of consecutive numbers: the undo history's `done`.

A session's `done` (every effective event since the game began: what `undo` may revert)
holds one seq per event, 50,000 of them in a long game, but in a handful of runs (a run
breaks only where an undo reverted events for good). Kept as a plain list, every command
made and dropped 50,000 ints to read the history from the verified mark and walked them
again to record it (issue 36, item 5); as runs, a command costs the same at event 10 and
50,000. Only what the history needs of a list: its length, the last events, appending,
removing the last ones, in run-length form for the mark (session_verified)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


class Seqs:
    """Event seqs in the order given (each seq once), as [first, count] runs."""

    __slots__ = ("_runs", "_len")

    def __init__(self, values: Iterable[int] = ()) -> None:
        self._runs: list[list[int]] = []
        self._len = 0
        self.extend(values)

    @classmethod
    def of(cls, values: Iterable[int]) -> Seqs:
        """A copy of `values` (a Seqs is copied run by run, not seq by seq)."""
        if isinstance(values, Seqs):
            copy = cls()
            copy._runs = [list(run) for run in values._runs]
            copy._len = values._len
            return copy
        return cls(values)

    @classmethod
    def from_runs(cls, runs: object) -> Seqs:
        """From the mark's JSON ([[first, count], ...]); ValueError if malformed."""
        if not isinstance(runs, list):
            raise ValueError("runs")
        seqs = cls()
        for run in runs:
            if not isinstance(run, list) or len(run) != 2:
                raise ValueError("run")
            first, count = run
            if type(first) is not int or type(count) is not int or count < 1 or first < 1:
                raise ValueError("run")
            seqs.add_run(first, count)
        return seqs

    def runs(self) -> list[list[int]]:
        """[[first, count], ...]: [3, 4, 5, 9] -> [[3, 3], [9, 1]]."""
        return [list(run) for run in self._runs]

    # ── reading ──
    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[int]:
        for first, count in self._runs:
            yield from range(first, first + count)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Seqs):
            return self._runs == other._runs or list(self) == list(other)
        return isinstance(other, list) and list(self) == other

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return f"Seqs({self.runs()!r})"

    def last(self, n: int) -> list[int]:
        """The last `n` seqs (all when fewer), oldest first: as `values[-n:]`."""
        taken: list[int] = []
        for first, count in reversed(self._runs):
            if len(taken) >= n:
                break
            want = min(count, n - len(taken))
            taken[:0] = range(first + count - want, first + count)
        return taken

    def at(self, index: int) -> int:
        """The seq at `index` (negative: from the end), as `values[index]`."""
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("seq index out of range")
        before = self._len
        for first, count in reversed(self._runs):
            before -= count
            if index >= before:
                return first + index - before
        raise IndexError("seq index out of range")  # pragma: no cover (lengths agree)

    # ── changing ──
    def add_run(self, first: int, count: int) -> None:
        if self._runs and sum(self._runs[-1]) == first:
            self._runs[-1][1] += count
        else:
            self._runs.append([first, count])
        self._len += count

    def append(self, seq: int) -> None:
        self.add_run(seq, 1)

    def extend(self, values: Iterable[int]) -> None:
        for seq in values:
            self.add_run(seq, 1)

    def drop_last(self, n: int) -> None:
        """Remove the last `n` seqs (all when fewer): as `del values[-n:]` for n >= 1."""
        while n > 0 and self._runs:
            run = self._runs[-1]
            if run[1] > n:
                run[1] -= n
                self._len -= n
                return
            n -= run[1]
            self._len -= run[1]
            self._runs.pop()

    def remove(self, seq: int) -> None:
        """Remove `seq` (ValueError if absent), looking from the end: an undo reverts
        the latest events."""
        for i in range(len(self._runs) - 1, -1, -1):
            first, count = self._runs[i]
            if first <= seq < first + count:
                pieces = [[first, seq - first], [seq + 1, first + count - seq - 1]]
                self._runs[i:i + 1] = [piece for piece in pieces if piece[1] > 0]
                self._len -= 1
                return
        raise ValueError(f"{seq} is not in the history")
