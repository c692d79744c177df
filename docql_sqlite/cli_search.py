"""CLI commands `search`, `embed` and `context`, and the `--embed MODEL` option of `index`.

`cli.py` calls `register(cli)`. The commands are thin: they parse options, call
`docql_sqlite.search`, and write results with the shared output flags.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

import click

from . import output
from .errors import DocQLError, SearchError

MODES = ("smart", "bm25", "vector", "hybrid")


def _fail_usage(func: Any) -> Any:
    """A search request that cannot run (empty text, bad typed document) exits 2, like a query
    error.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except SearchError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(2)

    return wrapper


def _weights(pairs: tuple[str, ...]) -> dict[str, float]:
    from .search.smart import WEIGHTS  # the lists a weight can name (bm25 and vector included)

    weights = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        name = name.strip()
        try:
            weights[name] = float(value)
        except ValueError:
            raise click.BadParameter(
                f"expected NAME=NUMBER (e.g. bm25=2), got '{pair}'", param_hint="--weight"
            ) from None
        if name not in WEIGHTS:
            raise click.BadParameter(
                f"unknown list '{name}'; lists: {', '.join(WEIGHTS)}", param_hint="--weight"
            )
        if weights[name] < 0:
            raise click.BadParameter(
                f"a weight cannot be negative, got '{pair}'", param_hint="--weight"
            )
    return weights


