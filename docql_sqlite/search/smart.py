"""Smart search for plain text (spec §7), after AutoDev's DocQLTool with working thresholds.

1. Keyword levels (`terms.expand`): the query as typed → component words of identifiers
   and phrases (camelCase, snake_case, kebab, dotted) → stem prefixes (`plan*`).
2. Adaptive strategy, on counts of matching chunks (AutoDev compared BM25 *scores* ~1
   with a threshold of 5.0, so it always fell back): fewer than MIN_RESULTS → widen to
   the next level; more than MAX_RESULTS → narrow with a secondary keyword (the exact
   phrase, else the term in section titles) when that still leaves MIN_RESULTS.
3. Channels, run together, each a ranked list of chunks: BM25 (the chosen level),
   code symbols by name, headings by title, entities by name, vectors when present.
4. RRF over the channels, then a composite score: 100 x RRF + BM25 (squashed to 0..1)
   x 0.5 + the best result-type priority + a bonus when a symbol, heading or entity
   name equals the query (1.0) or starts with it (0.2). Ties: path, then position.
5. A passage as the query (more than LONG_QUERY content words) on an index with vectors
   ranks by the vector list alone (`lexical_share`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..dialect import unscoped
from ..errors import SearchError
from ..passage_text import link_only
from ..query import items as item_sql
from ..sqlparams import Params
from ..text import fold
from . import documents, evidence, fusion, names, parallel, ranking, snippets, sqlbuild, stats
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

MIN_RESULTS = 3
MAX_RESULTS = 50
CHANNEL_DEPTH = 30
NARROW_DEPTH = 300
WEIGHTS = {
    "bm25": 1.0,
    "vector": 1.0,
    "symbols": 1.0,
    "code_words": 1.0,
    "headings": 0.8,
    "entities": 0.6,
    "documents": 1.0,
}
# Small next to one RRF rank step at the top (100 x (1/61 - 1/62) ≈ 0.026 … 1.6 for rank 1):
# they order passages the lists rank alike, they do not overturn the lists.
TYPE_PRIORITY = {"symbols": 0.1, "code_words": 0.05, "headings": 0.05, "entities": 0.03}
NAME_EXACT, NAME_PREFIX = 1.0, 0.2
# The squashed BM25 term of the composite (0..1) x this: worth up to ~20 rank steps of
# one list. 0 was tried with vectors and the two halves of the FAQ sets disagreed
# (docs/benchmarks.md, third pass), so it stays.
BM25_BONUS = 0.5
# A text of more than LONG_QUERY content words is a pasted passage ("more like this"),
# not a question: with vectors, the lexical channels then count LONG_LEXICAL of their
# weight (see `lexical_share`).
LONG_QUERY = 20
LONG_LEXICAL = 0.0
# Name channels match a name *containing* a term only for short queries: in a pasted
# sentence every common word is inside some identifier.
SHORT_QUERY = 3


def count(index: Store, expr: str, scope: str, params: Params) -> int:
    """Chunks in scope matching `expr` (cached per index version: levels repeat across queries)."""
    if unscoped(scope):
        return stats.matching(index, expr)
    sql = (
        f"SELECT count(*) FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents "
        f"d ON d.id = c.doc_id "
        f"WHERE {params.dialect.matches(params.add(expr))} AND {scope}"
    )
    return int(index.scalar(sql, params.values))


@dataclass(frozen=True, slots=True)
class Level:
    """The keyword level chosen: its terms, an optional narrowing FTS expression, the
    strategy's steps, and how many chunks in scope hold every one of its terms."""

    terms: list[search_terms.Term]
    narrow: str | None
    steps: list[str]
    n_and: int
    exact: bool  # the query's terms as typed (not widened to components or stems)


def choose_level(index: Store, terms: list[search_terms.Term], scope: str, params: Params) -> Level:
    """The keyword level to rank by (`Level`)."""
    exp = search_terms.expand(terms)
    fts = params.dialect
    steps: list[str] = []
    levels = [("exact", exp.exact), ("components", exp.components), ("stems", exp.stems)]
    chosen, chosen_or = exp.exact, -1
    for i, (name, level) in enumerate(levels):
        if not search_terms.positives(level):
            continue
        if i > 0 and level == chosen:
            continue
        n_and = count(index, fts.match_and(level), scope, params)
        n_or = (
            n_and
            if len(search_terms.positives(level)) == 1
            else count(index, fts.match_or(level), scope, params)
        )
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
    n_and = count(index, fts.match_and(chosen), scope, params)
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
        n_narrow = count(index, candidate, scope, params)
        steps.append(f"more than {MAX_RESULTS} → narrow by {label}: {n_narrow} chunks")
        if n_narrow >= MIN_RESULTS:
            narrow = candidate
        else:
            steps.append(f"narrowing leaves fewer than {MIN_RESULTS} → keep all")
    return Level(chosen, narrow, steps, n_and, chosen == exp.exact)


