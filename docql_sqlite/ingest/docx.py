"""Word (.docx) → `Document`, with python-docx.

This module owns reading the body of a .docx in order: one line per paragraph (a
manual line break inside a paragraph starts a new line; runs of empty paragraphs
collapse to one blank line; a list item shows its bullet or number, `_Lists`), tables
rendered one row per line as `cell | cell` and kept as `Table`s, paragraphs in a code
style ("Source Code", "HTML Preformatted", …) kept as `CodeBlock`s (language unknown),
headings from paragraph styles, and `Term`s from paragraphs that open with bold text
and a colon or dash.

Headings: a paragraph is a heading when its style (or a style it is based on) is
"Heading 1".."Heading 9" (levels above 6 become 6), or when it carries an outline
level. The "Title" style is *not* a heading: it becomes `Document.title`, so the
author's "Heading 1" stays level 1 and numbers as 1, 2, 3 rather than 2, 3, 4.
Word's generated table of contents (a content control) is skipped: it repeats the
headings. A paragraph's text includes tracked insertions, inline content controls and
fields, not tracked deletions (`paragraph_text`). Headers, footers, footnotes, comments
and text boxes are not read.
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
from docql_sqlite.model import CodeBlock, Document, Entity, Heading, Source, Table

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
    codeblocks: list[CodeBlock] = []
    single_line_code = False  # the last code paragraph was one line
    title_paragraph: str | None = None
    lists = _Lists(word)
    for block in blocks:
        if isinstance(block, DocxTable):
            table = _table(block, len(lines) + 1)
            if table:
                tables.append(table)
                lines += [" | ".join(row) for row in [table.headers, *table.rows]]
            continue
        text = paragraph_text(block).replace("\r", "\n").replace("\x0b", "\n")
        parts = [part.rstrip() for part in text.split("\n")]
        if not any(parts):
            if lines and lines[-1]:
                lines.append("")  # one blank line however many empty paragraphs
            continue
        start = len(lines) + 1
        style = _style_name(block)
        level = _heading_level(block)
        marker = None if level else lists.marker(block)
        if marker:
            # a line break inside an item continues under its text, as in Markdown
            parts = [marker + parts[0], *(" " * len(marker) + p if p else p for p in parts[1:])]
        lines += parts
        if not level and _is_code(block):
            previous = codeblocks[-1] if codeblocks else None
            if (
                previous is not None
                and previous.end_line == start - 1
                and len(parts) == 1
                and single_line_code
                and style != "Source Code"
            ):
                # the next line of the same listing (Word: one paragraph a line; pandoc
                # writes each block as one "Source Code" paragraph: two blocks in a row,
                # even of one line each, stay two)
                codeblocks[-1] = CodeBlock(
                    None, previous.code + "\n" + "\n".join(parts), previous.line, len(lines)
                )
            else:
                codeblocks.append(CodeBlock(None, "\n".join(parts), start, len(lines)))
            single_line_code = len(parts) == 1
            continue
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
        codeblocks=codeblocks,
        keep_together=sorted(
            [(t.line, t.end_line) for t in tables] + [(c.line, c.end_line) for c in codeblocks]
        ),
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


# A list's number formats as text; any other format (ordinal words, CJK counting…) is
# written as a decimal number, and a bullet (whatever its glyph: often a private-use
# character of the Symbol font) as "-".
_ROMAN_STEPS = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip
_LIST_STYLE_LEVEL = re.compile(r"^list(?: bullet| number| continue)?\s+(?P<level>[2-9])$", re.I)
# Deeper than any real list; bounds the indentation of a hostile ilvl.
MAX_LIST_LEVEL = 8


class _Lists:
    """List markers of numbered and bulleted paragraphs, as Word shows them: "- " for a
    bullet, "1. ", "a) ", "2.1. " (the level's text with its counters) for a number,
    indented two spaces a level. Counters run per list (`numId`) and a level restarts
    after a shallower item, as in Word."""

    def __init__(self, word: docx.document.Document) -> None:
        self.levels: dict[str, dict[int, tuple[str, int, str]]] = {}  # numId → ilvl → fmt
        self.counters: dict[str, list[int]] = {}
        try:
            numbering = word.part.numbering_part.element
        except Exception:  # no numbering part: no lists
            return
        abstract: dict[str, dict[int, tuple[str, int, str]]] = {}
        for node in numbering.findall(qn("w:abstractNum")):
            levels: dict[int, tuple[str, int, str]] = {}
            for lvl in node.findall(qn("w:lvl")):
                ilvl = _int(lvl.get(qn("w:ilvl")))
                if ilvl is None:
                    continue
                levels[ilvl] = (
                    _val(lvl, "w:numFmt") or "decimal",
                    _int(_val(lvl, "w:start")) or 1,
                    _val(lvl, "w:lvlText") or "",
                )
            abstract[node.get(qn("w:abstractNumId")) or ""] = levels
        for node in numbering.findall(qn("w:num")):
            self.levels[node.get(qn("w:numId")) or ""] = abstract.get(
                _val(node, "w:abstractNumId") or "", {}
            )

    def marker(self, paragraph: Paragraph) -> str | None:
        found = _num_pr(paragraph)
        if found is None:
            return None
        num_id, ilvl = found
        levels = self.levels.get(num_id)
        if not levels or num_id == "0":
            return None  # numId 0 turns numbering off
        ilvl = min(ilvl, MAX_LIST_LEVEL)
        fmt, start, text = levels.get(ilvl, ("bullet", 1, ""))
        indent = ilvl
        style = _LIST_STYLE_LEVEL.match(_style_name(paragraph))
        if ilvl == 0 and style:  # "List Bullet 2": a single-level list indented by style
            indent = int(style["level"]) - 1
        counters = self.counters.setdefault(num_id, [])
        while len(counters) <= ilvl:
            counters.append(levels.get(len(counters), ("", 1, ""))[1] - 1)
        counters[ilvl] += 1
        for deeper in range(ilvl + 1, len(counters)):  # restart the deeper levels
            counters[deeper] = levels.get(deeper, ("", 1, ""))[1] - 1
        if fmt in ("bullet", "none"):
            return "  " * indent + "- "
        label = (
            re.sub(
                r"%([1-9])",
                lambda m: _format_number(
                    counters[int(m[1]) - 1] if int(m[1]) - 1 < len(counters) else 1,
                    levels.get(int(m[1]) - 1, (fmt, 1, ""))[0],
                ),
                text,
            ).strip()
            or _format_number(counters[ilvl], fmt) + "."
        )
        return "  " * indent + label + " "


def _num_pr(paragraph: Paragraph) -> tuple[str, int] | None:
    """(numId, ilvl) of the paragraph's own numbering, or of its style's."""
    ppr = paragraph._p.pPr
    num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
    if num_pr is None:
        try:
            style = paragraph.style
            style_ppr = style.element.pPr if style is not None else None
        except Exception:
            style_ppr = None
        num_pr = style_ppr.find(qn("w:numPr")) if style_ppr is not None else None
    if num_pr is None:
        return None
    num_id = _val(num_pr, "w:numId")
    if num_id is None:
        return None
    return num_id, _int(_val(num_pr, "w:ilvl")) or 0


def _val(node: object, tag: str) -> str | None:
    child = node.find(qn(tag))  # type: ignore[attr-defined]
    return child.get(qn("w:val")) if child is not None else None


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() and len(value) < 6 else None


def _format_number(number: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter") and number > 0:
        letters = ""
        while number > 0:
            number, rest = divmod(number - 1, 26)
            letters = chr(ord("a") + rest) + letters
        return letters.upper() if fmt == "upperLetter" else letters
    if fmt in ("lowerRoman", "upperRoman") and 0 < number < 4000:
        roman = ""
        for value, digits in _ROMAN_STEPS:
            while number >= value:
                roman += digits
                number -= value
        return roman.upper() if fmt == "upperRoman" else roman
    return str(number)


# A paragraph's text is that of its runs, wherever they sit: inside a hyperlink, a tracked
# insertion (`w:ins`), an inline content control (`w:sdt`), a simple field (`w:fldSimple`:
# "Table 3" of a cross-reference), a smart tag or custom XML. python-docx's
# `Paragraph.text` reads only the runs and hyperlinks directly under the paragraph, so a
# reviewed document lost every inserted word. Not read: tracked deletions and moves away
# (`w:del`, `w:moveFrom`), text boxes (`w:txbxContent`, a drawing's own paragraphs), a
# ruby's phonetic guide (`w:rt`).
_RUNS = (
    "descendant::w:r[not(ancestor::w:del) and not(ancestor::w:moveFrom)"
    " and not(ancestor::w:txbxContent) and not(ancestor::w:rt)]"
)


def paragraph_text(paragraph: Paragraph) -> str:
    """The text a reader sees in the paragraph: its runs' text, in document order."""
    return "".join(run.text for run in paragraph._p.xpath(_RUNS))


# Paragraph styles of program text: pandoc's "Source Code", Word's "HTML Preformatted",
# "Plain Text" and "Macro Text", and the "Code" styles people make (compared casefolded,
# also through the styles a style is based on).
_CODE_STYLES = frozenset(
    {"source code", "code", "code block", "html preformatted", "plain text", "macro text"}
)


def _is_code(paragraph: Paragraph) -> bool:
    """Whether the paragraph's style (or a style it is based on) is one of _CODE_STYLES."""
    try:
        style = paragraph.style
    except Exception:
        return False
    seen = 0
    while style is not None and seen < 10:  # base-style chains can loop in broken files
        if (style.name or "").strip().casefold() in _CODE_STYLES:
            return True
        style = style.base_style
        seen += 1
    return False


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
            text = "\n".join(
                paragraph_text(Paragraph(p, cell)) for p in cell._tc.iterchildren(qn("w:p"))
            )
            cells.append(re.sub(r"\s+", " ", text).strip())
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
    full = re.sub(r"\s+", " ", paragraph_text(paragraph)).strip()
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
