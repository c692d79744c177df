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
    counts = ", ".join(f"sum({flag}) OVER () AS n{k}" for k, flag in enumerate(flags))
    lowered = dialect.ascii_lower("c.content")
    held_words = " + ".join(
        f"(CASE WHEN {dialect.contains(lowered, params.add(word))} THEN 1 ELSE 0 END)"
        for word in (words or [])[:MAX_WORDS]
    )
    scope = ranking.scope_sql(store, opts.paths, params)
    depth = params.add(LIST_DEPTH)
    # (documents `d` for the scope: a search limited to paths reads their ids)
    found_rows = store.rows(
        f"SELECT c.id AS id, {' + '.join(flags)} AS held, {counts} "
        f"FROM chunks c JOIN documents d ON d.id = c.doc_id "
        f"WHERE ({' OR '.join(tests)}) AND {scope} "
        f"ORDER BY held DESC, {f'{held_words} DESC, ' if held_words else ''}"
        f"CASE WHEN d.format = 'code' THEN 1 ELSE 0 END, "
        f"length(c.content), c.id LIMIT {depth}",
        params.values,
    )
    if not found_rows:
        return fusion.Ranked("literal", WEIGHT, [])
    limit = COMMON_SHARE * stats.chunk_count(store)
    if not alone and all(int(found_rows[0][f"n{k}"]) > limit for k in range(len(found))):
        return fusion.Ranked("literal", WEIGHT, [])
    ids = [(int(r["id"]), int(r["held"])) for r in found_rows]
    qp = Params(dialect)
    marks = ", ".join(qp.add(chunk) for chunk, _ in ids)
    rows = {
        r["_chunk"]: r
        for r in store.rows(
            f"SELECT {item_sql.chunk_columns(dialect)} FROM {item_sql.CHUNK_FROM} "
            f"WHERE c.id IN ({marks})",
            qp.values,
        )
    }
    out: list[dict[str, Any]] = [
        dict(rows[chunk], _symbols=held) for chunk, held in ids if chunk in rows
    ]
    return fusion.Ranked("literal", WEIGHT, out)
