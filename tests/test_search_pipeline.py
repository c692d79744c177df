"""Smart search as a pipeline: the query → the candidate lists → fusion → result items.

The stages' own behaviour (the query's names, the name lists' tiers, the composite score,
the explained items), and the shape that keeps them a pipeline: data flows down, no
stage calls back into one before it, and `smart.py` only runs them in order.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.search import fusion, keywords, name_lists, ranking, results
from docql_sqlite.search import terms as search_terms
from docql_sqlite.search.query_names import query_names

SEARCH = Path(docql_sqlite.__file__).resolve().parent / "search"


# -- 1. the query's names ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "strong", "weak", "contains"),
    [
        # One word: it is the whole query, so it is strong and a name may contain it.
        ("planner", {"planner"}, set(), ["planner"]),
        # Two words: each alone answers half; the words joined stand for the query.
        ("query planner", {"queryplanner", "query_planner", "query planner"}, {"query"}, None),
        # An identifier as typed is strong, in every joined spelling of its parts.
        ("createReadStream", {"createreadstream", "create_read_stream"}, set(), None),
        # Stopwords are not names; "handle" is one plain word of a question.
        ("how do I handle errors", {"handle_errors"}, {"handle", "errors"}, None),
        # Past SHORT_QUERY words no name is matched by containment.
        ("alpha beta gamma delta", {"alpha_beta_gamma_delta"}, {"alpha"}, []),
        # A question's mark is not part of the name it asks about.
        ("what is planner?", {"planner"}, set(), ["planner"]),
        ("what is DocQLLexer?", {"docqllexer", "doc_ql_lexer"}, set(), None),
        ("roses?", {"roses"}, set(), ["roses"]),
    ],
)
def test_query_names(text: str, strong: set[str], weak: set[str], contains: list | None) -> None:
    names = query_names(search_terms.parse(text))
    assert strong <= names.strong and not (weak & names.strong)
    assert all(names.weight(n) == 1.0 for n in strong)
    assert all(names.weight(n) == 1.0 / names.words for n in weak)
    assert (strong | weak) <= set(names.equal)
    assert not any(n.endswith(("?", "？")) for n in names.equal + names.contain)
    if contains is not None:
        assert names.contain == contains


# -- 2. the candidate lists -----------------------------------------------------------------
NAME_DOCS = {
    "a.md": "# Planner\n\nThe one named so.\n",
    "b.md": "# Planner internals\n\nHow it works.\n",
    "c.md": "# The old planner\n\nWhat it was.\n",
    "d.md": "# Nothing\n\nplanner in the text only.\n",
}


@pytest.fixture
def names_index(tmp_index):
    tmp_index.write_many(NAME_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        yield idx


def test_name_list_tiers_equal_then_prefix_then_contains(names_index) -> None:
    terms = search_terms.parse("planner")
    headings = next(n for n in name_lists.NAME_LISTS if n.name == "headings")
    rows = name_lists.rows(names_index.store, headings, terms, query_names(terms), (), 30)
    assert [(r["path"], r["_tier"], r["_match"]) for r in rows] == [
        ("docs/a.md", 3, "planner"),
        ("docs/b.md", 2, "planner internals"),
        ("docs/c.md", 1, "the old planner"),
    ]
    # The depth bounds the names, the scope the documents.
    assert len(name_lists.rows(names_index.store, headings, terms, query_names(terms), (), 1)) == 1
    scoped = name_lists.rows(
        names_index.store, headings, terms, query_names(terms), ("docs/c.md",), 30
    )
    assert [r["path"] for r in scoped] == ["docs/c.md"]


def test_the_keyword_level_and_its_bm25_list(names_index) -> None:
    store = names_index.store
    terms = search_terms.parse("plannings")  # nowhere as typed: widened to its stem
    params = ranking.Params(store.dialect)
    level = keywords.choose_level(store, terms, ranking.scope_sql(store, (), params), params)
    assert level.steps[0] == "exact: 0 chunks with every term, 0 with any"
    assert level.steps[-1].startswith("stems: ") and not level.exact and level.narrow is None
    rows = keywords.bm25_rows(store, level.terms, level.narrow, ranking.Request(), depth=2)
    assert len(rows) == 2 and all("plann" in r["content"].lower() for r in rows)


# -- 3. fusion ------------------------------------------------------------------------------
def _fused(score: float, lists: dict) -> fusion.Fused:
    return fusion.Fused({"_path": "p", "_pos": 0}, lists=lists, score=score)


@pytest.mark.parametrize(
    ("lists", "lexical", "bonus"),
    [
        ({"bm25": {"bm25": 3.0}}, 1.0, fusion.BM25_BONUS * 3.0 / 4.0),
        ({"headings": {"match": "query planner"}}, 1.0, 0.05 + fusion.NAME_EXACT),
        # A longer name starting with the query: the prefix bonus, shared (not a strong name).
        ({"symbols": {"match": "queryplannerfactory"}}, 1.0, 0.1 + fusion.NAME_PREFIX / 2),
        # A weak name (one word of two) earns half the bonus.
        ({"entities": {"match": "query"}}, 1.0, 0.03 + fusion.NAME_EXACT / 2),
        # At lexical 0 (a passage as the query) the RRF score alone.
        ({"headings": {"match": "query planner"}, "bm25": {"bm25": 3.0}}, 0.0, 0.0),
    ],
)
def test_composite_score(lists: dict, lexical: float, bonus: float) -> None:
    names = query_names(search_terms.parse("query planner"))
    got = fusion.composite(_fused(0.02, lists), names, lexical)
    assert got == pytest.approx(100.0 * 0.02 + bonus)


# -- 4. result items ------------------------------------------------------------------------
ROW = {
    "path": "docs/a.md",
    "line": 1,
    "end_line": 3,
    "location": "docs/a.md:1-3",
    "section": "Planner",
    "number": "1",
    "page": None,
    "chunk_index": 0,
    "content": "# Planner\n\nThe planner orders steps.",
    "_path": "docs/a.md",
    "_pos": 0,
}


@pytest.mark.parametrize("explain", [False, True])
def test_fused_items_mark_their_snippet_and_explain_when_asked(explain: bool) -> None:
    entry = fusion.Fused(dict(ROW), lists={"bm25": {"rank": 1}}, rrf={"bm25": 0.016}, score=0.016)
    pats = results.snippets.patterns(search_terms.parse("orders"))
    plan = {"mode": "smart", "strategy": ["exact"]}
    opts = ranking.Request(explain=explain)
    one = results.fused_item(1.7, entry, pats, opts, plan)
    two = results.fused_item(1.6, entry, pats, opts, plan)
    assert one["score"] == 1.7 and "**orders**" in one["snippet"]
    assert ("explain" in one) == explain
    if explain:
        assert one["explain"]["lists"] == {"bm25": {"rank": 1}}
        assert one["explain"]["final"] == 1.7 and one["explain"]["plan"] == plan
        assert one["explain"]["plan"] is not two["explain"]["plan"]  # each item its own


# -- the shape: a pipeline ------------------------------------------------------------------
def _imports(module: str) -> set[str]:
    tree = ast.parse((SEARCH / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
    return found


CHANNEL_MODULES = {"keywords", "name_lists", "names", "documents", "evidence", "uses"}
LATER_STAGES = {"fusion", "results", "snippets", "rerank"}


def test_the_import_reader_sees_imports() -> None:
    assert {"channels", "fusion", "results"} <= _imports("smart")


@pytest.mark.parametrize("module", sorted(p.stem for p in SEARCH.glob("*.py")))
def test_stages_flow_down(module: str) -> None:
    imported = _imports(module)
    if module != "api":
        assert "smart" not in imported, "only the dispatcher runs the orchestration"
    if module != "smart":
        assert "channels" not in imported, "only smart.py runs the candidate lists"
    if module in CHANNEL_MODULES:
        assert not imported & ({"smart", "channels", "results"} | CHANNEL_MODULES - {module})
    if module in LATER_STAGES:
        assert not imported & (CHANNEL_MODULES | {"channels", "smart"})


def test_smart_only_orchestrates() -> None:
    tree = ast.parse((SEARCH / "smart.py").read_text(encoding="utf-8"))
    functions = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert functions == ["run"]
    reads = [
        n.func.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("rows", "scalar", "execute")
    ]
    assert reads == [], "smart.py reads nothing from the store itself"


def test_a_smart_search_enters_the_orchestration_once(tmp_path: Path) -> None:
    # benchmarks/search_rooms.py follows the store through real searches: smart.py is
    # entered once (it was entered 7 times when the strategies called each other's
    # helpers), no two modules call each other, and no call re-enters a module below.
    out = tmp_path / "rooms.json"
    script = SEARCH.parents[1] / "benchmarks" / "search_rooms.py"
    done = subprocess.run(
        [sys.executable, str(script), "--smoke", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert len(rows) == 3
    for row in rows:
        assert row["path"][:2] == ["api", "smart"] and row["path"].count("smart") == 1, row
        assert row["mutual_pairs"] == 0 and row["reentries"] == 0, row
        assert {"channels", "keywords", "name_lists", "documents"} <= set(row["path"]), row
