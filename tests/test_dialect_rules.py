"""One `Dialect` per engine spells every engine difference (docql_sqlite/dialect/).

Two rules keep it so, read from the source (as tests/test_import_graph.py reads imports):
no code outside the dialect package chooses a spelling by comparing a dialect's `name`
(or by `isinstance` on an engine's class), and no function takes a dialect by default —
a forgotten argument must be an error, not SQLite SQL sent to PostgreSQL. And each
engine's class implements every spelling itself: none is inherited from another engine.
"""

from __future__ import annotations

import ast
from abc import ABCMeta
from pathlib import Path

import pytest

from docql_sqlite import dialect as dialects
from docql_sqlite.dialect import (
    SQLITE,
    SQLITE_CHUNK_TRIGRAMS,
    Dialect,
    SqliteDialect,
)
from docql_sqlite.dialect import postgres as postgres_dialect
from docql_sqlite.dialect.postgres import POSTGRES, PostgresDialect

PACKAGE = Path(__file__).resolve().parent.parent / "docql_sqlite"
DIALECT_PACKAGE = PACKAGE / "dialect"
ENGINES = (SqliteDialect, PostgresDialect)
INSTANCES = {"SQLITE": SQLITE, "SQLITE_CHUNK_TRIGRAMS": SQLITE_CHUNK_TRIGRAMS, "POSTGRES": POSTGRES}
ENGINE_CLASSES = {c.__name__ for c in ENGINES}


def _mentions_dialect(node: ast.AST) -> bool:
    """`node` names a dialect: `dialect`, `self.dialect`, `params.dialect`, `SQLITE`…"""
    if isinstance(node, ast.Name):
        return "dialect" in node.id.lower() or node.id in INSTANCES
    if isinstance(node, ast.Attribute):
        return "dialect" in node.attr.lower() or node.attr in INSTANCES
    return False


def _is_dialect_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "name" and _mentions_dialect(node.value)


def _is_dialect_constant(node: ast.AST | None) -> bool:
    if isinstance(node, ast.Name):
        return node.id in INSTANCES
    return isinstance(node, ast.Attribute) and node.attr in INSTANCES


def violations(source: str, shared_class_attributes: bool = True) -> list[str]:
    """What in `source` chooses a spelling outside the dialect package (line: what)."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(_is_dialect_name(side) for side in [node.left, *node.comparators]):
                found.append(f"{node.lineno}: compares a dialect's name")
        elif isinstance(node, ast.Subscript) and _is_dialect_name(node.slice):
            found.append(f"{node.lineno}: looks a spelling up by a dialect's name")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "isinstance" and len(node.args) == 2:
                kinds = node.args[1]
                names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
                if any(isinstance(n, ast.Name) and n.id in ENGINE_CLASSES for n in names):
                    found.append(f"{node.lineno}: branches on a dialect's class")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            defaults = [*node.args.defaults, *node.args.kw_defaults]
            if any(_is_dialect_constant(d) for d in defaults):
                found.append(f"{node.lineno}: a dialect as a default argument")
        elif isinstance(node, ast.ClassDef) and shared_class_attributes:
            for statement in node.body:
                value = statement.value if isinstance(statement, ast.AnnAssign) else None
                if _is_dialect_constant(value):
                    found.append(f"{statement.lineno}: a dialect as a class attribute's default")
    return found


def test_the_rules_see_what_they_forbid() -> None:
    # A broken walker would find nothing and pass vacuously.
    bad = """
class Engine:
    dialect: Dialect = SQLITE

def compile(q, dialect: Dialect = SQLITE): ...
def run(q, *, dialect=dialects.POSTGRES): ...
if dialect.name == "sqlite": pass
if "postgres" != params.dialect.name: pass
spelled = SPELLINGS[self.dialect.name]
if isinstance(d, (PostgresDialect, int)): pass
"""
    assert [v.split(": ", 1)[0] for v in violations(bad)] == [
        "3",
        "5",
        "6",
        "7",
        "8",
        "9",
        "10",
    ], violations(bad)
    fine = """
