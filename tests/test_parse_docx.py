"""parse_docx: one line per paragraph, headings from styles, tables, terms, errors."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls, qn

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest.docx import parse_docx


def save(word: docx.document.Document) -> bytes:
    buffer = io.BytesIO()
    word.save(buffer)
    return buffer.getvalue()


def bold_lead(word: docx.document.Document, bold: str, rest: str) -> None:
    paragraph = word.add_paragraph()
    paragraph.add_run(bold).bold = True
    paragraph.add_run(rest)


def report() -> docx.document.Document:
    word = docx.Document()
    word.add_paragraph("Annual Report", style="Title")  # 1
    word.add_paragraph("Preamble text.")  # 2
    word.add_heading("Introduction", level=1)  # 3
    word.add_paragraph("")
    word.add_paragraph("")  # 4: empty paragraphs collapse to one blank line
    bold_lead(word, "Shard", ": a piece of an index.")  # 5
    bold_lead(word, "Note:", " careful.")  # 6: admonition, no term
    word.add_heading("Setup", level=2)  # 7
    paragraph = word.add_paragraph("line one")  # 8
    paragraph.add_run().add_break()
    paragraph.add_run("line two")  # 9: a manual break starts a new line
    table = word.add_table(rows=3, cols=2)  # 10-12
    for r, cells in enumerate([["Term", "Definition"], ["Chunk", "a slice"], ["Row", "a\nline"]]):
        for c, value in enumerate(cells):
            table.cell(r, c).text = value
    word.add_heading("Deep", level=7)  # 13: level 7 → 6
    word.add_heading("GET /api/users", level=2)  # 14
    word.add_paragraph("")
    return word


EXPECTED_LINES = [
    "Annual Report",
    "Preamble text.",
    "Introduction",
    "",
    "Shard: a piece of an index.",
    "Note: careful.",
    "Setup",
    "line one",
    "line two",
    "Term | Definition",
    "Chunk | a slice",
    "Row | a line",
    "Deep",
    "GET /api/users",
]


def test_report_text_and_headings() -> None:
    document = parse_docx(save(report()), "reports/annual.docx")
    assert document.format == "docx"
    assert document.text == "\n".join(EXPECTED_LINES) + "\n"
    # "Title" is the document title, not a heading: Heading 1 stays level 1 / number 1.
    assert document.title == "Annual Report"
    assert [(h.level, h.title, h.line) for h in document.headings] == [
        (1, "Introduction", 3),
        (2, "Setup", 7),
        (6, "Deep", 13),
        (2, "GET /api/users", 14),
    ]


def test_report_tables_and_entities() -> None:
    document = parse_docx(save(report()), "annual.docx")
    assert [(t.headers, t.rows, t.line, t.end_line) for t in document.tables] == [
        (["Term", "Definition"], [["Chunk", "a slice"], ["Row", "a line"]], 10, 12),
    ]
    assert document.keep_together == [(10, 12)]
    assert [
        (e.entity_type, e.name, e.line, e.end_line, e.definition) for e in document.entities
    ] == [
        ("Term", "Shard", 5, 5, "a piece of an index."),
        ("Term", "Chunk", 11, 11, "a slice"),
        ("Term", "Row", 12, 12, "a line"),
        ("API", "GET /api/users", 14, 14, None),
    ]


@pytest.mark.parametrize(
    "core_title, title_style, heading, path, expected",
    [
        ("Core Title", "Styled Title", "First", "a.docx", "Core Title"),
        ("", "Styled Title", "First", "a.docx", "Styled Title"),
        ("", None, "First", "a.docx", "First"),
        ("", None, None, "dir/sub/a.docx", "a.docx"),
    ],
)
def test_title(
    core_title: str, title_style: str | None, heading: str | None, path: str, expected: str
) -> None:
    word = docx.Document()
    word.core_properties.title = core_title
    if title_style:
        word.add_paragraph(title_style, style="Title")
    if heading:
        word.add_heading(heading, level=1)
    word.add_paragraph("body")
    assert parse_docx(save(word), path).title == expected


def test_custom_styles_and_outline_levels() -> None:
    word = docx.Document()
    custom = word.styles.add_style("Chapter Heading", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = word.styles["Heading 2"]
    word.add_paragraph("Based on Heading 2", style="Chapter Heading")
    paragraph = word.add_paragraph("Outline level 3")
    paragraph._p.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="2"/>'))
    body_text = word.add_paragraph("Body outline level")
    body_text._p.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="9"/>'))
    word.add_paragraph("Plain", style="Normal")
    word.add_paragraph("   ", style="Heading 1")  # an empty heading is no heading
    document = parse_docx(save(word), "a.docx")
    assert [(h.level, h.title, h.line) for h in document.headings] == [
        (2, "Based on Heading 2", 1),
        (3, "Outline level 3", 2),
    ]


def test_generated_toc_is_skipped_other_content_controls_are_read() -> None:
    word = docx.Document()
    word.add_heading("Introduction", level=1)
    word.add_paragraph("Body.")
    body = word.element.body
    toc = parse_xml(
        f"<w:sdt {nsdecls('w')}><w:sdtPr><w:docPartObj>"
        '<w:docPartGallery w:val="Table of Contents"/>'
        "</w:docPartObj></w:sdtPr><w:sdtContent><w:p><w:r><w:t>Introduction 1</w:t></w:r></w:p>"
        "</w:sdtContent></w:sdt>"
    )
    control = parse_xml(
        f"<w:sdt {nsdecls('w')}><w:sdtPr/><w:sdtContent>"
        "<w:p><w:r><w:t>Inside a control</w:t></w:r></w:p>"
        "</w:sdtContent></w:sdt>"
    )
    body.insert(0, toc)
    body.insert(len(body) - 1, control)  # before the final sectPr
    document = parse_docx(save(word), "a.docx")
    assert document.text == "Introduction\nBody.\nInside a control\n"
    assert [(h.title, h.line) for h in document.headings] == [("Introduction", 1)]


def test_merged_cells_render_once() -> None:
    word = docx.Document()
    table = word.add_table(rows=2, cols=3)
    merged = table.cell(0, 0).merge(table.cell(0, 1))
    merged.text = "Wide"
    table.cell(0, 2).text = "C"
    for c, value in enumerate(["a", "b", "c"]):
        table.cell(1, c).text = value
    document = parse_docx(save(word), "a.docx")
    assert document.text == "Wide | C\na | b | c\n"
    assert [(t.headers, t.rows) for t in document.tables] == [(["Wide", "C"], [["a", "b", "c"]])]


def test_strong_character_style_is_bold() -> None:
    word = docx.Document()
    paragraph = word.add_paragraph()
    paragraph.add_run("Index", style="Strong")
    paragraph.add_run(" — the database file")
    bold_lead(word, "Whole bold paragraph", "")
    bold_lead(word, "Bold", " without a separator")
    document = parse_docx(save(word), "a.docx")
    assert [(e.name, e.line, e.definition) for e in document.entities] == [
        ("Index", 1, "the database file")
    ]


def test_empty_document() -> None:
    document = parse_docx(save(docx.Document()), "empty.docx")
    assert document.text == ""
    assert document.headings == [] and document.tables == []


def zip_bytes(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"plain text, not a zip", id="not-zip"),
        pytest.param(zip_bytes({"a.txt": "x"}), id="zip-without-word-parts"),
        pytest.param(save(docx.Document())[:500], id="truncated"),
    ],
)
def test_corrupt(data: bytes) -> None:
    with pytest.raises(IngestError, match=r"^corrupt DOCX: ."):
        parse_docx(data, "bad.docx")


def test_broken_document_xml() -> None:
    good = zipfile.ZipFile(io.BytesIO(save(docx.Document())))
    files = {name: good.read(name).decode("utf-8", "replace") for name in good.namelist()}
    files["word/document.xml"] = "<w:document><not-closed>"
    with pytest.raises(IngestError, match=r"^corrupt DOCX: "):
        parse_docx(zip_bytes(files), "bad.docx")


def numbered(word: docx.document.Document, text: str, num_id: int, ilvl: int) -> None:
    """A paragraph in list `num_id` at level `ilvl`, as Word and pandoc write them."""
    paragraph = word.add_paragraph(text)
    paragraph._p.get_or_add_pPr().append(
        parse_xml(
            f'<w:numPr {nsdecls("w")}><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num_id}"/></w:numPr>'
        )
    )


def add_list(word: docx.document.Document, levels: list[tuple[str, str]]) -> int:
    """A multi-level list definition (numFmt, lvlText per level); its numId."""
    numbering = word.part.numbering_part.element
    ids = [int(n.get(qn("w:abstractNumId"))) for n in numbering.findall(qn("w:abstractNum"))]
    abstract_id = max(ids) + 1
    num_ids = [int(n.get(qn("w:numId"))) for n in numbering.findall(qn("w:num"))]
    num_id = max(num_ids) + 1
    lvls = "".join(
        f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/>'
        f'<w:lvlText w:val="{text}"/></w:lvl>'
        for i, (fmt, text) in enumerate(levels)
    )
    abstract = parse_xml(
        f'<w:abstractNum {nsdecls("w")} w:abstractNumId="{abstract_id}">{lvls}</w:abstractNum>'
    )
    # abstract definitions come before the w:num elements
    numbering.insert(len(numbering.findall(qn("w:abstractNum"))), abstract)
    numbering.append(
        parse_xml(
            f'<w:num {nsdecls("w")} w:numId="{num_id}">'
            f'<w:abstractNumId w:val="{abstract_id}"/></w:num>'
        )
    )
    return num_id


def test_list_items_show_their_markers() -> None:
    """Bullets and numbers are not in a paragraph's text but in its numbering: the lines
    show them as Word does ("- ", "1. ", "a) ", "1.b.1."), indented by level; a numbered
    heading keeps its title as the heading's text."""
    word = docx.Document()
    word.add_heading("Options", level=1)  # 1
    word.add_paragraph("Bullet item", style="List Bullet")  # 2
    word.add_paragraph("Nested by style", style="List Bullet 2")  # 3
    word.add_paragraph("First step", style="List Number")  # 4
    item = word.add_paragraph("Second step", style="List Number")  # 5
    item.add_run().add_break()
    item.add_run("continued")  # 6
    outline = add_list(
        word,
        [
            ("decimal", "%1."),
            ("lowerLetter", "%2)"),
            ("decimal", "%1.%2.%3."),
            ("bullet", "\uf0b7"),
        ],
    )
    numbered(word, "one", outline, 0)  # 7
    numbered(word, "one a", outline, 1)  # 8
    numbered(word, "one b", outline, 1)  # 9
    numbered(word, "deep", outline, 2)  # 10
    numbered(word, "dot", outline, 3)  # 11
    numbered(word, "two", outline, 0)  # 12
    numbered(word, "two a", outline, 1)  # 13: restarts after a shallower item
    heading = word.add_heading("Numbered heading", level=2)  # 14
    heading._p.get_or_add_pPr().append(
        parse_xml(
            f'<w:numPr {nsdecls("w")}><w:ilvl w:val="0"/><w:numId w:val="{outline}"/></w:numPr>'
        )
    )
    word.add_paragraph("Plain paragraph.")  # 15
    document = parse_docx(save(word), "lists.docx")
    assert document.text.split("\n") == [
        "Options",
        "- Bullet item",
        "  - Nested by style",
        "1. First step",
        "2. Second step",
        "   continued",
        "1. one",
        "  a) one a",
        "  b) one b",
        "    1.b.1. deep",  # each %n in its own level's format, as Word shows it
        "      - dot",
        "2. two",
        "  a) two a",
        "Numbered heading",
        "Plain paragraph.",
        "",
    ]
    assert [(h.title, h.line) for h in document.headings] == [
        ("Options", 1),
        ("Numbered heading", 14),
    ]


