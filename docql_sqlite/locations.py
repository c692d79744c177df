"""Locations: the `path:line-end` strings every result carries, read back by `get`.

Every form the tool prints, and the ones people type, name lines of one document:

    guide.md                 the whole document
    guide.md:12              line 12
    guide.md:12-40           lines 12 to 40 (inclusive)
    guide.md:12:20           20 lines from line 12 (FROM:COUNT)
    manual.pdf:page 9        page 9 of a paged document (also `manual.pdf#page=9`)

A path may itself hold `:` (URLs, odd file names), so a location is read as every
split that fits, longest path first; `Index.get` takes the first whose path names an
indexed document. A path may be given by a tail of it that names one document only
(`std/fs.md`), also as a narrow table prints it (`…/std/fs.md:12-40`: the CLI shortens
a path only to such a tail); a tail that several documents end in is an error naming them.
"""

from __future__ import annotations

import re

from .errors import LocationError
from .records import Record

# Pattern texts, compiled by `re` (and cached there) when a location is first read:
# compiling the five at import cost every process ~3M instructions (docs/benchmarks.md).
_SUFFIXES = (
    (r"^(?P<path>.+)#page=(?P<page>\d+)$", 0, "page"),
    (r"^(?P<path>.+):page[ =]?(?P<page>\d+)$", re.IGNORECASE, "page"),
    (r"^(?P<path>.+):(?P<first>\d+)-(?P<last>\d+)$", 0, "range"),
    (r"^(?P<path>.+):(?P<first>\d+):(?P<count>\d+)$", 0, "count"),
    (r"^(?P<path>.+):(?P<first>\d+)$", 0, "line"),
)


class Location(Record, frozen=True):
    """A document path and which of its lines: all (no bounds), a range, or a page."""

    path: str
    first: int | None = None  # 1-based, inclusive
    last: int | None = None  # 1-based, inclusive; None: to the end
    page: int | None = None

    def __str__(self) -> str:
        if self.page is not None:
            return f"{self.path}:page {self.page}"
        if self.first is None:
            return self.path
        if self.last == self.first:
            return f"{self.path}:{self.first}"
        return f"{self.path}:{self.first}-{self.last if self.last is not None else ''}"


SHORTENED = "…/"  # how a table marks a path it printed without its leading directories


def unshortened(path: str) -> str:
    """`path` without the `…/` a narrow table puts before a shortened path: the tail left
    is looked up like any path (exactly, or as the only document ending in it)."""
    return path[len(SHORTENED) :] if path.startswith(SHORTENED) else path


def candidates(spec: str) -> list[Location]:
    """Every reading of `spec`, the whole text as a path first."""
    return [Location(unshortened(r.path), r.first, r.last, r.page) for r in _readings(spec)]


def _readings(spec: str) -> list[Location]:
    readings = [Location(spec)]
    for pattern, flags, form in _SUFFIXES:
        match = re.match(pattern, spec, flags)
        if match is None:
            continue
        path = match.group("path")
        if form == "page":
            readings.append(Location(path, page=_positive(int(match.group("page")), spec)))
            continue
        first = _positive(int(match.group("first")), spec)
        if form == "range":
            last = min(int(match.group("last")), _LARGEST)  # (to the end of the document)
            if last < first:
                raise LocationError(
                    f"'{spec}': the range ends (line {last}) before it starts (line {first})"
                )
            readings.append(Location(path, first, last))
        elif form == "count":
            count = min(_positive(int(match.group("count")), spec), _LARGEST)
            readings.append(Location(path, first, first + count - 1))
        else:
            readings.append(Location(path, first, first))
    return readings


def from_parts(path: str, first: int | None = None, count: int | None = None) -> Location:
    """A location from separate fields (`get(path, from, count)` in the MCP tool)."""
    path = unshortened(path)
    if first is None:
        if count is not None:
            return Location(path, 1, _positive(count, path))
        return Location(path)
    first = _positive(first, path)
    return Location(path, first, None if count is None else first + _positive(count, path) - 1)


def parts_readings(spec: str, first: int | None = None, count: int | None = None) -> list[Location]:
    """Every reading of `spec` with separate `first`/`count` (the MCP `get`): the whole
    text as a path first, then each line location `spec` holds (`path:136` from a
    result), starting at its line unless `first` is given, `count` lines long. A location
    with `count` was read as one path and answered "no document 'path:136'"."""
    readings = [from_parts(spec, first, count)]
    for reading in candidates(spec)[1:]:
        if reading.first is None:  # a page: `first`/`count` are lines, not pages
            continue
        start = reading.first if first is None else _positive(first, spec)
        if count is not None:
            last: int | None = start + _positive(count, spec) - 1
        else:
            last = reading.last if first is None else None
        readings.append(Location(reading.path, start, last))
    return readings


# Above this no document has a line or a page (and SQLite's integers end at 2**63 - 1:
# `page 99999999999999999999999` was an OverflowError in the store).
_LARGEST = 2**53


def _positive(value: int, spec: str) -> int:
    if value < 1:
        raise LocationError(f"'{spec}': lines and pages are numbered from 1, got {value}")
    if value > _LARGEST:
        raise LocationError(f"'{spec}': {value} is past the end of any document")
    return value


_ESCAPED_CONTROL = r"\\x([01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])"


def unescape_controls(spec: str) -> str:
    """A location as a terminal showed it (`output.visible`: control characters as
    `\\xNN`) back to the stored text, so that `get` takes what the tool printed."""
    return re.sub(_ESCAPED_CONTROL, lambda m: chr(int(m.group(1), 16)), spec)
