"""Regressions found by trying the tool as a user would (each failed before its fix)."""

from __future__ import annotations

from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.errors import DocQLError, DocQLRegexError


def test_context_can_be_asked_twice_in_one_process(corpus_db: Path) -> None:
    # `docql_sqlite.search.context` was shadowed by its submodule after the first call.
    with docql_sqlite.open(corpus_db) as index:
        first = index.context("authentication")
        second = index.context("authentication")
    assert first == second
    assert first["blocks"]


@pytest.mark.parametrize("scope", ["datasets/zh/*", ["datasets/zh/*"], ("datasets/zh/*",)])
def test_a_single_glob_string_scopes_search_and_context(corpus_db: Path, scope: object) -> None:
    with docql_sqlite.open(corpus_db) as index:
        hits = index.search("索引", mode="bm25", paths=scope)  # type: ignore[arg-type]
        pack = index.context("索引", paths=scope)  # type: ignore[arg-type]
    assert hits and all(h["path"].startswith("datasets/zh/") for h in hits)
    assert pack["blocks"] and all(b["path"].startswith("datasets/zh/") for b in pack["blocks"])


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        ("SELECT * FROM docql(NULL)", DocQLError, "docql() needs a DocQL query string"),
        ("SELECT docql_rrf(-60)", DocQLError, "ranks start at 1 and k must be positive"),
        ("SELECT docql_grep('abc', '/(/')", DocQLRegexError, "invalid regex /(/: missing )"),
        ("SELECT 'a' REGEXP '('", DocQLRegexError, "invalid regex /(/: missing )"),
    ],
)
def test_sql_functions_raise_docql_errors(corpus_db: Path, sql: str, error: type, message: str) -> None:
    with docql_sqlite.open(corpus_db) as index:
        with pytest.raises(error) as info:
            index.conn.execute(sql).fetchall()
    assert message in info.value.message
