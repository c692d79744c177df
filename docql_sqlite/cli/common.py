"""What every command shares: the output flags, error handling, opening the index.

Exit codes: 0 on success (also "no results"), 2 on a usage or query error, 1 on other
failures (including an index run in which some files failed).
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import click

from .. import output
from ..errors import DocQLError, DocQLNote, QueryError, UsageError
from ..index import Index


def output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--json / --nl / --csv / -t/--table / --md, named as in sqlite-utils."""
    options = [
        click.option(
            "--json", "fmt", flag_value="json", help="Output a JSON array (default when piped)"
        ),
        click.option("--nl", "fmt", flag_value="nl", help="Output newline-delimited JSON"),
        click.option("--csv", "fmt", flag_value="csv", help="Output CSV"),
        click.option(
            "-t",
            "--table",
            "fmt",
            flag_value="table",
            help="Output a table (default on a terminal)",
        ),
        click.option("--md", "fmt", flag_value="md", help="Output a Markdown table"),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def database_argument(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.argument("database", type=click.Path(dir_okay=False))(func)


def paths_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--path",
        "paths",
        multiple=True,
        metavar="GLOB",
        help="Only documents whose path matches (repeatable)",
    )(func)


def default_format(fmt: str | None) -> str:
    if fmt:
        return fmt
    return "table" if sys.stdout.isatty() else "json"


def emit(items: Iterable[Any], fmt: str | None) -> None:
    fmt = default_format(fmt)
    count = output.write(items, fmt, sys.stdout)
    if count == 0 and fmt in ("table", "md", "csv"):
        click.echo("no results", err=True)


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors into one-line messages and exit codes (2: usage and query
    errors, 1: the rest)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # Library notes (`DocQLNote`, e.g. "reading … as an immutable file") print as one
        # line, once, for the rest of this process.
        warnings.simplefilter("once", DocQLNote)
        warnings.showwarning = _show_note
        try:
            return func(*args, **kwargs)
        except QueryError as exc:
            click.echo(str(exc), err=True)
            raise SystemExit(2) from exc
        except UsageError as exc:
            click.echo(f"error: {exc.message}", err=True)
            raise SystemExit(2) from exc
        except DocQLError as exc:
            click.echo(f"error: {exc.message}", err=True)
            raise SystemExit(1) from exc

    return wrapper


def _show_note(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
    """A `DocQLNote` as one `note:` line on stderr; other warnings as Python shows them."""
    if issubclass(category, DocQLNote):
        click.echo(f"note: {message}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, *args, **kwargs))


def open_index(path: str) -> Index:
    # The CLI runs no user SQL, so it skips the docql() table function (~30 ms).
    return Index(path, table_function=False)


class ProgressBar:
    """A one-line progress display on stderr (terminals only)."""

    def __init__(self, label: str = "") -> None:
        self.label = label
        self.active = sys.stderr.isatty()
        self.shown = False

    def update(self, done: int, total: int, path: str = "") -> None:
        if not self.active or total == 0:
            return
        width = 30
        filled = int(width * done / max(total, 1))
        tail = f" {path[-40:]:<40}" if path else ""
        line = f"\r{self.label}[{'#' * filled}{'.' * (width - filled)}] {done}/{total}{tail}"
        sys.stderr.write(line)
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()
