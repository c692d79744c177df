"""The layer every search strategy stands on: one ranked list of passages, in SQL.

`api.search` picks a strategy (bm25/vector/hybrid here, `smart.py`, `typed.py`); each
calls `run_mode`/`run_plan` for its lists (the one statement of `sqlbuild.py`) and
`results.py` for the result items.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from .. import deadline
from ..errors import SearchError
from ..passage_text import no_passage
from ..records import Record, field
from ..sqlparams import Params
from . import snippets, sqlbuild, stats, vectors
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

# --group file needs more passages than files asked for: several hits share a file.
GROUP_OVERFETCH = 4
# Rows fetched beyond those asked for, since link-only chunks are dropped (`passage_text`).
LINK_SLACK = 3
MIN_DEPTH = 30  # rows per list in hybrid fusion, at least (RRF needs some depth)
# Up to this many vectors the KNN is exact on every engine (sqlite-vec's always is; a
# PostgreSQL index with more uses its HNSW index, approximate).
EXACT_KNN_MAX = 100_000
QUERY_VECTORS = 256  # query vectors kept per open index (`query_vector`)


class Request(Record):
    """What one strategy asks of the lists: depth, scope, fusion, and the result shape."""

    limit: int = 10
    paths: tuple[str, ...] = ()
    group: str | None = None
    explain: bool = False
    model: str | None = None
    rrf_k: int = sqlbuild.RRF_K
    weights: dict[str, float] = field(default_factory=dict)
    intent: list[snippets.TermPattern] = field(default_factory=list)
    snippets: bool = True  # SearchOptions.snippets

    @property
    def fetch(self) -> int:
        """Passages to fetch: over-fetched when they are collapsed to files."""
        return self.limit * (GROUP_OVERFETCH if self.group == "file" else 1)

    def weight(self, name: str, default: float = 1.0) -> float:
        return float(self.weights.get(name, default))


def query_terms(text: str) -> list[search_terms.Term]:
    terms = search_terms.parse(text)
    if not search_terms.positives(terms):
        if search_terms.symbols(text):  # `$?`, `||`: the full-text index holds words only
            raise SearchError(
                f"no word to search for in '{text}': bm25 matches words; the default search "
                f"finds symbols as written (--mode smart)"
            )
        raise SearchError(
            f"nothing to search for in '{text}': give at least one word that is not negated (-word)"
        )
    return terms


def named_by_path(path_col: str, parent: str, params: Params) -> str:
    """The condition that the file at `path_col` is in a folder named `parent` (folded),
    or `{parent}-…` (an unpacked release: `clap-4.0.32/`, `flask-3.1.0/`), or is a file
    whose stem is `parent`: where a qualified name's last part is the part before it's
    (`django.middleware.csrf.CsrfViewMiddleware` in `…/csrf.py`, Go's `io.Copy` in
    `io/io.go`), or rustdoc's page of that type (`struct.HashMap.html`, `enum.Option.html`,
    `trait.Read.html`). Read by the symbols, headings, entities and uses lists."""
    dialect = params.dialect
    path = "'/' || " + dialect.ascii_lower(path_col)
    marks = [f"/{parent}{mark}" for mark in ("/", "-", ".")]
    marks += [f"/{kind}.{parent}.htm" for kind in _RUSTDOC_KINDS]
    # (in parentheses: callers AND it with a name's condition)
    return "(" + " OR ".join(dialect.contains(path, params.add(mark)) for mark in marks) + ")"


# The kinds rustdoc names a type's page by: `struct.Vec.html`, `primitive.slice.html`.
_RUSTDOC_KINDS = ("struct", "enum", "trait", "union", "type", "primitive")


def scope_sql(store: Store, paths: tuple[str, ...], params: Params) -> str:
    """The condition on documents `d` of a search limited to `paths` (globs).

    The documents in scope are found once per index version and set of globs, in Python,
    and every statement of the search reads their ids: a glob in the SQL ran again in
    each of a smart search's ~9 statements, ~0.1 s each over 34k documents."""
    dialect = params.dialect
    if not paths:
        return dialect.TRUE
    ids = documents_in(store, paths)
    return dialect.ids_in("d.id", params.add("[" + ",".join(ids) + "]"))


def documents_in(store: Store, paths: tuple[str, ...]) -> tuple[str, ...]:
    """The ids (as decimal text) of the documents whose path matches one of `paths`, in
    id order: every list of a search limited to `paths` reads them."""
    from ..globs import matcher

    def compute() -> tuple[str, ...]:
        ids, found = stats.columns(store, ["d.id", "d.path"], "FROM documents d", "d.id")
        matches = matcher(paths)
        return tuple(i for i, path in zip(ids, found) if matches(path))

    return cast(tuple, stats.cached(store, ("documents_in", paths), compute))


def code_documents(store: Store, doc_ids: set[int]) -> frozenset[int]:
    """Those of `doc_ids` that are code files (format 'code')."""
    if not doc_ids:
        return frozenset()
    params = Params(store.dialect)
    ids = params.add("[" + ",".join(str(int(i)) for i in sorted(doc_ids)) + "]")
    sql = f"SELECT id FROM documents WHERE format = 'code' AND {store.dialect.ids_in('id', ids)}"
    return frozenset(int(r["id"]) for r in store.rows(sql, params.values))


def section_text(store: Store, chunk_id: int) -> str:
    """The text of the section a chunk is in (its chunks of the same innermost section),
    or the chunk's own text when it is in none."""
    params = Params(store.dialect)
    chunk = params.add(int(chunk_id))
    sql = (
        "SELECT o.content FROM chunks c JOIN chunks o ON o.doc_id = c.doc_id AND "
        f"(o.section_id = c.section_id OR o.id = c.id) WHERE c.id = {chunk} ORDER BY o.id"
    )
    return "\n".join(str(r["content"]) for r in store.rows(sql, params.values))


