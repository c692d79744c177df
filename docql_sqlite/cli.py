"""The `docql-sqlite` command: thin click commands over the library (database first).

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

from . import output
from .errors import DocQLError, DocQLNote, QueryError
from .index import Index


# -- shared options ------------------------------------------------------------------
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
    """Turn library errors into messages and exit codes (2: query errors, 1: the rest)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # Notes print as one line, once, for the rest of the process (a CLI run).
        warnings.simplefilter("once", DocQLNote)
        warnings.showwarning = _show_note
        try:
            return func(*args, **kwargs)
        except QueryError as exc:
            click.echo(str(exc), err=True)
            raise SystemExit(2) from exc
        except DocQLError as exc:
            click.echo(f"error: {exc.message}", err=True)
            raise SystemExit(1) from exc  # the cause tells wrappers the command failed as a whole

    return wrapper


def _show_note(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
    """A library note (`DocQLNote`) as one line on stderr; other warnings as Python shows them."""
    if issubclass(category, DocQLNote):
        click.echo(f"note: {message}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, *args, **kwargs))


def open_index(path: str) -> Index:
    return Index(path, table_function=False)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="docql-sqlite")
def cli() -> None:
    """Index documents and code into one SQLite file and query it with DocQL."""


def main() -> None:
    cli()


# -- index ---------------------------------------------------------------------------
@cli.command("index")
@click.argument("database", type=click.Path(dir_okay=False))
@click.argument("paths", nargs=-1, required=True)
@click.option("--include", multiple=True, help="Only index files matching this glob (repeatable)")
@click.option(
    "--exclude", multiple=True, help="Skip files and directories matching this glob (repeatable)"
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=50 * 1024 * 1024,
    show_default=True,
    help="Largest file to index",
)
@click.option(
    "--chunk-chars",
    type=click.IntRange(min=100),
    default=1500,
    show_default=True,
    help="Target largest chunk size",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=None,
    help="Parser processes (default: CPU count, at most 4; 0 parses in this process)",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds allowed to parse one file",
)
@click.option("--no-remove", is_flag=True, help="Keep documents whose files are gone")
@output_options
@handle_errors
def index_command(
    database: str,
    paths: tuple[str, ...],
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    max_bytes: int,
    chunk_chars: int,
    workers: int | None,
    timeout: float,
    no_remove: bool,
    fmt: str | None,
) -> None:
    """Index PATHS (files, directories) into DATABASE, incrementally."""
    from .ingest import IngestOptions, index_paths

    options = IngestOptions(
        include=include,
        exclude=exclude,
        max_bytes=max_bytes,
        max_chars=chunk_chars,
        timeout=timeout,
        remove_missing=not no_remove,
    )
    if workers is not None:
        options.workers = workers
    bar = None
    if sys.stderr.isatty():
        bar = _ProgressBar()
        options.progress = bar.update
    try:
        report = index_paths(database, list(paths), options)
    finally:
        if bar:
            bar.close()
    summary = report.summary()
    if fmt:
        detail = dict(
            summary,
            failures=[{"path": p, "reason": r} for p, r in report.failed],
            warning_list=[{"path": p, "reason": r} for p, r in report.warnings],
        )
        output.write([detail], fmt, sys.stdout)
    else:
        for path, reason in report.failed:
            click.echo(f"failed: {path}: {reason}", err=True)
        for path, reason in report.warnings:
            click.echo(f"warning: {path}: {reason}", err=True)
        click.echo(
            "indexed {added} added, {updated} updated, {unchanged} unchanged, {removed} removed, "
            "{failed} failed in {seconds:.2f}s".format(**summary),
            err=True,
        )
    if not report.ok:
        sys.exit(1)


class _ProgressBar:
    """A one-line progress display on stderr (terminals only)."""

    def __init__(self) -> None:
        self.shown = False

    def update(self, done: int, total: int, path: str) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        line = f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {path[-40:]:<40}"
        sys.stderr.write(line)
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()


# -- status / toc / get --------------------------------------------------------------
@cli.command()
@click.argument("database", type=click.Path(dir_okay=False))
@click.option("--errors", "show_errors", is_flag=True, help="List the files that failed and why")
@output_options
@handle_errors
def status(database: str, show_errors: bool, fmt: str | None) -> None:
    """Show what DATABASE holds: documents by format, sections, chunks, errors, size."""
    with open_index(database) as idx:
        if show_errors:
            emit(idx.errors(), fmt)
            return
        info = idx.status()
        if default_format(fmt) == "table":
            for key, value in info.items():
                if isinstance(value, dict):
                    value = ", ".join(f"{k} {v}" for k, v in value.items()) or "-"
                click.echo(f"{key:<16} {value if value is not None else '-'}")
        else:
            emit([info], fmt)


@cli.command()
@click.argument("database", type=click.Path(dir_okay=False))
@click.argument("path", required=False)
@output_options
@handle_errors
def toc(database: str, path: str | None, fmt: str | None) -> None:
    """Show the outline of the document PATH (or of every document)."""
    with open_index(database) as idx:
        items = idx.toc(path)
        if default_format(fmt) == "table":
            if not items:
                click.echo("no results", err=True)
            current = None
            for item in items:
                if item["path"] != current:
                    current = item["path"]
                    click.echo(current)
                indent = "  " * (item["level"] - 1)
                where = f"{item['line']}-{item['end_line']}" + (
                    f" p{item['page']}" if item["page"] else ""
                )
                click.echo(f"  {indent}{item['number']} {item['title']}  ({where})")
        else:
            emit(items, fmt)


@cli.command()
@click.argument("database", type=click.Path(dir_okay=False))
@click.argument("spec", metavar="PATH[:FROM[:COUNT]]")
@output_options
@handle_errors
def get(database: str, spec: str, fmt: str | None) -> None:
    """Print lines of an indexed document, read from the index (works when the file is gone)."""
    with open_index(database) as idx:
        path, lines = idx.lines(spec)
        if fmt is None:
            sys.stdout.write("".join(text + "\n" for _, text in lines))
        else:
            emit(({"path": path, "line": n, "text": text} for n, text in lines), fmt)


# -- query / explain -----------------------------------------------------------------
@cli.command()
@click.argument("database", type=click.Path(dir_okay=False))
@click.argument("query")
@click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="GLOB",
    help="Only documents whose path matches (repeatable)",
)
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
) -> None:
    """Run a DocQL QUERY (e.g. '$.toc[?(@.level==1)]') against DATABASE."""
    if not query.lstrip().startswith("$"):
        raise click.UsageError(
            f"'{query}' is not DocQL (a DocQL query starts with '$'); for free-text search use: "
            f"docql-sqlite search {database} '{query}'"
        )
    with open_index(database) as idx:
        compiled = idx.compile(query, paths, limit)
        if show_sql or inline:
            if inline:
                click.echo(compiled.inline_sql() + ";")
            else:
                click.echo(compiled.sql + ";")
                if compiled.params:
                    click.echo("-- params: " + output.dumps(compiled.params))
            return
        from .query import results

        items = results.build(compiled, idx.execute(compiled))
        if compiled.post == "structure" and default_format(fmt) == "table":
            from .query.results import structure_text

            click.echo(structure_text(items), nl=False)
            return
        emit(items, fmt)


@cli.command()
@click.argument("database", type=click.Path(dir_okay=False))
@click.argument("query")
@click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="GLOB",
    help="Only documents whose path matches (repeatable)",
)
@handle_errors
def explain(database: str, query: str, paths: tuple[str, ...]) -> None:
    """Show how QUERY is understood: tokens, syntax tree, SQL, parameters, query plan."""
    with open_index(database) as idx:
        info = idx.explain(query, paths)
    if not sys.stdout.isatty():
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


from . import cli_search  # noqa: E402

cli_search.register(cli)
