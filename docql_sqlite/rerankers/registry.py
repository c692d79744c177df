"""Rerankers by name: the `register_rerankers` hook's table (docql_sqlite/plugins.py).

`--rerank SPEC` (`SearchOptions.rerank`) is looked up in this order:
1. an `http://` or `https://` URL: the built-in HTTP reranker at that endpoint;
2. `NAME` or `NAME:ARG` where NAME is registered: that factory, given ARG (or None);
3. anything else: a model name for the built-in HTTP reranker, sent to
   $DOCQL_RERANK_URL (as before plugins existed: `--rerank bge-reranker-v2-m3`).
The built-in is registered as `http` (`--rerank http:MODEL` names it explicitly) by
`docql_sqlite/default_plugins/rerankers.py`, through the hook a plugin implements.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from docql_sqlite.errors import DocQLError
from docql_sqlite.rerankers.base import Reranker
from docql_sqlite.rerankers.http import RerankError

if TYPE_CHECKING:
    from docql_sqlite.plugins import NamedFactories, Registration

Factory = Callable[[str | None], Reranker]  # factory(arg) -> Reranker
HOOK = "register_rerankers"
BUILT_IN = "http"  # the HTTP reranker: URLs and model names nobody registered


def get_reranker(spec: str) -> Reranker:
    """The reranker that `--rerank SPEC` names: a URL, a registered `NAME[:ARG]`, or a model
    name served by the HTTP reranker."""
    spec = spec.strip()
    if not spec:
        raise RerankError("--rerank needs a URL (http://host:port/v1/rerank) or a model name")
    table = _table()
    base, _, arg = spec.partition(":")
    entry = None if "://" in spec else table.find(base)
    if entry is None:  # a URL, or a model name for the reranker server
        entry, arg = table.find(BUILT_IN), spec
        if entry is None:
            raise RerankError(f"unknown reranker '{spec}'; available: {', '.join(table.names())}")
    try:
        reranker = entry.factory(arg or None)
    except DocQLError:  # ours already (a bad setting, a refused option): one line as it is
        raise
    except Exception as err:  # a plugin's bug, reported as ours, naming the plugin
        raise RerankError(
            f"reranker '{entry.name}' ({entry.origin}) failed to start: {type(err).__name__}: {err}"
        ) from err
    if not isinstance(reranker, Reranker):
        raise RerankError(f"reranker '{entry.name}' ({entry.origin}) did not return a Reranker")
    return reranker


def available_rerankers() -> list[str]:
    """Canonical names of every registered reranker, the built-in first."""
    return _table().names()


def _table() -> NamedFactories:
    # Imported here: pluggy and importlib.metadata load only when a search reranks, not on
    # every search (the search package imports this module).
    from docql_sqlite import plugins

    try:
        return plugins.table(HOOK, _build)
    except plugins.PluginFailed as failed:
        raise RerankError(f"reranker {failed.message}") from failed.cause


def _build(registrations: list[Registration]) -> NamedFactories:
    from docql_sqlite.plugins import NamedFactories

    return NamedFactories.build("reranker", RerankError, registrations)