class _Bar:
    """A one-line progress bar on stderr, shown on terminals only."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.active = sys.stderr.isatty()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.active or total == 0:
            return
        filled = int(30 * done / total)
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total}")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 70 + "\r")
            sys.stderr.flush()


def run_embed(database: str, model: str | None, replace: bool = False) -> dict[str, Any]:
    from .search import embed

    bar = _Bar("embedding")
    try:
        return embed(database, model, progress=bar, replace=replace)
    finally:
        bar.close()


def _embed_summary(report: dict[str, Any]) -> str:
    return (
        "embedded {embedded} texts with {model} ({reused} reused from the cache, {unchanged} "
        "unchanged, "
        "{removed} removed) in {seconds:.2f}s".format(**report)
    )


def _explain_text(items: list[dict[str, Any]]) -> None:
    for n, it in enumerate(items, start=1):
        ex = it.get("explain", {})
        click.echo(f"{n}. {it['location']}  score {it['score']}")
        for name, info in ex.get("lists", {}).items():
            detail = ", ".join(f"{k} {v}" for k, v in info.items())
            click.echo(f"     {name:<10} {detail}  → rrf {ex.get('rrf', {}).get(name, 0)}")
        click.echo(f"     final {ex.get('final')}")
    if items and items[0].get("explain", {}).get("plan"):
        click.echo("plan: " + output.dumps(items[0]["explain"]["plan"]))


def register(cli: click.Group) -> None:
    """Add `search`, `embed` and `context` to `cli`, and `--embed MODEL` to its `index`."""
    from .cli import default_format, emit, handle_errors, open_index, output_options

    @cli.command("search")
    @click.argument("database", type=click.Path(dir_okay=False))
    @click.argument("text")
    @click.option(
        "--mode",
        type=click.Choice(MODES),
        default="smart",
        show_default=True,
        help="Ranking method",
    )
    @click.option(
        "-n", "--limit", type=int, default=10, show_default=True, help="Number of results"
    )
    @click.option(
        "--path",
        "paths",
        multiple=True,
        metavar="GLOB",
        help="Only documents whose path matches (repeatable)",
    )
    @click.option("--group", type=click.Choice(["file"]), default=None, help="One result per file")
    @click.option(
        "--explain",
        is_flag=True,
        help="Show each list's rank and score, the RRF terms and the final score",
    )
    @click.option(
        "--model", default=None, help="Embedding model for the query (default: the index's)"
    )
    @click.option(
        "--rrf-k", type=click.IntRange(min=1), default=60, show_default=True, help="RRF constant k"
    )
    @click.option(
        "--weight",
        "weights",
        multiple=True,
        metavar="LIST=W",
        help="Weight of a list: bm25=2, vector=1 …",
    )
    @click.option(
        "--content", "with_content", is_flag=True, help="Include each passage's full text"
    )
    @output_options
    @handle_errors
    @_fail_usage
    def search_command(
        database: str,
        text: str,
        mode: str,
        limit: int,
        paths: tuple[str, ...],
        group: str | None,
        explain: bool,
        model: str | None,
        rrf_k: int,
        weights: tuple[str, ...],
        with_content: bool,
        fmt: str | None,
    ) -> None:
        """Search DATABASE for TEXT: plain words, or a typed query document (lex:/vec:/hyde:/intent:
        lines).
        """
        from .search import search
        from .search.vectors import has_embeddings

        with open_index(database) as idx:
            items = search(
                idx,
                text,
                mode=mode,
                limit=limit,
                paths=paths,
                group=group,
                explain=explain,
                model=model,
                rrf_k=rrf_k,
                weights=_weights(weights),
            )
            if mode == "hybrid" and model is None and not has_embeddings(idx.conn):
                click.echo(
                    f"note: {database} has no embeddings, so hybrid ran as bm25; "
                    f"add them with: docql-sqlite embed {database} --model MODEL",
                    err=True,
                )
        if not with_content:
            for it in items:
                it.pop("content", None)
        if default_format(fmt) == "table":
            if explain:
                _explain_text(items)
                return
            shown = [
                {
                    "location": it["location"],
                    "section": it["section"],
                    "score": it["score"],
                    "snippet": it["snippet"],
                }
                for it in items
            ]
            emit(shown, fmt)
            return
        emit(items, fmt)

    @cli.command("embed")
    @click.argument("database", type=click.Path(dir_okay=False, exists=True))
    @click.option(
        "--model", default=None, help="Embedding model (default: the one the index already uses)"
    )
    @click.option(
        "--replace", is_flag=True, help="Drop vectors of another model and re-embed everything"
    )
    @output_options
    @handle_errors
    def embed_command(database: str, model: str | None, replace: bool, fmt: str | None) -> None:
        """Embed the new or changed chunks of DATABASE (a text is never embedded twice)."""
        report = run_embed(database, model, replace)
        if fmt:
            output.write([report], fmt, sys.stdout)
        else:
            click.echo(_embed_summary(report), err=True)

    @cli.command("context")
    @click.argument("database", type=click.Path(dir_okay=False))
    @click.argument("question")
    @click.option(
        "--budget", type=int, default=12000, show_default=True, help="Most characters of context"
    )
    @click.option(
        "--path",
        "paths",
        multiple=True,
        metavar="GLOB",
        help="Only documents whose path matches (repeatable)",
    )
    @output_options
    @handle_errors
    @_fail_usage
    def context_command(
        database: str, question: str, budget: int, paths: tuple[str, ...], fmt: str | None
    ) -> None:
        """Assemble a context pack for QUESTION within --budget characters, each block labelled."""
        from .search import context

        with open_index(database) as idx:
            pack = context(idx, question, budget=budget, paths=paths)
        if fmt in (None, "table", "md"):
            click.echo(pack["text"], nl=False)
        else:
            emit(pack["blocks"] if fmt in ("csv", "nl") else [pack], fmt)

    _add_embed_option(cli)


def _add_embed_option(cli: click.Group) -> None:
    """`docql-sqlite index DB PATH... --embed MODEL`: index, then embed what changed."""
    command = cli.commands.get("index")
    if command is None or any(p.name == "embed_model" for p in command.params):
        return
    command.params.append(
        click.Option(
            ["--embed", "embed_model"],
            metavar="MODEL",
            default=None,
            help="After indexing, embed new or changed chunks with MODEL "
            "(an index that has vectors keeps them current by itself)",
        )
    )
    original = command.callback
    assert original is not None

    @functools.wraps(original)
    def callback(*args: Any, embed_model: str | None = None, **kwargs: Any) -> Any:
        code: Any = 0
        try:
            original(*args, **kwargs)
        except SystemExit as exc:  # some files failed: still embed what was indexed
            code = exc.code
            if isinstance(exc.__cause__, DocQLError):  # the run itself failed: said once
                raise
        database = kwargs.get("database") or (args[0] if args else None)
        if database and Path(database).exists():
            try:
                if embed_model:
                    click.echo(_embed_summary(run_embed(database, embed_model)), err=True)
                else:
                    # An index with vectors stays searchable by vector: embed what changed
                    # (unchanged texts come from the cache by hash; nothing to do, no model load).
                    from .search.embedder import pending

                    model, stale = pending(database)
                    if model and stale:
                        click.echo(_embed_summary(run_embed(database, None)), err=True)
            except DocQLError as exc:
                click.echo(f"error: {exc.message}", err=True)
                code = code or 1
        if code:
            sys.exit(code)

    command.callback = callback
