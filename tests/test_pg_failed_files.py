"""The failed-file memo on PostgreSQL: a file that failed to parse is recorded with its size
and mtime and not parsed again by a later `index` run until either changes (or with
`retry_failed`), as on a file (tests/test_failed_files.py, whose table this mirrors).

The proof that a file is *not parsed* is the same: its content is fixed while its size and
mtime are put back, so a parse would index it and a skip leaves it failed, its error row
as it was (same id, same `at`).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, TmpIndex
from pg_server import fresh_database, start_server

import docql_sqlite
from docql_sqlite.ingest.run import SKIP_FAILED_UNCHANGED

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")

BINARY = b"\x00\x01binary"  # a NUL byte: refused as binary, an error (not a skip)
FIXED = b"# Fixed\n"  # as long as BINARY, so only the content differs


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


def _rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return [tuple(r) for r in conn.execute(sql).fetchall()]


def error_rows(url: str) -> list[tuple[Any, ...]]:
    return _rows(url, "SELECT id, path, size, mtime_ns, at FROM ingest_errors ORDER BY id")


def paths(url: str) -> list[str]:
    return [r[0] for r in _rows(url, 'SELECT path FROM documents ORDER BY path COLLATE "C"')]


def run(url: str, **options: Any) -> Any:
    options.setdefault("workers", 1)
    return docql_sqlite.index(url, ["docs"], **options)


@pytest.fixture
def failed(pg_server: Any, tmp_index: TmpIndex) -> tuple[TmpIndex, str]:
    """docs/ok.md and a binary docs/bad.md indexed once into a fresh database (cwd: the
    scratch folder): bad.md's error row holds its size and mtime_ns."""
    url = fresh_database(pg_server)
    tmp_index.write("ok.md", "# Fine\n")
    path = tmp_index.write("bad.md", BINARY)
    report = run(url)
    assert [p for p, _ in report.failed] == ["docs/bad.md"]
    st = path.stat()
    ((_, where, size, mtime_ns, _),) = error_rows(url)
    assert (where, size, mtime_ns) == ("docs/bad.md", st.st_size, st.st_mtime_ns)
    return tmp_index, url


# (what happens to bad.md between the runs, retry_failed, parsed again?, indexed after?)
CASES = [
    ("nothing", False, False, False),
    ("content fixed, size and mtime put back", False, False, False),
    ("content fixed, size and mtime put back", True, True, True),
    ("touched (same bytes, new mtime)", False, True, False),
    ("content fixed (new size)", False, True, True),
    ("nothing", True, True, False),
]


@pytest.mark.parametrize("change, retry, parsed, indexed", CASES)
def test_failed_file_is_parsed_again_only_when_it_changes(
    failed: tuple[TmpIndex, str], change: str, retry: bool, parsed: bool, indexed: bool
) -> None:
    index, url = failed
    path = index.docs / "bad.md"
    before = error_rows(url)
    mtime_ns = path.stat().st_mtime_ns
    if change == "content fixed, size and mtime put back":
        path.write_bytes(FIXED)
        os.utime(path, ns=(mtime_ns, mtime_ns))
    elif change == "touched (same bytes, new mtime)":
        os.utime(path, ns=(mtime_ns + 5_000_000_000, mtime_ns + 5_000_000_000))
    elif change == "content fixed (new size)":
        path.write_bytes(b"# Fixed, and longer now\n")
    report = run(url, retry_failed=retry)
    assert report.unchanged == 1  # ok.md
    if not parsed:
        assert report.failed == [] and report.added == []
        assert report.skip_counts.get(SKIP_FAILED_UNCHANGED) == 1
        assert [p for p, _ in report.skipped] == ["docs/bad.md"]
        assert error_rows(url) == before  # the row as it was: nothing was recorded anew
    elif indexed:
        assert report.added == ["docs/bad.md"] and report.failed == []
        assert error_rows(url) == []
    else:
        assert [p for p, _ in report.failed] == ["docs/bad.md"]
        ((_, _, size, row_mtime, _),) = error_rows(url)
        assert (size, row_mtime) == (path.stat().st_size, path.stat().st_mtime_ns)
    assert ("docs/bad.md" in paths(url)) == indexed
    assert SKIP_FAILED_UNCHANGED not in report.skip_counts if parsed else True


