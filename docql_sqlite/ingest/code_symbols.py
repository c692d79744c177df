"""Code symbols from a tree-sitter tree: runs a language's query, then nests and names.

The *what* lives in data, `queries/<language>.scm`, one file per language; this module
owns the *how*, the same for every language. Capture conventions in those files:

- `@definition.<kind>`: a symbol; the node's extent is the symbol's extent.
- `@declaration.<kind>`: a body-less declaration (prototype, overload signature); it
  is dropped when a definition with the same qualified name is in the same file, or
  when it sits inside a function body (C++'s most vexing parse).
- `@scope.<kind>`: a container that qualifies and parents what it holds and is a
  heading, but is not a symbol (Rust `impl` blocks).
- `@name` (required unless the pattern sets `default-name`): C/C++ declarators are
  looked through (`char **f(void)` → `f`, `A::f` → `f` scoped by `A`).
- `@body` (optional): where the signature ends; otherwise the node's `body` field.
- `@receiver` (optional): the type a method belongs to though declared outside it (Go).
- `(#set! default-name "X")`, `(#set! extent "rest-of-file")`, `(#set! section "none")`
  (a symbol that opens no section: one line each, as Perl's `has` attributes, they
  would cut the code into one-line passages): per-pattern settings.

When two patterns capture the same definition or name node, the earlier pattern wins.
Kinds are then refined: a function directly inside a class-like symbol, a trait or an
impl, or with a receiver, is a method; a JS/TS `constructor` method or a C++ function
named like its class is a constructor.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tree_sitter import Node, Query, QueryCursor

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest import code_text
from docql_sqlite.ingest.grammars import get_language
from docql_sqlite.model import Symbol

CLASS_KINDS = frozenset(
    {"class", "interface", "enum", "struct", "trait", "union", "record", "object"}
)
FUNCTION_KINDS = frozenset({"function", "method", "constructor"})

_QUERIES = Path(__file__).with_name("queries")
# The reference patterns joined to each language's symbol query (`_query`).
# `benchmarks/refs_cost.py` points this at a missing folder to index without references.
_REFS_QUERIES = _QUERIES / "refs"
# Languages sharing another's query file (TSX is TypeScript plus JSX; Starlark is a
# Python dialect).
_QUERY_FILE = {"tsx": "typescript", "starlark": "python"}
# Languages whose symbol and reference queries are their own file's followed by another
# language's (Objective-C's grammar reads C as tree-sitter-c does).
_QUERY_EXTENDS = {"objc": "c"}
_CONSTRUCTOR_BY_NAME = {
    "javascript": "constructor",
    "typescript": "constructor",
    "tsx": "constructor",
    "ruby": "initialize",
    "php": "__construct",
}
_CONSTRUCTOR_BY_CLASS_NAME = frozenset({"cpp"})
_DOCSTRING_LANGUAGES = frozenset({"python", "starlark"})
# Languages whose `module` holds methods (a Ruby module is a mixin: its `def`s are the
# instance methods of what includes it); a Rust inline `mod`'s functions stay functions.
_MODULES_HOLD_METHODS = frozenset({"ruby"})
# Languages whose names written with a path name it from the top (`sub Foo::Bar::baz`
# inside `package Foo::Qux` is `Foo.Bar.baz`), not from the scope around them.
_ABSOLUTE_SCOPES = frozenset({"perl"})
_TYPEDEF_LANGUAGES = frozenset({"c", "cpp", "objc"})


@dataclass(slots=True)
class Outlined:
    """One entry of a file's outline: a symbol, or a scope that is only a heading."""

    title: str
    depth: int  # textual nesting among outline entries; 0 = top level
    line: int
    end_line: int
    symbol: Symbol | None  # None for scopes (Rust impl blocks)
    # Byte extent of the symbol's node and of its name: references use them to find their
    # enclosing symbol, and to leave out a definition's own name.
    start_byte: int = 0
    end_byte: int = 0
    name_byte: int = -1
    # The first line of what leads it: its doc comment, decorators, attributes (its
    # section starts there; `line` is its header's). 0: `line`.
    lead_line: int = 0
    section: bool = True  # False: a symbol, but no heading (`(#set! section "none")`)


@dataclass(slots=True)
class _Def:
    node: Node
    role: str  # definition | declaration | scope
    kind: str
    name: str
    scope: list[str]  # receiver or C++ qualifier parts
    body: Node | None
    end_byte: int
    end_line: int
    name_byte: int = -1
    parent: _Def | None = None
    owner: str = ""  # qualified name of the enclosing symbol or receiver type
    qualified: str = ""
    section: bool = True


