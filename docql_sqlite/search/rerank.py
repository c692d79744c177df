"""Reranking the first results of a search with a `Reranker` (off unless asked for).

The search runs as usual for RERANK_DEPTH results (or the limit, when larger); the
reranker scores each passage's text against the query, and the results are re-ordered
by that score (ties keep the search's order) and cut to the limit. When the reranker
fails — cannot connect, times out, answers an error or nonsense — the search's own
order stands, a `DocQLNote` says why, and `--explain` shows it on every result.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..errors import DocQLNote
from ..rerankers import Reranker, RerankError

RERANK_DEPTH = 30  # results the reranker sees
MAX_CHARS = 2000  # of each passage: rerankers read a few hundred tokens at most


def depth(limit: int) -> int:
    return max(limit, RERANK_DEPTH)


def apply(
    reranker: Reranker, query: str, items: list[dict[str, Any]], limit: int, explain: bool
) -> list[dict[str, Any]]:
    """`items` re-ordered by the reranker's scores and cut to `limit`."""
    if not items:
        return items
    passages = [str(it.get("content") or it.get("snippet") or "")[:MAX_CHARS] for it in items]
    try:
        scores = reranker.scores(query, passages)
    except RerankError as exc:
        note = f"rerank failed, kept the search's order: {exc}"
        warnings.warn(note, DocQLNote, stacklevel=2)
        if explain:
            for it in items:
                it.setdefault("explain", {})["rerank"] = {"model": reranker.name, "note": note}
        return items[:limit]
    order = sorted(range(len(items)), key=lambda i: (-scores[i], i))
    out = []
    for new_rank, i in enumerate(order[:limit], start=1):
        it = items[i]
        if explain:
            it.setdefault("explain", {})["rerank"] = {
                "model": reranker.name,
                "score": round(scores[i], 6),
                "rank_before": i + 1,
                "rank": new_rank,
                "search_score": it["score"],
            }
        it["score"] = round(scores[i], 6)
        out.append(it)
    return out
