"""`Index`: the one front door. Every client — the CLI, the MCP server, the Datasette and
sqlite-utils plugins, Python code — calls these methods and nothing below them.

Reading methods take a typed options object (`docql_sqlite.options`) or keyword
overrides of its fields (`index.search("auth", limit=3)`). Reads go through a read-only
connection, so nothing a user or an agent types can change the file; `index()` and
`embed()` open their own writable connection for the one writer.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from . import deadline, settings
from .dialect import Dialect
from .errors import LocationError
from .globs import matcher
from .locations import Location, candidates, parts_readings, unescape_controls
from .options import (
    ContextOptions,
    EmbedOptions,
    IngestOptions,
    QueryOptions,
    SearchOptions,
    with_overrides,
)
from .query import catalog
from .records import Record, replace
from .schema import KEY_MODEL
from .store import Store, open_store

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    # ingest pulls in workers and HTTP: loaded only when indexing
    from .ingest import IngestReport
    from .query.compiler import Compiled
    from .search.parallel import Sidecar
    from .search.vectors import VectorCache


class Excerpt(Record, frozen=True):
    """Lines of one indexed document, read from the index (the file may be gone)."""

    path: str
    first: int
    last: int
    total_lines: int
    lines: list[tuple[int, str]]
    page: int | None = None

    @property
    def location(self) -> str:
        return str(Location(self.path, self.first, self.last, None))

    @property
    def text(self) -> str:
        return "".join(line + "\n" for _, line in self.lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "location": self.location,
            "line": self.first,
            "end_line": self.last,
            "total_lines": self.total_lines,
            "page": self.page,
            "text": self.text,
        }


class ManyExcerpts(Record, frozen=True):
    """`Index.get_many`: the documents that fit, and (path, bytes) of those that did not."""

    excerpts: list[Excerpt]
    skipped: list[tuple[str, int]]


class QueryResult(list):  # list[Any]: typing is not imported at run time
    """The items of a DocQL query (a list), with the compiled query that produced them."""

    def __init__(self, items: list[Any], compiled: Compiled) -> None:
        super().__init__(items)
        self.compiled = compiled


class Index:
    """An open index: a file, or a database server named by a URL (docs/scale-out.md).
    Every method works on both: the engine is `self.store` (`store.open_store` chose
    it), and what the engines do differently is a method of it."""

    def __init__(
        self,
        path: str | Path,
        *,
        readonly: bool = True,
        table_function: bool = True,
        vectors_in_memory: bool = False,
        parallel_search: bool = False,
    ) -> None:
        """Open `path`. `table_function` registers `docql(query)` for SQL on `self.conn`
        (where the engine hosts Python functions: SQLite); the CLI, which runs no user
        SQL, skips it (it costs ~30 ms of start-up).
        `vectors_in_memory` is for long-lived processes: the vectors are read once into
        memory and the nearest are found there (`search.vectors.VectorCache`; not where
        the engine has its own index of them, pgvector's HNSW).
        `parallel_search` is for them too: a second read connection and a worker thread,
        on which a smart search runs some of its lists while the caller runs the others
        (`search.parallel`; the same results, in less wall time on two cores)."""
        self.path = str(path)
        self.store: Store = open_store(self.path, readonly=readonly)
        self.conn: Any = self.store.conn
        # Every cache of this index is owned here or hangs on its store, where the search
        # layer reads it, and each is bounded: the compiled queries, the vectors held in
        # memory, the sidecar, and the term statistics and postings (`search.stats.of`:
        # made on first use, one per store, gone with it).
        self._compiled: dict[tuple[Any, ...], Compiled] = {}
        self._reads = 0  # read blocks begun (`snapshot`): a second one holds the pages
        if vectors_in_memory:
            from .search.vectors import VectorCache

            self.store.vector_cache = VectorCache()
        if parallel_search:
            from .search.parallel import Sidecar

            self.store.sidecar = Sidecar(self.path)
        self._read_capabilities()
        if table_function:
            from . import tvf

            # A weak reference: the connection must not keep the Index alive.
            ref = weakref.ref(self)
            tvf.register(self.store, lambda: ref())

    @property
    def dialect(self) -> Dialect:
        return self.store.dialect

    @property
    def vector_cache(self) -> VectorCache | None:
        cache: VectorCache | None = self.store.vector_cache
        return cache

    @vector_cache.setter
    def vector_cache(self, cache: VectorCache | None) -> None:
        self.store.vector_cache = cache  # the MCP server shares one between reopenings

    @property
    def search_sidecar(self) -> Sidecar | None:
        sidecar: Sidecar | None = self.store.sidecar
        return sidecar

    def close(self) -> None:
        self.store.close()
        # The compiled queries go; the store's figures stay with it (a compiled query's
        # deferred values, inlined after the index closed, are read from them).
        self._compiled.clear()
        self.store.vector_cache = self.store.sidecar = None

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- documents -------------------------------------------------------------------
    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Run the block's statements in one read transaction, so that they see one committed
        state. An answer takes several statements (find a document, then read its chunks;
        rank chunks, then fetch them), and an `index` run may commit between two of them: the
        document is then replaced under a new id, and the second statement found nothing (a
        `get` returned an empty document). Nested blocks share the outer transaction.

        From the second read on, the pages are held in the engine's own cache
        (`Store.hold_pages`), as the MCP server's readers hold theirs: every connection
        checks each b-tree page it reads (`cell_size_check`), and a mapped page is checked
        anew at every access, so an index that answers more than one call pays that for
        every page of every statement (issue 24: a third of a structural query's CPU on
        the 279 MB scale index; docs/benchmarks-history.md). A one-off command keeps the
        map (its first read is its only one)."""
        self._reads += 1
        if self._reads == 2 and not self.store.held_pages:
            self.store.hold_pages(HELD_PAGES_KIB)
        with self.store.snapshot():
            yield

    def resolve_path(self, path: str) -> tuple[int, str]:
        """The (doc id, path) of the document named `path` (exact path, URI or unique
        suffix), also as the tool prints it: shortened by a narrow table (`…/std/fs.md`),
        with its control characters escaped, or as a location (`guide.md:12-40`: its
        document), as `get` reads it."""
        specs = [path]
        if "\\x" in path:
            specs.append(unescape_controls(path))
        readings = [reading for spec in specs for reading in candidates(spec)]
        for reading in readings:
            found = catalog.find_document(self.store, reading.path)
            if found is not None:
                return found
        raise _no_document(readings[-1].path)  # as `get` names it: without its lines

    def documents(self, globs: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        """Every indexed document (path, format, lines, pages, size), optionally by glob."""
        return catalog.documents(self.store, tuple(globs))

    def toc(self, path: str | None = None) -> list[dict[str, Any]]:
        """The outline of one document (or of all), flattened pre-order."""
        with self.snapshot():
            doc_id = self.resolve_path(path)[0] if path else None
            return catalog.outline(self.store, doc_id)

    def get(self, location: str, start: int | None = None, count: int | None = None) -> Excerpt:
        """Lines of an indexed document, from the index: any location the tool prints
        (`path`, `path:12`, `path:12-40`, `path:12:20`, `path:page 9`, `path#page=9`), or a
        path with `start`/`count`. Asking past the end says how long the document is."""
        specs = [location]
        if "\\x" in location:  # then as printed with its control characters escaped
            specs.append(unescape_controls(location))
        readings = [
            reading
            for spec in specs
            for reading in (
                parts_readings(spec, start, count)
                if start is not None or count is not None
                else candidates(spec)
            )
        ]
        with self.snapshot():
            for reading in readings:
                found = catalog.find_document(self.store, reading.path)
                if found is not None:
                    return self._excerpt(found, reading)
        # Name the document the location names (the last reading: its lines split off).
        raise _no_document(readings[-1].path)

    def get_many(self, pattern: str, max_bytes: int = 50_000) -> ManyExcerpts:
        """Whole documents whose path matches the glob `pattern` (gitignore's rules,
        docql_sqlite/globs.py: `docs/**/*.md`, `*.md` at any depth), in path order, as long as their
        text fits in `max_bytes` (UTF-8) together; the others are named in `skipped` with
        their size so that a caller can `get` them one by one (QMD's `multi_get`)."""
        matches = matcher(pattern)
        excerpts: list[Excerpt] = []
        skipped: list[tuple[str, int]] = []
        used = 0
        with self.snapshot():
            for doc in catalog.documents(self.store, ()):
                if not matches(doc["path"]):
                    continue
                excerpt = self._excerpt((doc["id"], doc["path"]), Location(doc["path"]))
                size = len(excerpt.text.encode("utf-8"))
                if used + size > max_bytes:
                    skipped.append((doc["path"], size))
                    continue
                used += size
                excerpts.append(excerpt)
        return ManyExcerpts(excerpts, skipped)

    def _excerpt(self, found: tuple[int, str], where: Location) -> Excerpt:
        doc_id, shown = found
        total = catalog.line_count(self.store, doc_id)
        first, last = where.first or 1, where.last
        if where.page is not None:
            pages = catalog.page_count(self.store, doc_id)
            span = catalog.page_lines(self.store, doc_id, where.page)
            if not pages:
                raise LocationError(f"{shown} has no pages (only PDF documents do)")
            if span is None:
                raise LocationError(
                    f"{shown} has {pages} page{'s' if pages != 1 else ''}; "
                    f"page {where.page} is past its end"
                )
            first, last = span
        if total == 0 and where.first is None:
            return Excerpt(shown, 1, 0, 0, [], where.page)
        if first > total:
            raise LocationError(
                f"{shown} has {total} line{'s' if total != 1 else ''}; line {first} is past its end"
            )
        last = total if last is None else min(last, total)
        text = catalog.document_lines(self.store, doc_id, first, last)
        lines = list(zip(range(first, last + 1), text, strict=True))
        return Excerpt(shown, first, last, total, lines, where.page)

    def status(self, check_seconds: float = 0.0) -> dict[str, Any]:
        """What the index holds: documents by format, sections, chunks, errors, vectors.
        With `check_seconds`, the file's structure is checked too (SQLite's quick_check,
        for at most that long): `integrity` says how it went, and a damaged file raises
        `DatabaseCorrupt` (docs/reliability.md §9). A server that checks its own pages
        gives no `integrity`."""

        def meta(key: str) -> str | None:
            return catalog.meta_value(self.store, key)

        info: dict[str, Any] = {
            "database": self.store.label,
            "schema_version": int(meta("schema_version") or 0),
        }
        info.update(catalog.figures(self.store))
        # Entries the last index run left out, by reason (written by ingest.run).
        info["skipped"] = json.loads(meta("last_run_skipped") or "{}")
        info["embedding_model"] = meta("embedding_model")
        info["size_bytes"] = self.store.size_bytes()
        if check_seconds > 0:
            integrity = self.store.integrity(check_seconds)
            if integrity is not None:
                info["integrity"] = integrity
        return info

    def errors(self) -> list[dict[str, Any]]:
        """Files that failed to index, and why (until they index again or disappear)."""
        return list(catalog.ingest_errors(self.store))

    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        """Rows of read-only SQL of your own, as dicts (in the engine's SQL: on a server,
        `%s` markers)."""
        return self.store.rows(sql, params)

    # -- DocQL -----------------------------------------------------------------------
    def compile(
        self, query: str, options: QueryOptions | None = None, **overrides: Any
    ) -> Compiled:
        """Compile DocQL to SQL without running it. Pure: it reads no rows and loads no
        model (a query vector or term statistics are bound when the SQL runs)."""
        # The DocQL compiler is imported by the first query, not by `get`, `toc` or `status`.
        opts = _query_options(options, overrides)
        # The offset is applied to the items, so the SQL fetches limit + offset rows.
        limit = None if opts.limit is None else opts.limit + opts.offset
        # Compiling depends on the text, the scope, the limit, the dialect and whether the
        # index has vectors, never on rows: an agent's repeated queries
        # (`$.toc[?(@.level==1)]`) skip the parser. The key holds the index's version
        # stamp all the same.
        if not isinstance(query, str):
            return self._compile(query, opts.paths, limit)
        key = (query, opts.paths, limit, self.has_vectors, self.dialect, self.store.stamp())
        cached = self._compiled.get(key)
        if cached is not None:
            return replace(cached, params=dict(cached.params), notes=list(cached.notes))
        compiled = self._compile(query, opts.paths, limit)
        if len(self._compiled) >= COMPILED_CACHE:
            self._compiled.clear()
        self._compiled[key] = compiled
        return replace(compiled, params=dict(compiled.params), notes=list(compiled.notes))

    def _compile(self, query: Any, paths: tuple[str, ...], limit: int | None) -> Compiled:
        from .query.compiler import compile_query

        return compile_query(
            query,
            paths=paths,
            limit=limit,
            search_builder=self._search_builder(),
            dialect=self.dialect,
        )

    def query(
        self, query: str, options: QueryOptions | None = None, **overrides: Any
    ) -> QueryResult:
        """Run a DocQL query: its result items (dicts with the spec's fields, or values)."""
        from .query import results

        opts = _query_options(options, overrides)
        compiled = self.compile(query, opts)
        # One limit for the SQL and the results stage, which reads more rows; one snapshot
        # for the statement and what its deferred parameters read (term statistics).
        with self.snapshot(), deadline.limit(opts.timeout):
            items = list(results.build(compiled, self.execute(compiled, timeout=opts.timeout)))
        if opts.offset:
            items = items[opts.offset :]
        return QueryResult(items, compiled)

    def execute(
        self, compiled: Compiled, timeout: float | None | str = "default"
    ) -> Iterator[dict[str, Any]]:
        """The rows of a compiled query (deferred parameters bound now), within `timeout`
        seconds (default: $DOCQL_QUERY_TIMEOUT or 5 s; see deadline.py). The time a row
        is out with the caller does not count."""
        seconds = settings.query_timeout() if isinstance(timeout, str) else timeout
        with deadline.not_counted():  # deferred parameters may load an embedding model
            params = compiled.bound_params()
        yield from self.store.execute(compiled.sql, params, seconds)

    def explain(
        self, query: str, options: QueryOptions | None = None, **overrides: Any
    ) -> dict[str, Any]:
        """Tokens, syntax tree, SQL, parameters and the engine's query plan for `query`."""
        from .query import parse, tokenize

        compiled = self.compile(query, options, **overrides)
        plan = self.store.plan(compiled.sql, compiled.bound_params())
        return {
            "query": query,
            "tokens": [
                {"type": t.type.name, "text": t.text, "offset": t.offset} for t in tokenize(query)
            ],
            "ast": parse(query).to_dict(),
            "item_type": compiled.item.name,
            "sql": compiled.sql,
            "params": {
                k: str(v) if not isinstance(v, (int, float, str)) else v
                for k, v in compiled.params.items()
            },
            "inline_sql": compiled.inline_sql(),
            "plan": plan,
            "notes": compiled.notes,
        }

    # -- search ----------------------------------------------------------------------
    def search(
        self, text: str, options: SearchOptions | None = None, **overrides: Any
    ) -> list[dict[str, Any]]:
        """Ranked passages for free text or a typed query document (see docs/search.md)."""
        from .search import api, vectors

        opts = with_overrides(options, SearchOptions, overrides)
        if opts.mode != "bm25" and self.has_vectors:
            # Every mode but bm25 embeds the query: load the model while the SQL runs.
            vectors.start_loading(opts.model or self.store.meta(KEY_MODEL) or "")
        with self.snapshot(), deadline.limit(opts.timeout):
            return api.search(self.store, text, opts)

    def context(
        self, question: str, options: ContextOptions | None = None, **overrides: Any
    ) -> dict[str, Any]:
        """A deterministic context pack for an LLM, within `budget` characters."""
        from .search import context_pack

        opts = with_overrides(options, ContextOptions, overrides)
        with self.snapshot(), deadline.limit(opts.timeout):
            return context_pack.context(self.store, question, opts)

    def repo_map(
        self,
        paths: list[str] | tuple[str, ...] | str = (),
        budget: int = 1024,
        focus: str | None = None,
    ) -> dict[str, Any]:
        """The most central files and symbols of the indexed code with their signatures,
        within `budget` tokens, optionally personalised by a `focus` symbol or file
        (docs/repomap.md): `text` to read, and the `symbols` it lists."""
        from .repomap import build_map

        globs = (paths,) if isinstance(paths, str) else tuple(paths)
        with self.snapshot():
            return build_map(self.store, globs, budget, focus or None)

    # -- writing (the one writer opens the index for writing) --------------------------
    def index(
        self, paths: list[str], options: IngestOptions | None = None, **overrides: Any
    ) -> IngestReport:
        """Bring the index up to date with `paths` (vectors included, when it has them)."""
        report = index(self.path, paths, with_overrides(options, IngestOptions, overrides))
        self._refresh()
        return report

    def embed(self, options: EmbedOptions | None = None, **overrides: Any) -> dict[str, Any]:
        """Embed new or changed chunks (see `docql_sqlite.embed`)."""
        report = embed(self.path, with_overrides(options, EmbedOptions, overrides))
        self._refresh()
        return report

    def _refresh(self) -> None:
        # After this process wrote: the store reads its dialect again.
        self.store.refresh()
        self._read_capabilities()

    def _read_capabilities(self) -> None:
        # Compiling depends on whether vectors and the chunks' trigram index exist (the
        # latter is in the dialect, read when the store opens), never on rows.
        self.has_vectors = self.store.has_vectors
        self.has_chunk_trigrams = self.store.dialect.chunk_trigrams

    def _search_builder(self) -> Any:
        # The search package is imported when a query uses search(), not for every query.
        store, has_vectors = self.store, self.has_vectors

        def build(name: str, q: str, scope: str, params: Any, call: Any) -> Any:
            from .search.docql import search_source

            return search_source(store, name, q, scope, params, call, has_vectors=has_vectors)

        return build


COMPILED_CACHE = 256  # compiled queries kept per open index (then forgotten all at once)
# KiB of pages an index that answers more than one call keeps in its cache (`snapshot`); the
# MCP server's readers keep as many (agent/limits.py: 8, 16 and 32 MB cost the same CPU).
HELD_PAGES_KIB = 16 << 10


def _no_document(name: str) -> LocationError:
    return LocationError(f"no document '{name}' in the index; the DocQL query $.files lists them")


def _query_options(options: QueryOptions | None, overrides: dict[str, Any]) -> QueryOptions:
    if "path" in overrides:  # `index.query(q, path="docs/*")` reads better for one glob
        overrides = dict(overrides)
        overrides["paths"] = overrides.pop("path")
    return with_overrides(options, QueryOptions, overrides)


def open(path: str | Path) -> Index:  # noqa: A001 - mirrors sqlite3.connect / sqlite_utils.Database
    """Open an existing index for reading."""
    return Index(path)


def index(
    db_path: str | Path, paths: list[str], options: IngestOptions | None = None, **overrides: Any
) -> IngestReport:
    """Index `paths` into the file `db_path` (created when missing), or into the
    database of a URL (many writers may run at once there). An index that
    has vectors keeps them current; `embed="MODEL"` embeds with a model."""
    from .ingest import index_paths  # the writer: loaded by the first index run

    return index_paths(str(db_path), paths, with_overrides(options, IngestOptions, overrides))


def embed(
    db_path: str | Path,
    options: EmbedOptions | str | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """Embed the new or changed chunks of `db_path` (`options` may be just a model name)."""
    if isinstance(options, str):
        options = EmbedOptions(model=options)
    from .ingest.embed import embed_index  # the writer: loaded by the first embed run

    return embed_index(str(db_path), with_overrides(options, EmbedOptions, overrides))


def copy(source: str, dest: str) -> dict[str, Any]:
    """Copy the index at `source` to `dest`, between engines (a file path ↔ a database
    URL), vectors included; every table is verified by row count and checksum before the
    copy commits. Returns the per-table report (`store.copy_index`)."""
    from .store import copy_index

    return copy_index(source, dest)
