"""The per-file work done in a worker process: read → decode → parse → sections → chunks."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..model import Document, pickled_by_fields
from .chunk import DEFAULT_MAX_CHARS, chunk_document, line_table
from .formats import get_format, sniff_format
from .read import DEFAULT_MAX_BYTES, SKIP_EMPTY, Skip, read_source
from .rows import Parsed, add_tsvectors, for_writer, prepare
from .sections import bounded_title, build_sections

# Bump a format's number when what its documents' sections or chunks hold changes (a
# parser or chunking rule): `index` re-parses every document built with an older number
# (`documents.content_rules`), as it does for another --chunk-chars. 2: a heading and
# the HTML comments after it come with the section's first block; a PDF's printed
# contents pages are front matter; printed chapter numbers are the section numbers.
# Markdown 3: a block of link reference definitions is a chunk of its own (search leaves
# it out). code 2: references and imports (issue 23); code 3: Rust's `io::Error` and
# `Foo { .. }` are type references; code 4: a reference records the import named in
# front of it (`http.Get`: refs.qualifier, schema 13); code 5: an import's alias (`np`
# in `import numpy as np`: imports.alias, schema 14) is a local name a qualifier may be;
# code 6: JavaScript functions assigned to members (`Route.prototype.dispatch = function
# …`, `exports.etag = …`) are symbols, a JSDoc block is a doc comment across blank
# lines, and a Python built-in name the file neither defines nor imports resolves to no
# other file's definition (`super()`); code 7: a Python name the file imports from a
# module the index lacks resolves to none of the index's definitions (`from datetime
# import date`), and a module nested in a package is not named by its last part alone;
# code 8: an empty `__init__.py` is indexed (a package marker, `PACKAGE_MARKER`), so the
# references of every code file are resolved again knowing those packages; in Python and
# JavaScript/TypeScript a member of another object than `self`/`this` is no local link
# (`refs.qualifier` '' and '.', `code_refs._OWN_RECEIVERS`); code 9: a name a file
# imports from a module (`from flask import url_for`) is the one top-level definition of
# that module's files when there is one (`resolve._Resolver._decide`), not ambiguous
# with a method of the same name under the module's folder; code 10: a class or function
# defined inside a function's body is a name of that body only (`resolve._Def.scope`):
# pytest's TypeVar `E` no longer links to a class a test function defines; code 11: a
# JavaScript/TypeScript re-export (`export * from "./schemas.js"`, `export { a } from …`)
# is an import row, which resolution follows through barrel files; code 12: `Type::name`
# / `Type.name` with `Type` imported is a member of that type (`_member_of_type`:
# `ValError::new` is not the file's own `JsonArgs::new`), and in Rust a name after `.` is
# no module's (`definitions.add(…)` with a variable named like a module), a value other
# than `self` is another object, a type's path is recorded (`Self::new`: qualifier
# `Self`, `self.len()`: `self`), a bare name is never a type's member (`Ok(…)`), and a
# call among a macro's tokens is a reference (`assert_eq!(parse(x), 1)`); a built-in
# type's method on another object (`args.get(…)`) is never linked by import or uniqueness,
# and a type parameter's uses inside its declaration are no references (`<A: Allocator>`);
# a Go method's receiver and Java/C#/Kotlin's `this` are the method's own object, and a
# bare Go name is its own package's. code 13: C/C++ are parsed with the comments inside
# preprocessor directives and the `extern "C"` guard lines blanked, a macro's word in a
# header (`static BROTLI_INLINE void f(…)`) stays in the signature and is no syntax
# error, a "function" named `if`/`while`/… (a statement after a macro) is none, and
# macros and typedefs are symbols, a `.h` file with C++'s signs is C++, and a member of
# another object (`x.f()`, `p->f()`) is no local link in C++ and no function in C;
# code 14: in Rust a member of another object is an imported definition only when the
# file imports its type by name or its module with `*` (`resolve._member_of_another`);
# code 15: an enum's members are symbols (`enum_member`: Rust variants, C enumerators,
# Java/C#/TypeScript/Kotlin enum constants), not headings; code 16: a Rust method called
# on a chain begun by `Type::f(…)` is qualified `Type()` (`code_refs._chained`), and a
# call or a type use may name an enum's member (`Cow::Borrowed(s)`: `ref_codes.FITS`);
# a Python member of a parameter annotated with a class is qualified `Class()`
# (`code_refs._typed_receivers`); code 17: a Python `Enum` class's members are symbols;
# code 18: a Go name declared with a named type calls that type's methods
# (`code_refs._go_typed`); code 19: a Python name bound to a new instance
# (`client = TestClient(app)`) calls its class's (`code_refs._py_bound`); code 20: or its
# bases' (`resolve._inherited`), an overloaded method is its implementation, and in Python and
# JavaScript `from m.app import X` no longer binds `app` (`module_paths.NAMES_ONLY`),
# `self.x = Class()` types `self.x`, a class a file imports is that module's, and a Go name
# bound to a function's result calls its first result's type's methods; a JavaScript or
# TypeScript name bound where its class is written calls that class's (`_js_bound`).
# code 21–25: imports of named modules, `super()`, re-exports (docs/docql.md); code 26:
# a Python binding to `None` types nothing, a nested function sees the bindings and
# annotated parameters of the one around it, a TypeScript type parameter or utility
# type names no class, and a value of a class the index defines nowhere (`new Set()`)
# calls none of its members; a C function left open ends where the next one begins.
# code 27: a C/C++ prototype's signature ends with `;` and gives way to its function's
# one body in the index (`resolve._bodies_behind_declarations`); code 28: only a function
# of the same name drops a prototype or an overload's signature (not a namespace, a struct);
# code 29: a Python class private by its underscore (`_HTMLDoc()`) types its value, and a
# capitalised parameter called (`ServerClass(…)`) names no class; code 30: Java, Kotlin
# and C# — overloads are one method, a class of the file's package needs no import, a bare
# name is the class's or its bases', a capitalised qualifier is a class, a member after a
# call another object's, after a constructor that class's, a Java value's declared class
# types its members (docs/docql.md); Swift and Objective-C parsed (their grammar wheels);
# code 31: Ruby and PHP parsed (their grammar wheels: symbols, references, imports; Ruby's
# constants looked up lexically, PHP's names by namespace and `use`), a Ruby module is a
# symbol of kind `module`; code 32: Bash, Lua and Perl parsed (their grammar wheels), a script
# without an extension is code in the language its `#!` line names (`ingest/shebang.py`);
# code 33: a file's first reference is decided by its own language's rules (it took the
# previous file's: a Java member call on a `Set` value, a Go call on a constructor's value),
# and a link through a qualifier or a base class follows that class's changes; code 34:
# C and C++ macros a preprocessor expands away are blanked before the parse
# (`ingest/c_macros.py`: `class GTEST_API_ X`, `f() LOCKS_EXCLUDED(mu_);`, Qt's `signals:`
# and `Q_OBJECT`), so such classes are classes and such methods keep their names; code
# 35: a test a macro defines is named by its words or its string (`TEST_F(Suite, Name)`
# → `Suite.Name`, `TEST_CASE("…")` → its string), and C++ values of a declared class
# call that class's methods; code 36: a symbol's section (and so its first chunk) starts
# at its doc comment, decorators and attributes (`code_text.leading_block`), not at its
# header: the passage that holds a Go function holds the comment that documents it;
# code 37: JavaScript's and TypeScript's `f.call(…)` and `f.apply(…)` are calls of `f`.
# text 3: a `.txt` file that is reStructuredText is read as reST (Django's manual); rst
# 3: Sphinx roles in titles, cells and terms read as Sphinx shows them, code blocks with
# options or nested in a list or an admonition are found, the bodies of Sphinx
# directives are parsed, `.. highlight::` names the language of `::` blocks, a simple
# table ends at its bottom border. html 3: a heading ends at any h1–h6 end tag
# (`<h2>Keyword Index</h1>`), as browsers end it. markdown 4: an HTML `<h1>` above every
# Markdown heading is the document's title (a GitHub README's). html 4: SQLite's hidden
# `<h _id=…>` section markers are headings (pragma.html's 74 PRAGMAs). pdf 3: running
# headers and footers that print the page's number are dropped from the text
# (`pdf.drop_running_lines`), and an outline entry is placed on the line that prints it
# after its section number ("5.1 Arrays"), also wrapped over lines, not on a body line
# or a running header that merely contains its title; without an outline, numbered
# headings keep one style (a final dot or none: "2. Header line" is a list item under
# "1 Introduction"), may follow a code line, and may open with a name from code; a word
# PDFium marks as hyphenated across lines is whole on the second line. docx
# 3: a list item's line shows its bullet or number as Word does ("- ", "2. ", "a) "),
# indented two spaces a level, a paragraph's text includes tracked insertions, inline
# content controls and fields, and paragraphs in a code style are code blocks.
# markdown 5, text 4, rst 4, html 5 (and pdf 3, docx 3 above): an unnumbered heading
# never takes a number the document prints (`sections.build_sections`: a "Note" between
# "8.1.2." and "8.1.3." took 8.1.3). html 6: a page's content is not cut down to its
# longest section when sibling sections hold headings (DocBook, AsciiDoc: PostgreSQL's
# and git's manual pages), AsciiDoc's `#footer` is chrome, a heading's anchor is the id
# of the `<section>`/`<div>` it opens (Sphinx, DocBook) or of an empty `<span id>` right
# before it (Texinfo), a table cell's inline markup is joined as written
# (`<code>NFD</code>,` is "NFD,", not "NFD ,"), zero-width spaces, soft hyphens and word
# joiners are dropped (DocBook's `set_\u200bapplicability`), Node's `[src]` links are
# chrome, a table holding a heading in its own cells lays out the page and its cells are
# rendered as blocks. rst 5: U+2028, NEL and the other characters `str.splitlines` ends
# a line at no longer shift docutils' line numbers (every heading after one was a line
# low); `.. sectnum::` no longer puts docutils' numbers into titles; an anchor is a
# target the document calls explicit; doctest blocks (`>>>`) and sphinx.ext.doctest's
# directives are code blocks. html 7: a list that is a directory of links (an index, a
# site map, a table of contents: `html.DIRECTORY_ITEMS`) shows each link's target after
# an arrow (`-DSQLITE_CDECL → compile.html#cdecl`), so search knows its lines for
# pointers; Doxygen's permalink `◆` is no part of a member's title; Javadoc's and
# Doxygen's member documentation are API entities with their declarations; LaTeX2HTML's
# navigation panel (`div.navigation`) is chrome. text 5: a `.txt` file that is AsciiDoc
# (git's manual pages) is read by the AsciiDoc parser (format `asciidoc`), and a script
# inside a compressed file (`strace-graph.gz`) is text, not a failure. text 6: plain text has
# the outline people type (`text_outline`: adorned titles, numbered titles in sequence,
# titles under a rule, Vim's tags as anchors and terms), and a `.txt.gz` file is sniffed
# as the `.txt` inside. text 7: a Debian changelog's entries are its sections and terms,
# anchored at their versions (`debian_changelog.py`), and a machine-readable copyright
# file's `Files` and `License` stanzas its sections (`debian_copyright.py`), and a GNU
# ChangeLog's dated entries its sections (`gnu_changelog.py`), and a text for Emacs'
# outline mode its star lines (`emacs_outline.py`: GNU's NEWS), and release notes with
# no other outline their lines that name a release (`release_notes.py`). rst 6: a Python
# role's leading `.` is not shown and `:func:`/`:meth:` show `()`, as Sphinx prints them
# (`:meth:`.Session.merge`` is "Session.merge()"). html 8: an HTML file that is a
# template's source (`html.is_template`: Jinja, Django, Liquid, ERB, Handlebars tags
# outside its code) is read as text, line by line (format `text`, no outline), not
# rendered. html 9:
# DocBook's tables of contents (a `<dl>` of `<dt>` links) are directories of links.
# html 10: an element of class `nosearch` (SQLite's and Fossil's site header) is chrome.
# markdown 6, rst 7, html 11, docx 4 and the others' 3: a C function's prototype in a
# code block (`int sqlite3_prepare_v2(sqlite3 *db, …);`) is an `API` entity
# (`entities._declarations`). code 38: the methods of a JavaScript or TypeScript module's
# default export (a Vue component's options) are symbols; text 8: a Vue or Svelte
# component is code, parsed in its <script> blocks (`components.py`); code 39: a Vue
# template's expressions are references too (`@click="onClick"` calls `onClick`); text
# 9: an Astro component is code too, its front matter TypeScript; code 40: a Svelte
# template's expressions are references too (`on:click={save}` calls `save`). markdown
# 7, rst 8, html 13, docx 5 and the others' 4: a prototype whose parameter is a function
# pointer (`int (*callback)(void*,int)`) is a declaration too. html 12: a
# back-of-book index ("term, <a>section</a>" entries) is a directory of links, and an
# admonition's title (`<div class="note"><h3 class="title">`) opens no section.
# markdown 8: a title's or a table cell's reference links (`[FastifyPlugin][FastifyPlugin]`,
# `[label][]`) show their text when the document defines the label, as renderers show them.
# code 41: Rust items inside an item macro's braces (`cfg_rt! { pub struct LocalSet … }`,
# `pin_project! { … }`) are parsed as items (`rust_macros`); code 42: a Rust
# `macro_rules! select` is a symbol, kind `macro`, and its uses (`select!(…)`) link to it.
# code 43: a Perl file's POD headings are sections inside its code's (`code._add_pod`), and
# a Moose / Moo / Mojo::Base attribute (`has request_timeout => …`) is a method, and a
# sub's POD section its docstring. pod 5: a link to a section reads as perldoc shows it
# (`L<perlre/Modifiers>` → `"Modifiers" in perlre`, `L</"root">` → `"root"`). html 14: a
# passage starts at each Sphinx-style API description and after it (`object_description`).
# markdown 9: the fast scanner's paragraphs are CommonMark's (its paragraph rule): an HTML
# line inside a paragraph opens no HTML block (a heading under it was lost), an indented
# line continues a paragraph, a list item's fences after a lazy line are found.
# markdown 10, text 10, rst 9, html 15, pdf 4, docx 6, pod 6 and the others' 5: a heading
# that is a Rust function's signature is an API entity (`pub fn retain<F>(&mut self, f: F)
# where …`, rustdoc's), and rustdoc's title of an item's page (`Struct std::sync::Mutex`)
# the item's entity; html 15 also: rustdoc's notable-traits tooltip is chrome, a page
# that only redirects (a meta refresh) no document. html 16: Sphinx's general index
# (`genindex.html`'s `table.indextable`) is a directory of links. markdown 11, text 11,
# rst 10, html 17, pdf 5, docx 7, pod 7 and the others' 6: rustdoc's "Primitive Type str"
# is the primitive's entity, and a signature whose receiver has a lifetime (`&'a self`)
# an API entity. html 18: a `<button>` with an `onclick` handler is chrome (SQLite's
# "hide"/"show" beside each syntax diagram). info 7: the `dir` entries before an Info
# file's first node are a menu, install-info's lines around them blanked. rdoc 1: RDoc's
# markup read (it was plain text). code 44: what a Python function of a module the index
# lacks returns (`re.compile(…)`, `logging.getLogger(…)`) is none of the index's classes
# (its references are decided again: rich's `RE_COLOR.match` was `Palette.match`), and a
# Rust package's folder as Cargo's registry names it (`regex-syntax-0.6.27`) is its crate
# (`regex_syntax`), and a Go module's folder in the module cache (`gin@v1.8.1`) its
# import path's; a Rust value declared with a type (a parameter, a `let`, a struct's field:
# `cmd: &'cmd Command`) calls that type's methods, and so does a field of a method's own
# object (`self.cmd`, Go's `s.client`, `this.client`, C++'s `client_` in a method of the
# class's body) declared with a type; a Python class's generic base (`class
# MultiDict(ImmutableMultiDict[K, V])`) is an `inherit` use, and an attribute bound to a
# nested class (`self.cursor = Lexer.Cursor(…)`) its value.
CONTENT_RULES: dict[str, int] = {
    "code": 44,
    "markdown": 11,
    "text": 11,
    "rst": 10,
    "html": 18,
    "pdf": 5,
    "docx": 7,
    "pod": 7,
    "info": 7,
    "rdoc": 1,
}
DEFAULT_CONTENT_RULES = 6


def rules_fingerprint() -> str:
    """Every format's content-rules number, as one string (`run.FAILURES_RULES_KEY`)."""
    return ",".join(f"{name}:{n}" for name, n in sorted(CONTENT_RULES.items())) + (
        f",*:{DEFAULT_CONTENT_RULES}"
    )


