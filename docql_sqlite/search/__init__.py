"""Ranked retrieval over an index: BM25, vectors, hybrid RRF, smart search, context packs.

Below the `Index` front door (`Index.search`, `Index.context`); clients never call this
package directly. `api.search` dispatches to a strategy (`ranking.py` for bm25/vector/
hybrid, `smart.py`, `typed.py`), `context_pack.context` builds context packs, `docql.py`
compiles `$.content.search()`/`similar()`. Every function takes the `Store` of the index
(`docql_sqlite.store`: the SQLite file or PostgreSQL, never an `Index`), reads through
it and builds its SQL in its dialect (`store.dialect`). Submodules load on first use.
"""
