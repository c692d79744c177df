"""`search()`: the strategy dispatcher behind `Index.search` (and so every client).

Modes: `bm25` (FTS5, AND then OR with coverage), `vector` (vec0 KNN), `hybrid` (both,
fused by RRF in one SQL statement, `sqlbuild.py`) and `smart` (several channels and
keyword expansion, `smart.py`). A typed query document (`lex:`/`vec:`/`hyde:`/`intent:`
lines, `typed.py`) is recognised in any mode. The strategies share `ranking.py`; this
module only picks one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .. import deadline
from ..errors import SearchError
from ..options import SearchOptions
from . import ranking, results, smart, snippets, stats, typed
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

# A line starting with a type prefix makes the whole text a typed document.
# A typed query document's line (`vec: a question`), not a path that opens with a type's
# name (Rust's `Vec::retain`, `Intent::new`: searched as words).
TYPED = re.compile(r"^\s*(lex|vec|hyde|intent)\s*:(?!:)", re.IGNORECASE | re.MULTILINE)


def search(store: Store, text: str, options: SearchOptions) -> list[dict[str, Any]]:
    """Ranked passages for `text` in the index of `store` (either engine); deterministic
    for a given index, text and options. Within the caller's time limit (`Index.search`
    sets `options.timeout`: deadline.py), which the reranker's HTTP call does not count."""
    if not options.rerank:
        items = _search(store, text, options, options.limit)
    else:
        # Loaded only here: the HTTP reranker's urllib, http.client, ssl and email modules
        # were ~180M instructions, more than a third of a one-off search's start-up
        # (tests/test_cli_startup.py keeps them off the path).
        from ..rerankers import get_reranker
        from . import rerank

        reranker = get_reranker(options.rerank)
        items = _search(store, text, options, rerank.depth(options.limit))
        with deadline.not_counted():
            items = rerank.apply(reranker, text, items, options.limit, options.explain)
    if not options.content:
        for item in items:
            item.pop("content", None)
    return items


def _search(store: Store, text: str, options: SearchOptions, limit: int) -> list[dict[str, Any]]:
    if not text or not text.strip():
        raise SearchError("empty search text; give some words to search for")
    request = ranking.Request(
        limit=limit,
        paths=options.paths,
        group=options.group,
        explain=options.explain,
        model=options.model,
        rrf_k=options.rrf_k,
        weights=dict(options.weights),
        intent=snippets.patterns(search_terms.parse(options.intent)) if options.intent else [],
        snippets=options.snippets,
    )
    if TYPED.search(text):
        items = typed.run(store, typed.parse(text), request)
    elif options.mode == "smart":
        items = smart.run(store, text, request)
    else:
        terms = ranking.query_terms(text) if options.mode != "vector" else []
        rows = ranking.run_mode(store, options.mode, text, terms, request)
        # Vector search has no terms, but its snippets still mark the query's words.
        marked = terms or search_terms.parse(text)
        marked = stats.reduce_terms(store, marked)[0]
        items = results.finish(rows, marked, request)
    return items
