"""Ranked retrieval over an index: BM25, vectors, hybrid RRF, smart search, context packs.

Below the `Index` front door (`Index.search`, `Index.context`); clients never call this
package directly. `api.search` dispatches to a strategy (`ranking.py` for bm25/vector/
hybrid, `smart.py`, `typed.py`), `context_pack.context` builds context packs, `docql.py`
compiles `$.content.search()`/`similar()`. Every strategy reads through an
`engine.Engine` (the file, or PostgreSQL via `pg/search.py`) and builds its SQL for the
engine's `Dialect` (docql_sqlite/dialect/). Submodules load on first use.
"""
