"""The repository map (issue 23): central symbols first, the budget never exceeded and
filled to within one entry, a focus that moves the map, and the CLI command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import docql_sqlite
from docql_sqlite.errors import UsageError
from docql_sqlite.repomap import compact_signature, count_tokens

CLI = Path(sys.executable).with_name("docql-sqlite")

CORE = """class Engine:
    def run(self, job):
        return job.execute()


def make_engine():
    return Engine()
"""
JOBS = """from core import Engine, make_engine


class Job:
    def execute(self):
        return 1


def first():
    return make_engine().run(Job())


def second():
    return make_engine().run(Job())


def lonely_helper():
    return 0
"""


def _index_in(root: Path, roots: list[str], name: str = "index.db") -> Path:
    """Index `roots` from inside `root` (paths are shown relative to the directory the
    index runs in) into `root / name`."""
    db = root / name
    here = os.getcwd()
    os.chdir(root)
    try:
        docql_sqlite.index(db, roots)
    finally:
        os.chdir(here)
    return db


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("proj")
    (root / "src").mkdir()
    (root / "src" / "core.py").write_text(CORE)
    (root / "src" / "jobs.py").write_text(JOBS)
    db = _index_in(root, ["src"], "proj.db")
    return db


def test_the_most_used_symbols_come_first(project: Path) -> None:
    with docql_sqlite.open(project) as index:
        result = index.repo_map(budget=1000)
    ranked = sorted(result["symbols"], key=lambda s: -s["rank"])
    names = [s["qualified_name"] for s in ranked]
    # used twice each (and Engine through its method): above what nothing uses
    assert {"make_engine", "Engine", "Job"} <= set(names[:5])
    assert set(names[-3:]) == {"lonely_helper", "first", "second"}
    assert result["left_out"] == 0 and result["tokens"] == count_tokens(result["text"])


@pytest.mark.parametrize("budget", [1, 5, 9, 14, 23, 40, 77])
def test_the_map_fits_its_budget_and_fills_it(project: Path, budget: int) -> None:
    with docql_sqlite.open(project) as index:
        result = index.repo_map(budget=budget)
        everything = index.repo_map(budget=10_000)
    assert count_tokens(result["text"]) == result["tokens"] <= budget
    # Nothing left out would have fitted: each missing entry costs more than what is left.
    shown = {(s["path"], s["line"]) for s in result["symbols"]}
    files = set(result["files"])
    for s in everything["symbols"]:
        if (s["path"], s["line"]) in shown:
            continue
        cost = count_tokens(f"  {s['line']}: {s['signature']}")
        cost += 0 if s["path"] in files else count_tokens(f"{s['path']}:")
        assert result["tokens"] + cost > budget, s


def test_a_focus_puts_its_neighbourhood_first(project: Path) -> None:
    with docql_sqlite.open(project) as index:
        plain = index.repo_map(budget=1000)
        focused = index.repo_map(budget=1000, focus="lonely_helper")
        by_file = index.repo_map(budget=1000, focus="core.py")
    rank = {s["qualified_name"]: s["rank"] for s in focused["symbols"]}
    assert max(rank, key=rank.__getitem__) == "lonely_helper"
    plain_rank = {s["qualified_name"]: s["rank"] for s in plain["symbols"]}
    assert rank["lonely_helper"] > plain_rank["lonely_helper"]
    top = max(by_file["symbols"], key=lambda s: s["rank"])
    assert top["path"].endswith("core.py")


def test_bad_requests_are_one_line_errors(project: Path) -> None:
    with docql_sqlite.open(project) as index:
        with pytest.raises(UsageError, match="names no symbol and no file"):
            index.repo_map(focus="nope")
        with pytest.raises(UsageError, match="budget"):
            index.repo_map(budget=0)
        empty = index.repo_map(["docs"])
    assert empty["text"] == "" and empty["tokens"] == 0
    assert empty["note"] == "no code symbols under docs in this index: index source files first"


def test_the_cli_prints_the_map(project: Path) -> None:
    done = subprocess.run(
        [str(CLI), "map", str(project), "--budget", "30", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    [result] = json.loads(done.stdout)
    assert result["tokens"] <= 30 and result["text"].startswith("src/")
    text = subprocess.run(
        [str(CLI), "map", str(project), "src/core.py", "--text"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert text.splitlines()[0] == "src/core.py:" and "jobs.py" not in text
    bad = subprocess.run(
        [str(CLI), "map", str(project), "--focus", "nope"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


API = '''def entry(x):
    """Run the pipeline on x: the package's entry point."""
    return _stage3(_stage2(_stage1(x)))