@dataclass(frozen=True, slots=True)
class _CompiledQuery:
    # The symbol patterns, then the language's reference patterns (`queries/refs/`):
    # one cursor pass over the tree serves both (`query_matches`), ~25 % less than two.
    query: Query
    symbol_patterns: int  # patterns [0, symbol_patterns) are this module's
    settings: tuple[dict[str, str | None], ...]
    # pattern index -> (capture name, role, kind) of its definition/declaration/scope
    # capture; learnt from the first match of each pattern
    roles: dict[int, tuple[str, str, str] | None]


@lru_cache(maxsize=128)  # per language (~40)
def has_query(language: str) -> bool:
    """Whether symbols can be extracted for `language` (it has a query file)."""
    return (_QUERIES / f"{_QUERY_FILE.get(language, language)}.scm").is_file()


# Compiling a query file costs ~50 ms: once per language and process, not per file.
@lru_cache(maxsize=128)
def _query(language: str) -> _CompiledQuery:
    name = _QUERY_FILE.get(language, language)
    names = [name] + ([_QUERY_EXTENDS[name]] if name in _QUERY_EXTENDS else [])
    try:
        text = "\n".join((_QUERIES / f"{n}.scm").read_text("utf-8") for n in names)
    except FileNotFoundError as exc:
        raise IngestError(
            f"no symbol query for language {language!r} (queries/{name}.scm)"
        ) from exc
    refs_text = "\n".join(
        refs.read_text("utf-8")
        for refs in (_REFS_QUERIES / f"{n}.scm" for n in names)
        if refs.is_file()
    )
    query = Query(get_language(language), f"{text}\n{refs_text}")
    symbols_end = len(text.encode("utf-8"))
    symbol_patterns = sum(
        1 for i in range(query.pattern_count) if query.start_byte_for_pattern(i) < symbols_end
    )
    settings = tuple(query.pattern_settings(i) for i in range(symbol_patterns))
    return _CompiledQuery(query, symbol_patterns, settings, {})


Match = tuple[int, dict[str, list[Node]]]


def query_matches(root: Node, language: str) -> tuple[list[Match], list[Match]]:
    """One query cursor pass: (the symbol matches, the reference matches), each in the
    cursor's order; a reference match's pattern index counts from the first reference
    pattern, as in its own file (`code_refs.extract_references(matches=...)`)."""
    compiled = _query(language)
    first_ref = compiled.symbol_patterns
    symbols: list[Match] = []
    refs: list[Match] = []
    for pattern, captures in QueryCursor(compiled.query).matches(root):
        if pattern < first_ref:
            symbols.append((pattern, captures))
        else:
            refs.append((pattern - first_ref, captures))
    return symbols, refs


def _role_capture(capture_names: list[str]) -> tuple[str, str, str] | None:
    for capture in capture_names:
        role, _, kind = capture.partition(".")
        if kind and role in ("definition", "declaration", "scope"):
            return capture, role, kind
    return None


def extract_outline(
    root: Node,
    src: bytes,
    language: str,
    line_count: int,
    matches: list[Match] | None = None,
    original: bytes | None = None,
) -> list[Outlined]:
    """Symbols and scopes of one parsed file, in source order. `matches`: the symbol
    matches of `query_matches` when the caller ran it (for the references too).
    `original`: the file's own bytes when `src` is not them (C/C++: `c_macros` blanked
    some), whence a function a macro defines takes the string that names it."""
    compiled = _query(language)
    if matches is None:
        matches = query_matches(root, language)[0]
    defs = _collect(compiled, matches, src, line_count, original)
    _nest(defs, language)
    return _outline(defs, src, language, original)


