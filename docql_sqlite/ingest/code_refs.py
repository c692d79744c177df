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

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter
from pathlib import Path
from typing import Any

from tree_sitter import Node, Query, QueryCursor

from docql_sqlite.ingest.code_symbols import Outlined
from docql_sqlite.ingest.code_text import C_KEYWORDS, CPP_KEYWORDS
from docql_sqlite.ingest.grammars import get_language
from docql_sqlite.model import Import, Reference, ReferenceRow, reference_objects
from docql_sqlite.module_paths import local_modules
from docql_sqlite.ref_codes import (
    BUILT_IN_OBJECT,
    CALLABLE,
    CLASS_LANGUAGES,
    CLASS_LIKE,
    OTHER_OBJECT,
    OWN_MEMBER,
    PARENT,
    REFERENCE_KINDS,
    VALUE_OF,
)

_QUERIES = Path(__file__).with_name("queries") / "refs"
_QUERY_FILE = {"tsx": "typescript", "starlark": "python"}
# Languages whose imports name files (headers, module specifiers), not identifiers.
_FILE_MODULES = frozenset({"c", "cpp", "objc", "javascript", "typescript", "tsx"})
# A keyword is no reference (`code_text.C_KEYWORDS`: sentencepiece had `virtual` 108 and
# `static_cast` 160 unresolved uses where recovery read them as names), compared as bytes.
_KEYWORDS: dict[str, frozenset[bytes]] = {
    "c": frozenset(word.encode() for word in C_KEYWORDS),
    "cpp": frozenset(word.encode() for word in CPP_KEYWORDS),
    "objc": frozenset(word.encode() for word in C_KEYWORDS),
}


@lru_cache(maxsize=128)  # per language (~40)
def has_refs_query(language: str) -> bool:
    return (_QUERIES / f"{_QUERY_FILE.get(language, language)}.scm").is_file()


@lru_cache(maxsize=128)  # compiled once per language and process
def _query(language: str) -> Query:
    name = _QUERY_FILE.get(language, language)
    return Query(get_language(language), (_QUERIES / f"{name}.scm").read_text("utf-8"))


Match = tuple[int, dict[str, list[Node]]]

_CALL, _TYPE, _IMPORT = (REFERENCE_KINDS.index(k) for k in ("call", "type", "import"))
# What a pattern of a language's reference query is, learnt from its first match
# (`_pattern_kinds`): an import statement, a pattern that records nothing, or a
# reference: (kind code, suffix of the name: "!" for a Rust macro).
_IMPORT_PATTERN = (-1, "")
_NOTHING = (-2, "")
_GENERIC_PATTERN = (-3, "")  # a type parameter's name (`@generic`)
_RECEIVER_PATTERN = (-4, "")  # a Go method's receiver name (`@receiver`)
_ATTRIBUTE_PATTERN = (-5, "")  # a Rust attribute's argument tokens (`@attribute`)
_TYPED_PATTERN = (-6, "")  # a Go or Java name declared with a type (`@typed`, `@type`, `@scope`)
_ATTRIBUTE_BOUND_PATTERN = (-7, "")  # a Python `self.x = …` (`@self`, `@attr`, `@bind`)
_OWN_NAME_PATTERN = (-8, "")  # a name a declaration gives, no use (`@own`: Rust's `Item =`)
_FIELD_PATTERN = (-9, "")  # a type's field and its type (`@struct`, `@field`, `@type`)
# The capture that makes a pattern one of these, in the order they are told apart.
_SPECIAL_CAPTURES = (
    ("import", _IMPORT_PATTERN),
    ("generic", _GENERIC_PATTERN),
    ("receiver", _RECEIVER_PATTERN),
    ("attribute", _ATTRIBUTE_PATTERN),
    ("typed", _TYPED_PATTERN),
    ("attr", _ATTRIBUTE_BOUND_PATTERN),
    ("own", _OWN_NAME_PATTERN),
    ("field", _FIELD_PATTERN),
)


def extract_references(
    root: Node,
    src: bytes,
    language: str,
    outline: list[Outlined],
    matches: list[Match] | None = None,
) -> tuple[list[Reference], list[Import]]:
    """`extract_reference_rows` with the references as `Reference` objects."""
    rows, imports = extract_reference_rows(root, src, language, outline, matches)
    return reference_objects(rows, [o.symbol for o in outline if o.symbol is not None]), imports


def extract_reference_rows(
    root: Node,
    src: bytes,
    language: str,
    outline: list[Outlined],
    matches: list[Match] | None = None,
) -> tuple[list[ReferenceRow], list[Import]]:
    """The references (in source order, as `ReferenceRow`s: what `refs_staged` stores) and
    imports of one file. `matches`: this file's reference matches when the caller ran the
    query (`code_symbols.query_matches`).

    Run for every reference of every code file indexed (~2 M on the scale corpus' code),
    so it does as little Python per match as it can: the pattern's kind is learnt once
    per process, and each reference becomes its row in one step (no object per
    reference, issue 23)."""
    if not has_refs_query(language):
        return [], []
    if matches is None:
        matches = QueryCursor(_query(language)).matches(root)
    # stable: earlier patterns claim name nodes first
    matches = sorted(matches, key=_FIRST)
    definition_names = {o.name_byte for o in outline if o.name_byte >= 0}
    keywords = _KEYWORDS.get(language)
    claimed: set[tuple[int, int]] = set()
    # (start byte, end byte, kind code, name node, suffix of the name)
    found: list[tuple[int, int, int, Node, str]] = []
    import_nodes: list[Node] = []
    seen_imports: set[tuple[int, int]] = set()
    kinds = _pattern_kinds(language)
    predeclared = _PREDECLARED_TYPES.get(language)
    own_names_apart = language not in _OWN_NAMES_OUTLINED
    own_names: set[int] = set()  # the starts of `@own` names (Rust)
    perl_paths = language == "perl"
    # A type parameter's name → the byte extents of the declarations that declare it.
    generics: dict[bytes, list[tuple[int, int]]] = {}
    # Go: each method's extent and the name its receiver has there.
    receivers: list[tuple[int, int, bytes]] = []
    # Rust: the calls found among a macro's tokens (by start), and the attributes' extents
    # (whose tokens hold none).
    token_calls: set[int] = set()
    attributes: list[tuple[int, int]] = []
    # Python: a name bound → (where, where, the class a capitalised call names, or "").
    typed: dict[bytes, list[tuple[int, int, str]]] = {}
    # Go: the matches of names declared with a named type (`_go_typed` reads those of
    # the names used as receivers: most variables never are).
    declared: list[dict[str, list[Node]]] = []
    # Python: `self.x = …` → the same, by the attribute's name.
    attributes_bound: dict[bytes, list[tuple[int, int, str]]] = {}
    # Rust, Go, TypeScript: (a type's name, a field's name) → (the field's type, where it
    # is declared), for `self.field.x` (`_field_members`).
    fields: dict[tuple[str, bytes], tuple[bytes, int]] = {}
    for pattern, captures in matches:
        kind, suffix = kinds.get(pattern) or _learn(kinds, pattern, captures)
        if kind < 0:
            if kind == -1:  # _IMPORT_PATTERN
                node = captures["import"][0]
                key = (node.start_byte, node.end_byte)
                if key not in seen_imports:
                    seen_imports.add(key)
                    import_nodes.append(node)
            elif kind == -3:  # _GENERIC_PATTERN: `<A: Allocator>`, `<T extends X>`
                node = captures["generic"][0]
                owner = _generic_owner(node)
                generics.setdefault(src[node.start_byte : node.end_byte], []).append(
                    (owner.start_byte, owner.end_byte)
                )
            elif kind == -5:  # _ATTRIBUTE_PATTERN: `(test, derive(Debug))` of a `#[cfg_attr…]`
                node = captures["attribute"][0]
                attributes.append((node.start_byte, node.end_byte))
            elif kind == -6:  # _TYPED_PATTERN: `c *Context`, `client = TestClient(app)`
                if language in _DECLARED_TYPES:
                    declared.append(captures)
                elif _QUERY_FILE.get(language, language) == "python":  # (and Starlark)
                    _bound(src, captures, typed)
                else:
                    _js_bound(src, captures, typed)
            elif kind == -7:  # _ATTRIBUTE_BOUND_PATTERN: `self.session = Session()`
                if src[captures["self"][0].start_byte : captures["self"][0].end_byte] == b"self":
                    _bound(
                        src, {"typed": captures["attr"], "bind": captures["bind"]}, attributes_bound
                    )
            elif kind == -8:  # _OWN_NAME_PATTERN: `Item` of `Iterator<Item = T>`
                own_names.add(captures["own"][0].start_byte)
            elif kind == -9:  # _FIELD_PATTERN: `cmd: &'cmd Command` in `struct Help`
                type_node = captures["type"][0]
                field_type = (
                    _rust_type(src, type_node)
                    if language == "rust"
                    else b"".join(
                        src[type_node.start_byte : type_node.end_byte].lstrip(b"*").split()
                    )
                )
                if field_type is not None:
                    struct, field = captures["struct"][0], captures["field"][0]
                    member = src[field.start_byte : field.end_byte]
                    fields[(_text(src, struct), member)] = (field_type, field.start_byte)
            elif kind == -4:  # _RECEIVER_PATTERN: `func (b *Buffer) grow(…)`
                node = captures["receiver"][0]
                method = captures["method"][0]  # (captured: `Node.parent` walks the tree)
                receivers.append(
                    (method.start_byte, method.end_byte, src[node.start_byte : node.end_byte])
                )
            continue
        names = captures.get("name")
        if not names:
            continue
        name_node = names[0]
        start, end = name_node.start_byte, name_node.end_byte
        if perl_paths:
            # Perl's `Foo::Util::helper`: the name is the last part (its path the
            # qualifier, `_perl_qualifier`); the column stays the path's
            cut = src.rfind(b"::", start, end)
            if cut >= 0:
                start = cut + 2
        if kind == _TYPE and predeclared is not None and src[start:end] in predeclared:
            continue  # (first: three of four of Go's type names are `int`, `error`, …)
        key = (start, end)
        if key in claimed or start in definition_names:
            continue
        if keywords is not None and src[start:end] in keywords:
            continue
        arguments = captures.get("arguments")
        if arguments is not None:  # a call among a macro's tokens (queries/refs/rust.scm)
            called = _token_call(src, name_node, arguments[0], captures["reference.call"][0])
            if called is None:
                continue
            suffix = called
            token_calls.add(start)
        if kind == _TYPE and own_names_apart and _is_own_name(name_node):
            continue
        claimed.add(key)
        found.append((start, end, kind, name_node, suffix))
    if own_names:
        found = [f for f in found if f[0] not in own_names]
    if token_calls and attributes:
        attributes.sort()
        starts = [a for a, _ in attributes]

        def in_attribute(at: int) -> bool:
            i = bisect_right(starts, at) - 1
            return i >= 0 and at < attributes[i][1]

        found = [f for f in found if f[0] not in token_calls or not in_attribute(f[0])]
    if generics:
        # A use of a type parameter names no definition (Rust's allocator `A` linked 545
        # times to a test's `struct A`): the declaration and its uses inside its owner;
        # not a path's last part (`BorrowType: marker::BorrowType` names the trait too).
        found = [
            f
            for f in found
            if f[2] != _TYPE
            or src[f[0] - 1 : f[0]] in _AFTER_PATH
            or not any(a <= f[0] < b for a, b in generics.get(src[f[0] : f[1]], ()))
        ]
    found.sort(key=_FIRST)
    lines = _Lines(src)
    bounds, owners = _owner_runs(outline)
    imports: list[Import] = []
    import_refs: list[ReferenceRow] = []
    import_starts: list[int] = []
    reader = _IMPORT_READERS.get(_QUERY_FILE.get(language, language))
    if import_nodes and reader is not None:
        for node in sorted(import_nodes, key=lambda n: n.start_byte):
            line, end_line = _line_range(node)
            column = lines.column(node.start_point[0], node.start_point[1])
            caller = owners[bisect_right(bounds, node.start_byte) - 1]
            for module, names, *spec in reader(src, node):
                if not module and not names:
                    continue
                alias = spec[0] if spec else None
                if len(spec) > 1:  # one import of a group (Go's `import ( ... )`): its line
                    line, end_line = _line_range(spec[1])
                imports.append(Import(module, names, line, end_line, alias))
                # A module imported whole is a use of its last name where that is an
                # identifier (`import os.path`, Go's `"net/http"`), not of a file name.
                used = names or ([module] if language not in _FILE_MODULES else [])
                if names == ["*"] and language in CLASS_LANGUAGES:
                    # Java's `import static a.B.*`, C#'s `using static A.B;`: the class B
                    used = [module] if _last_part(module)[:1].isupper() else []
                for name in used:
                    short = _last_part(module if name == "self" else name)
                    if short and short != "*" and short.isidentifier():
                        import_refs.append(
                            (
                                short,
                                _IMPORT,
                                caller,
                                line,
                                None if end_line == line else end_line,
                                column,
                                None,
                            )
                        )
                        import_starts.append(node.start_byte)
    # The module a use names (`http.Get`, `json.dumps`, `fs::read`): the local name of an
    # import of this file in front of it, found for the whole file by one scan; where
    # methods name their own object (`self`, `this`), a member of any other is marked.
    own = _OWN_RECEIVERS.get(language)
    # A plain name before `.` (reversed) of each member of another object, by its start:
    # what `_retyped` reads (filled by `qualifier`, which matched it already).
    plain: dict[int, bytes] = {}
    qualifier = (
        _qualifiers(
            src,
            imports,
            own,
            {o.symbol.name for o in outline if o.symbol},
            _BUILT_IN_RECEIVERS.get(language, frozenset()),
            language in _PATHS_WITH_COLONS,
            (
                {o.symbol.parent for o in outline if o.symbol and o.symbol.parent}
                if language == "lua"  # (the tables its functions are defined on: `M.f`)
                else {o.symbol.name for o in outline if o.symbol and o.symbol.kind in CLASS_LIKE}
            ),
            sorted(receivers) if language == "go" else None,
            language in _ARROW_LANGUAGES,
            language,
            plain,
        )
        if imports or own is not None
        else None
    ) or _no_qualifier
    # What may stand right before a qualified name: Perl writes `$x -> is_nan()` too
    after = _AFTER_OR_BLANK if language == "perl" else _AFTER
    if lines.ascii:  # bytes are characters: slice the text, no decode per name
        text = src.decode("ascii")
        refs: list[ReferenceRow] = [
            (
                (name := text[start:end]) + suffix,
                kind,
                owners[bisect_right(bounds, start) - 1],
                (point := node.start_point)[0] + 1,
                # the node's own text holds its line breaks (an identifier has none)
                None if "\n" not in name else point[0] + 1 + name.count("\n"),
                point[1] + 1,
                qualifier(start) if src[start - 1] in after else None,
            )
            for start, end, kind, node, suffix in found
        ]
    else:
        refs = []
        for start, end, kind, node, suffix in found:
            row, byte_column = node.start_point
            name = src[start:end].decode("utf-8", "replace")
            refs.append(
                (
                    name + suffix,
                    kind,
                    owners[bisect_right(bounds, start) - 1],
                    row + 1,
                    None if "\n" not in name else row + 1 + name.count("\n"),
                    # the characters of the line before the name (its bytes end at `start`)
                    len(src[start - byte_column : start].decode("utf-8", "replace")) + 1,
                    qualifier(start) if src[start - 1] in after else None,
                )
            )
    if language == "rust":
        refs = _chained(src, found, refs, plain)
        if declared and plain:
            declared = _of_classes(src, declared, generics)
            modules = _bound_names(imports, language)
            refs = _go_typed(root, src, found, refs, declared, plain, modules, rust=True)
    elif language == "ruby":
        refs = _ruby_super(refs, outline)
    elif language == "python":
        refs = _typed_receivers(found, refs, outline, plain)
        if typed or attributes_bound:
            # (`import a.b` binds `a` too)
            modules = _bound_names(imports, language) | {
                i.module.split(".")[0] for i in imports if not i.names and i.alias is None
            }
            typed = _of_modules(typed, modules)
            attributes_bound = _of_modules(attributes_bound, modules)
            if typed:
                refs = _py_bound(found, refs, typed, outline, bounds, owners, modules, plain)
            refs = _py_attributes(
                src, found, refs, typed, attributes_bound, outline, bounds, owners
            )
        if typed and refs:
            refs = _without_aliases(refs, typed, bounds, owners)
    elif declared and language in _DECLARED_TYPES:
        if language == "cpp":
            declared = _of_classes(src, declared, generics)
        if language in CLASS_LANGUAGES or language == "cpp":
            # `this.client.get()` (Swift's `self.client`, C++'s `this->client_`): the
            # class's field, declared in its body, as the bare `client.get()` is.
            this = {"swift": _SELF_MEMBER_REVERSED, "cpp": _THIS_ARROW_MEMBER}
            members = _plain_receivers(src, found, refs, this.get(language, _THIS_MEMBER))
            plain = {**plain, **members} if members else plain
        if plain:
            modules = _bound_names(imports, language)
            refs = _go_typed(root, src, found, refs, declared, plain, modules)
    elif typed:  # JavaScript and TypeScript: as Python's names
        if generics:
            typed = _without_type_parameters(typed, generics)
        modules = _bound_names(imports, language)
        refs = _py_bound(found, refs, typed, outline, bounds, owners, modules, plain)
    if fields:
        # (a type parameter, Rust's `parser: P`, names no type: `_of_classes`' rule)
        typed_fields = {
            key: type_name.decode("utf-8")
            for key, (type_name, at) in fields.items()
            if not any(a <= at < b for a, b in generics.get(type_name, ()))
        }
        if typed_fields:
            refs = _field_members(src, found, refs, typed_fields, outline, language, receivers)
    if import_refs:  # merge the import references in: by start, imports first
        starts = [f[0] for f in found] + import_starts
        refs += import_refs
        # (a key list: no Python key function called per reference)
        keys = [(start, ref[1] != _IMPORT) for start, ref in zip(starts, refs)]
        refs = [refs[i] for i in sorted(range(len(refs)), key=keys.__getitem__)]
    return refs, imports


