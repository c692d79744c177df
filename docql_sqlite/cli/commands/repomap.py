"""`docql-sqlite map`: the repository map of the indexed code (docs/repomap.md)."""

from __future__ import annotations

import sys

import click

from ...errors import UsageError
from ..click_options import database_argument, text_output_options
from ..console import default_format, emit, handle_errors, open_index


@click.command("map", short_help="Show the most central files and symbols of the indexed code.")
@database_argument
@click.argument("paths", nargs=-1)
@click.option(
    "--budget",
    type=click.IntRange(min=1, max=100_000),
    default=1024,
    show_default=True,
    help="Most tokens of map (words and punctuation marks)",
)
@click.option("--focus", default=None, help="Centre the map on this symbol name or file")
@text_output_options("Print the map as text (default on a terminal)")
@handle_errors
def map_command(
    database: str,
    paths: tuple[str, ...],
    budget: int,
    focus: str | None,
    fmt: str | None,
    fields: tuple[str, ...] | None,
) -> None:
    """Print the repository map of DATABASE: the most central files and symbols of the
    indexed code (PageRank over its references), each with its signature, within --budget
    tokens. PATHS (directories or globs) limit the map to part of the tree; --focus NAME
    or --focus FILE ranks what that symbol or file uses first.

    On a terminal (or with --text) it prints the map's text. Piped (or with --json) it
    prints [{"text", "tokens", "budget", "focus", "files", "symbols": [...], "left_out",
    "note"}] (the note says why a map is empty);
    --nl, --csv, --md and -t print one row per symbol.
    """
    with open_index(database) as idx:
        result = idx.repo_map(list(paths), budget=budget, focus=focus)
    if result["note"]:
        click.echo(f"note: {result['note']}", err=True)
    if fmt == "text" or (fmt is None and sys.stdout.isatty()):
        if fields:
            raise UsageError("--fields picks fields of symbols; --text prints the map as text")
        click.echo(result["text"], nl=False)
    elif default_format(fmt) == "json" and not fields:
        emit([result], fmt)
    else:
        emit(result["symbols"], fmt, fields)
