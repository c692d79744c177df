"""References and imports in the index (issue 23): an existing index is upgraded, and
resolution follows changes in other files (`ingest/resolve.py`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import apsw
import pytest
from conftest import REPO, query

import docql_sqlite
from docql_sqlite.query.items import code_names
from docql_sqlite.ref_codes import (
    BUILT_IN_OBJECT,
    OTHER_OBJECT,
    OWN_MEMBER,
    REFERENCE_KINDS,
    RESOLUTIONS,
)
from docql_sqlite.store.sqlite import db as dbmod

LIB = """def helper():
    return 1
"""
APP = """from lib import helper


def main():
    return helper() + helper()
"""


def _callers(db: Path, name: str) -> list[tuple[str, str, str | None]]:
    with docql_sqlite.open(db) as index:
        return [
            (r["location"], r["resolution"], r["target"])
            for r in index.query(f'$.code.callers("{name}")')
        ]


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    root.mkdir()
    (root / "lib.py").write_text(LIB)
    (root / "app.py").write_text(APP)
    return root


def _as_schema_7(db: Path) -> None:
    """`db` as schema 7 left it: no reference tables, code built with content rules 1."""
    conn = apsw.Connection(str(db))
    conn.execute("DROP TABLE refs; DROP TABLE imports; DROP TABLE refs_pending")
    conn.execute("UPDATE documents SET content_rules = 1 WHERE format = 'code'")
    conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    conn.close()


def test_a_schema_7_index_gets_references_on_the_next_run(tmp_path: Path) -> None:
    root = _project(tmp_path)
    db = tmp_path / "old.db"
    docql_sqlite.index(db, [str(root)])
    _as_schema_7(db)
    report = docql_sqlite.index(db, [str(root)])
    assert len(report.updated) == 2  # the code files were parsed again (content rules 2)
    with docql_sqlite.open(db) as index:
        assert index.status()["schema_version"] == dbmod.SCHEMA_VERSION
    callers = _callers(db, "helper")
    assert len(callers) == 2
    assert all(c[0].endswith("app.py:5") and c[1] == "import" for c in callers), callers
    assert all(c[2] is not None and c[2].endswith("lib.py:1-2") for c in callers), callers


def test_a_new_index_queues_no_names_and_a_later_run_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The names queue says which rows of `refs` to decide again: a new index has none, so
    # its first run queues nothing (every symbol's name was queued before); a later run
    # that changes a file queues that file's names, and the links follow (the test
    # below covers what they become).
    import docql_sqlite.ingest.run as run

    passes: list[tuple[set[str], int]] = []
    real = run.resolve_pending

    def watched(conn: Any, names: set[str], staged: list[Any], dialect: Any) -> int:
        passes.append((set(names), len(staged)))
        return real(conn, names, staged, dialect)

    monkeypatch.setattr(run, "resolve_pending", watched)
    root = _project(tmp_path)
    db = tmp_path / "index.db"
    docql_sqlite.index(db, [str(root)], workers=0)
    assert passes == [(set(), 1)]  # (app.py's references: lib.py makes none)
    (root / "lib.py").write_text(LIB + "\n\ndef added():\n    return 2\n")
    docql_sqlite.index(db, [str(root)], workers=0)
    names, _ = passes[-1]
    assert {"helper", "added"} <= names, passes
    assert len(_callers(db, "helper")) == 2


def test_resolution_follows_definitions_added_and_removed_elsewhere(tmp_path: Path) -> None:
    # A method called on an object: resolved by its name alone (a top-level function of
    # another Python file is reached only through an import).
    lib = "class Lib:\n    def helper(self):\n        return 1\n"
    root = _project(tmp_path)
    (root / "lib.py").write_text(lib)
    (root / "app.py").write_text("def main(x):\n    return x.helper()\n")
    db = tmp_path / "index.db"
    docql_sqlite.index(db, [str(root)])
    [(_, resolution, target)] = _callers(db, "helper")
    assert resolution == "unique" and target is not None and target.endswith("lib.py:2-3")
    # A second `helper` in another file: app.py did not change, its call is now ambiguous.
    (root / "other.py").write_text("class Other:\n    def helper(self):\n        return 2\n")
    docql_sqlite.index(db, [str(root)])
    assert [c[1:] for c in _callers(db, "helper")] == [("ambiguous", None)]
    # Both go: nothing left to resolve to.
    (root / "other.py").unlink()
    (root / "lib.py").unlink()
    docql_sqlite.index(db, [str(root)])
    assert [c[1:] for c in _callers(db, "helper")] == [("unresolved", None)]
    # One comes back: unique again, and nothing is left pending.
    (root / "lib.py").write_text(lib)
    docql_sqlite.index(db, [str(root)])
    assert [c[1] for c in _callers(db, "helper")] == ["unique"]
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    pending = conn.execute("SELECT count(*) FROM refs_pending").fetchone()
    staged = conn.execute("SELECT count(*) FROM refs_staged").fetchone()
    conn.close()
    assert pending == (0,) and staged == (0,)


def test_reference_items_name_their_kind_and_resolution_and_keep_both_lines(
    tmp_path: Path,
) -> None:
    """`refs` stores kinds and resolutions as codes and no `end_line` equal to `line`
    (schema 11); the items carry the names and both lines, filters and all."""
    root = _project(tmp_path)
    (root / "app.py").write_text(
        "from lib import (\n    helper,\n)\n\n\ndef main():\n    return helper()\n"
    )
    db = tmp_path / "index.db"
    docql_sqlite.index(db, [str(root)])
    with docql_sqlite.open(db) as index:
        found = [
            (r["kind"], r["resolution"], r["line"], r["end_line"], r["location"].rsplit("/")[-1])
            for r in index.query('$.code.references("helper")')
        ]
        calls = index.query('$.code.references("helper")[?(@.kind == "call")].resolution')
        imported = index.query('$.code.references("helper")[?(@.resolution == "import")].kind')
    assert found == [
        ("import", "import", 1, 3, "app.py:1-3"),
        ("call", "import", 7, 7, "app.py:7"),
    ], found
    assert list(calls) == ["import"] and list(imported) == ["import", "call"]
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    stored = conn.execute(
        "SELECT kind, resolution, line, end_line FROM refs ORDER BY ord"
    ).fetchall()
    conn.close()
    assert stored == [(3, 2, 1, 3), (0, 2, 7, None)], stored


TWO_RUNS = """class A:
    def run(self):
        return 1

    def go(self):
        return self.run()


class B:
    def run(self):
        return 2

    def go(self):
        return self.run()


def main():
    return run() + A().run()
"""


def test_each_reference_resolves_by_its_own_scope_and_the_files_imports(tmp_path: Path) -> None:
    """The resolver decides a name once per file (`resolve._Resolver._decide`), except
    where the file defines it several times: then each reference's enclosing symbol picks
    (A.go → A.run, B.go → B.run, main → the first). The import rule matches a module's
    tail against consecutive path segments (`pkg.util` → `pkg/util.py`)."""
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "runs.py").write_text(TWO_RUNS)
    (root / "pkg" / "util.py").write_text(LIB)
    (root / "other" / "tools.py").write_text(LIB)
    (root / "app.py").write_text(
        "from pkg.util import helper\n\n\ndef main():\n    return helper()\n"
    )
    db = tmp_path / "index.db"
    docql_sqlite.index(db, [str(root)])
    runs = sorted(
        (c[0].rsplit("/", 1)[1], c[1], c[2].rsplit("/", 1)[1]) for c in _callers(db, "run")
    )
    assert runs == [
        ("runs.py:14", "local", "runs.py:10-11"),
        ("runs.py:18", "local", "runs.py:2-3"),
        ("runs.py:18", "local", "runs.py:2-3"),
        ("runs.py:6", "local", "runs.py:2-3"),
    ], runs
    [(location, resolution, target)] = [c for c in _callers(db, "helper") if "app.py" in c[0]]
    assert resolution == "import" and target is not None, (location, resolution, target)
    assert target.endswith("pkg/util.py:1-2"), target


DATASETS_CODE = Path(__file__).resolve().parent.parent / "datasets" / "code"
# Every stored link, by the reference's file and place, kind and resolution by name: what
# an upgraded index must equal.
ALL_LINKS = f"""
SELECT d.path, r.ord, r.name, {code_names("r.kind", REFERENCE_KINDS)}, r.caller_ord, r.line,
       coalesce(r.end_line, r.line), r.col, t.path || ':' || y.line, y.qualified_name,
       {code_names("r.resolution", RESOLUTIONS)}, r.candidates
FROM refs r JOIN documents d ON d.id = r.doc_id
LEFT JOIN symbols y ON y.id = r.target_id LEFT JOIN documents t ON t.id = y.doc_id
ORDER BY d.path, r.ord
"""


def _links(db: Path) -> list[tuple[object, ...]]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return list(conn.execute(ALL_LINKS))
    finally:
        conn.close()


def _first_code_docs(conn: apsw.Connection, count: int) -> str:
    ids = [r[0] for r in conn.execute("SELECT DISTINCT doc_id FROM refs ORDER BY doc_id")]
    return ",".join(str(i) for i in ids[:count]) or "NULL"


def _as_schema_10(db: Path, interrupted_docs: int) -> None:
    """`db` as schema 10 left it: `kind` and `resolution` as text, `end_line` always set,
    `refs_name` on (name, kind), the files to resolve queued in `refs_pending_docs` with
    their references written `unresolved`: those of the first `interrupted_docs` code
    files (a run stopped before its pass)."""
    kind = code_names("kind", REFERENCE_KINDS)
    resolution = code_names("resolution", RESOLUTIONS)
    conn = apsw.Connection(str(db))
    conn.execute(f"""
        CREATE TABLE refs10 (
          doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
          ord INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, caller_ord INTEGER,
          line INTEGER NOT NULL, end_line INTEGER NOT NULL, col INTEGER NOT NULL,
          target_id INTEGER, resolution TEXT, candidates INTEGER,
          PRIMARY KEY (doc_id, ord)) WITHOUT ROWID;
        INSERT INTO refs10 SELECT doc_id, ord, name, {kind}, caller_ord, line,
          coalesce(end_line, line), col, target_id, {resolution}, candidates FROM refs;
        DROP TABLE refs;
        DROP TABLE refs_staged;
        ALTER TABLE refs10 RENAME TO refs;
        CREATE INDEX refs_name ON refs(name, kind);
        CREATE TABLE refs_pending_docs (doc_id INTEGER PRIMARY KEY);
        ALTER TABLE imports DROP COLUMN alias;
    """)
    docs = _first_code_docs(conn, interrupted_docs)
    conn.execute(
        "UPDATE refs SET target_id = NULL, resolution = 'unresolved', candidates = 0 "
        f"WHERE doc_id IN ({docs})"
    )
    conn.execute(
        f"INSERT INTO refs_pending_docs SELECT DISTINCT doc_id FROM refs WHERE doc_id IN ({docs})"
    )
    # A schema-10 file was written by code content rules 3 at most (qualifiers came with
    # 4): its next run parses its code files again, as it would any older file's.
    conn.execute("UPDATE documents SET content_rules = 3 WHERE format = 'code'")
    conn.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")
    conn.close()


def _as_schema_9(db: Path, interrupted_docs: int) -> None:
    """`db` as schema 9 left it: pending references found by `resolution IS NULL` through
    the partial index `refs_unresolved`, no `refs_pending_docs`; the references of the
    first `interrupted_docs` code files never resolved (a run stopped before its pass)."""
    _as_schema_10(db, 0)
    conn = apsw.Connection(str(db))
    conn.execute("DROP TABLE refs_pending_docs")
    conn.execute("CREATE INDEX refs_unresolved ON refs(doc_id) WHERE resolution IS NULL")
    conn.execute(
        "UPDATE refs SET target_id = NULL, resolution = NULL, candidates = NULL "
        f"WHERE doc_id IN ({_first_code_docs(conn, interrupted_docs)})"
    )
    conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    conn.close()


def _upgraded_links(db: Path) -> list[tuple[object, ...]]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    (code_files,) = conn.execute("SELECT count(*) FROM documents WHERE format = 'code'").fetchone()
    conn.close()
    report = docql_sqlite.index(db, [str(DATASETS_CODE)])
    # Only the code files are parsed again (older content rules: their references then
    # get the qualifiers the old schema did not store); the rest is the migration's.
    assert len(report.updated) == code_files
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert version == (str(dbmod.SCHEMA_VERSION),)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "refs_unresolved" not in names and "refs_pending_docs" not in names
        assert conn.execute("SELECT count(*) FROM refs_staged").fetchone() == (0,)
        index_sql = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'refs_name'"
        ).fetchone()
        assert index_sql == ("CREATE INDEX refs_name ON refs(name)",)
    finally:
        conn.close()
    return _links(db)


def _fresh_links(tmp_path: Path) -> tuple[Path, list[tuple[object, ...]]]:
    fresh = tmp_path / "fresh.db"
    docql_sqlite.index(fresh, [str(DATASETS_CODE)])
    expected = _links(fresh)
    assert len(expected) > 500
    assert {row[10] for row in expected} >= {"local", "import", "unique", "unresolved"}
    assert {row[3] for row in expected} == set(REFERENCE_KINDS)
    return fresh, expected


def test_a_schema_10_index_upgraded_answers_the_same_links_as_a_fresh_one(
    tmp_path: Path,
) -> None:
    """Schema 11 stores kinds and resolutions as small integers and `end_line` only when
    it is not `line`, and holds a file's references in `refs_staged` until the pass
    inserts them resolved (`ingest/resolve.py`); a schema-10 file, including the queued
    references of a run stopped before its pass, is upgraded by the next run to exactly
    the rows a fresh index has."""
    fresh, expected = _fresh_links(tmp_path)
    old = tmp_path / "old.db"
    old.write_bytes(fresh.read_bytes())
    _as_schema_10(old, interrupted_docs=5)
    conn = apsw.Connection(str(old), flags=apsw.SQLITE_OPEN_READONLY)
    queued = conn.execute("SELECT count(*) FROM refs_pending_docs").fetchone()
    conn.close()
    assert queued == (5,)
    assert _upgraded_links(old) == expected


def test_a_schema_9_index_upgraded_answers_the_same_links_as_a_fresh_one(tmp_path: Path) -> None:
    """Through schemas 10 and 11: references a stopped run left NULL are linked too."""
    fresh, expected = _fresh_links(tmp_path)
    old = tmp_path / "old.db"
    old.write_bytes(fresh.read_bytes())
    _as_schema_9(old, interrupted_docs=5)
    conn = apsw.Connection(str(old), flags=apsw.SQLITE_OPEN_READONLY)
    nulls = conn.execute("SELECT count(*) FROM refs WHERE resolution IS NULL").fetchone()
    conn.close()
    assert nulls[0] > 20
    assert _upgraded_links(old) == expected


# Imports under another name, one per language that has them (`Import.alias`).
ALIASED = {
    "py/pkg/helpers.py": "def load(path):\n    return path\n",
    "py/pkg/other.py": "def load(x):\n    return x\n",
    "py/other.py": "def load(x):\n    return x\n",
    "py/main.py": (
        "import pkg.helpers as h\n"
        "from pkg import helpers as hp, other\n"
        "import os, numpy as np\n"
        "\n"
        "def run():\n"
        '    h.load("a")\n'
        '    hp.load("b")\n'
        "    np.array([1])\n"
        "    other.load(1)\n"
    ),
    "go/math/rand/rand.go": "package rand\n\nfunc Intn(n int) int { return n }\n",
    "go/app/main.go": (
        "package main\n\n"
        'import (\n\tmr "math/rand"\n\t_ "embed"\n)\n\n'
        "func Intn(n int) int { return 0 }\n\n"
        "func main() {\n\tmr.Intn(3)\n}\n"
    ),
    "js/util.js": "export function join(a, b) { return a + b; }\n",
    "js/other.js": "export function join(a) { return a; }\n",
    "js/main.js": (
        "import * as u from './util.js';\nimport { join as j2 } from './other.js';\n"
        "export function run() { return u.join(1, 2); }\n"
    ),
    "rs/main.rs": 'use std::fs as f;\n\nfn main() {\n    f::read("x");\n}\n',
    "rs/util/mod.rs": "pub fn helper() {}\n",
    "rs/lib.rs": "use crate::util::{self as u, helper as h};\n\nfn run() {\n    u::helper();\n}\n",
}


def _aliased_corpus(root: Path) -> Path:
    for name, text in ALIASED.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_an_import_alias_is_the_qualifier_that_names_its_module(tmp_path: Path) -> None:
    """`h.load` (`import pkg.helpers as h`), `hp.load` (`from pkg import helpers as hp`),
    Go's `mr.Intn` (`mr "math/rand"`) and `u.join` (`import * as u`) are uses of that
    module's definition: the alias is recorded on the import and as the use's qualifier,
    and decides the link (Go's own `Intn` in the same file, and the other `load` and
    `join`, are not it). An alias of a module the index lacks (`np`) decides nothing."""
    corpus = _aliased_corpus(tmp_path / "code")
    db = tmp_path / "a.db"
    docql_sqlite.index(db, [str(corpus)])
    with docql_sqlite.open(db) as index:
        imports = {
            (m["path"].rsplit("code/", 1)[-1], m["module"], tuple(m["names"]), m["alias"])
            for m in index.query("$.code.imports")
        }
        calls = {
            (c["name"], c["qualifier"]): (c["resolution"], (c["target"] or "").split("code/")[-1])
            for name in ("load", "Intn", "join", "array", "read", "helper")
            for c in index.query(f'$.code.callers("{name}")')
        }
    assert imports >= {
        ("py/main.py", "pkg.helpers", (), "h"),
        ("py/main.py", "pkg", ("helpers",), "hp"),
        ("py/main.py", "pkg", ("other",), None),
        ("py/main.py", "numpy", (), "np"),
        ("py/main.py", "os", (), None),
        ("go/app/main.go", "math/rand", (), "mr"),
        ("go/app/main.go", "embed", (), "_"),
        ("js/main.js", "./util.js", ("*",), "u"),
        ("js/main.js", "./other.js", ("join",), "j2"),  # `{ join as j2 }`: a row of its own
        ("rs/main.rs", "std", ("fs",), "f"),
        ("rs/lib.rs", "crate::util", ("self",), "u"),  # a use list: a row per renamed item
        ("rs/lib.rs", "crate::util", ("helper",), "h"),
    }
    assert calls[("load", "h")] == ("import", "py/pkg/helpers.py:1-2")
    assert calls[("load", "hp")] == ("import", "py/pkg/helpers.py:1-2")
    assert calls[("load", "other")] == ("import", "py/pkg/other.py:1-2")
    assert calls[("Intn", "mr")] == ("import", "go/math/rand/rand.go:3")
    assert calls[("join", "u")] == ("import", "js/util.js:1")
    assert calls[("helper", "u")] == ("import", "rs/util/mod.rs:1")
    assert calls[("array", "np")][0] == "unresolved"
    assert ("read", "f") in calls  # `f::read`: std is not in the index


# Names an import renames, used bare: `Sq(3)`, `j('a', 'b')`, a Rust type `Sq`. Each
# corpus has a decoy that defines the alias's own name, which the use must not reach.
RENAMED = {
    "py/shapes.py": (
        "class Square:\n    def __init__(self, n):\n        self.n = n\n\n\n"
        "def area(s):\n    return s.n * s.n\n"
    ),
    "py/decoy.py": "class Sq:\n    pass\n\n\ndef ar(x):\n    return x\n",
    "py/main.py": (
        "from shapes import Square as Sq, area as ar\n\n\ndef build():\n    return ar(Sq(3))\n"
    ),
    "js/path.js": "export function join(a, b) { return a + b; }\n",
    "js/decoy.js": "export function j(a) { return a; }\n",
    "js/app.js": (
        "import { join as j } from './path.js';\nexport function run() { return j('a', 'b'); }\n"
    ),
    "rs/shapes/mod.rs": "pub struct Square {\n    pub n: u32,\n}\n",
    "rs/decoy.rs": "pub struct Sq;\n",
    "rs/main.rs": "use crate::shapes::Square as Sq;\n\nfn make(s: Sq) -> Sq {\n    s\n}\n",
}


def _renamed_uses(db: Path, name: str, function: str = "references") -> set[tuple[str, ...]]:
    with docql_sqlite.open(db) as index:
        return {
            (
                r["location"].split("code/")[-1],
                r["name"],
                r["resolution"],
                (r["target"] or "").split("code/")[-1],
            )
            for r in index.query(f'$.code.{function}("{name}")')
            if r["kind"] != "import"
        }


def test_a_name_an_import_renames_resolves_as_the_name_it_renames(tmp_path: Path) -> None:
    """`Sq(3)` after `from shapes import Square as Sq` is a use of shapes' `Square`, not of
    the `Sq` another file defines; so are JS's `j()` after `import { join as j }` and a
    Rust type `Sq` after `use crate::shapes::Square as Sq`. `callers("Square")` finds the
    use by its other name. When `Square` goes, the use is unresolved (never the decoy);
    when it comes back, it is linked again (the pass re-decides a renamed name's uses
    when the name it renames changes)."""
    root = tmp_path / "code"
    for name, text in RENAMED.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    db = tmp_path / "r.db"
    docql_sqlite.index(db, [str(root)])
    assert _renamed_uses(db, "Sq") == {
        ("py/main.py:5", "Sq", "import", "py/shapes.py:1-3"),
        ("rs/main.rs:3", "Sq", "import", "rs/shapes/mod.rs:1-3"),
    }
    assert _renamed_uses(db, "Square", "callers") == {
        ("py/main.py:5", "Sq", "import", "py/shapes.py:1-3")
    }
    assert _renamed_uses(db, "area", "callers") == {
        ("py/main.py:5", "ar", "import", "py/shapes.py:6-7")
    }
    assert _renamed_uses(db, "join", "callers") == {("js/app.js:2", "j", "import", "js/path.js:1")}
    shapes = root / "py" / "shapes.py"
    shapes.write_text("def area(s):\n    return s.n * s.n\n")
    docql_sqlite.index(db, [str(root)])
    assert ("py/main.py:5", "Sq", "unresolved", "") in _renamed_uses(db, "Sq")
    shapes.write_text(RENAMED["py/shapes.py"])
    docql_sqlite.index(db, [str(root)])
    assert ("py/main.py:5", "Sq", "import", "py/shapes.py:1-3") in _renamed_uses(db, "Sq")


@pytest.mark.parametrize("schema", [12, 13])
def test_an_older_index_gets_its_qualifiers_and_aliases_from_the_next_run(
    tmp_path: Path, schema: int
) -> None:
    """Schema 13 records the import named in front of a use (`refs.qualifier`), schema 14
    the alias an import binds (`imports.alias`, which a qualifier may be); a schema-12
    file (neither column, code built with content rules 3) and a schema-13 one (no alias,
    content rules 4) are upgraded by the next run, which parses their code files again:
    then every reference, qualifier, alias and link is the fresh index's."""
    corpus = tmp_path / "code"
    shutil.copytree(DATASETS_CODE, corpus)
    _aliased_corpus(corpus / "aliased")
    fresh = tmp_path / "fresh.db"
    docql_sqlite.index(fresh, [str(corpus)])
    expected = _links(fresh)
    with_qualifiers = (
        "SELECT d.path, r.ord, r.qualifier FROM refs r JOIN documents d ON d.id = r.doc_id "
        "ORDER BY d.path, r.ord"
    )
    with_aliases = (
        "SELECT d.path, m.ord, m.module, m.alias FROM imports m "
        "JOIN documents d ON d.id = m.doc_id ORDER BY d.path, m.ord"
    )
    qualifiers, aliases = query(fresh, with_qualifiers), query(fresh, with_aliases)
    assert sum(1 for row in qualifiers if row[2] is not None) > 5  # the fixtures use some
    aliases_bound = sorted(row[3] for row in aliases if row[3] is not None)
    # `http`: `const http = require("node:http")` in datasets/code/javascript/server.js
    assert aliases_bound == ["_", "f", "h", "h", "hp", "http", "j2", "mr", "np", "u", "u"]
    old = tmp_path / "old.db"
    old.write_bytes(fresh.read_bytes())
    conn = apsw.Connection(str(old))
    conn.execute("ALTER TABLE imports DROP COLUMN alias")
    if schema == 12:
        conn.execute("ALTER TABLE refs DROP COLUMN qualifier")
    conn.execute(f"UPDATE documents SET content_rules = {schema - 9} WHERE format = 'code'")
    conn.execute(f"UPDATE meta SET value = '{schema}' WHERE key = 'schema_version'")
    conn.close()
    report = docql_sqlite.index(old, [str(corpus)])
    assert report.updated  # the code files, parsed again
    assert _links(old) == expected
    assert query(old, with_qualifiers) == qualifiers
    assert query(old, with_aliases) == aliases


def test_a_stopped_run_leaves_its_references_staged_for_the_next(tmp_path: Path) -> None:
    """The references of a file wait in `refs_staged` (committed with the file) until the
    run's pass: a run that stops before it leaves them there, and the next run, with
    nothing to parse, inserts them resolved."""
    fresh, expected = _fresh_links(tmp_path)
    stopped = tmp_path / "stopped.db"
    conn = apsw.Connection(str(fresh))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    stopped.write_bytes(fresh.read_bytes())
    conn = apsw.Connection(str(stopped))
    conn.execute("""
        INSERT INTO refs_staged(doc_id, refs)
          SELECT doc_id, json_group_array(
            json_array(name, kind, caller_ord, line, end_line, col, qualifier) ORDER BY ord)
          FROM refs WHERE doc_id IN
            (SELECT DISTINCT doc_id FROM refs ORDER BY doc_id DESC LIMIT 4)
          GROUP BY doc_id;
        DELETE FROM refs WHERE doc_id IN (SELECT doc_id FROM refs_staged);
    """)
    conn.close()
    assert len(_links(stopped)) < len(expected)
    report = docql_sqlite.index(stopped, [str(DATASETS_CODE)])
    assert not report.updated
    assert _links(stopped) == expected


def test_only_changed_links_are_written_again(tmp_path: Path) -> None:
    """A run that rewrites a file defining `helper` queues the name; the references to
    `helper` elsewhere are resolved again, but those whose link did not change are not
    written (the pass compares before it updates): schema 9 rewrote every one."""
    root = _project(tmp_path)
    (root / "more.py").write_text("def helper():\n    return 2\n")
    db = tmp_path / "index.db"
    docql_sqlite.index(db, [str(root)])
    before = _callers(db, "helper")
    assert [c[1] for c in before] == ["import", "import"], before
    conn = apsw.Connection(str(db))
    conn.execute("CREATE TABLE written(doc_id, ord)")
    conn.execute(
        "CREATE TRIGGER refs_written AFTER UPDATE ON refs BEGIN "
        "INSERT INTO written VALUES (new.doc_id, new.ord); END"
    )
    conn.close()
    (root / "more.py").write_text("def helper():\n    return 3\n")  # new symbol ids
    report = docql_sqlite.index(db, [str(root)])
    assert len(report.updated) == 1
    assert _callers(db, "helper") == before
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert conn.execute("SELECT count(*) FROM written").fetchone() == (0,)
    finally:
        conn.close()


def test_references_cross_to_the_writer_as_one_string_not_objects(tmp_path: Path) -> None:
    """A worker sends a file's references as one JSON string (`Parsed.references_json`,
    what `refs_staged` holds), not as `Reference` objects: the same text reaches the
    table, in less pickle."""
    import json
    import pickle

    from docql_sqlite.ingest.parse import ParseTask, parse_for_writer, parse_task
    from docql_sqlite.store.writer import Parsed, staged_references

    path = tmp_path / "app.py"
    path.write_text(APP)
    task = ParseTask(path=str(path), display="app.py", format="code")
    local = parse_task(task)  # what `--workers 0` writes from
    sent = parse_for_writer(task)
    assert isinstance(local, Parsed) and isinstance(sent, Parsed)
    assert local.doc.references and local.references_json is None  # in one process: no copy
    assert sent.doc.references == [] and sent.references_json
    assert staged_references(sent) == staged_references(local)
    # [name, kind, caller_ord, line, end_line, col]: the kind's code (0, a call), no
    # end_line on one line
    assert json.loads(staged_references(sent) or "")[1] == ["helper", 0, 0, 5, None, 12, None]
    assert len(pickle.dumps(sent.references_json)) < len(pickle.dumps(local.doc.references))


