"""PDF → `Document`: page text, page → line map, and a table of contents.

This module owns everything PDF-specific: opening (encrypted and corrupt files, and
decompression bombs, become `IngestError`), text per page and the outline (PDFium through
pypdfium2; else pypdf, with poppler's pdftotext for a long file's text: docs/design.md
B32), the page layout of `Document.text` (`page_lines`), headings from the outline
(bookmarks) or, failing that, from numbered lines, the printed section numbers of outline
entries, the printed contents pages (front matter, not chunked), and the "glued words"
check for PDFs whose extracted text lost its spaces.
"""

from __future__ import annotations

import bisect
import ctypes
import io
import logging
import re
import shutil
import subprocess
import unicodedata
import zlib
from typing import Any

from pypdf import PasswordType, PdfReader
from pypdf.generic import Destination

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest.entities import extract_entities
from docql_sqlite.ingest.sections import PRINTED_NUMBER as _PRINTED_PREFIX
from docql_sqlite.ingest.sections import printed_number
from docql_sqlite.model import Document, Heading, Source

# pypdf logs recoverable damage ("EOF marker not found", missing fontTools) to stderr; the
# parser reports what matters as warnings or errors of its own, so keep the terminal clean.
logging.getLogger("pypdf").setLevel(logging.ERROR)

# xdvipdfmx PDFs lose inter-word spaces in pypdf: "Nowtrytocompileandrunyourprogram".
# Measured: 9–15% of tokens are ≥ 20 letters on such pages, about 0% elsewhere.
GLUED_TOKEN_LETTERS = 20
GLUED_RATIO = 0.08
_LONG_RUN = re.compile(rf"[A-Za-z\u00c0-\u024f]{{{GLUED_TOKEN_LETTERS},}}")
_HAS_LATIN = re.compile(r"[A-Za-z]")
PDFTOTEXT_TIMEOUT_S = 120
# The page text comes from PDFium (pypdfium2) when it is installed, whatever the length:
# 1.2-2.2 ms of CPU a page on the R manuals and the Debian reference, against pdftotext's
# 2.1-4.0 and pypdf's 20-33, with the text pypdf gives (mean word-sequence similarity
# 0.986-0.9995 per page; docs/benchmarks.md). Without it, a long PDF's text comes from
# pdftotext when that is installed (R's 2,415-page refman.pdf: pypdf 50 s of CPU, near the
# 60 s parse limit), a shorter one's from pypdf.
LARGE_PDF_PAGES = 200
# PDFium marks a word hyphenated across a line end with U+FFFE and joins the lines
# ("about 25 pack\ufffeages supplied"); `join_hyphenated` moves the whole word to the
# second line ("about 25" / "packages supplied"). pypdf and pdftotext keep "-" and the
# line break.
_PDFIUM_HYPHEN = "\ufffe"
# What is stripped around a word when the document's vocabulary is gathered.
_PUNCTUATION = ".,;:!?()[]{}<>\"'“”‘’`*/=|"

# "2.3 Setup" — at most 6 levels, 1–2 digit components, a capital (or CJK) title.
_NUMBERED = re.compile(r"^(?P<number>\d{1,2}(?:\.\d{1,2}){0,5})\.?\s+(?P<title>\S.{0,78})$")
_NUMBERED_ROW = re.compile(r"^\d{1,3}(?:\.\d{1,3})*\.?\s")
_NON_WORD = re.compile(r"[\W_]+")
_WHITESPACE = re.compile(r"\s+")
_SENTENCE_END = tuple(".!?:;。！？：")
# "Chapter 2 ", "2.3 ", "A.1 ", "IV. ": what an outline title may add to the printed one.
_LEADING_NUMBER = re.compile(
    r"^(?:(?i:chapter|part|appendix|section)\s+)?(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)*|[IVXLC]+)\.?\s+"
)

# A printed table of contents (docs/design.md B24): a title such as "Table of Contents",
# and rows that end in a page number, most of them after dot leaders ("Setup ..... 12").
_CONTENTS_TITLE = re.compile(
    r"^(?:table\s+of\s+contents|contents|list\s+of\s+(?:figures|tables|examples)"
    r"|目\s*录|目\s*次|目\s*錄)$",
    re.I,
)
_PAGE_NUMBER = r"(?:\d{1,4}|[ivxlcdm]{1,7})"
_LEADER_ROW = re.compile(rf"(?:\.\s?){{3,}}\s*{_PAGE_NUMBER}$", re.I)
_NUMBER_END = re.compile(rf"\S\s+{_PAGE_NUMBER}$", re.I)
# pdftotext puts a row's number, title and leaders on lines of their own: "1.3.1", "17".
_NUMBER_ONLY = re.compile(rf"^(?:\d{{1,3}}(?:\.\d{{1,3}})*|{_PAGE_NUMBER})$", re.I)
# Share of a page's lines that must be contents rows; how far into the document the
# contents may start (after the title, copyright and preface-like pages).
CONTENTS_ROW_SHARE = 0.5
CONTENTS_START_PAGES = 12


