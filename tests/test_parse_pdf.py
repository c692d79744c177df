"""parse_pdf: page layout, outline TOC, numbered-heading fallback, glued words, errors.

Every PDF is generated here with pure pypdf (Helvetica, one text line per entry), so
the expected lines are known exactly: pypdf returns one line per `T*` line and skips
empty strings.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.errors import DependencyError
from pypdf.generic import (
    DecodedStreamObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    TextStringObject,
)

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest import pdf as pdf_module
from docql_sqlite.ingest.pdf import parse_pdf

N = NameObject
Outline = Sequence[tuple[int, str, int]]  # (depth, title, 0-based page)
HAS_PDFIUM = pdf_module._pdfium() is not None
needs_pdfium = pytest.mark.skipif(not HAS_PDFIUM, reason="pypdfium2 not installed")


@pytest.fixture
def pypdf_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text by pypdf, as without pypdfium2 installed (the fallback)."""
    monkeypatch.setattr(pdf_module, "_pdfium", lambda: None)


def make_pdf(
    pages: list[list[str]],
    outline: Outline = (),
    *,
    title: str | None = None,
    user_password: str | None = None,
) -> bytes:
    writer = PdfWriter()
    font = DictionaryObject(
        {
            N("/Type"): N("/Font"),
            N("/Subtype"): N("/Type1"),
            N("/BaseFont"): N("/Helvetica"),
            N("/Encoding"): N("/WinAnsiEncoding"),
        }
    )
    for lines in pages:
        page = writer.add_page(PageObject.create_blank_page(width=612, height=792))
        page[N("/Resources")] = DictionaryObject({N("/Font"): DictionaryObject({N("/F1"): font})})
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops + ["ET"]).encode("latin-1"))
        page.replace_contents(stream)  # type: ignore[arg-type]  # pypdf accepts decoded streams
    parents: dict[int, IndirectObject] = {}
    for depth, text, page_number in outline:
        parents[depth] = writer.add_outline_item(
            title=text, page_number=page_number, parent=parents.get(depth - 1)
        )
    if title:
        writer.add_metadata({"/Title": title})
    if user_password is not None:
        writer.encrypt(user_password=user_password)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


GUIDE_PAGES = [
    ["User Guide", "Version 2"],  # page 1: lines 1-2
    ["1 Introduction", "This guide explains things.", "Background", "Some history."],  # lines 3-6
    [],  # page 3: empty, line 7
    [
        "Running header",
        "2   INSTALLING  the Tool",
        "Use pip.",
        "2.1 From source",
        "Clone it.",
    ],  # 8-12
    ["Appendix A", "Copying Information", "GPL."],  # page 5: 13-15
]

OUTLINE_CASES = [
    pytest.param(
        [
            (0, "Introduction", 1),
            (1, "Background", 1),
            (0, "2 Installing the tool", 3),
            (1, "2.1 From source", 3),
        ],
        [
            (1, "Introduction", 3, 2),
            (2, "Background", 5, 2),
            (1, "2 Installing the tool", 9, 4),
            (2, "2.1 From source", 11, 4),
        ],
        id="nested-levels-contains-casefold-whitespace",
    ),
    pytest.param(
        [(0, "Appendix A Copying Information", 4)],
        [(1, "Appendix A Copying Information", 13, 5)],
        id="title-wrapped-over-two-lines",
    ),
    pytest.param(
        [(0, "Chapter 2 Background", 1)],
        [(1, "Chapter 2 Background", 5, 2)],
        id="outline-adds-chapter-number",
    ),
    pytest.param(
        [(0, "Not on the page", 3), (0, "Empty page", 2)],
        [(1, "Empty page", 7, 3), (1, "Not on the page", 8, 4)],
        id="not-found-goes-to-page-start-and-sorted-by-line",
    ),
    pytest.param(
        [(0, "Clone it.", 3), (0, "Missing title", 3)],
        [(1, "Clone it.", 12, 4), (1, "Missing title", 12, 4)],
        id="same-page-not-found-never-before-previous-entry",
    ),
    pytest.param(
        [
            (0, "L1", 0),
            (1, "L2", 0),
            (2, "L3", 0),
            (3, "L4", 0),
            (4, "L5", 0),
            (5, "L6", 0),
            (6, "L7", 0),
        ],
        [
            (1, "L1", 1, 1),
            (2, "L2", 1, 1),
            (3, "L3", 1, 1),
            (4, "L4", 1, 1),
            (5, "L5", 1, 1),
            (6, "L6", 1, 1),
            (6, "L7", 1, 1),
        ],
        id="depth-capped-at-level-6",
    ),
]


@pytest.mark.parametrize("outline, expected", OUTLINE_CASES)
def test_outline_headings(outline: Outline, expected: list[tuple[int, str, int, int]]) -> None:
    document = parse_pdf(make_pdf(GUIDE_PAGES, outline), "docs/guide.pdf")
    assert [(h.level, h.title, h.line, h.page) for h in document.headings] == expected
    for heading in document.headings:
        assert document.page_of(heading.line) == heading.page