def test_code_parsing_keeps_references_as_rows_and_gives_objects_on_request() -> None:
    """The indexing path makes each reference's `refs_staged` row straight from its
    query match ((name, kind code, caller_ord, line, end_line or None, column, qualifier):
    no `Reference` object per reference); `Document.references` makes the objects from the
    rows for the callers that want them, the caller named from `Document.symbols`. The
    qualifier is the import named in front of a use (`lib.helper`), else None."""
    from docql_sqlite.ingest.code import parse_code_text
    from docql_sqlite.model import Reference

    document = parse_code_text(APP, "app.py", "python")
    assert document.reference_rows == [
        ("helper", 3, None, 1, None, 1, None),  # the import: at the statement, top level
        ("helper", 0, 0, 5, None, 12, None),
        ("helper", 0, 0, 5, None, 23, None),
    ]
    assert document.references == [
        Reference("helper", "import", 1, 1, 1, None, None),
        Reference("helper", "call", 5, 5, 12, "main", 0),
        Reference("helper", "call", 5, 5, 23, "main", 0),
    ]
    qualified = parse_code_text(
        "import lib\nimport other as o\n\n\ndef main():\n    return lib.helper() + x.lib.helper()"
        " + o.helper()\n",
        "app.py",
        "python",
    )
    assert [(r.name, r.column, r.qualifier) for r in qualified.references if r.kind == "call"] == [
        ("helper", 16, "lib"),  # `lib` is an import of the file
        ("helper", 33, ""),  # `x.lib`: an attribute named lib, not the module: another object
        ("helper", 46, "o"),  # `import other as o`: the alias is the module's local name
    ]


UNICODE = """\
struct Wörter;
impl Wörter { fn neu() -> Wörter { Wörter } }
fn größe(w: &Wörter) -> usize { let s = "ä"; größe(w) + s.len() }
"""


def test_reference_columns_count_characters_in_a_file_that_is_not_ascii() -> None:
    """Columns are 1-based characters of the line, also after other non-ASCII characters
    (tree-sitter counts bytes)."""
    from docql_sqlite.ingest.code import parse_code_text

    document = parse_code_text(UNICODE, "w.rs", "rust")
    found = {(r.name, r.line, r.column) for r in document.references}
    lines = UNICODE.splitlines()
    for name, line, column in found:
        assert lines[line - 1][column - 1 :].startswith(name.rstrip("!")), (name, line, column)
    assert ("größe", 3, 46) in found and ("Wörter", 2, 27) in found


def test_parsing_code_and_the_pass_leave_the_garbage_collector_as_they_found_it(
    tmp_path: Path,
) -> None:
    """Both pause Python's cyclic collector while they run (docs/benchmarks.md, issue
    23) and restore its state after, on success and on error."""
    import gc

    from docql_sqlite.ingest.code import parse_code_text
    from docql_sqlite.ingest.resolve import resolve_pending

    assert gc.isenabled()
    assert parse_code_text(APP, "app.py", "python").references
    assert gc.isenabled()
    try:
        parse_code_text(APP, "app.py", "no-such-language")
    except Exception:  # noqa: BLE001 - only the collector's state matters here
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        parse_code_text(APP, "app.py", "python")
        assert not gc.isenabled()  # not switched on behind the caller's back
    finally:
        gc.enable()

    class Broken:
        def execute(self, *args: object) -> object:
            raise RuntimeError("no connection")

    from docql_sqlite.dialect import SQLITE

    try:
        resolve_pending(Broken(), {"x"}, [], SQLITE)
    except RuntimeError:
        pass
    assert gc.isenabled()


def _name_index(db: Path) -> list[tuple[object, ...]]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'refs'"
        ).fetchall()
    finally:
        conn.close()


def test_refs_name_is_built_after_the_rows_of_an_empty_table_and_kept_after(
    tmp_path: Path,
) -> None:
    """Into an empty `refs` the pass inserts without `refs_name` and builds it after
    (`ingest/resolve.py`); a later pass, into a table that has rows, inserts through it.
    Either way the index is there, defined as the migration defines it, and used."""
    root = _project(tmp_path)
    db = tmp_path / "index.db"
    docql_sqlite.index(db, [str(root)])
    assert _name_index(db) == [("CREATE INDEX refs_name ON refs(name)",)]
    (root / "more.py").write_text("from lib import helper\n\nhelper()\n")
    docql_sqlite.index(db, [str(root)])
    assert _name_index(db) == [("CREATE INDEX refs_name ON refs(name)",)]
    assert [c[1] for c in _callers(db, "helper")] == ["import", "import", "import"]
    with docql_sqlite.open(db) as index:
        plan = index.explain('$.code.callers("helper")')["plan"]
    assert any("refs_name" in step["detail"] for step in plan), plan


def test_the_import_rule_by_last_parts_equals_the_rule_by_tails_and_runs() -> None:
    """A file is imported by a module when one of the module's tails is a run of
    consecutive segments of its path (`resolve._runs`, as the repository map tests it);
    the pass tests whether the path has a segment named like the module's last part
    (`resolve._imports_of`): the same answer, since the shortest tail is a run whenever
    a longer one is. Checked on every module and path of a small world, and at random."""
    import random

    from docql_sqlite.ingest import resolve

    def by_runs(modules: list[tuple[str, ...]], path: tuple[str, ...]) -> bool:
        tails = {m[i:] for m in modules for i in range(len(m))}
        return not tails.isdisjoint(resolve._runs(path))

    def by_last_parts(modules: list[tuple[str, ...]], path: tuple[str, ...]) -> bool:
        key = "/".join(path)
        candidate = resolve._Def(1, 1, "function", "", "go", frozenset(path), key, "")
        names = frozenset(m[-1] for m in modules)
        return resolve._imports_of(names, frozenset(), [candidate]) == [candidate]

    words = ["a", "b", "c", "net", "http", "io", ""]
    rng = random.Random(23)
    for _ in range(3000):
        modules = [
            tuple(rng.choice(words[:-1]) for _ in range(rng.randrange(1, 4)))
            for _ in range(rng.randrange(0, 3))
        ]
        path = tuple(rng.choice(words) for _ in range(rng.randrange(1, 6)))
        assert by_runs(modules, path) == by_last_parts(modules, path), (modules, path)
    go = [resolve.module_segments("net/http")]  # Go's `import "net/http"`
    assert by_last_parts(go, tuple("/src/net/http/server".split("/")))
    assert not by_last_parts(go, tuple("/src/net/url/url".split("/")))