def content_rules(format_name: str | None) -> int:
    """The current content-rules number for documents of `format_name`."""
    return CONTENT_RULES.get(format_name or "", DEFAULT_CONTENT_RULES)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ParseTask:
    path: str  # filesystem path as found
    display: str
    format: str | None
    known_sha256: str | None = None  # skip parsing when the content still has this hash
    max_bytes: int = DEFAULT_MAX_BYTES
    max_chars: int = DEFAULT_MAX_CHARS
    is_url: bool = False
    fetch_timeout: float = 30.0
    # (size, mtime_ns) as the planner saw the file before the parse: a failure is recorded
    # with it, and the next run skips the file while both still match.
    file_stat: tuple[int, int | None] | None = None
    # A PostgreSQL writer asks for the chunks' tsvector literals (`rows.add_tsvectors`).
    tsvectors: bool = False
    # `index --decompress`: a compressed file is the document inside (`read.read_source`).
    decompress: bool = False


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Unchanged:
    """The file's bytes hash to what is stored; only its mtime moved."""

    uri: str
    mtime_ns: int | None


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Skipped:
    """The file is deliberately not indexed (empty, over --max-bytes); not a failure."""

    uri: str
    kind: str  # read.SKIP_* : the key the run counts it under
    reason: str


def parse_task(task: ParseTask) -> Parsed | Unchanged | Skipped:
    try:
        return _parse_task(task)
    except Skip as skip:
        return Skipped(
            task.path if task.is_url else os.path.abspath(task.path), skip.kind, skip.message
        )


