"""The built-in reranker: `http`, any `/rerank` endpoint (llama.cpp, Jina, Cohere, vLLM)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from docql_sqlite.hookspecs import hookimpl

if TYPE_CHECKING:
    from docql_sqlite.rerankers.base import Reranker


@hookimpl
def register_rerankers(register: Callable[..., None]) -> None:
    register("http", _http_factory)


def _http_factory(arg: str | None) -> Reranker:
    """`arg` is the endpoint's URL or a model name sent to $DOCQL_RERANK_URL."""
    from docql_sqlite.rerankers.http import RerankError, get_reranker

    if not arg:
        raise RerankError(
            "the http reranker needs a URL or a model name, e.g. 'http:bge-reranker-v2-m3'"
        )
    return get_reranker(arg)
