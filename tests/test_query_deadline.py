"""One time limit per query (issue 11, item 6), checked inside SQLite and inside the regex engine.

Before the fix each REGEXP call had its own 0.5 s cap, so 1,000 titles that each take
~0.1 s to fail `(a|aa)+$` ran for minutes. Now a query stops at its limit (default
`deadline.DEFAULT_SECONDS`, `QueryOptions(timeout=...)` / `index.query(q, timeout=S)`,
`$DOCQL_QUERY_TIMEOUT` for every default, so for the CLI)
with `QueryTimeout`, however its time is spent.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import CLI, TmpIndex

import docql_sqlite
from docql_sqlite import deadline
from docql_sqlite.errors import DocQLError, QueryTimeout
from docql_sqlite.options import QueryOptions

LIMIT_S = 1.0
SLACK_S = 2.0  # the check runs every few thousand VM steps or inside one regex call

# A title on which `(a|aa)+$` backtracks for ~0.1 s (Fibonacci in the run of a's).
SLOW_TITLE = "a" * 21 + "!"
# A chunk on which `(\w+\s?)*$` backtracks for ~0.3 s.
SLOW_CHUNK = "abcdefghij" * 30 + "!"

CASES = {
    "toc title regex": r"$.toc[?(@.title =~ /(a|aa)+$/)]",
    "grep regex": r"$.content.grep(/(\w+\s?)*$/)",
    "case-insensitive regex": r"$.toc[?(@.title =~ /(a|aa)+$/i)]",
}


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("crafted")
    idx = TmpIndex(root)
    headings = "".join(f"## {SLOW_TITLE} {n}\n\ntext {n}\n\n" for n in range(1000))
    idx.write("titles.md", "# Crafted\n\n" + headings)
    for n in range(50):
        idx.write(f"grep/g{n:03d}.md", f"# G{n}\n\n{SLOW_CHUNK}\n")
    report = idx.index()
    assert report.ok, report.failed
    return idx.db


@pytest.mark.parametrize("case", list(CASES))
def test_crafted_regex_stops_at_the_query_limit(crafted: Path, case: str) -> None:
    with docql_sqlite.open(crafted) as idx:
        started = time.monotonic()
        with pytest.raises(QueryTimeout, match="query took too long") as err:
            idx.query(CASES[case], timeout=LIMIT_S)
        elapsed = time.monotonic() - started
    assert elapsed < LIMIT_S + SLACK_S, f"stopped after {elapsed:.1f} s, the limit is {LIMIT_S}"
    assert f"over {LIMIT_S:g} s" in err.value.message
    assert "regex" in err.value.message  # names the cause


@pytest.mark.parametrize("case", ["toc title regex", "grep regex"])
def test_cli_reports_the_timeout_in_one_line(crafted: Path, case: str) -> None:
    env = dict(os.environ, **{deadline.ENVIRONMENT: str(LIMIT_S)})
    started = time.monotonic()
    proc = subprocess.run(
        [str(CLI), "query", str(crafted), CASES[case], "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    elapsed = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(
        "RegexTimeout: query took too"
    ), proc.stderr
    assert elapsed < LIMIT_S + SLACK_S + 3, elapsed  # + the CLI's start-up


def test_a_fast_regex_is_unaffected(crafted: Path) -> None:
    with docql_sqlite.open(crafted) as idx:
        hits = idx.query(r"$.toc[?(@.title =~ /^a+! 99\d$/)].title", timeout=LIMIT_S)
    assert hits == [f"{SLOW_TITLE} {n}" for n in range(990, 1000)]


def test_progress_handler_stops_plain_sql(crafted: Path) -> None:
    """No Python function involved: SQLite's progress handler ends the statement."""
    sql = (
        "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 100000000) "
        "SELECT count(*) FROM r"
    )
    with docql_sqlite.open(crafted) as idx:
        started = time.monotonic()
        with pytest.raises(QueryTimeout), deadline.limit(0.3):
            idx.conn.execute(sql).fetchall()
        assert time.monotonic() - started < 0.3 + SLACK_S
        assert idx.conn.execute("SELECT 1").fetchall() == [(1,)]  # the connection still works


def test_time_with_the_consumer_does_not_count(crafted: Path) -> None:
    """A slow reader of the rows (a pipe, a paging agent) must not run the query out of time."""
    with docql_sqlite.open(crafted) as idx:
        compiled = idx.compile("$.toc[?(@.level == 2)]", limit=4)
        rows = []
        for row in idx.execute(compiled, timeout=0.5):
            time.sleep(0.3)
            rows.append(row)
    assert len(rows) == 4


def test_nested_query_keeps_the_outer_limit(crafted: Path) -> None:
    """The docql() table function runs a query inside a statement: the smaller limit wins."""
    with docql_sqlite.open(crafted) as idx:  # the inner query's own limit: the default, 5 s
        started = time.monotonic()
        with pytest.raises(QueryTimeout), deadline.limit(LIMIT_S):
            idx.conn.execute(
                "SELECT count(*) FROM docql(?)", (CASES["toc title regex"],)
            ).fetchall()
        assert time.monotonic() - started < LIMIT_S + SLACK_S


def test_environment_sets_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(deadline.ENVIRONMENT, "7.5")
    assert QueryOptions().timeout == 7.5
    monkeypatch.setenv(deadline.ENVIRONMENT, "0")
    assert QueryOptions().timeout is None
    monkeypatch.setenv(deadline.ENVIRONMENT, "soon")
    with pytest.raises(DocQLError, match="not a number of seconds"):
        QueryOptions()
    monkeypatch.delenv(deadline.ENVIRONMENT)
    assert QueryOptions().timeout == deadline.DEFAULT_SECONDS
    assert QueryOptions(timeout=1.5).timeout == 1.5


def test_model_loading_is_not_counted(crafted: Path) -> None:
    """Work that is not the query's (loading an embedding model) pauses the clock."""
    with deadline.limit(0.3):
        with deadline.not_counted():
            time.sleep(0.5)
        left = deadline.remaining()
        assert left is not None and left > 0.1
        with docql_sqlite.open(crafted) as idx:  # the query still runs
            assert idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] > 0
