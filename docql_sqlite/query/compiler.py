"""Query tree → SQL + bound parameters: the only place query SQL text is built.

A query compiles to a chain of CTEs: the root's base SELECT, then one stage per
selector (filter, index, slice), then a final SELECT of the item's fields in the spec's
order (§6): by path and position, or by score for ranked results. Every user value is
a bound parameter (`:p0`…); `Compiled.inline_sql()` renders them as literals so the
SQL runs unchanged in a plain `sqlite3` shell.
"""

from __future__ import annotations

from collections.abc import Callable

from ..dialect import Dialect
from ..errors import DocQLNameError, DocQLSyntaxError
from ..records import Record, field
from ..sqlparams import Params, bind, inline
from . import items as item_sql
from .filters import FilterCompiler
from .functions import (
    CODE_FUNCTIONS,
    CODE_LISTS,
    CONTENT_FUNCTIONS,
    CONTENT_LISTS,
    ROOTS,
    FunctionCompiler,
    Source,
    needs_function,
    unknown_name,
)
from .nodes import Call, Filter, Position, Property, Query, Slice, Step, Wildcard
from .parser import parse

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

DOCUMENT_ROOTS = ("toc", "entities", "content", "code", "frontmatter", "structure")


class Compiled(Record):
    sql: str
    params: dict[str, Any]
    item: item_sql.ItemType
    columns: list[str]
    dialect: Dialect
    projection: str | None = None
    post: str | None = None
    post_arg: Any = None
    notes: list[str] = field(default_factory=list)

    def inline_sql(self) -> str:
        """The SQL with every value written in: runs as is in a `sqlite3` shell."""
        return inline(self.sql, self.params, self.dialect)

    def bound_params(self) -> dict[str, Any]:
        """The parameters to run with, deferred ones (query vectors, statistics) computed."""
        return bind(self.params)


def compile_query(
    query: str | Query,
    *,
    paths: tuple[str, ...] | list[str] = (),
    limit: int | None = None,
    search_builder: Callable[..., Source] | None = None,
    dialect: Dialect,
) -> Compiled:
    """`query` as one SQL statement of `dialect` (docql_sqlite/dialect/: the store's)."""
    tree = parse(query) if isinstance(query, str) else query
    return _Compiler(tree, search_builder, dialect).compile(tuple(paths), limit)