def run_xml(text: str, deleted: bool = False) -> str:
    tag = "w:delText" if deleted else "w:t"
    return f'<w:r><{tag} xml:space="preserve">{text}</{tag}></w:r>'


def test_text_inside_insertions_content_controls_and_fields_is_read() -> None:
    """Word writes a reviewed document's inserted words inside `w:ins`, a template's
    filled-in values inside inline content controls, a cross-reference's text inside a
    field: all of it is the paragraph's text. Deleted and moved-away words are not."""
    word = docx.Document()
    word.add_heading("Review", level=1)
    paragraph = word.add_paragraph("The limit is ")
    w = nsdecls("w")
    for xml in [
        f'<w:del {w} w:id="1" w:author="a">{run_xml("10 MB", deleted=True)}</w:del>',
        f'<w:ins {w} w:id="2" w:author="a">{run_xml("50 MB")}</w:ins>',
        f"<w:sdt {w}><w:sdtContent>{run_xml(' per file')}</w:sdtContent></w:sdt>",
        f'<w:fldSimple {w} w:instr="REF t3 \\h">{run_xml(" (Table 3)")}</w:fldSimple>',
        f'<w:smartTag {w} w:uri="u" w:element="e">{run_xml(" since")}</w:smartTag>',
        f'<w:moveFrom {w} w:id="3" w:author="a">{run_xml(" 2019")}</w:moveFrom>',
        f'<w:moveTo {w} w:id="4" w:author="a">{run_xml(" 2020")}</w:moveTo>',
        f'<w:hyperlink {w} w:anchor="x">{run_xml(".")}</w:hyperlink>',
    ]:
        paragraph._p.append(parse_xml(xml))
    table = word.add_table(rows=2, cols=1)
    table.cell(0, 0).text = "Limit"
    table.cell(1, 0).paragraphs[0]._p.append(
        parse_xml(f'<w:ins {w} w:id="5" w:author="a">{run_xml("50 MB")}</w:ins>')
    )
    document = parse_docx(save(word), "review.docx")
    assert document.text.split("\n") == [
        "Review",
        "The limit is 50 MB per file (Table 3) since 2020.",
        "Limit",
        "50 MB",
        "",
    ]
    assert [(t.headers, t.rows) for t in document.tables] == [(["Limit"], [["50 MB"]])]


