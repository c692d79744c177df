"""Does the repository map name a package's entry points? (issue 23, docs/repomap.md)

    python benchmarks/map_quality.py go DB           # an index holding Go's src/ (net/http)
    python benchmarks/map_quality.py context DB      # the same index (held out)
    python benchmarks/map_quality.py flag DB         # the same index (held out)
    python benchmarks/map_quality.py json DB         # an index holding CPython's Lib/
    python benchmarks/map_quality.py pathlib DB      # the same index (held out)
    python benchmarks/map_quality.py collections DB  # an index of Rust's library/ (held out)
    python benchmarks/map_quality.py --smoke --json OUT  # datasets/code, seconds

The rule, fixed before looking at any map: the 20 symbols of highest rank of the map of
the package (every symbol listed: a budget of 100,000) must include the names the
package's own overview names. Go's `net/http`: the 12 package-level names of `doc.go`'s
package comment outside its GODEBUG part (`ServeMux` for `DefaultServeMux`: variables
are not symbols). Python's `json`: the names of `json/__init__.py`'s `__all__`. The
held-out packages (`PACKAGES`) were named, with their names, before any map of them was
looked at (commit 088d287), and checked once, after the rank was written.
Prints how many are in the top 20, where each one ranks, and the top 20.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import docql_sqlite

PACKAGES = {
    # name: (glob of the package's files, under the indexed tree; the names to find)
    "go": (
        "*/net/http/*.go",
        "Get Head Post PostForm Client NewRequest Transport ListenAndServe ServeMux "
        "Handle HandleFunc Server".split(),
    ),
    "json": (
        "*/json/*.py",
        "dump dumps load loads JSONDecoder JSONDecodeError JSONEncoder".split(),
    ),
    # Held-out checks, their names written down (from the package's own overview) before
    # any map of them was looked at:
    # Go's `context`: the package-level names of `context.go`'s package comment.
    "context": (
        "*/context/*.go",
        "Context WithCancel WithDeadline WithTimeout WithValue CancelFunc TODO".split(),
    ),
    # Go's `flag`: the package-level names of `flag.go`'s package comment (its Usage part
    # and the closing paragraph on FlagSet).
    "flag": (
        "*/flag/*.go",
        "String Bool Int IntVar Var Value Parse Args Arg NArg FlagSet".split(),
    ),
    # Python's `pathlib` (CPython 3.11): the names of its `__all__`.
    "pathlib": (
        "*/pathlib.py",
        "PurePath PurePosixPath PureWindowsPath Path PosixPath WindowsPath".split(),
    ),
    # Rust's `alloc::collections` (library/ of rustc 1.63 indexed): the collection types
    # of `std::collections`' overview (`library/std/src/collections/mod.rs`, "Rust's
    # collections can be grouped into four major categories") that live in it.
    "collections": (
        "*/alloc/src/collections/*",
        "BTreeMap BTreeSet BinaryHeap LinkedList VecDeque".split(),
    ),
    # --smoke: the Python fixture of datasets/code: its top-level names
    "smoke": ("python/*", ["DocQLLexer", "Token", "TokenKind", "LexerError", "tokenize"]),
}
TOP = 20


def judge(db: Path, package: str) -> dict[str, Any]:
    pattern, names = PACKAGES[package]
    with docql_sqlite.open(db) as index:
        result = index.repo_map([pattern], budget=100_000)
    ranked = sorted(result["symbols"], key=lambda s: -s["rank"])
    top = [s["qualified_name"] for s in ranked[:TOP]]
    return {
        "package": package,
        "pattern": pattern,
        "symbols": len(ranked),
        "names": names,
        "found_in_top": [n for n in names if n in top],
        "places": {
            n: [i + 1 for i, s in enumerate(ranked) if s["qualified_name"] == n][:3] for n in names
        },
        "top": [
            {k: s[k] for k in ("rank", "kind", "qualified_name", "path")} for s in ranked[:TOP]
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("package", nargs="?", choices=sorted(PACKAGES))
    parser.add_argument("db", nargs="?", type=Path)
    parser.add_argument("--smoke", action="store_true", help="index datasets/code and judge it")
    parser.add_argument("--json", metavar="OUT", help="also write the result to OUT")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="map-quality-") as tmp:
        if args.smoke:
            here = os.getcwd()
            os.chdir(Path(__file__).resolve().parent.parent / "datasets" / "code")
            try:
                args.package, args.db = "smoke", Path(tmp) / "smoke.db"
                docql_sqlite.index(args.db, ["python"])
            finally:
                os.chdir(here)
        if args.package is None or args.db is None:
            parser.error("name a package and an index (or --smoke)")
        found = judge(args.db, args.package)
    names, top = found["names"], found["found_in_top"]
    print(f"{len(top)} of {len(names)} in the top {TOP} of {found['symbols']} symbols: {top}")
    for name in names:
        print(f"  {name}: {found['places'][name] or 'not a symbol of the map'}")
    print(f"top {TOP}:")
    for s in found["top"]:
        print(f"  {s['rank']:.5f}  {s['kind']:<9} {s['qualified_name']:<30} {s['path']}")
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
