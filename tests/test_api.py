"""The Python API for DocQL: `docql_sqlite.open(path)` → Index with query, compile,
explain, conn.
"""

from __future__ import annotations

import json
from pathlib import Path

import apsw
import pytest

import docql_sqlite
from docql_sqlite.errors import (
    DatabaseError,
    DocQLError,
    DocQLNameError,
    DocQLSyntaxError,
    QueryError,
)
from docql_sqlite.query.compiler import Compiled


@pytest.fixture(scope="module")
def index(corpus_db: Path):
    idx = docql_sqlite.open(corpus_db)
    yield idx
    idx.close()


def test_open_returns_an_index(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as idx:
        assert isinstance(idx, docql_sqlite.Index)
        assert idx.path == str(corpus_db)
        assert isinstance(idx.conn, apsw.Connection)
    with pytest.raises(apsw.ConnectionClosedError):
        idx.conn.execute("SELECT 1")


def test_open_a_missing_file_is_a_docql_error(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="no index at"):
        docql_sqlite.open(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()


def test_query_returns_items(index) -> None:
    items = index.query("$.toc[?(@.level==1)]", path="datasets/zh/*")
    assert [i["title"] for i in items] == [
        "架构",
        "配置",
        "安装",
        "快速开始",
        "系统架构概述",
        "常见问题",
    ]
    assert set(items[0]) == {
        "type",
        "path",
        "level",
        "title",
        "number",
        "anchor",
        "line",
        "end_line",
        "page",
        "location",
    }
    assert items[0]["type"] == "heading"


def test_query_path_accepts_a_list_and_a_tuple(index) -> None:
    globs = ["datasets/zh/install.md", "datasets/en/handbook/06-security.md"]
    as_list = index.query("$.toc[?(@.level==1)].title", path=globs)
    assert as_list == [
        "Security and Authentication",
        "Authorization",
        "Transport Security",
        "安装",
        "快速开始",
    ]
    assert index.query("$.toc[?(@.level==1)].title", path=tuple(globs)) == as_list


def test_query_limit(index) -> None:
    assert index.query("$.toc.title", path="datasets/zh/install.md", limit=2) == [
        "安装",
        "系统要求",
    ]
    assert index.query("$.toc", limit=0) == []
    # limit cuts after ordering and selectors: [-3:] keeps all three, limit=2 the first two
    assert index.query(
        "$.toc[?(@.level==1)][-3:].title", path="datasets/en/handbook/06-security.md", limit=2
    ) == ["Security and Authentication", "Authorization"]


def test_query_projection_returns_values(index) -> None:
    assert index.query('$.files[?(@.path~="zh/")].name') == [
        "architecture.md",
        "config.md",
        "install.md",
        "overview.md",
        "常见问题.md",
    ]


def test_query_results_are_json_ready(index) -> None:
    for query in [
        "$.toc[0]",
        "$.content.table[0]",
        "$.frontmatter[0]",
        '$.code.class("DocQLLexer")',
        '$.content.heading("架构")',
        "$.structure[0:3]",
    ]:
        rows = index.query(query)
        # Non-empty, and made of JSON's own types only: a tuple, a bytes value or a float
        # standing for an int would not come back equal from a JSON round trip.
        assert rows, query
        assert json.loads(json.dumps(rows, ensure_ascii=False)) == rows, query
        assert [type(r) for r in json.loads(json.dumps(rows))] == [type(r) for r in rows]


def test_empty_result_is_an_empty_list(index) -> None:
    assert index.query('$.toc[?(@.title == "no such title")]') == []


def test_query_errors(index) -> None:
    with pytest.raises(DocQLNameError) as info:
        index.query("$.toc[?(@.titel == 'x')]")
    error = info.value
    assert isinstance(error, QueryError) and isinstance(error, DocQLError)
    assert (error.line, error.column, error.suggestion) == (1, 11, "title")
    data = error.to_dict()
    assert (
        data["type"] == "DocQLNameError"
        and data["caret"] == "  $.toc[?(@.titel == 'x')]\n            ^"
    )
    with pytest.raises(DocQLSyntaxError, match="query must start with"):
        index.query("free text search")


def test_compile(index) -> None:
    compiled = index.compile('$.toc[?(@.title ~= "Design")]', path="datasets/en/*", limit=3)
    assert isinstance(compiled, Compiled)
    assert compiled.item.name == "heading"
    assert compiled.columns == [
        "type",
        "path",
        "level",
        "title",
        "number",
        "anchor",
        "line",
        "end_line",
        "page",
        "location",
    ]
    assert sorted(compiled.params.values()) == [
        "^/?datasets/en/[^/]*(/.*)?$",  # the --path glob as a regex (docql_sqlite/globs.py)
        "design",
    ]  # keyword casefolded at compile time
    assert "design" not in compiled.sql and compiled.sql.rstrip().endswith("LIMIT 3")
    inline = compiled.inline_sql()
    assert "'^/?datasets/en/[^/]*(/.*)?$'" in inline and "'design'" in inline
    assert ":p0" not in inline
    # the compiled SQL runs on any connection, with its parameters
    rows = list(index.conn.execute(compiled.sql, compiled.params))
    assert [r[3] for r in rows] == [
        "Storage Engine Design",
        "Replication Design",
        "Ch. 3 Appendix: Design Decisions",
    ]


def test_compile_does_not_touch_the_data(index) -> None:
    """compile() checks names and types without running anything."""
    compiled = index.compile('$.code.query("x")')
    assert compiled.item.name == "symbol"
    with pytest.raises(DocQLError):
        index.compile("$.content.chapter()")


def test_explain(index) -> None:
    info = index.explain("$.toc[?(@.level==1)][0]", path="datasets/zh/*")
    assert set(info) >= {
        "query",
        "tokens",
        "ast",
        "item_type",
        "sql",
        "params",
        "inline_sql",
        "plan",
        "notes",
    }
    assert info["query"] == "$.toc[?(@.level==1)][0]"
    assert [t["type"] for t in info["tokens"]][:3] == ["DOLLAR", "DOT", "NAME"]
    assert info["ast"]["steps"][0] == {"node": "Property", "name": "toc"}
    assert info["item_type"] == "heading"
    assert info["params"] == {"p0": "^/?datasets/zh/[^/]*(/.*)?$", "p1": 1}
    assert all({"id", "parent", "detail"} <= set(step) for step in info["plan"]) and info["plan"]
    assert (
        info["inline_sql"]
        == index.compile("$.toc[?(@.level==1)][0]", path="datasets/zh/*").inline_sql()
    )


def test_explain_reports_errors_like_query(index) -> None:
    with pytest.raises(DocQLNameError):
        index.explain("$.tco")


def test_conn_is_read_only(index) -> None:
    with pytest.raises(apsw.ReadOnlyError):
        index.conn.execute("DELETE FROM documents")
    assert index.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 29


def test_conn_has_the_sql_functions_and_views(index) -> None:
    assert index.conn.execute("SELECT docql_heading('架构设计', '架构')").fetchone()[0] == 2
    assert (
        index.conn.execute(
            "SELECT count(*) FROM toc WHERE path = 'datasets/zh/install.md'"
        ).fetchone()[0]
        == 12
    )


def test_query_and_cli_agree(index, corpus_db: Path) -> None:
    from click.testing import CliRunner

    from docql_sqlite.cli import cli

    query = '$.content.grep("关键词")'
    result = CliRunner().invoke(
        cli, ["query", str(corpus_db), query, "--path", "datasets/zh/*", "--json"]
    )
    assert result.exit_code == 0
    assert json.loads(result.output) == index.query(query, path="datasets/zh/*")
