"""A file that failed to parse is remembered with its size and mtime and not parsed again
until either changes (issue 12: the scale run's re-index spent most of its time re-parsing
its 37 failures, 8 of them until a 60 s timeout each).

The proof that a file is *not parsed* is a file whose content is fixed while its size and
mtime are put back: a parse would now index it, so a skip leaves it failed, with its error
row as it was.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CLI, TmpIndex

import docql_sqlite
from docql_sqlite import plugins
from docql_sqlite.ingest import formats, plaintext
from docql_sqlite.ingest.run import SKIP_FAILED_UNCHANGED
from docql_sqlite.ingest.workers import TIMEOUT_REASON
from docql_sqlite.model import Document, Source

BINARY = b"\x00\x01binary"  # a NUL byte: refused as binary, an error (not a skip)
FIXED = b"# Fixed\n"  # as long as BINARY, so only the content differs


def error_rows(index: TmpIndex) -> list[tuple[int, str, int, int]]:
    return index.query("SELECT id, path, size, mtime_ns FROM ingest_errors ORDER BY id")


def restore_mtime(path: Path, mtime_ns: int) -> None:
    os.utime(path, ns=(mtime_ns, mtime_ns))


@pytest.fixture
def failed(tmp_index: TmpIndex) -> TmpIndex:
    tmp_index.write("ok.md", "# Fine\n")
    path = tmp_index.write("bad.md", BINARY)
    report = tmp_index.index()
    assert [p for p, _ in report.failed] == ["docs/bad.md"]
    st = path.stat()
    ((_, where, size, mtime_ns),) = error_rows(tmp_index)
    assert (where, size, mtime_ns) == ("docs/bad.md", st.st_size, st.st_mtime_ns)
    return tmp_index


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
    failed: TmpIndex, change: str, retry: bool, parsed: bool, indexed: bool
) -> None:
    path = failed.docs / "bad.md"
    before = error_rows(failed)
    mtime_ns = path.stat().st_mtime_ns
    if change == "content fixed, size and mtime put back":
        path.write_bytes(FIXED)
        restore_mtime(path, mtime_ns)
    elif change == "touched (same bytes, new mtime)":
        restore_mtime(path, mtime_ns + 5_000_000_000)
    elif change == "content fixed (new size)":
        path.write_bytes(b"# Fixed, and longer now\n")
    report = failed.index(retry_failed=retry)
    assert report.unchanged == 1  # ok.md
    if not parsed:
        assert report.failed == [] and report.added == []
        assert report.skip_counts.get(SKIP_FAILED_UNCHANGED) == 1
        assert [p for p, _ in report.skipped] == ["docs/bad.md"]
        assert error_rows(failed) == before  # the row as it was: nothing was recorded anew
    elif indexed:
        assert report.added == ["docs/bad.md"] and report.failed == []
        assert error_rows(failed) == []
    else:
        assert [p for p, _ in report.failed] == ["docs/bad.md"]
        (row,) = error_rows(failed)
        assert row[3] == path.stat().st_mtime_ns  # recorded anew, as the file is now
    assert ("docs/bad.md" in failed.paths()) == indexed
    assert SKIP_FAILED_UNCHANGED not in report.skip_counts if parsed else True


def test_a_failed_file_is_tried_again_once_the_content_rules_change(
    failed: TmpIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parser that learnt to read what it refused (nbformat 3 notebooks, which failed
    "corrupt notebook" until notebook.py read them) comes with a content-rules bump: the
    memo of failures kept under the old rules is not trusted then, once. The fixed
    content with size and mtime put back shows the file was parsed."""
    from docql_sqlite.ingest import parse

    path = failed.docs / "bad.md"
    mtime_ns = path.stat().st_mtime_ns
    path.write_bytes(FIXED)
    restore_mtime(path, mtime_ns)
    assert failed.index().skip_counts.get(SKIP_FAILED_UNCHANGED) == 1  # same rules: skipped
    path.write_bytes(BINARY)  # broken again, same size and mtime
    restore_mtime(path, mtime_ns)
    monkeypatch.setitem(parse.CONTENT_RULES, "markdown", parse.CONTENT_RULES["markdown"] + 1)
    report = failed.index()
    assert [p for p, _ in report.failed] == ["docs/bad.md"]  # parsed again under new rules
    assert SKIP_FAILED_UNCHANGED not in report.skip_counts
    again = failed.index()  # and remembered under them
    assert again.skip_counts.get(SKIP_FAILED_UNCHANGED) == 1 and again.failed == []


def test_a_failed_update_keeps_the_last_good_version_and_is_not_retried(
    tmp_index: TmpIndex,
) -> None:
    path = tmp_index.write("page.md", "# Page\n\nThe okapi is here.\n")
    assert tmp_index.index().added == ["docs/page.md"]
    path.write_bytes(BINARY)
    assert [p for p, _ in tmp_index.index().failed] == ["docs/page.md"]
    report = tmp_index.index()
    assert report.failed == [] and report.skip_counts.get(SKIP_FAILED_UNCHANGED) == 1
    assert tmp_index.paths() == ["docs/page.md"]  # the last good version stays searchable
    assert tmp_index.scalar("SELECT count(*) FROM chunks WHERE content LIKE '%okapi%'") == 1
    path.unlink()  # a deleted failed file: its document and its error go
    assert tmp_index.index().removed == ["docs/page.md"]
    assert tmp_index.paths() == [] and error_rows(tmp_index) == []


def test_cli_says_what_was_not_retried_and_status_shows_it(failed: TmpIndex) -> None:
    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(CLI), "index", "index.db", "docs", "--workers", "1", *extra],
            cwd=failed.root,
            capture_output=True,
            text=True,
            timeout=120,
        )

    again = run()
    assert again.returncode == 0, again.stderr  # nothing failed in this run
    assert "1 failed before, unchanged" in again.stderr
    assert "failed: " not in again.stderr
    with docql_sqlite.open(failed.db) as idx:
        status = idx.status()
        assert status["skipped"] == {SKIP_FAILED_UNCHANGED: 1}
        assert status["errors"] == 1  # the failure itself is still listed
        assert [e["path"] for e in idx.errors()] == ["docs/bad.md"]
    retried = run("--retry-failed")
    assert retried.returncode == 1
    assert "failed: docs/bad.md: binary file" in retried.stderr


def _slow_parse(source: Source) -> Document:
    # 1.5 s of CPU (the parse limit counts CPU time): longer than the short timeout below,
    # well within the long one.
    started = time.process_time()
    while time.process_time() - started < 1.5:
        pass
    return plaintext.parse(source)


@pytest.fixture
def slow_format() -> Iterator[None]:
    """A format whose parser takes 1.5 s of CPU (registered here; forked workers inherit it)."""
    plugin = formats.register("slow", _slow_parse, ("slow",))
    yield
    plugins.pm.unregister(plugin)


def test_a_timeout_is_retried_only_with_a_longer_timeout(
    tmp_index: TmpIndex, slow_format: None
) -> None:
    tmp_index.write("big.slow", "takes a while to parse\n")
    first = tmp_index.index(timeout=0.3)
    assert [reason for _, reason in first.failed] == [TIMEOUT_REASON.format(0.3)]
    same = tmp_index.index(timeout=0.3)  # would time out again: not parsed
    assert same.failed == [] and same.skip_counts.get(SKIP_FAILED_UNCHANGED) == 1
    longer = tmp_index.index(timeout=30)  # what the message says to do: it is retried
    assert longer.added == ["docs/big.slow"] and longer.failed == []
    assert error_rows(tmp_index) == []
