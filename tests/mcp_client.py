"""Helpers for the MCP tests: the SDK's own client over stdio and Streamable HTTP against a
real `docql-sqlite mcp` subprocess, driven from synchronous tests with anyio."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "docql-sqlite"


@contextlib.asynccontextmanager
async def stdio_session(
    db: str | Path, *extra: str, cwd: str | Path = REPO
) -> AsyncIterator[tuple[ClientSession, Any]]:
    """A session with `docql-sqlite mcp DB` spawned over stdio; yields (session, init)."""
    params = StdioServerParameters(
        command=str(CLI), args=["mcp", str(db), *extra], cwd=str(cwd), env=dict(os.environ)
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                yield session, init


@contextlib.asynccontextmanager
async def http_session(
    url: str, headers: dict[str, str] | None = None
) -> AsyncIterator[tuple[ClientSession, Any]]:
    async with create_mcp_http_client(headers=headers) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                yield session, init


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_get(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def http_post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


@contextlib.contextmanager
def http_server(db: str | Path, *extra: str, cwd: str | Path = REPO) -> Iterator[str]:
    """A live `docql-sqlite mcp DB --http 127.0.0.1:PORT` subprocess; yields its base URL
    once /health answers (bounded wait), and stops it afterwards."""
    with http_server_process(db, *extra, cwd=cwd) as (base, _):
        yield base


@contextlib.contextmanager
def http_server_process(
    db: str | Path, *extra: str, cwd: str | Path = REPO, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`http_server` with more environment, yielding (base URL, process)."""
    port = free_port()
    # stderr to a file, not a pipe: a server that logs a lot must not block on it.
    errors = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [str(CLI), "mcp", str(db), "--http", f"127.0.0.1:{port}", *extra],
        cwd=str(cwd),
        stdout=subprocess.DEVNULL,
        stderr=errors,
        env={**os.environ, **(env or {})},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                errors.seek(0)
                raise RuntimeError(f"server exited: {errors.read().decode()}")
            try:
                if http_get(base + "/health")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("server did not answer /health within 30 s")
            time.sleep(0.1)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        errors.close()


def rss_mb(pid: int) -> float:
    """Resident memory of a process (Linux /proc), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def text(result: Any) -> str:
    """The text of a tool result (all text blocks)."""
    return "".join(block.text for block in result.content if block.type == "text")
