"""Smart search weighs exact evidence (issue 19): a passage whose own text holds every
term of the query, when few do, is not buried by passages that sit in more lists; a
sibling whose heading names the words does not beat the passage whose text holds them;
chunks of links alone (Markdown link reference definitions) are no passages."""

from __future__ import annotations

from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.passage_text import no_passage, nothing_to_embed
from docql_sqlite.search import channels, evidence, fusion
from docql_sqlite.search import terms as search_terms
from docql_sqlite.search.query_names import query_names


# -- fusion: an all-terms passage absent from the vector list ---------------------------------
def _row(chunk: int, content: str, section: str, coverage: int, bm25: float) -> dict:
    return {
        "_chunk": chunk,
        "_path": f"doc{chunk}.md",
        "_pos": 0,
        "_doc": chunk,
        "content": content,
        "section": section,
        "_coverage": coverage,
        "_bm25": -bm25,
    }


QUERY = "removes an environment variable mapping"
TARGET = _row(1, "Removes an environment variable mapping.\n", "unset", 4, 12.0)
# Two words of four, but in every other list: the vector list, the document list, the
# heading list.
OTHERS = [
    _row(2, "The environment holds each variable by name.\n", "Environment", 2, 9.0),
    _row(3, "Set an environment variable for the child.\n", "set", 3, 8.0),
    _row(4, "Variables of the environment are copied.\n", "Environment variables", 2, 7.5),
]


def _order(with_exact: bool) -> list[int]:
    terms = search_terms.parse(QUERY)
    level = search_terms.positives(terms)
    n = len(level)
    bm25 = [TARGET, *OTHERS]
    lists = [
        fusion.Ranked("bm25", 1.0, [dict(r, _weight=r["_coverage"] / n) for r in bm25]),
        fusion.Ranked("vector", 1.0, [OTHERS[0], OTHERS[1], OTHERS[2]]),
        fusion.Ranked("documents", 1.0, [OTHERS[0], OTHERS[2]]),
        fusion.Ranked("headings", 0.8, [dict(OTHERS[0], _match="environment", _weight=0.25)]),
    ]
    if with_exact:
        exact = evidence.exact_list(bm25, level, n_and=1)
        assert [r["_chunk"] for r in exact.rows] == [1]
        lists.append(exact)
    names = query_names(terms)
    fused = fusion.rrf(lists)
    scored = sorted(fused, key=lambda f: -fusion.composite(f, names))
    return [f.row["_chunk"] for f in scored]


def test_rrf_alone_buries_the_all_terms_passage() -> None:
    # The fixture is one where counting list memberships loses the answer …
    assert _order(with_exact=False)[0] != 1


def test_exact_evidence_ranks_the_all_terms_passage_first() -> None:
    # … and the exact-evidence list brings it back, the other lists still counting.
    order = _order(with_exact=True)
    assert order[0] == 1
    assert set(order) == {1, 2, 3, 4}


@pytest.mark.parametrize(
    "n_and, weight",
    [(1, evidence.EXACT_WEIGHT), (3, evidence.EXACT_WEIGHT), (30, evidence.EXACT_WEIGHT / 10)],
)
def test_exact_list_weighs_by_selectivity(n_and: int, weight: float) -> None:
    level = search_terms.positives(search_terms.parse(QUERY))
    assert evidence.exact_list([TARGET], level, n_and).weight == pytest.approx(weight)


def test_exact_list_rows_weigh_by_bm25_margin() -> None:
    level = search_terms.positives(search_terms.parse("environment variable"))
    rows = [
        _row(1, "environment variable\n", "a", 2, 10.0),
        _row(2, "variable environment\n", "b", 2, 5.0),
    ]
    exact = evidence.exact_list(rows, level, n_and=2)
    assert [r["_weight"] for r in exact.rows] == [1.0, 0.5]


def test_no_exact_list_for_one_term_or_none_with_every_term() -> None:
    one = search_terms.positives(search_terms.parse("environment"))
    assert not evidence.exact_list([TARGET], one, n_and=1).rows
    level = search_terms.positives(search_terms.parse(QUERY))
    assert not evidence.exact_list([TARGET], level, n_and=0).rows


