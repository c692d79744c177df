"""Load test: N reader processes with a DocQL + search mix while the index is rewritten.

    python benchmarks/load.py CORPUS_DIR... [--readers 4] [--seconds 30] [--db /tmp/load.db]
    python benchmarks/load.py /work/cache/rq/nodejs-doc/usr/share/doc/nodejs/api --readers 4
    python benchmarks/load.py --smoke --json OUT  # datasets/, 2 readers, 3 s (a harness check)

The corpus is indexed once; then `docql-sqlite index DB CORPUS --chunk-chars N` runs with
a new chunk size (so every document is rewritten) while each reader process loops over a
fixed mix for the given time: five DocQL queries (outline, headings, chapter, regex title
filter, grep) and three searches (bm25, smart, `$.content.search`). Each operation opens
its own `docql_sqlite.open()` now and then, as short-lived clients do. The writer is
restarted with the other chunk size whenever it finishes, so readers always compete with
a writer. Reported: operations, errors (goal 0, each printed), operations per second, and
latency percentiles per operation kind; `--json` prints the figures as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "docql-sqlite"

MIX: list[tuple[str, str, Any]] = [
    ("docql outline", "query", "$.toc[?(@.level <= 2)]"),
    ("docql heading", "query", '$.content.heading("options")'),
    ("docql chapter", "query", '$.content.chapter("1.2")'),
    ("docql regex", "query", "$.toc[?(@.title =~ /^(fs|http)\\./i)].title"),
    ("docql grep", "query", '$.content.grep("timeout")'),
    ("search bm25", "bm25", "read a file stream"),
    ("search smart", "smart", "how do I close a socket"),
    ("docql search", "query", '$.content.search("event loop")'),
]
REOPEN_EVERY = 20  # operations per connection before a reader opens a new one


def reader(db: str, seconds: float, seed: int, out: Any) -> None:
    import docql_sqlite

    stop = time.monotonic() + seconds
    latencies: dict[str, list[float]] = {name: [] for name, _, _ in MIX}
    errors: list[str] = []
    index, done = None, 0
    while time.monotonic() < stop:
        name, kind, text = MIX[(seed + done) % len(MIX)]
        started = time.monotonic()
        try:
            if index is None or done % REOPEN_EVERY == 0:
                if index is not None:
                    index.close()
                index = docql_sqlite.open(db)
            if kind == "query":
                index.query(text, limit=50)
            else:
                index.search(text, mode=kind, limit=10)
            latencies[name].append(time.monotonic() - started)
        except Exception as exc:  # noqa: BLE001 - every failure is a finding
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
        done += 1
    if index is not None:
        index.close()
    out.put({"latencies": latencies, "errors": errors})


def writer_loop(db: str, corpus: list[str], stop_at: float) -> tuple[int, list[str]]:
    """Re-index with alternating chunk sizes until `stop_at`; (runs finished, failures)."""
    runs, failures, sizes = 0, [], ["900", "1500"]
    while time.monotonic() < stop_at:
        proc = subprocess.run(
            [str(CLI), "index", db, *corpus, "--chunk-chars", sizes[runs % 2]],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            failures.append(proc.stderr.strip()[-300:])
        runs += 1
    return runs, failures


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="*", help="corpus folders (required but with --smoke)")
    parser.add_argument("--db", default="/tmp/docql-load.db")
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--json", nargs="?", const="-", metavar="OUT", help="the figures as JSON (to OUT or stdout)"
    )
    parser.add_argument("--smoke", action="store_true", help="datasets/, 2 readers, 3 s")
    args = parser.parse_args()
    if args.smoke:  # tests/test_benchmarks_smoke.py: the harness end to end, in seconds
        import tempfile

        sys.path.insert(0, str(REPO / "benchmarks"))
        import benchlib

        smoke_dir = tempfile.TemporaryDirectory(prefix="docql-load-smoke-")
        args.corpus = [str(benchlib.smoke_tree(Path(smoke_dir.name) / "tree"))]
        args.db, args.readers, args.seconds = str(Path(smoke_dir.name) / "load.db"), 2, 3.0
    elif not args.corpus:
        parser.error("the corpus folders are required (or --smoke)")
    if not os.path.exists(args.db):
        subprocess.run([str(CLI), "index", args.db, *args.corpus], check=True, capture_output=True)
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [
        ctx.Process(target=reader, args=(args.db, args.seconds, i, out))
        for i in range(args.readers)
    ]
    started = time.monotonic()
    for proc in procs:
        proc.start()
    runs, write_failures = writer_loop(args.db, args.corpus, started + args.seconds)
    results = [out.get() for _ in procs]
    for proc in procs:
        proc.join()
    elapsed = time.monotonic() - started
    merged: dict[str, list[float]] = {}
    errors: list[str] = []
    for result in results:
        errors += result["errors"]
        for name, values in result["latencies"].items():
            merged.setdefault(name, []).extend(values)
    ops = sum(len(v) for v in merged.values()) + len(errors)
    figures = {
        "readers": args.readers,
        "seconds": round(elapsed, 1),
        "index_runs": runs,
        "index_failures": write_failures,
        "operations": ops,
        "errors": len(errors),
        "ops_per_second": round(ops / elapsed, 1),
        "latency_ms": {
            name: {
                "n": len(v),
                "p50": round(1000 * statistics.median(v), 1) if v else None,
                "p95": round(1000 * percentile(v, 0.95), 1) if v else None,
                "max": round(1000 * max(v), 1) if v else None,
            }
            for name, v in merged.items()
        },
    }
    if args.json and args.json != "-":
        Path(args.json).write_text(json.dumps(figures))
    if args.json == "-":
        print(json.dumps(figures))
    else:
        print(
            f"{args.readers} readers, {elapsed:.0f} s, {runs} index runs "
            f"({len(write_failures)} failed): {ops} operations, {len(errors)} errors, "
            f"{ops / elapsed:.1f} ops/s"
        )
        for name, stat in figures["latency_ms"].items():
            print(f"  {name:<14} n={stat['n']:<5} p50={stat['p50']} ms p95={stat['p95']} ms")
    if args.smoke:
        print("(--smoke: a harness check on a tiny tree; its figures mean nothing)")
    for error in errors[:20]:
        print("error:", error, file=sys.stderr)
    for failure in write_failures[:5]:
        print("index failure:", failure, file=sys.stderr)
    sys.exit(1 if errors or write_failures else 0)


if __name__ == "__main__":
    main()
