"""The repository map: the most central files and symbols of the indexed code, each with
its signature, fitted to a token budget (`Index.repo_map`, `docql-sqlite map`, the MCP
tool `repo_map`; docs/repomap.md).

Centrality is PageRank over the reference graph (`query/graph.py`): a symbol is central
when central code uses it. Every reference is an edge from the symbol it sits in (or its
file, at the top level) to its target; an `ambiguous` reference is spread evenly over
the definitions of its name in that language, with a quarter of the weight; a member
passes a share of its rank to its class. With a focus (a symbol name or a file), the
random walk restarts at the focus most of the time (personalised PageRank), so the map
shows the focus and what it leans on.

The budget is counted in *tokens* as this module counts them (`count_tokens`: words and
single punctuation marks, a stable unit close to what a model reads), and the map never
exceeds it: entries are taken in rank order while they fit, then the next smaller ones
that still fit, so the map ends within one entry of the budget.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import UsageError
from .ingest import resolve
from .query import graph

if TYPE_CHECKING:
    from .store import Store

DEFAULT_BUDGET = 1024
MAX_BUDGET = 100_000
DAMPING = 0.85
FOCUS_SHARE = 0.9  # of the restart probability, given to the focus
MEMBER_WEIGHT = 0.5  # share of a member's out-weight that goes to its class
# An ambiguous reference votes less than a resolved one: `x.get()` on a dict is not a vote
# for every method named `get` in the repository.
AMBIGUOUS_WEIGHT = 0.25
# The restarts' prior (`_prior`): public, top-level, documented names weigh more, test
# code less. Each factor doubles: a public documented top-level name weighs 8, a private
# helper 1, anything in a test file 0.25.
PUBLIC_WEIGHT = 2.0
TOP_LEVEL_WEIGHT = 2.0
DOCUMENTED_WEIGHT = 2.0
TEST_WEIGHT = 0.25
ITERATIONS = 50
SIGNATURE_CHARS = 200
_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """The budget's unit: runs of word characters and single other non-space characters."""
    return len(_TOKEN.findall(text))


def build_map(
    store: Store,
    paths: tuple[str, ...] = (),
    budget: int = DEFAULT_BUDGET,
    focus: str | None = None,
) -> dict[str, Any]:
    if not isinstance(budget, int) or isinstance(budget, bool) or not 1 <= budget <= MAX_BUDGET:
        raise UsageError(f"the budget must be a whole number of tokens from 1 to {MAX_BUDGET}")
    symbols = [s for s in graph.symbols(store.conn, store.dialect) if _selected(s.path, paths)]
    if not symbols:  # an empty map (a documents-only index), saying why
        where = f" under {', '.join(paths)}" if paths else ""
        result = _fit([], np.zeros(0), budget, focus)
        result["note"] = f"no code symbols{where} in this index: index source files first"
        return result
    ranks = _rank(store, symbols, focus)
    return _fit(symbols, ranks, budget, focus)


