"""One tree-sitter query cursor pass serves symbols and references (`query_matches`).

The shared pass is a CPU optimisation only: per fixture file of every language, the
outline and the references it gives equal those of each query run on its own (the
reference query compiled alone, as `code_refs` does without `matches`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tree_sitter import Query, QueryCursor

from docql_sqlite.ingest import code_refs, code_symbols
from docql_sqlite.ingest.grammars import get_language, get_parser, language_for_extension

CODE = Path(__file__).resolve().parents[1] / "datasets" / "code"
FILES = sorted(
    p for p in CODE.rglob("*") if p.is_file() and language_for_extension(p.suffix) is not None
)


def test_every_language_has_a_fixture_file() -> None:
    languages = {language_for_extension(p.suffix) for p in FILES}
    assert len(languages) >= 10, languages


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CODE)))
def test_shared_pass_equals_separate_queries(path: Path) -> None:
    language = language_for_extension(path.suffix)
    assert language is not None and code_symbols.has_query(language)
    src = path.read_bytes()
    root = get_parser(language).parse(src).root_node
    lines = src.count(b"\n") + 1
    symbol_matches, ref_matches = code_symbols.query_matches(root, language)
    compiled = code_symbols._query(language)
    # the symbol patterns come first, then exactly the reference query's patterns
    alone = code_refs._query(language)
    assert compiled.query.pattern_count == compiled.symbol_patterns + alone.pattern_count
    assert len(ref_matches) == len(QueryCursor(alone).matches(root))

    shared = code_symbols.extract_outline(root, src, language, lines, symbol_matches)
    name = code_symbols._QUERY_FILE.get(language, language)
    symbols_alone = Query(
        get_language(language), (code_symbols._QUERIES / f"{name}.scm").read_text("utf-8")
    )
    separate = code_symbols.extract_outline(
        root, src, language, lines, QueryCursor(symbols_alone).matches(root)
    )
    assert shared == separate and shared, path

    refs_shared = code_refs.extract_references(root, src, language, shared, ref_matches)
    refs_alone = code_refs.extract_references(root, src, language, shared)
    assert refs_shared == refs_alone and refs_shared[0], path


RUST_CALLS = """\
fn assert(x: bool) {}
fn main() {
    println!("{}", 1);
    alloc::vec![1, 2];
    assert!(true);
    assert(true);
    std::mem::drop(1);
    x.len();
    Vec::<u8>::new();
    m!(inner(1));
}
"""


def test_rust_macro_names_carry_their_bang() -> None:
    """A macro's name is told by its pattern's `macro_invocation` node, not by asking the
    name node for its parent (which tree-sitter finds by walking down from the root)."""
    src = RUST_CALLS.encode()
    root = get_parser("rust").parse(src).root_node
    symbols, refs = code_symbols.query_matches(root, "rust")
    outline = code_symbols.extract_outline(root, src, "rust", src.count(b"\n") + 1, symbols)
    found, _ = code_refs.extract_references(root, src, "rust", outline, refs)
    calls = [(r.name, r.line) for r in found if r.kind == "call"]
    assert calls == [
        ("println!", 3),
        ("vec!", 4),
        ("assert!", 5),
        ("assert", 6),
        ("drop", 7),
        ("len", 8),
        ("new", 9),
        ("m!", 10),
        ("inner", 10),  # a call among the macro's tokens
    ]


def _sweep_owners(extents: list[tuple[int, int]], starts: range) -> list[int | None]:
    """The enclosing symbol of a reference at each of `starts` (in order), as the sweep
    before `_owner_runs` found them: a stack of the symbols (by start, the longer first)
    started so far, popping those a new symbol's start ends, then those the reference's
    byte ends; the top is the owner."""
    order = sorted(range(len(extents)), key=lambda i: (extents[i][0], -extents[i][1]))
    stack: list[int] = []
    found: list[int | None] = []
    next_symbol = 0
    for start in starts:
        while next_symbol < len(order) and extents[order[next_symbol]][0] <= start:
            symbol = order[next_symbol]
            while stack and extents[stack[-1]][1] <= extents[symbol][0]:
                stack.pop()
            stack.append(symbol)
            next_symbol += 1
        while stack and extents[stack[-1]][1] <= start:
            stack.pop()
        found.append(stack[-1] if stack else None)
    return found


def _owners(extents: list[tuple[int, int]], starts: range) -> list[int | None]:
    from bisect import bisect_right

    from docql_sqlite.ingest.code_symbols import Outlined
    from docql_sqlite.model import Symbol

    outline = [
        Outlined("s", 0, 1, 1, Symbol("function", "s", "s", 1, 1, "go"), a, b) for a, b in extents
    ]
    bounds, owners = code_refs._owner_runs(outline)
    assert bounds == sorted(bounds)
    return [owners[bisect_right(bounds, start) - 1] for start in starts]


OWNER_CASES = [
    [],  # no symbol: every reference at the top level
    [(0, 100)],
    [(0, 100), (10, 20), (20, 30), (40, 90), (50, 60)],  # nested and adjacent
    [(5, 5), (5, 9), (9, 9)],  # empty extents
    [(0, 50), (0, 50), (10, 50)],  # equal extents: the later in the outline is inside
    [(0, 100), (50, 400), (60, 70)],  # not nested: a C# file-scoped namespace to the end
    [(30, 400), (0, 100), (10, 40)],  # the outline's order is not the byte order
]


@pytest.mark.parametrize("extents", OWNER_CASES)
def test_owner_runs_give_the_sweeps_caller_at_every_byte(extents: list[tuple[int, int]]) -> None:
    """`_owner_runs` flattens the outline once per file so that a reference's caller is
    one `bisect`; at every byte it must name the symbol the per-reference sweep named."""
    assert _owners(extents, range(410)) == _sweep_owners(extents, range(410))


def test_random_extents_give_the_sweeps_caller() -> None:
    import random

    rng = random.Random(23)
    for _ in range(500):
        extents = []
        for _ in range(rng.randrange(1, 8)):
            start = rng.randrange(0, 60)
            extents.append((start, start + rng.randrange(0, 40)))
        starts = range(0, 101, rng.randrange(1, 4))  # a sweep over sparse references too
        assert _owners(extents, starts) == _sweep_owners(extents, starts), extents
