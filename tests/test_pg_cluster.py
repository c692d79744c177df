"""The loopback cluster: a primary and two hot standbys streaming from it (pg_basebackup
-R), on 127.0.0.1, from pgserver's binaries (tests/pg_cluster.py).

Concurrent writers index on the primary; once the standbys have replayed its WAL
(`pg_last_wal_replay_lsn() >= pg_current_wal_lsn()`), the same DocQL queries, outlines
and excerpts through `Index` and the CLI on each standby give the primary's rows, and a
standby refuses writes with one line. Then the primary stops, a standby is promoted: it
keeps answering, and accepts an index run. The short variant runs in `make test`; the
slow one (DOCQL_SLOW=1) indexes a tree eight times bigger with four writers.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, REPO
from pg_server import index_at_once

import docql_sqlite
from docql_sqlite import DatabaseError

pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")
pytest.importorskip("pgserver", reason="the cluster test needs pgserver's binaries")
from pg_cluster import Cluster, start_cluster  # noqa: E402 - after the skips

QUERIES = ("$.toc", "$.files", "$.entities", "$.content.codeblock[*]", "$.structure")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    try:
        running = start_cluster(standbys=2)
    except Exception as exc:  # no binaries, no user, no port: say why and skip
        pytest.skip(f"PostgreSQL cluster could not start here: {type(exc).__name__}: {exc}")
    try:
        yield running
    finally:
        running.stop()


def _tree(root: Path, copies: int) -> Path:
    for n in range(copies):
        for part in ("en", "zh", "code"):
            shutil.copytree(REPO / "datasets" / part, root / "tree" / f"c{n}" / part)
    return root


def _answers(url: str) -> dict[str, Any]:
    """What a reader sees: DocQL rows, outlines, an excerpt, the figures."""
    with docql_sqlite.open(url) as index:
        answers: dict[str, Any] = {q: list(index.query(q)) for q in QUERIES}
        answers["toc"] = index.toc()
        first = index.documents()[0]["path"]
        answers["get"] = index.get(first + ":1-5").to_dict()
        status = index.status()
        answers["status"] = {k: v for k, v in status.items() if k not in ("database", "size_bytes")}
    return answers


def _cli_query(url: str, query: str) -> Any:
    done = subprocess.run(
        [str(CLI), "query", url, query], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _run_scenario(cluster: Cluster, tmp: Path, copies: int, writers: list[list[str]]) -> None:
    root = _tree(tmp, copies)
    primary = cluster.primary.url()
    reports = index_at_once(CLI, primary, root, writers)
    assert all(r["failed"] == 0 for r in reports)
    expected_docs = 27 * copies
    cluster.wait_for_replay()
    on_primary = _answers(primary)
    assert on_primary["status"]["documents"] == expected_docs
    assert len(on_primary["$.files"]) == expected_docs
    for standby in cluster.standbys:
        assert standby.sql("SELECT pg_is_in_recovery()") is True
        assert _answers(standby.url()) == on_primary, standby.name
        assert _cli_query(standby.url(), "$.toc") == on_primary["$.toc"]
        # A standby is read-only: an index run says so in one line, and writes nothing.
        with pytest.raises(DatabaseError, match="is a read-only standby") as info:
            docql_sqlite.index(standby.url(), [str(root / "tree")])
        assert "\n" not in str(info.value)

    # Fail-over: the primary stops, the first standby is promoted.
    cluster.primary.stop()
    promoted = cluster.standbys[0]
    promoted.promote()
    assert promoted.sql("SELECT pg_is_in_recovery()") is False
    assert _answers(promoted.url()) == on_primary
    assert _answers(cluster.standbys[1].url()) == on_primary  # the other keeps serving reads
    extra = root / "tree" / "after-failover.md"
    extra.write_text("# After fail-over\n\nWritten to the promoted standby.\n", encoding="utf-8")
    report = docql_sqlite.index(promoted.url(), [str(root / "tree")], workers=0)
    assert (len(report.added), report.unchanged, report.failed) == (1, expected_docs, [])
    with docql_sqlite.open(promoted.url()) as index:
        titles = [i["title"] for i in index.query("$.toc[?(@.level == 1)]")]
    assert "After fail-over" in titles


def test_cluster_replicates_and_fails_over(cluster: Cluster, tmp_path: Path) -> None:
    writers = [["tree/c0/en", "tree/c0/code"], ["tree/c0/zh", "tree/c0/code"], ["tree"]]
    _run_scenario(cluster, tmp_path, 1, writers)


@pytest.mark.slow
def test_cluster_with_a_bigger_tree_and_four_writers(tmp_path: Path) -> None:
    try:
        running = start_cluster(standbys=2)
    except Exception as exc:
        pytest.skip(f"PostgreSQL cluster could not start here: {type(exc).__name__}: {exc}")
    try:
        writers = [["tree"], ["tree/c0", "tree/c1", "tree/c2"], ["tree/c3", "tree/c1"], ["tree"]]
        _run_scenario(running, tmp_path, 8, writers)
    finally:
        running.stop()