_FIRST = itemgetter(0)


def _bound_names(imports: list[Import], language: str) -> set[str]:
    """The names the file's `imports` bind (`module_paths.local_modules`)."""
    return set(local_modules(((i.module, i.names, i.alias) for i in imports), "", language))


def _chained(
    src: bytes,
    found: list[tuple[int, int, int, Node, str]],
    refs: list[ReferenceRow],
    plain: dict[int, bytes],
) -> list[ReferenceRow]:
    """`refs` with each Rust method called on another object whose call chain begins at a
    type's associated function qualified `Type()` (`VALUE_OF`): `required` in
    `Arg::new("pos").index(1).required(true)`. A builder's methods return `Self`, so the
    chain's value is mostly of that type; the resolution pass links it to that type's
    member when there is one, else decides as for any other object
    (`resolve._Resolver._link`). Anything else in the chain (`?`, a field, an index, a
    function call) ends it unqualified. A member of a plain name (`plain`: `_qualifiers`'
    receivers) is on no chain, known without asking the tree for the name's parent."""
    out = refs
    for i, (entry, ref) in enumerate(zip(found, refs)):
        if ref[6] != OTHER_OBJECT or entry[0] in plain:
            continue
        root = _chain_root(src, entry[3])
        if root is not None:
            if out is refs:
                out = list(refs)
            out[i] = (*ref[:6], root + VALUE_OF)
    return out


def _field_members(
    src: bytes,
    found: list[tuple[int, int, int, Node, str]],
    refs: list[ReferenceRow],
    fields: dict[tuple[str, bytes], str],
    outline: list[Outlined],
    language: str,
    receivers: list[tuple[int, int, bytes]],
) -> list[ReferenceRow]:
    """`refs` with each member of a field of the method's own object qualified `Type()`
    (`VALUE_OF`) when the method's type declares the field with that type: Rust's
    `self.cmd.get_name()` (`cmd: &'cmd Command` in the struct of its `impl`, as
    `_rust_type` reads it), TypeScript's `this.client.get(…)` (`private client:
    HttpClient`, or a constructor's `private cache: Cache`), Go's `s.client.Get()` in a
    method whose receiver is `s *Server` (`client *Client` in `type Server struct`).
    clap's `self.cmd.get_name()` in its help, usage and validator code was ambiguous
    between two `get_name`s; Go's `s.mu.Unlock()` on a `sync.Mutex` field was the one
    `Unlock` of `net/http`'s `transport.go`."""
    symbols = [o.symbol for o in outline if o.symbol is not None]

    def owner(ref: ReferenceRow) -> str:
        parent = symbols[ref[2]].parent if ref[2] is not None else None
        return parent.rpartition(".")[2] if parent else ""

    def field_type(at: int, ref: ReferenceRow, receiver: bytes) -> str | None:
        return fields.get((owner(ref), receiver))

    if language != "go":
        pattern = _SELF_MEMBER_REVERSED if language == "rust" else _THIS_MEMBER
        return _retyped(found, refs, field_type, _plain_receivers(src, found, refs, pattern))
    # Go: the object is the method's receiver, whatever its name.
    methods = sorted(receivers)
    starts = [start for start, _, _ in methods]
    reverse, size = src[::-1], len(src)
    members: dict[int, bytes] = {}  # a member's start → its field's name, reversed
    for entry, ref in zip(found, refs):
        match = _OBJECT_FIELD.match(reverse, size - entry[0]) if ref[6] == OTHER_OBJECT else None
        k = bisect_right(starts, entry[0]) - 1
        if match and k >= 0 and entry[0] < methods[k][1] and methods[k][2] == match[2][::-1]:
            members[entry[0]] = match[1]
    return _retyped(found, refs, field_type, members)


def _ruby_super(refs: list[ReferenceRow], outline: list[Outlined]) -> list[ReferenceRow]:
    """`refs` with each Ruby `super` made what it calls: the method of the caller's name
    in the parent (`super(x)` in `initialize` calls the superclass's `initialize`:
    qualifier `super`, `PARENT`); a `super` outside a method names nothing."""
    if not any(ref[0] == "super" for ref in refs):
        return refs
    symbols = [o.symbol for o in outline if o.symbol is not None]
    out: list[ReferenceRow] = []
    for ref in refs:
        if ref[0] != "super":
            out.append(ref)
            continue
        caller = symbols[ref[2]] if ref[2] is not None else None
        if caller is not None and caller.kind in CALLABLE:
            out.append((caller.name, *ref[1:6], PARENT))
    return out


def _typed_receivers(
    found: list[tuple[int, int, int, Node, str]],
    refs: list[ReferenceRow],
    outline: list[Outlined],
    plain: dict[int, bytes],
) -> list[ReferenceRow]:
    """`refs` with each Python member of another object qualified `Type()` (`VALUE_OF`)
    when the object is a parameter of the function around it annotated with that class
    (`async def json(request: Request)` → `request.json()`): the resolution pass links
    it to that class's member when the index has one, else decides as for any other
    object. Found on FastAPI's sources: its handlers' `request.json()` were links by
    uniqueness, right or wrong as it happened."""
    typed: dict[int, dict[bytes, str]] = {}
    for ord_, o in enumerate(x for x in outline if x.symbol is not None):
        symbol = o.symbol
        signature = symbol.signature if symbol is not None else None
        # (most signatures annotate nothing: no parse for them)
        if signature and ":" in signature and symbol is not None and symbol.kind in CALLABLE:
            params = annotated_params(signature)
            if params:
                typed[ord_] = params
    if not typed:
        return refs

    def annotated(at: int, ref: ReferenceRow, receiver: bytes) -> str | None:
        params = typed.get(ref[2]) if ref[2] is not None else None
        return params.get(receiver) if params else None

    return _retyped(found, refs, annotated, plain)


# Languages whose names are declared with their type (a query's `@typed` patterns), whose
# members `_go_typed` qualifies by it: Go's `c *Context`, Java's `Logger logger`, C#'s,
# Kotlin's `val reg: Registry`, Swift's `let x = Foo()`.
_DECLARED_TYPES = frozenset({"go", "cpp", "rust"}) | CLASS_LANGUAGES


# C++ types that are no class a value's members could be looked up in: googletest's
# `TypeParam` (a typed test's type, which the `TYPED_TEST` macro defines).
_CPP_TYPE_PARAMETERS = frozenset({b"TypeParam"})


def _of_classes(
    src: bytes,
    declared: list[dict[str, list[Node]]],
    generics: dict[bytes, list[tuple[int, int]]],
) -> list[dict[str, list[Node]]]:
    """C++'s declarations whose type may be a class: not a template's type parameter
    where it is one (`T x; x.size()` is any `T`'s), nor `_CPP_TYPE_PARAMETERS`."""
    kept = []
    for captures in declared:
        kind = captures["type"][0]
        name = src[kind.start_byte : kind.end_byte]
        if name in _CPP_TYPE_PARAMETERS or any(
            a <= kind.start_byte < b for a, b in generics.get(name, ())
        ):
            continue
        kept.append(captures)
    return kept


