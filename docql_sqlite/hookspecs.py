"""The hooks a docql-sqlite plugin implements: one per kind of extension, each handed a
`register` callback (as llm's `register_embedding_models(register)`).

The built-in formats, embedders and rerankers are registered through these same hooks
(`docql_sqlite/default_plugins/`), so a plugin is written exactly like them
(docs/plugins.md).
"""

from __future__ import annotations

from collections.abc import Callable

from pluggy import HookimplMarker, HookspecMarker

PROJECT = "docql_sqlite"  # pluggy's project name, and the entry-point group of plugins

hookspec = HookspecMarker(PROJECT)
hookimpl = HookimplMarker(PROJECT)


@hookspec
def register_formats(register: Callable[..., None]) -> None:
    """Add file formats: `register(name, parse, extensions=())`.

    `parse(source: docql_sqlite.model.Source) -> docql_sqlite.model.Document`, or the
    name of a module whose `parse` is imported on first use; `extensions` are file name
    extensions without the dot. A name registered later replaces an earlier one (a plugin
    may replace a built-in parser), and so does an extension.
    """


@hookspec
def register_embedders(register: Callable[..., None]) -> None:
    """Add embedding models: `register(name, factory, aliases=(), *, replace=False)`.

    `factory(arg: str | None, **options) -> EmbeddingModel` builds the model that
    `--model NAME` or `--model NAME:ARG` names. A name (or alias) taken by another plugin
    or a built-in is an error unless `replace=True`.
    """


@hookspec
def register_rerankers(register: Callable[..., None]) -> None:
    """Add rerankers: `register(name, factory, aliases=(), *, replace=False)`.

    `factory(arg: str | None) -> Reranker` builds the reranker that `--rerank NAME` or
    `--rerank NAME:ARG` names. A name taken by another plugin or a built-in is an error
    unless `replace=True`.
    """
