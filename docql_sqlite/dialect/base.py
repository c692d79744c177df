"""`Dialect`: every construct whose SQL spelling differs between engines, named once.

Each engine implements every method (`SqliteDialect`, `PostgresDialect`); none inherits
another engine's spelling, so a construct forgotten on one engine is an error when the
class is defined (abstract), not SQLite SQL sent to PostgreSQL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from ..globs import to_regex

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Protocol

    from ..sqlparams import Params
else:
    Protocol = object  # the protocols below only type: plain classes at run time


class FtsTerm(Protocol):
    """A search term as the full-text spellings read it (`search.terms.Term`)."""

    @property
    def tokens(self) -> list[str]:
        """Its unicode61 tokens, casefolded."""

    @property
    def fts(self) -> str:
        """The term as an FTS5 string (a quoted phrase; `" *"` after a prefix)."""

    @property
    def prefix(self) -> bool: ...

    @property
    def negated(self) -> bool: ...

    @property
    def joined(self) -> str | None:
        """The one token the index also writes the term's words as (`logscale`), or None."""


class Word:
    """One token as a term of its own: a joined term's other spelling (`FtsTerm.joined`),
    which BM25 weighs as a phrase of its own, as FTS5 weighs each phrase of an OR."""

    prefix = False
    negated = False
    joined: str | None = None

    def __init__(self, token: str) -> None:
        self.token = token

    @property
    def tokens(self) -> list[str]:
        return [self.token]

    @property
    def fts(self) -> str:
        return '"' + self.token.replace('"', '""') + '"'


def phrases(term: FtsTerm) -> list[FtsTerm]:
    """The phrases FTS5 scores for `term`: itself, and its joined spelling if it has one."""
    return [term, Word(term.joined)] if term.joined else [term]


class TermStatistics(Protocol):
    """The index's term statistics (`search.stats.TermStats`), for BM25 computed in SQL."""

    def corpus(self) -> tuple[int, float]:
        """(rows, average tokens per row) of the full-text table."""

    def idf(self, query: str) -> float:
        """FTS5's idf of the phrase `query` (a value bound to `matches`)."""


def unscoped(scope: str) -> bool:
    """Whether a scope condition is the always-true one (no filter) of any engine."""
    return scope in ("1", "true")


def positives(terms: Sequence[FtsTerm]) -> list[FtsTerm]:
    """The terms that are not negated."""
    return [t for t in terms if not t.negated]


def python_regex(pattern: str, flags: str) -> str:
    """A DocQL regex as one Python regex (flags `m`/`s` inlined; `i` is the caller's)."""
    inline_flags = "".join(f for f in flags if f in "ms")
    return f"(?{inline_flags}){pattern}" if inline_flags else pattern


