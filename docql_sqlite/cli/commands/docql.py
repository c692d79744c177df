"""DocQL commands: `query` and `explain`."""

from __future__ import annotations

import sys
from typing import Any

import click

from ... import output
from ...options import QueryOptions
from .. import flags
from ..click_options import database_argument, paths_option, with_arguments, with_flags
from ..console import echo, handle_errors, open_index
from ..fastpath import is_docql, run_query


# Built from the one table of the command's arguments and flags, which the fast path reads
# too: a new flag is a row there and a parameter of `run_query`, nothing here.
@click.command(short_help="Run a DocQL query against DATABASE.")
@with_arguments(flags.QUERY_ARGUMENTS)
@with_flags(flags.QUERY_FLAGS)
def query(**params: Any) -> None:
    """Run a DocQL QUERY (such as '$.toc[?(@.level==1)]') against DATABASE."""
    if not is_docql(params["query"]):
        import docql_sqlite

        meant = docql_sqlite.as_docql(params["query"])
        if meant is not None:
            raise click.UsageError(
                f"'{params['query']}' is not DocQL (a DocQL query starts with '$'): did you "
                f"mean docql-sqlite query {params['database']} '{meant}'?"
            )
        raise click.UsageError(
            f"'{params['query']}' is not DocQL (a DocQL query starts with '$'); for free-text "
            f"search use: docql-sqlite search {params['database']} '{params['query']}'"
        )
    run_query(**params)


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
        echo(output.dumps(info))
        return
    echo("tokens: " + " ".join(f"{t['type']}({t['text']})" for t in info["tokens"]))
    echo("ast:    " + output.dumps(info["ast"]))
    echo(f"items:  {info['item_type']}")
    echo("sql:\n" + info["sql"])
    echo("params: " + output.dumps(info["params"]))
    echo("plan:")
    for step in info["plan"]:
        echo(f"  {step['detail']}")
