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
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, ClassVar

from .errors import DocQLRegexError


class Dialect:
    """SQLite (the file engine, and the default of every compiler function)."""

    name: ClassVar[str] = "sqlite"
    TRUE: ClassVar[str] = "1"
    FALSE: ClassVar[str] = "0"
    NO_LIMIT: ClassVar[str] = "-1"  # LIMIT n with no upper bound (OFFSET alone)
    # The marker of a named parameter, and how to find markers again (for inlining).
    PARAM: ClassVar[str] = ":{name}"
    # Pattern text, compiled (and cached) by `re` when SQL is first inlined, not at import.
    PARAM_PATTERN: ClassVar[str] = r":(p\d+)\b"
    # Trigram FTS5 tables that narrow a substring test down to candidate rows, before the
    # exact test runs on those only (docs/design.md B35): `sections_trigram` over the
    # folded titles is in every file (schema 9); `chunks_trigram` over the chunks' text
    # exists when the index was built with `index --trigram` (`chunk_trigrams`, below).
    TITLE_TRIGRAMS: ClassVar[bool] = True

    def __init__(self, chunk_trigrams: bool = False) -> None:
        self.chunk_trigrams = chunk_trigrams

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
        """The document path `expr` matches the path glob whose `glob_value` is `pattern`
        (docql_sqlite/globs.py: gitignore's rules, as a regex that SQLite's REGEXP and the
        sqlite3 shell read). The regex runs once per document, in a subquery, not once per
        row of the join (a Python function here: 2.6k documents ~8 ms, where per chunk
        it was 32 ms for 12k chunks); the rows then find their path in its result."""
        return f"{expr} IN (SELECT path FROM documents WHERE path REGEXP {pattern})"

    def json_list(self, expr: str) -> str:
        """A FROM item: the elements of the JSON array text `expr` as rows of `j.value`."""
        return f"json_each({expr}) j"

    def glob_value(self, pattern: str) -> str:
        """The bound value for `glob()`: the glob as a regular expression."""
        from .globs import to_regex

        return to_regex(pattern)

    def greatest(self, a: str, b: str) -> str:
        return f"max({a}, {b})"

    def concat_rows(self, expr: str, order: str | None = None) -> str:
        """Aggregate: the texts of the group joined without a separator (in `order`)."""
        return f"group_concat({expr}, '')"

    def sort_key(self, expr: str) -> str:
        """A text sort key in code-point order (SQLite's BINARY collation)."""
        return expr

    def real(self, literal: str) -> str:
        """A number literal with a fraction, as a float (PostgreSQL reads it as numeric)."""
        return literal

    def newline(self) -> str:
        return "char(10)"

    def like(self, expr: str, pattern: str) -> str:
        """`expr` LIKE `pattern` (escape `\\`), ignoring the case of A-Z only, as SQLite's."""
        return f"{expr} LIKE {pattern} ESCAPE '\\'"

    def ordered_concat(self, value: str, rows: str, order: str) -> str:
        """Scalar subquery: the `value`s of `rows` (a FROM ... WHERE ...) joined in `order`."""
        column = value.rsplit(".", 1)[-1]
        ordered = f"SELECT {value} FROM {rows} ORDER BY {order}"
        return f"(SELECT group_concat(x.{column}, '') FROM ({ordered}) x)"

    def group_by(self, keys: str, dependent: str) -> str:
        """GROUP BY `keys`; `dependent` are the selected columns that the keys determine
        (SQLite takes them as they are; PostgreSQL wants them named)."""
        return f"GROUP BY {keys}"

    def regex_value(self, pattern: str, flags: str) -> str:
        """The bound pattern for `regex()`: a Python regex (flags `m`/`s` inlined)."""
        inline_flags = "".join(f for f in flags if f in "ms")
        return f"(?{inline_flags}){pattern}" if inline_flags else pattern

    # -- front matter: a JSON object in `data` (text); `key` is one of its keys ------------
    # SQLite's json_extract gives the value its SQL type: text, integer (true/false are 1/0),
    # real, NULL (JSON null or no key), or the JSON text of an array or object.
    def json_value(self, data: str, key: str) -> str:
        """The value of `key`, as json_extract gives it (compared and matched as text)."""
        return f"json_extract({data}, '$.\"{key}\"')"

    def json_text(self, data: str, key: str) -> str:
        """The JSON text of the value of `key` (NULL when absent), decoded in Python."""
        return f"({data} -> '$.\"{key}\"')"

    def json_is_number(self, data: str, key: str) -> str:
        return f"typeof({self.json_value(data, key)}) IN ('integer', 'real')"

    def json_number(self, data: str, key: str) -> str:
        return self.json_value(data, key)

    def json_is_integer(self, data: str, key: str, number: int) -> str:
        """The value is the integer `number` (true and false are 1 and 0)."""
        x = self.json_value(data, key)
        return f"(typeof({x}) = 'integer' AND {x} = {number})"

    def json_truthy(self, data: str, key: str) -> str:
        """Present and not null, 0, '', an empty list or an empty object."""
        x = self.json_value(data, key)
        return (
            f"(CASE typeof({x}) WHEN 'null' THEN 0 WHEN 'integer' THEN {x} != 0 WHEN 'real' THEN "
            f"{x} != 0 "
            f"ELSE {x} NOT IN ('', '[]', '{{}}') END)"
        )

    def json_contains(self, data: str, key: str, keyword: str) -> str:
        """An element of a list value equals `keyword` (ASCII case aside); for any other
        value, its text contains `keyword`."""
        path = f"'$.\"{key}\"'"
        return (
            f"(CASE json_type({data}, {path}) WHEN 'array' THEN "
            f"EXISTS (SELECT 1 FROM json_each({data}, {path}) j WHERE lower(j.value) = {keyword}) "
            f"ELSE instr(lower({self.json_value(data, key)}), {keyword}) > 0 END)"
        )

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
    PARAM_PATTERN: ClassVar[str] = r"%\((p\d+)\)s"
    # No trigram tables: heading() and grep() stay exact scans (strpos, ILIKE).
    TITLE_TRIGRAMS: ClassVar[bool] = False

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

    def json_list(self, expr: str) -> str:
        return f"json_array_elements_text(({expr})::json) AS j(value)"

    def glob_value(self, pattern: str) -> str:
        from .globs import to_regex

        return to_regex(pattern)

    def greatest(self, a: str, b: str) -> str:
        return f"greatest({a}, {b})"

    def concat_rows(self, expr: str, order: str | None = None) -> str:
        return f"string_agg({expr}, ''{' ORDER BY ' + order if order else ''})"

    def sort_key(self, expr: str) -> str:
        return f'{expr} COLLATE "C"'

    def real(self, literal: str) -> str:
        return f"{literal}::float8"

    def newline(self) -> str:
        return "chr(10)"

    def like(self, expr: str, pattern: str) -> str:
        # ILIKE under the "C" collation lower-cases A-Z only, whatever the database's locale.
        return f"{expr} COLLATE \"C\" ILIKE {pattern} ESCAPE '\\'"

    def ordered_concat(self, value: str, rows: str, order: str) -> str:
        return f"(SELECT string_agg({value}, '' ORDER BY {order}) FROM {rows})"

    def group_by(self, keys: str, dependent: str) -> str:
        return f"GROUP BY {keys}, {dependent}"

    def regex_value(self, pattern: str, flags: str) -> str:
        return python_regex_to_are(pattern, flags)

    # The data column is JSON text; `v` is the jsonb value of the key (NULL when absent).
    # The CASEs below give what SQLite's json_extract gives (booleans are 1 and 0).
    @staticmethod
    def _jsonb(data: str, key: str) -> str:
        return f"(({data})::jsonb -> {_text_literal(key)})"

    @staticmethod
    def _sqlite_text(v: str) -> str:
        return (
            f"(CASE jsonb_typeof({v}) WHEN 'boolean' THEN ({v})::boolean::int::text "
            f"ELSE {v} #>> '{{}}' END)"
        )

    def json_value(self, data: str, key: str) -> str:
        return self._sqlite_text(self._jsonb(data, key))

    def json_text(self, data: str, key: str) -> str:
        return f"((({data})::json -> {_text_literal(key)})::text)"

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