def bm25_rows(
    index: Store, level: list[search_terms.Term], narrow: str | None, opts: ranking.Request
) -> list[dict[str, Any]]:
    # Narrowing looks deeper (focused chunks may rank below the first CHANNEL_DEPTH).
    depth = NARROW_DEPTH if narrow else CHANNEL_DEPTH
    rows = ranking.run_mode(
        index, "bm25", "", level, ranking.Request(depth, opts.paths, rrf_k=opts.rrf_k)
    )
    if narrow is None:
        return rows
    params = Params(index.dialect)
    sql = index.dialect.ids_matching(params.add(narrow))
    keep = {r["rowid"] for r in index.rows(sql, params.values)}
    # Narrowing re-orders, never hides: focused chunks first, the others after them.
    focused = [r for r in rows if r["_chunk"] in keep] + [
        r for r in rows if r["_chunk"] not in keep
    ]
    return focused[:CHANNEL_DEPTH]


@dataclass(frozen=True, slots=True)
class QueryNames:
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


def _names(terms: list[search_terms.Term]) -> QueryNames:
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


def _name_channel(
    index: Store,
    table: str,
    alias: str,
    name_col: str,
    terms: list[search_terms.Term],
    opts: ranking.Request,
) -> list[dict[str, Any]]:
    """Chunks holding a symbol / heading / entity whose name matches; exact > prefix > contains.

    A name *containing* the query counts only for short queries (see `_names`): in a
    pasted sentence every common word is inside some name.
    """
    params = Params(index.dialect)
    dialect = params.dialect
    scope = ranking.scope_sql(opts.paths, params)
    names = _names(terms)
    # Code symbols are named only by strong names: a symbol called after one plain word of
    # a question (`def handle`) is what the code-words channel weighs, by its share.
    equal = [n for n in names.equal if table != "symbols" or n in names.strong]
    contain = names.contain
    if not equal and not contain:
        return []
    col = f"{alias}.{name_col}"
    conds, exact, prefix = [], [], []
    equal_params = [params.add(name) for name in equal]
    if equal_params:
        # One IN list, not an OR of equalities: the scan of every name then probes one
        # small index per row instead of comparing a dozen strings (a 10-word passage
        # gives 14 spellings): the headings list 3.0 → 1.8 ms on the 10 MB mix.
        conds.append(f"{col} IN ({', '.join(equal_params)})")
    for p in equal_params:
        exact.append(f"WHEN {col} = {p} THEN 3")
    for name in contain:
        p = params.add(name)
        conds.append(dialect.contains(col, p))
        prefix.append(f"WHEN {dialect.starts_with(col, p)} THEN 2")
    scope_names, scope_chunks = scope, dialect.TRUE
    if table != "symbols":
        # In code files headings and entities repeat the symbols (spec §1): count a
        # class once, in the symbols channel.
        scope_names += " AND d.format != 'code'"
    negated = [t for t in terms if t.negated]
    if negated:
        neg = params.add(dialect.any_of(negated))
        scope_chunks = f"c.id NOT IN ({dialect.ids_matching(neg)})"
    tier = "CASE " + " ".join(exact + prefix) + " ELSE 1 END"
    # Names first (a small, materialized list), then their passages: letting the planner
    # start from the chunks made this 100x slower on big indexes.
    sql = f"""WITH named AS MATERIALIZED (
  SELECT {alias}.doc_id AS doc_id, {alias}.line AS line, {col} AS name, {tier} AS tier, d.path AS
  path
  FROM {table} {alias} JOIN documents d ON d.id = {alias}.doc_id
  WHERE ({" OR ".join(conds)}) AND {scope_names}
  ORDER BY tier DESC, length({col}), {dialect.sort_key("d.path")}, {alias}.line
  LIMIT {CHANNEL_DEPTH})
SELECT {item_sql.chunk_columns(dialect)}, n.tier AS _tier, n.name AS _match
FROM named n JOIN chunks c ON c.doc_id = n.doc_id AND c.line <= n.line AND c.end_line >= n.line
JOIN documents d ON d.id = c.doc_id LEFT JOIN sections sec ON sec.id = c.section_id
WHERE {scope_chunks}
ORDER BY n.tier DESC, length(n.name), {dialect.sort_key("n.path")}, c.chunk_index"""
    return [dict(r, _weight=names.weight(r["_match"])) for r in index.rows(sql, params.values)]


