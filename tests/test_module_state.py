"""No mutable module-level state outside the plugin registry (issue 21).

State kept in a module outlives every index, connection and request that filled it: a
long-running server (MCP, Datasette) grows with it, tests leak into each other through it,
and two indexes opened in one process share what each thinks is its own. `Index` owns the
caches of its index (bounded); the plugin registry (`docql_sqlite/plugins.py`) is the one
process-wide table, since plugins are process-wide by nature. This test reads every module
of the package (AST) and refuses:

1. a `global` statement (rebinding a module name from a function is state by another name);
2. a module-level name bound to a mutable container — a list, dict or set display or
   comprehension, or a call of `list`/`dict`/`set`/`defaultdict`/`OrderedDict`/`Counter`/
   `deque`/a weak dictionary — that any code of the package mutates: `.append`, `.add`,
   `.update`, `.clear`, `.pop`, `.setdefault`, … on it, `NAME[k] = v`, `NAME[k] += v` or
   `del NAME[k]`, in its own module or through `module.NAME` elsewhere. A container built
   once at import and only read afterwards is a constant (a table), and is allowed — though
   a `frozenset`, tuple or `MappingProxyType` says so better;
3. a `functools.cache`, or an `lru_cache` without an explicit integer `maxsize`.

Why a bounded `lru_cache` is allowed: on a *pure* function (the same arguments always give
the same value: a compiled regex for a pattern, a grammar for a language name) it is
memoisation of a value, not state — nothing a caller does can change what a later caller
gets, only how fast — and `maxsize` bounds its memory however many distinct arguments a
long-running server sees (issue 21: `sqlfunctions.py`'s unbounded cache of user regex
patterns grew with every new pattern). An lru_cache on a function that reads a file, the
environment or the clock is not pure and belongs to the `Index` (or `settings`) instead.

`ALLOWED` lists the exceptions: the plugin registry, and the violations in modules whose
owner (another helper of issue 21) fixes them; each entry names that owner.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "docql_sqlite"

MUTABLE_CALLS = {
    "list",
    "dict",
    "set",
    "bytearray",
    "defaultdict",
    "OrderedDict",
    "Counter",
    "deque",
    "ChainMap",
    "WeakValueDictionary",
    "WeakKeyDictionary",
    "WeakSet",
}
MUTATORS = {
    "append",
    "appendleft",
    "extend",
    "extendleft",
    "insert",
    "add",
    "update",
    "clear",
    "pop",
    "popleft",
    "popitem",
    "remove",
    "discard",
    "setdefault",
    "sort",
    "reverse",
    "difference_update",
    "intersection_update",
    "symmetric_difference_update",
    "move_to_end",
    "rotate",
}

# (module, name) → why it is allowed, or which helper of issue 21 fixes it (the owners are
# the lead's to confirm; the `plugins` helper owns none of these files).
ALLOWED: dict[tuple[str, str], str] = {
    ("docql_sqlite.plugins", "pm"): "the plugin registry: process-wide by nature (kept)",
    ("docql_sqlite.deadline", "_local"): (
        "the running call's time limits, per thread (threading.local: a call's state, not the "
        "module's). A ContextVar would follow anyio's worker threads into the event loop's "
        "context and share one stack between threads"
    ),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
TREES = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in MODULES.items()}


@dataclass(frozen=True)
class Finding:
    module: str
    name: str  # the module-level name, `global NAME`, or the cached function
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.what}"


def _callee(node: ast.expr) -> str | None:
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def is_mutable_container(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    return isinstance(value, ast.Call) and _callee(value) in MUTABLE_CALLS


def is_mutable_value(value: ast.expr | None) -> bool:
    """A container, or an object made by a call (its attributes may be state too)."""
    return is_mutable_container(value) or isinstance(value, ast.Call)


def module_containers(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound to a mutable container or an object → line (top-level
    statements, including those under a module-level `if`/`try`)."""
    found: dict[str, int] = {}
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.If, ast.Try)):
            statements.extend(node.body + node.orelse + getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                statements.extend(handler.body)
        elif isinstance(node, ast.Assign) and is_mutable_value(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.lineno
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and is_mutable_value(node.value)
        ):
            found[node.target.id] = node.lineno
    return found


def module_aliases(module: str, tree: ast.Module) -> dict[str, str]:
    """Local names that refer to a module of the package (`from . import formats`,
    `import docql_sqlite.x as y`) → that module."""
    package = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = (package[: len(package) - node.level + 1] if node.level else []) + (
                [node.module] if node.module else []
            )
            for alias in node.names:
                target = ".".join([*base, alias.name])
                if target in MODULES:
                    aliases[alias.asname or alias.name] = target
    return aliases


def mutated_target(node: ast.AST) -> ast.expr | None:
    """The container expression `node` mutates, if it is a mutation."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MUTATORS
    ):
        return node.func.value
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        for target in targets:
            if isinstance(target, (ast.Subscript, ast.Attribute)):
                return target.value
    return None


def root_chain(target: ast.expr | None) -> list[str]:
    """`a.b[k].c` → ["a", "b", "c"]: the names from the root of what is mutated."""
    names: list[str] = []
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        if isinstance(target, ast.Attribute):
            names.insert(0, target.attr)
        target = target.value
    return [target.id, *names] if isinstance(target, ast.Name) else []


def mutations(trees: dict[str, ast.Module]) -> set[tuple[str, str]]:
    """(module, NAME) of every module-level name some code of the package mutates:
    `NAME.add(x)`, `NAME[k] = v`, and also what NAME holds: `NAME[k].append(x)`,
    `NAME.attr = v`, `NAME.attr.clear()`; through `module.NAME...` from other modules."""
    found: set[tuple[str, str]] = set()
    for module, tree in trees.items():
        aliases = module_aliases(module, tree)
        for node in in_functions(tree):
            chain = root_chain(mutated_target(node)) or _bare_name(mutated_target(node))
            if chain and chain[0] in aliases and len(chain) > 1:
                found.add((aliases[chain[0]], chain[1]))
            elif chain:
                found.add((module, chain[0]))
    return found


def in_functions(tree: ast.Module) -> set[ast.AST]:
    """The nodes inside function bodies: what runs after import. A table filled by a loop
    at module level is built once, at import, and is a constant afterwards."""
    return {
        inner
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for inner in ast.walk(node)
    }


def _bare_name(target: ast.expr | None) -> list[str]:
    return [target.id] if isinstance(target, ast.Name) else []


def unbounded_cache(decorator: ast.expr) -> str | None:
    """Why `decorator` is an unbounded functools cache, or None."""
    name = decorator.attr if isinstance(decorator, ast.Attribute) else None
    name = decorator.id if isinstance(decorator, ast.Name) else name
    if name == "cache":
        return "functools.cache is unbounded: use lru_cache(maxsize=N)"
    if name == "lru_cache":
        return "lru_cache needs an explicit maxsize=N"
    if not isinstance(decorator, ast.Call) or _callee(decorator) != "lru_cache":
        return None
    size = decorator.args[0] if decorator.args else None
    for keyword in decorator.keywords:
        if keyword.arg == "maxsize":
            size = keyword.value
    if isinstance(size, ast.Constant) and type(size.value) is int and size.value > 0:
        return None
    return "lru_cache needs maxsize= a positive int (None is unbounded)"


def findings(trees: dict[str, ast.Module]) -> list[Finding]:
    found: list[Finding] = []
    mutated = mutations(trees)
    for module, tree in trees.items():
        for name, line in module_containers(tree).items():
            if (module, name) in mutated:
                found.append(Finding(module, name, line, f"module-level {name} is mutated"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                for name in node.names:
                    found.append(Finding(module, name, node.lineno, f"global {name}"))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in node.decorator_list:
                    why = unbounded_cache(decorator)
                    if why:
                        found.append(Finding(module, node.name, node.lineno, why))
    return found


FINDINGS = findings(TREES)


def test_no_mutable_module_state_outside_the_allowed() -> None:
    unexpected = [f for f in FINDINGS if (f.module, f.name) not in ALLOWED]
    assert unexpected == [], "module-level state:\n" + "\n".join(map(str, unexpected))


@pytest.mark.parametrize("entry", sorted(ALLOWED), ids="{0[0]}:{0[1]}".format)
def test_every_allowance_is_still_needed(entry: tuple[str, str]) -> None:
    # A fixed violation must leave the list, so the list says what is left to do.
    assert any((f.module, f.name) == entry for f in FINDINGS), f"{entry} is fixed: remove it"


# -- the checker finds what it should (a broken walker would pass vacuously) ----------------
CASES = [
    ("CACHE = {}\ndef f(k):\n    CACHE[k] = 1\n", ["module-level CACHE is mutated"]),
    ("SEEN = set()\ndef f(k):\n    SEEN.add(k)\n", ["module-level SEEN is mutated"]),
    ("Q: list[int] = []\ndef f():\n    del Q[0]\n", ["module-level Q is mutated"]),
    (
        "import collections\nD = collections.defaultdict(list)\ndef f():\n    D[1].append(1)\n",
        ["module-level D is mutated"],
    ),
    ("D = dict(a=1)\ndef f():\n    D.update(b=2)\n", ["module-level D is mutated"]),
    ("TABLE = {'a': 1}\ndef f(k):\n    return TABLE[k]\n", []),  # read only: a constant
    ("TABLE = {}\nfor k in 'ab':\n    TABLE[k] = 1\n", []),  # built at import: a constant
    ("S = State()\ndef f():\n    S.count += 1\n", ["module-level S is mutated"]),
    ("S = State()\ndef f():\n    S.seen.add(1)\n", ["module-level S is mutated"]),
    ("LOCK = Lock()\ndef f():\n    with LOCK:\n        pass\n", []),
    ("class C:\n    def f(self):\n        self.items.append(1)\n", []),
    ("def f():\n    local = []\n    local.append(1)\n", []),
    ("n = 0\ndef f():\n    global n\n    n += 1\n", ["global n"]),
    ("from functools import cache\n@cache\ndef f(x): return x\n", ["functools.cache"]),
    ("import functools\n@functools.lru_cache\ndef f(x): return x\n", ["explicit maxsize"]),
    ("import functools\n@functools.lru_cache(maxsize=None)\ndef f(x): ...\n", ["None is"]),
    ("from functools import lru_cache\n@lru_cache(maxsize=64)\ndef f(x): ...\n", []),
    ("from functools import lru_cache\n@lru_cache(256)\ndef f(x): ...\n", []),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_the_checker(source: str, expected: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(MODULES, "docql_sqlite.example", PACKAGE / "example.py")
    found = [f.what for f in findings({"docql_sqlite.example": ast.parse(source)})]
    assert len(found) == len(expected) and all(
        want in got for want, got in zip(expected, found, strict=True)
    ), found


def test_the_checker_follows_module_attributes(monkeypatch: pytest.MonkeyPatch) -> None:
    # `formats.PARSERS.clear()` in another module mutates formats' PARSERS.
    monkeypatch.setitem(MODULES, "docql_sqlite.reg", PACKAGE / "reg.py")
    monkeypatch.setitem(MODULES, "docql_sqlite.user", PACKAGE / "user.py")
    trees = {
        "docql_sqlite.reg": ast.parse("TABLE = {}\n"),
        "docql_sqlite.user": ast.parse("from . import reg\ndef f():\n    reg.TABLE['x'] = 1\n"),
    }
    assert [str(f) for f in findings(trees)] == [
        "docql_sqlite.reg:1: module-level TABLE is mutated"
    ]
