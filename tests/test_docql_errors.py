"""DocQL errors beyond the fixture table (tests/fixtures/docql/errors.docql holds the exact
messages and carets): the classes all appear there, the CLI reports them on stderr with
exit code 2, runtime regex failures are DocQLErrors, and errors look the same from every
entry point (query, compile, explain, CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from docql_fixtures import FIXTURE_DIR, parse_fixture

import docql_sqlite
from docql_sqlite import errors
from docql_sqlite.cli import cli

ERROR_CASES = [c for c in parse_fixture(FIXTURE_DIR / "errors.docql").cases]


def test_every_error_class_is_in_the_table() -> None:
    classes = {c.error.split(":", 1)[0] for c in ERROR_CASES}
    assert classes == {"DocQLSyntaxError", "DocQLNameError", "DocQLTypeError", "DocQLRegexError"}
    for name in classes:
        assert issubclass(getattr(errors, name), errors.QueryError)
    assert all(c.error is not None for c in ERROR_CASES), "errors.docql holds error cases only"


@pytest.fixture(scope="module")
def index(corpus_db: Path):
    with docql_sqlite.open(corpus_db) as idx:
        yield idx


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c.title for c in ERROR_CASES])
def test_cli_reports_the_same_error_with_exit_code_2(corpus_db: Path, case) -> None:
    result = CliRunner().invoke(cli, ["query", str(corpus_db), case.query, "--json"])
    if not case.query.lstrip().startswith("$"):
        # Not DocQL: a usage error that points to the query it likely meant, else to
        # `search` (free text).
        assert result.exit_code == 2
        assert "is not DocQL" in result.output
        if "did you mean" in case.error:
            meant = case.error.split("did you mean ", 1)[1].split("? at line", 1)[0]
            assert f"did you mean docql-sqlite query {corpus_db} '{meant}'?" in result.output
        else:
            assert "docql-sqlite search" in result.output
        return
    assert result.exit_code == 2, result.output
    assert result.output == case.error + "\n"  # CliRunner mixes stderr in; stdout stays empty


@pytest.mark.parametrize("case", ERROR_CASES[:12], ids=[c.title for c in ERROR_CASES[:12]])
def test_compile_and_explain_raise_what_query_raises(index, case) -> None:
    for call in (index.compile, index.explain):
        with pytest.raises(errors.DocQLError) as info:
            call(case.query)
        assert str(info.value) == case.error


def test_cli_sql_mode_reports_errors_too(corpus_db: Path) -> None:
    result = CliRunner().invoke(cli, ["query", str(corpus_db), "$.tco", "--sql", "--inline"])
    assert result.exit_code == 2
    assert result.output.startswith("DocQLNameError: unknown root 'tco'; did you mean 'toc'?")


def test_cli_explain_reports_errors(corpus_db: Path) -> None:
    result = CliRunner().invoke(cli, ["explain", str(corpus_db), '$.toc[?(@.level > "x")]'])
    assert result.exit_code == 2
    assert (
        "DocQLTypeError: '>' needs a number, got string \"x\" at line 1, column 19" in result.output
    )


def test_error_to_dict_for_agents(index) -> None:
    with pytest.raises(errors.QueryError) as info:
        index.query('$.content.hedaing("架构")')
    data = info.value.to_dict()
    assert data == {
        "type": "DocQLNameError",
        "message": "unknown function 'hedaing' for $.content; did you mean 'heading'?",
        "line": 1,
        "column": 11,
        "suggestion": "heading",
        "caret": '  $.content.hedaing("架构")\n            ^',
    }
    json.dumps(data)


def test_runtime_regex_timeout_is_a_docql_error(tmp_index) -> None:
    """A regex that compiles but backtracks catastrophically on the data stops with a
    DocQLRegexError (no position: the query is fine, the data makes it explode)."""
    tmp_index.write("x.md", "# X\n\n" + "x" * 5000 + "\n")
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        with pytest.raises(errors.DocQLRegexError) as info:  # a RegexTimeout (issue 11)
            idx.query("$.content.grep(/(x+x+)+y/)", timeout=1)
    assert str(info.value) == (
        "RegexTimeout: query took too long (over 1 s) in the regex /(x+x+)+y/ (catastrophic "
        "backtracking? nested repeats such as (a|aa)+ or (\\w+\\s?)*); simplify it, or raise "
        "the limit with DOCQL_QUERY_TIMEOUT=SECONDS (Python: index.query(q, timeout=SECONDS))"
    )
    result = CliRunner().invoke(
        cli, ["query", str(tmp_index.db), "$.toc[?(@.title =~ /(x+x+)+y/)]", "--json"]
    )
    assert result.exit_code == 0  # the title "X" is short: no blow-up, no match
    assert json.loads(result.output) == []


def test_no_bare_python_exceptions_escape(index) -> None:
    """Odd inputs that once were easy to get wrong end in DocQLErrors, never in KeyError & co."""
    for query in [
        "$.toc[99999999999999999999]",
        "$.toc[?(@.level == 1e5)]",
        "$.content.page(-1)",
        "$.content.page(99999999999999999999)",
        "$.toc[?(@.level == -0)]",
        "$..toc",
        "$.toc[?()]",
        "$.toc[?(@.title == '\\u0000')]",
        '$.content.chapter("")',
        "$.frontmatter.__class__",
        "$.files[*].files",
        "$.files.files.toc",
        "$.content.grep(/(?P<x>a)(?P=x)/)",
    ]:
        try:
            index.query(query)
        except errors.DocQLError as exc:
            assert not exc.message.startswith("query failed in SQLite"), (query, exc.message)
