"""Smart search's uses list: for "who calls X" or "where is X used" (`frames.py`), the
passages that hold the uses of the name X in code.

The answer to such a question is a list of places, which `$.code.callers("X")` and
`$.code.references("X")` give in DocQL; an agent that asks in words got passages that
mention X instead (on yargs "who calls parseArgs" found `parseArgs`' own definition
first, then two passages that name neither). This list holds the chunk around each use
of the name (a call for "calls", any use for "used": a type's, an import, an
inheritance), those resolved to a definition first (`local`, `import`, `unique`), then
the ambiguous ones, then the unresolved, each group by path and line; a chunk once. A
qualified name (`Session.merge`) keeps the uses resolved to a definition of that
qualified name or ending in it, as `$.code.callers("Session.merge")` does, or to the
name in a folder or file the part before names (Go's `io.Copy`), and the undecided
uses written after the part before (`Handle::spawn(h)`, `handle.spawn(f)`). The list weighs
`WEIGHT`, and the name lists and the vector list are left out of such a search when it
finds a use (`LEFT_OUT`: X's definition is no use of X), so the uses come before the
passages that only name X.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..query import items as item_sql
from ..query.functions import dotted_name
from ..ref_codes import REFERENCE_KINDS, RESOLUTIONS
from ..sqlparams import Params
from ..text import fold
from . import fusion, ranking

if TYPE_CHECKING:
    from ..store import Store

# Four lists of weight 1: a use's passage outranks the definition the other lists find
# by its name (BM25 and the name bonus); the lists that match names (`NAME_LISTS`: the
# definition and names holding the words) are left out of such a search.
WEIGHT = 4.0
NAME_LISTS = frozenset({"symbols", "code_words"})
# ... and so is the vector list, which a question boosts for its meaning ("where is
# io.Copy used" found `import "io"` blocks first, near in meaning, no use of `Copy`).
LEFT_OUT = NAME_LISTS | {"vector"}
_CALL = REFERENCE_KINDS.index("call")
# The resolutions in the order their uses come: linked to a definition, then undecided.
_ORDER = {RESOLUTIONS.index(r): n for n, r in enumerate(("local", "import", "unique"))}
_AMBIGUOUS, _UNRESOLVED = RESOLUTIONS.index("ambiguous"), RESOLUTIONS.index("unresolved")


def name_of(topic: str) -> tuple[str, str | None]:
    """(the name a use is written with, the qualified name it must resolve to or None)
    of a frame's topic: `Session.merge` → (`merge`, `Session.merge`), `fs::read()` →
    (`read`, `fs.read`), `parse_args` → (`parse_args`, None)."""
    name = dotted_name(topic.removesuffix("()"))
    short = name.rsplit(".", 1)[-1]
    return short, (name if name != short else None)


def ranked(
    store: Store, topic: str, kind: str, paths: tuple[str, ...], depth: int
) -> fusion.Ranked:
    """The list `uses`: the chunks holding the uses of `topic` (`kind` "call": calls
    alone), best first, at most `depth`."""
    return fusion.Ranked("uses", WEIGHT, _rows(store, topic, kind, paths, depth))


def _rows(
    store: Store, topic: str, kind: str, paths: tuple[str, ...], depth: int
) -> list[dict[str, Any]]:
    params = Params(store.dialect)
    dialect = params.dialect
    scope = ranking.scope_sql(store, paths, params)
    short, qualified = name_of(topic)
    where = f"r.name = {params.add(short)}"
    if kind == "call":
        where += f" AND r.kind = {_CALL}"
    if qualified is not None:
        # resolved to that qualified name (`Session.merge`), or to a definition of the
        # name in a folder or file the part before names (Go's `io.Copy`: the function
        # `Copy` of `io/io.go`), as the symbols list reads a qualified name
        parent = fold(qualified.rsplit(".", 1)[0].rsplit(".", 1)[-1])
        tail = dialect.ends_with("t.qualified_name", params.add("." + qualified))
        folder = ranking.named_by_path("td.path", parent, params)
        # ... or, undecided, written after the class's name or a value named like it
        # (tokio's `current_thread::Handle::spawn(h, …)` and `handle.spawn(…)`: "who calls
        # Handle::spawn" found no use, no receiver's type being known), after the others
        undecided = (
            f"(r.resolution IN ({_AMBIGUOUS}, {_UNRESOLVED}) AND "
            f"{dialect.ascii_lower('r.qualifier')} = {params.add(parent)})"
        )
        where += (
            f" AND (t.qualified_name = {params.add(qualified)} OR {tail} OR "
            f"(t.qualified_name = t.name AND ({folder})) OR {undecided})"
        )
    order = " ".join(f"WHEN {code} THEN {n}" for code, n in _ORDER.items())
    rank = (
        f"CASE r.resolution {order} WHEN {_AMBIGUOUS} THEN {len(_ORDER)} "
        f"WHEN {_UNRESOLVED} THEN {len(_ORDER) + 1} ELSE {len(_ORDER) + 2} END"
    )
    sql = f"""WITH used AS MATERIALIZED (
  SELECT r.doc_id AS doc_id, r.line AS line, {rank} AS rank, d.path AS path
  FROM refs r JOIN documents d ON d.id = r.doc_id LEFT JOIN symbols t ON t.id = r.target_id
  LEFT JOIN documents td ON td.id = t.doc_id
  WHERE {scope} AND {where}
  ORDER BY rank, {dialect.sort_key("d.path")}, r.line
  LIMIT {int(depth) * 4})
SELECT {item_sql.chunk_columns(dialect)}, u.rank AS _rank
FROM used u JOIN chunks c ON c.doc_id = u.doc_id AND c.line <= u.line AND c.end_line >= u.line
JOIN documents d ON d.id = c.doc_id LEFT JOIN sections sec ON sec.id = c.section_id
ORDER BY u.rank, {dialect.sort_key("u.path")}, u.line"""
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    for row in store.rows(sql, params.values):
        if row["_chunk"] not in seen:  # several uses in one passage: the passage once
            seen.add(row["_chunk"])
            out.append(row)
            if len(out) == depth:
                break
    return out
