"""Follow the store through one smart search: which modules of `search/` it enters, in order.

Issue 21's measure of how a search flows. A step is a call of a `docql_sqlite.search`
function that receives the store (or an `Index`) as an argument, not as `self`; its
module is the room. Consecutive steps in one room are one visit; a visit to a room
visited before is a return. Also printed: the distinct module → module call edges of the
search package (a pipeline has no pair calling each other) and re-entries (a call into a
module already on the call stack below another one: A → B → A).

Full mode: `python benchmarks/search_rooms.py INDEX.db "how do I create a directory
recursively" "fs.readFile"` (an index of the Node.js API docs, corpora.md). `--smoke`
indexes a tiny tree copied from datasets/ into a temporary folder and follows three
queries. `--json OUT` writes the rows to OUT (`--json` alone: stdout). The search runs
once before it is measured, so that caches (term statistics, postings) do not add steps
that a warm server would not take. Counts of calls, not times: the load does not matter.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import benchlib  # noqa: E402

import docql_sqlite  # noqa: E402

PACKAGE = "docql_sqlite.search"
HOLDERS = {"Index", "SqliteStore", "PostgresStore"}
SKIPPED = {"<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>", "<lambda>"}


def follow(index: Any, text: str) -> tuple[list[str], set[tuple[str, str]], int]:
    """(rooms visited in order, module edges, re-entries) of one smart search."""
    visits: list[str] = []
    edges: set[tuple[str, str]] = set()
    stack: list[str] = []
    reentries = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal reentries
        module = frame.f_globals.get("__name__", "")
        if event == "return":
            if stack:
                stack.pop()
            return
        if event != "call":
            return
        if module.startswith(PACKAGE) and frame.f_code.co_name not in SKIPPED:
            caller = stack[-1] if stack else ""
            if caller.startswith(PACKAGE) and caller != module:
                edges.add((caller, module))
                reentries += module in stack
            code = frame.f_code
            names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
            held = [n for n in names if type(frame.f_locals.get(n)).__name__ in HOLDERS]
            if held and held != ["self"] and (not visits or visits[-1] != module):
                visits.append(module)
        stack.append(module)

    sys.setprofile(profile)
    try:
        index.search(text, mode="smart", limit=10)
    finally:
        sys.setprofile(None)
    return visits, edges, reentries


SMOKE_QUERIES = ("how do I install the index", "DocQLLexer", "架构")


def measure(path: str, texts: list[str]) -> list[dict[str, Any]]:
    rows = []
    with docql_sqlite.open(path) as index:
        for text in texts:
            index.search(text, mode="smart", limit=10)
            visits, edges, reentries = follow(index, text)
            rooms = [room.removeprefix(PACKAGE + ".") for room in visits]
            rows.append(
                {
                    "query": text,
                    "rooms": len(set(rooms)),
                    "visits": len(rooms),
                    "returns": sum(1 for i, room in enumerate(rooms) if room in rooms[:i]),
                    "module_edges": len(edges),
                    "mutual_pairs": sum(1 for a, b in edges if (b, a) in edges) // 2,
                    "reentries": reentries,
                    "path": rooms,
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("index", nargs="?", help="the index file to search")
    parser.add_argument("texts", nargs="*", help="search texts (smart mode)")
    parser.add_argument(
        "--json", nargs="?", const="-", metavar="OUT", help="JSON rows (to OUT, else stdout)"
    )
    parser.add_argument("--smoke", action="store_true", help="datasets/, three queries")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docql-search-rooms-") as tmp:
        if args.smoke:
            tree = benchlib.smoke_tree(Path(tmp) / "smoke")
            path = str(Path(tmp) / "smoke.db")
            docql_sqlite.index(path, [str(tree)])
            rows = measure(path, list(SMOKE_QUERIES))
        elif args.index and args.texts:
            rows = measure(args.index, args.texts)
        else:
            parser.error("give INDEX and search texts, or --smoke")
    if args.json == "-":
        print(json.dumps(rows, indent=2))
        return
    benchlib.write_json(Path(args.json) if args.json else None, rows)
    for row in rows:
        print(
            f"{row['query']!r}: {row['rooms']} rooms, {row['visits']} visits, "
            f"{row['returns']} returns; {row['module_edges']} module edges, "
            f"{row['mutual_pairs']} pairs calling each other, {row['reentries']} re-entries"
        )
        print("    " + " > ".join(row["path"]))


if __name__ == "__main__":
    main()