def test_a_failed_update_keeps_the_last_good_version_and_is_not_retried(
    pg_server: Any, tmp_index: TmpIndex
) -> None:
    url = fresh_database(pg_server)
    path = tmp_index.write("page.md", "# Page\n\nThe okapi is here.\n")
    assert run(url).added == ["docs/page.md"]
    path.write_bytes(BINARY)
    assert [p for p, _ in run(url).failed] == ["docs/page.md"]
    report = run(url)
    assert report.failed == [] and report.skip_counts.get(SKIP_FAILED_UNCHANGED) == 1
    assert paths(url) == ["docs/page.md"]  # the last good version stays searchable
    assert _rows(url, "SELECT count(*) FROM chunks WHERE content LIKE '%okapi%'") == [(1,)]
    path.unlink()  # a deleted failed file: its document and its error go
    assert run(url).removed == ["docs/page.md"]
    assert paths(url) == [] and error_rows(url) == []


def test_cli_over_a_url_says_what_was_not_retried(failed: tuple[TmpIndex, str]) -> None:
    index, url = failed

    def cli(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(CLI), "index", url, "docs", "--workers", "1", *extra],
            cwd=index.root,
            capture_output=True,
            text=True,
            timeout=120,
        )

    again = cli()
    assert again.returncode == 0, again.stderr  # nothing failed in this run
    assert "1 failed before, unchanged" in again.stderr and "failed: " not in again.stderr
    with docql_sqlite.open(url) as idx:
        assert idx.status()["skipped"] == {SKIP_FAILED_UNCHANGED: 1}
        assert [e["path"] for e in idx.errors()] == ["docs/bad.md"]  # still listed
    retried = cli("--retry-failed")
    assert retried.returncode == 1
    assert "failed: docs/bad.md: binary file" in retried.stderr


def test_a_copied_memo_holds_on_postgresql(
    pg_server: Any, tmp_index: TmpIndex, tmp_path: Path
) -> None:
    # The memo travels with `copy` (ingest_errors keeps size and mtime_ns): a file indexed
    # into a file and copied to PostgreSQL is not parsed again there while unchanged.
    tmp_index.write("bad.md", BINARY)
    assert [p for p, _ in tmp_index.index().failed] == ["docs/bad.md"]
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(tmp_index.db), url)
    report = run(url)
    assert report.failed == [] and report.skip_counts.get(SKIP_FAILED_UNCHANGED) == 1


def test_a_document_the_server_refuses_is_recorded_and_the_run_goes_on(
    pg_server: Any, tmp_index: TmpIndex
) -> None:
    # The writer pipelines a document's statements: a refusal in the middle (here a CHECK
    # constraint on chunks, after the document row and its sections were sent) must roll
    # the whole document back, be recorded as this file's failure, and leave the pipeline
    # usable for the next files.
    url = fresh_database(pg_server)
    tmp_index.write("a.md", "# A\n\nAlpha text.\n")
    assert run(url).added == ["docs/a.md"]
    with psycopg.connect(url) as conn:
        conn.execute(
            "ALTER TABLE chunks ADD CONSTRAINT no_okapi CHECK (content NOT LIKE '%okapi%')"
        )
    tmp_index.write("b.md", "# B\n\n## Part\n\nThe okapi is here.\n")
    tmp_index.write("c.md", "# C\n\nGamma text.\n")
    tmp_index.write("a.md", "# A\n\nAlpha text, edited.\n")
    report = run(url)
    assert [(p, r.split(":")[0]) for p, r in report.failed] == [
        ("docs/b.md", "could not be stored")
    ]
    assert "no_okapi" in report.failed[0][1]
    assert sorted(report.added) == ["docs/c.md"] and report.updated == ["docs/a.md"]
    assert paths(url) == ["docs/a.md", "docs/c.md"]  # nothing of b.md was kept
    assert _rows(
        url,
        "SELECT count(*) FROM sections s JOIN documents d ON d.id = s.doc_id "
        "WHERE d.path = 'docs/b.md'",
    ) == [(0,)]
    assert [r[1] for r in error_rows(url)] == ["docs/b.md"]
    assert _rows(url, "SELECT count(*) FROM chunks WHERE content LIKE '%edited%'") == [(1,)]