@pytest.mark.parametrize(
    "extractor, spacing",
    [
        # pypdf keeps the spacing as drawn; PDFium writes one space between words
        pytest.param("pypdf", "2   INSTALLING  the Tool", id="pypdf"),
        pytest.param("pdfium", "2 INSTALLING the Tool", id="pdfium", marks=needs_pdfium),
    ],
)
def test_page_layout_and_text(
    monkeypatch: pytest.MonkeyPatch, extractor: str, spacing: str
) -> None:
    if extractor == "pypdf":
        monkeypatch.setattr(pdf_module, "_pdfium", lambda: None)
    document = parse_pdf(make_pdf(GUIDE_PAGES), "guide.pdf")
    assert document.format == "pdf"
    assert document.page_lines == [1, 3, 7, 8, 13]
    lines = document.text.split("\n")
    assert lines[:3] == ["User Guide", "Version 2", "1 Introduction"]
    assert lines[6] == ""  # the empty page occupies one line
    assert lines[8] == spacing
    assert document.text.endswith("GPL.\n")
    assert document.line_count == 15
    assert document.page_count == 5


def test_section_text_at_heading_lines() -> None:
    outline = [(0, "Introduction", 1), (0, "2.1 From source", 3)]
    document = parse_pdf(make_pdf(GUIDE_PAGES, outline), "guide.pdf")
    lines = document.text.split("\n")
    assert [lines[h.line - 1] for h in document.headings] == ["1 Introduction", "2.1 From source"]


def test_empty_pages_only() -> None:
    document = parse_pdf(make_pdf([[], []]), "blank.pdf")
    assert document.text == "\n\n"
    assert document.page_lines == [1, 2]
    assert document.headings == []


@pytest.mark.parametrize(
    "pages, warning",
    [
        pytest.param(
            [[], []],
            "no text on any of its 2 pages: a scanned or image-only PDF? Nothing in it can "
            "be searched until it is OCRed",
            id="no-text-at-all",
        ),
        pytest.param(
            [["Cover"], [], [], []],
            "no text on 3 of its 4 pages: scanned or image-only pages? Their words cannot "
            "be searched until the file is OCRed",
            id="mostly-images",
        ),
        pytest.param([], "no pages: the PDF holds nothing to search", id="no-pages"),
        pytest.param([["Text"], [], ["More"], ["End"]], None, id="a-blank-page-is-no-news"),
        pytest.param([["Title"], []], None, id="too-short-to-say"),
    ],
)
def test_pages_without_text_are_reported(pages: list[list[str]], warning: str | None) -> None:
    """An image-only (scanned) PDF is stored, but nothing in it can be found: the index
    report says so instead of a silent empty document."""
    document = parse_pdf(make_pdf(pages), "scan.pdf")
    assert document.warnings == ([warning] if warning else [])


@pytest.mark.parametrize(
    "title, outline, path, expected",
    [
        ("The Manual", [(0, "Introduction", 1)], "a/guide.pdf", "The Manual"),
        (None, [(0, "Introduction", 1)], "a/guide.pdf", "Introduction"),
        (None, [], "a/b/guide.pdf", "guide.pdf"),
        ("  ", [], "guide.pdf", "guide.pdf"),
    ],
)
def test_title(title: str | None, outline: Outline, path: str, expected: str) -> None:
    assert parse_pdf(make_pdf(GUIDE_PAGES, outline, title=title), path).title == expected


def test_outline_entry_without_destination() -> None:
    writer = PdfWriter(clone_from=io.BytesIO(make_pdf([["a"], ["Good"]])))
    writer.add_outline_item(title="Good", page_number=1)
    broken = writer.add_outline_item(title="Broken", page_number=0)
    action = DictionaryObject({N("/S"): N("/URI"), N("/URI"): N("/x")})
    broken.get_object()[N("/A")] = action  # type: ignore[index]  # now points nowhere in the PDF
    buffer = io.BytesIO()
    writer.write(buffer)
    document = parse_pdf(buffer.getvalue(), "x.pdf")
    assert [(h.title, h.line, h.page) for h in document.headings] == [
        ("Good", 2, 2),
        ("Broken", 2, 2),
    ]
    assert document.warnings == [
        "outline: 1 entry has no destination page; placed after the previous entry"
    ]


# -- no outline: numbered headings ------------------------------------------------