def parse(source: Source) -> Document:
    """The PDF parser (`formats.PARSERS`): the bytes go to `parse_pdf`."""
    return parse_pdf(source.data, source.path)


def parse_pdf(data: bytes, path: str) -> Document:
    """Parse PDF bytes. Raises `IngestError` for encrypted or unreadable files, and for a
    decompression bomb (`inflation_bomb`)."""
    bomb = inflation_bomb(data)
    if bomb is not None:
        raise IngestError(bomb)
    warnings: list[str] = []
    read = _read_with_pdfium(data, warnings)
    if read is None:  # no pypdfium2, or PDFium cannot open the file: pypdf says why
        read = _read_with_pypdf(data, warnings)
    pages, outline, metadata_title, extractor = read
    # pdftotext keeps the spaces: only the other extractors' pages are checked.
    glued = [] if extractor == "pdftotext" else [i for i, t in enumerate(pages) if _is_glued(t)]
    if glued:
        _fix_glued(data, pages, glued, warnings, extractor)
    join_hyphenated(pages)
    _warn_textless(pages, warnings)

    lines: list[str] = []
    page_lines: list[int] = []
    split = [_page_lines(text) for text in pages]
    drop_running_lines(split)
    for page in split:
        page_lines.append(len(lines) + 1)
        lines += page or [""]
    contents = contents_pages(lines, page_lines)
    headings = _outline_headings(outline, lines, page_lines, warnings)
    from_outline = headings is not None
    if headings is None:
        headings = _numbered_headings(lines, page_lines, contents)

    document = Document(
        format="pdf",
        text="\n".join(lines) + "\n" if lines else "",
        title=metadata_title
        or (headings[0].title if from_outline and headings else None)
        or path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1],
        headings=headings,
        page_lines=page_lines,
        warnings=warnings,
    )
    document.body_start_line = _body_start(contents, headings, page_lines, len(lines))
    document.entities = extract_entities(document)
    return document


# A decompression bomb: PDFium inflates a page's content streams whole, in memory (a
# 1 MB PDF whose one content stream inflates to 1 GB took 2.1 GB), and it aborts the
# process when an allocation fails, so no memory limit on a worker can contain it (and
# `--watch` parses in the process that holds the index). A stream that inflates past this
# many bytes fails the file before PDFium sees it (docs/design.md B32).
INFLATE_LIMIT = 256 << 20
# Deflate's largest expansion is ~1032:1: a stream shorter than INFLATE_LIMIT / this
# cannot reach the limit, and is not inflated here (none of the 3,030 streams of R's
# refman.pdf is that long; finding them all takes ~4 ms).
_DEFLATE_MAX_RATIO = 1032
_INFLATE_STEP = 1 << 20


def inflation_bomb(data: bytes) -> str | None:
    """Why `data` is a decompression bomb (a stream that inflates past INFLATE_LIMIT), or
    None. Streams are found by their `stream`/`endstream` keywords; each one long enough
    to reach the limit is inflated (zlib, as FlateDecode) a megabyte at a time, never
    held whole; a stream that is not zlib data (an image, another filter) is no bomb."""
    shortest = INFLATE_LIMIT // _DEFLATE_MAX_RATIO
    at = data.find(b"stream")
    while at != -1:
        begin = at + len(b"stream")
        if data[at - 3 : at] == b"end":  # the end of a stream, not the start of one
            at = data.find(b"stream", begin)
            continue
        begin += 2 if data[begin : begin + 2] == b"\r\n" else 1
        end = data.find(b"endstream", begin)
        end = len(data) if end == -1 else end
        if end - begin >= shortest and _inflates_past(memoryview(data)[begin:end], INFLATE_LIMIT):
            return (
                f"PDF decompression bomb: a stream of {end - begin:,} bytes inflates past "
                f"{INFLATE_LIMIT >> 20} MB (the PDF library would hold it whole in memory)"
            )
        at = data.find(b"stream", end + len(b"endstream"))
    return None


def _inflates_past(stream: memoryview, limit: int) -> bool:
    inflate = zlib.decompressobj()
    total = 0
    try:
        for start in range(0, len(stream), _INFLATE_STEP):
            pending = bytes(stream[start : start + _INFLATE_STEP])
            while pending:
                total += len(inflate.decompress(pending, _INFLATE_STEP))
                if total > limit:
                    return True
                pending = inflate.unconsumed_tail
            if inflate.eof:
                return False
    except zlib.error:
        return False  # not zlib data: not a FlateDecode stream
    return False


