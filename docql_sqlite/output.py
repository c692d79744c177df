r"""Result writers shared by every command: json, nl (JSON lines), csv, table, md.

JSON, JSON lines and CSV carry every field whole. The two tables are for reading:

- Long bodies (`content`, `source`) are left out unless `fields` names them, and then
  show their first line only; use --json for the whole text.
- `table` puts `location` first and leaves out the `path`, `line` and `end_line` it
  repeats (and `type` when every row has the same). Fitted to a width (`table_width`),
  it cuts long cells with `…` and never cuts a file name or its line numbers: a long
  path is shortened in the middle (`…/api/stream.md:62-63`). Columns that still do not
  fit are left out from the right, with a note, unless `fields` asked for them.
- On a terminal (and unless `NO_COLOR` is set or `TERM=dumb`), the `**hit**` marks of a
  search snippet are shown in bold instead of as asterisks; a table written to a file or
  a pipe keeps the marks as they are in --json.
- `md` goes into files and docs, so its values stay whole.

Control characters never reach a terminal raw: a file name or a document can hold ESC,
BEL or a C1 CSI, which a terminal would obey (colours, a new window title, a cursor moved
over what was printed). `visible` writes each as `\xNN`, the form an undecodable byte of
a file name already takes (design B19, as `ls -b` shows it). `table` and `md` always
escape them (in a path every one, newline and tab too; in other cells a newline is `⏎`
or `<br>` and a tab a space); `csv` escapes them when it is written to a terminal and
keeps exact values for a file or a pipe (data, as sqlite-utils and csvkit write it);
`json` and `nl` escape C0 as JSON does and also write DEL and C1 as `\u007f`…`\u009f`
(the same string to any JSON reader).

`fields` picks and orders the columns (the keys of each object) in every format.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from . import settings
from .errors import UsageError, display_width

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any, TextIO

FORMATS = ("json", "nl", "csv", "table", "md")
# Fields too long for a table cell: left to --json (or named in --fields).
BODY_FIELDS = ("content", "source")
# Columns a table never cuts: paths and the locations that hold them.
PATH_FIELDS = ("location", "path")
# A path → the shortest tail of it (whole directories) a table may print for it.
Shortest = Callable[[str], str]
# Fields a `location` already says.
_IN_LOCATION = ("path", "line", "end_line")
_COMFORTABLE_CELL = 24  # text columns are cut to this before any path is shortened
_MIN_CELL = 10  # a cut cell keeps at least this many characters
_SEPARATOR = "  "
# Fields whose `**hit**` marks (search/snippets.py) a terminal shows in bold.
MARKED_FIELDS = ("snippet",)
# A mark around a non-blank run without asterisks: `f(**kwargs)` or `a ** b` is no mark.
_MARK = re.compile(r"\*\*([^*\s](?:[^*\n]*?[^*\s])?)\*\*")
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


# C0 controls, DEL and C1 controls (U+0080-U+009F: a terminal may read U+009B as CSI).
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}
_CONTROLS_BUT_LINES = {c: v for c, v in _CONTROLS.items() if c not in (0x09, 0x0A)}
_JSON_UNSAFE = "[\x7f-\x9f]"  # compiled (and cached) by `re` on first use


def visible(text: str, *, lines: bool = False) -> str:
    """`text` with each control character written as `\\xNN` (ESC as `\\x1b`), so that
    printing it cannot drive a terminal; `lines` keeps tab and newline as they are."""
    if text.isprintable():  # the common case, checked in C
        return text
    return text.translate(_CONTROLS_BUT_LINES if lines else _CONTROLS)


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


# One encoder for every item: json.dumps(..., default=...) builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=_json_default)


def dumps(value: Any) -> str:
    """JSON text, with DEL and C1 controls escaped too (JSON escapes only C0)."""
    text = _ENCODER.encode(value)
    if text.isascii() and "\x7f" not in text:
        return text
    return re.sub(_JSON_UNSAFE, lambda m: f"\\u{ord(m.group()):04x}", text)


def table_width(stream: TextIO) -> int | None:
    """The width a table is fitted to: `$COLUMNS` when set, else the terminal's width
    when `stream` is a terminal, else None (a table written to a file keeps whole cells)."""
    columns = settings.columns()
    if columns is not None:
        return columns
    if stream.isatty():
        try:  # not shutil.get_terminal_size: importing shutil costs every command start-up
            return os.get_terminal_size(stream.fileno()).columns or 120
        except (OSError, ValueError, AttributeError):
            return 120
    return None


def write(
    items: Iterable[Any],
    fmt: str,
    stream: TextIO,
    *,
    fields: Sequence[str] | None = None,
    width: int | None = None,
    note: Callable[[str], None] | None = None,
    shortest: Shortest | None = None,
) -> int:
    """Write `items` (dicts or scalars) in `fmt`; returns how many were written.
    `fields` picks and orders the keys; `width` fits a table (default: `table_width`);
    `note` is told which columns a table left out to fit; `shortest` gives the shortest
    form of a path a table may print (see `shorten_path`)."""
    rows: Iterator[Any] = iter(items)
    if fields:
        rows = select_fields(rows, fields)
    if fmt == "table":
        bold = stream.isatty() and not settings.no_color() and not settings.dumb_terminal()
        return _write_table(
            rows, stream, fields, width or table_width(stream), note, bold, shortest
        )
    if fmt == "md":
        return _write_md(rows, stream, fields)
    return _WRITERS[fmt](rows, stream)


def parse_fields(text: str | None) -> tuple[str, ...] | None:
    """`--fields a,b,c` → ("a", "b", "c"); blanks are dropped, None stays None."""
    if text is None:
        return None
    fields = tuple(dict.fromkeys(f.strip() for f in text.split(",") if f.strip()))
    if not fields:
        raise UsageError("--fields needs at least one field name, e.g. --fields location,title")
    return fields


def select_fields(items: Iterable[Any], fields: Sequence[str]) -> Iterator[dict[str, Any]]:
    """Each item reduced to `fields`, in that order. A name no item has is an error (a
    typo would otherwise print an empty column); plain values have no fields to pick."""
    rows = list(items)
    known: dict[str, None] = {}
    for item in rows:
        if not isinstance(item, dict):
            raise UsageError("--fields picks fields of objects, and these results are plain values")
        known.update(dict.fromkeys(item))
    unknown = [f for f in fields if f not in known]
    if rows and unknown:
        raise UsageError(
            f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
            f"in --fields; these results have: {', '.join(known)}"
        )
    for item in rows:
        yield {f: item.get(f) for f in fields}


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


def _as_dict(item: Any) -> dict[str, Any]:
    return item if isinstance(item, dict) else {"value": item}


def _all_columns(rows: list[dict[str, Any]]) -> list[str]:
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    return list(columns)


def _write_csv(items: Iterator[Any], stream: TextIO) -> int:
    rows = [_as_dict(i) for i in items]
    columns = _all_columns(rows)
    import csv  # imported for CSV output only: start-up time of every other command

    # Exact values for a file or a program; a terminal gets no raw control character.
    shown = (lambda text: visible(text, lines=True)) if _isatty(stream) else (lambda t: t)
    writer = csv.writer(stream)
    if rows:
        writer.writerow(columns)
    for row in rows:
        writer.writerow([shown(_text(row.get(c))) for c in columns])
    return len(rows)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (ValueError, AttributeError):  # closed, or not a real stream
        return False


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return dumps(value)
    return str(value)


def _table_columns(rows: list[dict[str, Any]], terminal: bool) -> list[str]:
    """The columns a table shows when --fields does not say (see the module docstring)."""
    columns = [c for c in _all_columns(rows) if c not in BODY_FIELDS]
    if terminal and "location" in columns:
        columns = ["location"] + [c for c in columns if c not in ("location", *_IN_LOCATION)]
    if terminal and len({str(r.get("type")) for r in rows}) == 1:
        columns = [c for c in columns if c != "type"]  # the same in every row: says nothing
    return columns


def _cell(column: str, value: Any, newline: str) -> str:
    """A value as a table cell shows it: one line, no raw control character."""
    text = _text(value)
    if column in PATH_FIELDS:  # every character of a path is kept, escaped if need be
        return visible(text)
    text = text.replace("\r", "").replace("\t", " ")
    if column in BODY_FIELDS:  # the first line says what it is; --json has the rest
        first, _, rest = text.strip("\n").partition("\n")
        return visible(first) + (" …" if rest.strip() else "")
    return visible(text.replace("\n", newline))


def _write_table(
    items: Iterator[Any],
    stream: TextIO,
    fields: Sequence[str] | None,
    width: int | None,
    note: Callable[[str], None] | None = None,
    bold: bool = False,
    shortest: Shortest | None = None,
) -> int:
    rows = [_as_dict(i) for i in items]
    if not rows:
        return 0
    columns = list(fields) if fields else _table_columns(rows, terminal=True)
    cells = [[_cell(c, row.get(c), "⏎ ") for c in columns] for row in rows]
    # Bold hits: the marks come out before fitting (they take no room on the screen) and
    # their spans go back on whatever part of the cell the fitting kept.
    spans: dict[tuple[int, str], list[tuple[int, int]]] = {}
    if bold:
        for i, row in enumerate(cells):
            for j, column in enumerate(columns):
                if column in MARKED_FIELDS:
                    plain, found = unmark(row[j])
                    row[j] = plain
                    if found:
                        spans[(i, column)] = found
    if width is not None:
        widths = fit_widths(columns, cells, width, shortest)
        left_out: list[str] = []
        # Columns that still do not fit are left out from the right (paths and asked-for
        # columns never), and the rest fitted again in the room they leave.
        while not fields and _total(widths) > width:
            drop = next(
                (i for i in reversed(range(len(columns))) if columns[i] not in PATH_FIELDS), None
            )
            if drop is None or len(columns) == 1:
                break
            left_out.insert(0, columns.pop(drop))
            cells = [row[:drop] + row[drop + 1 :] for row in cells]
            widths = fit_widths(columns, cells, width, shortest)
        if left_out and note:
            note(
                f"note: left out {', '.join(left_out)} to fit {width} columns; "
                "see --fields or --json"
            )
        header = [_fit(c, c, w) for c, w in zip(columns, widths)]
        cells = [
            [_fit(c, v, w, shortest) for c, v, w in zip(columns, row, widths)] for row in cells
        ]
    else:
        header = list(columns)
    widths = [
        max([display_width(h)] + [display_width(r[i]) for r in cells]) for i, h in enumerate(header)
    ]

    def line(values: list[str], row: int | None = None) -> str:
        padded = []
        for v, w, c in zip(values, widths, columns):
            pad = " " * (w - display_width(v))
            found = spans.get((row, c)) if row is not None else None
            padded.append((embolden(v, found) if found else v) + pad)
        return _SEPARATOR.join(padded).rstrip()

    stream.write(line(header) + "\n")
    stream.write(_SEPARATOR.join("-" * w for w in widths) + "\n")
    for i, row in enumerate(cells):
        stream.write(line(row, i) + "\n")
    return len(cells)


def unmark(text: str) -> tuple[str, list[tuple[int, int]]]:
    """`text` without its `**hit**` marks, and the (start, end) of each hit in the result."""
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    at = used = 0
    for match in _MARK.finditer(text):
        plain.append(text[at : match.start()])
        used += match.start() - at
        plain.append(match.group(1))
        spans.append((used, used + len(match.group(1))))
        used += len(match.group(1))
        at = match.end()
    plain.append(text[at:])
    return "".join(plain), spans


def embolden(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span in bold; a span past a cut (`…`) is bold up to the cut."""
    out, at = [], 0
    # A hit never ends in `…`, so a cell that does was cut there: the mark stops before it.
    room = len(text) - 1 if text.endswith("…") else len(text)
    for start, end in spans:
        end = min(end, room)
        if start >= end or start < at:
            continue
        out += [text[at:start], _BOLD, text[start:end], _RESET]
        at = end
    out.append(text[at:])
    return "".join(out)


