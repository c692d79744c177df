"""Snippets for the Python API and the CLI: the window of a chunk with the most query terms.

The FTS table is contentless, so FTS5's `snippet()` returns NULL; compiled DocQL builds a
simple snippet in SQL (first hit, `sqlbuild.snippet_sql`). Here, in Python, the window
that covers the most distinct terms wins (ties: the one with more `intent:` words, then
the earliest), and every hit inside it is marked `**like this**`. Terms are matched on
the original text — the CJK spacing of the FTS column never shows — and identifiers
match across punctuation (`DEC-0054` finds `DEC 0054`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence

from . import terms as search_terms

WIDTH = 200
MARK_OPEN, MARK_CLOSE = "**", "**"


# Letters and digits that FTS5 (unicode61) keeps inside one token, CJK aside: a hit must
# not start or end in the middle of such a run, as FTS5 only matches whole tokens.
_WORDISH = re.compile(r"[0-9A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF]", re.IGNORECASE)


class TermPattern:
    """Where one term occurs in a text, as whole tokens: `finditer` and `search` as on
    `re.Pattern`.

    The term's body (its tokens joined by any non-word run) is the only compiled regex;
    the token boundaries are checked with the one precompiled `_WORDISH` class. A regex
    with the class inside lookarounds means the same but costs a millisecond or more to
    compile under IGNORECASE, for every term of every search."""

    __slots__ = ("_body", "_open", "_close")

    def __init__(self, body: re.Pattern[str], open_boundary: bool, close_boundary: bool):
        self._body, self._open, self._close = body, open_boundary, close_boundary

    def _whole(self, text: str, start: int, end: int) -> bool:
        if self._open and start > 0 and _WORDISH.match(text, start - 1):
            return False
        return not (self._close and end < len(text) and _WORDISH.match(text, end))

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        pos = 0
        while (m := self._body.search(text, pos)) is not None:
            if self._whole(text, m.start(), m.end()):
                yield m
                pos = m.end() if m.end() > m.start() else m.end() + 1
            else:  # as a lookaround would: the next try starts one character on
                pos = m.start() + 1

    def search(self, text: str) -> re.Match[str] | None:
        return next(self.finditer(text), None)


def term_pattern(term: search_terms.Term) -> TermPattern | None:
    tokens = term.tokens
    if not tokens:
        return None
    return _compile(tuple(tokens), term.prefix)


@functools.lru_cache(maxsize=1024)
def _compile(tokens: tuple[str, ...], prefix: bool) -> TermPattern:
    body = r"[\W_]*".join(re.escape(t) for t in tokens)
    if prefix:
        body += r"\w*"
    return TermPattern(
        re.compile(body, re.IGNORECASE),
        open_boundary=_WORDISH.match(tokens[0]) is not None,
        close_boundary=not prefix and _WORDISH.match(tokens[-1][-1]) is not None,
    )


def patterns(terms: Iterable[search_terms.Term]) -> list[TermPattern]:
    return [p for t in terms if not t.negated and (p := term_pattern(t)) is not None]


def make(
    content: str,
    query: Sequence[TermPattern],
    intent: Sequence[TermPattern] = (),
    width: int = WIDTH,
) -> str:
    """A one-line snippet of `content` around the best cluster of hits, hits marked."""
    hits: list[tuple[int, int, int]] = []  # (start, end, term index)
    for i, pattern in enumerate(query):
        hits.extend(
            (m.start(), m.end(), i) for m in pattern.finditer(content) if m.end() > m.start()
        )
    extra = [
        (m.start(), m.end(), -1 - i)
        for i, p in enumerate(intent)
        for m in p.finditer(content)
        if m.end() > m.start()
    ]
    if not hits:
        text = _flat(content[:width])
        return text + ("…" if len(content) > width else "")
    hits = sorted(hits)[:400]  # bound the window search on very repetitive chunks
    best, best_key = 0, None
    for start, _, _ in hits:
        window = [h for h in hits if start <= h[0] and h[1] <= start + width]
        bonus = len({h[2] for h in extra if start <= h[0] and h[1] <= start + width})
        key = (len({h[2] for h in window}), bonus, -start)
        if best_key is None or key > best_key:
            best, best_key = start, key
    begin = max(0, best - width // 4)
    # Start at a word boundary so the snippet does not open mid-word.
    if begin > 0:
        space = content.rfind(" ", max(0, begin - 20), best)
        begin = space + 1 if space != -1 else begin
    end = min(len(content), begin + width)
    marked, pos = [], begin
    bold = [m.span() for m in _BOLD.finditer(content, max(0, begin - WIDTH), end + WIDTH)]
    shown = [h for h in hits if begin <= h[0] and h[1] <= end and not _inside(h, bold)]
    for start, stop, _ in _merge(shown):
        marked.append(content[pos:start] + MARK_OPEN + content[start:stop] + MARK_CLOSE)
        pos = stop
    marked.append(content[pos:end])
    text = _flat("".join(marked))
    return ("…" if begin > 0 else "") + text + ("…" if end < len(content) else "")


# Markdown strong emphasis already in the text: a hit inside it is shown as it is, since
# marking it again would print `****Default**:**`.
_BOLD = re.compile(r"\*\*(?=\S)[^*\n]*?\S\*\*|__(?=\S)[^_\n]*?\S__")


def _inside(hit: tuple[int, int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= hit[0] and hit[1] <= stop for start, stop in spans)


def _merge(hits: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    merged: list[tuple[int, int, int]] = []
    for start, stop, i in sorted(hits):
        if merged and start <= merged[-1][1]:  # touching hits make one mark
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], stop), last[2])
        else:
            merged.append((start, stop, i))
    return merged


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def count_hits(content: str, query: Sequence[TermPattern]) -> int:
    """How many distinct patterns occur in `content` (passage choice by intent)."""
    return sum(1 for p in query if p.search(content))
