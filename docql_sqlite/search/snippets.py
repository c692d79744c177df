"""Snippets for the Python API and the CLI: the window of a chunk with the most query terms.

The FTS table is contentless, so FTS5's `snippet()` returns NULL; compiled DocQL builds a
simple snippet in SQL (first hit, `sqlbuild.SNIPPET_SQL`). Here, in Python, the window
that covers the most distinct terms wins (ties: the one with more `intent:` words, then
the earliest), and every hit inside it is marked `**like this**`. Terms are matched on
the original text — the CJK spacing of the FTS column never shows — and identifiers
match across punctuation (`DEC-0054` finds `DEC 0054`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from . import terms as search_terms

WIDTH = 200
MARK_OPEN, MARK_CLOSE = "**", "**"


# Letters and digits that FTS5 (unicode61) keeps inside one token, CJK aside: a hit must
# not start or end in the middle of such a run, as FTS5 only matches whole tokens.
_WORDISH = r"0-9A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF"


def term_pattern(term: search_terms.Term) -> re.Pattern[str] | None:
    tokens = term.tokens
    if not tokens:
        return None
    body = r"[\W_]*".join(re.escape(t) for t in tokens)
    if re.match(f"[{_WORDISH}]", tokens[0]):
        body = f"(?<![{_WORDISH}])" + body
    if term.prefix:
        body += r"\w*"
    elif re.search(f"[{_WORDISH}]$", tokens[-1]):
        body += f"(?![{_WORDISH}])"
    return re.compile(body, re.IGNORECASE)


def patterns(terms: Iterable[search_terms.Term]) -> list[re.Pattern[str]]:
    return [p for t in terms if not t.negated and (p := term_pattern(t)) is not None]


def make(
    content: str,
    query: list[re.Pattern[str]],
    intent: Sequence[re.Pattern[str]] = (),
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
    for start, stop, _ in _merge([h for h in hits if begin <= h[0] and h[1] <= end]):
        marked.append(content[pos:start] + MARK_OPEN + content[start:stop] + MARK_CLOSE)
        pos = stop
    marked.append(content[pos:end])
    text = _flat("".join(marked))
    return ("…" if begin > 0 else "") + text + ("…" if end < len(content) else "")


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


def count_hits(content: str, query: list[re.Pattern[str]]) -> int:
    """How many distinct patterns occur in `content` (passage choice by intent)."""
    return sum(1 for p in query if p.search(content))
