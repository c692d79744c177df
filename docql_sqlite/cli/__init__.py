"""The `docql-sqlite` command. Each command is flags → options → one `Index` call →
output (docs/design.md §2); the database file comes first, as in sqlite3/sqlite-utils.

The package, by job (docs/cli.md has every command's help):
- `main` (here): the console entry point. A `query` line goes to the fast path first,
  anything else to the click group.
- `group.py`: the click group; it imports a command's module when the command is named.
- `commands/`: the click commands, one module per group of commands (`documents`: index,
  status, toc, get; `docql`: query, explain; `search`: search, embed, context; `repomap`:
  map; `serve`, `mcp`, `copy`).
- `flags.py`: flags written once as data, click-free. `click_options.py` builds click
  options from them; `fastpath.py` reads a plain `query` line with the same table and
  runs it without importing click (a third of that command's start-up).
- `console.py`: what runs after parsing, click-free: printing, errors and exit codes,
  output formats, opening the index. `progress.py`: the progress line of index/embed.
tests/test_cli_startup.py pins what each command imports.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["cli", "main"]


def main() -> None:
    """The console entry point (`docql-sqlite = docql_sqlite.cli:main`)."""
    args = sys.argv[1:]
    if args[:1] == ["query"]:
        _query(args[1:])
    from .group import cli

    cli()


def _query(args: list[str]) -> None:
    """Run a `query` line without click if `fastpath` reads it, and end the process."""
    import gc

    # A query process lives for milliseconds and makes few reference cycles: the cyclic
    # collector only costs it time (~3M instructions of ~150M, docs/benchmarks.md).
    gc.disable()
    from . import fastpath  # click-free (see its docstring)

    if not fastpath.run(args):
        gc.enable()
        return  # click's turn
    # Done: the index is closed and the items printed. What is left is the interpreter's
    # teardown (freeing every module and object, ~14M instructions, a tenth of the
    # command), which nothing here needs: flush, run the atexit functions, and exit.
    import atexit
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    atexit._run_exitfuncs()
    os._exit(0)


def __getattr__(name: str) -> Any:
    # `docql_sqlite.cli.cli`, the click group, for Python callers and tests (CliRunner). It
    # is looked up here, not imported above, because importing it imports click, which
    # `main` must not do before it knows the line is not a plain `query`.
    if name == "cli":
        from .group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