def test_paragraphs_in_a_code_style_are_code_blocks() -> None:
    """pandoc writes a code block as one "Source Code" paragraph (line breaks inside),
    Word users one "HTML Preformatted" (or a style based on it) paragraph a line."""
    word = docx.Document()
    word.styles.add_style("Source Code", WD_STYLE_TYPE.PARAGRAPH)
    word.styles.add_style("HTML Preformatted", WD_STYLE_TYPE.PARAGRAPH)
    listing = word.styles.add_style("Listing", WD_STYLE_TYPE.PARAGRAPH)
    listing.base_style = word.styles["HTML Preformatted"]
    word.add_heading("Example", level=1)  # 1
    for first, second in [
        ("import fs from 'node:fs';", "  fs.unlinkSync('/tmp/x');"),  # 2-3
        ("const fs = require('node:fs');", "fs.unlinkSync('/tmp/x');"),  # 4-5: a 2nd block
    ]:
        code = word.add_paragraph(first, style="Source Code")
        code.add_run().add_break()
        code.add_run(second)
    word.add_paragraph("import 'a';", style="Source Code")  # 6: blocks of one line each
    word.add_paragraph("require('a');", style="Source Code")  # 7
    word.add_paragraph("Or, line by line:")  # 8
    word.add_paragraph("$ make", style="HTML Preformatted")  # 9
    word.add_paragraph("$ make install", style="Listing")  # 10
    word.add_paragraph("Done.")  # 11
    document = parse_docx(save(word), "code.docx")
    assert [(c.language, c.code, c.line, c.end_line) for c in document.codeblocks] == [
        (None, "import fs from 'node:fs';\n  fs.unlinkSync('/tmp/x');", 2, 3),
        (None, "const fs = require('node:fs');\nfs.unlinkSync('/tmp/x');", 4, 5),
        (None, "import 'a';", 6, 6),
        (None, "require('a');", 7, 7),
        (None, "$ make\n$ make install", 9, 10),
    ]
    assert document.keep_together == [(2, 3), (4, 5), (6, 6), (7, 7), (9, 10)]
    assert document.text.split("\n")[1:3] == [
        "import fs from 'node:fs';",
        "  fs.unlinkSync('/tmp/x');",
    ]
