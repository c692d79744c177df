"""A parse is judged stalled by lack of progress, not by wall time (issue 20 item 11).

On a busy machine (load 13-15) R's 2,415-page `refman.pdf` was recorded as "parsing
stalled ... blocked reading the file?" after 300 s of wall time, having used under 60 s of
CPU: the worker was starved, not blocked. The worker pool now watches each worker's CPU
time (its own, and its children's) and stops it only when that has not advanced for the
stall window (5 x --timeout).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest.workers import WALL_FACTOR, run_tasks, timed_out_after

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")


def _spin(cpu_seconds: float) -> str:
    """Work for `cpu_seconds` of this process's CPU time (not wall time)."""
    end = time.process_time() + cpu_seconds
    while time.process_time() < end:
        pass
    return "done"


def _throttle(stop: threading.Event, run: float, hold: float) -> None:
    """Starve every worker of this test process as a very busy machine would: stopped
    (SIGSTOP) for `hold` seconds, let run for `run`, over and over."""
    while not stop.is_set():
        workers = [p.pid for p in mp.active_children() if p.pid]
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        stop.wait(hold)
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        time.sleep(run)


def test_a_starved_worker_is_not_taken_for_a_stalled_one() -> None:
    """0.4 s of CPU with the worker let run 1/20 of the time: some 8 s of wall time, past
    the 5 s stall window of --timeout 1. The old rule (wall time alone) recorded the task
    as "parsing stalled"; it finishes now, because its CPU time keeps advancing."""
    stop = threading.Event()
    throttle = threading.Thread(target=_throttle, args=(stop, 0.02, 0.38), daemon=True)
    throttle.start()
    started = time.monotonic()
    try:
        results = dict(run_tasks(_spin, [("starved", 0.4)], workers=1, timeout=1.0))
    finally:
        stop.set()
        throttle.join()
    elapsed = time.monotonic() - started
    assert results == {"starved": "done"}
    if elapsed <= WALL_FACTOR * 1.0:
        pytest.skip(f"the worker was not starved enough to pass the window ({elapsed:.1f} s)")


def _stopped_for_good(_: object) -> str:
    """A parser that never gets CPU again (as blocked in the kernel): it stops itself."""
    os.kill(os.getpid(), signal.SIGSTOP)
    return "never"


def _blocked_read(fd: int) -> bytes:
    return os.read(fd, 1)


@pytest.mark.parametrize("kind", ["blocked read", "stopped"])
def test_a_worker_without_progress_is_stopped_with_a_reason_naming_the_way_out(kind: str) -> None:
    read_end, write_end = os.pipe()
    try:
        func, task = (_blocked_read, read_end) if kind == "blocked read" else (_stopped_for_good, 0)
        started = time.monotonic()
        results = dict(run_tasks(func, [("blocked", task)], workers=1, timeout=0.4))
        elapsed = time.monotonic() - started
    finally:
        os.close(read_end)
        os.close(write_end)
    error = results["blocked"]
    assert isinstance(error, IngestError), error
    message = error.message
    assert message.startswith("parsing stalled: no progress for 2 s of wall time"), message
    assert "blocked reading the file?" in message
    assert "5 x --timeout 0.4, raise it with --timeout" in message
    assert "poppler-utils" in message
    assert timed_out_after(message) == 0.4  # a longer --timeout retries it (run.py)
    assert elapsed >= WALL_FACTOR * 0.4
    assert "\n" not in message


def test_tree_cpu_counts_children() -> None:
    """The CPU of a parser's child process (pdftotext) is the worker's progress too."""
    from docql_sqlite.ingest.workers import tree_cpu_seconds

    before = tree_cpu_seconds(os.getpid())
    child = mp.get_context("fork").Process(target=_spin, args=(0.3,))
    child.start()
    time.sleep(0.1)
    deadline = time.monotonic() + 60
    seen = before
    while child.is_alive() and time.monotonic() < deadline:
        now = tree_cpu_seconds(os.getpid())
        assert now is not None and before is not None
        seen = max(seen or 0.0, now)
        time.sleep(0.02)
    child.join()
    assert seen is not None and before is not None and seen - before >= 0.2


def _spin_then_block(task: tuple[str, float, int]) -> str:
    """The first task works (in this process, or in a child as `pdftotext` would), the
    second blocks for good."""
    kind, seconds, fd = task
    if kind == "spin":
        return _spin(seconds)
    if kind == "child":
        spin = f"import time\nend = time.process_time() + {seconds}\n"
        spin += "while time.process_time() < end: pass"
        subprocess.run([sys.executable, "-c", spin], check=True)
        return "done"
    os.read(fd, 1)
    return "never"


@pytest.mark.parametrize("first", ["spin", "child"])
def test_a_stalled_task_after_a_busy_one_is_charged_its_own_cpu_alone(first: str) -> None:
    """The worker's CPU at the start of a task comes with its reply to the one before (not
    from /proc): a task that blocks after one that used 0.5 s (itself, or a child process
    it waited for) is reported having used next to nothing, not 0.5 s."""
    read_end, write_end = os.pipe()
    try:
        tasks = [("busy", (first, 0.5, read_end)), ("blocked", ("block", 0.0, read_end))]
        results = dict(run_tasks(_spin_then_block, tasks, workers=1, timeout=0.8))
    finally:
        os.close(read_end)
        os.close(write_end)
    assert results["busy"] == "done"
    error = results["blocked"]
    assert isinstance(error, IngestError), error
    used = float(error.message.split("having used ")[1].split(" s")[0])
    assert used < 0.2, error.message


def _big_then_block(task: tuple[str, int]) -> str:
    kind, fd = task
    if kind == "big":
        return "x" * 64_000_000  # writing it to the pipe takes several clock ticks of CPU
    os.read(fd, 1)
    return "never"


def test_a_stall_after_a_large_result_is_found_in_one_window() -> None:
    """A long reply takes the worker CPU to write into the pipe after it read the CPU time
    the reply carries: taken as the next task's start, that writing counted as its
    progress, and a task blocked right after it was stopped after two stall windows
    instead of one. After a long reply the start is read from /proc."""
    read_end, write_end = os.pipe()
    window = WALL_FACTOR * 0.4
    try:
        tasks = [("big", ("big", read_end)), ("blocked", ("block", read_end))]
        arrived: dict[str, float] = {}
        for key, _ in run_tasks(_big_then_block, tasks, workers=1, timeout=0.4):
            arrived[key] = time.monotonic()
    finally:
        os.close(read_end)
        os.close(write_end)
    waited = arrived["blocked"] - arrived["big"]
    assert window <= waited < 1.5 * window, waited