def _index_tree(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """`files` (path → text) written under tmp_path/src and indexed: (src, the index)."""
    root = tmp_path / "src"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    db = tmp_path / "index.db"
    docql_sqlite.index(db, [str(root)])
    return root, db


def _resolved(db: Path, where: str) -> list[tuple[Any, ...]]:
    """(path under src/, line, name, qualifier, resolution, the target's qualified name and
    its path under src/) of the references `where` selects (SQL over `refs r`)."""
    with docql_sqlite.open(db) as index:
        rows = index.store.conn.execute(
            "SELECT d.path, r.line, r.name, r.qualifier, r.resolution, t.qualified_name, "
            "td.path FROM refs r JOIN documents d ON d.id = r.doc_id "
            "LEFT JOIN symbols t ON t.id = r.target_id "
            f"LEFT JOIN documents td ON td.id = t.doc_id WHERE {where}"
        ).fetchall()
    return [
        (
            path.split("/src/", 1)[1],
            line,
            name,
            qualifier,
            RESOLUTIONS[resolution],
            target,
            home.split("/src/", 1)[1] if home else None,
        )
        for path, line, name, qualifier, resolution, target, home in rows
    ]


def _calls_in(db: Path, file: str) -> set[tuple[Any, ...]]:
    """(line, name, qualifier, resolution, the target's qualified name) of the calls in
    `file` (its path under src/)."""
    return {
        (line, name, qualifier, resolution, target)
        for path, line, name, qualifier, resolution, target, _ in _resolved(db, "r.kind = 0")
        if path == file
    }


RELATIVE = {
    # Two packages with a `types` module each; `pipe` is a method of both.
    "rx/types.ts": "export class Observable {\n  pipe(): Observable { return this; }\n}\n",
    "zod/types.ts": "export class ZodType {\n  pipe(): ZodType { return this; }\n}\n",
    "zod/schemas/index.ts": "export class Schema {\n  check(): number { return 1; }\n}\n",
    "rx/ops/map.ts": (
        "import { Observable } from '../types';\n\n"
        "export function map(o: Observable): Observable {\n  return o.pipe();\n}\n"
    ),
    "zod/use.ts": (
        "import { ZodType } from './types.js';\nimport { Schema } from './schemas';\n\n"
        "export function use(z: ZodType, s: Schema): number {\n"
        "  z.pipe();\n  return s.check();\n}\n"
    ),
    # A bare module name keeps the rule by the module's last part.
    "app/main.ts": (
        "import { Observable } from 'types';\n\n"
        "export function main(o: any): Observable {\n  return o.pipe();\n}\n"
    ),
}


def test_a_relative_import_names_one_file(tmp_path: Path) -> None:
    """`../types` from rx/ops/map.ts is rx/types.ts, not every file named `types`: its
    `o.pipe()` resolves through the import to `Observable.pipe` (by the module's last part
    both `types.ts` were imported, and the call stayed ambiguous). `./types.js` is
    types.ts, `./schemas` is schemas/index.ts; a bare `'types'` keeps the loose rule."""
    root, db = _index_tree(tmp_path, RELATIVE)
    found = {
        (c[0].split("/src/", 1)[1], c[1], (c[2] or "").split("/src/")[-1])
        for c in _callers(db, "pipe") + _callers(db, "check")
    }
    assert found == {
        ("rx/ops/map.ts:4", "import", "rx/types.ts:2"),
        ("zod/use.ts:5", "import", "zod/types.ts:2"),
        ("zod/use.ts:6", "import", "zod/schemas/index.ts:2"),
        ("app/main.ts:4", "ambiguous", ""),
    }, found


QUALIFIED = {
    # Go: two packages define `Get`, and a method `Client.Get` sits beside one of them.
    "net/http/client.go": (
        "package http\n\ntype Client struct{}\n\nfunc (c *Client) Get(u string) {}\n\n"
        "func Get(u string) {}\n"
    ),
    "net/rpc/get.go": "package rpc\n\nfunc Get(u string) {}\n",
    "app/main.go": (
        'package main\n\nimport (\n\t"net/http"\n\t"net/rpc"\n)\n\n'
        'func main() {\n\thttp.Get("a")\n\trpc.Get("b")\n\tvar c http.Client\n\tc.Get("c")\n}\n'
    ),
    # Python: `dumps` in the json package and in another module; the module imported whole.
    "json/__init__.py": "def dumps(x):\n    return x\n",
    "yaml/dump.py": "def dumps(x):\n    return x\n",
    "tool.py": "import json\nimport yaml\n\n\ndef run():\n    return json.dumps(1)\n",
}


def test_a_use_qualified_by_an_import_resolves_in_that_module(tmp_path: Path) -> None:
    """`http.Get` is net/http's `Get` (not `Client.Get`, not rpc's `Get`), `rpc.Get`
    rpc's, `json.dumps` the json package's: resolved `import` through the qualifier,
    which the reference records (`qualifier`). `c.Get` names no import: a value's method
    (qualifier `http.Client()`, the type `c` is declared with), `Client.Get`, never a
    package's function. Checked again after the definitions
    change (the pass re-resolves stored references by their stored qualifier)."""
    root, db = _index_tree(tmp_path, QUALIFIED)

    def links() -> set[tuple[str, str, str]]:
        return {
            (c[0].split("/src/", 1)[1], c[1], (c[2] or "").split("/src/")[-1])
            for c in _callers(db, "Get") + _callers(db, "dumps")
        }

    expected = {
        ("app/main.go:9", "import", "net/http/client.go:7"),
        ("app/main.go:10", "import", "net/rpc/get.go:3"),
        ("app/main.go:12", "import", "net/http/client.go:5"),
        ("tool.py:6", "import", "json/__init__.py:1-2"),
    }
    assert links() == expected, links()
    with docql_sqlite.open(db) as index:
        stored = dict(
            index.store.conn.execute(
                "SELECT line, qualifier FROM refs WHERE name = 'Get' AND kind = 0"
            ).fetchall()
        )
    assert stored == {9: "http", 10: "rpc", 12: "http.Client()"}, stored
    # A new Get in net/http: http.Get is now one of two there, so the qualifier decides
    # nothing and the use falls to the other rules; rpc.Get keeps its link.
    (root / "net/http/more.go").write_text("package http\n\nfunc Get(u string) {}\n")
    docql_sqlite.index(db, [str(root)])
    after = links()
    assert ("app/main.go:10", "import", "net/rpc/get.go:3") in after, after
    assert ("app/main.go:9", "ambiguous", "") in after, after


RUST_CRATES = {
    "core/src/ptr/mod.rs": "pub fn write() {}\n",
    "core/src/ptr/mut_ptr.rs": "pub fn write() {}\n",  # a submodule's own `write`
    "std/src/io/mod.rs": "mod error;\npub use self::error::Error;\n",
    "std/src/io/error.rs": "pub struct Error;\n",
    "std/src/net/mod.rs": "pub fn write() {}\n",
    "alloc/src/user.rs": (
        "use core::ptr;\nuse std::io;\n\npub fn run(e: io::Error) {\n    ptr::write();\n}\n"
    ),
}


def test_a_rust_module_path_reaches_its_file_then_its_folder(tmp_path: Path) -> None:
    """A Rust file is the module path it holds (`core/src/ptr/mod.rs` is `core::ptr`):
    `ptr::write` is mod.rs's `write`, not the submodule mut_ptr.rs's nor net's; `io::Error`,
    which io/mod.rs only re-exports, is found in the module's folder (io/error.rs)."""
    root, db = _index_tree(tmp_path, RUST_CRATES)
    with docql_sqlite.open(db) as index:
        found = {
            (r["name"], r["qualifier"], r["resolution"], (r["target"] or "").split("/src/", 1)[-1])
            for r in index.query('$.code.references("write")')
            + index.query('$.code.references("Error")')
            if r["kind"] != "import"
        }
    assert found == {
        ("write", "ptr", "import", "core/src/ptr/mod.rs:1"),
        ("Error", "io", "import", "std/src/io/error.rs:1"),
    }, found


RUST_REGISTRY = {
    # Cargo's registry (and Debian's /usr/share/cargo/registry) unpacks each package in a
    # folder named with its version, and a package's `-` is a crate's `_`.
    "registry/regex-syntax-0.6.27/src/lib.rs": (
        "pub mod parser;\npub use crate::parser::ParserBuilder;\n"
    ),
    "registry/regex-syntax-0.6.27/src/parser.rs": (
        "pub struct ParserBuilder {}\n\nimpl ParserBuilder {\n"
        "    pub fn new() -> ParserBuilder {\n        ParserBuilder {}\n    }\n}\n"
    ),
    "registry/other-0.1.0/src/lib.rs": (
        "pub struct ParserBuilder {}\n\nimpl ParserBuilder {\n"
        "    pub fn new() -> ParserBuilder {\n        ParserBuilder {}\n    }\n}\n"
    ),
    "registry/regex-1.7.1/src/exec.rs": (
        "use regex_syntax::ParserBuilder;\n\npub fn parse() {\n"
        "    let _p = ParserBuilder::new();\n}\n"
    ),
}


def test_a_rust_crate_in_a_registrys_versioned_folder_is_named_by_its_crate(
    tmp_path: Path,
) -> None:
    """`use regex_syntax::ParserBuilder` in regex 1.7.1, with the two crates as Debian's
    `librust-*-dev` (and `~/.cargo/registry/src`) unpack them, `regex-syntax-0.6.27/`:
    the folder is the crate `regex_syntax`, so the use and `ParserBuilder::new()` are that
    crate's, not one of two by name (ambiguous before; clap's examples' `use
    clap::Parser` likewise, 67 links in clap 4.0.32 + regex 1.7.1)."""
    _, db = _index_tree(tmp_path, RUST_REGISTRY)
    found = {
        (line, name, resolution, target, home)
        for path, line, name, _, resolution, target, home in _resolved(db, "r.kind IN (0, 3)")
        if path.endswith("exec.rs")
    }
    parser = "registry/regex-syntax-0.6.27/src/parser.rs"
    assert found == {
        (1, "ParserBuilder", "import", "ParserBuilder", parser),
        (4, "new", "import", "ParserBuilder.new", parser),
    }, found


GO_MODULE_CACHE = {
    # `$GOPATH/pkg/mod` holds each module at `path@version`, capitals escaped with `!`.
    "pkg/mod/github.com/gin-gonic/gin@v1.8.1/gin.go": (
        "package gin\n\ntype Engine struct{}\n\nfunc New() *Engine { return &Engine{} }\n\n"
        "func (e *Engine) Run() error { return nil }\n"
    ),
    "pkg/mod/github.com/!burnt!sushi/toml@v1.2.0/decode.go": (
        "package toml\n\nfunc Decode(s string) error { return nil }\n"
    ),
    "pkg/mod/github.com/other/gin@v0.1.0/gin.go": "package gin\n\nfunc New() int { return 0 }\n",
    "app/main.go": (
        'package main\n\nimport (\n\t"github.com/BurntSushi/toml"\n'
        '\t"github.com/gin-gonic/gin"\n)\n\n'
        "func main() {\n"
        "\tr := gin.New()\n"  # 9
        '\ttoml.Decode("")\n'  # 10
        "\tr.Run()\n"  # 11
        "}\n"
    ),
}


def test_a_go_module_in_the_module_caches_versioned_folder_is_its_import_path(
    tmp_path: Path,
) -> None:
    """`import "github.com/gin-gonic/gin"` with the module where `go mod download` puts
    it (`github.com/gin-gonic/gin@v1.8.1/`, `!burnt!sushi` for `BurntSushi`): its
    functions and its types' methods are that folder's (unresolved before: no folder
    ended with the import path)."""
    _, db = _index_tree(tmp_path, GO_MODULE_CACHE)
    found = {
        (line, name, resolution, home.split("/mod/", 1)[1])
        for line, name, _, resolution, _, home in (
            c[1:] for c in _resolved(db, "r.kind = 0") if c[0] == "app/main.go"
        )
    }
    assert found == {
        (9, "New", "import", "github.com/gin-gonic/gin@v1.8.1/gin.go"),
        (10, "Decode", "import", "github.com/!burnt!sushi/toml@v1.2.0/decode.go"),
        (11, "Run", "import", "github.com/gin-gonic/gin@v1.8.1/gin.go"),
    }, found


RUST_TYPED = {
    # clap in small: two types with a `get_name`, one with a `render`; a trait of the
    # index implemented for `String`.
    "clap/src/builder/command.rs": (
        "pub struct Command;\n\nimpl Command {\n"
        "    pub fn new(name: &str) -> Self {\n        Command\n    }\n\n"
        '    pub fn get_name(&self) -> &str {\n        ""\n    }\n}\n'
    ),
    "clap/src/builder/possible_value.rs": (
        "pub struct PossibleValue;\n\nimpl PossibleValue {\n"
        '    pub fn get_name(&self) -> &str {\n        ""\n    }\n}\n'
    ),
    "clap/src/output/fmt.rs": (
        "pub trait Colorize {\n    fn colorize(&self) -> u8;\n}\n\n"
        "impl Colorize for String {\n    fn colorize(&self) -> u8 {\n        0\n    }\n}\n"
    ),
    "clap/src/output/help.rs": (
        "use crate::builder::command::Command;\n"
        "use crate::builder::possible_value::PossibleValue;\n\n"
        "pub struct Help<'cmd> {\n    cmd: &'cmd Command,\n}\n\n"
        "pub fn render<'cmd>(cmd: &'cmd Command, pv: Option<&PossibleValue>, s: String) {\n"
        "    cmd.get_name();\n"  # 9: a parameter's type through `&'cmd`
        "    if let Some(pv) = pv {\n"
        "        pv.get_name();\n"  # 11: `Option<&T>` read as T (the pattern shadows it)
        "    }\n"
        "    s.len();\n"  # 13: `String` is no type of the index: unresolved
        "    s.colorize();\n"  # 14: but an `impl` of the index for it is
        "    let boxed: Box<PossibleValue> = Box::new(PossibleValue);\n"
        "    boxed.get_name();\n"  # 16: `Box<T>` calls T's methods
        '    let made = Command::new("git");\n'
        "    made.get_name();\n"  # 18: a constructor's `Self`
        "    let lit = PossibleValue {};\n"
        "    lit.get_name();\n"  # 20: a struct literal's type
        "    let names: Vec<&str> = vec![];\n"
        "    names.iter().map(|c: &Command| c.get_name());\n"  # 22: a closure's parameter
        "}\n\n"
        "pub fn any<T: Named>(x: T) {\n"
        "    x.get_name();\n"  # 26: a type parameter names no type: undecided
        "}\n\n"
        "impl<'cmd> Help<'cmd> {\n"
        "    fn title(&self) -> &str {\n"
        "        self.cmd.get_name()\n"  # 31: the struct's field's type
        "    }\n"
        "}\n\n"
        "pub struct Wrapper<P> {\n    inner: P,\n}\n\n"
        "impl<P> Wrapper<P> {\n"
        "    fn name(&self) -> &str {\n"
        "        self.inner.get_name()\n"  # 41: a type parameter: undecided
        "    }\n"
        "}\n"
    ),
}


def test_a_rust_value_declared_with_a_type_calls_its_methods(tmp_path: Path) -> None:
    """clap's `cmd: &'cmd Command` then `cmd.get_name()`: every one of its 66 calls of
    `get_name` on a parameter or a variable of a known type was
    ambiguous between `Command::get_name` and `PossibleValue::get_name`. A parameter's or
    a `let`'s type (through `&'a mut`, `Box`, `Option`), a struct literal's, a
    constructor's (`Command::new(…)`) and, for `self.cmd.x`, the struct's field's name the
    type whose method it is; another crate's type (`String`, `Vec`) has none but what an
    `impl` of the index gives it; a type parameter (`x: T`, `inner: P`) none."""
    _, db = _index_tree(tmp_path, RUST_TYPED)
    found = {
        (line, name, qualifier, resolution, target)
        for line, name, qualifier, resolution, target in _calls_in(db, "clap/src/output/help.rs")
        if name in ("get_name", "len", "colorize")
    }
    assert found == {
        (9, "get_name", "Command()", "import", "Command.get_name"),
        (11, "get_name", "PossibleValue()", "import", "PossibleValue.get_name"),
        (13, "len", "String()", "unresolved", None),
        (14, "colorize", "String()", "import", "String.colorize"),
        (16, "get_name", "PossibleValue()", "import", "PossibleValue.get_name"),
        (18, "get_name", "Command()", "import", "Command.get_name"),
        (20, "get_name", "PossibleValue()", "import", "PossibleValue.get_name"),
        (22, "get_name", "Command()", "import", "Command.get_name"),
        (26, "get_name", "", "ambiguous", None),
        (31, "get_name", "Command()", "import", "Command.get_name"),
        (41, "get_name", "", "ambiguous", None),
    }, found


OBJECT_FIELDS = {
    # Two types with a `get` each; a type whose fields hold one of each.
    "go/srv/client.go": (
        "package srv\n\ntype Client struct{}\n\nfunc (c *Client) Get() {}\n\n"
        "type Cache struct{}\n\nfunc (c *Cache) Get() {}\n"
    ),
    "go/srv/server.go": (
        'package srv\n\nimport "sync"\n\n'
        "type Server struct {\n\tclient *Client\n\tcache  Cache\n\tmu     sync.Mutex\n}\n\n"
        "func (s *Server) Run(other *Server) {\n"
        "\ts.client.Get()\n"  # 12: the field's type's
        "\ts.cache.Get()\n"  # 13
        "\ts.mu.Unlock()\n"  # 14: a package the index lacks: unresolved
        "\tother.client.Get()\n"  # 15: another object's field: undecided
        "}\n"
    ),
    "ts/a.ts": (
        "export class HttpClient {\n  get(url: string): string { return url; }\n}\n"
        "export class Cache {\n  get(key: string): string { return key; }\n}\n"
    ),
    "ts/service.ts": (
        'import { HttpClient, Cache } from "./a";\n\n'
        "export class Service {\n"
        "  private readonly client: HttpClient;\n"
        "  constructor(private cache: Cache) {\n"
        "    this.client = new HttpClient();\n"
        "  }\n"
        "  fetch(u: string) {\n"
        "    this.client.get(u);\n"  # 9: the field's class's
        "    this.cache.get(u);\n"  # 10: a constructor's parameter property's
        "  }\n"
        "}\n"
    ),
    "cpp/client.h": "class Client { public: void get(); };\nclass Cache { public: void get(); };\n",
    "cpp/server.h": (
        '#include "client.h"\n'
        "class Server {\n public:\n  void run() {\n"
        "    client_.get();\n"  # 5: a field declared in the class's body
        "    cache_->get();\n"  # 6: through a pointer
        "    this->client_.get();\n"  # 7
        "  }\n private:\n  Client client_;\n  Cache* cache_;\n};\n"
    ),
    "cpp/owner.cpp": (
        '#include "client.h"\n#include <memory>\n\n'
        "void own(std::unique_ptr<Client> c, std::shared_ptr<Cache> s) {\n"
        "  c->get();\n"  # 5: the pointee's
        "  c.get();\n"  # 6: the pointer's own: the standard library's
        "  s->get();\n"  # 7
        "}\n"
    ),
    "java/Client.java": "class Client { void get() {} }\n",
    "java/Cache.java": "class Cache { void get() {} }\n",
    "java/Server.java": (
        "class Server {\n  private Client client;\n  private Cache cache;\n"
        "  void run() {\n"
        "    this.client.get();\n"  # 5: `this.client` is the field, as `client` is
        "    cache.get();\n"  # 6
        "  }\n}\n"
    ),
}


def test_a_member_of_the_objects_own_field_is_the_fields_types(tmp_path: Path) -> None:
    """Go's `s.client.Get()` in a method whose receiver is `s *Server`, TypeScript's
    `this.client.get(…)` (`private client: HttpClient`, `constructor(private cache:
    Cache)`), Java's `this.client.get()`, C++'s `client_.get()`, `cache_->get()` and
    `this->client_.get()` in a method written in the class's body (Node's V8 headers:
    `isolate_->Enter()` → `Isolate::Enter`), and through a `std::unique_ptr<Client>`'s
    `->` (its `.get()` is the pointer's own): the member of the type the object's field is
    declared with (Go's `net`, `bufio`, `bytes`, `encoding`, cobra: 215 calls linked, 247 links of
    `s.mu.Unlock()` to `transport.go`'s `Unlock` gone — `sync` is not indexed)."""
    _, db = _index_tree(tmp_path, OBJECT_FIELDS)
    found = {
        (path, line, qualifier, resolution, target)
        for path, line, name, qualifier, resolution, target, _ in _resolved(db, "r.kind = 0")
        if name.lower() in ("get", "unlock")
    }
    assert found == {
        ("go/srv/server.go", 12, "Client()", "import", "Client.Get"),
        ("go/srv/server.go", 13, "Cache()", "import", "Cache.Get"),
        ("go/srv/server.go", 14, "sync.Mutex()", "unresolved", None),
        ("go/srv/server.go", 15, "", "ambiguous", None),
        ("ts/service.ts", 9, "HttpClient()", "import", "HttpClient.get"),
        ("ts/service.ts", 10, "Cache()", "import", "Cache.get"),
        ("java/Server.java", 5, "Client()", "import", "Client.get"),
        ("java/Server.java", 6, "Cache()", "import", "Cache.get"),
        ("cpp/server.h", 5, "Client()", "import", "Client.get"),
        ("cpp/server.h", 6, "Cache()", "import", "Cache.get"),
        ("cpp/server.h", 7, "Client()", "import", "Client.get"),
        ("cpp/owner.cpp", 5, "Client()", "import", "Client.get"),
        ("cpp/owner.cpp", 6, "std::unique_ptr()", "unresolved", None),
        ("cpp/owner.cpp", 7, "Cache()", "import", "Cache.get"),
    }, found


PYTHON_BASES = {
    # starlette in small: a generic base class; pydantic's tests in small: a `Bar` of
    # one base in one test file and of another in another.
    "st/datastructures.py": (
        "import typing\n\n_K = typing.TypeVar('_K')\n\n\n"
        "class ImmutableMultiDict(typing.Mapping[_K, str]):\n"
        "    def keys(self):\n        return []\n\n\n"
        "class MultiDict(ImmutableMultiDict[typing.Any, typing.Any]):\n"  # 11
        "    def update(self, other):\n"
        "        value = MultiDict(other)\n"
        "        return value.keys()\n"  # 14: the generic base's
    ),
    "pd/main.py": "class BaseModel:\n    def model_dump(self):\n        return {}\n",
    "pd/root.py": (
        "from pd.main import BaseModel\n\n\n"
        "class RootModel(BaseModel):\n    def model_dump(self):\n        return []\n"
    ),
    "tests/test_root.py": (
        "from pd.root import RootModel\n\n\nclass Bar(RootModel[int]):\n    pass\n"
    ),
    "tests/test_main.py": (
        "from pd.main import BaseModel\n\n\n"
        "def test_dump():\n"
        "    class Bar(BaseModel):\n        c: int\n\n"
        "    m = Bar(c=3)\n"
        "    m.model_dump()\n"  # 9: this file's Bar's base's, not test_root.py's
    ),
}


def test_a_python_generic_base_is_a_base_and_a_files_own_class_is_its_own(
    tmp_path: Path,
) -> None:
    """starlette's `class MultiDict(ImmutableMultiDict[typing.Any, typing.Any])`: the
    subscripted base was no `inherit` reference and its signature's bases read `Any`, so
    `MultiDict(…).keys()` found no member; pydantic's tests' `Bar(BaseModel)` in one file
    and `Bar(RootModel[int])` in another made `m.model_dump()` ambiguous (245 calls of
    pydantic's tests linked once the file's own class's bases come first)."""
    _, db = _index_tree(tmp_path, PYTHON_BASES)
    inherits = {
        (path, line, name, resolution)
        for path, line, name, _, resolution, _, _ in _resolved(db, "r.kind = 2")
    }
    assert ("st/datastructures.py", 11, "ImmutableMultiDict", "local") in inherits
    assert ("tests/test_root.py", 4, "RootModel", "import") in inherits
    calls = {
        (path, line, name, resolution, target)
        for path, line, name, _, resolution, target, _ in _resolved(db, "r.kind = 0")
        if name in ("keys", "model_dump")
    }
    assert calls == {
        ("st/datastructures.py", 14, "keys", "local", "ImmutableMultiDict.keys"),
        ("tests/test_main.py", 9, "model_dump", "import", "BaseModel.model_dump"),
    }, calls


NESTED_CLASSES = {
    # datasets/code's lexer in small: a cursor class nested in the lexer, and another
    # `peek` elsewhere.
    "lex/lexer.py": (
        "class Lexer:\n"
        "    class Cursor:\n"
        "        def peek(self):\n            return ''\n\n"
        "    def __init__(self, text):\n"
        "        self.cursor = Lexer.Cursor(text)\n\n"
        "    def next(self, ctx):\n"
        "        self.cursor.peek()\n"  # 10: the nested class's
        "        sem = ctx.Semaphore(0)\n"
        "        sem.peek()\n"  # 12: a factory's value (lower-case owner): undecided
    ),
    "lex/stream.py": "class Stream:\n    def peek(self):\n        return b''\n",
}


def test_a_python_attribute_bound_to_a_nested_class_calls_its_methods(tmp_path: Path) -> None:
    """`self.cursor = DocQLLexer.Cursor(source)` then `self.cursor.peek()`: `Outer.Inner(…)`
    (capitalised: a class by Python's naming convention) is the nested class, whose
    methods' parent is `Outer.Inner`; it was dropped as a method call's value, and the
    seven `peek` calls of datasets/code's lexer were ambiguous (refs_oracle.py's smoke)."""
    _, db = _index_tree(tmp_path, NESTED_CLASSES)
    found = {c for c in _calls_in(db, "lex/lexer.py") if c[1] == "peek"}
    assert found == {
        (10, "peek", "Lexer.Cursor()", "local", "Lexer.Cursor.peek"),
        (12, "peek", "", "ambiguous", None),
    }, found


RUST_USES = """\
use std::io;
struct Foo { a: u32 }
fn f() -> io::Error {
    let x = Foo { a: 1 };
    todo!()
}
"""


def test_a_paths_last_part_and_a_struct_literals_type_are_type_uses() -> None:
    """`io::Error` and `Foo { a: 1 }` name a type they use (their parent's `name` field
    points at it): not the declaration's own name, which `struct Foo` alone is."""
    from docql_sqlite.ingest.code import parse_code_text

    document = parse_code_text(RUST_USES, "u.rs", "rust")
    found = {(r.name, r.kind, r.line) for r in document.references}
    assert ("Error", "type", 3) in found
    assert ("Foo", "type", 4) in found
    assert not any(name == "Foo" and line == 2 for name, _, line in found)


BUILTINS = {
    # Django in small: the one method named `super`, `tuple` and `set` in the index, and
    # a class named `Warning` that another module imports by name.
    "template/loader_tags.py": "class BlockNode:\n    def super(self):\n        return 1\n",
    "geos/collections.py": "class GeometryCollection:\n    def tuple(self):\n        return ()\n",
    "cache/base.py": "class BaseCache:\n    def set(self, key):\n        return key\n",
    "checks/messages.py": "class Warning:\n    pass\n",
    "app.py": (
        "from template import loader_tags\n"
        "from checks.messages import Warning\n\n\n"
        "class View(Base):\n"
        "    def get(self, objs):\n"
        "        super().get()\n"
        "        seen = set()\n"
        "        return tuple(objs), Warning(), len(seen)\n"
    ),
    # a file that defines a built-in's name uses its own
    "own.py": "def len(x):\n    return 0\n\n\ndef size(x):\n    return len(x)\n",
}


@pytest.mark.parametrize(
    "name, expected",
    [
        # a Python built-in the file neither defines nor imports is the built-in
        ("super", {("app.py:7", "unresolved", "")}),
        ("set", {("app.py:8", "unresolved", "")}),
        ("tuple", {("app.py:9", "unresolved", "")}),
        # imported by name: the import says which definition
        ("Warning", {("app.py:9", "import", "checks/messages.py:1-2")}),
        # defined in the file: its own
        ("len", {("app.py:9", "unresolved", ""), ("own.py:6", "local", "own.py:1-2")}),
    ],
)
def test_a_python_builtin_is_not_another_files_method(
    tmp_path: Path, name: str, expected: set[tuple[str, str, str]]
) -> None:
    """`super()` in Django resolved `unique` to the one method named `super` (1,235
    times), `tuple(x)` to `GeometryCollection.tuple`: a built-in name that a file neither
    defines nor imports is `unresolved` (the built-in), whatever other files define."""
    _, db = _index_tree(tmp_path, BUILTINS)
    found = {
        (c[0].split("/src/", 1)[1], c[1], (c[2] or "").split("/src/")[-1])
        for c in _callers(db, name)
    }
    assert found == expected


COMMONJS = {
    # Two modules define `helper`; a third defines `etag`.
    "lib/util.js": "exports.helper = function () {\n  return 1;\n};\n",
    "lib/other.js": "exports.helper = function () {\n  return 2;\n};\n",
    "lib/etag.js": "exports.etag = function (body) {\n  return body;\n};\n",
    "app.js": (
        'const u = require("./lib/util");\n'
        'const { helper: h } = require("./lib/other");\n'
        'var tag = require("./lib/etag").etag;\n'
        'const path = require("node:path");\n\n'
        "function run() {\n"
        '  return u.helper() + h() + tag("x") + path.join("a");\n'
        "}\n"
    ),
}


def test_a_commonjs_require_binds_its_module_or_names_as_an_import_does(tmp_path: Path) -> None:
    """`const u = require("./lib/util")` binds the module as `u` (as `import * as u`):
    `u.helper()` is util.js's `helper`, by its qualifier; `const { helper: h } =
    require(...)` and `var tag = require(...).etag` bind one name under another, as `{
    helper as h }` does. Before, a require bound nothing and both `helper`s stayed
    ambiguous."""
    _, db = _index_tree(tmp_path, COMMONJS)
    with docql_sqlite.open(db) as index:
        imports = [
            (m["module"], m["names"], m["alias"])
            for m in index.query('$.code.imports[?(@.path endsWith "app.js")]')
        ]
        calls = {
            (r["name"], r["qualifier"], r["resolution"], (r["target"] or "").split("/src/")[-1])
            for r in index.query('$.code.callees("run")')
        }
    assert imports == [
        ("./lib/util", [], "u"),
        ("./lib/other", ["helper"], "h"),
        ("./lib/etag", ["etag"], "tag"),
        ("node:path", [], "path"),
    ]
    assert calls == {
        ("helper", "u", "import", "lib/util.js:1-3"),
        ("h", None, "import", "lib/other.js:1-3"),
        ("tag", None, "import", "lib/etag.js:1-3"),
        ("join", "path", "unresolved", ""),
    }


TOP_LEVEL = {
    # Django in small: one top-level `lower` (a template filter), one `unquote`, a class
    # re-exported by the module a file imports it from, and one method `frobnicate`.
    "template/defaultfilters.py": "def lower(value):\n    return value\n",
    "admin/utils.py": "def unquote(s):\n    return s\n",
    "template/exceptions.py": "class TemplateSyntaxError(Exception):\n    pass\n",
    "template/base.py": "from .exceptions import TemplateSyntaxError\n",
    "widgets.py": "class Widget:\n    def frobnicate(self):\n        return 1\n",
    "template/tags.py": (
        "from urllib.parse import unquote\n"
        "from .base import TemplateSyntaxError\n\n\n"
        "def tag(name, widget):\n"
        "    if name.lower() != unquote(name):\n"
        "        raise TemplateSyntaxError(name)\n"
        "    return widget.frobnicate()\n"
    ),
}


@pytest.mark.parametrize(
    "name, expected",
    [
        # `name.lower()` is str.lower: never the one top-level `lower` of another file
        ("lower", ("unresolved", "")),
        # imported from a module the index lacks: that module's, not admin's
        ("unquote", ("unresolved", "")),
        # imported from a module the index holds, which re-exports it: the definition
        # its import names (followed through the re-export)
        ("TemplateSyntaxError", ("import", "template/exceptions.py:1-2")),
        # a method stays reachable by its name alone (`obj.method()`)
        ("frobnicate", ("unique", "widgets.py:2-3")),
    ],
)
def test_a_python_top_level_definition_is_reached_only_through_an_import(
    tmp_path: Path, name: str, expected: tuple[str, str]
) -> None:
    """Django's 173 `x.lower()` calls resolved `unique` to defaultfilters' `lower`, and
    `from urllib.parse import unquote` to admin's: a top-level definition of another
    Python file is reachable only by importing it, so a name the file neither defines
    nor imports (from a module in the index) does not resolve to one by uniqueness."""
    _, db = _index_tree(tmp_path, TOP_LEVEL)
    found = [
        (c[1], (c[2] or "").split("/src/")[-1])
        for c in _callers(db, name)
        if c[0].split("/src/", 1)[1].startswith("template/tags.py")
    ]
    assert found == [expected]


STDLIB_NAMES = {
    # Django in small: a `date` filter, a nested module named like the standard library's
    # `datetime` (django/db/models/functions/datetime.py), and a file that imports both
    # `date` from the standard library and the filters module.
    # (Each `__init__.py` holds a line here; the test runs again with them empty.)
    "template/__init__.py": (
        "class Registry:\n    def render(self, value):\n        return value\n\n\n"
        "registry = Registry()\n"
    ),
    "template/defaultfilters.py": "def date(value):\n    return value\n",
    "db/__init__.py": '"""Databases."""\n',
    "db/functions/__init__.py": "from .datetime import date\n",
    "db/functions/datetime.py": "def date(value):\n    return value\n",
    "humanize.py": (
        "from datetime import date\n"
        "from template import defaultfilters\n\n\n"
        "def naturalday(value):\n"
        "    if value == date.today():\n"
        "        return date(2000, 1, 1)\n"
        "    return defaultfilters.date(value)\n"
    ),
    "admin_list.py": (
        "import datetime\n"
        "from template import defaultfilters, registry\n\n\n"
        "def day(value):\n"
        "    registry.render(value)\n"
        "    return datetime.date(2000, 1, 1)\n"
    ),
}


@pytest.mark.parametrize("packages", ["with a line", "empty"])
def test_a_name_imported_from_a_module_the_index_lacks_is_that_modules(
    tmp_path: Path, packages: str
) -> None:
    """Django's humanize.py: `date(...)` after `from datetime import date` linked to the
    `date` filter of defaultfilters.py (a file it also imports), and in gdal/field.py, by
    uniqueness, because django/db/models/functions/datetime.py was taken for the module
    `datetime`. A module nested in a package is never named by its last part alone, and a
    name the file imports from a module the index lacks is that module's. An empty
    `__init__.py` (147 of Django's 195) makes a package as well: it is indexed, without
    chunks, where other empty files are skipped."""
    tree = dict(STDLIB_NAMES)
    if packages == "empty":
        tree["db/__init__.py"] = ""
        tree["db/functions/__init__.py"] = "\n"
        tree["db/functions/datetime.py"] = "def date(value):\n    return value\n"
    _, db = _index_tree(tmp_path, tree)
    if packages == "empty":
        rows = query(
            db,
            "SELECT d.path, d.lines, count(c.id) FROM documents d "
            "LEFT JOIN chunks c ON c.doc_id = d.id WHERE d.path LIKE '%/db/%__init__.py' "
            "GROUP BY d.id ORDER BY d.path",
        )
        # The blank one keeps its line as a chunk (chunks tile the text), no search passage.
        assert [(p.split("/src/", 1)[1], n, c) for p, n, c in rows] == [
            ("db/__init__.py", 0, 0),
            ("db/functions/__init__.py", 1, 1),
        ]
    found = sorted(
        (c[0].split("/src/", 1)[1], c[1], (c[2] or "").split("/src/")[-1])
        for c in _callers(db, "date")
        if "humanize.py" in c[0]
    )
    assert found == [
        ("humanize.py:7", "unresolved", ""),  # date(2000, 1, 1): the standard library's
        ("humanize.py:8", "import", "template/defaultfilters.py:1-2"),
    ]
    # `datetime.date(...)` after `import datetime`: that module's too, even though the
    # file imports defaultfilters, which defines a `date`.
    qualified = [c[1] for c in _callers(db, "date") if "admin_list.py" in c[0]]
    assert qualified == ["unresolved"]
    # An object imported from a module the index holds (`registry`) is no module of
    # its own: `registry.render` still finds the method.
    render = [(c[1], (c[2] or "").split("/src/")[-1]) for c in _callers(db, "render")]
    assert render == [("import", "template/__init__.py:2-3")]


def test_the_python_built_ins_are_written_out_and_cover_this_interpreters() -> None:
    """The resolver's built-in names are a literal (an index must not depend on the Python
    that built it) and hold every public name of this interpreter's `builtins`."""
    import builtins

    from docql_sqlite.ingest import resolve

    here = {name for name in dir(builtins) if not name.startswith("_")}
    assert here <= resolve._BUILTINS["python"]
    assert {"super", "len", "tuple", "isinstance"} <= resolve._BUILTINS["python"]


OTHER_OBJECTS = {
    # express: `app.handle` calls the router's `handle`, a method of another object.
    "lib/application.js": (
        "var Router = require('./router');\n"
        "var app = exports = module.exports = {};\n\n"
        "app.handle = function handle(req, res) {\n"
        "  var router = this._router;\n"
        "  router.handle(req, res);\n"
        "  this.handle(req, res);\n"
        "};\n"
    ),
    "lib/router/index.js": (
        "var proto = module.exports = {};\n\n"
        "proto.handle = function handle(req, res) {\n  return req;\n};\n"
    ),
    # Django: registry.py defines `get_models` and calls an AppConfig's, imported for it.
    "apps/config.py": (
        "class AppConfig:\n    def get_models(self):\n        return []\n\n"
        "    def save(self):\n        return 1\n"
    ),
    "apps/registry.py": (
        "from .config import AppConfig\n\n\n"
        "class Apps:\n"
        "    def get_models(self):\n"
        "        return [m for c in self.configs for m in c.get_models()]\n\n"
        "    def all(self):\n"
        "        return self.get_models()\n\n"
        "    def save(self):\n"
        "        return super().save()\n"
    ),
}


def test_a_member_of_another_object_is_not_the_files_own_definition(tmp_path: Path) -> None:
    """`router.handle(...)` inside express's `app.handle` linked to `app.handle` itself
    (the file's own `handle`), `c.get_models()` in Django's registry.py to `Apps.get_models`:
    a member of another object than `self`/`this` skips the local rule and resolves by
    the files the file imports (the receiver's class is imported for it), else uniquely,
    else stays ambiguous; `self.x`/`this.x` keep the local rule; `super().save()` is
    never the class's own."""
    _, db = _index_tree(tmp_path, OTHER_OBJECTS)

    def links(name: str) -> list[tuple[str, str, str]]:
        return sorted(
            (c[0].split("/src/", 1)[1], c[1], (c[2] or "").split("/src/")[-1])
            for c in _callers(db, name)
            if not c[0].endswith((":1", ":1-1"))
        )

    assert links("handle") == [
        ("lib/application.js:6", "import", "lib/router/index.js:3-5"),
        ("lib/application.js:7", "local", "lib/application.js:4-8"),
    ]
    assert links("get_models") == [
        ("apps/registry.py:6", "import", "apps/config.py:2-3"),
        ("apps/registry.py:9", "local", "apps/registry.py:5-6"),
    ]
    # `class Apps:` has no base: `super().save()` is `object`'s, none of the index (not
    # AppConfig.save, the one other `save`, as the rule of another object's member had it;
    # `super()` with bases: test_super_is_the_enclosing_classs_bases).
    assert links("save") == [("apps/registry.py:12", "unresolved", "")]


RUST_MEMBERS = {
    # clap in small: two builder types with a `required` method each, in one folder
    "clap/src/builder/arg.rs": "pub struct Arg;\n\nimpl Arg {\n"
    "    pub fn required(self, yes: bool) -> Self {\n        self\n    }\n}\n",
    "clap/src/builder/arg_group.rs": "use crate::builder::IntoResettable;\n\n"
    "pub struct ArgGroup;\n\nimpl ArgGroup {\n"
    "    pub fn new(name: &str) -> Self {\n        ArgGroup\n    }\n\n"
    "    pub fn required(self, yes: bool) -> Self {\n        self\n    }\n}\n\n"
    # (`impl Sized`: a value of no type the rules could name, `code_refs._rust_type`)
    "mod test {\n    use super::*;\n\n    fn groups(g: impl Sized) {\n"
    "        let g = g.required(true);\n    }\n}\n",
    "clap/src/builder/resettable.rs": "pub trait IntoResettable {}\n",
    # imports the type by name, but two types of builder/ have a `required`: either
    "clap/src/parser/validator.rs": "use crate::builder::Arg;\n\n"
    "fn check(arg: impl Sized) -> Arg {\n    arg.required(true)\n}\n",
    # one `render` under output/, whose type the file imports: that one
    "clap/src/output/help.rs": "pub struct Help;\n\nimpl Help {\n"
    "    pub fn render(&self) -> u8 {\n        0\n    }\n}\n",
    "clap/src/parser/error.rs": "use crate::output::Help;\n\n"
    "fn show(h: impl Sized) -> u8 {\n    h.render()\n}\n",
    # imports the folder whole: both types
    "clap/src/output/usage.rs": "use crate::builder::*;\n\n"
    "fn usage(arg: impl Sized) -> Arg {\n    arg.required(false)\n}\n",
}


def test_a_rust_member_of_a_value_is_the_imported_types(tmp_path: Path) -> None:
    """`g.required(true)` (on an `ArgGroup`) in a test module of arg_group.rs was linked to
    `Arg::required` of builder/arg.rs, because the file's `use crate::builder::
    IntoResettable` counted every file under builder/ as imported (clap 4.0.32: 49 such
    links, all wrong; Rust's library: 50). A `use` imports items: a value's member is the
    folder's one only when the file imports its type by name, or its module with `*`
    (taking the imported type's member where the folder holds several linked pyo3's
    `float.into_py(py)` to a local type's `into_py` in pydantic-core: not done)."""
    _, db = _index_tree(tmp_path, RUST_MEMBERS)
    links = sorted(
        (c[0].split("/src/")[-1], c[1], (c[2] or "").split("/src/")[-1])
        for name in ("required", "render")
        for c in _callers(db, name)
    )
    assert links == [
        ("builder/arg_group.rs:19", "ambiguous", ""),
        ("output/usage.rs:4", "ambiguous", ""),  # `*` takes both types: either one
        ("parser/error.rs:4", "import", "output/help.rs:4-6"),
        ("parser/validator.rs:4", "ambiguous", ""),
    ], links


RUST_BUILDERS = {
    "src/arg.rs": "pub struct Arg;\n\nimpl Arg {\n"
    "    pub fn new(id: &str) -> Self {\n        Arg\n    }\n"
    "    pub fn index(self, i: usize) -> Self {\n        self\n    }\n"
    "    pub fn required(self, yes: bool) -> Self {\n        self\n    }\n}\n\n"
    'fn pos() -> Arg {\n    Arg::new("pos").index(1).required(true)\n}\n',
    "src/group.rs": "pub struct ArgGroup;\n\nimpl ArgGroup {\n"
    "    pub fn new(id: &str) -> Self {\n        ArgGroup\n    }\n"
    "    pub fn required(self, yes: bool) -> Self {\n        self\n    }\n"
    "    pub fn get_matches(self) -> Matches {\n        Matches\n    }\n}\n\n"
    "pub struct Matches;\n\nimpl Matches {\n"
    "    pub fn index(&self) -> usize {\n        0\n    }\n}\n\n"
    'fn group() -> usize {\n    ArgGroup::new("g").required(true);\n'
    '    ArgGroup::new("h").get_matches().index()\n}\n',
}


def test_a_rust_builder_chain_calls_its_types_methods(tmp_path: Path) -> None:
    """`Arg::new("pos").index(1).required(true)`: a builder's methods return `Self`, so a
    method called on a chain begun by `Type::f(…)` is that type's when it has one by
    that name (qualifier `Arg()`); before, each was another object's, ambiguous between
    `Arg::required` and `ArgGroup::required` (clap 4.0.32: 313 links, all sampled
    right). When the type has no such member the chain changed type
    (`get_matches().index()`): the usual rules decide."""
    _, db = _index_tree(tmp_path, RUST_BUILDERS)
    with docql_sqlite.open(db) as index:
        found = sorted(
            (
                r["location"].split("/src/")[-1],
                r["name"],
                r["qualifier"],
                r["resolution"],
                (r["target"] or "").split("/src/")[-1],
            )
            for name in ("required", "index")
            for r in index.query(f'$.code.callers("{name}")')
        )
    assert found == [
        ("src/arg.rs:16", "index", "Arg()", "local", "src/arg.rs:7-9"),
        ("src/arg.rs:16", "required", "Arg()", "local", "src/arg.rs:10-12"),
        ("src/group.rs:24", "required", "ArgGroup()", "local", "src/group.rs:7-9"),
        ("src/group.rs:25", "index", "ArgGroup()", "ambiguous", ""),
    ], found


FROM_A_PACKAGE = {
    # Flask in small: the package re-exports a helper, and a class under the same folder
    # has a method of the same name; an example imports the helper from the package.
    "flask/__init__.py": "from .helpers import url_for as url_for\n",
    "flask/helpers.py": "def url_for(endpoint):\n    return endpoint\n",
    "flask/app.py": ("class Flask:\n    def url_for(self, endpoint):\n        return endpoint\n"),
    "examples/auth.py": (
        "from flask import url_for\n\n\ndef login():\n    return url_for('index')\n"
    ),
}


def test_a_name_imported_from_a_package_is_its_top_level_definition(tmp_path: Path) -> None:
    """Flask's examples: `url_for(...)` after `from flask import url_for` was ambiguous
    between helpers.py's function and the method `Flask.url_for` (both under flask/),
    while `flask.url_for(...)` after `import flask` resolved to the function. A module
    exports top-level names: the one top-level `url_for` of the package's files is it."""
    _, db = _index_tree(tmp_path, FROM_A_PACKAGE)
    found = [
        (c[0].split("/src/", 1)[1], c[1], (c[2] or "").split("/src/")[-1])
        for c in _callers(db, "url_for")
        if "auth.py" in c[0]
    ]
    assert found == [("examples/auth.py:5", "import", "flask/helpers.py:1-2")]


FUNCTION_LOCAL = {
    # pytest in small: a test defines a class inside its function, and a library module
    # uses the same name for a TypeVar (an assignment, no symbol); a helper defined
    # inside one function is called by name from another function of its file.
    "lib/code.py": (
        'E = TypeVar("E")\n\n\n'
        "class Info:\n    def __init__(self, exc: E) -> None:\n        self.exc = exc\n"
    ),
    "tests/test_raises.py": (
        "def test_inflight():\n"
        "    class E(Exception):\n        pass\n\n"
        "    def check():\n        raise E()\n\n"
        "    raise E()\n"
    ),
    "lib/util.py": (
        "def outer():\n    def fin():\n        return 1\n\n    return fin()\n\n\n"
        "def other():\n    return fin()\n"
    ),
    "web/app.js": (
        "function outer() {\n  function inner() { return 1; }\n  return inner();\n}\n\n"
        "function other() {\n  return inner();\n}\n"
    ),
    # Flask's tests: a class defined in a test function; its method `add` was the one
    # `add` of the index for `x.add(...)` in the library.
    "tests/test_ns.py": (
        "def test_ns():\n    class Namespace:\n        def add(self, x):\n            return x\n\n"
        "        def twice(self, x):\n            return self.add(x) + self.add(x)\n\n"
        "    return Namespace().twice(1)\n"
    ),
    "lib/app.py": "def build(names):\n    names.add('x')\n",
    # express: a method assigned to a constructor function's prototype, outside its body,
    # is a member of it, not a name of its body.
    "web/route.js": (
        "function Route(path) {\n  this.path = path;\n}\n\n"
        "Route.prototype.dispatch = function dispatch(req) {\n  return req;\n};\n\n"
        "module.exports = Route;\n"
    ),
    "web/server.js": (
        "const Route = require('./route');\n\nfunction handle(r) {\n  return r.dispatch(1);\n}\n"
    ),
}


def test_a_definition_inside_a_function_is_seen_only_inside_it(tmp_path: Path) -> None:
    """pytest's `_code/code.py` uses `E` (a TypeVar) as a type: every use linked to the
    one class `E` defined inside a test function of another file (`unique`), and the
    repository map ranked that test's class among pytest's most central symbols. A class
    or function defined in a function's body is a name of that body only: it resolves
    references inside it (and its nested functions), in Python as in JavaScript, and
    nothing outside — not in another file, not elsewhere in its own."""
    _, db = _index_tree(tmp_path, FUNCTION_LOCAL)
    with docql_sqlite.open(db) as index:
        found = sorted(
            (r["location"].split("/src/", 1)[1], r["kind"], r["resolution"], r["target"])
            for name in ("E", "fin", "inner", "add", "dispatch")
            for r in index.query(f'$.code.references("{name}")')
        )
    target = {
        "E": "tests/test_raises.py:2-3",
        "fin": "lib/util.py:2-3",
        "inner": "web/app.js:2",
        "add": "tests/test_ns.py:3-4",
        "dispatch": "web/route.js:5-7",
    }

    def local(name: str) -> str:
        return str(tmp_path / "src" / target[name])

    assert found == sorted(
        [
            ("lib/app.py:2", "call", "unresolved", None),
            ("lib/code.py:5", "type", "unresolved", None),
            ("lib/util.py:5", "call", "local", local("fin")),
            ("lib/util.py:9", "call", "unresolved", None),
            ("tests/test_raises.py:6", "call", "local", local("E")),
            ("tests/test_ns.py:7", "call", "local", local("add")),
            ("tests/test_ns.py:7", "call", "local", local("add")),
            ("tests/test_raises.py:8", "call", "local", local("E")),
            ("web/app.js:3", "call", "local", local("inner")),
            ("web/app.js:7", "call", "unresolved", None),
            ("web/server.js:4", "call", "import", local("dispatch")),
        ]
    )


REEXPORTS = {
    # pytest in small: the public package re-exports what the private one defines, once
    # under another name; another module has a method of the same name, and two packages
    # re-export each other's name (a cycle, which must end).
    "pytest/__init__.py": (
        "from _pytest.python_api import raises\n"
        "from _pytest.python_api import approx as approx\n"
        "from _pytest.outcomes import skip as skip_test\n"
        "from cyc_a import loop\n"
    ),
    "_pytest/__init__.py": "",
    "_pytest/python_api.py": (
        "@overload\ndef raises(exc: type) -> int: ...\n\n\n"
        "@overload\ndef raises(exc: type, func: object) -> str: ...\n\n\n"
        "def raises(exc, func=None):\n    return exc\n\n\ndef approx(x):\n    return x\n"
    ),
    "_pytest/outcomes.py": "def skip(reason):\n    return reason\n",
    "_pytest/other.py": (
        "class Checker:\n    def raises(self):\n        return 1\n\n"
        "    def approx(self):\n        return 2\n\n    def loop(self):\n        return 3\n\n\n"
        "class Other:\n    def loop(self):\n        return 4\n"
    ),
    "cyc_a/__init__.py": "from cyc_b import loop\n",
    "cyc_b/__init__.py": "from cyc_a import loop\n",
    "testing/test_x.py": (
        "import pytest\nfrom pytest import approx\n\n\ndef test_a():\n"
        "    pytest.raises(ValueError)\n    pytest.skip_test('no')\n    approx(1)\n"
        "    pytest.loop()\n"
    ),
}


def test_a_name_a_package_re_exports_is_the_definition_it_imports(tmp_path: Path) -> None:
    """pytest's own tests call `pytest.raises(...)` 397 times: `pytest/__init__.py`
    defines no `raises` but imports it from `_pytest.python_api`, and every use was
    ambiguous (a method `raises` elsewhere). A module's import of a name is followed to
    the definition it imports, through renames and other re-exports; a cycle of
    re-exports decides nothing. Overloads (`@overload` twice, then the implementation)
    are one name of their module: the implementation, last."""
    _, db = _index_tree(tmp_path, REEXPORTS)
    with docql_sqlite.open(db) as index:
        found = sorted(
            (r["location"].split("/src/", 1)[1], r["resolution"], r["target"])
            for name in ("raises", "skip_test", "approx", "loop")
            for r in index.query(f'$.code.callers("{name}")')
        )

    def at(where: str) -> str:
        return str(tmp_path / "src" / where)

    # `raises` at its implementation, after its two overloads
    assert found == [
        ("testing/test_x.py:6", "import", at("_pytest/python_api.py:9-10")),
        ("testing/test_x.py:7", "import", at("_pytest/outcomes.py:1-2")),
        ("testing/test_x.py:8", "import", at("_pytest/python_api.py:13-14")),
        ("testing/test_x.py:9", "ambiguous", None),
    ]
    # The package stops re-exporting `raises`: its uses elsewhere are decided again.
    init = tmp_path / "src" / "pytest" / "__init__.py"
    init.write_text(init.read_text().replace("from _pytest.python_api import raises\n", ""))
    docql_sqlite.index(db, [str(tmp_path / "src")])
    assert [(c[1], c[2]) for c in _callers(db, "raises") if "test_x.py:6" in c[0]] == [
        ("ambiguous", None)
    ]


BARRELS = {
    # zod in small: a namespace import of a barrel file whose names come from star and
    # named re-exports (one renamed), and a class with a method named like a re-export.
    "ts/core/util.ts": "export function clone(x: number): number {\n  return x;\n}\n",
    "ts/core/checks.ts": "export function _lte(x: number): number {\n  return x;\n}\n",
    "ts/core/schemas.ts": (
        'export { clone } from "./util.js";\n'
        "export class ZodType {\n  clone(): ZodType {\n    return this;\n  }\n}\n"
    ),
    "ts/core/index.ts": (
        'export * from "./schemas.js";\nexport * as util from "./util.js";\n'
        'export { _lte as maximum } from "./checks.js";\n'
    ),
    "ts/classic/schemas.ts": (
        'import * as core from "../core/index.js";\n\n'
        "export function make(x: number): number {\n"
        "  return core.clone(x) + core.maximum(x);\n}\n"
    ),
    # two star re-exports that both hold `dup`: JavaScript leaves the name out
    "ts/a.ts": "export function dup(): number {\n  return 1;\n}\n",
    "ts/b.ts": "export function dup(): number {\n  return 2;\n}\n",
    "ts/both.ts": 'export * from "./a.js";\nexport * from "./b.js";\n',
    "ts/use.ts": 'import * as both from "./both.js";\n\nboth.dup();\n',
}


def test_a_barrel_files_re_exports_lead_to_their_definitions(tmp_path: Path) -> None:
    """zod's `core.clone(…)` (`import * as core from "../core/index.js"`) was ambiguous
    with the method `ZodType.clone`: core/index.ts defines nothing; it re-exports
    (`export * from "./schemas.js"`, where `export { clone } from "./util.js"`). Re-exports
    are import rows now, and resolution follows them as Python's; two star re-exports
    holding the name decide nothing."""
    _, db = _index_tree(tmp_path, BARRELS)
    with docql_sqlite.open(db) as index:
        found = sorted(
            (r["location"].split("/src/", 1)[1], r["resolution"], r["target"])
            for name in ("clone", "maximum", "dup")
            for r in index.query(f'$.code.callers("{name}")')
        )
        exported = {
            (r["path"].split("/src/", 1)[1], r["module"], tuple(r["names"]), r.get("alias"))
            for r in index.query("$.code.imports")
            if "core/index.ts" in r["path"]
        }

    def at(where: str) -> str:
        return str(tmp_path / "src" / where)

    assert found == [
        ("ts/classic/schemas.ts:4", "import", at("ts/core/checks.ts:1-3")),  # maximum
        ("ts/classic/schemas.ts:4", "import", at("ts/core/util.ts:1-3")),  # clone
        ("ts/use.ts:3", "ambiguous", None),
    ]
    assert exported == {
        ("ts/core/index.ts", "./schemas.js", ("*",), None),
        ("ts/core/index.ts", "./util.js", ("*",), "util"),
        ("ts/core/index.ts", "./checks.js", ("_lte",), "maximum"),
    }

    # The barrel drops its star line, then takes it back: the uses through it follow
    # (the writer queues a mark for a star, which the pass turns into the names it carries).
    def clone_link() -> tuple[str, str | None]:
        with docql_sqlite.open(db) as index:
            (row,) = [r for r in index.query('$.code.callers("clone")')]
            return row["resolution"], row["target"]

    barrel = tmp_path / "src" / "ts" / "core" / "index.ts"
    text = barrel.read_text()
    for content, expected in [
        (text.replace('export * from "./schemas.js";\n', ""), ("ambiguous", None)),
        (text, ("import", at("ts/core/util.ts:1-3"))),
    ]:
        barrel.write_text(content)
        docql_sqlite.index(db, [str(tmp_path / "src")])
        assert clone_link() == expected


TYPE_MEMBERS = {
    # pydantic-core in small: `ValError::new` in a file whose own `JsonArgs` has a `new`.
    "core/src/errors/mod.rs": "mod line_error;\npub use self::line_error::ValError;\n",
    "core/src/errors/line_error.rs": (
        "pub struct ValError;\n\nimpl ValError {\n    pub fn new() -> Self {\n        ValError\n"
        "    }\n}\n"
    ),
    "core/src/definitions.rs": "pub fn add() {}\n",
    "core/src/sys/unix/mod.rs": "pub fn cleanup() {}\n",
    # an inline `mod net` of another file: not `crate::net`
    "core/src/sys/l4re.rs": "pub mod net {\n    pub struct TcpStream;\n}\n",
    "core/src/net/tcp.rs": "pub struct TcpStream;\n",
    "core/src/sys/unix/net.rs": "pub struct TcpStream;\n",
    "core/src/sys/wasi/net.rs": "pub struct TcpStream;\n",
    "core/src/collections.rs": (
        "pub struct VecDeque;\n\nimpl VecDeque {\n    fn copy_nonoverlapping(&self) {}\n\n"
        "    fn len(&self) -> usize {\n        0\n    }\n}\n"
    ),
    "core/src/input.rs": (
        "use std::sync::Arc;\nuse crate::errors::ValError;\nuse crate::definitions;\n"
        "use crate::{net, ptr, sys};\n\n"
        "pub struct JsonArgs;\n\nimpl JsonArgs {\n"
        "    pub fn new() -> Self {\n        JsonArgs\n    }\n\n"
        "    pub fn len(&self) -> usize {\n        0\n    }\n\n"
        # (slices: values of no type the rules could name, `code_refs._rust_type`)
        "    pub fn run(&self, definitions: &[u8], other: &[u8]) {\n"
        "        let e = ValError::new();\n"  # line 18: ValError's member
        "        let a = Arc::new(1);\n"  # 19: a type of another crate: unresolved
        "        definitions.add();\n"  # 20: a variable named like a module
        "        other.len();\n"  # 21: another object's `len`: not JsonArgs'
        "        self.len();\n"  # 22: its own
        "        ptr::copy_nonoverlapping();\n"  # 23: a module's item, not a method
        "        sys::cleanup();\n"  # 24: in a file under sys/
        "        inner::exit();\n"  # 25: the file's inline module's (no import: no qualifier)
        "        let j = JsonArgs::new();\n"  # 26: a type of the file, by its path
        "        let k = Self::new();\n"  # 27: the method's own type
        "        let r: Result<u8, u8> = Err(1);\n"  # 28: not the `impl`'s `type Err`
        "        let t: net::TcpStream;\n"  # 29: one of the net files', not l4re.rs's inline one
        "    }\n}\n\n"
        "mod inner {\n    pub fn exit() {}\n}\n\n"
        "impl std::str::FromStr for JsonArgs {\n    type Err = u8;\n}\n"
    ),
    # Python: two classes named Field; the file imports the forms one.
    "dj/forms/fields.py": "class Field:\n    def clean(self):\n        return 1\n",
    "dj/db/fields/__init__.py": "class Field:\n    def clean(self):\n        return 2\n",
    "dj/forms/models.py": (
        "from dj.forms.fields import Field\n\n\n"
        "class ModelField(Field):\n"
        "    def clean(self):\n"
        "        return Field.clean(self)\n"  # line 6
    ),
}


def test_a_member_named_through_its_type_is_that_types(tmp_path: Path) -> None:
    """`Type::name` / `Type.name` with `Type` imported is a member of that type
    (`_member_of_type`): pydantic-core's `ValError::new(...)` linked `local` to the file's
    own `JsonArgs::new` (96 such links there), Django's `Field.__init__(self)` to
    `ModelChoiceField.__init__`; a Rust type with no such member in the index
    (`Arc::new`) is another crate's (unresolved). Rust's `module::name` is an item of
    that module (`_item_of_module`: an inline `mod`, a file under its folder), never a
    type's method (Rust's library linked `ptr::copy_nonoverlapping` to
    `VecDeque::copy_nonoverlapping`). In Rust only `::` names a module's item:
    `definitions.add()` is a method of a variable, and `other.len()` another object's
    (`self` alone is the method's own: qualifier `self`; `Self::new()` qualifier `Self`);
    a bare name is never a type's member (`Err(1)` is not the `impl`'s `type Err`)."""
    _, db = _index_tree(tmp_path, TYPE_MEMBERS)
    found = {
        (path, line, name, qualifier, resolution, target) + ((home,) if home else ())
        for path, line, name, qualifier, resolution, target, home in _resolved(db, "r.kind != 3")
        if path.endswith(("input.rs", "models.py"))
        and name
        in {
            "new",
            "add",
            "len",
            "clean",
            "copy_nonoverlapping",
            "cleanup",
            "exit",
            "Err",
            "TcpStream",
        }
    }
    assert found == {
        ("core/src/input.rs", 18, "new", "ValError", "import", "ValError.new")
        + ("core/src/errors/line_error.rs",),
        ("core/src/input.rs", 19, "new", "Arc", "unresolved", None),
        ("core/src/input.rs", 20, "add", OTHER_OBJECT, "unresolved", None),
        ("core/src/input.rs", 21, "len", OTHER_OBJECT, "ambiguous", None),
        ("core/src/input.rs", 22, "len", "self", "local", "JsonArgs.len", "core/src/input.rs"),
        ("core/src/input.rs", 23, "copy_nonoverlapping", "ptr", "unresolved", None),
        ("core/src/input.rs", 24, "cleanup", "sys", "import", "cleanup")
        + ("core/src/sys/unix/mod.rs",),
        ("core/src/input.rs", 25, "exit", None, "local", "inner.exit", "core/src/input.rs"),
        ("core/src/input.rs", 26, "new", "JsonArgs", "local", "JsonArgs.new", "core/src/input.rs"),
        ("core/src/input.rs", 27, "new", "Self", "local", "JsonArgs.new", "core/src/input.rs"),
        ("core/src/input.rs", 28, "Err", None, "unresolved", None),
        ("core/src/input.rs", 29, "TcpStream", "net", "ambiguous", None),
        ("dj/forms/models.py", 6, "clean", "Field", "import", "Field.clean")
        + ("dj/forms/fields.py",),
    }, found


RUST_MACRO_TOKENS = """\
macro_rules! check {
    ($e:expr) => {
        #[derive(Debug)]
        struct Local;
        fn helper(x: u8) -> u8 { x }
        if (a) { return (b) }
        let v = $e(1);
        Err(ValError::new(tri!(parse(v))))
    };
}
#[cfg_attr(test, derive(Debug))]
#[pyo3(signature = (input, strict=None))]
fn t() {
    assert_eq!(compute(1), Foo::new(2));
    let v = vec![a.len(), b];
    let w = m! { x[0] };
}
"""


def test_calls_among_a_macros_tokens_are_references() -> None:
    """The grammar leaves a macro's arguments and a `macro_rules!` body as token trees:
    a call there (`assert_eq!(compute(1), …)`, `vec![a.len()]`, pydantic-core's
    `ValError::new(…)` in its macros: 10 of its 209 calls) was no reference. A name right
    before `( … )` is one (a macro's with its `!`), with its qualifier; a definition
    (`fn helper(`), an attribute's tokens (`derive(Debug)`, `signature = (…)`), a keyword
    (`if (a)`), `$e(1)` and an index (`x[0]`) are not."""
    from docql_sqlite.ingest.code import parse_code_text

    document = parse_code_text(RUST_MACRO_TOKENS, "m.rs", "rust")
    calls = {(r.name, r.line) for r in document.references if r.kind == "call"}
    assert calls == {
        ("Err", 8),
        ("new", 8),
        ("tri!", 8),
        ("parse", 8),
        ("assert_eq!", 14),
        ("compute", 14),
        ("new", 14),
        ("vec!", 15),
        ("len", 15),
        ("m!", 16),
    }, calls
    qualifiers = {(r.name, r.line): r.qualifier for r in document.references}
    assert qualifiers[("new", 8)] == "ValError" and qualifiers[("new", 14)] == "Foo"
    assert qualifiers[("len", 15)] == OTHER_OBJECT


OWN_CLASSES = {
    # Django's writer.py in small: two classes of one file with a `serialize` each.
    "writer.py": (
        "class OperationWriter:\n"
        "    def serialize(self):\n"
        "        return MigrationWriter.serialize(1)\n"  # line 3: the other class's
        "\n\n"
        "class MigrationWriter:\n"
        "    @classmethod\n"
        "    def serialize(cls, value):\n"
        "        return value\n"
    ),
}


def test_a_member_of_a_class_of_the_file_is_that_classs(tmp_path: Path) -> None:
    """`MigrationWriter.serialize(…)` inside `OperationWriter.serialize` linked to the
    caller itself (the file's rule picks the caller's own class first): the class named
    in front of it decides (qualifier `MigrationWriter`, `_member_of_type`)."""
    _, db = _index_tree(tmp_path, OWN_CLASSES)
    calls = [c for c in _callers(db, "serialize") if ":3" in c[0]]
    assert [(c[1], (c[2] or "").split("/src/")[-1]) for c in calls] == [
        ("local", "writer.py:8-9")
    ], calls


BUILT_IN_METHODS = {
    # sqlglot in small: the one `get` of the index is a classmethod of a dialect class,
    # and `e.args.get(…)` is a dict's.
    "sg/dialect.py": (
        "class Dialect:\n    @classmethod\n    def get(cls, name):\n        return name\n"
    ),
    "sg/transforms.py": (
        "from sg.dialect import Dialect\n\n\n"
        "def move(e, lines):\n"
        "    lines.append(e.args.get('on'))\n"  # line 5: a dict's and a list's
        "    return e.dialect_of()\n"  # 6: no built-in type has it: the index's
    ),
    "sg/reporter.py": (
        "class Reporter:\n    def append(self, x):\n        return x\n\n"
        "    def dialect_of(self):\n        return 1\n"
    ),
    "web/list.js": "class Stack {\n  push(x) { return x; }\n}\nfunction f(a) {\n  a.push(1);\n}\n",
    "rs/src/url.rs": (
        "pub struct Parts;\n\nimpl Parts {\n    pub fn is_empty(&self) -> bool {\n        true\n"
        "    }\n}\n\npub fn check(errors: &[u8]) -> bool {\n    errors.is_empty()\n}\n"
    ),
}


def test_a_built_in_types_method_on_another_object_is_not_linked(tmp_path: Path) -> None:
    """`e.args.get(…)`, `lines.append(…)`, JavaScript's `a.push(1)`, Rust's
    `errors.is_empty()`: a method that the language's built-in types have, called on a
    value whose type is not known, was linked to the index's one definition of that name
    (sqlglot's 888 `.get(…)` all to `Dialect.get`): it stays `ambiguous`. A name no
    built-in type has keeps the rules (`e.dialect_of()` → the index's one)."""
    _, db = _index_tree(tmp_path, BUILT_IN_METHODS)
    found = {
        (path, line, name, resolution)
        for path, line, name, _, resolution, _, _ in _resolved(
            db, "r.kind = 0 AND r.qualifier = ''"
        )
    }
    assert found == {
        ("sg/transforms.py", 5, "append", "ambiguous"),
        ("sg/transforms.py", 5, "get", "ambiguous"),
        ("sg/transforms.py", 6, "dialect_of", "unique"),
        ("web/list.js", 5, "push", "ambiguous"),
        ("rs/src/url.rs", 10, "is_empty", "ambiguous"),
    }, found


GENERIC_PARAMETERS = [
    # (language, file name, source, the type uses expected as (name, line))
    (
        "rust",
        "vec.rs",
        "use core::fmt;\n"
        "impl<T, A: Allocator> Vec<T, A> {\n"
        "    fn into<B>(self, b: B) -> A { let x: T; }\n"
        "}\n"
        "fn outside() -> A { }\n"
        "impl<BorrowType: marker::BorrowType> Handle<BorrowType> { }\n",
        {("Allocator", 2), ("Vec", 2), ("A", 5), ("BorrowType", 6), ("Handle", 6)},
    ),
    (
        "typescript",
        "c.ts",
        "class C<T extends Base> {\n  m<V>(v: V): T { return v as T; }\n}\nlet t: T;\n",
        {("Base", 1), ("T", 4)},
    ),
    (
        "java",
        "C.java",
        "class C<T extends Base> {\n  <V> V m(T t) { return null; }\n}\n",
        {("Base", 1)},
    ),
    ("go", "l.go", "package p\n\ntype L[T any] struct{ x T }\n\nvar y T\n", {("T", 5)}),
    (
        "cpp",
        "f.cpp",
        "template <typename T>\nT f(Arg a) { return T(); }\nT g();\n",
        {("Arg", 2), ("T", 3)},
    ),
]


@pytest.mark.parametrize(("language", "name", "source", "expected"), GENERIC_PARAMETERS)
def test_a_type_parameter_is_no_reference_inside_its_declaration(
    language: str, name: str, source: str, expected: set[tuple[str, int]]
) -> None:
    """`impl<T, A: Allocator> Vec<T, A>` declares `A`: its uses inside the `impl` name no
    definition (Rust's library linked the allocator parameter `A` 545 times to a test's
    `struct A`). The declaration and its uses inside its owner are not recorded; the
    same name outside it is a type use as before."""
    from docql_sqlite.ingest.code import parse_code_text

    document = parse_code_text(source, name, language)
    found = {(r.name, r.line) for r in document.references if r.kind == "type"}
    assert found == expected, found


def test_a_rust_type_binding_or_associated_type_names_no_type() -> None:
    """`Item` in `Iterator<Item = u8>` and in a trait's `type Item;` is a name those
    declare, not a use of a type `Item` (the query marks them `@own`; the tree is not
    asked for each type name's parent); a real use of `Item` still is one."""
    from docql_sqlite.ingest.code import parse_code_text

    source = (
        "struct Item;\n"  # 1
        "trait Shape {\n"  # 2
        "    type Item;\n"  # 3: declares Item
        "    fn bytes(&self) -> Box<dyn Iterator<Item = u8>>;\n"  # 4: binds Item
        "}\n"  # 5
        "fn take(x: Item) -> Item { x }\n"  # 6: two uses
    )
    document = parse_code_text(source, "shape.rs", "rust")
    found = sorted((r.name, r.line) for r in document.references if r.kind == "type")
    assert found == [("Box", 4), ("Item", 6), ("Item", 6), ("Iterator", 4)], found


GO_RECEIVERS = {
    # Go's net/http in small: a method's own receiver, another value, a bare call.
    "buf/buffer.go": (
        "package buf\n\n"
        "type Buffer struct{}\n\n"
        "func (b *Buffer) grow(n int) int { return n }\n\n"
        "func (b *Buffer) Write(p []byte) {\n"
        "\tb.grow(1)\n"  # line 8: its own receiver's
        "\tconn.Close()\n"  # 9: another value's: not Conn.Close of this file by locality
        "\tgrow(2)\n"  # 10: a function named grow, never the method
        "}\n\n"
        "type Conn struct{}\n\n"
        "func (c *Conn) Close() {}\n"
    ),
    "dump/dump.go": "package dump\n\ntype dumpConn struct{}\n\nfunc (d *dumpConn) Close() {}\n",
}


def test_a_go_methods_receiver_is_its_own_object(tmp_path: Path) -> None:
    """A Go method names its receiver as it likes (`func (b *Buffer)`): `b.grow()` inside
    it is its own (`refs.qualifier` `self`, the file's method), `conn.Close()` another
    value's (`""`: one of the methods named `Close`, here two: ambiguous — it linked
    `local` to whatever `Close` the file had), and a bare `grow(2)` is never a method
    (net/http's `pw.Close()` → `dumpConn.Close`, `cc.Close()` →
    `http2closeWaiter.Close` were such local links)."""
    _, db = _index_tree(tmp_path, GO_RECEIVERS)
    found = _calls_in(db, "buf/buffer.go")
    assert found == {
        (8, "grow", "self", "local", "Buffer.grow"),
        (9, "Close", OTHER_OBJECT, "ambiguous", None),
        (10, "grow", None, "unresolved", None),
    }, found


JAVA_RECEIVERS = {
    # JPype in small: a class whose `write` and `toString` are its own, a field's writer.
    "org/HtmlWriter.java": (
        "package org;\n\n"
        "public class HtmlWriter {\n"
        "  java.io.Writer writer;\n"
        "  public void write(String s) {\n"
        "    writer.write(s);\n"  # line 6: the field's Writer, not this class's write
        "    this.flush();\n"  # 7: its own
        "    int m = Math.max(1, 2);\n"  # 8: the JDK's
        "  }\n"
        "  public void flush() {}\n"
        "  public String toString() { return sb.toString(); }\n"  # 11: a StringBuilder's
        "}\n"
    ),
    "org/Log.java": "package org;\n\npublic class Log {\n  public void write(String s) {}\n}\n",
}


def test_a_java_member_of_another_object_is_not_the_classs_own(tmp_path: Path) -> None:
    """Java names its own object `this`: `writer.write(s)` inside `HtmlWriter.write`
    linked `local` to the method itself, `sb.toString()` to the class's own `toString`;
    the field's declared `java.io.Writer`, which the index lacks, has no `write` of the index
    (`unresolved`, not one of the two `write`s), a JDK type's method on a value stays
    ambiguous, and `Math.max` is the JDK's (`"."`)."""
    _, db = _index_tree(tmp_path, JAVA_RECEIVERS)
    found = _calls_in(db, "org/HtmlWriter.java")
    assert found == {
        (6, "write", "Writer()", "unresolved", None),
        (7, "flush", OWN_MEMBER, "local", "HtmlWriter.flush"),
        (8, "max", ".", "unresolved", None),
        (11, "toString", OTHER_OBJECT, "ambiguous", None),
    }, found


GO_PACKAGES = {
    # net/http and its httptest both define NewRequest; client.go calls its package's.
    "net/http/request.go": "package http\n\nfunc NewRequest(m string) int { return 1 }\n",
    "net/http/client.go": 'package http\n\nfunc Get() int {\n\treturn NewRequest("GET")\n}\n',
    "net/http/httptest/httptest.go": (
        'package httptest\n\nimport "net/http"\n\nfunc NewRequest(m string) int { return 2 }\n'
    ),
}


def test_a_bare_go_name_is_of_its_own_package(tmp_path: Path) -> None:
    """A bare Go name is a definition of the file's own package, the files of its folder:
    net/http/client.go's `NewRequest(…)` was ambiguous with httptest's (143 of the 183
    callers of `NewRequest` in Go's `src/`)."""
    _, db = _index_tree(tmp_path, GO_PACKAGES)
    found = [
        (path, line, resolution, home)
        for path, line, name, _, resolution, _, home in _resolved(db, "r.kind = 0")
        if name == "NewRequest"
    ]
    assert found == [("net/http/client.go", 4, "import", "net/http/request.go")], found


def test_calls_nested_deep_in_a_macro_cost_a_linear_time() -> None:
    """A call among a macro's tokens is told without asking tree-sitter for a node's
    parent (which it finds by walking down from the root): 3,000 calls nested in one
    macro took 229 s of CPU that way (a file that parses in a fraction of a second
    otherwise, dropped by the worker's time limit). The bound is 40× today's 0.13 s."""
    import time

    from docql_sqlite.ingest.code import parse_code_text

    depth = 3000
    source = "fn main() { m!(" + "f(" * depth + ")" * depth + "); }\n"
    started = time.process_time()
    document = parse_code_text(source, "deep.rs", "rust")
    assert len([r for r in document.references if r.name == "f"]) == depth
    assert time.process_time() - started < 5.0


# --- C: macros and typedefs are what a use names; `#if` alternatives are one ----------
# Brotli 1.1.0: `static BROTLI_INLINE …`, `BROTLI_DCHECK(…)`, `brotli_reg_t` were
# unresolved (no symbol) and then, with macros and typedefs as symbols, ambiguous
# between the `#if` branches of platform.h.
C_TREE = {
    "common/platform.h": (
        "#if defined(_MSC_VER)\n#define BROTLI_INLINE __forceinline\n"
        "#else\n#define BROTLI_INLINE inline\n#endif\n"
        "#if defined(DEBUG)\n#define BROTLI_DCHECK(x) assert(x)\n"
        "#else\n#define BROTLI_DCHECK(x)\n#endif\n"
        "#if defined(BITS64)\ntypedef uint64_t brotli_reg_t;\n"
        "#else\ntypedef uint32_t brotli_reg_t;\n#endif\n"
    ),
    "dec/other.h": "#define BROTLI_DCHECK(x) check(x)\n",
    "dec/decode.c": (
        '#include "../common/platform.h"\n\n'
        "static BROTLI_INLINE brotli_reg_t Bits(brotli_reg_t n) {\n"
        "  BROTLI_DCHECK(n < 32);\n  return n;\n}\n"
    ),
}


def test_c_macros_and_typedefs_resolve_to_their_first_alternative(tmp_path: Path) -> None:
    _, db = _index_tree(tmp_path, C_TREE)
    rows = {
        (line, name, resolution, target, home)
        for path, line, name, _, resolution, target, home in _resolved(db, "1")
        if path == "dec/decode.c"
    }
    platform = "common/platform.h"
    assert {
        (3, "BROTLI_INLINE", "import", "BROTLI_INLINE", platform),
        (3, "brotli_reg_t", "import", "brotli_reg_t", platform),
        (4, "BROTLI_DCHECK", "import", "BROTLI_DCHECK", platform),
    } <= rows
    with docql_sqlite.open(db) as index:
        lines = dict(
            index.store.conn.execute(
                "SELECT s.name, s.line FROM refs r JOIN symbols s ON s.id = r.target_id "
                "WHERE r.name IN ('BROTLI_INLINE', 'BROTLI_DCHECK', 'brotli_reg_t')"
            ).fetchall()
        )
    assert lines == {"BROTLI_INLINE": 2, "BROTLI_DCHECK": 7, "brotli_reg_t": 12}


def test_a_c_macro_defined_in_a_function_is_the_files_from_there_on(tmp_path: Path) -> None:
    """The preprocessor knows no functions: a `#define` inside one (apsw's `WRITE_DEST`
    in `casefold`) is seen by the functions after it, where it was `unresolved`."""
    text = (
        "static int first(int c)\n{\n#define TWICE(x) ((x) * 2)\n  return TWICE(c);\n}\n\n"
        "static int second(int x)\n{\n  return TWICE(x);\n}\n"
    )
    _, db = _index_tree(tmp_path, {"u.c": text})
    assert {(c[0], c[3], c[4]) for c in _calls_in(db, "u.c") if c[1] == "TWICE"} == {
        (4, "local", "first.TWICE"),
        (9, "local", "first.TWICE"),
    }


def test_c_a_prototype_gives_way_to_the_one_body_of_its_function(tmp_path: Path) -> None:
    """Brotli's public API is declared in `include/brotli/decode.h` and defined in
    `dec/decode.c` (no file of one name pairs them), apsw's unity build declares
    `AddTraceBackHere` in `pyutil.c` and defines it in `traceback.c`: calls from other
    files linked to the prototype or were ambiguous between the two. The prototype a
    file includes still decides, and the link is the body when the index holds one; with
    two bodies (two libraries' `init`) the included prototype stays the link."""
    files = {
        "include/brotli/decode.h": "int Decompress(int n);\nint init(void);\n",
        "dec/decode.c": (
            '#include "../include/brotli/decode.h"\n'
            "int Decompress(int n) { return n; }\nint init(void) { return 0; }\n"
        ),
        "other/init.c": "int init(void) { return 1; }\n",
        "tools/main.c": (
            '#include "../include/brotli/decode.h"\n'
            "int main(void) { init(); return Decompress(1); }\n"
        ),
        "src/pyutil.c": "static void AddTrace(const char *f);\n",
        "src/traceback.c": "static void AddTrace(const char *f)\n{\n}\n",
        "src/cursor.c": "static int step(void)\n{\n  AddTrace(0);\n  return 0;\n}\n",
    }
    _, db = _index_tree(tmp_path, files)
    found = {(c[1], c[3], c[4]) for c in _calls_in(db, "tools/main.c")}
    # through the header it includes, to the body
    assert ("Decompress", "import", "Decompress") in found, found
    assert ("init", "import", "init") in found, found  # the header's prototype
    assert {(c[1], c[3]) for c in _calls_in(db, "src/cursor.c")} == {("AddTrace", "unique")}
    rows = {
        (path, name, home)
        for path, _, name, _, _, _, home in _resolved(db, "r.kind = 0")
        if name in ("Decompress", "AddTrace", "init")
    }
    assert rows == {
        ("tools/main.c", "Decompress", "dec/decode.c"),
        ("tools/main.c", "init", "include/brotli/decode.h"),
        ("src/cursor.c", "AddTrace", "src/traceback.c"),
    }, rows
    with docql_sqlite.open(db) as index:
        signatures = dict(
            index.store.conn.execute(
                "SELECT d.path, s.signature FROM symbols s JOIN documents d ON d.id = s.doc_id "
                "WHERE s.name = 'AddTrace'"
            ).fetchall()
        )
    # the prototype says it is one, as the file writes it
    assert {path.rsplit("/", 1)[1]: sig for path, sig in signatures.items()} == {
        "pyutil.c": "static void AddTrace(const char *f);",
        "traceback.c": "static void AddTrace(const char *f)",
    }


def test_c_a_header_declaration_leads_to_its_source_files_definition(tmp_path: Path) -> None:
    # Every file including memory.h imports memory.h and memory.c alike (a path without
    # its extension is the module): the prototype and the definition made each use
    # ambiguous. The definition is the link; a file including nothing finds it too.
    _, db = _index_tree(
        tmp_path,
        {
            "enc/memory.h": "void BrotliFree(MemoryManager* m, void* p);\n",
            "enc/memory.c": (
                '#include "memory.h"\n\nvoid BrotliFree(MemoryManager* m, void* p) {\n'
                "  free(p);\n}\n"
            ),
            "enc/encode.c": '#include "memory.h"\n\nvoid Done(M* m) {\n  BrotliFree(m, 0);\n}\n',
            "dec/state.c": "void Other(M* m) {\n  BrotliFree(m, 0);\n}\n",
        },
    )
    rows = {
        (path, name, resolution, home)
        for path, _, name, _, resolution, _, home in _resolved(db, "r.name = 'BrotliFree'")
    }
    assert rows == {
        ("enc/encode.c", "BrotliFree", "import", "enc/memory.c"),
        ("dec/state.c", "BrotliFree", "unique", "enc/memory.c"),
    }


def test_cpp_and_c_members_of_other_objects(tmp_path: Path) -> None:
    # sentencepiece: `sp.IsControl(3)` in a test linked to the file's MockModel,
    # `agenda.size()` to Lattice::size, `fp_->status()` to the caller's own class; and in C
    # a call through a struct's field (`m->free_func(…)`) is no function of the index.
    _, db = _index_tree(
        tmp_path,
        {
            "lattice.cc": (
                "class Lattice {\n public:\n  int size() const { return n_; }\n"
                "  int Twice() const { return this->size() * 2; }\n"
                "  int Agenda(const std::vector<int>& agenda) const {\n"
                "    return agenda.size() + Count(agenda);\n  }\n"
                "  int Count(const std::vector<int>& v) const { return v.size(); }\n};\n"
            ),
            "memory.c": (
                "void free_func(void* p) {}\n"
                "void BrotliFree(MemoryManager* m, void* p) {\n  m->free_func(m->opaque, p);\n}\n"
            ),
        },
    )
    calls = _calls_in(db, "lattice.cc")
    assert (4, "size", None, "local", "Lattice.size") in calls  # this->size()
    assert (6, "Count", None, "local", "Lattice.Count") in calls
    # `agenda.size()`, `v.size()` on a `std::vector` (a parameter's type): the standard
    # library's, which the index does not hold (before types were read: ambiguous)
    assert {c for c in calls if c[0] in (6, 8) and c[1] == "size"} == {
        (6, "size", "std::vector()", "unresolved", None),
        (8, "size", "std::vector()", "unresolved", None),
    }
    assert _calls_in(db, "memory.c") == {(3, "free_func", "", "unresolved", None)}


def test_cpp_a_value_named_like_a_header_is_no_module(tmp_path: Path) -> None:
    """sentencepiece: `normalizer.Normalize(…)` in builder_test.cc, which includes
    normalizer.h, took `normalizer` for that header's module and linked 104 calls to
    builder.cc's free `normalizer::Normalize` (in an anonymous namespace); a member of
    another object is a method, never a namespace's function."""
    _, db = _index_tree(
        tmp_path,
        {
            "normalizer.h": (
                "namespace normalizer {\nclass Normalizer {\n public:\n"
                "  std::string Normalize(const std::string& s) const;\n};\n}\n"
            ),
            "normalizer.cc": (
                '#include "normalizer.h"\nnamespace normalizer {\n'
                "std::string Normalizer::Normalize(const std::string& s) const { return s; }\n}\n"
            ),
            "builder.cc": (
                '#include "builder.h"\nnamespace normalizer {\nnamespace {\n'
                "int Normalize(int x) { return x; }\n}\n}\n"
            ),
            "builder.h": "namespace normalizer {\nclass Builder {};\n}\n",
            "builder_test.cc": (
                '#include "builder.h"\n#include "normalizer.h"\n'
                "void Check() {\n  const normalizer::Normalizer normalizer;\n"
                '  normalizer.Normalize("x");\n}\n'
            ),
        },
    )
    calls = _calls_in(db, "builder_test.cc")
    # (the local's declared class, `Normalizer()`, names the method)
    assert {c for c in calls if c[1] == "Normalize"} == {
        (5, "Normalize", "Normalizer()", "import", "normalizer.Normalizer.Normalize")
    }


def test_cpp_a_member_of_a_declared_value_is_its_class(tmp_path: Path) -> None:
    """A variable or a parameter declared with a class (`const Normalizer normalizer(spec)`,
    `(const Lattice& lattice)`, `Model* m = …`) calls that class's methods where it is
    seen: sentencepiece's 108 `normalizer.Normalize(…)` in builder_test.cc, which does not
    include normalizer.h, were ambiguous between three `Normalize`s."""
    _, db = _index_tree(
        tmp_path,
        {
            "lattice.h": (
                "class Lattice {\n public:\n  int Size() const;\n};\n"
                "class Model {\n public:\n  int Size() const;\n};\n"
            ),
            "lattice.cc": (
                '#include "lattice.h"\nint Lattice::Size() const { return 1; }\n'
                "int Model::Size() const { return 2; }\n"
            ),
            "use.cc": (
                "int Both(const Lattice& lattice, Model* model) {\n"
                "  int n = lattice.Size() + model->Size();\n"
                "  {\n    const Model lattice;\n    n += lattice.Size();\n  }\n"
                "  return n + lattice.Size();\n}\n"
            ),
            "tmpl.cc": (
                "template <typename Lattice>\nint Any(const Lattice& l) { return l.Size(); }\n"
                "TYPED_TEST(SizeTest, Works) {\n  TypeParam m;\n  m.Size();\n}\n"
                "int Std(const std::Lattice& s) { return s.Size(); }\n"
            ),
        },
    )
    # a template's type parameter, and googletest's `TypeParam`, are no class: the rules
    # of another object's member decide (both classes' `Size` are as likely)
    # and the standard library's class of a name the index has (`std::Lattice`) is none
    # of the index's
    assert {(c[0], c[2], c[3]) for c in _calls_in(db, "tmpl.cc") if c[1] == "Size"} == {
        (2, "", "ambiguous"),
        (5, "", "ambiguous"),
        (7, "std::Lattice()", "unresolved"),
    }
    calls = {(c[0], c[2], c[4]) for c in _calls_in(db, "use.cc") if c[1] == "Size"}
    assert calls == {
        (2, "Lattice()", "Lattice.Size"),
        (2, "Model()", "Model.Size"),
        (5, "Model()", "Model.Size"),  # the block's own `lattice`
        (7, "Lattice()", "Lattice.Size"),  # the parameter again after the block
    }


def test_cpp_a_value_made_by_make_unique_or_new_is_of_that_class(tmp_path: Path) -> None:
    """`auto sp = std::make_unique<SentencePieceProcessor>(); sp->Load(…)` (39 of them in
    sentencepiece, googletest and Abseil) and `auto p = new Model(…)` say their class."""
    _, db = _index_tree(
        tmp_path,
        {
            "model.h": (
                "class Model {\n public:\n  int Load();\n};\n"
                "class Other {\n public:\n  int Load();\n};\n"
            ),
            "model.cc": (
                '#include "model.h"\nint Model::Load() { return 1; }\n'
                "int Other::Load() { return 2; }\n"
            ),
            "use.cc": (
                "void F() {\n  auto sp = std::make_unique<Model>();\n  sp->Load();\n"
                "  auto raw = new Other();\n  raw->Load();\n}\n"
            ),
        },
    )
    calls = {(c[0], c[2], c[4]) for c in _calls_in(db, "use.cc") if c[1] == "Load"}
    assert calls == {(3, "Model()", "Model.Load"), (5, "Other()", "Other.Load")}


RUST_VARIANTS = {
    "src/cow.rs": "pub enum Cow {\n    Borrowed(u8),\n    Owned { n: u16 },\n}\n",
    "src/user.rs": "use crate::cow::Cow;\n\nfn make(x: u8) -> Cow {\n    Cow::Borrowed(x)\n}\n\n"
    "fn size(c: Cow) -> u16 {\n    match c {\n        Cow::Owned { n } => n,\n"
    "        _ => 0,\n    }\n}\n",
}


def test_a_rust_variant_is_called_and_matched_through_its_enum(tmp_path: Path) -> None:
    """An enum's members are symbols (`enum_member`): `Cow::Borrowed(x)` constructs the
    variant (a call) and `Cow::Owned { n } =>` names it (a type use), each a reference
    linked to it (Rust's library parts: 110 such references were unresolved). A tuple
    pattern (`Cow::Borrowed(b) =>`) is no reference."""
    _, db = _index_tree(tmp_path, RUST_VARIANTS)
    with docql_sqlite.open(db) as index:
        found = sorted(
            (r["location"].split("/src/")[-1], r["name"], r["resolution"], r["target"] or "")
            for name in ("Borrowed", "Owned")
            for r in index.query(f'$.code.references("{name}")')
        )
    assert [(loc, name, res, target.split("/src/")[-1]) for loc, name, res, target in found] == [
        ("src/user.rs:4", "Borrowed", "import", "src/cow.rs:2"),
        ("src/user.rs:9", "Owned", "import", "src/cow.rs:3"),
    ], found


@pytest.mark.parametrize(
    "signature, expected",
    [
        ("def f(self, request: Request, n: int = 3)", {b"request": "Request"}),
        (
            "async def f(a: Optional[Request], b: 'Session | None' = None)",
            {b"a": "Request", b"b": "Session"},
        ),
        (
            'def f(x: Annotated[Query, Doc("a, b")], y: fastapi.Request)',
            {b"x": "Query", b"y": "Request"},
        ),
        ("def f(items: list[Request], m: dict[str, Request], u: A | B)", {}),  # no one class
        ("def f(*args: Request, **kw: Request)", {}),  # a tuple, a dict of them
        ("def f(cls: Type, self: Session)", {}),
        ("def f(a, b=1)", {}),
    ],
)
def test_the_parameters_a_python_signature_annotates_with_one_class(
    signature: str, expected: dict[bytes, str]
) -> None:
    from docql_sqlite.ingest.code_refs import annotated_params

    assert annotated_params(signature) == expected


PYTHON_TYPED = {
    "web/requests.py": "class Request:\n    def json(self):\n        return {}\n",
    "web/testclient.py": "class Session:\n    def json(self):\n        return []\n",
    "app.py": "from typing import Optional\n\nfrom web.requests import Request\n"
    "from web.testclient import Session\n\n\n"
    "async def handler(request: Request):\n    return request.json()\n\n\n"
    "def maybe(request: Optional[Request] = None):\n    return request.json()\n\n\n"
    "def untyped(response):\n    return response.json()\n",
}


def test_a_python_parameter_annotated_with_a_class_calls_its_methods(tmp_path: Path) -> None:
    """`async def handler(request: Request)`: `request.json()` is `Request.json`, not
    another class's `json` (FastAPI + starlette: 500 calls linked that were ambiguous,
    `client.get(…)` on a `client: TestClient` among them, and 12 that went to the test
    session's `send_text` now the server-side `WebSocket.send_text`); an unannotated
    parameter stays ambiguous."""
    _, db = _index_tree(tmp_path, PYTHON_TYPED)
    links = sorted(
        (c[0].split("/src/", 1)[1], c[1], (c[2] or "").split("/src/")[-1])
        for c in _callers(db, "json")
    )
    assert links == [
        ("app.py:12", "import", "web/requests.py:2-3"),
        ("app.py:16", "ambiguous", ""),  # Request's or Session's: both imported
        ("app.py:8", "import", "web/requests.py:2-3"),
    ], links


GO_TYPED = {
    # gin in small: three `JSON` methods (Context's, Error's, render.Writer's), a
    # `FormValue` only Context has, and a test that declares its values' types.
    "web/context.go": (
        "package web\n\ntype Context struct{}\n\n"
        "func (c *Context) JSON(code int) {}\n\n"
        "func (c *Context) FormValue(k string) string { return k }\n\n"
        "func NewContext() *Context { return &Context{} }\n\n"
        "func (c *Context) Copy() *Context { return c }\n"
    ),
    "web/errors.go": (
        "package web\n\ntype Error struct{}\n\nfunc (e Error) JSON() any { return nil }\n\n"
        "func NewPair() (e Error, err error) { return Error{}, nil }\n"
    ),
    "web/render/json.go": "package render\n\ntype Writer struct{}\n\nfunc (w Writer) JSON() {}\n",
    "web/fake/fake.go": (
        "package fake\n\ntype T struct{}\n\nfunc (T) Fatal() {}\n\nfunc (T) GET(p string) {}\n"
    ),
    "web/gin.go": (
        "package web\n\ntype RouterGroup struct{}\n\nfunc (g *RouterGroup) GET(p string) {}\n\n"
        "type Engine struct {\n\tRouterGroup\n}\n\nfunc New() *Engine { return &Engine{} }\n"
    ),
    "web/context_test.go": (
        "package web\n\n"
        'import (\n\t"net/http"\n\t"testing"\n\n\t"web/render"\n)\n\n'
        "func TestJSON(t *testing.T) {\n"  # line 10
        "\tc := &Context{}\n"
        "\tc.JSON(200)\n"  # 12: Context's
        "\tvar e Error\n"
        "\te.JSON()\n"  # 14: Error's
        "\th := func(c *Context, w render.Writer) {\n"
        "\t\tc.JSON(201)\n"  # 16: Context's
        "\t\tw.JSON()\n"  # 17: render.Writer's
        "\t}\n"
        "\tvar r *http.Request\n"
        '\tr.FormValue("k")\n'  # 20: net/http's, not in the index: not Context's
        "\tx := make()\n"
        "\tx.JSON()\n"  # 22: untyped: one of three
        "\te2 := new(Error)\n"
        "\te2.JSON()\n"  # 24: Error's
        "\tnc := NewContext()\n"
        "\tnc.JSON(1)\n"  # 26: NewContext's result: Context's
        "\tp, _ := NewPair()\n"
        "\tp.JSON()\n"  # 28: the first of NewPair's results: Error's
        "\tt.Fatal()\n"  # 29: testing's T, not the index's other T
        "\tr2 := New()\n"
        '\tr2.GET("/")\n'  # 31: Engine's, promoted from the RouterGroup it embeds
        "\tcp := c.Copy()\n"
        "\tcp.JSON(3)\n"  # 33: what Context.Copy returns: Context's
        "\t_ = h\n"
        "}\n"
    ),
    # a checkout whose folders do not spell the module path (`~/web`, not example.com/web)
    "web/checkout_test.go": (
        'package web\n\nimport "example.com/web/render"\n\n'
        "func use(w *render.Writer) {\n\tw.JSON()\n}\n"
    ),
}


def test_a_go_value_of_a_declared_type_calls_its_methods(tmp_path: Path) -> None:
    """A Go name declared with a named type (a parameter `c *Context`, `var e Error`, `c :=
    &Context{}`, `new(Error)`, `w render.Writer`): `c.JSON(…)` is that type's method, not
    one of every `JSON` of the index (gin 1.8.1: `c.JSON` on a `*Context` was ambiguous
    between Context's, Error's and errorMsgs'); a type of a package the index does not
    hold (`*http.Request`) has none of the index's methods; an undeclared value stays
    ambiguous."""
    _, db = _index_tree(tmp_path, GO_TYPED)
    found = _calls_in(db, "web/context_test.go")
    members = {call for call in found if call[1] in ("JSON", "FormValue", "Fatal", "GET")}
    assert members == {
        (12, "JSON", "Context()", "import", "Context.JSON"),
        (14, "JSON", "Error()", "import", "Error.JSON"),
        (16, "JSON", "Context()", "import", "Context.JSON"),
        (17, "JSON", "render.Writer()", "import", "Writer.JSON"),
        (20, "FormValue", "http.Request()", "unresolved", None),
        (22, "JSON", OTHER_OBJECT, "import", "Writer.JSON"),  # the imported package's
        (24, "JSON", "Error()", "import", "Error.JSON"),
        (26, "JSON", "=NewContext()", "import", "Context.JSON"),
        (28, "JSON", "=NewPair()", "import", "Error.JSON"),
        (29, "Fatal", "testing.T()", "unresolved", None),
        (31, "GET", "=New()", "import", "RouterGroup.GET"),
        (33, "JSON", "=Context().Copy()", "import", "Context.JSON"),
    }, members
    found = _calls_in(db, "web/checkout_test.go")
    assert found == {(6, "JSON", "render.Writer()", "import", "Writer.JSON")}, found


PYTHON_BOUND = {
    # FastAPI's tests in small: `app = FastAPI()`, `client = TestClient(app)` at the top
    # of a test module, three classes with a `get`.
    "web/applications.py": (
        "class FastAPI:\n    def get(self, path):\n        return path\n\n\n"
        "class Router:\n    def get(self, path):\n        return path\n"
    ),
    "web/testclient.py": (
        "class TestClient:\n    def __init__(self, app):\n        self.app = app\n\n"
        "    def get(self, url):\n        return url\n\n"
        "    def __enter__(self):\n        return self\n"
    ),
    "tests/test_app.py": (
        "from web.applications import FastAPI, Router\nfrom web.testclient import TestClient\n\n"
        "app = FastAPI()\nclient = TestClient(app)\n\n\n"
        '@app.get("/")\n'  # line 8: FastAPI's
        "def home():\n"
        '    return client.get("/")\n'  # 10: the module's client: TestClient's
        "\n\n"
        "def test_param(client):\n"
        '    return client.get("/")\n'  # 14: a parameter (a pytest fixture): not the module's
        "\n\n"
        "def test_local():\n"
        "    with TestClient(app) as c:\n"
        '        c.get("/a")\n'  # 19: TestClient's
        "    r = Router()\n"
        '    r.get("/b")\n'  # 21: Router's
        "    r = make()\n"
        '    r.get("/c")\n'  # 23: bound again, to what `make` returns: not told
        "    t: Router = make()\n"
        '    return t.get("/d")\n'  # 25: annotated: Router's
    ),
    # classes the index does not hold, or that a module defines as no class
    "web/sessions.py": "class Session:\n    def get(self, url):\n        return url\n",
    "web/locks.py": "class Lock:\n    def get(self):\n        return 1\n",
    "web/lockmod.py": "def make_lock():\n    return 1\n\n\nLock = make_lock\n",
    "tests/test_more.py": (
        "import threading\nfrom requests import Session\nfrom web.io import BytesIO\n"
        "from web.lockmod import Lock\n\n\n"
        "def run(ctx):\n"
        "    s = Session()\n"
        '    s.get("/")\n'  # 9: requests' Session, which the index lacks: not web's
        "    sem = ctx.Semaphore(0)\n"
        '    sem.get("/")\n'  # 11: a method's value, of no known class
        "    t = threading.Thread()\n"
        "    t.get()\n"  # 13: threading is not indexed
        "    lk = Lock()\n"
        "    lk.get()\n"  # 15: web.lockmod's Lock is no class: as for any other object
        "    b = BytesIO()\n"
        "    b.get()\n"  # 17: web.io takes BytesIO from a module the index lacks
        "\n\n"
        "class Router:\n"  # this file's Router, beside web.applications' one
        "    def get(self):\n        return 2\n\n\n"
        "def local():\n"
        "    r = Router()\n"
        "    r.get()\n"  # 27: this file's Router's
    ),
    "web/io.py": "from _io import BytesIO\n",
    "web/pyio.py": "class BytesIO:\n    def get(self):\n        return 1\n",
}


def test_a_python_name_bound_to_a_new_instance_calls_its_classs_methods(
    tmp_path: Path,
) -> None:
    """`client = TestClient(app)` (at the top of a module or in the function), `with
    TestClient(app) as c`, `t: Router = …`: `client.get(…)` is the class's `get`, not one
    of every `get` of the index (FastAPI + starlette: 3,146 `x.get`/`x.post` calls were
    ambiguous, most of them on a `TestClient` or a `FastAPI` app); a parameter of the same
    name hides the module's binding, and a binding by another call ends the class's."""
    _, db = _index_tree(tmp_path, PYTHON_BOUND)
    found = {c for c in _calls_in(db, "tests/test_app.py") if c[1] == "get"}
    assert found == {
        (8, "get", "FastAPI()", "import", "FastAPI.get"),
        (10, "get", "TestClient()", "import", "TestClient.get"),
        (14, "get", OTHER_OBJECT, "ambiguous", None),
        (19, "get", "TestClient()", "import", "TestClient.get"),
        (21, "get", "Router()", "import", "Router.get"),
        (23, "get", "=make()", "ambiguous", None),
        (25, "get", "Router()", "import", "Router.get"),
    }, found
    found = {c for c in _calls_in(db, "tests/test_more.py") if c[1] == "get"}
    assert found == {
        (9, "get", "Session()", "unresolved", None),
        (11, "get", OTHER_OBJECT, "ambiguous", None),
        (13, "get", "threading.Thread()", "unresolved", None),
        (15, "get", "Lock()", "ambiguous", None),
        (17, "get", "BytesIO()", "unresolved", None),
        (27, "get", "Router()", "local", "Router.get"),
    }, found


PYTHON_INHERITED = {
    # Flask in small: `route` is Scaffold's, two levels above `Flask`; another class has a
    # `route` of its own.
    "web/scaffold.py": (
        "from typing import overload\n\n\nclass Scaffold:\n"
        "    def route(self, rule):\n        return rule\n\n"
        "    @overload\n    def setattr(self, name: str) -> None: ...\n\n"
        "    @overload\n    def setattr(self, name: int) -> None: ...\n\n"
        "    def setattr(self, name):\n        return name\n"
    ),
    "web/fixtures.py": "class Other:\n    def setattr(self, name):\n        return name\n",
    "web/app.py": (
        "from web.scaffold import Scaffold\n\n\nclass App(Scaffold):\n    pass\n\n\n"
        "class Flask(App, metaclass=type):\n    def run(self):\n        return 1\n"
    ),
    "web/routing.py": "class Map:\n    def route(self, rule):\n        return rule\n",
    "tests/test_app.py": (
        "from web.app import Flask\nfrom web.routing import Map\n"
        "from web.scaffold import Scaffold\n\n"
        "app = Flask()\n\n\n"
        '@app.route("/")\n'  # line 8: Scaffold's, inherited through App
        "def home():\n"
        "    return app.run()\n"  # 10: Flask's own
        "\n\n"
        "def test_patch(patch: Scaffold):\n"
        '    patch.setattr("x")\n'  # 14: Scaffold's, overloaded: its implementation
    ),
}


def test_a_python_instances_member_is_found_in_its_classs_bases(tmp_path: Path) -> None:
    """`app = Flask()`: `@app.route(…)` is `Scaffold.route`, which `Flask` inherits through
    `App` (Flask 3.1.0: `app.route`, `app.add_url_rule` were left to the other rules, and
    stayed ambiguous with Blueprint's and werkzeug-like `Map`s); not the other `route`."""
    _, db = _index_tree(tmp_path, PYTHON_INHERITED)
    found = _calls_in(db, "tests/test_app.py")
    assert (8, "route", "Flask()", "import", "Scaffold.route") in found, found
    assert (10, "run", "Flask()", "import", "Flask.run") in found, found
    # an overloaded method is one method: its implementation, the last definition
    assert (14, "setattr", "Scaffold()", "import", "Scaffold.setattr") in found, found


PYTHON_ATTRIBUTES = {
    # requests/argparse in small: two classes with a `get`, a client that keeps one of
    # them in an attribute set in `__init__`, another declared in the class body.
    "web/sessions.py": "class Session:\n    def get(self, url):\n        return url\n",
    "web/cache.py": "class Cache:\n    def get(self, key):\n        return key\n",
    "web/client.py": (
        "from web.cache import Cache\nfrom web.sessions import Session\n\n\n"
        "class Client:\n"
        "    cache: Cache\n\n"
        "    def __init__(self):\n"
        "        self.session = Session()\n"
        "        self.other = make()\n\n"
        "    def fetch(self, url):\n"
        "        self.cache.get(url)\n"  # 13: Cache's (the class body's annotation)
        "        self.other.get(url)\n"  # 14: what `make` returns: not told
        "        return self.session.get(url)\n"  # 15: Session's
    ),
}


def test_a_python_attribute_set_to_a_new_instance_calls_its_classs_methods(
    tmp_path: Path,
) -> None:
    """`self.session = Session()` in a method, or `cache: Cache` in the class body:
    `self.session.get(…)` in any method of the class is `Session.get`, not one of every
    `get` of the index; an attribute bound to something else stays undecided."""
    _, db = _index_tree(tmp_path, PYTHON_ATTRIBUTES)
    found = {c for c in _calls_in(db, "web/client.py") if c[1] == "get"}
    assert found == {
        (13, "get", "Cache()", "import", "Cache.get"),
        (14, "get", "=make()", "ambiguous", None),
        (15, "get", "Session()", "import", "Session.get"),
    }, found


PYTHON_NONE_AND_CLOSURES = {
    # apsw's tests in small: `self.db = None` in `tearDown`, a thread's function using its
    # test's connection, a module's optional client; two classes with a `get`.
    "web/sessions.py": "class Session:\n    def get(self, url):\n        return url\n",
    "web/cache.py": "class Cache:\n    def get(self, key):\n        return key\n",
    "tests/test_db.py": (
        "from web.cache import Cache\nfrom web.sessions import Session\n\n"
        "try:\n    cache = Cache()\nexcept ImportError:\n    cache = None\n\n\n"
        "class TestDb:\n"
        "    def setUp(self):\n        self.db = Session()\n\n"
        "    def tearDown(self):\n        self.db = None\n\n"
        "    def test_get(self):\n"
        '        self.db.get("/")\n'  # 18: Session's (`None` aside)
        '        cache.get("k")\n'  # 19: the module's Cache (`None` aside)
        "\n"
        "    def test_thread(self):\n"
        "        s = Session()\n\n"
        "        def worker():\n"
        '            s.get("/")\n'  # 25: the test's `s`: Session's
        "\n"
        "            def inner(s):\n"
        '                s.get("/")\n'  # 28: a parameter hides the test's `s`
        "\n"
        "        def other():\n"
        "            s = Cache()\n"
        '            s.get("k")\n'  # 32: its own `s`: Cache's
        "\n"
        "    def test_later(self):\n"
        "        c = Cache()\n\n"
        "        def worker():\n"
        '            c.get("k")\n'  # 38: not told: `c` is bound again below
        "\n"
        "        c = make()\n"
        "        return worker\n"
        "\n"
        "    def test_param(self, conn: Session):\n"
        "        def worker():\n"
        '            conn.get("/")\n'  # 45: the annotation of the function around
        "\n"
        "        return worker\n"
    ),
}


def test_a_python_name_bound_to_none_or_by_the_function_around_keeps_its_class(
    tmp_path: Path,
) -> None:
    """`self.db = None` in `tearDown` beside `self.db = Connection()` in `setUp`, and
    `cache = None` when an import fails, do not make the name's class unknown; a function
    nested in another (a thread's target, a callback) sees the names of the one around it,
    where every binding agrees, and its parameters' annotations (apsw 3.54's tests:
    `dbt.set_busy_timeout(…)` in a worker thread, `self.db.…` in every test, were
    ambiguous)."""
    _, db = _index_tree(tmp_path, PYTHON_NONE_AND_CLOSURES)
    found = {c for c in _calls_in(db, "tests/test_db.py") if c[1] == "get"}
    assert found == {
        (18, "get", "Session()", "import", "Session.get"),
        (19, "get", "Cache()", "import", "Cache.get"),
        (25, "get", "Session()", "import", "Session.get"),
        (28, "get", OTHER_OBJECT, "ambiguous", None),
        (32, "get", "Cache()", "import", "Cache.get"),
        (38, "get", OTHER_OBJECT, "ambiguous", None),
        (45, "get", "Session()", "import", "Session.get"),
    }, found


UNDEFINED_CLASSES = {
    # zod and apsw in small: the index's one `add` and one `get` are a registry's; values
    # of classes the index does not hold call theirs.
    "core/registry.ts": (
        "export class Registry {\n  add(x: number): number { return x; }\n"
        "  get(k: string): string { return k; }\n}\n"
    ),
    "core/use.ts": (
        "import { Registry } from './registry';\n\n"
        "export function walk<T>(r: Readonly<Registry>, item: T): void {\n"
        "  const seen = new Set();\n"
        "  seen.add(1);\n"  # 5: a Set's, which the index lacks
        "  const reg = new Registry();\n"
        "  reg.add(2);\n"  # 7: Registry's
        "  const t: T = item;\n"
        "  t.get('k');\n"  # 9: a type parameter's: decided as for any other object
        "  r.get('k');\n"  # 10: Readonly<Registry>: decided as for any other object
        "}\n"
    ),
    "py/registry.py": (
        "from typing import TypeVar, Union\n\n\n"
        "class Registry:\n    def add_note(self, n):\n        return n\n\n\n"
        'R = TypeVar("R", bound=Registry)\nSized = Union[str, Registry]\n'
    ),
    "py/use.py": (
        "from typing import Any, Union\n\n"
        "from py.registry import R, Registry, Sized as Sized\n\n"
        'Noted = Union[str, "Registry"]\n\n\n'
        "def fail(a: Any, n: Noted, r2: R, s: Sized):\n"
        '    e = ValueError("x")\n'
        '    e.add_note("y")\n'  # 10: ValueError's, a built-in
        "    r = Registry()\n"
        '    r.add_note("z")\n'  # 12: Registry's
        '    a.add_note("z")\n'  # 13: `Any` names no class
        '    n.add_note("z")\n'  # 14: this module's alias names no class
        '    r2.add_note("z")\n'  # 15: another module's type variable: no class
        '    s.add_note("z")\n'  # 16: another module's alias, imported `as`: no class
    ),
}


def test_a_value_of_a_class_the_index_does_not_define_calls_none_of_its_members(
    tmp_path: Path,
) -> None:
    """`new Set()`, `ValueError(…)`: a value of a class nothing in the index is named
    like has none of the index's members (zod 4.6.7: `seen.add(x)` on a `new Set()` was
    `$ZodRegistry.add` by uniqueness, 45 such links in zod, rxjs and TanStack Query); a
    type parameter, `Readonly<…>`, Python's `Any`, an alias or a type variable names no
    class and is decided as any other object's (sqlglot's `E`, bound to `Expression`)."""
    _, db = _index_tree(tmp_path, UNDEFINED_CLASSES)
    assert _calls_in(db, "core/use.ts") >= {
        (5, "add", "Set()", "unresolved", None),
        (7, "add", "Registry()", "import", "Registry.add"),
        (9, "get", OTHER_OBJECT, "import", "Registry.get"),
        (10, "get", OTHER_OBJECT, "import", "Registry.get"),
    }, _calls_in(db, "core/use.ts")
    found = {c for c in _calls_in(db, "py/use.py") if c[1] == "add_note"}
    assert found == {
        (10, "add_note", "ValueError()", "unresolved", None),
        (12, "add_note", "Registry()", "import", "Registry.add_note"),
        (13, "add_note", OTHER_OBJECT, "import", "Registry.add_note"),
        (14, "add_note", OTHER_OBJECT, "import", "Registry.add_note"),
        (15, "add_note", "R()", "import", "Registry.add_note"),
        (16, "add_note", "Sized()", "import", "Registry.add_note"),
    }, found


def test_a_value_s_member_re_decided_after_a_removal_knows_its_class(tmp_path: Path) -> None:
    """When a file defining another `add_note` is removed, the next run decides the uses
    of `add_note` again with only their names' definitions at hand (no file staged): it
    reads those of the names a qualifier is made of too (`Registry()`), so `r.add_note()`
    stays `Registry.add_note`, as in a fresh index of the same files."""
    files = {k: v for k, v in UNDEFINED_CLASSES.items() if k.startswith("py/")}
    files["py/other.py"] = "class Other:\n    def add_note(self, n):\n        return n\n"
    root, db = _index_tree(tmp_path, files)
    (root / "py/other.py").unlink()
    docql_sqlite.index(db, [str(root)])
    fresh = tmp_path / "fresh.db"
    docql_sqlite.index(fresh, [str(root)])
    assert _calls_in(db, "py/use.py") == _calls_in(fresh, "py/use.py")
    assert (12, "add_note", "Registry()", "import", "Registry.add_note") in _calls_in(
        db, "py/use.py"
    )


PYTHON_RESULTS = {
    # FastAPI's tests in small: `response = client.get(…)` holds what `get` is annotated
    # to return; two classes have a `json`, and one method returns another package's.
    "web/responses.py": "class Response:\n    def json(self):\n        return {}\n",
    "web/requests.py": "class Request:\n    def json(self):\n        return {}\n",
    "web/client.py": (
        "import httpx\n\nfrom web.responses import Response\n\n\n"
        "class Client:\n"
        "    def get(self, url) -> Response:\n        return Response()\n\n"
        '    def ext(self) -> "httpx.Response":\n        return None\n\n\n'
        "def fetch() -> Response:\n    return Response()\n"
    ),
    "tests/test_resp.py": (
        "from web.client import Client, fetch\n\n\n"
        "async def test_x():\n"
        "    client = Client()\n"
        '    response = client.get("/")\n'
        "    response.json()\n"  # 7: what Client.get returns: Response's
        "    r2 = fetch()\n"
        "    r2.json()\n"  # 9: what fetch returns
        "    r3 = client.ext()\n"
        "    r3.json()\n"  # 11: httpx's Response, which the index lacks
        "    r4 = await client.get('/')\n"
        "    r4.json()\n"  # 13: awaited the same
    ),
}


def test_a_python_name_bound_to_a_calls_result_calls_its_annotated_class(
    tmp_path: Path,
) -> None:
    """`response = client.get(…)` where `get` is annotated `-> Response`:
    `response.json()` is `Response.json` (FastAPI's tests: 1,798 `response.json()`
    calls on httpx responses were linked to starlette's `Request.json` by uniqueness);
    a class of a module the index lacks (`-> httpx.Response`) is none of the index's."""
    _, db = _index_tree(tmp_path, PYTHON_RESULTS)
    found = {c for c in _calls_in(db, "tests/test_resp.py") if c[1] == "json"}
    assert found == {
        (7, "json", "=Client.get()", "import", "Response.json"),
        (9, "json", "=fetch()", "import", "Response.json"),
        (11, "json", "=Client.ext()", "unresolved", None),
        (13, "json", "=Client.get()", "import", "Response.json"),
    }, found


PYTHON_FOREIGN_RESULTS = {
    # rich in small: the one `match` the index defines is Palette's; the others are
    # methods of what the standard library's functions return.
    "rich/palette.py": (
        "class Palette:\n    def match(self, color):\n        return 0\n\n"
        "    def update_from(self, other):\n        return self\n"
    ),
    "rich/apps/__init__.py": "from rich.palette import Palette\n\napp = Palette()\n",
    # httplib2's bundled `socks`, imported as `import socks` (then `from . import socks`
    # when that fails): a top-level definition of the function's name may be the one.
    "rich/__init__.py": "",
    "rich/socks.py": "class socksocket:\n    def setproxy(self):\n        pass\n",
    "rich/proxy.py": (
        "try:\n    import socks\nexcept ImportError:\n    from . import socks\n\n\n"
        "def connect():\n    sock = socks.socksocket()\n    sock.setproxy()\n"  # 9
    ),
    "rich/color.py": (
        "import copy\nimport re\nfrom re import compile\n\n"
        "from rich.apps import app\nfrom rich.palette import Palette\n\n"
        'RE_COLOR = re.compile("x")\nRE_WORD = compile("y")\nSTANDARD = Palette()\n\n\n'
        "def parse(text):\n"
        "    RE_COLOR.match(text)\n"  # 14: re.Pattern's
        "    RE_WORD.match(text)\n"  # 15: re.Pattern's, by a name from re
        "    STANDARD.match(text)\n"  # 16: Palette's
        "    q = copy.copy(STANDARD)\n"
        "    q.update_from(STANDARD)\n"  # 18: copy returns its argument's class
        "    a = app.update_from(STANDARD)\n"  # 19: a name of an indexed module: decided as before
        "    a.match(text)\n"
    ),
}


def test_what_a_function_of_a_module_the_index_lacks_returns_is_none_of_its_classes(
    tmp_path: Path,
) -> None:
    """rich's `RE_COLOR.match(color)` (`RE_COLOR = re.compile(…)`) was linked to
    `Palette.match`, the one `match` of the index, and httpx's `log.info(…)` (`log =
    logging.getLogger(…)`) to a model's `info`: what a function of a module the index
    lacks returns is that module's, unresolved. `copy.copy`, `copy.deepcopy` and
    `typing.cast` return their argument's class, so they are decided as before."""
    _, db = _index_tree(tmp_path, PYTHON_FOREIGN_RESULTS)
    found = {
        (line, qualifier, resolution, target)
        for line, name, qualifier, resolution, target in _calls_in(db, "rich/color.py")
        if name in ("match", "update_from")
    }
    assert found == {
        (14, "=re.compile()", "unresolved", None),
        (15, "=compile()", "unresolved", None),
        (16, "Palette()", "import", "Palette.match"),
        (18, "=copy.copy()", "import", "Palette.update_from"),
        (19, "app", "import", "Palette.update_from"),
        (20, "=app.update_from()", "import", "Palette.match"),
    }, found
    setproxy = [c for c in _calls_in(db, "rich/proxy.py") if c[1] == "setproxy"]
    assert setproxy == [(9, "setproxy", "=socks.socksocket()", "import", "socksocket.setproxy")]


TS_TYPED = {
    # rxjs in small: two classes with a `next`; a function that takes a Subscriber, one
    # that makes a Subject.
    "src/Subscriber.ts": "export class Subscriber<T> {\n  next(value: T): void {}\n}\n",
    "src/Subject.ts": "export class Subject<T> {\n  next(value: T): void {}\n}\n",
    "src/use.ts": (
        'import { Subscriber } from "./Subscriber";\nimport { Subject } from "./Subject";\n\n'
        "export function pipe(sub: Subscriber<number>, other) {\n"
        "  sub.next(1);\n"  # 5: Subscriber's
        "  const s = new Subject<number>();\n"
        "  s.next(2);\n"  # 7: Subject's
        "  other.next(3);\n"  # 8: undecided
        "}\n"
    ),
    "src/Observable.ts": (
        "export class Observable<T> {\n  pipe(): Observable<T> { return this; }\n}\n"
    ),
    "src/Other.ts": "export class Other {\n  pipe(): void {}\n}\n",
    "src/Replay.ts": (
        'import { Observable } from "./Observable";\n\n'
        "export class Replay<T extends object = object> extends Observable<T> {}\n"
    ),
    "src/replay.ts": (
        'import { Replay } from "./Replay";\n\n'
        "export function run(r: Replay<number>) {\n  r.pipe();\n}\n"  # 4: Observable's
    ),
    "src/plain.js": (
        'const { Subject } = require("./Subject");\n\n'
        "function run() {\n  const s = new Subject();\n  s.next(1);\n}\n"  # 5: Subject's
    ),
}


def test_a_typescript_name_of_a_known_class_calls_its_methods(tmp_path: Path) -> None:
    """`sub: Subscriber<number>` and `const s = new Subject<number>()` (and JavaScript's
    `new Subject()`): `s.next(…)` is that class's `next`, not one of every `next`."""
    _, db = _index_tree(tmp_path, TS_TYPED)
    found = {c for c in _calls_in(db, "src/use.ts") if c[1] == "next"}
    assert found == {
        (5, "next", "Subscriber()", "import", "Subscriber.next"),
        (7, "next", "Subject()", "import", "Subject.next"),
        (8, "next", OTHER_OBJECT, "ambiguous", None),
    }, found
    found = {c for c in _calls_in(db, "src/plain.js") if c[1] == "next"}
    assert found == {(5, "next", "Subject()", "import", "Subject.next")}, found
    # a member the class inherits: `Replay<T extends object> extends Observable<T>`
    found = {c for c in _calls_in(db, "src/replay.ts") if c[1] == "pipe"}
    assert found == {(4, "pipe", "Replay()", "import", "Observable.pipe")}, found


SUPER_CALLS = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "class Command:\n"
        "    def invoke(self, ctx):\n        return ctx\n\n"
        "    def stop(self):\n        return 0\n\n\n"
        "class Group(Command):\n"
        "    def invoke(self, ctx):\n"
        "        def inner():\n            return super(Group, self).invoke(ctx)\n\n"
        "        return super().invoke(ctx)\n"
    ),
    "pkg/testing.py": (
        "class Runner:\n    def __init__(self):\n        self.n = 0\n\n"
        "    def invoke(self, cli):\n        return cli\n"
    ),
    # a base of the class's own name is another class (sqlglot's dialects)
    "dialects/hive.py": (
        "from pkg import core\n\n\nclass Command(core.Command):\n"
        "    def invoke(self, ctx):\n        return super().invoke(ctx)\n"
    ),
    # a base an import renames (FastAPI's `class UploadFile(StarletteUploadFile)`)
    "pkg/renamed.py": (
        "from .core import Command as BaseCommand\n\n\nclass Command(BaseCommand):\n"
        "    def stop(self):\n        return super().stop()\n"
    ),
    # a grandparent's member
    "pkg/leaf.py": (
        "from .core import Group\n\n\nclass Leaf(Group):\n"
        "    def stop(self):\n        return super().stop()\n"
    ),
    # a base the index does not hold, and no base at all: `Exception`'s, `object`'s
    "pkg/errors.py": (
        "class Oops(Exception):\n    def __init__(self, m):\n        super().__init__(m)\n\n\n"
        "class Plain:\n    def __init__(self):\n        super().__init__()\n"
    ),
    # two classes of one name in two files, each of its own base (flask's Blueprint,
    # and sansio's)
    "two/one.py": (
        "class Base1:\n    def run(self):\n        return 1\n\n\n"
        "class Widget(Base1):\n    def run(self):\n        return super().run()\n"
    ),
    "two/other.py": (
        "class Base2:\n    def run(self):\n        return 2\n\n\n"
        "class Widget(Base2):\n    def run(self):\n        return super().run()\n"
    ),
    "web/view.ts": (
        "class Base {\n  render(): number {\n    return 1;\n  }\n}\n\n"
        "export class View extends Base {\n  render(): number {\n"
        "    return super.render();\n  }\n}\n"
    ),
}


