"""The `Index` front door: typed options, locations, pure compilation, vectors kept current
by the write path (through the Python API alone), and embed runs that lose nothing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import apsw
import numpy as np
import pytest

import docql_sqlite
from docql_sqlite import (
    ContextOptions,
    EmbedOptions,
    IngestOptions,
    LocationError,
    OptionError,
    QueryOptions,
    SearchOptions,
)
from docql_sqlite.embedders import register, reload_plugins
from docql_sqlite.embedders.base import PROBE_TEXTS
from docql_sqlite.embedders.hashing import HashEmbedder
from docql_sqlite.embedders.registry import forget_loaded_models
from docql_sqlite.errors import EmbeddingError

GUIDE = (
    "# Guide\n\nIntro line.\n\n## Install\n\nRun the installer.\nThen restart.\n\n## Use\n\nLast.\n"
)


class Loads(HashEmbedder):
    """The hash model; counts how often it is built and what it embeds, and can fail."""

    built = 0
    texts: list[str] = []
    fail_after: int | None = None  # texts embedded before it starts failing

    def __init__(self) -> None:
        super().__init__(64)
        self.model_id = "loads"
        Loads.built += 1

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        real = [t for t in texts if t not in PROBE_TEXTS]
        if Loads.fail_after is not None and len(Loads.texts) + len(real) > Loads.fail_after:
            raise EmbeddingError("the embedding server went away")
        Loads.texts.extend(real)
        return super().embed_batch(texts)


@pytest.fixture
def loads_model():
    reload_plugins()
    register("loads", lambda arg, **_: Loads())
    Loads.built, Loads.texts, Loads.fail_after = 0, [], None
    forget_loaded_models()
    yield Loads
    reload_plugins()
    forget_loaded_models()


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    for n in range(3):
        text = f"# Note {n}\n\n" + "".join(
            f"## Part {k}\n\nText {n}.{k} here.\n\n" for k in range(4)
        )
        (docs / f"note{n}.md").write_text(text, encoding="utf-8")
    return tmp_path


def _vector_state(db: Path) -> dict[int, str]:
    """chunk id → content hash of its vector, for every chunk that has a current vector."""
    conn = apsw.Connection(str(db))
    try:
        return dict(
            conn.execute(
                "SELECT cv.chunk_id, cv.content_hash FROM chunk_vectors cv "
                "JOIN chunks c ON c.id = cv.chunk_id AND c.content_hash = cv.content_hash"
            ).fetchall()
        )
    finally:
        conn.close()


def _chunk_count(db: Path) -> int:
    conn = apsw.Connection(str(db))
    try:
        return conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        conn.close()


# -- vectors belong to the write path ---------------------------------------------------
def test_python_index_keeps_vectors_current(tree: Path, loads_model) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    first = docql_sqlite.embed(db, "loads")
    assert first["embedded"] == len(set(loads_model.texts)) > 0
    assert len(_vector_state(db)) == _chunk_count(db)
    loads_model.texts = []
    (tree / "docs/guide.md").write_text(GUIDE.replace("Run the installer.", "Run setup.py."))
    report = docql_sqlite.index(db, ["docs"], workers=0)
    # Only the edited passage was embedded, inside the index run, by the index's own model.
    assert report.updated == ["docs/guide.md"] and report.embedding is not None
    assert report.embedding["embedded"] == 1 and len(loads_model.texts) == 1
    assert "Run setup.py." in loads_model.texts[0]
    assert len(_vector_state(db)) == _chunk_count(db)
    with docql_sqlite.open(db) as idx:
        hit = idx.search("setup.py", mode="vector", limit=1)[0]
    assert hit["path"] == "docs/guide.md" and "setup.py" in hit["snippet"]


def test_one_process_loads_a_model_once(tree: Path, loads_model) -> None:
    """The writer and the readers of one process share the loaded model (`serve --watch`,
    an MCP server that re-indexes): an edit re-embedded and a vector search after it
    build no second instance."""
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0, embed="loads")
    assert loads_model.built == 1
    (tree / "docs/guide.md").write_text(GUIDE.replace("Run the installer.", "Run setup.py."))
    report = docql_sqlite.index(db, ["docs"], workers=0)
    assert report.embedding is not None and report.embedding["embedded"] == 1
    with docql_sqlite.open(db) as idx:
        assert idx.search("setup.py", mode="vector", limit=1)[0]["path"] == "docs/guide.md"
    assert loads_model.built == 1


def test_nothing_changed_loads_no_model(tree: Path, loads_model) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0, embed="loads")
    built = loads_model.built
    report = docql_sqlite.index(db, ["docs"], workers=0)
    assert report.embedding is None and loads_model.built == built


def test_index_method_and_embed_option(tree: Path, loads_model) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], IngestOptions(workers=0))
    with docql_sqlite.open(db) as idx:
        assert idx.has_vectors is False
        report = idx.index(["docs"], IngestOptions(workers=0, embed="loads"))
        assert report.embedding is not None and report.embedding["model"] == "loads"
        assert idx.has_vectors is True  # the facade sees the vectors it just wrote
        assert idx.status()["embedding_model"] == "loads"


def test_a_failing_model_fails_the_run_but_keeps_the_text(tree: Path, loads_model) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0, embed="loads")
    loads_model.fail_after = 0
    (tree / "docs/guide.md").write_text(GUIDE + "\nA new closing paragraph.\n")
    report = docql_sqlite.index(db, ["docs"], workers=0)
    assert not report.ok and "went away" in (report.embedding_error or "")
    with docql_sqlite.open(db) as idx:  # the text is indexed; the next run finishes vectors
        assert idx.search("closing paragraph", mode="bm25")[0]["path"] == "docs/guide.md"
    loads_model.fail_after = None
    assert docql_sqlite.index(db, ["docs"], workers=0).embedding["embedded"] >= 1
    assert len(_vector_state(db)) == _chunk_count(db)


# -- embed loses nothing ----------------------------------------------------------------
def test_an_interrupted_embed_keeps_its_finished_batches(tree: Path, loads_model) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    total = _chunk_count(db)
    loads_model.fail_after = 4
    with pytest.raises(EmbeddingError):
        docql_sqlite.embed(db, EmbedOptions(model="loads", batch=2))
    kept = _vector_state(db)
    assert 0 < len(kept) <= 4 < total  # the batches written before the failure stay
    loads_model.fail_after, loads_model.texts = None, []
    rest = docql_sqlite.embed(db, EmbedOptions(batch=2))  # a restarted embed continues
    assert rest["embedded"] == len(loads_model.texts) <= total - len(kept)
    assert len(_vector_state(db)) == total


def test_replace_with_a_model_that_fails_keeps_the_vectors(
    tree: Path, loads_model, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCQL_EMBED_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0, embed="hash")
    before = _vector_state(db)
    with pytest.raises(EmbeddingError):
        docql_sqlite.embed(db, "openai:nothing", replace=True)
    assert _vector_state(db) == before
    with docql_sqlite.open(db) as idx:
        assert idx.status()["embedding_model"].startswith("hash")


# -- compiling is pure ------------------------------------------------------------------
def test_compile_reads_no_rows_and_loads_no_model(tree: Path, loads_model) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0, embed="loads")
    forget_loaded_models()
    built = loads_model.built
    with docql_sqlite.open(db) as idx:
        statements: list[str] = []

        def trace(cursor, sql, bindings):  # every statement SQLite is asked to run
            statements.append(sql)
            return True

        idx.conn.exec_trace = trace
        for query in (
            '$.content.search("installer")',
            '$.content.similar("how to install")',
            "$.content.similar(1)",
            "$.toc[?(@.level == 1)]",
        ):
            compiled = idx.compile(query)
            assert compiled.sql
        assert statements == [] and loads_model.built == built
        # Running binds the deferred values: the model loads, rows are read.
        hits = idx.query('$.content.similar("how to install")')
        assert hits and loads_model.built == built + 1 and statements
        with pytest.raises(docql_sqlite.DocQLError, match="no chunk with that id"):
            idx.query("$.content.similar(99999)")


def test_sql_shows_deferred_parameters_without_running(tree: Path, loads_model) -> None:
    from click.testing import CliRunner

    from docql_sqlite.cli import cli

    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0, embed="loads")
    forget_loaded_models()
    built = loads_model.built
    out = CliRunner().invoke(cli, ["query", str(db), '$.content.search("installer")', "--sql"])
    assert out.exit_code == 0, out.output
    assert "bound when the query runs" in out.output and "vec_f32(" in out.output
    assert loads_model.built == built


# -- options ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: SearchOptions(mode="fuzzy"), "unknown search mode 'fuzzy'"),
        (lambda: SearchOptions(limit=0), "at least 1"),
        (lambda: SearchOptions(group="dir"), "unknown grouping 'dir'"),
        (lambda: SearchOptions(weights={"bm26": 1}), "unknown list 'bm26'"),
        (lambda: SearchOptions(weights={"bm25": -1}), "cannot be negative"),
        (lambda: SearchOptions(rrf_k=0), "rrf_k must be a whole number of at least 1"),
        (lambda: QueryOptions(limit=-1), "limit must be a whole number"),
        (lambda: QueryOptions(timeout=0), "timeout must be a positive number"),
        (lambda: ContextOptions(budget=0), "budget must be a whole number"),
        (lambda: IngestOptions(workers=-1), "workers must be a whole number"),
    ],
)
def test_options_check_themselves(build, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        build()


def test_unknown_keyword_override_names_the_options(tree: Path) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    with docql_sqlite.open(db) as idx:
        with pytest.raises(OptionError, match="unknown option limt for SearchOptions"):
            idx.search("installer", limt=3)
        assert idx.search("installer", SearchOptions(mode="bm25"), limit=1)[0]["path"] == (
            "docs/guide.md"
        )
        assert idx.search("x y", paths="docs/note1.md", mode="bm25") == [] or all(
            h["path"] == "docs/note1.md" for h in idx.search("text", paths="docs/note1.md")
        )


def test_query_offset_and_result_carries_compiled(tree: Path) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    with docql_sqlite.open(db) as idx:
        titles = idx.query("$.toc[*].title")
        assert titles.compiled.sql.startswith("WITH") or "SELECT" in titles.compiled.sql
        assert idx.query("$.toc[*].title", offset=2) == titles[2:]
        assert idx.query("$.toc[*].title", QueryOptions(paths=("docs/guide.md",))) == [
            "Guide",
            "Install",
            "Use",
        ]


# -- locations --------------------------------------------------------------------------
LINES = GUIDE.split("\n")[:-1]


@pytest.mark.parametrize(
    "location, first, last",
    [
        ("docs/guide.md", 1, len(LINES)),
        ("guide.md", 1, len(LINES)),  # a unique suffix
        ("docs/guide.md:5", 5, 5),
        ("docs/guide.md:5-8", 5, 8),
        ("docs/guide.md:5:3", 5, 7),
        ("docs/guide.md:10-400", 10, len(LINES)),  # a range past the end stops at the end
    ],
)
def test_get_every_location_form(tree: Path, location: str, first: int, last: int) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    shutil.rmtree(tree / "docs")  # read from the index, not the file
    with docql_sqlite.open(db) as idx:
        excerpt = idx.get(location)
    assert (excerpt.path, excerpt.first, excerpt.last) == ("docs/guide.md", first, last)
    assert [text for _, text in excerpt.lines] == LINES[first - 1 : last]
    assert excerpt.total_lines == len(LINES)


def test_get_locations_printed_by_search_and_query(tree: Path) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    with docql_sqlite.open(db) as idx:
        for item in idx.search("installer", mode="bm25") + idx.query('$.content.heading("Use")'):
            excerpt = idx.get(item["location"])
            assert (excerpt.first, excerpt.last) == (item["line"], item["end_line"])


@pytest.mark.parametrize(
    "location, message",
    [
        ("docs/guide.md:400", "docs/guide.md has 12 lines; line 400 is past its end"),
        ("docs/guide.md:8-5", "ends (line 5) before it starts (line 8)"),
        ("docs/guide.md:0", "numbered from 1"),
        ("docs/guide.md:page 2", "docs/guide.md has no pages"),
        # past any integer the store holds: an OverflowError in SQLite before
        ("docs/guide.md:page 99999999999999999999999", "is past the end of any document"),
        ("docs/guide.md:99999999999999999999999", "is past the end of any document"),
        ("docs/nothing.md:3", "no document 'docs/nothing.md' in"),  # named without its line
    ],
)
def test_get_bad_locations(tree: Path, location: str, message: str) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    with docql_sqlite.open(db) as idx:
        with pytest.raises(LocationError, match=re.escape(message)):
            idx.get(location)


def test_get_pages_of_a_pdf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "datasets"))
    from make_binary_samples import make_handbook_pdf

    monkeypatch.chdir(tmp_path)
    make_handbook_pdf(str(tmp_path / "m.pdf"))
    db = tmp_path / "p.db"
    docql_sqlite.index(db, ["m.pdf"], workers=0)
    with docql_sqlite.open(db) as idx:
        pages = idx.status()["by_format"]
        assert pages.get("pdf") == 1
        one = idx.get("m.pdf:page 1")
        assert one.page == 1 and one.first == 1 and one.lines
        assert idx.get("m.pdf#page=1").lines == one.lines
        page_texts = idx.query("$.content.page(1).content")
        assert page_texts and one.text.strip().split("\n")[0] in page_texts[0]
        with pytest.raises(LocationError, match="page 999 is past its end"):
            idx.get("m.pdf:page 999")


def test_embed_refuses_an_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(docql_sqlite.DatabaseError, match="is empty, not a docql-sqlite index"):
        docql_sqlite.embed(empty, "hash")
    assert empty.read_bytes() == b""  # not turned into an index


def test_offset_pages_through_limited_results(tree: Path) -> None:
    db = tree / "docs.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    with docql_sqlite.open(db) as idx:
        everything = idx.query("$.toc[*].title")
        assert len(everything) > 8
        page = idx.query("$.toc[*].title", limit=3, offset=5)
        assert page == everything[5:8]  # not everything[5:3]
        with pytest.raises(OptionError, match="limit \\+ offset must be at most"):
            idx.query("$.toc[*]", limit=2**63 - 1, offset=1)


def test_a_huge_section_is_cut_in_results_and_read_whole_with_get(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docql_sqlite.query.results import MAX_TEXT_CHARS

    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    line = "word " * 19 + "end\n"  # 99 characters
    body = line * (MAX_TEXT_CHARS // len(line) + 2_000)
    (tmp_path / "docs/big.md").write_text("# Big\n\n" + body + "# After\n\nsmall\n")
    db = tmp_path / "big.db"
    docql_sqlite.index(db, ["docs"], workers=0)
    with docql_sqlite.open(db) as idx:
        (section,) = idx.query('$.content.heading("Big")')
        content = section["content"]
        assert len(content) < MAX_TEXT_CHARS + 200
        assert content.startswith("# Big\n\n" + line)
        assert f"read the rest with: get {section['location']}" in content
        (projected,) = idx.query('$.content.heading("Big").content')
        assert projected[:MAX_TEXT_CHARS] == content[:MAX_TEXT_CHARS]
        assert len(projected) < MAX_TEXT_CHARS + 200 and "…[cut at" in projected
        whole = idx.get(section["location"]).text
        assert whole == "# Big\n\n" + body  # nothing is lost: get reads every line
        (small,) = idx.query('$.content.heading("After")')
        assert small["content"] == "# After\n\nsmall\n"  # small sections are untouched


def test_get_reads_the_lines_the_whole_text_has(corpus_db: Path, tmp_path: Path) -> None:
    """`get` reads only the chunks that hold the lines asked for (a line of a 20 MB file
    took 50 ms when the whole text was joined for it): oracle, the whole text's lines,
    for windows at the start, the end, across chunk boundaries and front matter, in every
    document of datasets/ and in one whose long lines run over several chunks."""
    from conftest import indexed_text

    long_lines = tmp_path / "long"
    long_lines.mkdir()
    (long_lines / "wide.js").write_text(
        "".join(f"var a{n} = '{'x' * (3000 + 4000 * n)}';\n" for n in range(12)) + "short();\n"
    )  # lines past chunk.MAX_LINE_CHARS run over several chunks
    long_db = tmp_path / "long.db"
    docql_sqlite.index(long_db, [str(long_lines)], workers=0)
    checked = 0
    for db in (corpus_db, long_db):
        with docql_sqlite.open(db) as idx:
            for doc in idx.rows("SELECT id, path FROM documents ORDER BY id"):
                text = indexed_text(db, doc["id"])
                lines = text.split("\n")[: -1 if text.endswith("\n") else None]
                n = len(lines)
                windows = {(1, 1), (1, n), (n, n), (max(1, n // 2 - 3), min(n, n // 2 + 3))}
                windows |= {(k, min(n, k + 1)) for k in range(1, n + 1, max(1, n // 7))}
                for first, last in windows:
                    if n == 0:
                        continue
                    excerpt = idx.get(f"{doc['path']}:{first}-{last}")
                    assert excerpt.total_lines == n, doc["path"]
                    assert [t for _, t in excerpt.lines] == lines[first - 1 : last], (
                        doc["path"],
                        first,
                        last,
                    )
                    checked += 1
    assert checked > 300
    with docql_sqlite.open(long_db) as idx:  # the case is there
        assert max(r["n"] for r in idx.rows("SELECT count(*) AS n FROM chunks GROUP BY line")) > 1
