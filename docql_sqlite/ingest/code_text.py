"""Text of code symbols read off a tree-sitter tree: names, lines, signatures, docs.

Owns the language-independent rules for turning a definition node into what users
see: the name behind a C declarator, the first line of a definition (after
decorators and annotations), the whitespace-collapsed signature, the docstring or
leading doc comment, and the first sentence used as an entity's definition.
Everything works on the UTF-8 bytes the tree was parsed from; rows are 0-based here
and become 1-based lines in `code_symbols`.
"""

from __future__ import annotations

import ast
import inspect
import re

from tree_sitter import Node

# Nodes that come before a definition's own first token without being part of its
# header: decorators and annotations (excluded from line and signature, as Python's
# `ast` excludes decorators from `lineno`).
DECORATOR_TYPES = frozenset(
    {
        "decorator",
        "annotation",
        "marker_annotation",
        "attribute_list",
        "attribute_item",
        "attribute",  # Swift's `@objc`, `@MainActor`
    }
)

# Declarations whose members follow their header with no body node around them
# (Objective-C's `@interface X : Y <P>` and `@protocol P <Q>`): a signature is the
# header's line.
_HEADER_LINE_ONLY = frozenset({"class_interface", "protocol_declaration"})
# Ruby's definitions without a body (`class A < B; end`, `def e; end`, an empty class
# over two lines): the header is the first line, its `; end` cut.
_RUBY_DEFINITIONS = frozenset({"class", "module", "method", "singleton_method"})
_RUBY_EMPTY_END = re.compile(r"\s*;?\s*end$")

# Nodes whose only job is to wrap a definition; its doc comment sits above the wrapper.
WRAPPER_TYPES = frozenset(
    {
        "export_statement",
        "ambient_declaration",
        "template_declaration",
        "decorated_definition",
        "expression_statement",  # TS `namespace N {}` parses as an expression statement
        "field_declaration",  # C++ nested `struct Inner {...};`
        "declaration",  # C `struct S {...} s;`
    }
)

# C/C++ declarator nodes to look through for the declared name.
_DECLARATOR_WRAPPERS = frozenset(
    {
        "function_declarator",
        "pointer_declarator",
        "reference_declarator",
        "parenthesized_declarator",
        "attributed_declarator",
    }
)
_TEMPLATED = frozenset({"template_function", "template_type", "template_method"})
# tree-sitter-perl's name tokens, which hold the whole `::` path.
_PERL_NAMES = frozenset({"package", "bareword"})
# C's keywords and C++'s: no definition or reference is named by one. Where tree-sitter's
# recovery around a macro reads one as a name, it is code that the macro turned into a
# header or a type: `Py_END_ALLOW_THREADS` / `if (!ok) { … }` parsed as the definition of
# `if`, Highway's `const RepartitionToWide<decltype(d8)> d16;` as one of `decltype`
# (numpy: 608), `virtual ~ReadableFile() {}` as a type `virtual` (`code_refs`).
C_KEYWORDS = frozenset(
    "alignof auto break case char const continue default do double else enum extern float "
    "for goto if inline int long register restrict return short signed sizeof static "
    "struct switch typedef typeof union unsigned void volatile while".split()
)
CPP_KEYWORDS = C_KEYWORDS | frozenset(
    "alignas bool catch class const_cast constexpr decltype delete dynamic_cast explicit "
    "friend mutable namespace new noexcept nullptr operator private protected public "
    "reinterpret_cast static_assert static_cast template this throw try typeid typename "
    "using virtual".split()
)
# What no function of either language is named (a C function may be called `new`).
_NO_FUNCTION_NAMES = C_KEYWORDS | {"decltype"}
# What a C/C++ macro word in a header parses as: `static BROTLI_INLINE void f(…)` and
# `API_EXPORT int g(…);` leave the word the grammar cannot place in an ERROR of its own.
_WORD_TYPES = frozenset({"identifier", "type_identifier", "primitive_type"})

