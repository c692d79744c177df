"""The read-side SQL behind `Index` that is not DocQL: documents, outlines, text, figures.

Kept here, beside the compiler, so that query SQL lives in one package (docs/design.md
§2); `index.py` only decides what to ask.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Iterator
from typing import Any

from .. import db
from ..errors import DocQLError


def _like_suffix(path: str) -> str:
    return "%/" + path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def find_document(conn: db.Connection, path: str) -> tuple[int, str] | None:
    """(doc id, path) of the document named `path`: exact path or URI, absolute path,
    or a unique path suffix. Several documents ending in `path` is an error naming them."""
    row: Any = conn.execute(
        "SELECT id, path FROM documents WHERE path = ? OR uri = ?", (path, path)
    ).fetchone()
    if row is None:
        absolute = os.path.abspath(path)
        row = conn.execute("SELECT id, path FROM documents WHERE uri = ?", (absolute,)).fetchone()
    if row is None:
        candidates = conn.execute(
            "SELECT id, path FROM documents WHERE path LIKE ? ESCAPE '\\' ORDER BY path",
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


def documents(conn: db.Connection, patterns: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every document (id, path, format, lines, pages, size), optionally matching globs."""
    docs = db.rows(conn, "SELECT id, path, format, lines, pages, size FROM documents ORDER BY path")
    return [d for d in docs if not patterns or any(fnmatch.fnmatch(d["path"], g) for g in patterns)]


def outline(conn: db.Connection, doc_id: int | None) -> list[dict[str, Any]]:
    where, params = ("WHERE s.doc_id = ?", (doc_id,)) if doc_id is not None else ("", ())
    sql = f"""SELECT d.path, s.level, s.number, s.title, s.anchor, s.line, s.end_line, s.page
              FROM sections s JOIN documents d ON d.id = s.doc_id {where}
              ORDER BY d.path, s.ord"""
    return list(db.rows(conn, sql, params))


def document_text(conn: db.Connection, doc_id: int) -> str:
    """The text of a document as indexed (its header, then its chunks in order)."""
    header = conn.execute("SELECT header_text FROM documents WHERE id = ?", (doc_id,)).fetchone()
    body = "".join(
        r[0]
        for r in conn.execute(
            "SELECT content FROM chunks WHERE doc_id = ? ORDER BY chunk_index", (doc_id,)
        )
    )
    return (header[0] if header else "") + body


def page_lines(conn: db.Connection, doc_id: int, page: int) -> tuple[int, int] | None:
    """The first and last line of page `page` of a paged document (PDF), or None.

    From the stored page map (`documents.page_lines`, schema 4), which also covers front
    matter pages that have no chunks; else from the chunks' pages (older documents)."""
    stored = conn.execute(
        "SELECT page_lines, lines FROM documents WHERE id = ?", (doc_id,)
    ).fetchone()
    if stored and stored[0]:
        starts = json.loads(stored[0])
        if not 1 <= page <= len(starts):
            return None
        end = starts[page] - 1 if page < len(starts) else stored[1]
        return starts[page - 1], max(starts[page - 1], end)
    row = conn.execute(
        "SELECT min(line), max(end_line) FROM chunks WHERE doc_id = ? AND page = ?",
        (doc_id, page),
    ).fetchone()
    return (row[0], row[1]) if row and row[0] is not None else None


def page_count(conn: db.Connection, doc_id: int) -> int | None:
    row = conn.execute("SELECT pages FROM documents WHERE id = ?", (doc_id,)).fetchone()
    return row[0] if row else None


def figures(conn: db.Connection) -> dict[str, Any]:
    """Counts for `status`: documents by format, sections, chunks, symbols, errors."""

    def count(sql: str) -> int:
        return int(db.scalar(conn, sql))

    by_format = dict(
        conn.execute("SELECT format, count(*) FROM documents GROUP BY format ORDER BY format")
    )
    languages = dict(
        conn.execute(
            "SELECT language, count(*) FROM documents WHERE format = 'code' "
            "GROUP BY language ORDER BY count(*) DESC, language"
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


def ingest_errors(conn: db.Connection) -> Iterator[dict[str, Any]]:
    return db.rows(conn, "SELECT path, severity, reason, at FROM ingest_errors ORDER BY path, id")
