"""Smart search's exact evidence: the passages whose own text holds every query term.

RRF (`fusion.rrf`) counts list memberships; with k = 60 a list's rank 1 is worth
1/61 and its rank 30 still 1/90, so how *strongly* a list holds a passage hardly
shows. A passage that holds every word of a question in its own text, when only a
few passages do, is the strongest lexical evidence there is (a doc comment's
sentence, an option's description), yet it sits in one list (BM25) and ends below
passages that hold half the words in two or three lists (measured: Rust doc comment
→ item MRR@10 .933 bm25 against .736 smart; issue 19).

This module turns that evidence into one more ranked list for the fusion, `exact`:

- its rows are the BM25 rows whose own text holds every term of the chosen keyword
  level (the section's heading line left out: a sibling whose *heading* names the
  words — `destroy` vs `_destroy`, `readFile` vs `readFileSync` — does not hold them
  the way the passage that explains them does), in BM25 order;
- each row weighs by its BM25 score against the best one (`_weight` = score / top):
  a margin counts, not just a rank;
- the list weighs by how selective the conjunction is: `EXACT_WEIGHT` when at most
  `FEW` passages in scope hold every term, `EXACT_WEIGHT x FEW / n` when n do. Every
  term of a plain question is in hundreds of passages of a large corpus, so question
  → answer search (where the answer rarely repeats the question) is barely touched,
  and nothing is switched off: the other lists still count (never a hard switch).

CJK questions get no exact list: a passage's own text is tokenized here as written
(a CJK run is one token) while their terms are single characters, so none "holds"
them; the CJK channels (cjk.py) rank those. Cost: ~0.5 ms of CPU a query (30 rows).
"""

from __future__ import annotations

from typing import Any

from ..text import fold
from . import fusion
from . import terms as search_terms

# Worth about this many lists' rank 1. Chosen on the tune halves of the Go, PostgreSQL,
# git and FAQ sets (docs/benchmarks.md, "Issue 19"): 3 was better still on Go, equal
# elsewhere; 2 is the smaller intervention that meets the goal on every set.
EXACT_WEIGHT = 2.0
# Up to this many passages holding every term, the conjunction is fully selective.
FEW = 3
# A query of one term is a look-up: the name channels weigh it (its "every term" is
# the word's own posting list).
MIN_TERMS = 2


def _bare(line: str) -> str:
    return line.lstrip("#").strip().strip("`").strip()


def own_tokens(row: dict[str, Any]) -> set[str]:
    """The unicode61 tokens of a passage's own text: its content without the heading line
    of its section (the heading is the section's title, which every chunk of the
    section also carries in the title column)."""
    text = row.get("_fold") or fold(row.get("content") or "")
    title = _bare(fold(row.get("section") or ""))
    if title:
        text = "\n".join(line for line in text.splitlines() if _bare(line) != title)
    return set(search_terms.WORD.findall(text))


def holds(tokens: set[str], term: search_terms.Term) -> bool:
    """Whether every token of `term` is among `tokens` (a prefix term: begins one; a
    joined term: or its one token is)."""
    parts = term.tokens
    if not parts:
        return True
    if term.joined and term.joined in tokens:
        return True
    if term.prefix:
        *whole, last = parts
        return all(p in tokens for p in whole) and any(t.startswith(last) for t in tokens)
    return all(p in tokens for p in parts)


def own_coverage(row: dict[str, Any], terms: list[search_terms.Term]) -> int:
    """How many of the positive `terms` the passage's own text holds."""
    tokens = own_tokens(row)
    return sum(1 for t in search_terms.positives(terms) if holds(tokens, t))


def selectivity(n_and: int) -> float:
    """1 when at most FEW passages hold every term, FEW / n_and when more do."""
    return 1.0 if n_and <= FEW else FEW / n_and


def exact_list(
    bm25_rows: list[dict[str, Any]],
    level: list[search_terms.Term],
    n_and: int,
    weight: float | None = None,
) -> fusion.Ranked:
    """The `exact` list (see the module doc): empty when the query has fewer than
    MIN_TERMS terms or no passage holds them all."""
    n = len(search_terms.positives(level))
    if n < MIN_TERMS or n_and <= 0:
        return fusion.Ranked("exact", 0.0, [])
    rows = [r for r in bm25_rows if (r.get("_coverage") or n) >= n and own_coverage(r, level) >= n]
    if not rows:
        return fusion.Ranked("exact", 0.0, [])
    top = max(-(r.get("_bm25") or 0.0) for r in rows) or 1.0
    weighed = [dict(r, _weight=max(0.0, -(r.get("_bm25") or 0.0)) / top) for r in rows]
    weight = EXACT_WEIGHT if weight is None else weight
    return fusion.Ranked("exact", weight * selectivity(n_and), weighed)
