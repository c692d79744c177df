"""The fast Markdown block scanner (markdown-it-pyrs) agrees with the reference
(markdown-it-py) on every file of the datasets, and a failure of the fast one falls
back to the reference with a warning."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATASETS, file_text

from docql_sqlite.ingest import markdown, markdown_blocks
from docql_sqlite.ingest.markdown import parse_markdown
from docql_sqlite.model import Document

needs_rs = pytest.mark.skipif(
    not markdown_blocks.rs_available(), reason="markdown-it-pyrs not installed"
)

MARKDOWN_FILES = sorted(
    p for p in DATASETS.rglob("*.md") if p.stat().st_size and b"\0" not in p.read_bytes()
)


def _shape(doc: Document) -> dict[str, object]:
    return {
        "body_start_line": doc.body_start_line,
        "headings": [(h.level, h.title, h.line, h.anchor) for h in doc.headings],
        "codeblocks": [(b.language, b.code, b.line, b.end_line) for b in doc.codeblocks],
        "tables": [(t.headers, t.rows, t.line, t.end_line) for t in doc.tables],
        "html": sorted(doc.keep_together),
        "frontmatter": doc.frontmatter,
        "entities": [
            (e.entity_type, e.name, e.line, e.end_line, e.definition) for e in doc.entities
        ],
        "title": doc.title,
    }


@needs_rs
@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=lambda p: str(p.relative_to(DATASETS)))
def test_backends_agree(path: Path) -> None:
    text = file_text(path)
    assert _shape(parse_markdown(text, str(path), "rs")) == _shape(
        parse_markdown(text, str(path), "py")
    )


@needs_rs
def test_tricky_constructs_agree() -> None:
    text = (
        "---\ntitle: T\n---\n# A `x` *y* {#a}\n\n> # quoted\n\n- item\n\n  ```py\n  # not\n  "
        "```\n\n"
        "Para with `one\nspan` across lines\n\n| a | `b` |\n|---|---|\n| 1 | 2 |\n\n<div>\n# "
        "no\n</div>\n\n"
        "Setext\ntitle\n------\n\n    # indented code\n~~~\nunclosed\n"
    )
    rs, py = parse_markdown(text, "t.md", "rs"), parse_markdown(text, "t.md", "py")
    assert _shape(rs) == _shape(py)
    assert [(h.level, h.title, h.line) for h in rs.headings] == [
        (1, "A x y", 4),
        (2, "Setext title", 25),
    ]


@needs_rs
def test_a_failing_fast_scan_falls_back_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(text: str) -> list[markdown_blocks.Block]:
        raise RuntimeError("markdown-it-pyrs failed: index out of bounds")

    monkeypatch.setattr(markdown_blocks, "scan_rs", boom)
    doc = markdown.parse_markdown("# Title\n\ntext\n", "x.md")
    assert [h.title for h in doc.headings] == ["Title"]
    assert doc.warnings == [
        "markdown-it-pyrs failed: index out of bounds; parsed with markdown-it-py"
    ]


def _reference_inline(raw: str) -> str:
    tokens = markdown._inline_parser().parseInline(raw)
    parts: list[str] = []
    for child in tokens[0].children or []:
        if child.type in ("text", "code_inline", "image"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="`ab .()\\", max_size=24))  # callers pass one-line text
def test_plain_inline_fast_path_equals_the_inline_parser(raw: str) -> None:
    assert markdown.plain_inline(raw) == _reference_inline(raw)
