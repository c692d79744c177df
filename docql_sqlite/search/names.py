"""Smart search's "code words" channel: query words found *inside* code names.

FTS5's `unicode61` keeps `getSystemId`, `getwelcome` and `b64decode` as single tokens,
so the words of a question ("return the system identifier", "decode base64") never
meet them in BM25. This channel looks for each content word of the query as a
substring of every symbol's name (full weight), and of its qualified name and file
name (half weight), weighting a word by its rarity among the names (IDF), and ranks
the passages that hold the best-matching definitions.

The names are read once per index file and kept in memory (about 50 bytes a symbol),
so a search costs a scan of short strings, a few milliseconds for 15,000 symbols.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..query import items as item_sql
from ..sqlparams import Params
from . import ranking
from . import terms as search_terms
from .symbol_names import NamedSymbol, table

if TYPE_CHECKING:
    from ..store import Store

MIN_WORD = 3
MAX_SHARE = 0.2  # a word inside more than this share of names says nothing (get, set, …)
MIN_SYMBOLS = 50  # … in an index with enough names for shares to mean something


def query_words(terms: list[search_terms.Term]) -> list[tuple[str, ...]]:
    """Per content word: the spellings to look for (the word, and its stem)."""
    words = []
    for term in search_terms.positives(terms):
        for token in term.tokens:
            if len(token) < MIN_WORD or token in search_terms.STOPWORDS or token.isdigit():
                continue
            stem = search_terms.stem(token)
            words.append((token, stem) if stem != token and len(stem) >= 4 else (token,))
    return list(dict.fromkeys(words))


def _visible_to_bm25(spellings: tuple[str, ...], name: str) -> bool:
    """Whether the word is a whole FTS token of the name (`handle` in handle,
    `line` in convert_arg_line_to_args): BM25 already counts it, so this channel does not
    count it again in its share (it does for `decode` inside b64decode)."""
    tokens = search_terms.WORD.findall(name)
    return any(spelling in tokens for spelling in spellings)


def ranked_symbols(
    store: Store, terms: list[search_terms.Term], paths: tuple[str, ...], depth: int
) -> list[tuple[float, float, NamedSymbol, float]]:
    """(score, share of the query's words held that BM25 cannot see, symbol, share of the
    query's words held at all) for the best-matching symbols."""
    words = query_words(terms)
    if not words:
        return []
    tab = table(store)
    allowed: set[int] | None = None
    if paths:
        docs = frozenset(ranking.documents_in(store, paths))
        allowed = {i for i, d in enumerate(tab.docs) if d in docs}
    n = len(tab) if allowed is None else len(allowed)
    if n == 0:
        return []
    scores: dict[int, float] = {}
    # Query words each symbol holds that BM25 cannot see (inside a token of its name, or in
    # its context): the share of the query this channel adds (`_weight` of its rows).
    matched: dict[int, int] = {}
    held: dict[int, int] = {}  # query words in its name or context, visible to BM25 or not
    for spellings in words:
        in_name = tab.containing(spellings)
        if allowed is not None:
            in_name &= allowed
        if not in_name or (n >= MIN_SYMBOLS and len(in_name) > MAX_SHARE * n):
            continue  # absent, or inside so many names that it says nothing (get, set, …)
        weight = math.log(1 + n / len(in_name))
        for i in in_name:
            scores[i] = scores.get(i, 0.0) + weight
            held[i] = held.get(i, 0) + 1
            if not _visible_to_bm25(spellings, tab.name(i)):
                matched[i] = matched.get(i, 0) + 1
        in_context = tab.containing(spellings, context=True) - in_name
        for i in in_context if allowed is None else in_context & allowed:
            scores[i] = scores.get(i, 0.0) + 0.5 * weight
            matched[i] = matched.get(i, 0) + 1
            held[i] = held.get(i, 0) + 1
    # Shorter names made of the query's words beat long names that merely contain one.
    # Of one name defined again in its file, the last comes first, where the first stood
    # (`name_lists.rows` does the same: an implementation after its `@overload`s).
    first: dict[tuple[str, str], int] = {}
    for i in scores:
        key = (tab.path(i), tab.name(i))
        first[key] = min(first.get(key, int(tab.lines[i])), int(tab.lines[i]))
    best = sorted(
        scores,
        key=lambda i: (
            -(scores[i] - len(tab.name(i)) / 1000.0),
            tab.path(i),
            first[(tab.path(i), tab.name(i))],
            -int(tab.lines[i]),
            int(tab.ids[i]),
        ),
    )[:depth]
    return [
        (
            scores[i] - len(tab.name(i)) / 1000.0,
            matched.get(i, 0) / len(words),
            tab.symbol(i),
            held.get(i, 0) / len(words),
        )
        for i in best
    ]


def channel(
    store: Store, terms: list[search_terms.Term], paths: tuple[str, ...], depth: int
) -> list[dict[str, Any]]:
    """The passages holding the best-matching definitions, best first."""
    best = ranked_symbols(store, terms, paths, depth)
    if not best:
        return []
    params = Params(store.dialect)
    ids = ", ".join(params.add(s.id) for _, _, s, _ in best)
    sql = f"""SELECT {item_sql.chunk_columns(store.dialect)}, y.id AS _symbol, y.name AS _match
FROM symbols y JOIN chunks c ON c.doc_id = y.doc_id AND c.line <= y.line AND c.end_line >= y.line
JOIN documents d ON d.id = c.doc_id LEFT JOIN sections sec ON sec.id = c.section_id WHERE y.id IN
({ids})"""
    by_symbol = {row["_symbol"]: row for row in store.rows(sql, params.values)}
    out = []
    for score, share, s, held in best:
        row = by_symbol.get(s.id)
        if row is not None:
            # `_share`: of the query's words, those this name adds to what BM25 sees;
            # `_held`: those it holds at all.
            out.append(dict(row, _words=round(score, 4), _share=share, _held=held))
    return out
