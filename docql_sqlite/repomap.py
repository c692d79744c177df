"""The repository map: the most central files and symbols of the indexed code, each with
its signature, fitted to a token budget (`Index.repo_map`, `docql-sqlite map`, the MCP
tool `repo_map`; docs/repomap.md).

The rank measures what a maintainer means by an entry point: what *other* code uses.
It is PageRank over the reference graph (`query/graph.py`), with the votes weighed by
where they come from — a definition's own file barely counts, its directory half, other
directories, tests and examples in full — and half of the random walk's restarts at the
code that uses the map (its tests and examples, the files outside its paths that use
it). An `ambiguous` reference is read with the identifier in front of it: `http.Get`
is the `Get` of the package imported as `http`, `resp.Header.Get` a method, a bare
`len(x)` no method of another file; what stays undecided is spread over every
definition of its name in the index. Public names are preferred: they weigh more in the
restarts, and private and test code is listed after public code of the same rank. With
a focus (a symbol name or a file), the walk restarts at the focus most of the time
(personalised PageRank), so the map shows the focus and what it leans on.

The budget is counted in *tokens* as this module counts them (`count_tokens`: words and
single punctuation marks, a stable unit close to what a model reads), and the map never
exceeds it: entries are taken in rank order while they fit, then the next smaller ones
that still fit, so the map ends within one entry of the budget.
"""

from __future__ import annotations

import functools
import math
import posixpath
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import globs
from .errors import UsageError
from .ingest import resolve
from .module_paths import local_modules
from .path_kinds import is_test_or_example, is_test_support
from .query import graph
from .ref_codes import ENUM_MEMBER, FITS, MACRO

if TYPE_CHECKING:
    from .store import Store

DEFAULT_BUDGET = 1024
MAX_BUDGET = 100_000
DAMPING = 0.85
ITERATIONS = 50
FOCUS_SHARE = 0.9  # of the restart probability, given to the focus
# Half of the other restarts are at the code that uses the map (`_users`): its tests and
# examples, and the files outside its paths that use it.
USERS_SHARE = 0.5
MEMBER_WEIGHT = 0.5  # share of a member's out-weight that goes to its class
# An ambiguous reference votes less than a resolved one: `x.get()` on a dict is not a vote
# for every method named `get` in the repository.
AMBIGUOUS_WEIGHT = 0.25
# Where a use comes from (`_locality`): a definition's own file barely votes for it, its
# directory (package) half; other directories, tests and examples fully.
SAME_FILE_WEIGHT = 0.1
SAME_DIRECTORY_WEIGHT = 0.5
# The restarts' prior (`_prior`): public, top-level, documented names weigh more. Each
# factor doubles: a public documented top-level name weighs 8, a private helper 1.
PUBLIC_WEIGHT = 2.0
TOP_LEVEL_WEIGHT = 2.0
DOCUMENTED_WEIGHT = 2.0
# What of its rank a symbol shows (`_shown`): private code and tests are listed after the
# public code that ranks as high.
PRIVATE_SHOWN = 0.25
TEST_SHOWN = 0.1
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
    # C/C++ macros are the preprocessor's vocabulary, not the code's structure: attribute
    # words (`BROTLI_INLINE`, `BROTLI_DEC_API`) and helpers used by every declaration,
    # which held the first ten places of Brotli's map above every function and type. An
    # enum's members are read with their enum.
    everything = [
        s for s in graph.symbols(store.conn, store.dialect) if s.kind not in (MACRO, ENUM_MEMBER)
    ]
    symbols = [s for s in everything if _selected(s.path, paths)]
    if not symbols:  # an empty map (a documents-only index), saying why
        where = f" under {', '.join(paths)}" if paths else ""
        result = _fit([], np.zeros(0), budget, focus)
        result["note"] = f"no code symbols{where} in this index: index source files first"
        return result
    ranks = _rank(store, paths, symbols, everything, focus)
    return _fit(symbols, ranks, budget, focus)


# One test per glob for the whole map (it is asked once per symbol and use).
_glob = functools.lru_cache(maxsize=64)(globs.matcher)


