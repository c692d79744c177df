"""What every command shares: the output flags, error handling, opening the index.

Exit codes: 0 on success (also "no results", and when a reader such as `head` closes the
pipe early), 2 on a usage or query error or a database that is missing or not an index,
1 on other failures (including an index run in which some files failed), 130 when
interrupted (Ctrl-C).
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

import click

from .. import output
from ..errors import DatabaseError, DocQLError, DocQLNote, QueryError, UsageError
from ..index import Index


def _parse_fields(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    try:
        return output.parse_fields(value)
    except UsageError as exc:
        raise click.BadParameter(exc.message) from None


fields_option = click.option(
    "--fields",
    "fields",
    metavar="A,B,C",
    default=None,
    callback=_parse_fields,
    help="Show only these fields, in this order (in every output format)",
)


def output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--json / --nl / --csv / -t/--table / --md / --fields, named as in sqlite-utils."""
    return _with_output_options(func, text=None)


def text_output_options(text_help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The output options of a command that prints text on a terminal (`get`, `context`):
    --text (`text_help`) first, and the table no longer the terminal's default."""
    return lambda func: _with_output_options(func, text=text_help)


def _with_output_options(func: Callable[..., Any], text: str | None) -> Callable[..., Any]:
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
            help="Output a table" + ("" if text else " (default on a terminal)"),
        ),
        click.option("--md", "fmt", flag_value="md", help="Output a Markdown table"),
        fields_option,
    ]
    if text:
        options.insert(0, click.option("--text", "fmt", flag_value="text", help=text))
    for option in reversed(options):
        func = option(func)
    return func


def database_argument(func: Callable[..., Any]) -> Callable[..., Any]:
    # Not click.Path(dir_okay=False): its error is three lines; opening says it in one.
    return click.argument("database")(func)


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


def emit(items: Iterable[Any], fmt: str | None, fields: tuple[str, ...] | None = None) -> None:
    fmt = default_format(fmt)
    count = output.write(items, fmt, sys.stdout, fields=fields, note=_note)
    if count == 0 and fmt in ("table", "md", "csv"):
        click.echo("no results", err=True)


def _note(message: str) -> None:
    click.echo(message, err=True)


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors into one-line messages and exit codes (see the module
    docstring); Ctrl-C and a closed pipe end quietly instead of with a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # Library notes (`DocQLNote`, e.g. "reading … as an immutable file") print as one
        # line, once, for the rest of this process.
        warnings.simplefilter("once", DocQLNote)
        warnings.showwarning = _show_note
        try:
            result = func(*args, **kwargs)
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return result
        except QueryError as exc:
            fail(str(exc), 2)
        except (UsageError, DatabaseError) as exc:
            fail(f"error: {exc.message}", 2)
        except DocQLError as exc:
            fail(f"error: {exc.message}", 1)
        except KeyboardInterrupt:
            # An index run rolls back its open batch, so the file stays consistent and the
            # next run picks up where this one stopped.
            fail("interrupted", 130)
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(0)

    return wrapper


def _show_note(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
    """A `DocQLNote` as one `note:` line on stderr; other warnings as Python shows them."""
    if issubclass(category, DocQLNote):
        click.echo(f"note: {message}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, *args, **kwargs))


def fail(message: str, code: int) -> NoReturn:
    click.echo(message, err=True)
    sys.exit(code)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the flush at exit does not fail on the closed pipe
    again ("Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test runner)
        pass


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
