"""Commands over documents: `index`, `status`, `toc`, `get`."""

from __future__ import annotations

import sys
from typing import Any

import click

from ...errors import UsageError
from ...options import IngestOptions
from ...output import outline_lines
from ..click_options import database_argument, output_options, text_output_options
from ..console import (
    default_format,
    echo,
    embed_summary,
    emit,
    handle_errors,
    open_index,
    visible_on_terminal,
)
from ..progress import ProgressBar


@click.command("index", short_help="Index files, directories or URLs into DATABASE, incrementally.")
@database_argument
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--include",
    multiple=True,
    metavar="GLOB",
    help="Only index files matching this gitignore-style glob (repeatable)",
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip files and directories matching this gitignore-style glob (repeatable)",
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
    help=(
        "CPU seconds allowed to parse one file (a worker blocked without using CPU is "
        "stopped after 5x this in wall time)"
    ),
)
@click.option(
    "--retry-failed",
    is_flag=True,
    help="Parse again files that failed before even if unchanged (default: skip them until "
    "they change)",
)
@click.option(
    "--trigram",
    is_flag=True,
    help="Add a trigram index of the chunks' text (once; kept current from then on): grep() "
    "reads candidate chunks instead of every chunk, for ~0.65x the corpus in file size",
)
@click.option("--no-remove", is_flag=True, help="Keep documents whose files are gone")
@click.option(
    "--prune",
    is_flag=True,
    help="Also remove indexed documents under PATHS that this run's filters leave out",
)
@click.option("--hidden", is_flag=True, help="Index hidden files and directories too")
@click.option("--no-ignore", is_flag=True, help="Do not respect .gitignore/.ignore files")
@click.option(
    "--follow-symlinks",
    is_flag=True,
    help="Follow symlinks to directories and to files outside PATHS",
)
@click.option(
    "-z",
    "--decompress",
    is_flag=True,
    help="Read the document inside compressed files (README.md.gz, changelog.Debian.gz; "
    ".gz, .bz2, .xz)",
)
@click.option(
    "--embed",
    "embed_model",
    metavar="MODEL",
    default=None,
    help="Embed new or changed chunks with MODEL (an index that has vectors keeps them "
    "current by itself)",
)
@click.option(
    "--watch",
    "keep_watching",
    is_flag=True,
    help="After indexing, keep re-indexing PATHS as files change (Ctrl-C stops)",
)
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
    retry_failed: bool,
    trigram: bool,
    no_remove: bool,
    prune: bool,
    hidden: bool,
    no_ignore: bool,
    follow_symlinks: bool,
    decompress: bool,
    embed_model: str | None,
    keep_watching: bool,
    fmt: str | None,
    fields: tuple[str, ...] | None,
) -> None:
    """Index PATHS (files, directories, URLs) into DATABASE, incrementally.

    The summary and each failure go to stderr; the report (counts, failures, warnings,
    embedding) goes to stdout as JSON when piped, or in the format asked for.
    """
    from ... import index, is_url

    if trigram and is_url(database):
        raise UsageError(
            "--trigram adds an FTS5 table to an index file; PostgreSQL has no such index "
            "(its grep() and heading() scan)"
        )
    if keep_watching and is_url(database):
        raise UsageError(
            "--watch keeps a file current; with PostgreSQL, run the index command again "
            "(from as many machines as you like: writers may run at once)"
        )
    if keep_watching:
        from ... import require_watchfiles

        require_watchfiles()  # before the first run, not after it
    bar, embed_bar = ProgressBar("indexing"), ProgressBar("embedding")
    options = IngestOptions(
        include=include,
        exclude=exclude,
        max_bytes=max_bytes,
        max_chars=chunk_chars,
        timeout=timeout,
        retry_failed=retry_failed,
        trigram=trigram,
        remove_missing=not no_remove,
        prune=prune,
        hidden=hidden,
        ignore_files=not no_ignore,
        follow_symlinks=follow_symlinks,
        decompress=decompress,
        embed=embed_model,
        progress=bar.update,
        embed_progress=embed_bar.update,
    )
    if workers is not None:
        options.workers = workers
    try:
        report = index(database, list(paths), options)
    finally:
        bar.close()
        embed_bar.close()
    summary: dict[str, Any] = report.summary()
    for path, reason in report.failed:
        echo(f"failed: {path}: {reason}", err=True)
    for path, reason in report.warnings:
        echo(f"warning: {path}: {reason}", err=True)
    for note in report.notes:
        echo(f"note: {note}", err=True)
    if report.outside_filters:
        echo(
            f"note: kept {report.outside_filters} indexed document(s) under these paths that "
            f"this run's filters leave out (remove them with --prune)",
            err=True,
        )
    echo(index_summary(report), err=True)
    if report.embedding:
        echo(embed_summary(report.embedding), err=True)
    if report.embedding_error:
        echo(f"error: embedding failed: {report.embedding_error}", err=True)
    if fmt or not sys.stdout.isatty():  # a terminal has read the summary already
        detail = dict(
            summary,
            failures=[{"path": p, "reason": r} for p, r in report.failed],
            warning_list=[{"path": p, "reason": r} for p, r in report.warnings],
            skipped_list=[{"path": p, "reason": r} for p, r in report.skipped],
            skip_counts=report.skip_counts,
            notes=report.notes,
            embedding=report.embedding,
            embedding_error=report.embedding_error,
        )
        emit([detail], fmt, fields)
    if keep_watching:
        watch_and_report(database, list(paths), options)
    elif not report.ok:
        sys.exit(1)


