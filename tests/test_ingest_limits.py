"""Cost and size bounds of the chunker (issue 11: quadratic headings, huge lines).

- Sections and chunks are found in time linear in the number of headings: counted as
  reads of section extents (the quadratic lookup read every section for every chunk),
  and timed on a 20k-heading file with a bound the quadratic code cannot meet (it took
  ~20 s); the 100k-heading / 3 MB file of the issue runs in the slow suite.
- No chunk is longer than max_chars whatever the line structure; a heading that is one
  huge line gets a bounded title.
- The parse limit (`--timeout`) is CPU time: a worker starved of CPU (stopped, as a busy
  machine's scheduler would leave it) keeps its file, a CPU-bound parse is still stopped
  with its reason, and a worker blocked without using CPU is stopped by the wall-clock
  backstop (`WALL_FACTOR` x the limit).

The time bounds here measure our work, so they are CPU time (`time.process_time` in this
process, `getrusage(RUSAGE_CHILDREN)` for a CLI run and the workers it reaped): on the
shared 2-core build machine wall time measures the scheduler.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import CLI, TmpIndex, check_document_chunks, file_lines, query
from test_reliability_workers import children

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest import sections as sections_module
from docql_sqlite.ingest.chunk import chunk_bound, chunk_document
from docql_sqlite.ingest.parse import ParseTask, parse_task
from docql_sqlite.ingest.sections import SectionInfo, build_sections
from docql_sqlite.ingest.workers import TIMEOUT_REASON, WALL_FACTOR, run_tasks, timed_out_after
from docql_sqlite.model import Document, Heading


class _CountingSection(SectionInfo):
    """A section that counts how often its extent (line, end_line) is read."""

    reads = 0

    def __getattribute__(self, name: str) -> object:
        if name in ("line", "end_line"):
            _CountingSection.reads += 1
        return object.__getattribute__(self, name)


def headings_text(count: int) -> str:
    # Nested levels so that lookups cannot stop at the first holder.
    return "".join(f"{'#' * (1 + i % 3)} Heading {i}\n\ntext {i}\n\n" for i in range(count))


def _counted_chunking(count: int) -> int:
    text = headings_text(count)
    lines = text.split("\n")
    headings = [
        Heading(level=len(line) - len(line.lstrip("#")), title=line.lstrip("# "), line=n)
        for n, line in enumerate(lines, start=1)
        if line.startswith("#")
    ]
    doc = Document(format="markdown", text=text, headings=headings)
    sections = [
        _CountingSection(**{f.name: getattr(s, f.name) for f in dataclasses.fields(s)})
        for s in build_sections(doc)
    ]
    _CountingSection.reads = 0
    chunks = chunk_document(doc, sections)  # type: ignore[arg-type]
    assert len(chunks) == count
    return _CountingSection.reads


def test_chunking_reads_each_section_a_bounded_number_of_times() -> None:
    small, large = _counted_chunking(1000), _counted_chunking(4000)
    # Linear: 4x the headings, ~4x the reads (a quadratic lookup reads ~16x, millions).
    assert large <= 10 * 4000, large
    assert large <= 5 * small, (small, large)


def test_20k_headings_parse_in_seconds(tmp_path: Path) -> None:
    path = tmp_path / "headings.md"
    path.write_text(headings_text(20_000), encoding="utf-8")
    started = time.process_time()
    parsed = parse_task(ParseTask(path=str(path), display="headings.md", format="markdown"))
    cpu = time.process_time() - started
    assert len(parsed.sections) == 20_000
    assert [c.section for c in parsed.chunks] == list(range(20_000))
    # ~1 s of CPU on the build machine; the quadratic lookup took ~20 s.
    assert cpu < 8, f"20k headings took {cpu:.1f} s of CPU (the quadratic lookup took ~20 s)"


def tree_cpu() -> float:
    """CPU seconds (user + system) of this process's reaped children and theirs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.slow
