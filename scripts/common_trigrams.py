"""Make `docql_sqlite/query/common_trigrams.py`: the trigrams found in the most chunks.

    python scripts/common_trigrams.py DB [DB ...] > docql_sqlite/query/common_trigrams.py

A substring test reads its candidates from a trigram table (docs/design.md B35): an AND of
some of the needle's trigrams, whose row lists FTS5 reads whole. A trigram's list is as
long as the share of the chunks that hold it, so the query should name the rare ones;
letter frequencies alone took `add`, `use` and `val`/`err` for rare. This script counts,
in each index given, the share of its chunks that hold each trigram (lower case, as the
trigram tokenizer folds it), averages the shares over the indexes (each counts the same,
whatever its size) and prints the COUNT most common ASCII trigrams as a module.

The table in the package was made from five indexes of code and prose that no
benchmark measures trigram queries on: Django 5.1.4's `django/` (Python), the
PostgreSQL 15 and git manuals of the retrieval sets, zod 4.6.7's `src/` (TypeScript)
and express 4.22.3 (JavaScript). On the 279 MB scale index and on the Markdown mix it
chose as well as the scale index's own counts (docs/benchmarks-history.md, "Trigram
choice by commonness").
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

import apsw

COUNT = 1024


def shares(path: str) -> dict[str, float]:
    """The share of the index's chunks that hold each trigram of their lower-cased text."""
    conn = apsw.Connection(path, flags=apsw.SQLITE_OPEN_READONLY)
    held: collections.Counter[str] = collections.Counter()
    chunks = 0
    for (text,) in conn.execute("SELECT content FROM chunks"):
        lowered = text.lower()
        chunks += 1
        held.update({lowered[i : i + 3] for i in range(len(lowered) - 2)})
    conn.close()
    return {gram: n / max(1, chunks) for gram, n in held.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dbs", nargs="+", help="docql-sqlite indexes to count in")
    parser.add_argument("--count", type=int, default=COUNT)
    args = parser.parse_args()
    total: dict[str, float] = collections.defaultdict(float)
    for path in args.dbs:
        for gram, share in shares(path).items():
            total[gram] += share / len(args.dbs)
    common = [g for g in sorted(total, key=lambda g: -total[g]) if g.isascii()][: args.count]
    out = sys.stdout
    out.write('"""The trigrams found in the most chunks, the most common first (lower case).\n\n')
    out.write("Made by scripts/common_trigrams.py (its docstring says from what); read by\n")
    out.write('`query.filters.trigram_query` to name the rare trigrams of a needle."""\n\n')
    out.write("# Twelve a line, not one: a table, not code.\n# fmt: off\n")
    out.write("COMMON_TRIGRAMS = (\n")
    for start in range(0, len(common), 12):
        # JSON's string literals are Python's too, in the double quotes ruff prefers
        out.write("    " + " ".join(f"{json.dumps(g)}," for g in common[start : start + 12]) + "\n")
    out.write(")\n# fmt: on\n")


if __name__ == "__main__":
    main()
