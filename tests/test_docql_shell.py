"""Compiled DocQL runs unchanged in a plain `sqlite3` shell (DESIGN D2/D3).

For every fixture query (tests/fixtures/docql/*.docql, error cases aside) this takes the
SQL that `docql-sqlite query DB Q --sql --inline` prints, runs it in /usr/bin/sqlite3
(`-json` mode) and checks:

- the shell's rows equal the rows the library gets from the same SQL with bound
  parameters (same columns, same values, same order): the inlined literals mean what
  the parameters meant;
- those rows, turned into items by `query/results.py`, equal what
  `docql-sqlite query DB Q --json` prints. For a regex grep the CLI refines
  `hit_line`/`snippet` in Python, so only the SQL columns are compared there.

The CLI runs in-process (click's CliRunner) so the ~350 cases stay fast; one test runs the
installed `docql-sqlite` binary to show it prints the same SQL. Each fixture file's
queries go to one shell process, separated by `.print` markers.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from docql_fixtures import Case, FixtureFile, all_cases, database_for, normalize

import docql_sqlite
from docql_sqlite.cli import cli
from docql_sqlite.query import results
from docql_sqlite.store.sqlite import db as dbmod

SQLITE3 = shutil.which("sqlite3", path="/usr/bin") or shutil.which("sqlite3")
pytestmark = pytest.mark.skipif(
    SQLITE3 is None, reason="no sqlite3 shell (/usr/bin/sqlite3) on this machine"
)

CASES = [(fx, c) for fx, c in all_cases() if c.error is None]
REFINED = ("hit_line", "snippet")  # computed in Python for regex grep (results._refine_regex_hit)
MARK = "@@@docql-case "


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def inline_sql(database: Path, case: Case) -> str:
    return invoke("query", str(database), case.query, *case.cli_args(), "--sql", "--inline")


def run_shell(database: Path, script: str) -> subprocess.CompletedProcess[str]:
    assert SQLITE3 is not None
    return subprocess.run(
        [SQLITE3, "-readonly", "-json", str(database)],
        input=script,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def split_output(stdout: str) -> dict[str, list[dict[str, Any]]]:
    """Shell output of a batch → rows per case id (an empty result prints nothing)."""
    out: dict[str, list[dict[str, Any]]] = {}
    current: str | None = None
    buffer: list[str] = []
    for line in stdout.split("\n") + [MARK + "<end>"]:
        if line.startswith(MARK):
            if current is not None:
                text = "\n".join(buffer).strip()
                out[current] = json.loads(text) if text else []
            current, buffer = line[len(MARK) :], []
        else:
            buffer.append(line)
    return out


@pytest.fixture(scope="session")
def shell_rows(corpus_db: Path, tmp_path_factory: pytest.TempPathFactory):
    """fixture file → {case id: rows printed by the shell}; one shell process per file."""
    cache: dict[str, dict[str, Any]] = {}

    def get(fx: FixtureFile) -> dict[str, Any]:
        if fx.name not in cache:
            database = database_for(fx, corpus_db, tmp_path_factory)
            cases = [c for f, c in CASES if f.name == fx.name]
            # Markers are case numbers: `.print` would reinterpret quotes in a title.
            script = "".join(
                f".print {MARK}{n}\n{inline_sql(database, c)}\n" for n, c in enumerate(cases)
            )
            done = run_shell(database, script)
            if done.returncode == 0 and not done.stderr:
                by_number = split_output(done.stdout)
                cache[fx.name] = {c.id: by_number[str(n)] for n, c in enumerate(cases)}
            else:  # find the failing cases: one shell per case
                cache[fx.name] = {}
                for c in cases:
                    one = run_shell(database, inline_sql(database, c))
                    text = one.stdout.strip()
                    cache[fx.name][c.id] = (
                        ShellError(one.stderr) if one.stderr else (json.loads(text) if text else [])
                    )
        rows = cache[fx.name]
        return rows
        return cache[fx.name]

    return get


@pytest.fixture(scope="session")
def connections(corpus_db: Path, tmp_path_factory: pytest.TempPathFactory):
    opened: dict[Path, Any] = {}

    def get(fx: FixtureFile) -> tuple[Path, Any]:
        database = database_for(fx, corpus_db, tmp_path_factory)
        if database not in opened:
            opened[database] = dbmod.connect(database, readonly=True)
        return database, opened[database]

    yield get
    for conn in opened.values():
        conn.close()


@pytest.fixture(scope="session")
def indexes():
    opened: dict[Path, docql_sqlite.Index] = {}

    def get(database: Path) -> docql_sqlite.Index:
        if database not in opened:
            opened[database] = docql_sqlite.open(database)
        return opened[database]

    yield get
    for index in opened.values():
        index.close()


class ShellError(str):
    """What the shell printed on stderr for one case."""


def _cells(row: dict[str, Any]) -> dict[str, Any]:
    return {k: normalize(v) for k, v in row.items()}


@pytest.mark.parametrize(("fx", "case"), CASES, ids=[c.id for _, c in CASES])
def test_inline_sql_runs_in_the_shell(
    fx: FixtureFile, case: Case, shell_rows, connections, indexes
) -> None:
    database, conn = connections(fx)
    # Compiled as the CLI compiles it (`Index.compile`: search() needs the index's search
    # builder); its deferred parameters (search's term statistics) bound as a run binds them.
    compiled = indexes(database).compile(case.query, path=list(case.paths), limit=case.limit)
    raw = shell_rows(fx)[case.id]
    assert not isinstance(raw, ShellError), f"sqlite3 could not run the inline SQL: {raw}"
    shell = [_cells(r) for r in raw]

    # 1. The inlined SQL in the shell = the parameterised SQL in the library.
    library = [_cells(r) for r in dbmod.rows(conn, compiled.sql, compiled.bound_params())]
    assert shell == library

    # 2. The shell's rows as items = the CLI's --json output.
    cli_items = json.loads(invoke("query", str(database), case.query, *case.cli_args(), "--json"))
    if compiled.post == "regex_grep":
        sql_columns = [c for c in compiled.columns if c not in REFINED]
        assert [{k: r[k] for k in sql_columns} for r in shell] == [
            {k: normalize(i[k]) for k in sql_columns} for i in cli_items
        ]
    else:
        built = list(results.build(compiled, [dict(r) for r in raw]))
        assert normalize(built) == normalize(cli_items)


def test_shell_has_the_regexp_functions() -> None:
    """The shell's built-in regexp extension provides REGEXP and regexpi (ASCII case only)."""
    done = run_shell(
        Path(":memory:"),
        "SELECT 'Lexer' REGEXP 'Lex[a-z]+' AS a, regexpi('lexer', 'LEXER') AS b;\n",
    )
    assert json.loads(done.stdout) == [{"a": 1, "b": 1}]


