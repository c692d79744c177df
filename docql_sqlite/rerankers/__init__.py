"""Rerankers: a second opinion on the first results of a search, off unless asked for.

`get_reranker(spec)` turns what `SearchOptions.rerank` / `--rerank` holds into a
`Reranker`: a URL (`http://127.0.0.1:8080/v1/rerank`) is the endpoint itself; a name a
plugin registered (`register_rerankers`, docs/plugins.md) is that plugin's reranker; any
other name (`bge-reranker-v2-m3`) is the model, sent to $DOCQL_RERANK_URL (default:
llama.cpp's server on this machine, http://127.0.0.1:8080/v1). Like the embedders, the
network code is plain urllib: no new dependency.
"""

from __future__ import annotations

from docql_sqlite.rerankers.base import Reranker
from docql_sqlite.rerankers.http import HTTPReranker, RerankError
from docql_sqlite.rerankers.registry import available_rerankers, get_reranker

__all__ = ["HTTPReranker", "RerankError", "Reranker", "available_rerankers", "get_reranker"]