def text_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Dialect(ABC):
    """How one engine spells SQL: DocQL compilation, search statements, catalog reads."""

    name: ClassVar[str]  # for messages and cache keys; never compared to choose a spelling
    TRUE: ClassVar[str]
    FALSE: ClassVar[str]
    NO_LIMIT: ClassVar[str]  # LIMIT n with no upper bound (OFFSET alone)
    # The marker of a named parameter, and how to find markers again (for inlining).
    PARAM: ClassVar[str]
    # Pattern text, compiled (and cached) by `re` when SQL is first inlined, not at import.
    PARAM_PATTERN: ClassVar[str]
    # Trigram tables that narrow a substring test down to candidate rows, before the
    # exact test runs on those only (docs/design.md B35): `sections_trigram` over the
    # folded titles, and `chunks_trigram` over the chunks' text when `chunk_trigrams`.
    TITLE_TRIGRAMS: ClassVar[bool]
    # Trigram tables over folded names: `symbols_trigram` (code symbols, schema 15) and
    # `entities_trigram` (entities, schema 16), for `~=` on a `name` and smart search's
    # entities list.
    NAME_TRIGRAMS: ClassVar[bool]
    # Whether several `concat_rows` of one SELECT with no ORDER BY see the rows in the same
    # order (one row stream through every aggregate), so their lists stay aligned.
    ALIGNED_UNORDERED_CONCAT: ClassVar[bool]
    # The class constants above, which every engine's class sets itself.
    CONSTANTS: ClassVar[tuple[str, ...]] = (
        "name",
        "TRUE",
        "FALSE",
        "NO_LIMIT",
        "PARAM",
        "PARAM_PATTERN",
        "TITLE_TRIGRAMS",
        "NAME_TRIGRAMS",
        "ALIGNED_UNORDERED_CONCAT",
    )
    chunk_trigrams: bool = False

    # -- engine-independent -----------------------------------------------------------------
    def param(self, name: str) -> str:
        return self.PARAM.format(name=name)

    def glob_value(self, pattern: str) -> str:
        """The bound value for `glob()`: the path glob (gitignore's rules) as a regex."""
        return to_regex(pattern)

    # -- values and text ----------------------------------------------------------------------
    @abstractmethod
    def text(self, expr: str) -> str:
        """`expr` as text where a number is concatenated or mixed with text."""

    @abstractmethod
    def real(self, literal: str) -> str:
        """A number literal with a fraction, as a float (so that divisions are in double
        precision; PostgreSQL reads a bare `1.5` as numeric)."""

    @abstractmethod
    def rounded(self, expr: str, digits: int) -> str:
        """`expr` (a float) rounded to `digits` decimals, as a float. Vector distances are
        float32 in sqlite-vec and double in pgvector: two passages whose vectors are
        (nearly) the same are ordered by their distance rounded, then by id, alike."""

    @abstractmethod
    def newline(self) -> str:
        """The newline character as an SQL expression."""

    @abstractmethod
    def greatest(self, a: str, b: str) -> str:
        """The larger of two values (a scalar, not an aggregate)."""

    @abstractmethod
    def ascii_lower(self, expr: str) -> str:
        """Lower case of A-Z only (SQLite's lower()); other characters unchanged."""

    @abstractmethod
    def contains(self, hay: str, needle: str) -> str:
        """`hay` contains the text `needle` (a condition)."""

    @abstractmethod
    def position(self, hay: str, needle: str) -> str:
        """1-based position of `needle` in `hay`, 0 when absent."""

    @abstractmethod
    def starts_with(self, hay: str, needle: str) -> str: ...

    @abstractmethod
    def ends_with(self, hay: str, needle: str) -> str: ...

    @abstractmethod
    def like(self, expr: str, pattern: str) -> str:
        """`expr` LIKE `pattern` (escape `\\`), ignoring the case of A-Z only, as SQLite's."""

    @abstractmethod
    def in_order(self, expr: str, pattern: str) -> str:
        """`expr` holds the texts of `in_order_value`, one after the other, case and all."""

    @abstractmethod
    def in_order_value(self, runs: Sequence[str]) -> str:
        """The bound pattern for `in_order()`: `runs`, in that order."""

    @abstractmethod
    def regex(self, expr: str, pattern: str, ignore_case: bool) -> str:
        """`expr` matches the regular expression `pattern` somewhere."""

    @abstractmethod
    def regex_value(self, pattern: str, flags: str) -> str:
        """The bound pattern for `regex()`, from a Python regex and its flags (`m`, `s`)."""

    @abstractmethod
    def glob(self, expr: str, pattern: str) -> str:
        """The document path `expr` matches the path glob whose `glob_value` is `pattern`."""

    @abstractmethod
    def sort_key(self, expr: str) -> str:
        """A text sort key in code-point order (SQLite's BINARY collation)."""

    # -- aggregates, joins and grouping -------------------------------------------------------
    @abstractmethod
    def concat_rows(self, expr: str, order: str | None = None) -> str:
        """Aggregate: the texts of the group joined without a separator (in `order`)."""

    @abstractmethod
    def ordered_concat(self, value: str, rows: str, order: str) -> str:
        """Scalar subquery: the `value`s of `rows` (a FROM ... WHERE ...) joined in `order`."""

    @abstractmethod
    def group_by(self, keys: str, dependent: str) -> str:
        """GROUP BY `keys`; `dependent` are the selected columns that the keys determine
        (SQLite takes them as they are; PostgreSQL wants them named)."""

    @abstractmethod
    def documents_then_sections(self) -> str:
        """The FROM of documents `d` and their sections `s`, read documents first where the
        engine lets the query fix the join order (rows then come in outline order)."""

    @abstractmethod
    def ids_in(self, expr: str, ids: str) -> str:
        """`expr` is one of the integers of the JSON array text `ids` (a condition)."""

    @abstractmethod
    def json_list(self, expr: str) -> str:
        """A FROM item: the elements of the JSON array text `expr` as rows of `j.value`."""

    # -- front matter: a JSON object in `data` (text); `key` is one of its keys -------------
    # The values are SQLite's json_extract's: text, integer (true/false are 1/0), real,
    # NULL (JSON null or no key), or the JSON text of an array or object.
    @abstractmethod
    def json_value(self, data: str, key: str) -> str:
        """The value of `key`, as json_extract gives it (compared and matched as text)."""

    @abstractmethod
    def json_text(self, data: str, key: str) -> str:
        """The JSON text of the value of `key` (NULL when absent), decoded in Python."""

    @abstractmethod
    def json_is_number(self, data: str, key: str) -> str: ...

    @abstractmethod
    def json_number(self, data: str, key: str) -> str: ...

    @abstractmethod
    def json_is_integer(self, data: str, key: str, number: int) -> str:
        """The value is the integer `number` (true and false are 1 and 0)."""

    @abstractmethod
    def json_truthy(self, data: str, key: str) -> str:
        """Present and not null, 0, '', an empty list or an empty object."""

    @abstractmethod
    def json_contains(self, data: str, key: str, keyword: str) -> str:
        """An element of a list value equals `keyword` (ASCII case aside); for any other
        value, its text contains `keyword`."""

    @abstractmethod
    def positional(self, sql: str) -> str:
        """`sql` written with `?` markers (the catalog's), spelled for this engine's driver."""

    # -- full-text queries: the values bound to `matches` ----------------------------------
    @abstractmethod
    def term(self, term: FtsTerm) -> str:
        """One term as a full-text query of its own (coverage, document frequency)."""

    @abstractmethod
    def match_and(self, terms: Sequence[FtsTerm], scored: bool = False) -> str:
        """Every positive term, none of the negated ones; a passage also holds a term in
        its own text (not only in its section's title). `scored`: the expression of a
        statement that ranks by `bm25` and tests it with `scored_matches` (which may
        check that last condition itself)."""

    @abstractmethod
    def match_or(
        self, terms: Sequence[FtsTerm], skip: frozenset[str] = frozenset(), scored: bool = False
    ) -> str:
        """Any positive term (but those whose `fts` is in `skip`: very common ones), none
        of the negated ones; `scored` as for `match_and`."""

    @abstractmethod
    def any_of(self, terms: Sequence[FtsTerm]) -> str:
        """Any of `terms`, in any column (smart search's negation filter)."""

    @abstractmethod
    def phrase(self, tokens: list[str]) -> str:
        """The words `tokens` next to each other, in this order."""

    @abstractmethod
    def in_title(self, term: FtsTerm) -> str:
        """The term in the section title."""

    @abstractmethod
    def both(self, first: str, second: str) -> str:
        """Both full-text queries."""

    # -- full-text SQL -------------------------------------------------------------------------
    @abstractmethod
    def matches(self, query: str) -> str:
        """The condition on a `chunks_fts` row of the FROM: it matches `query` (SQL)."""

    @abstractmethod
    def scored_matches(self, query: str) -> str:
        """`matches` for an expression built with `scored=True`: the same rows."""

    @abstractmethod
    def ids_matching(self, query: str) -> str:
        """A SELECT of the chunk ids matching `query`."""

    @abstractmethod
    def count_matching(self, query: str) -> str:
        """A SELECT of the number of chunks matching `query`."""

    @abstractmethod
    def covered(self, query: str, exact: str | None) -> str:
        """1 when the `chunks_fts` row matches `query` (and the `exact` check), else 0."""

    @abstractmethod
    def bm25(
        self,
        terms: Sequence[FtsTerm],
        weights: tuple[float, float],
        statistics: TermStatistics | None,
        params: Params,
        skip: Any = frozenset(),
    ) -> str:
        """The BM25 of the matching `chunks_fts` row (lower is better, as FTS5's bm25()),
        with the column `weights` (title, body); `skip`: the FTS strings of terms left out
        of the expression (or a callable giving them)."""

    @abstractmethod
    def corpus_sql(self) -> str:
        """One row (rows, tokens) of the full-text table (SQL BM25's N and avgdl)."""

    # -- vectors -------------------------------------------------------------------------------
    @abstractmethod
    def vector(self, param: str) -> str:
        """The SQL of a query vector bound as JSON text."""

    @abstractmethod
    def knn(self, vector: str, k: str, scope: str, approximate: bool = False) -> str:
        """The `vec_raw(id, distance)` body: the k nearest current-or-stale vectors of
        chunks in `scope` (a condition over documents `d`); `approximate`: an index may
        answer (PostgreSQL's HNSW) when nothing is filtered."""