class _Compiler:
    def __init__(
        self,
        query: Query,
        search_builder: Callable[..., Source] | None,
        dialect: Dialect,
    ) -> None:
        self.query = query
        self.source = query.source
        self.dialect = dialect
        self.params = Params(dialect)
        self.functions = FunctionCompiler(self.params, self.source, search_builder)
        self.ctes: list[tuple[str, str]] = []

    def compile(self, paths: tuple[str, ...], limit: int | None) -> Compiled:
        steps = list(self.query.steps)
        if not steps:
            raise DocQLSyntaxError(
                "a query needs a root after '$': " + ", ".join(f"$.{r}" for r in ROOTS),
                source=self.source,
                offset=len(self.source),
            )
        scope = self._path_scope(paths)
        per_document = False
        split = self._scope_split(steps)
        if split:
            files = Source(item_sql.FILE, item_sql.base_files(scope, self.dialect))
            last = self._chain("scope", files, steps[1:split], per_document=False)
            self.ctes.append(("scope_docs", f"SELECT _doc FROM {last}"))
            scope = f"{scope} AND d.id IN (SELECT _doc FROM scope_docs)"
            steps = steps[split:]
            per_document = True
        source, rest = self._root(steps, scope)
        source.item = item_sql.in_dialect(source.item, self.dialect)
        selectors, projection, after = self._split_projection(rest, source.item)
        last = self._chain("s", source, selectors + after, per_document)
        order = self._order(source)
        if projection is not None:
            # Exact names first: on entities `@.type` is an alias in filters, but `.type` is the
            # item's type.
            spec = next(
                (f for f in source.item.fields if f.name == projection.name), None
            ) or source.item.get(projection.name)
            if spec is None:  # a front-matter key: its JSON text (`->`), decoded in results
                spec = item_sql.FieldSpec(
                    projection.name, "json", self.dialect.json_text("r._data", projection.name)
                )
            columns = [projection.name]
            select = f"{spec.sql} AS {_quote(projection.name)}"
        else:
            columns = self._columns(source.item)
            select = ", ".join(f"{f.sql} AS {_quote(f.name)}" for f in source.item.fields)
            if source.item.open_fields:
                select += ", r._data AS _data"
                columns.append("_data")
        sql = "WITH " + ",\n".join(f"{name} AS (\n{body}\n)" for name, body in self.ctes)
        sql += f"\nSELECT {select}\nFROM {last} AS r\nORDER BY {order}"
        if limit is not None:
            sql += f"\nLIMIT {int(limit)}"
        return Compiled(
            sql,
            dict(self.params.values),
            source.item,
            columns,
            self.dialect,
            projection=projection.name if projection else None,
            post=source.post,
            post_arg=source.post_arg,
        )

    # -- scope ------------------------------------------------------------------------
    def _path_scope(self, paths: tuple[str, ...]) -> str:
        dialect = self.dialect
        if not paths:
            return dialect.TRUE
        globs = (dialect.glob("d.path", self.params.add(dialect.glob_value(p))) for p in paths)
        return "(" + " OR ".join(globs) + ")"

    def _scope_split(self, steps: list[Step]) -> int:
        """Index of the document root after a `$.files[...]` prefix, or 0 when unscoped."""
        if not (isinstance(steps[0], Property) and steps[0].name == "files"):
            return 0
        for i, step in enumerate(steps[1:], start=1):
            if isinstance(step, Property):
                return i if step.name in DOCUMENT_ROOTS else 0
            if not isinstance(step, (Filter, Position, Slice, Wildcard)):
                return 0
        return 0

    # -- roots ------------------------------------------------------------------------
    def _root(self, steps: list[Step], scope: str) -> tuple[Source, list[Step]]:
        head = steps[0]
        if isinstance(head, Call) and head.name in ROOTS and head.name not in ("content", "code"):
            raise DocQLSyntaxError(
                f"$.{head.name} is a list, not a function; use $.{head.name}[...]",
                source=self.source,
                offset=head.offset,
            )
        if not isinstance(head, Property):
            raise DocQLSyntaxError(
                "expected a root name after '$'", source=self.source, offset=head.offset
            )
        name = head.name
        if name not in ROOTS:
            raise unknown_name("root", name, ROOTS, self.source, head.offset)
        if name in ("content", "code"):
            return self._namespace(name, steps, scope)
        if len(steps) > 1 and isinstance(steps[1], Call):
            raise DocQLSyntaxError(
                f"$.{name} is a list, not a function; use $.{name}[...]",
                source=self.source,
                offset=steps[1].offset,
            )
        base = {
            "toc": lambda: Source(
                item_sql.HEADING, item_sql.base_headings(scope, dialect=self.dialect)
            ),
            "entities": lambda: Source(
                item_sql.ENTITY, item_sql.base_entities(scope, self.dialect)
            ),
            "files": lambda: Source(item_sql.FILE, item_sql.base_files(scope, self.dialect)),
            "frontmatter": lambda: Source(
                item_sql.FRONTMATTER, item_sql.base_frontmatter(scope), post="frontmatter"
            ),
            "structure": lambda: Source(
                item_sql.STRUCTURE, item_sql.base_structure(scope, self.dialect), post="structure"
            ),
        }[name]()
        return base, steps[1:]

    def _namespace(self, owner: str, steps: list[Step], scope: str) -> tuple[Source, list[Step]]:
        if len(steps) < 2 or not isinstance(steps[1], (Property, Call)):
            offset = steps[1].offset if len(steps) > 1 else len(self.source)
            raise needs_function(owner, self.source, offset)
        step = steps[1]
        if owner == "content":
            if isinstance(step, Call):
                return self.functions.content(step, scope), steps[2:]
            if step.name == "codeblock":
                return Source(
                    item_sql.CODEBLOCK, item_sql.base_codeblocks(scope, self.dialect)
                ), steps[2:]
            if step.name == "table":
                return Source(item_sql.TABLE, item_sql.base_tables(scope, self.dialect)), steps[2:]
            if step.name in CONTENT_FUNCTIONS:
                raise DocQLSyntaxError(
                    f"'{step.name}' is a function; call it: $.content.{step.name}(...)",
                    source=self.source,
                    offset=step.offset,
                )
            raise unknown_name(
                "function",
                step.name,
                list(CONTENT_FUNCTIONS) + list(CONTENT_LISTS),
                self.source,
                step.offset,
            )
        if isinstance(step, Call):
            if step.name in CODE_LISTS:
                raise DocQLSyntaxError(
                    f"$.code.{step.name} is a list, not a function; use $.code.{step.name}[...]",
                    source=self.source,
                    offset=step.offset,
                )
            return self.functions.code(step, scope), steps[2:]
        if step.name in CODE_LISTS:
            return self.functions.code_list(step.name, scope), steps[2:]
        if step.name in CODE_FUNCTIONS:
            raise DocQLSyntaxError(
                f"'{step.name}' is a function; call it: $.code.{step.name}(\"name\")",
                source=self.source,
                offset=step.offset,
            )
        raise unknown_name(
            "function", step.name, list(CODE_LISTS) + list(CODE_FUNCTIONS), self.source, step.offset
        )

    # -- selectors ----------------------------------------------------------------------
    def _split_projection(
        self, steps: list[Step], item: item_sql.ItemType
    ) -> tuple[list[Step], Property | None, list[Step]]:
        for i, step in enumerate(steps):
            if isinstance(step, Call):
                hint = ""
                if step.name in CONTENT_FUNCTIONS:
                    # `$.files[?(@.name == "x.md")].chapter("1.2")`: a natural first try
                    hint = (
                        f"; {step.name}() starts from $.content, and a filter after it keeps "
                        f'one file\'s: $.content.{step.name}(…)[?(@.path endsWith "x.md")] '
                        f"(on the command line also --path GLOB)"
                    )
                raise DocQLSyntaxError(
                    f"unexpected function call '{step.name}(…)' here{hint}",
                    source=self.source,
                    offset=step.offset,
                )
            if isinstance(step, Property):
                if item.get(step.name) is None and not item.open_fields:
                    FilterCompiler(item, self.params, self.source).field(step.name, step.offset)
                after = steps[i + 1 :]
                for later in after:
                    if not isinstance(later, (Position, Slice, Wildcard)):
                        raise DocQLSyntaxError(
                            f"after the projection '.{step.name}' only [n], [a:b] or [*] may "
                            f"follow",
                            source=self.source,
                            offset=later.offset,
                        )
                return steps[:i], step, after
        return steps, None, []

    def _chain(self, prefix: str, source: Source, selectors: list[Step], per_document: bool) -> str:
        name = f"{prefix}0"
        self.ctes.append((name, source.sql))
        order = self._order(source)
        filters = FilterCompiler(source.item, self.params, self.source)
        for n, step in enumerate(selectors, start=1):
            if isinstance(step, Wildcard):
                continue
            previous, name = name, f"{prefix}{n}"
            if isinstance(step, Filter):
                self.ctes.append(
                    (name, f"SELECT * FROM {previous} AS r WHERE {filters.compile(step.expr)}")
                )
                continue
            window = _limit_offset(step, self.dialect) if not per_document else None
            if window is not None:
                # An index or slice of the whole list with bounds on one side (both from the
                # start, or both from the end): ORDER BY ... LIMIT/OFFSET lets SQLite keep only
                # the top rows while sorting, instead of numbering (and counting) every row.
                reverse, clause = window
                self.ctes.append(
                    (
                        name,
                        f"SELECT * FROM {previous} AS r ORDER BY "
                        f"{_reverse(order) if reverse else order} {clause}",
                    )
                )
                continue
            partition = "PARTITION BY r._doc " if per_document else ""
            rn, cnt = f"_rn{n}", f"_cnt{n}"
            # The row count is only needed for negative positions (counted from the end).
            counted = (
                f", count(*) OVER ({partition.strip()}) AS {cnt}" if _needs_count(step) else ""
            )
            numbered = (
                f"SELECT r.*, row_number() OVER ({partition}ORDER BY {order}) AS {rn}{counted} "
                f"FROM {previous} AS r"
            )
            condition = _position_condition(step, rn, cnt, self.dialect)
            self.ctes.append((name, f"SELECT * FROM ({numbered}) AS r WHERE {condition}"))
        return name

    def _order(self, source: Source) -> str:
        path = self.dialect.sort_key("r._path")
        if source.ranked:
            return f"r._score DESC, {path}, r._pos"
        return f"{path}, r._pos"

    @staticmethod
    def _columns(item: item_sql.ItemType) -> list[str]:
        return item.field_names


