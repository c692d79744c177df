"""The source-code parser: `Source` → `Document` with symbols, headings and entities.

Owns decoding source bytes, parsing with tree-sitter, and shaping the symbols found by
`code_symbols` into the document model every format shares (DocQL spec §1, §4.4):

- `symbols`: classes, interfaces, enums, structs, traits, … and functions, methods,
  constructors, with qualified names (`Outer.Inner.method`), signatures, docstrings.
  A symbol's `line` is its first line after decorators/annotations (for Python the
  `def`/`class` line, as `ast` reports `lineno`); `end_line` is its last line.
- `headings`: one per symbol (and per Rust `impl` block), level = nesting depth + 1
  (capped at 6), titled with the symbol's name; `end_line` is set because code
  extents are exact. A heading starts at what leads its symbol (its doc comment,
  decorators, attributes: `code_text.leading_block`), as an LSP symbol's range does.
- `entities`: ClassEntity / FunctionEntity / ConstructorEntity, named by qualified
  name, with the signature and the docstring's first sentence as definition.
- `references` and `imports`: what the file uses (calls, type uses, inheritance,
  imports), each with its enclosing symbol (`code_refs`).
- `chunk_breaks`: every heading's first line and the line after its last, so chunks
  split at symbol boundaries and a symbol's chunk holds its doc comment.

A file with syntax errors still yields what tree-sitter recovers, plus a warning.
Source text is decoded by `read.decode_text` with PEP 263 coding cookies honoured
(`# -*- coding: koi8-r -*-`), as Python reads the file. A language whose optional
grammar is unavailable (`grammars.GrammarUnavailable`) is chunked as plain text.
"""

from __future__ import annotations

import gc
import posixpath
import re

from tree_sitter import Node

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest import pod, shebang
from docql_sqlite.ingest.c_macros import blank_macros
from docql_sqlite.ingest.code_refs import extract_reference_rows
from docql_sqlite.ingest.code_symbols import (
    CLASS_KINDS,
    Outlined,
    extract_outline,
    has_query,
    query_matches,
)
from docql_sqlite.ingest.code_text import first_sentence, is_macro_scope, is_macro_word
from docql_sqlite.ingest.components import component_language, component_script
from docql_sqlite.ingest.grammars import (
    COMPONENT_EXTENSIONS,
    GrammarUnavailable,
    get_parser,
    language_for_extension,
)
from docql_sqlite.ingest.read import decode_text
from docql_sqlite.ingest.rust_macros import unwrap_item_macros
from docql_sqlite.ingest.shebang import script_language
from docql_sqlite.model import Document, Entity, Heading, Source, count_lines
from docql_sqlite.ref_codes import ENUM_MEMBER

