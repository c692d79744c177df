"""Bad input: every case is recorded in ingest_errors with its reason, listed in the
summary, and costs only its own file; the run exits 1 when a file failed, 0 otherwise.
Files deliberately left out (empty, whitespace only, over --max-bytes) are skipped, not
failed: listed with their reason in `IngestReport.skipped`, counted in `status`.

Permission denied: the tests run as root, and root reads a chmod 000 file anyway
(CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH). So as root the indexer runs under `setpriv`
with those two capabilities dropped from its bounding set; the test first proves with
`cat` that the file really is unreadable that way, and skips (saying why) only when no
such tool or capability drop is available.
"""

from __future__ import annotations

import codecs
import faulthandler
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import DATASETS, TmpIndex, check_document_chunks, file_lines

from docql_sqlite import plugins
from docql_sqlite.cli import cli
from docql_sqlite.errors import IngestError
from docql_sqlite.ingest import formats
from docql_sqlite.ingest.workers import run_tasks

# name -> (bytes, substring of the error reason)
FAILING: dict[str, tuple[bytes, str]] = {
    "binary.md": (b"# Looks like Markdown\n\x00\x01\x02\x03\xff\xfe binary", "binary file"),
    "png.md": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary file"),
    "odd-utf16.md": (
        codecs.BOM_UTF16_LE + "# Title\n".encode("utf-16-le") + b"\x00",
        "invalid UTF-16-LE",
    ),
}
# name -> (bytes, substring of the skip reason): not indexed, not failures either
SKIPPED: dict[str, tuple[bytes, str]] = {
    "empty.md": (b"", "empty file (0 bytes)"),
    "whitespace.md": (b"   \n\t\n\n", "no text content (only whitespace)"),
    "big.md": (b"# Big\n\n" + b"word " * 1000 + b"\n", "file too large"),
}
MAX_BYTES = 4096

# name -> (bytes, the text a reader must see, first heading title, warning substring or None)
LATIN1_TEXT = "# Café Menü\n\nnaïve résumé, Größe\n"
DECODED: dict[str, tuple[bytes, str, str, str | None]] = {
    "latin1.md": (LATIN1_TEXT.encode("latin-1"), LATIN1_TEXT, "Café Menü", "not valid UTF-8"),
    "utf16le.md": (
        codecs.BOM_UTF16_LE + "# 标题 UTF16\n\nbody ü\n".encode("utf-16-le"),
        "# 标题 UTF16\n\nbody ü\n",
        "标题 UTF16",
        None,
    ),
    "utf16be.md": (
        codecs.BOM_UTF16_BE + "# Big Endian\n\nbody\n".encode("utf-16-be"),
        "# Big Endian\n\nbody\n",
        "Big Endian",
        None,
    ),
    "utf8bom.md": (
        codecs.BOM_UTF8 + "# BOM Title\n\nbody é\n".encode(),
        "# BOM Title\n\nbody é\n",
        "BOM Title",
        None,
    ),
    "crlf.md": (
        b"# CRLF\r\n\r\nline one\r\nline two\r\n\r\nSetext\r\n---\r\nx\r\n",
        "# CRLF\n\nline one\nline two\n\nSetext\n---\nx\n",
        "CRLF",
        None,
    ),
    "cr.md": (b"# Old Mac\r\rline\r", "# Old Mac\n\nline\n", "Old Mac", None),
    "fine.md": (
        b"# Fine\n\nNothing wrong here.\n",
        "# Fine\n\nNothing wrong here.\n",
        "Fine",
        None,
    ),
}


def stored_text(index: TmpIndex, path: str) -> str:
    ((doc_id, header),) = index.query(
        "SELECT id, header_text FROM documents WHERE path = ?", (path,)
    )
    return header + "".join(
        r[0]
        for r in index.query(
            "SELECT content FROM chunks WHERE doc_id = ? ORDER BY chunk_index", (doc_id,)
        )
    )


def write_bad_tree(index: TmpIndex) -> TmpIndex:
    for name, (data, _) in [*FAILING.items(), *SKIPPED.items()]:
        index.write(name, data)
    for name, (data, *_rest) in DECODED.items():
        index.write(name, data)
    os.symlink("no-such-target.md", index.docs / "broken-link.md")
    return index