SIGNATURE_MAX = 400
RETURN_MAX = 100  # characters of a return annotation a cut signature keeps (`_cut`)
_WS = re.compile(r"\s+")
_MACRO_NAME = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")
_STRING_ARGUMENT = re.compile(rb'"((?:[^"\\\n]|\\.)*)"')
_WORD_ARGUMENT = re.compile(rb"\(\s*([A-Za-z_]\w*)")
# gmock's macros that define a matcher or an action named by their first word
_NAMED_BY_WORD = ("MATCHER", "ACTION")
_TRAILING = ("=>", "{", ":", ";", "=", "\\")  # `\\`: a macro's value on the next line
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|(?<=[。！？])")
_CS_DOC_TAGS = re.compile(r"</?(?:summary|remarks|para)>")


def node_text(src: bytes, node: Node) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def end_row(node: Node) -> int:
    """The 0-based last row holding text of `node` (some nodes end after their newline)."""
    row, column = node.end_point
    if column == 0 and row > node.start_point[0]:
        return row - 1
    return row


def last_code_row(node: Node) -> int:
    """The 0-based row of the last token of `node` that is not a comment.

    tree-sitter-python puts comments that follow a block's last statement inside the
    block, even a comment that introduces the next definition; the symbol should end
    where its code ends, as in `ast`.
    """
    current = node
    while current.child_count:
        children = current.children
        index = len(children) - 1
        while index >= 0 and children[index].type.endswith("comment"):
            index -= 1
        if index < 0:
            break
        current = children[index]
    if current is node or current.child_count:
        return end_row(node)
    return end_row(current)


def resolve_name(
    src: bytes, node: Node, original: bytes | None = None
) -> tuple[str, list[str]] | None:
    """(name, scope parts) behind a name node; looks through C/C++ declarators.

    `char **f(void)` → ("f", []); `int Widget::size()` → ("size", ["Widget"]). A
    declarator chain with no function declarator (a variable), or one that declares a
    function pointer, yields None.
    """
    if node.type in _DECLARATOR_WRAPPERS:
        saw_function = False
        while node.type in _DECLARATOR_WRAPPERS:
            inner = node.child_by_field_name("declarator")
            if inner is None:  # reference_declarator has no field: `int& f()`
                inner = node.named_children[-1] if node.named_child_count else None
            if inner is None:
                return None
            if node.type == "function_declarator":
                if inner.type == "parenthesized_declarator":  # `int (*fp)(int)`
                    return None
                saw_function = True
                defined = _defined_by_macro(src, node, inner, original)
                if defined is not None:
                    return defined, []
                # `API XXH32_hash_t XXH32 (…);`: tree-sitter took the return type for
                # the name and left the name, before the parameters, in an ERROR
                for word in node.children:  # (not `next_sibling`: it walks from the root)
                    if word.start_byte >= inner.end_byte:
                        if is_macro_word(word) and word.child_count == 1:
                            inner = word.children[0]
                        break
            node = inner
        if not saw_function:
            return None
        if node_text(src, node) in _NO_FUNCTION_NAMES:
            return None
    if node.type in _PERL_NAMES:
        # Perl's `package Foo::Bar`, `sub Foo::Bar::baz`: the last part, in its package
        *package, last = node_text(src, node).split("::")
        return (last, ["::".join(package)] if package else []) if last else None
    scope: list[str] = []
    while node.type == "qualified_identifier":
        part = node.child_by_field_name("scope")
        if part is not None and not is_macro_scope(node):
            scope.append(_plain_name(src, part))
        inner = node.child_by_field_name("name")
        if inner is None:
            return None
        node = inner
    return _plain_name(src, node), scope