key = (item.name, dialect.name)  # a cache key, not a choice
def compile(q, dialect: Dialect): ...
if step.name == "files": pass
true = dialect.TRUE
"""
    assert violations(fine) == []


def _modules_outside_the_dialect_package() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*.py") if DIALECT_PACKAGE not in p.parents and p.is_file()
    )


@pytest.mark.parametrize(
    "path", _modules_outside_the_dialect_package(), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_spelling_is_chosen_outside_the_dialect_package(path: Path) -> None:
    # An engine's own store may name its own dialect as a class attribute (PgEngine's
    # `dialect = POSTGRES`); a shared class may not default to one.
    in_store = (PACKAGE / "store") in path.parents
    found = violations(path.read_text(encoding="utf-8"), shared_class_attributes=not in_store)
    assert found == [], f"{path.relative_to(PACKAGE.parent)}: " + "; ".join(found)


# -- every engine spells everything ---------------------------------------------------------
SPELLINGS = sorted(Dialect.__abstractmethods__)


def test_the_interface_names_every_spelling() -> None:
    # DocQL's, the search statements' and the catalog's: dozens, not a handful.
    assert len(SPELLINGS) > 40
    for name in ("matches", "bm25", "knn", "match_and", "regex", "json_value", "positional"):
        assert name in SPELLINGS
    with pytest.raises(TypeError):
        Dialect()  # type: ignore[abstract]


@pytest.mark.parametrize("engine", ENGINES, ids=lambda c: c.__name__)
def test_every_engine_implements_every_spelling_itself(engine: type[Dialect]) -> None:
    missing = [n for n in SPELLINGS if n not in vars(engine)]
    assert missing == [], f"{engine.__name__} inherits or lacks: {missing}"
    constants = [n for n in Dialect.CONSTANTS if n not in vars(engine)]
    assert constants == [], f"{engine.__name__} does not set: {constants}"


@pytest.mark.parametrize("engine", ENGINES, ids=lambda c: c.__name__)
def test_no_engine_has_a_spelling_the_interface_lacks(engine: type[Dialect]) -> None:
    # A public method on one engine only would be called by shared code and fail on the other.
    public = {n for n, v in vars(engine).items() if callable(v) and not n.startswith("_")}
    assert public - set(dir(Dialect)) == set()


def test_an_engine_that_forgets_a_spelling_cannot_be_made() -> None:
    own = {k: v for k, v in vars(SqliteDialect).items() if not k.startswith("__")}
    for name in SPELLINGS:
        forgetful = ABCMeta("Forgetful", (Dialect,), {k: v for k, v in own.items() if k != name})
        with pytest.raises(TypeError, match=name):
            forgetful()


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_the_instances_are_the_engines(name: str) -> None:
    instance = INSTANCES[name]
    assert isinstance(instance, PostgresDialect if name == "POSTGRES" else SqliteDialect)
    home = dialects if name != "POSTGRES" else postgres_dialect  # the file's start-up skips it
    assert getattr(home, name) is instance
    assert instance.chunk_trigrams == (name == "SQLITE_CHUNK_TRIGRAMS")


@pytest.mark.parametrize("instance", INSTANCES.values(), ids=list(INSTANCES))
def test_the_text_spellings_give_sql_text(instance: Dialect) -> None:
    # Every spelling of one or two SQL expressions answers with SQL text on every engine.
    for name in SPELLINGS:
        method = getattr(instance, name)
        arity = method.__code__.co_argcount - 1
        names = method.__code__.co_varnames[1 : 1 + arity]
        if names and all(
            n in {"expr", "hay", "needle", "a", "b", "literal", "sql", "query"} for n in names
        ):
            spelled = method(*(f"x{i}" for i in range(arity)))
            assert isinstance(spelled, str) and spelled, name
