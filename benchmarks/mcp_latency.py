"""MCP tool-call latency through the long-lived Streamable HTTP server.

    python benchmarks/mcp_latency.py              # the 10 MB Markdown mix, use-multilingual
    python benchmarks/mcp_latency.py --corpora /work/cache/corpora   # the mix from a cache
                                                  # fetch_corpora.sh already filled
    python benchmarks/mcp_latency.py --smoke      # datasets/ with the hashing model, seconds

What is timed: one `tools/call` round trip as an agent's client sees it — the SDK's own
client (`ClientSession` over `streamable_http_client`) against `docql-sqlite mcp DB --http
127.0.0.1:PORT` in another process, with the embedding model already loaded there (the
server loads it once, at start). Each `search` embeds its query.

- corpus: notes/corpora.md A6 (Node.js API + Docker + Rust books Markdown, ~10.8 MB),
  fetched by benchmarks/fetch_corpora.sh into $DOCQL_CORPORA (default /work/cache/mcp),
  indexed and embedded once into $DOCQL_CORPORA/mcp-latency-<model>.db;
- `search`: section titles and passage spans of the index (fixed seed), mode smart
  (vectors take part) and hybrid;
- `docql_query`: outline filters, headings, chapters and class look-ups.

Goals (issue 9): `search` with vectors p50 <= 50 ms, `docql_query` p50 <= 10 ms.
Output: one JSON object per line (`--json`: one array): wall p50/p95 per tool, and the
CPU a call cost the server process (from /proc, every thread) and the client, which
are what to compare on a busy machine, where wall times are mostly waiting. The same
calls are then made from a plain JSON-RPC client (other questions, same shapes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from mcp_client import http_server, http_session, text  # noqa: E402

CACHE = Path(os.environ.get("DOCQL_CORPORA", "/work/cache/mcp"))


def fetch_corpus(corpora: Path | None = None) -> tuple[Path, list[str]]:
    """The A6 mix folders: fetched once by benchmarks/fetch_corpora.sh into $DOCQL_CORPORA,
    or read from the manifest of a cache that script already filled (`--corpora`), so a
    second machine-wide copy is not fetched. Returns the folders' common parent and their
    paths under it (the index stores paths relative to that parent)."""
    if corpora is not None:
        manifest = dict(
            line.split("=", 1)
            for line in (corpora / "manifest.env").read_text().splitlines()
            if "=" in line
        )
        folders = [Path(manifest[k]) for k in ("md_node", "md_docker", "md_rustdoc")]
        base = corpora / "x"
        return base, [str(f.relative_to(base)) for f in folders]
    done = subprocess.run(
        ["bash", str(REPO / "benchmarks" / "fetch_corpora.sh"), str(CACHE)],
        check=True,
        capture_output=True,
        text=True,
    )
    folders = [Path(line) for line in done.stdout.split("\n") if line.strip()]
    base = CACHE / "x"
    return base, [str(f.relative_to(base)) for f in folders]


def build(
    db: Path,
    base: Path,
    roots: list[str],
    model: str,
    include: tuple[str, ...],
    workers: int | None,
) -> None:
    """Index (and embed) once; an existing index is brought up to date incrementally."""
    import docql_sqlite

    old = os.getcwd()
    os.chdir(base)
    try:
        started = time.monotonic()
        options = {"workers": workers} if workers is not None else {}
        report = docql_sqlite.index(db, roots, include=include, embed=model, **options)
        print(f"# indexed {report.summary()} in {time.monotonic() - started:.0f}s", file=sys.stderr)
    finally:
        os.chdir(old)


def workload(db: Path, n: int, seed: int = 7) -> tuple[list[str], list[str]]:
    """`n` search texts (half titles, half passage spans) and `n` DocQL queries."""
    import docql_sqlite

    rng = random.Random(seed)
    with docql_sqlite.open(db) as idx:
        titles = [h["title"] for h in idx.toc() if 6 <= len(h["title"]) <= 60]
        spans = []
        for chunk in idx.query("$.content.chunks()", limit=20_000):
            words = chunk["content"].split()
            if len(words) >= 20:
                spans.append(" ".join(words[5:15]))
        classes = [s["name"] for s in idx.query("$.code.classes", limit=500)]
    half = n // 2
    searches = rng.sample(titles, min(half, len(titles))) + rng.sample(
        spans, min(n - half, len(spans))
    )
    words = [t.split()[0] for t in rng.sample(titles, min(n, len(titles)))]
    shapes = [
        lambda w: f'$.toc[?(@.title~="{w}")][0:20]',
        lambda w: f'$.content.heading("{w}")[0:5]',
        lambda w: '$.content.chapter("1.2")[0:3]',
        lambda w: "$.toc[?(@.level==1)][0:30]",
    ]
    queries = [shapes[i % len(shapes)](json.dumps(w)[1:-1]) for i, w in enumerate(words)]
    if classes:
        queries[3::8] = [f'$.code.class("{c}")' for c in rng.choices(classes, k=len(queries[3::8]))]
    return searches, queries


def server_cpu(url: str) -> float:
    """CPU seconds used so far by the server process listening at `url` (from /proc), so
    that a loaded machine's wall times can be read next to what a call really costs."""
    address = url.split("//")[1].split("/")[0]
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if address.encode() in (proc / "cmdline").read_bytes():
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            continue
    return float("nan")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))], 1)


