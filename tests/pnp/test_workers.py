"""Issue 24: the worker pool of pnp build, pnp proof and pnp export png
(pnp.artefacts.workers): results in order whatever the jobs, a piece failing in a
worker done again in this process (raising its own error), workers leaving Ctrl-C to
the parent, no workers where they cannot start."""

from __future__ import annotations

import inspect
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

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


def test_with_the_default_jobs_too_little_work_is_done_here_and_jobs_n_as_asked():
    """An export of fewer faces than FEW_FACES (the costs: a deck's faces) starts no
    worker with the default jobs; with more, or with --jobs 2, the workers draw."""
    if not workers.usable() or workers.job_count(None) < 2:
        pytest.skip("no two worker processes here")
    pieces = [3, 5]                                  # 8 faces in two decks
    assert {pid for _, pid in in_order(_square, 0, pieces, None, cost=lambda p: p,
                                       small=9)} == {PARENT}
    assert PARENT not in {pid for _, pid in in_order(_square, 0, pieces, None,
                                                     cost=lambda p: p, small=8)}
    assert PARENT not in {pid for _, pid in in_order(_square, 0, pieces, 2,
                                                     cost=lambda p: p, small=9)}


def test_a_piece_failing_in_a_worker_raises_here_what_one_process_raises():
    errors = []
    for jobs in (1, 2):
        with pytest.raises(ValueError) as caught:
            list(in_order(_fails_on_three, 7, list(range(6)), jobs))
        errors.append(str(caught.value))
    assert errors[0] == errors[1] == "piece 3 cannot be done (shared 7)"


def test_a_piece_whose_worker_fails_is_done_again_here():
    assert list(in_order(_fails_only_in_a_worker, 1, [1, 2, 3], 2)) == [2, 3, 4]


@contextmanager
def python_hears_ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler for the block, the one found before restored after."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.fixture
def ctrl_c_heard():
    """The parent hears Ctrl-C (Python's own handler), whatever the test run inherited: a
    run started as a shell's background job (`pytest ... &`) has SIGINT ignored on entry
    (issue 31, item 6), and this test is about what the pool does with the parent's."""
    with python_hears_ctrl_c():
        yield


def test_workers_leave_ctrl_c_to_the_parent(ctrl_c_heard):
    found = list(in_order(_sigint, None, [1, 2], 2))
    assert found == [signal.SIG_IGN, signal.SIG_IGN]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # left as it was


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


def test_the_ctrl_c_test_passes_in_a_run_started_as_a_background_job():
    """`pytest ... &`: the shell starts the run with SIGINT ignored, which a child
    inherits; the test above sets what it depends on, so it passes there too. What the
    run inherits is the point, not a process of its own (issue 34: a pytest started for
    this cost a second of CPU): this process ignores SIGINT as such a run does, then
    runs the test above with its fixture, as pytest would."""
    assert "ctrl_c_heard" in inspect.signature(test_workers_leave_ctrl_c_to_the_parent).parameters
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)     # the background job's start
    try:
        with python_hears_ctrl_c():
            test_workers_leave_ctrl_c_to_the_parent(None)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # the run's own, given back
    finally:
        signal.signal(signal.SIGINT, before)