_MAX_ROWS = 2**62  # LIMIT and OFFSET take 64-bit integers; beyond any real row count


def _needs_count(step: Step) -> bool:
    if isinstance(step, Position):
        return step.value < 0
    assert isinstance(step, Slice)
    return any(bound is not None and bound < 0 for bound in (step.start, step.stop))


def _limit_offset(step: Step, dialect: Dialect) -> tuple[bool, str] | None:
    """(reverse, `LIMIT n OFFSET m`) for an index or slice whose bounds all count from the
    start (reverse False) or all from the end (reverse True: taken from the list in reverse
    order; the final ORDER BY restores it). None for mixed bounds such as [1:-1]."""
    if isinstance(step, Position):
        n = step.value
        return (
            (False, f"LIMIT 1 OFFSET {min(n, _MAX_ROWS)}")
            if n >= 0
            else (True, f"LIMIT 1 OFFSET {min(-n - 1, _MAX_ROWS)}")
        )
    assert isinstance(step, Slice)
    start, stop = step.start, step.stop
    if (start is None or start >= 0) and (stop is None or stop >= 0):
        first = min(start or 0, _MAX_ROWS)
        count = dialect.NO_LIMIT if stop is None else max(0, min(stop, _MAX_ROWS) - first)
        return False, f"LIMIT {count} OFFSET {first}"
    if start is not None and start < 0 and (stop is None or stop < 0):
        # [-a:-b] = in reverse order, skip b rows and take a - b: [-5:] and [-3:-1].
        skip = 0 if stop is None else min(-stop, _MAX_ROWS)
        return True, f"LIMIT {max(0, min(-start, _MAX_ROWS) - skip)} OFFSET {skip}"
    return None


