"""The package's import graph: no cycles; the drivers imported by their store alone (apsw
by `store/sqlite`, psycopg by `store/postgres`); the layers of docs/design.md and
/work/wt/STORE.md pointing down (search and ingest never reach `Index`, search reads a
`Store` without knowing its engine, the store imports nothing above it).

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
    assert "docql_sqlite.store" in GRAPH["docql_sqlite.index"]
    assert "docql_sqlite.store.sqlite.db" in GRAPH["docql_sqlite.store.sqlite.engine"]
    assert len(MODULES) > 40
    assert sum(len(v) for v in GRAPH.values()) > 100


def test_finder_sees_a_cycle() -> None:
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    cycles = find_cycles(GRAPH)
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def _driver_imports(module: str) -> set[str]:
    """The top-level names of the third-party drivers `module` imports at run time."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    skipped = _type_checking_blocks(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.add((node.module or "").split(".")[0])
    return found & {"apsw", "psycopg"}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_only_the_stores_import_their_drivers(module: str) -> None:
    drivers = _driver_imports(module)
    if not _within(module, "docql_sqlite.store.sqlite"):
        assert "apsw" not in drivers, f"{module} imports apsw (only docql_sqlite.store.sqlite may)"
    if not _within(module, "docql_sqlite.store.postgres"):
        assert "psycopg" not in drivers, (
            f"{module} imports psycopg (only docql_sqlite.store.postgres may)"
        )


def test_the_driver_finder_finds_drivers() -> None:
    assert _driver_imports("docql_sqlite.store.sqlite.db") == {"apsw"}
    assert _driver_imports("docql_sqlite.store.postgres.engine") == {"psycopg"}


def reachable(module: str) -> set[str]:
    """Every module `module` imports, directly or through others (lazy imports included)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for found in GRAPH[todo.pop()]:
            if found not in seen:
                seen.add(found)
                todo.append(found)
    return seen


LAYERED = sorted(
    m for m in MODULES if _within(m, "docql_sqlite.search") or _within(m, "docql_sqlite.ingest")
)


@pytest.mark.parametrize("module", LAYERED)
def test_search_and_ingest_never_reach_the_index(module: str) -> None:
    assert "docql_sqlite.index" not in reachable(module), f"{module} reaches docql_sqlite.index"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _within(m, "docql_sqlite.search")))
def test_search_reads_a_store_not_an_engine(module: str) -> None:
    engines = {
        m
        for m in GRAPH[module]
        if _within(m, "docql_sqlite.store.sqlite") or _within(m, "docql_sqlite.store.postgres")
    }
    assert engines == set(), f"{module} imports {engines}: search reads `docql_sqlite.store`"


# What the store may not import: the layers above it.
ABOVE_THE_STORE = ("docql_sqlite.query.compiler", "docql_sqlite.search", "docql_sqlite.ingest")


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _within(m, "docql_sqlite.store")))
def test_the_store_imports_nothing_above_it(module: str) -> None:
    above = {
        m
        for m in GRAPH[module]
        if m == "docql_sqlite.index" or any(_within(m, layer) for layer in ABOVE_THE_STORE)
    }
    assert above == set(), f"{module} imports {above}, a layer above the store"


def test_the_layer_checks_see_violations() -> None:
    # The checks read real edges: the Index does import search, the store's engines.
    assert any(_within(m, "docql_sqlite.search") for m in reachable("docql_sqlite.index"))
    assert "docql_sqlite.store.sqlite.engine" in GRAPH["docql_sqlite.store"]
    assert "docql_sqlite.store" in GRAPH["docql_sqlite.search.parallel"]


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


# -- the layers (docs/design.md §2, "The layers"): every import points down or sideways ------
CLIENTS = ("cli", "agent", "datasette_plugin", "sqlite_utils_plugin", "__main__")
# The one writer's driving modules; the rest of ingest/ is the parse side (layer "parts").
WRITER = ("ingest", "ingest.run", "ingest.embed", "ingest.resolve", "ingest.watch")
WRITER += ("ingest.workers", "ingest.walk", "ingest.child")
PARTS = ("query", "embedders", "rerankers", "default_plugins", "plugins", "hookspecs", "ingest")
LAYER_NAMES = ("base", "store", "parts", "work", "front door", "clients")


def layer_of(module: str) -> int:
    """0 base · 1 store · 2 parts (the compiler, embedders, rerankers, parsers, plugins) ·
    3 work (search, the writer, the repository map) · 4 the front door · 5 clients (and the
    package root, which re-exports the front door)."""
    name = module.removeprefix("docql_sqlite").lstrip(".")
    top = name.split(".")[0]
    if name == "" or top in CLIENTS:
        return 5
    if top in ("index", "tvf"):
        return 4
    if top in ("search", "repomap") or name in WRITER:
        return 3
    if top in PARTS:
        return 2
    if top in ("store", "dbapi"):  # dbapi: the SQLite glue of sqlite3 connections
        return 1
    return 0


def upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{m} ({LAYER_NAMES[layer_of(m)]}) imports {d} ({LAYER_NAMES[layer_of(d)]})"
        for m, deps in graph.items()
        for d in deps
        if layer_of(d) > layer_of(m)
    )


def test_layers_point_down() -> None:
    assert upward(GRAPH) == []


def test_the_layer_rule_sees_an_upward_import() -> None:
    planted = {"docql_sqlite.store.sqlite.engine": {"docql_sqlite.search.smart"}}
    assert upward(planted) == [
        "docql_sqlite.store.sqlite.engine (store) imports docql_sqlite.search.smart (work)"
    ]
    assert [layer_of(m) for m in ("docql_sqlite.errors", "docql_sqlite.ingest.markdown")] == [0, 2]
    assert layer_of("docql_sqlite.ingest.run") == 3 and layer_of("docql_sqlite.cli.fastpath") == 5


def test_search_and_ingest_never_import_each_other() -> None:
    crossing = sorted(
        (m, d)
        for m, deps in GRAPH.items()
        for d in deps
        if (_within(m, "docql_sqlite.search") and _within(d, "docql_sqlite.ingest"))
        or (_within(m, "docql_sqlite.ingest") and _within(d, "docql_sqlite.search"))
    )
    assert crossing == []