_MAX_ERROR_LINES = 10
# A `.h` file is C++ when it says so: C++ projects name their headers `.h` too
# (sentencepiece's 40), and read as C their classes, namespaces and templates were
# errors (`virtual` a type, `namespace port {` a function).
_CPP_SIGNS = re.compile(
    r"^[ \t]*(?:namespace(?:[ \t]+[\w:]+)?[ \t]*\{|template[ \t]*<|using[ \t]+namespace\b"
    r"|(?:public|private|protected)[ \t]*:|class[ \t]+\w+[^;\n]*\{)|\bstd::\w",
    re.MULTILINE,
)
# C and C++ are parsed from a copy of the bytes with three things tree-sitter-c reads
# wrong put right, each the same number of bytes, so every offset and line stays
# (`_as_the_parser_reads`; the stored text is the file's):
# - the comments of a continued `#define` are blanked: a compiler replaces each comment
#   by a space before it reads directives (translation phase 3), while tree-sitter ends
#   the value at a comment, so the continued lines after one (`/* note */ \`) became
#   code and an ERROR swallowed the rest of the file — Brotli's `decode.h` lost its
#   public API after its error-code macro and named a function `void`;
# - a `#define X` with no value but trailing blanks is written `#define    X`: with the
#   blanks tree-sitter takes the next line as the value (a function after it vanished);
# - the `extern "C"` guard lines are blanked (`_CPLUSPLUS_GUARD`).
_PREPROCESSED = frozenset({"c", "cpp", "objc"})
# An Objective-C header by its text: a line opening with an `@` keyword of its own
# (`@interface`, `@implementation`, `@protocol`, `@class`); `#import` is no sign (expo's
# C++ headers `#import <unordered_map>`).
_OBJC_SIGNS = re.compile(r"^[ \t]*@(?:interface|implementation|protocol|class)\b", re.MULTILINE)
# ... and a `.m` file that is C's kind of file at all (MATLAB's has none of these)
_C_SIGNS = re.compile(r"^[ \t]*#[ \t]*(?:import|include)\b", re.MULTILINE)
# Clang's nullability region markers, alone on their lines: tree-sitter-objc reads the
# first as a type before `@interface` (33 of expo-modules-core's 69 headers had errors, 12
# with them blanked; `_as_the_parser_reads`).
_NULLABILITY_REGION = re.compile(rb"^[ \t]*NS_ASSUME_NONNULL_(?:BEGIN|END)[ \t]*$", re.MULTILINE)
_DIRECTIVE = re.compile(rb"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.MULTILINE)
_BARE_DEFINE = re.compile(
    rb"^([ \t]*#[ \t]*define)([ \t]+)(\w+(?:\([^)\n]*\))?)([ \t]+)$", re.MULTILINE
)
_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/", re.DOTALL)
_NOT_NEWLINE = re.compile(rb"[^\n]")
# Where a C/C++ declaration's header holds a macro's word (`static INLINE int f(…)`):
# tree-sitter puts the word in an ERROR that is no syntax error of the file's.
_HEADER_TYPES = frozenset(
    {
        "function_definition",
        "declaration",
        "field_declaration",
        "parameter_list",  # `uint8_t* BROTLI_RESTRICT dst`
        "parameter_declaration",
        "pointer_declarator",
        "init_declarator",
    }
)
# The C/C++ header idiom `#ifdef __cplusplus` / `extern "C" {` / `#endif` … `#ifdef
# __cplusplus` / `}` / `#endif`: tree-sitter pairs no brace across directives, so the
# first `#endif` went missing and the whole file parsed inside the `#if` (Brotli lost
# definitions to the recovery). A C compiler never reads those lines, and neither
# changes what a C++ one declares: both are blanked before the parse.
_CPLUSPLUS_GUARD = re.compile(
    rb"^[ \t]*#[ \t]*if(?:def[ \t]+__cplusplus\b|[^\n]*\bdefined[ \t]*\(?[ \t]*__cplusplus\b)"
    rb'[^\n]*\n((?:[ \t]*(?:extern[ \t]+"C"[ \t]*\{|\})[ \t]*(?://[^\n]*|/\*[^\n]*?\*/)?'
    rb"[ \t]*\n)+)(?=[ \t]*#[ \t]*endif)",
    re.MULTILINE,
)
_ENTITY_TYPE = {
    "constructor": "ConstructorEntity",
    "function": "FunctionEntity",
    "method": "FunctionEntity",
}


def parse(source: Source) -> Document:
    """The code parser (`formats.PARSERS`): the language from the file's extension."""
    name = posixpath.basename(source.path.split("?")[0])
    language = language_for_extension(posixpath.splitext(name)[1])
    if language is None and "." not in name:
        # `Rakefile` by its name, `bin/rake` by its `#!` line
        language = shebang.NAMED_SCRIPTS.get(name.lower()) or script_language(
            source.data[: shebang.HEAD_BYTES]
        )
    if language is None:
        raise IngestError(f"no grammar for the file extension of '{name}'", source.path)
    text, warnings = decode_text(source.data, source.path, coding_cookie=True)
    component = posixpath.splitext(name)[1].lower() in COMPONENT_EXTENSIONS
    if component:
        language = component_language(text, name)
    if language == "c" and name.endswith(".h"):
        if "@" in text and _OBJC_SIGNS.search(text):
            language = "objc"  # (its C parse was an ERROR at every `@interface`)
        elif _CPP_SIGNS.search(text):
            language = "cpp"
    elif language == "objc" and (
        name.endswith(".mm") or not (_OBJC_SIGNS.search(text) or _C_SIGNS.search(text))
    ):
        # Objective-C++ (`.mm`), which tree-sitter-objc reads without its C++ (expo's
        # `jsi::Value` became methods that C++ calls then linked to), and MATLAB's or
        # Octave's `.m`: no grammar for either, their text is chunked
        other = "objcpp" if name.endswith(".mm") else "matlab"
        return Document(format="code", text=text, title=name, language=other, warnings=warnings)
    try:
        document = parse_code_text(text, source.path, language, component=component)
    except GrammarUnavailable:
        # The run says so once (`grammars.unavailable_reason`); no warning per file.
        document = Document(format="code", text=text, title=name or source.path, language=language)
    document.warnings[:0] = warnings
    return document


def parse_code_text(text: str, path: str, language: str, component: bool = False) -> Document:
    """Parse already-decoded source text; `path` gives the title (its file name); a
    `component` (Vue's, Svelte's) is parsed in its <script> blocks (`component_script`).

    Python's cyclic garbage collector is paused meanwhile: the query's matches (a dict,
    lists and nodes each) and the references are many short-lived containers, and each
    collection they set off also walked everything else alive in the process. Nothing
    here makes a cycle that must go before the end; the collector runs again after.
    On the scale corpus' code (issue 23) that took the collector from 3.6 to 1.0 CPU s
    of an index run (docs/benchmarks.md)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse_code_text(text, path, language, component)
    finally:
        if was_enabled:
            gc.enable()


def _parse_code_text(text: str, path: str, language: str, component: bool = False) -> Document:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    src = text.encode("utf-8", "replace")  # lone surrogates cannot reach tree-sitter
    line_count = count_lines(text)
    parser = get_parser(language)  # GrammarUnavailable: the caller falls back to plain text
    original = src
    raw = src
    if component:
        # the same offsets: names are read from what it parsed (`components.py`)
        src = original = component_script(raw, path)
    if language in _PREPROCESSED:
        # names, signatures and references are read from what the parser was given: the
        # tree's offsets are that text's (the document keeps the file's own text)
        src = _as_the_parser_reads(src, language)
    unwrapped = unwrap_item_macros(src) if language == "rust" else src
    try:
        if unwrapped is not src:
            # items inside `cfg_rt! { … }` (`rust_macros`), unless that reads with errors
            # the file as written does not
            tree = parser.parse(unwrapped)
            if (
                tree.root_node.has_error
                and not (as_written := parser.parse(src)).root_node.has_error
            ):
                tree = as_written
            else:
                src = unwrapped
        else:
            tree = parser.parse(src)
        if component and tree.root_node.has_error:
            # a template expression the parser reads otherwise: the scripts alone
            script_only = component_script(raw, path, template=False)
            if script_only != src:
                src = original = script_only
                tree = parser.parse(src)
    except Exception as exc:  # tree-sitter only fails here on resource limits
        raise IngestError(f"tree-sitter could not parse the file: {exc}", path) from exc
    outline: list[Outlined] = []
    ref_matches = None  # the references' query runs apart when there is no symbol query
    if has_query(language):
        symbol_matches, ref_matches = query_matches(tree.root_node, language)
        outline = extract_outline(
            tree.root_node,
            src,
            language,
            line_count,
            symbol_matches,
            original if original is not src else None,
        )
    document = Document(
        format="code",
        text=text,
        title=posixpath.basename(path.replace("\\", "/")) or path,
        language=language,
    )
    _fill(document, outline, line_count)
    if language == "perl":
        _add_pod(document, tree.root_node, text)
    document.reference_rows, document.imports = extract_reference_rows(
        tree.root_node, src, language, outline, ref_matches
    )
    if tree.root_node.has_error:
        lines = error_lines(tree.root_node, macros=language in _PREPROCESSED)
        if lines is not None:
            document.warnings.append(_syntax_warning(lines))
    return document


def _add_pod(document: Document, root: Node, text: str) -> None:
    """A Perl module's manual is the POD in its `.pm` (`perldoc Mojo::DOM` reads it):
    its headings are sections inside the code's innermost section around each block (a
    package's `=head2 find` under `=head1 METHODS` under the package), where passages
    split. Mojolicious' `Mojo/DOM.pm` is 369 lines of code and 740 of POD, which were
    one "DOM" section; "what does Mojo::DOM find return" could name no `find` of it."""
    blocks = [child for child in root.children if child.type == "pod"]
    if not blocks:
        return
    lines = text.split("\n")
    code = list(document.headings)
    described: dict[str, str] = {}  # a POD heading's name → its first paragraph
    for block in blocks:
        first = block.start_point.row + 1
        last = block.end_point.row + (1 if block.end_point.column else 0)
        around = [h for h in code if h.line <= first and (h.end_line or 0) >= last]
        base = max((h.level for h in around), default=0)
        for heading in pod.embedded_headings(lines, first, last):
            heading.level = min(base + heading.level, 6)
            document.headings.append(heading)
            document.chunk_breaks.add(heading.line)
            name = pod.named_member(heading.title)
            if name is not None and name not in described:
                paragraph = pod.first_paragraph(lines, heading.line + 1, heading.end_line or last)
                if paragraph:
                    described[name] = paragraph
        if last < len(lines):
            document.chunk_breaks.add(last + 1)
    document.headings.sort(key=lambda h: h.line)
    # A sub's documentation is its POD section (`=head2 find`): its docstring, and its
    # entity's definition, as a Python function's docstring is.
    for symbol in document.symbols:
        if symbol.docstring is None and symbol.name in described:
            symbol.docstring = described[symbol.name]
    by_name = {s.qualified_name: s for s in document.symbols if s.docstring}
    for entity in document.entities:
        documented = by_name.get(entity.name)
        if entity.definition is None and documented is not None:
            entity.definition = first_sentence(documented.docstring)


def _as_the_parser_reads(src: bytes, language: str) -> bytes:
    """`src` as tree-sitter is given it, and read back (`_PREPROCESSED`): the comments of
    continued directives and the `extern "C"` guard lines turned into spaces, a bare
    `#define`'s trailing blanks moved before its name, Objective-C's nullability region
    markers blanked (`_NULLABILITY_REGION`), macros a preprocessor expands away blanked
    (`c_macros`); newlines kept."""
    if b"NS_ASSUME_NONNULL_" in src:
        src = _NULLABILITY_REGION.sub(lambda m: _NOT_NEWLINE.sub(b" ", m.group()), src)
    src = blank_macros(src, language)
    if b"#" not in src:
        return src

    def blank_comments(directive: re.Match[bytes]) -> bytes:
        text = directive.group()
        if b"/*" not in text or b"\\\n" not in text:
            # One line: tree-sitter reads its comment right, and blanking it would leave
            # `# define X   /* nothing */` with no value, which it reads worse (cffi's
            # backend became one ERROR from its first line)
            return text
        return _BLOCK_COMMENT.sub(lambda c: _NOT_NEWLINE.sub(b" ", c.group()), text)

    src = _DIRECTIVE.sub(blank_comments, src)
    if b"define" in src:
        src = _BARE_DEFINE.sub(lambda m: m[1] + m[2] + m[4] + m[3], src)
    if b"__cplusplus" in src:
        src = _CPLUSPLUS_GUARD.sub(
            lambda m: m.group()[: m.start(1) - m.start()] + _NOT_NEWLINE.sub(b" ", m.group(1)), src
        )
    return src


def error_lines(root: Node, macros: bool = False) -> list[int] | None:
    """1-based lines where tree-sitter found ERROR or MISSING nodes; None when the only
    errors are macro words in C/C++ declaration headers (`macros`), which are none."""
    lines: set[int] = set()
    words = 0
    stack = [root]
    while stack:
        node = stack.pop()
        inner = [child for child in node.children if child.has_error or child.is_missing]
        if macros and node.type in _HEADER_TYPES:
            kept = [child for child in inner if not is_macro_word(child)]
            words += len(inner) - len(kept)
            inner = kept
        elif macros and node.type == "qualified_identifier" and is_macro_scope(node):
            words += 1
            continue
        elif macros and node.type == "expression_statement" and _macro_statement(node):
            # `PYBIND11_NAMESPACE_BEGIN(detail)`, `Py_END_ALLOW_THREADS`: no `;` after a
            # macro's use, which compiles only because the macro brings its own
            words += 1
            inner = [child for child in inner if not child.is_missing]
        if (node.is_error or node.is_missing) and not inner:
            # Only innermost errors: recovery often wraps half a file in one ERROR node
            # that starts far from the real problem.
            lines.add(node.start_point[0] + 1)
        stack.extend(inner)
    if words and not lines:
        return None
    return sorted(lines)


def _macro_statement(node: Node) -> bool:
    """A statement of one call or one name that lacks its `;` (tree-sitter made it up)."""
    last = node.children[-1] if node.child_count else None
    first = node.named_children[0] if node.named_child_count else None
    return (
        last is not None
        and last.is_missing
        and last.type == ";"
        and first is not None
        and first.type in ("call_expression", "identifier")
        and not first.has_error
    )


def _syntax_warning(lines: list[int]) -> str:
    if not lines:  # the root says "has an error" but no node is one (seen in Go's testdata)
        return "syntax errors (tree-sitter named no line): extracted what tree-sitter recovered"
    shown = ", ".join(str(n) for n in lines[:_MAX_ERROR_LINES])
    more = f" and {len(lines) - _MAX_ERROR_LINES} more" if len(lines) > _MAX_ERROR_LINES else ""
    where = f"line {shown}" if len(lines) == 1 else f"lines {shown}{more}"
    return f"syntax errors at {where}: extracted what tree-sitter recovered"


def _fill(document: Document, outline: list[Outlined], line_count: int) -> None:
    breaks: set[int] = set()
    for item in outline:
        if item.symbol is not None and (item.symbol.kind == ENUM_MEMBER or not item.section):
            # One line of its enum (`SetTrue,`, `RED = 2`) or a Perl class's attribute: a
            # symbol, not a section (a C header's enum of 300 values would be 300
            # headings and chunks).
            document.symbols.append(item.symbol)
            continue
        # The section starts at its doc comment and decorators: the passage that holds a
        # function holds what documents it (the symbol keeps its header's line).
        first = item.lead_line or item.line
        document.headings.append(
            Heading(
                level=min(item.depth + 1, 6),
                title=item.title,
                line=first,
                end_line=item.end_line,
            )
        )
        breaks.add(first)
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