NUMBERED_CASES = [
    pytest.param(
        [
            ["1 Introduction", "Text here.", "1.1 Scope", "Scope text."],
            ["2 Design", "We design.", "2.1 Parts", "Parts."],
        ],
        [
            (1, "1 Introduction", 1, 1),
            (2, "1.1 Scope", 3, 1),
            (1, "2 Design", 5, 2),
            (2, "2.1 Parts", 7, 2),
        ],
        id="numbered-sections",
    ),
    pytest.param(
        [
            ["Report header", "1. Overview", "Body text."],
            ["Running head", "2. Results", "More text."],
        ],
        [(1, "1. Overview", 2, 1), (1, "2. Results", 5, 2)],
        id="trailing-dot-and-below-running-header",
    ),
    pytest.param(
        [
            ["1 Introduction", "Text here.", "3 apples were eaten.", "2 Things", "x"],
            ["4 Later", "y"],
        ],
        [(1, "1 Introduction", 1, 1), (1, "2 Things", 4, 1)],
        id="lowercase-and-sequence-jumps-rejected",
    ),
    pytest.param(
        [
            ["Contents", "1 Introduction ........ 3", "2 Design ........ 5"],
            ["1 Introduction", "Text.", "2 Design", "Text."],
        ],
        [(1, "1 Introduction", 4, 2), (1, "2 Design", 6, 2)],
        id="printed-toc-rows-rejected",
    ),
    pytest.param(
        [["Intro", "1 Introduction", "Text here."]],
        [],
        id="single-heading-is-not-a-toc",
    ),
    pytest.param(
        [["Some prose continues", "2 Design", "Text.", "we then", "3 Build", "Text."]],
        [],
        id="must-open-a-paragraph-and-start-at-1",
    ),
    pytest.param(
        [
            [
                "1 Introduction",
                "Text.",
                "1.1 Scope",
                "Text.",
                "2 Design ends with a period.",
                "2 Design:",
                "no stop",
                "2 Design",
            ]
        ],
        [(1, "1 Introduction", 1, 1), (2, "1.1 Scope", 3, 1)],
        id="sentences-rejected-and-needs-paragraph-start",
    ),
    # Shapes of R-data.pdf and R-intro.pdf without their outline:
    pytest.param(
        [
            ["1 Introduction", "Text.", "1.1 Imports", "The format:"],
            ["1. Header line", "2. Separator", "3. Missing values"],
            ["2 Spreadsheet-like data", "Text."],
        ],
        [
            (1, "1 Introduction", 1, 1),
            (2, "1.1 Imports", 3, 1),
            (1, "2 Spreadsheet-like data", 8, 3),
        ],
        id="numbered-list-items-with-a-dot-are-no-sections-without-one",
    ),
    pytest.param(
        [
            [
                "1 Arrays",
                "Text.",
                "> dim(z) <- c(3,5,100)",
                "1.1 Index matrices",
                "make prefix=/path/to/here uninstall-libR",
                "1.2 Sub-architectures",
                "1 SYMSXP symbols",
                "2 LISTSXP pairlists",
                "as the values,",
                "1.3 Not a section",
            ]
        ],
        [
            (1, "1 Arrays", 1, 1),
            (2, "1.1 Index matrices", 4, 1),
            (2, "1.2 Sub-architectures", 6, 1),
        ],
        id="after-a-code-line-the-next-number-opens-a-section",
    ),
    pytest.param(
        [
            [
                "1 Commands",
                "Text.",
                "1.1 R commands, case sensitivity, etc.",
                "Text.",
                "1.2 attach() and detach()",
                "Text.",
                "1.3 .Internal vs .Primitive",
                "Text.",
                "1.4 The '...' argument",
                "Text.",
                "1.5 Nevada 12.2",
            ]
        ],
        [
            (1, "1 Commands", 1, 1),
            (2, "1.1 R commands, case sensitivity, etc.", 3, 1),
            (2, "1.2 attach() and detach()", 5, 1),
            (2, "1.3 .Internal vs .Primitive", 7, 1),
            (2, "1.4 The '...' argument", 9, 1),
        ],
        id="titles-of-code-names-etc-and-an-ellipsis",
    ),
]


@pytest.mark.parametrize("pages, expected", NUMBERED_CASES)
def test_numbered_headings_without_outline(
    pages: list[list[str]], expected: list[tuple[int, str, int, int]]
) -> None:
    document = parse_pdf(make_pdf(pages), "x.pdf")
    assert [(h.level, h.title, h.line, h.page) for h in document.headings] == expected


def test_outline_wins_over_numbered_lines() -> None:
    pages = [["1 Introduction", "Text.", "2 Design", "Text."]]
    document = parse_pdf(make_pdf(pages, [(0, "Design", 0)]), "x.pdf")
    assert [(h.title, h.line) for h in document.headings] == [("Design", 3)]


# -- glued words ---------------------------------------------------------------------

GLUED_LINE = "Nowtrytocompileandrunyourprogram with thefollowingcommandlineoptions"
NORMAL_LINE = "Now try to compile and run your program with the following options"


@pytest.mark.parametrize("extractor", ["pypdf", pytest.param("PDFium", marks=needs_pdfium)])
def test_glued_pages_are_reported(monkeypatch: pytest.MonkeyPatch, extractor: str) -> None:
    monkeypatch.setattr(pdf_module.shutil, "which", lambda name: None)
    if extractor == "pypdf":
        monkeypatch.setattr(pdf_module, "_pdfium", lambda: None)
    pages = [[NORMAL_LINE] * 5, [GLUED_LINE] * 5, [NORMAL_LINE] * 5, [GLUED_LINE] * 5]
    document = parse_pdf(make_pdf(pages), "glued.pdf")
    assert document.warnings == [
        f"glued words: {extractor} dropped spaces on 2 of 4 pages (2, 4); "
        "search over them will be poor (install poppler-utils for pdftotext)"
    ]


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param([NORMAL_LINE] * 10, id="normal-prose"),
        pytest.param(
            [NORMAL_LINE] * 10 + ["https://example.org/internationalization/characterization x"],
            id="two-long-words",
        ),
        pytest.param(
            ["数据库索引的架构设计说明文档以及查询语言规范"] * 10, id="cjk-runs-are-not-glued"
        ),
    ],
)
def test_not_glued(lines: list[str]) -> None:
    assert not pdf_module._is_glued("\n".join(lines))


def test_glued_pages_use_pdftotext_when_available(
    monkeypatch: pytest.MonkeyPatch, pypdf_text: None
) -> None:
    calls: list[list[str]] = []

    def fake_run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        calls.append(args)
        assert kwargs["input"][:5] == b"%PDF-"  # type: ignore[index]
        out = b"Page one\f Now try to compile\nsecond line\n\f\f"
        return subprocess.CompletedProcess(args, 0, stdout=out, stderr=b"")

    monkeypatch.setattr(pdf_module.shutil, "which", lambda name: "/usr/bin/pdftotext")
    monkeypatch.setattr(pdf_module.subprocess, "run", fake_run)
    document = parse_pdf(make_pdf([["Page one"], [GLUED_LINE] * 5, []]), "glued.pdf")
    assert calls and calls[0][0] == "pdftotext"
    assert document.text == "Page one\n Now try to compile\nsecond line\n\n"
    assert document.page_lines == [1, 2, 4]
    assert document.warnings == [
        "glued words: pypdf dropped spaces on 1 of 3 pages (2); "
        "those pages were extracted with pdftotext"
    ]


