"""What references cost an index run (issue 23's goal: ≤ 25 % of index CPU), in instructions.

    python benchmarks/refs_cost.py CORPUS...              # this tree
    python benchmarks/refs_cost.py --rev 4d15a1a CORPUS... # the package as committed at REV
    python benchmarks/refs_cost.py --smoke --json OUT      # this tree on datasets/code

Runs `docql-sqlite index --workers 0` on a cold database twice under valgrind's
cachegrind (`I refs`: deterministic to ~0.5 %, unlike CPU seconds on a shared machine):
as is, and with `code.extract_references` returning nothing (no references, no imports,
no resolution work beyond the queue of names). The overhead is the first over the second.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_identity import REPO, export_tree  # noqa: E402

# The run itself, in the measured process: the stub must be in place before the index.
_RUN = """
import sys
if sys.argv[1] == "stub":
    import docql_sqlite.ingest.code as code
    code.extract_references = lambda *args, **kwargs: ([], [])
from docql_sqlite.cli import main
sys.argv = ["docql-sqlite", "index", "--workers", "0", *sys.argv[2:]]
try:
    main()
except SystemExit:
    pass
"""


def instructions(code: Path, db: Path, paths: list[str], stub: bool) -> int:
    """`I refs` of one cold index run with the package in `code`."""
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONHASHSEED="0")
    done = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            "-c",
            _RUN,
            "stub" if stub else "refs",
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


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="*", help="folders or files to index")
    parser.add_argument("--rev", help="measure the package as committed at REV")
    parser.add_argument("--smoke", action="store_true", help="this tree on datasets/code")
    parser.add_argument("--json", metavar="OUT", help="also write the result to OUT")
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
        with_refs = instructions(code, work / "refs.db", paths, stub=False)
        without = instructions(code, work / "stub.db", paths, stub=True)
    result = json.dumps(
        {
            "code": args.rev or "this tree",
            "corpus": args.corpus,
            "instructions_with_references": with_refs,
            "instructions_references_stubbed": without,
            "overhead_percent": round(100 * (with_refs - without) / without, 1),
        },
        indent=2,
    )
    print(result)
    if args.json:
        Path(args.json).write_text(result + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