def _selected(path: str, patterns: tuple[str, ...]) -> bool:
    """Whether `path` is under one of `patterns`: a directory or file path (a prefix), or
    a glob in the dialect of every other filter (`globs`: `*` stays within a directory,
    `**` spans them; fnmatch's `*` crossed `/`)."""
    if not patterns:
        return True
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            if _glob(pattern)(path):
                return True
        else:
            prefix = pattern.rstrip("/")
            if path == prefix or path.startswith(prefix + "/") or not prefix:
                return True
    return False


def _rank(
    store: Store,
    paths: tuple[str, ...],
    symbols: list[graph.GraphSymbol],
    everything: list[graph.GraphSymbol],
    focus: str | None,
) -> np.ndarray:
    n = len(symbols)
    index_of_id = {s.id: i for i, s in enumerate(symbols)}
    index_of_ord: dict[tuple[int, int | None], int] = {
        (s.doc_id, s.ord): i for i, s in enumerate(symbols)
    }
    docs = sorted({s.doc_id for s in symbols})
    file_node = {doc_id: n + i for i, doc_id in enumerate(docs)}
    conn, dialect = store.conn, store.dialect
    counts = graph.reference_counts(conn, dialect)
    reach = _Reach(store, symbols, everything, {row[0] for row in counts})
    # Every file is a node too (after the symbols), for its top-level code: those with
    # symbols first, the others as their uses are met. A file outside the map's paths that
    # uses it is one of those: the rest of the index votes for the entry points it calls.
    outside: set[int] = set()

    def node_of(doc_id: int, inside: bool) -> int:
        node = file_node.get(doc_id)
        if node is None:
            node = file_node[doc_id] = n + len(file_node)
            if not inside:
                outside.add(node)
        return node

    in_paths = dict.fromkeys(file_node, True)
    edges: dict[tuple[int, int], float] = defaultdict(float)
    for use in _uses_of(store, counts, None if len(symbols) == len(everything) else symbols):
        inside = in_paths.get(use.doc_id)
        if inside is None:
            inside = in_paths[use.doc_id] = _selected(reach.path(use.doc_id), paths)
        if use.target_id is None:  # ambiguous: what it may mean, and each one's share
            meant, each = reach.targets(use, inside)
            targets = [index_of_id[s.id] for s in meant]
        else:
            target = index_of_id.get(use.target_id)
            targets, each = ([target] if target is not None else []), 1.0
        if not targets:
            continue
        source = index_of_ord.get((use.doc_id, use.caller_ord))
        if source is None:
            source = node_of(use.doc_id, inside)
        source_path = reach.path(use.doc_id)
        repeated = _repeated(use.times)
        for target in targets:
            if target != source:
                where = _locality(source_path, symbols[target].path)
                edges[(source, target)] += where * each * repeated
    size = n + len(file_node)
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
    # A node hands on its rank in proportion to its votes, all of it once they weigh one
    # use from elsewhere: a helper that only its own file calls gets a tenth of what that
    # caller holds, the rest goes back to the restarts.
    totals = np.bincount(src, weights=weights, minlength=size)
    share = weights / np.maximum(totals[src], 1.0) if len(weights) else weights
    users = _users(symbols, size, file_node, outside, reach)
    visible = _Visibility(symbols, _exports(store, symbols))
    restart = _restart(symbols, size, focus, file_node, users, visible)
    rank = restart.copy()
    for _ in range(ITERATIONS):
        flow = np.bincount(dst, weights=share * rank[src], minlength=size)
        kept = max(0.0, 1.0 - float(flow.sum()))  # not handed on: back to the restarts
        new = (1 - DAMPING) * restart + DAMPING * (flow + kept * restart)
        if np.abs(new - rank).sum() < 1e-10:
            rank = new
            break
        rank = new
    shown = np.array([_shown(s, visible) for s in symbols])
    return np.asarray(rank[:n] * shown)


class _Use(NamedTuple):
    """References grouped: `times` uses of `name` from one caller. Resolved ones carry
    their `target_id`; ambiguous ones (`target_id` None) their number of `candidates`
    in the index and their `qualifier` (`http` in `http.Get`, "" for a bare name)."""

    doc_id: int
    caller_ord: int | None
    name: str
    kind: str
    target_id: int | None
    times: int
    candidates: int = 0
    qualifier: str = ""