def _declared(
    src: bytes,
    captures: dict[str, list[Node]],
    typed: dict[bytes, list[tuple[int, int, str]]],
    rust: bool = False,
) -> None:
    """Record a Go name declared with a named type (a match of the query's `@typed`
    patterns) in `typed`: its name → (where it is seen, from and to; the type as written,
    without its `*`: `Context`, `http.Request`; `rust`: the type as `_rust_type` reads
    it, `&'cmd Command` → `Command`)."""
    new = captures.get("new")
    if new is not None and src[new[0].start_byte : new[0].end_byte] != b"new":
        return  # `make(T)`, `f(T)`: a call that takes a type, not `new(T)`
    name = captures["typed"][0]
    text = src[name.start_byte : name.end_byte]
    if text == b"_":
        return
    # A parameter is seen in its whole function; a variable from its name on, to the end
    # of the innermost block around it (-1: `_go_typed` asks the tree when it needs it).
    scope = captures.get("scope")
    start, end = (scope[0].start_byte, scope[0].end_byte) if scope else (name.start_byte, -1)
    result = captures.get("result")
    if result is not None:  # the first result of a function: `=New`, `=http.NewRequest`
        called = src[result[0].start_byte : result[0].end_byte]
        if called in _GO_BUILT_IN_CALLS:
            return  # `new(T)` has its own pattern; `make`, `len`, … no named type
        type_name = b"=" + b"".join(called.split())
    elif rust:
        read = _rust_type(src, captures["type"][0])
        if read is None:
            return
        type_name = read
    else:
        kind = captures["type"][0]
        type_name = b"".join(src[kind.start_byte : kind.end_byte].lstrip(b"*").split())
        if type_name == b"var":  # Java's `var x = new Foo()`: its own pattern names Foo
            return
        if src[max(0, kind.start_byte - 5) : kind.start_byte] == b"std::":
            # C++'s standard library (the query keeps a qualified type's last part): a
            # class the index never holds, whatever it names `string_view` (Abseil)
            type_name = b"std::" + type_name
            if type_name in _CPP_SMART_POINTERS and (pointee := _cpp_pointee(src, kind)):
                type_name += b"->" + pointee  # `_go_typed` reads which one a member is
    typed.setdefault(text, []).append((start, end, type_name.decode("utf-8")))


# C++'s owning pointers: `p->get()` is the pointee's member, `p.get()` the pointer's own
# (`std::unique_ptr<Client> c; c->run()` was unresolved, a `std::unique_ptr`'s).
_CPP_SMART_POINTERS = frozenset({b"std::unique_ptr", b"std::shared_ptr"})


def _cpp_pointee(src: bytes, name: Node) -> bytes | None:
    """The class a C++ smart pointer's template argument names (`Client` of
    `std::unique_ptr<Client>`; a qualified one by its last part), None when it names
    no class (`int`, a template)."""
    template = name.parent
    arguments = template.child_by_field_name("arguments") if template is not None else None
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    kind = first.child_by_field_name("type") if first is not None else None
    if kind is not None and kind.type == "qualified_identifier":
        kind = kind.child_by_field_name("name")
    if kind is None or kind.type != "type_identifier":
        return None
    return src[kind.start_byte : kind.end_byte]


# Rust's wrappers read through: pointers that call their value's methods (auto-deref:
# `Box<Command>` is read as `Command`), and `Option` and `Result`, whose value a pattern
# of the same name mostly takes out (`if let Some(arg) = arg { arg.get_name() }`: the
# pattern's binding is not read); their own methods (`unwrap`, `map`) the index does not
# define on the type, and are decided as before.
_RUST_WRAPPERS = frozenset({b"Box", b"Rc", b"Arc", b"Option", b"Result"})


def _rust_type(src: bytes, node: Node | None) -> bytes | None:
    """The type a Rust value declared with the type `node` is of, by its name: `&'a mut
    T` and `_RUST_WRAPPERS` (`Box<T>`, `Option<&T>`) read through, a generic type by its own name
    (`Usage<'cmd>`), a path by its last part (`crate::error::Error`); None for `Self`
    (the impl's type: left to the rules by name), `impl Trait`, `dyn Trait`, a tuple, a
    slice, a function pointer."""
    while node is not None:
        kind = node.type
        if kind == "reference_type":
            node = node.child_by_field_name("type")
        elif kind == "generic_type":
            base = node.child_by_field_name("type")
            if base is not None and _rust_type(src, base) in _RUST_WRAPPERS:
                arguments = node.child_by_field_name("type_arguments")
                node = (
                    arguments.named_children[0] if arguments and arguments.named_children else None
                )
            else:
                node = base
        elif kind == "scoped_type_identifier":
            node = node.child_by_field_name("name")
        elif kind in ("type_identifier", "identifier"):
            text = src[node.start_byte : node.end_byte]
            return None if text == b"Self" else text
        else:
            return None
    return None


def _retyped(
    found: list[tuple[int, int, int, Node, str]],
    refs: list[ReferenceRow],
    type_of: Callable[[int, ReferenceRow, bytes], str | None],
    plain: dict[int, bytes],
) -> list[ReferenceRow]:
    """`refs` with each member of another object (`OTHER_OBJECT`) qualified `Type()`
    (`VALUE_OF`) where `type_of(its start, the row, the receiver's name)` names a type:
    the receiver is the plain name before its dot (`plain`: reversed, by the member's
    start, as `_qualifiers` or `_plain_receivers` found it; none for a longer chain,
    `a.b.name`, which none of these passes types)."""
    out = refs
    for i, (entry, ref) in enumerate(zip(found, refs)):
        if ref[6] != OTHER_OBJECT:
            continue
        name = plain.get(entry[0])
        if name is None:
            continue
        type_name = type_of(entry[0], ref, name[::-1])
        if type_name:
            if out is refs:
                out = list(refs)
            out[i] = (*ref[:6], type_name + VALUE_OF)
    return out


def _plain_receivers(
    src: bytes,
    found: list[tuple[int, int, int, Node, str]],
    refs: list[ReferenceRow],
    receiver: re.Pattern[bytes],
) -> dict[int, bytes]:
    """`_retyped`'s `plain` for another form of receiver than `_qualifiers` finds: for each
    member of another object, group 1 of `receiver` (`_MEMBER_REVERSED`'s form) matched on
    the file reversed from the member's start, unless a second group matched (a longer
    chain)."""
    match, reverse, size = receiver.match, src[::-1], len(src)
    found_names: dict[int, bytes] = {}
    for entry, ref in zip(found, refs):
        if ref[6] == OTHER_OBJECT:
            before = match(reverse, size - entry[0])
            if before is not None and before.group(1) is not None and before.lastindex != 2:
                found_names[entry[0]] = before.group(1)
    return found_names


# The nodes that end a local variable's scope (`_go_typed`): a block (Go, Java, C#,
# Kotlin) and Swift's statements (of a function, an `if`, a closure).
_BLOCKS = frozenset({"block", "statements", "compound_statement"})


# Go's built-in functions: no declared result type the index could hold.
_GO_BUILT_IN_CALLS = frozenset(
    b"append cap clear close complex copy delete imag len make max min new panic print "
    b"println real recover".split()
)


def _go_typed(
    root: Node,
    src: bytes,
    found: list[tuple[int, int, int, Node, str]],
    refs: list[ReferenceRow],
    matches: list[dict[str, list[Node]]],
    plain: dict[int, bytes],
    aliases: set[str] | None = None,
    rust: bool = False,
) -> list[ReferenceRow]:
    """`refs` with each Go member of another object qualified `Type()` (`VALUE_OF`) when
    the object is a name declared with that type where the member is used (`c.JSON(…)`
    after `c := &Context{}` or inside `func(c *Context)`; the innermost declaration when
    several are seen there): the resolution pass links it to that type's method (of the
    package a qualified type names), and to nothing the index holds when that package
    is not indexed (`r.FormValue` on an `*http.Request`). Found on gin 1.8.1, whose
    `c.JSON(…)` calls on a `*Context` were ambiguous between three `JSON` methods. A
    variable is seen to the end of the innermost block around its declaration (the
    file, for a package's), found in the tree for the names used as receivers only.
    `matches`: the query's matches of declarations; `plain`: `_qualifiers`' receivers;
    `rust`: the declarations are Rust's, their types read by `_rust_type` (`cmd: &'cmd
    Command` → `Command`); Java's, C#'s, Kotlin's, Swift's and C++'s are read as Go's."""
    # The declarations of the names used as receivers, and of the names their values
    # come from (`x := c.Copy()` before `x.m()`: `c`'s too).
    wanted = {name[::-1] for name in plain.values()}
    typed: dict[bytes, list[tuple[int, int, str]]] = {}
    others = []
    for captures in matches:
        name = captures["typed"][0]
        if src[name.start_byte : name.end_byte] in wanted:
            _declared(src, captures, typed, rust)
        else:
            others.append(captures)
    sources = {
        type_name[1:].partition(".")[0].encode()
        for places in typed.values()
        for _, _, type_name in places
        if type_name[:1] == "="
    }
    if sources:
        for captures in others:
            name = captures["typed"][0]
            if src[name.start_byte : name.end_byte] in sources:
                _declared(src, captures, typed, rust)

    def seen_to(start: int) -> int:
        # The innermost block holding the declaration, found going down from the root
        # by its byte (`Node.parent` goes down from the root at every step up).
        cursor = root.walk()
        end = root.end_byte
        while cursor.goto_first_child_for_byte(start) is not None:
            node = cursor.node
            if node is None or node.start_byte > start:
                break
            if node.type in _BLOCKS:
                end = node.end_byte
        return end

    # A name's places by start, with their starts, once it is first asked for: a name
    # declared hundreds of times in a file (`err := …`) is looked up by `bisect`.
    ordered: dict[bytes, tuple[list[int], list[tuple[int, int, str]]]] = {}

    def declared_at(name: bytes, at: int) -> tuple[int, int, str] | None:
        found = ordered.get(name)
        if found is None:
            places = typed.get(name)
            if not places:
                return None
            places = sorted((s, seen_to(s) if e < 0 else e, t) for s, e, t in places)
            found = ordered[name] = ([s for s, _, _ in places], places)
        starts, places = found
        # Blocks nest, so the places seen at `at` nest too: the innermost is the last
        # one begun before it that has not ended.
        for k in range(bisect_right(starts, at) - 1, -1, -1):
            if at < places[k][1]:
                return places[k]
        return None

    def declared(at: int, ref: ReferenceRow, receiver: bytes) -> str | None:
        found = declared_at(receiver, at)
        if found is None:
            return None
        start, _, type_name = found
        pointer, arrow, pointee = type_name.partition("->")
        if arrow:  # a C++ smart pointer: its pointee's member through `->`, else its own
            return pointee if src[max(0, at - 16) : at].rstrip().endswith(b"->") else pointer
        owner, dot, method = type_name[1:].partition(".")
        if type_name[:1] != "=" or not dot or owner in (aliases or ()):
            return type_name
        # `x := c.Copy()` with `c` of a known type: `=Context().Copy`, that type's
        # method's result (`resolve._go_result`); asked only of the names used as
        # receivers (most variables never are).
        value = declared_at(owner.encode(), start)
        if value is None or value[2][:1] == "=":
            return None
        return f"={value[2]}{VALUE_OF}.{method}"

    return _retyped(found, refs, declared, plain)


def _bound(
    src: bytes, captures: dict[str, list[Node]], bound: dict[bytes, list[tuple[int, int, str]]]
) -> None:
    """Record a Python binding of a plain name (a match of the query's `@typed`
    patterns) in `bound`: its name → (its start, twice; the class it holds, or "" when
    it cannot be told). A class is what an annotation names (`t: Router = …`), else what
    a call of a capitalised name makes (`TestClient(app)`, `web.Router()`: a class by
    Python's naming convention; anything else binds a value of no known class)."""
    name = captures["typed"][0]
    statement = captures["bind"][0]
    class_name: str | None = None
    if statement.type == "assignment":
        annotation = statement.child_by_field_name("type")
        value = statement.child_by_field_name("right")
        if value is not None and value.type == "await" and value.named_child_count == 1:
            value = value.named_children[0]  # `r = await client.get(…)`: the call's result
        if annotation is not None:
            class_name = _annotated_class(_text(src, annotation))
        elif value is not None and value.type == "call":
            function = value.child_by_field_name("function")
            class_name = _called_class(src, function) or _called_function(src, function)
        elif value is not None and value.type == "none":
            class_name = NO_VALUE
    else:  # a `with` item: what the call's class makes (`__enter__` mostly returns self)
        class_name = _called_class(src, captures["ctor"][0])
    at = name.start_byte
    bound.setdefault(src[at : name.end_byte], []).append((at, at, class_name or ""))