def fit_widths(
    columns: Sequence[str],
    cells: Sequence[Sequence[str]],
    width: int,
    shortest: Shortest | None = None,
) -> list[int]:
    """Column widths that fit `width` terminal cells, taken in three steps until it fits:
    text columns down to a comfortable width (the widest first), then paths down to their
    file name and line numbers (never less; with `shortest`, its tail), then text columns
    down to a few characters. A table that still does not fit loses columns (see
    `_write_table`). Each step's floors are worked out only when the step is needed (the
    paths' ask `shortest`, which may read the index)."""
    natural = [
        max([display_width(c)] + [display_width(r[i]) for r in cells])
        for i, c in enumerate(columns)
    ]
    widths = list(natural)
    excess = sum(widths) + len(_SEPARATOR) * (len(columns) - 1) - width
    texts = [i for i, c in enumerate(columns) if c not in PATH_FIELDS]
    paths = [i for i, c in enumerate(columns) if c in PATH_FIELDS]

    def shortest_paths() -> dict[int, int]:
        return {
            i: max(
                [display_width(columns[i])]
                + [display_width(shorten_path(r[i], 0, shortest)) for r in cells]
            )
            for i in paths
        }

    steps: tuple[tuple[list[int], Callable[[], dict[int, int]]], ...] = (
        (texts, lambda: {i: min(natural[i], _COMFORTABLE_CELL) for i in texts}),
        (paths, shortest_paths),
        (texts, lambda: {i: min(natural[i], _MIN_CELL) for i in texts}),
    )
    for group, floors in steps:
        if excess <= 0:
            break
        excess = _squeeze(widths, group, floors(), excess)
    return widths


