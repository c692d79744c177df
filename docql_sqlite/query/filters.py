"""Filter expressions (`[?(...)]`) → SQL conditions over the stage row `r` (spec §3).

Text matching is case-insensitive by Unicode casefolding: the index stores casefolded
copies of titles, names and chunk text, and the keyword is casefolded here, at compile
time, so the SQL needs nothing but `instr`/`substr` (it runs in any shell).
"""

from __future__ import annotations

import functools
import re

from ..dialect import Dialect, python_regex
from ..errors import DocQLNameError, DocQLTypeError, did_you_mean
from ..sqlparams import Params
from ..text import fold, like_pattern
from .common_trigrams import COMMON_TRIGRAMS
from .items import FieldSpec, ItemType
from .nodes import And, Compare, Expr, Literal, Not, Or, Regex

_OP_SHOWN = {
    "contains": "~=",
    "startswith": "startsWith",
    "endswith": "endsWith",
    "exists": "@.field",
}


# What a symbol has no field for but people ask it for (`.methods` of a class): the list
# whose items name it as their `parent`.
_MEMBER_LISTS = {
    "methods": "methods",
    "functions": "functions",
    "classes": "classes",
    "members": "symbols",
    "symbols": "symbols",
    "children": "symbols",
}


class FilterCompiler:
    def __init__(self, item: ItemType, params: Params, source: str) -> None:
        self.item = item
        self.params = params
        self.source = source

    def compile(self, expr: Expr) -> str:
        if isinstance(expr, And):
            return "(" + " AND ".join(self.compile(e) for e in expr.items) + ")"
        if isinstance(expr, Or):
            return "(" + " OR ".join(self.compile(e) for e in expr.items) + ")"
        if isinstance(expr, Not):
            return f"(NOT coalesce({self.compile(expr.item)}, {self.params.dialect.FALSE}))"
        return self._compare(expr)

    # -- fields --------------------------------------------------------------------
    def field(self, name: str, offset: int) -> FieldSpec:
        spec = self.item.get(name)
        if spec is not None:
            return spec
        if self.item.open_fields and name not in ("type", "path"):
            return FieldSpec(name, "dynamic", self.params.dialect.json_value("r._data", name))
        names = self.item.field_names
        hint = did_you_mean(name, names)
        message = f"unknown field '{name}' for {self.item.name} items"
        if hint:
            message += f"; did you mean '{hint}'?"
        message += f" fields: {', '.join(names)}" if hint else f"; fields: {', '.join(names)}"
        member_list = _MEMBER_LISTS.get(name) if self.item.name == "symbol" else None
        if member_list is not None:  # `$.code.class("QuerySet").methods`, as people ask
            message += (
                f"; a class's {name} are the symbols whose parent it is: "
                f'$.code.{member_list}[?(@.parent=="ClassName")]'
            )
        raise DocQLNameError(message, source=self.source, offset=offset, suggestion=hint)

    def _compare(self, cmp: Compare) -> str:
        spec = self.field(cmp.field, cmp.field_offset)
        op, value = cmp.op, cmp.value
        x = spec.sql
        if op == "exists":
            return _truthy(spec, self.params.dialect)
        assert value is not None
        op_offset = cmp.op_offset if cmp.op_offset is not None else cmp.offset
        if value.kind == "null":
            if op in ("==", "!="):
                return f"({x} IS {'NOT ' if op == '!=' else ''}NULL)"
            raise DocQLTypeError(
                f"'{_OP_SHOWN.get(op, op)}' cannot compare with null",
                source=self.source,
                offset=value.offset,
            )
        if spec.kind == "list" and op != "contains":
            # A list is stored as JSON text: ==, startsWith, =~ … would test that text.
            raise DocQLTypeError(
                f"'{_OP_SHOWN.get(op, op)}' does not apply to the list field '{spec.name}'; "
                f"use contains (an element equal to the value)",
                source=self.source,
                offset=op_offset,
            )
        if op == "=~":
            return self._regex(spec, value)
        if spec.kind == "number":
            return self._numeric(spec, op, value, op_offset)
        if spec.kind == "dynamic" and (op in ("==", "!=", ">", ">=", "<", "<=")):
            return self._dynamic(spec, op, value)
        if op in (">", ">=", "<", "<="):
            raise DocQLTypeError(
                f"'{op}' needs a number field; '{spec.name}' is "
                f"{spec.kind if spec.kind != 'dynamic' else 'text'}",
                source=self.source,
                offset=op_offset,
            )
        text = self._text_value(value, op)
        if op == "==":
            return f"({x} = {self.params.add(text)})"
        if op == "!=":
            return f"({x} IS NULL OR {x} != {self.params.add(text)})"
        kw = fold(text) if spec.fold else ascii_lower(text)
        if spec.kind in ("list", "dynamic") and op == "contains":
            return self._list_contains(spec, kw)
        dialect = self.params.dialect
        hay = spec.fold or dialect.ascii_lower(x)
        if kw == "":
            return f"({x} IS NOT NULL)"
        p = self.params.add(kw)
        if op == "contains":
            return f"({self._candidates(spec, kw)}{dialect.contains(hay, p)})"
        if op == "startswith":
            return f"({dialect.starts_with(hay, p)})"
        return f"({dialect.ends_with(hay, p)})"

    def _candidates(self, spec: FieldSpec, folded: str) -> str:
        """`<rowid> IN (the rows of the field's trigram table that can contain `folded`) AND `,
        or '' when the field has no such table in this dialect or the needle is too short
        (the exact test alone then answers). Only a filter: the exact test follows."""
        if spec.trigrams is None or not self.params.dialect.NAME_TRIGRAMS:
            return ""
        match = trigram_query(folded)
        if match is None:
            return ""
        table = spec.trigrams
        return (
            f"{spec.trigram_rowid} IN (SELECT rowid FROM {table} WHERE {table} MATCH "
            f"{self.params.add(match)}) AND "
        )

    def _text_value(self, value: Literal, op: str) -> str:
        if value.kind == "string":
            return str(value.value)
        if value.kind == "number":
            return value.text or str(value.value)
        if value.kind == "bool":
            return "true" if value.value else "false"
        raise DocQLTypeError(
            f"'{_OP_SHOWN.get(op, op)}' needs a string, got {value.kind}",
            source=self.source,
            offset=value.offset,
        )

    def _numeric(self, spec: FieldSpec, op: str, value: Literal, op_offset: int) -> str:
        if op not in ("==", "!=", ">", ">=", "<", "<="):
            raise DocQLTypeError(
                f"'{_OP_SHOWN.get(op, op)}' needs a text field; '{spec.name}' is a number",
                source=self.source,
                offset=op_offset,
            )
        number = _as_number(value)
        if number is None:
            shown = f'string "{value.value}"' if value.kind == "string" else str(value.kind)
            raise DocQLTypeError(
                f"'{op}' needs a number, got {shown}", source=self.source, offset=value.offset
            )
        if value.kind == "string" and op not in ("==", "!="):
            raise DocQLTypeError(
                f"'{op}' needs a number, got string \"{value.value}\"",
                source=self.source,
                offset=value.offset,
            )
        p = self.params.add(number)
        if op == "!=":
            return f"({spec.sql} IS NULL OR {spec.sql} != {p})"
        return f"({spec.sql} {'=' if op == '==' else op} {p})"

    def _regex(self, spec: FieldSpec, value: Literal) -> str:
        if spec.kind == "number":
            raise DocQLTypeError(
                f"'=~' needs a text field; '{spec.name}' is a number",
                source=self.source,
                offset=value.offset,
            )
        if isinstance(value.value, Regex):
            pattern, flags = value.value.pattern, value.value.flags
        elif value.kind == "string":
            pattern, flags = str(value.value), ""
        else:
            raise DocQLTypeError(
                f"'=~' needs a regex or a string, got {value.kind}",
                source=self.source,
                offset=value.offset,
            )
        return regex_condition(spec.sql, pattern, flags, self.params)

    def _dynamic(self, spec: FieldSpec, op: str, value: Literal) -> str:
        """A front-matter key: a JSON value of any type (json_extract gives it its SQL type)."""
        x, dialect = spec.sql, self.params.dialect
        is_number = dialect.json_is_number("r._data", spec.name)
        number_value = dialect.json_number("r._data", spec.name)
        number = _as_number(value) if value.kind in ("number", "string") else None
        if op in (">", ">=", "<", "<="):
            if number is None or value.kind != "number":
                shown = f'string "{value.value}"' if value.kind == "string" else str(value.kind)
                raise DocQLTypeError(
                    f"'{op}' needs a number, got {shown}", source=self.source, offset=value.offset
                )
            # Text sorts after every number in SQLite: compare numbers only.
            return f"({is_number} AND {number_value} {op} {self.params.add(number)})"
        if value.kind == "bool":
            cond = dialect.json_is_integer("r._data", spec.name, 1 if value.value else 0)
        else:
            # `version: 2` and `version: "2"` both equal 2 and "2" (as `@.level=="1"` does).
            alternatives = [f"{x} = {self.params.add(self._text_value(value, op))}"]
            if number is not None:
                alternatives.append(f"({is_number} AND {number_value} = {self.params.add(number)})")
            cond = "(" + " OR ".join(alternatives) + ")"
        return cond if op == "==" else f"({x} IS NULL OR NOT {cond})"

    def _list_contains(self, spec: FieldSpec, kw: str) -> str:
        p = self.params.add(kw)
        dialect = self.params.dialect
        if spec.kind == "list":
            return (
                f"(EXISTS (SELECT 1 FROM {dialect.json_list(spec.sql)} "
                f"WHERE {dialect.ascii_lower('j.value')} = {p}))"
            )
        return dialect.json_contains("r._data", spec.name, p)


