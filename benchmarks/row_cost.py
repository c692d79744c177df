"""The cost of a stored row apart from parsing (issue 24 item 2): the writer alone, and
the work a parser worker does after the parse (sections, chunks, rows, the pickle).

Measured with instruction counts (valgrind's cachegrind, load-independent) as the
difference of two runs of this script, the same data loaded in both:

    # once: parse the files as `index --workers 0` does and pickle what the writer gets
    python benchmarks/row_cost.py dump /tmp/mix.pkl CORPUS...          # `*.md` files
    # the store: every file through `SqliteWriter` in batches of 200 (the CLI's), minus
    # the same run that only unpickles and opens the index
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        python benchmarks/row_cost.py store /tmp/mix.pkl /tmp/r.db write   # and: load
    # after the parse: `parse.finish` (sections, chunks, `rows.prepare`), `for_writer`
    # and the pickle of each file, minus the same run without that loop
    valgrind ... python benchmarks/row_cost.py post CORPUS... --mode once   # and: setup

    python benchmarks/row_cost.py --smoke --json /tmp/row_cost.json   # datasets/en + zh, CPU

`--mode time` (post) and `time` (store) print CPU seconds instead (`time.process_time`,
the best of 3 for post). To compare with an older tree, run the same commands with
`PYTHONPATH=OLD` (`git archive REV docql_sqlite sql | tar -x -C OLD`); compile both
trees first (`python -m compileall -q docql_sqlite OLD/docql_sqlite`) when
PYTHONDONTWRITEBYTECODE is set, or every run pays for compiling the package.
Batches are counted (200 files), not timed, so the store figures repeat to ~0.01 %.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path


def _markdown_files(roots: list[str]) -> list[Path]:
    return [p for root in roots for p in sorted(Path(root).rglob("*.md")) if p.is_file()]


def dump(out: str, roots: list[str]) -> int:
    from docql_sqlite.ingest.parse import ParseTask, parse_for_writer
    from docql_sqlite.ingest.rows import Parsed

    results = []
    for path in _markdown_files(roots):
        result = parse_for_writer(ParseTask(str(path), str(path), None))
        if isinstance(result, Parsed):
            results.append(result)
    with open(out, "wb") as handle:
        pickle.dump(results, handle, protocol=5)
    print(f"{len(results)} files")
    return len(results)


def store(source: str, db_path: str, mode: str) -> float:
    from docql_sqlite.store.sqlite.engine import SqliteStore

    with open(source, "rb") as handle:
        results = pickle.load(handle)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db_path + suffix):
            os.remove(db_path + suffix)
    index = SqliteStore(db_path, readonly=False)
    writer = index.writer()
    started = time.process_time()
    if mode != "load":
        for start in range(0, len(results), 200):  # as ingest/run.py's _write_batch
            with writer.batch():
                for parsed in results[start : start + 200]:
                    with writer.document(parsed.uri):
                        writer.clear_problems(parsed.uri)
                        writer.replace_document(parsed)
        writer.finish()
    spent = time.process_time() - started
    index.close()
    if mode == "time":
        print(f"store: {spent:.3f} CPU s")
    return spent


def post(roots: list[str], mode: str) -> float:
    from docql_sqlite.ingest import parse
    from docql_sqlite.ingest.formats import get_format, sniff_format
    from docql_sqlite.ingest.read import read_source
    from docql_sqlite.ingest.rows import for_writer

    parsed_files = []  # (source, the parsed document pickled: a fresh copy per run)
    for path in _markdown_files(roots):
        source = read_source(path, str(path))
        if source.data.strip():
            fmt = get_format(source.format or sniff_format(source.data))
            parsed_files.append((source, pickle.dumps(fmt.parse(source))))

    def unpickled() -> list[object]:
        return [pickle.loads(data) for _, data in parsed_files]

    def run() -> list[bytes]:
        out = []
        for source, data in parsed_files:
            doc = pickle.loads(data)
            result = parse.finish(
                doc, source.path, source.uri, source.sha256, len(source.data),
                source.mtime_ns, [],
            )  # fmt: skip
            out.append(pickle.dumps(for_writer(result)))
        return out

    best = 0.0
    if mode == "once":
        print(f"{sum(map(len, run()))} bytes of pickles")
    elif mode == "time":
        best = float("inf")
        for _ in range(3):
            started = time.process_time()
            unpickled()
            base = time.process_time() - started
            started = time.process_time()
            run()
            best = min(best, time.process_time() - started - base)
        print(f"after the parse: {best:.3f} CPU s")
    return best


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="all three on datasets/en + zh")
    parser.add_argument("--json", metavar="OUT", help="with --smoke: write the figures to OUT")
    commands = parser.add_subparsers(dest="command")
    dumping = commands.add_parser("dump", help="parse the *.md files, pickle the results")
    dumping.add_argument("out")
    dumping.add_argument("roots", nargs="+")
    storing = commands.add_parser("store", help="write a dump through SqliteWriter")
    storing.add_argument("source")
    storing.add_argument("db")
    storing.add_argument("mode", choices=["load", "write", "time"])
    posting = commands.add_parser("post", help="the work after the parse")
    posting.add_argument("roots", nargs="+")
    posting.add_argument("--mode", choices=["setup", "once", "time"], default="time")
    args = parser.parse_args(argv)
    if args.smoke:
        datasets = Path(__file__).resolve().parents[1] / "datasets"
        roots = [str(datasets / "en"), str(datasets / "zh")]
        with tempfile.TemporaryDirectory(prefix="row-cost-") as tmp:
            files = dump(str(Path(tmp) / "dump.pkl"), roots)
            figures = {
                "files": files,
                "store_cpu_s": store(str(Path(tmp) / "dump.pkl"), str(Path(tmp) / "r.db"), "time"),
                "post_cpu_s": post(roots, "time"),
            }
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    elif args.command == "dump":
        dump(args.out, args.roots)
    elif args.command == "store":
        store(args.source, args.db, args.mode)
    elif args.command == "post":
        post(args.roots, args.mode)
    else:
        parser.error("name a command (dump, store, post) or --smoke")


if __name__ == "__main__":
    main(sys.argv[1:])