def _total(widths: Sequence[int]) -> int:
    return sum(widths) + len(_SEPARATOR) * (len(widths) - 1)


def _squeeze(widths: list[int], group: list[int], floors: dict[int, int], excess: int) -> int:
    """Narrow the columns `group` by up to `excess` cells, widest first, none below its
    floor (water-filling: every column wider than a cap is cut to it). Returns what is
    still in excess."""
    if not group:
        return excess
    before = sum(widths[i] for i in group)

    def total(cap: int) -> int:
        return sum(max(floors[i], min(widths[i], cap)) for i in group)

    low, high = 0, max(widths[i] for i in group)  # the largest cap that removes enough
    while low < high:
        cap = (low + high + 1) // 2
        if before - total(cap) >= excess:
            low = cap
        else:
            high = cap - 1
    for i in group:
        widths[i] = max(floors[i], min(widths[i], low))
    return excess - (before - sum(widths[i] for i in group))


def _fit(column: str, text: str, width: int, shortest: Shortest | None = None) -> str:
    if display_width(text) <= width:
        return text
    if column in PATH_FIELDS:
        return shorten_path(text, width, shortest)
    return cut(text, width)


def cut(text: str, width: int) -> str:
    """`text` cut to `width` terminal cells, ending in `…` when something was cut."""
    if display_width(text) <= width:
        return text
    kept, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > width - 1:
            break
        kept.append(ch)
        used += w
    return "".join(kept).rstrip() + "…"


