"""Known-item name look-ups: is a definition first when its name is the query?

The oracle is the index itself: every class-like symbol (class, interface, struct, enum,
trait, type) and every top-level function whose name is defined exactly once in the
index (case-sensitive), outside test files, is a query typed as the definition spells it
(`Config`, `MonkeyPatch`, `getfixturevalue`); the answer is the passage that holds the
definition's first line. Reported per index and kind: MRR@10 and the share first (P@1),
smart search without vectors, in process.

Why: "Environment" on Jinja2 put `set_environment`, `pass_environment` and two other
functions before `class Environment` (6th), "Config" on pytest the property `config`
before `class Config` (5th): each of those sits in the BM25 list and in both name lists,
while a class's first passage, a long docstring, is far down BM25's.

    python benchmarks/name_lookup.py DB... [--per-kind 200] [--seed 1] [--json OUT]
    python benchmarks/name_lookup.py --smoke --json /tmp/name_lookup.json

Which indexes to tune on and which to hold out is the caller's choice (docs/benchmarks.md
names them). `--smoke` indexes datasets/code into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import docql_sqlite  # noqa: E402
from docql_sqlite.path_kinds import is_test  # noqa: E402

CLASS_LIKE = ("class", "interface", "struct", "enum", "trait", "type")


def queries(index: docql_sqlite.Index, per_kind: int, seed: int) -> dict[str, list[dict]]:
    """Per kind ("class", "function"): the definitions to look up, a seeded sample."""
    rows = index.rows(
        "SELECT y.name, y.kind, y.parent, y.line, d.path FROM symbols y "
        "JOIN documents d ON d.id = y.doc_id "
        "WHERE y.name IN (SELECT name FROM symbols GROUP BY name HAVING count(*) = 1) "
        "AND length(y.name) >= 3 ORDER BY d.path, y.line"
    )
    out: dict[str, list[dict]] = {"class": [], "function": []}
    for row in rows:
        if is_test(row["path"]) or not row["name"].isidentifier():
            continue
        if row["kind"] in CLASS_LIKE:
            out["class"].append(row)
        elif row["kind"] == "function" and not row["parent"]:
            out["function"].append(row)
    rng = random.Random(seed)
    return {kind: rng.sample(found, min(per_kind, len(found))) for kind, found in out.items()}


def rank(index: docql_sqlite.Index, item: dict) -> int | None:
    """The 1-based rank of the passage holding the definition's first line, or None."""
    results = index.search(item["name"], limit=10)
    for i, r in enumerate(results, 1):
        if r["path"] == item["path"] and r["line"] <= item["line"] <= r["end_line"]:
            return i
    return None


def measure(db: Path, per_kind: int, seed: int) -> list[dict]:
    out = []
    with docql_sqlite.open(db) as index:
        for kind, items in queries(index, per_kind, seed).items():
            ranks = [rank(index, item) for item in items]
            n = len(ranks) or 1
            out.append(
                {
                    "index": db.name,
                    "kind": kind,
                    "queries": len(ranks),
                    "mrr@10": round(sum(1 / r for r in ranks if r) / n, 3),
                    "p@1": round(sum(1 for r in ranks if r == 1) / n, 3),
                    "missed": [i["name"] for i, r in zip(items, ranks) if r != 1][:12],
                    "names": sorted(i["name"] for i in items),
                }
            )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("dbs", nargs="*", type=Path)
    ap.add_argument("--per-kind", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--json", dest="json_out", type=Path)
    args = ap.parse_args()
    rows: list[dict] = []
    if args.smoke:
        root = Path(__file__).resolve().parents[1] / "datasets" / "code"
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Path(tmp) / "code"
            shutil.copytree(root, corpus)
            db = Path(tmp) / "code.db"
            docql_sqlite.index(db, [str(corpus)])
            rows = measure(db, args.per_kind, args.seed)
    else:
        if not args.dbs:
            ap.error("give one or more index files (or --smoke)")
        for db in args.dbs:
            rows += measure(db, args.per_kind, args.seed)
    for row in rows:
        print(json.dumps({k: v for k, v in row.items() if k != "names"}, ensure_ascii=False))
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
