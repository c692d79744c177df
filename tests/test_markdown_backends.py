"""The fast Markdown block scanner (markdown-it-pyrs) agrees with the reference
(markdown-it-py) on every file of the datasets, a failure of the fast one falls back to
the reference with a warning, and the fast walk's paragraphs (source byte spans) are
those of the text nodes' own contents."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATASETS, file_text
from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="`ab .()\\", max_size=24))  # callers pass one-line text
def test_plain_inline_fast_path_equals_the_inline_parser(raw: str) -> None:
    assert markdown.plain_inline(raw) == _reference_inline(raw)


_MARKDOWN_PIECES = ["`a(b)`", "`", "``", "x", " ", "\n", "\n\n", "> ", "- ", "1. ", "  ", "\t"]
_MARKDOWN_PIECES += ["(", "/", "`c/d`"]
_MARKDOWN_PIECES += ["# h ", "```\n", "| a |\n|---|\n", "<div>\n", "[r]: /u\n", "---\n"]


@needs_rs
@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_MARKDOWN_PIECES), max_size=30).map("".join))
def test_paragraphs_are_the_trees_paragraph_texts(text: str) -> None:
    """Each paragraph is one text node of the fast tree (its paragraph rule on, no inline
    rule): the walk, which reads a node's text only when its source bytes hold a backtick
    and a "(" or a "/", gives every such paragraph outside headings and tables, at its
    lines. (The walk before joined text nodes on consecutive lines: a paragraph and the
    block quote under it were one.)"""
    text, _ = markdown_blocks.bound_nesting(text)
    fast = [
        (b.line, b.end_line, b.raw)
        for b in markdown_blocks.scan_rs(text)
        if b.kind == "text" and _api_text(b.raw)
    ]
    assert fast == _every_paragraph(text)


def _every_paragraph(text: str) -> list[tuple[int, int, str]]:
    """Every text node's content outside headings and tables, read from `meta`, with the
    lines of its source bytes: (line, end_line, text) of those with an API's code span."""
    tree = markdown_blocks._rs_parser().tree(text)
    data = text.encode("utf-8", "surrogatepass")
    found, inside_until = [], -1
    for node in tree.walk():
        if node.srcmap is None or node.srcmap[0] < inside_until:
            continue
        start, stop = node.srcmap
        if node.name in ("heading", "lheading", "table"):
            inside_until = stop
        elif node.name == "text":
            content = node.meta.get("content", "")
            line = data.count(b"\n", 0, start) + 1
            end = line + data.count(b"\n", start, max(start, stop - 1))
            if _api_text(content):
                found.append((line, end, content))
    return found


# Where the walk before the paragraph rule (each line a text node of no paragraph) read
# the block structure otherwise than CommonMark and markdown-it-py: now the same.
_FAST_AS_THE_REFERENCE = [
    # an HTML line inside a paragraph opened an HTML block to the next blank line, and
    # the heading under it was lost (Ant Design's docs: "### 如何支持键盘无障碍访问？")
    ('text\n<img src="x" />\nmore\n### H\n', [(3, "H", 4)], []),
    # a paragraph's indented next line is its continuation, not an indented code block
    ("text `f(x)`\n    more `g(y)`\n", [], [("f", 1), ("g", 2)]),
    # a paragraph and the block quote under it are two
    ("para `a(b)`\n> `c(d)`\n", [], [("a", 1), ("c", 2)]),
]


@needs_rs
@pytest.mark.parametrize(("text", "headings", "apis"), _FAST_AS_THE_REFERENCE)
def test_the_fast_scanner_reads_blocks_as_the_reference(
    text: str, headings: list[tuple[int, str, int]], apis: list[tuple[str, int]]
) -> None:
    for backend in ("rs", "py"):
        doc = parse_markdown(text, "t.md", backend)
        assert [(h.level, h.title, h.line) for h in doc.headings] == headings, backend
        assert [(e.name, e.line) for e in doc.entities] == apis, backend


def _api_text(raw: str) -> bool:
    """The paragraphs `parse_markdown` reads: a backtick and a "(" or a "/" (the fast
    walk gives only those; which it leaves out is the reference's business)."""
    return "`" in raw and ("(" in raw or "/" in raw)


_HEADING_PIECES = ["# ", "## ", "   ### ", "###### ", "####### ", "#", " #", "a", "`c`", " ", "\t"]
_HEADING_PIECES += ["\n", "\n===\n", "\n---\n", "\n  =\n", "> ", "- ", "é", "\\#", " ##\n", "{#x}"]


@needs_rs
@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_HEADING_PIECES), max_size=24).map("".join))
def test_heading_level_and_text_from_the_source_bytes(text: str) -> None:
    """A heading's level and title text come from its source bytes, not from `meta`
    (issue 24): the same as markdown-it-pyrs' own `level` and text contents."""
    text, _ = markdown_blocks.bound_nesting(text)
    tree = markdown_blocks._rs_parser().tree(text)
    lines = markdown_blocks._Lines(text.encode("utf-8", "surrogatepass"))
    reference = []
    for node in tree.children:
        if node.name in ("heading", "lheading"):
            raw = "".join(c.meta.get("content", "") for c in node.children)
            line, end = lines.span(*node.srcmap)
            reference.append((int(node.meta["level"]), raw, line, end))
    fast = [
        (b.level, b.raw, b.line, b.end_line)
        for b in markdown_blocks.scan_rs(text)
        if b.kind == "heading"
    ]
    assert fast == reference


@pytest.mark.parametrize(
    "text, title",
    [
        # zod's README: a logo, then a centred HTML <h1>, then `###` headings.
        (
            '<p align="center">\n  <img src="logo.svg" alt="Zod logo" />\n'
            '  <h1 align="center">Zod</h1>\n  <p align="center">Schemas</p>\n</p>\n\n'
            "### Read the docs\n",
            "Zod",
        ),
        ('<h1 align="center">\n  <b>Foo</b> &amp; Bar\n</h1>\n\n## Install\n', "Foo & Bar"),
        # A Markdown heading above it: the HTML <h1> below is not the page's title.
        ("# Real\n\n<h1>Later</h1>\n", "Real"),
        ('<p align="center"><img src="x.png"></p>\n\n# Real\n\ntext\n', "Real"),
        # Inside a code block it is an example, not HTML.
        ("```html\n<h1>Code</h1>\n```\n\n## Usage\n", "Usage"),
        ("---\ntitle: From front matter\n---\n<h1>Html</h1>\n", "From front matter"),
    ],
)
def test_an_html_h1_above_every_heading_is_the_title(text: str, title: str) -> None:
    backends = ("py", "rs") if markdown_blocks.rs_available() else ("py",)
    assert {parse_markdown(text, "README.md", b).title for b in backends} == {title}
