"""`$.content.search(q)` and `$.content.similar(q)` for the DocQL compiler.

Both compile to the statement of `sqlbuild.py`, so the SQL shown by
`docql-sqlite query DB '$.content.search("x")' --sql --inline` runs in a plain 3.40
shell. Choices:

- `search(q)`: BM25 (AND, then OR ranked by terms matched when fewer than
  `MIN_HITS` chunks have every term). When the index has embeddings, the query is
  embedded now, in Python, and the vector enters the SQL as a JSON literal, fused with
  BM25 by RRF (k = 60, each list `DEPTH` deep). Without embeddings every BM25 match is
  returned. Score: BM25 alone → terms matched + bm25/(1 + bm25); fused → the RRF sum.
- `similar(q)`: vector similarity alone (score = 1 - cosine distance), the `DEPTH`
  nearest chunks; a number is a chunk id — "more like chunk N", which needs no Python:
  `embedding MATCH (SELECT embedding FROM chunks_vec WHERE rowid = N)`.
- A scope (`--path`, `$.files[...]`) is pushed into the vec0 `doc_id` column, so
  filtered KNN never starves. Filters written after the call (`[?(@.section ~= "x")]`)
  apply to those `DEPTH` rows.
- The snippet is built in SQL (first hit, marked `**…**`): the FTS table is contentless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import DocQLTypeError, EmbeddingError
from ..query import items as item_sql
from ..query.functions import Source
from ..query.nodes import Call
from ..schema import VEC_TABLE
from ..sqlparams import Deferred, Params
from . import sqlbuild, stats, vectors
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

DEPTH = 100
MIN_HITS = 10


def search_source(
    store: Store,
    name: str,
    q: str,
    scope: str,
    params: Params,
    call: Call,
    has_vectors: bool | None = None,
) -> Source:
    """The ranked source of `search(q)`/`similar(q)` (`params` in the store's dialect).
    Pure: what only the index can give (the query vector, term statistics, stale-vector
    counts) is bound when the query runs. `has_vectors`: whether the index has vectors,
    when the caller knows (`Index` does: compiling then reads no row); None asks."""
    if has_vectors is None:
        has_vectors = store.has_vectors
    if name == "similar":
        if not has_vectors:
            raise _no_vectors(name)
        plan = sqlbuild.Plan(scope=scope, vec_k=_depth_with_stale(store))
        arg = call.args[0] if call.args else None
        if arg is not None and arg.kind == "number":
            if not isinstance(arg.value, int) or isinstance(arg.value, bool):
                raise DocQLTypeError(
                    f"similar(n) needs a whole chunk id, got {arg.text or arg.value}"
                )
            chunk_id = params.add(_checked_chunk_id(store, arg.value))
            plan.vector = f"(SELECT embedding FROM chunks_vec WHERE rowid = {chunk_id})"
        else:
            plan.vector = _query_vector(store, q, params)
        return Source(item_sql.RANKED_CHUNK, sqlbuild.ranked_chunks_sql(plan, params), ranked=True)
    terms = search_terms.parse(q)
    if not search_terms.positives(terms):
        raise DocQLTypeError(f"search() needs at least one word that is not negated, got '{q}'")
    # Compilation reads no rows, so no document frequencies: past MAX_TERMS the first
    # terms are kept (a search run by Index.search keeps the rarest instead).
    terms = search_terms.keep_first(terms)
    plan = sqlbuild.Plan(
        terms=terms,
        scope=scope,
        min_hits=MIN_HITS,
        common=lambda: stats.common_terms(store, terms),
        statistics=stats.TermStats(store),
    )
    if has_vectors:
        plan.vector = _query_vector(store, q, params)
        plan.depth = DEPTH
        plan.vec_k = _depth_with_stale(store)
    return Source(item_sql.RANKED_CHUNK, sqlbuild.ranked_chunks_sql(plan, params), ranked=True)


def _query_vector(store: Store, q: str, params: Params) -> str:
    vector = Deferred(
        f"the vector of {q!r} by the index's embedding model",
        lambda: vectors.vector_json(vectors.query_vector(vectors.query_model(store), q)),
    )
    return sqlbuild.vector_sql(params, vector)


def _depth_with_stale(store: Store) -> Any:
    return lambda: DEPTH + stats.stale_vectors(store)


def _checked_chunk_id(store: Store, chunk_id: int) -> Deferred:
    def check() -> int:
        params = Params(store.dialect)
        sql = f"SELECT 1 AS found FROM {VEC_TABLE} WHERE rowid = {params.add(chunk_id)}"
        if store.rows(sql, params.values):
            return chunk_id
        raise DocQLTypeError(
            f"similar({chunk_id}): no chunk with that id has a vector (chunk ids are "
            f"chunks.id, the rowid of chunks_fts and {VEC_TABLE}; a chunk with "
            "nothing to embed, only links, comments or no words, has none)"
        )

    return Deferred(f"chunk id {chunk_id} (checked to have a vector)", check)


def _no_vectors(name: str) -> EmbeddingError:
    return EmbeddingError(
        f"{name}() needs embeddings and this index has none; create them with: "
        f"docql-sqlite embed DB --model MODEL (or use $.content.search(q) for BM25)"
    )
