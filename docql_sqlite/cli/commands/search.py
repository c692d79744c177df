"""Search commands: `search`, `embed` and `context` (flags → options → one Index call)."""

from __future__ import annotations

import sys
from typing import Any

import click

from ... import output
from ...errors import UsageError
from ...locations import Location
from ...options import LIST_NAMES, RRF_K, SEARCH_MODES, ContextOptions, EmbedOptions, SearchOptions
from ..click_options import database_argument, output_options, paths_option, text_output_options
from ..console import (
    default_format,
    echo,
    embed_summary,
    emit,
    handle_errors,
    note_unmatched_paths,
    open_index,
    visible_on_terminal,
)
from ..progress import ProgressBar

# What a search table shows unless --fields says otherwise (--json has every field).
TABLE_FIELDS = ("location", "section", "score", "snippet")


def parse_weights(pairs: tuple[str, ...]) -> dict[str, float]:
    """`--weight bm25=2` pairs; names and values are checked by SearchOptions."""
    weights: dict[str, float] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        try:
            weights[name.strip()] = float(value)
        except ValueError:
            raise click.BadParameter(
                f"expected NAME=NUMBER (e.g. bm25=2), got '{pair}'", param_hint="--weight"
            ) from None
    return weights


def _explain_text(items: list[dict[str, Any]]) -> None:
    for n, it in enumerate(items, start=1):
        ex = it.get("explain", {})
        echo(f"{n}. {it['location']}  score {it['score']}")
        for name, info in ex.get("lists", {}).items():
            detail = ", ".join(f"{k} {v}" for k, v in info.items())
            echo(f"     {name:<10} {detail}  → rrf {ex.get('rrf', {}).get(name, 0)}")
        echo(f"     final {ex.get('final')}")
        if ex.get("rerank"):
            detail = ", ".join(f"{k} {v}" for k, v in ex["rerank"].items())
            echo(f"     rerank     {detail}")
    if items and items[0].get("explain", {}).get("plan"):
        echo("plan: " + output.dumps(items[0]["explain"]["plan"]))