def _text_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


SQLITE = Dialect()
# A file built with `index --trigram`: grep() and heading()'s body fallback read the
# candidate chunks from `chunks_trigram` (Index picks it when the table exists).
SQLITE_CHUNK_TRIGRAMS = Dialect(chunk_trigrams=True)
POSTGRES = PostgresDialect()


# -- Python regex → PostgreSQL ARE ------------------------------------------------------------
# DocQL regexes are Python's (the `regex` module, V0, runs them in SQLite). A filter only asks
# "is there a match", so greediness does not matter and ARE's longest-match rules give the
# same answer; what must agree is what each atom matches. The translation walks Python's own
# parse of the pattern and spells each node the way ARE means the same thing: `.` excludes
# the newline unless `s`, `^`/`$` follow Python (`$` also before a final newline; lines with
# `m`), `\b` is `\y`. Constructs ARE has no equal for raise a clear error instead.
_ARE_SPECIAL = set("\\^$.|?*+()[]{}")
_ARE_MAX_REPEAT = 255  # ARE's bound on {m,n}
# `\d`, `\s`, `\w` and their negations; only the positive ones may stand inside [...].
_CATEGORIES = {
    sre.CATEGORY_DIGIT: "\\d",
    sre.CATEGORY_NOT_DIGIT: "\\D",
    sre.CATEGORY_SPACE: "\\s",
    sre.CATEGORY_NOT_SPACE: "\\S",
    sre.CATEGORY_WORD: "\\w",
    sre.CATEGORY_NOT_WORD: "\\W",
}
_CLASS_CATEGORIES = {k: v for k, v in _CATEGORIES.items() if v[1].islower()}


