"""`Writer`: the write side of a `Store`, as the one writer (`ingest/`) drives it.

`ingest/run.py` decides what an `index` run does (which files changed, which documents
are gone: the pure plan) and `ingest/embed.py` which chunks need vectors; a `Writer`
only writes, in its engine's way. What the engines do differently is a property or a
method here, never a check of the engine's name:

- SQLite (`store/sqlite/writer.py`): one writer per file. Documents are written in
  batches, one transaction per batch, each document in a savepoint of it (a document
  whose rows cannot be written rolls back alone), full-text rows applied once per batch.
- PostgreSQL (`store/postgres/writer.py`): many writers at once, on many machines. Each
  document commits alone, under a transaction-level advisory lock on its URI; ids come
  from sequences; the chunks' tsvector literals are built by the parser processes.

The records that cross between the run and the writer (`StoredDoc`, `Parsed`) live here,
so that neither side imports the other.
"""

from __future__ import annotations

import functools
import json
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ..model import pickled_by_fields
from ..schema import VEC_TABLE
from ..text import fold

if TYPE_CHECKING:
    from ..dialect import Dialect
    from ..ingest.chunk import ChunkInfo
    from ..ingest.sections import SectionInfo
    from ..model import Document, ReferenceRow
    from .base import Store


class StoredDoc(NamedTuple):
    """What the index already holds for a file: enough to skip it when unchanged."""

    id: int
    size: int
    mtime_ns: int | None
    sha256: str
    path: str
    chunk_chars: int | None  # None: indexed before chunk sizes were recorded per document
    uri_bytes: bytes | None = None  # the exact path when `uri` is an escaped form (paths.py)
    format: str | None = None
    content_rules: int | None = None  # None: indexed before content rules were recorded


@pickled_by_fields
@dataclass(slots=True)
class Parsed:
    """Everything a parser process hands the writer for one file (`ingest/rows.py`
    computes the rows in that process, so that the writer only inserts)."""

    path: str  # as shown (`ingest/paths.py`): undecodable bytes escaped, once the rows are made
    uri: str  # likewise
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
    uri_bytes: bytes | None = None  # the exact path when `uri` is an escaped form
    tsvectors: list[str] | None = None  # PostgreSQL's full-text rows (`Writer.wants_tsvectors`)
    # `doc.reference_rows` as `refs_staged` holds them (`references_json`), made by a
    # parser worker (`rows.for_writer`, which drops the rows): one string crosses the pipe
    # to the writer, not a tuple per reference. None: read the rows.
    references_json: str | None = None


# uri → ((size, mtime_ns), reason) of the files whose last parse failed, as they were.
FailedFiles = dict[str, tuple[tuple[int, int | None], str]]
# (chunk id, document id, content hash, content) of a chunk without a current vector; the
# hash is `chunks.content_hash` (schema.CONTENT_HASH_BYTES bytes of the text's sha256).
StaleChunk = tuple[int, int, bytes, str]
# The resolution pass of `ingest/resolve.py`: (connection, names, staged, dialect) →
# references resolved. `staged`: (doc_id, refs) rows of `refs_staged`, by doc_id.
Resolve = Callable[[Any, set[str], list[tuple[int, str]], "Dialect"], int]


class DocumentNotStored(Exception):  # noqa: N818 - an outcome the run records, not a crash
    """One document's rows could not be written: they were rolled back alone, the run
    records `reason` for the file and goes on (errors about the index as a whole, such
    as a full disk, are `DocQLError`s and stop the run)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def now() -> str:
    """The time a row is written, as the index stores it (UTC, to the second).

    The text is made once a second (`_second_text`): `datetime.now(...).strftime` cost
    5 µs a document (13 ms of the writer's ~400 on the Markdown mix)."""
    return _second_text(int(time.time()))


@functools.lru_cache(maxsize=1)  # a pure function of the second: the last one's text
def _second_text(second: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))


def to_json(value: Any) -> str:
    """A JSON column's text (the same on both engines)."""
    return json.dumps(value, ensure_ascii=False, default=str)