# The "class" of a Python binding to `None`: the name is the scope's and holds no object
# yet (`self.db = None` in `tearDown`, `cache = None` when an import fails): the typing
# passes skip it rather than count it as a value of another class.
NO_VALUE = "None"


def _without_aliases(
    refs: list[ReferenceRow],
    bound: dict[bytes, list[tuple[int, int, str]]],
    bounds: list[int],
    owners: list[int | None],
) -> list[ReferenceRow]:
    """`refs` with a class that is a capitalised name the module binds (`TextType =
    Union[str, "Text"]`, `E = TypeVar("E", bound=Expression)`, `_WaitSelector =
    selectors.PollSelector`) back to another object's:
    an alias or a type variable, no class, whose members are those of what it stands
    for (decided as for any other object's)."""
    aliases = {
        name.decode("utf-8", "replace") + VALUE_OF
        for name, places in bound.items()
        if name.lstrip(b"_")[:1].isupper()
        and any(owners[bisect_right(bounds, at) - 1] is None for at, _, _ in places)
    }
    if not aliases:
        return refs
    return [(*ref[:6], OTHER_OBJECT) if ref[6] in aliases else ref for ref in refs]


def _called_class(src: bytes, function: Node | None) -> str | None:
    """The class a call of `function` makes, by the naming convention: `Foo` for `Foo(…)`,
    `_Foo` for a private one (pydoc's `_HTMLDoc`), `mod.Foo` for `mod.Foo(…)` (a
    module's, when `mod` is one: `_of_modules`); None for a lower-case name or another
    expression."""
    if function is None or function.type not in ("identifier", "attribute"):
        return None
    text = _text(src, function)
    owner, _, last = text.rpartition(".")
    if not (last.lstrip("_")[:1].isupper() and last.isidentifier()) or "." in owner:
        return None
    return text if owner.isidentifier() or not owner else None


def _js_bound(
    src: bytes, captures: dict[str, list[Node]], bound: dict[bytes, list[tuple[int, int, str]]]
) -> None:
    """Record a JavaScript or TypeScript binding of a plain name in `bound` (as `_bound`
    does Python's): the class a type annotation names (`sub: Subscriber<T>`, `o:
    ns.Obs`: `Subscriber`, `Obs`) or a `new` makes (`new Subject<number>()`), else ""."""
    name = captures["typed"][0]
    written = captures.get("type")
    class_name = ""
    if written is not None:
        class_name = _class_written(_text(src, written[0]).lstrip(":").strip())
    else:
        value = captures["bind"][0].child_by_field_name("value")
        if value is not None and value.type == "new_expression":
            made = value.child_by_field_name("constructor")
            if made is not None and made.type in ("identifier", "member_expression"):
                class_name = _class_written(_text(src, made))
        declared = captures["bind"][0].child_by_field_name("type")
        if declared is not None and not class_name:
            class_name = _class_written(_text(src, declared).lstrip(":").strip())
    at = name.start_byte
    bound.setdefault(src[at : name.end_byte], []).append((at, at, class_name))


_CLASS_WRITTEN = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?=\s*(?:<|$))")


def _class_written(text: str) -> str:
    """The class a type or a constructor as written names (`Subscriber` for
    `Subscriber<T>`, `z.ZodString` for a namespace's: the resolution pass looks in the
    module `z` stands for), "" for a union, an array, an object type, a longer path or a
    lower-case name (`number`, `string`)."""
    matched = _CLASS_WRITTEN.match(text)
    written = matched.group(0) if matched else ""
    owner, _, last = written.rpartition(".")
    if written in _TS_TYPE_OPERATORS:
        return ""
    return written if last[:1].isupper() and "." not in owner else ""


# TypeScript's utility types: a type made of another (`Readonly<Options>` has Options'
# members), no class of their own.
_TS_TYPE_OPERATORS = frozenset(
    "Awaited Exclude Extract InstanceType NonNullable Omit Parameters Partial Pick Readonly "
    "Record Required ReturnType".split()
)


def _without_type_parameters(
    bound: dict[bytes, list[tuple[int, int, str]]], generics: dict[bytes, list[tuple[int, int]]]
) -> dict[bytes, list[tuple[int, int, str]]]:
    """`bound` with a class that is a type parameter where the name is bound (`x: T`
    inside `function f<T>(…)`) made unknown: no class of the index's."""
    return {
        name: [
            (a, b, "" if any(s <= a < e for s, e in generics.get(cls.encode(), ())) else cls)
            for a, b, cls in places
        ]
        for name, places in bound.items()
    }


def _called_function(src: bytes, function: Node | None) -> str | None:
    """`=f` for a call `f(…)`, `=a.f` for `a.f(…)` (a module's function or a value's
    method: `_py_bound` tells, and names the value's class): what the call returns,
    which the resolution pass reads in the function's return annotation
    (`resolve._python_result`); None for another expression."""
    if function is None or function.type not in ("identifier", "attribute"):
        return None
    text = _text(src, function)
    owner, _, last = text.rpartition(".")
    return "=" + text if last.isidentifier() and (not owner or owner.isidentifier()) else None


def _of_modules(
    bound: dict[bytes, list[tuple[int, int, str]]], modules: set[str]
) -> dict[bytes, list[tuple[int, int, str]]]:
    """`bound` with a class written `x.Foo` kept only when `x` is a module the file
    imports (`threading.Thread()`) or a class (`DocQLLexer.Cursor(…)`, a nested class:
    capitalised, by Python's naming convention); else the value of a method call
    (`ctx.Semaphore(0)` is a context's factory), of no known class."""
    return {
        name: [
            (
                a,
                b,
                cls
                if "." not in cls
                or cls[0] == "="
                or (outer := cls.partition(".")[0]) in modules
                or outer[:1].isupper()
                else "",
            )
            for a, b, cls in places
        ]
        for name, places in bound.items()
    }


def _py_bound(
    found: list[tuple[int, int, int, Node, str]],
    refs: list[ReferenceRow],
    bound: dict[bytes, list[tuple[int, int, str]]],
    outline: list[Outlined],
    bounds: list[int],
    owners: list[int | None],
    modules: set[str],
    plain: dict[int, bytes],
) -> list[ReferenceRow]:
    """`refs` with each Python member of another object qualified `Class()` (`VALUE_OF`)
    when the object is a name last bound to a new instance of that class (`_bound`): in
    the same function before the use, else (no binding of the function's own, and no
    parameter of that name) by the function around it (a closure), else by the module,
    where every binding agrees (`None` aside). Found on FastAPI's tests: `client =
    TestClient(app)` and `app = FastAPI()` at the top of a module, then `client.get(…)`
    and `@app.get(…)` in its functions — 3,146 ambiguous calls."""
    symbols = [o.symbol for o in outline if o.symbol is not None]
    owned: dict[bytes, list[tuple[int | None, int, str]]] = {
        name: [(owners[bisect_right(bounds, at) - 1], at, cls) for at, _, cls in places]
        for name, places in bound.items()
    }
    params: dict[int, frozenset[str]] = {}
    # the functions by qualified name, for the one a nested function is in
    enclosing = {s.qualified_name: i for i, s in enumerate(symbols) if s.kind in CALLABLE}

    exact: dict[int, frozenset[str]] = {}

    def named(function: int) -> frozenset[str]:
        if function not in exact:
            exact[function] = _params_named(symbols[function].signature or "")
        return exact[function]

    def is_param(function: int, name: bytes) -> bool:
        if function not in params:
            params[function] = _param_names(symbols[function].signature or "")
        return name.decode("utf-8", "replace") in params[function]

    def last_bound(at: int, ref: ReferenceRow, receiver: bytes) -> str | None:
        places = owned.get(receiver, ())
        caller = ref[2]
        own = [(where, cls) for owner, where, cls in places if owner == caller]
        if own:  # the function's own binding last before the use (none before: unbound)
            earlier = [p for p in own if p[0] < at and p[1] != NO_VALUE]
            return max(earlier)[1] if earlier else None
        if caller is not None and is_param(caller, receiver):
            return None  # (its annotation: `_typed_receivers`)
        # A function nested in a function sees the names of the one around it (a closure,
        # run after that one's bindings: every one of them agreeing, or its parameter's
        # annotation); a method does not see its class body's.
        outer = caller
        while outer is not None:
            outer = enclosing.get(symbols[outer].parent or "")
            if outer is None:
                break
            classes = {cls for owner, _, cls in places if owner == outer}
            if classes:
                classes.discard(NO_VALUE)
                return classes.pop() if len(classes) == 1 else None
            if is_param(outer, receiver):
                return annotated(outer, receiver.decode("utf-8", "replace"))
        module = {cls for owner, _, cls in places if owner is None}
        module.discard(NO_VALUE)
        return module.pop() if len(module) == 1 else None

    def typed(at: int, ref: ReferenceRow, receiver: bytes) -> str | None:
        cls = last_bound(at, ref, receiver)
        if cls and ref[2] is not None and cls in named(ref[2]):
            return None  # `ServerClass(…)` of a parameter `ServerClass=…`: a value, no class
        if not cls or not cls.startswith("=") or "." not in cls:
            return cls
        # `=a.f`: a module's function, or the method `f` of the value `a` (its class as
        # this file knows it where `a` is used: `client.get` → `=TestClient.get`)
        owner, _, method = cls[1:].partition(".")
        if owner in modules:
            return cls
        value = last_bound(at, ref, owner.encode()) or annotated(ref[2], owner)
        return f"={value}.{method}" if value and value[0] != "=" and "." not in value else None

    def annotated(caller: int | None, name: str) -> str | None:
        if caller is None:
            return None
        if caller not in annotations:
            signature = symbols[caller].signature or ""
            annotations[caller] = annotated_params(signature) if ":" in signature else {}
        return annotations[caller].get(name.encode())

    annotations: dict[int, dict[bytes, str]] = {}
    return _retyped(found, refs, typed, plain)


def _py_attributes(
    src: bytes,
    found: list[tuple[int, int, int, Node, str]],
    refs: list[ReferenceRow],
    bound: dict[bytes, list[tuple[int, int, str]]],
    attributes: dict[bytes, list[tuple[int, int, str]]],
    outline: list[Outlined],
    bounds: list[int],
    owners: list[int | None],
) -> list[ReferenceRow]:
    """`refs` with each Python `self.attr.name` qualified `Class()` (`VALUE_OF`) when
    every binding of `attr` in the class makes one class, `None` aside: `self.attr =
    Class(…)` in its methods (`_bound`), `attr: Class` in its body. Found on the
    standard library and requests-like clients: `self.session = Session()` in
    `__init__`, then `self.session.get(…)` in every method, was one of every `get` of
    the index."""
    symbols = [o.symbol for o in outline if o.symbol is not None]
    # the class of a binding's method (its parent), or of a class body's annotation
    by_class: dict[tuple[str, bytes], set[str]] = defaultdict(set)
    for name, places in attributes.items():
        for at, _, cls in places:
            owner = owners[bisect_right(bounds, at) - 1]
            parent = symbols[owner].parent if owner is not None else None
            if parent:
                by_class[(parent, name)].add(cls)
    for name, places in bound.items():
        for at, _, cls in places:
            owner = owners[bisect_right(bounds, at) - 1]
            if owner is not None and symbols[owner].kind in CLASS_LIKE:
                by_class[(symbols[owner].qualified_name, name)].add(cls)
    if not by_class:
        return refs

    def attribute(at: int, ref: ReferenceRow, receiver: bytes) -> str | None:
        parent = symbols[ref[2]].parent if ref[2] is not None else None
        classes = by_class.get((parent, receiver)) if parent else None
        if classes is None:
            return None
        classes = classes - {NO_VALUE}  # (`self.db = None` in `tearDown`)
        return classes.pop() if len(classes) == 1 and "" not in classes else None

    receivers = _plain_receivers(src, found, refs, _SELF_MEMBER_REVERSED)
    return _retyped(found, refs, attribute, receivers)


