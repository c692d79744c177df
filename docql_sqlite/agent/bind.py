"""`--http [HOST:]PORT`: read the address (no MCP import, so a typo fails fast)."""

from __future__ import annotations

from .. import UsageError

DEFAULT_HOST = "127.0.0.1"


def parse_bind(spec: str) -> tuple[str, int]:
    """`8765`, `127.0.0.1:8765`, `[::1]:8765` → (host, port); the host defaults to 127.0.0.1."""
    host, sep, port = spec.rpartition(":")
    if not sep:
        host, port = DEFAULT_HOST, spec
    host = host.strip("[]") or DEFAULT_HOST
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise UsageError(f"'{spec}' is not [HOST:]PORT (a port is a number from 1 to 65535)")
    return host, int(port)


def host_name(host: str) -> str:
    """A host as it appears in a URL or a Host header (`[::1]` for IPv6)."""
    return f"[{host}]" if ":" in host else host