def _stage1(x):
    return _util(x)


def _stage2(x):
    return _util(_norm(x))


def _stage3(x):
    return _norm(_util(x))


def _util(x):
    return _norm(x)


def _norm(x):
    return x
'''
APP = """from pkg.api import entry


def main():
    return entry(1) + entry(2) + entry(3)


def other():
    return entry(4)
"""
API_TEST = """from pkg.api import _norm


def test_norm():
    assert _norm(_norm(1)) == 1
"""


def test_an_entry_point_used_only_from_outside_the_mapped_paths_ranks_high(
    tmp_path: Path,
) -> None:
    """Nothing in `pkg/` calls `entry`: the rest of the index does (a file outside the
    map's paths is a node of its own that votes), and it is public, top-level and
    documented (the restarts' prior). Test code votes but is shown last."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "pkg" / "api.py").write_text(API)
    (tmp_path / "pkg" / "test_api.py").write_text(API_TEST)
    (tmp_path / "app" / "main.py").write_text(APP)
    db = _index_in(tmp_path, ["pkg", "app"])
    with docql_sqlite.open(db) as index:
        result = index.repo_map(["pkg"], budget=1000)
    names = [s["qualified_name"] for s in sorted(result["symbols"], key=lambda s: -s["rank"])]
    # First: above `_norm`, which everything in `pkg` ends in, since a definition's own
    # file barely votes for it (`_norm` had the first place while same-file calls counted
    # in full); last without the votes from outside.
    assert names[0] == "entry", names
    # The test votes for `_norm` but is listed after it: a map lists the code first.
    assert names.index("test_norm") > names.index("_norm"), names
    assert "main" not in names  # outside the paths: it votes, it is not shown


# A package `web` with a function `Get` and a method `Header.Get`, another package `cache`
# with its own function `Get`, a private type whose method `len` shares its name with the
# builtin, and a program outside the mapped paths that imports both packages.
WEB_CLIENT = """package web

// Get fetches a URL.
func Get(url string) string {
	return url
}

// Header holds the fields of a message.
type Header map[string]string

// Get returns the value of a field.
func (h Header) Get(key string) string {
	return h[key]
}
"""
WEB_POOL = """package web

type pool struct{ items []string }

func (p *pool) len() int { return 0 }

type queue struct{ items []string }

func (q *queue) len() int { return 0 }

// Count counts the items of a list.
func Count(items []string) int { return len(items) }

// Size is the size of a list.
func Size(items []string) int { return len(items) + len(items) }

// Total is the total size of two lists.
func Total(a, b []string) int { return len(a) + len(b) }
"""
CACHE = """package cache

// Get reads a cached value.
func Get(url string) string {
	return url
}
"""
MAIN_GO = """package main

import (
	"example.com/cache"
	"example.com/web"
)

func first(h web.Header) string {
	return web.Get("a") + web.Get("b") + h.Get("k")
}

func second() string {
	return web.Get("c")
}

func third() string {
	return web.Get("d") + web.Get("e")
}
"""


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gopkgs")
    for path, text in {
        "web/client.go": WEB_CLIENT,
        "web/pool.go": WEB_POOL,
        "cache/cache.go": CACHE,
        "cmd/main.go": MAIN_GO,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    db = _index_in(root, ["web", "cache", "cmd"])
    return db


def _ranks(db: Path, paths: list[str]) -> dict[str, float]:
    with docql_sqlite.open(db) as index:
        result = index.repo_map(paths, budget=10_000)
    # `package:qualified name` (two packages define `Get`)
    symbols = result["symbols"]
    return {f"{s['path'].split('/')[0]}:{s['qualified_name']}": s["rank"] for s in symbols}


def test_a_qualified_use_means_the_module_it_names(packages: Path) -> None:
    """`web.Get(u)` is stored as an ambiguous `Get` (three definitions); the map reads its
    qualifier: `web` is the package the file imports, so the vote is `web`'s `Get`, not
    `cache`'s (the file imports both), nor the method `Header.Get`. Without the qualifier
    the two functions `Get`, alike in every other way, would rank alike."""
    rank = _ranks(packages, ["web", "cache"])
    assert rank["web:Get"] > 2 * rank["cache:Get"], rank
    assert rank["web:Get"] > 2 * rank["web:Header.Get"], rank


def test_a_bare_call_is_no_method_of_another_file(packages: Path) -> None:
    """`len(items)` (Go's builtin) is an ambiguous `len`: two methods of that name exist.
    A bare name cannot call a method of a class in another file, so those calls are no
    votes for `pool.len`/`queue.len`, which nothing calls: they rank below the functions
    that make the calls (with the calls counted, `pool.len` ranked first)."""
    rank = _ranks(packages, ["web"])
    methods = max(rank["web:pool.len"], rank["web:queue.len"])
    assert methods < min(rank["web:Count"], rank["web:Size"], rank["web:Total"]), rank


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    from pg_server import start_server

    yield from start_server()


def test_postgresql_gives_the_same_map(packages: Path, pg_server: Any) -> None:
    """The rank reads references, imports and the lines in front of ambiguous uses with
    portable SQL: the same index copied into PostgreSQL gives the same map."""
    from pg_server import fresh_database

    url = fresh_database(pg_server)
    docql_sqlite.copy(str(packages), url)
    maps = []
    for where in (str(packages), url):
        with docql_sqlite.open(where) as index:
            maps.append(index.repo_map(["web", "cache"], budget=10_000))
    on_file, on_postgres = maps
    assert on_postgres["text"] == on_file["text"]
    assert [s["rank"] for s in on_postgres["symbols"]] == pytest.approx(
        [s["rank"] for s in on_file["symbols"]], rel=1e-6
    )


def test_a_file_of_the_map_without_symbols_is_no_outside_user(tmp_path: Path) -> None:
    """`boot.py` defines nothing (top-level code only) but lies in the mapped tree: it is
    one file of the map among others, not code from outside that uses it. (Counted as
    an outside user it held half of the restarts, and the `Rare` it builds came first:
    rxjs' `asyncScheduler = new AsyncScheduler(...)` files put the schedulers above
    `Observable`.)"""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "core.py").write_text(
        'class Popular:\n    """Used everywhere."""\n\n\n'
        'class Rare:\n    """Built once, at start."""\n'
    )
    for name in ("a", "b", "c"):
        (lib / f"{name}.py").write_text(
            f"from core import Popular\n\n\ndef use_{name}():\n    return Popular()\n"
        )
    (lib / "boot.py").write_text("from core import Rare\n\nINSTANCE = Rare()\n")
    db = _index_in(tmp_path, ["lib"])
    for paths in ([], ["lib"]):
        rank = {s["qualified_name"]: s["rank"] for s in _map_symbols(db, paths)}
        assert rank["Popular"] > rank["Rare"], (paths, rank)


def _map_symbols(db: Path, paths: list[str]) -> list[dict[str, Any]]:
    with docql_sqlite.open(db) as index:
        return list(index.repo_map(paths, budget=10_000)["symbols"])


def test_a_method_of_an_unexported_type_is_not_public(tmp_path: Path) -> None:
    """Go: `Len` is a capitalised name, but on the unexported `pool` it is no part of the
    package's API (`fakeLocker.Unlock` in net/http). The two types differ only in that."""
    (tmp_path / "box").mkdir()
    (tmp_path / "box" / "box.go").write_text(
        "package box\n\n// Stack is a stack.\ntype Stack struct{}\n\n"
        "// Len is its size.\nfunc (s Stack) Len() int { return 0 }\n\n"
        "// pool is a pool.\ntype pool struct{}\n\n"
        "// Len is its size.\nfunc (p pool) Len() int { return 0 }\n"
    )
    db = _index_in(tmp_path, ["box"])
    rank = {s["qualified_name"]: s["rank"] for s in _map_symbols(db, [])}
    assert rank["Stack.Len"] > 2 * rank["pool.Len"], rank


def test_examples_vote_and_are_listed_after_the_code(tmp_path: Path) -> None:
    """An `examples/` program uses the library's API like a test does: its uses count in
    full (`entry` above the unused `other`), and it is listed after the library's code,
    documented and public though it is."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "examples").mkdir()
    (tmp_path / "lib" / "api.py").write_text(
        'def entry():\n    """The entry point."""\n    return 1\n\n\n'
        'def other():\n    """Another function."""\n    return 2\n'
    )
    (tmp_path / "examples" / "demo.py").write_text(
        "from lib.api import entry\n\n\n"
        'def demo():\n    """Show the entry point."""\n    return entry() + entry()\n'
    )
    db = _index_in(tmp_path, ["lib", "examples"])
    rank = {s["qualified_name"]: s["rank"] for s in _map_symbols(db, [])}
    assert rank["entry"] > rank["other"] > rank["demo"], rank


def test_code_that_serves_tests_is_listed_after_the_code(tmp_path: Path) -> None:
    """SQLAlchemy's `testing/` package (`combinations`, `fixture`, `TestBase`), which
    thousands of its tests use, came first in the map of its sdist, before `Session` and
    `select`: code under a `testing/` folder (or a `conftest.py`) is listed after the
    library's code, as tests are, though its uses still count."""
    (tmp_path / "lib" / "testing").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "lib" / "core.py").write_text(
        'class Session:\n    """A unit of work."""\n\n    def add(self, x):\n        return x\n'
    )
    (tmp_path / "lib" / "testing" / "fixtures.py").write_text(
        'def fixture(fn):\n    """Mark a test fixture."""\n    return fn\n'
    )
    for i in range(8):  # every test uses the fixture three times, two the Session
        (tmp_path / "tests" / f"test_{i}.py").write_text(
            "from lib.core import Session\nfrom lib.testing.fixtures import fixture\n\n\n"
            "@fixture\n@fixture\n@fixture\n"
            f"def test_{i}():\n    return {'Session().add(1)' if i < 2 else i}\n"
        )
    db = _index_in(tmp_path, ["lib", "tests"])
    rank = {s["qualified_name"]: s["rank"] for s in _map_symbols(db, [])}
    # (more used than `Session.add`, which two tests call: listed after it all the same)
    assert rank["Session"] > rank["Session.add"] > rank["fixture"] > rank["test_0"], rank


TWO_FUNCTIONS = (
    "/** Run. */\nfunction api() { return 1; }\n\n/** Help. */\nfunction helper() { return 2; }\n\n"
)
DECLARED_API = [
    # (file, text, a name the file declares as its API, one it does not)
    (
        "m.py",
        '__all__ = ["api"]\n\n\ndef api():\n    """Run."""\n\n\ndef helper():\n    """Help."""\n',
        "api",
        "helper",
    ),
    (
        "lib.ts",
        "/** Run. */\nexport function api(): number { return 1; }\n\n"
        "/** Help. */\nfunction helper(): number { return 2; }\n",
        "api",
        "helper",
    ),
    (
        "listed.ts",
        TWO_FUNCTIONS + "export { api as run };\n",
        "api",
        "helper",
    ),
    (
        "server.js",
        TWO_FUNCTIONS + "module.exports = { run: api };\n",
        "api",
        "helper",
    ),
]


@pytest.mark.parametrize(("name", "text", "public", "private"), DECLARED_API)
def test_a_module_that_declares_its_api_makes_the_rest_private(
    tmp_path: Path, name: str, text: str, public: str, private: str
) -> None:
    """Python's `__all__`, an ES module's `export`s, CommonJS' `module.exports`: what a
    module does not declare is not its API, whatever its name. The two functions differ
    only in that (both documented, neither used)."""
    db = _index_one_file(tmp_path, name, text)
    rank = {s["qualified_name"]: s["rank"] for s in _map_symbols(db, [])}
    assert rank[public] > 2 * rank[private], rank


def _index_one_file(tmp_path: Path, name: str, text: str) -> Path:
    """An index of `src/<name>`, its paths relative to `tmp_path`."""
    return _index_files(tmp_path, {f"src/{name}": text}, ["src"])


def _index_files(root: Path, files: dict[str, str], tops: list[str]) -> Path:
    """`files` (path → text) written under `root` and the folders `tops` indexed from
    there (paths relative to `root`): the index."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    db = _index_in(root, tops)
    return db


DEPRECATION = [
    # (file, text: `old` is declared deprecated, `new` is not; both used the same way)
    (
        "box.go",
        "package box\n\n// Old opens a box.\n//\n// Deprecated: Use New instead.\nfunc Old() int "
        "{ return 1 }\n\n// New opens a box; the deprecated Old is kept.\nfunc New() int "
        "{ return 2 }\n",
    ),
    (
        "box.py",
        'def old():\n    """Open a box.\n\n    Deprecated, use new() instead.\n    """\n\n\n'
        'def new():\n    """Open a box (old() is deprecated)."""\n',
    ),
    (
        "box.ts",
        "/**\n * Open a box.\n * @deprecated use new\n */\nexport function old(): number "
        "{ return 1; }\n\n/** Open a box; deprecated: nothing. */\nexport function new_(): "
        "number { return 2; }\n",
    ),
]


@pytest.mark.parametrize(("name", "text"), DEPRECATION)
def test_deprecated_api_is_listed_after_the_live_api(tmp_path: Path, name: str, text: str) -> None:
    """A doc comment that declares its symbol deprecated (Go's `Deprecated:` paragraph,
    a Python docstring line opening with "Deprecated", JSDoc's `@deprecated`) makes it no
    entry point; the word elsewhere in a sentence does not."""
    db = _index_one_file(tmp_path, name, text)
    rank = {s["name"]: s["rank"] for s in _map_symbols(db, [])}
    new = rank.get("New", rank.get("new", rank.get("new_")))
    old = rank.get("Old", rank.get("old"))
    assert new is not None and old is not None, rank
    assert new > 2 * old, rank


def test_c_macros_are_no_entries_of_the_map(tmp_path: Path) -> None:
    """Brotli's map listed its attribute macros (`BROTLI_INLINE`, `BROTLI_DEC_API`: used
    by every declaration) above every function and type; a typedef'd struct's line shows
    its name (`typedef struct { … } Reader;` read `typedef struct`)."""
    db = _index_one_file(
        tmp_path,
        "lib.c",
        "#define INLINE inline\n#define API extern\n"
        "typedef struct {\n  int n;\n} Reader;\n\n"
        "static INLINE int Read(Reader* r) {\n  return r->n;\n}\n"
        "API int Twice(Reader* r) {\n  return Read(r) + Read(r);\n}\n"
        "API int Thrice(Reader* r) {\n  return Read(r) + Twice(r);\n}\n",
    )
    with docql_sqlite.open(db) as index:
        symbols = index.repo_map(budget=10_000)["symbols"]
    assert [s["kind"] for s in symbols if s["kind"] == "macro"] == []
    assert {s["name"] for s in symbols} == {"Reader", "Read", "Twice", "Thrice"}
    assert next(s for s in symbols if s["name"] == "Reader")["signature"] == (
        "typedef struct Reader"
    )


def test_map_paths_read_globs_as_every_other_filter(tmp_path: Path) -> None:
    """`*` stays within a directory and `**` spans them, as in --path and --include
    (fnmatch's `*` crossed `/`: `pkg/*.py` took `pkg/sub/deep.py` too)."""
    files = {
        "pkg/top.py": "def top():\n    return deep()\n",
        "pkg/sub/deep.py": "def deep():\n    return 1\n",
    }
    db = _index_files(tmp_path, files, ["pkg"])
    assert {s["path"] for s in _map_symbols(db, ["pkg/*.py"])} == {"pkg/top.py"}
    assert {s["path"] for s in _map_symbols(db, ["pkg/**/*.py"])} == {
        "pkg/top.py",
        "pkg/sub/deep.py",
    }
    with docql_sqlite.open(db) as index:
        focused = index.repo_map(budget=10_000, focus="pkg/sub/*.py")["symbols"]
    assert focused[0]["path"] == "pkg/sub/deep.py"


@pytest.mark.parametrize(
    "signature, shown",
    [
        # FastAPI's parameters carry their documentation: the map shows the parameters
        (
            "def get(\n    self,\n    path: Annotated[\n        str,\n        Doc(\n"
            '            """\n            The URL path to be used.\n            """\n'
            "        ),\n    ],\n    *,\n    tags: list[str] = [],\n) -> Callable",
            'def get(self, path: Annotated[str, Doc("…")], *, tags: list[str] = []) -> Callable',
        ),
        # a stored signature is cut at its length, sometimes inside a literal
        (
            'def f(x: Annotated[int, Doc("""The number of items the page',
            'def f(x: Annotated[int, Doc("…"',
        ),
        # short literals stay as written; so do comparisons and arrows
        ('def join(sep=", ", end="\\n")', 'def join(sep=", ", end="\\n")'),
        ("const f = (a, b) => a > b", "const f = (a, b) => a > b"),
        ("fn f<T: Clone>(x: T) -> Vec<T>", "fn f<T: Clone>(x: T) -> Vec<T>"),
        (
            "func (b *Buffer) Write(p []byte) (n int, err error)",
            "func (b *Buffer) Write(p []byte) (n int, err error)",
        ),
        ("def f(\n    a,\n    b,\n) -> int", "def f(a, b) -> int"),
        ("log(`a template literal with ${x} that is long`)", 'log("…")'),
    ],
)
def test_a_maps_signature_is_compact(signature: str, shown: str) -> None:
    assert compact_signature(signature) == shown


def test_the_map_shows_a_documented_parameter_list_compactly(tmp_path: Path) -> None:
    db = _index_one_file(
        tmp_path,
        "app.py",
        'def route(\n    path: Annotated[\n        str,\n        Doc(\n            """\n'
        "            The URL path to be used for this route, with every detail a user\n"
        "            could want to read about it, over several lines of text.\n"
        '            """\n        ),\n    ],\n    name: str = "",\n) -> None:\n    pass\n',
    )
    with docql_sqlite.open(db) as index:
        text = index.repo_map([], budget=200)["text"]
    assert '1: def route(path: Annotated[str, Doc("…")], name: str = "") -> None' in text, text


NESTED = """class Outer:
    def method(self):
        return Inner().deep()

    class Inner:
        def deep(self):
            return 1


def use():
    return Outer().method() + Outer.Inner().deep()
"""


def test_a_member_is_indented_under_its_class_when_the_map_shows_it(tmp_path: Path) -> None:
    (tmp_path / "nested.py").write_text(NESTED)
    (tmp_path / "user.py").write_text("from nested import use\n\n\ndef main():\n    return use()\n")
    db = tmp_path / "n.db"
    docql_sqlite.index(db, [str(tmp_path / "nested.py"), str(tmp_path / "user.py")])
    with docql_sqlite.open(db) as index:
        full = index.repo_map(budget=10_000)
        shown = {s["qualified_name"] for s in full["symbols"]}
        assert {"Outer", "Outer.method", "Outer.Inner", "Outer.Inner.deep"} <= shown
        block = full["text"].split("nested.py:\n", 1)[1].split("\n")
        indent = {line.split(":")[0].strip(): len(line) - len(line.lstrip()) for line in block}
        assert [indent["1"], indent["2"], indent["5"], indent["6"], indent["10"]] == [2, 4, 4, 6, 2]
        assert full["tokens"] == count_tokens(full["text"])
        # without its class, a method stays flush: `Outer.method` alone
        by_name = {s["qualified_name"]: s for s in full["symbols"]}
        cost = count_tokens(f"{by_name['Outer.method']['path']}:") + count_tokens(
            f"  2: {by_name['Outer.method']['signature']}"
        )
        small = index.repo_map(budget=cost, focus="Outer.method")
    assert [s["qualified_name"] for s in small["symbols"]] == ["Outer.method"]
    assert small["text"].splitlines()[1].startswith("  2: def method")