# What a reader gives `parse_pdf`: each page's text, the outline's entries (depth, title,
# 0-based page or None) or None when it has no readable outline, the metadata title, and
# the extractor's name for warnings.
_Read = tuple[list[str], list[tuple[int, str, int | None]] | None, str | None, str]


def _read_with_pdfium(data: bytes, warnings: list[str]) -> _Read | None:
    """Pages, outline and title by PDFium, or None when pypdfium2 is missing or PDFium
    cannot open the file (encrypted with a password, damaged: pypdf then reports why).

    The outline comes from PDFium too: pypdf needs the whole page tree in Python objects
    to turn a destination into a page number (R's 2,415-page refman.pdf: 3.3 s of CPU and
    ~230 MB, against PDFium's 0.3 s and none), and the entries are the same (every
    outline of the R manuals and the Debian reference, `tests/test_parse_pdf.py`)."""
    pdfium = _pdfium()
    if pdfium is None:
        return None
    try:
        document = pdfium.PdfDocument(data)
    except Exception:  # PdfiumError, and whatever a damaged file raises: use pypdf
        return None
    try:
        pages = [_pdfium_page_text(document, i, warnings) for i in range(len(document))]
        outline = _pdfium_outline(document, warnings)
        title = _clean_title(_pdfium_metadata_title(document))
    finally:
        document.close()
    return pages, outline, title, "PDFium"


def _read_with_pypdf(data: bytes, warnings: list[str]) -> _Read:
    reader = _open(data)
    count = len(reader.pages)
    if count >= LARGE_PDF_PAGES and shutil.which("pdftotext"):
        fast = _pdftotext(data)
        if fast is not None and len(fast) == count:
            return fast, _pypdf_outline(reader, warnings), _metadata_title(reader), "pdftotext"
    pages = [_page_text(reader, i, warnings) for i in range(count)]
    return pages, _pypdf_outline(reader, warnings), _metadata_title(reader), "pypdf"


def _pdfium() -> Any:
    """The pypdfium2 module, or None when it is not installed (the fallbacks then apply)."""
    try:
        import pypdfium2
    except ImportError:
        return None
    return pypdfium2


def _pdfium_page_text(document: Any, index: int, warnings: list[str]) -> str:
    # One bad page must not lose the whole document (as with pypdf).
    try:
        page = document[index]
        try:
            textpage = page.get_textpage()
            try:
                text = str(textpage.get_text_range())
            finally:
                textpage.close()
        finally:
            page.close()
    except Exception as exc:
        warnings.append(f"page {index + 1}: text extraction failed: {exc or type(exc).__name__}")
        return ""
    return text


# Deeper than any real outline; a cyclic or absurdly deep bookmark tree stops here.
MAX_OUTLINE_DEPTH = 64


def _pdfium_outline(document: Any, warnings: list[str]) -> list[tuple[int, str, int | None]] | None:
    """The bookmarks as (depth, title, 0-based page or None), in document order, through
    PDFium's C API (pypdfium2's own helpers differ between its major versions)."""
    import pypdfium2.raw as raw

    entries: list[tuple[int, str, int | None]] = []
    seen: set[int] = set()
    try:
        stack = [(raw.FPDFBookmark_GetFirstChild(document.raw, None), 0)]
        while stack:
            mark, depth = stack.pop()
            if not mark:
                continue
            address = ctypes.addressof(mark.contents)
            if address in seen:  # a bookmark that points back into the tree
                continue
            seen.add(address)
            # Its next sibling after its children: the stack pops the children first.
            stack.append((raw.FPDFBookmark_GetNextSibling(document.raw, mark), depth))
            if depth + 1 < MAX_OUTLINE_DEPTH:
                stack.append((raw.FPDFBookmark_GetFirstChild(document.raw, mark), depth + 1))
            title = _WHITESPACE.sub(" ", _bookmark_title(raw, mark)).strip()
            if title:
                entries.append((depth, title, _bookmark_page(raw, document, mark)))
    except Exception as exc:  # a damaged outline loses the outline, not the document
        warnings.append(f"outline unreadable: {exc or type(exc).__name__}")
        return None
    return entries


def _bookmark_title(raw: Any, mark: Any) -> str:
    size = raw.FPDFBookmark_GetTitle(mark, None, 0)  # bytes of UTF-16LE, NUL included
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    raw.FPDFBookmark_GetTitle(mark, buffer, size)
    return buffer.raw[: size - 2].decode("utf-16-le", "replace")


def _bookmark_page(raw: Any, document: Any, mark: Any) -> int | None:
    """The 0-based page a bookmark goes to, or None (an action to a web page, a broken
    destination). PDFium reads a /Dest and, failing that, a GoTo action's (LaTeX's
    hyperref writes actions)."""
    dest = raw.FPDFBookmark_GetDest(document.raw, mark)
    if not dest:
        return None
    page = raw.FPDFDest_GetDestPageIndex(document.raw, dest)
    return page if page >= 0 else None


