"""The read-side SQL behind `Index` that is not DocQL: documents, outlines, text, figures.

Kept here, beside the compiler, so that query SQL lives in one package (docs/design.md
§2); `index.py` only decides what to ask. Every function reads a `Store` (either
engine): the SQL is written once, with `?` markers, and the store's dialect spells the
markers and the code-point order of paths (`COLLATE "C"` on PostgreSQL).
"""

from __future__ import annotations

import json
import os

from .. import globs
from ..errors import DocQLError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

    from ..store import Store


def _like_suffix(path: str) -> str:
    return "%/" + path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _rows(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    return store.rows(store.dialect.positional(sql), params)


def _tuples(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return [tuple(r.values()) for r in _rows(store, sql, params)]


def _first(store: Store, sql: str, params: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    found = _tuples(store, sql, params)
    return found[0] if found else None


def _scalar(store: Store, sql: str, params: tuple[Any, ...] = ()) -> Any:
    return store.scalar(store.dialect.positional(sql), params)


def find_document(store: Store, path: str) -> tuple[int, str] | None:
    """(doc id, path) of the document named `path`: exact path or URI, absolute path,
    or a unique path suffix. Several documents ending in `path` is an error naming them."""
    row = _first(store, "SELECT id, path FROM documents WHERE path = ? OR uri = ?", (path, path))
    if row is None:
        absolute = os.path.abspath(path)
        row = _first(store, "SELECT id, path FROM documents WHERE uri = ?", (absolute,))
    if row is None:
        candidates = _tuples(
            store,
            "SELECT id, path FROM documents WHERE path LIKE ? ESCAPE '\\' "
            f"ORDER BY {store.dialect.sort_key('path')}",
            (_like_suffix(path),),
        )
        if len(candidates) == 1:
            row = candidates[0]
        elif len(candidates) > 1:
            names = ", ".join(f"'{c[1]}'" for c in candidates[:5])
            raise DocQLError(
                f"'{path}' matches {len(candidates)} documents ({names}); give more of the path"
            )
    return (row[0], row[1]) if row is not None else None


def documents(store: Store, patterns: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every document (id, path, format, lines, pages, size), optionally matching globs."""
    docs = _rows(
        store,
        "SELECT id, path, format, lines, pages, size FROM documents "
        f"ORDER BY {store.dialect.sort_key('path')}",
    )
    if not patterns:
        return docs
    matches = globs.matcher(patterns)
    return [d for d in docs if matches(d["path"])]


def outline(store: Store, doc_id: int | None) -> list[dict[str, Any]]:
    where, params = ("WHERE s.doc_id = ?", (doc_id,)) if doc_id is not None else ("", ())
    sql = f"""SELECT d.path, s.level, s.number, s.title, s.anchor, s.line, s.end_line, s.page
              FROM sections s JOIN documents d ON d.id = s.doc_id {where}
              ORDER BY {store.dialect.sort_key("d.path")}, s.ord"""
    return _rows(store, sql, params)


def line_count(store: Store, doc_id: int) -> int:
    """How many lines the document has (its indexed text split at "\n", a final one
    ending the last line)."""
    return int(_scalar(store, "SELECT lines FROM documents WHERE id = ?", (doc_id,)) or 0)


def document_lines(store: Store, doc_id: int, first: int, last: int) -> list[str]:
    """Lines `first`..`last` (1-based, both within the document) of the document's text,
    reading only the chunks that hold them: chunks tile the lines after the header in
    order (spec §1.3), a long line may run over several chunks, and a chunk's `line`
    is the line its text starts in. A line out of a 20 MB file took 50 ms when the
    whole text was joined for it; now the time of its chunks."""
    header, body_line = _first(
        store, "SELECT header_text, body_line FROM documents WHERE id = ?", (doc_id,)
    ) or ("", 1)
    text, start = "", max(first, body_line)
    if first < body_line:
        text, start = header, 1
    if last >= body_line:
        rows = _tuples(
            store,
            "SELECT line, content FROM chunks WHERE doc_id = ? AND end_line >= ? AND line <= ? "
            "ORDER BY chunk_index",
            (doc_id, max(first, body_line), last),
        )
        if rows:
            if not text:
                start = rows[0][0]
            text += "".join(r[1] for r in rows)
    lines = text.split("\n")
    return lines[first - start : last - start + 1]


def page_lines(store: Store, doc_id: int, page: int) -> tuple[int, int] | None:
    """The first and last line of page `page` of a paged document (PDF), or None.

    From the stored page map (`documents.page_lines`, schema 4), which also covers front
    matter pages that have no chunks; else from the chunks' pages (older documents)."""
    stored = _first(store, "SELECT page_lines, lines FROM documents WHERE id = ?", (doc_id,))
    if stored and stored[0]:
        starts = json.loads(stored[0])
        if not 1 <= page <= len(starts):
            return None
        end = starts[page] - 1 if page < len(starts) else stored[1]
        return starts[page - 1], max(starts[page - 1], end)
    row = _first(
        store,
        "SELECT min(line), max(end_line) FROM chunks WHERE doc_id = ? AND page = ?",
        (doc_id, page),
    )
    return (row[0], row[1]) if row and row[0] is not None else None


def page_count(store: Store, doc_id: int) -> int | None:
    row = _first(store, "SELECT pages FROM documents WHERE id = ?", (doc_id,))
    return row[0] if row else None


def figures(store: Store) -> dict[str, Any]:
    """Counts for `status`: documents by format, sections, chunks, symbols, errors."""
    sort_key = store.dialect.sort_key

    def count(sql: str) -> int:
        return int(_scalar(store, sql))

    by_format = dict(
        _tuples(
            store,
            f"SELECT format, count(*) FROM documents GROUP BY format ORDER BY {sort_key('format')}",
        )
    )
    languages = dict(
        _tuples(
            store,
            "SELECT language, count(*) FROM documents WHERE format = 'code' "
            f"GROUP BY language ORDER BY count(*) DESC, {sort_key('language')}",
        )
    )
    return {
        "documents": count("SELECT count(*) FROM documents"),
        "by_format": by_format,
        "code_languages": languages,
        "sections": count("SELECT count(*) FROM sections"),
        "chunks": count("SELECT count(*) FROM chunks"),
        "symbols": count("SELECT count(*) FROM symbols"),
        "entities": count("SELECT count(*) FROM entities"),
        "errors": count("SELECT count(*) FROM ingest_errors WHERE severity = 'error'"),
        "warnings": count("SELECT count(*) FROM ingest_errors WHERE severity = 'warning'"),
    }


def ingest_errors(store: Store) -> list[dict[str, Any]]:
    return _rows(
        store,
        "SELECT path, severity, reason, at FROM ingest_errors "
        f"ORDER BY {store.dialect.sort_key('path')}, id",
    )


def meta_value(store: Store, key: str) -> str | None:
    """One `meta` value (None when the key is not there)."""
    value = _scalar(store, "SELECT value FROM meta WHERE key = ?", (key,))
    return None if value is None else str(value)