def _collect(
    compiled: _CompiledQuery,
    matches: list[Match],
    src: bytes,
    line_count: int,
    original: bytes | None = None,
) -> list[_Def]:
    matches = sorted(matches, key=lambda m: m[0])  # stable: earlier patterns claim nodes first
    # (start, end, type) rather than Node.id: unambiguous even for nodes sharing a range
    claimed: set[tuple[int, int, int]] = set()
    defs: list[_Def] = []
    to_next: list[int] = []  # the defs that run to the end of the file
    for pattern, captures in matches:
        try:
            role_capture = compiled.roles[pattern]
        except KeyError:
            role_capture = compiled.roles[pattern] = _role_capture(list(captures))
        if role_capture is None or role_capture[0] not in captures:
            continue
        capture, role, kind = role_capture
        node = captures[capture][0]
        node_key = (node.start_byte, node.end_byte, node.kind_id)
        if node_key in claimed:
            continue
        settings = compiled.settings[pattern]
        name_nodes = captures.get("name")
        name_node = name_nodes[0] if name_nodes else None
        name_key = (
            (name_node.start_byte, name_node.end_byte, name_node.kind_id) if name_node else None
        )
        if name_node is not None:
            if name_key in claimed:
                continue
            resolved = code_text.resolve_name(src, name_node, original)
            if resolved is None:
                continue
            name, scope = resolved
        elif settings.get("default-name"):
            name, scope = str(settings["default-name"]), []
        else:
            continue
        if not name:
            continue
        receivers = captures.get("receiver")
        if receivers:
            scope = [code_text.node_text(src, receivers[0])]
        bodies = captures.get("body")
        body = bodies[0] if bodies else node.child_by_field_name("body")
        claimed.add(node_key)
        if name_key is not None:
            claimed.add(name_key)
        if settings.get("extent") == "rest-of-file":
            end_byte, end_line = len(src), max(line_count, node.start_point[0] + 1)
            to_next.append(len(defs))
        else:
            end_byte, end_line = node.end_byte, code_text.last_code_row(node) + 1
        name_byte = name_node.start_byte if name_node is not None else -1
        defs.append(_Def(node, role, kind, name, scope, body, end_byte, end_line, name_byte))
        if settings.get("section") == "none":
            defs[-1].section = False
    # A statement that runs to the end of the file (PHP's `namespace A;`, Perl's `package
    # A;`) ends where the next one of them begins: a file of two packages holds two.
    opened = sorted((defs[i] for i in to_next), key=lambda d: d.node.start_byte)
    for d, following in zip(opened, opened[1:]):
        d.end_byte = following.node.start_byte
        d.end_line = max(following.node.start_point[0], d.node.start_point[0] + 1)
    defs.sort(key=lambda d: (d.node.start_byte, -d.end_byte))
    return defs


def _nest(defs: list[_Def], language: str) -> None:
    """Set parents (by extent containment), qualified names and refined kinds."""
    stack: list[_Def] = []
    for d in defs:
        while stack and d.end_byte > stack[-1].end_byte:
            stack.pop()
        if language in _NO_NESTED_FUNCTIONS and d.kind in FUNCTION_KINDS and d.role == "definition":
            _end_broken_function(stack, d)
        outer = stack[-1] if stack else None
        d.parent = outer
        prefix = outer.qualified if outer is not None else ""
        if d.scope and language in _ABSOLUTE_SCOPES:
            prefix = ""  # Perl's `sub Foo::Bar::baz` names its whole package
        # C++ nested namespaces (`a::b`) and scopes join with dots like everything else
        d.owner = ".".join(p.replace("::", ".") for p in (prefix, *d.scope) if p)
        own = d.name.replace("::", ".")
        d.qualified = f"{d.owner}.{own}" if d.owner else own
        d.kind = _refine_kind(d, outer, language)
        stack.append(d)


# Languages where no function is defined inside another: one found inside is tree-sitter's
# error recovery (a brace left open where a macro hid its pair: apsw's `casefold` "held"
# the next 1,300 lines of `unicode.c`, `strip` among them). Not C++: there a class a macro
# hides (`class PYBIND11_EXPORT error_already_set : public std::exception {`) reads as a
# function holding its methods, and cutting it leaves them loose, no better.
_NO_NESTED_FUNCTIONS = frozenset({"c", "objc"})


def _end_broken_function(stack: list[_Def], d: _Def) -> None:
    """End each function of `stack` around the function definition `d` (and what it
    holds there) where `d` begins, and take them off the stack: `d` is no part of them.
    A function inside a class-like symbol (a local struct's method) is a method of it."""
    i = len(stack)
    while i and not (stack[i - 1].kind in CLASS_KINDS or stack[i - 1].role == "scope"):
        i -= 1
    # (from the outermost such function: a namespace around it is left whole)
    first = next((k for k in range(i, len(stack)) if stack[k].kind in FUNCTION_KINDS), len(stack))
    for cut in stack[first:]:
        cut.end_byte = min(cut.end_byte, d.node.start_byte)
        cut.end_line = min(cut.end_line, max(d.node.start_point[0], 1))
    del stack[first:]


