"""Markdown → Document: headings, front matter, fenced code, tables, code spans, entities.

The block structure comes from `markdown_blocks` (markdown-it-pyrs when installed,
markdown-it-py otherwise or when the fast scanner fails on a file); this module turns
those blocks into the shared `Document` shape. Heading titles and table cells are
parsed as inline Markdown on their own, which is far cheaper than an inline pass over
the whole file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import yaml
from markdown_it import MarkdownIt

from ..model import CodeBlock, Document, Heading, Source, Table
from . import markdown_blocks
from .markdown_blocks import Block
from .read import parse_decoded

_EXPLICIT_ANCHOR = re.compile(r"\s*\{#([^}\s]+)\}\s*$")
_LINE_BREAK = re.compile(r"[ \t]*\n[ \t]*")
_CODE_SPAN = re.compile(r"(`+)([^`]|[^`].*?[^`])\1", re.S)


@lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True})


def scan_blocks(text: str, backend: str | None = None) -> tuple[Iterable[Block], str | None]:
    """(blocks, warning): the fast scanner when available, the reference one otherwise.
    Both see the text with nesting bounded (`markdown_blocks.bound_nesting`): a file nested
    100,000 deep crashed markdown-it-pyrs with SIGSEGV."""
    text, deep = markdown_blocks.bound_nesting(text)
    blocks, warning = _scan_bounded(text, backend)
    return blocks, "; ".join(w for w in (deep, warning) if w) or None


def _scan_bounded(text: str, backend: str | None) -> tuple[Iterable[Block], str | None]:
    if backend == "py" or (backend is None and not markdown_blocks.rs_available()):
        return markdown_blocks.scan_py(text), None
    try:
        return markdown_blocks.scan_rs(text), None
    except RuntimeError as exc:
        if backend == "rs":
            raise
        return markdown_blocks.scan_py(text), None if "not installed" in str(
            exc
        ) else f"{exc}; parsed with markdown-it-py"


def parse(source: Source) -> Document:
    """The Markdown parser (`formats.PARSERS`): decode, then `parse_markdown`."""
    return parse_decoded(source, parse_markdown)


def parse_markdown(text: str, path: str, backend: str | None = None) -> Document:
    blocks, warning = scan_blocks(text, backend)
    doc = Document(format="markdown", text=text)
    inline_code: list[tuple[int, str]] = []
    html_title: str | None = None  # an HTML <h1> above every Markdown heading
    # the document's link definitions, read when a title or a cell first has a `[`
    # outside its code spans (Node's `fs.read(fd[, options])` titles need none)
    references: dict[str, dict[str, str]] | None = None
    read_references = False
    may_define: bool | None = None  # whether the text has a `]:` (scanned once, when asked)

    def references_for(raw: str) -> dict[str, dict[str, str]] | None:
        nonlocal references, read_references, may_define
        if "[" not in raw:
            return None
        if may_define is None:
            may_define = "]:" in text
        if not may_define or "[" not in _ONE_CODE_SPAN.sub("", raw):
            return None
        if not read_references:
            references, read_references = _references(text), True
        return references

    for block in blocks:
        if block.kind == "front_matter":
            doc.body_start_line = block.end_line + 1
            doc.frontmatter = _load_front_matter(block.raw, doc.warnings)
        elif block.kind == "html" and not doc.headings and html_title is None:
            html_title = _html_h1(text, block.line, block.end_line)
        elif block.kind == "heading":
            title, anchor = _heading_title(block.raw, references_for(block.raw))
            doc.headings.append(
                Heading(level=block.level, title=title, line=block.line, anchor=anchor)
            )
        elif block.kind == "fence":
            language = block.info.split()[0] if block.info.strip() else None
            doc.codeblocks.append(
                CodeBlock(
                    language=language, code=block.raw, line=block.line, end_line=block.end_line
                )
            )
        elif block.kind == "table":
            cell_references = references_for(
                "\n".join([*block.header, *(c for r in block.rows for c in r)])
            )
            headers = [plain_inline(c, cell_references).strip() for c in block.header]
            rows = [[plain_inline(c, cell_references).strip() for c in row] for row in block.rows]
            doc.tables.append(
                Table(headers=headers, rows=rows, line=block.line, end_line=block.end_line)
            )
        elif block.kind == "html":
            doc.keep_together.append((block.line, block.end_line))
        elif block.kind == "text" and "`" in block.raw and ("(" in block.raw or "/" in block.raw):
            # (only a span with a "(" or a "/" can be an API: none without one in the text)
            raw, line, counted = block.raw, block.line, 0
            for m in _CODE_SPAN.finditer(raw):
                span = m.group(2)
                if "(" not in span and "/" not in span:
                    continue  # not a call nor an endpoint: never an API (`extract_entities`)
                # the lines before each span, counted from the previous one on (from the
                # block's start each time was quadratic in long paragraphs)
                line += raw.count("\n", counted, m.start())
                counted = m.start()
                inline_code.append((line, span.strip()))
    if warning:
        doc.warnings.append(warning)
    doc.title = _title(doc, html_title)
    from .entities import extract_entities

    doc.entities = extract_entities(doc, inline_code)
    return doc


# libyaml's scanner and parser (PyYAML's own constructor and resolver, so the same Python
# values): ~8x less CPU than the pure-Python loader, a tenth of a front-matter-heavy
# corpus's parse. It nests without Python recursion, so a text that could nest deep
# enough to make the pure-Python loader fail, and any text libyaml rejects, go to the
# pure-Python loader: warnings and results stay those of `yaml.safe_load`.
_FAST_YAML = getattr(yaml, "CSafeLoader", None)
_FAST_YAML_NESTING = 200  # markers of nesting ([, {, -, ?, a new line) below this


def _yaml(raw: str) -> Any:
    if _FAST_YAML is not None and (sum(raw.count(c) for c in "[{-?\n") < _FAST_YAML_NESTING):
        try:
            return yaml.load(raw, Loader=_FAST_YAML)  # noqa: S506 - a safe loader
        except yaml.YAMLError:
            pass  # the pure-Python loader says what is wrong, and where
    return yaml.safe_load(raw)


def _load_front_matter(raw: str, warnings: list[str]) -> dict[str, Any] | None:
    try:
        data = _yaml(raw) if raw.strip() else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        warnings.append(f"front matter is not valid YAML{where}; kept as text only")
        return None
    except RecursionError:  # PyYAML recurses per nested `[`: ~900 deep is enough
        warnings.append("front matter is nested too deep to read as YAML; kept as text only")
        return None
    if data is None:
        return None
    if not isinstance(data, dict):
        warnings.append("front matter is not a YAML mapping; ignored")
        return None
    return data


# A link reference definition (CommonMark: up to three spaces of indent, a label, a
# destination): `[FastifyPlugin]: #fastifyplugin`.
# (its destination may start on the next line)
_DEFINITION = re.compile(
    r"^ {0,3}\[((?:[^\[\]\\\n]|\\.){1,999})\]:[ \t]*\n?[ \t]*(\S+)", re.MULTILINE
)


def _references(text: str) -> dict[str, dict[str, str]] | None:
    """The document's link reference definitions, as markdown-it's inline parser reads
    them (`env["references"]`: the normalised label → its destination), or None. A title
    or a table cell parsed alone knows them: Fastify's headings write
    `fastify.FastifyRegister(plugin: [FastifyPlugin][FastifyPlugin], …)`, which a
    renderer shows as `plugin: FastifyPlugin`. (A definition inside a code block is
    taken too: a label it names then shows as text, as the link's would.)"""
    found: dict[str, dict[str, str]] = {}
    for m in _DEFINITION.finditer(text):
        found.setdefault(_normalize_label(m[1]), {"href": m[2], "title": ""})
    return found or None


def _normalize_label(label: str) -> str:
    """markdown-it's `normalizeReference`: blanks collapsed, case folded."""
    return " ".join(label.split()).lower().upper()


def _heading_title(
    raw: str, references: dict[str, dict[str, str]] | None = None
) -> tuple[str, str | None]:
    anchor = None
    # A setext heading's text can span lines; the title is one line, as a renderer shows it.
    raw = raw.strip()
    if "\n" in raw:
        raw = _LINE_BREAK.sub(" ", raw)
    # (the anchor pattern is tried at every position: only where a `{#` can start one)
    match = _EXPLICIT_ANCHOR.search(raw) if "{#" in raw else None
    if match:
        anchor = match.group(1)
        raw = raw[: match.start()]
    return plain_inline(raw, references).strip(), anchor


_ONE_CODE_SPAN = re.compile(r"`([^`]+)`")
_INLINE_SYNTAX = re.compile(r"[*_`\[\]<>!\\&]")  # a character that may open inline syntax
# the same but `_` (looked at apart), `\\` (none) and brackets: a `[` opens a link only
# when its label's `]` is followed by `(` (an inline link) or names a reference, and a
# fragment parsed alone has no references: without a `](` outside the code spans and
# plain links, every bracket is text (`[REPL][]`, `[Subtraction][arith]`, `[^1]`)
_OTHER_SYNTAX = re.compile(r"[*`<>!&]")
# An inline link whose label and destination hold no syntax: `[docker ps](ps.md)`. The
# destination has no blank, control character, parenthesis, `<`, quote or escape (so no
# title and no nesting); its label none of the characters that open inline syntax.
_SIMPLE_LINK = re.compile(r"\[([^\[\]`<>*_&!\\\n]+)\]\(([^\s\x00-\x1f\x7f()<>\[\]\\`\"']+)\)")
# markdown-it's `validateLink`: a link to one of these is not a link (kept as text)
_UNSAFE_LINK = re.compile(r"(?:javascript|vbscript|file|data):", re.I)
# An empty HTML anchor, `<a name="attach"></a>` (Docker's command tables): two inline HTML
# tags, which show no text (an open tag with one quoted attribute, and its close tag;
# no blank inside the value nor an `@`, so no autolink)
_EMPTY_ANCHOR = r'<a (?:name|id)="[\w.:-]*"></a>'
_SIMPLE_SYNTAX = re.compile(f"{_ONE_CODE_SPAN.pattern}|{_SIMPLE_LINK.pattern}|{_EMPTY_ANCHOR}")
# An underscore run that can open or close emphasis: not between two ASCII letters or
# digits (a run inside a word, `SYS_ADMIN`, is neither left- nor right-flanking only).
_FLANKING_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9_])_|_(?![A-Za-z0-9_])")


