"""The click group of `docql-sqlite`: every command, loaded when it is named.

`COMMANDS` is the one list of commands: the name, and where its click command is
defined (a module of `cli/commands/`, one per group of commands). A process imports the
module of the command it runs and no other (`--help` imports them all, for their help
lines): `search` loads the search package, `serve` Datasette, `mcp` the MCP SDK, and none
of that slows down a `status` or a `get`. tests/test_cli_startup.py pins it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping

import click

# Command name → (module in cli/commands/, attribute of the click command there), in the
# order `--help` lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "index": ("documents", "index_command"),
    "status": ("documents", "status"),
    "toc": ("documents", "toc"),
    "get": ("documents", "get"),
    "query": ("docql", "query"),
    "explain": ("docql", "explain"),
    "search": ("search", "search_command"),
    "embed": ("search", "embed_command"),
    "context": ("search", "context_command"),
    "map": ("repomap", "map_command"),
    "serve": ("serve", "serve_command"),
    "copy": ("copy", "copy_command"),
    "mcp": ("mcp", "mcp_command"),
}


class LazyCommands(MutableMapping[str, click.Command]):
    """`Group.commands` that imports a command on first use. click's group reads only this
    mapping (`commands[name]`, `get`, `in`, iteration), so everything click does with a
    group — dispatch, `--help`, "No such command", shell completion, `add_command` —
    works unchanged, and `cli.commands` is still the mapping of every command."""

    def __init__(self, table: dict[str, tuple[str, str]]) -> None:
        self._table = dict(table)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module, attribute = self._table[name]  # KeyError: not a command
            loaded = importlib.import_module(f"{__package__}.commands.{module}")
            self._loaded[name] = getattr(loaded, attribute)
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._table.pop(name, None)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self._table
        yield from (name for name in self._loaded if name not in self._table)

    def __len__(self) -> int:
        return len(self._table.keys() | self._loaded.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._table or name in self._loaded


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="docql-sqlite")
def cli() -> None:
    """Index documents and code into one SQLite file and query it with DocQL."""


cli.commands = LazyCommands(COMMANDS)
