"""SQLite's spelling: the file engine (FTS5 MATCH and bm25(), vec0, the REGEXP functions).

The DocQL fixture suite (tests/fixtures/docql/) holds this dialect's output byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import SearchError
from ..text import glob_pattern
from .base import Dialect, FtsTerm, TermStatistics, positives, python_regex, unscoped

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from ..sqlparams import Params


class SqliteDialect(Dialect):
    """SQLite 3.40+ (and the Debian `sqlite3` shell, for `--sql --inline`)."""

    name: ClassVar[str] = "sqlite"
    TRUE: ClassVar[str] = "1"
    FALSE: ClassVar[str] = "0"
    NO_LIMIT: ClassVar[str] = "-1"
    PARAM: ClassVar[str] = ":{name}"
    PARAM_PATTERN: ClassVar[str] = r":(p\d+)\b"
    # `sections_trigram` over the folded titles is in every file (schema 9).
    TITLE_TRIGRAMS: ClassVar[bool] = True
    # `symbols_trigram` over the folded symbol names is in every file since schema 15,
    # `entities_trigram` over the folded entity names since schema 16.
    NAME_TRIGRAMS: ClassVar[bool] = True
    # One aggregate pass over one row stream: every group_concat sees the rows in turn.
    ALIGNED_UNORDERED_CONCAT: ClassVar[bool] = True

    def __init__(self, chunk_trigrams: bool = False) -> None:
        # `chunks_trigram` exists when the file was built with `index --trigram`.
        self.chunk_trigrams = chunk_trigrams

    def text(self, expr: str) -> str:
        return expr

    def real(self, literal: str) -> str:
        return literal

    def rounded(self, expr: str, digits: int) -> str:
        return f"round({expr}, {int(digits)})"

    def newline(self) -> str:
        return "char(10)"

    def greatest(self, a: str, b: str) -> str:
        return f"max({a}, {b})"

    def ascii_lower(self, expr: str) -> str:
        return f"lower({expr})"

    def contains(self, hay: str, needle: str) -> str:
        return f"instr({hay}, {needle}) > 0"

    def position(self, hay: str, needle: str) -> str:
        return f"instr({hay}, {needle})"

    def starts_with(self, hay: str, needle: str) -> str:
        return f"substr({hay}, 1, length({needle})) = {needle}"

    def ends_with(self, hay: str, needle: str) -> str:
        return f"substr({hay}, -length({needle})) = {needle}"

    def like(self, expr: str, pattern: str) -> str:
        return f"{expr} LIKE {pattern} ESCAPE '\\'"

    def in_order(self, expr: str, pattern: str) -> str:
        return f"{expr} GLOB {pattern}"  # LIKE ignores the case of A-Z; GLOB does not

    def in_order_value(self, runs: Sequence[str]) -> str:
        return glob_pattern(*runs)

    def regex(self, expr: str, pattern: str, ignore_case: bool) -> str:
        return f"regexpi({pattern}, {expr})" if ignore_case else f"{expr} REGEXP {pattern}"

    def regex_value(self, pattern: str, flags: str) -> str:
        # A Python regex, run by the connection's REGEXP.
        return python_regex(pattern, flags)

    def glob(self, expr: str, pattern: str) -> str:
        # The glob is a regex (docql_sqlite/globs.py) that SQLite's REGEXP and the sqlite3
        # shell read. It runs once per document, in a subquery, not once per row of the
        # join (a Python function here: 2.6k documents ~8 ms, where per chunk it was 32 ms
        # for 12k chunks); the rows then find their path in its result.
        return f"{expr} IN (SELECT path FROM documents WHERE path REGEXP {pattern})"

    def sort_key(self, expr: str) -> str:
        return expr

    def concat_rows(self, expr: str, order: str | None = None) -> str:
        return f"group_concat({expr}, '')"

    def ordered_concat(self, value: str, rows: str, order: str) -> str:
        column = value.rsplit(".", 1)[-1]
        ordered = f"SELECT {value} FROM {rows} ORDER BY {order}"
        return f"(SELECT group_concat(x.{column}, '') FROM ({ordered}) x)"

    def group_by(self, keys: str, dependent: str) -> str:
        return f"GROUP BY {keys}"

    def documents_then_sections(self) -> str:
        # SQLite's CROSS JOIN fixes the join order: documents in path order
        # (documents_path), then each one's sections in order (sections_doc). A slice such
        # as `$.toc[0:10]` then reads ten rows instead of sorting every section of the
        # index (50 ms at 283k sections, 0.1 ms this way).
        return "documents d CROSS JOIN sections s ON s.doc_id = d.id"

    def ids_in(self, expr: str, ids: str) -> str:
        return f"{expr} IN (SELECT value FROM json_each({ids}))"

    def json_list(self, expr: str) -> str:
        return f"json_each({expr}) j"

    def json_value(self, data: str, key: str) -> str:
        return f"json_extract({data}, '$.\"{key}\"')"

    def json_text(self, data: str, key: str) -> str:
        return f"({data} -> '$.\"{key}\"')"

    def json_is_number(self, data: str, key: str) -> str:
        return f"typeof({self.json_value(data, key)}) IN ('integer', 'real')"

    def json_number(self, data: str, key: str) -> str:
        return self.json_value(data, key)

    def json_is_integer(self, data: str, key: str, number: int) -> str:
        x = self.json_value(data, key)
        return f"(typeof({x}) = 'integer' AND {x} = {number})"

    def json_truthy(self, data: str, key: str) -> str:
        x = self.json_value(data, key)
        return (
            f"(CASE typeof({x}) WHEN 'null' THEN 0 WHEN 'integer' THEN {x} != 0 WHEN 'real' THEN "
            f"{x} != 0 "
            f"ELSE {x} NOT IN ('', '[]', '{{}}') END)"
        )

    def json_contains(self, data: str, key: str, keyword: str) -> str:
        path = f"'$.\"{key}\"'"
        return (
            f"(CASE json_type({data}, {path}) WHEN 'array' THEN "
            f"EXISTS (SELECT 1 FROM json_each({data}, {path}) j WHERE lower(j.value) = {keyword}) "
            f"ELSE instr(lower({self.json_value(data, key)}), {keyword}) > 0 END)"
        )

    def positional(self, sql: str) -> str:
        return sql

    # -- full text: FTS5 query strings that any SQLite shell accepts --------------------------
    # Every term is a quoted FTS5 string (`Term.fts`): FTS5 runs the table's own tokenizer
    # over it, and user words such as AND/OR/NOT/NEAR are not read as operators.
    def term(self, term: FtsTerm) -> str:
        return term.fts

    def match_and(self, terms: Sequence[FtsTerm], scored: bool = False) -> str:
        return _with_negation(" AND ".join(t.fts for t in positives(terms)), terms, None, scored)

    def match_or(
        self, terms: Sequence[FtsTerm], skip: frozenset[str] = frozenset(), scored: bool = False
    ) -> str:
        kept = [t for t in positives(terms) if t.fts not in skip] or positives(terms)
        return _with_negation(" OR ".join(t.fts for t in kept), terms, kept, scored)

    def any_of(self, terms: Sequence[FtsTerm]) -> str:
        return " OR ".join(t.fts for t in terms)

    def phrase(self, tokens: list[str]) -> str:
        return '"' + " ".join(tokens) + '"'

    def in_title(self, term: FtsTerm) -> str:
        return "title : " + term.fts

    def both(self, first: str, second: str) -> str:
        return f"({first}) AND {second}"

    def matches(self, query: str) -> str:
        return f"chunks_fts MATCH {query}"

    def scored_matches(self, query: str) -> str:
        # A body-only BM25 below 0 is "a term in the passage's own text" (every phrase's
        # idf is > 0): the same rows as `AND body : (…)` in the expression, whose extra
        # phrases made FTS5 count the rows of each term again for bm25()'s statistics
        # (2.3x the CPU of a 3-word search at 279 MB, where "error" is in 54k chunks).
        return f"chunks_fts MATCH {query} AND bm25(chunks_fts, 1.0, 0.0) < 0"

    def ids_matching(self, query: str) -> str:
        return f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH {query}"

    def count_matching(self, query: str) -> str:
        return f"SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH {query}"

    def covered(self, query: str, exact: str | None) -> str:
        return (
            f"(chunks_fts.rowid IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH "
            f"{query})" + (f" AND {exact}" if exact else "") + ")"
        )

    def bm25(
        self,
        terms: Sequence[FtsTerm],
        weights: tuple[float, float],
        statistics: TermStatistics | None,
        params: Params,
        skip: Any = frozenset(),
    ) -> str:
        # FTS5 keeps its own statistics. Columns are (body, title) since schema 6
        # (sql/006_fts_body_first.sql). The second bm25() weighs the body alone. It is
        # the part the expression's `AND body : (the terms)` phrases used to add (each
        # term's body hits counted a second time), with each term's idf over any column
        # instead of over the body: the scores moved by < 1 % (see `scored_matches`).
        return (
            f"(bm25(chunks_fts, {weights[1]!r}, {weights[0]!r}) + "
            f"bm25(chunks_fts, {weights[1]!r}, 0.0))"
        )

    def corpus_sql(self) -> str:
        raise SearchError("FTS5 keeps its own BM25 statistics")

    def vector(self, param: str) -> str:
        return f"vec_f32({param})"

    def knn(self, vector: str, k: str, scope: str, approximate: bool = False) -> str:
        pushed = ""
        if not unscoped(scope):
            # Metadata filter inside vec0: the KNN itself only considers chunks in scope.
            pushed = f" AND doc_id IN (SELECT d.id FROM documents d WHERE {scope})"
        return (
            f"SELECT rowid AS id, distance FROM chunks_vec WHERE embedding MATCH {vector} "
            f"AND k = {k}{pushed}"
        )


def _with_negation(
    expr: str,
    terms: Sequence[FtsTerm],
    kept: Sequence[FtsTerm] | None = None,
    scored: bool = False,
) -> str:
    negative = [t.fts for t in terms if t.negated]
    if not expr:
        raise SearchError("a search needs at least one word that is not negated")
    if negative:
        # FTS5's NOT binds tighter than AND/OR, so both sides get parentheses.
        expr = f"({expr}) NOT ({' OR '.join(negative)})"
    # The title column holds the section title on every chunk of the section, so a
    # title-only match would rank blank lines and closing braces of a matching section
    # (code files have many): a passage must also hold a term in its own text. A scored
    # expression leaves that to `scored_matches`, which tests it without new phrases.
    if scored:
        return expr
    any_term = " OR ".join(t.fts for t in (kept or positives(terms)))
    return f"({expr}) AND body : ({any_term})"