def test_pdftotext_failure_falls_back_to_pypdf(
    monkeypatch: pytest.MonkeyPatch, pypdf_text: None
) -> None:
    def failing_run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        raise subprocess.TimeoutExpired(args, 1)

    monkeypatch.setattr(pdf_module.shutil, "which", lambda name: "/usr/bin/pdftotext")
    monkeypatch.setattr(pdf_module.subprocess, "run", failing_run)
    document = parse_pdf(make_pdf([[GLUED_LINE] * 5]), "glued.pdf")
    assert document.text.startswith(GLUED_LINE)
    assert "install poppler-utils" in document.warnings[0]


@pytest.mark.skipif(not pdf_module.shutil.which("pdftotext"), reason="poppler-utils not installed")
def test_real_pdftotext_keeps_page_count(pypdf_text: None) -> None:
    pages = [[GLUED_LINE] * 5, [], ["last page"]]
    document = parse_pdf(make_pdf(pages), "glued.pdf")
    assert document.page_count == 3
    assert "extracted with pdftotext" in document.warnings[0]


def long_pdf(pages: int) -> tuple[bytes, list[list[str]], Outline]:
    # Not "Section {n}" alone: a page's first line ending in its own page number is a
    # running header (`drop_running_lines`).
    texts = [[f"Section {n} overview", f"Body of page {n} about topic{n}."] for n in range(pages)]
    outline = tuple((0, f"Section {n} overview", n) for n in range(0, pages, 25))
    return make_pdf(texts, outline), texts, outline


