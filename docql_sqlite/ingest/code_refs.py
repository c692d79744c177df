"""References and imports of one parsed source file: what it *uses*, where, and from where.

The *what* is data, `queries/refs/<language>.scm` (capture conventions in the README
there); this module runs the query, then:

- records each `@name` of a `@reference.<kind>` capture (kinds `call`, `type`,
  `inherit`) at the identifier's own line and column, with the qualified name of the
  innermost enclosing symbol of the outline (`caller`; None at the top level);
- leaves out a definition's own name (`type S struct`: `S` is not a use of `S`);
- reads each `@import` statement into `Import`s, per language (the module as written,
  quotes and `<>` removed, and the names imported from it), and records every imported
  name as a reference of kind `import`.

Resolution (which definition a reference means) needs the whole index: `resolve.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter
from pathlib import Path
from typing import Any

from tree_sitter import Node, Query, QueryCursor

from docql_sqlite.ingest.code_symbols import Outlined
from docql_sqlite.ingest.grammars import get_language
from docql_sqlite.model import Import, Reference

_QUERIES = Path(__file__).with_name("queries") / "refs"
_QUERY_FILE = {"tsx": "typescript", "starlark": "python"}
KINDS = ("call", "type", "inherit", "import")
# Languages whose imports name files (headers, module specifiers), not identifiers.
_FILE_MODULES = frozenset({"c", "cpp", "javascript", "typescript", "tsx"})


@lru_cache(maxsize=128)  # per language (~40)
def has_refs_query(language: str) -> bool:
    return (_QUERIES / f"{_QUERY_FILE.get(language, language)}.scm").is_file()


@lru_cache(maxsize=128)  # compiled once per language and process
def _query(language: str) -> Query:
    name = _QUERY_FILE.get(language, language)
    return Query(get_language(language), (_QUERIES / f"{name}.scm").read_text("utf-8"))


Match = tuple[int, dict[str, list[Node]]]


def extract_references(
    root: Node,
    src: bytes,
    language: str,
    outline: list[Outlined],
    matches: list[Match] | None = None,
) -> tuple[list[Reference], list[Import]]:
    """The references (in source order) and imports of one file. `matches`: this file's
    reference matches when the caller ran the query (`code_symbols.query_matches`)."""
    if not has_refs_query(language):
        return [], []
    if matches is None:
        matches = QueryCursor(_query(language)).matches(root)
    # stable: earlier patterns claim name nodes first
    matches = sorted(matches, key=_FIRST)
    definition_names = {o.name_byte for o in outline if o.name_byte >= 0}
    claimed: set[tuple[int, int]] = set()
    # (start byte, end byte, kind, name node, a macro's name)
    found: list[tuple[int, int, str, Node, bool]] = []
    import_nodes: list[Node] = []
    seen_imports: set[tuple[int, int]] = set()
    kinds = _pattern_kinds(language)  # pattern → its reference kind, learnt from its first match
    predeclared = _PREDECLARED_TYPES.get(language)
    for pattern, captures in matches:
        statements = captures.get("import")
        if statements:
            node = statements[0]
            key = (node.start_byte, node.end_byte)
            if key not in seen_imports:
                seen_imports.add(key)
                import_nodes.append(node)
            continue
        names = captures.get("name")
        if not names:
            continue
        kind = kinds.get(pattern)
        if kind is None:
            kind = next((c[10:] for c in captures if c.startswith("reference.")), None)
            if kind is None:
                continue
            kinds[pattern] = kind
        name_node = names[0]
        start = name_node.start_byte
        key = (start, name_node.end_byte)
        if key in claimed or start in definition_names:
            continue
        if kind == "type" and (
            (predeclared is not None and src[start : key[1]] in predeclared)
            or _is_own_name(name_node)
        ):
            continue
        claimed.add(key)
        # A Rust macro's name (`println!`, `alloc::vec!`) is recorded with its `!`, so it
        # never resolves to a function of the same name (`assert!` is not `fn assert`).
        # Its pattern captures the `macro_invocation` itself (asking the name node for
        # its parent instead walked down from the root: a sixth of the extraction).
        macro = kind == "call" and captures["reference.call"][0].type == "macro_invocation"
        found.append((start, key[1], kind, name_node, macro))
    found.sort(key=_FIRST)
    lines = _Lines(src)
    ascii_only = lines.ascii
    refs = []
    for start, end, kind, node, macro in found:
        row, byte_column = node.start_point
        text = src[start:end]
        name = text.decode("utf-8", "replace")
        refs.append(
            Reference(  # name, kind, line, end_line, column (positional: cheaper)
                name + "!" if macro else name,
                kind,
                row + 1,
                # the node's own text holds its line breaks (an identifier has none)
                row + 1 + text.count(b"\n"),
                byte_column + 1 if ascii_only else lines.column(row, byte_column),
            )
        )
    starts = [f[0] for f in found]
    imports: list[Import] = []
    reader = _IMPORT_READERS.get(_QUERY_FILE.get(language, language))
    for node in sorted(import_nodes, key=lambda n: n.start_byte):
        if reader is None:
            continue
        line, end_line = _line_range(node)
        column = lines.column(node.start_point[0], node.start_point[1])
        for module, names, *spec in reader(src, node):
            if not module and not names:
                continue
            if spec:  # one import of a group (Go's `import ( ... )`): its own line
                line, end_line = _line_range(spec[0])
            imports.append(Import(module, names, line, end_line))
            # A module imported whole is a use of its last name where that is an
            # identifier (`import os.path`, Go's `"net/http"`), not of a file name.
            used = names or ([module] if language not in _FILE_MODULES else [])
            for name in used:
                short = _last_part(module if name == "self" else name)
                if short and short != "*" and short.isidentifier():
                    refs.append(Reference(short, "import", line, end_line, column))
                    starts.append(node.start_byte)
    if len(refs) > len(found):  # merge the import references in: by start, imports first
        # (a key list: no Python key function called per reference)
        keys = [(start, ref.kind != "import") for start, ref in zip(starts, refs)]
        order = sorted(range(len(refs)), key=keys.__getitem__)
        refs = [refs[i] for i in order]
        starts = [starts[i] for i in order]
    _set_callers(refs, starts, outline)
    return refs, imports


_FIRST = itemgetter(0)


@lru_cache(maxsize=128)  # per language: learnt once per process, not once per file
def _pattern_kinds(language: str) -> dict[int, str]:
    return {}


def _line_range(node: Node) -> tuple[int, int]:
    """1-based first and last line of `node`; a node that ends with its newline (a C
    `#include`) ends on the line before."""
    end_row, end_column = node.end_point
    if end_column == 0 and end_row > node.start_point[0]:
        end_row -= 1
    return node.start_point[0] + 1, end_row + 1


# Type names a language predeclares: never defined in an index, and in Go and C# the most
# frequent type uses by far (a third of Go's), so they are not recorded.
_PREDECLARED_TYPES = {
    "go": frozenset(
        b"bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 "
        b"rune string uint uint8 uint16 uint32 uint64 uintptr any comparable".split()
    ),
}


def _is_own_name(node: Node) -> bool:
    """`node` names the declaration it sits in (`type_spec name:`, C's typedef name)."""
    parent = node.parent
    if parent is None:
        return False
    named = parent.child_by_field_name("name")
    if named is not None and named.start_byte == node.start_byte:
        return parent.type not in ("generic_type", "qualified_type", "nested_type_identifier")
    if parent.type == "type_definition":  # C/C++ `typedef struct {...} T;`
        declarator = parent.child_by_field_name("declarator")
        return declarator is not None and declarator.start_byte == node.start_byte
    return False


def _set_callers(refs: list[Reference], starts: list[int], outline: list[Outlined]) -> None:
    """Each reference's innermost enclosing symbol, by byte extent (a sweep: both lists
    are in source order)."""
    in_outline = [o for o in outline if o.symbol is not None]  # Document.symbols' order
    ords = {id(o): i for i, o in enumerate(in_outline)}
    symbols = sorted(in_outline, key=lambda o: (o.start_byte, -o.end_byte))
    stack: list[Outlined] = []
    next_symbol = 0
    for ref, start in zip(refs, starts):
        while next_symbol < len(symbols) and symbols[next_symbol].start_byte <= start:
            symbol = symbols[next_symbol]
            while stack and stack[-1].end_byte <= symbol.start_byte:
                stack.pop()
            stack.append(symbol)
            next_symbol += 1
        while stack and stack[-1].end_byte <= start:
            stack.pop()
        if stack:
            owner = stack[-1]
            ref.caller = owner.symbol.qualified_name if owner.symbol is not None else None
            ref.caller_ord = ords[id(owner)]


class _Lines:
    """Byte columns → 1-based character columns (tree-sitter counts bytes)."""

    def __init__(self, src: bytes) -> None:
        self.src = src
        self.ascii = src.isascii()  # once: per reference it made extraction quadratic
        self.starts: list[int] | None = None

    def column(self, row: int, byte_column: int) -> int:
        if byte_column == 0 or self.ascii:
            return byte_column + 1
        if self.starts is None:
            self.starts = [0]
            at = self.src.find(b"\n")
            while at >= 0:
                self.starts.append(at + 1)
                at = self.src.find(b"\n", at + 1)
        start = self.starts[row]
        return len(self.src[start : start + byte_column].decode("utf-8", "replace")) + 1


def _text(src: bytes, node: Node) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _last_part(name: str) -> str:
    for separator in ("::", ".", "/"):
        name = name.rsplit(separator, 1)[-1]
    return name.strip()


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"'`<" and text[-1] in "\"'`>":
        return text[1:-1]
    return text


# -- imports, per language: (module as written, names imported from it) -----------------
# (module, names) or (module, names, node whose lines the import takes)
_Read = Callable[[bytes, Node], list[tuple[Any, ...]]]


def _field_children(node: Node, field: str) -> list[Node]:
    return [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == field]


def _python(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    def dotted(n: Node) -> str:
        if n.type == "aliased_import":
            inner = n.child_by_field_name("name")
            return _text(src, inner) if inner is not None else ""
        return _text(src, n)

    if node.type == "import_statement":
        return [(dotted(n), []) for n in _field_children(node, "name")]
    if node.type == "future_import_statement":
        return [("__future__", [dotted(n) for n in _field_children(node, "name")])]
    module = node.child_by_field_name("module_name")
    names = [dotted(n) for n in _field_children(node, "name")]
    if any(c.type == "wildcard_import" for c in node.children):
        names.append("*")
    return [("".join(_text(src, module).split()) if module is not None else "", names)]


def _go(src: bytes, node: Node) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "import_spec":
            path = n.child_by_field_name("path")
            if path is not None:
                out.append((_unquote(_text(src, path)), [], n))
        else:
            stack.extend(reversed(n.named_children))
    return out


def _rust(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    if node.type == "extern_crate_declaration":
        name = node.child_by_field_name("name")
        return [(_text(src, name), [])] if name is not None else []
    argument = node.child_by_field_name("argument")
    if argument is None:
        return []

    def split(n: Node) -> tuple[str, list[str]]:
        if n.type == "scoped_identifier":
            path, name = n.child_by_field_name("path"), n.child_by_field_name("name")
            return (_text(src, path) if path is not None else ""), [
                _text(src, name) if name is not None else ""
            ]
        if n.type == "use_as_clause":
            path = n.child_by_field_name("path")
            return split(path) if path is not None else ("", [])
        if n.type == "use_wildcard":
            inner = n.named_children[0] if n.named_children else None
            return (_text(src, inner) if inner is not None else ""), ["*"]
        if n.type == "scoped_use_list":
            path, items = n.child_by_field_name("path"), n.child_by_field_name("list")
            names = [_text(src, c) for c in items.named_children] if items is not None else []
            return (_text(src, path) if path is not None else ""), names
        if n.type == "use_list":
            return "", [_text(src, c) for c in n.named_children]
        return _text(src, n), []

    module, names = split(argument)
    return [(" ".join(module.split()), [" ".join(n.split()) for n in names])]


def _dotted_import(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    """Java and Kotlin: `import a.b.C;`, `import a.b.*;`, `import static a.B.c;`."""
    path = next(
        (
            c
            for c in node.named_children
            if c.type in ("scoped_identifier", "identifier", "qualified_identifier")
        ),
        None,
    )
    if path is None:
        return []
    text = "".join(_text(src, path).split())
    wildcard = any(c.type == "asterisk" or c.type == "*" for c in node.children) or _text(
        src, node
    ).rstrip("; \n").endswith("*")
    if wildcard:
        return [(text, ["*"])]
    module, _, name = text.rpartition(".")
    return [(module or text, [name] if module else [])]


def _javascript(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    if node.type == "call_expression":  # require("m")
        arguments = node.child_by_field_name("arguments")
        string = arguments.named_children[0] if arguments is not None else None
        return [(_unquote(_text(src, string)), [])] if string is not None else []
    source = node.child_by_field_name("source")
    if source is None:
        return []
    names: list[str] = []
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    for child in clause.named_children if clause is not None else []:
        if child.type == "identifier":
            names.append("default")
        elif child.type == "namespace_import":
            names.append("*")
        elif child.type == "named_imports":
            for spec in child.named_children:
                name = spec.child_by_field_name("name")
                if name is not None:
                    names.append(_unquote(_text(src, name)))
    return [(_unquote(_text(src, source)), names)]


def _include(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    path = node.child_by_field_name("path")
    return [(_unquote(_text(src, path)), [])] if path is not None else []


def _using(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    named = [c for c in node.named_children if c.type in ("qualified_name", "identifier")]
    if not named:
        return []
    # `using Q = R.S;`: the last name is the namespace or type imported
    return [("".join(_text(src, named[-1]).split()), [])]


_IMPORT_READERS: dict[str, _Read] = {
    "python": _python,
    "go": _go,
    "rust": _rust,
    "java": _dotted_import,
    "kotlin": _dotted_import,
    "javascript": _javascript,
    "typescript": _javascript,
    "c": _include,
    "cpp": _include,
    "c_sharp": _using,
}
