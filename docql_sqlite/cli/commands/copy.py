"""`docql-sqlite copy SRC DEST`: move an index between engines (docs/scale-out.md)."""

from __future__ import annotations

import click

import docql_sqlite

from ..click_options import output_options
from ..console import default_format, emit, handle_errors


@click.command("copy")
@click.argument("source")
@click.argument("dest")
@output_options
@handle_errors
def copy_command(source: str, dest: str, fmt: str | None, fields: tuple[str, ...] | None) -> None:
    """Copy an index to or from PostgreSQL.

    SOURCE is copied to DEST, vectors included. One side is an index file, the other a
    postgresql:// URL (an empty database, with the pgvector extension available). Every
    table is checked by row count and checksum before the copy commits; on any difference
    nothing is written.

    \b
    docql-sqlite copy docs.db postgresql://localhost/docs
    docql-sqlite copy postgresql://localhost/docs docs-again.db
    """
    report = docql_sqlite.copy(source, dest)
    if default_format(fmt) == "table":
        for table in report["tables"]:
            click.echo(f"{table['table']:<14} {table['rows']:>8} rows  sha256 {table['checksum']}")
        click.echo(f"copied {report['source']} to {report['dest']}, every table verified")
    else:
        emit(report["tables"], fmt, fields)