@pytest.mark.skipif(not pdf_module.shutil.which("pdftotext"), reason="poppler-utils not installed")
def test_a_long_pdf_is_read_by_pdftotext(monkeypatch: pytest.MonkeyPatch, pypdf_text: None) -> None:
    """From LARGE_PDF_PAGES pages on, the text is pdftotext's (pypdf's ~20 ms a page made
    a 2,415-page manual cost 50 s of CPU); pages, lines and outline are as pypdf gives."""
    data, texts, outline = long_pdf(pdf_module.LARGE_PDF_PAGES)
    with monkeypatch.context() as without:
        without.setattr(pdf_module.shutil, "which", lambda name: None)
        by_pypdf = parse_pdf(data, "long.pdf")

    def no_pypdf(*args: object) -> str:
        raise AssertionError("pypdf's text extraction was used for a long PDF")

    monkeypatch.setattr(pdf_module, "_page_text", no_pypdf)
    document = parse_pdf(data, "long.pdf")
    assert document.page_count == len(texts) and document.warnings == []
    for n in (0, 1, len(texts) // 2, len(texts) - 1):
        first = document.page_lines[n]
        assert document.text.split("\n")[first - 1 : first + 1] == texts[n]
    assert [(h.title, h.page) for h in document.headings] == [
        (title, page + 1) for _, title, page in outline
    ]
    assert document.text == by_pypdf.text


def test_a_long_pdf_without_pdftotext_is_read_by_pypdf(
    monkeypatch: pytest.MonkeyPatch, pypdf_text: None
) -> None:
    data, texts, _ = long_pdf(pdf_module.LARGE_PDF_PAGES)
    monkeypatch.setattr(pdf_module.shutil, "which", lambda name: None)
    document = parse_pdf(data, "long.pdf")
    assert document.page_count == len(texts)
    assert document.text.split("\n")[:2] == texts[0]


def test_a_short_pdf_keeps_pypdf_text(monkeypatch: pytest.MonkeyPatch, pypdf_text: None) -> None:
    calls: list[object] = []
    monkeypatch.setattr(pdf_module.shutil, "which", lambda name: "/usr/bin/pdftotext")
    monkeypatch.setattr(pdf_module, "_pdftotext", lambda data: calls.append(data))
    data, texts, _ = long_pdf(pdf_module.LARGE_PDF_PAGES - 1)
    assert parse_pdf(data, "short.pdf").page_count == len(texts) and calls == []


# -- PDFium (pypdfium2), the default extractor ----------------------------------------


@needs_pdfium
@pytest.mark.parametrize("pages", [3, pdf_module.LARGE_PDF_PAGES], ids=["short", "long"])
def test_pdfium_reads_every_pdf_as_pypdf_would(monkeypatch: pytest.MonkeyPatch, pages: int) -> None:
    """Short or long, the text is PDFium's (neither pypdf's text nor pdftotext runs), with
    the lines, pages and outline sections pypdf's text gives."""
    data, texts, outline = long_pdf(pages)
    with monkeypatch.context() as fallback:
        fallback.setattr(pdf_module, "_pdfium", lambda: None)
        fallback.setattr(pdf_module.shutil, "which", lambda name: None)
        by_pypdf = parse_pdf(data, "long.pdf")

    def unused(*args: object) -> str:
        raise AssertionError("a fallback extractor ran")

    monkeypatch.setattr(pdf_module, "_page_text", unused)
    monkeypatch.setattr(pdf_module, "_pdftotext", unused)
    # Nor does pypdf read the file: its page tree in Python objects costs what PDFium's
    # text does (R's refman.pdf: 2.6 s and ~150 MB only to count the pages).
    monkeypatch.setattr(pdf_module, "_open", unused)
    document = parse_pdf(data, "long.pdf")
    assert document.warnings == [] and document.page_count == pages
    assert document.text == by_pypdf.text
    assert document.page_lines == by_pypdf.page_lines
    assert [(h.title, h.line, h.page) for h in document.headings] == [
        (h.title, h.line, h.page) for h in by_pypdf.headings
    ]
    assert len(document.headings) == len(outline)


def outline_with_actions(kinds: list[str]) -> bytes:
    """GUIDE_PAGES with one outline entry per kind: "dest" (a /Dest array), "goto" (a
    GoTo action, as LaTeX's hyperref writes them) or "uri" (an action to a web page)."""
    reader = PdfReader(
        io.BytesIO(make_pdf(GUIDE_PAGES, [(0, f"E{i}", 3) for i, _ in enumerate(kinds)]))
    )
    writer = PdfWriter(clone_from=reader)
    item = writer._root_object["/Outlines"].get_object()["/First"]
    for kind in kinds:
        entry = item.get_object()  # pypdf's writer gives each entry a GoTo action
        action = entry[N("/A")].get_object()
        if kind == "dest":
            entry[N("/Dest")] = action[N("/D")]
            del entry[N("/A")]
        elif kind == "uri":
            uri = {N("/S"): N("/URI"), N("/URI"): TextStringObject("https://example.org")}
            entry[N("/A")] = DictionaryObject(uri)
        item = entry.get("/Next")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("extractor", ["pypdf", pytest.param("PDFium", marks=needs_pdfium)])
def test_outline_destinations_and_goto_actions(
    monkeypatch: pytest.MonkeyPatch, extractor: str
) -> None:
    """A bookmark's page comes from its /Dest or its GoTo action; one with another action
    has none and keeps the previous entry's place, the same with either reader."""
    if extractor == "pypdf":
        monkeypatch.setattr(pdf_module, "_pdfium", lambda: None)
    document = parse_pdf(outline_with_actions(["dest", "goto", "uri"]), "a.pdf")
    assert [(h.title, h.page) for h in document.headings] == [("E0", 4), ("E1", 4), ("E2", 4)]
    assert document.warnings == [
        "outline: 1 entry has no destination page; placed after the previous entry"
    ]


@needs_pdfium
def test_pdfium_hyphenated_words_are_whole_on_the_second_line() -> None:
    """PDFium joins a word hyphenated across lines with U+FFFE; the whole word goes to the
    second line, so search finds it, and the page keeps its number of lines. The hyphen
    stays before a capital, and where the document writes the word with its hyphen and
    never without."""
    pdfium = pdf_module._pdfium()
    page = [
        "a word inves-",
        "tigated here",
        "uses floating-",
        "point numbers, as floating-point",
        "says the S-",
        "Plus manual, and inves-",
        "tigated.",
    ]
    document = pdfium.PdfDocument(make_pdf([page]))
    try:
        raw = document[0].get_textpage().get_text_range()
    finally:
        document.close()
    assert "inves\ufffetigated" in raw  # PDFium's marker, the lines joined
    parsed = parse_pdf(make_pdf([page]), "h.pdf")
    assert parsed.text.split("\n") == [
        "a word",
        "investigated here",
        "uses",
        "floating-point numbers, as floating-point",
        "says the",
        "S-Plus manual, and",
        "investigated.",
        "",
    ]


def test_pypdf_keeps_the_hyphen_and_the_line(pypdf_text: None) -> None:
    """Without PDFium's mark a line-end hyphen may be a dash or a compound's: kept."""
    document = parse_pdf(make_pdf([["a word inves-", "tigated here"]]), "h.pdf")
    assert document.text == "a word inves-\ntigated here\n"


@needs_pdfium
def test_pdfium_failing_page_is_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    pdfium = pdf_module._pdfium()
    original = pdfium.PdfPage.get_textpage

    def get_textpage(self: Any) -> Any:
        textpage = original(self)
        if "Broken" in textpage.get_text_range():
            raise pdfium.PdfiumError("bad font")
        return textpage

    monkeypatch.setattr(pdfium.PdfPage, "get_textpage", get_textpage)
    document = parse_pdf(make_pdf([["ok"], ["Broken"], ["fine"]]), "x.pdf")
    assert document.text == "ok\n\nfine\n"
    assert document.warnings == ["page 2: text extraction failed: bad font"]


@needs_pdfium
def test_pdfium_that_cannot_open_a_file_leaves_it_to_pypdf(monkeypatch: pytest.MonkeyPatch) -> None:
    pdfium = pdf_module._pdfium()

    def refuse(*args: object, **kwargs: object) -> None:
        raise pdfium.PdfiumError("Failed to load document (PDFium: Data format error).")

    monkeypatch.setattr(pdfium, "PdfDocument", refuse)
    document = parse_pdf(make_pdf(GUIDE_PAGES), "guide.pdf")
    assert document.text.split("\n")[8] == "2   INSTALLING  the Tool"  # pypdf's spacing


# -- errors --------------------------------------------------------------------------


def test_encrypted_with_password() -> None:
    with pytest.raises(IngestError, match=r"^encrypted PDF: a password is required"):
        parse_pdf(make_pdf([["secret"]], user_password="pw"), "s.pdf")


def test_encrypted_with_empty_user_password_opens() -> None:
    document = parse_pdf(make_pdf([["open text"]], user_password=""), "s.pdf")
    assert document.text == "open text\n"


def test_encryption_needing_missing_dependency(
    monkeypatch: pytest.MonkeyPatch, pypdf_text: None
) -> None:
    """Without PDFium, pypdf needs `cryptography` for AES: the file's error says so."""

    def decrypt(self: object, password: str) -> None:
        raise DependencyError("cryptography>=3.1 is required for AES algorithm")

    monkeypatch.setattr(pdf_module.PdfReader, "decrypt", decrypt)
    with pytest.raises(IngestError, match=r"^encrypted PDF: cryptography>=3.1 is required"):
        parse_pdf(make_pdf([["x"]], user_password=""), "s.pdf")


@needs_pdfium
def test_pdfium_opens_what_pypdf_needs_a_dependency_for(monkeypatch: pytest.MonkeyPatch) -> None:
    def decrypt(self: object, password: str) -> None:
        raise DependencyError("cryptography>=3.1 is required for AES algorithm")

    monkeypatch.setattr(pdf_module.PdfReader, "decrypt", decrypt)
    assert parse_pdf(make_pdf([["x"]], user_password=""), "s.pdf").text == "x\n"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"hello, not a pdf", id="not-pdf"),
        pytest.param(make_pdf(GUIDE_PAGES)[:400], id="truncated"),
    ],
)
def test_corrupt(data: bytes) -> None:
    with pytest.raises(IngestError, match=r"^corrupt PDF: ."):
        parse_pdf(data, "bad.pdf")