_LINES_SUFFIX = r"(:\d+(-\d*)?|:page \d+)$"  # compiled (and cached) by `re` on first use


def shorten_path(location: str, width: int, shortest: Shortest | None = None) -> str:
    """A path or location shortened in the middle to fit `width`: leading directories go
    (`…/api/stream.md:62-63`); the file name and line numbers always stay, even when they
    alone are wider than `width`. `shortest(path)` is the shortest tail of `path` that may
    stand for it (the CLI: one that names a single indexed document, so that `get` takes
    the shortened location too): it stays whole as well, and when it is the whole path,
    nothing is cut."""
    if display_width(location) <= width:
        return location
    match = re.search(_LINES_SUFFIX, location)
    head, suffix = (location[: match.start()], match.group()) if match else (location, "")
    parts = head.split("/")
    if len(parts) < 2:
        return location
    kept = shortest(head) if shortest else parts[-1]
    if kept == head:
        return location
    for part in reversed(parts[: -len(kept.split("/"))]):
        longer = part + "/" + kept
        if display_width("…/" + longer + suffix) > width:
            break
        kept = longer
    return "…/" + kept + suffix


def _write_md(items: Iterator[Any], stream: TextIO, fields: Sequence[str] | None) -> int:
    rows = [_as_dict(i) for i in items]
    if not rows:
        return 0
    columns = list(fields) if fields else _table_columns(rows, terminal=False)
    cells = [[_cell(c, row.get(c), "<br>") for c in columns] for row in rows]

    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    stream.write("| " + " | ".join(esc(c) for c in columns) + " |\n")
    stream.write("|" + "|".join("---" for _ in columns) + "|\n")
    for row in cells:
        stream.write("| " + " | ".join(esc(v) for v in row) + " |\n")
    return len(cells)


_WRITERS = {"json": _write_json, "nl": _write_nl, "csv": _write_csv}


def outline_lines(
    items: Iterable[dict[str, Any]], where: Callable[[dict[str, Any]], str]
) -> list[str]:
    """An outline as indented text, the one `toc` prints: each document's path, then its
    headings (`outline_entries`)."""
    lines: list[str] = []
    for head, line in outline_entries(items, where):
        if head is not None:
            lines.append(head)
        lines.append(line)
    return lines


def outline_entries(
    items: Iterable[dict[str, Any]], where: Callable[[dict[str, Any]], str]
) -> Iterator[tuple[str | None, str]]:
    """Per heading: (its document's path when it is the document's first heading, else
    None; the heading's line). The line is indented two spaces deeper per level of
    nesting (a child is one step under its parent even where heading levels are skipped
    or the document starts at `##`), shows the section number unless the title already
    starts with it (`1. Make a Docker image`, not `1 1. Make …`), then `(where(item))`.
    The CLI's `toc` and the MCP `toc` tool print these."""
    current = None
    open_levels: list[int] = []  # heading levels of the current item's ancestors
    for item in items:
        head = None
        if item["path"] != current:
            current = head = item["path"]
            open_levels = []
        while open_levels and open_levels[-1] >= item["level"]:
            open_levels.pop()
        indent = "  " * (len(open_levels) + 1)
        open_levels.append(item["level"])
        number, title = item["number"] or "", item["title"]
        shown = f"{number} {title}" if number and not _starts_with_number(title, number) else title
        yield head, f"{indent}{shown}  ({where(item)})"


def _starts_with_number(title: str, number: str) -> bool:
    """Whether `title` begins with `number` as a printed section number (`1.`, `1.2 `, `1)`),
    not with a longer one: `4.22.0` (a version in a changelog) does not print the number 4."""
    rest = title[len(number) :] if title.startswith(number) else None
    if rest is None:
        return False
    if rest.startswith(".") and rest[1:2].isdigit():
        return False
    return not rest or rest[0] in ". )\t:"
