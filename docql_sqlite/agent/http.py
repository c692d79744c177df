"""The Streamable HTTP transport, guarded: `docql-sqlite mcp DB --http [HOST:]PORT`.

The MCP specification asks local servers to validate `Origin` (a web page in a browser
must not reach a server on localhost: DNS rebinding) and to bind to localhost. So:
- bound to 127.0.0.1 unless a host is given;
- every request (also `/health`) needs a `Host` naming this server (`127.0.0.1:PORT`,
  `localhost:PORT`, `[::1]:PORT`, or the host it was bound to), else 421;
- a request with an `Origin` header needs a local origin (http://localhost:*,
  http://127.0.0.1:*, http://[::1]:*), else 403; tools such as MCP clients send none;
- with a token set, `/mcp` needs `Authorization: Bearer TOKEN` (compared in constant
  time), else 401; `/health` answers without it (it says nothing about the index);
- a request body over MAX_BODY_BYTES gets 413 before anything parses it.
The SDK's own DNS-rebinding check runs behind this one with the same lists.

`guarded_protocol` is the connection-level guard (issue 20 §12, slowloris): a connection
must finish its request headers within `header_seconds()`, and when more than
MAX_CONNECTIONS connections wait for their headers at once, the oldest is closed, so
a flood of unfinished requests can neither hold connections for ever nor lock newcomers
out.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

from .bind import host_name
from .limits import MAX_BODY_BYTES, MAX_CONNECTIONS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
MCP_PATH = "/mcp"


def security_settings(host: str) -> TransportSecuritySettings:
    hosts = sorted({*LOCAL_HOSTS, host_name(host)})
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{h}:*" for h in hosts],
        allowed_origins=[f"http://{h}:*" for h in hosts] + [f"https://{h}:*" for h in hosts],
    )


class Guard:
    """ASGI middleware: Host, Origin and bearer-token checks in front of the whole app."""

    def __init__(self, app: ASGIApp, host: str, port: int, token: str | None) -> None:
        self.app = app
        self.port = port
        names = {*LOCAL_HOSTS, host_name(host)}
        self.hosts = {f"{h}:{port}" for h in names} | (names if port == 80 else set())
        self.origins = {f"{scheme}://{h}" for h in names for scheme in ("http", "https")}
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if headers.get("host", "") not in self.hosts:
            await refuse(send, 421, "this server answers only to a local Host header")
            return
        origin = headers.get("origin")
        if origin is not None and _origin_base(origin) not in self.origins:
            await refuse(send, 403, "requests from web pages of other origins are refused")
            return
        if scope["path"] == "/health" and scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if self.token is not None:
            given = headers.get("authorization", "")
            expected = f"Bearer {self.token}"
            if not hmac.compare_digest(given.encode(), expected.encode()):
                await refuse(send, 401, "a bearer token is required (Authorization: Bearer …)")
                return
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > MAX_BODY_BYTES:
            await refuse(send, 413, body_too_large())
            return
        await self.app(scope, capped(receive), send)


def body_too_large() -> str:
    return f"a request body is at most {MAX_BODY_BYTES:,} bytes (MCP server limit)"


class BodyTooLarge(Exception):
    pass


def capped(receive: Receive) -> Receive:
    """`receive` that stops a body (chunked, or lying about its length) at MAX_BODY_BYTES."""
    seen = 0

    async def receive_capped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY_BYTES:
                # The app sees the client leave; the connection is closed.
                return {"type": "http.disconnect"}
        return message

    return receive_capped


def _origin_base(origin: str) -> str:
    """`http://localhost:5173` → `http://localhost` (any local port may call)."""
    scheme, sep, rest = origin.partition("://")
    if not sep:
        return origin
    if rest.startswith("["):
        return f"{scheme}://{rest[: rest.find(']') + 1]}"
    return f"{scheme}://{rest.split(':')[0].split('/')[0]}"


async def refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def guarded_protocol(header_seconds: float, max_waiting: int = MAX_CONNECTIONS) -> type[Any]:
    """uvicorn's HTTP protocol class with a header deadline and a cap on connections that
    wait for their headers (uvicorn has neither: its keep-alive timeout starts only after
    a first response). Both the httptools and the h11 protocol keep `cycle`, the request
    being answered: None, or a finished one, while headers are still awaited."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    waiting: dict[Any, Any] = {}  # protocol → the cycle it was waiting after (oldest first)

    class HeaderGuard(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _header_timer: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._wait_for_headers()
            while len(waiting) > max_waiting:
                oldest = next(iter(waiting))
                oldest._drop_if_still_waiting()

        def data_received(self, data: bytes) -> None:
            if self._header_timer is None and self._between_requests():
                self._wait_for_headers()
            super().data_received(data)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            super().connection_lost(exc)

        def _between_requests(self) -> bool:
            return self.cycle is None or bool(self.cycle.response_complete)

        def _wait_for_headers(self) -> None:
            waiting[self] = self.cycle
            self._header_timer = self.loop.call_later(header_seconds, self._drop_if_still_waiting)

        def _stop_waiting(self) -> None:
            waiting.pop(self, None)
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _drop_if_still_waiting(self) -> None:
            # Still waiting: no request has started since the timer was armed.
            still = waiting.get(self, ...) is self.cycle and self._between_requests()
            self._stop_waiting()
            if still and not self.transport.is_closing():
                self.transport.close()

    return HeaderGuard