def run_mode(
    store: Store, mode: str, text: str, terms: list[search_terms.Term], opts: Request
) -> list[dict[str, Any]]:
    """Rows of one bm25 / vector / hybrid search, best first (`opts.fetch` of them)."""
    params = Params(store.dialect)
    terms, reduced = stats.reduce_terms(store, terms)
    plan = sqlbuild.Plan(
        terms=terms if mode in ("bm25", "hybrid") else [],
        scope=scope_sql(store, opts.paths, params),
        min_hits=opts.limit,
        rrf_k=opts.rrf_k,
        w_fts=opts.weight("bm25"),
        w_vec=opts.weight("vector"),
    )
    if reduced and plan.terms:
        plan.notes.append(reduced)
    plan.common = stats.common_terms(store, plan.terms)
    plan.statistics = stats.TermStats(store)
    if mode in ("vector", "hybrid"):
        if mode == "hybrid" and not store.has_embeddings() and opts.model is None:
            plan.notes.append("no embeddings in this index: hybrid ran as bm25")
        else:
            add_vector(store, plan, params, text, opts)
    # Cut each list early: the final SELECT then builds columns and snippets for the
    # rows shown only, not for every chunk that matched a common word.
    fetch = opts.fetch + LINK_SLACK
    plan.depth = max(MIN_DEPTH, 3 * fetch) if mode == "hybrid" else fetch
    if opts.group == "file":
        plan.notes.append(f"over-fetch x{GROUP_OVERFETCH} passages for --group file")
    return run_plan(store, plan, params, fetch, mode=mode)[: opts.fetch]


def add_vector(
    store: Store, plan: sqlbuild.Plan, params: Params, text: str, opts: Request, kind: str = "query"
) -> None:
    """Give `plan` a query vector, with k over-fetched by the stale vectors it may meet."""
    with deadline.not_counted():  # loading the model is not the query's time
        model = vectors.query_model(store, opts.model)
        vector = query_vector(store, model, text, kind)
    plan.vector = sqlbuild.vector_sql(params, vectors.vector_json(vector))
    stale = stats.stale_vectors(store)
    plan.approximate = stats.vector_count(store) > EXACT_KNN_MAX
    wanted = max(MIN_DEPTH, 3 * opts.fetch) if plan.has_fts else opts.fetch
    plan.vec_k = wanted + stale
    cache = store.vector_cache
    if cache is not None and plan.scope == "1":
        nearest = cache.knn(store, vector, min(plan.vec_k, sqlbuild.VEC_K_MAX))
        if nearest is not None:
            plan.nearest = json.dumps(nearest)
            plan.notes.append("vector: nearest found in memory (this process holds the vectors)")
    plan.notes.append(
        f"vector: model {model.model_id}, k = {plan.vec_k} ({wanted} wanted + {stale} stale "
        f"vectors "
        f"skipped), paths pushed into vec0 doc_id"
        if opts.paths
        else f"vector: model {model.model_id}, k = {plan.vec_k} ({wanted} wanted + {stale} stale)"
    )


def query_vector(store: Store, model: Any, text: str, kind: str = "query") -> list[float]:
    """`vectors.query_vector`, remembered for the last QUERY_VECTORS texts of this index:
    e5-small's forward pass is ~23 ms of CPU for a short query, and an agent asks the same
    text again (the next page, `offset`; another mode). The model's name is part of the
    key, with its dimensions; the index's vectors were checked against the model
    (`vectors.query_model`)."""
    recent = stats.of(store).part("query vectors", lambda: stats.Recent(QUERY_VECTORS))
    return cast(
        "list[float]",
        recent.get(
            (model.model_id, model.dimensions, kind, text),
            lambda: vectors.query_vector(model, text, kind),
        ),
    )


def run_plan(
    store: Store, plan: sqlbuild.Plan, params: Params, fetch: int, mode: str = ""
) -> list[dict[str, Any]]:
    # No SQL snippet: `item` makes the snippet of each result from its content.
    sql = (
        sqlbuild.ranked_chunks_sql(plan, params, sql_snippet=False)
        + f"\nORDER BY _score DESC, {params.dialect.sort_key('_path')}, _pos LIMIT {int(fetch)}"
    )
    # Chunks of links alone (a Markdown page's link definitions) are no passages.
    rows = [r for r in store.rows(sql, params.values) if not no_passage(r["content"])]
    info: dict[str, Any] = {"mode": mode, "notes": list(plan.notes)}
    if plan.has_fts:
        n = len(search_terms.positives(plan.terms))
        info["fts"] = {
            "and": params.dialect.match_and(plan.terms),
            "or": params.dialect.match_or(plan.terms, _common(plan)) if n > 1 else None,
            "weights": {"title": plan.weights[0], "body": plan.weights[1]},
        }
        if (
            rows
            and n > 1
            and any((r["_coverage"] or n) < n for r in rows if r["_fts_rank"] is not None)
        ):
            info["fts"]["strategy"] = f"or: fewer than {plan.min_hits} chunks have every term"
        else:
            info["fts"]["strategy"] = "and"
    if plan.vector is not None:
        info["rrf_k"] = plan.rrf_k
    for row in rows:
        row["_plan"] = info
    return rows


def _common(plan: sqlbuild.Plan) -> frozenset[str]:
    return plan.common() if callable(plan.common) else plan.common