# -- on an index: siblings, the exact list in the plan ----------------------------------------
SIBLINGS = """# Streams

## Readable

### `stream.destroy(error)`

Closes it and releases what it holds. Emits `'close'` afterwards.

### `stream.close()`

Destroy the stream: the error given, if any, is emitted first.

### `stream.pause()`

Stops the flow of data until resume is called.
"""


@pytest.fixture(scope="module")
def sibling_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from docql_sqlite.ingest import IngestOptions, index_paths

    root = tmp_path_factory.mktemp("siblings")
    (root / "stream.md").write_text(SIBLINGS, encoding="utf-8")
    for i in range(8):
        (root / f"other{i}.md").write_text(
            f"# Other {i}\n\nA stream of text about something else, number {i}.\n",
            encoding="utf-8",
        )
    index_paths(root / "s.db", [str(root)], IngestOptions(workers=1))
    return root / "s.db"


def test_sibling_whose_text_holds_the_terms_beats_the_one_whose_heading_does(
    sibling_db: Path,
) -> None:
    with docql_sqlite.open(sibling_db) as idx:
        bm25 = idx.search("destroy stream error", mode="bm25", limit=2)
        hits = idx.search("destroy stream error", limit=2, explain=True)
        without = idx.search("destroy stream error", limit=1, weights={"exact": 0})
    # without the exact list, smart search followed the heading too
    assert without[0]["section"] == "stream.destroy(error)"
    # BM25 puts the heading first (title weight 3, and the heading line is in its text) …
    assert bm25[0]["section"] == "stream.destroy(error)"
    # … smart search the passage that explains it.
    assert hits[0]["section"] == "stream.close()", hits
    assert "exact" in hits[0]["explain"]["lists"]
    assert "exact" not in hits[1]["explain"]["lists"]


def test_own_text_leaves_out_the_section_heading_line() -> None:
    row = {
        "content": "### `stream.destroy(error)`\n\nCloses it.\n",
        "section": "stream.destroy(error)",
    }
    assert evidence.own_tokens(row) == {"closes", "it"}


# -- link definitions are not passages ---------------------------------------------------------
def _node_page() -> str:
    names = ["fs.watch()", "fs.watchFile()", "fs.unwatchFile()", "fs.stat()", "fs.Stats"]
    names += [f"fs.api{i}()" for i in range(19)]
    defs = "\n".join(f"[`{n}`]: #{n.replace('.', '').replace('()', '').lower()}" for n in names)
    return f"""# File system

<!--introduced_in=v0.10.0-->

## `fs.watch(filename[, options][, listener])`

Watch for changes on `filename`, where `filename` is either a file or a
directory. See [`fs.watchFile()`][] for polling.

### Caveats

<!--type=misc-->

The `fs.watch` API is not 100% consistent across platforms, and is
unavailable in some situations. The recursive option is only supported on
macOS and Windows.

## `fs.stat(path)`

Returns an [`fs.Stats`][] object for the path.

[![build](https://img.shields.io/badge/build-passing-green)](https://ci.example.org)

<a id="DEP0001"></a>

{defs}
"""


@pytest.fixture(scope="module")
def node_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from docql_sqlite.ingest import IngestOptions, index_paths

    root = tmp_path_factory.mktemp("nodepage")
    (root / "fs.md").write_text(_node_page(), encoding="utf-8")
    (root / "other.md").write_text("# Other\n\nNothing about watching here.\n", encoding="utf-8")
    index_paths(root / "n.db", [str(root)], IngestOptions(workers=1))
    return root / "n.db"


@pytest.mark.parametrize("mode", ["smart", "bm25"])
@pytest.mark.parametrize(
    "query", ["fs.watch caveats", "watchFile polling", "fs watchFile unwatchFile stat"]
)
def test_link_definition_blocks_are_not_returned(node_db: Path, mode: str, query: str) -> None:
    with docql_sqlite.open(node_db) as idx:
        hits = idx.search(query, mode=mode, limit=20)
    assert hits, query
    for hit in hits:
        assert not no_passage(hit["content"]), hit["location"]
        assert "]: #" not in hit["content"], hit["location"]