def _selected(path: str, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return True
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            if fnmatch.fnmatchcase(path, pattern):
                return True
        else:
            prefix = pattern.rstrip("/")
            if path == prefix or path.startswith(prefix + "/") or not prefix:
                return True
    return False


def _rank(store: Store, symbols: list[graph.GraphSymbol], focus: str | None) -> np.ndarray:
    n = len(symbols)
    index_of_id = {s.id: i for i, s in enumerate(symbols)}
    index_of_ord: dict[tuple[int, int | None], int] = {
        (s.doc_id, s.ord): i for i, s in enumerate(symbols)
    }
    docs = sorted({s.doc_id for s in symbols})
    file_node = {doc_id: n + i for i, doc_id in enumerate(docs)}
    named = graph.by_name(symbols)
    language_of = {s.doc_id: s.language for s in symbols}
    counts = graph.reference_counts(store.conn, store.dialect)
    outside = _Outside(store, symbols, named, {row[0] for row in counts})
    # A file outside the map's paths that uses it is a node of its own (after the map's
    # symbols and files): the rest of the index votes for the entry points it calls.
    outside_node: dict[int, int] = {}
    edges: dict[tuple[int, int], float] = defaultdict(float)
    for doc_id, caller_ord, name, _kind, target_id, resolution, count in counts:
        inside = doc_id in file_node
        weight = float(count)
        if resolution == "ambiguous":
            if inside:
                spread = named.get((language_of[doc_id], name), [])
                # narrowed to what the file imports or its own directory holds, if any
                targets = [index_of_id[s.id] for s in outside.candidates(doc_id, name) or spread]
            else:
                targets = [index_of_id[s.id] for s in outside.candidates(doc_id, name)]
            weight *= AMBIGUOUS_WEIGHT
        else:
            target = index_of_id.get(target_id) if target_id is not None else None
            targets = [target] if target is not None else []
        if not targets:
            continue
        if inside:
            source = index_of_ord.get((doc_id, caller_ord), file_node[doc_id])
        else:
            source = outside_node.setdefault(doc_id, n + len(docs) + len(outside_node))
        for target in targets:
            if target != source:
                edges[(source, target)] += weight / len(targets)
    size = n + len(docs) + len(outside_node)
    parent_of = {}
    by_qualified = {(s.doc_id, s.qualified_name): i for i, s in enumerate(symbols)}
    for i, s in enumerate(symbols):
        if s.parent and (s.doc_id, s.parent) in by_qualified:
            parent_of[i] = by_qualified[(s.doc_id, s.parent)]
    out_weight = np.zeros(size)
    for (source, _), weight in edges.items():
        out_weight[source] += weight
    for child, parent in parent_of.items():
        # a member hands a share of its vote to its class (a class whose methods are used)
        edges[(child, parent)] += MEMBER_WEIGHT * max(out_weight[child], 1.0)
    if edges:
        pairs = np.array(list(edges.keys()), dtype=np.int64)
        src, dst = pairs[:, 0], pairs[:, 1]
        weights = np.fromiter(edges.values(), dtype=float, count=len(edges))
    else:
        src = dst = np.zeros(0, dtype=np.int64)
        weights = np.zeros(0)
    totals = np.bincount(src, weights=weights, minlength=size)
    share = weights / totals[src] if len(weights) else weights
    restart = _restart(symbols, size, focus, file_node)
    rank = restart.copy()
    dangling = totals == 0
    for _ in range(ITERATIONS):
        flow = np.bincount(dst, weights=share * rank[src], minlength=size)
        new = (1 - DAMPING) * restart + DAMPING * (flow + rank[dangling].sum() * restart)
        if np.abs(new - rank).sum() < 1e-10:
            rank = new
            break
        rank = new
    # Test code votes (tests call the entry points) but is shown last: a test function's
    # rank is mostly its restarts, nobody calls it.
    shown = np.array([TEST_WEIGHT if _is_test_file(s.path) else 1.0 for s in symbols])
    return np.asarray(rank[:n] * shown)


class _Outside:
    """The map's definitions an `ambiguous` use may mean: those of its name (and
    language) in a file that the using file imports (the resolver's import rule,
    `ingest/resolve.py`) or in its own directory (a Go package). From outside the map's
    paths a use that reaches none of them is no vote: `x.Get()` somewhere in the index
    says nothing about this package's `Get`; inside, it is spread over every `Get`."""

    def __init__(
        self,
        store: Store,
        symbols: list[graph.GraphSymbol],
        named: dict[tuple[str, str], list[graph.GraphSymbol]],
        doc_ids: set[int],
    ) -> None:
        self.store = store
        self.named = named
        self.doc_ids = doc_ids
        self.files: dict[int, tuple[str, str]] = {}
        self.tails: dict[int, set[tuple[str, ...]]] | None = None  # read at the first use
        self.runs = {s.doc_id: resolve.path_runs(posixpath.splitext(s.path)[0]) for s in symbols}

    def candidates(self, doc_id: int, name: str) -> list[graph.GraphSymbol]:
        if self.tails is None:
            conn, dialect = self.store.conn, self.store.dialect
            self.files = graph.documents(conn, dialect, self.doc_ids)
            self.tails = {}
            for used, modules in graph.file_imports(conn, dialect, self.doc_ids).items():
                directory = posixpath.dirname(self.files.get(used, ("", ""))[0])
                self.tails[used] = {
                    segments[i:]
                    for module in modules
                    if (segments := resolve.module_segments(module, directory))
                    for i in range(len(segments))
                }
        path, language = self.files.get(doc_id, ("", ""))
        directory = posixpath.dirname(path)
        tails = self.tails.get(doc_id, set())
        return [
            s
            for s in self.named.get((language, name), ())
            if posixpath.dirname(s.path) == directory or not tails.isdisjoint(self.runs[s.doc_id])
        ]


def _prior(s: graph.GraphSymbol) -> float:
    """A symbol's weight in the random walk's restarts: a package's public, documented,
    top-level names are what a maintainer names first; test code is what they name last."""
    weight = 1.0
    if _is_test_file(s.path):
        return weight
    if _is_public(s):
        weight *= PUBLIC_WEIGHT
        if not s.parent:
            weight *= TOP_LEVEL_WEIGHT
        if s.docstring:
            weight *= DOCUMENTED_WEIGHT
    return weight


def _is_public(s: graph.GraphSymbol) -> bool:
    if not s.name or s.name.startswith("_"):
        return False
    if s.language == "go":
        return s.name[0].isupper()
    signature = s.signature or ""
    if s.language == "rust":  # `pub`, not `pub(crate)`
        return re.match(r"\s*pub\b(?!\s*\()", signature) is not None
    return re.search(r"\b(private|internal|protected)\b", signature) is None


_TEST_DIRECTORIES = frozenset({"test", "tests", "testdata", "testing", "__tests__"})


def _is_test_file(path: str) -> bool:
    parts = path.split("/")
    stem = posixpath.splitext(parts[-1])[0]
    return (
        stem.endswith(("_test", "_tests", ".test", ".spec"))
        or stem.startswith("test_")
        or not _TEST_DIRECTORIES.isdisjoint(parts[:-1])
    )


def _restart(
    symbols: list[graph.GraphSymbol], size: int, focus: str | None, file_node: dict[int, int]
) -> np.ndarray:
    # Symbols by their prior; the map's files and the outside files that use it count 1.
    prior = np.ones(size)
    prior[: len(symbols)] = [_prior(s) for s in symbols]
    prior /= prior.sum()
    if not focus:
        return prior
    wanted = focus.replace("::", ".")
    chosen = [i for i, s in enumerate(symbols) if s.name == wanted or s.qualified_name == wanted]
    if not chosen:  # a file: its path, its end (`repomap.py`) or a glob
        docs = {
            s.doc_id
            for s in symbols
            if s.path == focus
            or s.path.endswith("/" + focus.lstrip("/"))
            or fnmatch.fnmatchcase(s.path, focus)
        }
        chosen = [i for i, s in enumerate(symbols) if s.doc_id in docs]
        chosen += [file_node[d] for d in docs]
    if not chosen:
        raise UsageError(
            f"the focus '{focus}' names no symbol and no file of the map; give a symbol "
            f"name (Lexer, Lexer.next) or a path (src/lexer.py, *lexer*)"
        )
    focused = np.zeros(size)
    focused[chosen] = 1.0 / len(chosen)
    return np.asarray(FOCUS_SHARE * focused + (1 - FOCUS_SHARE) * prior)


def _signature(s: graph.GraphSymbol) -> str:
    text = " ".join((s.signature or f"{s.kind} {s.qualified_name}").split())
    return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"


def _entry_line(s: graph.GraphSymbol) -> str:
    return f"  {s.line}: {_signature(s)}"


def _fit(
    symbols: list[graph.GraphSymbol], ranks: np.ndarray, budget: int, focus: str | None
) -> dict[str, Any]:
    order = sorted(range(len(symbols)), key=lambda i: (-ranks[i], symbols[i].path, i))
    used = 0
    chosen: dict[str, list[int]] = {}
    file_order: list[str] = []
    left_out = 0
    for i in order:
        s = symbols[i]
        cost = count_tokens(_entry_line(s))
        if s.path not in chosen:
            cost += count_tokens(f"{s.path}:")
        if used + cost > budget:
            left_out += 1
            continue
        used += cost
        if s.path not in chosen:
            chosen[s.path] = []
            file_order.append(s.path)
        chosen[s.path].append(i)
    lines: list[str] = []
    entries: list[dict[str, Any]] = []
    for path in file_order:
        lines.append(f"{path}:")
        for i in sorted(chosen[path], key=lambda i: (symbols[i].line, i)):
            s = symbols[i]
            lines.append(_entry_line(s))
            entries.append(
                {
                    "path": s.path,
                    "name": s.name,
                    "qualified_name": s.qualified_name,
                    "kind": s.kind,
                    "signature": _signature(s),
                    "line": s.line,
                    "end_line": s.end_line,
                    "location": f"{s.path}:{s.line}-{s.end_line}"
                    if s.end_line > s.line
                    else f"{s.path}:{s.line}",
                    "rank": round(float(ranks[i]), 8),
                }
            )
    text = "\n".join(lines) + ("\n" if lines else "")
    tokens = count_tokens(text)
    assert tokens == used <= budget  # line costs add up: a token never spans two lines
    return {
        "text": text,
        "tokens": tokens,
        "budget": budget,
        "focus": focus,
        "files": file_order,
        "symbols": entries,
        "left_out": left_out,
        "note": None,
    }
