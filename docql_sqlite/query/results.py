"""Rows from compiled SQL → result items (dicts with the spec's fields).

Most items are the row itself. A few need Python: JSON columns become lists, front
matter keys are spread into the item, and a regex `grep` gets its exact hit line (the
SQL can only say "this chunk matches"). `$.structure` rows (directories included) come
straight from the SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from ..sqlfunctions import guarded_search
from . import items as item_sql
from .compiler import Compiled

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

# A result's text fields (a section's content, a symbol's source) are cut at this many
# characters: one huge section must not make a reply of tens of megabytes. The cut says
# where the rest is (`get` reads any range of lines).
MAX_TEXT_CHARS = 1_000_000
_TEXT_FIELDS = ("content", "source")


def bounded(value: Any, location: Any = None) -> Any:
    """`value` cut at MAX_TEXT_CHARS with a note naming the rest, when it is longer."""
    if not isinstance(value, str) or len(value) <= MAX_TEXT_CHARS:
        return value
    where = f"; read the rest with: get {location}" if location else ""
    return (
        value[:MAX_TEXT_CHARS]
        + f"\n…[cut at {MAX_TEXT_CHARS:,} of {len(value):,} characters{where}]\n"
    )


def build(compiled: Compiled, rows: Iterable[dict[str, Any]]) -> Iterator[Any]:
    if compiled.item.name == item_sql.SECTION.name:  # (the item type is made per dialect)
        rows = _integral_tiers(rows)
    if compiled.projection is not None:
        name = compiled.projection
        spec = compiled.item.get(name)
        # A JSON column, or a projected front-matter key (the compiler selects `_data -> key`).
        as_json = (spec is None and compiled.item.open_fields) or (
            spec is not None and spec.kind in ("list", "json")
        )
        for row in rows:
            value = row[name]
            if as_json and isinstance(value, str):
                yield json.loads(value)
            else:
                yield bounded(value, row.get("location")) if name in _TEXT_FIELDS else value
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
        for name in _TEXT_FIELDS:
            if name in item:
                item[name] = bounded(item[name], item.get("location"))
        yield item


def _integral_tiers(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """A section's score as SQLite gives it, on every engine: heading()'s title tiers (3,
    2, 1) are integers and its body fallback 0.5 a float, each row its own type on SQLite;
    PostgreSQL's UNION ALL gives the column one type (float8), so 3 came back as 3.0.
    Sections have no other scores (NULL, the tiers, 0.5), so an integral float is a tier."""
    for row in rows:
        score = row.get("score")
        if isinstance(score, float) and score.is_integer():
            row["score"] = int(score)
        yield row


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
