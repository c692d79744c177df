"""Reciprocal Rank Fusion in Python, for searches made of several queries (smart, typed).

Hybrid search fuses its two lists in SQL (`sqlbuild.py`); smart search and typed query
documents run several lists whose number depends on the input, so they fuse here with
the same formula: score(chunk) = Σ weight_list x weight_row / (k + rank_in_list), ranks
from 1 (a row's weight is 1 unless its list says how much of the query it answers).
Ties are broken by path, then position, so the order is deterministic. Smart search
then scores each fused passage (`composite`): the RRF score first, small bonuses after.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..path_kinds import is_generated, is_legal, is_manifest, is_release_notes, is_test
from ..records import Record, field
from ..text import fold
from . import terms as search_terms
from .query_names import TITLE_NUMBER, QueryNames
from .sqlbuild import RRF_K

# Small next to one RRF rank step at the top (100 x (1/61 - 1/62) ≈ 0.026 … 1.6 for rank 1):
# they order passages the lists rank alike, they do not overturn the lists.
# The lists whose matches are code symbols, spelled as the code spells them.
CODE_NAME_LISTS = frozenset({"symbols", "code_words"})
TYPE_PRIORITY = {"symbols": 0.1, "code_words": 0.05, "headings": 0.05, "entities": 0.03}
NAME_EXACT, NAME_PREFIX = 1.0, 0.2
# The squashed BM25 term of the composite (0..1) x this: worth up to ~20 rank steps of
# one list. 0 was tried with vectors and the two halves of the FAQ sets disagreed
# (docs/benchmarks.md, third pass), so it stays.
BM25_BONUS = 0.5


class Nearness(Record):
    """How near in meaning each fused passage is to the question, as a term of the
    composite score: `weight` x (the vector list's farthest distance - the passage's),
    most for the list's nearest passage, 0 for its farthest and for a passage the list
    does not hold (a constant per search would not change the order; this keeps every
    score positive).

    Why: RRF with k = 60 hardly tells the vector list's first rank from its fifth (8/61
    against 8/65 at the strongest weight: 0.8 of the composite), while one membership in
    a lexical list is worth 1.6; so among an FAQ's sibling answers, which share their
    words, the lexical lists picked the sibling and the vector list's clear first was
    second or fourth (docs/search.md, "Nearness in meaning")."""

    weight: float
    nearest: float
    farthest: float

    def term(self, entry: Fused) -> float:
        distance = entry.lists.get("vector", {}).get("distance")
        if distance is None:
            return 0.0
        return self.weight * (self.farthest - distance)


class Agreement(Record):
    """The passages that both BM25 and the vector list rank among their first
    AGREEMENT_DEPTH, for a query that is no question (a fragment: an option's help text,
    a doc comment's sentence), each worth one more rank-1 membership (`term`).

    Why: such a query is a known item, and two channels that read it differently (its
    words, its meaning) agreeing at the top is the strongest evidence either gives. RRF
    counts it no more than a passage that three lexical lists hold for the same words
    (BM25, the exact list, the documents channel's one passage per document): on Node's
    `cli.md`, "throw an exception on deprecations" found `--throw-deprecation` first in
    BM25 and first in the vector list, and ranked it 4th, behind passages that BM25,
    the vectors and the documents channel each held lower down (docs/search.md, point
    14, "Agreement at the top")."""

    chunks: frozenset[int]

    def term(self, entry: Fused) -> float:
        return AGREEMENT_POINTS if entry.row["_chunk"] in self.chunks else 0.0


AGREEMENT_DEPTH = 3
AGREEMENT_POINTS = 100.0 / (RRF_K + 1)  # one rank-1 membership of a list of weight 1


def agreement(lists: list[Ranked]) -> Agreement | None:
    """The Agreement of the `bm25` and `vector` lists, None when either is missing or
    no passage is in the first AGREEMENT_DEPTH of both."""
    firsts = []
    for name in ("bm25", "vector"):
        ranked = next((r for r in lists if r.name == name), None)
        if ranked is None:
            return None
        firsts.append(set(_first_chunks(ranked.rows, AGREEMENT_DEPTH)))
    both = firsts[0] & firsts[1]
    return Agreement(frozenset(both)) if both else None


def _first_chunks(rows: list[dict[str, Any]], n: int) -> list[int]:
    """The first `n` distinct chunks of a list, as `rrf` ranks them."""
    out: list[int] = []
    for row in rows:
        if row["_chunk"] not in out:
            out.append(row["_chunk"])
            if len(out) == n:
                break
    return out


class Ranked(Record):
    """One named ranked list of chunk rows (each row has `_chunk`, `_path`, `_pos`)."""

    name: str
    weight: float
    rows: list[dict[str, Any]]


class Fused(Record):
    row: dict[str, Any]
    lists: dict[str, dict[str, Any]] = field(default_factory=dict)
    rrf: dict[str, float] = field(default_factory=dict)
    score: float = 0.0

    def __init__(
        self,
        row: dict[str, Any],
        lists: dict[str, dict[str, Any]] | None = None,
        rrf: dict[str, float] | None = None,
        score: float = 0.0,
    ) -> None:
        # Written out: ~90 are made per search (Record's generic __init__ costs more).
        self.row, self.score = row, score
        self.lists = {} if lists is None else lists
        self.rrf = {} if rrf is None else rrf

    @property
    def key(self) -> tuple[float, str, int]:
        return (-self.score, self.row["_path"], self.row["_pos"])


def describe(row: dict[str, Any], rank: int) -> dict[str, Any]:
    """What a list says about one row, for --explain."""
    info: dict[str, Any] = {"rank": rank}
    if row.get("_bm25") is not None:
        info["bm25"] = round(-row["_bm25"], 6)
        info["terms_matched"] = row.get("_coverage")
    if row.get("_distance") is not None:
        info["distance"] = round(row["_distance"], 6)
    if row.get("_match") is not None:
        info["match"] = row["_match"]
    if row.get("_phrase") is not None:
        info["phrase"] = row["_phrase"]
    if row.get("_pair"):
        info["class_and_member"] = True
    if row.get("_one_word"):
        info["one_word"] = True
    if row.get("_words") is not None:
        info["words_score"] = row["_words"]
    if row.get("_symbols") is not None:
        info["symbols_held"] = row["_symbols"]
    return info


def rrf(lists: list[Ranked], k: int = RRF_K) -> list[Fused]:
    """Fuse `lists` by RRF; best first, ties by path and position."""
    fused: dict[int, Fused] = {}
    for ranked in lists:
        seen: set[int] = set()
        rank = 0
        for row in ranked.rows:
            chunk = row["_chunk"]
            if chunk in seen:  # a list names a chunk once, at its best rank
                continue
            seen.add(chunk)
            rank += 1
            entry = fused.setdefault(chunk, Fused(row))
            # A row may carry its own share of the list's weight (`_weight`, 0..1): how
            # much of the query it answers (smart search's coverage and name shares);
            # the member a qualified query names counts more (`name_lists.rows`).
            contribution = ranked.weight * row.get("_weight", 1.0) / (k + rank)
            entry.lists[ranked.name] = describe(row, rank)
            entry.rrf[ranked.name] = round(contribution, 8)
            entry.score += contribution
    return sorted(fused.values(), key=lambda f: f.key)


def composite(
    entry: Fused,
    names: QueryNames,
    lexical: float = 1.0,
    nearness: Nearness | None = None,
    agreed: Agreement | None = None,
) -> float:
    """The final score of a fused passage: 100 x RRF + 0.5 x squashed BM25 + the best
    result-type priority + a bonus when a name the lists matched equals the query (1.0)
    or starts with it (0.2). Ties (in the caller's sort): path, then position.

    A weak name (one plain word of the query) answers one word: its bonus is shared
    (1/words), so a passage that covers every word can outrank a symbol named after one.
    A strong name (an identifier as typed, the words joined) gets the whole bonus.
    `lexical` (`channels.lexical_share`) scales everything but the RRF score: at 0 the
    vector list's order alone. `nearness`, when the vector list was boosted for a
    question, adds how near in meaning the passage is (`Nearness.term`); `agreed`, for a
    query that is no question, a rank-1 membership when BM25 and the vector list both
    put the passage first (`Agreement.term`)."""
    bm25 = entry.lists.get("bm25", {}).get("bm25", 0.0) or 0.0
    priority = max((TYPE_PRIORITY.get(name, 0.0) for name in entry.lists), default=0.0)
    match = 0.0
    # A query that is one qualified name: the symbols list holds only the symbols of its
    # last name under the part before it (`name_lists._qualified_symbol`), each as equal.
    qualified = names.qualified[0] if names.qualified else None
    for list_name, info in entry.lists.items():
        found = fold(str(info.get("match") or ""))
        # (a code list's match as its code spells it: `Config` asked, `config` is not it)
        share = names.weight(info.get("match"), code=list_name in CODE_NAME_LISTS)
        if info.get("one_word"):  # beside a class's member both words name
            share = min(share, 1.0 / max(1, names.words))
        if found and (found in names.equal or (list_name == "symbols" and found == qualified)):
            match = max(match, NAME_EXACT * share)
        elif found and any(found.startswith(n) for n in names.equal):
            match = max(match, NAME_PREFIX * share)
        # A heading made of a run of the question's words: its share of the question.
        match = max(match, NAME_EXACT * info.get("phrase", 0.0))
        if info.get("class_and_member"):
            # "HashMap resize": the symbol two words name together (a plain word alone,
            # `resize`, would share the bonus with the query's other words)
            match = max(match, NAME_EXACT)
    near = nearness.term(entry) if nearness is not None else 0.0
    if agreed is not None:
        near += agreed.term(entry)
    return (
        100.0 * entry.score + lexical * (BM25_BONUS * bm25 / (1.0 + bm25) + priority + match) + near
    )


# A passage of a test file (`path_kinds.is_test`: `tests/`, `test_*.py`, `*_test.go`,
# `*.spec.ts`, `FooTest.java`) counts this share of its score, unless the query asks for
# tests. Why: tests repeat the words of what they test in their names and literals
# (`test_skip_source_first_line`, `test_weakrefable`), so a question about a feature
# found them before the page that explains it ("how do I make black skip a block of
# code": the docs' "Ignoring sections" 5th behind four tests with e5-small vectors).
TEST_SHARE = 0.7
TEST_WORDS = frozenset(
    "test tests testing tested testcase unittest pytest spec specs mock mocks fixture "
    "fixtures".split()
)


def test_share(terms: list[search_terms.Term]) -> float:
    """TEST_SHARE, or 1 when a word of the query is about tests (`test_weakrefable` is:
    its tokens are test and weakrefable)."""
    asked = any(token in TEST_WORDS for t in search_terms.positives(terms) for token in t.tokens)
    return 1.0 if asked else TEST_SHARE


def without_test_names(lists: list[Ranked]) -> tuple[list[Ranked], int]:
    """`lists` without a test's symbol that is in the symbols list only for holding the
    query's name (`test_kw_only`, `KWOnlyAndDefault` for "kw_only": a contains or prefix
    match) or in the code-words list for holding its words: for a query that does not
    ask for tests (`test_share`). A test named exactly as the query stays, unless code
    outside the tests defines that name too: a test's stand-in (`class Flask(flask.Flask)`
    in Flask's `tests/test_config.py`, two lines, which BM25 prefers) ranked above the
    class "class Flask" asks for.

    Why: tests are named after what they test, so on a library with a test suite a
    question about a name that no definition bears — a parameter, an option — found only
    tests in the name lists, and their passages took every place of the first ten
    (attrs: "what does kw_only do" gave five tests before the `field` docstring that
    documents `kw_only`; the share above alone cannot lift passages that are in fewer
    lists). Returns the lists and how many rows left them."""
    out, dropped = [], 0
    for ranked in lists:
        if ranked.name == "symbols":
            library = {r["_match"] for r in ranked.rows if not is_test(r["_path"])}
            keep = [
                r
                for r in ranked.rows
                if not is_test(r["_path"])
                or (r.get("_tier", 3) >= 3 and r["_match"] not in library)
            ]
        elif ranked.name == "code_words":
            keep = [r for r in ranked.rows if not is_test(r["_path"])]
        else:
            keep = ranked.rows
        dropped += len(ranked.rows) - len(keep)
        out.append(ranked if keep is ranked.rows else Ranked(ranked.name, ranked.weight, keep))
    return out, dropped


# A passage of release notes or a changelog (`path_kinds.is_release_notes`: Django's
# `docs/releases/*.txt`, `CHANGELOG.md`, Python's `whatsnew/`) counts this share of its
# score, unless the query asks about changes or versions. Why: each entry names a
# feature in one short line that holds the question's words ("Fixes to CORS
# middleware. Add `StaticFiles(html=True)` support." first for "how do I add CORS
# middleware" on starlette, before its Middleware page), and a project with 500 release
# notes (Django) fills the first ten with them ("Some objects aren't appearing in the
# admin": three 1.x release notes first).
NOTES_SHARE = 0.7
# ... and this share for a task ("how do I X"): an entry says a way to do it was added,
# a guide says how (tokio 1.24's CHANGELOG "add a way to spawn a task with a name" was
# first for "how do I spawn a task" and "how do I cancel a task", above the module's
# guide).
TASK_NOTES_SHARE = 0.5
NOTES_WORDS = frozenset(
    "change changes changed changelog changelogs release releases released version versions "
    "deprecated deprecation deprecations removed added new news upgrade upgrading upgraded "
    "migrate migrating migration breaking history whatsnew since fixed fixes regression "
    "backward backwards compatibility incompatible".split()
)
_VERSION = re.compile(r"\d+\.\d+")


def notes_share(terms: list[search_terms.Term], task: bool = False) -> float:
    """NOTES_SHARE (TASK_NOTES_SHARE for a `task`), or 1 when the query asks about
    changes, versions or releases (one of
    NOTES_WORDS, or a version number: "what changed in 4.2"). A word of NOTES_WORDS in an
    option or a code name (`--version`, `version_option`) names a feature, not a change:
    "how to add a --version option" on click's sdist found three CHANGES.rst entries
    first. Nor does "new" in a task (`task`: "how to add a new builder" on Sphinx's
    sdist found five "Features added" entries of `doc/changes/` first)."""
    for term in search_terms.positives(terms):
        if _VERSION.search(term.text):
            return 1.0
        if term.text.startswith("-") or search_terms.is_identifier(term.text):
            continue
        tokens = set(term.tokens) - _TASK_WORDS if task else term.tokens
        if not NOTES_WORDS.isdisjoint(tokens):
            return 1.0
    return TASK_NOTES_SHARE if task else NOTES_SHARE


# NOTES_WORDS that a task says of what it makes ("how do I create a new user").
_TASK_WORDS = frozenset({"new"})

# A passage of a licence or notice file (`path_kinds.is_legal`) counts this share of its
# score unless the query asks about licensing (LEGAL_WORDS): legal text answers no other
# question, yet in a package whose only prose is a README, a changelog and its LICENSE
# the documents channel ranks it beside them ("where are events sent to JavaScript" on
# expo-modules-core: the MIT licence 4th, above the Swift event emitter).
LEGAL_SHARE = 0.5
LEGAL_WORDS = frozenset(
    "license licence licenses licences licensing licensed copyright copyrights copying "
    "copyleft patent patents warranty warranties liability trademark trademarks mit apache "
    "gpl lgpl agpl bsd mpl redistribute redistribution sublicense notice".split()
)


def legal_share(terms: list[search_terms.Term]) -> float:
    """LEGAL_SHARE, or 1 when a word of the query is about licensing (LEGAL_WORDS)."""
    return _unless_asked(terms, LEGAL_WORDS, LEGAL_SHARE)


def _unless_asked(terms: list[search_terms.Term], words: frozenset[str], kept: float) -> float:
    """`kept`, or 1 when a word of the query is one of `words` (it asks about that kind
    of file)."""
    asked = any(token in words for t in search_terms.positives(terms) for token in t.tokens)
    return 1.0 if asked else kept


# A passage of a project's manifest (`path_kinds.is_manifest`: `package.json`,
# `tsconfig.json`, …) counts this share of its score unless the query asks about what a
# manifest says (MANIFEST_WORDS): its dependencies' names hold everyday words, and the
# documents channel ranked express' `package.json` second for "how does express set the
# content type" (its `content-type` and `content-disposition` dependencies).
MANIFEST_SHARE = 0.5
MANIFEST_WORDS = frozenset(
    "dependency dependencies depend depends devdependencies peerdependencies version "
    "versions script scripts manifest manifests package json tsconfig jsconfig composer npm "
    "yarn pnpm engines exports workspace workspaces compileroptions".split()
)


def manifest_share(terms: list[search_terms.Term]) -> float:
    """MANIFEST_SHARE, or 1 when a word of the query is about what a manifest says."""
    return _unless_asked(terms, MANIFEST_WORDS, MANIFEST_SHARE)


# A passage of generated source (`path_kinds.is_generated`: protocol buffers, SWIG, moc,
# …) counts this share of its score unless the query asks about generated code: a
# generated class repeats each field's name in ten accessors (`user_defined_symbols()`,
# `set_user_defined_symbols()`, `clear_…`, `add_…`, `…_size()`), which outnumbered the
# code that uses them for every question naming the field.
GENERATED_SHARE = 0.5
GENERATED_WORDS = frozenset(
    "generated generate generator codegen protobuf protobufs proto protos protoc pb pb2 grpc "
    "swig wrapper wrappers stub stubs moc uic thrift flatbuffers designer".split()
)


def generated_share(terms: list[search_terms.Term]) -> float:
    """GENERATED_SHARE, or 1 when a word of the query is about generated code."""
    return _unless_asked(terms, GENERATED_WORDS, GENERATED_SHARE)


# A passage of a code file counts this share of its score when the question asks where
# something is explained or documented (`terms.PROSE_FRAMES`): "where are blueprints
# described" found the property `blueprints` and `iter_blueprints` before the docs' page
# on blueprints, whose names the symbols list rewards as equal to the question.
CODE_SHARE = 0.5
# A passage of a document that is not code counts this share when the question asks
# where something is implemented (`Frame.code`): FastMCP's "where is authentication
# implemented" listed six docs' sections titled "Authentication" before any code (a
# heading equal to the topic, which no symbol is: at CODE_SHARE the base class
# `AuthProvider` was still 8th, behind them). Prose still answers when no code does.
PROSE_SHARE = 0.25


def share(
    entry: Fused,
    tests: float,
    off_frame: frozenset[int] = frozenset(),
    notes: float = 1.0,
    legal: float = 1.0,
    generated: float = 1.0,
    manifest: float = 1.0,
    off_share: float = CODE_SHARE,
    foreign: frozenset[int] = frozenset(),
    foreign_share: float = 1.0,
) -> float:
    """The share of its composite score a fused passage keeps: `test_share` for a test
    file's, `notes_share` for release notes', `legal_share` for a licence's,
    `generated_share` for generated source's, `manifest_share` for a project manifest's,
    STUB_SHARE for a Python `@overload`
    signature's, `off_share` for one of the passages `off_frame` (their chunk ids: those
    of the kind a question's frame does not ask for — of code files but their
    documentation, for a question asking for prose, CODE_SHARE; of the other documents
    for one asking for code, PROSE_SHARE; empty otherwise), `foreign_share` for one of a
    document in `foreign` (their ids: written in another language than the question,
    `languages.foreign_documents`)."""
    path = entry.row["_path"]
    kept = tests if tests != 1.0 and is_test(path) else 1.0
    if notes != 1.0 and is_release_notes(path):
        kept *= notes
    if legal != 1.0 and is_legal(path):
        kept *= legal
    if generated != 1.0 and is_generated(path):
        kept *= generated
    if manifest != 1.0 and is_manifest(path):
        kept *= manifest
    if _OVERLOAD_STUB.match(entry.row["content"]):
        kept *= STUB_SHARE
    if foreign and entry.row["_doc"] in foreign:
        kept *= foreign_share
    return kept * off_share if entry.row["_chunk"] in off_frame else kept


# A passage that is a Python `@overload` signature (its body `...`; the implementation
# follows in the file) counts this share: BM25 favours its short text, so "where is
# create_engine defined" on SQLAlchemy gave a stub first and the function second.
STUB_SHARE = 0.7
_OVERLOAD_STUB = re.compile(r"\s*@(?:typing\.|t\.)?overload\s*\n")


def distinct(
    scored: list[tuple[float, Fused]],
    code_of: Callable[[set[int]], frozenset[int]] | None = None,
    section_of: Callable[[int], str] | None = None,
) -> tuple[list[tuple[float, Fused]], int]:
    """`scored` (best first) without the passages that copy a better one, and how many
    were left out. A copy is the same text at the same lines (and page) of another file,
    or the same section of the same page in another format (`_twin`), neither of them
    code (`code_of`: which of these documents are code files, asked once, when a twin
    is possible; None: no twins; `section_of`: the text of a chunk's whole section, read
    when a passage of the same page's section in another format shares too few words
    with the passage kept, chunked at other lines). Each kept passage lists the
    locations of its copies in `row["_copies"]` (`--explain` shows them).

    Why: a corpus often holds a file twice — R's refman.pdf and fullrefman.pdf (4,734
    identical passages of 11,418, page for page), a vendored library, a licence in every
    package — and each answer then took two of the ten places. A Python package's
    sources often ship its manual twice too, the reST and the HTML Sphinx built from it
    (SQLAlchemy's `doc/build/orm/backref.rst` and `doc/orm/backref.html`): "how to use a
    server side cursor" showed `connections.rst` and `connections.html` as its first two.
    The same text elsewhere in a document (a paragraph that git's manual includes in
    several commands' pages) is another place to read it, in another context: it stays
    (git's option set lost .014 R@10 when those were folded too), as does the same
    section of another page (MySQL's and PostgreSQL's "Server Side Cursors") and code
    beside the page that documents it (Django's `forms/fields.py` and the reference's
    `forms/fields.txt` share a class's section and most of its words)."""
    seen: dict[tuple[str, int, int, int | None], Fused] = {}
    by_section: dict[tuple[str, str], list[Fused]] = {}
    by_title: dict[str, list[Fused]] = {}  # a book's section in a PDF, by its title alone
    words: dict[int, frozenset[str]] = {}  # by chunk, read only for a possible twin
    sections: dict[int, frozenset[str]] = {}  # a kept chunk's whole section's words
    code: frozenset[int] | None = None
    kept: list[tuple[float, Fused]] = []
    for score, entry in scored:
        row = entry.row
        key = (row["content"], row["line"], row["end_line"], row.get("page"))
        first = seen.get(key)
        section = _page_section(row) if code_of is not None else None
        title = _book_title(section)
        pages = by_section.get(section, []) if section is not None else []
        candidates = pages
        if title is not None and title in by_title:
            # the same section of a book in another format (Debian Reference's
            # `debian-reference.en.pdf` and its `ch01.en.html`; gnuplot's manual as a PDF,
            # latex2html's `node335.html` and an Info file, "Logscale" in each)
            candidates = candidates + by_title[title]
        if first is None and candidates and code_of:
            if code is None:
                code = code_of({e.row["_doc"] for _, e in scored})
            if row["_doc"] not in code:
                first = next(
                    (
                        k
                        for k in candidates
                        if k.row["_doc"] not in code and _twin(k.row, row, words)
                    ),
                    None,
                )
            if first is None and section_of is not None and row["_doc"] not in code:
                # ... or a part of the kept passage's whole section: alembic's reST and
                # built HTML chunk "What does Autogenerate Detect" at other lines, each
                # passage .24–.29 the other's words and .96–.99 in the other's section
                first = next(
                    (
                        k
                        for k in pages
                        if k.row["_doc"] not in code
                        and _in_section(k.row, row, words, sections, section_of)
                    ),
                    None,
                )
        if first is None:
            seen[key] = entry
            if section is not None:
                by_section.setdefault(section, []).append(entry)
            if title is not None:
                by_title.setdefault(title, []).append(entry)
            kept.append((score, entry))
        else:
            first.row.setdefault("_copies", []).append(row["location"])
    return kept, len(scored) - len(kept)


# A passage holding at least this share of its words in the same section of the same
# page in another format is a copy (SQLAlchemy's reST and built HTML: .67–1.0 for one
# section's passages, chunked at other lines; MySQL's and PostgreSQL's pages share .97
# of a "Server Side Cursors" section, but they are other pages).
TWIN_SHARE = 0.6
_WORD = re.compile(r"[^\W_]+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _page_section(row: dict[str, Any]) -> tuple[str, str] | None:
    """(the file's name without its extensions, the section's title as Sphinx's smart
    quotes leave it): what the same section of a page in two formats shares."""
    title = row.get("section")
    if not title:
        return None
    name = row["_path"].rsplit("/", 1)[-1].split(".", 1)[0]
    return name, fold(str(title)).translate(_QUOTES)


def _book_title(section: tuple[str, str] | None) -> str | None:
    """A section's title without the number it prints ("1.4.7. Setting a default text
    editor" in a chapter's HTML, "Setting a default text editor" in the PDF's outline;
    "3.29.45 logscale" in gnuplot's Info file, "Logscale" in its PDF), for a book's
    section in two formats (`_twin` then asks for another extension and most of the
    words: many sections share a short title, "Note", "Examples")."""
    if section is None:
        return None
    return TITLE_NUMBER.sub("", section[1], count=1).strip() or None


def _twin(kept: dict[str, Any], row: dict[str, Any], words: dict[int, frozenset[str]]) -> bool:
    """Whether `row` is `kept`'s section in another format: another file of another
    extension, TWIN_SHARE of the smaller passage's words in both (`words`: each
    passage's words, filled as they are needed)."""
    if not _other_format(kept, row):
        return False
    pair = [_passage_words(r, words) for r in (kept, row)]
    smaller = min(len(pair[0]), len(pair[1]))
    return smaller > 0 and len(pair[0] & pair[1]) >= TWIN_SHARE * smaller


# A passage holding this share of its words in the same section of the same page in
# another format (the whole section, not one passage of it) is a copy.
SECTION_TWIN_SHARE = 0.9


def _in_section(
    kept: dict[str, Any],
    row: dict[str, Any],
    words: dict[int, frozenset[str]],
    sections: dict[int, frozenset[str]],
    section_of: Callable[[int], str],
) -> bool:
    """Whether `row` is a part of `kept`'s whole section in another format: another file
    of another extension, SECTION_TWIN_SHARE of its words in that section's (`sections`:
    each kept passage's section's words, read as they are needed)."""
    if not _other_format(kept, row):
        return False
    own = _passage_words(row, words)
    chunk = kept["_chunk"]
    if chunk not in sections:
        sections[chunk] = frozenset(_WORD.findall(fold(section_of(chunk))))
    return bool(own) and len(own & sections[chunk]) >= SECTION_TWIN_SHARE * len(own)


def _other_format(kept: dict[str, Any], row: dict[str, Any]) -> bool:
    """Another file, of another extension."""
    return kept["_path"] != row["_path"] and _extension(kept["_path"]) != _extension(row["_path"])


def _passage_words(row: dict[str, Any], words: dict[int, frozenset[str]]) -> frozenset[str]:
    """A passage's folded words, read once per chunk (`words`)."""
    if row["_chunk"] not in words:
        words[row["_chunk"]] = frozenset(_WORD.findall(fold(row["content"])))
    return words[row["_chunk"]]


def _extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.split(".", 1)[1].lower() if "." in name else ""