def test_super_is_the_enclosing_classs_bases(tmp_path: Path) -> None:
    """`super().invoke(ctx)` in click's `MultiCommand(Command)` took another file's `invoke`
    (`CliRunner.invoke`): a member of another object never takes the file's own, where
    the base was. Now `super()` (JavaScript's `super`) is the class's bases' member,
    qualifier `super`: in the same file (`local`), through a base of the class's own name
    (`class Command(core.Command)`) or one an import renames, a grandparent's;
    `Exception`'s and `object`'s are none of the index (`unresolved`), even where other
    `__init__`s exist."""
    _, db = _index_tree(tmp_path, SUPER_CALLS)
    found = {
        (path, line, name, qualifier, resolution, target, home)
        for path, line, name, qualifier, resolution, target, home in _resolved(
            db, "r.kind = 0 AND r.qualifier = 'super'"
        )
    }
    assert found == {
        ("pkg/core.py", 12, "invoke", "super", "local", "Command.invoke", "pkg/core.py"),
        ("pkg/core.py", 14, "invoke", "super", "local", "Command.invoke", "pkg/core.py"),
        ("dialects/hive.py", 6, "invoke", "super", "import", "Command.invoke", "pkg/core.py"),
        ("pkg/leaf.py", 6, "stop", "super", "import", "Command.stop", "pkg/core.py"),
        ("pkg/renamed.py", 6, "stop", "super", "import", "Command.stop", "pkg/core.py"),
        ("pkg/errors.py", 3, "__init__", "super", "unresolved", None, None),
        ("pkg/errors.py", 8, "__init__", "super", "unresolved", None, None),
        ("web/view.ts", 9, "render", "super", "local", "Base.render", "web/view.ts"),
        ("two/one.py", 8, "run", "super", "local", "Base1.run", "two/one.py"),
        ("two/other.py", 8, "run", "super", "local", "Base2.run", "two/other.py"),
    }, found