@pytest.fixture(scope="module")
def bad_indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[TmpIndex, Any]:
    """The bad tree indexed once with max_bytes=MAX_BYTES: (index, report)."""
    index = write_bad_tree(TmpIndex(tmp_path_factory.mktemp("bad")))
    return index, index.index(max_bytes=MAX_BYTES)


def test_each_bad_file_is_recorded_and_the_rest_indexed(bad_indexed: tuple[TmpIndex, Any]) -> None:
    bad_tree, report = bad_indexed
    errors = bad_tree.errors()
    failed = dict(report.failed)
    for name, (_, reason) in FAILING.items():
        path = f"docs/{name}"
        assert path in errors and errors[path][0] == "error", (path, errors.get(path))
        assert reason in errors[path][1], (path, errors[path])
        assert failed[path] == errors[path][1]
    assert errors["docs/broken-link.md"][0] == "error"
    assert "broken symlink" in errors["docs/broken-link.md"][1]
    assert "no-such-target.md" in errors["docs/broken-link.md"][1]
    assert set(failed) == {f"docs/{n}" for n in FAILING} | {"docs/broken-link.md"}
    skipped = dict(report.skipped)
    assert set(skipped) == {f"docs/{n}" for n in SKIPPED}
    for name, (_, reason) in SKIPPED.items():
        assert reason in skipped[f"docs/{name}"], skipped
        assert f"docs/{name}" not in errors  # a skip is not an error
    assert "limit is 4,096" in skipped["docs/big.md"] and "--max-bytes" in skipped["docs/big.md"]
    assert report.file_skip_counts() == {"empty file": 2, "over --max-bytes": 1}
    assert bad_tree.paths() == sorted(f"docs/{n}" for n in DECODED)
    assert not report.ok


@pytest.mark.parametrize("name", list(DECODED))
def test_decoded_files_have_the_right_text(bad_indexed: tuple[TmpIndex, Any], name: str) -> None:
    bad_tree, report = bad_indexed
    data, text, title, warning = DECODED[name]
    path = f"docs/{name}"
    assert stored_text(bad_tree, path) == text
    assert bad_tree.query(
        "SELECT s.title FROM sections s JOIN documents d ON d.id = s.doc_id "
        "WHERE d.path = ? ORDER BY s.ord LIMIT 1",
        (path,),
    ) == [(title,)]
    ((doc_id,),) = bad_tree.query("SELECT id FROM documents WHERE path = ?", (path,))
    assert check_document_chunks(bad_tree.db, doc_id, file_lines(bad_tree.docs / name)) == []
    problem = bad_tree.errors().get(path)
    if warning is None:
        assert problem is None
    else:
        assert problem is not None and problem[0] == "warning" and warning in problem[1]
        assert (path, problem[1]) in report.warnings


def test_crlf_setext_line_numbers_match_lf(bad_indexed: tuple[TmpIndex, Any]) -> None:
    bad_tree, _ = bad_indexed
    assert bad_tree.query(
        "SELECT s.title, s.level, s.line, s.end_line FROM sections s JOIN documents d "
        "ON d.id = s.doc_id WHERE d.path = 'docs/crlf.md' ORDER BY s.ord"
    ) == [("CRLF", 1, 1, 8), ("Setext", 2, 6, 8)]


def test_raising_max_bytes_indexes_the_big_file(tmp_index: TmpIndex) -> None:
    bad_tree = write_bad_tree(tmp_index)
    bad_tree.index(max_bytes=MAX_BYTES)
    report = bad_tree.index(max_bytes=1_000_000)
    assert "docs/big.md" in report.added
    assert "docs/big.md" not in dict(report.skipped)


# -- the shipped samples ---------------------------------------------------------------------
BAD_SAMPLES: dict[str, tuple[str, str] | None] = {
    # name -> (severity, reason substring) when it must be recorded; None: indexed cleanly
    "empty.md": ("skipped", "empty file"),
    "binary.md": ("error", "binary file"),
    "latin1.md": ("warning", "not valid UTF-8"),
    "utf16.md": None,
    "bom.md": None,
    "crlf.md": None,
    "README.md": None,
}
SAMPLE_TITLES = {
    "latin1.md": ["Café Menü", "Übersicht", "Résumé"],
    "utf16.md": ["UTF-16 Document", "Second Section"],
    "bom.md": ["BOM Document"],
}


