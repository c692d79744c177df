"""The per-file work done in a worker process: read → decode → parse → sections → chunks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import IngestError
from ..model import Document
from .chunk import DEFAULT_MAX_CHARS, chunk_document
from .formats import get_format, sniff_format
from .read import DEFAULT_MAX_BYTES, decode_text, read_source
from .sections import bounded_title, build_sections
from .store import Parsed, prepare


@dataclass(frozen=True, slots=True)
class ParseTask:
    path: str  # filesystem path as found
    display: str
    format: str | None
    known_sha256: str | None = None  # skip parsing when the content still has this hash
    max_bytes: int = DEFAULT_MAX_BYTES
    max_chars: int = DEFAULT_MAX_CHARS
    is_url: bool = False
    fetch_timeout: float = 30.0


@dataclass(frozen=True, slots=True)
class Unchanged:
    """The file's bytes hash to what is stored; only its mtime moved."""

    uri: str
    mtime_ns: int | None


def parse_task(task: ParseTask) -> Parsed | Unchanged:
    if task.is_url:
        from .fetch import fetch_url

        source = fetch_url(task.path, max_bytes=task.max_bytes, timeout=task.fetch_timeout)
    else:
        source = read_source(
            Path(task.path), task.display, max_bytes=task.max_bytes, fmt=task.format
        )
    if task.known_sha256 is not None and source.sha256 == task.known_sha256:
        return Unchanged(source.uri, source.mtime_ns)
    fmt = get_format(task.format or source.format or sniff_format(source.data))
    text, warnings = (None, []) if fmt.binary else decode_text(source.data, task.display)
    doc = fmt.parse(source, text)
    return finish(
        doc,
        source.path,
        source.uri,
        source.sha256,
        len(source.data),
        source.mtime_ns,
        warnings,
        task.max_chars,
    )


def finish(
    doc: Document,
    path: str,
    uri: str,
    sha256: str,
    size: int,
    mtime_ns: int | None,
    warnings: list[str],
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Parsed:
    """Add sections and chunks to a parsed document (shared by files and fetched URLs)."""
    doc.warnings[:0] = warnings
    if not doc.text.strip() and doc.format not in ("pdf", "docx"):
        raise IngestError("no text content (only whitespace)", path)
    if doc.page_lines:
        doc.chunk_breaks.update(doc.page_lines)  # a chunk never spans pages, so page(n) is exact
    if doc.title:
        doc.title = bounded_title(doc.title)
    sections = build_sections(doc)
    chunks = chunk_document(doc, sections, max_chars)
    parsed = Parsed(path, uri, sha256, size, mtime_ns, doc, sections, chunks)
    parsed.chunk_chars = max_chars
    return prepare(parsed)
