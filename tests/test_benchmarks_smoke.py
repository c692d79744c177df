"""The benchmark scripts' --smoke modes: each runs end to end on a tiny tree from datasets/.

No network: peers (rg, QMD) come from the corpus cache when benchmarks/fetch_corpora.sh has
run, else from PATH; without them their tests skip and say why. The figures themselves are
not asserted (timings on a shared machine mean nothing here); what is asserted is what a
broken harness would get wrong: counts against a brute-force scan of the same files, the
file sets of grep vs rg, the re-index finding everything unchanged.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"
# Every script, found rather than listed: a new one without --help or --smoke fails test_help.
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if p.name != "benchlib.py")


def run_smoke(script: str, tmp: Path, *options: str) -> dict:
    out = tmp / f"{script}.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--smoke", "--json", str(out), *options],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def smoke_files(*parts: str) -> list[Path]:
    """The files of datasets/ the smoke trees copy (all of them Markdown or code)."""
    return [
        p for part in parts for p in sorted((REPO / "datasets" / part).rglob("*")) if p.is_file()
    ]


@pytest.fixture(scope="module")
def peers(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_smoke("peers.py", tmp_path_factory.mktemp("peers"))


@pytest.fixture(scope="module")
def latency(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_smoke("latency.py", tmp_path_factory.mktemp("latency"))


@pytest.fixture(scope="module")
def scale(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_smoke("scale.py", tmp_path_factory.mktemp("scale"))


def test_scripts_found() -> None:
    assert len(SCRIPTS) >= 14 and "benchlib.py" not in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(script: str) -> None:
    """--help exits 0 and shows what is measured, the full-mode command and --smoke, --json."""
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: "), done.stdout[:200]
    assert "--smoke" in done.stdout and "--json" in done.stdout
    assert f"benchmarks/{script}" in done.stdout  # the command lines of the docstring


def test_fetch_script_help() -> None:
    done = subprocess.run(
        ["bash", str(BENCH / "fetch_corpora.sh"), "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0
    for corpus in ("golang-1.19-src", "rust-src", "antd", "r-doc-pdf", "python3.11-doc", "qmd"):
        assert corpus in done.stdout


def test_peers_smoke_docql_and_floor(peers: dict) -> None:
    by_name = {r["corpus"]: r for r in peers["results"]}
    markdown = by_name["md_mix"]
    expected = [p for p in smoke_files("en", "zh") if p.suffix == ".md"]
    assert markdown["files"] == len(expected)
    assert markdown["bytes"] == sum(p.stat().st_size for p in expected)
    docql = markdown["median"]["docql"]
    assert docql["documents"] == len(expected) and docql["failed"] == 0
    assert docql["db_mb"] * 1e6 > markdown["bytes"]  # sections, chunks and FTS: never smaller
    floor = markdown["median"]["floor"]
    assert floor["seconds"] > 0 and floor["db_mb"] > 0


def test_peers_smoke_profile(peers: dict) -> None:
    profile = peers["profile"]
    stages = profile["stages"]
    assert set(stages) >= {"walk", "read", "decode+parse", "sections+chunks", "FTS5", "commit"}
    assert abs(sum(s["share"] for s in stages.values()) - 1.0) < 1e-6
    names = {p["name"]: p for p in profile["page_counts"]}
    assert {"chunks", "chunks_fts_data", "sections", "documents"} <= set(names)
    assert all(p["bytes"] == p["pages"] * (p["bytes"] // p["pages"]) for p in names.values())


def test_peers_smoke_qmd(peers: dict) -> None:
    qmd = peers["results"][0]["median"].get("qmd")
    if not qmd or "seconds" not in qmd:
        pytest.skip(f"QMD not available: {peers['qmd']}")
    # QMD's own index holds every Markdown file of the tree (counted in its database), so
    # the figures are those of a real build, not of a failed or empty one.
    expected = [p for p in smoke_files("en", "zh") if p.suffix == ".md"]
    assert qmd["documents"] == len(expected)
    assert qmd["files_per_s"] == qmd["documents"] / qmd["seconds"] and qmd["cpu_s"] > 0


def test_latency_smoke_classes(latency: dict) -> None:
    for name in ("structural", "heading", "chapter", "grep", "bm25"):
        assert latency["in_process"][name]["p50_ms"] > 0
        assert latency["cli"][name]["p50_ms"] > latency["in_process"][name]["p50_ms"]


def test_latency_smoke_grep_matches_rg(latency: dict) -> None:
    grep = latency["grep_vs_rg"]
    if "skipped" in grep:
        pytest.skip(grep["skipped"])
    files = smoke_files("en", "zh", "code")
    assert grep["universe"]["rg_files"] == grep["universe"]["docql_raw_text_documents"]
    assert grep["universe"]["n_only_rg"] == grep["universe"]["n_only_docql"] == 0
    for row in grep["literals"]:
        oracle = [p for p in files if row["literal"].lower() in p.read_text("utf-8").lower()]
        assert row["identical"], row
        assert row["docql_files"] == row["rg_files"] == len(oracle), row
    assert any(row["docql_files"] > 0 for row in grep["literals"])


def test_latency_smoke_qmd(latency: dict) -> None:
    search = latency["search_vs_qmd"]
    if "skipped" in search:
        pytest.skip(search["skipped"])
    # QMD's JSON was read (-1 when it was not), and the summary's ratios are the medians'.
    assert all(row["qmd_hits"] >= 0 for row in search["queries"]), search["queries"]
    assert search["speedup_default"] == search["qmd_p50_ms"] / search["docql_p50_ms"]
    assert search["speedup_bm25"] == search["qmd_p50_ms"] / search["docql_bm25_p50_ms"]


def test_scale_smoke(scale: dict) -> None:
    files = smoke_files("en", "zh", "code")
    assert scale["files"] == len(files)
    labels = [p["label"] for p in scale["points"]]
    assert labels == ["ref", "100%"]
    full = scale["points"][-1]
    assert full["documents"] == len(files) and full["failed"] == full["errors_recorded"] == 0
    assert scale["points"][0]["bytes"] < full["bytes"] == sum(p.stat().st_size for p in files)
    again = scale["reindex"]["summary"]
    assert again["unchanged"] == len(files) and again["added"] == again["updated"] == 0
    assert set(full["latency"]["in_process"]) >= {"structural", "heading", "grep", "bm25"}


# -- the R FAQ retrieval set: texinfo HTML → one answer file per question ---------------
R_FAQ_PAGE = """<div class="section" id="What-is-R_003f">
<div class="header">
<p>Next: <a href="#How">How can R be installed?</a>, Previous: <a href="#B">R Basics</a></p>
</div>
<span id="What-is-R_003f-1"></span><h3 class="section">2.1 What is <acronym>R</acronym>?</h3>
<p>R is a system for statistical computation &amp; graphics, with a language and a
run-time environment.</p>
<pre class="example">&gt; x &lt;- 1
</pre>
<hr>
</div>
<span id="How-1"></span><h3 class="section">2.5 How can R be installed?</h3>
<ul class="section-toc">
<li><a href="#U">How can R be installed (Unix-like)</a></li>
</ul>
<h4 class="subsection">2.5.1 How can R be installed (Unix-like)</h4>
<p>Untar the sources, then run configure and make in the directory thus created, and
copy the script to a place where users can invoke it.</p>
<h3 class="section">2.6 Citing R</h3>
<p>Not a question, so not an entry, however long its answer may be written out here.</p>
<h3 class="section">2.7 Why?</h3>
<p>Too short.</p>
"""


def retrieval_module() -> Any:
    """benchmarks/retrieval.py, imported with its folder on the path for the import only."""
    sys.path.insert(0, str(BENCH))
    try:
        import retrieval
    finally:
        sys.path.remove(str(BENCH))
    return retrieval


def test_r_faq_entries() -> None:
    entries = retrieval_module().r_faq_entries(R_FAQ_PAGE)
    assert [q for q, _ in entries] == ["What is R?", "How can R be installed?"]
    what, how = entries[0][1], entries[1][1]
    assert what == (
        "R is a system for statistical computation & graphics, with a language and a "
        "run-time environment.\n\n```\n> x <- 1\n```"
    )
    # The navigation header (naming other questions), the section's table of contents
    # and the subsection headings (restating the question) are left out; the
    # subsection's text belongs to the answer.
    assert "Next:" not in what and "installed" not in what
    assert how.startswith("Untar the sources") and "Unix-like" not in how


# -- the Django FAQ retrieval set: reST pages, a question per "="-underlined title ------
DJANGO_FAQ_PAGE = """=========================
FAQ: Databases and models
=========================

