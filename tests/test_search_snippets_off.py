"""`SearchOptions(snippets=False)` (what the MCP server asks for: it shows passages whole)
changes nothing but the snippet: the same passages, scores, content and explanations,
in every mode; with snippets on, every hit has one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite import IngestOptions
from docql_sqlite.index import embed
from docql_sqlite.index import index as index_paths

REPO = Path(__file__).resolve().parents[1]

QUESTIONS = [
    "how is authentication configured",
    "架构 设计",
    "DocQLLexer tokens",
    "parse the command line -arguments",
    "lex: stream\nvec: how do streams handle backpressure",
]


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("snippets") / "s.db"
    old = os.getcwd()
    os.chdir(REPO)
    try:
        index_paths(path, ["datasets/en", "datasets/zh", "datasets/code"], IngestOptions(workers=0))
    finally:
        os.chdir(old)
    assert embed(path, "hash")["embedded"] > 0
    return path


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