PACKAGE_IMPORTS = {
    "pkg/__init__.py": "from .testing import Runner\n\n\ndef version():\n    return 1\n",
    "other/version.py": "def version():\n    return 2\n",
    # `import pkg.types` binds `pkg`: `pkg.version()` is the package's
    "app/dotted.py": "import pkg.types\n\n\ndef go():\n    return pkg.version()\n",
    "pkg/types.py": (
        "class Param:\n    def convert(self):\n        return 1\n\n"
        "    def write(self):\n        return 2\n"
    ),
    "pkg/testing.py": "class Runner:\n    def invoke(self):\n        return 1\n",
    "pkg/core2.py": "class Context:\n    def invoke(self):\n        return 2\n",
    "other/context.py": (
        "class Context:\n    def invoke(self):\n        return 3\n\n"
        "    def convert(self):\n        return 4\n"
    ),
    # `from . import types` imports types.py, not testing.py
    "pkg/core.py": (
        "import sys\n\nfrom . import types\n\n\n"
        "def run(ctx, p):\n    sys.stdout.write('x')\n    p.convert()\n    return ctx.invoke()\n"
    ),
    # the same from outside the package
    "app/main.py": (
        "from pkg import types\n\n\ndef go(ctx, p):\n    p.convert()\n    return ctx.invoke()\n"
    ),
    # a name that is no module: the package's, which may re-export it from any of its
    # files (all count as imported: testing.py's and core2.py's `invoke` stay undecided)
    "app/reexported.py": "from pkg import Runner\n\n\ndef go(r):\n    return r.invoke()\n",
    # a call's result typed by `t.Optional["Context"]`, its class imported relatively
    "pkg/globals.py": (
        "import typing as t\n\nif t.TYPE_CHECKING:\n    from .core2 import Context\n\n\n"
        'def current() -> t.Optional["Context"]:\n    return None\n'
    ),
    "pkg/deco.py": (
        "from .globals import current\n\n\ndef use():\n    ctx = current()\n"
        "    return ctx.invoke()\n"
    ),
}


