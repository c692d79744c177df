"""`status` latency of the MCP server while hostile clients run deadline-bound queries.

    python benchmarks/mcp_status_under_load.py               # 30 s, six hostile clients
    python benchmarks/mcp_status_under_load.py --seconds 60 --clients 8
    python benchmarks/mcp_status_under_load.py --smoke       # 3 s, a 2 s deadline

What is measured (issue 20 §5, goal: `status` p99 <= 1 s): a scratch index holds a
heading on which `(a|aa)+$` backtracks for ever; `--clients` clients (each its own MCP
session, the SDK's client over Streamable HTTP) loop on
`$.toc[?(@.title =~ /(a|aa)+$/)]`, each call stopped at the per-call deadline, while
one more client calls `status` every 50 ms (after one warm-up call: the SDK client's
first call imports jsonschema). Output: calls, p50/p99/max in ms, and the load average
before and after (on a shared machine, judge the figures by it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to time status")
    parser.add_argument("--clients", type=int, default=6, help="hostile clients")
    parser.add_argument("--smoke", action="store_true", help="3 s with a 2 s deadline")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()

    from conftest import TmpIndex
    from mcp_client import http_server_process
    from test_mcp_dos import CATASTROPHIC_TITLE, p99, status_under_hostile_clients

    seconds = 3.0 if args.smoke else args.seconds
    env = {"DOCQL_QUERY_TIMEOUT": "2"} if args.smoke else {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        idx = TmpIndex(root)
        idx.write("slow.md", f"# {CATASTROPHIC_TITLE}\n\ntext\n")
        for n in range(40):
            idx.write(f"d/doc{n}.md", f"# Doc {n}\n\n" + "word " * 50 + "\n")
        idx.index()
        before = os.getloadavg()[0]
        with http_server_process(idx.db, cwd=root, env=env) as (base, _):
            latencies = sorted(status_under_hostile_clients(base, seconds, args.clients))
        after = os.getloadavg()[0]
    row = {
        "what": f"status while {args.clients} clients run catastrophic regexes",
        "calls": len(latencies),
        "p50 ms": round(statistics.median(latencies) * 1000, 1),
        "p99 ms": round(p99(latencies) * 1000, 1),
        "max ms": round(latencies[-1] * 1000, 1),
        "load before": round(before, 2),
        "load after": round(after, 2),
    }
    print(json.dumps(row))
    if args.json:
        Path(args.json).write_text(json.dumps([row]))


if __name__ == "__main__":
    main()