def _pdfium_metadata_title(document: Any) -> str | None:
    try:
        return str(document.get_metadata_dict().get("Title") or "")
    except Exception:
        return None


def contents_pages(lines: list[str], page_lines: list[int]) -> set[int]:
    """0-based indexes of the pages that are a printed table of contents (or a list of
    figures or tables): most lines are rows ending in a page number, with dot leaders, or
    under a "Contents" title, or continuing such a page."""
    found: set[int] = set()
    for index, first in enumerate(page_lines):
        last = page_lines[index + 1] - 1 if index + 1 < len(page_lines) else len(lines)
        text = [line.strip() for line in lines[first - 1 : last] if line.strip()]
        if len(text) < 3:
            continue
        leaders = sum(1 for line in text if _LEADER_ROW.search(line))
        rows = sum(
            1
            for line in text
            if _LEADER_ROW.search(line) or _NUMBER_END.search(line) or _NUMBER_ONLY.match(line)
        )
        titled = any(_CONTENTS_TITLE.match(line) for line in text[:3])
        share = CONTENTS_ROW_SHARE * len(text)
        if (
            (leaders >= 3 and rows >= share)
            or (titled and rows >= 2 and rows >= share - 1)
            or (index - 1 in found and rows >= 3 and rows >= share)
        ):
            found.add(index)
    return found


def _body_start(
    contents: set[int], headings: list[Heading], page_lines: list[int], line_count: int
) -> int:
    """The first line after the printed contents that open the document (1 when none).

    Only a leading run counts: contents pages that start within the first
    CONTENTS_START_PAGES pages, end before the first chapter (an outline entry named
    "Contents" is not one), and follow each other. What comes before them (title and
    copyright pages) is front matter too; a contents page further in stays in the chunks.
    """
    if not contents:
        return 1
    start = min(contents)
    if start >= CONTENTS_START_PAGES:
        return 1
    end = start
    while end + 1 in contents:
        end += 1
    chapters = [h.page for h in headings if h.page and not _CONTENTS_TITLE.match(h.title.strip())]
    if (chapters and min(chapters) - 1 <= end) or end + 1 >= len(page_lines):
        return 1  # a chapter starts on a contents page, or nothing follows the contents
    return page_lines[end + 1] if page_lines[end + 1] <= line_count else 1


def _open(data: bytes) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                unlocked = reader.decrypt("")
            except Exception as exc:  # DependencyError: AES needs `cryptography`
                raise IngestError(f"encrypted PDF: {exc}") from exc
            if unlocked == PasswordType.NOT_DECRYPTED:
                raise IngestError("encrypted PDF: a password is required to open it")
        len(reader.pages)  # the page tree is read lazily; a broken one fails here
    except IngestError:
        raise
    except Exception as exc:  # pypdf raises many types for damaged files
        raise IngestError(f"corrupt PDF: {exc or type(exc).__name__}") from exc
    return reader


def _page_text(reader: PdfReader, index: int, warnings: list[str]) -> str:
    # One bad page (broken font, bad stream) must not lose the whole document.
    try:
        return reader.pages[index].extract_text() or ""
    except Exception as exc:
        warnings.append(f"page {index + 1}: text extraction failed: {exc or type(exc).__name__}")
        return ""