# A document of our own per format, parsed in the indexer just before its workers fork:
# the parser modules, the Markdown scanner and each language's grammar and compiled
# query are then made once and shared by the workers (copy-on-write), not once per worker
# (~60 ms for Markdown, ~50 ms per language's query). Never user content, which only a
# worker parses (a native parser may crash or hang on it, DESIGN D7).
_WARM_MARKDOWN = "---\na: 1\n---\n# A\n\nText with `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"


def warm_up(found: list[tuple[str | None, str]]) -> None:
    """Make the parsers of these (format, file name) pairs in this process; best effort:
    whatever fails here fails again, and is reported, in the worker that parses a file."""
    from .grammars import is_optional, language_for_extension

    formats = {fmt for fmt, _ in found}
    languages = {
        language_for_extension(os.path.splitext(name)[1]) for fmt, name in found if fmt == "code"
    }
    try:
        if "markdown" in formats:
            from .markdown import parse_markdown

            parse_markdown(_WARM_MARKDOWN, "warm-up.md")
        for language in sorted(filter(None, languages)):
            if not is_optional(language):  # a pack grammar may download on first use
                from .code import parse_code_text

                parse_code_text("x\n", "warm-up", language)
    except Exception:  # noqa: BLE001 - a warm-up only saves time
        return


