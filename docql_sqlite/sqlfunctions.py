"""Python SQL functions for clients that host Python (apsw, Datasette, sqlite-utils).

They are conveniences: compiled DocQL never calls them, so the SQL it prints still runs
in a plain `sqlite3` shell. The same callables are registered by `db.register_functions`
and by the Datasette plugin.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from . import deadline
from .errors import DocQLError, DocQLRegexError
from .text import fold

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

REGEX_LITERAL = r"^/(.*)/([ims]*)$"  # compiled (and cached) by `re` on first use
GUARDED_CACHE_SIZE = 256  # compiled user patterns kept (`_compiled`)


def heading_score(title: str | None, keyword: str | None) -> float:
    """The spec's title tier: 3 exact, 2 starts with, 1 contains, 0 otherwise (case-insensitive)."""
    if title is None or keyword is None:
        return 0
    t, k = fold(title), fold(keyword)
    if t == k:
        return 3
    if t.startswith(k):
        return 2
    return 1 if k in t else 0


def chapter_match(number: str | None, chapter_id: str | None) -> int:
    """1 when a section `number` is the chapter `chapter_id` ('1.2'), else 0."""
    if number is None or chapter_id is None:
        return 0
    return int(str(number) == str(chapter_id).strip())


def grep_count(text: str | None, pattern: str | None) -> int:
    """Occurrences of `pattern` in `text`: case-insensitive substring, or `/regex/flags`."""
    if text is None or pattern is None:
        return 0
    literal = re.match(REGEX_LITERAL, pattern, re.S)
    if literal:
        return _guarded_count(literal.group(1), text, literal.group(2))
    needle = fold(pattern)
    return fold(text).count(needle) if needle else 0


def rrf(rank: Any, k: float = 60.0, weight: float = 1.0) -> float:
    """Reciprocal-rank-fusion contribution of a 1-based `rank` (0 when absent)."""
    if rank is None:
        return 0.0
    if k + float(rank) <= 0:
        raise DocQLError(f"docql_rrf: ranks start at 1 and k must be positive (rank {rank}, k {k})")
    return weight / (k + float(rank))


# Guards against catastrophic backtracking (`(a+)+$`): a cap on the pattern's length, and
# the `regex` engine's `timeout=` set to the time the running query has left (`deadline`):
# one time limit per query, not per row. Called outside any query (a Python host's own
# SQL), each match gets MATCH_TIMEOUT_S. `concurrent=True` releases the GIL while the
# engine matches: a catastrophic match then stalls only its own thread, not a server's
# other threads (the MCP server's quick calls).
MAX_PATTERN_CHARS = 1000
MATCH_TIMEOUT_S = 0.5  # per match, for SQL run outside any query's limit
_FLAG_BITS = {"i": "IGNORECASE", "m": "MULTILINE", "s": "DOTALL"}


def _guarded_compile(pattern: str, flags: str) -> Any:
    # Called once per row: the length check, then the cache (no import on the cached path).
    if len(pattern) > MAX_PATTERN_CHARS:
        raise DocQLRegexError(
            f"regex too long ({len(pattern)} characters; the limit is {MAX_PATTERN_CHARS})"
        )
    return _compiled(pattern, flags)


# Compiled user patterns, most recently used kept. Bounded: a long-running server (MCP,
# Datasette) sees a new pattern with every question, and must not grow with them.
@functools.lru_cache(maxsize=256)  # = GUARDED_CACHE_SIZE
def _compiled(pattern: str, flags: str) -> Any:
    import regex

    bits = regex.V0
    for flag in flags:
        bits |= getattr(regex, _FLAG_BITS[flag])
    try:
        return regex.compile(pattern, bits)
    except regex.error as exc:  # not cached: lru_cache keeps only returned values
        raise DocQLRegexError(f"invalid regex /{pattern}/: {exc}") from None


def _time_left(pattern: str) -> tuple[float, float]:
    """(seconds the match of `pattern` may take, the limit to name in the error)."""
    running = deadline.current()
    if running is None:
        return MATCH_TIMEOUT_S, MATCH_TIMEOUT_S
    running.regex = pattern
    left = running.remaining()
    if left <= 0:
        raise running.expired()
    return left, running.seconds


def guarded_search(pattern: str, text: str, flags: str = "") -> Any:
    """`regex` search of `pattern` in `text` within the query's time; the match or None."""
    compiled = _guarded_compile(pattern, flags)
    left, limit = _time_left(pattern)
    try:
        return compiled.search(text, timeout=left, concurrent=True)
    except TimeoutError:
        raise deadline.timed_out(limit, regex=pattern) from None


def _guarded_count(pattern: str, text: str, flags: str) -> int:
    compiled = _guarded_compile(pattern, flags)
    left, limit = _time_left(pattern)
    try:
        return sum(1 for _ in compiled.finditer(text, timeout=left, concurrent=True))
    except TimeoutError:
        raise deadline.timed_out(limit, regex=pattern) from None


def _guarded_search(pattern: str, text: Any, ignore_case: bool) -> int:
    if isinstance(text, (int, float)):
        # A number (a front-matter value, say) is matched as its text, as SQLite's own
        # regexp extension does; `regex` would raise TypeError on it.
        text = str(text)
    return int(guarded_search(pattern, text, "i" if ignore_case else "") is not None)


def regexp(pattern: str | None, text: Any) -> int | None:
    """`text REGEXP pattern` (search semantics), for SQLite builds without the regexp extension."""
    if pattern is None or text is None:
        return None
    return _guarded_search(pattern, text, ignore_case=False)


def regexpi(pattern: str | None, text: Any) -> int | None:
    """Case-insensitive REGEXP, named like the function of SQLite's regexp extension."""
    if pattern is None or text is None:
        return None
    return _guarded_search(pattern, text, ignore_case=True)


def glob_regex(glob: str | None) -> str | None:
    """`docql_glob(glob)`: the regular expression of a path glob (gitignore's rules, the
    dialect of every path filter), for `path REGEXP docql_glob('src/**')` in plain SQL.
    NULL for what is not a glob (empty, `!x`): then nothing matches, as with GLOB."""
    from .errors import UsageError
    from .globs import to_regex

    try:
        return None if glob is None else to_regex(glob)
    except UsageError:
        return None


def fts_text_sql(text: str | None) -> str | None:
    from .text import fts_text

    return None if text is None else fts_text(text)


SCALARS: dict[str, tuple[Callable[..., Any], int]] = {
    "docql_heading": (heading_score, 2),
    "docql_chapter": (chapter_match, 2),
    "docql_grep": (grep_count, 2),
    "docql_rrf": (rrf, -1),
    "docql_fold": (lambda t: None if t is None else fold(t), 1),
    "docql_fts_text": (fts_text_sql, 1),
    "regexpi": (regexpi, 2),
    "docql_glob": (glob_regex, 1),
}