def lexical_share(index: Store, terms: list[search_terms.Term]) -> float:
    """How much the lexical channels count next to the vector channel (1.0, or LONG_LEXICAL).

    A query of more than LONG_QUERY content words is a passage, asking for passages like
    it. Its words are many and mostly common, so BM25 over its rarest ones (and the name
    and document channels, which see the same words) ranks by accidents of vocabulary,
    and RRF, which counts how many lists hold a passage far more than where they rank
    it, lets four such lists outvote the one that measures similarity of meaning: on the
    Lee set (news paragraphs as queries) smart Recall@10 was 0.55 against 0.70 for the
    vector mode. Questions (FAQ, code docstrings: 1–18 content words) are unchanged."""
    if index.has_vectors and len(search_terms.positives(terms)) > LONG_QUERY:
        return LONG_LEXICAL
    return 1.0


def channels(
    index: Store,
    text: str,
    terms: list[search_terms.Term],
    opts: ranking.Request,
    lexical: float = 1.0,
) -> tuple[list[fusion.Ranked], list[str], list[str]]:
    """The ranked lists, the keyword strategy's steps, and the document channel's notes.
    `lexical` scales every list but the vector channel (`lexical_share`); at 0 they are
    not run.

    With a sidecar (`parallel.of`: an index opened with `parallel_search`) BM25 and the
    first name lists (SQLite's work) run on its worker while this thread embeds the
    query and runs the vector, entity, code-word and document lists; the lists and their
    order are the same either way."""
    lists: list[fusion.Ranked] = []
    steps: list[str] = []
    doc_notes: list[str] = []
    passages: parallel.Pending[tuple[list[fusion.Ranked], list[str], int]] | None = None
    sidecar = parallel.of(index) if lexical > 0 else None
    if sidecar is not None:
        passages = sidecar.submit(
            index, lambda other: passage_channels(other, terms, opts, lexical, SIDECAR_NAMES)
        )
    try:
        vector = vector_channel(index, text, opts) if index.has_vectors else None
        if lexical > 0:
            if passages is None:
                lists, steps, n_level = passage_channels(index, terms, opts, lexical)
                others, doc_notes = other_channels(index, terms, opts, lexical, (lists[0], n_level))
            else:
                later = name_lists(index, terms, opts, lexical, NAME_LISTS[SIDECAR_NAMES:])
                others, doc_notes = other_channels(index, terms, opts, lexical, None)
                lists, steps, n_level = passages.result()
                passages = None
                lists += later
                others[0] = code_words_weighed(others[0], lists[0], n_level)
            lists += others
    finally:
        if passages is not None:  # an error here: the worker's task still finishes first
            passages.wait()
    if vector is not None:
        lists.append(vector[0])
        steps += vector[1]
    return represented(lists), steps, doc_notes


def represented(lists: list[fusion.Ranked]) -> list[fusion.Ranked]:
    """The document channel's passage of each document: the document's passage in the
    BM25 list that holds the most terms (the better ranked on a tie), when it holds
    every term or more of them than the channel's own pick; else that pick.

    The channel picks by saturated term counts, which favour a long passage repeating
    some of the words ("request" x 12 in `request.reusedSocket`) over the one holding
    every word once (`request.setTimeout()`): the document earned its rank, and the
    passage with more of the words is the one that answers. A BM25 passage with only
    some of them is no better than a pick the BM25 list does not hold (`fs.cpSync`
    against `fs.mkdir` for "create a directory recursively")."""
    by_name = {r.name: r for r in lists}
    docs, bm25 = by_name.get("documents"), by_name.get("bm25")
    if docs is None or bm25 is None or not docs.rows or not bm25.rows:
        return lists
    share = {row["_chunk"]: row.get("_weight", 1.0) for row in bm25.rows}  # coverage / n
    best: dict[int, dict[str, Any]] = {}
    for row in bm25.rows:
        held = best.get(row["_doc"])
        if held is None or share[row["_chunk"]] > share[held["_chunk"]]:
            best[row["_doc"]] = row
    rows = []
    for r in docs.rows:
        top = best.get(r["_doc"])
        if top is not None and (
            share[top["_chunk"]] >= 1.0 or share[top["_chunk"]] > share.get(r["_chunk"], 2.0)
        ):
            r = dict(top, _doc_score=r.get("_doc_score"), _weight=1.0)
        rows.append(r)
    docs.rows = rows
    return lists


