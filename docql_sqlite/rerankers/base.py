"""The `Reranker` contract: relevance scores for (query, passage) pairs."""

from __future__ import annotations

from abc import ABC, abstractmethod


class Reranker(ABC):
    """Scores passages against a query; a higher score is more relevant."""

    name: str  # shown by --explain

    @abstractmethod
    def scores(self, query: str, passages: list[str]) -> list[float]:
        """One score per passage, in the order given (raises `RerankError` on failure)."""
