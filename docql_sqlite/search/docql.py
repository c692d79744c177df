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

from typing import Any

from .. import db
from ..errors import DocQLTypeError, EmbeddingError
from ..query import items as I
from ..query.functions import Source
from ..query.nodes import Call
from ..query.sqlparams import Params
from . import sqlbuild as S
from . import stats
from . import terms as T
from . import vectors as V

DEPTH = 100
MIN_HITS = 10


def search_source(index: Any, name: str, q: str, scope: str, params: Params, call: Call) -> Source:
    conn = index.conn
    if name == "similar":
        plan = S.Plan(scope=scope, vec_k=DEPTH)
        arg = call.args[0] if call.args else None
        if arg is not None and arg.kind == "number":
            if not V.has_embeddings(conn):
                raise _no_vectors(name)
            if not isinstance(arg.value, int) or isinstance(arg.value, bool):
                raise DocQLTypeError(
                    f"similar(n) needs a whole chunk id, got {arg.text or arg.value}"
                )
            chunk_id = arg.value
            if (
                conn.execute(
                    "SELECT 1 FROM chunk_vectors WHERE chunk_id = ?", (chunk_id,)
                ).fetchone()
                is None
            ):
                raise DocQLTypeError(
                    f"similar({chunk_id}): no chunk with that id has a vector "
                    f"(chunk ids are chunks.id, the rowid of chunks_fts and chunks_vec)"
                )
            plan.vector = f"(SELECT embedding FROM chunks_vec WHERE rowid = {params.add(chunk_id)})"
        else:
            plan.vector = _query_vector(conn, q, params, name)
        plan.vec_k = DEPTH + _stale(conn, index.path)
        return Source(I.RANKED_CHUNK, S.ranked_chunks_sql(plan, params), ranked=True)
    terms = T.parse(q)
    if not T.positives(terms):
        raise DocQLTypeError(f"search() needs at least one word that is not negated, got '{q}'")
    terms = stats.reduce_terms(conn, index.path, terms)[0]
    plan = S.Plan(
        terms=terms,
        scope=scope,
        min_hits=MIN_HITS,
        common=stats.common_terms(conn, index.path, terms),
    )
    if V.has_embeddings(conn) and db.has_vec(conn):
        plan.vector = _query_vector(conn, q, params, name)
        plan.depth = DEPTH
        plan.vec_k = DEPTH + _stale(conn, index.path)
    return Source(I.RANKED_CHUNK, S.ranked_chunks_sql(plan, params), ranked=True)


def _query_vector(conn: Any, q: str, params: Params, name: str) -> str:
    if not V.has_embeddings(conn):
        raise _no_vectors(name)
    model = V.query_model(conn)
    return f"vec_f32({params.add(V.vector_json(model, q))})"


def _stale(conn: Any, path: str) -> int:
    return stats.stale_vectors(conn, path)


def _no_vectors(name: str) -> EmbeddingError:
    return EmbeddingError(
        f"{name}() needs embeddings and this index has none; create them with: "
        f"docql-sqlite embed DB --model MODEL (or use $.content.search(q) for BM25)"
    )