def _uses_of(
    store: Store,
    counts: list[tuple[int, int | None, str, str, int | None, str, int]],
    symbols: list[graph.GraphSymbol] | None,
) -> list[_Use]:
    """Every use that may vote: the resolved ones grouped as `reference_counts` reads
    them; the ambiguous ones (of the names of `symbols`, or all) one by one, with the
    identifier before them, then grouped again by it."""
    uses = [
        _Use(doc_id, caller, name, kind, target, count)
        for doc_id, caller, name, kind, target, resolution, count in counts
        if resolution != "ambiguous" and target is not None
    ]
    names = None if symbols is None else sorted({s.name for s in symbols})
    grouped: dict[tuple[int, int | None, str, str, int, str], int] = defaultdict(int)
    for doc_id, caller, name, kind, candidates, before in graph.ambiguous_uses(
        store.conn, store.dialect, names
    ):
        grouped[(doc_id, caller, name, kind, candidates, _qualifier(before))] += 1
    uses += [
        _Use(doc_id, caller, name, kind, None, count, candidates, qualifier)
        for (doc_id, caller, name, kind, candidates, qualifier), count in grouped.items()
    ]
    return uses


# `pkg.Name`, `pkg::Name`, `value.Name`, `value->Name`: the identifier before the last
# separator in front of a reference.
_QUALIFIER = re.compile(r"(\w+)\s*(?:\.|::|->)\s*$")


def _qualifier(before: str) -> str:
    """`_QUALIFIER`'s identifier in the text before a use, or "". Most uses are bare names:
    a line that does not end in a separator is decided without the regex, which would try
    every position of the line."""
    stripped = before.rstrip()
    if not stripped or stripped[-1] not in ".:>":
        return ""
    found = _QUALIFIER.search(before)
    return found.group(1) if found else ""


def _repeated(count: int) -> float:
    """A caller's votes for one target grow with the log of how often it uses it: thirty
    calls to one helper are one dependency, not thirty."""
    return 1.0 + math.log(count)


def _locality(source: str, target: str) -> float:
    """How much a use from the file `source` says about a definition in `target`: little
    from its own file, half from its own directory (package), fully from elsewhere and
    from tests and examples (they use the public API, wherever they lie)."""
    if source == target:
        return SAME_FILE_WEIGHT
    if is_test_or_example(source):
        return 1.0
    if _directory(source) == _directory(target):
        return SAME_DIRECTORY_WEIGHT
    return 1.0


# The per-path and per-name helpers below run for every use of a large repository (Go's
# src/: ~1.2M times each); remembered, the whole map takes a third of the time. Bounded:
# an MCP server maps many indexes in one process.
@functools.lru_cache(maxsize=131072)
def _directory(path: str) -> str:
    return posixpath.dirname(path)