# `self.attr.` written before a name, reversed: the attribute's name (reversed) is group 1.
_SELF_MEMBER_REVERSED = re.compile(rb"[ \t]*\.[ \t]*(\w*[A-Za-z_])[ \t]*\.[ \t]*fles(?![\w.])")
# `object.attr.` written before a name, reversed: the attribute (group 1) and the object
# (group 2), a plain name (Go's receiver).
_OBJECT_FIELD = re.compile(rb"[ \t]*\.[ \t]*(\w*[A-Za-z_])[ \t]*\.[ \t]*(\w*[A-Za-z_])(?![\w.])")
# C++'s `this->attr.` or `this->attr->` written before a name, reversed.
_THIS_ARROW_MEMBER = re.compile(rb"[ \t]*(?:\.|>-)[ \t]*(\w*[A-Za-z_])[ \t]*>-[ \t]*siht(?![\w.])")
# `this.attr.` written before a name, reversed (Java, C#, Kotlin, TypeScript).
_THIS_MEMBER = re.compile(rb"[ \t]*\.[ \t]*(\w*[A-Za-z_])[ \t]*\.[ \t]*siht(?![\w.])")


_PARAM_NAME = re.compile(r"[(,]\s*\**\s*([A-Za-z_]\w*)")


def _param_names(signature: str) -> frozenset[str]:
    """The parameter names of a Python `def` signature (`*args`, `**kw` as `args`, `kw`;
    a name after a comma inside a default value or an annotation too: more names only
    keep a module's binding out)."""
    return frozenset(m.group(1) for m in _PARAM_NAME.finditer(signature))


# `name: Annotation` in a parameter list; `Optional[X]`, `X | None`, `"X"`, `Annotated[X,
# …]` and `mod.X` name the class X; a container (`list[X]`) or a lower-case name (`int`,
# `str`) names none the index would hold as a class.
_PARAM = re.compile(r"^\s*([A-Za-z_]\w*)\s*:\s*(.+?)\s*(?:=.*)?$", re.S)  # `*args` none
_WRAPPERS = re.compile(r"^(?:typing\.)?(?:Optional|Annotated)\[(.*)\]$", re.S)


def _param_parts(signature: str) -> list[str]:
    """The text of each parameter of a `def` (or JavaScript function) signature: its
    parameter list split at the commas outside brackets (`a: Dict[str, int] = {}`)."""
    opened = signature.find("(")
    if opened < 0:
        return []
    depth = 0
    part: list[str] = []
    parts: list[str] = []
    for char in signature[opened + 1 :]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(part))
            part = []
        else:
            part.append(char)
    parts.append("".join(part))
    return parts


_LEADING_NAME = re.compile(r"\s*\**\s*([A-Za-z_]\w*)")


def _params_named(signature: str) -> frozenset[str]:
    """The parameter names of a signature, exactly (`_param_names` takes more)."""
    return frozenset(
        matched.group(1)
        for part in _param_parts(signature)
        if (matched := _LEADING_NAME.match(part)) is not None
    )


def annotated_params(signature: str) -> dict[bytes, str]:
    """The parameters of a Python `def` signature annotated with one class: name → the
    class's name (`def f(self, request: Request, n: int)` → {b"request": "Request"})."""
    out: dict[bytes, str] = {}
    for text in _param_parts(signature):
        matched = _PARAM.match(text)
        if matched is None:
            continue
        name = _annotated_class(matched.group(2))
        if name is not None and matched.group(1) not in ("self", "cls"):
            out[matched.group(1).encode()] = name
    return out


def _annotated_class(annotation: str) -> str | None:
    text = annotation.strip().strip("\"'").strip()
    while (unwrapped := _WRAPPERS.match(text)) is not None:
        text = unwrapped.group(1).split(",")[0].strip().strip("\"'")
    kept = [p.strip() for p in text.split("|") if p.strip() != "None"]
    if len(kept) != 1:
        return None
    last = kept[0].rpartition(".")[2]
    if last == "Any":  # any value: no class
        return None
    return last if last.isidentifier() and last[:1].isupper() and "[" not in kept[0] else None


def _chain_root(src: bytes, name: Node) -> str | None:
    """`Arg` for the name of a method called in `Arg::new(…).a(…).name(…)`; else None."""
    member = name.parent
    if member is None or member.type != "field_expression":
        return None
    value = member.child_by_field_name("value")
    while value is not None and value.type == "call_expression":
        function = value.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "field_expression":  # `.a(…)` before it
            value = function.child_by_field_name("value")
            continue
        if function.type == "generic_function":  # `Vec::<u8>::new()`, `T::f::<X>()`
            function = function.child_by_field_name("function")
        if function is None or function.type != "scoped_identifier":
            return None
        path = function.child_by_field_name("path")
        if path is None or path.type not in ("identifier", "type_identifier"):
            return None
        written = src[path.start_byte : path.end_byte].decode("utf-8", "replace")
        return written if written[:1].isupper() and written != "Self" else None
    return None


# What may stand between a name and its `( … )` among a macro's tokens: nothing (a call)
# or `!` (a macro called inside another's arguments: `tri!(…)`, recorded as `tri!`).
_TOKEN_CALL_GAP = {b"": "", b"!": "!"}
_DEFINING = re.compile(rb"(?:^|[^\w])fn\s*$")


def _token_call(src: bytes, name: Node, arguments: Node, group: Node) -> str | None:
    """The suffix of a name called among a macro's tokens (`""`, or `"!"` for a macro), or
    None when it is no call: another token stands between (`signature = (…)`), it is
    defined there (`fn to_python(…)` in a `macro_rules!` body), or `group` (the tokens
    that hold it) is an attribute written among a macro's tokens (`#[derive(Debug)]`).
    An attribute item's tokens are left out after (`extract_reference_rows`: its
    `@attribute` extent). No node's parent is asked: tree-sitter finds it by walking
    down from the root, and 1,000 nested calls in one macro took 9 s that way."""
    gap = _TOKEN_CALL_GAP.get(src[name.end_byte : arguments.start_byte].strip())
    if gap is None or _DEFINING.search(src, max(0, name.start_byte - 16), name.start_byte):
        return None
    if src[group.start_byte : group.start_byte + 1] == b"[":
        if src[max(0, group.start_byte - 2) : group.start_byte].rstrip().endswith((b"#", b"#!")):
            return None
    return gap


@lru_cache(maxsize=128)  # per language: learnt once per process, not once per file
def _pattern_kinds(language: str) -> dict[int, tuple[int, str]]:
    """Pattern index → what it records (`_IMPORT_PATTERN`, `_NOTHING`, or (kind code,
    name suffix)), filled by `_learn`."""
    return {}


def _learn(
    kinds: dict[int, tuple[int, str]], pattern: int, captures: dict[str, list[Node]]
) -> tuple[int, str]:
    """What `pattern` records, from its first match's captures (the pattern's own node is
    always captured, so the first match tells)."""
    special = next((p for name, p in _SPECIAL_CAPTURES if captures.get(name)), None)
    if special is not None:
        learnt = special
    else:
        kind = next((c[10:] for c in captures if c.startswith("reference.")), None)
        if kind is None:
            learnt = _NOTHING
        else:
            # A Rust macro's name (`println!`, `alloc::vec!`) is recorded with its `!`, so
            # it never resolves to a function of the same name (`assert!` is not `fn
            # assert`). Its pattern captures the `macro_invocation` itself (asking the name
            # node for its parent instead walked down from the root).
            macro = kind == "call" and captures["reference.call"][0].type == "macro_invocation"
            learnt = (REFERENCE_KINDS.index(kind), "!" if macro else "")
    kinds[pattern] = learnt
    return learnt


def _generic_owner(name: Node) -> Node:
    """The declaration a type parameter belongs to (its scope): the parent of the
    parameter list (`fn`, `impl`, `struct`, class, method, type alias)."""
    node = name
    for _ in range(3):  # name → parameter → parameter list → owner
        if node.parent is None:
            break
        node = node.parent
        if node.type in _TYPE_PARAMETER_LISTS:
            return node.parent or node
    return node


_AFTER_PATH = frozenset({b":", b"."})
# The node types that list a declaration's type parameters.
_TYPE_PARAMETER_LISTS = frozenset(
    {"type_parameters", "type_parameter_list", "template_parameter_list"}
)


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


_NAMED_USES = frozenset(
    (
        "generic_type",
        "qualified_type",
        "nested_type_identifier",
        "scoped_type_identifier",  # Rust `io::Error`
        "struct_expression",  # Rust `Foo { a: 1 }`
        "scope_resolution",  # Ruby `Rack::Utils`
    )
)


# Languages whose declarations' type names are all symbols of the outline (its
# `definition_names`), the type parameters its query marks (`@generic`) or names it marks
# `@own`, so that `_is_own_name` never finds another: Go (none in the 171 k type
# references of its `src/`) and Rust (its type parameters, and the names of type bindings
# and associated types, `@own`: all it found in Rust 1.63's library, clap 4.0.32 and
# regex-automata 0.1.8). Asking costs a `Node.parent`, which tree-sitter finds going down
# from the root.
_OWN_NAMES_OUTLINED = frozenset({"go", "rust"})


def _is_own_name(node: Node) -> bool:
    """`node` names the declaration it sits in (`type_spec name:`, C's typedef name)."""
    parent = node.parent
    if parent is None:
        return False
    named = parent.child_by_field_name("name")
    if named is not None and named.start_byte == node.start_byte:
        # The `name` of these is a use: `Vec<T>`, `a.B`, `io::Error`, `Foo { a: 1 }`.
        return parent.type not in _NAMED_USES
    if parent.type == "type_definition":  # C/C++ `typedef struct {...} T;`
        declarator = parent.child_by_field_name("declarator")
        return declarator is not None and declarator.start_byte == node.start_byte
    return False


def _owner_runs(outline: list[Outlined]) -> tuple[list[int], list[int | None]]:
    """(bounds, owners): from byte `bounds[i]` on, up to the next bound, the innermost
    enclosing symbol is `owners[i]` (its position in `Document.symbols`; None: the top
    level), so a reference's caller is one `bisect` (`owners[bisect_right(bounds, byte) -
    1]`) where a sweep over the symbols cost a dozen Python steps per reference.

    Exactly what a sweep over the references in byte order finds, a stack of the symbols
    started so far (by start, the longer first) that pops those ended: at byte p, push
    every symbol that starts at or before p (first popping those ended by its start),
    then pop those ended by p; the owner is the top. Bounds go where that answer changes
    (a symbol starts, or the symbols on top end), in order, the last of equal bounds
    winning; extents that do not nest (a C# file-scoped namespace runs to the end of the
    file) give the sweep's answer too."""
    in_outline = [o for o in outline if o.symbol is not None]  # Document.symbols' order
    ordered = sorted(
        range(len(in_outline)),
        key=lambda i: (in_outline[i].start_byte, -in_outline[i].end_byte),
    )
    bounds: list[int] = [0]
    owners: list[int | None] = [None]
    stack: list[tuple[int, int]] = []  # (end byte, ord) of the symbols open
    for i in ordered:
        start = in_outline[i].start_byte
        while stack and stack[-1][0] < start:  # ends before this start: a bound of its own
            end = stack[-1][0]
            while stack and stack[-1][0] <= end:
                stack.pop()
            bounds.append(end)
            owners.append(stack[-1][1] if stack else None)
        while stack and stack[-1][0] <= start:
            stack.pop()
        stack.append((in_outline[i].end_byte, i))
        while stack and stack[-1][0] <= start:  # an empty extent ends where it starts
            stack.pop()
        bounds.append(start)
        owners.append(stack[-1][1] if stack else None)
    while stack:
        end = stack[-1][0]
        while stack and stack[-1][0] <= end:
            stack.pop()
        bounds.append(end)
        owners.append(stack[-1][1] if stack else None)
    return bounds, owners


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


