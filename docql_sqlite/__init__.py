"""docql-sqlite: documents and code in one SQLite file, queried with DocQL.

The front door is `Index` (`docql_sqlite.open(path)`); its options are the typed classes
of `docql_sqlite.options`, re-exported here.
"""

from typing import Any

from .errors import (
    DatabaseError,
    DocQLError,
    DocQLSyntaxError,
    IngestError,
    LocationError,
    OptionError,
    QueryError,
    UsageError,
)
from .index import Excerpt, Index, QueryResult, copy, embed, index, open
from .options import ContextOptions, EmbedOptions, IngestOptions, QueryOptions, SearchOptions
from .version import __version__


def __getattr__(name: str) -> Any:
    # The report type loads with the indexer, so `import docql_sqlite` stays quick.
    if name == "IngestReport":
        from .ingest import IngestReport

        return IngestReport
    raise AttributeError(f"module 'docql_sqlite' has no attribute '{name}'")


__all__ = [
    "ContextOptions",
    "DatabaseError",
    "DocQLError",
    "DocQLSyntaxError",
    "EmbedOptions",
    "Excerpt",
    "Index",
    "IngestError",
    "IngestOptions",
    "IngestReport",
    "LocationError",
    "OptionError",
    "QueryError",
    "QueryOptions",
    "QueryResult",
    "SearchOptions",
    "UsageError",
    "__version__",
    "copy",
    "embed",
    "index",
    "open",
]
