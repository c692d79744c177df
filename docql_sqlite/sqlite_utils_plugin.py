"""The sqlite-utils plugin (`pip install 'docql-sqlite[sqlite-utils]'`).

Two hooks, found through the `sqlite_utils` entry point group:

- `prepare_connection`: every connection sqlite-utils opens gets our SQL functions
  (`docql_rrf`, `docql_heading`, `docql_chapter`, `docql_grep`, `docql_fold`,
  `docql_fts_text`, `regexpi`, `regexp`) and, where the driver can load extensions,
  sqlite-vec. sqlite-utils prefers `pysqlite3` when it is installed (the extra installs
  `pysqlite3-binary`), which can; the stock `sqlite3` module of some Pythons cannot, and
  then only the vectors are missing.
- `register_commands`: `sqlite-utils docql DB QUERY` runs DocQL through the `Index` front
  door and prints the items with sqlite-utils' own output flags, as `sqlite-utils query`
  prints rows.

sqlite-utils loads its plugins from the middle of its `cli` module (before that module
defines `output_rows`), so the helpers of `sqlite_utils.cli` are looked up when the hook
or the command runs, never when this module is imported.
"""

from __future__ import annotations

import csv as csv_std
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

import click
import tabulate
from sqlite_utils import hookimpl

from . import Index, dbapi
from .errors import DocQLError, QueryError, UsageError
from .options import QueryOptions
from .output import visible


@hookimpl
def prepare_connection(conn: Any) -> None:
    # Never raises for a missing sqlite-vec: sqlite-utils runs this on every database it
    # opens, docql indexes or not, and nothing else may stop working because of us.
    dbapi.prepare_connection(conn)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from sqlite_utils.cli import output_options  # defined before sqlite-utils loads plugins

    cli.add_command(_docql_command(output_options))


SQLITE_MAX_INT = 2**63 - 1  # a larger LIMIT is a datatype error in SQLite


class BadQuery(click.ClickException):
    """A bad query or option, reported as sqlite-utils reports errors ("Error: ..." on
    stderr) with our exit code for it, 2; other failures (no index at that path, ...)
    are plain `click.ClickException`s, exit 1."""

    exit_code = 2


def _docql_command(output_options: Callable[[Any], Any]) -> click.Command:
    @click.command(name="docql")
    @click.argument("database", type=click.Path(dir_okay=False, allow_dash=False))
    @click.argument("query")
    @click.option(
        "--path",
        "paths",
        multiple=True,
        metavar="GLOB",
        help="Only documents whose path matches (repeatable)",
    )
    @click.option(
        "--limit",
        type=click.IntRange(0, SQLITE_MAX_INT),
        metavar="N",
        help="At most N results",
    )
    @click.option("--sql", "show_sql", is_flag=True, help="Print the compiled SQL (values inlined)")
    @output_options
    @click.option("-r", "--raw", is_flag=True, help="Raw output, first column of first row")
    @click.option("--raw-lines", is_flag=True, help="Raw output, first column of each row")
    def docql(
        database: str,
        query: str,
        paths: tuple[str, ...],
        limit: int | None,
        show_sql: bool,
        **flags: Any,
    ) -> None:
        """Run a DocQL QUERY against the docql-sqlite index DATABASE

        Example:

        \b
            sqlite-utils docql docs.db '$.toc[?(@.level==1)]' --table
            sqlite-utils docql docs.db '$.content.chapter("1.2")' --csv

        Pass "-" as the QUERY to read it from standard input.
        """
        if query == "-":
            query = sys.stdin.read()
        options = QueryOptions(paths=paths, limit=limit)
        try:
            with Index(database, table_function=False) as idx:
                if show_sql:
                    click.echo(idx.compile(query, options).inline_sql() + ";")
                    return
                items = idx.query(query, options)
        except QueryError as exc:  # str() carries the caret lines
            raise BadQuery(str(exc)) from exc
        except UsageError as exc:
            raise BadQuery(exc.message) from exc
        except DocQLError as exc:
            raise click.ClickException(exc.message) from exc
        write_items(items, column=items.compiled.projection or "value", **flags)

    return docql


def rows_of(items: Iterable[Any], column: str = "value") -> tuple[list[str], list[list[Any]]]:
    """Items (dicts, or the values of a projection) as headers and rows: one column per
    field in first-seen order; values that are not objects go in `column` (the projected
    field's name, as the compiled SQL names it)."""
    dicts = [item if isinstance(item, dict) else {column: item} for item in items]
    headers: list[str] = []
    for item in dicts:
        headers.extend(key for key in item if key not in headers)
    return headers, [[item.get(h) for h in headers] for item in dicts]


def _as_text(value: Any) -> Any:
    # Nested values (tables' rows, front matter lists) print as the JSON text SQLite
    # would hold, in the table and CSV formats; JSON output keeps them nested.
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return value


def _readable(value: Any) -> Any:
    return visible(value) if isinstance(value, str) else value


def write_items(
    items: Iterable[Any],
    *,
    column: str,
    nl: bool,
    arrays: bool,
    csv: bool,
    tsv: bool,
    no_headers: bool,
    table: bool,
    fmt: str | None,
    json_cols: bool,
    ascii_: bool,
    raw: bool,
    raw_lines: bool,
) -> None:
    """Print as `sqlite-utils query` prints rows (its `_execute_query`), flag for flag."""
    from sqlite_utils.cli import output_rows  # see the module docstring

    headers, rows = rows_of(items, column)
    if raw:
        click.echo(_raw(rows[0][0] if rows and rows[0] else None), nl=False)
    elif raw_lines:
        for row in rows:
            click.echo(_raw(row[0] if row else None))
    elif fmt or table:
        # A table is for reading: no control character of a file name or text reaches
        # the terminal raw (`output.visible`, as in docql-sqlite's own tables).
        text_rows = [[_readable(_as_text(v)) for v in row] for row in rows]
        headers_shown = () if no_headers else headers
        click.echo(tabulate.tabulate(text_rows, headers=headers_shown, tablefmt=fmt or "simple"))
    elif csv or tsv:
        writer = csv_std.writer(sys.stdout, dialect="excel-tab" if tsv else "excel")
        if not no_headers:
            writer.writerow(headers)
        for row in rows:
            writer.writerow([_as_text(v) for v in row])
    else:
        for line in output_rows(rows, headers, nl, arrays, json_cols, ascii_):
            click.echo(line)


def _raw(value: Any) -> str:
    return "None" if value is None else str(_as_text(value))
