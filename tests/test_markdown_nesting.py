"""Markdown nesting is bounded before either block scanner sees it (issue 20 item 2).

markdown-it-pyrs overflowed its stack (SIGSEGV) on `- ` x 100,000; the bound cuts a line's
container prefix at MAX_NESTING levels for the scanners only (the indexed text is the
file's), so line numbers, the blocks after the deep line and every word stay.
"""

from __future__ import annotations

import pytest

from docql_sqlite.ingest import markdown, markdown_blocks
from docql_sqlite.ingest.markdown_blocks import MAX_NESTING, bound_nesting

DEEP_PREFIXES = ["- ", "> ", ">", "1. ", "2) ", "* ", "+ ", "  - ", "\t- ", "- > 1. "]
BACKENDS = ["py", "rs"] if markdown_blocks.rs_available() else ["py"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prefix", DEEP_PREFIXES)
def test_deep_nesting_keeps_text_structure_and_says_so(prefix: str, backend: str) -> None:
    text = (
        "# Top\n\n" + prefix * (200_000 // len(prefix)) + "x `code`\n\n# After\n\n```py\nc\n```\n"
    )
    doc = markdown.parse_markdown(text, "deep.md", backend=backend)
    assert doc.text == text  # the document's text is the file's, not the bounded copy
    assert [(h.title, h.line) for h in doc.headings] == [("Top", 1), ("After", 5)]
    assert [(c.code, c.line) for c in doc.codeblocks] == [("c\n", 7)]
    assert len(doc.warnings) == 1
    assert doc.warnings[0].startswith(f"nested deeper than {MAX_NESTING} block quotes or list")
    assert "at line 3;" in doc.warnings[0]


@pytest.mark.parametrize(
    "text",
    [
        "-" * 500 + "\n",  # a rule
        "." * 500 + "\n",
        "1" * 500 + "\n",
        "*" * 500 + "\n",
        "- " * 40 + "x\n",  # deep, but within the bound
        "> " * MAX_NESTING + "x\n",
        " " * 150 + "code\n",
        "# Title\n\nplain text\n",
    ],
)
def test_what_is_not_too_deep_is_left_alone(text: str) -> None:
    assert bound_nesting(text) == (text, None)


def test_the_bound_keeps_lines_and_counts_every_deep_line() -> None:
    text = "a\n" + ("> " * 300 + "deep\n") * 3 + "b\n"
    bounded, warning = bound_nesting(text)
    assert bounded.count("\n") == text.count("\n")
    assert bounded.splitlines()[1] == "> " * MAX_NESTING + "deep"
    assert warning is not None and "at line 2 and 2 more;" in warning


def test_the_scanners_agree_just_under_the_bound() -> None:
    """The reference scanner's nesting limit is raised from the CommonMark preset's 20
    to match: a list 100 deep keeps the heading after it in both."""
    text = "# T\n\n" + "- " * MAX_NESTING + "x\n\n# After\n"
    for backend in BACKENDS:
        doc = markdown.parse_markdown(text, "x.md", backend=backend)
        assert [h.title for h in doc.headings] == ["T", "After"], backend
        assert doc.warnings == []
