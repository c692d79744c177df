"""Locations: the `path:line-end` strings every result carries, read back by `get`.

Every form the tool prints, and the ones people type, name lines of one document:

    guide.md                 the whole document
    guide.md:12              line 12
    guide.md:12-40           lines 12 to 40 (inclusive)
    guide.md:12:20           20 lines from line 12 (FROM:COUNT)
    manual.pdf:page 9        page 9 of a paged document (also `manual.pdf#page=9`)

A path may itself hold `:` (URLs, odd file names), so a location is read as every
split that fits, longest path first; `Index.get` takes the first whose path names an
indexed document.
"""

from __future__ import annotations

import re
from collections.abc import Callable

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


def candidates(spec: str) -> list[Location]:
    """Every reading of `spec`, the whole text as a path first."""
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
            last = int(match.group("last"))
            if last < first:
                raise LocationError(
                    f"'{spec}': the range ends (line {last}) before it starts (line {first})"
                )
            readings.append(Location(path, first, last))
        elif form == "count":
            count = _positive(int(match.group("count")), spec)
            readings.append(Location(path, first, first + count - 1))
        else:
            readings.append(Location(path, first, first))
    return readings


def from_parts(path: str, first: int | None = None, count: int | None = None) -> Location:
    """A location from separate fields (`get(path, from, count)` in the MCP tool)."""
    if first is None:
        if count is not None:
            return Location(path, 1, _positive(count, path))
        return Location(path)
    first = _positive(first, path)
    return Location(path, first, None if count is None else first + _positive(count, path) - 1)


def _positive(value: int, spec: str) -> int:
    if value < 1:
        raise LocationError(f"'{spec}': lines and pages are numbered from 1, got {value}")
    return value


def path_glob(pattern: str) -> Callable[[str], bool]:
    """A test of document paths against a glob: `**/` is any number of directories
    (none too), `**` anything, `*` and `?` characters within one path segment, `[abc]`
    a set. A pattern without wildcards must equal the path."""
    compiled = re.compile(glob_regex(pattern), re.DOTALL)
    return lambda path: compiled.match(path) is not None


def glob_regex(pattern: str) -> str:
    """The regular expression (`re` and `regex` syntax) that `path_glob` matches with: the
    MCP server runs it with the `regex` engine's timeout (agent/tools.py)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            negate = body.startswith(("!", "^"))
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out) + r"\Z"
