"""The `docql-sqlite` command. Each command is flags → options → one `Index` call →
output (docs/design.md §2); the database file comes first, as in sqlite3/sqlite-utils.

Commands are loaded when they are named (`cli/group.py`): a `query` process imports
`cli.queries` alone, not the server, MCP, copy or search modules and what they pull in
(sockets, ctypes, the search package). `--help` loads them all to show their help lines.
A plain `query` line does not even import click: `cli/fastpath.py` reads it from the same
flag table. tests/test_cli_startup.py pins what a structural query imports.
"""

from __future__ import annotations

import sys
from typing import Any

from .commands import COMMANDS

__all__ = ["COMMANDS", "main"]


def main() -> None:
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
    # `cli` (the click group) is built on first use: a fast-path query never imports click.
    if name == "cli":
        from .group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