def _refine_kind(d: _Def, outer: _Def | None, language: str) -> str:
    kind = d.kind
    if kind not in FUNCTION_KINDS:
        return kind
    in_class = outer is not None and (
        outer.kind in CLASS_KINDS
        or outer.role == "scope"
        or (outer.kind == "module" and language in _MODULES_HOLD_METHODS)
    )
    if kind == "function" and (d.scope or in_class):
        kind = "method"
    if kind == "method":
        if _CONSTRUCTOR_BY_NAME.get(language) == d.name:
            return "constructor"
        if language in _CONSTRUCTOR_BY_CLASS_NAME:
            owner = d.scope[-1] if d.scope else (outer.name if in_class and outer else None)
            if owner is not None and d.name == owner:
                return "constructor"
    return kind


def _outline(
    defs: list[_Def], src: bytes, language: str, original: bytes | None = None
) -> list[Outlined]:
    # Only a function defines what a prototype or an overload's signature declares: a
    # macro renaming it does not (xxhash's `#define XXH32_digest XXH_NAME2(…)` beside the
    # prototype `XXH32_hash_t XXH32_digest(…);`), nor a namespace of its name (@types/node's
    # `namespace readFile { … }` beside the `export function readFile(…)` overloads).
    defined = {d.qualified for d in defs if d.role == "definition" and d.kind in FUNCTION_KINDS}
    dropped = {
        id(d)
        for d in defs
        if d.role == "declaration"
        and (d.qualified in defined or (d.parent is not None and d.parent.kind in FUNCTION_KINDS))
    }
    out: list[Outlined] = []
    depth_of: dict[int, int] = {}
    lines_of: dict[int, int] = {}  # each outline entry's header line, by id of its _Def
    for d in defs:
        if id(d) in dropped:
            continue
        depth = (
            depth_of[id(d.parent)] + 1 if d.parent is not None and id(d.parent) in depth_of else 0
        )
        depth_of[id(d)] = depth
        start = code_text.header_start(d.node)
        line = start.start_point[0] + 1
        sig = code_text.signature(src, start.start_byte, d.node, d.body)
        if (
            original is not None
            and d.role == "definition"
            and d.body is not None
            and src[start.start_byte : d.body.start_byte]
            != original[start.start_byte : d.body.start_byte]
        ):
            # a function whose header `c_macros` blanked (`TEST_CASE("…", "[tag]")`,
            # `MATCHER_P2(IsPair, a, b, "")`, `void Put(int k) LOCKS_EXCLUDED(mu_)`): its
            # header as written
            sig = code_text.signature(original, start.start_byte, d.node, d.body)
        if language in _TYPEDEF_LANGUAGES and sig.startswith("typedef ") and d.name not in sig:
            # `typedef struct { … } BrotliBitReader;`: the name comes after the body
            sig = f"{sig} {d.name}"
        if d.role == "declaration" and language in _TYPEDEF_LANGUAGES:
            # A C/C++ prototype kept (its body is in another file) says so as the file
            # does: the resolution pass prefers the body (`resolve._bodies_behind_declarations`)
            sig = f"{sig};"
        comments, lead_row = code_text.leading_block(src, d.node, language)
        lead_line = lead_row + 1
        if d.parent is not None and id(d.parent) in lines_of:
            lead_line = max(lead_line, lines_of[id(d.parent)] + 1)
        lead_line = min(lead_line, line)
        lines_of[id(d)] = line
        if d.role == "scope":
            out.append(
                Outlined(
                    sig, depth, line, d.end_line, None, d.node.start_byte, d.end_byte, -1, lead_line
                )
            )
            continue
        if language in _DOCSTRING_LANGUAGES:
            doc = code_text.python_docstring(src, d.body)
        else:
            doc = code_text.comments_text(src, comments, language)
        symbol = Symbol(
            kind=d.kind,
            name=d.name,
            qualified_name=d.qualified,
            line=line,
            end_line=max(d.end_line, line),
            language=language,
            signature=sig or None,
            docstring=doc,
            parent=d.owner or None,
        )
        out.append(
            Outlined(
                d.name,
                depth,
                line,
                symbol.end_line,
                symbol,
                d.node.start_byte,
                d.end_byte,
                d.name_byte,
                lead_line,
                d.section,
            )
        )
    return out
