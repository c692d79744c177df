"""Result items: a ranked passage as the caller sees it, with its marked snippet.

Every result is a passage (chunk) with path, line range, section, score and a snippet
whose hits are marked `**like this**` (`snippets.py`); `--explain` adds what each list
said of it; `group="file"` keeps the best passage of each file.
"""

from __future__ import annotations

from typing import Any

from . import fusion, ranking, snippets
from . import terms as search_terms


def item(
    row: dict[str, Any],
    pats: list[snippets.TermPattern],
    opts: ranking.Request,
    *,
    snippet: bool = True,
) -> dict[str, Any]:
    """A result item from a ranked row: the passage, its score and a marked snippet
    (unless the request asks for none: then the row's own, None from `run_plan`)."""
    snippet = snippet and opts.snippets
    out = {
        "type": "chunk",
        "path": row["path"],
        "line": row["line"],
        "end_line": row["end_line"],
        "location": row["location"],
        "section": row["section"],
        "number": row["number"],
        "page": row["page"],
        "chunk_index": row["chunk_index"],
        "score": _round(row["score"]),
        "snippet": snippets.make(row["content"], pats, opts.intent)
        if snippet
        else row.get("snippet"),  # None from `run_plan` (it asks SQL for no snippet)
        "content": row["content"],
    }
    if opts.explain:
        out["explain"] = explain_row(row)
    return out


def explain_row(row: dict[str, Any]) -> dict[str, Any]:
    lists: dict[str, Any] = {}
    rrf: dict[str, float] = {}
    if row.get("_fts_rank") is not None:
        lists["bm25"] = {
            "rank": row["_fts_rank"],
            "bm25": _round(-row["_bm25"]),
            "terms_matched": row["_coverage"],
        }
        rrf["bm25"] = _round(row["_rrf_fts"])
    if row.get("_vec_rank") is not None:
        lists["vector"] = {"rank": row["_vec_rank"], "distance": _round(row["_distance"])}
        rrf["vector"] = _round(row["_rrf_vec"])
    out = {"lists": lists, "rrf": rrf, "final": _round(row["score"])}
    if row.get("_plan"):
        out["plan"] = row["_plan"]
    return out


def finish(
    rows: list[dict[str, Any]], terms: list[search_terms.Term], opts: ranking.Request
) -> list[dict[str, Any]]:
    pats = snippets.patterns(terms)
    items = [item(r, pats, opts) for r in rows]
    return group_files(items, opts) if opts.group == "file" else items[: opts.limit]


def group_files(items: list[dict[str, Any]], opts: ranking.Request) -> list[dict[str, Any]]:
    """One item per file: its best passage (by intent words on a tie), plus where the others are."""
    files: dict[str, list[dict[str, Any]]] = {}
    for it in items:
        files.setdefault(it["path"], []).append(it)
    grouped = []
    for path, hits in files.items():
        best = hits[0]
        if opts.intent:
            top = [h for h in hits if h["score"] == best["score"]]
            best = max(top, key=lambda h: snippets.count_hits(h["content"], opts.intent))
        grouped.append(
            dict(best, type="file_hit", hits=len(hits), passages=[h["location"] for h in hits])
        )
    return grouped[: opts.limit]


def _round(value: Any) -> Any:
    return round(value, 6) if isinstance(value, float) else value


def fused_item(
    score: float,
    entry: fusion.Fused,
    pats: list[snippets.TermPattern],
    opts: ranking.Request,
    plan: dict[str, Any],
) -> dict[str, Any]:
    """A result item from a passage fused from several lists (smart search), scored
    `score`; `--explain` shows each list's rank and RRF share, and the search's `plan`."""
    it = item(dict(entry.row, score=score), pats, opts)
    if opts.explain:
        it["explain"] = {
            "lists": entry.lists,
            "rrf": entry.rrf,
            "rrf_total": round(entry.score, 8),
            "final": round(score, 6),
            "plan": dict(plan),
        }
        if entry.row.get("_copies"):
            it["explain"]["copies"] = entry.row["_copies"]
    return it
