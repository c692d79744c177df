"""Ranked retrieval over an index: BM25, vectors, hybrid RRF, smart search, context packs.

Public functions (`Index.search`, `Index.context` and `Index.embed` delegate to them):

- `search(index, text, *, mode="smart", limit=10, paths=(), group=None, explain=False)`
- `context(index, question, *, budget=12000, paths=())`
- `embed(db_path, model_name, *, progress=None)`

Submodules load lazily, so importing this package costs nothing until a search runs.
"""

from __future__ import annotations

from typing import Any


def search(index: Any, text: str, **options: Any) -> list[dict[str, Any]]:
    from .api import search as run

    return run(index, text, **options)


def context(index: Any, question: str, **options: Any) -> dict[str, Any]:
    from .context_pack import context as run

    return run(index, question, **options)


def embed(db_path: Any, model_name: str | None = None, **options: Any) -> dict[str, Any]:
    from .embedder import embed as run

    return run(db_path, model_name, **options)


__all__ = ["context", "embed", "search"]
