"""`ingest.fetch.fetch_url` against a real HTTP server on 127.0.0.1 (ephemeral port).

The server counts requests per path, so retry behaviour is checked from the server's
side, and records whether a client hung up mid-body, so "refused without reading the
body" is observable. Timeouts and backoffs are tiny to keep the file fast.
"""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from docql_sqlite import __version__
from docql_sqlite.errors import IngestError
from docql_sqlite.ingest.fetch import fetch_url, is_url

MARKDOWN = b"# Title\n\nSome text.\n"
HUGE = 60_000_000  # advertised size of /huge; only a few MB ever leave the server


class Server:
    """What the handler saw: request counts, headers, and client disconnects."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.headers: dict[str, Message] = {}  # case-insensitive lookups
        self.disconnected: dict[str, threading.Event] = {}
        self.sent: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.stop = threading.Event()  # ends the slow handlers' waits at teardown
        self.base = ""

    def url(self, path: str) -> str:
        return self.base + path

    def hung_up(self, path: str) -> threading.Event:
        with self.lock:
            return self.disconnected.setdefault(path, threading.Event())


class Handler(BaseHTTPRequestHandler):
    server_state: Server  # set on the subclass made per server

    def log_message(self, format: str, *args: object) -> None:  # keep pytest output clean
        pass

    def _reply(
        self, code: int, body: bytes, content_type: str = "text/plain", **headers: str
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, code: int, location: str) -> None:
        self.send_response(code)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _stream(self, key: str, pieces: Iterator[bytes]) -> None:
        """Write pieces until done or the client hangs up (recorded as a disconnect)."""
        state = self.server_state
        try:
            for piece in pieces:
                self.wfile.write(piece)
                self.wfile.flush()
                with state.lock:
                    state.sent[key] += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            state.hung_up(key).set()

    def do_GET(self) -> None:  # noqa: C901 - one branch per scenario reads best here
        state = self.server_state
        path, _, query = self.path.partition("?")
        with state.lock:
            state.counts[path] += 1
            count = state.counts[path]
            state.headers[path] = self.headers
        if path == "/doc.md":
            self._reply(
                200,
                MARKDOWN,
                "text/markdown; charset=utf-8",
                Last_Modified="Wed, 21 Oct 2015 07:28:00 GMT",
            )
        elif path == "/typed":  # format must come from Content-Type: no extension in the URL
            self._reply(200, b"body", query.replace("%20", " ").replace("%3B", ";"))
        elif path == "/start":
            self._redirect(302, "/middle")
        elif path == "/middle":
            self._redirect(301, state.url("/final.md"))  # absolute this time
        elif path == "/final.md":
            self._reply(200, MARKDOWN, "text/plain")  # extension of the final URL wins
        elif path == "/loop":
            self._redirect(302, f"/loop?{count}")
        elif path == "/to-ftp":
            self._redirect(302, "ftp://example.com/file.md")
        elif path == "/missing":
            self.send_error(404)
        elif path == "/teapot":
            self._reply(418, b"no", Retry_After="0")
        elif path == "/flaky":
            self.send_error(500) if count == 1 else self._reply(200, b"ok now")
        elif path == "/down":
            self.send_error(503)
        elif path == "/truncated":  # promises 100 bytes, sends 10, hangs up
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"x" * 10)
        elif path == "/huge":  # honest Content-Length over the cap
            self.send_response(200)
            self.send_header("Content-Length", str(HUGE))
            self.end_headers()
            self._stream(path, (b"x" * 65536 for _ in range(HUGE // 65536)))
        elif path == "/chunked":  # no Content-Length at all: HTTP/1.1 chunked, 100 MB
            self.protocol_version = "HTTP/1.1"
            self.close_connection = True
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"10000\r\n" + b"y" * 65536 + b"\r\n"
            self._stream(path, (chunk for _ in range(1600)))
        elif path == "/slow":  # 1 byte every 20 ms: every read is quick, the whole is not
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self._stream(path, (b"z" for _ in range(1000) if not state.stop.wait(0.02)))
        elif path == "/stall":  # a few quick bytes, then silence
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self._stream(path, (b"z" for _ in range(40) if not state.stop.wait(0.02)))
            state.stop.wait(3)
        else:
            self.send_error(404)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    state = Server()
    handler = type("BoundHandler", (Handler,), {"server_state": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    state.stop.set()
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy configured on the test machine must not swallow requests to 127.0.0.1."""
    for name in (
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
    ):
        monkeypatch.delenv(name, raising=False)


def fails(url: str, **kwargs: float) -> tuple[str, float]:
    """The IngestError reason of fetching `url`, and how long it took."""
    start = time.monotonic()
    with pytest.raises(IngestError) as info:
        fetch_url(url, **kwargs)  # type: ignore[arg-type]
    assert info.value.path == url
    return info.value.message, time.monotonic() - start


def test_markdown_page(server: Server) -> None:
    url = server.url("/doc.md")
    source = fetch_url(url)
    assert source.data == MARKDOWN
    assert source.path == url and source.uri == url
    assert source.sha256 == hashlib.sha256(MARKDOWN).hexdigest()
    assert source.format == "markdown"
    assert source.mtime_ns == 1445412480 * 1_000_000_000
    assert server.headers["/doc.md"]["User-Agent"] == f"docql-sqlite/{__version__}"


def test_redirect_chain_records_final_url(server: Server) -> None:
    url = server.url("/start")
    source = fetch_url(url)
    assert source.path == url  # what the user typed
    assert source.uri == server.url("/final.md")
    assert source.format == "markdown"  # from the final URL, despite text/plain
    assert source.mtime_ns is None
    assert [server.counts[p] for p in ("/start", "/middle", "/final.md")] == [1, 1, 1]