class Writer(ABC):
    """What an `index` or `embed` run asks of the engine it writes to.

    Functions that write one document (`replace_document`, `delete_document`, `touch`,
    `record_problem`, `clear_problems`) run inside `document(uri)`, itself inside
    `batch()`; the others own their transactions.
    """

    store: Store
    # Several documents share one transaction (`batch()`): the run groups them by
    # `IngestOptions.batch_docs` / `batch_seconds`. False: each commits alone.
    batch_documents: bool
    # Other writers may write the same index at once (the engine serialises them per
    # document); False: this is the index's one writer.
    concurrent: bool
    # The parser processes build the chunks' tsvector literals (`Parsed.tsvectors`).
    wants_tsvectors: bool

    # -- a run ------------------------------------------------------------------------
    @abstractmethod
    def run_errors(self) -> AbstractContextManager[None]:
        """Around an index run: an error about the index as a whole (a full disk, a lost
        connection) becomes one `DocQLError` that says what is kept and how to finish."""

    @abstractmethod
    def prepare(self, *, trigram: bool) -> None:
        """Set up what this writer needs before the first document (`trigram`: add the
        chunks' substring index, where the engine has one)."""

    @abstractmethod
    def stored_documents(self) -> dict[str, StoredDoc]:
        """What the index holds, by URI."""

    @abstractmethod
    def failed_files(self) -> FailedFiles:
        """The failed-file memo: files whose last parse failed, with their size and mtime
        then (the plan skips them while both still match)."""

    @abstractmethod
    def error_uris(self) -> list[str]:
        """Every URI that has a row in `ingest_errors`."""

    @abstractmethod
    def move_documents(self, moves: list[tuple[str, str, bytes | None]]) -> None:
        """(old uri, new uri, new uri_bytes): documents whose folder moved keep their rows."""

    @abstractmethod
    def rename_documents(self, renamed: list[tuple[str, str]]) -> None:
        """(path, uri): unchanged documents now shown under another path."""

    @abstractmethod
    def batch(self) -> AbstractContextManager[None]:
        """A group of `document` blocks (one transaction where `batch_documents`)."""

    @abstractmethod
    def document(self, uri: str) -> AbstractContextManager[None]:
        """One document's writes, all or none; raises `DocumentNotStored` (after rolling
        them back) when its rows cannot be written."""

    @abstractmethod
    def replace_document(self, parsed: Parsed) -> None:
        """Write the rows of `parsed`, replacing those its URI had."""

    @abstractmethod
    def delete_document(self, uri: str) -> None:
        """Remove a document and its rows (its vectors stay until the next embed, which
        reuses them for unchanged text, then drops them)."""

    @abstractmethod
    def touch(self, uri: str, mtime_ns: int | None, path: str) -> None:
        """An unchanged document (same bytes) with a new mtime or shown path."""

    @abstractmethod
    def record_problem(
        self,
        path: str,
        uri: str,
        severity: str,
        reason: str,
        file_stat: tuple[int, int | None] | None = None,
    ) -> None:
        """One row of `ingest_errors`; `file_stat` (size, mtime_ns) of a file that failed
        to parse feeds the failed-file memo."""

    @abstractmethod
    def clear_problems(self, uri: str) -> None: ...

    @abstractmethod
    def resolve_references(self, resolve: Resolve) -> None:
        """Run the resolution pass over the queued names (`ingest/resolve.py`), once
        every write of the run is done, one writer at a time."""

    @abstractmethod
    def meta(self, key: str) -> str | None:
        """One `meta` value, or None."""

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None:
        """One `meta` row, committed."""

    @abstractmethod
    def finish(self) -> None:
        """The end of a successful run (SQLite: the WAL into the main file)."""

    # -- vectors ----------------------------------------------------------------------
    @abstractmethod
    def embed_errors(self) -> AbstractContextManager[None]:
        """Around an embed run: the engine's errors become `EmbeddingError`s."""

    @abstractmethod
    def check_vectors(self) -> None:
        """Raise `EmbeddingError` when this engine cannot store vectors here."""

    @abstractmethod
    def set_vector_model(
        self, model_id: str, dimensions: int, fingerprint: str, *, replace: bool
    ) -> int:
        """Make the vector table hold this model's vectors, its `meta` rows with it.
        `replace`: the old model's vectors go first (in the same transaction where the
        engine can); else a table already there stays as it is (the caller checks its
        model). Returns how many vectors went."""

    @abstractmethod
    def stale_chunk_count(self) -> int:
        """Chunks without a current vector (none, or for other text or another document)."""

    @abstractmethod
    def stale_chunks(self) -> list[StaleChunk]:
        """Those chunks, in id order."""

    @abstractmethod
    def chunk_count(self) -> int: ...

    def chunks_with_vectors(self) -> list[StaleChunk]:
        """(id, document id, content hash, content) of the chunks with a current vector,
        in id order. The same SQL on both engines."""
        sql = (
            "SELECT c.id, c.doc_id, c.content_hash, c.content FROM chunks c "
            "JOIN chunk_vectors cv ON cv.chunk_id = c.id AND cv.content_hash = c.content_hash "
            f"AND cv.doc_id = c.doc_id WHERE c.id IN (SELECT rowid FROM {VEC_TABLE}) "
            "ORDER BY c.id"
        )
        return [(int(a), int(b), bytes(h), str(t)) for a, b, h, t in self._read(sql, [])]

    @abstractmethod
    def stored_vectors(self, hashes: set[bytes]) -> dict[bytes, Any]:
        """A stored vector per content hash among `hashes` (values as `vector_value`
        gives them: only this writer reads them)."""

    @abstractmethod
    def vector_value(self, blob: bytes) -> Any:
        """A float32 vector blob (`embedders.encode`) as this engine writes it."""

    @abstractmethod
    def write_vectors(self, rows: list[tuple[int, int, bytes, Any]]) -> None:
        """(chunk id, document id, content hash, vector value): one transaction. A vector
        of None: the chunk has nothing to embed (`passage_text.nothing_to_embed`): its
        `chunk_vectors` row records that its text was seen (it is not stale), and any
        vector it had goes."""

    @abstractmethod
    def drop_orphan_vectors(self) -> int:
        """Drop the vectors of chunks that are gone; how many went."""

    # -- what a code chunk's vector is computed from (`ingest/vector_text.py`) ---------
    def code_outlines(self, doc_ids: set[int]) -> dict[int, dict[str, Any]]:
        """For each document of `doc_ids` that has symbols: {"path", "chunks": {chunk id:
        (line, end_line)}, "symbols": [(name, qualified_name, signature, docstring, line,
        end_line)]}. The same SQL on both engines."""
        found: dict[int, dict[str, Any]] = {}
        ids = sorted(doc_ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for row in self._read(
                "SELECT doc_id, name, qualified_name, signature, docstring, line, end_line "
                f"FROM symbols WHERE doc_id IN ({marks}) ORDER BY doc_id, ord",
                part,
            ):
                outline = found.setdefault(row[0], {"path": "", "chunks": {}, "symbols": []})
                outline["symbols"].append(row[1:])
        with_symbols = sorted(found)
        for start in range(0, len(with_symbols), 500):
            part = with_symbols[start : start + 500]
            marks = ",".join("?" * len(part))
            for doc_id, path in self._read(
                f"SELECT id, path FROM documents WHERE id IN ({marks})", part
            ):
                found[doc_id]["path"] = path
            for chunk_id, doc_id, line, end_line in self._read(
                f"SELECT id, doc_id, line, end_line FROM chunks WHERE doc_id IN ({marks})", part
            ):
                found[doc_id]["chunks"][chunk_id] = (line, end_line)
        return found

    def code_chunks(self) -> list[StaleChunk]:
        """Every chunk of a document that has symbols, as `stale_chunks` gives them (what
        a change of the code vector text re-embeds)."""
        return [
            (int(a), int(b), bytes(c), str(d))
            for a, b, c, d in self._read(
                "SELECT c.id, c.doc_id, c.content_hash, c.content FROM chunks c "
                "WHERE c.doc_id IN (SELECT DISTINCT doc_id FROM symbols) ORDER BY c.id",
                [],
            )
        ]

    def code_chunk_count(self) -> int:
        rows = self._read(
            "SELECT count(*) FROM chunks WHERE doc_id IN (SELECT DISTINCT doc_id FROM symbols)",
            [],
        )
        return int(rows[0][0])

    def long_line_documents(self) -> set[int]:
        """The documents with a chunk of one line of 8 KB or more: those whose lines over
        16 KB were cut at fixed windows before `chunk.split_long_line` cut them into
        equal pieces (the offsets are integers of the row: no text is read)."""
        return {
            int(doc_id)
            for (doc_id,) in self._read(
                "SELECT DISTINCT doc_id FROM chunks "
                "WHERE line = end_line AND end_offset - start_offset >= 8192",
                [],
            )
        }

    def _read(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        return [
            tuple(r.values()) for r in self.store.rows(self.store.dialect.positional(sql), params)
        ]


# -- a document's rows, the same on both engines ----------------------------------------
DOCUMENT_COLUMNS = (
    "path, uri, name, directory, extension, format, language, title, size, lines, pages, "
    "mtime, mtime_ns, sha256, header_text, body_line, indexed_at, chunk_chars, uri_bytes, "
    "content_rules, page_lines"
)


def document_values(parsed: Parsed) -> tuple[Any, ...]:
    """The `documents` row of `parsed`, in `DOCUMENT_COLUMNS` order."""
    doc = parsed.doc
    path = parsed.path
    name = path.rstrip("/").rsplit("/", 1)[-1]
    directory = path[: -len(name)].rstrip("/") if "/" in path else ""
    extension = os.path.splitext(name.split("?")[0])[1][1:].lower()
    return (
        path,
        parsed.uri,
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
        parsed.uri_bytes,
        parsed.content_rules,
        to_json(doc.page_lines) if doc.page_lines else None,
    )


def codeblock_rows(doc_id: int, parsed: Parsed) -> list[tuple[Any, ...]]:
    doc = parsed.doc
    return [
        (doc_id, i, b.language, *stored, b.line, b.end_line)
        for i, (b, stored) in enumerate(zip(doc.codeblocks, parsed.code_storage))
    ]


def table_rows(doc_id: int, parsed: Parsed) -> list[tuple[Any, ...]]:
    return [
        (
            doc_id,
            i,
            to_json(t.headers),
            to_json(t.rows),
            len(t.rows),
            max([len(t.headers)] + [len(r) for r in t.rows]),
            t.line,
            t.end_line,
        )
        for i, t in enumerate(parsed.doc.tables)
    ]


def entity_rows(doc_id: int, parsed: Parsed) -> list[tuple[Any, ...]]:
    return [
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
        for i, e in enumerate(parsed.doc.entities)
    ]


def symbol_rows(doc_id: int, parsed: Parsed) -> list[tuple[Any, ...]]:
    return [
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
        for i, s in enumerate(parsed.doc.symbols)
    ]


def staged_references(parsed: Parsed) -> str | None:
    """The `refs_staged.refs` text of `parsed`: None when it has no references."""
    text = parsed.references_json
    if text is None:  # in one process: straight from the objects
        rows = parsed.doc.reference_rows
        text = references_json(rows) if rows else None
    return text if text and text != "[]" else None


def references_json(rows: list[ReferenceRow]) -> str:
    """A document's references as `refs_staged.refs` holds them until the resolution pass
    (`ingest/resolve.py`) inserts them into `refs`: a JSON array of its `reference_rows`,
    [name, kind, caller_ord, line, end_line, col, qualifier], in `ord` order, as `refs` stores
    them (schema 11): the kind's code (`ref_codes.REFERENCE_KINDS`), `end_line` null when
    it is `line`. One row and one string per file, not a row per reference: staging costs
    a `json.dumps`, and the pass a `json.loads`."""
    return _encode_references(rows)


# `references_json`'s encoder, made once: rows hold no container twice, so no check for
# cycles (~20 % of the encoding's time).
_encode_references = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False
).encode


def import_rows(doc_id: int, parsed: Parsed) -> list[tuple[Any, ...]]:
    return [
        (doc_id, i, m.module, to_json(m.names), m.line, m.end_line, m.alias)
        for i, m in enumerate(parsed.doc.imports)
    ]


__all__ = [
    "DOCUMENT_COLUMNS",
    "DocumentNotStored",
    "FailedFiles",
    "Parsed",
    "Resolve",
    "StaleChunk",
    "StoredDoc",
    "Writer",
    "codeblock_rows",
    "document_values",
    "entity_rows",
    "import_rows",
    "now",
    "references_json",
    "staged_references",
    "symbol_rows",
    "table_rows",
    "to_json",
]
