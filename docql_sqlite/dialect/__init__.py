"""SQL dialects: every difference between the engines' SQL, in one place.

In the spirit of sqlglot's generators: the DocQL compiler, the search statements and the
catalog's reads build one statement shape and ask the dialect for each construct whose
spelling differs (parameter markers, truth, string functions, regex operators, JSON
access, LIMIT without a bound, the full-text query language, BM25, the KNN). There is one
`Dialect` per engine: `SQLITE` (and `SQLITE_CHUNK_TRIGRAMS`, a file built with
`index --trigram`) and `POSTGRES` (in `dialect/postgres.py`, imported by the PostgreSQL
store only: the file's start-up does not build it); the store gives its own
(`Store.dialect`) and every builder takes it as an argument, with no default.

This package builds SQL fragments only; it never runs them and imports no driver.
"""

from __future__ import annotations

from .base import Dialect, FtsTerm, TermStatistics, python_regex, unscoped
from .sqlite import SqliteDialect

SQLITE = SqliteDialect()
# A file built with `index --trigram`: grep() and heading()'s body fallback read the
# candidate chunks from `chunks_trigram` (the store picks it when the table exists).
SQLITE_CHUNK_TRIGRAMS = SqliteDialect(chunk_trigrams=True)

__all__ = [
    "SQLITE",
    "SQLITE_CHUNK_TRIGRAMS",
    "Dialect",
    "FtsTerm",
    "SqliteDialect",
    "TermStatistics",
    "python_regex",
    "unscoped",
]