class _SymbolTextCommand(click.Command):
    """A command whose text may start with a dash that names no option: `search db '->>'`
    (SQLite's JSON operator) was click's "No such option: ->" unless `--` came first. A
    token that starts with `-` and then a character no option name starts with (not a
    letter or digit) is text: it is put after a `--` at the end, where click reads
    arguments only. `-v`, `--limit` and a lone `-` or `--` are left to click."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" not in args:
            symbols = [a for a in args if _symbol_text(a)]
            if symbols:
                args = [a for a in args if not _symbol_text(a)] + ["--", *symbols]
        return super().parse_args(ctx, args)


def _symbol_text(arg: str) -> bool:
    rest = arg.lstrip("-")
    return arg.startswith("-") and arg not in ("-", "--") and bool(rest) and not rest[0].isalnum()


@click.command(
    "search",
    cls=_SymbolTextCommand,
    short_help="Search passages for plain words or a typed query document.",
)
@database_argument
@click.argument("text")
@click.option(
    "--mode",
    type=click.Choice(SEARCH_MODES),
    default="smart",
    show_default=True,
    help="Ranking method",
)
@click.option("-n", "--limit", type=int, default=10, show_default=True, help="Number of results")
@paths_option
@click.option("--group", type=click.Choice(["file"]), default=None, help="One result per file")
@click.option(
    "--explain",
    is_flag=True,
    help="Show each list's rank and score, the RRF terms and the final score",
)
@click.option("--model", default=None, help="Embedding model for the query (default: the index's)")
@click.option(
    "--rrf-k", type=click.IntRange(min=1), default=RRF_K, show_default=True, help="RRF constant k"
)
@click.option(
    "--weight",
    "weights",
    multiple=True,
    metavar="LIST=W",
    help=f"Weight of a list ({', '.join(LIST_NAMES)}), e.g. bm25=2",
)
@click.option("--intent", default=None, help="Words that steer snippets (never retrieve)")
@click.option("--content", "with_content", is_flag=True, help="Include each passage's full text")
@click.option(
    "--rerank",
    default=None,
    metavar="URL-OR-NAME",
    help="Re-order the first results with a /rerank server: its URL, or a model name "
    "sent to $DOCQL_RERANK_URL",
)
@output_options
@handle_errors
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
    intent: str | None,
    with_content: bool,
    rerank: str | None,
    fmt: str | None,
    fields: tuple[str, ...] | None,
) -> None:
    """Search DATABASE for TEXT: plain words or a typed query document (lex:/vec:/hyde:/intent:)."""
    options = SearchOptions(
        mode=mode,
        limit=limit,
        paths=paths,
        group=group,
        explain=explain,
        model=model,
        rrf_k=rrf_k,
        weights=parse_weights(weights),
        intent=intent,
        content=with_content,
        rerank=rerank,
    )
    with open_index(database) as idx:
        items = idx.search(text, options)
        if not items:
            note_unmatched_paths(idx, paths, fmt)
        if mode == "hybrid" and model is None and not idx.has_vectors:
            echo(
                f"note: {database} has no embeddings, so hybrid ran as bm25; "
                f"add them with: docql-sqlite embed {database} --model MODEL",
                err=True,
            )
    if default_format(fmt) == "table" and not fields:
        if explain:
            _explain_text(items)
            return
        items = [{k: it[k] for k in TABLE_FIELDS} for it in items]  # may still lose columns
    emit(items, fmt, fields, database)


@click.command("embed", short_help="Embed the new or changed chunks of DATABASE.")
@database_argument
@click.option("--model", default=None, help="Embedding model (default: the one the index uses)")
@click.option(
    "--replace", is_flag=True, help="Drop vectors of another model and re-embed everything"
)
@output_options
@handle_errors
def embed_command(
    database: str,
    model: str | None,
    replace: bool,
    fmt: str | None,
    fields: tuple[str, ...] | None,
) -> None:
    """Embed the new or changed chunks of DATABASE (a text is never embedded twice).

    The summary goes to stderr; the report goes to stdout as JSON when piped, or in the
    format asked for.
    """
    from ... import embed

    bar = ProgressBar("embedding")
    try:
        report = embed(database, EmbedOptions(model=model, replace=replace, progress=bar.update))
    finally:
        bar.close()
    echo(embed_summary(report), err=True)
    if fmt or not sys.stdout.isatty():  # a terminal has read the summary already
        emit([report], fmt, fields)


@click.command(
    "context", short_help="Assemble a labelled context pack for a question, within a budget."
)
@database_argument
@click.argument("question")
@click.option(
    "--budget", type=int, default=12000, show_default=True, help="Most characters of context"
)
@paths_option
@text_output_options("Print the pack as text (default on a terminal)")
@handle_errors
def context_command(
    database: str,
    question: str,
    budget: int,
    paths: tuple[str, ...],
    fmt: str | None,
    fields: tuple[str, ...] | None,
) -> None:
    """Assemble a context pack for QUESTION within --budget characters, each block labelled.

    On a terminal (or with --text) it prints the pack's text. Piped (or with --json) it
    prints [{"question", "budget", "chars", "strategy", "blocks": [...], "text"}]; --nl,
    --csv and --md print one row per block (path, line, end_line, section, kind, text),
    -t a row per block with its location, section, kind and size. --fields picks the
    fields of the blocks.
    """
    options = ContextOptions(budget=budget, paths=paths)
    with open_index(database) as idx:
        pack = idx.context(question, options)
    if fmt == "text" or (fmt is None and sys.stdout.isatty()):
        if fields:
            raise UsageError("--fields picks fields of blocks; --text prints the pack as text")
        sys.stdout.write(visible_on_terminal(pack["text"]))
    elif default_format(fmt) == "json":
        if fields:
            pack = dict(pack, blocks=list(output.select_fields(pack["blocks"], fields)))
        emit([pack], fmt)
    elif default_format(fmt) == "table" and not fields:  # what the pack holds, one block a row
        emit((_block_summary(block) for block in pack["blocks"]), fmt, database=database)
    else:
        emit(pack["blocks"], fmt, fields, database)


def _block_summary(block: dict[str, Any]) -> dict[str, Any]:
    return {
        "location": str(Location(block["path"], block["line"], block["end_line"])),
        "section": block["section"],
        "kind": block["kind"],
        "chars": len(block["text"]),
    }
