"""Retrying an HTTP call the way servers ask to be retried: one helper for every client.

The HTTP embedder, the HTTP reranker and the URL fetcher all call `with_retries`. An
attempt raises `Retry` for a failure that another attempt may fix: a network error, a
timeout, or a status in `RETRY_STATUSES` (429 Too Many Requests and 503 Service
Unavailable above all: a hosted API that throttles a large `embed` means "later", not
"never"). Anything else the attempt raises is final and passes through untouched.

Between attempts the helper waits:
- what the server asked for in `Retry-After` (delta-seconds or an HTTP-date), plus a
  little jitter, never less: a server that says "1 second" gets at least 1 second;
- otherwise an exponential backoff with jitter (half fixed, half random: clients that
  failed together do not all come back at the same instant, yet each waits a minimum).

All attempts and waits share one time budget. A wait that would end past the budget
is not started: the call gives up at once, saying what the server asked for.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TypeVar

T = TypeVar("T")

# 408 Request Timeout, 425 Too Early, 429 Too Many Requests, and the 5xx that mean
# "not now" (500 included: an overloaded server often says 500). 501 and 505 are final.
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def retryable_status(code: int) -> bool:
    return code in RETRY_STATUSES or (code >= 500 and code not in (501, 505))


class Retry(Exception):
    """Raised by an attempt: this failure may pass; `retry_after` is the server's wish (s)."""

    def __init__(
        self, message: str, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after


class GaveUp(Exception):
    """Every attempt the budget allowed failed; `failure` is the last one."""

    def __init__(self, message: str, failure: Retry, attempts: int, why: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.failure = failure
        self.attempts = attempts
        self.status = failure.status
        self.why = why  # "" when the attempts ran out, else why no further wait fitted


@dataclass(frozen=True)
class Policy:
    attempts: int = 4  # at most this many attempts in all
    budget: float = 60.0  # seconds for every attempt and wait together
    backoff: float = 0.5  # the first wait without Retry-After; doubles each time
    max_backoff: float = 20.0  # the longest such wait
    jitter: float = 0.5  # the random share of a backoff wait (0: none, 1: all of it)

    def backoff_wait(self, failures: int, rng: random.Random | None = None) -> float:
        """The wait after the `failures`-th failure when the server named none."""
        base = min(self.max_backoff, self.backoff * 2 ** (failures - 1))
        fixed = base * (1.0 - self.jitter)
        return fixed + (rng or random).uniform(0.0, base - fixed)


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header: delta-seconds ("120") or an HTTP-date
    ("Wed, 21 Oct 2015 07:28:00 GMT"); None when absent or unreadable; a past date is 0."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000" parses naive; HTTP dates are GMT
        when = when.replace(tzinfo=timezone.utc)
    current = datetime.now(timezone.utc).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


def with_retries(
    attempt: Callable[[float], T],
    policy: Policy,
    *,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """`attempt(seconds_left)` until it returns, raises something other than `Retry`, or
    the attempts or the budget run out (`GaveUp`, naming `what` and the last failure)."""
    deadline = clock() + policy.budget
    failures = 0
    while True:
        try:
            return attempt(max(0.001, deadline - clock()))
        except Retry as failure:
            failures += 1
            tries = f"{failures} attempt{'s' if failures > 1 else ''}"
            if failures >= policy.attempts:
                raise GaveUp(f"{what} failed after {tries}: {failure}", failure, failures) from None
            if failure.retry_after is not None:
                # At least what the server asked for, and a little more, spread out.
                wait = failure.retry_after + random.uniform(0.0, min(1.0, failure.retry_after / 10))
            else:
                wait = policy.backoff_wait(failures)
            left = deadline - clock()
            if wait >= left:
                asked = (
                    f"the server asked to wait {failure.retry_after:g} s"
                    if failure.retry_after is not None
                    else f"the next try would start in {wait:.2g} s"
                )
                why = f"{asked}, beyond the {policy.budget:g} s budget"
                raise GaveUp(
                    f"{what} failed after {tries}: {failure} ({why})", failure, failures, why
                ) from None
            sleep(wait)