def vector_channel(index: Store, text: str, opts: ranking.Request) -> tuple[fusion.Ranked, list[str]]:
    """The nearest passages by meaning, and the plan's notes."""
    vparams = Params(index.dialect)
    plan = sqlbuild.Plan(scope=ranking.scope_sql(opts.paths, vparams), rrf_k=opts.rrf_k)
    ranking.add_vector(
        index, plan, vparams, text, ranking.Request(CHANNEL_DEPTH, opts.paths, model=opts.model)
    )
    ranked = fusion.Ranked(
        "vector",
        opts.weight("vector", WEIGHTS["vector"]),
        ranking.run_plan(index, plan, vparams, CHANNEL_DEPTH, mode="vector"),
    )
    return ranked, plan.notes


NAME_LISTS = (  # (list, table, alias, name column)
    ("symbols", "symbols", "y", "name_fold"),
    ("headings", "sections", "s", "title_fold"),
    ("entities", "entities", "e", "name_fold"),
)
# With a sidecar, BM25 and this many name lists run on its worker, the others on the
# caller's thread: the split that left the two threads about the same CPU on the 10 MB
# mix (docs/mcp.md).
SIDECAR_NAMES = 2


def passage_channels(
    index: Store,
    terms: list[search_terms.Term],
    opts: ranking.Request,
    lexical: float,
    names_upto: int = len(NAME_LISTS),
) -> tuple[list[fusion.Ranked], list[str], int]:
    """BM25 at the chosen keyword level, then the first `names_upto` name lists
    (`NAME_LISTS`); the keyword strategy's steps; the number of terms of that level."""
    params = Params(index.dialect)
    scope = ranking.scope_sql(opts.paths, params)
    chosen = choose_level(index, terms, scope, params)
    level, narrow, steps = chosen.terms, chosen.narrow, chosen.steps
    # Name channels look for the query as typed (and its words joined: "query planner"
    # → QueryPlanner, query_planner); widening applies to the BM25 channel only.
    # A passage holding 2 of a question's 4 words answers half of it: its BM25 rank counts
    # half (RRF alone sees ranks 1 and 2 as nearly equal, whatever they cover).
    n_level = len(search_terms.positives(level))
    rows = bm25_rows(index, level, narrow, opts)
    lists = [
        fusion.Ranked(
            "bm25",
            lexical * opts.weight("bm25", WEIGHTS["bm25"]),
            [dict(r, _weight=(r["_coverage"] or n_level) / n_level) for r in rows],
        )
    ]
    # Exact evidence is of the words as typed: widened to the parts of an identifier
    # (`createReadStream` → creat* read* stream*), "every term" is no longer the query.
    exact = evidence.exact_list(rows, level, chosen.n_and if chosen.exact else 0)
    if exact.rows:
        exact.weight *= lexical * opts.weight("exact", 1.0)
        lists.append(exact)
        steps.append(
            f"exact evidence: {len(exact.rows)} passages hold every term in their own text "
            f"(of {chosen.n_and} with every term) → list weight {exact.weight:.2f}"
        )
    lists += name_lists(index, terms, opts, lexical, NAME_LISTS[:names_upto])
    return lists, steps, n_level


def name_lists(
    index: Store,
    terms: list[search_terms.Term],
    opts: ranking.Request,
    lexical: float,
    which: tuple[tuple[str, str, str, str], ...],
) -> list[fusion.Ranked]:
    return [
        fusion.Ranked(
            name,
            lexical * opts.weight(name, WEIGHTS[name]),
            _name_channel(index, table, alias, col, terms, opts),
        )
        for name, table, alias, col in which
    ]


def other_channels(
    index: Store,
    terms: list[search_terms.Term],
    opts: ranking.Request,
    lexical: float,
    bm25: tuple[fusion.Ranked, int] | None,
) -> tuple[list[fusion.Ranked], list[str]]:
    """Code words and documents (the document channel's notes too). Code words are
    weighed by what the BM25 list answered (`code_words_weighed`): pass it and its
    level's number of terms, or None to weigh them later, once they are known."""
    # Words of the query inside code names (getwelcome, b64decode): what BM25 cannot see.
    code_rows = names.channel(index, terms, opts.paths, CHANNEL_DEPTH)
    code = fusion.Ranked(
        "code_words", lexical * opts.weight("code_words", WEIGHTS["code_words"]), code_rows
    )
    if bm25 is not None:
        code = code_words_weighed(code, *bm25)
    doc_rows, doc_notes = documents.channel(index, terms, opts.paths)
    docs = fusion.Ranked(
        "documents", lexical * opts.weight("documents", WEIGHTS["documents"]), doc_rows
    )
    return [code, docs], doc_notes


