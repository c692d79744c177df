"""One retry helper for every HTTP client (`docql_sqlite.retry`), tested against a live
server on 127.0.0.1 that throttles: the HTTP embedder, the HTTP reranker and the URL
fetcher each wait at least what `Retry-After` says (seconds or an HTTP-date), retry 429
and 503, and give up within their time budget. Timings are measured on the server (the
gap between two requests), with generous upper margins for a loaded machine.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from docql_sqlite.embedders.http import OpenAIEmbedder
from docql_sqlite.errors import DocQLError
from docql_sqlite.ingest.fetch import fetch_url
from docql_sqlite.rerankers.http import HTTPReranker
from docql_sqlite.retry import Policy, Retry, retry_after, retryable_status, with_retries

# --- the pieces --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("", None),
        ("7", 7.0),
        (" 120 ", 120.0),
        ("soon", None),
        ("-5", None),
        ("Thu, 01 Jan 1970 00:01:40 GMT", 60.0),  # now = 40: 100 - 40
        ("Thu, 01 Jan 1970 00:00:10 GMT", 0.0),  # in the past: no wait
    ],
)
def test_retry_after_parses_seconds_and_http_dates(header: str | None, expected: float) -> None:
    assert retry_after(header, now=40.0) == expected


@pytest.mark.parametrize(
    ("status", "retried"),
    [(408, True), (429, True), (500, True), (502, True), (503, True), (504, True),
     (599, True), (400, False), (401, False), (404, False), (418, False), (501, False)],
)  # fmt: skip
def test_which_statuses_are_retried(status: int, retried: bool) -> None:
    assert retryable_status(status) is retried


def test_backoff_doubles_with_jitter_and_a_floor() -> None:
    policy = Policy(backoff=1.0, max_backoff=5.0, jitter=0.5)
    rng = random.Random(0)
    for failures, base in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        waits = [policy.backoff_wait(failures, rng) for _ in range(200)]
        assert min(waits) >= base / 2 and max(waits) <= base
        assert max(waits) - min(waits) > base / 4  # really spread out


def test_with_retries_obeys_retry_after_and_the_budget() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    def attempt(left: float) -> str:
        raise Retry("HTTP 429", 429, retry_after=3.0)

    with pytest.raises(Exception) as err:
        with_retries(attempt, Policy(attempts=10, budget=8.0), what="x", sleep=sleep,
                     clock=lambda: now[0])  # fmt: skip
    # 3 s (+ up to 0.3 s of jitter) fits twice in 8 s, the third does not.
    assert len(slept) == 2 and all(3.0 <= s <= 3.3 for s in slept)
    assert "asked to wait 3 s, beyond the 8 s budget" in str(err.value)


# --- a throttling server ----------------------------------------------------------------


class Throttler:
    """Answers every request with the next planned (status, headers), then with success:
    OpenAI embeddings JSON, a rerank result, or a Markdown body, by path."""

    def __init__(self) -> None:
        self.plan: list[tuple[int, dict[str, str]]] = []
        self.times: list[float] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, body: dict | None) -> None:
                fake.times.append(time.monotonic())
                if fake.plan:
                    status, headers = fake.plan.pop(0)
                    payload = b'{"error": {"message": "slow down"}}'
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                else:
                    payload = self._success(body)
                    self.send_response(200)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _success(self, body: dict | None) -> bytes:
                if self.path.endswith("/embeddings") and body is not None:
                    rows = [{"index": i, "embedding": [1.0, float(i), 0.5]}
                            for i in range(len(body["input"]))]  # fmt: skip
                    return json.dumps({"data": rows}).encode()
                if self.path.endswith("/rerank") and body is not None:
                    results = [{"index": i, "relevance_score": float(-i)}
                               for i in range(len(body["documents"]))]  # fmt: skip
                    return json.dumps({"results": results}).encode()
                return b"# Title\n\nBody.\n"

            def do_POST(self) -> None:  # noqa: N802
                self._answer(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))

            def do_GET(self) -> None:  # noqa: N802
                self._answer(None)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()

    def gaps(self) -> list[float]:
        return [b - a for a, b in zip(self.times, self.times[1:])]


@pytest.fixture
def throttler() -> Iterator[Throttler]:
    fake = Throttler()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def embedder(base: str, budget: float) -> Callable[[], object]:
    model = OpenAIEmbedder("m", base + "/v1", api_key="", timeout=budget, retries=20, backoff=0.05)
    return lambda: model.embed(["a", "b"])


def reranker(base: str, budget: float) -> Callable[[], object]:
    model = HTTPReranker(base + "/v1/rerank", "r", api_key="", timeout=budget, attempts=20)
    return lambda: model.scores("q", ["a", "b"])


def fetcher(base: str, budget: float) -> Callable[[], object]:
    return lambda: fetch_url(base + "/doc.md", retries=20, backoff=0.05, budget=budget)


CLIENTS = [pytest.param(c, id=c.__name__) for c in (embedder, reranker, fetcher)]


# The wait is Retry-After plus at most a tenth of it (jitter, capped at 1 s); the rest of
# the allowance is the test machine's scheduling, not the client's choice.
SCHEDULING_SLACK = 1.5


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("seconds", [1, 2])
def test_waits_at_least_retry_after_seconds(
    throttler: Throttler, client, status: int, seconds: int
) -> None:
    # Two values, so a client that waits a fixed time of its own (or its backoff) fails
    # one of them: the gap follows what the server asked for.
    throttler.plan = [(status, {"Retry-After": str(seconds)})]
    client(throttler.base, 30.0)()
    assert len(throttler.times) == 2
    gap = throttler.gaps()[0]
    assert seconds <= gap < seconds * 1.1 + SCHEDULING_SLACK, gap


@pytest.mark.parametrize("client", CLIENTS)
def test_waits_until_a_retry_after_date(throttler: Throttler, client) -> None:
    # An HTTP-date has whole seconds: 3 s ahead is at least 2 s after this moment.
    throttler.plan = [(429, {"Retry-After": formatdate(time.time() + 3, usegmt=True)})]
    client(throttler.base, 30.0)()
    assert len(throttler.times) == 2
    assert 2.0 <= throttler.gaps()[0] < 10.0


@pytest.mark.parametrize("client", CLIENTS)
def test_gives_up_at_once_when_retry_after_exceeds_the_budget(throttler: Throttler, client) -> None:
    throttler.plan = [(429, {"Retry-After": "60"})] * 5
    started = time.monotonic()
    with pytest.raises(DocQLError) as err:
        client(throttler.base, 3.0)()
    assert time.monotonic() - started < 2.5  # no 60 s sleep that could never fit
    assert len(throttler.times) == 1
    assert "HTTP 429" in err.value.message
    assert "the server asked to wait 60 s, beyond the 3 s budget" in err.value.message


@pytest.mark.parametrize("client", CLIENTS)
def test_backs_off_without_retry_after_and_stops_at_the_budget(
    throttler: Throttler, client
) -> None:
    throttler.plan = [(503, {})] * 50
    started = time.monotonic()
    with pytest.raises(DocQLError, match="HTTP 503"):
        client(throttler.base, 1.5)()
    took = time.monotonic() - started
    assert took < 1.5 + 2.0  # the budget, and a loaded machine's margin
    gaps = throttler.gaps()
    assert len(throttler.times) >= 3 and gaps[-1] > gaps[0]  # waits grow


@pytest.mark.parametrize("client", CLIENTS)
def test_other_4xx_fail_at_once(throttler: Throttler, client) -> None:
    throttler.plan = [(403, {"Retry-After": "1"})]
    with pytest.raises(DocQLError, match="403"):
        client(throttler.base, 10.0)()
    assert len(throttler.times) == 1