Call = tuple[str, dict[str, Any]]


def plans(
    searches: list[str], queries: list[str], only: str | None = None
) -> list[tuple[str, list[Call]]]:
    every = [
        ("status (the transport's floor)", [("status", {})] * len(queries)),
        ("search smart", [("search", {"query": q, "limit": 10}) for q in searches]),
        (
            "search hybrid",
            [("search", {"query": q, "limit": 10, "mode": "hybrid"}) for q in searches],
        ),
        ("docql_query", [("docql_query", {"query": q}) for q in queries]),
    ]
    return [(label, calls) for label, calls in every if only is None or only in label]


def figures(
    label: str, times: list[float], cpu: tuple[float, float], errors: int, chars: int
) -> dict[str, Any]:
    calls = max(1, len(times))
    return {
        "what": label,
        "calls": len(times),
        "p50 ms": pct(times, 0.5),
        "p95 ms": pct(times, 0.95),
        "server CPU ms/call": round(1000 * cpu[0] / calls, 1),
        "client CPU ms/call": round(1000 * cpu[1] / calls, 1),
        "errors": errors,
        "mean chars": round(chars / calls),
    }


async def measure(
    url: str, searches: list[str], queries: list[str], only: str | None = None
) -> list[dict[str, Any]]:
    """Through the SDK's own client (`ClientSession`), as an agent built on it calls."""
    rows: list[dict[str, Any]] = [{"what": "load average", "1 min": os.getloadavg()[0]}]
    async with http_session(url) as (session, _):
        await session.call_tool("search", {"query": "warm up", "limit": 1})  # first-call costs
        for label, calls in plans(searches, queries, only):
            times, errors, chars = [], 0, 0
            cpu_server, cpu_client = server_cpu(url), time.process_time()
            for name, arguments in calls:
                started = time.perf_counter()
                reply = await session.call_tool(name, arguments)
                times.append(time.perf_counter() - started)
                errors += bool(reply.is_error)
                chars += len(text(reply))
            cpu = (server_cpu(url) - cpu_server, time.process_time() - cpu_client)
            rows.append(figures(f"MCP {label} over HTTP", times, cpu, errors, chars))
    return rows


def measure_plain(
    url: str, searches: list[str], queries: list[str], only: str | None = None
) -> list[dict[str, Any]]:
    """The same calls as plain JSON-RPC POSTs on one keep-alive connection (the standard
    library's http.client): what the server itself costs a client, without the SDK
    client's own ~5 ms of CPU a call (pydantic models, anyio streams, task groups), which
    no server can remove."""
    import http.client
    from urllib.parse import urlsplit

    from mcp_types import LATEST_PROTOCOL_VERSION

    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}

    def post(message: dict[str, Any]) -> tuple[int, dict[str, Any], Any]:
        connection.request("POST", where.path, json.dumps(message).encode(), headers)
        response = connection.getresponse()
        body = response.read()
        return response.status, dict(response.getheaders()), json.loads(body) if body else None

    hello = {
        "protocolVersion": LATEST_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "mcp-latency", "version": "1"},
    }
    _, answer_headers, answer = post(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
    )
    session = {k.lower(): v for k, v in answer_headers.items()}["mcp-session-id"]
    headers |= {
        "mcp-session-id": session,
        "mcp-protocol-version": answer["result"]["protocolVersion"],
    }
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    rows: list[dict[str, Any]] = []
    for label, calls in plans(searches, queries, only):
        times, errors, chars = [], 0, 0
        cpu_server, cpu_client = server_cpu(url), time.process_time()
        for n, (name, arguments) in enumerate(calls, start=1):
            call = {"name": name, "arguments": arguments}
            started = time.perf_counter()
            status, _, reply = post(
                {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call}
            )
            times.append(time.perf_counter() - started)
            result = (reply or {}).get("result", {})
            errors += status != 200 or bool(result.get("isError", True))
            chars += sum(len(c.get("text", "")) for c in result.get("content", []))
        cpu = (server_cpu(url) - cpu_server, time.process_time() - cpu_client)
        rows.append(
            figures(f"MCP {label} over HTTP, plain JSON-RPC client", times, cpu, errors, chars)
        )
    connection.close()
    return rows