def ascii_lower(text: str) -> str:
    """What SQLite's lower() does: A-Z only (fields without a stored casefolded copy)."""
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def _truthy(spec: FieldSpec, dialect: Dialect) -> str:
    """`@.field` alone: present and truthy (not NULL, not '', not 0, not an empty list)."""
    x = spec.sql
    if spec.kind == "number":
        return f"({x} IS NOT NULL AND {x} != 0)"
    if spec.kind == "list":
        return f"({x} IS NOT NULL AND {x} NOT IN ('', '[]'))"
    if spec.kind == "dynamic":
        return dialect.json_truthy("r._data", spec.name)
    return f"({x} IS NOT NULL AND {x} != '')"


def regex_condition(expr: str, pattern: str, flags: str, params: Params) -> str:
    """`expr` matches `pattern` (search, not full match). Only flag `i` is portable to the shell."""
    pattern = _unescape_slashes(pattern)
    dialect = params.dialect
    p = params.add(dialect.regex_value(pattern, flags))
    ignore_case = "i" in flags
    match = dialect.regex(expr, p, ignore_case)
    # (from the Python pattern: the pre-filter means the same on every engine)
    runs, ignore_case = _literal_runs(python_regex(pattern, flags), ignore_case)
    if max(map(len, runs), default=0) < MIN_LITERAL:
        return f"({match})"
    # Every match holds these runs of literal characters, in this order: a LIKE or GLOB
    # (fast, in SQLite) skips the texts without them before the regex (a Python call per
    # row) runs. Under `i` a LIKE, which ignores ASCII case only, so it never rejects a
    # text the regex would match; else the exact case (`/EADDR\w+USE/` no longer tests
    # every `RemoteAddr`: 865 → 208 regex calls on the 279 MB index).
    if ignore_case:  # `i`, or `(?i)` in the pattern
        prefilter = dialect.like(expr, params.add(like_pattern(*runs)))
    else:
        prefilter = dialect.in_order(expr, params.add(dialect.in_order_value(runs)))
    return f"({prefilter} AND {match})"


