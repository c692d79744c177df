"""`docql-sqlite serve DB`: Datasette with the docql-sqlite plugin, on 127.0.0.1.

Datasette is an optional extra, imported only when this command runs. The database is
served mutable (Datasette's read connections are `mode=ro`, and it writes only when a
plugin asks it to, which ours never does), so an `index` run beside the server shows up
without a restart.
"""

from __future__ import annotations

import socket

import click

from ... import dbapi, is_url
from ...errors import DocQLError, UsageError
from ..click_options import database_argument
from ..console import handle_errors, open_index


@click.command(
    "serve",
    short_help="Browse DATABASE in Datasette, with the DocQL page at /-/docql.",
    context_settings={"ignore_unknown_options": True},
)
@database_argument
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (0.0.0.0 exposes the index to the network)",
)
@click.option(
    "-p",
    "--port",
    type=click.IntRange(0, 65535),
    default=8001,
    show_default=True,
    help="Port to listen on (0: any free port)",
)
@click.argument("datasette_options", nargs=-1, type=click.UNPROCESSED)
@handle_errors
def serve_command(database: str, host: str, port: int, datasette_options: tuple[str, ...]) -> None:
    """Browse DATABASE in Datasette, with the DocQL page at /-/docql.

    Other options go to `datasette serve` as they are, e.g. permissions for a shared
    server: `docql-sqlite serve docs.db -m metadata.json` (Datasette 0.65; `-c
    datasette.yaml` on 1.0). The DocQL pages obey them (docs/datasette.md).
    """
    if is_url(database):
        raise UsageError(
            "serve runs Datasette, which reads SQLite files only, so it cannot serve a "
            "PostgreSQL index; copy it to a file and serve that: "
            f"docql-sqlite copy {database} docs.db && docql-sqlite serve docs.db"
        )
    # A clear error for a missing file or a database that is not an index, before the
    # server starts (Datasette would serve any SQLite file, or create an empty one).
    with open_index(database) as index:
        has_vectors = index.has_vectors
    try:
        from datasette import cli as datasette_cli
    except ImportError:
        raise DocQLError("serve needs Datasette: pip install 'docql-sqlite[datasette]'") from None
    from datasette.utils.sqlite import sqlite3 as datasette_sqlite

    # Datasette reads every table's columns, and a vec0 table cannot even be described
    # without sqlite-vec: with vectors in the index, Datasette's driver must load it.
    probe = datasette_sqlite.connect(":memory:")
    vec = dbapi.load_vec(probe)
    probe.close()
    if has_vectors and not vec.loaded:
        raise DocQLError(f"Datasette cannot read an index with vectors here: {vec.reason}")
    if port == 0:
        port = _free_port(host)
    click.echo(f"DocQL page: http://{host}:{port}/-/docql", err=True)
    datasette_cli.cli.main(
        ["serve", database, "--host", host, "--port", str(port), *datasette_options],
        prog_name="docql-sqlite serve",
    )


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
