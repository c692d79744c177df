"""Result writers shared by every command: json, nl (JSON lines), csv, table, md.

JSON is streamed as an array of objects; the human formats flatten nested values and
truncate long text so a table stays readable on a terminal (use --json for everything).
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

FORMATS = ("json", "nl", "csv", "table", "md")
_CELL_MAX = 60


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_json_default)


def write(items: Iterable[Any], fmt: str, stream: TextIO) -> int:
    """Write `items` (dicts or scalars) in `fmt`; returns how many were written."""
    return _WRITERS[fmt](iter(items), stream)


def _write_json(items: Iterator[Any], stream: TextIO) -> int:
    count = 0
    for item in items:
        stream.write("[\n  " if count == 0 else ",\n  ")
        stream.write(dumps(item))
        count += 1
    stream.write("[]\n" if count == 0 else "\n]\n")
    return count


def _write_nl(items: Iterator[Any], stream: TextIO) -> int:
    count = 0
    for item in items:
        stream.write(dumps(item) + "\n")
        count += 1
    return count


def _columns(rows: list[Any]) -> list[str]:
    columns: list[str] = []
    for row in rows:
        for key in row if isinstance(row, dict) else ["value"]:
            if key not in columns:
                columns.append(key)
    return columns


def _cell(value: Any, limit: int | None, newline: str | None = "⏎ ") -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        value = dumps(value)
    text = str(value).replace("\r", " ")
    if newline is not None:  # one row per line in tables
        text = text.replace("\n", newline)
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _as_dict(item: Any) -> dict[str, Any]:
    return item if isinstance(item, dict) else {"value": item}


def _write_csv(items: Iterator[Any], stream: TextIO) -> int:
    rows = [_as_dict(i) for i in items]
    columns = _columns(rows)
    writer = csv.writer(stream)
    if rows:
        writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c), None, newline=None) for c in columns])
    return len(rows)


def _table_rows(
    items: Iterator[Any], truncate: bool, newline: str = "⏎ "
) -> tuple[list[str], list[list[str]]]:
    rows = [_as_dict(i) for i in items]
    columns = _columns(rows)
    limit = None
    if truncate:  # only a terminal needs cells cut to fit its width
        width = shutil.get_terminal_size((120, 20)).columns
        limit = max(12, min(_CELL_MAX, width // max(1, len(columns))))
    return columns, [[_cell(row.get(c), limit, newline) for c in columns] for row in rows]


def _write_table(items: Iterator[Any], stream: TextIO) -> int:
    from .errors import display_width

    columns, cells = _table_rows(items, truncate=stream.isatty())
    if not cells:
        return 0
    widths = [
        max([display_width(c)] + [display_width(r[i]) for r in cells])
        for i, c in enumerate(columns)
    ]

    def line(values: list[str]) -> str:
        return "  ".join(v + " " * (w - display_width(v)) for v, w in zip(values, widths)).rstrip()

    stream.write(line(columns) + "\n")
    stream.write("  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        stream.write(line(row) + "\n")
    return len(cells)


def _write_md(items: Iterator[Any], stream: TextIO) -> int:
    columns, cells = _table_rows(items, truncate=False, newline="<br>")
    if not cells:
        return 0
    esc = lambda s: s.replace("|", "\\|")  # noqa: E731
    stream.write("| " + " | ".join(esc(c) for c in columns) + " |\n")
    stream.write("|" + "|".join("---" for _ in columns) + "|\n")
    for row in cells:
        stream.write("| " + " | ".join(esc(v) for v in row) + " |\n")
    return len(cells)


_WRITERS = {
    "json": _write_json,
    "nl": _write_nl,
    "csv": _write_csv,
    "table": _write_table,
    "md": _write_md,
}
