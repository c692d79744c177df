"""The BM25 list of smart search: the keyword level to rank by, and its passages.

Keyword levels (`terms.expand`): the query as typed → component words of identifiers and
phrases (camelCase, snake_case, kebab, dotted) → stem prefixes (`plan*`). The strategy
counts matching chunks (AutoDev compared BM25 *scores* ~1 with a threshold of 5.0, so it
always fell back): fewer than MIN_RESULTS → widen to the next level; more than
MAX_RESULTS → narrow with a secondary keyword (the exact phrase, else the term in section
titles) when that still leaves MIN_RESULTS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dialect import unscoped
from ..records import Record
from ..sqlparams import Params
from . import ranking, stats
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

MIN_RESULTS = 3
MAX_RESULTS = 50
NARROW_DEPTH = 300  # passages a narrowed level looks through for its focused ones


def count(store: Store, expr: str, scope: str, params: Params) -> int:
    """Chunks in scope matching `expr` (cached per index version: levels repeat across queries)."""
    if unscoped(scope):
        return stats.matching(store, expr)
    sql = (
        f"SELECT count(*) FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents "
        f"d ON d.id = c.doc_id "
        f"WHERE {params.dialect.matches(params.add(expr))} AND {scope}"
    )
    return int(store.scalar(sql, params.values))


class Level(Record, frozen=True):
    """The keyword level chosen: its terms, an optional narrowing FTS expression, the
    strategy's steps, and how many chunks in scope hold every one of its terms."""

    terms: list[search_terms.Term]
    narrow: str | None
    steps: list[str]
    n_and: int
    exact: bool  # the query's terms as typed (not widened to components or stems)


def respell_absent(
    store: Store, terms: list[search_terms.Term]
) -> tuple[list[search_terms.Term], list[str]]:
    """`terms` with each plain word that no chunk of the index holds replaced by its stem
    prefix when that finds some (`conffile` → `conffile*`, which finds "Conffiles";
    `reboots` → `reboot*`), and the steps saying so.

    Why: a word typed in another inflection than the text's matches nothing as typed,
    and the level's other words then rank alone (the Debian FAQ's "What is a Debian
    conffile?" ranked every passage naming Debian above the one answer, which says
    "Conffiles"). Widening the whole query to stems happens only when the query as typed
    finds fewer than MIN_RESULTS passages, which a question's other words rarely do.
    Words written like code names, phrases, prefixes and CJK stay as typed: their
    parts are the components level's business."""
    out: list[search_terms.Term] = []
    steps: list[str] = []
    for term in terms:
        plain = not (term.negated or term.phrase or term.prefix or term.part)
        word = term.tokens[0] if plain and len(term.tokens) == 1 else ""
        root = search_terms.stem(word) if word.isascii() and word.isalpha() else ""
        if len(root) >= 4 and stats.term_count(store, term) == 0:
            widened = search_terms.Term(root, prefix=True)
            if stats.term_count(store, widened) > 0:
                steps.append(f'"{word}" is in no passage → {widened.fts}')
                out.append(widened)
                continue
        out.append(term)
    return out, steps


def choose_level(store: Store, terms: list[search_terms.Term], scope: str, params: Params) -> Level:
    """The keyword level to rank by (`Level`)."""
    exp = search_terms.expand(terms)
    fts = params.dialect
    steps: list[str] = []
    levels = [("exact", exp.exact), ("components", exp.components), ("stems", exp.stems)]
    as_typed = exp.exact  # with its absent words respelled (`respell_absent`)
    chosen, chosen_or = exp.exact, -1
    for i, (name, level) in enumerate(levels):
        if not search_terms.positives(level):
            continue
        if i > 0 and level == chosen:
            continue
        n_and = count(store, fts.match_and(level), scope, params)
        n_or = (
            n_and
            if len(search_terms.positives(level)) == 1
            else count(store, fts.match_or(level), scope, params)
        )
        if i == 0 and n_and == 0 and n_or >= MIN_RESULTS:
            respelled, notes = respell_absent(store, level)
            if notes:
                level = as_typed = respelled
                n_and = count(store, fts.match_and(level), scope, params)
                n_or = count(store, fts.match_or(level), scope, params)
                steps += notes
        steps.append(f"{name}: {n_and} chunks with every term, {n_or} with any")
        # A wider level is taken only when it finds more (`DocQLLexer` → doc ql lexer
        # finds nothing where the identifier found two passages).
        if n_or > chosen_or:
            chosen, chosen_or = level, n_or
        elif i > 0:
            steps.append(f"{name} finds no more → keep the narrower level")
        if n_or >= MIN_RESULTS:
            break
        if any(search_terms.positives(later) and later != level for _, later in levels[i + 1 :]):
            steps.append(f"fewer than {MIN_RESULTS} → widen")
    narrow = None
    n_and = count(store, fts.match_and(chosen), scope, params)
    if n_and > MAX_RESULTS:
        positive = search_terms.positives(chosen)
        if len(positive) > 1:
            words = [tok for t in positive for tok in t.tokens]
            focus = fts.phrase(words)
            label = f'phrase "{" ".join(words)}"'
        else:
            focus = fts.in_title(positive[0])
            label = f"title {positive[0].fts}"
        candidate = fts.both(fts.match_and(chosen), focus)
        n_narrow = count(store, candidate, scope, params)
        steps.append(f"more than {MAX_RESULTS} → narrow by {label}: {n_narrow} chunks")
        if n_narrow >= MIN_RESULTS:
            narrow = candidate
        else:
            steps.append(f"narrowing leaves fewer than {MIN_RESULTS} → keep all")
    return Level(chosen, narrow, steps, n_and, chosen == as_typed)


def bm25_rows(
    store: Store,
    level: list[search_terms.Term],
    narrow: str | None,
    opts: ranking.Request,
    depth: int,
) -> list[dict[str, Any]]:
    """The `depth` best passages by BM25 at `level`; the focused ones first when narrowed."""
    # Narrowing looks deeper (focused chunks may rank below the first `depth`).
    rows = ranking.run_mode(
        store,
        "bm25",
        "",
        level,
        ranking.Request(NARROW_DEPTH if narrow else depth, opts.paths, rrf_k=opts.rrf_k),
    )
    if narrow is None:
        return rows
    params = Params(store.dialect)
    sql = store.dialect.ids_matching(params.add(narrow))
    keep = {r["rowid"] for r in store.rows(sql, params.values)}
    # Narrowing re-orders, never hides: focused chunks first, the others after them.
    focused = [r for r in rows if r["_chunk"] in keep] + [
        r for r in rows if r["_chunk"] not in keep
    ]
    return focused[:depth]