def parse_for_writer(task: ParseTask) -> Parsed | Unchanged | Skipped:
    """`parse_task` as the file writer's workers run it: the result slimmed for the pipe."""
    result = parse_task(task)
    return for_writer(result) if isinstance(result, Parsed) else result


# An empty (or blank) `__init__.py` is indexed all the same, as a code document without
# sections or chunks, where any other empty file is skipped: it makes its folder a
# Python package, which resolving references reads (`resolve._Resolver._packages`:
# django/db/models/functions/datetime.py is not the module `datetime`). 147 of Django's
# 195 `__init__.py` files are empty.
PACKAGE_MARKER = "__init__.py"


def _package_marker(path: str, fmt: str | None) -> bool:
    return fmt in (None, "code") and path.replace("\\", "/").rsplit("/", 1)[-1] == PACKAGE_MARKER


def _parse_task(task: ParseTask) -> Parsed | Unchanged:
    if task.is_url:
        from .fetch import fetch_url

        source = fetch_url(task.path, max_bytes=task.max_bytes, timeout=task.fetch_timeout)
    else:
        source = read_source(
            Path(task.path),
            task.display,
            max_bytes=task.max_bytes,
            fmt=task.format,
            decompress=task.decompress,
        )
    if task.known_sha256 is not None and source.sha256 == task.known_sha256:
        return Unchanged(source.uri, source.mtime_ns)
    if not source.data.strip():
        if not _package_marker(source.path, task.format or source.format):
            reason = (
                "empty file (0 bytes)" if not source.data else "no text content (only whitespace)"
            )
            raise Skip(SKIP_EMPTY, reason, task.display)
        doc = Document(
            format="code",
            text=source.data.decode("ascii", "replace"),
            title=PACKAGE_MARKER,
            language="python",
        )
    else:
        fmt = get_format(task.format or source.format or sniff_format(source.data))
        doc = fmt.parse(source)
    parsed = finish(
        doc,
        source.path,
        source.uri,
        source.sha256,
        len(source.data) if source.size is None else source.size,
        source.mtime_ns,
        [],
        task.max_chars,
    )
    return add_tsvectors(parsed) if task.tsvectors else parsed


def finish(
    doc: Document,
    path: str,
    uri: str,
    sha256: str,
    size: int,
    mtime_ns: int | None,
    warnings: list[str],
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Parsed:
    """Add sections and chunks to a parsed document (shared by files and fetched URLs)."""
    doc.warnings[:0] = warnings
    if not doc.text.strip() and doc.format not in ("pdf", "docx"):
        if not _package_marker(path, doc.format):
            raise Skip(SKIP_EMPTY, "no text content (only whitespace)", path)
    if doc.page_lines:
        doc.chunk_breaks.update(doc.page_lines)  # a chunk never spans pages, so page(n) is exact
    if doc.title:
        doc.title = bounded_title(doc.title)
    sections = build_sections(doc)
    table = line_table(doc.text)  # the lines and their offsets, for both steps below
    chunks = chunk_document(doc, sections, max_chars, table)
    parsed = Parsed(path, uri, sha256, size, mtime_ns, doc, sections, chunks)
    parsed.chunk_chars = max_chars
    parsed.content_rules = content_rules(doc.format)
    return prepare(parsed, table)
