"""The typed values handed between ingest stages: Source → Document → chunks.

Parsers build a `Document` from a `Source` and never touch the filesystem or the
database. All line numbers here are **1-based and inclusive**, as users see them;
parsers convert from their libraries' 0-based offsets once, at their boundary.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from .ref_codes import REFERENCE_KINDS

C = TypeVar("C", bound=type)


def pickled_by_fields(cls: C) -> C:
    """Pickle a slots dataclass as its class and its field values in order, unpickled by
    calling it. A slots dataclass's own `__setstate__` asks `dataclasses.fields()` and sets
    each field in Python for every object: the parsed documents crossing from the parser
    processes to the writer (tens of thousands of entities, code blocks and tables on the
    Markdown mix) cost 0.09 CPU s more that way (docs/benchmarks-history.md)."""
    names = tuple(f.name for f in fields(cls))
    if any(not f.init for f in fields(cls)):
        raise TypeError(f"{cls.__name__}: every field must be an __init__ argument")

    def __reduce__(self: Any) -> tuple[Any, tuple[Any, ...]]:
        return cls, tuple([getattr(self, name) for name in names])

    cls.__reduce__ = __reduce__  # type: ignore[assignment]
    return cls


@dataclass(frozen=True, slots=True)
class Source:
    """Raw bytes of one input, plus where they came from."""

    path: str  # the path users see and filter on (relative to the cwd when possible, or a URL)
    uri: str  # identity across runs: absolute file path or final URL
    data: bytes
    sha256: str
    mtime_ns: int | None = None
    format: str | None = None  # detected by ingest.formats.detect_format
    # The file's own size when `data` is not its bytes (a compressed file, read inside):
    # what the next run compares with the disk to tell it unchanged.
    size: int | None = None


@pickled_by_fields
@dataclass(slots=True)
class Heading:
    """One entry of a document's table of contents.

    `end_line` is normally computed by `sections.build_sections` from the spec's rule
    (up to the next heading of the same or a higher level). Parsers that know the exact
    extent (code symbols) set it themselves.
    """

    level: int  # 1-6, as written
    title: str
    line: int  # the heading's own (text) line
    page: int | None = None
    anchor: str | None = None  # explicit anchor (`## Title {#id}`); otherwise derived from title
    end_line: int | None = None
    # the number printed with the heading when the parser saw one apart from the title (a
    # PDF outline entry "Related software" whose page line reads "1.2 Related software");
    # otherwise `sections.printed_number` reads it from the title; "" when the parser knows
    # the heading prints none (LaTeX's `\section*`), in a document that prints numbers
    number: str | None = None


@pickled_by_fields
@dataclass(slots=True)
class CodeBlock:
    language: str | None
    code: str
    line: int  # opening fence line
    end_line: int  # closing fence line (or last line of an unclosed block)


@pickled_by_fields
@dataclass(slots=True)
class Table:
    headers: list[str]
    rows: list[list[str]]
    line: int
    end_line: int


@pickled_by_fields
@dataclass(slots=True)
class Entity:
    entity_type: str  # Term, API, ClassEntity, FunctionEntity, ConstructorEntity
    name: str
    line: int
    end_line: int
    signature: str | None = None
    definition: str | None = None


@pickled_by_fields
@dataclass(slots=True)
class Symbol:
    """A code symbol found by a source parser."""

    kind: str  # class, interface, enum, struct, trait, function, method, constructor, ...
    name: str
    qualified_name: str  # Outer.Inner.method
    line: int  # first line of the definition (decorators / leading doc comment excluded)
    end_line: int
    language: str
    signature: str | None = None
    docstring: str | None = None
    parent: str | None = None  # qualified name of the enclosing symbol


@dataclass(slots=True)
class Reference:
    """An identifier used in code: a call, a type use, an import or an inheritance."""

    name: str  # the identifier as written (the last part of `a.b.name`)
    kind: str  # call | type | import | inherit
    line: int  # of the identifier itself, 1-based
    end_line: int
    column: int  # 1-based, in characters
    caller: str | None = None  # qualified name of the innermost enclosing symbol
    caller_ord: int | None = None  # that symbol's position in `Document.symbols`
    # The local name of an import written in front of it (`http` in `http.Get`): the
    # module the use names, which resolution follows (schema 13).
    qualifier: str | None = None


# One reference as code parsing keeps it and `refs_staged` stores it (schema 11, 13): (name,
# kind code (`ref_codes.REFERENCE_KINDS`), caller_ord, line, end_line or None when it is
# `line`, column, qualifier (`Reference.qualifier`)). A tuple, made straight from the
# query's match: a `Reference` object per reference, turned into this row later, was a
# third of the extraction (issue 23).
ReferenceRow = tuple[str, int, int | None, int, int | None, int, str | None]


def reference_objects(rows: list[ReferenceRow], symbols: list[Symbol]) -> list[Reference]:
    """`rows` as `Reference`s: the kind's name, `end_line` filled, the caller's qualified
    name from `symbols` (the document's, which `caller_ord` counts in)."""
    return [
        Reference(
            name,
            REFERENCE_KINDS[kind],
            line,
            line if end_line is None else end_line,
            column,
            None if caller_ord is None else symbols[caller_ord].qualified_name,
            caller_ord,
            qualifier,
        )
        for name, kind, caller_ord, line, end_line, column, qualifier in rows
    ]


@pickled_by_fields
@dataclass(slots=True)
class Import:
    """One imported module (or header, package, crate path) as the file writes it."""

    module: str
    names: list[str]  # the names imported from it ("*" for a wildcard); [] for the module
    line: int
    end_line: int
    # The local name the import binds instead of the module's or the name's own: `np` in
    # `import numpy as np`, `mr` in Go's `mr "math/rand"`, `u` in `import * as u from
    # './util'`, `dec` in `from json import decoder as dec` (then `names` is that one
    # name); `_` and `.` for Go's blank and dot imports. None: no alias.
    alias: str | None = None


@pickled_by_fields
@dataclass(slots=True)
class Document:
    """A parsed document, in the shape every format shares.

    `text` is the whole decoded document with `\\n` line ends. Lines before
    `body_start_line` are front matter: stored, shown by `get`, but not chunked.
    """

    format: str  # markdown, code, pdf, rst, html, docx, text, ...
    text: str
    title: str | None = None
    language: str | None = None  # programming language for code
    body_start_line: int = 1
    headings: list[Heading] = field(default_factory=list)
    frontmatter: dict[str, Any] | None = None
    codeblocks: list[CodeBlock] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    # code only: the references as rows (`references` gives them as objects)
    reference_rows: list[ReferenceRow] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)  # code only
    # PDF: the first line of each page, in page order (page 1 starts at page_lines[0])
    page_lines: list[int] | None = None
    # lines where a new chunk must start (code: symbol starts and the line after their ends)
    chunk_breaks: set[int] = field(default_factory=set)
    # lines that must not be split from the line before (fenced code bodies, tables)
    keep_together: list[tuple[int, int]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def line_count(self) -> int:
        return count_lines(self.text)

    @property
    def references(self) -> list[Reference]:
        """The references of code, as objects (made on each call, from `reference_rows`)."""
        return reference_objects(self.reference_rows, self.symbols)

    @property
    def page_count(self) -> int | None:
        return len(self.page_lines) if self.page_lines is not None else None

    def page_of(self, line: int) -> int | None:
        """The 1-based page holding `line`, for paged formats."""
        if not self.page_lines:
            return None
        import bisect

        return max(1, bisect.bisect_right(self.page_lines, line))


def split_lines(text: str) -> list[str]:
    """Lines of `text` without their `\\n`; a final newline does not start a new line."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)