def test_from_a_package_import_names_its_modules_not_every_file(tmp_path: Path) -> None:
    """`from . import types` in click's core.py counted every file of the package as
    imported (the package's last part), so `ctx.invoke(…)` of an unknown `ctx` became
    testing.py's `CliRunner.invoke`: the import names the modules it lists (`types.py`),
    and the package's last part only for a name that is no module (`from pkg import
    Runner`, re-exported by its `__init__.py`). A file object's method (`sys.stdout
    .write`) is no index definition's by the import rule; a result annotated
    `t.Optional["Context"]`, whose class the function's file imports relatively, types
    the value (`ctx = current()`). `import pkg.types` binds `pkg`, whose `version` is
    then `pkg.version()`'s."""
    _, db = _index_tree(tmp_path, PACKAGE_IMPORTS)
    found = {
        (path, line, name, resolution, target, home)
        for path, line, name, _, resolution, target, home in _resolved(
            db, "r.kind = 0 AND r.name IN ('invoke', 'convert', 'write', 'version')"
        )
    }
    assert found == {
        ("pkg/core.py", 7, "write", "ambiguous", None, None),
        ("pkg/core.py", 8, "convert", "import", "Param.convert", "pkg/types.py"),
        ("pkg/core.py", 9, "invoke", "ambiguous", None, None),
        ("app/main.py", 5, "convert", "import", "Param.convert", "pkg/types.py"),
        ("app/main.py", 6, "invoke", "ambiguous", None, None),
        ("app/reexported.py", 5, "invoke", "ambiguous", None, None),
        ("pkg/deco.py", 6, "invoke", "import", "Context.invoke", "pkg/core2.py"),
        ("app/dotted.py", 5, "version", "import", "version", "pkg/__init__.py"),
    }, found


CHOSEN_REEXPORTS = {
    # FastAPI: `from .param_functions import Depends as Depends` in fastapi/__init__.py,
    # beside the class `params.Depends`; click's `Option` in core.py and parser.py
    "fastapi/__init__.py": (
        "from .param_functions import Depends as Depends\nfrom .core import Option\n"
    ),
    "fastapi/param_functions.py": "def Depends(dependency=None):\n    return dependency\n",
    "fastapi/params.py": "class Depends:\n    pass\n",
    "fastapi/core.py": "class Option:\n    pass\n",
    "fastapi/parser.py": "class Option:\n    pass\n",
    "app/main.py": (
        "from fastapi import Depends\nimport fastapi\n\n\n"
        "def route(db=Depends(None)):\n    return fastapi.Option()\n"
    ),
}


def test_a_package_s_re_export_says_which_of_its_folder_s_names_it_is(tmp_path: Path) -> None:
    """`from fastapi import Depends` named both `param_functions.Depends` (the function
    users call) and `params.Depends` (a class): the folder held two top-level `Depends`,
    so every `Depends(…)` of FastAPI's docs was ambiguous (1,385 uses of `Depends`,
    `Query`, `Body`, … in FastAPI 0.115.6). The package's `__init__.py` re-exports one:
    that one, as a qualified use (`fastapi.Option()`) too."""
    _, db = _index_tree(tmp_path, CHOSEN_REEXPORTS)
    found = {
        (path, line, name, resolution, home)
        for path, line, name, _, resolution, _, home in _resolved(
            db, "r.kind = 0 AND d.path LIKE '%/app/main.py'"
        )
    }
    assert found == {
        ("app/main.py", 5, "Depends", "import", "fastapi/param_functions.py"),
        ("app/main.py", 6, "Option", "import", "fastapi/core.py"),
    }, found


NAMED_LIKE_A_DEFINITION = {
    "rich/text.py": "class Text:\n    def append(self, x):\n        return self\n",
    # a bound method kept in a name: `append(…)` is the list's
    "rich/box.py": (
        "from .text import Text\n\n\ndef rows():\n    parts = []\n"
        "    append = parts.append\n    append(Text())\n    return parts\n"
    ),
    # table.py has a method `cells` and a local list `cells`
    "rich/table.py": (
        "from .text import Text\n\n\nclass Table:\n    def cells(self):\n"
        "        cells = []\n        cells.append(Text())\n        return cells\n\n"
        "    def grow(self):\n        return Table.cells(self)\n"
    ),
}


def test_a_python_variable_named_like_a_function_of_the_file_is_another_object(
    tmp_path: Path,
) -> None:
    """`cells.append(…)` in rich's table.py, which has a method `cells`, was read as the
    file's own (a bare `append`) and linked to `Text.append` by the import; pytest's
    fixture `tmpfile`'s `tmpfile.flush()` likewise. In Python only a class of the file
    names its own members (`Table.cells(self)`); any other name is another object. A
    bare `append(…)` (`append = parts.append`) is no index method by the import either."""
    _, db = _index_tree(tmp_path, NAMED_LIKE_A_DEFINITION)
    found = {
        (line, name, qualifier, resolution, target)
        for path, line, name, qualifier, resolution, target, _ in _resolved(db, "r.kind = 0")
        if path == "rich/table.py"
    }
    assert found == {
        (7, "append", "", "ambiguous", None),
        (7, "Text", None, "import", "Text"),
        (11, "cells", "Table", "local", "Table.cells"),
    }, found
    calls = {
        (line, name, resolution)
        for path, line, name, _, resolution, _, _ in _resolved(db, "r.kind = 0")
        if path == "rich/box.py"
    }
    assert (7, "append", "ambiguous") in calls, calls


def test_a_class_named_in_its_own_file_is_that_files_class(tmp_path: Path) -> None:
    """Sphinx's C and C++ domains each define a `Symbol` whose methods call
    `Symbol.debug_print(…)`: of the two types of that name, the file's own is meant (138
    calls were ambiguous between them); a file defining none stays undecided."""
    symbol = (
        "class Symbol:\n    @staticmethod\n    def debug_print(*args):\n        pass\n\n"
        "    def run(self):\n        Symbol.debug_print('x')\n"
    )
    _, db = _index_tree(
        tmp_path,
        {
            "pkg/c/_symbol.py": symbol,
            "pkg/cpp/_symbol.py": symbol,
            "pkg/other.py": "def f(Symbol):\n    Symbol.debug_print('y')\n",
        },
    )
    rows = {
        (path, resolution, home)
        for path, _, name, _, resolution, _, home in _resolved(db, "r.kind = 0")
        if name == "debug_print"
    }
    assert rows == {
        ("pkg/c/_symbol.py", "local", "pkg/c/_symbol.py"),
        ("pkg/cpp/_symbol.py", "local", "pkg/cpp/_symbol.py"),
        ("pkg/other.py", "ambiguous", None),
    }, rows


def test_a_private_class_types_its_value_and_a_parameter_names_no_class(tmp_path: Path) -> None:
    """pydoc's `html = _HTMLDoc()` (a class private by its underscore) types `html` in the
    functions nested in its function; http.server's `with ServerClass(…) as httpd` calls
    a parameter `ServerClass=ThreadingHTTPServer`: a value, no class the index lacks
    (`httpd.serve_forever()` was `unresolved`)."""
    text = (
        "class HTMLDoc:\n    def heading(self):\n        return 1\n\n\n"
        "class TextDoc:\n    def heading(self):\n        return 2\n\n\n"
        "class Server:\n    def serve(self):\n        return 3\n\n\n"
        "class Client:\n    def serve(self):\n        return 4\n\n\n"
        "def handler(ServerClass=Server):\n"
        "    with ServerClass() as httpd:\n"
        "        httpd.serve()\n"  # 23: a parameter's value: as any other object's
        "\n"
        "    class _HTMLDoc(HTMLDoc):\n        pass\n\n"
        "    html = _HTMLDoc()\n\n"
        "    def page():\n"
        "        return html.heading()\n"  # 31: _HTMLDoc's, inherited: HTMLDoc.heading
        "\n"
        "    return page\n"
    )
    _, db = _index_tree(tmp_path, {"web/pydoc.py": text})
    found = {(c[0], c[2], c[3], c[4]) for c in _calls_in(db, "web/pydoc.py") if c[0] in (23, 31)}
    assert found == {
        (23, OTHER_OBJECT, "ambiguous", None),
        (31, "_HTMLDoc()", "local", "HTMLDoc.heading"),
    }, found


def test_a_class_named_in_a_functions_result_type_is_no_parameter(tmp_path: Path) -> None:
    """rxjs's `windowToggle<T, O>(…): OperatorFunction<T, Observable<T>>` holds
    `, Observable` after its parameters: `let closingNotifier: Observable<any>` in it is
    still an `Observable` (only the parameter list names parameters)."""
    files = {
        "src/Observable.ts": "export class Observable {\n  subscribe(): void {}\n}\n",
        "src/Other.ts": "export class Other {\n  subscribe(): void {}\n}\n",
        "src/toggle.ts": (
            "import { Observable } from './Observable';\n\n"
            "export function toggle<T>(open: T): Map<T, Observable> {\n"
            "  let notifier: Observable;\n"
            "  notifier.subscribe();\n"  # 5: Observable's
            "  return new Map();\n}\n"
        ),
    }
    _, db = _index_tree(tmp_path, files)
    found = {(c[0], c[2], c[4]) for c in _calls_in(db, "src/toggle.ts") if c[1] == "subscribe"}
    assert found == {(5, "Observable()", "Observable.subscribe")}, found


