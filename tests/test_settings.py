"""The environment, read in one place: `docql_sqlite/settings.py` (issue 21).

- no other module reads or writes the environment (`os.environ`, `getenv`, `putenv`,
  click's `envvar=`), checked on the syntax tree;
- every `DOCQL_*` name the package or its docs mention is a row of `SETTINGS` (the
  variables of the test suite and the benchmarks are listed here, and must really be
  read by them and never by the package);
- each accessor honours its variable, falls back to the row's default, and refuses a
  bad value with one line naming the variable.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docql_sqlite import OptionError, settings
from docql_sqlite.records import fields
from docql_sqlite.settings import SETTINGS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "docql_sqlite"
NAMES = {s.name for s in SETTINGS}
# A DOCQL_ name not inside a longer word (click's `_DOCQL_SQLITE_COMPLETE` is a row too,
# under its own name).
DOCQL_NAME = re.compile(r"(?<![A-Za-z0-9_])DOCQL_[A-Z0-9_]*[A-Z0-9]")
# Read by the test suite and the benchmarks, never by the package (docs/reliability.md,
# docs/benchmarks.md): they are not settings of docql-sqlite.
TEST_SUITE_VARIABLES = {
    "DOCQL_CORPORA": "where the real corpora are (benchmarks, slow tests)",
    "DOCQL_CRASH_CORPUS": "the corpus of the kill-and-resume tests",
    "DOCQL_EMBED_KILL_POINTS": "how many kill points the embed crash test sweeps",
    "DOCQL_EMBED_ONNX": "1: run the embed crash test with the ONNX model too",
    "DOCQL_FUZZ_EXAMPLES": "examples per property test",
    "DOCQL_FUZZ_SEED": "the property tests' seed",
    "DOCQL_KILL_POINTS": "how many kill points the ingest crash test sweeps",
    "DOCQL_KILL_SEED": "the ingest crash test's seed",
    "DOCQL_MIX": "the query mix of the MCP load benchmark",
    "DOCQL_SLOW": "1: run the slow tests",
}
ENVIRONMENT_ACCESS = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
CLICK_ENVIRONMENT = {"envvar", "auto_envvar_prefix", "show_envvar"}


def environment_uses(source: str) -> list[str]:
    """How `source` touches the environment: os.environ & co., and click's envvar options."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT_ACCESS:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Name) and node.id in ENVIRONMENT_ACCESS:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"line {node.lineno}: from os import {a.name}" for a in node.names]
        elif isinstance(node, ast.keyword) and node.arg in CLICK_ENVIRONMENT:
            found.append(f"line {node.value.lineno}: {node.arg}=")
    return found


MODULES = sorted(p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import os\nx = os.environ.get('A')", True),
        ("import os\nos.environ.setdefault('A', '1')", True),
        ("from os import environ", True),
        ("from os import getenv\ngetenv('A')", True),
        ("import os\nos.putenv('A', '1')", True),
        ("import click\n@click.option('--t', envvar='A')\ndef f(t): pass", True),
        ("import os\nos.path.join('a', 'b')", False),
        ("from docql_sqlite import settings\nsettings.query_timeout()", False),
    ],
)
def test_the_finder_finds_environment_access(source: str, found: bool) -> None:
    assert bool(environment_uses(source)) == found


@pytest.mark.parametrize("module", MODULES)
def test_only_settings_touches_the_environment(module: str) -> None:
    if module == "docql_sqlite/settings.py":
        assert environment_uses((ROOT / module).read_text(encoding="utf-8"))  # it does
        return
    uses = environment_uses((ROOT / module).read_text(encoding="utf-8"))
    assert uses == [], f"{module} reads the environment ({uses}): add a setting to settings.py"


