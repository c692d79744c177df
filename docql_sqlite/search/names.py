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

import bisect
import math
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from ..query import items as item_sql
from ..records import Record
from ..sqlparams import Params
from ..text import fold
from . import stats
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

MIN_WORD = 3
MAX_SHARE = 0.2  # a word inside more than this share of names says nothing (get, set, …)
MIN_SYMBOLS = 50  # … in an index with enough names for shares to mean something


class NamedSymbol(Record, frozen=True):
    id: int
    doc_id: int
    path: str
    line: int
    name: str  # casefolded


class SymbolNames(Record):
    """Every symbol of the index as columns, and its names / contexts (casefolded
    qualified name and file name) joined into one string each, for fast search."""

    # As the engine wrote them (decimal text): converted only for the symbols a search
    # ranks, not for the 239k of a large index.
    ids: list[str]
    docs: list[str]
    lines: list[str]
    paths: dict[str, str]  # document id → path
    names: str
    contexts: str
    name_starts: list[int]
    context_starts: list[int]

    def __len__(self) -> int:
        return len(self.ids)

    def name(self, i: int) -> str:
        return self.names[self.name_starts[i] : self.name_starts[i + 1] - 1]

    def path(self, i: int) -> str:
        return self.paths[self.docs[i]]

    def symbol(self, i: int) -> NamedSymbol:
        return NamedSymbol(
            int(self.ids[i]), int(self.docs[i]), self.path(i), int(self.lines[i]), self.name(i)
        )

    def containing(self, words: tuple[str, ...], context: bool = False) -> set[int]:
        """Indexes of the symbols whose name (or context) contains any of `words`."""
        blob, starts = (
            (self.contexts, self.context_starts) if context else (self.names, self.name_starts)
        )
        found: set[int] = set()
        for word in words:
            at = blob.find(word)
            while at != -1:
                i = bisect.bisect_right(starts, at) - 1
                found.add(i)
                at = blob.find(word, starts[i + 1])
        return found


def _starts(values: list[str]) -> list[int]:
    """Where each value begins in `"\\n".join(values)`, and one past the end."""
    # C-level calls only (no Python frame per value): 239k names in ~20 ms.
    return list(accumulate(map((1).__add__, map(len, values)), initial=0))


def table(store: Store) -> SymbolNames:
    """Every symbol of the index (cached per version of the index file)."""

    def load() -> SymbolNames:
        dialect = store.dialect
        newline = dialect.newline()
        ids, docs, lines, names, qualified = stats.columns(
            store,
            [
                "y.id",
                "y.doc_id",
                "y.line",
                f"replace(y.name_fold, {newline}, ' ')",
                f"replace({dialect.ascii_lower('y.qualified_name')}, {newline}, ' ')",
            ],
            "FROM symbols y",
            "y.id",
        )
        with_symbols, paths_in, file_names = stats.columns(
            store,
            ["d.id", "d.path", "d.name"],
            "FROM documents d WHERE d.id IN (SELECT DISTINCT doc_id FROM symbols)",
            "d.id",
        )
        paths = dict(zip(with_symbols, paths_in))
        stems = {
            d: fold(n.rsplit(".", 1)[0]).replace("\n", " ")
            for d, n in zip(with_symbols, file_names)
        }
        contexts = [f"{q} {stems[d]}" for q, d in zip(qualified, docs)]
        return SymbolNames(
            ids,
            docs,
            lines,
            paths,
            "\n".join(names),
            "\n".join(contexts),
            _starts(names),
            _starts(contexts),
        )

    return stats.cached(store, ("symbols",), load)


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
    from ..globs import matcher

    words = query_words(terms)
    if not words:
        return []
    tab = table(store)
    allowed: set[int] | None = None
    if paths:
        matches = matcher(paths)
        docs = {d for d, path in tab.paths.items() if matches(path)}
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
    best = sorted(
        scores,
        key=lambda i: (
            -(scores[i] - len(tab.name(i)) / 1000.0),
            tab.path(i),
            int(tab.lines[i]),
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
