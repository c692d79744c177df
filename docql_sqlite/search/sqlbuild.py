"""The one SQL statement behind bm25, vector and hybrid search (and `$.content.search(q)`).

Shape (Alex Garcia's FTS5 + sqlite-vec RRF pattern, `notes/ecosystem.md` §8):

    fts_and     chunks matching every term                  (BM25, title weighted)
    fts_or      any term, only when fts_and has < min_hits   (coverage = terms matched)
    fts_ranked  row_number() by coverage, then BM25
    vec_raw     vec0 KNN, `k = ?`, doc filter pushed into the vec0 `doc_id` column
    vec_ranked  row_number() by distance, stale vectors (chunk changed) dropped
    fused       FULL OUTER JOIN; rrf = w_fts/(k + fts_rank) + w_vec/(k + vec_rank)

It uses only FTS5, window functions, FULL OUTER JOIN (3.39+) and vec0, so the
`--sql --inline` text runs unchanged in the Debian 3.40 shell (after `.load vec0` when
it has a vector arm). The contentless FTS table cannot give `snippet()`, so the SQL
builds a plain snippet itself with instr/substr around the first hit (marked `**…**`);
the Python API replaces it with a better one (`snippets.py`).

The same statement runs on PostgreSQL: each construct whose spelling differs (the
full-text query and MATCH, BM25, the KNN, the query vector) is asked of the engine's
`Dialect` (`params.dialect`, docql_sqlite/dialect/). On PostgreSQL the full text is a
`tsquery` over the tsvector table `chunks_fts(rowid, tsv)` built from the same tokens
(`fts_tokens.py`), BM25 is FTS5's own formula computed in SQL from the index's term
statistics (bound when the statement runs), and the KNN is pgvector's
`ORDER BY embedding <=> v LIMIT k` (docs/scale-out.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..dialect import Dialect, unscoped
from ..errors import SearchError
from ..query import items as item_sql
from ..records import Record, field
from ..sqlparams import Deferred, Params
from ..text import CJK_RUN, fold
from . import terms as search_terms

_LETTERS = re.compile(r"[^\W\d_]+")

# Field weights (title, body) of bm25(chunks_fts, body, title): a hit in the section title counts
# three times one in the body. (Titles are short, so BM25's length normalisation
# already favours them; 3 is enough to win ties without drowning the body text.)
TITLE_WEIGHT = 3.0
BODY_WEIGHT = 1.0
RRF_K = 60
# Coverage ranking helps short queries; over this many terms (a pasted paragraph) the
# count of matched terms is noise and costs one sub-query per term: BM25 alone ranks.
MAX_COVERAGE_TERMS = 8
VEC_K_MAX = 4096  # sqlite-vec's largest k
SNIPPET_BEFORE = 60
# Words looked for by the SQL snippet: coalesce() takes at most 127 arguments in a default
# SQLite build (the Debian shell), and the first hit needs only the first few words anyway.
MAX_SNIPPET_NEEDLES = 64
SNIPPET_CHARS = 160


def snippet_sql(dialect: Dialect) -> str:
    """The plain snippet of a row `g` (with `_at`, `_hitlen`): the text around the first
    hit, the hit marked `**…**`, on one line."""
    start = dialect.greatest("1", f"g._at - {SNIPPET_BEFORE}")
    nl = dialect.newline()
    return (
        f"CASE WHEN g._at > 0 THEN trim(replace(substr(g.content, {start}, "
        f"g._at - {start}) || '**' || substr(g.content, g._at, g._hitlen) || "
        f"'**' || "
        f"substr(g.content, g._at + g._hitlen, {SNIPPET_CHARS - SNIPPET_BEFORE}), {nl}, ' ')) "
        f"ELSE trim(replace(substr(g.content, 1, {SNIPPET_CHARS}), {nl}, ' ')) END"
    )


class Plan(Record):
    """What one ranked search runs: terms for BM25, a vector expression, fusion settings."""

    terms: list[search_terms.Term] = field(default_factory=list)
    vector: str | None = (
        None  # SQL expression giving the query vector (a bound JSON text or a sub-select)
    )
    scope: str = "1"  # SQL condition over documents `d` (paths, `$.files[...]` scopes)
    depth: int | None = None  # rows kept per list (None: every BM25 match)
    min_hits: int = 10  # fewer AND hits than this → OR fallback
    vec_k: int | Callable[[], int] = 50  # a callable: looked up when the statement runs
    # The nearest vectors as JSON [[id, distance], …], found in memory (`VectorCache`):
    # then vec_raw reads them instead of scanning vec0.
    nearest: str | None = None
    rrf_k: int = RRF_K
    w_fts: float = 1.0
    w_vec: float = 1.0
    weights: tuple[float, float] = (TITLE_WEIGHT, BODY_WEIGHT)
    # FTS strings of terms too common to select OR candidates (a callable: looked up at run)
    common: frozenset[str] | Callable[[], frozenset[str]] = frozenset()
    # The index's term statistics (`stats.TermStats`), for engines that compute BM25 in
    # SQL (PostgreSQL); looked up when the statement runs. FTS5 keeps its own.
    statistics: Any = None
    # An approximate KNN (an HNSW index) is allowed: PostgreSQL with many vectors. Off, the
    # k nearest are exact, as sqlite-vec's brute-force KNN always is.
    approximate: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def has_fts(self) -> bool:
        return bool(search_terms.positives(self.terms))


def _fts_from(plan: Plan, exact: bool) -> str:
    if unscoped(plan.scope) and not exact:
        return "chunks_fts"
    # Scoped (or checked against the text): join, so the per-list depth counts only
    # chunks that qualify.
    return "chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.doc_id"


def exact_cjk(term: search_terms.Term, params: Params) -> str | None:
    """SQL requiring the term's CJK runs verbatim in the chunk, or None when not needed.

    In the spaced FTS column `架构` is the phrase `架 构`, and a phrase skips punctuation
    and line breaks: it would also match `架，构`. Checking the run in the text itself
    makes CJK search an exact substring search.
    """
    if term.prefix:
        return None
    runs = [r for cjk in CJK_RUN.findall(term.text) for r in _LETTERS.findall(cjk) if len(r) >= 2]
    if not runs:
        return None
    hay = params.dialect.ascii_lower("coalesce(c.fold, c.content)")
    return " AND ".join(params.dialect.contains(hay, params.add(fold(r))) for r in runs)


def _or_expression(plan: Plan, sq: Dialect) -> str | Deferred:
    common = plan.common
    if callable(common):
        terms = plan.terms
        return Deferred(
            "FTS OR expression (the index's common terms left out)",
            lambda: sq.match_or(terms, common(), scored=True),
        )
    return sq.match_or(plan.terms, common, scored=True)


def _vec_k(plan: Plan) -> int | Deferred:
    vec_k = plan.vec_k
    if callable(vec_k):
        return Deferred("vec0 k (depth + stale vectors)", lambda: max(1, min(vec_k(), VEC_K_MAX)))
    return max(1, min(int(vec_k), VEC_K_MAX))


def _scope_and(plan: Plan) -> str:
    return "" if unscoped(plan.scope) else f" AND {plan.scope}"


def fts_ctes(plan: Plan, params: Params) -> list[tuple[str, str]]:
    """CTEs ending in `fts_ranked(id, bm25, coverage, rank)`."""
    sq = params.dialect
    positive = search_terms.positives(plan.terms)
    exact = {t: cond for t in positive if (cond := exact_cjk(t, params)) is not None}
    src, scope = _fts_from(plan, bool(exact)), _scope_and(plan)
    q_and = params.add(sq.match_and(plan.terms, scored=True))
    bm25_and = sq.bm25(plan.terms, plan.weights, plan.statistics, params)
    n = len(positive)
    and_exact = "".join(f" AND {cond}" for cond in exact.values())
    ctes = [
        (
            "fts_and",
            f"SELECT chunks_fts.rowid AS id, {bm25_and} AS bm25 FROM {src} "
            f"WHERE {sq.scored_matches(q_and)}{scope}{and_exact}",
        )
    ]
    if n > 1:
        # A very common word ("return" in code) would make every chunk an OR candidate
        # and cost a BM25 score each; it still counts in coverage below.
        q_or = params.add(_or_expression(plan, sq))
        bm25_or = sq.bm25(plan.terms, plan.weights, plan.statistics, params, skip=plan.common)
        min_hits = params.add(int(plan.min_hits))
        if n <= MAX_COVERAGE_TERMS or exact:
            coverage = " + ".join(
                sq.covered(params.add(sq.term(t)), exact.get(t)) for t in positive
            )
            # With exact CJK checks a row matched by OR may qualify through no term.
            covered = " WHERE coverage > 0" if exact else ""
        else:
            coverage, covered = "0", ""
        ctes.append(
            (
                "fts_or",
                f"SELECT * FROM (SELECT chunks_fts.rowid AS id, {bm25_or} AS bm25, {coverage} AS "
                f"coverage "
                f"FROM {src} WHERE (SELECT count(*) FROM fts_and) < {min_hits} "
                f"AND {sq.scored_matches(q_or)}{scope}){covered}",
            )
        )
        union = (
            f"SELECT id, bm25, {n} AS coverage FROM fts_and WHERE (SELECT count(*) FROM fts_and) "
            f">= {min_hits} "
            f"UNION ALL SELECT id, bm25, coverage FROM fts_or"
        )
    else:
        union = "SELECT id, bm25, 1 AS coverage FROM fts_and"
    if plan.depth:
        # Passages with the same coverage and BM25 share a rank, and the list keeps every
        # one of a tie at its depth (up to TIE_ROOM x the depth): cut by chunk id, which
        # follows the index's history, an edited index and a fresh one kept different
        # passages of a tie in the last places (league/commonmark's "error handling").
        depth = int(plan.depth)
        ranked = (
            f"SELECT id, bm25, coverage, rank FROM (SELECT id, bm25, coverage, "
            f"rank() OVER (ORDER BY coverage DESC, bm25) AS rank, "
            f"row_number() OVER (ORDER BY coverage DESC, bm25, id) AS n FROM ({union})) "
            f"WHERE rank <= {depth} AND n <= {depth * TIE_ROOM} ORDER BY rank, id"
        )
    else:
        ranked = (
            f"SELECT id, bm25, coverage, rank() OVER (ORDER BY coverage DESC, bm25) AS rank "
            f"FROM ({union}) ORDER BY rank, id"
        )
    ctes.append(("fts_ranked", ranked))
    return ctes


# How many times a list's depth a tie at its end may take (a corpus of generated files
# can hold thousands of passages with one score).
TIE_ROOM = 4


def vec_ctes(plan: Plan, params: Params) -> list[tuple[str, str]]:
    """CTEs ending in `vec_ranked(id, distance, rank)`: current vectors only."""
    assert plan.vector is not None
    k = params.add(_vec_k(plan))
    if plan.nearest is not None:
        raw = (
            "SELECT value ->> 0 AS id, value ->> 1 AS distance FROM "
            f"json_each({params.add(plan.nearest)})"
        )
    else:
        raw = params.dialect.knn(plan.vector, k, plan.scope, plan.approximate)
    return [
        # MATERIALIZED: a flattened CTE would hand vec0 the window's ORDER BY, which it refuses.
        ("vec_raw", raw),
        (
            "vec_ranked",
            # Distances equal to 6 decimals (near-identical vectors: short passages) rank
            # by id on both engines (float32 in sqlite-vec, double in pgvector).
            "SELECT r.id, r.distance, row_number() OVER (ORDER BY "
            f"{params.dialect.rounded('r.distance', 6)}, r.id) AS rank FROM "
            "vec_raw r "
            "JOIN chunks c ON c.id = r.id JOIN chunk_vectors cv ON cv.chunk_id = r.id "
            "AND cv.content_hash = c.content_hash AND cv.doc_id = c.doc_id",
        ),
    ]


def fused_ctes(plan: Plan, params: Params) -> list[tuple[str, str]]:
    """All CTEs, ending in `fused(id, fts_rank, bm25, coverage, vec_rank, distance, rrf_fts,
    rrf_vec, score)`.
    """
    num = params.dialect.real
    one, zero = num("1.0"), num("0.0")
    use_fts, use_vec = plan.has_fts, plan.vector is not None
    ctes: list[tuple[str, str]] = []
    if use_fts:
        ctes += fts_ctes(plan, params)
    if use_vec:
        ctes += vec_ctes(plan, params)
    k = params.add(int(plan.rrf_k))
    w_fts, w_vec = params.add(float(plan.w_fts)), params.add(float(plan.w_vec))
    if use_fts and use_vec:
        body = (
            f"SELECT coalesce(f.id, v.id) AS id, f.rank AS fts_rank, f.bm25 AS bm25, f.coverage "
            f"AS coverage, "
            f"v.rank AS vec_rank, v.distance AS distance, "
            f"coalesce({one} / ({k} + f.rank), {zero}) * {w_fts} AS rrf_fts, "
            f"coalesce({one} / ({k} + v.rank), {zero}) * {w_vec} AS rrf_vec "
            f"FROM fts_ranked f FULL OUTER JOIN vec_ranked v ON v.id = f.id"
        )
        ctes.append(("fused", f"SELECT *, rrf_fts + rrf_vec AS score FROM ({body})"))
    elif use_fts:
        # BM25 alone: score = terms matched + bm25 squashed into [0, 1), so ordering by
        # score is ordering by coverage, then BM25 (bm25() is <= 0, better is lower).
        ctes.append(
            (
                "fused",
                f"SELECT id, rank AS fts_rank, bm25, coverage, NULL AS vec_rank, NULL AS distance, "
                f"{one} / ({k} + rank) * {w_fts} AS rrf_fts, {zero} AS rrf_vec, "
                f"coverage + (-bm25) / ({one} - bm25) AS score FROM fts_ranked",
            )
        )
    elif use_vec:
        ctes.append(
            (
                "fused",
                f"SELECT id, NULL AS fts_rank, NULL AS bm25, NULL AS coverage, rank AS vec_rank, "
                f"distance, "
                f"{zero} AS rrf_fts, {one} / ({k} + rank) * {w_vec} AS rrf_vec, {one} - distance "
                f"AS score "
                f"FROM vec_ranked",
            )
        )
    else:
        raise SearchError("a search plan needs terms or a vector")
    return ctes


def snippet_parts(needles: list[str], params: Params) -> tuple[str, str]:
    """SQL for (`_at`, `_hitlen`): position and length of the first needle found in `c`."""
    dialect = params.dialect
    hay = dialect.ascii_lower("coalesce(c.fold, c.content)")
    needles = needles[:MAX_SNIPPET_NEEDLES]
    if not needles:
        return "0", "0"
    ps = [params.add(n) for n in needles]
    at = "coalesce(" + ", ".join(f"nullif({dialect.position(hay, p)}, 0)" for p in ps) + ", 0)"
    length = (
        "CASE "
        + " ".join(f"WHEN {dialect.position(hay, p)} > 0 THEN length({p})" for p in ps)
        + " ELSE 0 END"
    )
    return at, length


def vector_sql(params: Params, value: Any) -> str:
    """The query vector `value` (JSON text, or a Deferred giving it) as bound SQL."""
    return params.dialect.vector(params.add(value))


def ranked_chunks_sql(plan: Plan, params: Params, sql_snippet: bool = True) -> str:
    """A base SELECT of RANKED_CHUNK items (plus hidden `_fts_rank`… columns) for `plan`.

    `sql_snippet=False` leaves the SQL snippet NULL (and `_at`, `_hitlen` 0): for the
    Python searches, which make a better one from the content (`snippets.py`); looking
    for every needle in every row returned was ~15% of a BM25 list's time."""
    ctes = fused_ctes(plan, params)
    needles = [t.needle for t in search_terms.positives(plan.terms)] + [
        t for p in search_terms.positives(plan.terms) for t in p.tokens
    ]
    at, length = snippet_parts(list(dict.fromkeys(needles)) if sql_snippet else [], params)
    inner = (
        f"SELECT {item_sql.chunk_columns(params.dialect)}, x.score AS _score, x.score AS score, "
        f"x.fts_rank AS _fts_rank, "
        f"x.bm25 AS _bm25, "
        f"x.coverage AS _coverage, x.vec_rank AS _vec_rank, x.distance AS _distance, x.rrf_fts AS "
        f"_rrf_fts, "
        f"x.rrf_vec AS _rrf_vec, {at} AS _at, {length} AS _hitlen "
        f"FROM fused x JOIN chunks c ON c.id = x.id JOIN documents d ON d.id = c.doc_id "
        f"LEFT JOIN sections sec ON sec.id = c.section_id WHERE {plan.scope}"
    )
    # fts_and is read three times when an OR list follows (its count twice, its rows
    # once), and its body test calls bm25(): computed once, not at each read.
    names = {name for name, _ in ctes}
    materialized = {"vec_raw"} | ({"fts_and"} if "fts_or" in names else set())
    with_clause = "WITH " + ",\n".join(
        f"{name} AS {'MATERIALIZED ' if name in materialized else ''}({body})"
        for name, body in ctes
    )
    snippet = snippet_sql(params.dialect) if sql_snippet else "NULL"
    return f"{with_clause}\nSELECT g.*, {snippet} AS snippet FROM ({inner}) g"
