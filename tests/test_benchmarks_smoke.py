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

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"
SCRIPTS = ["peers.py", "latency.py", "scale.py", "pg_scale.py"]


def run_smoke(script: str, tmp: Path) -> dict:
    out = tmp / f"{script}.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--smoke", "--json", str(out)],
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


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "--smoke" in done.stdout and "Goals" in done.stdout


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
    assert qmd["db_mb"] > 0 and qmd["rss_mb"] > 0


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
    assert search["qmd_p50_ms"] > 0 and search["docql_p50_ms"] > 0


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


def test_r_faq_entries() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import retrieval
    finally:
        sys.path.remove(str(BENCH))
    entries = retrieval.r_faq_entries(R_FAQ_PAGE)
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
from docql_sqlite import db

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
