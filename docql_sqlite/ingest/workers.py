"""Run parse tasks in worker processes with a per-task timeout (DESIGN D7).

One pathological file cannot stall or crash a run: a task that exceeds the timeout has
its worker killed and replaced; a worker that dies (segfault in a native parser, OOM)
is replaced too. Both become an `IngestError` for that file only.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing as mp
import os
import re
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

from ..errors import DocQLError, IngestError

T = TypeVar("T")
K = TypeVar("K")


PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _die_with_parent(parent_pid: int) -> None:
    """Make the kernel kill this worker when the indexer dies (Linux), however it dies.

    Without it a SIGKILLed indexer leaves its workers blocked in `recv()` for ever,
    reparented to PID 1. Elsewhere the worker still sees EOF on its pipe (see
    `_worker_main`), once it finishes the file it is parsing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    # The parent may have died between fork and prctl: then no signal will ever come.
    if os.getppid() != parent_pid:
        os._exit(1)


def _worker_main(
    conn: Connection,
    func: Callable[[Any], Any],
    parent_pid: int,
    parent_ends: list[Connection],
) -> None:
    _die_with_parent(parent_pid)
    # A forked child inherits the parent's end of its own pipe and of the pipes of the
    # workers started before it. Holding them would keep `recv()` from ever seeing EOF
    # when the parent dies, so close them first.
    for end in parent_ends:
        end.close()
    # Ctrl-C reaches every process of the terminal's group: the parent stops the run and
    # its workers, so a worker must not die with a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            conn.send(("ok", func(task)))
        except DocQLError as exc:
            conn.send(("error", exc.message))
        except RecursionError:
            conn.send(("error", "parser failed: input nested too deeply"))
        except Exception as exc:  # a parser bug must cost one file, not the run
            last = traceback.extract_tb(exc.__traceback__)[-1:]
            where = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
            conn.send(("error", f"parser failed: {type(exc).__name__}: {exc}{where}"))


TIMEOUT_REASON = "parsing timed out after {:g} s (raise it with --timeout)"
_TIMED_OUT = re.compile(r"parsing timed out after (\d+(?:\.\d*)?(?:e[+-]?\d+)?) s")


def timed_out_after(reason: str) -> float | None:
    """The timeout in seconds a `TIMEOUT_REASON` names, or None for any other reason."""
    match = _TIMED_OUT.match(reason)
    return float(match.group(1)) if match else None


# Tasks queued per worker: the next one is already in its pipe when it finishes, so
# workers do not idle while the writer commits a batch.
QUEUE_DEPTH = 2


class _Worker:
    # The parent's ends of every live worker's pipe, closed in each new child (fork).
    _parent_ends: list[Connection] = []

    def __init__(self, ctx: Any, func: Callable[[Any], Any]) -> None:
        self.conn, child = ctx.Pipe()
        forked = ctx.get_start_method() == "fork"
        inherited = [*_Worker._parent_ends, self.conn] if forked else []
        self.process = ctx.Process(
            target=_worker_main, args=(child, func, os.getpid(), inherited), daemon=True
        )
        self.process.start()
        child.close()
        _Worker._parent_ends.append(self.conn)
        self.queue: deque[tuple[Any, Any]] = deque()  # (key, task) sent, oldest first
        self.started = 0.0  # when the oldest queued task began running

    def submit(self, key: Any, task: Any) -> None:
        if not self.queue:
            self.started = time.monotonic()
        self.queue.append((key, task))
        try:
            self.conn.send(task)
        except OSError:
            pass  # the worker died: its oldest task is reported, the rest go to its replacement

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        if self.conn in _Worker._parent_ends:
            _Worker._parent_ends.remove(self.conn)
        self.conn.close()


def run_tasks(
    func: Callable[[T], Any],
    tasks: Iterable[tuple[K, T]],
    workers: int,
    timeout: float,
) -> Iterator[tuple[K, Any]]:
    """Yield (key, result) for each task; failures come back as `IngestError` results."""
    if workers <= 0:
        for key, task in tasks:
            try:
                yield key, func(task)
            except IngestError as exc:
                yield key, exc
            except DocQLError as exc:
                yield key, IngestError(exc.message)
            except Exception as exc:
                yield key, IngestError(f"parser failed: {type(exc).__name__}: {exc}")
        return
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    pending = iter(tasks)
    pool = [_Worker(ctx, func) for _ in range(workers)]
    exhausted = False
    try:
        while True:
            for worker in pool:
                while not exhausted and len(worker.queue) < QUEUE_DEPTH:
                    nxt = next(pending, None)
                    if nxt is None:
                        exhausted = True
                    else:
                        worker.submit(*nxt)
            active = {w.conn: w for w in pool if w.queue}
            if not active:
                return
            for conn in wait(list(active), timeout=0.5):
                worker = active[conn]
                key, _ = worker.queue.popleft()
                try:
                    status, value = worker.conn.recv()
                except (EOFError, OSError):
                    worker.process.join(timeout=5)  # EOF can come before the exit status is known
                    yield (
                        key,
                        IngestError(
                            f"parser process crashed ({_exit_status(worker.process.exitcode)})"
                        ),
                    )
                    pool[pool.index(worker)] = _replace(worker, ctx, func)
                    continue
                worker.started = time.monotonic()  # the next queued task starts now
                yield key, (value if status == "ok" else IngestError(value))
            now = time.monotonic()
            for worker in list(pool):
                if worker.queue and now - worker.started > timeout:
                    key, _ = worker.queue.popleft()
                    pool[pool.index(worker)] = _replace(worker, ctx, func, kill=True)
                    yield key, IngestError(TIMEOUT_REASON.format(timeout))
    finally:
        for worker in pool:
            worker.stop(kill=bool(worker.queue))


def _replace(worker: _Worker, ctx: Any, func: Callable[[Any], Any], kill: bool = False) -> _Worker:
    """A fresh worker, given the tasks the old one had queued but not started."""
    worker.stop(kill=True if kill else not worker.process.is_alive())
    fresh = _Worker(ctx, func)
    for key, task in worker.queue:
        fresh.submit(key, task)
    return fresh


def _exit_status(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"exit code {code}, {signal.Signals(-code).name}"
        except ValueError:
            pass
    return f"exit code {code}"
