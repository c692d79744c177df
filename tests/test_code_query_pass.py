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
    ]