def test_link_definitions_are_a_chunk_of_their_own_and_stay_in_the_text(node_db: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(f"file:{node_db}?mode=ro", uri=True)
    try:
        contents = [
            row[0]
            for row in conn.execute(
                "SELECT c.content FROM chunks c JOIN documents d ON d.id = c.doc_id "
                "WHERE d.name = 'fs.md' ORDER BY c.chunk_index"
            )
        ]
    finally:
        conn.close()
    with docql_sqlite.open(node_db) as idx:
        caveats = idx.search("fs.watch caveats", limit=1)[0]
    text = "".join(contents)
    assert text == _node_page()  # chunks tile the body: `get` shows the definitions
    defs = [c for c in contents if "]: #" in c]
    assert defs and all(no_passage(c) for c in defs)
    # the passage before the block keeps its words and loses the block
    stat = next(c for c in contents if "Returns an" in c)
    assert "]: #" not in stat
    assert caveats["section"] == "Caveats"


@pytest.mark.parametrize(
    "content, expected",
    [
        ("[`fs.watch()`]: #fswatch\n[`fs.stat()`]: #fsstat\n", True),
        ("  [a]: https://a.example 'title'\n\n[b]: b.md\n", True),
        ('<a id="DEP0001"></a>\n\n[![ci](https://ci/badge.svg)](https://ci)\n', True),
        ("- [Guide](guide.md)\n- [API][api]\n", True),
        ("## See also\n\n- [Guide](guide.md)\n", False),  # a heading of its own
        ("Returns an [`fs.Stats`][] object.\n", False),
        ("plain text with no link\n", False),
        ("x = a[1]: b\n", False),  # not at the start of a line
        ("\n", True),  # blank: Docker's 407 chunks between its front matter and the text
        ("}\n})\n", True),
        ("[TOC]\n", False),  # no link of its own: a lone [ref] line is a passage
        ("数据库\n", False),
        # Comments alone (Docker's boilerplate): found by their words, not embedded.
        ("\n<!-- This file is maintained within the moby/moby\n     repository -->\n", False),
    ],
)
def test_no_passage(content: str, expected: bool) -> None:
    assert no_passage(content) is expected


@pytest.mark.parametrize(
    "content, expected",
    [
        ("\n<!-- This file is maintained within the moby/moby\n     repository -->\n", True),
        ("<!-- DO NOT EDIT -->\n\n[TOC]\n\n", True),
        ('<!-- YAML\nadded: v1.0.0\n-->\n<a id="x"></a>\n', True),
        ("<!-- type=misc -->\nThe recursive option is only supported on macOS.\n", False),
        ("a <!-- b --> c\n", False),
        ("[`fs.watch()`]: #fswatch\n", True),  # no passage: nothing to embed either
        ("\n\n", True),
        ("Plain words.\n", False),
    ],
)
def test_nothing_to_embed(content: str, expected: bool) -> None:
    assert nothing_to_embed(content) is expected


def test_a_phrase_only_in_a_comment_still_finds_it(tmp_path: Path) -> None:
    """Docker's pages open with a licence comment before their first heading (a chunk of
    its own): word search finds it by its words; it has no vector."""
    from docql_sqlite.ingest import IngestOptions, index_paths

    (tmp_path / "attach.md").write_text(
        "---\ntitle: attach\n---\n\n<!-- This file is maintained within the moby/moby "
        "GitHub repository. -->\n\n# attach\n\nAttach to a running container.\n",
        encoding="utf-8",
    )
    index_paths(tmp_path / "d.db", [str(tmp_path)], IngestOptions(workers=0))
    with docql_sqlite.open(tmp_path / "d.db") as idx:
        hits = idx.search("maintained within the moby repository", mode="bm25")
    assert hits and "moby/moby" in hits[0]["content"]


# -- the vector list's weight with a strong encoder (docs/search.md) ---------------------
@pytest.mark.parametrize(
    "text, question",
    [
        ("how do I set a timeout on an http request", True),
        ("why is it slow", True),
        ("how to install", True),
        ("what does the sync option do", True),
        ("when should I vacuum", True),
        ("can I automatically update the system", True),
        ("is there a way to pin a version", True),
        ("does it support TLS", True),
        ("bread dough bake time?", True),
        # a problem told in the first person (Django's FAQ): a question without its mark
        ("I can't log in. When I enter a valid username and password, it fails.", True),
        ("My admin-site CSS and images are not displaying when using mod_wsgi.", True),
        ("I’m sure my ticket is perfect", True),
        ("I", False),
        # Chinese questions are not boosted: at x3-x8 the zh set lost .012 MRR@10.
        ("如何安装？", False),
        # A manual's sentences open with the same words: known items, not questions.
        ("When set to on, which is the default, PostgreSQL will remove temporary files.", False),
        ("Can be used to set the mode.", False),
        ("May be null.", False),
        ("Is ignored when the option is off.", False),
        ("do not fetch tags", False),
        ("What", False),
        ("long bread dough bake", False),
        ("", False),
    ],
)
def test_is_question(text: str, question: bool) -> None:
    assert channels.is_question(text) is question


@pytest.mark.parametrize(
    "query, weights, boost",
    [
        # No passage holds every word (question → answer): meaning decides, x8.
        ("how long should bread dough bake", {}, 8.0),
        # One passage holds every word in its own text: the question keeps its lexical
        # lists, with the vector list at the floor (a sibling question can hold them all).
        ("how do I knead the dough and bake it", {}, 3.0),
        # Not a question: a fragment is a known item, where BM25 is the better list.
        ("knead the dough and bake it", {}, 1.0),
        ("long bread dough bake", {}, 1.0),
        ("do not bake bread dough long", {}, 1.0),
        # A question mark makes one.
        ("bread dough bake time?", {}, 8.0),
        # One term, not a question: the name channels weigh look-ups.
        ("dough", {}, 1.0),
        # A question of one term ("What is R?") has no exact list: x8 ...
        ("what is dough?", {}, 8.0),
        # ... unless a name equals it (a heading here, a symbol in code): the floor.
        ("what are roses?", {}, 3.0),
        # A weight the user gives is the weight.
        ("how long should bread dough bake", {"vector": 1.0}, 1.0),
    ],
)
def test_a_strong_encoder_weighs_more_for_questions_and_most_when_exact_evidence_is_weak(
    e5_db, monkeypatch: pytest.MonkeyPatch, query: str, weights: dict, boost: float
) -> None:
    database, env = e5_db
    monkeypatch.setenv("DOCQL_MODEL_CACHE", env["DOCQL_MODEL_CACHE"])
    with docql_sqlite.open(database) as idx:
        hits = idx.search(query, explain=True, weights=weights)
    strategy = hits[0]["explain"]["plan"]["strategy"]
    steps = [s for s in strategy if "strong encoder" in s]
    assert steps == (
        [f"a strong encoder and a question → vector list weight x{boost:.2f}"] if boost > 1 else []
    )
    vector = [h["explain"]["rrf"].get("vector", 0.0) for h in hits]
    if boost > 1:  # rank 1 of the vector list at that weight and k = 60
        assert max(vector) == pytest.approx(boost / 61, abs=1e-6)
    else:
        assert max(vector) <= (weights.get("vector", 1.0)) / 61 + 1e-6


def test_a_boosted_vector_passage_holding_none_of_the_words_counts_half(
    e5_db, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the boost, the vector list's passages that hold no word of the question keep
    WORDLESS_WEIGHT of the list's weight: the bread passage holds "dough" and "bake", the
    timeout and rose passages hold none."""
    database, env = e5_db
    monkeypatch.setenv("DOCQL_MODEL_CACHE", env["DOCQL_MODEL_CACHE"])
    with docql_sqlite.open(database) as idx:
        hits = idx.search("how long should bread dough bake", explain=True)
    assert (
        "2 vector passages hold none of the words → x0.5" in hits[0]["explain"]["plan"]["strategy"]
    )
    by_section = {h["section"]: h["explain"] for h in hits}
    assert set(by_section) == {"Bread", "Timeouts", "Roses"}
    for section, explain in by_section.items():
        rank = explain["lists"]["vector"]["rank"]
        share = 1.0 if section == "Bread" else channels.WORDLESS_WEIGHT
        assert explain["rrf"]["vector"] == pytest.approx(8 * share / (60 + rank), abs=1e-6)
    assert hits[0]["section"] == "Bread"


# -- nearness in meaning (fusion.Nearness, docs/search.md "Nearness in meaning") ----------
def _fused(chunk: int, lists: dict[str, dict], rrf: dict[str, float]) -> fusion.Fused:
    row = {"_chunk": chunk, "_path": f"entry{chunk}.md", "_pos": 0, "content": "x"}
    return fusion.Fused(row, lists, rrf, sum(rrf.values()))


def test_nearness_turns_a_clear_vector_first_over_a_sibling_that_the_lexical_lists_hold() -> None:
    """An FAQ's sibling answer holds the question's words (BM25 and documents rank 1,
    vector rank 2 at distance .110); the answer is the vector list's first (.080) and in
    no lexical list. RRF alone ranks the sibling first; with the nearness term of a full
    boost (150 points per unit of distance) the answer is first."""
    names = query_names(search_terms.parse("how can I keep my system current"))
    sibling = _fused(
        1,
        {
            "bm25": {"rank": 1, "bm25": 3.0},
            "documents": {"rank": 1},
            "vector": {"rank": 2, "distance": 0.110},
        },
        {"bm25": 1 / 61, "documents": 1 / 61, "vector": 8 / 62},
    )
    answer = _fused(2, {"vector": {"rank": 1, "distance": 0.080}}, {"vector": 8 / 61})
    far = _fused(3, {"bm25": {"rank": 2, "bm25": 2.0}}, {"bm25": 1 / 62})
    near = fusion.Nearness(channels.NEARNESS_WEIGHT, 0.080, 0.140)

    assert fusion.composite(sibling, names) > fusion.composite(answer, names)
    assert fusion.composite(answer, names, 1.0, near) > fusion.composite(sibling, names, 1.0, near)
    # The term itself: weight x (farthest - distance), 0 outside the vector list.
    assert near.term(answer) == pytest.approx(150 * 0.060)
    assert near.term(sibling) == pytest.approx(150 * 0.030)
    assert near.term(far) == 0.0
    assert fusion.composite(far, names, 1.0, near) == fusion.composite(far, names)


@pytest.mark.parametrize("share, weight", [(1.0, 150.0), (0.4, 150.0 * 0.064), (0.0, None)])
def test_nearness_weighs_the_share_of_the_boost_cubed(share: float, weight: float | None) -> None:
    rows = [{"_distance": 0.2}, {"_distance": 0.1}, {"_chunk": 3}]
    near = channels.nearness(rows, share)
    if weight is None:
        assert near is None
    else:
        assert near is not None
        assert (near.weight, near.nearest, near.farthest) == (pytest.approx(weight), 0.1, 0.2)


def test_a_boosted_question_adds_each_passages_nearness_to_its_score(
    e5_db, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With e5-small and a question no passage holds whole (boost x8): every result's
    score is what it was without the term plus 150 x (farthest distance - its distance),
    and the plan says so. A weight given for the vector list boosts nothing: no term."""
    database, env = e5_db
    monkeypatch.setenv("DOCQL_MODEL_CACHE", env["DOCQL_MODEL_CACHE"])
    query = "how long should bread dough bake"
    with docql_sqlite.open(database) as idx:
        hits = idx.search(query, explain=True)
        monkeypatch.setattr(channels, "NEARNESS_WEIGHT", 0.0)
        without = {h["section"]: h["score"] for h in idx.search(query, explain=True)}
        monkeypatch.undo()
        monkeypatch.setenv("DOCQL_MODEL_CACHE", env["DOCQL_MODEL_CACHE"])
        given = idx.search(query, explain=True, weights={"vector": 8.0})
    distances = {h["section"]: h["explain"]["lists"]["vector"]["distance"] for h in hits}
    farthest, nearest = max(distances.values()), min(distances.values())
    strategy = hits[0]["explain"]["plan"]["strategy"]
    assert (
        f"nearness in meaning → 150.0 x (farthest distance {farthest:.4f} - a passage's; "
        f"the nearest {nearest:.4f})"
    ) in strategy
    for h in hits:
        term = 150.0 * (farthest - distances[h["section"]])
        assert h["score"] == pytest.approx(without[h["section"]] + term, abs=1e-3)
    assert not any("nearness" in s for s in given[0]["explain"]["plan"]["strategy"])