def python_regex_to_are(pattern: str, flags: str = "") -> str:
    """The ARE (PostgreSQL `~`) matching where the Python regex `pattern` matches."""
    c = sre
    bits = 0
    for flag in flags:
        bits |= {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}.get(flag, 0)
    try:
        parsed = sre_parse.parse(pattern, bits)
    except re.error as exc:
        raise DocQLRegexError(f"invalid regex /{pattern}/: {exc}") from None
    state = parsed.state.flags
    multiline, dotall = bool(state & re.MULTILINE), bool(state & re.DOTALL)

    def unsupported(what: str) -> DocQLRegexError:
        return DocQLRegexError(f"regex /{pattern}/: {what} cannot run on PostgreSQL")

    def literal(code: int) -> str:
        ch = chr(code)
        return "\\" + ch if ch in _ARE_SPECIAL else ch

    def class_item(op: Any, arg: Any) -> str:
        if op is c.LITERAL:
            ch = chr(arg)
            return "\\" + ch if ch in "\\]^-[" else ch
        if op is c.RANGE:
            return class_item(c.LITERAL, arg[0]) + "-" + class_item(c.LITERAL, arg[1])
        if op is c.CATEGORY and arg in _CLASS_CATEGORIES:
            return _CLASS_CATEGORIES[arg]
        raise unsupported(f"the class item {op} {arg}")

    def char_class(items: list[Any]) -> str:
        if len(items) == 1 and items[0][0] is c.CATEGORY:
            escape = _CATEGORIES.get(items[0][1])
            if escape is None:
                raise unsupported(f"the class {items[0][1]}")
            return escape
        negate = bool(items) and items[0][0] is c.NEGATE
        body = "".join(class_item(op, arg) for op, arg in items[negate:])
        return "[" + ("^" if negate else "") + body + "]"

    def repeat(lo: int, hi: int, lazy: bool) -> str:
        if hi is c.MAXREPEAT or hi == c.MAXREPEAT:
            q = {0: "*", 1: "+"}.get(lo, f"{{{lo},}}")
        elif (lo, hi) == (0, 1):
            q = "?"
        else:
            q = f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"
        if max(lo, 0 if hi == c.MAXREPEAT else hi) > _ARE_MAX_REPEAT:
            raise unsupported(f"a repeat count above {_ARE_MAX_REPEAT}")
        return q + ("?" if lazy else "")

    def at(code: Any) -> str:
        if code in (c.AT_BEGINNING_STRING,) or (code is c.AT_BEGINNING and not multiline):
            return "^"
        if code is c.AT_BEGINNING:
            return "(?:^|(?<=\\n))"
        if code is c.AT_END_STRING:
            return "$"
        if code is c.AT_END:
            return "(?:$|(?=\\n))" if multiline else "(?:$|(?=\\n$))"
        if code is c.AT_BOUNDARY:
            return "\\y"
        if code is c.AT_NON_BOUNDARY:
            return "\\Y"
        raise unsupported(f"the anchor {code}")

    def node(op: Any, arg: Any) -> str:
        if op is c.LITERAL:
            return literal(arg)
        if op is c.NOT_LITERAL:
            return "[^" + class_item(c.LITERAL, arg) + "]"
        if op is c.ANY:
            return "." if dotall else "[^\\n]"
        if op is c.IN:
            return char_class(list(arg))
        if op is c.BRANCH:
            return "(?:" + "|".join(sequence(branch) for branch in arg[1]) + ")"
        if op is c.SUBPATTERN:
            group, add_flags, del_flags, sub = arg
            if add_flags or del_flags:
                raise unsupported("a group with its own flags")
            return ("(" if group is not None else "(?:") + sequence(sub) + ")"
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            lo, hi, sub = arg
            inner = sequence(sub)
            if len(sub) != 1 or sub[0][0] in (c.MAX_REPEAT, c.MIN_REPEAT, c.AT):
                inner = "(?:" + inner + ")"
            return inner + repeat(lo, hi, op is c.MIN_REPEAT)
        if op is c.AT:
            return at(arg)
        if op is c.GROUPREF:
            return f"\\{arg}"
        if op in (c.ASSERT, c.ASSERT_NOT):
            direction, sub = arg
            kind = (
                ("=" if op is c.ASSERT else "!")
                if direction > 0
                else ("<=" if op is c.ASSERT else "<!")
            )
            return f"(?{kind}" + sequence(sub) + ")"
        raise unsupported(f"the construct {op}")

    def sequence(items: Any) -> str:
        return "".join(node(op, arg) for op, arg in items)

    body = sequence(parsed)
    # ARE options go first: `i` for case-insensitive matching set inside the pattern.
    return ("(?i)" if state & re.IGNORECASE and "i" not in flags else "") + body