CLASS_LANGUAGES = {
    # OpenJDK's java.util, expo's Kotlin and pythonnet's C# in small.
    "util/Checks.java": (
        "package util;\n\n"
        "public final class Checks {\n"
        "  public static <T> T requireNonNull(T obj) { return obj; }\n"
        "  public static <T> T requireNonNull(T obj, String message) { return obj; }\n"
        "}\n"
    ),
    "util/Calendar.java": (
        "package util;\n\n"
        "public abstract class Calendar {\n"
        "  public void set(int field, int value) {}\n"
        "  protected void complete() {}\n"
        "}\n"
    ),
    "util/Node.java": "package util;\n\npublic interface Node {\n  int count();\n}\n",
    "util/Gregorian.java": (
        "package util;\n\n"
        "public class Gregorian extends Calendar {\n"
        "  private Node node;\n"
        "  public void roll(int year) {\n"
        "    set(1, year);\n"  # 6: its base's
        "    Checks.requireNonNull(node);\n"  # 7: its package's class, the first overload
        "    Node n = node;\n"  # 8: its package's Node, not io's Tree.Node
        "    node.count();\n"  # 9: the field's, not this class's count
        "    Clock.tick(1);\n"  # 10: a class the index lacks: no bare `tick`
        "    node().count();\n"  # 11: a method's result's
        "  }\n"
        "  public Node node() { return node; }\n"
        "  public int count() { return 0; }\n"
        "}\n"
    ),
    "io/Tree.java": "package io;\n\npublic class Tree {\n  static class Node {}\n}\n",
    "io/FileDescriptor.java": (
        "package io;\n\npublic class FileDescriptor {\n  public void set(int fd) {}\n}\n"
    ),
    "io/Writer.java": "package io;\n\npublic class Writer {\n  public void flush() {}\n}\n",
    "app/Main.java": (
        "package app;\n\n"
        "import util.Gregorian;\n"
        "import io.Writer;\n"
        "import static util.Checks.*;\n\n"
        "public class Main {\n"
        "  void run(Gregorian g) {\n"
        "    set(1, 2);\n"  # 9: no base of Main's has it, nor is it io's FileDescriptor.set
        "    requireNonNull(g);\n"  # 10: the static import's
        "    g.roll(3);\n"  # 11
        "    new Gregorian().complete();\n"  # 12: a Gregorian's, from its base
        "  }\n"
        "}\n"
    ),
    "kt/Base.kt": "package kt\n\nopen class Base {\n    fun readFloat(i: Int): Float = 0f\n}\n",
    "kt/Stream.kt": "package kt\n\nclass Stream {\n    fun readFloat(i: Int): Float = 1f\n}\n",
    "kt/Child.kt": (
        "package kt\n\nclass Child : Base() {\n"
        "    fun at(i: Int): Float = readFloat(i)\n"  # 4: its base's
        "    fun me(): Child = this.weak()\n"  # 5: a top-level extension function
        "}\n"
    ),
    "kt/Utils.kt": "package kt\n\nfun <T> T.weak(): T = this\n",
    "kt/LogType.kt": (
        "package kt\n\nclass LogType {\n    companion object {\n"
        "        fun parse(s: String): LogType = LogType()\n    }\n}\n"
    ),
    "kt/Config.kt": "package kt\n\nclass Config {\n    fun parse(s: String): Int = 1\n}\n",
    "kt/Converter.kt": (
        "package kt\n\nclass Converter(val x: Int) {\n    fun convert(): Int = x\n}\n"
    ),
    "kt/Other.kt": "package kt\n\nclass Other {\n    fun convert(): Int = 1\n}\n",
    "kt/Use.kt": (
        "package kt\n\nfun use(): Int {\n"
        '    LogType.parse("x")\n'  # 4: its companion object's
        "    return Converter(1).convert()\n"  # 5: a Converter's, not Other's
        "}\n"
    ),
    "cs/Runtime.cs": (
        "namespace Py.Runtime\n{\n"
        "    public static class Runtime\n    {\n"
        "        public static void Initialize() {}\n"
        "        public static int Size(int x) => x;\n"
        "    }\n"
        "    public static class TypeManager\n    {\n"
        "        public static void Initialize() {}\n"
        "    }\n}\n"
    ),
    "cs/Engine.cs": (
        "using static Py.Runtime.Runtime;\n\n"
        "namespace Py.Runtime\n{\n"
        "    public class ExtensionType\n    {\n"
        "        public virtual int Alloc() => 1;\n"
        "    }\n"
        "    public class MethodObject : ExtensionType {}\n"
        "    public class Engine\n    {\n"
        "        public void Start()\n        {\n"
        "            TypeManager.Initialize();\n"  # 14: that class's
        "            Size(1);\n"  # 15: `using static`'s
        "            new MethodObject().Alloc();\n"  # 16: its base's
        "        }\n"
        "    }\n}\n"
    ),
}


def test_java_kotlin_and_csharp_names_by_package_bases_and_overloads(tmp_path: Path) -> None:
    """Found on OpenJDK 17's java.util and java.net.http, expo-modules-core's Kotlin and
    pythonnet's C#: overloads of one method are one (linked at the first: 488 calls of
    `Objects.requireNonNull` were ambiguous between its own overloads); a class of the
    file's package needs no import (`Node` is util/Node.java, not io's `Tree.Node`), and
    `import io.Writer` imports Writer.java, not every file of `io`; a bare call is the
    class's or its bases' (`set(…)` in `GregorianCalendar` is `Calendar.set`), a static
    import's, else a method of no other class; `node.count()` is the field's, though the
    class has a method `node()`; a capitalised qualifier is a class (Kotlin's companion
    object's members too), a member after a call another object's, after a constructor
    that class's (Kotlin's `Converter(1).convert()`, C#'s `new MethodObject().Alloc()`)."""
    _, db = _index_tree(tmp_path, CLASS_LANGUAGES)
    found = {
        row[:6]
        for row in _resolved(db, "r.kind IN (0, 1)")
        if row[0] in ("util/Gregorian.java", "app/Main.java", "kt/Child.kt", "kt/Use.kt")
        or row[0] == "cs/Engine.cs"
    }
    found = {row for row in found if row[2] not in ("Int", "Float")}  # Kotlin's own types
    assert found == {
        ("util/Gregorian.java", 4, "Node", None, "import", "Node"),
        ("util/Gregorian.java", 6, "set", None, "import", "Calendar.set"),
        ("util/Gregorian.java", 7, "requireNonNull", "Checks", "import", "Checks.requireNonNull"),
        ("util/Gregorian.java", 8, "Node", None, "import", "Node"),
        ("util/Gregorian.java", 9, "count", "Node()", "import", "Node.count"),
        ("util/Gregorian.java", 10, "tick", "Clock", "unresolved", None),
        ("util/Gregorian.java", 11, "count", OTHER_OBJECT, "ambiguous", None),
        ("util/Gregorian.java", 11, "node", None, "local", "Gregorian.node"),
        ("util/Gregorian.java", 13, "Node", None, "import", "Node"),
        ("app/Main.java", 8, "Gregorian", None, "import", "Gregorian"),
        ("app/Main.java", 9, "set", None, "unresolved", None),
        ("app/Main.java", 10, "requireNonNull", None, "import", "Checks.requireNonNull"),
        ("app/Main.java", 11, "roll", "Gregorian()", "import", "Gregorian.roll"),
        ("app/Main.java", 12, "Gregorian", None, "import", "Gregorian"),
        ("app/Main.java", 12, "complete", "Gregorian()", "import", "Calendar.complete"),
        ("kt/Child.kt", 4, "readFloat", None, "import", "Base.readFloat"),
        ("kt/Child.kt", 5, "Child", None, "local", "Child"),
        ("kt/Child.kt", 5, "weak", OWN_MEMBER, "import", "weak"),
        ("kt/Use.kt", 4, "parse", "LogType", "import", "LogType.Companion.parse"),
        ("kt/Use.kt", 5, "Converter", None, "import", "Converter"),
        ("kt/Use.kt", 5, "convert", "Converter()", "import", "Converter.convert"),
        (
            "cs/Engine.cs",
            14,
            "Initialize",
            "TypeManager",
            "import",
            "Py.Runtime.TypeManager.Initialize",
        ),
        ("cs/Engine.cs", 15, "Size", None, "import", "Py.Runtime.Runtime.Size"),
        ("cs/Engine.cs", 16, "Alloc", "MethodObject()", "local", "Py.Runtime.ExtensionType.Alloc"),
        ("cs/Engine.cs", 16, "MethodObject", None, "local", "Py.Runtime.MethodObject"),
    }, sorted(found, key=str)


SWIFT = {
    # expo-modules-core's iOS side in small.
    "Core/Logger.swift": "public class Logger {\n  public func error(_ message: String) {}\n}\n",
    "Core/BaseModule.swift": "open class BaseModule {\n  func sendEvent(_ name: String) {}\n}\n",
    "Core/Emitter.swift": "class Emitter {\n  func sendEvent(_ name: String) {}\n}\n",
    "Core/Store.swift": (
        "class Store {\n"
        "  func load(_ key: String) -> Int { 0 }\n"
        "  func load(_ key: Int) -> Int { 0 }\n"
        "}\n"
    ),
    "Core/Cache.swift": "class Cache {\n  func load(_ key: String) -> Int { 1 }\n}\n",
    "Core/Events.swift": "func dispatchEvent(_ name: String) {}\n",
    "Core/CameraModule.swift": (
        "import Foundation\n\n"
        "final class CameraModule: BaseModule {\n"
        "  let store = Store()\n"
        "  let registry: [String: Int] = [:]\n"
        "  func start() {\n"
        '    sendEvent("start")\n'  # 7: its base's, not Emitter's
        '    store.load("x")\n'  # 8: the property's Store, not Cache's
        "    Store().load(1)\n"  # 9: a new Store's (one method of two overloads)
        '    Logger().error("x")\n'  # 10
        "    super.start()\n"  # 11: no base in the index has it
        '    _ = registry["k"]\n'  # 12: a subscript, no call
        '    dispatchEvent("a")\n'  # 13: the top-level function
        '    self.dispatchEvent("b")\n'  # 14: a method no class of the index has
        "  }\n"
        "}\n"
    ),
}


def test_swift_names_by_bases_overloads_and_constructors(tmp_path: Path) -> None:
    """Swift (expo-modules-core's iOS code) has its grammar and the class languages'
    rules: a bare call is the class's bases' (`sendEvent` of `BaseModule`, not of
    `Emitter`), overloads are one method, a constructor's member is its class's, `super.`
    a base's, and a subscript (`registry["k"]`, a call to tree-sitter-swift) is none."""
    _, db = _index_tree(tmp_path, SWIFT)
    found = _calls_in(db, "Core/CameraModule.swift")
    assert found == {
        (4, "Store", None, "unique", "Store"),
        (7, "sendEvent", None, "import", "BaseModule.sendEvent"),
        (8, "load", "Store()", "import", "Store.load"),
        (9, "Store", None, "unique", "Store"),
        (9, "load", "Store()", "import", "Store.load"),
        (10, "Logger", None, "unique", "Logger"),
        (10, "error", "Logger()", "import", "Logger.error"),
        (11, "start", "super", "unresolved", None),
        (13, "dispatchEvent", None, "unique", "dispatchEvent"),
        (14, "dispatchEvent", OWN_MEMBER, "unresolved", None),
    }, sorted(found, key=str)


JAVA_DECLARED = {
    # java.util and java.net.http in small: values whose class the code writes down
    "util/Logger.java": "package util;\n\npublic class Logger {\n  void log(String m) {}\n}\n",
    "util/Journal.java": "package util;\n\npublic class Journal {\n  void log(String m) {}\n}\n",
    "util/Sync.java": (
        "package util;\n\nabstract class Base {\n"
        "  final boolean hasQueuedThreads() { return false; }\n}\n\n"
        "class Sync extends Base {\n}\n"
    ),
    "util/Queue.java": (
        "package util;\n\npublic class Queue {\n"
        "  final boolean hasQueuedThreads() { return true; }\n}\n"
    ),
    "util/Lock.java": (
        "package util;\n\n"
        "import java.nio.ByteBuffer;\n\n"
        "public class Lock {\n"
        "  private final Logger logger = new Logger();\n"
        "  private final Sync sync;\n"
        "  boolean held(Journal journal, ByteBuffer buf, Object o) {\n"
        '    logger.log("held");\n'  # 9: the field's Logger
        '    journal.log("held");\n'  # 10: the parameter's Journal
        "    var other = new Journal();\n"
        '    other.log("x");\n'  # 12: `var`'s `new Journal()`
        "    buf.flip();\n"  # 13: a class the index lacks
        '    ((Journal) o).log("y");\n'  # 14: the class it is cast to
        "    return sync.hasQueuedThreads();\n"  # 15: Sync's, from its base
        "  }\n"
        "}\n"
    ),
    "util/BitSet.java": "package util;\n\npublic class BitSet {\n  public void flip() {}\n}\n",
}


def test_a_java_value_declared_with_a_class_calls_its_members(tmp_path: Path) -> None:
    """Java writes every variable's, field's and parameter's class, and a cast's
    (`((ConcurrentSkipListMap<K,V>) m).removeEntryIf(…)`): `logger.log(…)` on a
    `Logger` field is `Logger.log` (both `log`s were candidates), a member of a
    `ByteBuffer` (no class of the index) is `unresolved`, not the index's one `flip`.
    On OpenJDK 17's java.util and java.net.http: ambiguous 12,789 → 2,989 of 77,529
    references (14 of 14 sampled unlinks were wrong links: `ByteBuffer.flip` to
    `BitSet.flip`, `String.equalsIgnoreCase` to a cache's)."""
    _, db = _index_tree(tmp_path, JAVA_DECLARED)
    found = {row for row in _calls_in(db, "util/Lock.java") if row[1] != "Logger"}
    assert found == {
        (9, "log", "Logger()", "import", "Logger.log"),
        (10, "log", "Journal()", "import", "Journal.log"),
        (11, "Journal", None, "import", "Journal"),
        (12, "log", "Journal()", "import", "Journal.log"),
        (13, "flip", "ByteBuffer()", "unresolved", None),
        (14, "log", "Journal()", "import", "Journal.log"),
        (15, "hasQueuedThreads", "Sync()", "import", "Base.hasQueuedThreads"),
    }, sorted(found, key=str)


CSHARP_DECLARED = {
    # pythonnet in small
    "src/PyList.cs": (
        "namespace Py.Runtime\n{\n    public class PyList\n    {\n"
        "        public void Append(object o) {}\n    }\n}\n"
    ),
    "src/Journal.cs": (
        "namespace Py.Runtime\n{\n    public class Journal\n    {\n"
        "        public void Append(object o) {}\n    }\n}\n"
    ),
    "src/ReflectionUtil.cs": (
        "namespace Py.Runtime\n{\n    static class ReflectionUtil\n    {\n"
        "        public static object GetBaseGetMethod(this PropertyInfo property, bool b)\n"
        "        {\n            return null;\n        }\n    }\n}\n"
    ),
    "src/Binder.cs": (
        "using System.Text;\n\nnamespace Py.Runtime\n{\n    class Binder\n    {\n"
        "        private readonly Journal journal;\n"
        "        void Bind(PropertyInfo md, StringBuilder buffer)\n        {\n"
        '            journal.Append("x");\n'  # 10: the field's Journal
        '            buffer.Append("x");\n'  # 11: StringBuilder's, no class of the index
        "            var list = new PyList();\n"
        '            list.Append("x");\n'  # 13
        "            md.GetBaseGetMethod(true);\n"  # 14: an extension method
        "        }\n    }\n}\n"
    ),
}


def test_a_csharp_value_declared_with_a_class_calls_its_members(tmp_path: Path) -> None:
    """C# as Java: a field's, parameter's or `var x = new Foo()`'s class types its
    members (pythonnet's `buffer.Append(…)` on a `StringBuilder` was `PyList.Append` by
    uniqueness); an extension method (`this PropertyInfo property`) is any class's."""
    _, db = _index_tree(tmp_path, CSHARP_DECLARED)
    found = {row for row in _calls_in(db, "src/Binder.cs") if row[1] != "PyList"}
    assert found == {
        (10, "Append", "Journal()", "import", "Py.Runtime.Journal.Append"),
        (11, "Append", "StringBuilder()", "unresolved", None),
        (13, "Append", "PyList()", "import", "Py.Runtime.PyList.Append"),
        (
            14,
            "GetBaseGetMethod",
            "PropertyInfo()",
            "import",
            "Py.Runtime.ReflectionUtil.GetBaseGetMethod",
        ),
    }, sorted(found, key=str)


KOTLIN_SWIFT_DECLARED = {
    # expo-modules-core's two sides in small
    "kt/Registry.kt": "package kt\n\nclass Registry {\n    fun register(name: String) {}\n}\n",
    "kt/Journal.kt": "package kt\n\nclass Journal {\n    fun register(name: String) {}\n}\n",
    "kt/SharedRef.kt": "package kt\n\nfun KClass<*>.isSharedRefClass(): Boolean = true\n",
    "kt/Module.kt": (
        "package kt\n\nclass Module(private val journal: Journal) {\n"
        "    private val registry = Registry()\n"
        "    fun start(owner: KClass<*>, value: Dynamic) {\n"
        '        registry.register("a")\n'  # 6: the property's Registry
        '        journal.register("b")\n'  # 7: the constructor parameter's Journal
        "        owner.isSharedRefClass()\n"  # 8: an extension function of a class outside
        "        value.asDouble()\n"  # 9: react-native's Dynamic: nothing of the index
        "    }\n}\n"
    ),
    "ios/Registry.swift": "class Registry {\n  func register(_ name: String) {}\n}\n",
    "ios/Journal.swift": "class Journal {\n  func register(_ name: String) {}\n}\n",
    "ios/String+Trim.swift": "extension String {\n  func trimmed() -> String { self }\n}\n",
    "ios/Module.swift": (
        "class Module {\n"
        "  private var registry: Registry = Registry()\n"
        "  func start(journal: Journal, name: String) {\n"
        '    registry.register("a")\n'  # 4
        '    journal.register("b")\n'  # 5
        "    let made = Registry()\n"
        '    made.register("c")\n'  # 7
        "    _ = name.trimmed()\n"  # 8: an extension of String, which the index lacks
        "  }\n}\n"
    ),
}


def test_kotlin_and_swift_values_declared_with_a_class_call_its_members(tmp_path: Path) -> None:
    """Kotlin's and Swift's properties, parameters and `val x = Foo()` type their
    members as Java's declarations do, and a class the index lacks still has what the
    index extends it with (a Kotlin extension function, a Swift `extension String`)."""
    _, db = _index_tree(tmp_path, KOTLIN_SWIFT_DECLARED)
    found = {
        (path, *row[:5])
        for path in ("kt/Module.kt", "ios/Module.swift")
        for row in _calls_in(db, path)
        if row[1] != "Registry"
    }
    assert found == {
        ("kt/Module.kt", 6, "register", "Registry()", "import", "Registry.register"),
        ("kt/Module.kt", 7, "register", "Journal()", "import", "Journal.register"),
        ("kt/Module.kt", 8, "isSharedRefClass", "KClass()", "import", "isSharedRefClass"),
        ("kt/Module.kt", 9, "asDouble", "Dynamic()", "unresolved", None),
        ("ios/Module.swift", 4, "register", "Registry()", "import", "Registry.register"),
        ("ios/Module.swift", 5, "register", "Journal()", "import", "Journal.register"),
        ("ios/Module.swift", 7, "register", "Registry()", "import", "Registry.register"),
        ("ios/Module.swift", 8, "trimmed", "String()", "import", "String.trimmed"),
    }, sorted(found, key=str)


OBJC = {
    "ios/EXUtilities.h": (
        "#import <Foundation/Foundation.h>\n\n@interface EXUtilities : NSObject\n"
        "+ (void)performSynchronouslyOnMainThread:(void (^)(void))block;\n@end\n"
    ),
    "ios/EXModule.m": (
        '#import "EXUtilities.h"\n\n'
        "@implementation EXModule\n"
        "- (void)setup {}\n"
        "- (void)start {\n"
        "  [self setup];\n"  # 6: the file's own
        "  [EXUtilities performSynchronouslyOnMainThread:^{ }];\n"  # 7: the import's
        '  [registry registerModule:m withName:@"x"];\n'  # 8: no such method in the index
        "}\n@end\n"
    ),
}


def test_an_objective_c_message_send_calls_its_selectors_method(tmp_path: Path) -> None:
    """`[registry registerModule:m withName:n]` calls the method named by its selector's
    first part, as Objective-C's methods are named (expo-modules-core's `.m` files)."""
    _, db = _index_tree(tmp_path, OBJC)
    assert _calls_in(db, "ios/EXModule.m") == {
        (6, "setup", None, "local", "EXModule.setup"),
        (
            7,
            "performSynchronouslyOnMainThread",
            None,
            "import",
            "EXUtilities.performSynchronouslyOnMainThread",
        ),
        (8, "registerModule", None, "unresolved", None),
    }


RUBY = {
    # Rack, ActiveSupport and Rake in small.
    "rack/lib/rack/utils.rb": (
        "module Rack\n  module Utils\n    def self.escape(s)\n      s\n    end\n  end\nend\n"
    ),
    "rack/lib/rack/response.rb": (
        "require 'rack/utils'\n"
        "module Rack\n"
        "  class Base\n    def finish\n    end\n  end\n"
        "  class Response < Base\n"  # 7
        "    def initialize(body)\n"
        "      Utils.escape(body)\n"  # 9: the module's function
        "      finish\n"  # 10: bare and without arguments: no reference
        "      write(body)\n"  # 11: its own method
        "      self.write(body)\n"  # 12
        "      body.map { |x| x }.join(',')\n"  # 13: a value's after a call, no bare `join`
        "      raise Encoding::CompatibilityError, 'x'\n"  # 14: Ruby's, not JSON's Encoding
        "      Thread.new { }\n"  # 15: Ruby's Thread: a class the index lacks
        "      File.join('a', 'b')\n"  # 16: Ruby's File
        "    end\n"
        "    def write(s)\n      s\n    end\n"
        "  end\n"
        "end\n"
    ),
    "support/lib/json/encoding.rb": "module JSON\n  module Encoding\n  end\nend\n",
    # ActiveSupport's core extension reopens Ruby's File: no definition of `File` (16)
    "support/lib/core_ext/file/atomic.rb": (
        "class File\n  def self.atomic_write(name)\n  end\nend\n"
    ),
    "rake/lib/rake/thread_pool.rb": (
        "module Rake\n  class ThreadPool\n    def join\n    end\n  end\nend\n"
    ),
    "rake/lib/rake/file_list.rb": (
        "module Rake\n"
        "  class FileList\n"
        "    def each_path\n"
        "      join\n"  # bare and no arguments: no reference
        "      join(',')\n"  # 5: not ThreadPool's, a class it does not inherit
        "      join(';')\n"  # 6: nor the next time (decided per caller, never cached)
        "      ThreadPool.new.join\n"  # 7
        "    end\n"
        "  end\n"
        "end\n"
    ),
}


def test_ruby_names_by_lexical_scope_mixins_and_receivers(tmp_path: Path) -> None:
    """Ruby (Rack, ActiveSupport and Rake's shapes): a constant is looked up lexically
    (`Encoding` inside `Rack` is Ruby's, not `JSON::Encoding`; `Utils` is `Rack::Utils`),
    a capitalised receiver is a class or module (`Utils.escape`; Ruby's `File.join` is no
    method of the index), `Foo.new` calls the class, a member after a call is another
    object's, and a bare call is never a method of an unrelated class (`join` in
    FileList is not ThreadPool's)."""
    _, db = _index_tree(tmp_path, RUBY)
    found = _calls_in(db, "rack/lib/rack/response.rb")
    assert found == {
        (9, "escape", "Utils", "import", "Rack.Utils.escape"),
        (11, "write", None, "local", "Rack.Response.write"),
        (12, "write", None, "local", "Rack.Response.write"),
        (13, "map", OTHER_OBJECT, "unresolved", None),
        (13, "join", OTHER_OBJECT, "ambiguous", None),
        (14, "raise", None, "unresolved", None),
        (15, "Thread", None, "unresolved", None),
        (16, "join", "File", "unresolved", None),
    }, sorted(found, key=str)
    types = {
        (line, name, qualifier, resolution, target)
        for path, line, name, qualifier, resolution, target, _ in _resolved(db, "r.kind IN (1, 2)")
        if path == "rack/lib/rack/response.rb"
    }
    assert types == {
        (7, "Base", None, "local", "Rack.Base"),
        (9, "Utils", None, "import", "Rack.Utils"),
        (14, "Encoding", None, "unresolved", None),
        (14, "CompatibilityError", "Encoding", "unresolved", None),
        (16, "File", None, "unresolved", None),
    }, sorted(types, key=str)
    assert _calls_in(db, "rake/lib/rake/file_list.rb") == {
        (5, "join", None, "unresolved", None),
        (6, "join", None, "unresolved", None),
        (7, "ThreadPool", None, "import", "Rake.ThreadPool"),
        (7, "join", OTHER_OBJECT, "ambiguous", None),
    }


PHP = {
    # Guzzle, Monolog and league/commonmark in small (PSR-4 folders).
    "guzzle/src/Exception/InvalidArgumentException.php": (
        "<?php\nnamespace GuzzleHttp\\Exception;\n\n"
        "class InvalidArgumentException extends \\InvalidArgumentException {}\n"
    ),
    "monolog/src/Monolog/InvalidArgumentException.php": (
        "<?php\nnamespace Monolog;\n\nclass InvalidArgumentException {}\n"
    ),
    # another `close`: `$this->close()` in CurlHandler is its base's, not this one
    "monolog/src/Monolog/Handler.php": (
        "<?php\nnamespace Monolog;\n\nclass Handler\n{\n    public function close(): void {}\n}\n"
    ),
    "guzzle/src/Utils.php": (
        "<?php\nnamespace GuzzleHttp;\n\n"
        "final class Utils\n{\n    public static function currentTime(): float { return 1.0; }\n}\n"
        "function describe_type($input): string { return ''; }\n"
    ),
    "guzzle/src/Handler/Base.php": (
        "<?php\nnamespace GuzzleHttp\\Handler;\n\n"
        "abstract class Base\n{\n    public function __construct() {}\n"
        "    protected function close(): void {}\n}\n"
    ),
    "guzzle/src/Handler/CurlHandler.php": (
        "<?php\n"
        "namespace GuzzleHttp\\Handler;\n"
        "\n"
        "use GuzzleHttp\\Exception\\InvalidArgumentException;\n"
        "use GuzzleHttp\\Utils;\n"
        "use Psr\\Http\\Message\\RequestInterface;\n"
        "\n"
        "class CurlHandler extends Base\n"  # 8
        "{\n"
        "    public function __construct(RequestInterface $request)\n"  # 10
        "    {\n"
        "        parent::__construct();\n"  # 12: Base's
        "        $this->close();\n"  # 13: the method's own object's (its base's)
        "        $t = Utils::currentTime();\n"  # 14
        "        throw new InvalidArgumentException('x');\n"  # 15: Guzzle's, not Monolog's
        "        \\GuzzleHttp\\describe_type($t);\n"  # 16: the namespace's function
        "        $request->getBody();\n"  # 17: an interface the index lacks
        "        self::helper();\n"  # 18
        "        strlen('x');\n"  # 19: PHP's
        "    }\n"
        "    private static function helper(): void {}\n"
        "}\n"
    ),
}


def test_php_names_by_namespace_use_and_receivers(tmp_path: Path) -> None:
    """PHP (Guzzle's and Monolog's shapes): a class is the one of the namespace a `use`
    names or of the file's own (`InvalidArgumentException` is Guzzle's, never Monolog's),
    `\\A\\B\\f` names its namespace, `parent::` is a base's, `$this->x` and `self::x`
    the class's own, `Utils::x` the class's, and a name outside the index stays
    unresolved."""
    _, db = _index_tree(tmp_path, PHP)
    found = _calls_in(db, "guzzle/src/Handler/CurlHandler.php")
    assert found == {
        (12, "__construct", "super", "import", "GuzzleHttp.Handler.Base.__construct"),
        (13, "close", "self", "import", "GuzzleHttp.Handler.Base.close"),
        (14, "currentTime", "Utils", "import", "GuzzleHttp.Utils.currentTime"),
        (
            15,
            "InvalidArgumentException",
            None,
            "import",
            "GuzzleHttp.Exception.InvalidArgumentException",
        ),
        (16, "describe_type", "\\GuzzleHttp", "import", "GuzzleHttp.describe_type"),
        (17, "getBody", OTHER_OBJECT, "unresolved", None),
        (18, "helper", "self", "local", "GuzzleHttp.Handler.CurlHandler.helper"),
        (19, "strlen", None, "unresolved", None),
    }, sorted(found, key=str)
    inherits = {
        (line, name, resolution, target)
        for path, line, name, _, resolution, target, _ in _resolved(db, "r.kind = 2")
        if path == "guzzle/src/Handler/CurlHandler.php"
    }
    assert inherits == {(8, "Base", "import", "GuzzleHttp.Handler.Base")}
    types = {
        (line, name, resolution)
        for path, line, name, _, resolution, _, _ in _resolved(db, "r.kind = 1")
        if path == "guzzle/src/Handler/CurlHandler.php"
    }
    assert (10, "RequestInterface", "unresolved") in types