def test_one_failing_page_is_a_warning(monkeypatch: pytest.MonkeyPatch, pypdf_text: None) -> None:
    original = PageObject.extract_text

    def extract_text(self: PageObject, *args: object, **kwargs: object) -> str:
        if "Broken" in original(self):
            raise ValueError("bad font")
        return original(self)

    monkeypatch.setattr(PageObject, "extract_text", extract_text)
    document = parse_pdf(make_pdf([["ok"], ["Broken"], ["fine"]]), "x.pdf")
    assert document.text == "ok\n\nfine\n"
    assert document.page_lines == [1, 2, 3]
    assert document.warnings == ["page 2: text extraction failed: bad font"]


def test_entities_from_outline_headings() -> None:
    pages = [
        ["Reference"],
        ["GET /api/users", "Lists users."],
        ["fs.readFile(path[, options])", "Reads."],
    ]
    outline = [(0, "GET /api/users", 1), (0, "fs.readFile(path[, options])", 2)]
    document = parse_pdf(make_pdf(pages, outline), "api.pdf")
    assert [(e.entity_type, e.name, e.line, e.end_line) for e in document.entities] == [
        ("API", "GET /api/users", 2, 3),
        ("API", "fs.readFile", 4, 5),
    ]


# -- printed contents pages and printed chapter numbers (issue 10 item 4) --------------------

BOOK_PAGES = [
    ["The Lumen Book", "Version 3"],  # page 1: title page, lines 1-2
    [  # page 2: the printed contents, lines 3-11
        "i",
        "Table of Contents",
        "Preface . . . . . . . . . . . . . . . . . . . . 1",
        "1 Storage engine . . . . . . . . . . . . . . . 2",
        "1.1 Write-ahead log ............................ 2",
        "1.2 Compaction of segments ..................... 3",
        "2 Replication and failover . . . . . . . . . . 4",
        "2.1 Leader election .......................... 4",
        "Index . . . . . . . . . . . . . . . . . . . . . 5",
    ],
    ["Preface", "This book is about Lumen."],  # page 3: lines 12-13
    [  # page 4: lines 14-19
        "1 Storage engine",
        "Lumen keeps its data in segments.",
        "1.1 Write-ahead log",
        "Every write goes to the log first.",
        "1.2 Compaction of segments",
        "Compaction merges small segments into larger ones in the background.",
    ],
    [  # page 5: lines 20-23
        "2 Replication and failover",
        "Followers copy the leader's log.",
        "2.1 Leader election",
        "A new leader is elected when the old one stops answering.",
    ],
    ["Index", "compaction, 3", "log, 2"],  # page 6: lines 24-26
]
# The outline as pdfTeX writes it: chapters carry their numbers, sections do not.
BOOK_OUTLINE = [
    (0, "Preface", 2),
    (0, "1 Storage engine", 3),
    (1, "Write-ahead log", 3),
    (1, "Compaction of segments", 3),
    (0, "2 Replication and failover", 4),
    (1, "Leader election", 4),
    (0, "Index", 5),
]


@pytest.mark.parametrize(
    "pages, expected",
    [
        pytest.param(BOOK_PAGES, {1}, id="leaders-under-a-title"),
        pytest.param(
            [["Contents", "1 GNU/Linux tutorials 1", "1.1 Console basics 1", "2 Packages 37"]],
            {0},
            id="titled-rows-without-leaders",
        ),
        pytest.param(
            [
                ["iv", "Contents", "1.1", "Console basics", ". . . . . . . . . . 1", "1.2", "x"],
                ["v", "1.3", ". . . . . . . . 17", "1.3.1", ". . . . . . . 18", "2", "Setup"],
            ],
            {0, 1},
            id="pdftotext-rows-in-pieces-and-a-continuation-page",
        ),
        pytest.param(
            [["1 Introduction", "Text here.", "See page 3.", "Setup....... is a word"]],
            set(),
            id="prose-is-not-contents",
        ),
        pytest.param(
            [["Our figures", "Revenue 12", "Costs 9", "Profit 3", "That is all there is to it."]],
            set(),
            id="numbers-at-line-ends-without-leaders-or-title",
        ),
        pytest.param(
            [
                [
                    "目录",
                    "第一章 安装 . . . . . . 1",
                    "第二章 配置 . . . . . . 5",
                    "第三章 使用 . . . 9",
                ]
            ],
            {0},
            id="chinese-title",
        ),
    ],
)
def test_contents_pages(pages: list[list[str]], expected: set[int]) -> None:
    """On page lines as the parser lays them out (the generated PDF's Helvetica cannot
    draw CJK, so the detector is given the lines; the PDF path is tested below)."""
    lines = [line for page in pages for line in page]
    starts = [1 + sum(len(p) for p in pages[:i]) for i in range(len(pages))]
    assert pdf_module.contents_pages(lines, starts) == expected
    if pages is BOOK_PAGES:
        document = parse_pdf(make_pdf(pages), "x.pdf")
        assert document.text.split("\n")[:-1] == lines and document.page_lines == starts