def test_installed_binary_prints_the_same_sql(corpus_db: Path) -> None:
    """The console script (not just the click command in-process) prints the same inline SQL."""
    binary = Path(sys.executable).parent / "docql-sqlite"
    if not binary.exists():
        pytest.skip(f"no console script at {binary}")
    query = '$.files[?(@.path~="zh/")].toc[?(@.level==2)][0]'
    done = subprocess.run(
        [str(binary), "query", str(corpus_db), query, "--sql", "--inline"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == invoke("query", str(corpus_db), query, "--sql", "--inline")
    rows = json.loads(run_shell(Path(corpus_db), done.stdout).stdout)
    assert [r["title"] for r in rows] == [
        "架构设计",
        "如何使用",
        "系统要求",
        "核心概念",
        "安装问题",
    ]


def test_sql_without_inline_lists_the_parameters(corpus_db: Path) -> None:
    out = invoke("query", str(corpus_db), '$.toc[?(@.title ~= "架构")]', "--sql")
    sql, params = out.rstrip("\n").rsplit("\n-- params: ", 1)
    assert ":p0" in sql and "架构" not in sql
    assert json.loads(params) == {"p0": "架构"}


def test_known_shell_differences_for_regexes(corpus_db: Path) -> None:
    """Documented in docs/docql.md (regex portability): the shell's regexpi folds ASCII
    letters only, and its regexp extension has no inline flags, so /.../m and /.../s run
    in Python only."""
    query = "$.content.grep(/CAFÉ/i)"
    sql = invoke("query", str(corpus_db), query, "--path", "datasets/en/*", "--sql", "--inline")
    in_shell = {r["path"] for r in json.loads(run_shell(Path(corpus_db), sql).stdout)}
    in_python = {
        i["path"]
        for i in json.loads(
            invoke("query", str(corpus_db), query, "--path", "datasets/en/*", "--json")
        )
    }
    assert (
        "datasets/en/handbook/04-configuration.md" in in_python - in_shell
    )  # "café" is only found by Unicode folding
    assert in_shell < in_python

    sql = invoke("query", str(corpus_db), "$.content.grep(/^lumen/m)", "--sql", "--inline")
    done = run_shell(Path(corpus_db), sql)
    assert "without operand" in done.stderr  # (?m) is not understood by the shell
    assert json.loads(invoke("query", str(corpus_db), "$.content.grep(/^lumen/m)", "--json"))
