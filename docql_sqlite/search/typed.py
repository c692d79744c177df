"""Typed query documents (spec §7): one query per line, each with its type.

    intent: web page load times
    lex: performance "core web vitals" -battery
    vec: how do I make pages load faster
    hyde: Pages load faster when ...

`lex` runs BM25 (words, "phrases", -negation, prefix*), `vec` embeds the line as a
query and `hyde` as a passage (a hypothetical answer looks like the passages it should
find). Every list is fused by RRF; the first query line's list weighs double. `intent`
never retrieves: it only steers which window a snippet shows and which passage stands
for a file in `--group file`. Errors name the line and column (a caret under it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import QueryError, did_you_mean
from ..records import Record
from ..sqlparams import Params
from . import fusion, ranking, results, snippets, sqlbuild, stats
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

TYPES = ("lex", "vec", "hyde", "intent")
_LINE = re.compile(r"^(\s*)([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)$")
FIRST_WEIGHT = 2.0


class QueryDocumentError(QueryError):
    """A typed query document that is not valid; points at the line and column."""


class Line(Record, frozen=True):
    kind: str
    text: str
    number: int  # 1-based line number in the document
    offset: int  # character offset of the text in the document


class QueryDocument(Record, frozen=True):
    queries: list[Line]  # lex / vec / hyde lines, in order
    intent: Line | None


def parse(text: str) -> QueryDocument:
    queries: list[Line] = []
    intent: Line | None = None
    offset = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        start, offset = offset, offset + len(raw) + 1
        if not raw.strip():
            continue  # blank lines separate nothing and are allowed
        match = _LINE.match(raw)
        indent = len(raw) - len(raw.lstrip())
        if match is None or match.group(2).lower() not in TYPES:
            raise _no_prefix(text, raw, number, start + indent, match)
        kind = match.group(2).lower()
        body = match.group(3)
        body_at = start + match.start(3) + (len(body) - len(body.lstrip()))
        if not body.strip():
            raise QueryDocumentError(
                f"empty {kind}: line (line {number}); write the query after '{kind}:'",
                source=text,
                offset=start + match.end(3),
            )
        line = Line(kind, body.strip(), number, body_at)
        if kind == "intent":
            if intent is not None:
                raise QueryDocumentError(
                    f"a second intent: line (line {number}); a document has at most one, "
                    f"first on line {intent.number}",
                    source=text,
                    offset=start + indent,
                )
            intent = line
            continue
        if kind == "lex" and not search_terms.positives(search_terms.parse(line.text)):
            raise QueryDocumentError(
                f"lex: line {number} has no word to search for (only negations or punctuation)",
                source=text,
                offset=body_at,
            )
        queries.append(line)
    if not queries:
        where = intent.offset if intent else 0
        raise QueryDocumentError(
            "intent: alone is not a query; add a lex:, vec: or hyde: line"
            if intent
            else "the query document is empty",
            source=text,
            offset=where,
        )
    return QueryDocument(queries, intent)


def _no_prefix(
    text: str, raw: str, number: int, offset: int, match: re.Match[str] | None
) -> QueryDocumentError:
    if match is not None:
        word = match.group(2)
        hint = did_you_mean(word.lower(), TYPES)
        message = f"unknown line type '{word}:' on line {number}"
        message += (
            f"; did you mean '{hint}:'?" if hint else "; types are lex:, vec:, hyde: and intent:"
        )
        return QueryDocumentError(message, source=text, offset=offset, suggestion=hint)
    shown = raw.strip() if len(raw.strip()) <= 40 else raw.strip()[:39] + "…"
    return QueryDocumentError(
        f"line {number} ('{shown}') has no type; in a typed query document every line starts "
        f"with lex:, vec:, hyde: or intent:",
        source=text,
        offset=offset,
    )


def run(store: Store, doc: QueryDocument, opts: Any) -> list[dict[str, Any]]:
    """Run every query line, fuse the lists by RRF (first line x2), build the items."""

    has_vectors = store.has_embeddings()
    lists: list[fusion.Ranked] = []
    notes: list[str] = []
    depth = max(ranking.MIN_DEPTH, 3 * opts.fetch)
    lex_terms: list[search_terms.Term] = []
    for i, line in enumerate(doc.queries):
        name = f"{line.kind}:{line.number}"
        weight = FIRST_WEIGHT if i == 0 else 1.0
        sub = ranking.Request(depth, opts.paths, None, False, opts.model, opts.rrf_k)
        if line.kind == "lex":
            terms = stats.reduce_terms(store, search_terms.parse(line.text))[0]
            lex_terms += terms
            rows = ranking.run_mode(store, "bm25", line.text, terms, sub)
        elif has_vectors or opts.model:
            kind = "passage" if line.kind == "hyde" else "query"
            rows = _vector_rows(store, line.text, kind, sub)
        else:
            # No vectors in this index: the line still retrieves, as a BM25 OR query.
            terms = stats.reduce_terms(store, search_terms.parse(line.text))[0]
            lex_terms += terms
            notes.append(f"{name}: no embeddings in this index, ran as bm25")
            rows = (
                ranking.run_mode(store, "bm25", line.text, terms, sub)
                if search_terms.positives(terms)
                else []
            )
        lists.append(fusion.Ranked(name, weight, rows))
    if doc.intent is not None:
        intent = search_terms.parse(doc.intent.text)
        opts.intent = snippets.patterns(stats.reduce_terms(store, intent)[0])
    fused = fusion.rrf(lists, opts.rrf_k)[: opts.fetch]
    pats = snippets.patterns(lex_terms) or snippets.patterns(
        stats.reduce_terms(
            store,
            [t for line in doc.queries for t in search_terms.parse(line.text)],
        )[0]
    )
    items = []
    for entry in fused:
        it = results.item(dict(entry.row, score=entry.score), pats, opts)
        if opts.explain:
            it["explain"] = {
                "lists": entry.lists,
                "rrf": entry.rrf,
                "final": round(entry.score, 8),
                "plan": {
                    "mode": "typed",
                    "weights": {r.name: r.weight for r in lists},
                    "notes": notes,
                    "intent": doc.intent.text if doc.intent else None,
                },
            }
        items.append(it)
    return results.group_files(items, opts) if opts.group == "file" else items[: opts.limit]


def _vector_rows(store: Store, text: str, kind: str, sub: Any) -> list[dict[str, Any]]:

    params = Params(store.dialect)
    plan = sqlbuild.Plan(scope=ranking.scope_sql(store, sub.paths, params), rrf_k=sub.rrf_k)
    ranking.add_vector(store, plan, params, text, sub, kind=kind)
    return ranking.run_plan(store, plan, params, sub.fetch, mode="vector")
