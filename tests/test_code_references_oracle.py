"""References against an oracle: Python's own `ast` on 40 CPython standard-library files.

For every function defined exactly once in the sample, the call sites `$.code.callers`
finds must be the calls `ast` sees (a call of the name, directly or as an attribute:
`f(...)`, `x.f(...)`; and a call of a name an import renamed, `g(...)` after `from m
import f as g`, when `m` is the sample's file that defines `f`), at the identifier's line
and column; `$.code.imports` must be
`ast`'s `Import`/`ImportFrom` nodes. Precision and recall are printed (`-s`) and held
to 1.00 / ≥ 0.98 (issue 23).
"""

from __future__ import annotations

import ast
import shutil
import sysconfig
from collections import Counter
from pathlib import Path

import pytest

import docql_sqlite

SAMPLE = 40


def _sample() -> list[Path]:
    """40 modules of the running interpreter's standard library, spread over the
    alphabet, of moderate size (the suite stays fast)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.glob("*.py") if 4_000 <= p.stat().st_size <= 60_000)
    if len(files) < SAMPLE:
        pytest.skip("the standard library is not available as source here")
    step = len(files) / SAMPLE
    return [files[int(i * step)] for i in range(SAMPLE)]


def _char_column(line: bytes, byte_offset: int) -> int:
    return len(line[:byte_offset].decode("utf-8", "replace")) + 1


class Oracle:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.defined: Counter[str] = Counter()
        self.calls: dict[str, set[tuple[str, int, int]]] = {}
        self.imports: set[tuple[str, int, str, tuple[str, ...], str | None]] = set()
        trees = {path: ast.parse(data) for path, data in files.items()}
        # The functions each module of the sample defines (by its file's stem).
        defines = {
            path.rsplit("/", 1)[-1].removesuffix(".py"): {
                n.name
                for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            for path, tree in trees.items()
        }
        for path, data in files.items():
            lines = data.split(b"\n")
            tree = trees[path]
            # `from m import f as g` with `m` a module of the sample defining `f`: a call
            # of `g` is a call of `f`.
            renamed_calls = {
                a.asname: a.name
                for n in ast.walk(tree)
                if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module in defines
                for a in n.names
                if a.asname is not None and a.name in defines[n.module]
            }
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.defined[node.name] += 1
                elif isinstance(node, ast.Call):
                    func = node.func
                    if isinstance(func, ast.Name):
                        name, line, col = func.id, func.lineno, func.col_offset
                        name = renamed_calls.get(name, name)
                    elif isinstance(func, ast.Attribute):
                        assert func.end_lineno is not None and func.end_col_offset is not None
                        name, line = func.attr, func.end_lineno
                        col = func.end_col_offset - len(func.attr.encode())
                    else:
                        continue
                    site = (path, line, _char_column(lines[line - 1], col))
                    self.calls.setdefault(name, set()).add(site)
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        self.imports.add((path, node.lineno, alias.name, (), alias.asname))
                elif isinstance(node, ast.ImportFrom):
                    # the names imported as they are in one row, each renamed one
                    # (`from a import b as c`) in a row of its own with its alias
                    module = "." * node.level + (node.module or "")
                    plain = tuple(a.name for a in node.names if a.asname is None)
                    renamed = [a for a in node.names if a.asname is not None]
                    if plain or not renamed:
                        self.imports.add((path, node.lineno, module, plain, None))
                    for a in renamed:
                        self.imports.add((path, node.lineno, module, (a.name,), a.asname))

    def defined_once(self) -> list[str]:
        return sorted(name for name, n in self.defined.items() if n == 1)


@pytest.fixture(scope="module")
def stdlib_index(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Oracle]:
    root = tmp_path_factory.mktemp("stdlib")
    files: dict[str, bytes] = {}
    for source in _sample():
        shutil.copyfile(source, root / source.name)
        files[source.name] = source.read_bytes()
    db = root.parent / "stdlib.db"
    docql_sqlite.index(db, [str(root)])
    with docql_sqlite.open(db) as index:
        paths = {item["path"] for item in index.query("$.files")}
    prefix = next(iter(paths)).rsplit("/", 1)[0] + "/" if "/" in next(iter(paths)) else ""
    return db, Oracle({prefix + name: data for name, data in files.items()})


def _score(found: set, expected: set) -> tuple[int, int, int]:
    return len(found & expected), len(found), len(expected)


def test_callers_match_the_ast_calls_of_every_function_defined_once(stdlib_index) -> None:
    db, oracle = stdlib_index
    names = oracle.defined_once()
    assert len(names) > 500  # the sample is big enough to mean something
    true_positive = found_total = expected_total = 0
    misses: list[tuple[str, object]] = []
    with docql_sqlite.open(db) as index:
        for name in names:
            found = {
                (r["path"], r["line"], r["column"])
                for r in index.query(f'$.code.callers("{name}")')
            }
            expected = oracle.calls.get(name, set())
            tp, nf, ne = _score(found, expected)
            true_positive, found_total, expected_total = (
                true_positive + tp,
                found_total + nf,
                expected_total + ne,
            )
            if found != expected:
                misses.append((name, sorted(found ^ expected)[:3]))
    precision = true_positive / found_total if found_total else 1.0
    recall = true_positive / expected_total if expected_total else 1.0
    print(
        f"\ncallers vs ast on {SAMPLE} stdlib files, {len(names)} functions defined once: "
        f"{expected_total} call sites, precision {precision:.4f}, recall {recall:.4f}"
    )
    assert precision == 1.0, misses[:5]
    assert recall >= 0.98, misses[:5]


def test_imports_match_the_ast_import_nodes(stdlib_index) -> None:
    db, oracle = stdlib_index
    with docql_sqlite.open(db) as index:
        found = {
            (m["path"], m["line"], m["module"], tuple(m["names"]), m["alias"])
            for m in index.query("$.code.imports")
        }
    tp, nf, ne = _score(found, oracle.imports)
    print(f"\nimports vs ast: {ne} imports, precision {tp / nf:.4f}, recall {tp / ne:.4f}")
    assert found == oracle.imports, sorted(found ^ oracle.imports)[:5]