def in_process(db: Path, searches: list[str]) -> dict[str, Any]:
    """CPU of smart searches through `Tools.search` in this process (no transport)."""
    from docql_sqlite import settings
    from docql_sqlite.agent.tools import Tools

    parallel = settings.parallel_search()
    tools = Tools(str(db), heavy_workers=1, parallel=parallel)
    try:
        tools.search("warm up", limit=1)  # the model, the vectors, the first pages
        times, errors, cpu = [], 0, time.process_time()
        for text in searches:
            started = time.perf_counter()
            errors += tools.search(text, limit=10).is_error  # under cachegrind: a deadline
            times.append(time.perf_counter() - started)
        cpu = time.process_time() - cpu
    finally:
        tools.close()
    calls = max(1, len(times))
    return {
        "what": "smart search in process" + (" (sidecar)" if parallel else " (one thread)"),
        "calls": len(times),
        "p50 ms": pct(times, 0.5) if times else None,
        "CPU ms/call": round(1000 * cpu / calls, 1),
        "errors": errors,
        "load average": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="datasets/ with the hash model")
    parser.add_argument("--model", default=None, help="embedding model (default: use-multilingual)")
    parser.add_argument("--n", type=int, default=None, help="calls per tool (default 200; 6 smoke)")
    parser.add_argument(
        "--corpora",
        type=Path,
        default=None,
        help="an existing benchmarks/fetch_corpora.sh cache to read the mix from (its"
        " manifest.env) instead of fetching into $DOCQL_CORPORA; the index stays there",
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="time this existing index as it is (not built or brought up to date), e.g. the"
        " mix embedded with e5-small by the CLI; the server runs in its folder",
    )
    parser.add_argument(
        "--only",
        default=None,
        help="time only the calls whose label contains this text (e.g. 'smart'); runs are"
        " shorter on a shared machine",
    )
    parser.add_argument(
        "--in-process",
        type=int,
        default=None,
        metavar="K",
        help="no server: the first K smart searches of the workload through the tools'"
        " own code in this process (`Tools.search`; DOCQL_PARALLEL_SEARCH=0: one thread),"
        " CPU per call; K=0 does everything but the searches, so two runs"
        " under cachegrind give the instructions of K searches",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import anyio

    with tempfile.TemporaryDirectory() as scratch:
        if args.db is not None:
            model, n = args.model or "(the index's)", args.n or 200
            db, base = args.db.resolve(), args.db.resolve().parent
        elif args.smoke:
            model, n = args.model or "hash", args.n or 6
            db = Path(scratch) / "datasets.db"
            base, roots = REPO, ["datasets/zh", "datasets/code/python"]
        else:
            model, n = args.model or "use-multilingual", args.n or 200
            base, roots = fetch_corpus(args.corpora)
            db = CACHE / f"mcp-latency-{model.replace(':', '-')}.db"
        if args.db is None:
            # A handful of files parse faster here than in a pool of worker processes.
            build(db, base, roots, model, *(((), 0) if args.smoke else (("*.md",), None)))
        searches, queries = workload(db, n)
        if args.in_process is not None:
            print(json.dumps(in_process(db, searches[: args.in_process])))
            return
        # The plain client's pass asks other questions (another fixed seed): the same ones
        # again would find the caches the SDK pass filled (term counts, postings) and
        # look cheaper than a first search is.
        plain_searches, plain_queries = workload(db, n, seed=8)
        import docql_sqlite

        with docql_sqlite.open(db) as idx:
            figures = idx.status()
            vectors = idx.has_vectors
            megabytes = round(sum(d["size"] for d in idx.documents()) / 1e6, 1)
        rows: list[dict[str, Any]] = [
            {
                "what": "corpus",
                "documents": figures["documents"],
                "chunks": figures["chunks"],
                "MB": megabytes,
                "model": model,
                "vectors": vectors,
            }
        ]
        with http_server(db, cwd=base) as url:
            rows += anyio.run(measure, url + "/mcp", searches, queries, args.only)
            rows += measure_plain(url + "/mcp", plain_searches, plain_queries, args.only)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for row in rows:
            print(json.dumps(row))


if __name__ == "__main__":
    main()
