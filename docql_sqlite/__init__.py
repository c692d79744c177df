"""docql-sqlite: documents and code in one SQLite file, queried with DocQL."""

from .errors import DatabaseError, DocQLError, DocQLSyntaxError, IngestError, QueryError
from .index import Index, embed, index, open
from .ingest import IngestOptions, IngestReport

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