def test_shipped_bad_samples(tmp_index: TmpIndex) -> None:
    present = {n for n in BAD_SAMPLES if (DATASETS / "bad" / n).exists()}
    if not present:
        pytest.skip("datasets/bad/ is not there")
    for name in present:
        shutil.copyfile(DATASETS / "bad" / name, tmp_index.docs / name)
    report = tmp_index.index()
    errors = tmp_index.errors()
    for name in present:
        want = BAD_SAMPLES[name]
        path = f"docs/{name}"
        if want is None:
            assert path not in errors, errors.get(path)
            assert path in tmp_index.paths()
        elif want[0] == "skipped":
            assert want[1] in dict(report.skipped)[path] and path not in errors
        else:
            assert errors[path][0] == want[0] and want[1] in errors[path][1], errors.get(path)
    for name, titles in SAMPLE_TITLES.items():
        if name in present:
            got = [
                r[0]
                for r in tmp_index.query(
                    "SELECT s.title FROM sections s JOIN documents d ON d.id = s.doc_id "
                    "WHERE d.path = ? ORDER BY s.ord",
                    (f"docs/{name}",),
                )
            ]
            assert got[: len(titles)] == titles
            # line 1 of the BOM / UTF-16 samples is the heading: the BOM adds no line
            if name in ("bom.md", "utf16.md"):
                assert (
                    tmp_index.scalar(
                        "SELECT min(s.line) FROM sections s JOIN documents d ON d.id = s.doc_id "
                        "WHERE d.path = ?",
                        (f"docs/{name}",),
                    )
                    == 1
                )


