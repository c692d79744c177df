"""reStructuredText → `Document`, through the docutils doctree.

This module owns reading reST safely (no file inclusion, no raw passthrough, no
docutils config files, no reports on stderr) and mapping docutils nodes back to
source lines: sections → headings, literal blocks → code blocks, tables, definition
lists → `Term`s, and Sphinx object directives (`.. py:function::`, `.. class::`) →
`API` / `ClassEntity`. `Document.text` is the source itself, so every line number
is a line of the file.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import directives as rst_directives
from docutils.parsers.rst.languages import en as rst_en

from docql_sqlite.ingest.entities import extract_entities, merge_entities, term_entity
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.model import CodeBlock, Document, Entity, Heading, Source, Table, split_lines

_SETTINGS: dict[str, Any] = {
    "report_level": 5,  # never print system messages
    "halt_level": 5,  # never raise on them
    "warning_stream": False,
    "file_insertion_enabled": False,  # `.. include::`, `:file:` options: untrusted input
    "raw_enabled": False,
    "_disable_config": True,  # don't read docutils.conf from the cwd or home
    "doctitle_xform": False,  # keep a lone top section a section, not the document title
    "sectsubtitle_xform": False,
    "syntax_highlight": "none",  # code stays one text node; no pygments classes
}
# Sphinx object descriptions are precise API markers: `.. py:function:: open(path)`.
_OBJECT_DIRECTIVE = re.compile(
    r"^\s*\.\.\s+(?:(?:py|js|c|cpp|rb|php):)?"
    r"(?P<kind>function|method|classmethod|staticmethod|class|exception)::\s+(?P<sig>\S.*)$"
)
_SIG_NAME = re.compile(r"^(?:[\w.]+\s+)*?(?P<name>[A-Za-z_$][\w$.:]*)\s*(?:\(|$|<)")
# A code block's options: Sphinx's (`:caption:`, `:emphasize-lines:`, `:linenos:`) make
# docutils drop the whole block as an error, and with any option at all, even one it
# knows (`:name:`), docutils gives the block no line. None of them changes the code:
# their lines are blanked before docutils reads the text (`_docutils_text`), which keeps
# every line number. Django's manual has 134 blocks with a caption or emphasized lines.
_CODE_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+(?:code-block|sourcecode|code)::")
_OPTION = re.compile(r"[ \t]+:[\w-]+:(?:[ \t]|$)")
# `.. sectnum::` would put docutils' numbers into the titles, counted from the document's
# title as chapter 1 (docutils' own HTML makes the title no section): "1.1 LaTeX" where
# the page shows "1 LaTeX". Titles stay as written; the sections get their numbers.
_SECTNUM = frozenset({"sectnum", "section-numbering"})
# sphinx.ext.doctest's directives: their bodies are code, shown as code blocks (Python's
# reST sources have 382 `.. doctest::`), read as a `.. code::` in this language.
_DOCTEST_DIRECTIVES: dict[str, str | None] = {
    "doctest": "pycon",
    "testcode": "python",
    "testsetup": "python",
    "testcleanup": "python",
    "testoutput": None,
}
# Directives whose body is text as written, never markup.
_LITERAL_DIRECTIVES = frozenset({"parsed-literal", "raw", "math", "productionlist"})
_DIRECTIVE = re.compile(r"(?P<indent>[ \t]*)\.\.[ \t]+(?P<name>[\w][\w:+.-]*)::(?:[ \t]|$)")
_HIGHLIGHT = re.compile(r"\.\.[ \t]+highlight::[ \t]+(?P<language>[\w+.#-]+)[ \t]*$")
_SIMPLE_TABLE_BORDER = re.compile(r"[ \t]*=+(?:[ \t]+=+)*[ \t]*")
# A role docutils does not know (Sphinx's :class:, :doc:, :setting:, ...) stays in the
# tree as its raw source in a `problematic` node: `:setting:`CSRF_USE_SESSIONS``.
# Characters `str.splitlines` (and so docutils) ends a line at besides "\n": a space for
# docutils, so that its line numbers are the file's (one U+2028 in a paragraph put every
# later heading one line low). "\v" and "\f" docutils makes spaces itself.
_LINE_BREAKS = str.maketrans(dict.fromkeys("\v\f\x1c\x1d\x1e\x85\u2028\u2029", " "))
_ROLE = re.compile(r":(?P<role>[\w:+.-]+):`(?P<body>[^`]*)`", re.S)
# Sphinx's Python roles (`py:` optional): a leading `.` of the target is dropped from the
# text shown (it only says where to look); `func` and `meth` (of any domain) show `()`.
_PY_ROLES = frozenset("class func meth attr mod obj exc data const type".split())
_CALL_ROLES = frozenset({"func", "meth"})
_ROLE_TITLE = re.compile(r"(?P<title>.*?\S)\s*<[^<>]*>", re.S)


def parse(source: Source) -> Document:
    """The reStructuredText parser (`formats.PARSERS`): decode, then `parse_rst`."""
    return parse_decoded(source, parse_rst)


def parse_rst(text: str, path: str) -> Document:
    """Parse reST source. Never raises for bad markup; a docutils crash falls back to text."""
    text = plain_lines(text)
    lines = split_lines(text)
    fallback = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    document = Document(format="rst", text=text)
    try:
        readable, literal = _docutils_text(lines)
        tree = publish_doctree(readable, source_path=path, settings_overrides=_SETTINGS)
    except Exception as exc:  # docutils bugs on odd input must not lose the file
        document.title = fallback
        document.warnings.append(
            f"reST parse failed ({exc or type(exc).__name__}); indexed as plain text"
        )
        return document

    native: list[Entity] = []
    # Where the last node with a line is: docutils gives a code block nested in a list
    # item or an admonition (`.. note::` holding a `.. code-block::`) no line, and such a
    # block is looked for from there on (`_find_after`).
    seen = 1
    for node in tree.findall(nodes.Element):
        if node.line is not None:
            seen = max(seen, node.line)
        if isinstance(node, nodes.section):
            heading = _heading(node, lines, tree.nametypes)
            if heading:
                document.headings.append(heading)
        elif isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            block: CodeBlock | None
            if node.line is not None:
                block = _codeblock(node, lines)
            elif not _in_system_message(node):  # not an unknown directive's own source
                block = _codeblock_after(node, lines, seen)
            else:
                continue
            if (
                block is not None
                and block.language is None
                and isinstance(node, nodes.doctest_block)
            ):  # `>>> 1 + 1` after a paragraph: Sphinx shows it as a Python session
                block = CodeBlock("pycon", block.code, block.line, block.end_line)
            if block is not None:
                document.codeblocks.append(block)
                seen = max(seen, block.end_line)
        elif isinstance(node, nodes.table):
            table = _table(node, lines)
            if table:
                document.tables.append(table)
        elif isinstance(node, nodes.definition_list_item):
            term = _term(node)
            if term:
                native.append(term)
    document.headings.sort(key=lambda h: h.line)
    _highlight_literals(document.codeblocks, lines, literal)
    for block in document.codeblocks:
        document.keep_together.append((block.line, block.end_line))
    document.title = document.headings[0].title if document.headings else fallback
    document.entities = merge_entities(
        extract_entities(document), native + _object_directives(lines, literal)
    )
    return document


def _docutils_text(lines: list[str]) -> tuple[str, frozenset[int]]:
    """The source as docutils should read it, line for line (every line number stays):
    a code block's option list blanked (`_CODE_DIRECTIVE`), `.. sectnum::` blanked
    (`_SECTNUM`), sphinx.ext.doctest's directives read as code blocks
    (`_DOCTEST_DIRECTIVES`), and a directive docutils does not know (Sphinx's
    `.. method::`, `.. versionadded::`, Django's `.. setting::`) read as a
    `.. container::` without its options, so its body is parsed, not dropped: the code
    blocks, tables and terms of an API reference are in those bodies. Literal text
    (a code block, a `::` block: reST shown as an example) is left as written; the
    second value is the 0-based numbers of its lines."""
    out = list(lines)
    in_literal: set[int] = set()
    literal: int | None = None  # the indent of what opened the literal block we are in
    number = 0
    while number < len(lines):
        line = lines[number]
        number += 1
        indent = len(line) - len(line.lstrip())
        if literal is not None:
            if not line.strip() or indent > literal:
                in_literal.add(number - 1)
                continue
            literal = None
        directive = _DIRECTIVE.match(line)
        if directive is None:
            if line.rstrip().endswith("::"):  # `Text::` then an indented literal block
                literal = indent
            continue
        name = directive["name"]
        if _CODE_DIRECTIVE.match(line) or name.lower() in _LITERAL_DIRECTIVES:
            literal = indent
        elif name.lower() in _DOCTEST_DIRECTIVES:
            language = _DOCTEST_DIRECTIVES[name.lower()]
            out[number - 1] = f"{directive['indent']}.. code::{' ' + language if language else ''}"
            literal = indent
        elif name.lower() in _SECTNUM:
            out[number - 1] = ""
        elif _known_directive(name) and not (name == "class" and "(" in line):
            # (`.. class:: Client(defaults=None, *, …)` is Sphinx's: docutils' own
            # `class` refuses that argument, and drops the body with it)
            continue
        else:
            out[number - 1] = f"{directive['indent']}.. container::"
        while number < len(lines) and _OPTION.match(lines[number]):
            out[number] = ""
            number += 1
    return "\n".join(out).translate(_LINE_BREAKS), frozenset(in_literal)


@lru_cache(maxsize=256)
def _known_directive(name: str) -> bool:
    """Whether docutils has a directive `name` (by its English name or alias)."""
    canonical = rst_en.directives.get(name.lower(), name.lower())
    registry = getattr(rst_directives, "_directive_registry", {})
    registered = getattr(rst_directives, "_directives", {})
    return canonical in registry or canonical in registered


def _heading(
    section: nodes.section, lines: list[str], nametypes: dict[str, bool]
) -> Heading | None:
    title = next((c for c in section.children if isinstance(c, nodes.title)), None)
    if title is None:
        return None
    level = sum(1 for a in _ancestors(section) if isinstance(a, nodes.section)) + 1
    text = re.sub(r"\s+", " ", _text(title)).strip()
    # docutils reports the underline's line for section titles; the title is above it.
    line = _find_line(lines, title.rawsource, (title.line or 1) - 1, before=2, after=1)
    # Only an explicit target (`.. _install-guide:`) is an anchor; docutils' own ids are
    # derived from the title, and deriving anchors is the sections builder's job. The
    # document says which names are explicit: a title's own name is its source's
    # (`what's new in |ver|` for "What's new in 3.11"), not the text shown.
    explicit = [name for name in section.get("names", []) if nametypes.get(name)]
    return Heading(
        min(level, 6), text, line, anchor=nodes.make_id(explicit[0]) if explicit else None
    )


def _text(node: nodes.Node) -> str:
    """The text a reader sees: `astext()`, except that a role docutils does not know is
    shown as Sphinx shows it (`:doc:`the models </topics/db/models>`` → `the models`,
    `:class:`~django.db.models.Field`` → `Field`) instead of as its markup."""
    if isinstance(node, nodes.problematic):
        return _role_text(node.astext())
    if isinstance(node, nodes.Text):
        return node.astext()
    if isinstance(node, nodes.system_message):
        return ""
    separator = getattr(node, "child_text_separator", "")  # as astext(): blocks by "\n\n"
    return separator.join(_text(child) for child in node.children)


def _role_text(raw: str) -> str:
    match = _ROLE.fullmatch(raw)
    if match is None:
        return raw  # some other markup error (an unclosed `*`): its source, as written
    body = match["body"]
    titled = _ROLE_TITLE.fullmatch(body)
    if titled:
        return titled["title"]
    body = body.lstrip("!")  # `!x`: no link, same text
    domain, _, role = match["role"].rpartition(":")
    python = role in _PY_ROLES and domain in ("", "py")
    if python:
        body = body.lstrip(".")  # `.Session`: searched for from here, shown as `Session`
    if body.startswith("~"):  # `~a.b.C`: the last part
        body = body[1:].rsplit(".", 1)[-1]
    if role in _CALL_ROLES and body and not body.endswith("()"):
        body += "()"  # Sphinx's add_function_parentheses (on by default)
    return body


def _ancestors(node: nodes.Node) -> list[nodes.Node]:
    found = []
    while node.parent is not None:
        node = node.parent
        found.append(node)
    return found


def _find_line(lines: list[str], raw: str, guess: int, before: int, after: int) -> int:
    """The 1-based line nearest `guess` (within -before..+after) where `raw` starts.

    Every line of `raw` must match the source (whitespace-stripped), so a code block
    whose first line repeats inside it is still placed at its real start.
    """
    want = [part.strip() for part in raw.split("\n")]
    guess = max(1, min(guess, len(lines) or 1))
    if not any(want):
        return guess
    for delta in sorted(range(-before, after + 1), key=abs):
        start = guess + delta - 1
        if 0 <= start and start + len(want) <= len(lines):
            if all(line.strip() == w for line, w in zip(lines[start:], want, strict=False)):
                return start + 1
    return guess


def _codeblock(node: nodes.literal_block, lines: list[str]) -> CodeBlock:
    code = node.astext()
    count = max(1, len(code.split("\n")))
    classes = [c for c in node.get("classes", []) if c != "code"]
    # `::` blocks report their first code line; `.. code-block::` the line after the code.
    start = _find_line(lines, code, node.line, before=count + 2, after=1)
    return CodeBlock(
        classes[0] if classes else None, code, start, min(start + count - 1, max(len(lines), 1))
    )


def _highlight_literals(blocks: list[CodeBlock], lines: list[str], literal: frozenset[int]) -> None:
    """A `::` block has the language of the `.. highlight:: c` above it (Sphinx's default
    for the rest of the file; `none` and `default` name none): Python's C API manual is
    C in `::` blocks. A `.. code-block:: x` keeps its own."""
    changes = [
        (number + 1, match["language"])
        for number, line in enumerate(lines)
        if number not in literal and (match := _HIGHLIGHT.match(line))
    ]
    if not changes:
        return
    for index, block in enumerate(blocks):
        if block.language is not None:
            continue
        language = None
        for line, named in changes:
            if line > block.line:
                break
            language = None if named.lower() in ("none", "default") else named
        if language is not None:
            blocks[index] = CodeBlock(language, block.code, block.line, block.end_line)


def _codeblock_after(node: nodes.literal_block, lines: list[str], seen: int) -> CodeBlock | None:
    """A code block docutils gave no line: the first place at or after line `seen`
    (less a few lines: a node's line may be its last) where its lines are the source's,
    else None (no line is made up)."""
    code = node.astext()
    want = [part.strip() for part in code.split("\n")]
    if not any(want):
        return None
    for start in range(max(0, seen - 3), len(lines) - len(want) + 1):
        if all(line.strip() == w for line, w in zip(lines[start:], want, strict=False)):
            classes = [c for c in node.get("classes", []) if c != "code"]
            return CodeBlock(classes[0] if classes else None, code, start + 1, start + len(want))
    return None


def _in_system_message(node: nodes.Node) -> bool:
    return any(isinstance(a, nodes.system_message) for a in _ancestors(node))


def _table(node: nodes.table, lines: list[str]) -> Table | None:
    rows: list[list[str]] = []
    headers: list[str] = []
    for part in node.findall(nodes.row):
        cells = [
            re.sub(r"\s+", " ", _text(entry)).strip()
            for entry in part.children
            if isinstance(entry, nodes.entry)
        ]
        if isinstance(part.parent, nodes.thead) and not headers:
            headers = cells
        elif not isinstance(part.parent, nodes.thead):
            rows.append(cells)
    if not headers and not rows:
        return None
    start = node.line or next((p.line for p in node.findall(nodes.paragraph) if p.line), 1)
    return Table(headers, rows, start, _block_end(lines, start))


def _block_end(lines: list[str], start: int) -> int:
    """Last line of the block starting at `start`: a directive's indented body or a table."""
    if start > len(lines):
        return start
    head = lines[start - 1]
    if head.lstrip().startswith(".."):
        indent = len(head) - len(head.lstrip())
        end = start
        for number in range(start + 1, len(lines) + 1):
            line = lines[number - 1]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            if line.strip():
                end = number
        return end
    if _SIMPLE_TABLE_BORDER.fullmatch(head):
        # A simple table may hold blank lines between its rows: it ends at a border
        # followed by a blank line or the end of the text.
        for number in range(start + 1, len(lines) + 1):
            if _SIMPLE_TABLE_BORDER.fullmatch(lines[number - 1]) and (
                number == len(lines) or not lines[number].strip()
            ):
                return number
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return end


def _term(item: nodes.definition_list_item) -> Entity | None:
    term = next((c for c in item.children if isinstance(c, nodes.term)), None)
    definition = next((c for c in item.children if isinstance(c, nodes.definition)), None)
    if term is None or item.line is None:
        return None
    body_lines = [part for part in item.rawsource.rstrip("\n").split("\n")]
    end = item.line + max(0, len(body_lines) - 1)
    return term_entity(_text(term), _text(definition) if definition else None, item.line, end)


def _object_directives(lines: list[str], literal: frozenset[int] = frozenset()) -> list[Entity]:
    """Sphinx object descriptions, except those shown in a literal block (an example)."""
    found = []
    for index, line in enumerate(lines):
        match = _OBJECT_DIRECTIVE.match(line) if index not in literal else None
        if not match:
            continue
        signature = match["sig"].strip()
        name = _SIG_NAME.match(signature)
        if not name:
            continue
        kind = "ClassEntity" if match["kind"] in ("class", "exception") else "API"
        end = _block_end(lines, index + 1)
        found.append(Entity(kind, name["name"], index + 1, end, signature=signature))
    return found