class _Reach:
    """Which of the map's definitions an `ambiguous` use may mean.

    - With a qualifier that is the local name of a module the using file imports
      (`http` for `"net/http"`, `json`, `fs` for `std::fs`, `decoder` for
      `from json import decoder`), and the index has that module's files: the module's
      top-level definitions of the name, decided (`http.Get` is net/http's `Get`, never
      `Header.Get`); none when the map does not hold it.
    - With another qualifier (a value, a type, `self`): the members of that name, those of
      a class named like the qualifier first (`resp.Header.Get` → `Header.Get`,
      `Vec::new` → `Vec.new`).
    - Then, as for a bare name, those in a file the using file imports or in its own
      directory (a Go package); from outside the map's paths a use that reaches none of
      them is no vote (`x.Get()` somewhere says nothing about this package's `Get`), from
      inside it is spread over every definition of the name.
    Always of a kind that fits the use (a type use never means a function)."""

    def __init__(
        self,
        store: Store,
        symbols: list[graph.GraphSymbol],
        everything: list[graph.GraphSymbol],
        doc_ids: set[int],
    ) -> None:
        self.store = store
        self.named = graph.by_name(symbols)
        self.doc_ids = doc_ids
        self.files: dict[int, tuple[str, str]] = {}
        self.tails: dict[int, set[tuple[str, ...]]] = {}
        self.modules: dict[int, dict[str, tuple[str, ...]]] = {}
        self.loaded = False
        paths = {s.doc_id: s.path for s in symbols}
        self.runs = {doc: resolve.path_runs(posixpath.splitext(p)[0]) for doc, p in paths.items()}
        self.directory = {doc: posixpath.dirname(p) for doc, p in paths.items()}
        # A module's files: those whose directory, or path without its extension, ends
        # with the module's segments (`net/http` → net/http/*.go, `json.decoder` →
        # json/decoder.py); over the whole index, to tell a module from a type. Kept by
        # the last segment (both module paths of every file), each tail a module asks for
        # matched when asked (`_module`): every tail of every file made ~700k tuples at
        # 279 MB (0.9 s of a map), of which a map asks for a few hundred.
        self.by_last_part: dict[str, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
        self.all_paths = {s.doc_id: s.path for s in everything}
        self.module_cache: dict[tuple[str, ...], set[int] | None] = {}
        self.decided: dict[
            tuple[int, str, str, str, int, bool], tuple[list[graph.GraphSymbol], float]
        ] = {}
        for doc_id, path in self.all_paths.items():
            for parts in _module_paths(path):
                if parts:
                    self.by_last_part[parts[-1]].append((doc_id, parts))

    def path(self, doc_id: int) -> str:
        self._load()
        return self.files.get(doc_id, ("", ""))[0]

    def _load(self) -> None:
        if self.loaded:
            return
        self.loaded = True
        conn, dialect = self.store.conn, self.store.dialect
        self.files = graph.documents(conn, dialect, self.doc_ids)
        for used, imported in graph.file_imports(conn, dialect, self.doc_ids).items():
            directory = posixpath.dirname(self.files.get(used, ("", ""))[0])
            tails: set[tuple[str, ...]] = set()
            for module, _names, _alias in imported:
                segments = resolve.module_segments(module, directory)
                tails.update(segments[i:] for i in range(len(segments)))
            self.tails[used] = tails
            # the names the imports bind, as the resolution pass reads them
            # (`from json import decoder`, `use std::{fs, io}`)
            self.modules[used] = local_modules(
                imported, directory, self.files.get(used, ("", ""))[1]
            )

    def targets(self, use: _Use, inside: bool) -> tuple[list[graph.GraphSymbol], float]:
        """The definitions an ambiguous use may mean, and the weight each one gets of it
        (the same for every use of a file with the same name, kind and qualifier: the
        callers of one file differ only in the source node)."""
        key = (use.doc_id, use.name, use.kind, use.qualifier, use.candidates, inside)
        known = self.decided.get(key)
        if known is None:
            known = self.decided[key] = self._targets(use, inside)
        return known

    def _targets(self, use: _Use, inside: bool) -> tuple[list[graph.GraphSymbol], float]:
        self._load()
        doc_id, name, qualifier = use.doc_id, use.name, use.qualifier
        path, language = self.files.get(doc_id, ("", ""))
        fits = FITS.get(use.kind)
        named = [s for s in self.named.get((language, name), ()) if fits is None or s.kind in fits]
        if qualifier:
            module = self.modules.get(doc_id, {}).get(qualifier)
            files = self._module(module) if module else None
            if files:  # decided: `http.Get` is the module's own `Get`, or not the map's
                found = [s for s in named if not s.parent and s.doc_id in files]
                return found, 1.0 / max(len(found), 1)
            members = [s for s in named if s.parent]
            own = [s for s in members if _last(s.parent or "") == qualifier]
            if own:
                reached = self._near(doc_id, path, own) or (own if inside else [])
                return reached, AMBIGUOUS_WEIGHT / max(len(reached), 1)
            named = members or named
        else:
            # A bare name is no member of a class in another file (`len(x)` does not call
            # `connLRU.len`), and means its own package's definition when it has one.
            named = [s for s in named if not s.parent or s.doc_id == doc_id]
            directory = posixpath.dirname(path)
            here = [s for s in named if self.directory[s.doc_id] == directory]
            if here:
                return here, AMBIGUOUS_WEIGHT / len(here)
        # Nothing decides it: the use is spread over every definition of its name in the
        # index (`candidates`), and the map's definitions get their share of that.
        reached = self._near(doc_id, path, named) or (named if inside else [])
        return reached, AMBIGUOUS_WEIGHT / max(use.candidates, len(reached), 1)

    def _module(self, segments: tuple[str, ...]) -> set[int] | None:
        if segments not in self.module_cache:
            self.module_cache[segments] = None
            for i in range(len(segments)):  # the longest tail the index has files for
                tail = segments[i:]
                files = {
                    doc_id
                    for doc_id, parts in self.by_last_part.get(tail[-1], ())
                    if parts[-len(tail) :] == tail
                }
                if files:  # a test fixture is not what an import means, unless only it is
                    code = {f for f in files if not is_test_or_example(self.all_paths[f])}
                    self.module_cache[segments] = code or files
                    break
        return self.module_cache[segments]

    def _near(
        self, doc_id: int, path: str, named: list[graph.GraphSymbol]
    ) -> list[graph.GraphSymbol]:
        directory = posixpath.dirname(path)
        tails = self.tails.get(doc_id, set())
        return [
            s
            for s in named
            if self.directory[s.doc_id] == directory or not tails.isdisjoint(self.runs[s.doc_id])
        ]


def _module_paths(path: str) -> list[tuple[str, ...]]:
    """The module paths a file answers to: its directory (a Go or Python package) and its
    path without the extension (a Python module, a Rust file module)."""
    stem = posixpath.splitext(path)[0]
    directory = posixpath.dirname(path)
    return [tuple(p for p in directory.split("/") if p), tuple(p for p in stem.split("/") if p)]


@functools.lru_cache(maxsize=131072)
def _last(qualified: str) -> str:
    return _SEPARATOR.split(qualified)[-1]


_SEPARATOR = re.compile(r"\.|::")


def _prior(s: graph.GraphSymbol, visible: _Visibility) -> float:
    """A symbol's weight in the random walk's restarts: a package's public, documented,
    top-level names are what a maintainer names first; test code is what they name last."""
    weight = 1.0
    if is_test_or_example(s.path):
        return weight
    if visible(s):
        weight *= PUBLIC_WEIGHT
        if not s.parent:
            weight *= TOP_LEVEL_WEIGHT
        if s.docstring:
            weight *= DOCUMENTED_WEIGHT
    return weight


def _shown(s: graph.GraphSymbol, visible: _Visibility) -> float:
    """What of its rank a symbol shows: a map lists the public code first, then the
    private, then the tests (which vote for the entry points, but nobody calls them) and
    the code that serves them (`is_test_support`: SQLAlchemy's `testing/` package, whose
    `combinations`, `fixture` and `TestBase` thousands of tests use, came first in the
    map of its sdist, before `Session` and `select`)."""
    if is_test_or_example(s.path) or is_test_support(s.path):
        return TEST_SHOWN
    return 1.0 if visible(s) else PRIVATE_SHOWN


class _Visibility:
    """Public: by the language's rule for the name (`_is_public`); at the top level of a
    module that declares its API, only what it declares (`_exports`); a member only when
    its class is public too (`fakeLocker.Unlock` is not Go's public API)."""

    def __init__(
        self, symbols: list[graph.GraphSymbol], exports: dict[int, frozenset[str]]
    ) -> None:
        self.by_qualified = {(s.doc_id, s.qualified_name): s for s in symbols}
        self.exports = exports

    def __call__(self, s: graph.GraphSymbol) -> bool:
        if not _is_public(s) or _is_deprecated(s):
            return False
        if not s.parent:
            declared = self.exports.get(s.doc_id)
            return declared is None or s.name in declared
        parent = self.by_qualified.get((s.doc_id, s.parent))
        return parent is None or self(parent)


def _exports(store: Store, symbols: list[graph.GraphSymbol]) -> dict[int, frozenset[str]]:
    """The names each Python, TypeScript or JavaScript file of the map declares as its
    API, for the files that declare one: a Python module's `__all__`; an ES module's
    `export`ed declarations, `export { a, b as c }` lists and `export default a`; a
    CommonJS module's `exports.a =` and `module.exports = { a, b }`. A file that declares
    none (a script, a module without `__all__`) is left to the name rule."""
    language_of = {s.doc_id: s.language for s in symbols if s.language in _DECLARES_EXPORTS}
    texts = graph.file_texts(store.conn, store.dialect, sorted(language_of))
    out: dict[int, frozenset[str]] = {}
    for doc_id, text in texts.items():
        python = language_of[doc_id] == "python"
        names = _python_all(text) if python else _es_exports(text)
        if names is not None:
            out[doc_id] = names
    return out


_DECLARES_EXPORTS = frozenset({"python", "typescript", "tsx", "javascript"})
_ALL_ASSIGNED = re.compile(r"^__all__\s*(?::[^=\n]*)?\+?=\s*(.?)", re.MULTILINE)
_ALL_LITERAL = re.compile(r"^__all__\s*(?::[^=\n]*)?\+?=\s*[\[(]([^\])]*)[\])]", re.MULTILINE)
_QUOTED = re.compile(r"""['"]([\w.]+)['"]""")
_ES_DECLARED = re.compile(
    r"^[ \t]*export\s+(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:function\s*\*?|class|interface|type|enum|const|let|var|namespace|module)\s+([\w$]+)",
    re.MULTILINE,
)
_ES_LIST = re.compile(r"^[ \t]*export\s+(?:type\s+)?\{([^}]*)\}", re.MULTILINE)
_ES_DEFAULT = re.compile(r"^[ \t]*export\s+default\s+([\w$]+)\s*;?[ \t]*$", re.MULTILINE)
_CJS_NAMED = re.compile(r"(?<![\w$.])(?:module\.)?exports\.([\w$]+)\s*=(?!=)")
_CJS_OBJECT = re.compile(r"(?<![\w$.])module\.exports\s*=\s*(?:\{([^}]*)\}|([\w$]+))")
_IDENTIFIER = re.compile(r"[\w$]+")


def _python_all(text: str) -> frozenset[str] | None:
    """The names of a module's `__all__`, when it is written as literal lists (`= [...]`,
    `+= (...)`); None when it has none, or builds one another way."""
    assigned = _ALL_ASSIGNED.findall(text)
    if not assigned or any(start not in "[(" for start in assigned):
        return None
    return frozenset(
        name for found in _ALL_LITERAL.findall(text) for name in _QUOTED.findall(found)
    )


def _es_exports(text: str) -> frozenset[str] | None:
    names = set(_ES_DECLARED.findall(text)) | set(_ES_DEFAULT.findall(text))
    for listed in _ES_LIST.findall(text):  # `a`, `a as b`: the local name is `a`
        names.update(
            found.group(0)
            for item in listed.split(",")
            if (found := _IDENTIFIER.search(item.strip().removeprefix("type ")))
        )
    if not names:  # CommonJS: `exports.a = …`, `module.exports = { a, b: c }` or `= a`
        names.update(_CJS_NAMED.findall(text))
        for braces, single in _CJS_OBJECT.findall(text):
            names.update([single] if single else _object_values(braces))
    return frozenset(names) or None


def _object_values(braces: str) -> list[str]:
    """The local names an object literal exports: `a` of `a`, `c` of `b: c`."""
    values = []
    for item in braces.split(","):
        found = _IDENTIFIER.findall(item.split(":")[-1])
        if found:
            values.append(found[0])
    return values


# A doc comment that declares its symbol deprecated: a line that opens with the word (Go's
# "Deprecated: use X" paragraph, Python's "Deprecated, use X" or "Deprecated." docstrings),
# JSDoc's and Javadoc's `@deprecated`, Sphinx's `.. deprecated::`; or a signature carrying
# Java's `@Deprecated` or Rust's `#[deprecated]`.
_DEPRECATED_DOC = re.compile(r"^[ \t*/#]*(?:\.\.\s*|@)?deprecated\b", re.IGNORECASE | re.MULTILINE)
_DEPRECATED_SIGNATURE = re.compile(r"@Deprecated\b|#\[deprecated\b")


def _is_deprecated(s: graph.GraphSymbol) -> bool:
    """Deprecated API is no entry point: an agent reading the map should not be sent to
    it (Go's `httputil.ClientConn`: "Deprecated: Use the Client or Transport in package
    net/http instead"). It is listed with the private code."""
    return bool(
        (s.docstring and _DEPRECATED_DOC.search(s.docstring))
        or (s.signature and _DEPRECATED_SIGNATURE.search(s.signature))
    )


def _is_public(s: graph.GraphSymbol) -> bool:
    if not s.name or s.name.startswith("_"):
        return False
    if s.language == "go":
        return s.name[0].isupper()
    signature = s.signature or ""
    if s.language == "rust":  # `pub`, not `pub(crate)`
        return re.match(r"\s*pub\b(?!\s*\()", signature) is not None
    return re.search(r"\b(private|internal|protected)\b", signature) is None


def _users(
    symbols: list[graph.GraphSymbol],
    size: int,
    file_node: dict[int, int],
    outside: set[int],
    reach: _Reach,
) -> np.ndarray:
    """The code that uses the map, one unit per file: each file outside the map's paths
    that uses it, and each test or example file of the map, spread over its symbols and
    its top level."""
    users = np.zeros(size)
    users[sorted(outside)] = 1.0
    nodes: dict[int, list[int]] = defaultdict(list)
    for i, s in enumerate(symbols):
        if is_test_or_example(s.path):
            nodes[s.doc_id].append(i)
    for doc_id, node in file_node.items():
        if node not in outside and doc_id not in nodes:
            if is_test_or_example(reach.path(doc_id)):  # top-level code only
                nodes[doc_id] = []
    for doc_id, members in nodes.items():
        members.append(file_node[doc_id])
        users[members] += 1.0 / len(members)
    return users


def _restart(
    symbols: list[graph.GraphSymbol],
    size: int,
    focus: str | None,
    file_node: dict[int, int],
    users: np.ndarray,
    visible: _Visibility,
) -> np.ndarray:
    # Symbols by their prior; the map's files and the outside files that use it count 1.
    prior = np.ones(size)
    prior[: len(symbols)] = [_prior(s, visible) for s in symbols]
    prior /= prior.sum()
    if users.sum() > 0:  # a share of the walks start at the code that uses the map
        prior = (1 - USERS_SHARE) * prior + USERS_SHARE * users / users.sum()
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
            or (any(c in focus for c in "*?[") and _glob(focus)(s.path))
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
    text = compact_signature(s.signature or f"{s.kind} {s.qualified_name}")
    return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"


# A string literal of a signature longer than this is shown as `"…"` in a map: FastAPI's
# parameters carry their documentation (`path: Annotated[str, Doc("""The URL path …""")]`),
# and its `get` spent the map's 200 characters on the first parameter's prose. (A stored
# signature may end inside one: it is cut at its own length.)
LONG_LITERAL = 24
_LITERAL = re.compile(
    r'"""[\s\S]*?(?:"""|$)|\'\'\'[\s\S]*?(?:\'\'\'|$)|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
    r"|`[^`]*`"
)
# Blanks after an opening bracket and before a closing one, and a trailing comma before
# it: a signature written over several lines, joined (`get( self, path, )`).
_INNER_BLANKS = re.compile(r"(?<=[(\[{])\s+|,?\s+(?=[)\]}])|,(?=[)\]}])")


def compact_signature(signature: str) -> str:
    """`signature` on one line, as a map shows it: its long string literals as `"…"`,
    blanks joined, none inside brackets, no trailing comma."""
    text = _LITERAL.sub(
        lambda m: m.group(0) if len(m.group(0)) <= LONG_LITERAL else '"…"', signature
    )
    return _INNER_BLANKS.sub("", " ".join(text.split()))


def _entry_line(s: graph.GraphSymbol, depth: int = 0) -> str:
    return f"  {'  ' * depth}{s.line}: {_signature(s)}"


def _depths(shown: list[graph.GraphSymbol]) -> list[int]:
    """How many of its enclosing symbols each entry of a file's block has above it in the
    block (`Flask.test_client` under `Flask`, `Builder.new` — Rust's `impl Builder` —
    under `struct Builder`): it is indented that many steps, so a method whose signature
    does not name its class (`def get(self, key)`, `pub fn new() -> Builder`) reads as
    the class's. Blanks cost no tokens (`count_tokens`), so the budget is unchanged."""
    seen: set[str] = set()
    depths = []
    for s in shown:
        parts = s.qualified_name.split(".")
        depths.append(sum(".".join(parts[:n]) in seen for n in range(1, len(parts))))
        seen.add(s.qualified_name)
    return depths


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
        line = _entry_line(s)
        # Each run of non-space characters holds a token at least: once the budget is
        # nearly spent, most entries are ruled out by that count, without the regex.
        if used + len(line.split()) > budget:
            left_out += 1
            continue
        cost = count_tokens(line)
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
        block = sorted(chosen[path], key=lambda i: (symbols[i].line, i))
        for i, depth in zip(block, _depths([symbols[i] for i in block])):
            s = symbols[i]
            lines.append(_entry_line(s, depth))
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