def required_regex_literals(pattern: str, flags: str) -> list[str]:
    """`required_literals` of a DocQL regex as written (`/.../flags`)."""
    pattern = _unescape_slashes(pattern)
    return required_literals(python_regex(pattern, flags), "i" in flags)


# A pre-filter is made when a run has at least this many characters (shorter ones leave
# nearly every text).
MIN_LITERAL = 3


def required_literals(pattern: str, ignore_case: bool) -> list[str]:
    """The runs of plain characters every match of `pattern` holds, in the order it holds
    them.

    Only top-level consecutive literals count (a repeat, class, group, alternation or
    anchor ends a run), so each run is mandatory, and a match consumes them one after the
    other (a lookaround consumes nothing). Under case-insensitive matching only ASCII
    characters qualify, minus i, k and s: Python's regexes also match those with
    non-ASCII letters (İ ı, K KELVIN SIGN, ſ LONG S), which LIKE would not.
    """
    return list(_literal_runs(pattern, ignore_case)[0])


@functools.lru_cache(maxsize=256)  # a grep asks twice: its trigram query and its pre-filter
def _literal_runs(pattern: str, ignore_case: bool) -> tuple[tuple[str, ...], bool]:
    """`required_literals`, and whether the pattern ignores case (`ignore_case`, or an
    inline `(?i)`)."""
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]

        parsed = sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - no pre-filter is always a correct answer
        return (), True
    ignore_case = ignore_case or bool(parsed.state.flags & re.IGNORECASE)
    runs: list[str] = []
    run: list[str] = []
    for op, arg in list(parsed) + [(None, None)]:
        ch = chr(arg) if str(op) == "LITERAL" else None
        if ch is not None and (not ignore_case or (ch.isascii() and ch.lower() not in "iks")):
            run.append(ch)
            continue
        if run:
            runs.append("".join(run))
        run = []
    return tuple(runs), ignore_case


