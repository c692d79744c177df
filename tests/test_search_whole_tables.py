"""The figures a search reads over a whole table, checked against row-by-row reads.

A search limited to paths finds its documents once, in Python, and every statement reads
their ids (`ranking.scope_sql`); the code-words channel and the document channel read
their tables as columns (`stats.columns`). Each is compared here with the plain SQL it
replaced: the globs as REGEXP conditions, the tables read a row at a time.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

import docql_sqlite
from docql_sqlite.search import documents, ranking, stats, symbol_names
from docql_sqlite.sqlparams import Params
from docql_sqlite.text import fold

FILES = {
    "docs/guide.md": (
        "# Guide\n\nThe planner reads the plan.\n\n## Install\n\nRun make.\n\n"
        "## Planner internals\n\nHow it works.\n"
    ),
    "docs/deep/more.md": "# More\n\nAnother plan for the planner.\n",
    "notes/todo.txt": "plan the planner work\n",
    "src/plan.py": (
        "def make_plan(x):\n    return x\n\n\nclass Planner:\n    def run(self):\n        pass\n"
    ),
    "src/util/helpers.py": "def plan_helper():\n    return 1\n",
    # A newline in a path: the column reader must fall back to exact rows.
    "odd\nname.md": "# Odd\n\nThe planner, oddly named.\n",
    "Überblick.md": "# Überblick\n\nDer Planner plant.\n",
    # Non-ASCII capitals in a qualified name: the table lowers A-Z only, as SQLite's lower().
    "src/ünïcode.py": "class ÜberPLAN:\n    def RunÄ(self):\n        pass\n",
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("whole")
    for name, text in FILES.items():
        path = root / "tree" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    out = root / "w.db"
    # Paths relative to the folder indexed from, as a user in it sees them.
    here = os.getcwd()
    os.chdir(root / "tree")
    try:
        docql_sqlite.index(out, ["."], workers=0)
    finally:
        os.chdir(here)
    return out


GLOBS = [
    ("**/*.md",),
    ("docs/",),
    ("docs/**",),
    ("src/*.py",),
    ("*.txt", "src/util/"),
    ("odd*",),
    ("Ü*",),
    ("nothing/**",),
]


def glob_ids(store: Any, paths: tuple[str, ...]) -> set[int]:
    """The documents the globs select as SQL conditions (the engine's REGEXP)."""
    params = Params(store.dialect)
    dialect = params.dialect
    cond = " OR ".join(dialect.glob("d.path", params.add(dialect.glob_value(p))) for p in paths)
    return {
        r["id"] for r in store.rows(f"SELECT d.id FROM documents d WHERE {cond}", params.values)
    }


@pytest.mark.parametrize("paths", GLOBS)
def test_the_scope_of_a_search_is_the_globs_documents(db: Path, paths: tuple[str, ...]) -> None:
    with docql_sqlite.open(db) as idx:
        store = idx.store
        params = Params(store.dialect)
        scope = ranking.scope_sql(store, paths, params)
        assert "REGEXP" not in scope
        found = {
            r["id"]
            for r in store.rows(f"SELECT d.id FROM documents d WHERE {scope}", params.values)
        }
        assert found == glob_ids(store, paths)
        # Read once per version of the index and set of globs.
        assert ranking.documents_in(store, paths) is ranking.documents_in(store, paths)


@pytest.mark.parametrize("paths", GLOBS)
def test_a_scoped_search_returns_every_hit_in_scope_and_no_other(
    db: Path, paths: tuple[str, ...]
) -> None:
    with docql_sqlite.open(db) as idx:
        ids = glob_ids(idx.store, paths)
        in_scope = {
            r["path"] for r in idx.store.rows("SELECT id, path FROM documents") if r["id"] in ids
        }
        # The oracle: the files in scope whose text holds the word.
        holding = {p for p in in_scope if re.search(r"\bplanner\b", FILES[p], re.I)}
        bm25 = {r["path"] for r in idx.search("planner", mode="bm25", limit=50, paths=paths)}
        assert bm25 == holding
        smart = {r["path"] for r in idx.search("planner", mode="smart", limit=50, paths=paths)}
        assert holding <= smart <= in_scope


def test_columns_equal_the_rows_read_one_by_one(db: Path) -> None:
    with docql_sqlite.open(db) as idx:
        store = idx.store
        exprs = ["d.id", "d.path", "d.name", "d.lines"]
        got = stats.columns(store, exprs, "FROM documents d", "d.id")
        rows = store.rows("SELECT id, path, name, lines FROM documents ORDER BY id")
        want = [[str(r[k]) for r in rows] for k in ("id", "path", "name", "lines")]
        assert got == want
        assert any("\n" in p for p in got[1])  # the exact fallback was taken
        # Without a newline in any value: the joined read, the same values.
        plain = stats.columns(store, ["d.id", "d.name"], "FROM documents d WHERE d.id > 0", "d.id")
        assert plain[0] == want[0]
        assert stats.columns(store, ["d.id"], "FROM documents d WHERE d.id < 0", "d.id") == [[]]
        # In any order (no ORDER BY on SQLite): the same rows, each list aligned with the
        # others, through the joined read and through the exact fallback alike.
        for columns in (exprs, ["d.id", "d.name"]):
            unordered = stats.columns(store, columns, "FROM documents d", "d.id", any_order=True)
            ordered = stats.columns(store, columns, "FROM documents d", "d.id")
            assert sorted(zip(*unordered)) == sorted(zip(*ordered))
            assert len(unordered[0]) == len(rows)


def test_ascii_lower_is_sqlites_lower(db: Path) -> None:
    text = "ÜberPLAN.RunÄ İstanbul ΣΑΣ straße ABC\u00c9 z"
    with docql_sqlite.open(db) as idx:
        assert symbol_names._ascii_lower(text) == idx.store.scalar("SELECT lower(?)", [text])
    assert symbol_names._ascii_lower("PLAIN Ascii") == "plain ascii"
    assert symbol_names._one_line_each(["a\nb", "c"]) == "a b\nc"
    assert symbol_names._one_line_each([]) == ""


def test_the_symbol_names_table_holds_every_symbol(db: Path) -> None:
    with docql_sqlite.open(db) as idx:
        store = idx.store
        tab = symbol_names.table(store)
        rows = store.rows(
            "SELECT y.id, y.doc_id, y.line, y.name_fold, lower(y.qualified_name) AS q, "
            "d.path, d.name AS file FROM symbols y JOIN documents d ON d.id = y.doc_id "
            "ORDER BY y.id"
        )
        assert len(tab) == len(rows) > 0
        position = {tab.symbol(i).id: i for i in range(len(tab))}  # read in any order
        assert sorted(position) == [r["id"] for r in rows]
        assert any(not r["q"].isascii() for r in rows)
        for r in rows:
            i = position[r["id"]]
            s = tab.symbol(i)
            assert (s.id, s.doc_id, s.line, s.name, s.path) == (
                r["id"],
                r["doc_id"],
                r["line"],
                r["name_fold"],
                r["path"],
            )
            context = f"{r['q']} {fold(r['file'].rsplit('.', 1)[0])}"
            assert i in tab.containing((context.split()[-1],), context=True)
            assert i in tab.containing((r["name_fold"],))


def test_the_document_layout_is_the_prose_chunks(db: Path) -> None:
    with docql_sqlite.open(db) as idx:
        store = idx.store
        layout = documents._layout(store)
        rows = store.rows(
            "SELECT c.id, c.doc_id, c.end_offset - c.start_offset AS n FROM chunks c "
            "JOIN documents d ON d.id = c.doc_id WHERE d.format != 'code'"
        )
        assert layout.chunk_doc == {r["id"]: r["doc_id"] for r in rows}
        lengths: dict[int, int] = {}
        for r in rows:
            lengths[r["doc_id"]] = lengths.get(r["doc_id"], 0) + max(1, r["n"])
        assert layout.lengths == lengths


NAME_QUERIES = ["planner", "plan", "make plan", "Planner internals", "über", "run", "Install", "pl"]


@pytest.mark.parametrize("text", NAME_QUERIES)
def test_the_name_lists_candidates_lose_no_name(
    db: Path, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Headings from the title trigrams and symbols from the names in memory: the same
    rows as a scan of every name (the lists with their candidate steps turned off)."""
    from docql_sqlite.search import name_lists
    from docql_sqlite.search import terms as search_terms
    from docql_sqlite.search.query_names import query_names

    terms = search_terms.parse(text)
    wanted = query_names(terms)
    with docql_sqlite.open(db) as idx:
        got = {
            n.name: name_lists.rows(idx.store, n, terms, wanted, (), 30)
            for n in name_lists.NAME_LISTS
        }
        monkeypatch.setattr(name_lists, "_candidates", lambda *args: None)
        scanned = {
            n.name: name_lists.rows(idx.store, n, terms, wanted, (), 30)
            for n in name_lists.NAME_LISTS
        }
    assert got == scanned
    assert any(got.values()) or text == "pl"
