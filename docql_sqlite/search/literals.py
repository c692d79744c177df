"""Symbols a query names as written: `$@`, `$*`, `[[`, `2>&1`, `||`, `C++`, `$#`.

The full-text index holds words: FTS5's tokenizer drops punctuation, so "$@ vs $*"
(bash's positional parameters) had no term at all and found nothing, "||" and "$?" were
refused as "nothing to search for", and "what does $# mean" ranked passages by "mean"
alone. A query token that is mostly punctuation is a **symbol**; smart search adds a
list of the passages that hold the symbols as written (`ranked`), best first by how many
of the query's symbols they hold, then how many of its words, then prose before code (a
symbol is explained in prose and used in code: bash's scripts hold `$#` far more often
than its manual), then by how short they are (a definition list item before a page that
mentions it among much else).
A query of symbols alone is answered by that list (and the vectors, when the index has
them). A symbol held by more than a fifth of the passages (`==` in Go's code) counts as
a common word does: its list is left out when other lists find passages.

The scan reads every passage's text (`instr`, PostgreSQL's `strpos`), in proportion to
the index; only a query with a symbol runs it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..query import items as item_sql
from ..sqlparams import Params
from . import fusion, ranking, snippets, stats
from .terms import MAX_WORDS

if TYPE_CHECKING:
    from ..store import Store

# A symbol in more than this share of the passages (`//` in code, `==` in Go's) says as
# little as a common word: its list is left out, unless nothing else finds a passage.
COMMON_SHARE = 0.2
LIST_DEPTH = 30
# A symbol the query names is as particular as an identifier, and passages the word
# lists rank for the query's other words ("mean" in "what does $# mean") hold it rarely:
# at weight 1 the builtins' "mean" passage stayed first (the exact list weighs 2 too).
WEIGHT = 2.0


# "what does $# mean", "what is :=", "what do || and && do": a question about the
# symbols themselves, whose other words are the question's frame. Its passages are
# ordered by the symbols alone: by the word "mean" the literal list put the builtin
# whose text says "means" before bash's Special Parameters.
_ABOUT_SYMBOLS = re.compile(
    r"^\s*what(?:'s|\s+(?:does|do|is|are))\s+(?P<topic>.+?)"
    r"(?:\s+(?:mean|means|do|does|stand\s+for))?\s*\??\s*$",
    re.IGNORECASE,
)


def about_symbols(text: str, found: list[str]) -> bool:
    """Whether `text` asks what its symbols are (`_ABOUT_SYMBOLS`): its topic is made
    of them (and `and`, `or`, `vs`)."""
    match = _ABOUT_SYMBOLS.match(text)
    if match is None:
        return False
    rest = [w for w in match["topic"].split() if w not in found]
    return all(w.lower() in ("and", "or", "vs", "versus", "the", "operator") for w in rest)


def patterns(found: list[str]) -> list[snippets.TermPattern]:
    """Snippet patterns marking each symbol where it occurs."""
    return [snippets.TermPattern(re.compile(re.escape(s)), False, False) for s in found]


def ranked(
    store: Store,
    found: list[str],
    opts: ranking.Request,
    alone: bool = False,
    words: list[str] | None = None,
) -> fusion.Ranked:
    """The passages holding one of `found` as written, best first: more of the symbols,
    more of the query's `words` (casefolded), prose before code, then shorter. A symbol
    with letters (`C++`) matches in any ASCII case. Empty when every symbol is common
    (`COMMON_SHARE`), unless they are `alone`: no other list found a passage."""
    dialect = store.dialect
    params = Params(dialect)
    tests = []
    for symbol in found:
        if any(ch.isalpha() for ch in symbol):
            hay, needle = dialect.ascii_lower("c.content"), params.add(symbol.lower())
        else:
            hay, needle = "c.content", params.add(symbol)
        tests.append(dialect.contains(hay, needle))
    flags = [f"(CASE WHEN {t} THEN 1 ELSE 0 END)" for t in tests]
    scope = ranking.scope_sql(store, opts.paths, params)
    # One scan for the passages that hold a symbol, and which ones (documents `d` for the
    # scope: a search limited to paths reads their ids). Their order by the query's words
    # comes after, among them alone: in the scan, it lowered each holder's text once per
    # word, and a common symbol (`-->` closes every YAML comment of Node's docs: ~3,000
    # passages) cost ~45 ms a search for a list then left out.
    holders = store.rows(
        f"SELECT c.id AS id, {', '.join(f'{flag} AS h{k}' for k, flag in enumerate(flags))} "
        f"FROM chunks c JOIN documents d ON d.id = c.doc_id "
        f"WHERE ({' OR '.join(tests)}) AND {scope}",
        params.values,
    )
    if not holders:
        return fusion.Ranked("literal", WEIGHT, [])
    limit = COMMON_SHARE * stats.chunk_count(store)
    if not alone and all(sum(int(r[f"h{k}"]) for r in holders) > limit for k in range(len(found))):
        return fusion.Ranked("literal", WEIGHT, [])
    order = Params(dialect)
    lowered = dialect.ascii_lower("c.content")
    held_words = " + ".join(
        f"(CASE WHEN {dialect.contains(lowered, order.add(word))} THEN 1 ELSE 0 END)"
        for word in (words or [])[:MAX_WORDS]
    )
    # more symbols first, then more of the query's words, prose before code, shorter
    by_symbols: dict[int, list[int]] = {}
    for r in holders:
        n = sum(int(r[f"h{k}"]) for k in range(len(found)))
        by_symbols.setdefault(n, []).append(int(r["id"]))
    found_rows: list[tuple[int, int]] = []
    for n in sorted(by_symbols, reverse=True):
        group = order.add("[" + ",".join(map(str, by_symbols[n])) + "]")
        depth = order.add(LIST_DEPTH - len(found_rows))
        found_rows += [
            (int(r["id"]), n)
            for r in store.rows(
                f"SELECT c.id AS id FROM chunks c JOIN documents d ON d.id = c.doc_id "
                f"WHERE {dialect.ids_in('c.id', group)} "
                f"ORDER BY {f'{held_words} DESC, ' if held_words else ''}"
                f"CASE WHEN d.format = 'code' THEN 1 ELSE 0 END, "
                f"length(c.content), c.id LIMIT {depth}",
                order.values,
            )
        ]
        if len(found_rows) >= LIST_DEPTH:
            break
    qp = Params(dialect)
    marks = ", ".join(qp.add(chunk) for chunk, _ in found_rows)
    rows = {
        r["_chunk"]: r
        for r in store.rows(
            f"SELECT {item_sql.chunk_columns(dialect)} FROM {item_sql.CHUNK_FROM} "
            f"WHERE c.id IN ({marks})",
            qp.values,
        )
    }
    out: list[dict[str, Any]] = [
        dict(rows[chunk], _symbols=n) for chunk, n in found_rows if chunk in rows
    ]
    return fusion.Ranked("literal", WEIGHT, out)
