"""Rows from compiled SQL → result items (dicts with the spec's fields).

Most items are the row itself. A few need Python: JSON columns become lists, front
matter keys are spread into the item, and a regex `grep` gets its exact hit line (the
SQL can only say "this chunk matches"). `$.structure` rows (directories included) come
straight from the SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..sqlfunctions import guarded_search
from .compiler import Compiled


def build(compiled: Compiled, rows: Iterable[dict[str, Any]]) -> Iterator[Any]:
    if compiled.projection is not None:
        name = compiled.projection
        spec = compiled.item.get(name)
        # A JSON column, or a projected front-matter key (the compiler selects `_data -> key`).
        as_json = (spec is None and compiled.item.open_fields) or (
            spec is not None and spec.kind in ("list", "json")
        )
        for row in rows:
            value = row[name]
            yield json.loads(value) if as_json and isinstance(value, str) else value
        return
    # Decided once per query, not per value: building items is most of the Python time.
    json_columns = {f.name for f in compiled.item.fields if f.kind in ("list", "json")}
    for row in rows:
        item = {
            k: (json.loads(v) if k in json_columns and isinstance(v, str) else v)
            for k, v in row.items()
            if k != "_data"
        }
        if compiled.post == "frontmatter":
            data = json.loads(row["_data"]) if row.get("_data") else {}
            item.update({k: v for k, v in data.items() if k not in ("type", "path")})
        elif compiled.post == "regex_grep":
            _refine_regex_hit(item, *compiled.post_arg)
        yield item


def _refine_regex_hit(item: dict[str, Any], pattern: str, flags: str) -> None:
    content = item.get("content") or ""
    match = guarded_search(pattern, content, flags)  # within the query's time limit
    if match is None:
        return
    item["hit_line"] = item["line"] + content.count("\n", 0, match.start())
    start = max(0, match.start() - 60)
    item["snippet"] = content[start : start + 160].replace("\n", " ").strip()


def structure_text(items: Iterable[dict[str, Any]]) -> str:
    """The tree as indented text (`docql-sqlite query DB '$.structure' -t`)."""
    return "".join(
        "  " * item["depth"] + item["name"] + ("/" if item["kind"] == "directory" else "") + "\n"
        for item in items
    )
