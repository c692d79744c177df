"""A real PostgreSQL 16 + pgvector for tests, from the `pgserver` wheel (the `postgres` extra).

One server per test session (pytest fixture `pg_server` in the test modules); each test
gets its own fresh database (`fresh_database`). When PostgreSQL cannot start — the extra
is not installed, or the platform has no binaries — the tests skip and say why.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

_counter = itertools.count()


def start_server() -> Iterator[Any]:
    """Yield a running pgserver (stopped and removed afterwards), or skip with the reason."""
    try:
        import pgserver
        import psycopg  # noqa: F401 - the driver the product uses
    except ImportError as exc:
        pytest.skip(f"PostgreSQL tests need the 'postgres' extra: {exc}")
    with tempfile.TemporaryDirectory(prefix="docql-pg-") as root:
        try:
            server = pgserver.get_server(root, cleanup_mode="stop")
        except Exception as exc:  # any failure to start is a reason to skip, shown as such
            pytest.skip(f"PostgreSQL could not start here: {type(exc).__name__}: {exc}")
        _tune_for_tests(server)
        try:
            yield server
        finally:
            server.cleanup()


def _tune_for_tests(server: Any) -> None:
    """No fsync: a test server's data is thrown away, and its shutdown checkpoint (and every
    CREATE DATABASE) would otherwise wait for the shared disk for many seconds."""
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            conn.execute(f"ALTER SYSTEM SET {setting}")
        conn.execute("SELECT pg_reload_conf()")


def fresh_database(server: Any) -> str:
    """A new, empty database on `server`; its postgresql:// URL."""
    import psycopg

    name = f"docql_test_{next(_counter)}"
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'")
    return server.get_uri(name)


def index_at_once(
    cli: Path, url: str, cwd: Path, roots: Sequence[Sequence[str]], timeout: float = 900
) -> list[dict[str, Any]]:
    """Start one `docql-sqlite index URL ROOTS...` process per entry at once (concurrent
    writers on one PostgreSQL index); their JSON reports, each run asserted successful."""
    procs = [
        subprocess.Popen(
            [str(cli), "index", url, *paths, "--workers", "0", "--json"],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for paths in roots
    ]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, err
        reports.append(json.loads(out)[0])
    return reports