LUA = {
    # Penlight and LuaRocks in small.
    "lua/pl/utils.lua": (
        "local utils = {}\nfunction utils.split(s, sep)\n  return s\nend\nreturn utils\n"
    ),
    "lua/luarocks/fs.lua": "local fs = {}\nfunction fs.split(p)\n  return p\nend\nreturn fs\n",
    "lua/pl/text.lua": (
        'local utils = require "pl.utils"\n'
        'local lpeg = require "lpeg"\n'
        "local M = {}\n"
        "function M.words(s)\n"
        '  local parts = utils.split(s, " ")\n'  # 5: pl.utils's, not luarocks's
        "  lpeg.P(s)\n"  # 6: a C module's: outside the index
        '  table.insert(parts, "x")\n'  # 7: Lua's table library
        "  return M.count(parts)\n"  # 8: this file's table's
        "end\n"
        "function M.count(t)\n  return #t\nend\n"
        "function M:size()\n  return self:count()\nend\n"  # 14: the file's own
        "return M\n"
    ),
}


def test_lua_names_by_require_and_tables(tmp_path: Path) -> None:
    """Lua (Penlight's and LuaRocks' shapes): `utils.split` after `local utils = require
    "pl.utils"` is that module's, a module the index does not hold (`lpeg`, a C library)
    gives no link, `table.insert` is Lua's, `M.count` the file's table's and `self:count`
    the file's own."""
    _, db = _index_tree(tmp_path, LUA)
    assert _calls_in(db, "lua/pl/text.lua") == {
        (5, "split", "utils", "import", "utils.split"),
        (6, "P", "lpeg", "unresolved", None),
        (7, "insert", BUILT_IN_OBJECT, "unresolved", None),
        (8, "count", "M", "local", "M.count"),
        (14, "count", None, "local", "M.count"),
    }


BASH = {
    "scripts/lib/common.sh": 'die() {\n  echo "$1" >&2\n  exit 1\n}\n',
    "tools/other.sh": "die() {\n  return 2\n}\n",
    "scripts/build.sh": (
        "#!/bin/bash\n"
        "source ./lib/common.sh\n"
        "build() {\n"
        '  [ -d out ] || die "no out"\n'  # 4: the sourced file's `die`
        "  echo built\n"  # 5: a builtin
        "}\n"
        "build\n"  # 7
    ),
    # a script without an extension, told by its `#!` line
    "bin/deploy": "#!/usr/bin/env bash\nsource ../scripts/lib/common.sh\nship() {\n  die x\n}\n",
    "bin/notes": "#!/usr/bin/make -f\nall:\n\techo hi\n",
}


def test_bash_names_by_source_and_scripts_without_an_extension(tmp_path: Path) -> None:
    """Bash: a command is the function of the file `source` reads (`die` of lib/common.sh,
    not of tools/other.sh), a builtin is none, and a script without an extension is code
    when its `#!` line names an interpreter of ours (`bin/deploy`, not a Makefile's)."""
    _, db = _index_tree(tmp_path, BASH)
    assert _calls_in(db, "scripts/build.sh") == {
        (4, "die", None, "import", "die"),
        (5, "echo", None, "unresolved", None),
        (7, "build", None, "local", "build"),
    }
    assert _calls_in(db, "bin/deploy") == {(4, "die", None, "import", "die")}
    with docql_sqlite.open(db) as index:
        languages = {
            row["path"].rpartition("/src/")[2]: row["language"]
            for row in index.rows("SELECT path, language FROM documents")
        }
    assert languages["bin/deploy"] == "bash" and "bin/notes" not in languages


RUBY_PATHS = {
    "rack/lib/rack/utils.rb": (
        "module Rack\n  module Utils\n    def self.escape(s)\n    end\n  end\nend\n"
    ),
    "rack/lib/rack/auth/digest/md5.rb": (
        "module Rack\n  module Auth\n    module Digest\n      class MD5\n"
        "        def self.hexdigest(s)\n        end\n      end\n    end\n  end\nend\n"
    ),
    "faraday/lib/faraday/utils.rb": (
        "module Faraday\n  module Utils\n    def self.escape(s)\n    end\n  end\nend\n"
    ),
    "faraday/lib/faraday/adapter.rb": (
        "module Faraday\n"
        "  class Adapter\n"
        "    def call(x)\n"
        "      Utils.escape(x)\n"  # 4: Faraday::Utils, the one the caller sees
        "      Rack::Utils.escape(x)\n"  # 5: the path written
        "      ::Rack::Utils.escape(x)\n"  # 6
        "      Digest::MD5.hexdigest(x)\n"  # 7: Ruby's Digest, not Rack::Auth::Digest
        "    end\n"
        "  end\n"
        "end\n"
    ),
}


def test_ruby_members_through_constant_paths(tmp_path: Path) -> None:
    """A Ruby member written through a constant (`Utils.escape`, `Rack::Utils.escape`) is
    the member of the module the constant names from the caller's place — the path as
    written (qualifier `Rack.Utils`), looked up lexically — and `unresolved` when the caller
    sees no such constant (`Digest::MD5` is Ruby's library, not `Rack::Auth::Digest::MD5`)."""
    _, db = _index_tree(tmp_path, RUBY_PATHS)
    assert _calls_in(db, "faraday/lib/faraday/adapter.rb") == {
        (4, "escape", "Utils", "import", "Faraday.Utils.escape"),
        (5, "escape", "Rack.Utils", "import", "Rack.Utils.escape"),
        (6, "escape", "Rack.Utils", "import", "Rack.Utils.escape"),
        (7, "hexdigest", "Digest.MD5", "unresolved", None),
    }


@pytest.mark.parametrize(
    "name, found",
    [
        ("Rack::Utils.escape", {5, 6}),  # Ruby's and C++'s path separator
        ("Rack::Utils#escape", {5, 6}),  # Ruby's notation of an instance method
        ("Utils.escape", {4, 5, 6}),  # the end of a qualified name, after a dot
        ("Faraday.Utils.escape", {4}),
        ("GuzzleHttp\\\\Psr7\\\\Utils::streamFor", {8}),  # PHP's (`\\` in a DocQL string)
        ("\\\\GuzzleHttp\\\\Psr7\\\\Utils::streamFor", {8}),  # the global namespace's `\`
        ("Psr7.Utils.streamFor", {8}),
        ("Utils.escapeNot", set()),
    ],
)
def test_callers_take_a_name_as_its_language_writes_it(
    tmp_path: Path, name: str, found: set[int]
) -> None:
    """`callers("A.f")` finds the calls resolved to the definition whose qualified name is
    `A.f` or ends with `.A.f`, written with any language's separators (`::`, Ruby's `#`,
    PHP's `\\`), as `method()` does."""
    files = dict(RUBY_PATHS)
    files["psr7/src/Utils.php"] = (
        "<?php\nnamespace GuzzleHttp\\Psr7;\n\nfinal class Utils\n{\n"
        "    public static function streamFor($r) {}\n}\n"
        "function use_it() { return Utils::streamFor(1); }\n"
    )
    _, db = _index_tree(tmp_path, files)
    assert {int(location.rpartition(":")[2]) for location, _, _ in _callers(db, name)} == found


PHP_BASES = {
    # league/commonmark's and Twig's `Node`, two classes of one name
    "league/src/Node/Node.php": (
        "<?php\nnamespace League\\CommonMark\\Node;\n\nabstract class Node\n{\n"
        "    public function __construct() {}\n    public function getNode() {}\n}\n"
    ),
    "league/src/Node/Block/AbstractBlock.php": (
        "<?php\nnamespace League\\CommonMark\\Node\\Block;\n\n"
        "use League\\CommonMark\\Node\\Node;\n\nabstract class AbstractBlock extends Node {}\n"
    ),
    "league/src/Block/Heading.php": (
        "<?php\nnamespace League\\CommonMark\\Block;\n\n"
        "use League\\CommonMark\\Node\\Block\\AbstractBlock;\n\n"
        "final class Heading extends AbstractBlock\n{\n"
        "    public function __construct()\n    {\n"
        "        parent::__construct();\n"  # 10: League's Node, two levels up
        "    }\n}\n"
    ),
    "twig/src/Node/Node.php": (
        "<?php\nnamespace Twig\\Node;\n\nclass Node\n{\n"
        "    public function __construct() {}\n    public function getNode($n) {}\n}\n"
    ),
    "twig/src/Node/ForNode.php": (
        "<?php\nnamespace Twig\\Node;\n\nclass ForNode extends Node\n{\n"
        "    public function compile()\n    {\n"
        "        parent::__construct();\n"  # 8: Twig's Node (its namespace's)
        "        $this->getNode('seq');\n"  # 9
        "        $this->getNode('body');\n"  # 10: decided per class, not once per file
        "    }\n}\n"
    ),
}


def test_php_bases_are_named_by_use_and_namespace(tmp_path: Path) -> None:
    """A PHP class's bases are the classes its file names (`use`, else its namespace):
    `parent::__construct()` and `$this->getNode()` go up League's or Twig's chain, never
    across to the other library's `Node`, for every reference of a file."""
    _, db = _index_tree(tmp_path, PHP_BASES)
    assert _calls_in(db, "league/src/Block/Heading.php") == {
        (10, "__construct", "super", "import", "League.CommonMark.Node.Node.__construct")
    }
    assert _calls_in(db, "twig/src/Node/ForNode.php") == {
        (8, "__construct", "super", "import", "Twig.Node.Node.__construct"),
        (9, "getNode", "self", "import", "Twig.Node.Node.getNode"),
        (10, "getNode", "self", "import", "Twig.Node.Node.getNode"),
    }


PERL = {
    # Perl's own library in small: File::Temp, File::Path, Carp
    "lib/Carp.pm": "package Carp;\nsub croak { die @_ }\n1;\n",
    "lib/File/Path.pm": "package File::Path;\nsub rmtree { 1 }\nsub mkpath { 1 }\n1;\n",
    "lib/Other/Path.pm": "package Other::Path;\nsub mkpath { 2 }\n1;\n",
    "lib/File/Temp.pm": (
        "package File::Temp;\n"
        "use Carp qw(croak);\n"
        "use File::Path qw(rmtree);\n"
        "sub new {\n"
        "    my ($class, %args) = @_;\n"
        "    my $self = bless {%args}, $class;\n"  # 6: a builtin
        "    $self->_init;\n"  # 7: the package's own
        "    rmtree($self->{dir});\n"  # 8: imported from File::Path
        "    File::Path::mkpath('x');\n"  # 9: the package written: not Other::Path's
        "    croak 'no' unless $self;\n"  # 10
        "    return File::Temp -> _init;\n"  # 11: a class's method, blanks around `->`
        "}\n"
        "sub _init { 1 }\n"
        "1;\n"
    ),
}


def test_perl_names_by_package_path_and_imports(tmp_path: Path) -> None:
    """Perl: `File::Path::mkpath(…)` is that package's sub (qualifier `File.Path`), an
    imported `croak`/`rmtree` the module's, `$self->x` the package's own, `Pkg -> x` the
    package's, a builtin (`bless`) none of the index."""
    _, db = _index_tree(tmp_path, PERL)
    assert _calls_in(db, "lib/File/Temp.pm") == {
        (6, "bless", None, "unresolved", None),
        (7, "_init", None, "local", "File.Temp._init"),
        (8, "rmtree", None, "import", "File.Path.rmtree"),
        (9, "mkpath", "File.Path", "import", "File.Path.mkpath"),
        (10, "croak", None, "import", "Carp.croak"),
        (11, "_init", "File.Temp", "local", "File.Temp._init"),
    }


def test_ruby_super_calls_the_parents_method_of_the_callers_name(tmp_path: Path) -> None:
    """Ruby's `super` / `super(x)` calls the method of the caller's name in the class's
    superclass (`Rack::Request#initialize` from `Rack::Lint::Request#initialize`), not a
    same-named method of another class."""
    _, db = _index_tree(
        tmp_path,
        {
            "rack/request.rb": (
                "module Rack\n  class Request\n    def initialize(env)\n    end\n  end\nend\n"
            ),
            "other/thing.rb": "class Thing\n  def initialize(env)\n  end\nend\n",
            "rack/lint.rb": (
                "module Rack\n"
                "  class LintRequest < Request\n"
                "    def initialize(env)\n"
                "      super(env)\n"  # 4
                "      super\n"  # 5
                "    end\n"
                "  end\n"
                "end\n"
            ),
        },
    )
    assert _calls_in(db, "rack/lint.rb") == {
        (4, "initialize", "super", "import", "Rack.Request.initialize"),
        (5, "initialize", "super", "import", "Rack.Request.initialize"),
    }


def test_ruby_super_follows_bases_named_as_ruby_finds_them(tmp_path: Path) -> None:
    """A Ruby class's superclass is the constant its `< Base` names from the class's own
    module outward: `super` in Faraday's `Multipart < UrlEncoded` (`< Middleware`) reaches
    `Faraday::Middleware#initialize`, never Rack's `Middleware`; `super` in a module's
    method (a mixin's) names the includer's, which the index cannot know."""
    _, db = _index_tree(
        tmp_path,
        {
            "rack/middleware.rb": (
                "module Rack\n  class Middleware\n    def initialize(app)\n    end\n  end\nend\n"
            ),
            "faraday/middleware.rb": (
                "module Faraday\n  class Middleware\n    def initialize(app)\n    end\n  end\nend\n"
            ),
            "faraday/url_encoded.rb": (
                "module Faraday\n  class Request\n    class UrlEncoded < Middleware\n"
                "    end\n  end\nend\n"
            ),
            "faraday/multipart.rb": (
                "module Faraday\n"
                "  class Request\n"
                "    class Multipart < UrlEncoded\n"
                "      def initialize(app)\n"
                "        super(app)\n"  # 5
                "      end\n"
                "    end\n"
                "  end\n"
                "  module Logging\n"
                "    def initialize(app)\n"
                "      super\n"  # 11: a mixin's
                "    end\n"
                "  end\n"
                "end\n"
            ),
        },
    )
    assert _calls_in(db, "faraday/multipart.rb") == {
        (5, "initialize", "super", "import", "Faraday.Middleware.initialize"),
        (11, "initialize", "super", "unresolved", None),
    }


def test_php_built_in_method_names_need_an_import(tmp_path: Path) -> None:
    """A PHP member named like a built-in class's method (PDO's and DOM's `setAttribute`)
    is the index's only when the file `use`s the class that has it; else it stays
    ambiguous (Doctrine's `$pdo->setAttribute(…)` was Symfony's `AcceptHeaderItem`'s)."""
    _, db = _index_tree(
        tmp_path,
        {
            "symfony/AcceptHeaderItem.php": (
                "<?php\nnamespace Symfony\\HttpFoundation;\n\nclass AcceptHeaderItem\n{\n"
                "    public function setAttribute($n, $v) {}\n}\n"
            ),
            "doctrine/Driver.php": (
                "<?php\nnamespace Doctrine\\DBAL;\n\nfunction connect($pdo)\n{\n"
                "    $pdo->setAttribute(1, 2);\n}\n"  # 6: PDO's, as likely
            ),
            "app/Negotiator.php": (
                "<?php\nnamespace App;\n\nuse Symfony\\HttpFoundation\\AcceptHeaderItem;\n\n"
                "function pick(AcceptHeaderItem $item)\n{\n"
                "    $item->setAttribute('q', 1);\n}\n"  # 8: the class the file uses
            ),
        },
    )
    assert _calls_in(db, "doctrine/Driver.php") == {(6, "setAttribute", "", "ambiguous", None)}
    assert _calls_in(db, "app/Negotiator.php") == {
        (8, "setAttribute", "", "import", "Symfony.HttpFoundation.AcceptHeaderItem.setAttribute")
    }


def test_ruby_top_level_constant_is_never_the_callers_own(tmp_path: Path) -> None:
    """`::Time` inside i18n's `I18n::Tests::Time` is Ruby's `Time` (the top level's), not
    the module around the caller; a bare `Time` there is that module."""
    _, db = _index_tree(
        tmp_path,
        {
            "i18n/time.rb": (
                "module I18n\n  module Tests\n    module Time\n      def t\n"
                "        ::Time.utc(1)\n"  # 5
                "        Time\n"  # 6
                "      end\n    end\n  end\nend\n"
            )
        },
    )
    types = {
        (line, name, qualifier, resolution, target)
        for path, line, name, qualifier, resolution, target, _ in _resolved(db, "r.kind = 1")
        if path == "i18n/time.rb"
    }
    assert types == {
        (5, "Time", "::", "unresolved", None),
        (6, "Time", None, "local", "I18n.Tests.Time"),
    }


def test_lua_module_functions_through_require_whatever_the_table_is_named(
    tmp_path: Path,
) -> None:
    """`local strings = require "app.strings"` then `strings.split(…)`: the function of
    app/strings.lua whatever that file names its table (`local M = {}`), not the other
    module's `split`."""
    _, db = _index_tree(
        tmp_path,
        {
            "lua/app/strings.lua": "local M = {}\nfunction M.split(s)\n  return s\nend\nreturn M\n",
            # (under a folder named like the module: the path rule alone cannot tell)
            "lua/other/strings/paths.lua": (
                "local M = {}\nfunction M.split(p)\n  return p\nend\nreturn M\n"
            ),
            "lua/app/main.lua": 'local strings = require "app.strings"\nstrings.split("a b")\n',
        },
    )
    assert _calls_in(db, "lua/app/main.lua") == {(2, "split", "strings", "import", "M.split")}
    with docql_sqlite.open(db) as index:
        (row,) = index.rows(
            "SELECT d.path FROM refs r JOIN symbols t ON t.id = r.target_id "
            "JOIN documents d ON d.id = t.doc_id WHERE r.name = 'split'"
        )
    assert row["path"].endswith("app/strings.lua")


def test_a_reopened_ruby_module_is_named_by_its_shortest_path(tmp_path: Path) -> None:
    """A module reopened in many files (ActiveSupport's) is one constant: its file of the
    shortest path (`active_support.rb`), whatever order the workers stored the files in
    (ids follow that order; a first version took the lowest id, and two runs of one
    corpus differed)."""
    _, db = _index_tree(
        tmp_path,
        {
            "lib/active_support/array_inquirer.rb": "module ActiveSupport\n  class A\n  end\nend\n",
            "lib/active_support.rb": "module ActiveSupport\n  def self.version\n  end\nend\n",
            "app/use.rb": "ActiveSupport.version\n",
        },
    )
    types = {
        (name, resolution, target_path)
        for path, _, name, _, resolution, _, target_path in _resolved(db, "r.kind = 1")
        if path == "app/use.rb"
    }
    assert types == {("ActiveSupport", "import", "lib/active_support.rb")}


@pytest.fixture(scope="module")
def code_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """datasets/code (14 languages in one tree) indexed in one run."""
    db = tmp_path_factory.mktemp("redecide") / "code.db"
    docql_sqlite.index(db, [str(REPO / "datasets" / "code")], workers=0)
    return db


def _link_rows(db: Path) -> dict[tuple[int, int], tuple[Any, ...]]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {
            (doc, ord_): rest
            for doc, ord_, *rest in conn.execute(
                "SELECT doc_id, ord, name, qualifier, target_id, resolution, candidates FROM refs"
            )
        }
    finally:
        conn.close()


def test_a_name_decided_again_alone_keeps_every_link(code_index: Path, tmp_path: Path) -> None:
    """Oracle: deciding a name again (what a change elsewhere queues) gives each of its
    references the link the first pass gave it. A pass that decides a few names starts a
    file on any one of its references, which then came before the file's language was
    read: the previous file's rules decided it (a Java `seenIds.add(id)` on a `Set` had
    0 candidates where a new index has 1; a Go `idx.Add` on `NewMemIndex()`'s value went
    from local to unique; 8 of the 277 names here changed links)."""
    from docql_sqlite.ingest.resolve import resolve_pending
    from docql_sqlite.store import open_store

    fresh = _link_rows(code_index)
    names = sorted({row[0] for row in fresh.values()})
    assert len(names) > 200 and len({row[0] for row in _languages(code_index)}) >= 10
    changed = {}
    copy = tmp_path / "copy.db"
    for name in names:
        shutil.copy(code_index, copy)
        conn = apsw.Connection(str(copy))
        with conn:
            conn.execute("INSERT INTO refs_pending(name) VALUES (?)", (name,))
        conn.close()
        store = open_store(str(copy), readonly=False, create=False)
        try:
            store.writer().resolve_references(resolve_pending)
        finally:
            store.close()
        again = _link_rows(copy)
        assert again.keys() == fresh.keys()
        diff = [key for key in fresh if again[key] != fresh[key]]
        if diff:
            changed[name] = [(fresh[k], again[k]) for k in diff[:2]]
    assert not changed, changed


def _languages(db: Path) -> list[tuple[Any, ...]]:
    return query(db, "SELECT DISTINCT language FROM documents WHERE format = 'code'")


PHP_HIERARCHY = {
    "Node.php": (
        "<?php\nnamespace A;\n\nclass Node\n{\n"
        "    public static function assertInstanceOf($n): void {}\n\n"
        "    public function prependChild($c): void {}\n}\n"
    ),
    "Link.php": (
        "<?php\nnamespace A;\n\nclass Link extends Node\n{\n"
        "    public function url(): string { return ''; }\n}\n"
    ),
    "Mention.php": (
        "<?php\nnamespace A;\n\nclass Mention extends Link\n{\n"
        "    public function add($c): void\n    {\n        $this->prependChild($c);\n    }\n}\n"
    ),
    "Renderer.php": (
        "<?php\nnamespace B;\n\nuse A\\Link;\n\nclass Renderer\n{\n"
        "    public function render($n): void\n"
        "    {\n        Link::assertInstanceOf($n);\n    }\n}\n"
    ),
}


def _located_links(db: Path) -> list[tuple[Any, ...]]:
    return sorted(
        query(
            db,
            "SELECT d.path, r.line, r.col, r.name, r.resolution, r.candidates, "
            "t.path || ':' || s.line FROM refs r JOIN documents d ON d.id = r.doc_id "
            "LEFT JOIN symbols s ON s.id = r.target_id LEFT JOIN documents t ON t.id = s.doc_id",
        ),
        key=repr,
    )


def _as_fresh(root: Path, db: Path, fresh: Path) -> None:
    """`db`, indexed again, answers every reference as a fresh index of `root` does."""
    docql_sqlite.index(db, [str(root)], workers=0)
    for path in (fresh, fresh.with_name(fresh.name + "-wal"), fresh.with_name(fresh.name + "-shm")):
        path.unlink(missing_ok=True)
    docql_sqlite.index(fresh, [str(root)], workers=0)
    assert _located_links(db) == _located_links(fresh)


@pytest.mark.parametrize("gone", ["Link.php", "Node.php", "Mention.php"])
def test_a_class_file_deleted_and_restored_leaves_the_links_of_a_fresh_index(
    tmp_path: Path, gone: str
) -> None:
    """A link that goes through a class without naming it (`Link::assertInstanceOf()`,
    `$this->prependChild()` in a subclass of a subclass) follows that class's file: gone,
    then back, the index holds the links a fresh index has at each step (league/
    commonmark's `LinkRenderer` kept `Link::assertInstanceOf` unresolved and `Mention`
    linked `$this->prependChild()` by uniqueness after `Link.php` came back)."""
    root = tmp_path / "src"
    root.mkdir()
    for name, text in PHP_HIERARCHY.items():
        (root / name).write_text(text)
    fresh, db = tmp_path / "fresh.db", tmp_path / "index.db"
    _as_fresh(root, db, fresh)
    targets = {
        r[3]: r[6] for r in _located_links(db) if r[3] in ("assertInstanceOf", "prependChild")
    }
    assert targets == {
        "assertInstanceOf": str(root / "Node.php") + ":6",
        "prependChild": str(root / "Node.php") + ":8",
    }
    (root / gone).unlink()
    _as_fresh(root, db, fresh)
    (root / gone).write_text(PHP_HIERARCHY[gone])
    _as_fresh(root, db, fresh)
    # The base's file changed in the same run as the class went (its names decided again
    # while the class was missing), then the class back alone.
    (root / "Link.php").unlink()
    with (root / "Node.php").open("a") as node:
        node.write("\n")
    _as_fresh(root, db, fresh)
    (root / "Link.php").write_text(PHP_HIERARCHY["Link.php"])
    _as_fresh(root, db, fresh)


def test_each_file_of_many_languages_deleted_and_restored_leaves_every_link(
    tmp_path: Path,
) -> None:
    """The oracle over datasets/code's 14 languages: any one file gone and back, the
    index answers every reference as a fresh index does at each step."""
    root = tmp_path / "code"
    shutil.copytree(REPO / "datasets" / "code", root)
    fresh, db = tmp_path / "fresh.db", tmp_path / "index.db"
    _as_fresh(root, db, fresh)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        text = path.read_bytes()
        path.unlink()
        _as_fresh(root, db, fresh)
        path.write_bytes(text)
        _as_fresh(root, db, fresh)


FUNCTION_INVOKERS = {
    # axios in small: a function imported, then called through Function.prototype's
    # `call` and `apply`, which were recorded as calls of `call` and `apply` alone
    "src/dispatch.js": "export default function dispatchRequest(config) {\n  return config;\n}\n",
    "src/Axios.js": (
        "import dispatchRequest from './dispatch.js';\n\n"
        "export class Axios {\n"
        "  request(config) {\n"
        "    const first = dispatchRequest.call(this, config);\n"
        "    return dispatchRequest.apply(this, [first]);\n"
        "  }\n"
        "  later() {\n"
        "    return obj.dispatchRequest.call(this);\n"  # another object's member: no
        "  }\n"
        "}\n"
    ),
    "src/typed.ts": (
        "import dispatchRequest from './dispatch.js';\n\n"
        "export function send(config: object): object {\n"
        "  return dispatchRequest.call(null, config);\n}\n"
    ),
}


def test_a_javascript_functions_call_and_apply_call_it(tmp_path: Path) -> None:
    """`f.call(…)` and `f.apply(…)` are calls of `f` ("who calls dispatchRequest" on
    axios found none: its one call is `dispatchRequest.call(this, newConfig)`)."""
    _, db = _index_tree(tmp_path, FUNCTION_INVOKERS)
    calls = {
        (path, line)
        for path, line, name, _, _, target, _ in _resolved(db, "r.kind = 0")
        if name == "dispatchRequest" and target == "dispatchRequest"
    }
    assert calls == {("src/Axios.js", 5), ("src/Axios.js", 6), ("src/typed.ts", 4)}, calls
    # `call` itself is still a call (of Function.prototype's, found nowhere here)
    assert (5, "call") in {c[:2] for c in _calls_in(db, "src/Axios.js")}


@pytest.mark.parametrize(
    "files",
    [LUA, RUBY_PATHS, RELATIVE, QUALIFIED, GO_PACKAGES, REEXPORTS, PYTHON_TYPED, C_TREE],
    ids=["lua", "ruby", "relative", "qualified", "go", "reexports", "python", "c"],
)
def test_copies_of_a_tree_link_within_their_copy(tmp_path: Path, files: dict[str, str]) -> None:
    """Debian's `lua-penlight` installs the same `pl/` for Lua 5.1, 5.2, 5.3 and 5.4: each
    definition had four copies, `utils.split(…)` was ambiguous among them and "who calls
    utils.split" found no caller outside its own file. A definition held by copies of one
    file is the one in the copy nearest the reference: each copy of the tree links as the
    tree alone does (the oracle), within itself."""
    copies = ("5.1", "5.2", "5.3")
    _, alone = _index_tree(tmp_path / "alone", {f"5.1/{p}": t for p, t in files.items()})
    _, three = _index_tree(
        tmp_path / "three", {f"{v}/{p}": t for v in copies for p, t in files.items()}
    )

    def under_src(db: Path) -> list[tuple[Any, ...]]:
        # (paths under src/; without the candidates' count: the copies are candidates too)
        return [
            (row[0].split("/src/", 1)[1], *row[1:8], row[8] and row[8].split("/src/", 1)[1])
            + row[9:11]
            for row in _links(db)
        ]

    def links(db: Path, copy: str) -> list[tuple[Any, ...]]:
        return [
            (row[0].removeprefix(f"{copy}/"), *row[1:8])
            + ((row[8] or "").removeprefix(f"{copy}/"), *row[9:11])
            for row in under_src(db)
            if row[0].startswith(f"{copy}/")
        ]

    expected = links(alone, "5.1")
    assert expected and any(row[8] for row in expected)
    for copy in copies:
        assert links(three, copy) == expected, copy
    # every link stays in its copy of the tree
    assert all(row[8].split("/")[0] == row[0].split("/")[0] for row in under_src(three) if row[8])
