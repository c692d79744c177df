"""`SearchOptions(snippets=False)` (what the MCP server asks for: it shows passages whole)
changes nothing but the snippet: the same passages, scores, content and explanations,
in every mode; with snippets on, every hit has one."""

from __future__ import annotations

from pathlib import Path

import pytest

import docql_sqlite

REPO = Path(__file__).resolve().parents[1]

QUESTIONS = [
    "how is authentication configured",
    "架构 设计",
    "DocQLLexer tokens",
    "parse the command line -arguments",
    "lex: stream\nvec: how do streams handle backpressure",
]


@pytest.fixture(scope="module")
def embedded(hash_embedded_db: Path) -> Path:
    return hash_embedded_db


@pytest.mark.parametrize("mode", ["smart", "bm25", "hybrid", "vector"])
def test_only_the_snippet_differs(embedded: Path, mode: str) -> None:
    with docql_sqlite.Index(embedded) as idx:
        for text in QUESTIONS:
            for group in (None, "file"):
                shown = idx.search(text, mode=mode, explain=True, group=group)
                bare = idx.search(text, mode=mode, explain=True, group=group, snippets=False)
                assert shown, text
                assert all(isinstance(h["snippet"], str) for h in shown)
                assert all(h["snippet"] is None for h in bare)
                assert [dict(h, snippet=None) for h in shown] == bare, text
