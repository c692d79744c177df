"""Path globs: one dialect, gitignore's, for every filter that takes a glob.

`index --include/--exclude`, `--path` (query, search, context, the sqlite-utils and
Datasette commands, `docql()`), the MCP `get` of several documents and
`Index.documents(globs)` all read a glob the way a `.gitignore` line is read:

    *.md            a name at any depth: `guide.md`, `docs/api/stream.md`
    drafts          a file or directory named `drafts` at any depth, and all under it
    drafts/         only a directory: everything under any `drafts/`
    docs/*.md       contains a `/`: anchored at the start of the path; `*` stays within
                    one directory, so `docs/guide.md` but not `docs/api/stream.md`
    docs/**/*.md    `**` spans directories (none too): `docs/guide.md`, `docs/a/b/c.md`
    docs/**         everything under `docs/`
    /README.md      a leading `/` anchors a name without one
    ?  [abc]  [!a-z]  one character (not `/`), a set, a negated set; `\\*` a literal `*`

A path is matched as shown (relative, or absolute for files outside the directory the
index was built from: a leading `/` of the path is ignored). A leading `!` (gitignore's
negation) is refused: use --exclude. The rules are gitignore's (pathspec's
`GitIgnoreSpec` is the oracle in tests/test_globs.py).

A glob becomes one regular expression (`to_regex`), written in the common subset of
Python's `re`, PostgreSQL's `~` and the REGEXP of SQLite's regexp extension (which the
`sqlite3` shell has built in): so `--path` compiles to `d.path REGEXP '…'` that runs
unchanged in the shell, and every entry point matches the same paths.

Matching in Python (`matcher`) under a query's time limit (`deadline`) runs in the
`regex` engine with the time left as its `timeout=` and the GIL released: a glob such as
`**/` x 300 or `*a` x 30 backtracks for ever in `re`, holding the GIL, and a search
scoped by it froze every thread of an MCP server (its event loop and `/health`
included). Without a time limit (the walk's --include/--exclude) it runs in `re`, as
before.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from . import deadline
from .errors import UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

# Characters a regex would read as operators: escaped with a backslash, which every
# dialect above accepts for these (SQLite's regexp.c only for exactly these).
_BACKSLASHED = set("\\{}()[]|*+?.")
# `^` and `$` have no backslash escape in regexp.c: written as hex escapes instead.
_HEX = {"^": r"\x5e", "$": r"\x24"}


def _literal(ch: str) -> str:
    if ch in _BACKSLASHED:
        return "\\" + ch
    return _HEX.get(ch, ch)


def _class(body: str) -> str:
    """A `[...]` set (body without the brackets) as a regex set that never matches `/`."""
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    out = []
    for ch in body.replace("/", ""):  # a set never matches the separator (git's rule)
        if ch in "\\[]^":
            out.append(_HEX.get(ch) or "\\" + ch)
        else:
            out.append(ch)
    return ("[^/" if negate else "[") + "".join(out) + "]"


def _segment(glob: str) -> str:
    """One path segment's glob (no `/`) as a regex: `*`, `?`, sets, `\\x` literals."""
    out, i = [], 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*":
            while i + 1 < len(glob) and glob[i + 1] == "*":
                i += 1  # `a**b`: git reads consecutive stars inside a segment as one
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "\\" and i + 1 < len(glob):
            i += 1
            out.append(_literal(glob[i]))
        elif ch == "[":
            # `]` right after `[` (or `[!`) belongs to the set, as in git and fnmatch
            start = i + 2 if glob[i + 1 : i + 2] in ("!", "^") else i + 1
            end = glob.find("]", start + 1)
            if end < 0:
                out.append(_literal(ch))
            else:
                out.append(_class(glob[i + 1 : end]))
                i = end
        else:
            out.append(_literal(ch))
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=256)
def to_regex(glob: str) -> str:
    """The regular expression (whole path, `^…$`) that matches what `glob` matches."""
    if not glob or not glob.strip("/"):
        raise UsageError(f"'{glob}' is not a glob: give a name or a path, e.g. '*.md' or 'docs/**'")
    if glob.startswith("!"):
        raise UsageError(
            f"'{glob}': a leading '!' (gitignore's negation) is not supported here; "
            "use --exclude to leave paths out (or '\\!' for a name that starts with '!')"
        )
    directory_only = glob.endswith("/")
    body = glob.rstrip("/")
    anchored = "/" in body
    body = body.lstrip("/")
    parts = body.split("/")
    out = ["^/?" if anchored else "^(.*/)?"]
    for n, part in enumerate(parts):
        last = n == len(parts) - 1
        if part == "**":
            if n == 0:
                out.append("(.*/)?")  # `**/x`: x at any depth
            elif last:
                out.append(".*")  # `x/**`: everything under x (the slash came before)
            else:
                out.append("(.*/)?")  # `a/**/b`: none or more directories between
            continue
        out.append(_segment(part))
        if not last:
            out.append("/")
    # A match of a directory matches everything under it; `dir/` only a directory.
    out.append("/.*$" if directory_only else "(/.*)?$")
    return "".join(out)


@functools.lru_cache(maxsize=256)
def _compiled(glob: str) -> re.Pattern[str]:
    return re.compile(to_regex(glob), re.DOTALL)


@functools.lru_cache(maxsize=256)
def _timed(glob: str) -> Any:
    import regex

    return regex.compile(to_regex(glob), regex.DOTALL | regex.V0)


def matcher(globs: str | Iterable[str]) -> Callable[[str], bool]:
    """A test of paths: True when any of `globs` matches. A directory's path may end in
    `/` (as the walk gives it), which `drafts/`-style globs need to match it. Under a
    time limit, a match that runs out of it raises the limit's `QueryTimeout`."""
    listed = [globs] if isinstance(globs, str) else list(globs)
    patterns = [_compiled(g) for g in listed]
    timed: list[Any] = []

    def matches(path: str) -> bool:
        left = deadline.remaining()  # raises when out of time
        if left is None:
            return any(p.match(path) is not None for p in patterns)
        if not timed:
            timed.extend(_timed(g) for g in listed)
        for pattern in timed:
            try:
                if pattern.match(path, timeout=left, concurrent=True) is not None:
                    return True
            except TimeoutError:
                running = deadline.current()
                raise (running.expired() if running else deadline.timed_out(left)) from None
        return False

    return matches


def matches(glob: str, path: str) -> bool:
    """Whether `glob` matches `path` (see the module docstring)."""
    return _compiled(glob).match(path) is not None
