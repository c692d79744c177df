"""The click group of `docql-sqlite`, whose commands load when they are named."""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from types import ModuleType

import click

from .commands import COMMANDS


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
