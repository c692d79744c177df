"""The Streamable HTTP transport, guarded: `docql-sqlite mcp DB --http [HOST:]PORT`.

The MCP specification asks local servers to validate `Origin` (a web page in a browser
must not reach a server on localhost: DNS rebinding) and to bind to localhost. So:
- bound to 127.0.0.1 unless a host is given;
- every request (also `/health`) needs a `Host` naming this server (`127.0.0.1:PORT`,
  `localhost:PORT`, `[::1]:PORT`, or the host it was bound to), else 421;
- a request with an `Origin` header needs a local origin (http://localhost:*,
  http://127.0.0.1:*, http://[::1]:*), else 403; tools such as MCP clients send none;
- with a token set, `/mcp` needs `Authorization: Bearer TOKEN` (compared in constant
  time), else 401; `/health` answers without it (it says nothing about the index).
The SDK's own DNS-rebinding check runs behind this one with the same lists.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

from .bind import host_name

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
        await self.app(scope, receive, send)


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
