"""Write one parsed document into the index, replacing its previous rows.

The caller owns the transaction, so a document is replaced atomically (and several may
share one transaction for speed). FTS rows are contentless, so deleting them means
re-supplying the exact text that was indexed: `text.fts_text` of the stored columns.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import accumulate
from typing import Any

from ..fts_tokens import tsvector_literal
from ..model import CodeBlock, Document, count_lines, split_lines
from ..store.sqlite.db import Connection, writes_chunk_trigrams
from ..text import fold, fts_text, stored_fold
from .chunk import ChunkInfo
from .paths import raw_bytes, shown
from .sections import SectionInfo


@dataclass(slots=True)
class Parsed:
    """Everything a worker hands back for one file."""

    path: str
    uri: str
    sha256: str
    size: int
    mtime_ns: int | None
    doc: Document  # `doc.text` is emptied before it crosses to the writer: chunks carry the text
    sections: list[SectionInfo]
    chunks: list[ChunkInfo]
    line_count: int = 0
    header_text: str = ""  # the lines before doc.body_start_line (front matter), verbatim
    code_storage: list[tuple[str | None, int | None, int | None]] = field(default_factory=list)
    section_rows: list[tuple[Any, ...]] = field(
        default_factory=list
    )  # sections columns after id/doc_id
    chunk_rows: list[tuple[Any, ...]] = field(
        default_factory=list
    )  # chunks columns + the two FTS texts
    chunk_chars: int | None = None  # the chunk size bound the chunks were cut with
    content_rules: int | None = None  # parse.content_rules(format) the rows were built with
    tsvectors: list[str] | None = None  # PostgreSQL's full-text rows (`add_tsvectors`)


def prepare(parsed: Parsed) -> Parsed:
    """Work done in the parser process, so the one writer only inserts: rows with their
    folds, hashes and FTS texts computed, and what it needs of the full text (then dropped)."""
    doc = parsed.doc
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
    titles = {s.ord: s.title for s in parsed.sections}
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
            hashlib.sha256(c.content.encode("utf-8", "surrogatepass")).hexdigest()[:32],
            fts_text(titles[c.section]) if c.section is not None else "",
            fts_text(c.content),
        )
        for c in parsed.chunks
    ]
    parsed.line_count = count_lines(doc.text)
    parsed.header_text = _header_text(doc.text, doc.body_start_line)
    if doc.codeblocks:
        offsets = _line_offsets(doc.text)
        parsed.code_storage = [_code_storage(doc.text, offsets, b) for b in doc.codeblocks]
    doc.text = ""
    return parsed


def for_writer(parsed: Parsed) -> Parsed:
    """`parsed` without what only parsing needed, before it is pickled to the writer, which
    inserts the prepared rows: the sections and chunks (their rows carry them), headings,
    chunking hints, and the code of blocks stored as offsets. 19.6 → 15 MB of pickles for
    the 10.8 MB Markdown mix, ~0.2 CPU s less between the workers and the writer."""
    parsed.sections, parsed.chunks = [], []
    doc = parsed.doc
    doc.headings, doc.keep_together, doc.chunk_breaks = [], [], set()
    for block, (code, _, _) in zip(doc.codeblocks, parsed.code_storage):
        if code is None:  # rebuilt from the chunks (`codeblocks_code`): not stored
            block.code = ""
    return parsed


def add_tsvectors(parsed: Parsed) -> Parsed:
    """The chunks' `tsvector` literals for a PostgreSQL index (pg/store.py writes them),
    from the FTS texts of `prepare`: computed in the parser process, not in the writer."""
    parsed.tsvectors = [tsvector_literal(r[10], r[11]) for r in parsed.chunk_rows]
    return parsed


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def find_document(conn: Connection, uri: str) -> tuple[int, int, int | None, str] | None:
    """(id, size, mtime_ns, sha256) of the stored document for `uri`."""
    row = conn.execute(
        "SELECT id, size, mtime_ns, sha256 FROM documents WHERE uri = ?", (uri,)
    ).fetchone()
    return None if row is None else (row[0], row[1], row[2], row[3])


# FTS5 writes its pending terms out as a new segment at every savepoint (and merges the
# segments later), so a writer that keeps each file in a savepoint (run._write_batch) hands
# its full-text rows to an `FtsWrites` instead and applies them once per transaction,
# after the savepoints: one segment per batch instead of one per file. On the Markdown mix
# that is ~12 % less ingest CPU and no longer leaves ~1 MB of merged-away segment pages
# free at the end of a cold build (docs/benchmarks.md).
_FTS_DELETE = "INSERT INTO chunks_fts(chunks_fts, rowid, title, body) VALUES ('delete', ?, ?, ?)"
_FTS_INSERT = "INSERT INTO chunks_fts(rowid, title, body) VALUES (?, ?, ?)"
# The optional trigram index over what grep() compares, coalesce(fold, content)
# (`index --trigram`, db.create_chunk_trigrams), written the same way when the file has it.
_TRIGRAM_DELETE = "INSERT INTO chunks_trigram(chunks_trigram, rowid, text) VALUES ('delete', ?, ?)"
_TRIGRAM_INSERT = "INSERT INTO chunks_trigram(rowid, text) VALUES (?, ?)"


class FtsWrites:
    """Full-text deletes and inserts queued in order, for `apply` to run in one go."""

    __slots__ = ("ops",)

    def __init__(self) -> None:
        self.ops: list[tuple[str, list[tuple[Any, ...]]]] = []

    def add(self, statement: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            self.ops.append((statement, rows))

    def extend(self, other: FtsWrites) -> None:
        self.ops.extend(other.ops)

    def apply(self, conn: Connection) -> None:
        """Run the queued writes (in the caller's transaction, outside any savepoint)."""
        for statement, rows in self.ops:
            conn.executemany(statement, rows)
        self.ops.clear()


def _fts(conn: Connection, fts: FtsWrites | None, statement: str, rows: list[Any]) -> None:
    if fts is None:
        conn.executemany(statement, rows)
    else:
        fts.add(statement, rows)


def delete_document(conn: Connection, doc_id: int, fts: FtsWrites | None = None) -> None:
    _delete_fts(conn, doc_id, fts)
    queue_resolution(conn, doc_id)
    conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))


