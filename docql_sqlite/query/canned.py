"""Canned queries: named, parameterised SQL the Datasette plugin offers on every index.

Plain SQL over the shell views (`toc`, `code`, `errors`; sql/views.sql), so the same text
runs in any SQLite client. Datasette turns each `:name` into a form field. A path
parameter accepts the exact stored path or a path suffix (`install.md` finds
`docs/zh/install.md`), like `docql-sqlite toc`.
"""

from __future__ import annotations

from typing import Any

from .functions import CLASS_KINDS

# `path` or a suffix of it after a '/'; LIKE's wildcards in the parameter are escaped.
_PATH_MATCHES = (
    "(path = :path OR path LIKE '%/' || replace(replace(replace(:path, '\\', '\\\\'), "
    "'%', '\\%'), '_', '\\_') ESCAPE '\\')"
)

_KINDS = ", ".join(f"'{kind}'" for kind in CLASS_KINDS)

CANNED_QUERIES: dict[str, dict[str, Any]] = {
    "docql_outline": {
        "title": "Outline of a document",
        "description": "The headings of one document, in order, with their line ranges "
        "(path: the stored path or its last part, e.g. install.md).",
        "sql": (
            "SELECT path, level, number, title, line, end_line, page\n"
            f"FROM toc\nWHERE {_PATH_MATCHES}"
        ),
    },
    "docql_classes": {
        "title": "Classes of a path",
        "description": "Classes, interfaces, enums, structs and traits in the code files "
        "whose path matches a glob (gitignore-style, as everywhere: *.py, src/**).",
        "sql": (
            "SELECT path, kind, name, qualified_name, signature, language, line, end_line\n"
            f"FROM code\nWHERE kind IN ({_KINDS}) AND path REGEXP docql_glob(:glob)"
        ),
    },
    "docql_errors": {
        "title": "Ingest errors",
        "description": "Files that failed to index or indexed with a warning, and why.",
        "sql": "SELECT path, severity, reason, at FROM errors",
    },
}


def canned_queries() -> dict[str, dict[str, Any]]:
    """A fresh copy (Datasette adds keys to the dictionaries it is given)."""
    return {name: dict(query) for name, query in CANNED_QUERIES.items()}