def test_leading_contents_pages_are_front_matter() -> None:
    document = parse_pdf(make_pdf(BOOK_PAGES, BOOK_OUTLINE), "book.pdf")
    lines = document.text.split("\n")
    assert document.body_start_line == 12  # the Preface: title and contents pages are front matter
    assert lines[document.body_start_line - 1] == "Preface"
    # the index at the back is not a printed table of contents opening the document
    without_outline = parse_pdf(make_pdf(BOOK_PAGES), "book.pdf")
    assert without_outline.body_start_line == 12
    # numbered lines of the contents page are not headings when there is no outline
    assert [(h.title, h.line) for h in without_outline.headings] == [
        ("1 Storage engine", 14),
        ("1.1 Write-ahead log", 16),
        ("1.2 Compaction of segments", 18),
        ("2 Replication and failover", 20),
        ("2.1 Leader election", 22),
    ]


@pytest.mark.parametrize(
    "pages, outline",
    [
        pytest.param(
            [["1 Introduction . . . . 2", "2 Setup . . . . 3", "3 Use . . . . 4"]],
            [],
            id="nothing-after-the-contents",
        ),
        pytest.param(
            [["Contents", "1 Intro . . . . 2", "2 Setup . . . . 3", "3 Use .... 4"], ["Intro"]],
            [(0, "Contents", 0), (0, "Intro", 0)],
            id="a-chapter-starts-on-the-contents-page",
        ),
        pytest.param(
            [["Text"]] * 12 + [["Contents", "1 A . . . . 2", "2 B . . . . 3"], ["More"]],
            [],
            id="contents-deep-inside-the-document",
        ),
    ],
)
def test_contents_that_do_not_open_the_document_stay(
    pages: list[list[str]], outline: Outline
) -> None:
    assert parse_pdf(make_pdf(pages, outline), "x.pdf").body_start_line == 1


def test_outline_entries_take_their_printed_numbers() -> None:
    document = parse_pdf(make_pdf(BOOK_PAGES, BOOK_OUTLINE), "book.pdf")
    assert [(h.title, h.number) for h in document.headings] == [
        ("Preface", None),
        ("1 Storage engine", None),  # its own title carries the number
        ("Write-ahead log", "1.1"),  # read from the page line "1.1 Write-ahead log"
        ("Compaction of segments", "1.2"),
        ("2 Replication and failover", None),
        ("Leader election", "2.1"),
        ("Index", None),
    ]


# Shapes of the R manuals (texinfo): the outline drops the printed number, each page opens
# with a running header naming its chapter, and long titles wrap over two or three lines.
MANUAL_PAGES = [
    [
        "Chapter 5: Arrays and matrices 26",  # line 1
        "5 Arrays and matrices",
        "5.1 Arrays",
        "An array can be considered as a multiply subscripted collection.",
        "Arrays can be one-dimensional: such arrays are usually treated as vectors.",
        "5.2 Ordered factors",  # line 6
        "Ordered factors are factors whose levels are ordered.",
    ],
    [
        "Chapter 4: Ordered and unordered factors 18",  # line 8
        "This page talks about ordered factors in passing.",
        "4.3 Ordered factors",  # line 10
        "The levels of ordered factors are sorted.",
        "7.18 Why does the output from anova() depend on the",  # line 12
        "order of factors in the model? And why does it",
        "change?",
        "Because the sums of squares are sequential.",
    ],
    [
        "41",  # line 16: a footnote's number
        "Appendix A Essential and useful other programs",
        "under a Unix-alike",
        "This appendix gives details of programs you will need.",
    ],
]


@pytest.mark.parametrize(
    "outline, expected",
    [
        pytest.param(
            [(0, "Arrays and matrices", 0), (1, "Arrays", 0)],
            [("Arrays and matrices", 2), ("Arrays", 3)],
            id="a-numbered-line-beats-a-body-line-starting-with-the-title",
        ),
        pytest.param(
            [(0, "Ordered factors", 1)],
            [("Ordered factors", 10)],
            id="a-numbered-line-beats-a-running-header-containing-the-title",
        ),
        pytest.param(
            [
                (0, "Ordered factors", 1),
                (
                    0,
                    "Why does the output from anova() depend on the order of factors in the "
                    "model? And why does it change?",
                    1,
                ),
            ],
            [
                ("Ordered factors", 10),
                (
                    "Why does the output from anova() depend on the order of factors in the "
                    "model? And why does it change?",
                    12,
                ),
            ],
            id="a-numbered-title-wrapped-over-three-lines",
        ),
        pytest.param(
            [(0, "A Essential and useful other programs under a Unix-alike", 2)],
            [("A Essential and useful other programs under a Unix-alike", 17)],
            id="an-appendix-title-wrapped-after-its-word",
        ),
    ],
)
def test_outline_titles_without_their_printed_numbers(
    outline: Outline, expected: list[tuple[str, int]]
) -> None:
    document = parse_pdf(make_pdf(MANUAL_PAGES, outline), "manual.pdf")
    assert [(h.title, h.line) for h in document.headings] == expected


