"""The `docql-sqlite` command. Each command is flags → options → one `Index` call →
output (docs/design.md §2); the database file comes first, as in sqlite3/sqlite-utils.

Commands are loaded when they are named (`_LazyCommands`): a `query` process imports
`cli.queries` alone, not the server, MCP, copy or search modules and what they pull in
(sockets, ctypes, the search package). `--help` loads them all to show their help lines.
tests/test_cli_startup.py pins what a structural query imports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from types import ModuleType

import click


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
    "serve": (_serve, "serve_command"),
    "copy": (_copy, "copy_command"),
    "mcp": (_mcp, "mcp_command"),
}


class _LazyCommands(MutableMapping[str, click.Command]):
    """`Group.commands` whose commands are imported on first use (click reads only
    `commands[name]`, `get`, `in` and iteration)."""

    def __init__(self, loaders: dict[str, tuple[Callable[[], ModuleType], str]]) -> None:
        self._loaders = dict(loaders)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module, attribute = self._loaders[name]  # KeyError: not a command
            self._loaded[name] = getattr(module(), attribute)
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        self._loaders.pop(name, None)
        del self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._loaders
        yield from (name for name in self._loaded if name not in self._loaders)

    def __len__(self) -> int:
        return len(self._loaders.keys() | self._loaded.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._loaders or name in self._loaded


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="docql-sqlite")
def cli() -> None:
    """Index documents and code into one SQLite file and query it with DocQL."""


cli.commands = _LazyCommands(COMMANDS)


def main() -> None:
    cli()