# Languages whose methods name their own object by convention: a member of anything else
# (`router.handle(...)` in `app.handle`, `app_config.get_models()` in registry.py,
# `this._router.use`) is another object's, and `refs.qualifier` says so with
# `OTHER_OBJECT` (resolve.py then never links it to this file's own definition of the
# name: it tries the files this one imports, then uniqueness). Not Go: its receivers have
# any name (`b.grow()` in `func (b *Buffer)`).
_OWN_RECEIVERS: dict[str, frozenset[str]] = {
    "python": frozenset({"self", "cls"}),
    "starlark": frozenset({"self", "cls"}),
    # `var self = this;` (and `that`, `_this`, compiled TypeScript's) name it in closures
    "javascript": frozenset({"this", "self", "that", "_this"}),
    "typescript": frozenset({"this", "self", "that", "_this"}),
    "tsx": frozenset({"this", "self", "that", "_this"}),
    # A method's own object is `self` and nothing else; `Self::f()` and `Type::f()` are
    # paths, not members.
    "rust": frozenset({"self"}),
    # Java, C# and Kotlin: `this` (a bare call is the class's own too, as the file's rules
    # have it).
    "java": frozenset({"this"}),
    "c_sharp": frozenset({"this"}),
    "kotlin": frozenset({"this"}),
    "swift": frozenset({"self"}),
    # A Go method names its receiver as it likes (`func (b *Buffer)`): no fixed word, the
    # receivers of the file's methods (`_qualifiers`' `receivers`) say which is its own.
    "go": frozenset(),
    # C++: `this->x`; C has no methods: `m->free_func(…)` calls a struct's field, no
    # function of the index (`_ARROW_LANGUAGES` read `->` as a member too).
    "cpp": frozenset({"this"}),
    "c": frozenset(),
    # Objective-C: `self->x`, `self.x` (a message to the method's own object is `[self x]`)
    "objc": frozenset({"self"}),
    # Ruby: `self.x` (a bare call is the object's own too, as Python's rules have it)
    "ruby": frozenset({"self"}),
    # PHP: `$this->x`, `self::x`, `static::x` (`_php_qualifier`; a bare call is a function)
    "php": frozenset({"$this"}),
    # Lua: `self:x()`, `self.x` in a `function M:method` (`_lua_qualifier`)
    "lua": frozenset({"self"}),
    # Perl: `$self->x`, `$class->x`, `__PACKAGE__->x`, `shift->x` (`_perl_qualifier`)
    "perl": frozenset({"$self", "$class"}),
}
# Languages where `->` is a member's separator as `.` is (a pointer's member).
_ARROW_LANGUAGES = frozenset({"c", "cpp", "objc"})
_JS_GLOBALS = frozenset(
    {
        *("JSON", "Math", "Object", "Array", "Promise", "Number", "String", "Boolean"),
        *("Symbol", "Reflect", "Date", "RegExp", "Error", "Map", "Set", "WeakMap"),
        *("console", "process", "Buffer", "window", "document", "globalThis", "Intl"),
    }
)
# Built-in objects whose members no file of the index defines (`BUILT_IN_OBJECT`).
_BUILT_IN_RECEIVERS: dict[str, frozenset[str]] = {
    "python": frozenset(
        {"str", "bytes", "int", "float", "dict", "list", "set", "tuple", "object", "type"}
    ),
    "javascript": _JS_GLOBALS,
    "typescript": _JS_GLOBALS,
    "tsx": _JS_GLOBALS,
}
_BUILT_IN_RECEIVERS["starlark"] = _BUILT_IN_RECEIVERS["python"]
# Lua's standard library tables (`table.insert`, `string.format`).
_BUILT_IN_RECEIVERS["lua"] = frozenset(
    {"table", "string", "math", "io", "os", "coroutine", "debug", "utf8", "package", "bit32"}
)
# The JDK's classes whose static members no file of the index defines (`Math.max`,
# `String.valueOf`, `Arrays.asList`, `System.out`).
_BUILT_IN_RECEIVERS["java"] = frozenset(
    {
        *("Math", "String", "Integer", "Long", "Double", "Float", "Boolean", "Character"),
        *("Byte", "Short", "Arrays", "Collections", "Objects", "System", "Thread", "List"),
        *("Map", "Set", "Optional", "Stream", "Collectors", "Files", "Paths", "Path"),
    }
)
# Languages that name a module's items with `::` alone: a name after `.` is a member of a
# value, never a module's, even when the value is named like a module the file imports
# (pydantic-core's `definitions.add_definition(…)`, `errors.is_empty()`: local variables).
_PATHS_WITH_COLONS = frozenset({"rust"})


def _qualifiers(
    src: bytes,
    imports: list[Import],
    own: frozenset[str] | None = None,
    defined: set[str] | None = None,
    built_in: frozenset[str] = frozenset(),
    colons_only: bool = False,
    types: set[str] | None = None,
    receivers: list[tuple[int, int, bytes]] | None = None,
    arrows: bool = False,
    language: str = "",
    plain: dict[int, bytes] | None = None,
) -> Callable[[int], str | None] | None:
    """Byte offset of a name → the import's local name written in front of it with `.`,
    `::` or `->` (`http.Get`, `json.dumps`, `fs::read`, `decoder.JSONDecoder`), else None
    (None instead of the function: the file's imports bind no name and `own` is None).
    That is the module a use names, which the resolution pass reads (`resolve.py`). The
    local names are a module's last part and the names imported from it (`from json
    import decoder`, `use std::{fs, io}`); a qualifier that is itself a member
    (`x.http.Get`) or the end of a longer word (`radio.x` for `io`) is none.

    With `own` (the names a method gives its own object: `_OWN_RECEIVERS`), a name after
    `.` that is a member of anything else — another name that is not one of `defined`
    (this file's definitions: `Foo.bar()` calls its own class), a member (`self.a.b`)
    — gives `OTHER_OBJECT`, a member of `super()` (JavaScript's `super`) `PARENT`, and
    a member of a `built_in` object the file does not define (`JSON.parse`, `str.join`)
    `BUILT_IN_OBJECT`; a member of one of `types`
    (the file's classes) has that type as its qualifier (`MigrationWriter.serialize(…)`
    inside `OperationWriter`). With `receivers` (Go: each method's extent and its
    receiver's name) the method's own object is the receiver of the innermost method
    around the name (`b.grow()` in `func (b *Buffer) Write`), not a fixed word. After
    another call or an index (`A().run()`, `a[0].x`) the file's rules stay (`A()` is
    often a class of the file), but in Rust and Go that is a value's method.

    `plain` gets the receiver of each member of another object that is a plain name
    (reversed, by the member's start), for the passes that type it (`_retyped`).

    With `colons_only` (Rust: `_PATHS_WITH_COLONS`) only `::` writes a path: a type's
    name before it is recorded, imported or not (`Self::new`, `JsonArgs::new`, `S::Ok`),
    the file's definitions are no receivers (`x.len()` is a value's), `self.x` has the
    qualifier `self` (`OWN_MEMBER`) and a member after a call or an index is another
    object's.

    Per reference, one anchored match on the file's bytes reversed (what stands right
    before the name is then at the start): most references fail at their first byte. One
    regular expression of the local names over the whole file cost 0.65 ms a file on
    Rust's alloc (the engine tries the alternatives at every letter), a look back in
    Python ~1 µs a reference (issue 23)."""
    local = {
        name.encode()[::-1]
        for name in local_modules(((i.module, i.names, i.alias) for i in imports), "", language)
        if name.isidentifier() and name.isascii()
    }
    if not local and own is None:
        return None
    reverse = src[::-1]
    size = len(src)
    # (In C and C++ only `::` names a namespace's item: a name before `.` or `->` is a
    # value, even one named like a header the file includes — sentencepiece's
    # `normalizer.Normalize(…)` on a `Normalizer` in builder_test.cc, which includes
    # normalizer.h, was that header's module, and linked to a free function.)
    match = (_PATH_QUALIFIER_REVERSED if colons_only or arrows else _QUALIFIER_REVERSED).match
    member = (_ARROW_MEMBER_REVERSED if arrows else _MEMBER_REVERSED).match
    # (In Rust a name before `.` is a value, never a type: the file's definitions are no
    # receivers of their own. In Python only its classes are: a function or a method of
    # the file named like a variable is no object whose members are the file's own —
    # `cells.append(…)` in rich's table.py, which has a method `cells`, was a bare
    # `append` and went to `Text.append`; a pytest fixture `tmpfile`'s `tmpfile.flush()`.)
    # (Nor in Java, Kotlin and C#, whose fields and methods are values too: `logger.log(…)`
    # in OpenJDK's hpack/Encoder.java, which has a method `logger()`, is the field's.)
    if language in ("python", "starlark", "ruby", "php") or language in CLASS_LANGUAGES:
        defined = types
    kept = {n.encode()[::-1] for n in (own or ())} | {
        n.encode()[::-1] for n in (defined or ()) if n.isascii() and not colons_only
    }
    built_ins = {n.encode()[::-1] for n in built_in} - kept
    classes = {n.encode()[::-1] for n in (types or ()) if n.isascii() and not colons_only}
    # (None: not a language whose methods are found by their receiver: not Go.)
    methods = None if receivers is None else [(a, b, name[::-1]) for a, b, name in receivers]
    type_case = language in CLASS_LANGUAGES  # (C#: a class, else a property: resolve.py)
    method_starts = [a for a, _, _ in methods or ()]

    def own_receiver(start: int) -> bytes | None:
        """The receiver's name (reversed) of the method holding `start` (Go's methods are
        top-level declarations: none holds another)."""
        i = bisect_right(method_starts, start) - 1
        if i < 0 or not methods or start >= methods[i][1]:
            return None
        return methods[i][2]

    def qualifier(start: int) -> str | None:
        if language == "php":
            return _php_qualifier(reverse, size - start)
        if language == "lua":
            return _lua_qualifier(reverse, size - start, local, classes, built_ins)
        if language == "perl":
            return _perl_qualifier(reverse, size - start)
        if (
            language == "ruby"
            and reverse[size - start : size - start + 2] == b"::"
            and not reverse[size - start + 2 : size - start + 3].isalnum()
        ):
            return RUBY_TOP_LEVEL  # `::Time`: the top level's, whatever the caller's scope
        found = match(reverse, size - start)
        if found is not None:
            written = found.group(1)
            if written in local:
                return written[::-1].decode()
            if language == "ruby" and reverse[size - start : size - start + 1] == b":":
                # Ruby's `Pending::SkipDeclaredInExample`, `Rack::Utils::Foo`: the constant
                # inside that path (`Pending`, `Rack.Utils`)
                if written[-1:].isupper():
                    return _ruby_path(reverse, found.end(1), written)
            elif colons_only and written[-1:].isupper():
                # A type's path, imported or not (`Self::new`, `JsonArgs::new`, `S::Ok`).
                return written[::-1].decode()
        if own is None:
            return None
        after_dot = member(reverse, size - start)
        if after_dot is None:  # not after `.` (Python's `x: Foo`, `a::b`)
            return None
        name = after_dot.group(1)
        if name is None:  # after a call or an index (`super().save()`: the parent's)
            if language in _CAST_LANGUAGES:
                # Java's and C#'s `((ConcurrentSkipListMap<K,V>) m).removeEntryIf(…)`: a
                # member of the class the value is cast to
                cast = _CAST_REVERSED.match(reverse, after_dot.end())
                if cast is not None:
                    return cast.group(1)[::-1].decode() + VALUE_OF
            if type_case:
                # Java's `new Foo(x).bar()`, Kotlin's `Foo(x).bar()`, C#'s `new Foo(x)
                # .Bar()` (its methods are capitalised too): a member of Foo (its
                # arguments without parentheses of their own)
                built = _CONSTRUCTED_REVERSED.match(reverse, after_dot.end())
                if built is not None and (
                    language != "c_sharp" or _NEW_REVERSED.match(reverse, built.end())
                ):
                    return built.group(1)[::-1].decode() + VALUE_OF
            if (
                colons_only
                or methods is not None
                or language in CLASS_LANGUAGES
                or language == "ruby"
            ):
                # Rust, Go and Ruby: a value's method (`Vec::new().len()`, `p.Addr()
                # .String()`, `paths.map { … }.join(",")`);
                # Java, Kotlin, C#: a method's result is no class of the file and its
                # members no bare name's (`ByteBuffer.allocate(n).put(b).flip()` was
                # java/util/BitSet.java's `flip`)
                return OTHER_OBJECT
            return PARENT if _SUPER_CALL.match(reverse, after_dot.end()) else None
        if language == "ruby" and name[-1:].isupper():
            # Ruby: a capitalised receiver is a constant, a class or a module by the
            # language's rule (`Utils.escape`, `File.join`), written with its path
            # (`Rack::Utils.escape`: `Rack.Utils`)
            return _ruby_path(reverse, after_dot.end(1), name)
        if (
            type_case
            and _TYPE_NAME_REVERSED.match(name)
            and (after_dot.group(2) is not None or name not in built_ins)
        ):
            # Java, Kotlin: a capitalised name is a class (values and packages are
            # lowerCamel, constants upper case), imported or of the file's package
            # (`Huffman.Reader`, `Objects.requireNonNull` in java/util itself), also
            # after a package or another class (`Map.Entry.comparingByKey()`); the
            # language's own (`Math.max`) are built-in objects. In C# it may be a
            # property too (`Items.Add(x)`): the resolution pass tries the class first.
            return name[::-1].decode()
        if after_dot.group(2) is None:
            if (name == b"repus" or (name == b"esab" and language == "c_sharp")) and (
                methods is None and not colons_only
            ):
                # JavaScript's, Java's and Kotlin's `super.save()`, C#'s `base.Save()` (Go
                # may name a value `super`)
                return PARENT
            if name in classes:
                return name[::-1].decode()
            if methods and name == own_receiver(start):
                return OWN_MEMBER  # (then a bare name is never a member: resolve.py)
            if name in kept:
                # `self.x`, `this.x`, `Foo.x` with Foo defined here; Rust's `self.x` says
                # so (a bare `x` there is never a member), and Java's, Kotlin's, C#'s and
                # Swift's `this.x`/`self.x` (a bare `x` there may be a top-level function
                # or a static import's)
                return OWN_MEMBER if colons_only or language in CLASS_LANGUAGES else None
            if name in built_ins:
                return BUILT_IN_OBJECT
            if plain is not None:
                plain[start] = name
        return OTHER_OBJECT

    return qualifier


