"""Section numbers (docql-spec §1.1): counted per level, unless the document prints its own.

Printed numbering (docs/design.md B23): when two or more headings carry a printed number,
numbered headings keep it, an unnumbered heading under a numbered one continues its
parent's numbering, and unnumbered front/back matter gets no number ('') instead of
shifting every chapter after it. Checked through the real parsers (Markdown, HTML, RST).
"""

from __future__ import annotations

import pytest

from docql_sqlite.ingest.html import parse_html
from docql_sqlite.ingest.markdown import parse_markdown
from docql_sqlite.ingest.rst import parse_rst
from docql_sqlite.ingest.sections import build_sections, printed_number
from docql_sqlite.model import Document, Heading


def numbers(doc: Document) -> list[tuple[str, str]]:
    return [(s.number, s.title) for s in build_sections(doc)]


def markdown(*headings: str) -> Document:
    return parse_markdown("".join(f"{h}\n\ntext\n\n" for h in headings), "x.md")


@pytest.mark.parametrize(
    "headings, expected",
    [
        pytest.param(
            ["# Preface", "# 1 Introduction", "## 1.1 Scope", "## Related work", "# 2 Setup"],
            ["", "1", "1.1", "1.2", "2"],
            id="front-matter-unnumbered-children-continue",
        ),
        pytest.param(
            ["# Manual", "## 1. Install", "### Linux", "### macOS", "## 2. Use", "## Index"],
            ["", "1", "1.1", "1.2", "2", ""],
            id="title-h1-and-back-matter",
        ),
        pytest.param(
            # PostgreSQL's manual: a "Note" between printed siblings took 8.1.2, so
            # chapter("8.1.2") answered twice; after the last one, it continues them
            ["# 8.1. Numeric", "## 8.1.1. Integer", "## Note", "## 8.1.2. Float", "## Note"],
            ["8.1", "8.1.1", "", "8.1.2", "8.1.3"],
            id="an-aside-takes-no-printed-number",
        ),
        pytest.param(
            ["# 1 Intro", "# 2 Body", "# Appendix A Tables", "## A.1 Sizes", "## Units"],
            ["1", "2", "A", "A.1", "A.2"],
            id="appendix-letters",
        ),
        pytest.param(
            ["# 1 Intro", "# 2 Body", "# A Sample session", "# B Invoking", "## Options"],
            ["1", "2", "A", "B", "B.1"],
            id="bare-letters-in-sequence-at-the-top",
        ),
        pytest.param(
            ["# 1 Intro", "## A Short tour", "## R and statistics", "# 2 Body"],
            ["1", "1.1", "1.2", "2"],
            id="a-sentence-is-not-a-letter-number",
        ),
        pytest.param(
            ["# Chapter 3: Architecture", "## Storage", "## Indexes"],
            ["1", "1.1", "1.2"],
            id="one-printed-number-is-not-a-numbering",
        ),
        pytest.param(
            ["# Intro", "## A Development setup", "## A Production setup", "# Usage"],
            ["1", "1.1", "1.2", "2"],
            id="no-printed-numbers-counts-as-before",
        ),
        pytest.param(
            ["# 2023 Roadmap", "# 2024 Roadmap", "# 1.2345 Release"],
            ["1", "2", "3"],
            id="years-and-versions-are-not-numbers",
        ),
    ],
)
def test_markdown_numbers(headings: list[str], expected: list[str]) -> None:
    assert [n for n, _ in numbers(markdown(*headings))] == expected


def test_html_and_rst_follow_printed_numbers() -> None:
    html = "".join(
        f"<h{level}>{title}</h{level}><p>text</p>"
        for level, title in [(1, "Preface"), (1, "1 Intro"), (2, "1.1 Scope"), (1, "2 Use")]
    )
    assert [n for n, _ in numbers(parse_html(html, "x.html"))] == ["", "1", "1.1", "2"]
    rst = "Preface\n=======\n\ntext\n\n1 Intro\n=======\n\ntext\n\nScope\n-----\n\ntext\n\n"
    rst += "2 Use\n=====\n\ntext\n"
    assert [n for n, _ in numbers(parse_rst(rst, "x.rst"))] == ["", "1", "1.1", "2"]


def test_number_given_by_the_parser_wins_over_the_title() -> None:
    doc = Document(
        format="pdf",
        text="a\nb\nc\nd\n",
        headings=[
            Heading(1, "Preface", 1),
            Heading(1, "1 Introduction", 2),
            Heading(2, "Related software", 3, number="1.2"),
            Heading(2, "Statistics", 4),
        ],
    )
    assert numbers(doc) == [
        ("", "Preface"),
        ("1", "1 Introduction"),
        ("1.2", "Related software"),
        ("1.3", "Statistics"),
    ]


def test_code_headings_are_never_printed_numbers() -> None:
    doc = Document(
        format="code",
        text="x\ny\n",
        headings=[Heading(1, "1 first", 1), Heading(1, "2 second", 2)],
    )
    assert [n for n, _ in numbers(doc)] == ["1", "2"]


@pytest.mark.parametrize(
    "title, expected",
    [
        ("1.2 Related software", ("1.2", False)),
        ("3. Setup", ("3", False)),
        ("Chapter 4: Usage", ("4", False)),
        ("Appendix B Invoking R", ("B", False)),
        ("B.1 Options", ("B.1", False)),
        ("A Short Tour", ("A", True)),
        ("10 Writing your own functions", ("10", False)),
        ("2023 Roadmap", None),
        ("1.2345 release", None),
        ("B-tree indexes", None),
        ("I/O", None),
        ("fs.readFile(path)", None),
        ("Preface", None),
    ],
)
def test_printed_number(title: str, expected: tuple[str, bool] | None) -> None:
    assert printed_number(title) == expected
