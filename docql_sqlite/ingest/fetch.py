"""Fetch one URL into a `Source`: the network twin of `read.read_source`.

Only the standard library (urllib) is used. Every failure is an `IngestError` whose
reason a person can act on; transient ones (network errors, timeouts, HTTP 429, 503 and
the other 5xx) are retried by `docql_sqlite.retry` (Retry-After honoured, exponential
backoff with jitter, one time budget), permanent ones (other 4xx, oversize bodies)
never are.
"""

from __future__ import annotations

import hashlib
import http.client
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import timezone
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Any

from ..errors import IngestError
from ..model import Source
from ..retry import GaveUp, Policy, Retry, retry_after, retryable_status, with_retries
from .formats import format_for_path
from .paths import is_url  # noqa: F401 - part of this module's interface
from .read import DEFAULT_MAX_BYTES

_SCHEMES = ("http", "https")
_MAX_REDIRECTS = 10
_CHUNK = 64 * 1024
# Two or more letters before "://", so Windows drive paths ("C:\\x") are never URLs.
_MIME_FORMATS = {
    "text/markdown": "markdown", "text/x-markdown": "markdown", "text/html": "html",
    "application/xhtml+xml": "html", "application/pdf": "pdf", "text/plain": "text",
    "text/x-rst": "rst", "text/asciidoc": "asciidoc", "text/x-asciidoc": "asciidoc",
    "text/org": "org", "text/x-org": "org", "text/troff": "man",
    "application/x-troff-man": "man", "application/x-latex": "latex", "text/x-tex": "latex",
    "application/x-tex": "latex", "application/x-bibtex": "bibtex", "text/x-bibtex": "bibtex",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}  # fmt: skip


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """urllib's redirect following, capped explicitly and limited to http(s) targets."""

    max_redirections = _MAX_REDIRECTS

    def redirect_request(
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> Any:
        scheme = urllib.parse.urlsplit(newurl).scheme.lower()
        if scheme not in _SCHEMES:  # urllib would happily follow a redirect to ftp://
            fp.close()
            raise IngestError(f"redirected to an unsupported URL scheme '{scheme}' ({newurl})")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def fetch_url(
    url: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    timeout: float = 30.0,
    retries: int = 3,
    backoff: float = 0.5,
    budget: float = 120.0,
) -> Source:
    """GET `url` (following up to 10 redirects) and return its body as a `Source`.

    `timeout` bounds each attempt as a whole (connect + headers + body), not each socket
    read, so a server trickling bytes cannot hold us forever. `retries` is the total
    number of attempts, all within `budget` seconds; before attempt n+1 it waits what
    the server's `Retry-After` asks (429, 503), else about `backoff * 2**(n-1)` seconds
    with jitter (`docql_sqlite.retry`).
    `Source.path` is `url` as given (what users filter on), `Source.uri` the final URL.
    """
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        reason = (
            f"unsupported URL scheme '{parts.scheme}'"
            if scheme
            else "not a URL (expected http:// or https://)"
        )
        raise IngestError(reason, url)
    if not parts.hostname:
        raise IngestError("invalid URL: no host name", url)
    attempts = max(1, retries)
    policy = Policy(attempts=attempts, budget=budget, backoff=backoff)
    try:
        return with_retries(
            lambda left: _fetch_once(url, max_bytes, min(timeout, left)), policy, what=url
        )
    except GaveUp as gave_up:
        reason = gave_up.failure.message
        if gave_up.attempts > 1:
            reason += f" (after {gave_up.attempts} attempts)"
        if gave_up.why:
            reason += f" ({gave_up.why})"
        raise IngestError(reason, url) from None


def _fetch_once(url: str, max_bytes: int, timeout: float) -> Source:
    """One attempt: raises `Retry` for retryable failures, `IngestError` for the rest."""
    from ..version import __version__

    timed_out = f"timed out after {timeout:g} s"
    deadline = time.monotonic() + timeout
    # identity: urllib does not decompress, and the size cap must apply to real bytes.
    headers = {"User-Agent": f"docql-sqlite/{__version__}", "Accept-Encoding": "identity"}
    request = urllib.request.Request(url, headers=headers)
    try:
        # The socket timeout bounds connect and header reads; the deadline bounds the body.
        # A fresh opener per call reads the *_proxy environment variables as they are now.
        with urllib.request.build_opener(_RedirectHandler).open(request, timeout=timeout) as resp:
            length = _content_length(resp.headers.get("Content-Length"))
            if (
                length is not None and length > max_bytes
            ):  # refuse unread: leaving `with` closes the socket
                limit = f"the {max_bytes:,}-byte limit (raise it with --max-bytes)"
                raise IngestError(
                    f"too large: Content-Length {length:,} bytes exceeds {limit}", url
                )
            data = _read_body(resp, max_bytes, deadline, timed_out, url)
            final_url, info = resp.geturl(), resp.headers
    except IngestError as exc:
        raise IngestError(exc.message, url) from None  # errors raised in handlers lack the path
    except urllib.error.HTTPError as exc:  # before URLError: HTTPError is a subclass
        exc.close()
        if 300 <= exc.code < 400 and str(exc.reason).startswith(_RedirectHandler.inf_msg):
            raise IngestError(
                f"too many redirects (more than {_MAX_REDIRECTS}) or a redirect loop", url
            ) from None
        reason = f"HTTP {exc.code} {_phrase(exc.code, exc.reason)}".rstrip()
        if retryable_status(exc.code):
            wait = retry_after(exc.headers.get("Retry-After") if exc.headers else None)
            raise Retry(reason, exc.code, wait) from None
        raise IngestError(reason, url) from None
    except urllib.error.URLError as exc:
        cause = exc.reason
        if isinstance(cause, TimeoutError):
            raise Retry(timed_out) from None
        if isinstance(cause, ssl.SSLCertVerificationError):  # retrying cannot fix a bad certificate
            raise IngestError(
                f"TLS certificate error: {cause.verify_message or cause}", url
            ) from None
        raise Retry(f"network error: {_describe(cause)}") from None
    except TimeoutError:  # raised bare (not wrapped) when reading headers or body
        raise Retry(timed_out) from None
    except (
        OSError,
        http.client.HTTPException,
    ) as exc:  # reset, remote closed, bad status line, ...
        raise Retry(f"network error: {_describe(exc)}") from None
    return Source(
        path=url,
        uri=final_url,
        data=data,
        sha256=hashlib.sha256(data).hexdigest(),
        mtime_ns=_mtime_ns(info.get("Last-Modified")),
        format=format_for_path(urllib.parse.urlsplit(final_url).path)
        or _MIME_FORMATS.get(info.get_content_type()),
    )


def _read_body(
    resp: http.client.HTTPResponse, max_bytes: int, deadline: float, timed_out: str, url: str
) -> bytes:
    """Stream the body, enforcing the cap and the deadline between reads."""
    chunks: list[bytes] = []
    received = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Retry(timed_out)
        _limit_socket_wait(resp, remaining)  # a stall cannot outlast the deadline either
        # read1, not read: read(n) waits for all n bytes, so a trickle would never come back here.
        chunk = resp.read1(_CHUNK)
        if not chunk:
            break
        received += len(chunk)
        if received > max_bytes:  # chunked or lying servers: stop as soon as we are over
            raise IngestError(f"too large: more than {max_bytes:,} bytes received", url)
        chunks.append(chunk)
    if resp.length:  # read1 returns b"" on early EOF instead of raising IncompleteRead
        raise Retry(
            f"network error: connection closed after {received:,} bytes ({resp.length:,} missing)"
        )
    return b"".join(chunks)


def _limit_socket_wait(resp: http.client.HTTPResponse, seconds: float) -> None:
    """Best effort: shrink the socket timeout to the time left (reaches into http.client)."""
    sock = getattr(getattr(resp.fp, "raw", None), "_sock", None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.001))


def _content_length(value: str | None) -> int | None:
    """The declared length; a garbled header is ignored (the streaming check still applies)."""
    return int(value) if value and value.strip().isdigit() else None


def _phrase(code: int, reason: object) -> str:
    """The server's reason phrase, or the standard one when it sent none."""
    try:
        return str(reason or "").strip() or HTTPStatus(code).phrase
    except ValueError:  # a non-standard code with no phrase
        return ""


def _describe(exc: BaseException | str) -> str:
    """`Connection refused` rather than `[Errno 111] Connection refused`."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _mtime_ns(value: str | None) -> int | None:
    """Last-Modified as epoch nanoseconds; None when absent or unparsable."""
    try:
        stamp = parsedate_to_datetime(value or "")
    except (TypeError, ValueError):  # absent or unparsable
        return None
    if stamp.tzinfo is None:  # "-0000" parses naive; HTTP dates are always GMT
        stamp = stamp.replace(tzinfo=timezone.utc)
    return int(stamp.timestamp()) * 1_000_000_000
