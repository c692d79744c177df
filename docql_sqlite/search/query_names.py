"""The names a query stands for: what a symbol, heading or entity name may equal or contain.

Read by the name lists (`name_lists.py`: which names to look for, and how much a match
counts) and by the final score (`fusion.composite`: the bonus of a name equal to the query).
"""

from __future__ import annotations

from ..records import Record
from ..text import fold
from . import terms as search_terms

# Name lists match a name *containing* a term only for short queries: in a pasted
# sentence every common word is inside some identifier.
SHORT_QUERY = 3


class QueryNames(Record, frozen=True):
    """Names a symbol, heading or entity may equal or contain, and which of them are strong.

    Equal: each term, and the words joined (`query planner` → queryplanner, query_planner).
    Contain: the joined forms; a lone term only when it is the whole query — with two
    words, a name holding just one of them ("LumenError" for "lumen index") is noise.
    Strong: a name that stands for the whole query — the only term, a term written like
    an identifier (`createReadStream`), or the words joined. A plain English word of a
    longer question (`handle` in "how do I handle errors") is weak: it answers one word.
    """

    equal: list[str]
    contain: list[str]
    strong: frozenset[str]
    words: int  # positive terms (names and plain words alike)

    def weight(self, match: str | None) -> float:
        """A name channel row's share of its list weight (`fusion.rrf`'s `_weight`)."""
        return 1.0 if fold(match or "") in self.strong else 1.0 / max(1, self.words)


def query_names(terms: list[search_terms.Term]) -> QueryNames:
    """The names of the query (`QueryNames`), for the name lists and the final score."""
    # Parts of a CJK run (`自定义主题` → 自定义, 主题) are not names: a heading equal to one
    # of them ("禁用" for 如何禁用日期) would outrank the passage about the whole question.
    positive = [t for t in search_terms.positives(terms) if not t.part]
    words = [fold(t.text) for t in positive]
    parts = [p for t in positive for p in search_terms.split_identifier(t.text)]
    joined = (
        ["".join(parts), "_".join(parts), "-".join(parts), " ".join(parts)]
        if len(parts) > 1
        else []
    )
    equal = list(dict.fromkeys(n for n in words + joined if n))
    contain = joined + (words if len(positive) == 1 else [])
    if len(positive) > SHORT_QUERY:
        contain = []
    strong = set(joined) | {fold(t.text) for t in positive if search_terms.is_identifier(t.text)}
    if len(positive) == 1:
        strong.update(words)
    return QueryNames(
        equal,
        list(dict.fromkeys(n for n in contain if len(n) >= 3)),
        frozenset(strong),
        len(search_terms.positives(terms)),
    )
