"""Does the repository map name a package's entry points? (issue 23, docs/repomap.md)

    python benchmarks/map_quality.py go DB        # an index holding Go's src/
    python benchmarks/map_quality.py json DB      # an index holding CPython's Lib/

The rule, fixed before looking at any map: the 20 symbols of highest rank of the map of
the package (every symbol listed: a budget of 100,000) must include the names the
package's own overview names. Go's `net/http`: the 12 package-level names of `doc.go`'s
package comment outside its GODEBUG part (`ServeMux` for `DefaultServeMux`: variables
are not symbols). Python's `json`: the names of `json/__init__.py`'s `__all__`.
Prints how many are in the top 20, where each one ranks, and the top 20.
"""

from __future__ import annotations

import argparse
from pathlib import Path

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
}
TOP = 20


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("package", choices=sorted(PACKAGES))
    parser.add_argument("db", type=Path)
    args = parser.parse_args()
    pattern, names = PACKAGES[args.package]
    with docql_sqlite.open(args.db) as index:
        result = index.repo_map([pattern], budget=100_000)
    ranked = sorted(result["symbols"], key=lambda s: -s["rank"])
    top = [s["qualified_name"] for s in ranked[:TOP]]
    found = [n for n in names if n in top]
    print(f"{len(found)} of {len(names)} in the top {TOP} of {len(ranked)} symbols: {found}")
    for name in names:
        places = [i + 1 for i, s in enumerate(ranked) if s["qualified_name"] == name]
        print(f"  {name}: {places[:3] or 'not a symbol of the map'}")
    print(f"top {TOP}:")
    for s in ranked[:TOP]:
        print(f"  {s['rank']:.5f}  {s['kind']:<9} {s['qualified_name']:<30} {s['path']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