def _unescape_slashes(pattern: str) -> str:
    r"""`\/` → `/`: the escape only serves the /.../ literal syntax. Python's re reads `\/`
    as '/', but the sqlite3 shell's regexp extension rejects it ("unknown \\ escape")."""
    if "\\/" not in pattern:
        return pattern
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(pattern[i + 1] if pattern[i + 1] == "/" else pattern[i : i + 2])
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def _as_number(value: Literal) -> int | float | None:
    if value.kind == "number" and isinstance(value.value, (int, float)):
        return value.value
    if value.kind == "string":
        try:
            text = str(value.value).strip()
            return int(text) if text.lstrip("-").isdigit() else float(text)
        except ValueError:
            return None
    return None


# -- substring tests, narrowed by the trigram tables (docs/design.md B35) -------------------
# At most this many trigrams in one FTS5 query: each costs a read of its row list (the
# list of a common trigram such as "ion" holds a quarter of the chunks), and a few rare ones
# already leave few candidates for the exact test.
MAX_TRIGRAMS = 6
# The COMMON_CUT most common trigrams of `COMMON_TRIGRAMS` (each in ~4 % or more of the
# chunks) are left out once MIN_TRIGRAMS are named: reading their long lists
# costs more than the candidates they remove. Fewer than three named left too many
# candidates to test (`EADDR`: 13 → 30 ms at 279 MB with two).
COMMON_CUT = 512
MIN_TRIGRAMS = 3
_COMMON_RANK = {gram: rank for rank, gram in enumerate(COMMON_TRIGRAMS)}


