"""Cost and size bounds of the chunker (issue 11: quadratic headings, huge lines).

- Sections and chunks are found in time linear in the number of headings: counted as
  reads of section extents (the quadratic lookup read every section for every chunk),
  and timed on a 20k-heading file with a bound the quadratic code cannot meet (it took
  ~20 s); the 100k-heading / 3 MB file of the issue runs in the slow suite.
- No chunk is longer than max_chars whatever the line structure; a heading that is one
  huge line gets a bounded title.
"""

from __future__ import annotations

import dataclasses
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TmpIndex, check_document_chunks, file_lines

from docql_sqlite.ingest import sections as sections_module
from docql_sqlite.ingest.chunk import chunk_bound, chunk_document
from docql_sqlite.ingest.parse import ParseTask, parse_task
from docql_sqlite.ingest.sections import SectionInfo, build_sections
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
    started = time.monotonic()
    parsed = parse_task(ParseTask(path=str(path), display="headings.md", format="markdown"))
    elapsed = time.monotonic() - started
    assert len(parsed.sections) == 20_000
    assert [c.section for c in parsed.chunks] == list(range(20_000))
    assert elapsed < 12, f"20k headings took {elapsed:.1f}s (the quadratic lookup took ~20s)"


@pytest.mark.slow
def test_100k_headings_3mb_index_in_seconds(tmp_path: Path) -> None:
    path = tmp_path / "docs" / "headings.md"
    path.parent.mkdir()
    text = "".join(f"## Heading number {i}\n\nSome text for it {i}.\n\n" for i in range(100_000))
    path.write_text(text, encoding="utf-8")
    assert len(text) > 3_000_000
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "index", str(tmp_path / "i.db"), str(path.parent)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    elapsed = time.monotonic() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert done.returncode == 0, done.stderr
    assert elapsed < 60, f"{elapsed:.1f}s (the quadratic code took 427 s)"
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
