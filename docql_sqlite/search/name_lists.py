"""The name lists of smart search: passages holding a code symbol, a heading or an
entity whose name is the query (or, for short queries, contains it).

Names first (a small, materialized list), then their passages. In code files headings
and entities repeat the symbols (spec §1): a class counts once, in the symbols list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..query import items as item_sql
from ..sqlparams import Params
from . import ranking
from . import terms as search_terms
from .query_names import QueryNames

if TYPE_CHECKING:
    from ..store import Store


class NameList(NamedTuple):
    """One name list: its name in the fusion, and the table and column of the names."""

    name: str
    table: str
    alias: str
    column: str


NAME_LISTS = (
    NameList("symbols", "symbols", "y", "name_fold"),
    NameList("headings", "sections", "s", "title_fold"),
    NameList("entities", "entities", "e", "name_fold"),
)


def rows(
    store: Store,
    name_list: NameList,
    terms: list[search_terms.Term],
    names: QueryNames,
    paths: tuple[str, ...],
    depth: int,
) -> list[dict[str, Any]]:
    """Chunks holding a symbol / heading / entity whose name matches; exact > prefix > contains.

    A name *containing* the query counts only for short queries (`QueryNames.contain`):
    in a pasted sentence every common word is inside some name.
    """
    table, alias, name_col = name_list.table, name_list.alias, name_list.column
    params = Params(store.dialect)
    dialect = params.dialect
    scope = ranking.scope_sql(store, paths, params)
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
  LIMIT {int(depth)})
SELECT {item_sql.chunk_columns(dialect)}, n.tier AS _tier, n.name AS _match
FROM named n JOIN chunks c ON c.doc_id = n.doc_id AND c.line <= n.line AND c.end_line >= n.line
JOIN documents d ON d.id = c.doc_id LEFT JOIN sections sec ON sec.id = c.section_id
WHERE {scope_chunks}
ORDER BY n.tier DESC, length(n.name), {dialect.sort_key("n.path")}, c.chunk_index"""
    return [dict(r, _weight=names.weight(r["_match"])) for r in store.rows(sql, params.values)]
