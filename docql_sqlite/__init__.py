"""docql-sqlite: documents and code in one SQLite file, queried with DocQL."""

from typing import Any

from .errors import DatabaseError, DocQLError, DocQLSyntaxError, IngestError, QueryError
from .index import Index, embed, index, open


def __getattr__(name: str) -> Any:
    # Indexing types load on first use, so `import docql_sqlite` stays quick for queries.
    if name in ("IngestOptions", "IngestReport"):
        from . import ingest

        return getattr(ingest, name)
    raise AttributeError(f"module 'docql_sqlite' has no attribute '{name}'")


__version__ = "0.1.0"
__all__ = [
    "DatabaseError",
    "DocQLError",
    "DocQLSyntaxError",
    "Index",
    "IngestError",
    "IngestOptions",
    "IngestReport",
    "QueryError",
    "__version__",
    "embed",
    "index",
    "open",
]