def _reverse(order: str) -> str:
    """The exact reverse of an ORDER BY list (NULLs first ascending, last descending)."""
    terms = []
    for term in order.split(","):
        term = term.strip()
        terms.append(term[: -len(" DESC")] if term.endswith(" DESC") else term + " DESC")
    return ", ".join(terms)


def _position_condition(step: Step, rn: str, cnt: str, dialect: Dialect) -> str:
    """Python-style index / slice over 1-based row numbers `rn` of `cnt` rows."""
    if isinstance(step, Position):
        n = step.value
        return f"r.{rn} = {n + 1}" if n >= 0 else f"r.{rn} = r.{cnt} + {n + 1}"
    assert isinstance(step, Slice)
    conds = []
    if step.start is not None:
        start = step.start
        conds.append(
            f"r.{rn} - 1 >= {start}"
            if start >= 0
            else f"r.{rn} - 1 >= {dialect.greatest(f'r.{cnt} + {start}', '0')}"
        )
    if step.stop is not None:
        stop = step.stop
        conds.append(f"r.{rn} - 1 < {stop}" if stop >= 0 else f"r.{rn} - 1 < r.{cnt} + {stop}")
    return " AND ".join(conds) or dialect.TRUE


def _quote(name: str) -> str:
    """A column alias, always quoted: a front-matter key may be any word, `select` or `drop` too."""
    return '"' + name.replace('"', '""') + '"'


__all__ = ["Compiled", "compile_query", "DocQLNameError"]
