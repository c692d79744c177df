"""`Index.compile` keeps compiled queries (text, scope, limit, vectors present, the
file's version stamp): a repeated query skips the parser and gets the same SQL; another
scope or limit, or a write to the file, compiles anew; what a caller does to the
`Compiled` it got does not reach the next caller."""

from __future__ import annotations

from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite import IngestOptions
from docql_sqlite.index import index as index_paths
from docql_sqlite.query import compiler


def test_repeated_queries_compile_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.md").write_text("# Alpha\n\nfirst\n\n## Beta\n\nsecond\n")
    db = tmp_path / "i.db"
    index_paths(db, [str(tmp_path)], IngestOptions(workers=0))
    calls: list[str] = []
    real = compiler.compile_query

    def counted(query: str, **kw: object) -> compiler.Compiled:
        calls.append(query)
        return real(query, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(compiler, "compile_query", counted)
    with docql_sqlite.Index(db) as idx:
        query = '$.toc[?(@.title~="a")]'
        first = idx.compile(query)
        first.notes.append("a caller's own note")
        first.params["p0"] = "changed by a caller"
        again = idx.compile(query)
        assert len(calls) == 1
        assert again.sql == first.sql and "a caller's own note" not in again.notes
        assert again.params["p0"] == "a"
        assert [r["title"] for r in idx.query(query)] == ["Alpha", "Beta"]
        assert len(calls) == 1
        idx.compile(query, limit=1)
        idx.compile(query, paths=("other/**",))
        assert len(calls) == 3
        # A write changes the file's stamp: the query is compiled again, and sees it.
        (tmp_path / "b.md").write_text("# Gamma\n\nthird\n")
        idx.index([str(tmp_path)], workers=0)
        titles = [r["title"] for r in idx.query(query)]
        assert len(calls) == 4 and titles == ["Alpha", "Beta", "Gamma"]
