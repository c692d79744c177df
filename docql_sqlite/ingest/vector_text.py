"""What an embedding model reads of a code passage: its declaration, named in words.

A chunk of a code file starts where a declaration's section does: at its doc comment
and decorators (`ingest/code.py`, `code_text.leading_block`). Its text is still mostly
a signature and a body of identifiers — `// Bytes returns a slice …` / `func (b
*Buffer) Bytes() []byte { return b.buf[b.off:] }` — and a doc comment longer than a
chunk leaves the declaration's chunk without the comment's opening. Measured
(docs/search.md, "Code passages and vectors"), vectors do better on the declaration as a
reader meets it, so a code chunk's vector text is:

    <the chunk's symbols, each name split into words: "Buffer bytes", "parse HTTP request">
    <each symbol's doc comment, when the chunk does not hold it (a long one's opening)>
    <the chunk's own text>

cut to `BUDGET` characters (a model reads the opening; e5-small keeps 500). A chunk that
declares nothing (the rest of a long function) is named by the symbol it lies in. Chunks
of other documents (Markdown, text, PDF) and code files without symbols are read as they
are. Only the vector changes: the stored chunk, its full-text row and what search
returns are the chunk's own text.

`POLICY` names this rule. The index records it (`meta.embedding_text`); when it differs
(an index embedded before, or by another version), `ingest/embed.py` re-embeds the code
chunks and never takes their vectors from the content-hash cache.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Bump when the text below changes: indexes embedded under another policy re-embed
# their code chunks (`ingest/embed.py`).
POLICY = "code-v1"
# The policy of vectors embedded before the index recorded one: the raw chunk text.
RAW_POLICY = "raw"
# The `meta` key recording the policy of the index's vectors.
META_KEY = "embedding_text"
# Characters of vector text at most: the chunk-size target, so no passage costs a model
# more than a plain chunk would.
BUDGET = 1500
# A doc comment's share of that budget (a 40-line Python docstring must not crowd out
# the signature and body when it is repeated above them).
DOC_BUDGET = 600
# Symbols named per chunk at most (a chunk of one-line Go methods can declare dozens).
MAX_SYMBOLS = 8


@dataclass(frozen=True, slots=True)
class Symbol:
    """A declaration as the vector text reads it (a row of the `symbols` table)."""

    name: str
    qualified_name: str
    signature: str | None
    docstring: str | None
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Shape:
    """Which parts make up a code chunk's vector text. `Shape()` is `POLICY`; the other
    shapes are what benchmarks/code_vectors.py measured against it."""

    names: bool = True  # the symbols' names, split into words
    docs: bool = True  # doc comments the chunk does not hold
    # The chunk's own text. Off: a chunk that declares something is read as its names,
    # docs and signatures alone; a chunk inside a body keeps its text (else every chunk
    # of a long function would get one and the same vector).
    body: bool = True
    path: bool = False  # the file's path, split into words


CURRENT = Shape()

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SEPARATORS = re.compile(r"[^0-9A-Za-z\u00c0-\uffff]+")
_SPACE = re.compile(r"\s+")
# Comment markers at a line's start (`//`, `///`, `/**`, ` * `, `#` but not Rust's `#[`,
# `--`): a doc comment's lines, and its text without them.
_MARKERS = re.compile(r"(?m)^[ \t]*(?:/{2,3}!?|/\*\*?|\*/?|#(?![\[!])|--)")


def words(identifier: str) -> str:
    """An identifier as words: `parseHTTPRequest` → "parse HTTP request", `read_all` →
    "read all", `Buffer.Bytes` → "Buffer bytes". Acronyms keep their case; a word after
    the first is lower-cased (a name read as a phrase)."""
    parts: list[str] = []
    for piece in _SEPARATORS.split(identifier):
        found = _CAMEL.findall(piece) if piece.isascii() else [piece]
        parts.extend(found or [piece])
    out = [p if (i == 0 or p.isupper()) else p.lower() for i, p in enumerate(p for p in parts if p)]
    return " ".join(out)


def code_passage(
    content: str,
    line: int,
    end_line: int,
    symbols: Sequence[Symbol],
    path: str = "",
    shape: Shape = CURRENT,
) -> str:
    """The vector text of a code chunk spanning lines `line`..`end_line` of a file whose
    symbols are `symbols` (any order). Without symbols, or with every part off but the
    body, it is `content` itself."""
    declared = sorted((s for s in symbols if line <= s.line <= end_line), key=lambda s: s.line)
    named = declared[:MAX_SYMBOLS] or _enclosing(symbols, line)
    if not named:
        return content
    if shape.docs and declared:
        content = _without_doc_lead(content, line, declared[0])
    head: list[str] = []
    if shape.path and path:
        head.append(words(path.rsplit(".", 1)[0]))
    if shape.names:
        head.append(", ".join(dict.fromkeys(words(s.qualified_name or s.name) for s in named)))
    if shape.docs:
        for symbol in declared[:MAX_SYMBOLS]:
            # Without the body, a docstring inside it (Python) must be said here too.
            doc = _doc_outside(symbol, "" if not shape.body else content)
            if doc:
                head.append(doc)
    if not shape.body and declared:
        # No body: the declaration lines stand in for it (what the user types and reads).
        head.extend(s.signature for s in named if s.signature)
        return "\n".join(head)[:BUDGET]
    if not head:
        return content
    return ("\n".join(head) + "\n" + content)[:BUDGET]


def _without_doc_lead(content: str, line: int, symbol: Symbol) -> str:
    """`content` from `symbol`'s header on, when the lines above it in the chunk (its
    section's lead) hold its doc comment: the comment is said once, cleaned of its
    markers, after the names (`_doc_outside`), as a reader meets it."""
    above = symbol.line - line
    if above <= 0 or not symbol.docstring:
        return content
    cut = 0
    for _ in range(above):
        cut = content.find("\n", cut) + 1
        if cut == 0:
            return content
    lead = content[:cut]
    if _doc_opening(symbol) not in _SPACE.sub(" ", _MARKERS.sub(" ", lead)):
        return content  # the lines above are decorators or other comments
    # The comment's lines go; decorators and attributes (`@GetMapping("/users")`) stay.
    kept = [text for text in lead.splitlines(True) if text.strip() and not _MARKERS.match(text)]
    return "".join(kept) + content[cut:]


def _doc_opening(symbol: Symbol) -> str:
    """The first line of `symbol`'s doc comment (at most 60 characters, whitespace
    collapsed): enough to tell whether a text holds the comment."""
    return _SPACE.sub(" ", (symbol.docstring or "").strip().split("\n", 1)[0])[:60].strip()


def _enclosing(symbols: Sequence[Symbol], line: int) -> list[Symbol]:
    """The innermost symbol whose extent holds `line` (a chunk inside a long body)."""
    holding = [s for s in symbols if s.line < line <= s.end_line]
    return [max(holding, key=lambda s: (s.line, -s.end_line))] if holding else []


def _doc_outside(symbol: Symbol, content: str) -> str:
    """`symbol`'s doc comment, one line, when `content` does not already hold it (a
    Python docstring sits inside the body, a Go doc comment at the chunk's top; a doc
    comment longer than a chunk starts in the chunk before)."""
    doc = _SPACE.sub(" ", symbol.docstring or "").strip()
    if not doc:
        return ""
    # Its first line is enough to tell: a comment marker (`//`) may start the next line
    # in the chunk's text.
    if _doc_opening(symbol) in _SPACE.sub(" ", content):
        return ""
    return doc[:DOC_BUDGET]
