"""The Python API: `docql_sqlite.open(path)` → `Index`, the object every front end uses.

The CLI, the MCP server and the Datasette plugin are thin layers over these methods.
Reads go through a read-only connection, so nothing a user types can change the file.
"""

from __future__ import annotations

import fnmatch
import os
import re
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import db, deadline
from .errors import DocQLError
from .query import results
from .query.compiler import Compiled, compile_query

if TYPE_CHECKING:  # ingest pulls in workers and HTTP: loaded only when indexing
    from .ingest import IngestOptions, IngestReport

_GET_SPEC = re.compile(r"^(.*?)(?::(\d+)(?::(\d+))?)?$", re.S)


class Index:
    """An open index file."""

    def __init__(
        self,
        path: str | Path,
        *,
        readonly: bool = True,
        table_function: bool = True,
        timeout: float | None | str = "default",
    ) -> None:
        """Open `path`. `table_function` registers `docql(query)` for SQL on `self.conn`;
        the CLI, which runs no user SQL, skips it (it costs ~30 ms of start-up).
        `timeout` is each query's and search's time limit in seconds (None: none); by
        default $DOCQL_QUERY_TIMEOUT, else `deadline.DEFAULT_SECONDS`."""
        self.path = str(path)
        if isinstance(timeout, str) and timeout != "default":
            raise DocQLError(f"timeout must be a number of seconds or None, got {timeout!r}")
        self.timeout: float | None = (
            deadline.default_seconds() if isinstance(timeout, str) else timeout
        )
        self.conn = db.connect(self.path, readonly=readonly)
        if table_function:
            from . import tvf

            ref = weakref.ref(
                self
            )  # a weak reference: the connection must not keep the Index alive
            tvf.register(self.conn, lambda: ref())

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- documents -------------------------------------------------------------------
    def resolve_path(self, path: str) -> tuple[int, str]:
        """The (doc id, path) of the document named `path` (exact path, URI or unique suffix)."""
        row = self.conn.execute(
            "SELECT id, path FROM documents WHERE path = ? OR uri = ?", (path, path)
        ).fetchone()
        if row is None:
            absolute = os.path.abspath(path)
            row = self.conn.execute(
                "SELECT id, path FROM documents WHERE uri = ?", (absolute,)
            ).fetchone()
        if row is None:
            candidates = self.conn.execute(
                "SELECT id, path FROM documents WHERE path LIKE ? ESCAPE '\\' ORDER BY path",
                ("%/" + path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_"),),
            ).fetchall()
            if len(candidates) == 1:
                row = candidates[0]
            elif len(candidates) > 1:
                names = ", ".join(f"'{c[1]}'" for c in candidates[:5])
                raise DocQLError(
                    f"'{path}' matches {len(candidates)} documents ({names}); give more of the path"
                )
        if row is None:
            raise DocQLError(
                f"no document '{path}' in the index; list them with: docql-sqlite query "
                f"{self.path} '$.files'"
            )
        return row[0], row[1]

    def documents(self, globs: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        docs = list(db.rows(self.conn, "SELECT id, path FROM documents ORDER BY path"))
        return [d for d in docs if not globs or any(fnmatch.fnmatch(d["path"], g) for g in globs)]

    def toc(self, path: str | None = None) -> list[dict[str, Any]]:
        """The outline of one document (or of all), flattened pre-order."""
        where, params = "", ()
        if path:
            doc_id, _ = self.resolve_path(path)
            where, params = "WHERE s.doc_id = ?", (doc_id,)
        sql = f"""SELECT d.path, s.level, s.number, s.title, s.anchor, s.line, s.end_line, s.page
                  FROM sections s JOIN documents d ON d.id = s.doc_id {where} ORDER BY d.path,
                  s.ord"""
        return list(db.rows(self.conn, sql, params))

    def lines(self, spec: str) -> tuple[str, list[tuple[int, str]]]:
        """Lines of an indexed document, from the index: `PATH[:FROM[:COUNT]]`."""
        match = _GET_SPEC.match(spec)
        assert match is not None
        path, start, count = match.group(1), match.group(2), match.group(3)
        try:
            doc_id, shown = self.resolve_path(spec)
            start = count = None
        except DocQLError:
            doc_id, shown = self.resolve_path(path)
        text = self.document_text(doc_id)
        all_lines = text.split("\n")
        if text.endswith("\n"):
            all_lines.pop()
        first = max(1, int(start)) if start else 1
        last = len(all_lines) if not count else min(len(all_lines), first + int(count) - 1)
        return shown, [(n, all_lines[n - 1]) for n in range(first, last + 1)]

    def document_text(self, doc_id: int) -> str:
        header = self.conn.execute(
            "SELECT header_text FROM documents WHERE id = ?", (doc_id,)
        ).fetchone()[0]
        body = "".join(
            r[0]
            for r in self.conn.execute(
                "SELECT content FROM chunks WHERE doc_id = ? ORDER BY chunk_index", (doc_id,)
            )
        )
        return header + body

    def status(self) -> dict[str, Any]:
        c = self.conn
        count = lambda sql: c.execute(sql).fetchone()[0]  # noqa: E731
        by_format = {
            f: n
            for f, n in c.execute(
                "SELECT format, count(*) FROM documents GROUP BY format ORDER BY format"
            )
        }
        size = os.path.getsize(self.path) if os.path.exists(self.path) else 0
        wal = self.path + "-wal"
        return {
            "database": self.path,
            "schema_version": int(db.get_meta(c, "schema_version") or 0),
            "documents": count("SELECT count(*) FROM documents"),
            "by_format": by_format,
            "sections": count("SELECT count(*) FROM sections"),
            "chunks": count("SELECT count(*) FROM chunks"),
            "symbols": count("SELECT count(*) FROM symbols"),
            "entities": count("SELECT count(*) FROM entities"),
            "errors": count("SELECT count(*) FROM ingest_errors WHERE severity = 'error'"),
            "warnings": count("SELECT count(*) FROM ingest_errors WHERE severity = 'warning'"),
            "embedding_model": db.get_meta(c, "embedding_model"),
            "size_bytes": size + (os.path.getsize(wal) if os.path.exists(wal) else 0),
        }

    def errors(self) -> list[dict[str, Any]]:
        return list(
            db.rows(
                self.conn, "SELECT path, severity, reason, at FROM ingest_errors ORDER BY path, id"
            )
        )

    def rows(self, sql: str, params: Any = ()) -> Iterator[dict[str, Any]]:
        return db.rows(self.conn, sql, params)

    # -- DocQL -----------------------------------------------------------------------
    def compile(
        self,
        query: str,
        path: str | list[str] | tuple[str, ...] | None = None,
        limit: int | None = None,
    ) -> Compiled:
        """Compile DocQL to SQL without running it."""
        paths = (path,) if isinstance(path, str) else tuple(path or ())
        return compile_query(query, paths=paths, limit=limit, search_builder=self._search_builder())

    def query(
        self,
        query: str,
        path: str | list[str] | tuple[str, ...] | None = None,
        limit: int | None = None,
    ) -> list[Any]:
        """Run a DocQL query; returns result items (dicts with the spec's fields, or values)."""
        compiled = self.compile(query, path, limit)
        with deadline.limit(self.timeout):
            return list(results.build(compiled, self.execute(compiled)))

    def execute(self, compiled: Compiled) -> Iterator[dict[str, Any]]:
        """The rows of `compiled`, within the time limit; the time a row is out (with
        the caller) does not count."""
        with deadline.limit(self.timeout) as clock:
            try:
                for row in db.rows(self.conn, compiled.sql, compiled.params):
                    if clock is None:
                        yield row
                    else:
                        with clock.paused():
                            yield row
            except db.SQLError as exc:
                raise DocQLError(f"query failed in SQLite: {exc}") from exc

    def explain(
        self, query: str, path: str | list[str] | tuple[str, ...] | None = None
    ) -> dict[str, Any]:
        """Tokens, syntax tree, SQL, parameters and SQLite's query plan for `query`."""
        from .query import parse, tokenize

        compiled = self.compile(query, path)
        plan = [
            {"id": r[0], "parent": r[1], "detail": r[3]}
            for r in self.conn.execute("EXPLAIN QUERY PLAN " + compiled.sql, compiled.params)
        ]
        return {
            "query": query,
            "tokens": [
                {"type": t.type.name, "text": t.text, "offset": t.offset} for t in tokenize(query)
            ],
            "ast": parse(query).to_dict(),
            "item_type": compiled.item.name,
            "sql": compiled.sql,
            "params": compiled.params,
            "inline_sql": compiled.inline_sql(),
            "plan": plan,
            "notes": compiled.notes,
        }

    # -- search ----------------------------------------------------------------------
    def search(
        self,
        text: str,
        *,
        mode: str = "smart",
        limit: int = 10,
        paths: tuple[str, ...] | list[str] = (),
        group: str | None = None,
        explain: bool = False,
    ) -> list[dict[str, Any]]:
        """Ranked passages for free text or a typed query document (see docs/search.md)."""
        from . import search

        return search.search(
            self, text, mode=mode, limit=limit, paths=paths, group=group, explain=explain
        )

    def context(
        self, question: str, *, budget: int = 12_000, paths: tuple[str, ...] | list[str] = ()
    ) -> dict[str, Any]:
        """A deterministic context pack for an LLM, within `budget` characters."""
        from . import search

        return search.context(self, question, budget=budget, paths=paths)

    def embed(self, model: str | None = None, **options: Any) -> dict[str, Any]:
        """Embed new or changed chunks (opens its own writable connection; see
        `docql_sqlite.embed`).
        """
        return embed(self.path, model, **options)

    def _search_builder(self) -> Any:
        try:
            from .search.docql import search_source
        except ImportError:
            return None
        return lambda *args: search_source(self, *args)


def open(path: str | Path, *, timeout: float | None | str = "default") -> Index:  # noqa: A001 - mirrors sqlite3.connect
    """Open an existing index for reading (`timeout`: each query's limit, see `Index`)."""
    return Index(path, timeout=timeout)


def index(
    db_path: str | Path, paths: list[str], options: IngestOptions | None = None
) -> IngestReport:
    """Index `paths` into the file `db_path` (created when missing)."""
    from .ingest import index_paths

    return index_paths(db_path, paths, options)


def embed(db_path: str | Path, model: str | None = None, **options: Any) -> dict[str, Any]:
    """Embed the new or changed chunks of `db_path` with `model` (see docs/search.md)."""
    from . import search

    return search.embed(db_path, model, **options)