# A class's name, read backwards: ends (starts) with a capital, and holds a small letter
# (`LOGGER` and `MAX_SIZE` are constants).
_TYPE_NAME_REVERSED = re.compile(rb"(?=[\w$]*[a-z])[\w$]*[A-Z]\Z")
# A constructor's call right before a `.`, read backwards: `)`, arguments with no
# parentheses, `(`, type arguments (`<>`), the class's name (capitalised: a Java or
# Kotlin method's is not), then no word character or `.` (`new`, `=`, `(`).
_CONSTRUCTED_REVERSED = re.compile(
    rb"\)[^()]*\([ \t\r\n]*(?:>[^<>()]*<[ \t\r\n]*)?((?=[\w$]*[a-z])[\w$]*[A-Z])(?![\w$.])"
)
_NEW_REVERSED = re.compile(rb"[ \t\r\n]+wen(?![\w$])")
# A plain name cast to a class in parentheses right before a `.`, read backwards:
# `((RawChannel.Provider) response).`: `)`, the name, `)`, type arguments, the class's
# name (its last part: capitalised, with a small letter), its qualifiers, `(`, `(`.
_CAST_LANGUAGES = frozenset({"java", "c_sharp"})
_CAST_REVERSED = re.compile(
    rb"\)[ \t]*[\w$]+[ \t]*\)[ \t]*(?:>[^()]*?<)?((?=[\w$]*[a-z])[\w$]*[A-Z])(?:\.[\w$]+)*"
    rb"[ \t]*\([ \t]*\("
)
# What stands before a qualified name, read backwards: blanks, a separator (`.`, `::`,
# `->` reversed), blanks, the qualifier, and then no word character, `.` or `$` (a
# longer word, or a member: `x.http.Get`).
_QUALIFIER_REVERSED = re.compile(rb"[ \t\r\n]*(?:\.|::|>-)[ \t\r\n]*(\w*[A-Za-z_])(?![\w.$])")
_PATH_QUALIFIER_REVERSED = re.compile(rb"[ \t\r\n]*::[ \t\r\n]*(\w*[A-Za-z_])(?![\w.$])")
# A member, read backwards: blanks, `.`, blanks, then the receiver's name (group 1; None
# when a call, an index or a string ends there) and whether a `.` comes right before it
# (group 2: a member of a member; not across blanks: a comment's full stop ends the line
# before `self.x`).
# `super()` or `super(Cls, self)` right before that `.`, read backwards.
_SUPER_CALL = re.compile(rb"[ \t\r\n]*\)[^()]*\([ \t\r\n]*repus(?![\w$])")
_MEMBER_REVERSED = re.compile(rb"[ \t\r\n]*\.[ \t\r\n]*(?:([\w$]*[A-Za-z_$])(?![\w$])(\.)?)?")
# The same in C and C++, where `p->x` is a member too (a member of a member: `a.b->x`).
_ARROW_MEMBER_REVERSED = re.compile(
    rb"[ \t\r\n]*(?:\.|>-)[ \t\r\n]*(?:([\w$]*[A-Za-z_$])(?![\w$])(\.|>-)?)?"
)


# PHP's member, read backwards: blanks, `->`, `?->` or `::` (group 1), blanks, then the
# receiver (group 2: `$this`, `$x`, a property, a class's last part `Foo` of `\\A\\Foo`;
# None after a call or an index: `Utils::streamFor($x)->getSize()`).
_PHP_MEMBER_REVERSED = re.compile(rb"[ \t\r\n]*(>-\??|::)[ \t\r\n]*(?:(\w*[A-Za-z_]\$?)(?![\w$]))?")


_PHP_PATH_REVERSED = re.compile(rb"[\w\\]+")


def _php_qualifier(reverse: bytes, at: int) -> str | None:
    """PHP's `refs.qualifier` of the name at `at` of the file's bytes reversed: `$this->x`,
    `self::x`, `static::x` the method's own object (`OWN_MEMBER`), `parent::x` its parent
    class's (`PARENT`), `Foo::x` the class Foo (PHP's naming rule: a class is written
    capitalised or through a namespace; a bare call is a function, never a member), any
    other `$x->y` another object's; `.` is PHP's concatenation, never a member."""
    if reverse[at : at + 1] == b"\\":
        # A name written with its namespace: `\A\B\name` (qualifier `\A.B`; `\` alone
        # for the global namespace's `\strlen`), relative `B\name` (`?B`: under the
        # file's namespace, or what an import binds `B` to)
        written = _PHP_PATH_REVERSED.match(reverse, at)
        path = written.group(0)[::-1].decode() if written is not None else "\\"
        dotted = ".".join(part for part in path.split("\\") if part)
        return ("\\" if path.startswith("\\") else "?") + dotted
    found = _PHP_MEMBER_REVERSED.match(reverse, at)
    if found is None:
        return None
    separator, name = found.group(1), found.group(2)
    if name is None:
        return OTHER_OBJECT
    if separator == b"::":
        if name in (b"fles", b"citats"):
            return OWN_MEMBER
        if name == b"tnerap":
            return PARENT
        if name.endswith(b"$"):  # `$class::create()`: a class held in a variable
            return OTHER_OBJECT
        return name[::-1].decode()
    if name == b"siht$" and reverse[found.end() : found.end() + 1] not in (b">", b":"):
        return OWN_MEMBER
    return OTHER_OBJECT


# Lua's member, read backwards: blanks, `.` or `:` (a method's call), blanks, then the
# receiver (group 1; None after a call or an index) and whether it is itself a member.
_LUA_MEMBER_REVERSED = re.compile(rb"[ \t\r\n]*[.:][ \t\r\n]*(?:(\w*[A-Za-z_])(?!\w)(\.)?)?")


def _lua_qualifier(
    reverse: bytes, at: int, local: set[bytes], tables: set[bytes], built_ins: set[bytes]
) -> str | None:
    """Lua's `refs.qualifier` (names reversed): `utils.split` after `local utils =
    require "pl.utils"` the import's name, `M.helper()` a table the file defines functions
    on (`function M.split`) that table, `self:x()` none (the file's own, as a bare name),
    `string.format` a built-in (`BUILT_IN_OBJECT`), any other value's member another
    object's."""
    found = _LUA_MEMBER_REVERSED.match(reverse, at)
    if found is None:
        return None
    name = found.group(1)
    if name is None or found.group(2) is not None:
        return OTHER_OBJECT
    if name in local or name in tables:
        return name[::-1].decode()
    if name == b"fles":
        return None
    if name in built_ins:
        return BUILT_IN_OBJECT
    return OTHER_OBJECT


_WORD_REVERSED = re.compile(rb"\w+")
# Ruby's qualifier of a constant written `::Name`: the top level's.
RUBY_TOP_LEVEL = "::"
# Perl's: a package path before `::` (reversed: `::`, then `Util::Foo`), and the invocant
# before `->` (group 1: a bareword class path or `$self`-like scalar; None after a call,
# an index or a block).
_PERL_PATH_REVERSED = re.compile(rb"::((?:\w+::)*\w+)")
_PERL_INVOCANT_REVERSED = re.compile(rb"[ \t\r\n]*>-[ \t\r\n]*(?:((?:\w+::)*\w+\$?)(?![\w$:]))?")
_PERL_OWN = frozenset({b"fles$", b"ssalc$", b"__EGAKCAP__", b"tfihs"})


def _perl_qualifier(reverse: bytes, at: int) -> str | None:
    """Perl's `refs.qualifier` (names reversed): `Foo::Util::helper` the package path
    `Foo.Util` (dotted), `SUPER::init` / `$self->SUPER::init` the parent's (`PARENT`),
    `Foo::Other->new` the class `Foo.Other`, `$self->x`, `$class->x`, `__PACKAGE__->x`,
    `shift->x` the method's own object (none, as a bare name), any other `$x->y`
    another object's."""
    path = _PERL_PATH_REVERSED.match(reverse, at)
    if path is not None:
        written = ".".join(p[::-1].decode() for p in reversed(path.group(1).split(b"::")))
        return PARENT if written == "SUPER" else written
    found = _PERL_INVOCANT_REVERSED.match(reverse, at)
    if found is None:
        return None
    invocant = found.group(1)
    if invocant is None or invocant.endswith(b"$"):
        return None if invocant in _PERL_OWN else OTHER_OBJECT
    if invocant in _PERL_OWN:
        return None
    return ".".join(p[::-1].decode() for p in reversed(invocant.split(b"::")))


def _ruby_path(reverse: bytes, at: int, last: bytes) -> str:
    """A Ruby constant's path, dotted, from its last part `last` (reversed) and the
    `A::B::` written before it (`at`: where `last` ends in the reversed text): `Rack.Utils`
    for `Rack::Utils`; a leading `::` (the top level) adds nothing."""
    parts = [last]
    while reverse[at : at + 2] == b"::":
        word = _WORD_REVERSED.match(reverse, at + 2)
        if word is None:
            break
        parts.append(word.group())
        at = word.end()
    return ".".join(part[::-1].decode() for part in reversed(parts))


def _no_qualifier(start: int) -> None:
    return None


# The last byte of a separator (`.`, `::`, `->`): a reference after any other byte has no
# qualifier, known without a call. A blank is not tried (`http.\n\tGet` is left out):
# type names after a space are most of a Go file's references.
# (`\\`: PHP's namespace path, `\\GuzzleHttp\\Psr7\\Utils`: `_php_qualifier`)
_AFTER = frozenset(b".:>\\")
_AFTER_OR_BLANK = _AFTER | frozenset(b" \t")


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
# (module, names), (module, names, alias) or (module, names, alias, node whose lines the
# import takes): `alias` the local name it binds instead (`Import.alias`), or None.
_Read = Callable[[bytes, Node], list[tuple[Any, ...]]]


def _field_children(node: Node, field: str) -> list[Node]:
    return [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == field]


def _python(src: bytes, node: Node) -> list[tuple[Any, ...]]:
    def dotted(n: Node) -> str:
        if n.type == "aliased_import":
            inner = n.child_by_field_name("name")
            return _text(src, inner) if inner is not None else ""
        return _text(src, n)

    def alias(n: Node) -> str | None:
        name = n.child_by_field_name("alias") if n.type == "aliased_import" else None
        return _text(src, name) if name is not None else None

    if node.type == "import_statement":  # `import numpy as np`: np binds numpy
        return [(dotted(n), [], alias(n)) for n in _field_children(node, "name")]
    if node.type == "future_import_statement":
        return [("__future__", [dotted(n) for n in _field_children(node, "name")])]
    module_node = node.child_by_field_name("module_name")
    module = "".join(_text(src, module_node).split()) if module_node is not None else ""
    plain: list[str] = []
    out: list[tuple[Any, ...]] = []
    for n in _field_children(node, "name"):
        if alias(n) is None:
            plain.append(dotted(n))
        else:  # `from json import decoder as dec`: an import of its own, `dec` its name
            out.append((module, [dotted(n)], alias(n)))
    if any(c.type == "wildcard_import" for c in node.children):
        plain.append("*")
    return ([(module, plain)] if plain or not out else []) + out