def _mentions(folder: Path, pattern: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted(folder.rglob(pattern)):
        for name in DOCQL_NAME.findall(path.read_text(encoding="utf-8", errors="replace")):
            found.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    return found


def test_every_docql_variable_is_a_setting() -> None:
    package = _mentions(PACKAGE, "*.py")
    docs = _mentions(ROOT / "docs", "*.md")
    docs.update({k: docs.get(k, set()) | v for k, v in _mentions(ROOT, "README.md").items()})
    assert "DOCQL_QUERY_TIMEOUT" in package and "DOCQL_SLOW" in docs  # the finder works
    unknown = {n: sorted(where) for n, where in package.items() if n not in NAMES}
    assert unknown == {}, f"add these to SETTINGS (docql_sqlite/settings.py): {unknown}"
    undocumented = {
        n: sorted(where)
        for n, where in docs.items()
        if n not in NAMES and n not in TEST_SUITE_VARIABLES
    }
    assert undocumented == {}, f"not in SETTINGS nor a test-suite variable: {undocumented}"


def test_test_suite_variables_belong_to_the_tests() -> None:
    package = _mentions(PACKAGE, "*.py")
    used = _mentions(ROOT / "tests", "*.py")
    used.update({k: used.get(k, set()) | v for k, v in _mentions(ROOT / "benchmarks", "*").items()})
    for name in TEST_SUITE_VARIABLES:
        assert name not in package, f"{name} is read by the package: make it a setting"
        assert name in used, f"{name} is read by no test or benchmark: drop it from the list"
        assert name not in NAMES


def test_the_table_is_well_formed() -> None:
    assert len(NAMES) == len(SETTINGS), "a name twice"
    kinds = {
        settings.SECONDS,
        settings.SECONDS_OR_NONE,
        settings.COUNT,
        settings.SWITCH,
        settings.URL,
        settings.PATH,
        settings.TEXT,
        settings.SECRET,
    }
    for row in SETTINGS:
        assert [f.name for f in fields(row)] == ["name", "default", "kind", "doc"]
        assert row.kind in kinds, row
        assert row.default is None or isinstance(row.default, str), row
        # One sentence: a capital, a full stop at the end, and none in between.
        assert row.doc[:1].isupper() and row.doc.endswith("."), row.name
        assert not re.search(r"[.!?]\s+[A-Z]", row.doc), f"{row.name}: one sentence"
        if row.kind == settings.SECRET:
            assert row.default is None, row.name
    with pytest.raises(AttributeError):
        SETTINGS[0].name = "X"  # type: ignore[misc]


# -- each accessor ----------------------------------------------------------------------------
S = settings
HOME = str(Path.home())
# (setting, accessor, value in the environment (None: unset), what the accessor returns)
HONOURED: list[tuple[settings.Setting, Callable[[], Any], str | None, Any]] = [
    (S.QUERY_TIMEOUT, S.query_timeout, None, 5.0),
    (S.QUERY_TIMEOUT, S.query_timeout, "7.5", 7.5),
    (S.QUERY_TIMEOUT, S.query_timeout, " 12 ", 12.0),
    (S.QUERY_TIMEOUT, S.query_timeout, "0", None),
    (S.QUERY_TIMEOUT, S.query_timeout, "none", None),
    (S.QUERY_TIMEOUT, S.query_timeout, "OFF", None),
    (S.QUERY_TIMEOUT, S.query_timeout, "", 5.0),  # empty counts as unset
    (S.CHECK_SECONDS, S.check_seconds, None, 30.0),
    (S.CHECK_SECONDS, S.check_seconds, "2.5", 2.5),
    (S.CHECK_SECONDS, S.check_seconds, "0", None),
    (S.MCP_WORKERS, S.mcp_workers, None, 3),
    (S.MCP_WORKERS, S.mcp_workers, "8", 8),
    (S.MCP_HEADER_TIMEOUT, S.mcp_header_timeout, None, 10.0),
    (S.MCP_HEADER_TIMEOUT, S.mcp_header_timeout, "1", 1.0),
    (S.MCP_TOKEN, S.mcp_token, None, None),
    (S.MCP_TOKEN, S.mcp_token, "s3cret", "s3cret"),
    (S.PARALLEL_SEARCH, S.parallel_search, None, True),
    (S.PARALLEL_SEARCH, S.parallel_search, "0", False),
    (S.PARALLEL_SEARCH, S.parallel_search, "off", False),
    (S.PARALLEL_SEARCH, S.parallel_search, "No", False),
    (S.PARALLEL_SEARCH, S.parallel_search, "yes", True),
    (S.EMBED_URL, S.embed_url, None, "http://127.0.0.1:11434/v1"),
    (S.EMBED_URL, S.embed_url, "http://10.0.0.2:8080/v1", "http://10.0.0.2:8080/v1"),
    (S.OPENAI_BASE_URL, S.embed_url, "https://api.example/v1", "https://api.example/v1"),
    (S.EMBED_API_KEY, S.embed_api_key, None, None),
    (S.EMBED_API_KEY, S.embed_api_key, "k1", "k1"),
    (S.OPENAI_API_KEY, S.embed_api_key, "k2", "k2"),
    (S.RERANK_URL, S.rerank_url, None, "http://127.0.0.1:8080/v1"),
    (S.RERANK_URL, S.rerank_url, "http://10.0.0.2:9000", "http://10.0.0.2:9000"),
    (S.RERANK_MODEL, S.rerank_model, None, "reranker"),
    (S.RERANK_MODEL, S.rerank_model, "bge", "bge"),
    (S.RERANK_TIMEOUT, S.rerank_timeout, None, 10.0),
    (S.RERANK_TIMEOUT, S.rerank_timeout, "0.3", 0.3),
    (S.RERANK_API_KEY, S.rerank_api_key, None, None),
    (S.RERANK_API_KEY, S.rerank_api_key, "k3", "k3"),
    (S.USE_MODEL, S.use_model, None, None),
    (S.USE_MODEL, S.use_model, "/m/use.onnx", "/m/use.onnx"),
    (S.MODEL_CACHE, S.model_cache, "/tmp/models", "/tmp/models"),
    (S.MODEL_CACHE, S.model_cache, None, f"{HOME}/.cache/docql-sqlite"),
    (S.XDG_CACHE_HOME, S.cache_dir, None, f"{HOME}/.cache/docql-sqlite"),
    (S.XDG_CACHE_HOME, S.cache_dir, "/tmp/xdg", "/tmp/xdg/docql-sqlite"),
    (S.XDG_CACHE_HOME, S.model_cache, "/tmp/xdg", "/tmp/xdg/docql-sqlite"),
    (S.COLUMNS, S.columns, None, None),
    (S.COLUMNS, S.columns, "100", 100),
    (S.COLUMNS, S.columns, "wide", None),  # not ours: ignored, as other programs do
    (S.COLUMNS, S.columns, "0", None),
    (S.NO_COLOR, S.no_color, None, False),
    (S.NO_COLOR, S.no_color, "1", True),
    (S.TERM, S.dumb_terminal, "dumb", True),
    (S.TERM, S.dumb_terminal, "xterm-256color", False),
    (S.SHELL_COMPLETION, S.shell_completion, None, False),
    (S.SHELL_COMPLETION, S.shell_completion, "bash_complete", True),
]
# (setting, accessor, a value it refuses)
REFUSED: list[tuple[settings.Setting, Callable[[], Any], str]] = [
    (S.QUERY_TIMEOUT, S.query_timeout, "soon"),
    (S.QUERY_TIMEOUT, S.query_timeout, "-1"),
    (S.QUERY_TIMEOUT, S.query_timeout, "nan"),
    (S.QUERY_TIMEOUT, S.query_timeout, "inf"),
    (S.CHECK_SECONDS, S.check_seconds, "thirty"),
    (S.MCP_WORKERS, S.mcp_workers, "0"),
    (S.MCP_WORKERS, S.mcp_workers, "65"),
    (S.MCP_WORKERS, S.mcp_workers, "two"),
    (S.MCP_HEADER_TIMEOUT, S.mcp_header_timeout, "0"),
    (S.MCP_HEADER_TIMEOUT, S.mcp_header_timeout, "10s"),
    (S.PARALLEL_SEARCH, S.parallel_search, "maybe"),
    (S.EMBED_URL, S.embed_url, "10.0.0.2:8080/v1"),
    (S.OPENAI_BASE_URL, S.embed_url, "api.example/v1"),
    (S.RERANK_URL, S.rerank_url, "ftp://host/rerank"),
    (S.RERANK_TIMEOUT, S.rerank_timeout, "soon"),
    (S.RERANK_TIMEOUT, S.rerank_timeout, "0"),
]
# Free text, or another program's variable whose odd values are ignored: nothing to refuse.
NOTHING_TO_REFUSE = {
    S.MCP_TOKEN,
    S.EMBED_API_KEY,
    S.OPENAI_API_KEY,
    S.RERANK_MODEL,
    S.RERANK_API_KEY,
    S.USE_MODEL,
    S.MODEL_CACHE,
    S.XDG_CACHE_HOME,
    S.COLUMNS,
    S.NO_COLOR,
    S.TERM,
    S.SHELL_COMPLETION,
    S.OMP_WAIT_POLICY,
    S.OPENBLAS_NUM_THREADS,
}


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No setting's variable (nor any shell-completion variable) in the environment."""
    import os

    for name in NAMES | {k for k in os.environ if k.startswith("_") and k.endswith("_COMPLETE")}:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", HOME)
    return monkeypatch


def test_every_setting_is_tested() -> None:
    honoured = {row for row, _, _, _ in HONOURED} | set(settings.FOR_LIBRARIES)
    assert honoured == set(SETTINGS)
    assert {row for row, _, _ in REFUSED} | NOTHING_TO_REFUSE == set(SETTINGS)


@pytest.mark.parametrize(
    ("row", "accessor", "value", "expected"),
    HONOURED,
    ids=[f"{row.name}={value}" for row, _, value, _ in HONOURED],
)
def test_accessor_honours_its_variable(
    clean: pytest.MonkeyPatch,
    row: settings.Setting,
    accessor: Callable[[], Any],
    value: str | None,
    expected: Any,
) -> None:
    if value is not None:
        clean.setenv(row.name, value)
    assert accessor() == expected


@pytest.mark.parametrize(
    ("row", "accessor", "value"), REFUSED, ids=[f"{r.name}={v}" for r, _, v in REFUSED]
)
def test_accessor_refuses_a_bad_value(
    clean: pytest.MonkeyPatch, row: settings.Setting, accessor: Callable[[], Any], value: str
) -> None:
    clean.setenv(row.name, value)
    with pytest.raises(OptionError) as caught:
        accessor()
    message = str(caught.value)
    assert message.startswith(f"{row.name}={value!r} is not ") and "\n" not in message


def test_the_first_variable_set_wins(clean: pytest.MonkeyPatch) -> None:
    clean.setenv("OPENAI_BASE_URL", "https://api.example/v1")
    clean.setenv("DOCQL_EMBED_URL", "http://127.0.0.1:9/v1")
    clean.setenv("OPENAI_API_KEY", "openai")
    clean.setenv("DOCQL_EMBED_API_KEY", "ours")
    assert (settings.embed_url(), settings.embed_api_key()) == ("http://127.0.0.1:9/v1", "ours")


@pytest.mark.parametrize("row", settings.FOR_LIBRARIES, ids=lambda r: r.name)
def test_library_settings_are_written_unless_set(
    clean: pytest.MonkeyPatch, row: settings.Setting
) -> None:
    import os

    settings.set_for_library(row)
    assert os.environ[row.name] == row.default
    clean.setenv(row.name, "7")
    settings.set_for_library(row)
    assert os.environ[row.name] == "7"  # the user's choice wins
    with pytest.raises(ValueError):
        settings.set_for_library(settings.QUERY_TIMEOUT)


def test_settings_are_read_when_called(clean: pytest.MonkeyPatch) -> None:
    # No caching at import: a change after import takes effect.
    from docql_sqlite import QueryOptions

    clean.setenv("DOCQL_QUERY_TIMEOUT", "3")
    assert QueryOptions().timeout == 3.0
    clean.setenv("DOCQL_QUERY_TIMEOUT", "4")
    assert QueryOptions().timeout == 4.0


@pytest.mark.parametrize(
    ("args", "variable", "value"),
    [
        (["query", "{db}", "$.files"], "DOCQL_QUERY_TIMEOUT", "soon"),
        (["search", "{db}", "anything", "--rerank", "bge"], "DOCQL_RERANK_URL", "nowhere"),
    ],
)
def test_cli_says_a_bad_setting_in_one_line(
    tmp_path: Path, args: list[str], variable: str, value: str
) -> None:
    import docql_sqlite

    db = tmp_path / "i.db"
    (tmp_path / "a.md").write_text("# A\n\nanything here\n", encoding="utf-8")
    docql_sqlite.index(str(db), [str(tmp_path / "a.md")])
    run = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", *(a.format(db=db) for a in args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), variable: value},
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert f"{variable}={value!r} is not" in run.stderr
