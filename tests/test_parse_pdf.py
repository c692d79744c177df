"""parse_pdf: page layout, outline TOC, numbered-heading fallback, glued words, errors.

Every PDF is generated here with pure pypdf (Helvetica, one text line per entry), so
the expected lines are known exactly: pypdf returns one line per `T*` line and skips
empty strings.
"""

from __future__ import annotations

import io
import subprocess
from collections.abc import Sequence

import pytest
from pypdf import PageObject, PdfWriter
from pypdf.errors import DependencyError
from pypdf.generic import DecodedStreamObject, DictionaryObject, IndirectObject, NameObject

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest import pdf as pdf_module
from docql_sqlite.ingest.pdf import parse_pdf

N = NameObject
Outline = Sequence[tuple[int, str, int]]  # (depth, title, 0-based page)


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


def test_page_layout_and_text() -> None:
    document = parse_pdf(make_pdf(GUIDE_PAGES), "guide.pdf")
    assert document.format == "pdf"
    assert document.page_lines == [1, 3, 7, 8, 13]
    lines = document.text.split("\n")
    assert lines[:3] == ["User Guide", "Version 2", "1 Introduction"]
    assert lines[6] == ""  # the empty page occupies one line
    assert lines[8] == "2   INSTALLING  the Tool"  # pypdf keeps the spacing as drawn
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


def test_glued_pages_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_module.shutil, "which", lambda name: None)
    pages = [[NORMAL_LINE] * 5, [GLUED_LINE] * 5, [NORMAL_LINE] * 5, [GLUED_LINE] * 5]
    document = parse_pdf(make_pdf(pages), "glued.pdf")
    assert document.warnings == [
        "glued words: pypdf dropped spaces on 2 of 4 pages (2, 4); "
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


def test_glued_pages_use_pdftotext_when_available(monkeypatch: pytest.MonkeyPatch) -> None:
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


def test_pdftotext_failure_falls_back_to_pypdf(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        raise subprocess.TimeoutExpired(args, 1)

    monkeypatch.setattr(pdf_module.shutil, "which", lambda name: "/usr/bin/pdftotext")
    monkeypatch.setattr(pdf_module.subprocess, "run", failing_run)
    document = parse_pdf(make_pdf([[GLUED_LINE] * 5]), "glued.pdf")
    assert document.text.startswith(GLUED_LINE)
    assert "install poppler-utils" in document.warnings[0]


@pytest.mark.skipif(not pdf_module.shutil.which("pdftotext"), reason="poppler-utils not installed")
def test_real_pdftotext_keeps_page_count() -> None:
    pages = [[GLUED_LINE] * 5, [], ["last page"]]
    document = parse_pdf(make_pdf(pages), "glued.pdf")
    assert document.page_count == 3
    assert "extracted with pdftotext" in document.warnings[0]


# -- errors --------------------------------------------------------------------------


def test_encrypted_with_password() -> None:
    with pytest.raises(IngestError, match=r"^encrypted PDF: a password is required"):
        parse_pdf(make_pdf([["secret"]], user_password="pw"), "s.pdf")


def test_encrypted_with_empty_user_password_opens() -> None:
    document = parse_pdf(make_pdf([["open text"]], user_password=""), "s.pdf")
    assert document.text == "open text\n"


def test_encryption_needing_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    def decrypt(self: object, password: str) -> None:
        raise DependencyError("cryptography>=3.1 is required for AES algorithm")

    monkeypatch.setattr(pdf_module.PdfReader, "decrypt", decrypt)
    with pytest.raises(IngestError, match=r"^encrypted PDF: cryptography>=3.1 is required"):
        parse_pdf(make_pdf([["x"]], user_password=""), "s.pdf")


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


def test_one_failing_page_is_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
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
