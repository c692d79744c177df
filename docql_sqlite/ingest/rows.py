"""The rows of one parsed document, made in the parser process so that the writer
(`Store.writer()`, `store/writer.py`) only inserts: folds, hashes, FTS texts, the code
blocks' storage, and on request PostgreSQL's tsvector literals."""

from __future__ import annotations

import hashlib
from itertools import accumulate

from ..fts_tokens import tsvector_literal
from ..model import CodeBlock, count_lines, split_lines
from ..schema import CONTENT_HASH_BYTES
from ..store.writer import Parsed, references_json
from ..text import fold, fts_text, stored_fold
from .chunk import LineTable
from .paths import raw_bytes, shown

__all__ = ["Parsed", "add_tsvectors", "for_writer", "prepare"]


def prepare(parsed: Parsed, table: LineTable | None = None) -> Parsed:
    """Work done in the parser process, so the one writer only inserts: rows with their
    folds, hashes and FTS texts computed, and what it needs of the full text (then dropped).
    `table`: `chunk.line_table(doc.text)` when the caller made it already."""
    doc = parsed.doc
    # Names as the index stores them (undecodable bytes escaped, the exact bytes kept).
    parsed.uri_bytes = raw_bytes(parsed.uri)
    parsed.uri, parsed.path = shown(parsed.uri), shown(parsed.path)
    parsed.section_rows = [
        (
            s.ord,
            s.level,
            s.depth,
            s.title,
            fold(s.title),
            s.number,
            s.anchor,
            s.parent,
            s.line,
            s.end_line,
            s.own_end_line,
            s.page,
        )
        for s in parsed.sections
    ]
    # Each section's title as its chunks' FTS `title` column holds it, made once per
    # section, not once per chunk.
    titles = {s.ord: fts_text(s.title) for s in parsed.sections}
    parsed.chunk_rows = [
        (
            c.section,
            c.index,
            c.line,
            c.end_line,
            c.page,
            c.start_offset,
            c.end_offset,
            c.content,
            stored_fold(c.content),
            hashlib.sha256(c.content.encode("utf-8", "surrogatepass")).digest()[
                :CONTENT_HASH_BYTES
            ],
            titles[c.section] if c.section is not None else "",
            fts_text(c.content),
        )
        for c in parsed.chunks
    ]
    parsed.line_count = count_lines(doc.text) if table is None else len(table[0])
    parsed.header_text = _header_text(doc.text, doc.body_start_line)
    if doc.codeblocks:
        # offsets[n]: where line n + 1 starts (the table's list counts lines from 1)
        offsets = _line_offsets(doc.text) if table is None else table[1][1:]
        parsed.code_storage = [_code_storage(doc.text, offsets, b) for b in doc.codeblocks]
    doc.text = ""
    return parsed


def for_writer(parsed: Parsed) -> Parsed:
    """`parsed` without what only parsing needed, before it is pickled to the writer, which
    inserts the prepared rows: the sections and chunks (their rows carry them), headings,
    chunking hints, the code of blocks stored as offsets, and the reference rows (one
    JSON string, as `refs_staged` holds them, made here in the worker: `Reference`
    objects took 1.5 MB of pickles and 88 ms to pickle and unpickle for Rust's alloc).
    19.6 → 15 MB of pickles for the 10.8 MB Markdown mix, ~0.2 CPU s less between the
    workers and the writer."""
    parsed.sections, parsed.chunks = [], []
    doc = parsed.doc
    doc.headings, doc.keep_together, doc.chunk_breaks = [], [], set()
    # A string for the pipe (in one process the writer reads the objects: no copy).
    parsed.references_json = references_json(doc.reference_rows) if doc.reference_rows else None
    doc.reference_rows = []
    for block, (code, _, _) in zip(doc.codeblocks, parsed.code_storage):
        if code is None:  # rebuilt from the chunks (`codeblocks_code`): not stored
            block.code = ""
    return parsed


def add_tsvectors(parsed: Parsed) -> Parsed:
    """The chunks' `tsvector` literals for a PostgreSQL index (its writer inserts them),
    from the FTS texts of `prepare`: computed in the parser process, not in the writer."""
    parsed.tsvectors = [tsvector_literal(r[10], r[11]) for r in parsed.chunk_rows]
    return parsed


def _code_storage(
    text: str, offsets: list[int], block: CodeBlock
) -> tuple[str | None, int | None, int | None]:
    """(code, body_start, body_end): code is None when it is the text between the fences."""
    last = len(offsets) - 1
    for first, end in ((block.line + 1, block.end_line - 1), (block.line + 1, block.end_line)):
        if 1 <= first <= end + 1 and end <= last:
            start, stop = offsets[first - 1], offsets[end] if end >= first else offsets[first - 1]
            if text[start:stop] == block.code:
                return None, start, stop
    return block.code, None, None


def _line_offsets(text: str) -> list[int]:
    """offsets[n] = character offset where line n+1 starts; the last entry is the text's end
    (+1 when the text does not end in '\n'). Summed in C, not in a Python loop."""
    return [0, *accumulate(map((1).__add__, map(len, split_lines(text))))]


def _header_text(text: str, body_line: int) -> str:
    """The lines before `body_line`, each ending in '\n' (the last one too), verbatim."""
    if body_line <= 1:
        return ""
    end = -1
    for _ in range(body_line - 1):  # front matter: a few lines, not the whole text
        end = text.find("\n", end + 1)
        if end < 0:  # fewer lines than that: all of them
            return text if text.endswith("\n") or not text else text + "\n"
    return text[: end + 1]
