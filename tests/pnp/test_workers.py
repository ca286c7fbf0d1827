"""Issue 24: the worker pool of pnp build, pnp proof and pnp export png
(pnp.artefacts.workers): results in order whatever the jobs, a piece failing in a
worker done again in this process (raising its own error), workers leaving Ctrl-C to
the parent, no workers where they cannot start."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from pnp.artefacts import workers
from pnp.artefacts.workers import in_order, pool_size

PARENT = os.getpid()


def _square(shared: int, piece: int) -> tuple[int, int]:
    return piece * piece + shared, os.getpid()


def _fails_on_three(shared: int, piece: int) -> int:
    if piece == 3:
        raise ValueError(f"piece {piece} cannot be done (shared {shared})")
    return piece


def _fails_only_in_a_worker(shared: int, piece: int) -> int:
    if os.getpid() != PARENT:
        raise RuntimeError("a worker's own trouble")
    return piece + shared


def _sigint(shared: object, piece: int) -> object:
    return signal.getsignal(signal.SIGINT)


def test_results_come_in_order_whatever_the_jobs_and_the_costs():
    pieces = list(range(9))
    want = [p * p + 10 for p in pieces]
    for jobs in (1, 2, 3):
        got = list(in_order(_square, 10, pieces, jobs, cost=lambda p: p % 4))
        assert [value for value, _ in got] == want
    pids = {pid for _, pid in in_order(_square, 0, pieces, 2)}
    assert PARENT not in pids and len(pids) >= 1


def test_a_piece_failing_in_a_worker_raises_here_what_one_process_raises():
    errors = []
    for jobs in (1, 2):
        with pytest.raises(ValueError) as caught:
            list(in_order(_fails_on_three, 7, list(range(6)), jobs))
        errors.append(str(caught.value))
    assert errors[0] == errors[1] == "piece 3 cannot be done (shared 7)"


def test_a_piece_whose_worker_fails_is_done_again_here():
    assert list(in_order(_fails_only_in_a_worker, 1, [1, 2, 3], 2)) == [2, 3, 4]


def test_workers_leave_ctrl_c_to_the_parent():
    found = list(in_order(_sigint, None, [1, 2], 2))
    assert found == [signal.SIG_IGN, signal.SIG_IGN]
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN


def test_no_workers_for_one_piece_one_job_or_with_another_thread():
    assert pool_size(1, 5) == 0 and pool_size(4, 1) == 0 and pool_size(2, 0) == 0
    assert pool_size(2, 5) == 2 and pool_size(8, 3) == 3
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        assert workers.start_method() is None and pool_size(2, 5) == 0
        assert [v for v, _ in in_order(_square, 0, [1, 2], 2)] == [1, 4]
    finally:
        stop.set()
        thread.join()


def test_without_fork_workers_are_spawned(monkeypatch):
    monkeypatch.setattr(workers, "start_method", lambda: "spawn")
    got = list(in_order(_square, 1, [1, 2, 3], 2, spawned=5))
    assert [v for v, _ in got] == [6, 9, 14]      # the workers were sent `spawned`