def _defined_by_macro(
    src: bytes, declarator: Node, name: Node, original: bytes | None = None
) -> str | None:
    """`TEST_F(FilePathTest, IsEmpty) { … }` → "FilePathTest.IsEmpty": a function a macro
    defines (googletest's `TEST`, `TEST_F`, `TEST_P`, `TYPED_TEST`, Boost's
    `BOOST_AUTO_TEST_CASE(name)`) is named by the words it is given, joined as googletest
    names its tests (`--gtest_filter=FilePathTest.IsEmpty`), not by the macro: 2,700 of
    googletest's own functions were all `TEST`. Only a definition with a body whose
    parameters are bare words (a declaration such as `FRIEND_TEST(Foo, Bar);` keeps its
    macro's name)."""
    macro = node_text(src, name)
    if name.type != "identifier" or not _MACRO_NAME.fullmatch(macro):
        return None
    parameters = declarator.child_by_field_name("parameters")
    if parameters is None:
        return None
    if parameters.named_child_count == 0:
        # Catch2's and doctest's `TEST_CASE("Factorials are computed", "[factorial]")`,
        # whose arguments `c_macros` blanked: the first string of the file's own text
        # (gmock's `MATCHER(IsEven, "is even")`: its first word)
        if original is None or declarator.parent is None:
            return None
        if declarator.parent.type != "function_definition":
            return None
        pattern = _WORD_ARGUMENT if macro.startswith(_NAMED_BY_WORD) else _STRING_ARGUMENT
        written = pattern.search(original, parameters.start_byte, parameters.end_byte)
        return (written[1].decode("utf-8", "replace") or None) if written else None
    if macro.startswith(_NAMED_BY_WORD):
        # gmock's `ACTION_P(Add, n)`, `MATCHER_P(HasName, name, "…")`: the first word is
        # the name, the others its parameters
        first = parameters.named_children[0]
        if first.type == "parameter_declaration" and first.named_child_count == 1:
            return node_text(src, first.named_children[0])
        return None
    words = []
    for parameter in parameters.named_children:
        if (
            parameter.type != "parameter_declaration"
            or parameter.named_child_count != 1
            or parameter.named_children[0].type not in ("type_identifier", "identifier")
        ):
            return None
        words.append(node_text(src, parameter.named_children[0]))
    parent = declarator.parent
    if parent is None or parent.type != "function_definition":
        return None
    return ".".join(words)


def _plain_name(src: bytes, node: Node) -> str:
    if node.type in _TEMPLATED:  # `Foo<T>` is named Foo
        inner = node.child_by_field_name("name")
        if inner is not None:
            node = inner
    if node.type == "namespace_name":  # PHP's `GuzzleHttp\Psr7`, dotted as the others'
        return ".".join(p for p in _WS.sub("", node_text(src, node)).split("\\") if p)
    return _WS.sub("", node_text(src, node))


def header_start(node: Node) -> Node:
    """The first token of a definition that is not a decorator, annotation or comment."""
    found = _first_token(node)
    return found if found is not None else node


def _first_token(node: Node) -> Node | None:
    for child in node.children:
        kind = child.type
        if kind in DECORATOR_TYPES or kind.endswith("comment"):
            continue
        if child.child_count:
            found = _first_token(child)
            if found is not None:
                return found
            continue
        return child
    return None


def signature(src: bytes, start: int, node: Node, body: Node | None) -> str:
    """The declaration header from `start` up to the body, whitespace-collapsed.

    Comments inside the header are dropped; a trailing `{`, `:`, `;`, `=` or `=>` is
    cut. Body-less definitions (prototypes, interface methods) use their whole text.
    """
    end = node.end_byte
    if body is None and (node.type in _HEADER_LINE_ONLY or node.type in _RUBY_DEFINITIONS):
        # (its members follow with no body around them: the header is its first line)
        line_end = src.find(b"\n", start)
        end = min(end, line_end) if line_end >= 0 else end
    if body is not None:
        end = body.start_byte
        for child in body.children:  # Go `interface {`: stop at the brace, keep the keyword
            if child.type == "{":
                end = child.start_byte
                break
    if node.has_error:
        # stop before broken code, or where a body lost to the error would have begun;
        # a macro's word (`static BROTLI_INLINE void f(…)`) is no broken code
        stops = (":", "{", "ERROR") if body is None else ("ERROR",)
        for child in node.children:
            if child.type in stops and start < child.start_byte < end:
                if is_macro_word(child):
                    continue
                end = child.start_byte
                break
    raw = src[start:end]
    if b"#" in raw or b"//" in raw or b"/*" in raw:
        raw = _strip_comments(src, node, start, end)
    if b"\\\n" in raw:  # a continued line (`\` at its end) is one line
        raw = raw.replace(b"\\\n", b" \n")
    text = _WS.sub(" ", raw.decode("utf-8", "replace")).strip()
    if body is None and node.type in _RUBY_DEFINITIONS:
        text = _RUBY_EMPTY_END.sub("", text)
    for tail in _TRAILING:
        if text.endswith(tail):
            text = text[: -len(tail)].rstrip()
            break
    return _cut(text)


