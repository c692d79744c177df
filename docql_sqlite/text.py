"""Text helpers shared by ingest and queries: CJK spacing for FTS, case folding, LIKE escaping.

Why these exist (DESIGN D4): `unicode61` treats an unbroken CJK run as one token, so the
FTS columns hold the text with a space around every CJK character, and queries turn a
CJK run into a phrase. SQLite's LIKE folds ASCII case only, so non-ASCII text is stored
casefolded beside the original where the two differ.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any, AnyStr

# Han, kana, Hangul, CJK symbols and compatibility ideographs, plus the supplementary planes.
CJK_CHARS = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3200-\u32ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
_NON_ASCII_RUN = r"[^\x00-\x7f]+"  # compiled (and cached) by `re` on first use


# The CJK patterns are compiled on first use: the character class takes ~12 ms to
# compile, which a structural query (that never needs them) would pay at start-up.
@functools.lru_cache(maxsize=1)
def cjk_run() -> re.Pattern[str]:
    """A run of CJK characters."""
    return re.compile(f"[{CJK_CHARS}]+")


@functools.lru_cache(maxsize=1)
def _cjk_one() -> re.Pattern[str]:
    return re.compile(f"([{CJK_CHARS}])")


def __getattr__(name: str) -> Any:
    # `text.CJK_RUN`, as the search modules import it, compiled when first asked for.
    if name == "CJK_RUN":
        return cjk_run()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def has_cjk(text: str) -> bool:
    return not text.isascii() and cjk_run().search(text) is not None


def fts_text(text: str) -> str:
    """The text as stored in FTS columns: a space around every CJK character."""
    if text.isascii():
        return text
    return _cjk_one().sub(r" \1 ", text)


def fold(text: str) -> str:
    """Full Unicode case folding (what 'case-insensitive' means everywhere in DocQL)."""
    return text.casefold()


def fold_non_ascii(text: str) -> str:
    """Casefold non-ASCII characters only; ASCII case is left to SQLite's LIKE.

    `fold_non_ascii(kw)` matched with LIKE against `fold_non_ascii(text)` gives the same
    answer as `kw.casefold() in text.casefold()`, because casefolding is per character.
    """
    if text.isascii():
        return text
    return re.sub(_NON_ASCII_RUN, lambda m: m.group().casefold(), text)


def stored_fold(text: str) -> str | None:
    """The `fold` column value: None when folding non-ASCII changes nothing.

    Most non-ASCII chunks only have punctuation (dashes, quotes, arrows) that folds to
    itself: that is checked in C first (`casefold` of the whole text against the text
    with its ASCII letters lowered, `bytes.lower`; casefolding never shortens a
    character, so the two are equal exactly when no non-ASCII character changes), and
    only a text where one does goes through the per-run substitution (~2x less CPU on
    the Markdown mix's 2,547 non-ASCII chunks)."""
    if text.isascii():
        return None
    ascii_lowered = text.encode("utf-8", "surrogatepass").lower()
    if text.casefold() == ascii_lowered.decode("utf-8", "surrogatepass"):
        return None
    folded = fold_non_ascii(text)
    return None if folded == text else folded


def like_pattern(keyword: str, *more: str) -> str:
    """A `LIKE ... ESCAPE '\\'` pattern matching `keyword` as a substring (and each of
    `more` after it, in that order)."""
    return "%" + "%".join(_like_escaped(k) for k in (keyword, *more)) + "%"


def _like_escaped(keyword: str) -> str:
    return keyword.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def glob_pattern(keyword: str, *more: str) -> str:
    """A GLOB pattern (SQLite's: case-sensitive) matching `keyword` as a substring, and
    each of `more` after it, in that order. `*`, `?` and `[` are matched as themselves by
    a class of one."""
    return "*" + "*".join(re.sub(r"([*?\[])", r"[\1]", k) for k in (keyword, *more)) + "*"


def plain_number(number: str) -> str:
    """A section number without its parts' leading zeros: Vim's user manual prints
    "05.1 The vimrc file", which is chapter 5.1 (`chapter("5.1")`; "05.1" finds it too)."""
    return ".".join(p.lstrip("0") or "0" if p.isdigit() else p for p in number.split("."))


def closing(text: AnyStr, opener: AnyStr, closer: AnyStr, at: int, limit: int) -> int | None:
    """The index just after the `closer` that closes an `opener` met before `at` (those
    between counted), looked for within `limit` characters of `at`, else None. C-level
    searches, not a loop over each character (a block of 100,000 unclosed `int f(` lines
    took 20 s that way). Strings are not told apart: the callers' inputs tolerate it."""
    depth, stop = 1, min(len(text), at + limit)
    while depth:
        close = text.find(closer, at, stop)
        if close < 0:
            return None
        depth += text.count(opener, at, close) - 1
        at = close + 1
    return at