def _page_lines(text: str) -> list[str]:
    """A page's lines; an empty page still occupies one (empty) line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines or [""]


# A PDF with no text on this share of its pages (of at least TEXTLESS_MIN_PAGES) is said
# to be mostly images; one without text on any page, whatever its length.
TEXTLESS_SHARE = 0.5
TEXTLESS_MIN_PAGES = 4


def _warn_textless(pages: list[str], warnings: list[str]) -> None:
    """A warning for a PDF whose pages carry no text: scanned or image-only pages are
    stored, but none of their words can be found until the file is OCRed."""
    if not pages:
        warnings.append("no pages: the PDF holds nothing to search")
        return
    empty = sum(1 for page in pages if not page.strip())
    if not empty:
        return
    if empty == len(pages):
        where = "its one page" if len(pages) == 1 else f"any of its {len(pages)} pages"
        warnings.append(
            f"no text on {where}: "
            "a scanned or image-only PDF? Nothing in it can be searched until it is OCRed"
        )
    elif len(pages) >= TEXTLESS_MIN_PAGES and empty >= TEXTLESS_SHARE * len(pages):
        warnings.append(
            f"no text on {empty} of its {len(pages)} pages: scanned or image-only pages? "
            "Their words cannot be searched until the file is OCRed"
        )


def join_hyphenated(pages: list[str]) -> int:
    """Complete the words PDFium marks as hyphenated across a line end, in place; how many.

    "group of com\ufffeponents of the first" becomes "group of" and "components of the
    first": the word is whole on the second line (so "components" is found by search),
    and the page keeps as many lines as pypdf and pdftotext give it ("group of com-",
    "ponents of the first"). The hyphen stays where it belongs to the word: before a
    capital or a digit ("S-Plus", "non-UTF-8"), or when the document writes the word with
    its hyphen elsewhere and never without ("floating-point").
    """
    if not any(_PDFIUM_HYPHEN in page for page in pages):
        return 0
    # the document's words, punctuation around them stripped (R's refman: ~0.15 s)
    tokens: set[str] = set()
    for page in pages:  # page by page: no copy of the whole text (R's refman: 4.4 MB)
        tokens.update(page.casefold().split())
    words = {token.strip(_PUNCTUATION) for token in tokens if _PDFIUM_HYPHEN not in token}
    del tokens
    count = 0
    for index, page in enumerate(pages):
        if _PDFIUM_HYPHEN not in page:
            continue
        parts = page.split(_PDFIUM_HYPHEN)
        out = [parts[0]]
        for part in parts[1:]:
            before = out[-1]
            cut = max(before.rfind(" "), before.rfind("\n"), before.rfind("\r"))
            left = before[cut + 1 :]
            right = "" if part[:1].isspace() or not part else part.split(None, 1)[0]
            if not left or not right:
                out.append("-\n" + part)
                continue
            count += 1
            head, tail = left.casefold().strip(_PUNCTUATION), right.casefold().strip(_PUNCTUATION)
            keep = not right[0].islower() or (
                f"{head}-{tail}" in words and f"{head}{tail}" not in words
            )
            # the space before the word becomes the line break (a word that opens its
            # line leaves that line empty)
            start = cut if cut >= 0 and before[cut] == " " else cut + 1
            out[-1] = before[:start]
            out.append(f"\n{left}{'-' if keep else ''}{part}")
        pages[index] = "".join(out)
    return count


# A running header or footer: a page's first or last line that carries the page's printed
# number — alone ("36"), before or after a title ("Chapter 7: R Miscellanea 38",
# "2 .Device"), or as "13 / 233" ("Debian Reference 13 / 233"), or "Page 3 of 9".
_RUNNING = re.compile(
    r"^(?:(?P<alone>\d{1,4})|.*?(?:^|\s)(?P<of>\d{1,4})\s*(?:/|(?i:of))\s*\d{1,4}"
    r"|(?P<lead>\d{1,4})\s+\S.*|.*\S\s+(?P<trail>\d{1,4}))$"
)
_ROMAN = re.compile(r"^[ivxlc]{1,7}$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
# The printed numbers must follow the page index on this share of the pages (at least
# RUNNING_MIN_PAGES): then a page's edge line with its number is layout, not text.
RUNNING_SHARE = 0.3
RUNNING_MIN_PAGES = 3


def drop_running_lines(pages: list[list[str]]) -> int:
    """Remove running headers and footers from the pages' lines, in place; how many.

    A page's first or last non-empty line is one when it prints the page's number, and
    the printed numbers follow the page index (printed − index the same) on at least
    RUNNING_SHARE of the pages: the R manuals' "Chapter 7: R Miscellanea 38" and bare
    "36", the refman's "2 .Device" and ".Machine 3", the Debian reference's
    "Debian Reference 13 / 233". Roman page numbers of the front matter ("xxi", alone on
    the line) are dropped the same way. A line whose number does not follow the pages (a
    code line ending in 1024, a section "2 Setup") stays.
    """
    edges: list[list[tuple[int, int, bool]]] = []  # per page: (line index, number, roman)
    offsets: dict[tuple[bool, int], int] = {}
    for index, page in enumerate(pages):
        found: list[tuple[int, int, bool, bool]] = []
        filled = [i for i, line in enumerate(page) if line.strip()]
        for at in sorted({filled[0], filled[-1]}) if filled else ():
            printed = _printed_page(page[at].strip())
            if printed is not None:
                found.append((at, *printed))
        # One page number a page: a number alone on its line wins over a line that adds a
        # title, which is then a heading ("1 Setup" above a footer "1").
        if len(found) == 2 and found[0][3] != found[1][3]:
            found = [edge for edge in found if edge[3]]
        for _, number, roman, _ in found:
            key = (roman, number - index)
            offsets[key] = offsets.get(key, 0) + 1
        edges.append([(at, number, roman) for at, number, roman, _ in found])
    need = max(RUNNING_MIN_PAGES, RUNNING_SHARE * len(pages))
    kept = {key for key, count in offsets.items() if count >= need or (key[0] and count >= 2)}
    # Roman numbers only count in a document whose arabic numbers follow the pages.
    if not any(not roman for roman, _ in kept):
        return 0
    dropped = 0
    for index, page_edges in enumerate(edges):
        gone = {at for at, number, roman in page_edges if (roman, number - index) in kept}
        if gone:
            page = [line for i, line in enumerate(pages[index]) if i not in gone]
            while page and not page[-1].strip():
                page.pop()
            while page and not page[0].strip():
                page.pop(0)
            pages[index][:] = page
            dropped += len(gone)
    return dropped


def _printed_page(line: str) -> tuple[int, bool, bool] | None:
    """The page number `line` prints, whether it is roman, and whether the line is only
    the number ("36", "xxi", "13 / 233", "Page 3 of 9"); or None."""
    if _ROMAN.match(line):
        total = 0
        for char, following in zip(line, line[1:] + " ", strict=True):
            value = _ROMAN_VALUES[char]
            total += -value if _ROMAN_VALUES.get(following, 0) > value else value
        return total, True, True
    match = _RUNNING.match(line)
    if match is None:
        return None
    if match["alone"] or match["of"]:
        return int(match["alone"] or match["of"]), False, line[0].isdigit() or line[:4] == "Page"
    return int(match["lead"] or match["trail"]), False, False


def _is_glued(text: str) -> bool:
    if not _LONG_RUN.search(text):
        return False  # the common case, decided by one regex scan
    tokens = [t for t in text.split() if _HAS_LATIN.search(t)]
    long = sum(1 for t in tokens if _LONG_RUN.search(t))
    # A couple of long words (URLs, "internationalization") are not a glued page.
    return long >= 3 and long >= GLUED_RATIO * len(tokens)


def _fix_glued(
    data: bytes, pages: list[str], glued: list[int], warnings: list[str], extractor: str
) -> None:
    better = _pdftotext(data) if shutil.which("pdftotext") else None
    shown = ", ".join(str(i + 1) for i in glued[:5]) + (", …" if len(glued) > 5 else "")
    if better is not None and len(better) == len(pages):
        for i in glued:
            pages[i] = better[i]
        warnings.append(
            f"glued words: {extractor} dropped spaces on {len(glued)} of {len(pages)} pages "
            f"({shown}); those pages were extracted with pdftotext"
        )
        return
    warnings.append(
        f"glued words: {extractor} dropped spaces on {len(glued)} of {len(pages)} pages "
        f"({shown}); search over them will be poor (install poppler-utils for pdftotext)"
    )


def _pdftotext(data: bytes) -> list[str] | None:
    """Pages extracted by poppler's pdftotext, or None if it fails."""
    try:
        # "fd://0" makes poppler read the PDF from stdin: no temporary file needed.
        done = subprocess.run(
            ["pdftotext", "-q", "-enc", "UTF-8", "-eol", "unix", "fd://0", "-"],
            input=data,
            capture_output=True,
            timeout=PDFTOTEXT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    pages = done.stdout.decode("utf-8", "replace").split("\f")
    if pages and not pages[-1].strip():
        pages.pop()  # pdftotext ends every page, the last one included, with \f
    return pages


def _norm(text: str) -> str:
    """Letters and digits only, casefolded, ligatures unfolded: how titles are compared.

    Outlines and page text disagree on spaces, hyphens and punctuation ("Nonregular" in
    the outline, "Non-regular" on the page; glued words), never on the letters.
    """
    return _NON_WORD.sub("", unicodedata.normalize("NFKC", text).casefold())


def _metadata_title(reader: PdfReader) -> str | None:
    try:
        title = reader.metadata.title if reader.metadata else None
    except Exception:
        return None
    return _clean_title(str(title or ""))


def _clean_title(title: str | None) -> str | None:
    title = _WHITESPACE.sub(" ", title or "").strip()
    return title or None


def _pypdf_outline(
    reader: PdfReader, warnings: list[str]
) -> list[tuple[int, str, int | None]] | None:
    """The outline's entries by pypdf (without PDFium), as `_pdfium_outline` gives them."""
    try:
        outline = reader.outline
    except Exception as exc:
        warnings.append(f"outline unreadable: {exc or type(exc).__name__}")
        return None
    entries: list[tuple[int, str, int | None]] = []
    _walk_outline(reader, outline, 0, entries)
    return entries


def _outline_headings(
    entries: list[tuple[int, str, int | None]] | None,
    lines: list[str],
    page_lines: list[int],
    warnings: list[str],
) -> list[Heading] | None:
    """Headings from the outline's entries, or None when the PDF has no (readable) outline."""
    if not entries:
        return None
    normalized = _LazyNorm(lines)
    headings: list[Heading] = []
    unresolved = 0
    for depth, title, page in entries:
        if page is None or not 0 <= page < len(page_lines):
            # An entry without a usable destination keeps the previous entry's place.
            unresolved += 1
            prev = headings[-1] if headings else None
            page_no, line = (prev.page, prev.line) if prev else (1 if page_lines else None, 1)
            headings.append(Heading(min(depth + 1, 6), title, line, page=page_no))
            continue
        first = page_lines[page]
        last = page_lines[page + 1] - 1 if page + 1 < len(page_lines) else len(lines)
        prev = headings[-1] if headings else None
        after = prev.line + 1 if prev and prev.page == page + 1 else first
        found = _find_title(normalized, title, after, last)
        if found is None:
            found = _find_title(normalized, title, first, last)
        number = None if found is None else _number_on_page(lines[found - 1], title)
        if found is None:
            # Not found on its page: the page start, but never before an earlier entry.
            found = max(first, prev.line) if prev and prev.page == page + 1 else first
        headings.append(Heading(min(depth + 1, 6), title, found, page=page + 1, number=number))
    if unresolved:
        noun = "entry has" if unresolved == 1 else "entries have"
        warnings.append(
            f"outline: {unresolved} {noun} no destination page; placed after the previous entry"
        )
    # Sections are extents in line order; a rare out-of-order outline must not invert them.
    headings.sort(key=lambda h: h.line)
    return headings


def _walk_outline(
    reader: PdfReader, items: list[Any], depth: int, out: list[tuple[int, str, int | None]]
) -> None:
    # pypdf nests an entry's children as a list right after the entry.
    for item in items:
        if isinstance(item, list):
            _walk_outline(reader, item, depth + 1, out)
        elif isinstance(item, Destination):
            title = _WHITESPACE.sub(" ", str(item.title or "")).strip()
            if not title:
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:
                page = None
            out.append((depth, title, page))


class _LazyNorm:
    """`_norm` of each line, computed only for the pages that outline entries point at;
    `bare(index)` is the same without a printed section number ("5.1 Arrays" → "arrays")."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.cache: dict[int, str] = {}
        self.bare_cache: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, index: int) -> str:
        if index not in self.cache:
            self.cache[index] = _norm(self.lines[index])
        return self.cache[index]

    def bare(self, index: int) -> str:
        """The line without its printed number: a number of digits, or any after "Chapter",
        "Appendix", … (a bare capital would strip "A" from "A specific example")."""
        if index not in self.bare_cache:
            line = self.lines[index].strip()
            match = _PRINTED_PREFIX.match(line)
            if match and (match["word"] or not match["number"].isalpha()):
                self.bare_cache[index] = _norm(line[match.end() :])
            else:
                self.bare_cache[index] = self[index]
        return self.bare_cache[index]


def _number_on_page(line: str, title: str) -> str | None:
    """The number printed before `title` on its page line ("1.2 Related software" for the
    outline entry "Related software"), when the outline title itself has none."""
    own = printed_number(title)
    if own is not None and not own[1]:
        return None  # the title's own number counts (read by sections)
    stripped = line.strip()
    printed = printed_number(stripped)
    if printed is None:
        return None
    match = _PRINTED_PREFIX.match(stripped)
    rest = _norm(stripped[match.end() :]) if match else ""
    want = _norm(title)
    if want and rest and (rest.startswith(want) or want.startswith(rest)):
        return printed[0]
    return None


def _find_title(normalized: _LazyNorm, title: str, first: int, last: int) -> int | None:
    """The 1-based line in first..last showing `title`, best match first.

    Tiers: the whole line, or the line after its printed number ("5.1 Arrays" for the
    entry "Arrays"); the line starts with the title, or the title wraps onto the next
    lines ("7.18 Why does the output from anova() depend on the" / "order of factors in
    the model?"); the same without the title's own leading section number or letter (the
    entry "A Essential and useful other programs under a Unix-alike" for the lines
    "Appendix A Essential and useful other programs" / "under a Unix-alike"); the line
    contains the title. Within a tier the first line wins, so a running header that
    merely contains a short title ("Chapter 4: Ordered and unordered factors" for
    "Ordered factors") loses to the numbered heading line below it.
    """
    want = _norm(title)
    bare = _norm(_LEADING_NUMBER.sub("", title))
    if not want:
        return None
    end = min(last, len(normalized))
    best: tuple[int, int] | None = None
    for number in range(first, end + 1):
        line = normalized[number - 1]
        if not line:
            continue
        stripped = normalized.bare(number - 1)
        if line == want or stripped == want:
            return number
        if _wraps_onto(normalized, number, line, want, end) or (
            stripped != line and _wraps_onto(normalized, number, stripped, want, end)
        ):
            tier = 1
        elif bare and bare != want and _wraps_onto(normalized, number, stripped, bare, end):
            tier = 2  # "Appendix A Essential and useful" / "under a Unix-alike"
        elif want in line:
            tier = 3
        else:
            continue
        if best is None or tier < best[0]:
            best = (tier, number)
    return best[1] if best else None


# A title wrapped over more lines than this is not looked for across them.
_WRAP_LINES = 4


def _wraps_onto(normalized: _LazyNorm, number: int, line: str, want: str, end: int) -> bool:
    """Whether `want` starts `line` (the normalized line `number`), alone or continued on
    the next lines (up to _WRAP_LINES in all, not past line `end`)."""
    if not want.startswith(line[: len(want)]):
        return False
    joined = line
    following = number  # the 0-based index of the next line
    while len(joined) < len(want) and following < min(end, number + _WRAP_LINES - 1):
        joined += normalized[following]
        following += 1
    return joined.startswith(want)


def _numbered_headings(
    lines: list[str], page_lines: list[int], contents: set[int] | None = None
) -> list[Heading]:
    """Headings for PDFs without an outline: numbered lines in a valid 1, 1.1, 1.2, 2 order.

    Conservative on purpose: a candidate must open a page or a paragraph, look like a
    title (capitalised, short, no trailing sentence punctuation or page number), and
    continue the numbering of the previous accepted heading, and lie outside the printed
    contents pages (whose rows list the same numbers). Fewer than two → none.
    """
    page_starts = set(page_lines)
    skipped = {
        n
        for page in contents or ()
        for n in range(
            page_lines[page],
            page_lines[page + 1] if page + 1 < len(page_lines) else len(lines) + 1,
        )
    }
    headings: list[Heading] = []
    previous: list[int] | None = None
    style_dotted = False
    for index, raw in enumerate(lines):
        number = index + 1
        match = _NUMBERED.match(raw.strip())
        if not match or number in skipped or not _title_like(match["title"]):
            continue
        before = lines[index - 1].strip() if index else ""
        opens = (
            number in page_starts
            or number - 1 in page_starts  # below a running header
            or not before
            or before.endswith(_SENTENCE_END)
            # a code example or a table row, not prose wrapped onto this line
            or not _PROSE_END.search(before)
            or _next_after_code(previous, match["number"], before)
            or (headings and headings[-1].line == number - 1)
        )
        parts = [int(p) for p in match["number"].split(".")]
        dotted = raw.strip()[len(match["number"])] == "."
        if len(parts) > 6 or not _continues(previous, parts):
            continue
        # "2 Setup" after "1 Introduction", not the list item "2. Header line": a document
        # writes its section numbers one way, with or without a final dot.
        if headings and dotted != style_dotted:
            continue
        if not opens:
            continue
        if not headings:
            style_dotted = dotted
        previous = parts
        page = max(1, bisect.bisect_right(page_lines, number))
        headings.append(Heading(len(parts), raw.strip(), number, page=page))
    return headings if len(headings) >= 2 else []


# How a line of prose that wraps onto the next line ends: a word, a comma, a hyphen.
_PROSE_END = re.compile(r"[^\W\d_],?$|[,\-]$")
# A title may open with a name from code: "attach() and detach()", ".Internal vs
# .Primitive", "useDynLib".
_CODE_TITLE = re.compile(r"^(?:[a-z_][\w.]*\(|\.[A-Za-z]|[a-z]+[A-Z])")
# Dot leaders or an ellipsis ending a printed table-of-contents row ("Setup .... 12").
_LEADER_END = re.compile(r"(?:\.{3,}|…|(?:\. ){2,}\.?)\s*\d*$|\s\d+(?:\.\d+)*$")


def _title_like(title: str) -> bool:
    first = title[0]
    if not (first.isupper() or "\u4e00" <= first <= "\u9fff" or _CODE_TITLE.match(title)):
        return False
    if title.endswith(("etc.", "etc.)")):  # "R commands, case sensitivity, etc."
        title = title.rstrip(".)")
    if title.endswith((".", ",", ";", ":")) or _LEADER_END.search(title):
        return False  # sentences and printed table-of-contents rows ("Setup .... 12")
    return len(title.split()) <= 12


def _next_after_code(previous: list[int] | None, number: str, before: str) -> bool:
    """Whether a section number continuing the sequence ("2.6" after "2.5.1") opens a
    section below a line that may be prose: after a code example or a table nothing
    ends a sentence ("make prefix=/path/to/here uninstall-libR"). Not a chapter (those
    open a page), not below a numbered row ("1 SYMSXP symbols" above "2 LISTSXP
    pairlists"), not after a line that breaks mid-phrase (a comma, a hyphen)."""
    parts = [int(p) for p in number.split(".")]
    return (
        previous is not None
        and len(parts) > 1
        and _continues(previous, parts)
        and not before.endswith((",", "-"))
        and not _NUMBERED_ROW.match(before)
    )


def _continues(previous: list[int] | None, parts: list[int]) -> bool:
    """Whether `parts` is a valid next section number after `previous`."""
    if previous is None:
        return all(p == 1 for p in parts)
    if parts == previous + [1]:
        return True
    return any(parts == previous[:k] + [previous[k] + 1] for k in range(len(previous)))
