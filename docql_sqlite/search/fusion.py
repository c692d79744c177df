"""Reciprocal Rank Fusion in Python, for searches made of several queries (smart, typed).

Hybrid search fuses its two lists in SQL (`sqlbuild.py`); smart search and typed query
documents run several lists whose number depends on the input, so they fuse here with
the same formula: score(chunk) = Σ weight_list x weight_row / (k + rank_in_list), ranks
from 1 (a row's weight is 1 unless its list says how much of the query it answers).
Ties are broken by path, then position, so the order is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .sqlbuild import RRF_K


@dataclass(slots=True)
class Ranked:
    """One named ranked list of chunk rows (each row has `_chunk`, `_path`, `_pos`)."""

    name: str
    weight: float
    rows: list[dict[str, Any]]


@dataclass(slots=True)
class Fused:
    row: dict[str, Any]
    lists: dict[str, dict[str, Any]] = field(default_factory=dict)
    rrf: dict[str, float] = field(default_factory=dict)
    score: float = 0.0

    @property
    def key(self) -> tuple[float, str, int]:
        return (-self.score, self.row["_path"], self.row["_pos"])


def describe(row: dict[str, Any], rank: int) -> dict[str, Any]:
    """What a list says about one row, for --explain."""
    info: dict[str, Any] = {"rank": rank}
    if row.get("_bm25") is not None:
        info["bm25"] = round(-row["_bm25"], 6)
        info["terms_matched"] = row.get("_coverage")
    if row.get("_distance") is not None:
        info["distance"] = round(row["_distance"], 6)
    if row.get("_match") is not None:
        info["match"] = row["_match"]
    if row.get("_words") is not None:
        info["words_score"] = row["_words"]
    return info


def rrf(lists: list[Ranked], k: int = RRF_K) -> list[Fused]:
    """Fuse `lists` by RRF; best first, ties by path and position."""
    fused: dict[int, Fused] = {}
    for ranked in lists:
        seen: set[int] = set()
        rank = 0
        for row in ranked.rows:
            chunk = row["_chunk"]
            if chunk in seen:  # a list names a chunk once, at its best rank
                continue
            seen.add(chunk)
            rank += 1
            entry = fused.setdefault(chunk, Fused(row))
            # A row may carry its own share of the list's weight (`_weight`, 0..1): how
            # much of the query it answers (smart search's coverage and name shares).
            contribution = ranked.weight * row.get("_weight", 1.0) / (k + rank)
            entry.lists[ranked.name] = describe(row, rank)
            entry.rrf[ranked.name] = round(contribution, 8)
            entry.score += contribution
    return sorted(fused.values(), key=lambda f: f.key)
