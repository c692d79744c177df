#!/usr/bin/env python3
"""PostgreSQL scale-out figures: index throughput with 1, 2 and 4 concurrent writers into
one PostgreSQL database against the SQLite single writer, and query latency per class on
both engines (docs/scale-out.md publishes the result).

    python benchmarks/pg_scale.py                       # Node.js + Docker Markdown (~5 MB)
    python benchmarks/pg_scale.py --corpora md_node,md_docker,md_rustdoc --writers 1,2,4
    python benchmarks/pg_scale.py --smoke               # a tiny tree from datasets/, seconds

The server is a pgserver (PostgreSQL 16 + pgvector) in a temporary directory, on a Unix
socket, with `synchronous_commit = off` (a commit does not wait for its WAL flush; still
crash-safe, the last few milliseconds may be lost); fsync stays on. SQLite runs as the
CLI always does (WAL, one writer).

Writers: the Markdown files are dealt round-robin (largest first) into N shares, and N
`docql-sqlite index URL FILES...` processes start at once, each parsing in one worker
process (`--workers 1`); the SQLite baseline is one `docql-sqlite index DB FILES...` with
`--workers 1` and with the default (2 on this machine). Figures per run: wall seconds,
files/s, MB/s, CPU seconds of the writers (their parsers included) and of the PostgreSQL
server processes, the load average before and after (the machine is shared: CPU time is
the steadier figure). Each PostgreSQL run is checked: every file exactly once.

Latency: in-process `Index` calls on the SQLite file and on the PostgreSQL database of
the same files (the 1-writer one), p50/p95 in milliseconds over --runs runs of each query
after a warm-up, per class: structural DocQL, outline (`toc`), excerpt (`get`), status,
and the content functions (`heading`, `chapter`, `grep`) and search, which are reported
as not available when the PostgreSQL dialect or search does not have them yet.

Goals (issue 13): more writers index faster on PostgreSQL (2 writers > 1 writer in
files/s, CPU permitting); every file stored exactly once under concurrency; structural
queries on PostgreSQL within the same order of magnitude as on the file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib as bl  # noqa: E402

DEFAULT_CORPORA = "md_node,md_docker"
QUERIES: dict[str, list[Any]] = {
    "structural": [
        "$.toc[?(@.level==1)][0:20]",
        '$.toc[?(@.title~="install")][0:20]',
        '$.files[?(@.name=="fs.md")].toc[?(@.level==2)]',
        "$.files[0:50]",
    ],
    "heading": ['$.content.heading("installation")', '$.content.heading("xyzzy")'],
    "chapter": ['$.content.chapter("#installation")'],
    "grep": ['$.content.grep("EADDRINUSE")', '$.content.grep("xyzzy")'],
}
SEARCHES = ["install a plugin", "buffer allocation"]


def _server(root: Path) -> Any:
    import pgserver
    import psycopg

    server = pgserver.get_server(root, cleanup_mode="stop")
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET synchronous_commit = off")
        conn.execute("SELECT pg_reload_conf()")
    return server


def _database(server: Any, name: str) -> str:
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'")
    return str(server.get_uri(name))


def _shares(files: list[bl.CorpusFile], n: int) -> list[list[str]]:
    shares: list[list[str]] = [[] for _ in range(n)]
    sizes = [0] * n
    for f in sorted(files, key=lambda f: -f.size):
        i = sizes.index(min(sizes))
        shares[i].append(str(f.path))
        sizes[i] += f.size
    return shares


def _run_writers(target: str, shares: list[list[str]], workers: str, cwd: Path) -> dict[str, Any]:
    import resource
    import subprocess

    def children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    load_before = os.getloadavg()
    cpu = children_cpu()
    started = time.perf_counter()
    procs = [
        subprocess.Popen(
            [*bl.docql_cli(), "index", target, *share, "--workers", workers, "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )
        for share in shares
    ]
    failures = []
    for proc in procs:
        _, err = proc.communicate()
        if proc.returncode != 0:
            failures.append(err.strip().splitlines()[-1:] if err.strip() else ["exit"])
    seconds = time.perf_counter() - started
    return {
        "seconds": round(seconds, 2),
        "writer_cpu_s": round(children_cpu() - cpu, 2),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "failures": failures,
    }


def _latency(index: Any, runs: int) -> dict[str, Any]:
    first = index.documents()[0]["path"]
    calls: dict[str, list[Any]] = {
        name: [lambda q=q: index.query(q) for q in queries] for name, queries in QUERIES.items()
    }
    calls["toc"] = [lambda: index.toc(first), lambda: index.toc()]
    calls["get"] = [lambda: index.get(first + ":1-40")]
    calls["status"] = [index.status]
    calls["search_bm25"] = [lambda t=t: index.search(t, mode="bm25") for t in SEARCHES]
    result: dict[str, Any] = {}
    for name, fns in calls.items():
        samples = []
        try:
            for fn in fns:
                fn()  # warm-up
                for _ in range(runs):
                    started = time.perf_counter()
                    fn()
                    samples.append((time.perf_counter() - started) * 1000)
        except Exception as exc:  # noqa: BLE001 - a class the engine lacks is a figure too
            result[name] = {"not_available": f"{type(exc).__name__}: {exc}"[:160]}
            continue
        result[name] = {
            "p50_ms": round(bl.pct(samples, 50), 2),
            "p95_ms": round(bl.pct(samples, 95), 2),
            "n": len(samples),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpora", default=DEFAULT_CORPORA, help="comma-separated names")
    parser.add_argument("--writers", default="1,2,4", help="concurrent writer counts")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per query")
    parser.add_argument("--smoke", action="store_true", help="tiny tree from datasets/, seconds")
    parser.add_argument("--json", dest="json_out", type=Path, default=None)
    args = parser.parse_args()
    import docql_sqlite

    work = Path(tempfile.mkdtemp(prefix="docql-pgscale-"))
    if args.smoke:
        roots = [bl.smoke_tree(work / "tree")]
        writer_counts, runs, sqlite_workers = [1, 2], 2, ("1",)
    else:
        roots = bl.corpus_roots(bl.manifest(fetch=False), *args.corpora.split(","))
        writer_counts, runs = [int(n) for n in args.writers.split(",")], args.runs
        sqlite_workers = ("1", "2")
    files = bl.indexable_files(roots, ("*.md",))
    total_bytes = sum(f.size for f in files)
    out: dict[str, Any] = {
        "machine": bl.machine(),
        "corpus": {"roots": [str(r) for r in roots], "files": len(files), "bytes": total_bytes},
        "sqlite": {},
        "postgres": {},
    }

    def rates(run: dict[str, Any]) -> dict[str, Any]:
        return dict(
            run,
            files_per_s=round(len(files) / run["seconds"], 1),
            mb_per_s=round(total_bytes / 1e6 / run["seconds"], 2),
        )

    db = work / "single.db"
    for workers in sqlite_workers:
        bl.remove_db(db)
        out["sqlite"][f"workers_{workers}"] = rates(
            _run_writers(str(db), _shares(files, 1), workers, work)
        )
    server = _server(work / "pg")
    try:
        urls = {}
        for n in writer_counts:
            url = urls[n] = _database(server, f"docql_w{n}")
            cpu = bl.server_cpu(server)
            run = rates(_run_writers(url, _shares(files, n), "1", work))
            run["server_cpu_s"] = round(bl.server_cpu(server) - cpu, 2)
            with docql_sqlite.open(url) as index:
                stored = index.status()["documents"]
                unique = len({d["path"] for d in index.documents()})
            run["documents"], run["exactly_once"] = stored, stored == unique == len(files)
            out["postgres"][f"writers_{n}"] = run
        with docql_sqlite.open(db) as file_index:
            out["latency_sqlite"] = _latency(file_index, runs)
        with docql_sqlite.open(urls[writer_counts[0]]) as pg_index:
            out["latency_postgres"] = _latency(pg_index, runs)
    finally:
        server.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    bl.write_json(args.json_out, out)
    _print(out)


def _print(out: dict[str, Any]) -> None:
    corpus = out["corpus"]
    print(f"corpus: {corpus['files']} Markdown files, {corpus['bytes'] / 1e6:.1f} MB")
    rows = []
    for engine in ("sqlite", "postgres"):
        for name, run in out[engine].items():
            rows.append(
                [
                    engine,
                    name,
                    run["seconds"],
                    run["files_per_s"],
                    run["mb_per_s"],
                    run["writer_cpu_s"],
                    run.get("server_cpu_s", "-"),
                    f"{run['load_before'][0]}→{run['load_after'][0]}",
                    {True: "yes", False: "NO"}.get(run.get("exactly_once"), "-"),
                ]
            )
    headers = ["engine", "run", "s", "files/s", "MB/s", "writer CPU s", "server CPU s"]
    print(bl.table([*headers, "load 1m", "once"], rows))
    lat = []
    for name in out["latency_sqlite"]:
        a, b = out["latency_sqlite"][name], out["latency_postgres"][name]
        lat.append(
            [
                name,
                a.get("p50_ms", "n/a"),
                a.get("p95_ms", "n/a"),
                b.get("p50_ms", "n/a"),
                b.get("p95_ms", "n/a"),
            ]
        )
    print(bl.table(["class", "SQLite p50", "p95", "PostgreSQL p50", "p95"], lat))


if __name__ == "__main__":
    main()
