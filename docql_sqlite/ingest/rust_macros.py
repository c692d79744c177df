"""Rust items written inside a macro invocation, as the compiler sees them once expanded.

A Rust crate often wraps its items in a macro of its own that expands to them under a
condition: tokio writes `cfg_rt! { pub struct LocalSet { … } }` (26 `cfg_rt!`, 31
`cfg_io_util!`, 16 `cfg_metrics!`, … in its `src/`), and `pin_project! { pub struct
Sleep { … } }` derives a projection from the struct it is given. tree-sitter reads such
an invocation as a macro call with a token tree — no item inside — so `LocalSet`, the
answer to "what is a LocalSet", was no symbol of the index, and its methods belonged to
no class.

`unwrap_item_macros` turns each invocation written where items stand (a line that opens
with `name! {`) whose body starts with an item (`pub`, `fn`, `struct`, `impl`, `mod`,
`use`, an attribute, a doc comment, …) into its body: the `name! {` and its closing `}`
become spaces, every other byte and every newline stays, so lines and columns are the
file's. Not `macro_rules!` (a macro's definition), not a body a statement opens (`cfg_rt!
{ let x = …; }` inside a function), not `lazy_static!`'s `static ref` (no item syntax).
The caller parses the result and keeps the file as written when the unwrapped text reads
with errors and the file did not (`code._parse_code_text`).
"""

from __future__ import annotations

import re

# An invocation with braces at the start of a line: `cfg_rt! {`, `tokio::pin_project! {`.
_ITEM_MACRO = re.compile(
    rb"^[ \t]*((?:[A-Za-z_][A-Za-z0-9_]*::)*([A-Za-z_][A-Za-z0-9_]*)![ \t]*\{)", re.MULTILINE
)
# What an item opens with, after blanks and plain comments.
_ITEM_START = re.compile(
    rb"(?:\s|//(?![/!])[^\n]*\n|/\*(?![*!]).*?\*/)*"
    rb"(?:#!?\[|///|//!|/\*\*|/\*!|(?:pub|fn|struct|enum|union|impl|mod|use|trait|type|const"
    rb"|unsafe|async|extern)\b|static\b(?![ \t]+ref\b))",
    re.DOTALL,
)
_NOT_ITEMS = frozenset({b"macro_rules"})
# How far a body is looked for its first item past blanks and comments (an unclosed `/*`
# after each of 20,000 `x! {` lines was read to the file's end each time: 11 s for
# 160 KB).
ITEM_START_WINDOW = 1024


def unwrap_item_macros(src: bytes) -> bytes:
    """`src` with the item macros' invocations replaced by their bodies, in the same bytes
    (see the module doc); `src` itself when there is none."""
    if b"! {" not in src and b"!{" not in src:
        return src
    out: bytearray | None = None
    closes: dict[int, int] | None = None
    for found in _ITEM_MACRO.finditer(src):
        body = found.end()
        if found[2] in _NOT_ITEMS or not _ITEM_START.match(src, body, body + ITEM_START_WINDOW):
            continue
        if closes is None:
            closes = _closing_braces(src)
        end = closes.get(body - 1)
        if end is None:
            break  # unbalanced from here on: the file reads with errors either way
        if out is None:
            out = bytearray(src)
        start, stop = found.span(1)
        out[start:stop] = b" " * (stop - start)
        out[end] = ord(" ")
    return src if out is None else bytes(out)


def _closing_braces(src: bytes) -> dict[int, int]:
    """Each `{`'s offset → its `}`'s, braces paired in one pass (strings and comments
    not told apart: a wrong pair makes errors, and the caller then parses the file as
    written). One pass, not a search per wrapper: 20,000 nested wrappers took 87 s."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for brace in _BRACE.finditer(src):
        if brace[0] == b"{":
            opened.append(brace.start())
        elif opened:
            pairs[opened.pop()] = brace.start()
    return pairs


_BRACE = re.compile(rb"[{}]")
