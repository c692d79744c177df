"""One time limit per query, checked inside SQLite and inside the regex engine.

A query runs under `limit(seconds)`. Two places look at the clock:

- SQLite's progress handler (installed by `db.connect`) every few thousand VM steps,
  which stops any statement, however it spends its time;
- the Python REGEXP functions (`sqlfunctions`), which hand the time left to the `regex`
  engine's own `timeout=`: one catastrophic match can run for minutes inside a single
  function call, where no progress handler is ever called.

Both raise `QueryTimeout`. The limit covers the time spent computing the answer, not the
time its consumer spends with each row: `Index.execute` pauses the clock while a row is
out (a slow pipe or a big result must not run a query out of time). The state is per
thread, a stack: a query run inside another one (the `docql()` table function) gets the
smaller of its own limit and what is left of the outer one.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from . import settings
from .errors import QueryTimeout, RegexTimeout

DEFAULT_SECONDS = float(settings.QUERY_TIMEOUT.default or 5)
ENVIRONMENT = settings.QUERY_TIMEOUT.name  # seconds; 0 or "none" for no limit
# SQLite VM instructions between two looks at the clock (~a millisecond of work).
PROGRESS_STEPS = 10_000

_local = threading.local()


class Deadline:
    """The end of one query's time, with a pause for the time its rows are out."""

    __slots__ = ("seconds", "at", "paused_at", "regex")

    def __init__(self, seconds: float, at: float) -> None:
        self.seconds = seconds
        self.at = at
        self.paused_at: float | None = None
        self.regex: str | None = None  # the last user regex run: the likely culprit

    def expired(self) -> QueryTimeout:
        return timed_out(self.seconds, self.regex)

    def remaining(self) -> float:
        now = self.paused_at if self.paused_at is not None else time.monotonic()
        return self.at - now

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.pause()
        try:
            yield
        finally:
            self.resume()

    # `pause`/`resume` are `paused()` without a context manager object, for once per row.
    def pause(self) -> None:
        self.paused_at = time.monotonic()

    def resume(self) -> None:
        if self.paused_at is not None:
            self.at += time.monotonic() - self.paused_at
            self.paused_at = None


def _stack() -> list[Deadline]:
    stack: list[Deadline] | None = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


@contextmanager
def limit(seconds: float | None) -> Iterator[Deadline | None]:
    """Run the block under a limit of `seconds` (None: no limit of its own)."""
    stack = _stack()
    if seconds is None and not stack:
        yield None
        return
    at = time.monotonic() + seconds if seconds is not None else math.inf
    shown = seconds if seconds is not None else math.inf
    outer = stack[-1] if stack else None
    if outer is not None and outer.paused_at is None and outer.at < at:  # a running outer query
        at, shown = outer.at, outer.seconds
    deadline = Deadline(shown, at)
    stack.append(deadline)
    try:
        yield deadline
    finally:
        stack.remove(deadline)  # not always the top: an abandoned result generator


@contextmanager
def not_counted() -> Iterator[None]:
    """Pause the running query's clock: for work that is not the query's, such as loading
    an embedding model to compute a query vector (seconds the first time)."""
    running = current()
    if running is None or running.paused_at is not None:
        yield
        return
    with running.paused():
        yield


def current() -> Deadline | None:
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


def remaining() -> float | None:
    """Seconds left to the running query (None when it has no limit); raises when none."""
    deadline = current()
    if deadline is None:
        return None
    left = deadline.remaining()
    if left <= 0:
        raise deadline.expired()
    return left


def progress() -> bool:
    """SQLite's progress handler: raise `QueryTimeout` once the running query is out of time."""
    deadline = current()
    if deadline is not None and deadline.paused_at is None and time.monotonic() > deadline.at:
        raise deadline.expired()
    return False


def ran_out(limit: str, regex: str | None = None) -> str:
    """What ran out of time, as the library and the MCP server (whose advice differs) say
    it: `limit` is the time limit in words ("5 s")."""
    said = f"query took too long (over {limit})"
    if regex is not None:
        said += (
            f" in the regex /{regex}/ (catastrophic backtracking? nested repeats such as "
            f"(a|aa)+ or (\\w+\\s?)*)"
        )
    return said


def timed_out(seconds: float, regex: str | None = None) -> QueryTimeout:
    """The error for a query out of time; a `RegexTimeout` when a user regex was running."""
    advice = f"raise the limit with {ENVIRONMENT}=SECONDS (Python: index.query(q, timeout=SECONDS))"
    said = ran_out(f"{seconds:g} s", regex)
    if regex is None:
        error = QueryTimeout(f"{said}; narrow it (--path, a filter, a limit), or {advice}")
    else:
        error = RegexTimeout(f"{said}; simplify it, or {advice}")
    error.regex = regex
    return error