def test_100k_headings_3mb_index_in_seconds(tmp_path: Path) -> None:
    path = tmp_path / "docs" / "headings.md"
    path.parent.mkdir()
    text = "".join(f"## Heading number {i}\n\nSome text for it {i}.\n\n" for i in range(100_000))
    path.write_text(text, encoding="utf-8")
    assert len(text) > 3_000_000
    # The run's own usage (wait4: the indexer with the workers it reaped), not this
    # process's RUSAGE_CHILDREN, whose peak is the largest of every child reaped so far
    # (an embedding run of another test in the same session measured 1,050 MB here).
    errors = tmp_path / "stderr"
    with open(errors, "wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "docql_sqlite",
                "index",
                str(tmp_path / "i.db"),
                str(path.parent),
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        hang = threading.Timer(1800, proc.kill)  # a hang, not a slow machine
        hang.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            hang.cancel()
    cpu = usage.ru_utime + usage.ru_stime
    peak_mb = usage.ru_maxrss / 1024
    assert os.waitstatus_to_exitcode(status) == 0, errors.read_text(errors="replace")
    assert cpu < 60, f"{cpu:.1f} s of CPU (the quadratic code took 427 s)"
    assert peak_mb < 1024, f"{peak_mb:.0f} MB"


@pytest.mark.parametrize("max_chars", [100, 1500, 20_000])
def test_one_line_file_is_chunked_within_the_bound(tmp_index: TmpIndex, max_chars: int) -> None:
    line = "".join(f"w{i % 97} " for i in range(60_000))  # ~250 KB in one line
    tmp_index.write("one.md", "# One line\n\n" + line + "\n")
    report = tmp_index.index(max_chars=max_chars)
    assert report.failed == []
    ((doc_id,),) = tmp_index.query("SELECT id FROM documents")
    assert check_document_chunks(tmp_index.db, doc_id, file_lines(tmp_index.docs / "one.md")) == []
    sizes = [len(c) for (c,) in tmp_index.query("SELECT content FROM chunks")]
    assert max(sizes) <= chunk_bound(max_chars) == max(max_chars, 16_384)
    assert len(sizes) > len(line) // chunk_bound(max_chars)
    assert sum(sizes) == len(line) + 1 + len("# One line\n\n")


def test_heading_that_is_one_huge_line_has_a_bounded_title(tmp_index: TmpIndex) -> None:
    title = "heading " * 50_000
    tmp_index.write("h.md", "# " + title + "\n\nbody\n")
    report = tmp_index.index()
    assert report.failed == []
    ((stored, anchor),) = tmp_index.query("SELECT title, anchor FROM sections")
    assert len(stored) == sections_module.MAX_TITLE_CHARS and stored.endswith("…")
    assert title.startswith(stored[:-1])
    assert len(anchor) <= sections_module.MAX_TITLE_CHARS
    ((doc_title,),) = tmp_index.query("SELECT title FROM documents")
    assert len(doc_title) <= sections_module.MAX_TITLE_CHARS
    ((doc_id,),) = tmp_index.query("SELECT id FROM documents")
    assert check_document_chunks(tmp_index.db, doc_id, file_lines(tmp_index.docs / "h.md")) == []


# -- the parse limit is CPU time -----------------------------------------------------------
def test_a_starved_worker_keeps_its_file(tmp_path: Path) -> None:
    """A worker stopped for 3x the limit (SIGSTOP/SIGCONT: what a busy scheduler does to it,
    in the extreme) uses no CPU meanwhile, so its file is indexed. With the limit in wall
    time (before) the parent killed it: "parsing timed out after 1 s"."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(3):
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\nwords about note {n}\n")
    db = tmp_path / "i.db"
    proc = subprocess.Popen(
        [str(CLI), "index", str(db), str(docs), "--workers", "1", "--timeout", "1", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    workers: set[int] = set()
    while not workers and proc.poll() is None and time.monotonic() < deadline:
        workers = children(proc.pid)
    assert workers, "the indexer started no worker"
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)
    time.sleep(3)  # 3x the limit in wall time, under the backstop (WALL_FACTOR x the limit)
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):  # gone if the parent killed it (a bug)
            os.kill(pid, signal.SIGCONT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert json.loads(out)[0]["added"] == 3
    assert query(db, "SELECT path, reason FROM ingest_errors") == []
    assert len(query(db, "SELECT id FROM documents")) == 3


def test_a_cpu_bound_parse_is_still_stopped_with_its_reason(tmp_path: Path) -> None:
    """200k headings need ~9 s of CPU to parse (measured on the build machine: 60k took
    2.6 s); with --timeout 1 the worker is killed after 1 s of its CPU, the file is recorded
    with the CPU reason, the ordinary file next to it is indexed, and the whole run (the
    indexer and its workers) costs far less CPU than the parse would have."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "huge.md").write_text(headings_text(200_000), encoding="utf-8")
    (docs / "fine.md").write_text("# Fine\n\nan ordinary file\n")
    db = tmp_path / "i.db"
    started = tree_cpu()
    done = subprocess.run(
        [str(CLI), "index", str(db), str(docs), "--timeout", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    cpu = tree_cpu() - started
    assert done.returncode == 1, done.stderr
    failures = {f["path"]: f["reason"] for f in json.loads(done.stdout)[0]["failures"]}
    shown = next(path for path in failures if path.endswith("huge.md"))
    assert failures == {shown: TIMEOUT_REASON.format(1)}
    assert query(db, "SELECT reason FROM ingest_errors") == [(TIMEOUT_REASON.format(1),)]
    assert [p for (p,) in query(db, "SELECT path FROM documents")] == [
        shown.replace("huge.md", "fine.md")
    ]
    assert cpu < 6, f"the stopped run used {cpu:.1f} s of CPU"


def _blocked_read(fd: int) -> bytes:
    """A read that never returns and uses no CPU, as on a stalled network mount (the pipe's
    write end stays open in the test process)."""
    return os.read(fd, 1)


def test_a_blocked_worker_is_stopped_by_the_wall_clock_backstop() -> None:
    read_end, write_end = os.pipe()
    try:
        started = time.monotonic()
        results = dict(run_tasks(_blocked_read, [("blocked", read_end)], workers=1, timeout=0.4))
        elapsed = time.monotonic() - started
    finally:
        os.close(read_end)
        os.close(write_end)
    error = results["blocked"]
    assert isinstance(error, IngestError), error
    assert error.message.startswith("parsing stalled: no progress for 2 s of wall time")
    assert "no CPU in that time" in error.message and "5 x --timeout 0.4" in error.message
    assert timed_out_after(error.message) == 0.4  # a longer --timeout retries it (run.py)
    assert elapsed >= WALL_FACTOR * 0.4


@pytest.mark.parametrize(
    "reason, limit",
    [
        (TIMEOUT_REASON.format(2.5), 2.5),
        ("parsing timed out after 60 s (raise it with --timeout)", 60.0),  # recorded before
        ("parser process crashed (exit code -11, SIGSEGV)", None),
        ("binary file (contains NUL bytes, the first at byte 3)", None),
    ],
)
def test_timed_out_after_reads_the_limit_of_every_timeout_reason(
    reason: str, limit: float | None
) -> None:
    assert timed_out_after(reason) == limit