@functools.lru_cache(maxsize=4096)  # a server meets the same names in search after search
def trigram_query(needle: str, *more: str) -> str | None:
    """An FTS5 query that every text of a `tokenize='trigram'` table containing `needle`
    (up to the case of the letters) matches, or None when `needle` is too short (< 3
    characters: the trigram tokenizer has no shorter tokens). With `more`: a text that
    also contains each of them (a regex's literal runs); those shorter than 3 characters
    are left out.

    An AND of quoted trigrams, not a phrase: the tables are `detail=none` (row ids only),
    where FTS5 has no phrase queries. Sound because the tokenizer maps each character to
    one character (its case fold) in the stored text and in the query alike, so a text
    holding `needle` holds each of its trigrams; any of them will do, and the exact test
    runs on the candidates. Which: the rarest (`_rarest`), in needle order.
    """
    needles = [needle, *(m for m in more if len(m) >= 3)]
    if len(needle) < 3 or any("\x00" in n for n in needles):
        # FTS5's query parser ends a string at a NUL ("unterminated string"); no indexed
        # text holds one (B22), so the exact test alone answers, and answers nothing.
        return None
    grams = list(dict.fromkeys(n[i : i + 3] for n in needles for i in range(len(n) - 2)))
    chosen = _rarest(_grams(needle))  # all of them when there are MIN_TRIGRAMS or fewer
    # Another run of a regex is another place in the match: its rarest trigram narrows
    # the candidates on its own, even a common one (`/EADDR\w+USE/`: `use` takes the
    # chunks holding ead, add and ddr from 3,703 to 1,542 at 279 MB), where a third common
    # trigram of the same run mostly repeats the other two.
    for extra in needles[1:]:
        if len(chosen) >= MAX_TRIGRAMS:
            break
        chosen.add(min(_grams(extra), key=_commonness))
    return " ".join('"' + gram.replace('"', '""') + '"' for gram in grams if gram in chosen)


def _grams(needle: str) -> set[str]:
    return {needle[i : i + 3] for i in range(len(needle) - 2)}


def _rarest(grams: set[str]) -> set[str]:
    """The trigrams of a needle worth reading: up to MAX_TRIGRAMS, rarest first, where a
    trigram not in `COMMON_TRIGRAMS` is rarer than any in it (among those, by their
    letters), and the very common ones (`COMMON_CUT`) only while fewer than MIN_TRIGRAMS
    are chosen. By letters alone, `EADDRINUSE` read `add` and `use` and `ValueError`
    `val`, `err` and `ror`, each in 9–14 % of the chunks of a large tree:
    25 needles on the 279 MB index 209 → 158 ms of CPU, on the Markdown mix 9.6 → 7.2
    (`ValueError` 25 → 2.2 ms; benchmarks-history.md, "A worker's CPU with its reply;
    trigram choice by commonness")."""
    chosen: set[str] = set()
    for gram in sorted(grams, key=_commonness):
        rank = _COMMON_RANK.get(gram.lower())
        if len(chosen) >= MAX_TRIGRAMS or (
            len(chosen) >= MIN_TRIGRAMS and rank is not None and rank < COMMON_CUT
        ):
            break
        chosen.add(gram)
    return chosen


def _commonness(gram: str) -> tuple[int, int, str]:
    """Sorts trigrams rarest first: those not in `COMMON_TRIGRAMS` by their letters, then
    the others from the least common (ties: by the trigram itself, so the choice does not
    depend on the order it is asked in)."""
    rank = _COMMON_RANK.get(gram.lower())
    return (0, -_letters(gram), gram) if rank is None else (1, -rank, gram)


def _letters(gram: str) -> int:
    """How rare a trigram's letters are (`letter_rarity` summed; a search's name lists ask
    for the trigrams of every name of a long query, hence the table)."""
    total = 0
    for ch in gram:
        rarity = _ASCII_RARITY.get(ch)
        total += letter_rarity(ch) if rarity is None else rarity
    return total


# Letters from most to least frequent in English prose and code; ' ' is the most frequent.
_FREQUENCY = " etaoinsrhldcumfpgwybvkxjqz"


def letter_rarity(ch: str) -> int:
    lower = ch.lower()
    if lower in _FREQUENCY:
        return _FREQUENCY.index(lower)
    if lower.isdigit():
        return 20
    return 30 if ord(ch) > 127 else 15


_ASCII_RARITY = {chr(i): letter_rarity(chr(i)) for i in range(128)}
