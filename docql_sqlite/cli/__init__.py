"""The `docql-sqlite` command. Each command is flags → options → one `Index` call →
output (docs/design.md §2); the database file comes first, as in sqlite3/sqlite-utils."""

from __future__ import annotations

import click

from . import copy, documents, mcp, queries, searching, serve


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="docql-sqlite")
def cli() -> None:
    """Index documents and code into one SQLite file and query it with DocQL."""


for command in (
    documents.index_command,
    documents.status,
    documents.toc,
    documents.get,
    queries.query,
    queries.explain,
    searching.search_command,
    searching.embed_command,
    searching.context_command,
    serve.serve_command,
    copy.copy_command,
    mcp.mcp_command,
):
    cli.add_command(command)


def main() -> None:
    cli()