RUNNING_PAGES = [
    ["A Guide to Things", "i"],  # front matter numbered in roman numbers
    ["Contents", "1 Setup . . . . 1", "2 Use . . . . 2", "ii"],
    ["1 Setup", "Install it.", "Then run it.", "1"],  # a chapter opening: the number alone
    ["Chapter 1: Setup 2", "More about setup.", "2 Use", "x = 1024"],
    ["3", "Use it.", "Page three ends here."],
    ["Chapter 2: Use 4", "Guide 4 / 4"],  # a header and a footer: the page is empty
]


def test_running_headers_and_footers_are_dropped() -> None:
    """A page's first or last line printing the page's number, when the numbers follow the
    pages, is layout: dropped from the text. Lines with other numbers stay."""
    document = parse_pdf(make_pdf(RUNNING_PAGES, [(0, "Setup", 2), (0, "Use", 3)]), "guide.pdf")
    lines = document.text.split("\n")
    pages = [
        lines[start - 1 : end - 1]
        for start, end in zip(
            document.page_lines, [*document.page_lines[1:], len(lines)], strict=True
        )
    ]
    assert pages == [
        ["A Guide to Things"],
        ["Contents", "1 Setup . . . . 1", "2 Use . . . . 2"],
        ["1 Setup", "Install it.", "Then run it."],
        ["More about setup.", "2 Use", "x = 1024"],
        ["Use it.", "Page three ends here."],
        [""],
    ]
    assert [(h.title, lines[h.line - 1]) for h in document.headings] == [
        ("Setup", "1 Setup"),
        ("Use", "2 Use"),
    ]


@pytest.mark.parametrize(
    "pages",
    [
        pytest.param([["Intro", "We have 2"], ["Text", "and 3"]], id="too-few-pages"),
        pytest.param(
            [["Results 10", "a"], ["Results 30", "b"], ["Results 20", "c"], ["Results 5", "d"]],
            id="numbers-that-do-not-follow-the-pages",
        ),
    ],
)
def test_edge_lines_with_numbers_that_are_no_page_numbers_stay(pages: list[list[str]]) -> None:
    document = parse_pdf(make_pdf(pages), "x.pdf")
    assert document.text.split("\n")[:-1] == [line for page in pages for line in page]


def test_book_pdf_end_to_end(tmp_path: Path) -> None:
    """Through the real CLI: chapter("1.2") is the printed 1.2, the Preface has no number,
    a search for a section's words finds the section, never the contents page, and the
    contents page can still be read with get."""
    (tmp_path / "book.pdf").write_bytes(make_pdf(BOOK_PAGES, BOOK_OUTLINE))
    db = tmp_path / "book.db"

    def cli(*args: str) -> Any:
        done = subprocess.run(
            [sys.executable, "-m", "docql_sqlite", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if args[0] != "get" else done.stdout

    cli("index", str(db), "book.pdf")
    toc = cli("query", str(db), "$.toc[*]")
    assert [(s["number"], s["title"]) for s in toc] == [
        ("", "Preface"),
        ("1", "1 Storage engine"),
        ("1.1", "Write-ahead log"),
        ("1.2", "Compaction of segments"),
        ("2", "2 Replication and failover"),
        ("2.1", "Leader election"),
        ("", "Index"),
    ]
    chapter = cli("query", str(db), '$.content.chapter("1.2")')
    assert [(c["title"], c["page"]) for c in chapter] == [("Compaction of segments", 4)]
    hits = cli("search", str(db), "compaction of segments", "--mode", "bm25")
    assert hits and all(h["page"] != 2 for h in hits)
    assert hits[0]["section"] == "Compaction of segments"
    assert "Table of Contents" in cli("get", str(db), "book.pdf:page 2", "--text")


# -- decompression bombs -------------------------------------------------------------


@pytest.mark.parametrize("extractor", ["pypdf", pytest.param("PDFium", marks=needs_pdfium)])
def test_a_stream_that_inflates_past_the_limit_fails_the_file_before_any_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extractor: str
) -> None:
    """A one-page PDF whose content stream inflates to 8 MB against a 4 MB limit is
    refused with its reason (PDFium would hold the stream whole, and aborts when that
    fails); one that inflates to 2 MB is read; a long stream that is not zlib is no bomb."""
    from hostile.make import _zip_bomb_pdf

    if extractor == "pypdf":
        monkeypatch.setattr(pdf_module, "_pdfium", lambda: None)
    monkeypatch.setattr(pdf_module, "INFLATE_LIMIT", 4 << 20)
    bomb, fine = tmp_path / "bomb.pdf", tmp_path / "fine.pdf"
    _zip_bomb_pdf(bomb, 8 << 20)
    _zip_bomb_pdf(fine, 2 << 20)
    with pytest.raises(IngestError, match=r"^PDF decompression bomb: a stream of [\d,]+ bytes"):
        parse_pdf(bomb.read_bytes(), "bomb.pdf")
    assert parse_pdf(fine.read_bytes(), "fine.pdf").text.startswith("bomb")
    noise = bytes(range(256)) * 40_000  # 10 MB that zlib does not read
    assert pdf_module.inflation_bomb(b"1 0 obj\n<<>>\nstream\n" + noise + b"\nendstream") is None
    assert pdf_module.inflation_bomb(bomb.read_bytes()) is not None
