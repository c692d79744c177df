"""DocQL commands: `query` and `explain`."""

from __future__ import annotations

import sys

import click

from .. import output
from ..options import QueryOptions
from .common import (
    database_argument,
    default_format,
    emit,
    handle_errors,
    open_index,
    output_options,
    paths_option,
)


@click.command(short_help="Run a DocQL query against DATABASE.")
@database_argument
@click.argument("query")
@paths_option
@click.option("--limit", type=click.IntRange(min=0), default=None, help="At most N results")
@click.option("--sql", "show_sql", is_flag=True, help="Print the SQL instead of running it")
@click.option(
    "--inline",
    is_flag=True,
    help="Print the SQL with the values in it (runs as is in sqlite3); implies --sql",
)
@output_options
@handle_errors
def query(
    database: str,
    query: str,
    paths: tuple[str, ...],
    limit: int | None,
    show_sql: bool,
    inline: bool,
    fmt: str | None,
    fields: tuple[str, ...] | None,
) -> None:
    """Run a DocQL QUERY (such as '$.toc[?(@.level==1)]') against DATABASE."""
    if not query.lstrip().startswith("$"):
        raise click.UsageError(
            f"'{query}' is not DocQL (a DocQL query starts with '$'); for free-text search use: "
            f"docql-sqlite search {database} '{query}'"
        )
    options = QueryOptions(paths=paths, limit=limit)
    with open_index(database) as idx:
        if show_sql or inline:
            compiled = idx.compile(query, options)
            if inline:
                click.echo(compiled.inline_sql() + ";")
            else:
                click.echo(compiled.sql + ";")
                if compiled.params:
                    click.echo("-- params: " + output.dumps(compiled.params))
            return
        result = idx.query(query, options)
    if result.compiled.post == "structure" and default_format(fmt) == "table" and not fields:
        from ..query.results import structure_text

        click.echo(structure_text(result), nl=False)
        return
    emit(result, fmt, fields)


@click.command(short_help="Show how a DocQL query is parsed, compiled and planned.")
@database_argument
@click.argument("query")
@paths_option
@click.option(
    "--json", "as_json", flag_value=True, default=None, help="Output JSON (default when piped)"
)
@click.option("--text", "as_json", flag_value=False, help="Output text (default on a terminal)")
@handle_errors
def explain(database: str, query: str, paths: tuple[str, ...], as_json: bool | None) -> None:
    """Show how QUERY is understood: tokens, syntax tree, SQL, parameters, query plan.

    Piped (or with --json) it prints one JSON object: query, tokens, ast, item_type, sql,
    params, inline_sql, plan and notes.
    """
    with open_index(database) as idx:
        info = idx.explain(query, QueryOptions(paths=paths))
    if as_json or (as_json is None and not sys.stdout.isatty()):
        click.echo(output.dumps(info))
        return
    click.echo("tokens: " + " ".join(f"{t['type']}({t['text']})" for t in info["tokens"]))
    click.echo("ast:    " + output.dumps(info["ast"]))
    click.echo(f"items:  {info['item_type']}")
    click.echo("sql:\n" + info["sql"])
    click.echo("params: " + output.dumps(info["params"]))
    click.echo("plan:")
    for step in info["plan"]:
        click.echo(f"  {step['detail']}")