def _cut(text: str) -> str:
    """`text` within SIGNATURE_MAX characters, `…` where it is cut. A return annotation
    (`) -> httpx.Response`, Rust's `) -> Result<T>`) of at most RETURN_MAX characters
    is kept after the cut: the resolution pass reads what a function returns there
    (`resolve._python_result`: starlette's `TestClient.get` has 400 characters of
    parameters before its `-> httpx.Response`)."""
    if len(text) <= SIGNATURE_MAX:
        return text
    _, arrow, returned = text.rpartition(") -> ")
    if arrow and len(returned) <= RETURN_MAX:
        keep = SIGNATURE_MAX - len(arrow) - len(returned) - 1
        return text[:keep].rstrip() + "…" + arrow + returned
    return text[: SIGNATURE_MAX - 1].rstrip() + "…"


def is_macro_word(node: Node) -> bool:
    """An ERROR node that is one or two bare words: in a C/C++ declaration's header
    (`static BROTLI_INLINE void f(…)`, `API int g(void);`) a macro the grammar cannot
    expand, which a compiler's preprocessor turns into an attribute or nothing."""
    return (
        node.type == "ERROR"
        and 0 < node.child_count <= 2
        and all(child.type in _WORD_TYPES for child in node.children)
    )


def is_macro_scope(node: Node) -> bool:
    """A C++ `qualified_identifier` whose `::` tree-sitter had to invent: a macro's word
    before the name (`static Code BROTLI_NOINLINE\nSkip(…)` reads as `BROTLI_NOINLINE::
    Skip` with a MISSING `::`), no scope."""
    return any(child.is_missing and child.type == "::" for child in node.children)


