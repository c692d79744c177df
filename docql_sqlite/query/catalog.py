"""The read-side SQL behind `Index` that is not DocQL: documents, outlines, text, figures.

Kept here, beside the compiler, so that query SQL lives in one package (docs/design.md
§2); `index.py` only decides what to ask. Every function reads either engine: `conn` is
an apsw connection with `dialect=SQLITE` (the default) or a psycopg one with
`dialect=POSTGRES`; the SQL is written once, with `?` markers, and the dialect spells the
markers and the code-point order of paths (`COLLATE "C"` on PostgreSQL).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from .. import globs
from ..dialect import SQLITE, Dialect
from ..errors import DocQLError
from ..store.sqlite import db


def _like_suffix(path: str) -> str:
    return "%/" + path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _execute(conn: Any, dialect: Dialect, sql: str, params: Any = ()) -> Any:
    return conn.execute(dialect.positional(sql), params)


def _rows(conn: Any, dialect: Dialect, sql: str, params: Any = ()) -> Iterator[dict[str, Any]]:
    if dialect is SQLITE:
        yield from db.rows(conn, sql, params)
        return
    cursor = _execute(conn, dialect, sql, params)
    names = [column[0] for column in cursor.description or ()]
    for row in cursor:
        yield dict(zip(names, row))


def _scalar(conn: Any, dialect: Dialect, sql: str, params: Any = ()) -> Any:
    row = _execute(conn, dialect, sql, params).fetchone()
    return None if row is None else row[0]


def find_document(conn: Any, path: str, dialect: Dialect = SQLITE) -> tuple[int, str] | None:
    """(doc id, path) of the document named `path`: exact path or URI, absolute path,
    or a unique path suffix. Several documents ending in `path` is an error naming them."""
    row: Any = _execute(
        conn, dialect, "SELECT id, path FROM documents WHERE path = ? OR uri = ?", (path, path)
    ).fetchone()
    if row is None:
        absolute = os.path.abspath(path)
        row = _execute(
            conn, dialect, "SELECT id, path FROM documents WHERE uri = ?", (absolute,)
        ).fetchone()
    if row is None:
        candidates = _execute(
            conn,
            dialect,
            "SELECT id, path FROM documents WHERE path LIKE ? ESCAPE '\\' "
            f"ORDER BY {dialect.sort_key('path')}",
            (_like_suffix(path),),
        ).fetchall()
        if len(candidates) == 1:
            row = candidates[0]
        elif len(candidates) > 1:
            names = ", ".join(f"'{c[1]}'" for c in candidates[:5])
            raise DocQLError(
                f"'{path}' matches {len(candidates)} documents ({names}); give more of the path"
            )
    return (row[0], row[1]) if row is not None else None


def documents(
    conn: Any, patterns: tuple[str, ...] = (), dialect: Dialect = SQLITE
) -> list[dict[str, Any]]:
    """Every document (id, path, format, lines, pages, size), optionally matching globs."""
    docs = _rows(
        conn,
        dialect,
        "SELECT id, path, format, lines, pages, size FROM documents "
        f"ORDER BY {dialect.sort_key('path')}",
    )
    if not patterns:
        return list(docs)
    matches = globs.matcher(patterns)
    return [d for d in docs if matches(d["path"])]


def outline(conn: Any, doc_id: int | None, dialect: Dialect = SQLITE) -> list[dict[str, Any]]:
    where, params = ("WHERE s.doc_id = ?", (doc_id,)) if doc_id is not None else ("", ())
    sql = f"""SELECT d.path, s.level, s.number, s.title, s.anchor, s.line, s.end_line, s.page
              FROM sections s JOIN documents d ON d.id = s.doc_id {where}
              ORDER BY {dialect.sort_key("d.path")}, s.ord"""
    return list(_rows(conn, dialect, sql, params))


def document_text(conn: Any, doc_id: int, dialect: Dialect = SQLITE) -> str:
    """The text of a document as indexed (its header, then its chunks in order)."""
    header = _execute(
        conn, dialect, "SELECT header_text FROM documents WHERE id = ?", (doc_id,)
    ).fetchone()
    body = "".join(
        r[0]
        for r in _execute(
            conn,
            dialect,
            "SELECT content FROM chunks WHERE doc_id = ? ORDER BY chunk_index",
            (doc_id,),
        )
    )
    return (header[0] if header else "") + body


def page_lines(
    conn: Any, doc_id: int, page: int, dialect: Dialect = SQLITE
) -> tuple[int, int] | None:
    """The first and last line of page `page` of a paged document (PDF), or None.

    From the stored page map (`documents.page_lines`, schema 4), which also covers front
    matter pages that have no chunks; else from the chunks' pages (older documents)."""
    stored = _execute(
        conn, dialect, "SELECT page_lines, lines FROM documents WHERE id = ?", (doc_id,)
    ).fetchone()
    if stored and stored[0]:
        starts = json.loads(stored[0])
        if not 1 <= page <= len(starts):
            return None
        end = starts[page] - 1 if page < len(starts) else stored[1]
        return starts[page - 1], max(starts[page - 1], end)
    row = _execute(
        conn,
        dialect,
        "SELECT min(line), max(end_line) FROM chunks WHERE doc_id = ? AND page = ?",
        (doc_id, page),
    ).fetchone()
    return (row[0], row[1]) if row and row[0] is not None else None


def page_count(conn: Any, doc_id: int, dialect: Dialect = SQLITE) -> int | None:
    row = _execute(conn, dialect, "SELECT pages FROM documents WHERE id = ?", (doc_id,)).fetchone()
    return row[0] if row else None


def figures(conn: Any, dialect: Dialect = SQLITE) -> dict[str, Any]:
    """Counts for `status`: documents by format, sections, chunks, symbols, errors."""

    def count(sql: str) -> int:
        return int(_scalar(conn, dialect, sql))

    by_format = dict(
        _execute(
            conn,
            dialect,
            "SELECT format, count(*) FROM documents GROUP BY format "
            f"ORDER BY {dialect.sort_key('format')}",
        )
    )
    languages = dict(
        _execute(
            conn,
            dialect,
            "SELECT language, count(*) FROM documents WHERE format = 'code' "
            f"GROUP BY language ORDER BY count(*) DESC, {dialect.sort_key('language')}",
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


def ingest_errors(conn: Any, dialect: Dialect = SQLITE) -> Iterator[dict[str, Any]]:
    return _rows(
        conn,
        dialect,
        "SELECT path, severity, reason, at FROM ingest_errors "
        f"ORDER BY {dialect.sort_key('path')}, id",
    )


def meta_value(conn: Any, key: str, dialect: Dialect = SQLITE) -> str | None:
    """One `meta` value (None when the key is not there)."""
    value = _scalar(conn, dialect, "SELECT value FROM meta WHERE key = ?", (key,))
    return None if value is None else str(value)