def test_bad_samples_through_the_cli() -> None:
    """The real console script over datasets/bad: failures listed on stderr, exit code 1."""
    if not (DATASETS / "bad" / "empty.md").exists():
        pytest.skip("datasets/bad/empty.md is not there")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bad.db"
        run = subprocess.run(
            [sys.executable, "-m", "docql_sqlite", "index", str(db), str(DATASETS / "bad")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 1, run.stderr  # binary.md is a real failure
        failed_lines = [line for line in run.stderr.splitlines() if line.startswith("failed: ")]
        assert failed_lines and not any("empty.md" in line for line in failed_lines)
        assert "binary.md: binary file" in run.stderr
        assert "warning: " in run.stderr and "latin1.md: not valid UTF-8" in run.stderr
        assert " 1 failed, 1 skipped (1 empty file); the walk left out 1 hidden in " in run.stderr


# -- permission denied ---------------------------------------------------------------------
DROP_CAPS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all", "--"]


def unprivileged_prefix(probe: Path) -> list[str]:
    """A command prefix under which `probe` (chmod 000) cannot be read; skip if there is none."""
    if os.geteuid() != 0:
        prefix: list[str] = []
    elif shutil.which("setpriv"):
        prefix = DROP_CAPS
    else:
        pytest.skip(
            "running as root and no setpriv to drop CAP_DAC_OVERRIDE: chmod 000 cannot be tested"
        )
    check = subprocess.run(prefix + ["cat", str(probe)], capture_output=True)
    if check.returncode == 0:
        pytest.skip("cannot make a file unreadable here (capabilities could not be dropped)")
    return prefix


def test_permission_denied(tmp_index: TmpIndex) -> None:
    tmp_index.write("ok.md", "# Readable\n")
    locked = tmp_index.write("locked.md", "# Secret\n")
    tmp_index.write("lockdir/inner.md", "# Inner\n")
    locked.chmod(0)
    (tmp_index.docs / "lockdir").chmod(0)
    try:
        prefix = unprivileged_prefix(locked)
        run = subprocess.run(
            prefix + [sys.executable, "-m", "docql_sqlite", "index", "--json", "index.db", "docs"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_index.root,
        )
    finally:
        locked.chmod(0o644)
        (tmp_index.docs / "lockdir").chmod(0o755)
    assert run.returncode == 1, run.stderr
    summary = json.loads(run.stdout)[0]
    failures = {f["path"]: f["reason"] for f in summary["failures"]}
    assert failures["docs/locked.md"] == "permission denied"
    assert "permission denied" in failures["docs/lockdir"]
    assert summary["added"] == 1 and summary["failed"] == 2
    assert tmp_index.paths() == ["docs/ok.md"]
    errors = tmp_index.errors()
    assert errors["docs/locked.md"] == ("error", "permission denied")
    assert errors["docs/lockdir"][0] == "error" and "permission denied" in errors["docs/lockdir"][1]
    # readable again: the next run indexes both and forgets the errors
    report = tmp_index.index()
    assert sorted(report.added) == ["docs/lockdir/inner.md", "docs/locked.md"]
    assert tmp_index.errors() == {}


# -- parser crash and timeout ------------------------------------------------------------------
def _segfault() -> None:
    faulthandler.disable()  # pytest's handler would print the child's stack: noise, not news
    os.kill(os.getpid(), signal.SIGSEGV)


def _crash(source: Any) -> Any:
    _segfault()


def _spin() -> None:
    while True:  # a parser stuck in a loop: it burns CPU until the CPU limit kills it
        pass


def _hang(source: Any) -> Any:
    _spin()


def _boom(source: Any) -> Any:
    raise ValueError("parser bug on purpose")


@pytest.fixture
def evil_formats() -> Any:
    """Formats whose parser segfaults, hangs or raises; removed again afterwards.

    Registered in this process, so the forked parse workers inherit them."""
    added = [
        formats.register("crashy", _crash, ("crashy",)),
        formats.register("hangs", _hang, ("hangs",)),
        formats.register("buggy", _boom, ("buggy",)),
    ]
    yield
    for plugin in added:
        plugins.pm.unregister(plugin)


def test_parser_crash_and_timeout_cost_one_file(tmp_index: TmpIndex, evil_formats: None) -> None:
    tmp_index.write_many(
        {
            "a.crashy": "x\n",
            "b.hangs": "x\n",
            "c.buggy": "x\n",
            "d.md": "# Fine\n",
            "e.md": "# Also fine\n",
        }
    )
    started = time.monotonic()
    report = tmp_index.index(timeout=0.5)
    assert time.monotonic() - started < 30
    errors = tmp_index.errors()
    assert errors["docs/a.crashy"][0] == "error" and "crashed" in errors["docs/a.crashy"][1]
    assert "-11" in errors["docs/a.crashy"][1] or "SIGSEGV" in errors["docs/a.crashy"][1]
    assert (
        errors["docs/b.hangs"][0] == "error"
        and "timed out after 0.5 s of CPU time" in errors["docs/b.hangs"][1]
    )
    assert "--timeout" in errors["docs/b.hangs"][1]
    assert (
        errors["docs/c.buggy"][0] == "error"
        and "ValueError: parser bug on purpose" in errors["docs/c.buggy"][1]
    )
    assert {p for p, _ in report.failed} == {"docs/a.crashy", "docs/b.hangs", "docs/c.buggy"}
    assert tmp_index.paths() == ["docs/d.md", "docs/e.md"]


@pytest.mark.parametrize("name, reason", [("only.crashy", "crashed"), ("only.hangs", "timed out")])
def test_single_file_is_isolated_too(
    tmp_index: TmpIndex, evil_formats: None, name: str, reason: str
) -> None:
    """Indexing just one file must still use a worker: a crash may not take the run down."""
    tmp_index.write(name, "x\n")
    report = tmp_index.index(f"docs/{name}", timeout=0.5)
    assert len(report.failed) == 1 and reason in report.failed[0][1]
    assert reason in tmp_index.errors()[f"docs/{name}"][1]


def test_cli_exit_codes_and_summary(tmp_index: TmpIndex, evil_formats: None) -> None:
    runner = CliRunner()
    tmp_index.write("ok.md", "# OK\n")
    tmp_index.write("latin.md", LATIN1_TEXT.encode("latin-1"))
    clean = runner.invoke(cli, ["index", "clean.db", "docs"])
    assert clean.exit_code == 0, clean.output
    assert "warning: docs/latin.md: not valid UTF-8" in clean.stderr
    assert "0 failed" in clean.stderr
    tmp_index.write("boom.crashy", "x\n")
    broken = runner.invoke(cli, ["index", "broken.db", "docs"])
    assert broken.exit_code == 1
    assert "failed: docs/boom.crashy: parser process crashed" in broken.stderr
    assert "1 failed" in broken.stderr
    as_json = runner.invoke(cli, ["index", "--json", "json.db", "docs"])
    assert as_json.exit_code == 1
    summary = json.loads(as_json.stdout)[0]
    assert summary["failed"] == 1 and summary["added"] == 2 and summary["warnings"] == 1
    assert summary["failures"][0]["path"] == "docs/boom.crashy"
    assert "crashed" in summary["failures"][0]["reason"]


# -- the worker machinery on its own -----------------------------------------------------------
def _work(task: str) -> str:
    if task == "segv":
        _segfault()
    if task == "spin":
        _spin()
    if task == "sleep":  # blocked, using no CPU: only the wall-clock backstop stops it
        time.sleep(60)
    if task == "raise":
        raise RuntimeError("worker bug")
    if task == "ingest":
        raise IngestError("bad input, on purpose")
    if task == "exit":
        os._exit(3)
    return task.upper()


@pytest.mark.parametrize("workers", [1, 2])
def test_run_tasks_isolates_each_task(workers: int) -> None:
    tasks = ["a", "segv", "b", "spin", "sleep", "c", "raise", "d", "ingest", "exit", "e"]
    started = time.monotonic()
    results = dict(run_tasks(_work, [(t, t) for t in tasks], workers=workers, timeout=0.5))
    assert time.monotonic() - started < 30
    assert sorted(results) == sorted(tasks)
    for ok in "abcde":
        assert results[ok] == ok.upper()
    for bad, reason in [
        ("segv", "crashed (exit code -11, SIGSEGV)"),
        ("spin", "timed out after 0.5 s of CPU time"),
        ("sleep", "stalled: no progress for 2.5 s of wall time"),
        ("raise", "RuntimeError: worker bug"),
        ("ingest", "bad input, on purpose"),
        ("exit", "crashed (exit code 3)"),
    ]:
        assert isinstance(results[bad], IngestError), (bad, results[bad])
        assert reason in results[bad].message, (bad, results[bad].message)


def test_run_tasks_leaves_no_worker_behind() -> None:
    import multiprocessing

    before = {p.pid for p in multiprocessing.active_children()}
    list(run_tasks(_work, [("a", "a"), ("sleep", "sleep"), ("b", "b")], workers=2, timeout=0.5))
    after = {p.pid for p in multiprocessing.active_children()}
    assert after <= before


# -- NUL anywhere is binary (issue 11): one rule for the whole file --------------------------
LATE_NUL: dict[str, tuple[bytes, str]] = {
    # name -> (bytes, the reason recorded)
    "nul-after-8k.md": (
        b"# Late NUL\n\n" + b"text line\n" * 900 + b"\x00tail\n",
        "binary file (contains NUL bytes, the first at byte 9,012)",
    ),
    "nul-at-the-end.md": (b"# x\n\n" + b"y" * 1_000_000 + b"\x00", "the first at byte 1,000,005"),
    "utf16-nul.md": (
        codecs.BOM_UTF16_LE + "# UTF-16\n\nbefore\x00after\n".encode("utf-16-le"),
        "binary file (contains NUL characters, the first at character 16)",
    ),
    # a server's cached page, gzip data under `.html`: said so, with what reads it
    "cached.html": (
        gzip.compress(b"<h1>Cached</h1>" * 20, mtime=0),
        "gzip-compressed data under a name without its extension; not indexed (named with "
        "it, index --decompress reads the document inside)",
    ),
}


def test_nul_anywhere_makes_a_file_binary(tmp_index: TmpIndex) -> None:
    tmp_index.write("fine.md", "# Fine\n\ntext\n")
    for name, (data, _) in LATE_NUL.items():
        tmp_index.write(name, data)
    report = tmp_index.index()
    assert report.added == ["docs/fine.md"]
    errors = tmp_index.errors()
    for name, (_, reason) in LATE_NUL.items():
        assert errors[f"docs/{name}"][0] == "error"
        assert reason in errors[f"docs/{name}"][1], errors[f"docs/{name}"]
    contents = "".join(c for (c,) in tmp_index.query("SELECT content FROM chunks"))
    assert "\x00" not in contents


def test_file_that_gains_a_late_nul_keeps_its_last_good_version(tmp_index: TmpIndex) -> None:
    good = b"# Log\n\n" + b"entry\n" * 2000
    tmp_index.write("log.md", good)
    assert tmp_index.index().added == ["docs/log.md"]
    tmp_index.write("log.md", good + b"\x00garbage\n")
    report = tmp_index.index()
    assert [p for p, _ in report.failed] == ["docs/log.md"]
    stored = "".join(c for (c,) in tmp_index.query("SELECT content FROM chunks ORDER BY id"))
    assert stored == good.decode()
