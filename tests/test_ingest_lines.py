"""A document's lines are split once per document (`ingest/lines.py`, issue 24) and not
kept once its rows are made."""

from __future__ import annotations

from pathlib import Path

from conftest import DATASETS

from docql_sqlite.ingest import lines
from docql_sqlite.ingest.parse import ParseTask, parse_task
from docql_sqlite.model import split_lines


def test_lines_of_is_split_lines_once_per_text() -> None:
    text = "a\n\nb\n"
    first = lines.lines_of(text)
    assert first == split_lines(text) == ["a", "", "b"]
    assert lines.lines_of(text) is first  # the same text object: not split again
    other = "".join(["a\n", "\nb\n"])  # equal, but another object: split on its own
    assert lines.lines_of(other) == first and lines.lines_of(other) is not first
    assert lines.lines_of("") == [] and lines.lines_of("x") == ["x"]


def test_a_parsed_document_leaves_no_text_behind() -> None:
    path = next(p for p in sorted(DATASETS.rglob("*.md")) if p.stat().st_size > 200)
    parsed = parse_task(ParseTask(str(path), str(path), "markdown"))
    assert getattr(parsed, "chunk_rows", None)
    assert lines._last is None  # `rows.prepare` forgot the document's lines


def test_entities_and_chunks_share_one_split(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls: list[int] = []
    real = lines.split_lines

    def counting(text: str) -> list[str]:
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(lines, "split_lines", counting)
    path = DATASETS / "en" / "handbook"
    markdown_file = next(p for p in sorted(Path(path).rglob("*.md")) if "```" in p.read_text())
    parse_task(ParseTask(str(markdown_file), str(markdown_file), "markdown"))
    assert len(calls) == 1  # entities, chunks and the code blocks' offsets: one split
