"""The commands of `docql-sqlite`: name → the module that defines it, loaded when named.

No click here: `cli/__init__.py` (whose fast path must not import click) and the click
group (`cli/group.py`) both read this table.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def _documents() -> ModuleType:
    from . import documents

    return documents


def _queries() -> ModuleType:
    from . import queries

    return queries


def _searching() -> ModuleType:
    from . import searching

    return searching


def _serve() -> ModuleType:
    from . import serve

    return serve


def _copy() -> ModuleType:
    from . import copy

    return copy


def _mapping() -> ModuleType:
    from . import mapping

    return mapping


def _mcp() -> ModuleType:
    from . import mcp

    return mcp


# Command name → (the module that defines it, the command's attribute there), in the
# order `--help` lists them.
COMMANDS: dict[str, tuple[Callable[[], ModuleType], str]] = {
    "index": (_documents, "index_command"),
    "status": (_documents, "status"),
    "toc": (_documents, "toc"),
    "get": (_documents, "get"),
    "query": (_queries, "query"),
    "explain": (_queries, "explain"),
    "search": (_searching, "search_command"),
    "embed": (_searching, "embed_command"),
    "context": (_searching, "context_command"),
    "map": (_mapping, "map_command"),
    "serve": (_serve, "serve_command"),
    "copy": (_copy, "copy_command"),
    "mcp": (_mcp, "mcp_command"),
}