def _strip_comments(src: bytes, node: Node, start: int, end: int) -> bytes:
    spans: list[tuple[int, int]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        for child in current.children:
            if child.end_byte <= start or child.start_byte >= end:
                continue
            if child.type.endswith("comment"):
                spans.append((child.start_byte, child.end_byte))
            elif child.child_count:
                stack.append(child)
    if not spans:
        return src[start:end]
    parts, pos = [], start
    for s, e in sorted(spans):
        parts.append(src[pos:s])
        pos = max(pos, e)
    parts.append(src[pos:end])
    return b" ".join(parts)


def python_docstring(src: bytes, body: Node | None) -> str | None:
    """The docstring of a Python class or function body, cleaned like `ast.get_docstring`."""
    if body is None:
        return None
    for stmt in body.named_children:
        if stmt.type == "comment":
            continue
        if stmt.type != "expression_statement" or stmt.named_child_count != 1:
            return None
        value = stmt.named_children[0]
        if value.type not in ("string", "concatenated_string"):
            return None
        doc = _string_value(node_text(src, value), value.type == "string")
        if doc is None:
            return None
        # cleandoc is costly; for one line it amounts to this
        return inspect.cleandoc(doc) if "\n" in doc else doc.expandtabs().lstrip()
    return None


def _string_value(text: str, simple: bool) -> str | None:
    if simple:
        prefix_len = 0
        while prefix_len < len(text) and text[prefix_len] not in "'\"":
            prefix_len += 1
        prefix = text[:prefix_len].lower()
        if "f" in prefix or "b" in prefix:  # f-strings and bytes are not docstrings
            return None
        quote = text[prefix_len : prefix_len + 3]
        if quote not in ('"""', "'''"):
            quote = quote[:1]
        inner = text[prefix_len + len(quote) : len(text) - len(quote)]
        if "\\" not in inner or "r" in prefix:  # nothing to unescape: skip the evaluator
            return inner
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def comments_text(src: bytes, comments: list[Node], language: str) -> str | None:
    """The doc comment these nodes make (`leading_block`'s), markers taken out, cleaned:
    the comment block directly above a definition, no blank line between (JSDoc's
    `/** … */` across them); decorators and attributes between are skipped; a comment
    trailing code on its own line belongs to that code."""
    if not comments:
        return None
    lines: list[str] = []
    for comment in comments:
        lines.extend(_comment_lines(node_text(src, comment)))
    text = inspect.cleandoc("\n".join(lines))
    if language == "c_sharp":
        text = _CS_DOC_TAGS.sub("", text).strip()
    return text or None


def leading_block(src: bytes, node: Node, language: str) -> tuple[list[Node], int]:
    """The doc comments above a definition (in file order) and the first row (0-based) of
    all that leads it: those comments, its decorators and attributes, its wrapper
    (`export`, `template <…>`). A code section starts there, so the passage that holds a
    function holds what documents it (LSP's "range" of a symbol, not its name's line)."""
    anchor = node
    while anchor.parent is not None and anchor.parent.type in WRAPPER_TYPES:
        anchor = anchor.parent
    next_row = anchor.start_point[0]
    sibling = anchor.prev_sibling
    if sibling is None and anchor.parent is not None and anchor.parent.type == "body_statement":
        # tree-sitter-ruby puts the comments before a body's first statement outside the
        # body (`module Rack` / `# Builds a response.` / `class Response`)
        sibling = anchor.parent.prev_sibling
    while sibling is not None and sibling.type in DECORATOR_TYPES:
        next_row = sibling.start_point[0]
        sibling = sibling.prev_sibling
    comments: list[Node] = []
    while sibling is not None and sibling.type.endswith("comment"):
        if end_row(sibling) < next_row - 1 and not (
            not comments and _jsdoc_above(src, sibling, language)
        ):
            break  # a blank line separates it
        before = sibling.prev_sibling
        if before is not None and end_row(before) == sibling.start_point[0]:
            break  # trailing comment of the code before it
        comments.append(sibling)
        next_row = sibling.start_point[0]
        sibling = before
    comments.reverse()
    return comments, next_row


# JSDoc and TypeScript read a `/** … */` block as the doc of the next declaration across
# blank lines, and much JavaScript is written so (Express: every method of `res` and
# `app`). Not at the top of a file, where such a block is the file's own header.
_JSDOC_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})


def _jsdoc_above(src: bytes, comment: Node, language: str) -> bool:
    return (
        language in _JSDOC_LANGUAGES
        and comment.start_point[0] > 0
        and src[comment.start_byte : comment.start_byte + 3] == b"/**"
        and src[comment.start_byte : comment.start_byte + 4] != b"/**/"
    )


def _comment_lines(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("/*"):
        text = text[3:] if text.startswith(("/**", "/*!")) else text[2:]
        if text.endswith("*/"):
            text = text[:-2]
        out = []
        for line in text.split("\n"):
            stripped = line.strip()
            if stripped.startswith("*"):  # the ` * ` gutter of Javadoc-style blocks
                stripped = stripped[1:]
                line = stripped[1:] if stripped.startswith(" ") else stripped
            out.append(line.rstrip())
        return out
    out = []
    for line in text.split("\n"):
        line = line.strip()
        for marker in ("///", "//!", "//", "#", "---", "--"):  # (`--`: Lua's)
            if line.startswith(marker):
                line = line[len(marker) :]
                break
        out.append(line[1:] if line.startswith(" ") else line)
    return out


def first_sentence(doc: str | None) -> str | None:
    """The first sentence of a docstring's first paragraph, whitespace-collapsed."""
    if not doc:
        return None
    paragraph = doc.strip().split("\n\n", 1)[0]
    paragraph = _WS.sub(" ", paragraph).strip()
    match = _SENTENCE_END.search(paragraph)
    return paragraph[: match.start()].strip() if match else paragraph or None
