"""Word (.docx) → `Document`, with python-docx.

This module owns reading the body of a .docx in order: one line per paragraph (a
manual line break inside a paragraph starts a new line; runs of empty paragraphs
collapse to one blank line), tables rendered one row per line as `cell | cell` and
kept as `Table`s, headings from paragraph styles, and `Term`s from paragraphs that
open with bold text and a colon or dash.

Headings: a paragraph is a heading when its style (or a style it is based on) is
"Heading 1".."Heading 9" (levels above 6 become 6), or when it carries an outline
level. The "Title" style is *not* a heading: it becomes `Document.title`, so the
author's "Heading 1" stays level 1 and numbers as 1, 2, 3 rather than 2, 3, 4.
Word's generated table of contents (a content control) is skipped: it repeats the
headings. Headers, footers, footnotes, comments and text boxes are not read.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator

import docx
from docx.oxml.ns import qn
from docx.table import Table as DocxTable
from docx.text.paragraph import Paragraph
from docx.text.run import Run

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest.entities import (
    extract_entities,
    merge_entities,
    split_bold_term,
    term_entity,
)
from docql_sqlite.model import Document, Entity, Heading, Source, Table

_HEADING_STYLE = re.compile(r"^heading\s*(?P<level>[1-9])$", re.I)


# python-docx inflates every part of the package into memory. Images and media do not
# compress, so a real document expands to little more than its file size (itself capped
# by --max-bytes, 50 MB by default); text compresses ~10x. Beyond this, it is a zip bomb.
MAX_EXPANDED_BYTES = 256 * 1024 * 1024


def parse(source: Source) -> Document:
    """The DOCX parser (`formats.PARSERS`): the bytes go to `parse_docx`."""
    return parse_docx(source.data, source.path)


def parse_docx(data: bytes, path: str) -> Document:
    """Parse .docx bytes. Raises `IngestError("corrupt DOCX: ...")` for unreadable files."""
    _check_expanded_size(data)
    try:
        word = docx.Document(io.BytesIO(data))
        blocks = list(_blocks(word))
    except (
        Exception
    ) as exc:  # BadZipFile, KeyError (missing part), ValueError (not Word), XML errors
        raise IngestError(f"corrupt DOCX: {exc or type(exc).__name__}") from exc

    lines: list[str] = []
    headings: list[Heading] = []
    tables: list[Table] = []
    terms: list[Entity] = []
    title_paragraph: str | None = None
    for block in blocks:
        if isinstance(block, DocxTable):
            table = _table(block, len(lines) + 1)
            if table:
                tables.append(table)
                lines += [" | ".join(row) for row in [table.headers, *table.rows]]
            continue
        text = block.text.replace("\r", "\n").replace("\x0b", "\n")
        parts = [part.rstrip() for part in text.split("\n")]
        if not any(parts):
            if lines and lines[-1]:
                lines.append("")  # one blank line however many empty paragraphs
            continue
        start = len(lines) + 1
        lines += parts
        style = _style_name(block)
        level = _heading_level(block)
        if style.casefold() == "title":
            title_paragraph = title_paragraph or " ".join(p for p in parts if p)
        elif level:
            headings.append(
                Heading(min(level, 6), re.sub(r"\s+", " ", " ".join(parts)).strip(), start)
            )
        else:
            term = _bold_term(block, start, len(lines))
            if term:
                terms.append(term)
    while lines and not lines[-1]:
        lines.pop()

    document = Document(
        format="docx",
        text="\n".join(lines) + "\n" if lines else "",
        headings=headings,
        tables=tables,
        keep_together=[(t.line, t.end_line) for t in tables],
    )
    document.title = (
        _core_title(word)
        or title_paragraph
        or (headings[0].title if headings else None)
        or path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    )
    document.entities = merge_entities(extract_entities(document), terms)
    return document


def _check_expanded_size(data: bytes) -> None:
    """Refuse a package whose parts would inflate past MAX_EXPANDED_BYTES, before inflating
    them (the sizes are in the ZIP directory; a lying directory fails the CRC check)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            expanded = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # python-docx reports what is wrong with it
    if expanded > MAX_EXPANDED_BYTES:
        raise IngestError(
            f"DOCX expands to {expanded:,} bytes (the limit is {MAX_EXPANDED_BYTES:,}); "
            f"not indexed (a zip bomb?)"
        )


def _blocks(word: docx.document.Document) -> Iterator[Paragraph | DocxTable]:
    """Body paragraphs and tables in order, looking inside content controls."""
    yield from _children(word.element.body, word)


def _children(parent: object, word: docx.document.Document) -> Iterator[Paragraph | DocxTable]:
    for child in parent.iterchildren():  # type: ignore[attr-defined]
        if child.tag == qn("w:p"):
            yield Paragraph(child, word)
        elif child.tag == qn("w:tbl"):
            yield DocxTable(child, word)
        elif child.tag == qn("w:sdt"):
            gallery = child.find(f".//{qn('w:docPartGallery')}")
            if gallery is not None and "Table of Contents" in (gallery.get(qn("w:val")) or ""):
                continue
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _children(content, word)


def _style_name(paragraph: Paragraph) -> str:
    try:
        return (paragraph.style.name or "") if paragraph.style is not None else ""
    except Exception:  # a dangling style id
        return ""


def _heading_level(paragraph: Paragraph) -> int | None:
    """1-9 from "Heading N" (also via base styles) or an explicit outline level."""
    level = _outline_level(paragraph._p.pPr)
    if level:
        return level
    try:
        style = paragraph.style
    except Exception:
        return None
    seen = 0
    while style is not None and seen < 10:  # base-style chains can loop in broken files
        match = _HEADING_STYLE.match((style.name or "").strip())
        if match:
            return int(match["level"])
        level = _outline_level(style.element.pPr)
        if level:
            return level
        style = style.base_style
        seen += 1
    return None


def _outline_level(ppr: object) -> int | None:
    if ppr is None:
        return None
    node = ppr.find(qn("w:outlineLvl"))  # type: ignore[attr-defined]
    value = node.get(qn("w:val")) if node is not None else None
    # 0-8 are heading levels; 9 means body text.
    return int(value) + 1 if value and value.isdigit() and int(value) < 9 else None


def _table(table: DocxTable, line: int) -> Table | None:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if cell._tc is previous:
                continue  # a horizontally merged cell is repeated once per grid column
            previous = cell._tc
            cells.append(re.sub(r"\s+", " ", cell.text).strip())
        if any(cells):
            rows.append(cells)
    if not rows:
        return None
    return Table(rows[0], rows[1:], line, line + len(rows) - 1)


def _bold_term(paragraph: Paragraph, line: int, end_line: int) -> Entity | None:
    """A term for a paragraph opening with bold text then ":" or a dash."""
    lead: list[str] = []
    for item in paragraph.iter_inner_content():
        if not isinstance(item, Run):
            break
        if not item.text.strip():
            if lead:
                lead.append(item.text)
            continue
        if not _is_bold(item):
            break
        lead.append(item.text)
    term = "".join(lead).strip()
    full = re.sub(r"\s+", " ", paragraph.text).strip()
    found = split_bold_term(term, full)
    return term_entity(found[0], found[1], line, end_line) if found else None


def _is_bold(run: Run) -> bool:
    if run.bold:
        return True
    try:
        return bool(run.style is not None and run.style.font.bold)  # character style "Strong"
    except Exception:
        return False


def _core_title(word: docx.document.Document) -> str | None:
    try:
        title = word.core_properties.title
    except Exception:
        return None
    title = re.sub(r"\s+", " ", title or "").strip()
    return title or None
