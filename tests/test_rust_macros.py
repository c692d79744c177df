"""Rust items inside an item macro's braces (`rust_macros.unwrap_item_macros`): tokio's
`cfg_rt! { pub struct LocalSet { … } }` made `LocalSet` no symbol of the index.

The oracle is the same items written without their wrappers: each file parses to the
symbols (name, kind, line) and references the unwrapped text would give, at the file's
own lines — and what is not an item's wrapper (`macro_rules!`, `lazy_static!`'s `static
ref`, a statement macro in a function, a wrapper whose unwrapping reads with errors)
stays as written."""

from __future__ import annotations

import re

import pytest

from docql_sqlite.ingest.code import parse_code_text
from docql_sqlite.ingest.rust_macros import unwrap_item_macros

WRAPPED = """\
use std::cell::Cell;

cfg_rt! {
    /// A set of tasks on one thread.
    pub struct LocalSet {
        tick: Cell<u8>,
    }

    impl LocalSet {
        /// A new set.
        pub fn new() -> LocalSet {
            LocalSet { tick: Cell::new(0) }
        }

        cfg_metrics! {
            pub fn ticks(&self) -> u8 {
                self.tick.get()
            }
        }
    }
}

pin_project! {
    #[project = SleepProj]
    pub struct Sleep {
        #[pin]
        entry: TimerEntry,
    }
}

tokio::cfg_net! {
    pub struct TcpListener;
}
"""


def _symbols(text: str) -> list[tuple[str, str, int]]:
    document = parse_code_text(text, "lib.rs", "rust")
    return sorted((s.qualified_name, s.kind, s.line) for s in document.symbols)


def _written_without_wrappers(text: str) -> str:
    """The oracle's text: each wrapper's `name! {` line part and its closing `}` blanked
    by hand (the closing braces of this fixture stand alone on their lines)."""
    lines = text.split("\n")
    opened: list[int] = []
    for i, line in enumerate(lines):
        if re.match(r"\s*(?:\w+::)*\w+! \{$", line):
            opened.append(i)
            lines[i] = " " * len(line)
        elif opened and line.strip() == "}" and len(line) - 1 == _indent(lines, opened[-1]):
            opened.pop()
            lines[i] = " " * len(line)
    return "\n".join(lines)


def _indent(lines: list[str], at: int) -> int:
    return len(WRAPPED.split("\n")[at]) - len(WRAPPED.split("\n")[at].lstrip())


def test_items_inside_item_macros_are_symbols_at_their_lines() -> None:
    found = _symbols(WRAPPED)
    assert found == _symbols(_written_without_wrappers(WRAPPED))
    assert ("LocalSet", "struct", 5) in found
    assert ("LocalSet.new", "method", 11) in found
    assert ("LocalSet.ticks", "method", 16) in found
    assert ("Sleep", "struct", 25) in found
    assert ("TcpListener", "struct", 32) in found
    # the same bytes: lines and columns are the file's
    assert len(unwrap_item_macros(WRAPPED.encode())) == len(WRAPPED.encode())
    assert unwrap_item_macros(WRAPPED.encode()).count(b"\n") == WRAPPED.count("\n")


@pytest.mark.parametrize(
    "text",
    [
        # a macro's definition, `lazy_static!`'s `static ref`, a statement macro
        "macro_rules! cfg_rt {\n    ($($item:item)*) => { $( $item )* }\n}\n",
        "lazy_static! {\n    static ref NAMES: Vec<u8> = Vec::new();\n}\n",
        "fn f() {\n    cfg_rt! {\n        let x = 1;\n    }\n}\n",
        # parentheses, not braces: a call
        "cfg_rt!(pub struct A;);\n",
    ],
)
def test_what_is_no_items_wrapper_stays_as_written(text: str) -> None:
    assert unwrap_item_macros(text.encode()) == text.encode()


def test_a_wrapper_whose_unwrapping_reads_with_errors_stays_as_written() -> None:
    # a `}` in a string closes the body early for a brace count: unwrapped, the macro's
    # own `}` is left over and the text reads with an error the file as written does not
    text = (
        'cfg_rt! {\n    pub struct S { x: u8 }\n    const C: &str = "}";\n'
        "    pub fn f() {}\n}\n\nfn after() {}\n"
    )
    assert unwrap_item_macros(text.encode()) != text.encode()
    document = parse_code_text(text, "lib.rs", "rust")
    assert not document.warnings, document.warnings
    assert [s.name for s in document.symbols] == ["after"]


@pytest.mark.parametrize(
    "src",
    [
        b"x! {\npub fn a() {}\n" * 20_000 + b"}\n" * 20_000,  # nested 20,000 deep
        b"x! { /*\n" * 20_000,  # an unclosed comment after each wrapper
        b"x! { pub\n" * 20_000,  # no closing brace at all
    ],
)
def test_unwrapping_is_linear_on_hostile_text(src: bytes) -> None:
    import time

    start = time.process_time()
    unwrapped = unwrap_item_macros(src)
    assert time.process_time() - start < 2.0  # (87 s for the first before one pass)
    assert len(unwrapped) == len(src)


def test_a_macro_rules_is_a_symbol_and_its_uses_link_to_it(tmp_index) -> None:
    """tokio's `select!` was no symbol (`macro_rules! select` was not read), and its
    uses (`select!(…)`, references named `select!`) linked to nothing."""
    import docql_sqlite

    tmp_index.write_many(
        {
            "src/macros.rs": "/// Waits on several branches.\nmacro_rules! select {\n"
            "    ($($t:tt)*) => { 1 };\n}\n",
            "src/lib.rs": "pub fn run() -> u32 {\n    select!(a, b)\n}\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        macros = idx.query('$.code.symbols[?(@.kind == "macro")]')
        callers = idx.query('$.code.callers("select!").caller')
        hits = idx.search("what does select! do", limit=1)
    assert [(m["name"], m["line"]) for m in macros] == [("select", 2)]
    assert callers == ["run"]
    assert hits[0]["path"].endswith("src/macros.rs"), hits