def _delete_fts(conn: Connection, doc_id: int, fts: FtsWrites | None = None) -> None:
    rows = conn.execute(
        "SELECT c.id, coalesce(s.title, ''), c.content, c.fold FROM chunks c "
        "LEFT JOIN sections s ON s.id = c.section_id WHERE c.doc_id = ?",
        (doc_id,),
    ).fetchall()
    _fts(
        conn,
        fts,
        _FTS_DELETE,
        [(cid, fts_text(str(title)), fts_text(str(body))) for cid, title, body, _ in rows],
    )
    if writes_chunk_trigrams(conn):
        _fts(
            conn,
            fts,
            _TRIGRAM_DELETE,
            [(cid, body if folded is None else folded) for cid, _, body, folded in rows],
        )


def replace_document(conn: Connection, parsed: Parsed, fts: FtsWrites | None = None) -> int:
    """Replace the rows of `parsed.uri`; paths that are not valid UTF-8 are stored escaped,
    with the exact bytes in `uri_bytes` (see `paths`). With `fts`, the full-text writes
    are queued there (in order) for the caller to apply; without, they run here."""
    uri, path = shown(parsed.uri), shown(parsed.path)
    existing = find_document(conn, uri)
    if existing is not None:
        delete_document(conn, existing[0], fts)
    doc = parsed.doc
    name = path.rstrip("/").rsplit("/", 1)[-1]
    directory = path[: -len(name)].rstrip("/") if "/" in path else ""
    extension = os.path.splitext(name.split("?")[0])[1][1:].lower()
    conn.execute(
        """INSERT INTO documents(path, uri, name, directory, extension, format, language, title,
          size, lines, pages, mtime, mtime_ns, sha256, header_text, body_line, indexed_at,
          chunk_chars, uri_bytes, content_rules, page_lines)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            path,
            uri,
            name,
            directory,
            extension,
            doc.format,
            doc.language,
            doc.title or name,
            parsed.size,
            parsed.line_count,
            doc.page_count,
            parsed.mtime_ns / 1e9 if parsed.mtime_ns is not None else None,
            parsed.mtime_ns,
            parsed.sha256,
            parsed.header_text,
            doc.body_start_line,
            now(),
            parsed.chunk_chars,
            raw_bytes(parsed.uri),
            parsed.content_rules,
            _json(doc.page_lines) if doc.page_lines else None,
        ),
    )
    doc_id = conn.last_insert_rowid()
    section_ids = _insert_sections(conn, doc_id, parsed.section_rows)
    _insert_chunks(conn, doc_id, parsed, section_ids, fts)
    _insert_extras(conn, doc_id, parsed)
    return doc_id


def _next_id(conn: Connection, table: str) -> int:
    # Ids are given explicitly so that rows, parents and FTS rows go in with executemany.
    row = conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()
    assert row is not None  # an aggregate always returns a row
    return int(row[0])


def _insert_sections(conn: Connection, doc_id: int, rows: list[tuple[Any, ...]]) -> dict[int, int]:
    base = _next_id(conn, "sections")
    conn.executemany(
        """INSERT INTO sections(id, doc_id, ord, level, depth, title, title_fold, number, anchor,
          parent_id,
                                line, end_line, own_end_line, page)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            (base + r[0], doc_id, *r[:7], None if r[7] is None else base + r[7], *r[8:])
            for r in rows
        ],
    )
    return {r[0]: base + r[0] for r in rows}


