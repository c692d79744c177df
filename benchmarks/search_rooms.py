"""Follow the store through one smart search: which modules of `search/` it enters, in order.

Issue 21's measure of how a search flows. A step is a call of a `docql_sqlite.search`
function that receives the store (or an `Index`) as an argument, not as `self`; its
module is the room. Consecutive steps in one room are one visit; a visit to a room
visited before is a return. Also printed: the distinct module → module call edges of the
search package (a pipeline has no pair calling each other) and re-entries (a call into a
module already on the call stack below another one: A → B → A).

    python benchmarks/search_rooms.py INDEX.db "how do I create a directory recursively"

The search runs once before it is measured, so that caches (term statistics, postings)
do not add steps that a warm server would not take.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import docql_sqlite

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


def main(path: str, texts: list[str]) -> None:
    with docql_sqlite.open(path) as index:
        for text in texts:
            index.search(text, mode="smart", limit=10)
            visits, edges, reentries = follow(index, text)
            returns = sum(1 for i, room in enumerate(visits) if room in visits[:i])
            mutual = sum(1 for a, b in edges if (b, a) in edges) // 2
            short = [room.removeprefix(PACKAGE + ".") for room in visits]
            print(
                f"{text!r}: {len(set(visits))} rooms, {len(visits)} visits, {returns} returns; "
                f"{len(edges)} module edges, {mutual} pairs calling each other, "
                f"{reentries} re-entries"
            )
            print("    " + " > ".join(short))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
