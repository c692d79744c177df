"""SQL dialects of the DocQL compiler: every difference between engines, in one place.

In the spirit of sqlglot's generators: the compiler builds one statement shape from one
DocQL tree and asks the dialect for each construct whose spelling differs (parameter
markers, truth, string functions, regex operators, JSON access, LIMIT without a bound).
`SQLITE` spells everything exactly as the compiler always has (the fixture suite in
tests/fixtures/docql/ holds its output byte for byte); `POSTGRES` is PostgreSQL 16.

This module builds SQL fragments only; it never runs them and imports no driver.
"""

from __future__ import annotations

import re
from typing import ClassVar

ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Dialect:
    """SQLite (the file engine, and the default of every compiler function)."""

    name: ClassVar[str] = "sqlite"
    TRUE: ClassVar[str] = "1"
    FALSE: ClassVar[str] = "0"
    NO_LIMIT: ClassVar[str] = "-1"  # LIMIT n with no upper bound (OFFSET alone)
    # The marker of a named parameter, and how to find markers again (for inlining).
    PARAM: ClassVar[str] = ":{name}"
    PARAM_PATTERN: ClassVar[re.Pattern[str]] = re.compile(r":(p\d+)\b")

    def param(self, name: str) -> str:
        return self.PARAM.format(name=name)

    def text(self, expr: str) -> str:
        """`expr` as text where a number is concatenated or mixed with text."""
        return expr

    def ascii_lower(self, expr: str) -> str:
        """Lower case of A-Z only (SQLite's lower()); other characters unchanged."""
        return f"lower({expr})"

    def contains(self, hay: str, needle: str) -> str:
        return f"instr({hay}, {needle}) > 0"

    def position(self, hay: str, needle: str) -> str:
        """1-based position of `needle` in `hay`, 0 when absent."""
        return f"instr({hay}, {needle})"

    def starts_with(self, hay: str, needle: str) -> str:
        return f"substr({hay}, 1, length({needle})) = {needle}"

    def ends_with(self, hay: str, needle: str) -> str:
        return f"substr({hay}, -length({needle})) = {needle}"

    def regex(self, expr: str, pattern: str, ignore_case: bool) -> str:
        """`expr` matches the regular expression `pattern` somewhere."""
        return f"regexpi({pattern}, {expr})" if ignore_case else f"{expr} REGEXP {pattern}"

    def glob(self, expr: str, pattern: str) -> str:
        return f"{expr} GLOB {pattern}"

    def json_list(self, expr: str) -> str:
        """A FROM item: the elements of the JSON array text `expr` as rows of `j.value`."""
        return f"json_each({expr}) j"

    def glob_value(self, pattern: str) -> str:
        """The bound value for `glob()` (SQLite takes the glob itself)."""
        return pattern

    def greatest(self, a: str, b: str) -> str:
        return f"max({a}, {b})"

    def concat_rows(self, expr: str, order: str | None = None) -> str:
        """Aggregate: the texts of the group joined without a separator (in `order`)."""
        return f"group_concat({expr}, '')"

    def sort_key(self, expr: str) -> str:
        """A text sort key in code-point order (SQLite's BINARY collation)."""
        return expr

    def positional(self, sql: str) -> str:
        """`sql` written with `?` markers (the catalog's), spelled for this engine's driver."""
        return sql


class PostgresDialect(Dialect):
    """PostgreSQL 16 (+ pgvector), as created by sql/postgres/."""

    name: ClassVar[str] = "postgres"
    TRUE: ClassVar[str] = "true"
    FALSE: ClassVar[str] = "false"
    NO_LIMIT: ClassVar[str] = "ALL"
    PARAM: ClassVar[str] = "%({name})s"
    PARAM_PATTERN: ClassVar[re.Pattern[str]] = re.compile(r"%\((p\d+)\)s")

    def text(self, expr: str) -> str:
        return f"({expr})::text"

    def ascii_lower(self, expr: str) -> str:
        # PostgreSQL's lower() folds every letter its locale knows; SQLite's only A-Z. The
        # stored fold columns carry the Unicode folding, so this must stay ASCII-only.
        return f"translate({expr}, '{ASCII_UPPER}', '{ASCII_UPPER.lower()}')"

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

    def json_list(self, expr: str) -> str:
        return f"json_array_elements_text(({expr})::json) AS j(value)"

    def glob_value(self, pattern: str) -> str:
        return glob_to_regex(pattern)

    def greatest(self, a: str, b: str) -> str:
        return f"greatest({a}, {b})"

    def concat_rows(self, expr: str, order: str | None = None) -> str:
        return f"string_agg({expr}, ''{' ORDER BY ' + order if order else ''})"

    def sort_key(self, expr: str) -> str:
        return f'{expr} COLLATE "C"'

    def positional(self, sql: str) -> str:
        # psycopg: `%s` markers, and a literal `%` doubled (the catalog's SQL has no `?`
        # inside its string literals).
        return sql.replace("%", "%%").replace("?", "%s")


def glob_to_regex(pattern: str) -> str:
    """SQLite's GLOB (`*`, `?`, `[...]`, `[^...]`, case-sensitive, whole text) as an ARE."""
    out, i = ["^"], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("^", "]") else i + 1)
            if end < 0:
                out.append(r"\[")
            else:
                body = pattern[i + 1 : end]
                negate = body.startswith("^")
                body = body[1:] if negate else body
                body = body.replace("\\", "\\\\")
                out.append("[" + ("^" if negate else "") + body + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out) + "$"


SQLITE = Dialect()
POSTGRES = PostgresDialect()
DIALECTS = {d.name: d for d in (SQLITE, POSTGRES)}
