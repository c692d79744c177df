"""Where an index run's CPU goes when it extracts references (issue 23, C6 in
docs/benchmarks.md): one in-process run (`--workers 0`), CPU seconds (`time.process_time`,
user + sys of this process) inside each phase, and the cyclic garbage collector's own.

    python benchmarks/refs_phases.py CORPUS...          # as is
    python benchmarks/refs_phases.py --stub CORPUS...   # without references (as refs_cost.py)
    python benchmarks/refs_phases.py --smoke --json OUT # on datasets/code

The phases nest (the collector runs inside the others; the pass's parts inside the pass),
so they do not add up to the total. Indicative: CPU seconds move with the machine's load.
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import docql_sqlite
import docql_sqlite.ingest.code as code
import docql_sqlite.ingest.code_symbols as code_symbols
from docql_sqlite.ingest import resolve
from docql_sqlite.store.sqlite import writer as sqlite_writer

REPO = Path(__file__).resolve().parent.parent
SPENT: Counter[str] = Counter()


def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT[name] += time.process_time() - started

    return run


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="*", help="folders or files to index")
    parser.add_argument("--stub", action="store_true", help="index without references")
    parser.add_argument("--smoke", action="store_true", help="on datasets/code")
    parser.add_argument("--json", metavar="OUT", help="also write the result to OUT")
    args = parser.parse_args()
    corpus = [str(REPO / "datasets" / "code")] if args.smoke else args.corpus
    if not corpus:
        parser.error("name a corpus (or --smoke)")
    if args.stub:
        code.extract_reference_rows = lambda *args, **kwargs: ([], [])
        code_symbols._REFS_QUERIES = Path("/nonexistent/no-reference-patterns")
    else:
        code.extract_reference_rows = timed("extract_references", code.extract_reference_rows)
        writer = sqlite_writer.SqliteWriter
        writer.resolve_references = timed("pass", writer.resolve_references)  # type: ignore[method-assign]
        resolve._many = timed("pass: inserts and updates", resolve._many)
        resolve._definitions = timed("pass: reading the symbols", resolve._definitions)
        resolve._Resolver._decide = timed("pass: deciding", resolve._Resolver._decide)  # type: ignore[method-assign]
    code.query_matches = timed("query cursor", code.query_matches)
    collecting = [0.0]

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[0] = time.process_time()
        else:
            SPENT["garbage collector"] += time.process_time() - collecting[0]

    gc.callbacks.append(collector)
    with tempfile.TemporaryDirectory(prefix="refs-phases-") as tmp:
        db = Path(tmp) / "index.db"
        started = time.process_time()
        docql_sqlite.index(db, corpus, workers=0)
        total = time.process_time() - started
        size = db.stat().st_size
    result = json.dumps(
        {
            "mode": "without references" if args.stub else "with references",
            "corpus": corpus,
            "cpu_s": round(total, 2),
            "db_bytes": size,
            "phases_cpu_s": {k: round(v, 2) for k, v in sorted(SPENT.items())},
        },
        indent=2,
    )
    print(result)
    if args.json:
        Path(args.json).write_text(result + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