.. _faq-see-raw-sql-queries:

How can I see the raw SQL queries Django is running?
====================================================

Make sure your Django DEBUG setting is set to True.

Subsection of the answer
------------------------

Still the same answer.

Does Django support NoSQL databases?
====================================

Not officially.
"""


def test_django_faq_entries() -> None:
    entries = retrieval_module().django_faq_entries(DJANGO_FAQ_PAGE)
    # the overlined page title is no question; a "-" subsection belongs to its answer;
    # each answer runs to the line before the next question's title
    assert entries == [
        (7, 16, "How can I see the raw SQL queries Django is running?"),
        (17, 20, "Does Django support NoSQL databases?"),
    ]
    lines = DJANGO_FAQ_PAGE.splitlines()
    assert lines[7 - 1].startswith("How can I see") and lines[17 - 1].startswith("Does Django")
    assert lines[16 - 1] == "" and lines[20 - 1] == "Not officially." and len(lines) == 20


@pytest.mark.parametrize(
    "page, title",
    [
        ("======================\nWriting your first app\n======================\n\nText.\n",
         "Writing your first app"),
        (".. _topics-http:\n\nURL dispatcher\n==============\n\nText.\n", "URL dispatcher"),
        ("Intro\n===\n", None),  # an underline shorter than its title is no adornment
        ("No title at all.\n\n----\n", None),  # a transition under a blank line
    ],
)  # fmt: skip
def test_rst_page_titles(page: str, title: str | None) -> None:
    assert retrieval_module()._rst_title(page) == title


def test_pg_scale_smoke_stores_every_file_once(tmp_path: Path) -> None:
    pytest.importorskip("psycopg", reason="pg_scale.py needs the 'postgres' extra")
    pytest.importorskip("pgserver", reason="pg_scale.py needs the 'postgres' extra")
    result = run_smoke("pg_scale.py", tmp_path)
    markdown = [p for p in smoke_files("en", "zh", "code") if p.suffix == ".md"]
    assert result["corpus"]["files"] == len(markdown)
    assert set(result["postgres"]) == {"writers_1", "writers_2"}
    for run in result["postgres"].values():
        assert run["failures"] == [] and run["exactly_once"] is True
        assert run["documents"] == len(markdown) and run["server_cpu_s"] > 0
    for engine in ("latency_sqlite", "latency_postgres"):
        for name in ("structural", "toc", "get", "status"):
            assert result[engine][name]["p50_ms"] > 0, (engine, name)
    assert result["latency_sqlite"]["grep"]["p50_ms"] > 0  # every class runs on the file


# -- retrieval.py's passage vector cache: each text embedded once per machine -------------
VECTOR_CACHE_RUN = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import retrieval
from docql_sqlite.store.sqlite import db

tmp = Path(sys.argv[2])
retrieval.CACHE = tmp / "cache"
out = {}
for name in ("first", "again", "other"):
    folder = "a" if name != "other" else "b"  # "other": a second set with the same texts
    root = tmp / folder / "docs"
    root.mkdir(parents=True, exist_ok=True)
    for i in range(6):
        (root / f"n{i}.md").write_text(f"# Note {i}\n\nPassage number {i} about topic {i % 3}.\n")
    data = retrieval.Dataset(folder, root)
    model = retrieval.cached_model("hash")
    before = (model.hits, model.misses)
    db_path = retrieval.build_index(data, "hash")
    out[name] = {"hits": model.hits - before[0], "computed": model.misses - before[1]}
    conn = db.connect(db_path, readonly=True)
    db.load_vec(conn)
    out[name]["vectors"] = db.scalar(conn, "SELECT count(*) FROM chunks_vec")
    out[name]["chunks"] = db.scalar(conn, "SELECT count(*) FROM chunks")
    blobs = dict(conn.execute(
        "SELECT c.content, v.embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.id"
    ).fetchall())
    inner = model.inner.embed(list(blobs), kind="passage")
    out[name]["same_as_model"] = all(
        bytes(b) == v.tobytes() for b, v in zip(blobs.values(), inner)
    )
    conn.close()
print(json.dumps(out))
"""


