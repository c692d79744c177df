"""The source-code parser: `Source` → `Document` with symbols, headings and entities.

Owns decoding source bytes, parsing with tree-sitter, and shaping the symbols found by
`code_symbols` into the document model every format shares (DocQL spec §1, §4.4):

- `symbols`: classes, interfaces, enums, structs, traits, … and functions, methods,
  constructors, with qualified names (`Outer.Inner.method`), signatures, docstrings.
  A symbol's `line` is its first line after decorators/annotations (for Python the
  `def`/`class` line, as `ast` reports `lineno`); `end_line` is its last line.
- `headings`: one per symbol (and per Rust `impl` block), level = nesting depth + 1
  (capped at 6), titled with the symbol's name; `end_line` is set because code
  extents are exact.
- `entities`: ClassEntity / FunctionEntity / ConstructorEntity, named by qualified
  name, with the signature and the docstring's first sentence as definition.
- `chunk_breaks`: every outline entry's first line and the line after its last, so
  chunks split at symbol boundaries.

A file with syntax errors still yields what tree-sitter recovers, plus a warning.
"""

from __future__ import annotations

import codecs
import posixpath
import re

from tree_sitter import Node

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest.code_symbols import CLASS_KINDS, Outlined, extract_outline
from docql_sqlite.ingest.code_text import first_sentence
from docql_sqlite.ingest.grammars import get_parser
from docql_sqlite.model import Document, Entity, Heading, Source, count_lines

# PEP 263 cookie; Emacs/Vim use the same form in other languages.
_CODING = re.compile(rb"^[ \t\f]*#?.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)
_MAX_ERROR_LINES = 10
_ENTITY_TYPE = {
    "constructor": "ConstructorEntity",
    "function": "FunctionEntity",
    "method": "FunctionEntity",
}


def parse_code(source: Source, language: str) -> Document:
    """Parse one source file in `language` (a `grammars.LANGUAGES` name)."""
    text, warning = decode_source(source.data)
    document = parse_code_text(text, source.path, language)
    if warning:
        document.warnings.insert(0, warning)
    return document


def parse_code_text(text: str, path: str, language: str) -> Document:
    """Parse already-decoded source text; `path` gives the title (its file name)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    src = text.encode("utf-8", "replace")  # lone surrogates cannot reach tree-sitter
    line_count = count_lines(text)
    parser = get_parser(language)
    try:
        tree = parser.parse(src)
    except Exception as exc:  # tree-sitter only fails here on resource limits
        raise IngestError(f"tree-sitter could not parse the file: {exc}", path) from exc
    outline = extract_outline(tree.root_node, src, language, line_count)
    document = Document(
        format="code",
        text=text,
        title=posixpath.basename(path.replace("\\", "/")) or path,
        language=language,
    )
    _fill(document, outline, line_count)
    if tree.root_node.has_error:
        document.warnings.append(_syntax_warning(error_lines(tree.root_node)))
    return document


def decode_source(data: bytes) -> tuple[str, str | None]:
    """Decode source bytes: UTF-8 (BOM stripped), else the declared coding, else cp1252/latin-1.

    Returns the text and a warning when it was not UTF-8. latin-1 never fails, so
    every file decodes, and line numbers survive because no byte is dropped.
    """
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    candidates: list[str] = []
    head = b"\n".join(data.split(b"\n", 2)[:2])
    match = _CODING.search(head)
    if match:
        candidates.append(match.group(1).decode("ascii", "replace"))
    candidates += ["cp1252", "latin-1"]
    for encoding in candidates:
        try:
            return data.decode(encoding), f"not valid utf-8; decoded as {encoding}"
        except (LookupError, UnicodeDecodeError):
            continue
    raise AssertionError("latin-1 decodes any bytes")  # pragma: no cover


def error_lines(root: Node) -> list[int]:
    """1-based lines where tree-sitter found ERROR or MISSING nodes."""
    lines: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        inner = [child for child in node.children if child.has_error or child.is_missing]
        if (node.is_error or node.is_missing) and not inner:
            # Only innermost errors: recovery often wraps half a file in one ERROR node
            # that starts far from the real problem.
            lines.add(node.start_point[0] + 1)
        stack.extend(inner)
    return sorted(lines)


def _syntax_warning(lines: list[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:_MAX_ERROR_LINES])
    more = f" and {len(lines) - _MAX_ERROR_LINES} more" if len(lines) > _MAX_ERROR_LINES else ""
    where = f"line {shown}" if len(lines) == 1 else f"lines {shown}{more}"
    return f"syntax errors at {where}: extracted what tree-sitter recovered"


def _fill(document: Document, outline: list[Outlined], line_count: int) -> None:
    breaks: set[int] = set()
    for item in outline:
        document.headings.append(
            Heading(
                level=min(item.depth + 1, 6),
                title=item.title,
                line=item.line,
                end_line=item.end_line,
            )
        )
        breaks.add(item.line)
        if item.end_line < line_count:
            breaks.add(item.end_line + 1)
        symbol = item.symbol
        if symbol is None:
            continue
        document.symbols.append(symbol)
        entity_type = "ClassEntity" if symbol.kind in CLASS_KINDS else _ENTITY_TYPE.get(symbol.kind)
        if entity_type is not None:
            document.entities.append(
                Entity(
                    entity_type=entity_type,
                    name=symbol.qualified_name,
                    line=symbol.line,
                    end_line=symbol.end_line,
                    signature=symbol.signature,
                    definition=first_sentence(symbol.docstring),
                )
            )
    document.chunk_breaks = breaks
