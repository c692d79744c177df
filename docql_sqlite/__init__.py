"""docql-sqlite: documents and code in one SQLite file, queried with DocQL.

The front door is `Index` (`docql_sqlite.open(path)`); its options are the typed classes
of `docql_sqlite.options`, re-exported here.

The public API is what this module exports (`__all__`, some names loaded on first use so
that `import docql_sqlite` stays quick) and the modules of `PUBLIC_MODULES`. The clients
in this package — the CLI, the MCP server (`agent`), the Datasette and sqlite-utils
plugins — import nothing else (tests/test_public_api.py), so what they can do, a program
using docql-sqlite as a library can do too.
"""

from __future__ import annotations

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
from .store import is_url
from .version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

# The modules that are public API as a whole: small, each with one job and a docstring.
PUBLIC_MODULES = (
    "dbapi",  # DocQL's SQL functions and sqlite-vec on a sqlite3 connection
    "deadline",  # one time limit around several calls
    "errors",  # the error classes (`DocQLError` and below) and their messages
    "globs",  # the glob dialect of `paths` options
    "locations",  # `path:line-end` locations
    "options",  # the typed options and the values they accept
    "output",  # rows as a table, JSON lines, CSV or Markdown, as the CLI prints them
    "settings",  # the environment variables (docs/settings.md)
)


def __getattr__(name: str) -> Any:
    # Names whose modules are heavier than the front door load on first use, so that
    # `import docql_sqlite` stays quick (tests/test_cli_startup.py); then they are bound
    # here like any import.
    value: Any
    if name == "IngestReport":  # loads the indexer
        from .ingest import IngestReport as value
    elif name in ("watch", "require_watchfiles"):  # keep an index current (watchfiles)
        from .ingest import watch as watching

        value = getattr(watching, name)
    elif name == "index_in_child":  # one `index` run in a child process (a serving host)
        from .ingest.child import index_in_child as value
    elif name == "canned_queries":  # handy SQL over an index, for SQL tools
        from .query.canned import canned_queries as value
    elif name == "structure_text":  # a `$.structure` result as an indented tree
        from .query.results import structure_text as value
    elif name == "item_fields":  # the fields of each DocQL item type
        from .query.fields import item_fields as value
    elif name == "as_docql":  # the DocQL a query without its `$` likely meant
        from .query.functions import as_docql as value
    else:
        raise AttributeError(f"module 'docql_sqlite' has no attribute '{name}'")
    globals()[name] = value
    return value


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
    "as_docql",
    "canned_queries",
    "copy",
    "embed",
    "index",
    "index_in_child",
    "is_url",
    "item_fields",
    "open",
    "require_watchfiles",
    "structure_text",
    "watch",
]
