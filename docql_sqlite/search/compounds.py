"""Two words of a query that the index holds written as one: either spelling matches.

Manuals write their commands and options as one word where people type two: gnuplot's
`set logscale` and `set xrange` ("set log scale", "x range"), SQLite's `AUTOINCREMENT`
("make a column auto increment"), `filename`, `namespace`, `timestamp`. BM25 matched
the two words only, so the section that answers ranked below passages that happen to
hold both words (SQLite's `autoinc.html` was not in the first five for "how do I make a
column auto increment" without vectors). Each two neighbouring plain words of a query
whose concatenation is a word of the index each match that word too (`Term.joined`:
FTS5 `("log" OR "logscale")`, PostgreSQL `(log | logscale)`): a passage holding
`logscale` covers both words, and one holding a single word of the pair covers it as
before (merging the pair into one term cost `--throw-deprecation` its place for "throw
an exception on deprecations": its text holds "throw" and not "exception"). The words
are looked up as the user typed them, after stopwords (`log in` stays two words: `in` is
one).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..records import replace
from ..sqlparams import Params
from ..text import fold
from . import stats
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

# A joined word this short is mostly a coincidence of two short words (`a` + `pi`).
MIN_JOINED = 5


def join(store: Store, terms: list[search_terms.Term]) -> tuple[list[search_terms.Term], list[str]]:
    """`terms` with each pair of neighbouring plain words that the index also holds as
    one word marked with it (`Term.joined`), and the steps saying so."""
    out: list[search_terms.Term] = []
    steps: list[str] = []
    i = 0
    while i < len(terms):
        first = terms[i]
        second = terms[i + 1] if i + 1 < len(terms) else None
        # (a one-letter second word is a name in a sentence: "the string s", not `strings`)
        if second is not None and _word(first) and _word(second) and len(second.text) > 1:
            joined = fold(first.text) + fold(second.text)
            if len(joined) >= MIN_JOINED and _preferred(store, first.text, second.text, joined):
                out.append(replace(first, joined=joined))
                out.append(replace(second, joined=joined))
                steps.append(f'"{first.text} {second.text}" also as "{joined}"')
                i += 2
                continue
        out.append(first)
        i += 1
    return out, steps


# Passages read to see how the index writes the joined word.
SAMPLE = 20
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")


def _preferred(store: Store, first: str, second: str, joined: str) -> bool:
    """Whether the index writes the two words more often as one word than as a phrase
    (`logscale` over "log scale" in gnuplot's manual, `AUTOINCREMENT` in SQLite's), and
    writes that word on its own (`_one_word`). Where the phrase is the usual spelling
    ("fall back" in git's manual, "heap profile" in Node's), the few passages with the
    joined word (`fallback`, a `.heapprofile` file) pushed answers down: git's "attempt
    three-way merge, fall back on normal patch" and nodecli's `--heap-prof-interval`."""
    together = stats.term_count(store, search_terms.Term(f"{first} {second}", phrase=True))
    return stats.term_count(store, search_terms.Term(joined)) > together and _one_word(
        store, joined
    )


def _one_word(store: Store, joined: str) -> bool:
    """Whether the index writes `joined` as a word of its own somewhere: in lower or upper
    case or capitalized (`logscale`, `AUTOINCREMENT`, `Xrange`), not only as a camelCase
    name (`setTimeout`, `watchFile`: the name lists already join the words of a query for
    names, and as plain words here "set a timeout on an http request" found
    `request.setTimeout()` before `http.request`'s `timeout` option, "watch a file"
    `fs.watchFile` before `fs.watch`). Asked only of a word the index holds
    (`_preferred`)."""
    term = search_terms.Term(joined)

    def read() -> bool:
        params = Params(store.dialect)
        sql = (
            f"SELECT c.content FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
            f"WHERE {store.dialect.matches(params.add(store.dialect.term(term)))} LIMIT {SAMPLE}"
        )
        spelled = re.compile(rf"(?<![^\W_]){re.escape(joined)}(?![^\W_])", re.IGNORECASE)
        for row in store.rows(sql, params.values):
            for found in spelled.finditer(row["content"]):
                if not _INNER_CAPITAL.search(found.group()):
                    return True
        return False

    return bool(stats.cached(store, ("one word", joined), read))


def _word(term: search_terms.Term) -> bool:
    """A plain ASCII word as typed: no phrase, prefix, negation, identifier or CJK part."""
    if term.phrase or term.prefix or term.negated or term.part or term.joined:
        return False
    text = term.text
    return text.isascii() and text.isalpha()