def _insert_chunks(
    conn: Connection,
    doc_id: int,
    parsed: Parsed,
    section_ids: dict[int, int],
    fts: FtsWrites | None,
) -> None:
    base = _next_id(conn, "chunks")
    rows = parsed.chunk_rows
    conn.executemany(
        """INSERT INTO chunks(id, doc_id, section_id, chunk_index, line, end_line, page,
          start_offset, end_offset,
                              content, fold, content_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            (base + i, doc_id, None if r[0] is None else section_ids[r[0]], *r[1:10])
            for i, r in enumerate(rows)
        ],
    )
    _fts(conn, fts, _FTS_INSERT, [(base + i, r[10], r[11]) for i, r in enumerate(rows)])
    if writes_chunk_trigrams(conn):  # r[7] content, r[8] its fold (None: the same)
        _fts(
            conn,
            fts,
            _TRIGRAM_INSERT,
            [(base + i, r[7] if r[8] is None else r[8]) for i, r in enumerate(rows)],
        )


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


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _insert_extras(conn: Connection, doc_id: int, parsed: Parsed) -> None:
    doc = parsed.doc
    if doc.frontmatter is not None:
        conn.execute(
            "INSERT INTO frontmatter(doc_id, data) VALUES (?, ?)", (doc_id, _json(doc.frontmatter))
        )
    conn.executemany(
        "INSERT INTO codeblocks(doc_id, ord, language, code, body_start, body_end, line, "
        "end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (doc_id, i, b.language, *stored, b.line, b.end_line)
            for i, (b, stored) in enumerate(zip(doc.codeblocks, parsed.code_storage))
        ],
    )
    conn.executemany(
        """INSERT INTO tables(doc_id, ord, headers, rows, row_count, column_count, line, end_line)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            (
                doc_id,
                i,
                _json(t.headers),
                _json(t.rows),
                len(t.rows),
                max([len(t.headers)] + [len(r) for r in t.rows]),
                t.line,
                t.end_line,
            )
            for i, t in enumerate(doc.tables)
        ],
    )
    conn.executemany(
        """INSERT INTO entities(doc_id, ord, entity_type, name, name_fold, signature, definition,
          line, end_line)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            (
                doc_id,
                i,
                e.entity_type,
                e.name,
                fold(e.name),
                e.signature,
                e.definition,
                e.line,
                e.end_line,
            )
            for i, e in enumerate(doc.entities)
        ],
    )
    conn.executemany(
        """INSERT INTO symbols(doc_id, ord, kind, name, name_fold, qualified_name, signature,
          language, parent,
                               line, end_line, docstring)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            (
                doc_id,
                i,
                s.kind,
                s.name,
                fold(s.name),
                s.qualified_name,
                s.signature,
                s.language,
                s.parent,
                s.line,
                s.end_line,
                s.docstring,
            )
            for i, s in enumerate(doc.symbols)
        ],
    )
    _insert_references(conn, doc_id, doc)


def _insert_references(conn: Connection, doc_id: int, doc: Document) -> None:
    """A code file's references (unresolved until the run's resolution pass) and imports;
    the names it defines are queued so that references to them elsewhere are resolved again."""
    if not (doc.references or doc.imports or doc.symbols):
        return
    conn.executemany(
        "INSERT INTO refs(doc_id, ord, name, kind, caller_ord, line, end_line, col) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (doc_id, i, r.name, r.kind, r.caller_ord, r.line, r.end_line, r.column)
            for i, r in enumerate(doc.references)
        ],
    )
    conn.executemany(
        "INSERT INTO imports(doc_id, ord, module, names, line, end_line) VALUES (?, ?, ?, ?, ?, ?)",
        [
            (doc_id, i, m.module, _json(m.names), m.line, m.end_line)
            for i, m in enumerate(doc.imports)
        ],
    )
    queue_resolution(conn, doc_id)


def queue_resolution(conn: Connection, doc_id: int) -> None:
    """Queue the names `doc_id` defines (before a delete, after an insert): references to
    them anywhere may now resolve differently (`resolve.py`)."""
    conn.execute(
        "INSERT OR IGNORE INTO refs_pending(name) SELECT DISTINCT name FROM symbols "
        "WHERE doc_id = ?",
        (doc_id,),
    )


def record_problem(
    conn: Connection,
    path: str,
    uri: str,
    severity: str,
    reason: str,
    file_stat: tuple[int, int | None] | None = None,
) -> None:
    """One row of `ingest_errors`; `file_stat` (size, mtime_ns) of a file that failed to
    parse lets the next run skip it until it changes (`failed_files`)."""
    size, mtime_ns = file_stat if file_stat is not None else (None, None)
    conn.execute(
        "INSERT INTO ingest_errors(path, uri, severity, reason, at, size, mtime_ns) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (shown(path), shown(uri), severity, shown(reason), now(), size, mtime_ns),
    )


def failed_files(conn: Connection) -> dict[str, tuple[tuple[int, int | None], str]]:
    """uri → ((size, mtime_ns), reason) of the files whose last parse failed, as they were."""
    return {
        uri: ((size, mtime_ns), reason)
        for uri, size, mtime_ns, reason in conn.execute(
            "SELECT uri, size, mtime_ns, reason FROM ingest_errors "
            "WHERE severity = 'error' AND size IS NOT NULL"
        )
    }


def clear_problems(conn: Connection, uri: str) -> None:
    conn.execute("DELETE FROM ingest_errors WHERE uri = ?", (shown(uri),))
