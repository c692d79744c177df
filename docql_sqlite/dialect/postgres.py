"""PostgreSQL's spelling: PostgreSQL 16 + pgvector, as created by sql/postgres/.

The full text is a tsvector table `chunks_fts(rowid, tsv)` built from the same tokens as
FTS5's (`fts_tokens.py`); BM25 is FTS5's formula computed in SQL from the index's term
statistics (bound when the statement runs); the KNN is pgvector's `<=>` (docs/scale-out.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ..errors import SearchError
from ..sqlparams import Deferred, Params
from ..text import like_pattern
from .base import Dialect, FtsTerm, TermStatistics, positives, text_literal, unscoped
from .base import phrases as term_phrases

# FTS5's BM25 constants (fts5_aux.c), for BM25 computed in SQL.
BM25_K1 = 1.2
BM25_B = 0.75


class PostgresDialect(Dialect):
    """PostgreSQL 16 (+ pgvector), as created by sql/postgres/."""

    name: ClassVar[str] = "postgres"
    TRUE: ClassVar[str] = "true"
    FALSE: ClassVar[str] = "false"
    NO_LIMIT: ClassVar[str] = "ALL"
    PARAM: ClassVar[str] = "%({name})s"
    PARAM_PATTERN: ClassVar[str] = r"%\((p\d+)\)s"
    # No trigram tables: heading() and grep() stay exact scans (strpos, ILIKE).
    TITLE_TRIGRAMS: ClassVar[bool] = False
    # Nor over symbol or entity names: `~=` on a name stays a strpos() scan.
    NAME_TRIGRAMS: ClassVar[bool] = False
    # An aggregate may run in parallel workers whose partial strings are combined: only an
    # ORDER BY inside each string_agg keeps several of them aligned.
    ALIGNED_UNORDERED_CONCAT: ClassVar[bool] = False

    def text(self, expr: str) -> str:
        return f"({expr})::text"

    def ascii_lower(self, expr: str) -> str:
        # PostgreSQL's lower() folds every letter its locale knows; SQLite's only A-Z. The
        # stored fold columns carry the Unicode folding, so this must stay ASCII-only:
        # under the "C" collation lower() maps the bytes A-Z and nothing else (and is ~60x
        # faster than translate(x, 'A..Z', 'a..z'), measured on 12,661 chunks).
        return f'lower(({expr}) COLLATE "C")'

    def contains(self, hay: str, needle: str) -> str:
        return f"strpos({hay}, {needle}) > 0"

    def position(self, hay: str, needle: str) -> str:
        return f"strpos({hay}, {needle})"

    def starts_with(self, hay: str, needle: str) -> str:
        return f"left({hay}, length({needle})) = {needle}"

    def ends_with(self, hay: str, needle: str) -> str:
        return f"right({hay}, length({needle})) = {needle}"

    def regex(self, expr: str, pattern: str, ignore_case: bool) -> str:
        return f"{expr} {'~*' if ignore_case else '~'} {pattern}"

    def glob(self, expr: str, pattern: str) -> str:
        return f'{expr} COLLATE "C" ~ {pattern}'

    def ids_in(self, expr: str, ids: str) -> str:
        return f"{expr} IN (SELECT (value)::bigint FROM json_array_elements_text(({ids})::json))"

    def json_list(self, expr: str) -> str:
        return f"json_array_elements_text(({expr})::json) AS j(value)"

    def greatest(self, a: str, b: str) -> str:
        return f"greatest({a}, {b})"

    def concat_rows(self, expr: str, order: str | None = None) -> str:
        return f"string_agg({expr}, ''{' ORDER BY ' + order if order else ''})"

    def sort_key(self, expr: str) -> str:
        return f'{expr} COLLATE "C"'

    def real(self, literal: str) -> str:
        return f"{literal}::float8"

    def rounded(self, expr: str, digits: int) -> str:
        return f"round(CAST({expr} AS numeric), {int(digits)})::float8"

    def newline(self) -> str:
        return "chr(10)"

    def in_order(self, expr: str, pattern: str) -> str:
        return f"{expr} COLLATE \"C\" LIKE {pattern} ESCAPE '\\'"

    def in_order_value(self, runs: Sequence[str]) -> str:
        return like_pattern(*runs)

    def like(self, expr: str, pattern: str) -> str:
        # ILIKE under the "C" collation lower-cases A-Z only, whatever the database's locale.
        return f"{expr} COLLATE \"C\" ILIKE {pattern} ESCAPE '\\'"

    def ordered_concat(self, value: str, rows: str, order: str) -> str:
        return f"(SELECT string_agg({value}, '' ORDER BY {order}) FROM {rows})"

    def group_by(self, keys: str, dependent: str) -> str:
        return f"GROUP BY {keys}, {dependent}"

    def documents_then_sections(self) -> str:
        # The planner chooses the join order (no CROSS JOIN hint).
        return "sections s JOIN documents d ON d.id = s.doc_id"

    def regex_value(self, pattern: str, flags: str) -> str:
        from .are import python_regex_to_are  # loaded by the first regex on PostgreSQL

        return python_regex_to_are(pattern, flags)

    # The data column is JSON text; `v` is the jsonb value of the key (NULL when absent).
    # The CASEs below give what SQLite's json_extract gives (booleans are 1 and 0).
    @staticmethod
    def _jsonb(data: str, key: str) -> str:
        return f"(({data})::jsonb -> {text_literal(key)})"

    @staticmethod
    def _sqlite_text(v: str) -> str:
        return (
            f"(CASE jsonb_typeof({v}) WHEN 'boolean' THEN ({v})::boolean::int::text "
            f"ELSE {v} #>> '{{}}' END)"
        )

    def json_value(self, data: str, key: str) -> str:
        return self._sqlite_text(self._jsonb(data, key))

    def json_text(self, data: str, key: str) -> str:
        return f"((({data})::json -> {text_literal(key)})::text)"

    def json_is_number(self, data: str, key: str) -> str:
        return f"jsonb_typeof({self._jsonb(data, key)}) IN ('number', 'boolean')"

    def json_number(self, data: str, key: str) -> str:
        v = self._jsonb(data, key)
        return (
            f"(CASE jsonb_typeof({v}) WHEN 'boolean' THEN ({v})::boolean::int "
            f"WHEN 'number' THEN ({v})::numeric END)"
        )

    def json_is_integer(self, data: str, key: str, number: int) -> str:
        v = self._jsonb(data, key)
        # A JSON number is an SQLite integer when its text has no fraction or exponent.
        return (
            f"(CASE jsonb_typeof({v}) WHEN 'boolean' THEN ({v})::boolean::int = {number} "
            f"WHEN 'number' THEN ({v})::text !~ '[.eE]' AND ({v})::numeric = {number} "
            f"ELSE false END)"
        )

    def json_truthy(self, data: str, key: str) -> str:
        v = self._jsonb(data, key)
        return (
            f"(CASE jsonb_typeof({v}) WHEN 'number' THEN ({v})::numeric != 0 "
            f"WHEN 'boolean' THEN ({v})::boolean "
            f"WHEN 'string' THEN ({v} #>> '{{}}') NOT IN ('', '[]', '{{}}') "
            f"WHEN 'array' THEN jsonb_array_length({v}) > 0 "
            f"WHEN 'object' THEN {v} != '{{}}'::jsonb ELSE false END)"
        )

    def json_contains(self, data: str, key: str, keyword: str) -> str:
        v = self._jsonb(data, key)
        element = self.ascii_lower(self._sqlite_text("j.value"))
        return (
            f"(CASE jsonb_typeof({v}) WHEN 'array' THEN "
            f"EXISTS (SELECT 1 FROM jsonb_array_elements({v}) AS j(value) "
            f"WHERE {element} = {keyword}) "
            f"ELSE {self.contains(self.ascii_lower(self.json_value(data, key)), keyword)} END)"
        )

    def positional(self, sql: str) -> str:
        # psycopg: `%s` markers, and a literal `%` doubled (the catalog's SQL has no `?`
        # inside its string literals).
        return sql.replace("%", "%%").replace("?", "%s")

    # -- full text: tsquery literals over `chunks_fts.tsv` ------------------------------------
    # A query is a tsquery *literal* (`'a' <-> 'b' & 'c':*`), cast with `::tsquery`, not
    # `to_tsquery('simple', …)`: the lexemes are already FTS5's tokens (`fts_tokens.py`) and
    # to_tsquery would split them again with PostgreSQL's parser. The title is weight A and
    # the body weight B of the tsvector, so FTS5's `body : (…)` is `:B`.

    @staticmethod
    def _tokens(term: FtsTerm) -> list[str]:
        # The tokens FTS5 makes of the quoted string it is sent (`Term.fts`).
        from ..fts_tokens import tokens as fts_tokens  # a search's, not a start-up's

        return fts_tokens(" ".join(term.tokens))

    def _phrase(self, term: FtsTerm, weight: str = "", alone: bool = False) -> str:
        """The term as a tsquery; `alone`: its own words only (not its joined spelling)."""
        toks = self._tokens(term) or [""]
        from ..fts_tokens import quote_lexeme

        parts = [quote_lexeme(t) + (":" + weight if weight else "") for t in toks]
        if term.joined and not alone:  # either spelling (`Term.fts`)
            one = quote_lexeme(term.joined) + (":" + weight if weight else "")
            words = "(" + " <-> ".join(parts) + ")" if len(parts) > 1 else parts[0]
            return f"({words} | {one})"
        if term.prefix:
            parts[-1] = quote_lexeme(toks[-1]) + ":*" + weight
        return "(" + " <-> ".join(parts) + ")" if len(parts) > 1 else parts[0]

    def term(self, term: FtsTerm) -> str:
        return self._phrase(term)

    def _query(self, expr: str, terms: Sequence[FtsTerm], kept: Sequence[FtsTerm]) -> str:
        negative = [self._phrase(t) for t in terms if t.negated]
        if negative:
            expr = f"({expr}) & !({' | '.join(negative)})"
        body = " | ".join(self._phrase(t, "B") for t in kept)
        return f"({expr}) & ({body})"

    def match_and(self, terms: Sequence[FtsTerm], scored: bool = False) -> str:
        positive = positives(terms)
        if not positive:
            raise SearchError("a search needs at least one word that is not negated")
        return self._query(" & ".join(self._phrase(t) for t in positive), terms, positive)

    def match_or(
        self, terms: Sequence[FtsTerm], skip: frozenset[str] = frozenset(), scored: bool = False
    ) -> str:
        positive = positives(terms)
        if not positive:
            raise SearchError("a search needs at least one word that is not negated")
        kept = [t for t in positive if t.fts not in skip] or positive
        return self._query(" | ".join(self._phrase(t) for t in kept), terms, kept)

    def any_of(self, terms: Sequence[FtsTerm]) -> str:
        return " | ".join(self._phrase(t) for t in terms)

    def phrase(self, tokens: list[str]) -> str:
        from ..fts_tokens import quote_lexeme
        from ..fts_tokens import tokens as fts_tokens

        return " <-> ".join(quote_lexeme(t) for t in fts_tokens(" ".join(tokens)))

    def in_title(self, term: FtsTerm) -> str:
        return self._phrase(term, "A")

    def both(self, first: str, second: str) -> str:
        return f"({first}) & ({second})"

    def matches(self, query: str) -> str:
        return f"chunks_fts.tsv @@ CAST({query} AS tsquery)"

    def scored_matches(self, query: str) -> str:
        # The body condition stays in the tsquery (`:B`): its statistics are stored.
        return self.matches(query)

    def ids_matching(self, query: str) -> str:
        return f"SELECT rowid FROM chunks_fts WHERE tsv @@ CAST({query} AS tsquery)"

    def count_matching(self, query: str) -> str:
        return f"SELECT count(*) FROM chunks_fts WHERE tsv @@ CAST({query} AS tsquery)"

    def corpus_sql(self) -> str:
        return (
            "SELECT count(*) AS rows, sum((SELECT sum(cardinality(u.positions)) "
            "FROM unnest(tsv) u)) AS tokens FROM chunks_fts"
        )

    def covered(self, query: str, exact: str | None) -> str:
        cond = self.matches(query) + (f" AND {exact}" if exact else "")
        return f"(CASE WHEN {cond} THEN 1 ELSE 0 END)"

    def bm25(
        self,
        terms: Sequence[FtsTerm],
        weights: tuple[float, float],
        statistics: TermStatistics | None,
        params: Params,
        skip: Any = frozenset(),
    ) -> str:
        """SQLite's ranked score (`SqliteDialect.bm25`), computed from the row's tsvector.

        There it is FTS5's bm25() twice over the phrases of the MATCH expression (each
        kept term): once with the column weights (f = 3 × title hits + body hits), once
        with the title's weight 0 (f = body hits), added. Each is, as fts5_aux.c,
        -Σ idf(p)·f(p)·(k1+1) / (f(p) + k1·(1 − b + b·|row|/avgdl)) with
        idf = ln((N − n + 0.5)/(n + 0.5)) (1e-6 when ≤ 0), n the rows matching the term
        in any column. Negated phrases add 0 to matching rows, and so does a term
        left out of an OR expression (`skip`: its idf is bound as 0). The idf values and
        avgdl come from the index's statistics, bound when the statement runs; the
        arithmetic follows FTS5's order, so the scores equal FTS5's to the last bit when
        the statistics do.
        """
        stats = statistics
        if stats is None:
            raise SearchError("BM25 on PostgreSQL needs the index's term statistics")
        title_w, body_w = (self.real(repr(float(w))) for w in weights)
        positive = positives(terms)
        # Each term's phrases in the expression's order (a joined term is two: FTS5
        # scores each phrase of `("read" OR "readonly")` with its own idf), with the term
        # whose place in an OR expression (`skip`) decides whether it counts.
        scored = [(t, p) for t in positive for p in term_phrases(t)]
        idfs = [
            params.add(_idf_deferred(stats, self._phrase(p, alone=True), t, positive, skip))
            for t, p in scored
        ]
        avgdl = params.add(Deferred("average tokens per chunk", lambda: stats.corpus()[1]))
        k1, b = self.real(repr(BM25_K1)), self.real(repr(BM25_B))
        freqs, parts = [], []
        phrases = [
            (p, idf, body_only) for body_only in (False, True) for (_, p), idf in zip(scored, idfs)
        ]
        for i, (term, idf, body_only) in enumerate(phrases):
            f = self._frequency(term, body_only, title_w, body_w, params)
            freqs.append(f"{f} AS f{i}")
            parts.append(
                f"{idf} * (s.f{i} * ({k1} + {self.real('1.0')})) / (s.f{i} + {k1} * "
                f"({self.real('1.0')} - {b} + {b} * s.dl / {avgdl}))"
            )
        # One pass over the row's lexemes (`u`), aggregated: the frequencies and the row
        # length are computed once per row, however often the formula names them.
        half = len(scored)
        zero = self.real("0.0")
        return (
            f"(SELECT (-({zero} + {' + '.join(parts[:half])})) + "
            f"(-({zero} + {' + '.join(parts[half:])})) "
            f"FROM (SELECT {', '.join(freqs)}, coalesce(sum(cardinality(u.positions)), 0) AS dl "
            f"FROM unnest(chunks_fts.tsv) u) s)"
        )

    def _frequency(
        self, term: FtsTerm, body_only: bool, title_w: str, body_w: str, params: Params
    ) -> str:
        """Weighted occurrences of the term in the row: an aggregate over its lexemes `u`
        for one token; for a phrase, its first token followed by the others at the next
        positions (a sub-select of its own)."""
        toks = self._tokens(term) or [""]
        last = len(toks) - 1
        zero = self.real("0.0")

        def lexeme(alias: str, i: int) -> str:
            p = params.add(toks[i])
            if term.prefix and i == last:
                return f"starts_with({alias}.lexeme, {p})"
            return f"{alias}.lexeme = {p}"

        if len(toks) == 1:
            body = f"{body_w} * cardinality(array_positions(u.weights, 'B'))"
            weighted = (
                body
                if body_only
                else f"{title_w} * cardinality(array_positions(u.weights, 'A')) + {body}"
            )
            return f"coalesce(sum(CASE WHEN {lexeme('u', 0)} THEN {weighted} END), {zero})"
        weight = body_w if body_only else f"CASE x.w WHEN 'A' THEN {title_w} ELSE {body_w} END"
        conds = [lexeme("v", 0)] + (["x.w = 'B'"] if body_only else [])
        for i in range(1, len(toks)):
            conds.append(
                f"EXISTS (SELECT 1 FROM unnest(chunks_fts.tsv) v{i} WHERE {lexeme(f'v{i}', i)} "
                f"AND x.p + {i} = ANY(v{i}.positions))"
            )
        return (
            f"(SELECT coalesce(sum({weight}), {zero}) FROM unnest(chunks_fts.tsv) v "
            f"CROSS JOIN LATERAL unnest(v.positions, v.weights) AS x(p, w) "
            f"WHERE {' AND '.join(conds)})"
        )

    def vector(self, param: str) -> str:
        return f"CAST({param} AS vector)"

    def knn(self, vector: str, k: str, scope: str, approximate: bool = False) -> str:
        if unscoped(scope) and approximate:
            # The HNSW index answers ORDER BY <=> LIMIT (hnsw.ef_search is raised to k by
            # the engine, so it returns k rows; they are the nearest only approximately).
            return (
                f"SELECT rowid AS id, embedding <=> {vector} AS distance FROM chunks_vec "
                f"ORDER BY embedding <=> {vector} LIMIT {k}"
            )
        # Exact: `+ 0` keeps the HNSW index out (a scan of every vector, as sqlite-vec's);
        # equal distances (identical vectors: short chunks) by rowid, the higher first, as
        # sqlite-vec 0.1 keeps them at the k-th place (observed, not documented by it).
        # In scope always: pgvector 0.6 filters *after* an HNSW scan, which would return
        # fewer than k rows.
        where = (
            ""
            if unscoped(scope)
            else (f"WHERE doc_id IN (SELECT d.id FROM documents d WHERE {scope}) ")
        )
        return (
            f"SELECT rowid AS id, embedding <=> {vector} AS distance FROM chunks_vec "
            f"{where}ORDER BY (embedding <=> {vector}) + 0, rowid DESC LIMIT {k}"
        )


def _idf_deferred(
    stats: TermStatistics, query: str, term: FtsTerm, positive: Sequence[FtsTerm], skip: Any
) -> Deferred:
    def idf() -> float:
        left_out = skip() if callable(skip) else skip
        # As match_or: when every term is common, none is left out.
        if term.fts in left_out and any(t.fts not in left_out for t in positive):
            return 0.0
        return float(stats.idf(query))

    return Deferred(f"idf of {query}", idf)


POSTGRES = PostgresDialect()