def _go(src: bytes, node: Node) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "import_spec":
            path = n.child_by_field_name("path")
            name = n.child_by_field_name("name")  # `mr "math/rand"`, `_ "embed"`, `. "x"`
            if path is not None:
                alias = _text(src, name) if name is not None else None
                out.append((_unquote(_text(src, path)), [], alias, n))
        else:
            stack.extend(reversed(n.named_children))
    return out


def _rust(src: bytes, node: Node) -> list[tuple[Any, ...]]:
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
        if n.type == "use_as_clause":  # the alias is read by the caller
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

    def alias_of(n: Node) -> str | None:
        alias = n.child_by_field_name("alias") if n.type == "use_as_clause" else None
        return _text(src, alias) if alias is not None else None

    def row(module: str, names: list[str], alias: str | None) -> tuple[Any, ...]:
        return (" ".join(module.split()), [" ".join(n.split()) for n in names], alias)

    items = argument.child_by_field_name("list") if argument.type == "scoped_use_list" else None
    if items is not None and any(c.type == "use_as_clause" for c in items.named_children):
        # `use std::{fs as f, io}`: the names as they are in one row, each renamed one in
        # a row of its own with its alias (as Python's `from m import a as b`)
        path = argument.child_by_field_name("path")
        base = _text(src, path) if path is not None else ""
        plain = [_text(src, c) for c in items.named_children if c.type != "use_as_clause"]
        out = [row(base, plain, None)] if plain else []
        for item in items.named_children:
            if item.type == "use_as_clause":
                inner, names = split(item)
                module = "::".join(part for part in (base, inner) if part) if names else base
                out.append(row(module, names or [inner], alias_of(item)))
        return out
    module, names = split(argument)
    return [row(module, names, alias_of(argument))]  # `use std::fs as f`: f binds std::fs


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


def _javascript(src: bytes, node: Node) -> list[tuple[Any, ...]]:
    if node.type == "call_expression":  # require("m")
        arguments = node.child_by_field_name("arguments")
        string = arguments.named_children[0] if arguments is not None else None
        if string is None:
            return []
        return _required(src, node, _unquote(_text(src, string)))
    source = node.child_by_field_name("source")
    if source is None:
        return []
    module = _unquote(_text(src, source))
    if node.type == "export_statement":
        return _re_exported(src, node, module)
    names: list[str] = []
    alias: str | None = None
    renamed: list[tuple[Any, ...]] = []
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    for child in clause.named_children if clause is not None else []:
        if child.type == "identifier":
            names.append("default")
        elif child.type == "namespace_import":  # `* as u`: u binds the module
            names.append("*")
            bound = next((c for c in child.named_children if c.type == "identifier"), None)
            alias = _text(src, bound) if bound is not None else None
        elif child.type == "named_imports":
            for spec in child.named_children:
                name = spec.child_by_field_name("name")
                if name is None:
                    continue
                local = spec.child_by_field_name("alias")
                if local is None:
                    names.append(_unquote(_text(src, name)))
                else:  # `{ join as j }`: an import of its own, `j` its local name
                    renamed.append((module, [_unquote(_text(src, name))], _text(src, local)))
    return ([(module, names, alias)] if names or not renamed else []) + renamed


def _re_exported(src: bytes, node: Node, module: str) -> list[tuple[Any, ...]]:
    """A re-export (`export * from "./schemas.js"`, `export * as core from "…"`, `export {
    a, b as c } from "./m.js"`) as the import rows it amounts to: the module is a
    dependency of the file (`importers`), and a barrel file's names come from it
    (`resolve._Resolver._reexports`). `export *` is the name `*`; `* as core` and `b as
    c` are aliases, as an import's are."""
    names: list[str] = []
    renamed: list[tuple[Any, ...]] = []
    for child in node.children:
        if child.type == "*":
            return [(module, ["*"])]
        if child.type == "namespace_export":
            bound = next((c for c in child.named_children if c.type == "identifier"), None)
            return [(module, ["*"], _text(src, bound) if bound is not None else None)]
        if child.type == "export_clause":
            for spec in child.named_children:
                parts = [c for c in spec.named_children if c.type in ("identifier", "string")]
                if not parts:
                    continue
                name = _unquote(_text(src, parts[0]))
                if len(parts) > 1 and _unquote(_text(src, parts[1])) != name:
                    renamed.append((module, [name], _unquote(_text(src, parts[1]))))
                else:
                    names.append(name)
    return ([(module, names)] if names or not renamed else []) + renamed


def _required(src: bytes, call: Node, module: str) -> list[tuple[Any, ...]]:
    """What a CommonJS `require("m")` binds, as the ES import that binds the same:
    `const u = require("./util")` the module, as `u` (`import * as u`); `const { a, b: c }
    = require("m")` the names a, and b as c; `var e = require("m").etag` the name etag
    (as `e` when it is called otherwise). Anything else (`require("debug")("x")`, a bare
    `require("m")`) binds no name of it: the module alone."""
    parent = call.parent
    member = None
    if parent is not None and parent.type == "member_expression":
        if _same(parent.child_by_field_name("object"), call):
            member = parent.child_by_field_name("property")
            parent = parent.parent
    if parent is None or parent.type != "variable_declarator":
        return [(module, [])]
    target = parent.child_by_field_name("name")
    if target is None:
        return [(module, [])]
    if member is not None:
        name = _text(src, member)
        local = _text(src, target) if target.type == "identifier" else None
        if local is None:
            return [(module, [name])]
        return [(module, [name], None if local == name else local)]
    if target.type == "identifier":
        return [(module, [], _text(src, target))]
    if target.type != "object_pattern":
        return [(module, [])]
    names: list[str] = []
    renamed: list[tuple[Any, ...]] = []
    for part in target.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            names.append(_text(src, part))
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if key is not None and value is not None and value.type == "identifier":
                renamed.append((module, [_unquote(_text(src, key))], _text(src, value)))
    return ([(module, names)] if names or not renamed else []) + renamed


def _same(a: Node | None, b: Node) -> bool:
    return a is not None and (a.start_byte, a.end_byte, a.type) == (
        b.start_byte,
        b.end_byte,
        b.type,
    )


def _include(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    path = node.child_by_field_name("path")
    return [(_unquote(_text(src, path)), [])] if path is not None else []


def _using(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    named = [c for c in node.named_children if c.type in ("qualified_name", "identifier")]
    if not named:
        return []
    # `using Q = R.S;`: the last name is the namespace or type imported; `using static
    # R.S;` imports the members of the class S, as Java's `import static R.S.*;`
    static = any(c.type == "static" for c in node.children)
    return [("".join(_text(src, named[-1]).split()), ["*"] if static else [])]


def _swift_import(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    """Swift: `import Foundation`, `@testable import Foo.Bar`, `import struct Foo.Bar`: the
    module (a kind keyword's declaration names one of its members)."""
    path = next((c for c in node.named_children if c.type == "identifier"), None)
    if path is None:
        return []
    return [("".join(_text(src, path).split()), [])]


def _php_use(src: bytes, node: Node) -> list[tuple[Any, ...]]:
    """PHP: `use A\\B\\C;`, `use A\\B\\C as D;`, `use function A\\f;`, `use A\\{B, C as D};`:
    the namespace (dotted, as Java's package) and the name taken from it, under its alias
    when it has one."""
    prefix = ""
    found: list[tuple[Any, ...]] = []
    for child in node.named_children:
        if child.type == "namespace_name":  # a group's prefix
            prefix = _php_dotted(_text(src, child))
        elif child.type == "namespace_use_clause":
            found.append(_php_clause(src, child, ""))
        elif child.type == "namespace_use_group":
            found.extend(
                _php_clause(src, clause, prefix)
                for clause in child.named_children
                if clause.type == "namespace_use_clause"
            )
    return [entry for entry in found if entry[1]]


def _php_clause(src: bytes, clause: Node, prefix: str) -> tuple[Any, ...]:
    alias_node = clause.child_by_field_name("alias")
    path = next((c for c in clause.named_children if c.type in ("qualified_name", "name")), None)
    if path is None:
        return ("", [])
    dotted = ".".join(p for p in (prefix, _php_dotted(_text(src, path))) if p)
    module, _, name = dotted.rpartition(".")
    alias = _text(src, alias_node) if alias_node is not None else None
    return (module, [name]) if alias is None or alias == name else (module, [name], alias)


def _php_dotted(text: str) -> str:
    """`\\GuzzleHttp\\Psr7` → `GuzzleHttp.Psr7`."""
    return ".".join(part for part in "".join(text.split()).split("\\") if part)


def _ruby_require(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    """Ruby: `require 'rack/utils'`, `require_relative 'helper'` (relative to the file),
    `autoload :Utils, 'rack/utils'`: the file loaded, every definition of it seen (`*`)."""
    arguments = node.child_by_field_name("arguments")
    strings = [c for c in arguments.named_children if c.type == "string"] if arguments else []
    string = strings[0] if strings else None
    if string is None or any(c.type == "interpolation" for c in string.named_children):
        return []
    path = _unquote(_text(src, string))
    if not path:
        return []
    method = node.child_by_field_name("method")
    if method is not None and _text(src, method) == "require_relative" and not path.startswith("."):
        path = "./" + path
    return [(path, ["*"])]


def _lua_require(src: bytes, node: Node) -> list[tuple[Any, ...]]:
    """Lua: `require "pl.utils"`, `require("lpeg")`: the module, bound to the name it is
    assigned to (`local utils = require "pl.utils"`)."""
    arguments = node.child_by_field_name("arguments")
    string = arguments.named_children[0] if arguments and arguments.named_children else None
    if string is None or string.type != "string":
        return []
    module = _unquote(_text(src, string))
    if not module or "\n" in module:
        return []
    alias = None
    values = node.parent
    if values is not None and values.type == "expression_list":
        statement = values.parent
        names = statement.child(0) if statement is not None else None
        if (
            statement is not None
            and statement.type == "assignment_statement"
            and names is not None
            and names.type == "variable_list"
            and names.named_children
            and names.named_children[0].type == "identifier"
        ):
            alias = _text(src, names.named_children[0])
    return [(module, [], alias)] if alias else [(module, [])]


def _bash_source(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    """Bash: `source lib/common.sh`, `. ./helpers.sh`: the file (its path without the
    extension, relative to the script when it begins with `./`), every function of it seen
    (`*`); a path built from a variable (`"$DIR/x.sh"`) names no file of the index."""
    argument = node.child_by_field_name("argument")
    if argument is None:
        return []
    path = _unquote(_text(src, argument))
    if not path or "$" in path or "`" in path:
        return []
    stem, dot, extension = path.rpartition(".")
    if dot and "/" not in extension and extension in ("sh", "bash"):
        path = stem
    return [(path, ["*"])]


# Perl's pragmas: `use strict`, `use parent …` name no module of the index.
_PERL_PRAGMAS = frozenset(
    "strict warnings utf8 parent base constant vars lib feature overload integer bytes "
    "locale open sort subs version experimental bigint bignum fields if".split()
)


def _perl_use(src: bytes, node: Node) -> list[tuple[str, list[str]]]:
    """Perl: `use Foo::Bar;`, `use Foo::Bar qw(a b);`, `require Foo::Bar;` (the module
    and the names it imports); `use parent 'Foo::Base'` / `use base …` the base modules;
    other pragmas (`use strict`) none."""
    if node.type == "require_expression":
        word = next((c for c in node.named_children if c.type == "bareword"), None)
        return [(_text(src, word), [])] if word is not None else []
    module_node = node.child_by_field_name("module")
    if module_node is None:
        return []
    module = _text(src, module_node)
    words: list[str] = []
    for child in node.named_children:
        if child.type in ("string_literal", "quoted_word_list", "interpolated_string_literal"):
            content = next((c for c in child.named_children if c.type == "string_content"), None)
            if content is not None:
                words.extend(_text(src, content).split())
    if module in ("parent", "base"):
        return [(word, []) for word in words if not word.startswith("-")]
    if module in _PERL_PRAGMAS or not module[:1].isalpha():
        return []
    return [(module, [w.lstrip("&") for w in words if w.lstrip("&").isidentifier()])]


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
    "objc": _include,  # `#import` is `#include` once
    "c_sharp": _using,
    "swift": _swift_import,
    "php": _php_use,
    "ruby": _ruby_require,
    "lua": _lua_require,
    "perl": _perl_use,
    "bash": _bash_source,
}
