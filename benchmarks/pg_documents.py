"""Smart search's documents channel on SQLite and on PostgreSQL: the same rows, and its cost.

    .venv/bin/python benchmarks/pg_documents.py [--corpora md_node,md_docker] [--json OUT]

Indexes the corpora (default: the Node.js and Docker Markdown of the corpus cache, 235
files) into a SQLite file under the cache, copies it to a pgserver (PostgreSQL 16) in a
temporary directory, and runs `documents.channel` for each question on both engines:
its rows must be identical (the ranked documents, their scores and best passages), and
for each engine it reports, per question, the client CPU (`time.process_time`), the
PostgreSQL server's CPU (its processes, psutil) and the wall time, cold (the postings
cache emptied; the chunk → document layout already read) and warm (from the cache).
The machine may be shared: CPU time is the steadier figure; the load average is printed.

Full mode (the published table): `.venv/bin/python benchmarks/pg_documents.py`.
`--smoke` runs the same path on a tiny tree copied from datasets/ into the temporary
folder, with questions about its fictional product; its timings mean nothing. When
PostgreSQL cannot start here (no `postgres` extra, no binaries), the JSON holds
`{"skipped": reason}` and the script exits 0 after saying why.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib as bl  # noqa: E402

QUESTIONS = [
    "how do I create a readable stream from a file",
    "restart policy for a container that exits",
    "how to read environment variables in a child process",
    "build an image from a dockerfile with build arguments",
    "listen for the close event of an http server",
    "mount a volume into a running container read only",
    "convert a buffer to a base64 encoded string",
    "limit the memory and cpu of a container",
    "resolve a relative path against the current working directory",
    "push an image to a private registry with authentication",
]


SMOKE_QUESTIONS = [
    "how do I install lumen on linux",
    "verify the checksum of the release archive",
    "which configuration file sets the index path",
    "how does a write become searchable",
    "authentication with api tokens",
    "如何配置索引",  # CJK: the channel declines (both engines must say so)
    "xyzzy plugh",  # no document: both engines must agree on nothing
]


def skip(json_out: Path | None, reason: str) -> None:
    """No PostgreSQL here: say so, and leave the reason where the figures would be."""
    print(f"skipped: {reason}", file=sys.stderr)
    bl.write_json(json_out, {"skipped": reason})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpora", default="md_node,md_docker")
    parser.add_argument("--smoke", action="store_true", help="datasets/, seconds")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    try:
        import pgserver
        import psycopg
    except ImportError as exc:
        return skip(args.json, f"needs the 'postgres' extra: {exc}")

    import docql_sqlite
    from docql_sqlite.search import documents, stats
    from docql_sqlite.search import terms as search_terms
    from docql_sqlite.store import open_store

    questions = SMOKE_QUESTIONS if args.smoke else QUESTIONS
    out: dict[str, Any] = {"machine": bl.machine(), "corpora": args.corpora, "questions": []}
    with tempfile.TemporaryDirectory(prefix="docql-pgdocs-") as root:
        if args.smoke:
            out["corpora"] = "smoke"
            tree = bl.smoke_tree(Path(root) / "tree")
            db = Path(root) / "smoke.db"
            docql_sqlite.index(db, [str(tree)])
        else:
            info = bl.manifest(fetch=False)
            roots = bl.corpus_roots(info, *args.corpora.split(","))
            cache = bl.cache_dir().parent / "pg-docs"
            cache.mkdir(parents=True, exist_ok=True)
            db = cache / f"documents-{args.corpora.replace(',', '-')}.db"
            if not db.exists():
                docql_sqlite.index(db, [str(r) for r in roots])
        try:
            server = pgserver.get_server(str(Path(root) / "pg"), cleanup_mode="stop")
        except Exception as exc:  # any failure to start is a reason to skip, said as such
            return skip(args.json, f"PostgreSQL could not start: {type(exc).__name__}: {exc}")
        try:
            with psycopg.connect(server.get_uri(), autocommit=True) as conn:
                conn.execute("CREATE DATABASE bench TEMPLATE template0 ENCODING 'UTF8'")
            url = server.get_uri("bench")
            docql_sqlite.copy(str(db), url)
            index = docql_sqlite.open(db)
            pg_store = open_store(url)  # autocommit: each statement its own read
            file_eng, pg_eng = index.store, pg_store
            out["chunks"] = stats.chunk_count(file_eng)
            rows = []
            for text in questions:
                terms, _ = stats.reduce_terms(file_eng, search_terms.parse(text))
                result: dict[str, Any] = {"question": text}
                channel_rows = {}
                for name, eng in (("sqlite", file_eng), ("postgres", pg_eng)):
                    documents.channel(eng, terms, ())  # the layout and statistics, read once
                    for phase in ("cold", "warm"):
                        if phase == "cold":
                            stats.of(eng)._parts.pop("postings", None)  # postings only
                        cpu, server0, wall = time.process_time(), bl.server_cpu(server), time.time()
                        found, notes = documents.channel(eng, terms, ())
                        result[f"{name}_{phase}"] = {
                            "client_cpu_ms": (time.process_time() - cpu) * 1000,
                            "server_cpu_ms": (bl.server_cpu(server) - server0) * 1000,
                            "wall_ms": (time.time() - wall) * 1000,
                        }
                    channel_rows[name] = (found, notes)
                result["rows"] = len(channel_rows["sqlite"][0])
                if args.smoke:  # what was compared, for the smoke test to check
                    result["paths"] = {
                        n: [r["path"] for r in f] for n, (f, _) in channel_rows.items()
                    }
                result["identical"] = channel_rows["sqlite"] == channel_rows["postgres"]
                out["questions"].append(result)
                rows.append(
                    [
                        text[:40],
                        result["rows"],
                        "yes" if result["identical"] else "NO",
                        *(
                            result[f"{e}_{p}"][k]
                            for e, p, k in (
                                ("sqlite", "cold", "client_cpu_ms"),
                                ("sqlite", "warm", "client_cpu_ms"),
                                ("postgres", "cold", "client_cpu_ms"),
                                ("postgres", "cold", "server_cpu_ms"),
                                ("postgres", "cold", "wall_ms"),
                                ("postgres", "warm", "client_cpu_ms"),
                            )
                        ),
                    ]
                )
            pg_store.close()
            index.close()
        finally:
            server.cleanup()
    out["loadavg_at_end"] = os.getloadavg()
    totals = {
        f"{e}_{p}_{k}": sum(q[f"{e}_{p}"][k] for q in out["questions"])
        for e in ("sqlite", "postgres")
        for p in ("cold", "warm")
        for k in ("client_cpu_ms", "server_cpu_ms", "wall_ms")
    }
    out["totals"] = totals
    print(
        f"{out['chunks']} chunks; load average {out['machine']['loadavg_at_start']} → "
        f"{out['loadavg_at_end']}"
    )
    print(
        bl.table(
            [
                "question",
                "rows",
                "same",
                "SQLite cold CPU ms",
                "warm",
                "PG cold client CPU ms",
                "server CPU ms",
                "wall ms",
                "PG warm client CPU ms",
            ],
            rows,
        )
    )
    print(
        f"{len(questions)} questions, totals (ms): SQLite cold CPU "
        f"{totals['sqlite_cold_client_cpu_ms']:.0f}, warm {totals['sqlite_warm_client_cpu_ms']:.0f}"
        f"; PostgreSQL cold client CPU {totals['postgres_cold_client_cpu_ms']:.0f} + server "
        f"CPU {totals['postgres_cold_server_cpu_ms']:.0f} "
        f"(wall {totals['postgres_cold_wall_ms']:.0f})"
        f", warm client CPU {totals['postgres_warm_client_cpu_ms']:.0f} + server CPU "
        f"{totals['postgres_warm_server_cpu_ms']:.0f}"
    )
    if args.smoke:
        print("(--smoke: a harness check on a tiny tree; its timings mean nothing)")
    bl.write_json(args.json, out)
    if not all(q["identical"] for q in out["questions"]):
        sys.exit("the documents channel differs between the engines")


if __name__ == "__main__":
    main()