def test_redirect_limits(server: Server) -> None:
    reason, _ = fails(server.url("/loop"), retries=3, backoff=0.01)
    assert reason.startswith("too many redirects (more than 10)")
    assert server.counts["/loop"] <= 11  # not retried either
    reason, _ = fails(server.url("/to-ftp"))
    assert reason.startswith("redirected to an unsupported URL scheme 'ftp'")


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        ("text/markdown", "markdown"),
        ("text/html; charset=utf-8", "html"),
        ("application/pdf", "pdf"),
        ("text/plain", "text"),
        ("text/asciidoc", "asciidoc"),
        ("text/org", "org"),
        ("application/x-troff-man", "man"),
        ("application/x-latex", "latex"),
        ("text/x-tex", "latex"),
        ("application/x-bibtex", "bibtex"),
        ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
        ("application/octet-stream", None),  # the caller sniffs
    ],
)
def test_format_from_content_type(server: Server, content_type: str, expected: str | None) -> None:
    source = fetch_url(server.url("/typed?" + content_type.replace(" ", "%20").replace(";", "%3B")))
    assert source.format == expected


def test_404_is_not_retried(server: Server) -> None:
    reason, _ = fails(server.url("/missing"), retries=3, backoff=0.01)
    assert reason == "HTTP 404 Not Found"
    assert server.counts["/missing"] == 1
    reason, _ = fails(server.url("/teapot"), retries=3, backoff=0.01)
    assert reason == "HTTP 418 I'm a Teapot"
    assert server.counts["/teapot"] == 1


def test_500_then_200_is_retried(server: Server) -> None:
    source = fetch_url(server.url("/flaky"), retries=3, backoff=0.01)
    assert source.data == b"ok now"
    assert server.counts["/flaky"] == 2


def test_503_gives_up_after_retries(server: Server) -> None:
    reason, elapsed = fails(server.url("/down"), retries=3, backoff=0.05)
    assert reason == "HTTP 503 Service Unavailable (after 3 attempts)"
    assert server.counts["/down"] == 3
    # Exponential backoff, 0.05 s then 0.1 s, each with jitter: at least half of each.
    assert elapsed >= (0.05 + 0.1) / 2


def test_truncated_body_is_a_network_error(server: Server) -> None:
    reason, _ = fails(server.url("/truncated"), retries=2, backoff=0.01)
    assert (
        reason == "network error: connection closed after 10 bytes (90 missing) (after 2 attempts)"
    )
    assert server.counts["/truncated"] == 2


def test_honest_content_length_over_cap_is_refused_unread(server: Server) -> None:
    reason, elapsed = fails(server.url("/huge"), max_bytes=50_000_000, retries=3, backoff=0.01)
    assert reason == (
        "too large: Content-Length 60,000,000 bytes exceeds the 50,000,000-byte limit (raise it "
        "with --max-bytes)"
    )
    assert elapsed < 1.0
    assert server.counts["/huge"] == 1  # oversize is never retried
    assert server.hung_up("/huge").wait(5), "the client should have closed the connection"
    assert server.sent["/huge"] < HUGE // 4  # only what fit in socket buffers left the server


def test_chunked_body_over_cap_is_refused_while_streaming(server: Server) -> None:
    reason, elapsed = fails(server.url("/chunked"), max_bytes=1_000_000, retries=3, backoff=0.01)
    assert reason == "too large: more than 1,000,000 bytes received"
    assert elapsed < 2.0
    assert server.counts["/chunked"] == 1
    assert server.hung_up("/chunked").wait(5)
    assert server.sent["/chunked"] < 1600 * 65536 // 4


def test_total_timeout_fires_on_a_trickle(server: Server) -> None:
    # Every read returns within 20 ms, so only a whole-download deadline can stop this.
    reason, elapsed = fails(server.url("/slow"), timeout=0.5, retries=2, backoff=0.01)
    assert reason == "timed out after 0.5 s (after 2 attempts)"
    assert server.counts["/slow"] == 2  # timeouts are retried
    assert 0.9 <= elapsed < 3.0  # two 0.5 s attempts, not two 20 s downloads


def test_deadline_also_bounds_a_late_stall(server: Server) -> None:
    # Bytes flow for ~0.8 s, then stop: the last wait is cut to the ~0.2 s left (done at
    # ~1 s), not a fresh 1 s socket timeout (done at ~1.8 s).
    reason, elapsed = fails(server.url("/stall"), timeout=1.0, retries=1)
    assert reason == "timed out after 1 s"
    assert elapsed < 1.5


def test_refused_connection_is_retried_then_reported() -> None:
    with socket.socket() as sock:  # a port that was just free: nothing listens there now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    reason, elapsed = fails(f"http://127.0.0.1:{port}/x.md", retries=3, backoff=0.01)
    assert reason == "network error: Connection refused (after 3 attempts)"
    assert elapsed < 1.0


def test_bad_urls() -> None:
    assert fails("ftp://example.com/a.md")[0] == "unsupported URL scheme 'ftp'"
    assert fails("file:///etc/passwd")[0] == "unsupported URL scheme 'file'"
    assert fails("http:///nohost")[0] == "invalid URL: no host name"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://example.com/a.md", True),
        ("http://127.0.0.1:8000", True),
        ("  HTTP://EXAMPLE.COM  ", True),
        ("ftp://example.com/x", True),  # a URL, which fetch_url then refuses clearly
        ("docs/readme.md", False),
        ("C:\\docs\\a.md", False),
        ("C://docs", False),
        ("example.com/a.md", False),
        ("", False),
    ],
)
def test_is_url(text: str, expected: bool) -> None:
    assert is_url(text) is expected