def _code_span_text(match: re.Match[str]) -> str:
    content = match.group(1).replace("\n", " ")
    # CommonMark: one space is stripped from each side when both have one (and it is not all spaces)
    if len(content) > 2 and content[0] == " " and content[-1] == " " and content.strip():
        return content[1:-1]
    return content


def _simple_syntax_text(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return _code_span_text(match)
    return match.group(2) or ""  # a link's label, or nothing for an anchor


def plain_inline(raw: str, references: dict[str, dict[str, str]] | None = None) -> str:
    """The visible text of an inline Markdown fragment (emphasis, links and code
    unwrapped); `references`: the document's link definitions (`_references`), which
    make `[text][label]`, `[label][]` and `[label]` links."""
    if not _INLINE_SYNTAX.search(raw):
        return raw
    if "``" not in raw and "\\" not in raw:
        # The common cases without a parser: single-backtick code spans
        # (`fs.readFile(path[, options])`), plain inline links (`[ps](ps.md)`), empty
        # anchors, underscores inside words (`SYS_ADMIN`) and brackets that open no link,
        # and no other inline syntax outside them.
        # Inside a code span `*_[]<>!&` are literal (the span opens before any of them).
        outside = _SIMPLE_SYNTAX.sub("\x00", raw)  # a placeholder that is not a word character
        if (
            not _OTHER_SYNTAX.search(outside)
            and "](" not in outside
            and not (references and "[" in outside)
            and ("_" not in outside or not _FLANKING_UNDERSCORE.search(outside))
            and not any(_UNSAFE_LINK.match(m[3]) for m in _SIMPLE_SYNTAX.finditer(raw) if m[3])
        ):
            return _SIMPLE_SYNTAX.sub(_simple_syntax_text, raw)
    tokens = _inline_parser().parseInline(raw, {"references": references} if references else None)
    parts: list[str] = []
    for child in tokens[0].children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts)


_HTML_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.IGNORECASE | re.DOTALL)


def _html_h1(text: str, line: int, end_line: int) -> str | None:
    """The text of the first `<h1>` of the HTML block at `line`..`end_line`, as a browser
    shows it (tags dropped, entities decoded, whitespace collapsed), or None."""
    import html

    lines = text.split("\n", end_line)[line - 1 : end_line]
    found = _HTML_H1.search("\n".join(lines))
    if found is None:
        return None
    shown = " ".join(html.unescape(re.sub(r"<[^>]*>", " ", found.group(1))).split())
    return shown or None


def _title(doc: Document, html_title: str | None = None) -> str | None:
    """Front matter's `title`; else an HTML `<h1>` above every Markdown heading (a
    GitHub README's centred `<h1 align="center">Zod</h1>`: it is the page's first
    heading as shown); else the first level-1 heading; else the first heading."""
    if doc.frontmatter and isinstance(doc.frontmatter.get("title"), str):
        return doc.frontmatter["title"].strip()
    if html_title:
        return html_title
    for heading in doc.headings:
        if heading.level == 1:
            return heading.title
    return doc.headings[0].title if doc.headings else None
