#!/usr/bin/env python3
"""DocQL query latency by query class, in-process, on a large real corpus.

    # fetch (cached) corpora, build indexes once, measure
    python benchmarks/query.py
    python benchmarks/query.py --runs 50 --json out.json
    # re-index; print the query plans of heading/grep
    python benchmarks/query.py --rebuild --explain
    # a tiny tree from datasets/, 1 run per query, seconds (tests/test_benchmarks_smoke.py)
    python benchmarks/query.py --smoke --json out.json

Corpora (benchmarks/fetch_corpora.sh, kept in its cache folder, outside the repo):
- documents: the A6 mix of notes/corpora.md, Node.js API + Docker + Rust book docs,
  ~1,500 Markdown files, ~10.8 MB → `bench-a6.db`;
- code: the Rust standard library's `alloc` crate from the same rust-src package
  (76 files, 1.7 MB, ~2,600 symbols) → `bench-code.db`, for `$.code.*` (the A6 mix has no code).

Classes and goals (p50 over every run of every query of the class):
- structural: `$.toc[...]`, `$.code.classes[...]`, `chapter()` — p50 ≤ 5 ms;
- `heading()` and `grep()` — p50 ≤ 20 ms.
Each query is timed through `Index.query()` (compile + SQLite + building the result
items), after two warm-up runs; the SQL-only time (apsw fetchall) is shown beside it.

Peers for literal grep, as processes (start-up included): ripgrep (`rg -i -F -c`, from
PATH or the cache's unpacked ripgrep .deb), the sqlite3 shell running the `--inline` SQL
of the same grep, and the `docql-sqlite query` CLI. They answer slightly different
questions (rg: matching lines per file; DocQL: matching chunks), so their hit counts are
shown too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

sys.path.insert(0, str(REPO / "benchmarks"))

import benchlib  # noqa: E402

import docql_sqlite  # noqa: E402
from docql_sqlite.ingest import IngestOptions, index_paths  # noqa: E402

# Same rule as benchmarks/fetch_corpora.sh and benchlib.cache_dir().
CACHE = Path(
    os.environ.get("DOCQL_CORPORA")
    or ("/work/cache/corpora" if Path("/work/cache").is_dir() else "")
    or Path.home() / ".cache" / "docql-corpora"
)
GOALS_MS = {"toc": 5.0, "code.classes": 5.0, "chapter": 5.0, "heading": 20.0, "grep": 20.0}

DOC_QUERIES: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "toc": [
        ("$.toc[?(@.level==1)]", ()),
        ('$.toc[?(@.title~="install")]', ()),
        ("$.toc[?(@.level<=2)][0:10]", ()),
        ('$.toc[?(@.title startsWith "Ch")]', ()),
        ("$.toc[?(@.title =~ /MCP|TLS/i)]", ()),
        ("$.toc[?(@.level==3)][-5:]", ()),
        ('$.files[?(@.name=="fs.md")].toc[?(@.level==2)]', ()),
    ],
    "chapter": [
        ('$.content.chapter("#installation")', ()),
        ('$.content.chapter("1.2")', ("*/nodejs/api/*",)),
        ('$.content.chapter("3")', ("*/src/doc/book/src/*",)),
        ('$.files[?(@.name=="fs.md")].content.chapter("1.1")', ()),
        ('$.content.chapter("1.2")', ()),  # every document's 1.2, with its text: a bulk read
    ],
    "heading": [
        ('$.content.heading("install")', ()),
        ('$.content.heading("lifetime")', ()),
        ('$.content.heading("Buffer")', ()),
        ('$.content.heading("ownership")', ()),
        ('$.content.heading("xyzzy")', ()),  # no title: the body fallback scans every chunk
        ('$.content.heading("生命周期")', ()),
    ],
    "grep": [
        ('$.content.grep("lifetime")', ()),
        ('$.content.grep("EADDRINUSE")', ()),
        ('$.content.grep("docker run")', ()),
        ('$.content.grep("xyzzy")', ()),
        ('$.content.grep("生命周期")', ()),
        ("$.content.grep(/fn\\s+main/)", ()),
    ],
}
CODE_QUERIES: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "code.classes": [
        ("$.code.classes", ()),
        ('$.code.classes[?(@.name~="Vec")]', ()),
        ('$.code.classes[?(@.kind=="trait")]', ()),
        ('$.code.functions[?(@.name startsWith "push")]', ()),
        ('$.code.class("Vec")', ()),
    ],
}
PEER_KEYWORDS = ["lifetime", "EADDRINUSE", "docker run", "xyzzy"]


# -- corpora and indexes -----------------------------------------------------------------------
def corpus_dirs() -> tuple[list[Path], Path]:
    """The A6 document folders and the Rust alloc source folder (fetched on first use)."""
    script = REPO / "benchmarks" / "fetch_corpora.sh"
    done = subprocess.run(
        ["bash", str(script), str(CACHE)], capture_output=True, text=True, check=True
    )
    docs = [Path(line) for line in done.stdout.split() if line]
    rust_doc = next(d for d in docs if d.name == "doc" and "rust-src" in str(d))
    code = rust_doc.parent.parent / "library" / "alloc" / "src"
    if not code.is_dir():
        raise SystemExit(f"expected the Rust alloc sources at {code}")
    return docs, code


def ensure_index(
    db: Path, roots: list[Path], include: tuple[str, ...], rebuild: bool
) -> dict[str, Any]:
    if rebuild:
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    if not db.exists():
        started = time.perf_counter()
        old = os.getcwd()
        os.chdir(CACHE)  # stored paths relative to the cache: x/nodejs-doc/...
        try:
            report = index_paths(
                db, [str(r.relative_to(CACHE)) for r in roots], IngestOptions(include=include)
            )
        finally:
            os.chdir(old)
        print(
            f"indexed {db.name}: {len(report.added)} files in {time.perf_counter() - started:.1f} "
            f"s",
            file=sys.stderr,
        )
    with docql_sqlite.open(db) as index:
        return index.status()


# -- timing -------------------------------------------------------------------------------------
def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def time_query(index: Any, query: str, globs: tuple[str, ...], runs: int) -> dict[str, Any]:
    compiled = index.compile(query, paths=globs)
    for _ in range(2):
        items = index.query(query, path=list(globs) or None)
    api, sql = [], []
    for _ in range(runs):
        started = time.perf_counter()
        items = index.query(query, path=list(globs) or None)
        api.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        index.conn.execute(compiled.sql, compiled.params).fetchall()
        sql.append((time.perf_counter() - started) * 1000)
    return {
        "query": query,
        "path": list(globs),
        "results": len(items),
        "samples_ms": api,
        "p50_ms": statistics.median(api),
        "p95_ms": pct(api, 95),
        "sql_p50_ms": statistics.median(sql),
    }


def run_classes(
    db: Path, classes: dict[str, list[tuple[str, tuple[str, ...]]]], runs: int
) -> dict[str, Any]:
    out = {}
    with docql_sqlite.open(db) as index:
        for name, queries in classes.items():
            timings = [time_query(index, q, g, runs) for q, g in queries]
            samples = [s for t in timings for s in t["samples_ms"]]
            out[name] = {
                "p50_ms": statistics.median(samples),
                "p95_ms": pct(samples, 95),
                "goal_p50_ms": GOALS_MS[name],
                "queries": timings,
            }
    return out


def process_time(command: list[str], runs: int, stdin: str | None = None) -> tuple[float, str]:
    times, output = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(command, input=stdin, capture_output=True, text=True)
        times.append((time.perf_counter() - started) * 1000)
        output = done.stdout
    return statistics.median(times), output


def ripgrep() -> str | None:
    found = shutil.which("rg")
    if found:
        return found
    cached = CACHE / "x" / "ripgrep" / "usr" / "bin" / "rg"
    return str(cached) if cached.exists() else None


def peers(db: Path, docs: list[Path], runs: int) -> list[dict[str, Any]]:
    rows = []
    rg = ripgrep()
    sqlite3 = shutil.which("sqlite3")
    cli = REPO / ".venv" / "bin" / "docql-sqlite"
    with docql_sqlite.open(db) as index:
        for kw in PEER_KEYWORDS:
            query = "$.content.grep(" + json.dumps(kw) + ")"
            row: dict[str, Any] = {"keyword": kw, "docql_chunks": len(index.query(query))}
            if rg:
                ms, out = process_time(
                    [rg, "-i", "-F", "-c", "--no-messages", "-g", "*.md", kw, *map(str, docs)], runs
                )
                row["rg_ms"], row["rg_lines"] = (
                    ms,
                    sum(int(line.rsplit(":", 1)[1]) for line in out.split() if ":" in line),
                )
            if sqlite3:
                sql = index.compile(query).inline_sql() + ";\n"
                ms, out = process_time([sqlite3, "-readonly", "-json", str(db)], runs, stdin=sql)
                row["sqlite3_shell_ms"], row["sqlite3_rows"] = ms, len(json.loads(out or "[]"))
            if cli.exists():
                row["cli_ms"], _ = process_time(
                    [str(cli), "query", str(db), query, "--json"], max(3, runs // 2)
                )
            rows.append(row)
    return rows


def explain(db: Path) -> None:
    with docql_sqlite.open(db) as index:
        for query in [
            '$.content.grep("lifetime")',
            '$.content.heading("xyzzy")',
            '$.content.heading("install")',
        ]:
            print(f"\nEXPLAIN QUERY PLAN {query}")
            for step in index.explain(query)["plan"]:
                print(f"  {step['detail']}")


# -- report -------------------------------------------------------------------------------------
def report(
    results: dict[str, Any], peer_rows: list[dict[str, Any]], statuses: dict[str, Any]
) -> None:
    for name, status in statuses.items():
        print(
            f"{name}: {status['documents']} documents, {status['sections']} sections, "
            f"{status['chunks']} chunks, "
            f"{status['symbols']} symbols, {status['size_bytes'] / 1e6:.1f} MB"
        )
    print(f"\n{'class':<14} {'p50 ms':>8} {'p95 ms':>8} {'goal p50':>9}  verdict")
    for name, data in results.items():
        verdict = "ok" if data["p50_ms"] <= data["goal_p50_ms"] else "MISSED"
        print(
            f"{name:<14} {data['p50_ms']:8.2f} {data['p95_ms']:8.2f} {data['goal_p50_ms']:9.1f}  "
            f"{verdict}"
        )
    print(f"\n{'p50 ms':>8} {'p95 ms':>8} {'sql p50':>8} {'results':>8}  query")
    for name, data in results.items():
        for t in data["queries"]:
            where = f"  --path {' '.join(t['path'])}" if t["path"] else ""
            print(
                f"{t['p50_ms']:8.2f} {t['p95_ms']:8.2f} {t['sql_p50_ms']:8.2f} {t['results']:8d}  "
                f"{t['query']}{where}"
            )
    if peer_rows:
        print(
            "\nliteral grep as processes (p50 ms, start-up included; hits: DocQL chunks / rg "
            "lines / shell rows)"
        )
        for row in peer_rows:
            print(
                f"  {row['keyword']!r:14} docql CLI {row.get('cli_ms', float('nan')):7.1f}  "
                f"sqlite3 shell {row.get('sqlite3_shell_ms', float('nan')):7.1f}  rg "
                f"{row.get('rg_ms', float('nan')):7.1f}"
                f"   hits {row['docql_chunks']} / {row.get('rg_lines', '-')} / "
                f"{row.get('sqlite3_rows', '-')}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs", type=int, default=30, help="timed runs per query (after 2 warm-ups)"
    )
    parser.add_argument("--peer-runs", type=int, default=10, help="runs per peer process")
    parser.add_argument("--rebuild", action="store_true", help="re-index the corpora")
    parser.add_argument(
        "--explain", action="store_true", help="print the query plans of grep and heading"
    )
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--smoke", action="store_true", help="tiny tree from datasets/, 1 run")
    args = parser.parse_args()
    if args.smoke:  # tests/test_benchmarks_smoke.py: datasets/ in a temporary cache, seconds
        smoke_dir = tempfile.TemporaryDirectory(prefix="docql-query-smoke-")
        globals()["CACHE"] = Path(smoke_dir.name)  # the indexes and stored paths go there
        tree = benchlib.smoke_tree(CACHE / "smoke")
        args.runs, args.peer_runs, args.rebuild = 1, 1, True

    docs, code = ([tree / "en", tree / "zh"], tree / "code") if args.smoke else corpus_dirs()
    doc_db, code_db = CACHE / "bench-a6.db", CACHE / "bench-code.db"
    statuses = {
        doc_db.name: ensure_index(doc_db, docs, ("*.md",), args.rebuild),
        code_db.name: ensure_index(code_db, [code], (), args.rebuild),
    }
    results = run_classes(doc_db, {k: DOC_QUERIES[k] for k in ("toc",)}, args.runs)
    results.update(run_classes(code_db, CODE_QUERIES, args.runs))
    results.update(
        run_classes(doc_db, {k: DOC_QUERIES[k] for k in ("chapter", "heading", "grep")}, args.runs)
    )
    peer_rows = [] if args.no_peers else peers(doc_db, docs, args.peer_runs)
    report(results, peer_rows, statuses)
    if args.explain:
        explain(doc_db)
    if args.json:
        for data in results.values():
            for t in data["queries"]:
                t.pop("samples_ms")
        Path(args.json).write_text(
            json.dumps({"classes": results, "peers": peer_rows, "indexes": statuses}, indent=2)
        )
    if args.smoke:
        print("(--smoke: a harness check on a tiny tree; its timings and verdicts mean nothing)")


if __name__ == "__main__":
    main()
