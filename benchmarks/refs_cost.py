"""What references cost an index run (issue 23's goal: ≤ 25 % of index time and size).

    python benchmarks/refs_cost.py CORPUS...              # this tree
    python benchmarks/refs_cost.py --rev 4d15a1a CORPUS... # the package as committed at REV
    python benchmarks/refs_cost.py --smoke --json OUT      # this tree on datasets/code
    python benchmarks/refs_cost.py --cpu --workers 2 CORPUS...  # CPU seconds, large corpora
    python benchmarks/refs_cost.py --functions 40 CORPUS...    # and where: per C function

Runs `docql-sqlite index` on a cold database twice: as is, and without references —
`code.extract_reference_rows` (before 2026-12-04: `code.extract_references`) returning
nothing and the languages' reference patterns left out of the tree-sitter query
(`code_symbols._REFS_QUERIES` pointed at a missing folder), so neither the matching nor
the extraction, rows or resolution of references is done.
(Until 2026-12-03 19:55 the stub kept the reference patterns in the query: its baseline
included the tree-sitter matching of references.) The overhead is the first over the
second, in instructions and in database size.

By default each run is `--workers 0` under valgrind's cachegrind (`I refs`: deterministic
to ~0.5 %, unlike CPU seconds on a shared machine). `--cpu` instead runs the real CLI
with `--workers N` (the stub reaches the workers: they are forked) and reports CPU
seconds, user + sys with the workers included, and the load average around each run:
for corpora too large for valgrind (the scale corpus' code).
`PYTHONHASHSEED=0`; the tree's modules are compiled first (a first run's bytecode
compilation is not part of an index run). Each run takes about a minute per 10 MB of
code under valgrind.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_identity import REPO, export_tree  # noqa: E402

# The run itself, in the measured process: the stub must be in place before the index.
_RUN = """
import sys
from pathlib import Path
if sys.argv[1] == "stub":
    import docql_sqlite.ingest.code as code
    import docql_sqlite.ingest.code_symbols as code_symbols
    # the extraction as this tree calls it, and as commits before 2026-12-04 did
    code.extract_reference_rows = code.extract_references = lambda *args, **kwargs: ([], [])
    code_symbols._REFS_QUERIES = Path("/nonexistent/no-reference-patterns")
from docql_sqlite.cli import main
sys.argv = ["docql-sqlite", "index", "--workers", sys.argv[2], *sys.argv[3:]]
try:
    main()
except SystemExit:
    pass
"""


def instructions(
    code: Path, db: Path, paths: list[str], stub: bool, out: Path | None = None
) -> int:
    """`I refs` of one cold index run with the package in `code` (with `out`, cachegrind's
    counts per function are written there)."""
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONHASHSEED="0")
    done = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            f"--cachegrind-out-file={out or '/dev/null'}",
            sys.executable,
            "-c",
            _RUN,
            "stub" if stub else "refs",
            "0",
            str(db),
            *paths,
        ],
        cwd=db.parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no cachegrind total in:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_function(path: Path) -> Counter[str]:
    """Instructions per function (`file:function`) of a cachegrind output file. Read by
    hand: `cg_annotate` stops at the `cmd:` line, which holds `_RUN`'s line breaks."""
    found: Counter[str] = Counter()
    function = None
    source = ""
    events = False
    for line in path.read_text("utf-8", "replace").splitlines():
        if line.startswith("events:"):
            events = True
        elif not events:
            continue
        elif line.startswith("fl="):
            source = line[3:].rsplit("/", 1)[-1]
        elif line.startswith("fn="):
            function = f"{source}:{line[3:]}"
        elif function and line[:1].isdigit():
            parts = line.split()
            if len(parts) >= 2:
                found[function] += int(parts[1])
    return found


def cpu_run(code: Path, db: Path, paths: list[str], stub: bool, workers: int) -> dict[str, Any]:
    """CPU seconds (user + sys, the workers included), wall seconds, database bytes and
    the load average before and after, of one cold index run with the package in `code`."""
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONHASHSEED="0")
    load_before = os.getloadavg()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", _RUN, "stub" if stub else "refs", str(workers), str(db), *paths],
        cwd=db.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)  # the child's own and its waited-for children
    wall = time.perf_counter() - started
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    if status != 0:
        raise SystemExit(f"index run failed ({status}):\n{stderr[-2000:]}")
    return {
        "cpu_user_s": round(usage.ru_utime, 2),
        "cpu_sys_s": round(usage.ru_stime, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "wall_s": round(wall, 1),
        "db_bytes": db.stat().st_size,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="*", help="folders or files to index")
    parser.add_argument("--rev", help="measure the package as committed at REV")
    parser.add_argument("--smoke", action="store_true", help="this tree on datasets/code")
    parser.add_argument("--json", metavar="OUT", help="also write the result to OUT")
    parser.add_argument(
        "--cpu", action="store_true", help="CPU seconds of the real CLI, not instructions"
    )
    parser.add_argument("--workers", type=int, default=2, help="with --cpu (default 2)")
    parser.add_argument("--keep", metavar="DIR", help="with --cpu: leave both databases in DIR")
    parser.add_argument(
        "--functions",
        type=int,
        metavar="N",
        help="also the N functions (C, of the interpreter or a library) that add the most",
    )
    args = parser.parse_args()
    if args.smoke:
        args.corpus = [str(REPO / "datasets" / "code")]
    if not args.corpus:
        parser.error("name a corpus (or --smoke)")
    with tempfile.TemporaryDirectory(prefix="refs-cost-") as tmp:
        work = Path(tmp)
        code = export_tree(args.rev, work / "tree") if args.rev else REPO
        compileall.compile_dir(str(code / "docql_sqlite"), quiet=1)
        paths = [str(Path(p).resolve()) for p in args.corpus]
        if args.cpu:
            where = Path(args.keep) if args.keep else work
            where.mkdir(parents=True, exist_ok=True)
            refs = cpu_run(code, where / "refs.db", paths, False, args.workers)
            off = cpu_run(code, where / "norefs.db", paths, True, args.workers)
            return _report(
                args,
                {
                    "code": args.rev or "this tree",
                    "corpus": args.corpus,
                    "workers": args.workers,
                    "with_references": refs,
                    "without_references": off,
                    "cpu_overhead_percent": _percent(refs["cpu_s"], off["cpu_s"]),
                    "size_overhead_percent": _percent(refs["db_bytes"], off["db_bytes"]),
                },
            )
        counts = (work / "refs.out", work / "stub.out") if args.functions else (None, None)
        with_refs = instructions(code, work / "refs.db", paths, stub=False, out=counts[0])
        without = instructions(code, work / "stub.db", paths, stub=True, out=counts[1])
        found: dict[str, Any] = {
            "code": args.rev or "this tree",
            "corpus": args.corpus,
            "instructions_with_references": with_refs,
            "instructions_without_references": without,
            "overhead_percent": _percent(with_refs, without),
        }
        if counts[0] is not None and counts[1] is not None:
            added = per_function(counts[0])
            added.subtract(per_function(counts[1]))
            found["added_by_function"] = dict(added.most_common(args.functions))
    return _report(args, found)


def _percent(value: float, base: float) -> float:
    return round(100 * (value - base) / base, 1)


def _report(args: argparse.Namespace, found: dict[str, Any]) -> int:
    result = json.dumps(found, indent=2)
    print(result)
    if args.json:
        Path(args.json).write_text(result + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
