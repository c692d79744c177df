"""The reference graph of the indexed code, read for the repository map (`repomap.py`).

Nodes are symbols; an edge goes from the symbol a reference sits in (or from its file,
for a top-level reference) to what it refers to: the resolved target, or, for an
`ambiguous` reference, every definition of that name in the same language (each with an
equal share, as a repository map built from names alone would).
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections import defaultdict
from typing import Any, NamedTuple

from ..dialect import Dialect
from ..ref_codes import REFERENCE_KINDS, RESOLUTIONS


class GraphSymbol(NamedTuple):
    """A symbol as the map reads it: a tuple (a map of a 279 MB index reads 239k of them;
    a record each took 0.8 s)."""

    id: int
    doc_id: int
    ord: int
    path: str
    kind: str
    name: str
    qualified_name: str
    signature: str | None
    line: int
    end_line: int
    language: str
    parent: str | None
    docstring: str | None


def _execute(conn: Any, dialect: Dialect, sql: str, params: Any = ()) -> Any:
    return conn.execute(dialect.positional(sql), params)


def symbols(conn: Any, dialect: Dialect) -> list[GraphSymbol]:
    sql = (
        "SELECT y.id, y.doc_id, y.ord, d.path, y.kind, y.name, y.qualified_name, y.signature, "
        "y.line, y.end_line, y.language, y.parent, y.docstring FROM symbols y "
        f"JOIN documents d ON d.id = y.doc_id ORDER BY {dialect.sort_key('d.path')}, y.ord"
    )
    return [GraphSymbol(*row) for row in _execute(conn, dialect, sql)]


def reference_counts(
    conn: Any, dialect: Dialect
) -> list[tuple[int, int | None, str, str, int | None, str, int]]:
    """(doc_id, caller_ord, name, kind, target_id, resolution, how many times), grouped:
    one row per distinct edge, not per reference; the kind and the resolution by name."""
    unresolved, imported = RESOLUTIONS.index("unresolved"), REFERENCE_KINDS.index("import")
    sql = (
        "SELECT r.doc_id, r.caller_ord, r.name, r.kind, r.target_id, r.resolution, count(*) "
        f"FROM refs r WHERE r.resolution != {unresolved} AND r.kind != {imported} "
        "GROUP BY r.doc_id, r.caller_ord, r.name, r.kind, r.target_id, r.resolution"
    )
    return [
        (doc_id, caller_ord, name, REFERENCE_KINDS[kind], target, RESOLUTIONS[resolution], n)
        for doc_id, caller_ord, name, kind, target, resolution, n in _execute(conn, dialect, sql)
    ]


def file_imports(
    conn: Any, dialect: Dialect, doc_ids: set[int]
) -> dict[int, list[tuple[str, list[str], str | None]]]:
    """The modules each of `doc_ids` imports, as written, with the names imported from
    them and the alias they are bound to: the map narrows an ambiguous use to the
    definitions in what the using file imports, and reads `http.Get` as the `Get` of the
    module imported as `http`."""
    out: dict[int, list[tuple[str, list[str], str | None]]] = defaultdict(list)
    for doc_id, module, names, alias in _execute(
        conn, dialect, "SELECT doc_id, module, names, alias FROM imports"
    ):
        if doc_id in doc_ids:
            out[doc_id].append((module, json.loads(names) if names else [], alias))
    return out


def documents(conn: Any, dialect: Dialect, doc_ids: set[int]) -> dict[int, tuple[str, str]]:
    """(path, language) of each of `doc_ids`."""
    sql = "SELECT id, path, language FROM documents"
    return {
        doc_id: (path, language or "")
        for doc_id, path, language in _execute(conn, dialect, sql)
        if doc_id in doc_ids
    }


def by_name(items: list[GraphSymbol]) -> dict[tuple[str, str], list[GraphSymbol]]:
    """Symbols by (language family, name), for spreading an ambiguous reference."""
    out: dict[tuple[str, str], list[GraphSymbol]] = defaultdict(list)
    for s in items:
        out[(s.language, s.name)].append(s)
    return out


def ambiguous_uses(
    conn: Any, dialect: Dialect, names: list[str] | None = None
) -> list[tuple[int, int | None, str, str, int, str]]:
    """(doc_id, caller_ord, name, kind, candidates, the text of its line before it) of every
    `ambiguous` reference (imports aside), or of those to one of `names`: the map reads
    a use's qualifier (`http.` in `http.Get(u)`, none in `len(x)`) to tell a package's
    function from a method of the same name. The lines come from the chunks, each chunk
    read once; a line no chunk holds gives an empty text."""
    ambiguous, imported = RESOLUTIONS.index("ambiguous"), REFERENCE_KINDS.index("import")
    sql = (
        "SELECT r.doc_id, r.caller_ord, r.name, r.kind, r.candidates, r.line, r.col FROM refs r "
        f"WHERE r.resolution = {ambiguous} AND r.kind != {imported}"
    )
    rows: list[tuple[int, int | None, str, int, int, int, int]] = []
    if names is None:
        rows += _execute(conn, dialect, sql)
    for start in range(0, len(names or ()), _PER_QUERY):
        batch = (names or [])[start : start + _PER_QUERY]
        marks = ", ".join("?" * len(batch))
        rows += _execute(conn, dialect, f"{sql} AND r.name IN ({marks})", batch)
    lines_of: dict[int, set[int]] = defaultdict(set)
    for doc_id, _caller, _name, _kind, _candidates, line, _col in rows:
        lines_of[doc_id].add(line)
    wanted = {doc_id: sorted(lines) for doc_id, lines in lines_of.items()}
    text: dict[tuple[int, int], str] = {}
    docs = sorted(wanted)
    for start in range(0, len(docs), _PER_QUERY):
        ids = docs[start : start + _PER_QUERY]
        marks = ", ".join("?" * len(ids))
        chunks = f"SELECT doc_id, line, end_line, content FROM chunks WHERE doc_id IN ({marks})"
        for doc_id, first, last, content in _execute(conn, dialect, chunks, ids):
            held_lines = wanted[doc_id]
            lines = held_lines[bisect_left(held_lines, first) : bisect_right(held_lines, last)]
            if lines:
                held = content.split("\n", max(lines) - first + 1)
                for n in lines:
                    text.setdefault((doc_id, n), held[n - first] if n - first < len(held) else "")
    return [
        (
            doc_id,
            caller,
            name,
            REFERENCE_KINDS[kind],
            candidates,
            text.get((doc_id, line), "")[: col - 1],
        )
        for doc_id, caller, name, kind, candidates, line, col in rows
    ]


_PER_QUERY = 500  # bound parameters per statement


def file_texts(conn: Any, dialect: Dialect, doc_ids: list[int]) -> dict[int, str]:
    """The text of each of `doc_ids`, its chunks in order: the map reads what a module
    declares as its API (Python's `__all__`, the `export`s of TypeScript and JavaScript)."""
    parts: dict[int, list[str]] = defaultdict(list)
    for start in range(0, len(doc_ids), _PER_QUERY):
        ids = doc_ids[start : start + _PER_QUERY]
        sql = (
            f"SELECT doc_id, content FROM chunks WHERE doc_id IN ({', '.join('?' * len(ids))}) "
            "ORDER BY doc_id, chunk_index"
        )
        for doc_id, content in _execute(conn, dialect, sql, ids):
            parts[doc_id].append(content)
    return {doc_id: "".join(texts) for doc_id, texts in parts.items()}
