"""The package's import graph: no cycles, and apsw imported by `db.py` alone.

Every import counts, including those inside functions (a lazy import only hides a cycle
until the function runs); imports under `if TYPE_CHECKING:` do not, since they never run.
`from . import db` is an edge to the module `docql_sqlite.store.sqlite.db`, not to the package.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "docql_sqlite"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """ids of nodes inside `if TYPE_CHECKING:` blocks."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for child in node.body:
                    skipped.update(id(n) for n in ast.walk(child))
    return skipped


def imports_of(module: str) -> set[str]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_blocks(tree)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "docql_sqlite")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "docql_sqlite":
                continue
            submodules = {f"{target}.{a.name}" for a in node.names} & MODULES.keys()
            found.update(submodules)
            if len(submodules) < len(node.names):  # names taken from the module itself
                found.add(target)
    return {m for m in found if m in MODULES and m != module}


GRAPH = {m: imports_of(m) for m in MODULES}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_graph_is_read() -> None:
    # A broken walker would find no edges and pass the cycle test vacuously.
    assert "docql_sqlite.store.sqlite.db" in GRAPH["docql_sqlite.index"]
    assert len(MODULES) > 40
    assert sum(len(v) for v in GRAPH.values()) > 100


def test_finder_sees_a_cycle() -> None:
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    cycles = find_cycles(GRAPH)
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_only_db_imports_apsw(module: str) -> None:
    if module == "docql_sqlite.store.sqlite.db":
        return
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    skipped = _type_checking_blocks(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        assert not any(n.split(".")[0] == "apsw" for n in names), f"{module} imports apsw"
        if not module.startswith("docql_sqlite.store.postgres"):  # the PostgreSQL engine alone
            assert not any(n.split(".")[0] == "psycopg" for n in names), f"{module} imports psycopg"


# -- where SQL text may live (docs/design.md §2) -------------------------------------------
SQL_HOMES = (
    "docql_sqlite.dialect",  # how each engine spells SQL
    "docql_sqlite.store",  # the engines: driver glue, migrations, meta, their readers and writers
    "docql_sqlite.dbapi",  # the same for sqlite3/pysqlite3 connections
    "docql_sqlite.query",  # the DocQL compiler and the read-side catalog
    "docql_sqlite.search",  # the search SQL builder and its channel queries
    "docql_sqlite.ingest.resolve",  # the resolution pass (issue 23): the same SQL on both engines
)
SQL_TEXT = re.compile(
    r"\b(SELECT\b[\s\S]*\bFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(TABLE|VIEW|INDEX|VIRTUAL)|DROP\s+(TABLE|VIEW|INDEX)|PRAGMA\s+\w+)"
)


def _is_sql_home(module: str) -> bool:
    return any(module == home or module.startswith(home + ".") for home in SQL_HOMES)


def sql_strings(module: str) -> list[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and SQL_TEXT.search(node.value)
    ]


def test_the_sql_finder_finds_sql() -> None:
    assert sql_strings("docql_sqlite.query.catalog")
    assert sql_strings("docql_sqlite.store.sqlite.writer")


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not _is_sql_home(m)))
def test_sql_text_lives_only_in_its_homes(module: str) -> None:
    assert sql_strings(module) == [], f"SQL text in {module}; move it to one of {SQL_HOMES}"