def test_retrieval_vector_cache_embeds_each_text_once(tmp_path: Path) -> None:
    """A second run embeds nothing; a second set with the same texts is filled from the
    cache file; the vectors stored are the model's own."""
    done = subprocess.run(
        [sys.executable, "-c", VECTOR_CACHE_RUN, str(BENCH), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    first, again, other = out["first"], out["again"], out["other"]
    assert first["computed"] == first["chunks"] > 0 and first["hits"] == 0
    assert again["computed"] == 0  # nothing changed: embed had nothing to do
    assert other["computed"] == 0 and other["hits"] == other["chunks"] == first["chunks"]
    for run in out.values():
        assert run["vectors"] == run["chunks"] and run["same_as_model"]


# -- the scripts whose --smoke came with issue 12's last step ---------------------------------
def md_files(*parts: str) -> list[Path]:
    return [p for p in smoke_files(*parts) if p.suffix == ".md"]


@pytest.fixture(scope="module")
def ingest(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_smoke("ingest.py", tmp_path_factory.mktemp("ingest"))


def test_ingest_smoke_indexes_every_file(ingest: dict) -> None:
    expected = md_files("en", "zh", "code")  # the tree copied, --include '*.md'
    assert ingest["corpus"]["files"] == len(expected)
    assert ingest["corpus"]["bytes"] == sum(p.stat().st_size for p in expected)
    (run,) = ingest["runs"]
    assert run["documents"] == len(expected) and run["errors"] == 0
    assert run["rss_tree_mb"] >= run["rss_largest_mb"] > 0  # the tree includes the largest
    assert run["db_mb"] * 1e6 > ingest["corpus"]["bytes"]  # sections, chunks, FTS: never less
    shell = ingest["sqlite_shell"]
    if shell is not None:  # the sqlite3 shell peer on the same files
        assert "error" not in shell and shell["db_mb"] > 0


@pytest.fixture(scope="module")
def query_smoke(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_smoke("query.py", tmp_path_factory.mktemp("query"))


@pytest.fixture(scope="module")
def oracle_dbs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same trees query.py indexes, indexed here: direct SQL on them is the oracle."""
    import os
    import shutil

    import docql_sqlite

    tmp = tmp_path_factory.mktemp("query-oracle")
    for part in ("en", "zh", "code"):
        shutil.copytree(REPO / "datasets" / part, tmp / "smoke" / part)
    old = os.getcwd()
    os.chdir(tmp)
    try:
        docql_sqlite.index(tmp / "docs.db", ["smoke/en", "smoke/zh"], include=("*.md",))
        docql_sqlite.index(tmp / "code.db", ["smoke/code"])
    finally:
        os.chdir(old)
    return tmp / "docs.db", tmp / "code.db"


def test_query_smoke_counts_match_direct_sql(
    query_smoke: dict, oracle_dbs: tuple[Path, Path]
) -> None:
    import sqlite3

    docs_db, code_db = oracle_dbs
    docs, code = sqlite3.connect(docs_db), sqlite3.connect(code_db)

    def count(conn: sqlite3.Connection, sql: str) -> int:
        return conn.execute(sql).fetchone()[0]

    results = {
        t["query"]: t["results"] for c in query_smoke["classes"].values() for t in c["queries"]
    }
    level = {n: count(docs, f"SELECT count(*) FROM sections WHERE level = {n}") for n in (1, 2, 3)}
    assert results["$.toc[?(@.level==1)]"] == level[1] > 0
    assert results["$.toc[?(@.level<=2)][0:10]"] == min(10, level[1] + level[2])
    assert results["$.toc[?(@.level==3)][-5:]"] == min(5, level[3])
    starts = count(docs, "SELECT count(*) FROM sections WHERE title GLOB 'Ch*'")
    assert results['$.toc[?(@.title startsWith "Ch")]'] == starts > 0
    lifetime = count(docs, "SELECT count(*) FROM chunks WHERE content LIKE '%lifetime%'")
    assert results['$.content.grep("lifetime")'] == lifetime
    assert results['$.content.grep("xyzzy")'] == 0
    trait = count(code, "SELECT count(*) FROM symbols WHERE kind = 'trait'")
    assert results['$.code.classes[?(@.kind=="trait")]'] == trait > 0
    statuses = query_smoke["indexes"]
    assert statuses["bench-a6.db"]["documents"] == len(md_files("en", "zh"))
    assert statuses["bench-code.db"]["documents"] == len(smoke_files("code"))
    for row in query_smoke["peers"]:  # the shell runs the grep's inline SQL: the same rows
        if "sqlite3_rows" in row:
            assert row["sqlite3_rows"] == row["docql_chunks"], row


def test_code_extraction_smoke_matches_ast(tmp_path: Path) -> None:
    import ast

    result = run_smoke("code_extraction.py", tmp_path)
    python = [*smoke_files("code/python"), REPO / "datasets" / "bad" / "broken_syntax.py"]
    parsed = []
    for path in python:
        try:
            parsed.append(ast.parse(path.read_bytes()))
        except SyntaxError:
            pass
    assert result["files"] == len(python) and result["failures"] == []
    assert (
        result["compared"] == len(parsed)
        and result["rejected_by_ast"] == len(python) - len(parsed) == 1
    )
    defs = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    in_ast = sum(isinstance(n, defs) for tree in parsed for n in ast.walk(tree))
    # every definition ast sees is compared, and tree-sitter found the same ones
    assert result["differ"] == [] and result["end_line_mismatches"] == 0
    assert result["symbols"] >= in_ast > 0


def test_embed_throughput_smoke(tmp_path: Path) -> None:
    from docql_sqlite.embedders import get_model

    out = tmp_path / "embed.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / "embed_throughput.py"), "--smoke", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert "error" not in row and row["model"] == "hash"
    assert row["passages"] == row["distinct"] == 24  # duplicates would be de-duplicated
    assert row["dim"] == get_model("hash").embed(["x"]).shape[1]
    assert 450 <= row["avg_chars"] <= 500 and row["best_per_s"] >= row["median_per_s"] > 0


def test_pdf_extraction_smoke_pages_and_outline(tmp_path: Path) -> None:
    import io

    from pypdf import PdfReader

    sys.path.insert(0, str(REPO / "datasets"))
    sys.path.insert(0, str(BENCH))
    try:
        import make_binary_samples
        import pdf_extraction
    finally:
        sys.path.remove(str(REPO / "datasets"))
        sys.path.remove(str(BENCH))
    result = run_smoke("pdf_extraction.py", tmp_path)
    handbook, synthetic = result["pdfs"]
    make_binary_samples.make_handbook_pdf(str(tmp_path / "h.pdf"))
    assert (
        handbook["pages"] == handbook["parse_pdf_pages"] == len(PdfReader(tmp_path / "h.pdf").pages)
    )

    def titles(entries: list) -> list[str]:
        return [t for e in entries for t in [e[0], *titles(e[2] if len(e) > 2 else [])]]

    assert handbook["headings"] == titles(make_binary_samples.HANDBOOK_OUTLINE)
    pages = len(PdfReader(io.BytesIO(pdf_extraction.synthetic_pdf(5))).pages)
    assert synthetic["pages"] == synthetic["parse_pdf_pages"] == pages == 5
    assert len(synthetic["headings"]) == pages  # one outline entry per page
    for row in result["pdfs"]:
        assert row["pypdf_cpu_s"] > 0 and row["parse_pdf_cpu_s"] > 0


def test_search_latency_smoke(tmp_path: Path) -> None:
    rows = run_smoke("search_latency.py", tmp_path)
    corpus = rows[0]
    files = [p for p in smoke_files("en", "zh", "code") if p.suffix in (".md", ".py")]
    assert corpus["documents"] == len(files) and corpus["chunks"] > corpus["documents"]
    by_what = {r["what"]: r for r in rows}
    for mode in ("bm25", "smart", "vector", "hybrid"):  # hash vectors: every mode runs
        row = by_what[f"in-process {mode}"]
        # the queries are the index's own titles and passages: each finds something, and
        # where vectors take part a full page (datasets/ has hundreds of passages; bm25
        # finds only the passages that hold the words)
        assert row["queries"] == 6 and row["empty"] == 0, row
        assert row["short"] == 0 or mode == "bm25", row
    for mode in ("bm25", "smart", "hybrid"):
        row = by_what[f"CLI end to end {mode}"]
        assert row["queries"] == 2 and row["errors"] == 0 and row["empty"] == 0, row


def test_search_startup_smoke(tmp_path: Path) -> None:
    summary = run_smoke("search_startup.py", tmp_path)
    for case in ("search --mode bm25 | this", "search, no vectors | this"):
        row = summary[case]
        # 2 questions × 2 processes, each found passages and took some CPU
        assert row["processes"] == 4 and row["empty"] == 0, row
        assert row["wall_p50_ms"] > 0 and row["cpu_p50_ms"] > 0, row


def test_retrieval_smoke_metrics(tmp_path: Path) -> None:
    rows = run_smoke("retrieval.py", tmp_path)
    files = md_files("en", "zh")
    assert [r["system"] for r in rows] == ["bm25", "vector", "hybrid", "smart"]
    texts = {p: p.read_text("utf-8").lower() for p in files}
    for row in rows:
        assert row["queries"] == len(files) == len(row["per_query"])
        for metric in ("nDCG@10", "Recall@10", "MRR@10"):
            values = [q[metric] for q in row["per_query"].values()]
            assert all(0.0 <= v <= 1.0 for v in values), (row["system"], metric)
            assert row[metric] == round(sum(values) / len(values), 4)  # the mean of the queries
    # A query whose text is in one file only (a brute-force scan): bm25 ranks that file first.
    bm25 = rows[0]["per_query"]
    known = 0
    for path in files:
        first = next(
            line.lstrip("#").strip()
            for line in path.read_text("utf-8").splitlines()
            if line.startswith("#") and line.lstrip("#").startswith(" ")
        )
        if sum(first.lower() in text for text in texts.values()) == 1:
            rel = path.relative_to(REPO / "datasets").as_posix()
            assert bm25[f"smoke:smoke/{rel}"]["MRR@10"] == 1.0, rel
            known += 1
    assert known >= 5


def test_retrieval_smoke_as_the_server_searches(tmp_path: Path) -> None:
    """`--server` opens the index as the MCP server does (vectors held in memory): with
    the hash model every query scores what the plain run scores (the in-memory nearest
    search gives vec0's answer)."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "server").mkdir()
    plain = run_smoke("retrieval.py", tmp_path / "plain")
    server = run_smoke("retrieval.py", tmp_path / "server", "--server")
    assert [r["system"] for r in server] == [r["system"] for r in plain]
    for a, b in zip(plain, server, strict=True):
        assert a["per_query"] == b["per_query"], a["system"]


def test_load_smoke_no_errors(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import load
    finally:
        sys.path.remove(str(BENCH))
    figures = run_smoke("load.py", tmp_path)
    assert figures["readers"] == 2 and figures["errors"] == 0
    assert figures["index_runs"] >= 1 and figures["index_failures"] == []
    assert set(figures["latency_ms"]) == {name for name, _, _ in load.MIX}
    ops = sum(stat["n"] for stat in figures["latency_ms"].values())
    assert figures["operations"] == ops > len(load.MIX)  # every kind ran, none failed


def test_pg_documents_smoke_same_rows(tmp_path: Path) -> None:
    result = run_smoke("pg_documents.py", tmp_path)
    if "skipped" in result:
        pytest.skip(result["skipped"])
    names = {p.relative_to(REPO / "datasets").as_posix() for p in smoke_files("en", "zh", "code")}
    found = 0
    for q in result["questions"]:
        paths = q["paths"]
        assert q["identical"] and paths["sqlite"] == paths["postgres"], q["question"]
        assert len(paths["sqlite"]) == q["rows"] == len(set(paths["sqlite"]))  # one per document
        assert all(p.split("/tree/", 1)[1] in names for p in paths["sqlite"])
        found += q["rows"]
    by_question = {q["question"]: q["rows"] for q in result["questions"]}
    assert by_question["xyzzy plugh"] == 0 and found > 0
    assert result["chunks"] > 0


def test_refs_phases_smoke_times_each_phase_of_a_run_with_references(tmp_path: Path) -> None:
    """benchmarks/refs_phases.py: the phases of a run with references are timed (C6)."""
    result = run_smoke("refs_phases.py", tmp_path)
    assert result["mode"] == "with references" and result["db_bytes"] > 0
    assert {"extract_references", "pass", "query cursor"} <= set(result["phases_cpu_s"])


def test_refs_oracle_smoke_agrees_with_jedi(tmp_path: Path) -> None:
    """benchmarks/refs_oracle.py on datasets/code/python: every call docql links and Jedi
    answers agrees with Jedi's `goto` (C7), and of the calls Jedi links docql leaves only
    the two on `c = self.cursor` (an alias of an attribute) undecided; `self.cursor =
    DocQLLexer.Cursor(…)`, a nested class, types the seven others."""
    pytest.importorskip("jedi", reason="the oracle of refs_oracle.py (the test group)")
    result = run_smoke("refs_oracle.py", tmp_path)
    assert result["precision"] == 1.0, result["samples"]
    assert result["counts"]["link agree"] >= 44 and result["missed"] == 2, result


def test_row_cost_smoke(tmp_path: Path) -> None:
    """The writer replayed from a dump and the work after the parse, on datasets/en + zh:
    every Markdown file of the two trees parsed, dumped and written."""
    figures = run_smoke("row_cost.py", tmp_path)
    assert figures["files"] == len([p for p in smoke_files("en", "zh") if p.suffix == ".md"])
    # (post: a difference of two CPU timings, which noise can make ~0 on 13 files)
    assert figures["store_cpu_s"] > 0 and isinstance(figures["post_cpu_s"], float)


def test_name_lookup_smoke_asks_for_every_class_defined_once(tmp_path: Path) -> None:
    """benchmarks/name_lookup.py on datasets/code: the classes it asks for are the class
    names defined once there (a brute-force scan of the files), and the known items are
    found (DocQLLexer first)."""
    import re

    rows = {r["kind"]: r for r in run_smoke("name_lookup.py", tmp_path)}  # type: ignore[attr-defined]
    classes = rows["class"]
    python = [p for p in smoke_files("code") if p.suffix == ".py" and "test" not in p.name]
    defined = [
        m.group(1)
        for p in python
        for m in re.finditer(r"^class (\w+)", p.read_text(encoding="utf-8"), re.M)
    ]
    everything = "\n".join(p.read_text(encoding="utf-8") for p in smoke_files("code"))

    def declared(name: str) -> int:  # in any language of the tree
        kinds = r"(?:class|struct|interface|enum|trait|type|record)"
        return len(re.findall(rf"\b{kinds}\s+{name}\b", everything))

    once = {name for name in defined if len(name) >= 3 and declared(name) == 1}
    assert once and once <= set(classes["names"])  # every language's classes, Python's too
    assert "DocQLLexer" in classes["names"] and "DocQLLexer" not in classes["missed"]
    for row in rows.values():
        assert row["queries"] == len(row["names"]) > 0
        assert 0 <= row["p@1"] <= row["mrr@10"] <= 1


RUST_SOURCE = """impl<T> Vec<T> {
    /// Removes the last element from a vector and returns it, or [`None`] if it
    /// is empty.
    ///
    /// # Examples
    #[inline]
    #[stable(feature = "rust1", since = "1.0.0")]
    pub fn pop(&mut self) -> Option<T> {
        None
    }

    // not a doc comment
    pub fn len(&self) -> usize {
        0
    }
}
"""


def test_rust_doc_items_and_their_masked_sentence() -> None:
    retrieval = retrieval_module()
    items = retrieval.rust_doc_items(RUST_SOURCE)
    assert [(first, decl, name) for first, decl, name, _ in items] == [(2, 8, "pop")]
    assert retrieval.rust_mask("pop", items[0][3]) == (
        "Removes the last element from a vector and returns it, or if it is empty."
    )


def test_header_relevance_counts_only_a_hit_holding_the_header() -> None:
    """`--header`: the item of a doc comment → item query is its header line (the span's
    last), so a comment-only passage above it is no longer the item."""
    retrieval = retrieval_module()
    data = retrieval.Dataset("rust", Path("."), granularity="span")
    data.queries.append(retrieval.Query("rust000", "removes the last", {"v/vec.rs:2-8": 1.0}))
    retrieval.header_relevance(data)
    key = next(iter(data.queries[0].relevant))
    comment_only = {"path": "v/vec.rs", "line": 1, "end_line": 7}
    with_header = {"path": "v/vec.rs", "line": 2, "end_line": 11}
    assert key == "v/vec.rs:8-8"
    assert not retrieval._overlaps(comment_only, key) and retrieval._overlaps(with_header, key)


def test_node_method_items_take_the_sentence_after_the_parameters() -> None:
    api = {
        "modules": [
            {
                "textRaw": "Events",
                "classes": [
                    {
                        "textRaw": "Class: `EventEmitter`",
                        "methods": [
                            {
                                "textRaw": "`emitter.on(eventName, listener)`",
                                "desc": "<ul>\n<li><code>eventName</code> {string}</li>\n"
                                "</ul>\n<blockquote><p>Stability: 2</p></blockquote>\n"
                                "<p>Adds the <code>listener</code> function to the end of "
                                "the listeners array &amp; more. Returns a reference.</p>",
                            }
                        ],
                    }
                ],
            }
        ]
    }
    assert retrieval_module().node_method_items(api) == [
        (
            "`emitter.on(eventName, listener)`",
            "on",
            "Adds the listener function to the end of the listeners array & more.",
        )
    ]


NODE_HELP = """Usage: node [options] [ script.js ] [arguments]

Options:
  -                           script read from stdin (default if no
                              file name is provided, interactive mode
                              if a tty)
  --abort-on-uncaught-exception
                              aborting instead of exiting causes a
                              core file to be generated for analysis
  -c, --check                 syntax check script without executing
  --cpu-prof-dir=...          Directory where the V8 profiles generated
                              by --cpu-prof will be placed.

Environment variables:
"""


def test_node_help_options_join_their_wrapped_lines() -> None:
    assert retrieval_module().node_help_options(NODE_HELP) == [
        (
            ["-"],
            "script read from stdin (default if no file name is provided, interactive "
            "mode if a tty)",
        ),
        (
            ["--abort-on-uncaught-exception"],
            "aborting instead of exiting causes a core file to be generated for analysis",
        ),
        (["-c", "--check"], "syntax check script without executing"),
        (
            ["--cpu-prof-dir"],
            "Directory where the V8 profiles generated by --cpu-prof will be placed.",
        ),
    ]
