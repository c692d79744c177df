"""Macros a C/C++ preprocessor would expand away, blanked before tree-sitter reads the file.

tree-sitter parses C and C++ without a preprocessor, so a macro whose expansion is an
attribute or nothing derails it where a compiler never sees the word. Each rule here
replaces such a use by spaces (newlines kept, so every offset and line stays; the
stored text is the file's own): names, signatures and references are read from what
the parser was given (`code._as_the_parser_reads`), but a definition's signature from
the file's own bytes where its header was blanked (`code_symbols._outline`).

- **An export or attribute macro between `class`/`struct`/`union` and the name**
  (`class GTEST_API_ FilePath : public Base {`, `class Q_CORE_EXPORT QObject`,
  `class PROTOBUF_EXPORT Message`): read as written, the macro is the class's name and
  the class a *function* whose members are errors. Qt's headers lost 829 of the 2,083
  classes Universal Ctags finds (it skips such words), googletest's and protobuf's
  dozens each.
- **An annotation macro after a declarator** (Abseil's and Clang's thread-safety
  annotations `void Put(int k) ABSL_LOCKS_EXCLUDED(mu_);`, `int count_
  ABSL_GUARDED_BY(mu_);`, googletest's `GTEST_EXCLUSIVE_LOCK_REQUIRED_(mutex) {`): read
  as written, the macro is the method's name (`Cache.ABSL_LOCKS_EXCLUDED`) and the
  function before it a declaration without its `;`. The `)` it follows must close a
  parameter list — the word before its `(` a name, no `if`/`while`/`for`/`switch`/…
  (`if (failed) ABORT(msg);` keeps its call) — or the macro must follow a declared
  name and end the declaration at a `;`.
- **Macro words before a macro that gives the type** (ncurses' `extern GCC_NORETURN
  NCURSES_EXPORT(void) _nc_err_abort(…);`): tree-sitter reads one such macro, not a
  word before it, and the declarations after it went into the ERROR.
- **A macro's use whose arguments hold a built-in type**, among declarations
  (Abseil's `ABSL_FLAG(bool, verbose, false, "…");`, gmock's `…_RETURN_TYPE_(void, );`):
  its arguments are blanked, its name, parentheses and `;` kept (a call, a reference to
  the macro); read as written the function after it was named `ABSL_FLAG`.
- **A test a macro defines and a string names** (Catch2's and doctest's
  `TEST_CASE("Factorials are computed", "[factorial]") {`): its arguments are blanked
  among declarations, so tree-sitter reads a function definition, which the symbols
  name by the string (read as written it was a call and a block: no symbol, and its
  calls had no caller).
- **An attribute macro after an enumerator's name** (Qt's `DirectoryOnly
  Q_DECL_ENUMERATOR_DEPRECATED_X("…")}`, `Old Q_DECL_ENUMERATOR_DEPRECATED = 8,`): two
  words in a row are no enumerator; read as written, the enum and the class around it
  were errors (`QFileDialog` was no class).
- **Qt's `signals:`/`slots:` sections** (`public slots:`, `Q_SIGNALS:`): moc's
  keywords, an ERROR to the grammar; `signals` are public, so `signals:` reads as
  `public:` padded, and the word `slots`/`Q_SLOTS` after an access keyword is blanked.
  So is an access keyword a macro chooses (`JSON_PRIVATE_UNLESS_TESTED:` reads as
  `private:`): a macro word holding PUBLIC, PRIVATE or PROTECTED before a lone `:`.
- **A line of macro words** (`Q_OBJECT`, `Q_GADGET`,
  `GTEST_ATTRIBUTE_NO_SANITIZE_ADDRESS_` above a function), the last perhaps called
  (`Q_DISABLE_COPY(QMimeData)`, a `Q_PROPERTY(…)` over two lines,
  `JSON_HEDLEY_NON_NULL(1)` between a `template <…>` line and its function; not
  `XMLPARSEAPI(void)` above a name and its parameters: that macro gives the type),
  among declarations — the file, a namespace, a class, not a function's body, where
  tree-sitter reads such a line as a statement and its arguments are references
  (Brotli's `FOR_ALL_HASHERS(CASE_)`), nor an enum's members — at a statement's
  boundary: the code line before (directives are passed over) ends a statement or
  opens a block (`;`, `{`, `}`, `:`, a comment's end or a `template <…>` line) and the
  next does not close or continue a list nor open the body of a function the macro
  defines (`TEST(Suite, Name)` / `{`).

A macro's use blanked among declarations is no reference any more (Qt's `Q_PROPERTY(…
READ x)` does not refer to `x`, Abseil's `ABSL_NAMESPACE_END` to its macro): the price of
classes that read as classes (design B43 has the figures).

Macro words are spelled as C programmers spell macros: upper-case letters, digits and
underscores, at least two characters (a one-letter `T` is a template parameter).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_MACRO = rb"[A-Z][A-Z0-9_]*[A-Z0-9_]"
_MACRO_WORD = re.compile(_MACRO)
_NOT_NEWLINE = re.compile(rb"[^\n]")
_BALANCED_ARGS = rb"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)"

_CLASS_HEAD_MACROS = re.compile(
    rb"(?:class|struct|union)[ \t]+((?:" + _MACRO + rb"[ \t]+)+)"
    # the class's name, its template arguments, then what follows a class's name
    rb"(?=[A-Za-z_]\w*(?:::\w+)*[ \t]*(?:<[^;{}()\n]*>[ \t]*)?"
    rb"(?:final\b|:(?!:)|\{|\n[ \t]*[:{]))"
)
# `) const ABSL_LOCKS_EXCLUDED(mu_) {` — the group is what is blanked
_AFTER_PARAMETERS = re.compile(
    rb"\)(?:[ \t]*(?:const|noexcept|override|final|volatile|&&?)\b)*[ \t]*\n?[ \t]*("
    + _MACRO
    + rb"(?:[ \t]*"
    + _BALANCED_ARGS
    + rb")?)(?=\s*(?:[{;]|=\s*(?:0|default|delete)\b|override\b|final\b|const\b|noexcept\b))"
)
# `int count_ ABSL_GUARDED_BY(mu_);`: names only between the parentheses (`void
# DEBUG_LOG(const char *fmt);` is a prototype, `const QString KEY("k");` a constant)
_NAME_ARG = rb"[!&*]?[A-Za-z_][\w.]*(?:(?:->|::)\w+)*"
_AFTER_DECLARED_NAME = re.compile(
    # (the look-behind after the first letter: a pattern that starts with a character
    # class is found fast)
    rb"([A-Z](?<![\w.>:][A-Z])[A-Z0-9_]*[A-Z0-9_][ \t]*\([ \t]*"
    + _NAME_ARG
    + rb"(?:[ \t]*,[ \t]*"
    + _NAME_ARG
    + rb")*[ \t]*\))(?=[ \t]*;)"
)
# `extern GCC_NORETURN NCURSES_EXPORT(void) _nc_err_abort(…)`: macro words before a
# macro that gives the type (tree-sitter reads one such macro, not both, and the next
# declarations went into the ERROR)
_BEFORE_MACRO_TYPE = re.compile(
    rb"([A-Z](?<![\w][A-Z])[A-Z0-9_]*[A-Z0-9_][ \t]+(?:" + _MACRO + rb"[ \t]+)*)"
    rb"(?=" + _MACRO + rb"[ \t]*\([^()\n]*\)[ \t*&]*[A-Za-z_]\w*[ \t]*\()"
)
# an enum's body, and an attribute macro after one of its enumerators' names (Qt's
# `DirectoryOnly Q_DECL_ENUMERATOR_DEPRECATED_X("…")`, `Old Q_DECL_ENUMERATOR_DEPRECATED =
# 8,`): two words in a row are no enumerator, so the second is a macro's
_ENUM_BODY = re.compile(rb"enum(?:[ \t]+(?:class|struct))?(?:[ \t]+\w+)?(?:[ \t]*:[^{;()]*)?\s*\{")
_ENUMERATOR_MACRO = re.compile(
    rb"((?:^|[{,])\s*[A-Za-z_]\w*[ \t]+)(" + _MACRO + rb"(?:[ \t]*" + _BALANCED_ARGS + rb")?)"
    rb"(?=[ \t]*(?:[=,}]|//|/\*|$))",
    re.MULTILINE,
)
# words before a `(` that open no parameter list, or before a call that is no annotation
_KEYWORDS = frozenset(
    b"if while for switch return sizeof alignof decltype catch noexcept static_assert "
    b"typeid throw else do case goto new delete co_return co_yield co_await typedef "
    b"and or not defined __attribute__ __declspec alignas".split()
)
# words that begin a declaration, so a macro after them is its declarator
_DECLARATION_WORDS = frozenset(
    b"static extern inline virtual explicit friend const constexpr consteval constinit "
    b"mutable register thread_local volatile unsigned signed void int char short long "
    b"float double bool auto struct class union enum typename using".split()
)
# (each rule's pattern starts at its word, which the regex engine finds fast; the
# line's start is checked after: `_access_lines`)
_QT_SIGNALS = (re.compile(rb"signals[ \t]*:(?!:)"), re.compile(rb"Q_SIGNALS[ \t]*:(?!:)"))
# `JSON_PRIVATE_UNLESS_TESTED:` (nlohmann/json), an access keyword chosen by a macro
_ACCESS_MACRO = re.compile(rb"(PUBLIC|PRIVATE|PROTECTED)[A-Z0-9_]*[ \t]*:(?!:)")
_QT_SLOTS = re.compile(rb"(public|protected|private)[ \t]+(?:slots|Q_SLOTS)[ \t]*:(?!:)")
_MACRO_PREFIX = re.compile(rb"(?:[A-Z0-9]+_)+")
# (from the newline before it: a pattern that starts with a literal is found fast, one
# that starts at `^` is tried at every position; a file's first line is no such line)
_MACRO_LINE = re.compile(
    rb"\n([ \t]*"
    + _MACRO
    + rb"(?:[ \t]+"
    + _MACRO
    + rb")*(?:[ \t]*"
    + _BALANCED_ARGS
    + rb")?[ \t]*(?://[^\n]*)?)(?=\n|\Z)"
)
# what `_Scopes` reads: comments, literals and directives (skipped), braces
_BRACES = re.compile(
    rb"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    rb"|\n[ \t]*#(?:[^\n]*\\\n)*[^\n]*|[{}]",
    re.DOTALL,
)
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)
_DIRECTIVE_LINE = re.compile(rb"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.MULTILINE)  # (continued too)
# a head that opens declarations, once its comments and directives are cut: `template
# <…>`, `typedef` and macro words before its keyword
_DECLARATION_HEAD = re.compile(
    rb"(?:template[ \t\n]*<[^;{]*>\s*)?(?:typedef\s+)?(?:[A-Z_][A-Z0-9_]*\s+)*"
    rb"(class|struct|union|namespace|extern[ \t]*\"C\")(?!\w)"
)
# `ABSL_FLAG(bool, verbose, false, "…");` among declarations: a macro's use whose
# arguments hold a type (tree-sitter reads a call's arguments as expressions)
_MACRO_STATEMENT = re.compile(
    rb"\n[ \t]*" + _MACRO + rb"[ \t]*(" + _BALANCED_ARGS + rb")(?=[ \t]*;)"
)
_TYPE_WORDS = frozenset(
    b"bool char int float double void short long signed unsigned const volatile size_t "
    b"ssize_t ptrdiff_t intptr_t uintptr_t wchar_t char8_t char16_t char32_t int8_t "
    b"int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t".split()
)
# `TEST_CASE("Factorials are computed", "[factorial]") {` (Catch2, doctest) among
# declarations: a macro that defines a function named by a string
_STRING_NAMED = re.compile(
    rb"\n[ \t]*" + _MACRO + rb"[ \t]*(" + _BALANCED_ARGS + rb")(?=[ \t]*(?://[^\n]*)?\s*\{)"
)
_STRING_LITERAL = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
# a function's name and parameters with no type before them
# (a function's, not another macro's: `Q_PROPERTY(…)` lines follow one another)
_UNTYPED_DECLARATOR = re.compile(rb"(?!" + _MACRO + rb"[ \t]*\()[A-Za-z_]\w*[ \t]*\(")
# how the line before a statement's first line may end (its comment removed)
_STATEMENT_BOUNDARY = (b";", b"{", b"}", b":", b"")
# how the line after it may not begin: a list or an expression going on
_CONTINUATION = frozenset(bytes([c]) for c in b"},)]=+-|&?<>*/.;")


def blank_macros(src: bytes, language: str) -> bytes:
    """`src` with the macro uses this module's rules name turned into spaces (Qt's
    sections in C++ only)."""
    if b"class" in src or b"struct" in src or b"union" in src:
        src = _CLASS_HEAD_MACROS.sub(lambda m: _class_head(src, m), src)
    src = _AFTER_PARAMETERS.sub(lambda m: _after_parameters(src, m), src)
    src = _AFTER_DECLARED_NAME.sub(lambda m: _after_declared_name(src, m), src)
    if b"enum" in src:
        src = _blank_enumerator_macros(src)
    src = _BEFORE_MACRO_TYPE.sub(lambda m: _blank_group(m, 1), src)
    src = _blank_type_arguments(src)
    if language == "cpp" and (b'("' in src or b', "' in src):
        src = _blank_string_named(src)
    if language != "cpp":
        return _blank_macro_lines(src)
    for signals in _QT_SIGNALS:
        if signals.pattern[:7] in src:
            src = _access_lines(src, signals, lambda m: b"public:", b"")
    if b"slots" in src or b"SLOTS" in src:
        src = _access_lines(src, _QT_SLOTS, lambda m: m[1] + b":", b"")
    if b"PUBLIC" in src or b"PRIVATE" in src or b"PROTECTED" in src:
        src = _access_lines(src, _ACCESS_MACRO, lambda m: m[1].lower() + b":", _MACRO_PREFIX)
    return _blank_macro_lines(src)


def _blank_type_arguments(src: bytes) -> bytes:
    """Each `MACRO(…);` among declarations one of whose arguments is a built-in type or
    empty (`ABSL_FLAG(bool, …);`, gmock's `GMOCK_DEFINE_DEFAULT_ACTION_FOR_RETURN_TYPE_(
    void, );`) keeps its name, parentheses and `;`, its arguments blanked: read as
    written it was no statement, and tree-sitter took the macro for the name of the
    function after it (`int f() {…}` became `ABSL_FLAG`)."""
    return _blank_arguments(
        src,
        _MACRO_STATEMENT,
        lambda match, arguments: any(_is_type_or_empty(argument) for argument in arguments),
    )


def _blank_string_named(src: bytes) -> bytes:
    """Each `MACRO("name", …) {` among declarations (Catch2's and doctest's
    `TEST_CASE("Factorials are computed", "[factorial]")`, `SCENARIO`, and a test's
    `TEST_CASE_METHOD(Fixture, "…")`) with its arguments blanked: tree-sitter reads it as
    a function definition (read as written: a call and a block, no symbol), which the
    symbols name by the string (`code_text.resolve_name` reads the file's own bytes)."""
    return _blank_arguments(src, _STRING_NAMED, _string_named)


def _string_named(match: re.Match[bytes], arguments: list[bytes]) -> bool:
    """A first argument that is a string names the test; so does a test's string after
    its fixture (`TEST_CASE_METHOD(Fixture, "…")`); gmock's `MATCHER(IsEven, "is even")`
    is named by its word (`code_text._defined_by_macro`), its arguments blanked too."""
    if _STRING_LITERAL.fullmatch(arguments[0].strip()):
        return True
    return (b"TEST" in match[0] or b"MATCHER" in match[0]) and any(
        _STRING_LITERAL.fullmatch(a.strip()) for a in arguments
    )


def _blank_arguments(
    src: bytes,
    pattern: re.Pattern[bytes],
    wanted: Callable[[re.Match[bytes], list[bytes]], bool],
) -> bytes:
    """Each match of `pattern` (group 1 a call's parenthesised arguments) that is among
    declarations and `wanted`, with the arguments between its parentheses blanked."""
    out: bytearray | None = None
    scopes: _Scopes | None = None
    for match in pattern.finditer(src):
        inside = match[1][1:-1]
        if not wanted(match, _arguments(inside)):
            continue
        if scopes is None:
            scopes = _Scopes(src)
        if not scopes.among_declarations(match.start() + 1):
            continue
        if out is None:
            out = bytearray(src)
        out[match.start(1) + 1 : match.end(1) - 1] = _NOT_NEWLINE.sub(b" ", inside)
    return src if out is None else bytes(out)


def _arguments(inside: bytes) -> list[bytes]:
    """A call's arguments, split at its own commas (not those inside brackets)."""
    arguments, depth, start = [], 0, 0
    for i, c in enumerate(inside):
        if c in b"([{<":
            depth += 1
        elif c in b")]}>":
            depth -= 1
        elif c == 0x2C and depth == 0:
            arguments.append(inside[start:i])
            start = i + 1
    arguments.append(inside[start:])
    return arguments


def _is_type_or_empty(argument: bytes) -> bool:
    words = argument.replace(b"*", b" ").replace(b"&", b" ").split()
    return not words or all(word in _TYPE_WORDS for word in words)


def _class_head(src: bytes, match: re.Match[bytes]) -> bytes:
    start = match.start()
    if _ends_a_word(src, start):
        return match[0]  # `subclass FOO Bar` is no class head
    return _blank_group(match, 1)


def _access_lines(
    src: bytes,
    pattern: re.Pattern[bytes],
    keyword: Callable[[re.Match[bytes]], bytes],
    prefix: bytes | re.Pattern[bytes],
) -> bytes:
    """Each match of `pattern` that begins its line's code, after a `prefix` (b"" for
    none, else a pattern: `JSON_` before `PRIVATE_UNLESS_TESTED:`), replaced by its
    access keyword padded with spaces."""
    out: bytearray | None = None
    for match in pattern.finditer(src):
        line_start = src.rfind(b"\n", 0, match.start()) + 1
        before = src[line_start : match.start()]
        start = match.start() - len(before.lstrip())
        written = src[start : match.start()]
        if written and (prefix == b"" or not re.fullmatch(prefix, written)):
            continue
        if out is None:
            out = bytearray(src)
        out[start : match.end()] = keyword(match).ljust(match.end() - start)
    return src if out is None else bytes(out)


def _blank_group(match: re.Match[bytes], group: int) -> bytes:
    text = match[0]
    start, end = match.start(group) - match.start(), match.end(group) - match.start()
    return text[:start] + _NOT_NEWLINE.sub(b" ", text[start:end]) + text[end:]


def _after_parameters(src: bytes, match: re.Match[bytes]) -> bytes:
    close = match.start()
    line_start = src.rfind(b"\n", 0, close) + 1
    if b"//" in src[line_start:close] or _in_block_comment(src, close):
        return match[0]  # `// Tests Factorial()` above `TEST_F(IntegerFunctionTest, …) {`
    word = _word_before(src, _opening_paren(src, close))
    if word is None or word in _KEYWORDS:
        return match[0]
    if b"\n" in match[0] and _MACRO_WORD.fullmatch(word):
        # `DEFINE_A(x)` / `DEFINE_B(y);`: two macro uses on their own lines
        return match[0]
    return _blank_group(match, 1)


def _in_block_comment(src: bytes, at: int) -> bool:
    """Whether `at` follows a `/*` that no `*/` has closed (looked for within 4 KB)."""
    window = max(0, at - 4096)
    opened = src.rfind(b"/*", window, at)
    return opened >= 0 and src.find(b"*/", opened, at) < 0


def _blank_enumerator_macros(src: bytes) -> bytes:
    out: bytearray | None = None
    for head in _ENUM_BODY.finditer(src):
        start = head.start()
        if _ends_a_word(src, start):
            continue  # `my_enum {` is no enum's head
        end = src.find(b"}", head.end())
        if end < 0:
            break
        body = src[head.end() - 1 : end + 1]  # (a directive's line starts with `#`: no match)
        for match in _ENUMERATOR_MACRO.finditer(body):
            if out is None:
                out = bytearray(src)
            at = head.end() - 1 + match.start(2)
            out[at : at + len(match[2])] = _NOT_NEWLINE.sub(b" ", match[2])
    return src if out is None else bytes(out)


def _after_declared_name(src: bytes, match: re.Match[bytes]) -> bytes:
    """`int count_ ABSL_GUARDED_BY(mu_);`: the macro follows a declared name."""
    word = _word_before(src, match.start())
    if word is None or word in _KEYWORDS or word in _DECLARATION_WORDS:
        # `return FOO(x);`, `else BAR(y);`; `static NODE_METHOD(JS_new);` declares by macro
        return match[0]
    return _blank_group(match, 1)


def _opening_paren(src: bytes, close: int) -> int:
    """Where the `(` closed at `close` opens (-1 when not within 4 KB)."""
    depth = 0
    for i in range(close, max(-1, close - 4096), -1):
        c = src[i]
        if c == 0x29:  # )
            depth += 1
        elif c == 0x28:  # (
            depth -= 1
            if depth == 0:
                return i
        elif c in (0x3B, 0x7B, 0x7D) and depth == 1:  # ; { } inside: no parameter list
            return -1
    return -1


def _ends_a_word(src: bytes, at: int) -> bool:
    """Whether the byte before `at` is a letter, a digit or `_`."""
    return at > 0 and (src[at - 1 : at].isalnum() or src[at - 1] == 0x5F)


def _word_before(src: bytes, at: int) -> bytes | None:
    """The identifier (or `operator…`) that ends just before `at`, else None."""
    if at <= 0:
        return None
    i = at
    while i > 0 and src[i - 1] in b" \t":
        i -= 1
    j = i
    while _ends_a_word(src, j):
        j -= 1
    if j < i and not chr(src[j]).isdigit():
        return src[j:i]
    # `operator()(…)`, `operator==(…)`, `operator[](…)`
    return b"operator" if src.rfind(b"operator", max(0, i - 12), i) >= 0 else None


def _blank_macro_lines(src: bytes) -> bytes:
    out: bytearray | None = None  # blanked as it goes: a run of such lines is read in turn
    scopes: _Scopes | None = None
    for match in _MACRO_LINE.finditer(src):
        if scopes is None:
            scopes = _Scopes(src)
        if not scopes.among_declarations(match.start(1)):
            continue
        before = _code_before(out if out is not None else src, match.start(1))
        after = _code_after(src, match.end(1))
        if before.endswith(b"\\"):
            continue  # a continued directive's line (`#define ACTION_P2(…) \`)
        last = before[-1:] if not before.startswith((b"#", b"/*", b"*")) else b""
        if last == b">" and before.startswith(b"template"):
            last = b""  # `template <typename T>` / `JSON_HEDLEY_NON_NULL(1)` / `void f(…)`
        called = b"(" in match[1]
        if last not in _STATEMENT_BOUNDARY:
            continue
        if after[:1] in _CONTINUATION and not after.startswith(b"}"):
            continue  # (`ABSL_NAMESPACE_END` before `}` goes: an enum's last member is
            # among no declarations, `_Scopes` says so)
        if called and (after.startswith(b"{") or _UNTYPED_DECLARATOR.match(after)):
            # `TEST(Suite, Name)` / `{`: a macro that defines a function; `XMLPARSEAPI(void)`
            # / `XML_Parse(…);`: a macro that gives the function its type
            continue
        if out is None:
            out = bytearray(src)
        out[match.start(1) : match.end(1)] = _NOT_NEWLINE.sub(b" ", match[1])
    return src if out is None else bytes(out)


class _Scopes:
    """Whether an offset lies among declarations (the file, a namespace, a class, an
    `extern "C"` block) or among statements (a function's body, an initializer, a
    lambda; an enum's members count as these: no macro word is blanked in them), by
    the braces around it; asked in increasing order of offsets. A brace opens
    declarations when the text before it, since the last `;`, `{` or `}`, is a class,
    struct, union or namespace head or `extern "C"`."""

    def __init__(self, src: bytes) -> None:
        self.src = src
        self.tokens = _BRACES.finditer(src)
        self.stack: list[bool] = []  # True: a block of statements
        self.pending: re.Match[bytes] | None = None

    def among_declarations(self, offset: int) -> bool:
        """True when `offset` is among declarations, not within a comment, a literal or
        a directive (macro words in a comment's text stay)."""
        while True:
            token = self.pending or next(self.tokens, None)
            self.pending = None
            if token is None:
                break
            if token.end() > offset:
                self.pending = token
                if token.start() <= offset:
                    return False  # inside a comment, a literal or a directive
                break
            brace = token[0]
            if brace == b"{":
                outer = bool(self.stack) and self.stack[-1]
                self.stack.append(outer or not self._declarations(token.start()))
            elif brace == b"}" and self.stack:
                self.stack.pop()
        return not (self.stack and self.stack[-1])

    def _declarations(self, brace: int) -> bool:
        src = self.src
        head_start = max(src.rfind(c, max(0, brace - 2000), brace) for c in (b";", b"{", b"}"))
        head = _without_comments(src[head_start + 1 : brace])
        match = _DECLARATION_HEAD.match(head)
        if match is None:
            return False
        if b"=" in head[match.end() :]:
            return False  # `struct point p = {`: an initializer's braces hold expressions
        # `struct foo *make(struct bar *b) {` is a function's body
        return (
            match[1] in (b"namespace",)
            or match[1].startswith(b"extern")
            or (not head.rstrip().endswith(b")"))
        )


def _without_comments(head: bytes) -> bytes:
    """`head` without its comments and directives, stripped."""
    if b"/" in head:
        head = _COMMENT.sub(b" ", head)
    if b"#" in head:
        head = _DIRECTIVE_LINE.sub(b"", head)
    return head.strip()


def _code_before(src: bytes | bytearray, at: int) -> bytes:
    """The nearest line above `at`'s line that holds code, stripped (b"*/" for the end
    of a block comment; a directive or a comment's line as it starts; b"" for none)."""
    end = src.rfind(b"\n", 0, at)
    for _ in range(50):
        if end < 0:
            return b""
        start = src.rfind(b"\n", 0, end) + 1
        code = bytes(src[start:end]).split(b"//", 1)[0].strip()
        if code and not code.startswith(b"#"):
            return b"*/" if code.endswith(b"*/") else code
        end = start - 1
    return b""


def _code_after(src: bytes, at: int) -> bytes:
    """The nearest line below `at` that holds code, stripped (b"" for none)."""
    start = src.find(b"\n", at)
    for _ in range(50):
        if start < 0:
            return b""
        end = src.find(b"\n", start + 1)
        code = src[start + 1 : end if end >= 0 else len(src)].split(b"//", 1)[0].strip()
        if code and not code.startswith(b"#"):
            return code
        start = end
    return b""