def index_summary(report: Any) -> str:
    """The summary line of an index run. "skipped" counts the files the run looked at and
    left out (empty, over --max-bytes, a symlink policy, failed before; the JSON's
    `skipped_list`); what the walk never took (hidden, ignored, not a document format,
    --include/--exclude) is said after it, so the line adds up to the JSON's `skip_counts`."""
    files = report.file_skip_counts()
    walk = {k: n for k, n in report.skip_counts.items() if n and k not in files}
    summary = report.summary()
    line = (
        "indexed {added} added, {updated} updated, {unchanged} unchanged, {removed} removed, "
        "{failed} failed, {skipped} skipped".format(**summary)
    )
    if files:
        line += " (" + ", ".join(f"{n} {kind}" for kind, n in files.items()) + ")"
    if walk:
        line += "; the walk left out " + ", ".join(f"{n} {kind}" for kind, n in walk.items())
    return line + " in {seconds:.2f}s".format(**summary)


def watch_and_report(database: str, paths: list[str], options: IngestOptions) -> None:
    """`index --watch`: one line per re-index run on stderr, until Ctrl-C."""
    from ... import watch

    options.progress = options.embed_progress = None
    echo(f"watching {', '.join(paths)} (Ctrl-C stops)", err=True)
    watch(
        database,
        paths,
        options,
        on_report=lambda r: echo(
            "indexed {added} added, {updated} updated, {removed} removed, {failed} failed "
            "in {seconds:.2f}s".format(**r.summary()),
            err=True,
        ),
        on_error=lambda exc: echo(f"error: {exc.message}", err=True),
    )


# `status` checks the file's structure too (quick_check: ~1 s for a 158 MB index).
STATUS_CHECK_SECONDS = 5.0


@click.command(short_help="Show what DATABASE holds: documents, sections, chunks and errors.")
@database_argument
@click.option("--errors", "show_errors", is_flag=True, help="List the files that failed and why")
@output_options
@handle_errors
def status(
    database: str, show_errors: bool, fmt: str | None, fields: tuple[str, ...] | None
) -> None:
    """Show what DATABASE holds: documents by format, sections, chunks, errors, size."""
    with open_index(database) as idx:
        if show_errors:
            emit(idx.errors(), fmt, fields, database)
            return
        info = idx.status(check_seconds=STATUS_CHECK_SECONDS)
    if default_format(fmt) == "table" and not fields:
        for key, value in info.items():
            if isinstance(value, dict):
                value = ", ".join(f"{k} {v}" for k, v in value.items()) or "-"
            echo(f"{key:<16} {value if value is not None else '-'}")
    else:
        emit([info], fmt, fields)


@click.command(short_help="Show the outline of one document, or of every document.")
@database_argument
@click.argument("path", required=False)
@output_options
@handle_errors
def toc(database: str, path: str | None, fmt: str | None, fields: tuple[str, ...] | None) -> None:
    """Show the outline of the document PATH (or of every document).

    PATH is a document's path, a tail only one document ends in, or any location the tool
    prints (`…/api/stream.md`, `guide.md:40-59`: that document)."""
    with open_index(database) as idx:
        items = idx.toc(path)
    if default_format(fmt) != "table" or fields:
        emit(items, fmt, fields, database)
        return
    if not items:
        echo("no results", err=True)
    for line in toc_lines(items):
        echo(line)


def toc_lines(items: list[dict[str, Any]]) -> list[str]:
    """An outline as indented text (`output.outline_lines`), each heading's lines (and
    page) in parentheses."""

    def where(item: dict[str, Any]) -> str:
        return f"{item['line']}-{item['end_line']}" + (f" p{item['page']}" if item["page"] else "")

    return outline_lines(items, where)


@click.command(short_help="Print lines of an indexed document, read from the index.")
@database_argument
@click.argument("location", metavar="LOCATION")
@text_output_options("Print the lines as they are (default on a terminal)")
@handle_errors
def get(database: str, location: str, fmt: str | None, fields: tuple[str, ...] | None) -> None:
    """Print lines of an indexed document, read from the index (works when the file is gone).

    LOCATION is any location the tool prints: PATH, PATH:12, PATH:12-40, PATH:FROM:COUNT,
    PATH:page 9 or PATH#page=9. Asking past the end says how long the document is.

    On a terminal the lines are printed as they are (--text); piped, they come as JSON,
    one object per line of the document: [{"path": ..., "line": 12, "text": ...}, ...].
    """
    with open_index(database) as idx:
        excerpt = idx.get(location)
    if fmt == "text" or (fmt is None and sys.stdout.isatty()):
        if fields:
            raise UsageError("--fields picks fields of rows; --text prints the lines as they are")
        sys.stdout.write(visible_on_terminal(excerpt.text))
        return
    rows = ({"path": excerpt.path, "line": n, "text": text} for n, text in excerpt.lines)
    emit(rows, fmt, fields, database)
