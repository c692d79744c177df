"""The content of an index, engine-neutral: every stored row without its ids (ids are
per engine and per writer), keyed by document path and ordinal instead. Two indexes of
the same files hold the same rows exactly when these multisets are equal — the oracle of
the concurrent-writer tests (PostgreSQL, many writers) against a single-writer file."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CONTENT_SQL = {
    "documents": "SELECT path, uri, name, directory, extension, format, language, title, size, "
    "lines, pages, mtime, mtime_ns, sha256, header_text, body_line, chunk_chars, uri_bytes "
    "FROM documents",
    "sections": "SELECT d.path, s.ord, s.level, s.depth, s.title, s.title_fold, s.number, "
    "s.anchor, p.ord, s.line, s.end_line, s.own_end_line, s.page FROM sections s "
    "JOIN documents d ON d.id = s.doc_id LEFT JOIN sections p ON p.id = s.parent_id",
    "chunks": "SELECT d.path, c.chunk_index, s.ord, c.line, c.end_line, c.page, c.start_offset, "
    "c.end_offset, c.content, c.fold, c.content_hash FROM chunks c "
    "JOIN documents d ON d.id = c.doc_id LEFT JOIN sections s ON s.id = c.section_id",
    "codeblocks": "SELECT d.path, b.ord, b.language, b.code, b.line, b.end_line, b.body_start, "
    "b.body_end FROM codeblocks b JOIN documents d ON d.id = b.doc_id",
    "tables": "SELECT d.path, t.ord, t.headers, t.rows, t.row_count, t.column_count, t.line, "
    "t.end_line FROM tables t JOIN documents d ON d.id = t.doc_id",
    "frontmatter": "SELECT d.path, f.data FROM frontmatter f JOIN documents d ON d.id = f.doc_id",
    "entities": "SELECT d.path, e.ord, e.entity_type, e.name, e.name_fold, e.signature, "
    "e.definition, e.line, e.end_line FROM entities e JOIN documents d ON d.id = e.doc_id",
    "symbols": "SELECT d.path, y.ord, y.kind, y.name, y.name_fold, y.qualified_name, y.signature, "
    "y.language, y.parent, y.line, y.end_line, y.docstring FROM symbols y "
    "JOIN documents d ON d.id = y.doc_id",
    "refs": "SELECT d.path, r.ord, r.name, r.kind, r.caller_ord, r.line, r.end_line, r.col, "
    "td.path, t.ord, r.resolution, r.candidates FROM refs r JOIN documents d ON d.id = r.doc_id "
    "LEFT JOIN symbols t ON t.id = r.target_id LEFT JOIN documents td ON td.id = t.doc_id",
    "imports": "SELECT d.path, m.ord, m.module, m.names, m.line, m.end_line, m.alias "
    "FROM imports m JOIN documents d ON d.id = m.doc_id",
    "ingest_errors": "SELECT path, uri, severity, reason FROM ingest_errors",
}


def content(run: Callable[[str], list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    """{table: its rows without ids, sorted} through `run(sql) -> rows` of either engine."""
    result = {}
    for table, sql in CONTENT_SQL.items():
        rows = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in run(sql)]
        result[table] = sorted(rows, key=repr)
    return result


def sqlite_runner(path: Any) -> Callable[[str], list[tuple[Any, ...]]]:
    from conftest import query

    return lambda sql: query(path, sql)


def postgres_runner(url: str) -> Callable[[str], list[tuple[Any, ...]]]:
    import psycopg

    def run(sql: str) -> list[tuple[Any, ...]]:
        with psycopg.connect(url) as conn:
            return [tuple(r) for r in conn.execute(sql.encode()).fetchall()]

    return run
