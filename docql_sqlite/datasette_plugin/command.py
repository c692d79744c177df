"""`datasette docql DATABASE QUERY [flags]`: `docql-sqlite query` under Datasette's command.

It runs the `docql-sqlite query` command with the same arguments, so the flags, the output,
`--help` and the exit codes are the docql-sqlite command's own, and this plugin does not
import the CLI: a client uses the others through their public interface, here the
command line (tests/test_public_api.py). One more process costs a structural query
~0.1 s of start-up, against the seconds Datasette's own start-up takes.
"""

from __future__ import annotations

import subprocess
import sys

import click

# `python -m docql_sqlite`, under the name its usage lines and errors should show.
PROGRAM = "import sys; sys.argv[0] = 'docql-sqlite'; from docql_sqlite.cli import main; main()"


@click.command(
    name="docql",
    add_help_option=False,  # `--help` is the query command's
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    short_help="Run a DocQL query on a docql-sqlite index (docql-sqlite query)",
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def docql_command(args: tuple[str, ...]) -> None:
    """Run `docql-sqlite query DATABASE QUERY [flags]` (see: datasette docql --help)."""
    code = subprocess.call([sys.executable, "-c", PROGRAM, "query", *args])
    # A child killed by a signal (-N) exits as a shell reports it: 128 + N.
    raise SystemExit(code if code >= 0 else 128 - code)
