"""Rows from compiled SQL → result items (dicts with the spec's fields).

Most items are the row itself. A few need Python: JSON columns become lists, front
matter keys are spread into the item, `$.structure` adds the directories of the tree,
and a regex `grep` gets its exact hit line (the SQL can only say "this chunk matches").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..sqlfunctions import compile_regex
from .compiler import Compiled


def build(compiled: Compiled, rows: Iterable[dict[str, Any]]) -> Iterator[Any]:
    if compiled.projection is not None:
        for row in rows:
            yield _decode(compiled, compiled.projection, row[compiled.projection])
        return
    if compiled.post == "structure":
        yield from _structure(rows)
        return
    for row in rows:
        item = {k: _decode(compiled, k, v) for k, v in row.items() if k != "_data"}
        if compiled.post == "frontmatter":
            data = json.loads(row["_data"]) if row.get("_data") else {}
            item.update({k: v for k, v in data.items() if k not in ("type", "path")})
        elif compiled.post == "regex_grep":
            _refine_regex_hit(item, *compiled.post_arg)
        yield item


def _decode(compiled: Compiled, name: str, value: Any) -> Any:
    spec = compiled.item.get(name)
    if spec is None and compiled.item.open_fields and name == compiled.projection:
        # A projected front-matter key arrives as JSON text (the compiler selects `_data -> key`).
        return json.loads(value) if isinstance(value, str) else value
    if spec is not None and spec.kind in ("list", "json") and isinstance(value, str):
        return json.loads(value)
    return value


def _refine_regex_hit(item: dict[str, Any], pattern: str, flags: str) -> None:
    content = item.get("content") or ""
    match = compile_regex(pattern, flags).search(content)
    if match is None:
        return
    item["hit_line"] = item["line"] + content.count("\n", 0, match.start())
    start = max(0, match.start() - 60)
    item["snippet"] = content[start : start + 160].replace("\n", " ").strip()


def _structure(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Directories and files, pre-order; each directory once, before its contents."""
    emitted: set[str] = set()
    for row in rows:
        parts = row["path"].split("/")
        for depth in range(1, len(parts)):
            directory = "/".join(parts[:depth])
            if directory not in emitted:
                emitted.add(directory)
                yield {"type": "structure", "path": directory + "/", "name": parts[depth - 1],
                       "kind": "directory", "depth": depth - 1, "format": None}
        yield {"type": "structure", "path": row["path"], "name": parts[-1], "kind": "file",
               "depth": len(parts) - 1, "format": row["format"]}


def structure_text(items: Iterable[dict[str, Any]]) -> str:
    """The tree as indented text (`docql-sqlite query DB '$.structure' -t`)."""
    return "".join("  " * item["depth"] + item["name"] + ("/" if item["kind"] == "directory" else "") + "\n" for item in items)
