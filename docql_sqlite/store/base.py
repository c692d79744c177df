"""`Store`: what every layer above reads an index through, whatever engine holds it.

Two implementations: `store/sqlite` (the file, through apsw) and `store/postgres` (a
PostgreSQL database, through psycopg). `store.open_store` picks one from the path or
URL — the only place that asks which engine it is. Above this line nothing branches on
the engine: SQL is spelled by `store.dialect` (`docql_sqlite/dialect.py`), and what the
engines do differently (snapshots, time limits, plans, sizes, the vocabulary of the
full-text index) is a method here.

Imports here stay light: `store/__init__` re-exports `is_url`, which every client calls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from ..globs import matcher

URL_PREFIXES = ("postgresql://", "postgres://")


def is_url(target: object) -> bool:
    """True when `target` names a PostgreSQL database rather than an index file."""
    return str(target).startswith(URL_PREFIXES)


TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

    from ..dialect import Dialect
    from ..sqlparams import Params
    from .writer import Writer


class Store(ABC):
    """An open index. `path` is the file path or the URL as given (a cache key); `label`
    is what messages and `status` show (a URL without its password)."""

    dialect: Dialect
    path: str
    label: str
    conn: Any  # the driver's connection: for the store's own modules and the tests
    # Caches that the `Index` which opened this store owns (created, bounded and dropped
    # there) and that the search layer reads through the store: the in-memory vectors of
    # a long-lived process (`search.vectors.VectorCache`), and the second read connection
    # of a parallel smart search (`search.parallel.Sidecar`). None when not wanted.
    vector_cache: Any = None
    sidecar: Any = None
    # Term statistics and other figures of one version of the index (`search.stats`): a
    # bounded dict keyed by `stamp()`, shared with the sidecar's store. None: not cached.
    stats_cache: Any = None
    # KiB of pages a long-lived reader keeps in its own cache (`hold_pages`); 0: the default.
    held_pages: int = 0

    # -- lifetime ---------------------------------------------------------------------
    @abstractmethod
    def close(self) -> None: ...

    def hold_pages(self, kib: int) -> None:
        """For a long-lived reader (the MCP server's search connections): keep up to `kib`
        KiB of the pages it reads in the engine's own cache. A no-op where the engine
        has no such choice (PostgreSQL)."""
        self.held_pages = kib

    def refresh(self) -> None:
        """Read again what compiling depends on (`dialect`), after this process wrote."""

    @abstractmethod
    def snapshot(self) -> AbstractContextManager[None]:
        """The block's reads see one committed state (nested blocks share the outer one)."""

    # -- reading ----------------------------------------------------------------------
    @abstractmethod
    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        """Every row of read-only `sql` as a dict (`Deferred` parameters bound first).
        Errors are `DocQLError`s that name the engine."""

    @abstractmethod
    def scalar(self, sql: str, params: Any = ()) -> Any:
        """The first value of the first row (None when there is none)."""

    @abstractmethod
    def execute(
        self, sql: str, params: dict[str, Any], seconds: float | None
    ) -> Iterator[dict[str, Any]]:
        """The rows of a compiled DocQL statement (parameters already bound), the
        statement stopped after `seconds` with `QueryTimeout` (the time a row is out with
        the caller does not count)."""

    @abstractmethod
    def plan(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """The engine's query plan: {id, parent, detail} per step."""

    # -- what the index holds ---------------------------------------------------------
    @abstractmethod
    def stamp(self) -> tuple[Any, ...]:
        """Changes whenever the index may have changed: the key of every cache."""

    @abstractmethod
    def meta(self, key: str) -> str | None:
        """A value of the index's `meta` table."""

    @abstractmethod
    def size_bytes(self) -> int: ...

    @abstractmethod
    def integrity(self, seconds: float) -> str | None:
        """The structure check for `status --check` within `seconds` (None: the engine
        checks its own pages, as PostgreSQL does). A damaged index raises
        `DatabaseCorrupt`."""

    @abstractmethod
    def has_embeddings(self) -> bool:
        """The index holds vectors (whether or not this engine can search them)."""

    @property
    @abstractmethod
    def has_vectors(self) -> bool:
        """The index holds vectors and this engine can search them."""

    @abstractmethod
    def has_chunk_trigrams(self) -> bool:
        """The optional substring index of chunk text exists (`index --trigram`)."""

    @abstractmethod
    def embedding_meta(self) -> dict[str, str]:
        """The index's embedding model as its `meta` rows record it (`schema.KEY_MODEL`,
        `KEY_DIMENSIONS`, `KEY_FINGERPRINT`; absent keys left out). Loading and checking
        the model is the search layer's (`search/vectors.py`): the store loads none."""

    def documents(self, globs: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        """Every document (id, path, format, lines, pages, size) in code-point order of
        path, optionally by glob (gitignore's dialect, `globs.py`)."""

        order = self.dialect.sort_key("path")
        docs = self.rows(
            f"SELECT id, path, format, lines, pages, size FROM documents ORDER BY {order}"
        )
        if not globs:
            return docs
        matches = matcher(globs)
        return [d for d in docs if matches(d["path"])]

    @abstractmethod
    def body_counts(
        self,
        token: str,
        prefix: bool,
        params: Params,
        within: str | None = None,
        without: str | None = None,
    ) -> list[tuple[int, int]]:
        """(chunk id, occurrences) of `token` in the body column of each chunk holding it
        (the title column not counted). `prefix`: of every token that `token` begins.
        `within` / `without`: SELECTs of the chunk ids to keep / to leave out, their
        values in `params` (which this adds its own to). In chunk order."""

    def data_version(self) -> int | None:
        """A number that changes when another connection commits, as this connection sees
        it (SQLite's `PRAGMA data_version`): what an in-memory copy of the vectors
        (`search.vectors.VectorCache`) reloads on. None: the engine searches its vectors
        better than a copy would (pgvector's HNSW index), so none is kept."""
        return None

    def quiescent(self) -> bool:
        """Provably no commit since the last checkpoint (SQLite: the WAL is empty), so two
        snapshots taken while it holds are one (`search.parallel`: a second connection may
        then read for this one). False when the engine cannot tell."""
        return False

    def register_table_function(
        self, name: str, columns: list[str], function: Callable[..., Iterator[dict[str, Any]]]
    ) -> bool:
        """Make `function` a table-valued SQL function `name` of this connection (`tvf.py`:
        `docql(query)`). False when the engine cannot host Python functions in SQL."""
        return False

    # -- writing ----------------------------------------------------------------------
    @abstractmethod
    def writer(self) -> Writer:
        """The write side (`store/writer.py`) on a store opened with readonly=False."""


__all__ = ["URL_PREFIXES", "Store", "is_url"]
