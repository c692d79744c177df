"""Run parse tasks in worker processes with a per-task time limit (DESIGN D7).

One pathological file cannot stall or crash a run: a task that exceeds its limit has its
worker killed and replaced; a worker that dies (segfault in a native parser, OOM) is
replaced too. Each becomes an `IngestError` for that file only.

The limit (`--timeout`) is **CPU time**, counted by the kernel for the task alone: the
worker arms `ITIMER_PROF` (user + system time of the worker, all its threads) before each
task and disarms it after, and the timer's SIGPROF, left at its default action, kills the
worker wherever it is, in Python or inside a C parser. So a file is dropped for the work
it needs, never because a busy machine gave its worker a small share of a core. A worker
that uses no CPU (blocked reading a stalled network mount or a FUSE file) never reaches
that limit, so the parent stops a worker that makes no progress: its CPU time (with its
child processes', such as `pdftotext`) has not advanced for `WALL_FACTOR` times the limit
of wall time. A worker starved by a busy machine still gains CPU now and then, so it is
never taken for a blocked one (a wall-clock limit alone lost R's 2,415-page manual at a
load of 14); `HARD_WALL_FACTOR` times the limit is the last backstop, for a parser that
wakes now and then but never gets anywhere.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import multiprocessing as mp
import os
import pickle
import re
import signal
import struct
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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
    # The CPU limit's signal must kill (its default action), whatever the parent installed.
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    while True:
        try:
            task = _recv(conn)
        except (EOFError, OSError):
            return
        if task is None:
            return
        task, cpu_limit = task
        try:
            with _cpu_limit(cpu_limit):
                value = func(task)
            _reply(conn, "ok", value)
        except DocQLError as exc:
            _reply(conn, "error", exc.message)
        except RecursionError:
            _reply(conn, "error", "parser failed: input nested too deeply")
        except Exception as exc:  # a parser bug must cost one file, not the run
            last = traceback.extract_tb(exc.__traceback__)[-1:]
            where = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
            reason = f"parser failed: {type(exc).__name__}: {exc}{where}"
            _reply(conn, "error", reason)


def _send(conn: Connection, message: object) -> None:
    """`conn.send` without multiprocessing's ForkingPickler (made anew for every message,
    with a copy of its reducer table): the messages are plain data."""
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def _recv(conn: Connection) -> Any:
    return pickle.loads(conn.recv_bytes())


_CPU = struct.Struct("<d")


def _reply(conn: Connection, status: str, value: object) -> None:
    """Send a task's (status, value), then the worker's CPU seconds read once that is
    pickled: the next task starts from there (`_reply_of`)."""
    buffer = io.BytesIO()
    pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL).dump((status, value))
    buffer.write(_CPU.pack(own_cpu_seconds()))
    conn.send_bytes(buffer.getbuffer())


# A reply this long takes the worker measurable CPU to write into the pipe after it read
# its CPU time: that time would pass for the next task's progress (a task blocked right
# after it was stopped after two stall windows, not one), so the next task's start is read
# from /proc instead. Shorter replies take microseconds.
_LONG_REPLY = 1 << 20


def _reply_of(conn: Connection) -> tuple[str, Any, float | None]:
    """A worker's (status, value, CPU seconds as the next task starts: None after a
    reply too long to tell), as `_reply` sent them."""
    data = conn.recv_bytes()
    (cpu,) = _CPU.unpack_from(data, len(data) - _CPU.size)
    status, value = pickle.loads(memoryview(data)[: -_CPU.size])
    return status, value, cpu if len(data) <= _LONG_REPLY else None


def own_cpu_seconds() -> float:
    """This process's CPU seconds with its reaped children's: what `tree_cpu_seconds` reads
    from /proc for it once no child of its task runs (the same kernel counters)."""
    used = os.times()
    return used.user + used.system + used.children_user + used.children_system


@contextmanager
def _cpu_limit(seconds: float | None) -> Iterator[None]:
    """Let the kernel kill this worker (SIGPROF) once the block has used `seconds` of CPU."""
    if seconds is None or not CPU_LIMITED:
        yield
        return
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


# POSIX has the CPU timer; elsewhere the limit falls back to wall-clock time in the parent.
CPU_LIMITED = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")
# The stall window, in multiples of the CPU limit: a worker whose CPU time has not advanced
# for that long is blocked, not working. (Where /proc cannot tell, it is the wall time of
# the task, as before.)
WALL_FACTOR = 5.0
# The last backstop, in wall time whatever the CPU does: at 30x a file that needs all of
# its CPU limit still finishes with a thirtieth of a core.
HARD_WALL_FACTOR = 30.0

TIMEOUT_REASON = "parsing timed out after {:g} s of CPU time (raise it with --timeout)"
BLOCKED_REASON = (
    "parsing stalled: no progress for {wall:g} s of wall time (its parser used no CPU in "
    "that time, having used {used:.3g} s of the {cpu:g} s allowed: blocked reading the file? "
    "a stalled network mount?){busy}; the limit is {factor:g} x --timeout {cpu:g}, raise it "
    "with --timeout (long PDFs parse faster with pdftotext: install poppler-utils)"
)
HARD_WALL_REASON = (
    "parsing stalled: not finished after {wall:g} s of wall time, having used {used:.3g} s "
    "of the {cpu:g} s of CPU allowed{busy}; the limit is 30 x --timeout {cpu:g}, raise it "
    "with --timeout (long PDFs parse faster with pdftotext: install poppler-utils)"
)
WALL_REASON = "parsing timed out after {:g} s (raise it with --timeout)"  # no CPU timer
# Each reason names the --timeout it ran out of: the next run retries the file only under a
# longer one (ingest/run.py). Reasons recorded before the CPU limit existed match the first.
_NUMBER = r"(\d+(?:\.\d*)?(?:e[+-]?\d+)?)"
_TIMED_OUT = re.compile(rf"parsing timed out after {_NUMBER} s\b")
_STALLED = re.compile(rf"parsing stalled: .* x --timeout {_NUMBER}\b")


def timed_out_after(reason: str) -> float | None:
    """The --timeout in seconds a timeout reason names, or None for any other reason."""
    match = _TIMED_OUT.match(reason) or _STALLED.match(reason)
    return float(match.group(1)) if match else None


# Tasks queued per worker: the next one is already in its pipe when it finishes, so
# workers do not idle while the writer commits a batch.
QUEUE_DEPTH = 2


class _Worker:
    # The parent's ends of every live worker's pipe, closed in each new child (fork).
    _parent_ends: list[Connection] = []

    def __init__(self, ctx: Any, func: Callable[[Any], Any], cpu_limit: float | None) -> None:
        self.cpu_limit = cpu_limit
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
        self.cpu_at_start: float | None = None  # the worker's CPU seconds then
        self.cpu_seen: float | None = None  # its CPU seconds at the last look
        self.progress_at = 0.0  # when its CPU time last advanced

    def start_task(self, cpu: float | None = None) -> None:
        """The oldest queued task begins now; `cpu`: the worker's CPU seconds as its last
        reply gave them (it starts its next task as it sends one), else read from /proc
        (~45 µs, once per file was ~3 % of the writer's CPU on the Markdown mix)."""
        self.started = self.progress_at = time.monotonic()
        if cpu is None:
            cpu = tree_cpu_seconds(self.process.pid)
        self.cpu_at_start = self.cpu_seen = cpu

    def stalled(self, now: float, window: float) -> bool:
        """Whether this worker has used no CPU on its current task for more than `window`
        seconds of wall time (where /proc cannot tell: whether the task began that long
        ago). /proc is read only once the last progress seen is that old: if the CPU time
        has advanced since, there was progress within the window; if not, there was none
        since that look, more than `window` ago. (Read at every result, it cost ~25 µs a
        file on the parent's side.)"""
        if now - self.progress_at <= window:
            return False
        cpu = tree_cpu_seconds(self.process.pid)
        if cpu is not None and (self.cpu_seen is None or cpu > self.cpu_seen):
            self.cpu_seen, self.progress_at = cpu, now
            return False
        return True

    def cpu_used(self) -> float:
        if self.cpu_seen is None or self.cpu_at_start is None:
            return 0.0
        return self.cpu_seen - self.cpu_at_start

    def submit(self, key: Any, task: Any) -> None:
        if not self.queue:
            self.start_task()
        self.queue.append((key, task))
        try:
            _send(self.conn, (task, self.cpu_limit))
        except OSError:
            pass  # the worker died: its oldest task is reported, the rest go to its replacement

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                _send(self.conn, None)
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
    wall_timeout: float | None = None,
) -> Iterator[tuple[K, Any]]:
    """Yield (key, result) for each task; failures come back as `IngestError` results.

    `timeout` is the CPU time one task may use (wall-clock time where there is no CPU
    timer); `wall_timeout` (default `WALL_FACTOR` x `timeout`) the wall-clock time it may
    take, for a worker that is blocked rather than working. With `workers=0` tasks run in
    this process, unlimited.
    """
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
    cpu_limit = timeout if CPU_LIMITED else None
    if wall_timeout is None:
        wall_timeout = WALL_FACTOR * timeout if CPU_LIMITED else timeout
    hard_wall = max(wall_timeout, HARD_WALL_FACTOR * timeout)
    pool = [_Worker(ctx, func, cpu_limit) for _ in range(workers)]
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
                    status, value, cpu = _reply_of(worker.conn)
                except (EOFError, OSError):
                    worker.process.join(timeout=5)  # EOF can come before the exit status is known
                    code = worker.process.exitcode
                    if cpu_limit is not None and code == -signal.SIGPROF:  # its CPU timer
                        reason = TIMEOUT_REASON.format(timeout)
                    else:
                        reason = f"parser process crashed ({_exit_status(code)})"
                    yield key, IngestError(reason)
                    pool[pool.index(worker)] = _replace(worker, ctx, func)
                    continue
                worker.start_task(cpu)  # the next queued task starts now
                yield key, (value if status == "ok" else IngestError(value))
            now = time.monotonic()
            for worker in list(pool):
                if not worker.queue:
                    continue
                if cpu_limit is None:  # no CPU timer: wall time is all there is
                    reason = (
                        WALL_REASON.format(timeout) if now - worker.started > wall_timeout else ""
                    )
                elif worker.stalled(now, wall_timeout):
                    reason = BLOCKED_REASON.format(
                        wall=wall_timeout,
                        cpu=timeout,
                        used=worker.cpu_used(),
                        factor=wall_timeout / timeout,
                        busy=_busy_note(),
                    )
                elif now - worker.started > hard_wall:
                    reason = HARD_WALL_REASON.format(
                        wall=hard_wall, cpu=timeout, used=worker.cpu_used(), busy=_busy_note()
                    )
                else:
                    continue
                if not reason:
                    continue
                key, _ = worker.queue.popleft()
                pool[pool.index(worker)] = _replace(worker, ctx, func, kill=True)
                yield key, IngestError(reason)
    finally:
        for worker in pool:
            worker.stop(kill=bool(worker.queue))


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process `pid`, its reaped children and its live
    descendants (a parser's `pdftotext`), from /proc; None where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After the command name: state is field 3, utime..cstime are fields 14..17.
    ticks = sum(int(value) for value in fields[11:15])
    seconds = ticks / _TICKS
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as children:
                for child in children.read().split():
                    seconds += tree_cpu_seconds(int(child)) or 0.0
    except OSError:
        pass
    return seconds


def _busy_note() -> str:
    """The machine's load when a stall is reported: a starved parser is slow too."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return ""
    cores = os.cpu_count() or 1
    if load < cores:
        return ""
    return f"; the machine is busy (load {load:.1f} on {cores} cores)"


def _replace(worker: _Worker, ctx: Any, func: Callable[[Any], Any], kill: bool = False) -> _Worker:
    """A fresh worker, given the tasks the old one had queued but not started."""
    worker.stop(kill=True if kill else not worker.process.is_alive())
    fresh = _Worker(ctx, func, worker.cpu_limit)
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