def code_words_weighed(code: fusion.Ranked, bm25: fusion.Ranked, n_level: int) -> fusion.Ranked:
    """When a passage holds every word of a question, a name counts by the share of the
    question it adds (`def handle` adds nothing to "how do I handle errors in a request
    handler" that BM25 did not see); otherwise a name match is the best evidence there
    is (a docstring's words rarely occur in the code) and counts fully."""
    answered = n_level > 1 and any(r["_coverage"] == n_level for r in bm25.rows)
    if answered:
        rows = [dict(r, _weight=r["_share"]) for r in code.rows if r["_share"] > 0]
    else:
        # A name made of words BM25 sees as whole tokens (`fun explain` for "where is
        # authentication explained?") is no hidden evidence: it counts by the share of
        # the question it holds, as a passage's coverage does in the BM25 list.
        rows = [dict(r, _weight=1.0 if r["_share"] > 0 else r["_held"]) for r in code.rows]
    return fusion.Ranked(code.name, code.weight, rows)


def composite(entry: fusion.Fused, names: QueryNames, lexical: float = 1.0) -> float:
    """100 x RRF + 0.5 x squashed BM25 + type priority + name match (see module doc).

    A weak name (one plain word of the query) answers one word: its bonus is shared
    (1/words), so a passage that covers every word can outrank a symbol named after one.
    A strong name (an identifier as typed, the words joined) gets the whole bonus.
    `lexical` (`lexical_share`) scales everything but the RRF score: at 0 the vector
    list's order alone."""
    bm25 = entry.lists.get("bm25", {}).get("bm25", 0.0) or 0.0
    priority = max((TYPE_PRIORITY.get(name, 0.0) for name in entry.lists), default=0.0)
    match = 0.0
    for info in entry.lists.values():
        found = fold(str(info.get("match") or ""))
        share = names.weight(found)
        if found and found in names.equal:
            match = max(match, NAME_EXACT * share)
        elif found and any(found.startswith(n) for n in names.equal):
            match = max(match, NAME_PREFIX * share)
    return 100.0 * entry.score + lexical * (BM25_BONUS * bm25 / (1.0 + bm25) + priority + match)


def run(index: Store, text: str, opts: ranking.Request) -> list[dict[str, Any]]:
    terms = search_terms.parse(text)
    if not search_terms.positives(terms):
        raise SearchError(
            f"nothing to search for in '{text}': give at least one word that is not negated (-word)"
        )
    lexical = lexical_share(index, terms)
    terms, reduced = stats.reduce_terms(index, terms)
    lists, steps, doc_notes = channels(index, text, terms, opts, lexical)
    if reduced:
        steps.insert(0, reduced)
    if lexical != 1.0:
        steps.insert(0, f"a passage as query (over {LONG_QUERY} words) → lexical lists x{lexical}")
    names = _names(terms)
    # Chunks of links alone (a Markdown page's link definitions) are no passages; the
    # BM25 and vector lists have none (`ranking.run_plan`), the name lists may.
    fused = [f for f in fusion.rrf(lists, opts.rrf_k) if not link_only(f.row["content"])]
    scored = sorted(
        ((composite(f, names, lexical), f) for f in fused),
        key=lambda p: (-p[0], p[1].row["_path"], p[1].row["_pos"]),
    )
    scored = scored[: opts.fetch]
    pats = snippets.patterns(terms) or snippets.patterns(search_terms.expand(terms).components)
    items = []
    for score, entry in scored:
        it = ranking.item(dict(entry.row, score=score), pats, opts)
        if opts.explain:
            it["explain"] = {
                "lists": entry.lists,
                "rrf": entry.rrf,
                "rrf_total": round(entry.score, 8),
                "final": round(score, 6),
                "plan": {
                    "mode": "smart",
                    "strategy": steps,
                    "documents": doc_notes,
                    "channels": {r.name: len(r.rows) for r in lists},
                },
            }
        items.append(it)
    return ranking.group_files(items, opts) if opts.group == "file" else items[: opts.limit]
