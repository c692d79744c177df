"""HTML → `Document`: the visible text, line by line, with its structure.

This module owns rendering an HTML page to plain text the way a reader sees it: block
elements on their own lines (paragraph-like blocks separated by one blank line),
whitespace collapsed inside blocks, `<pre>` kept verbatim, table rows as
`cell | cell`. Scripts, styles and other invisible parts are dropped. While rendering
it records where each heading (h1–h6), code block, table and `<dl>` term landed, so
every `line` points into `Document.text`.

The tree comes from lxml (libxml2's HTML parser, C): a 17 MB page parses in well under
a second, where BeautifulSoup's Python tree took minutes of a 60 s budget (issue 12).
The walk works on lxml's own elements: an element's `text` is the string before its
first child and each child's `tail` the string after it, both belonging to the parent.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterator
from typing import Any, TypeAlias

from lxml import etree

from docql_sqlite.ingest.entities import (
    extract_entities,
    merge_entities,
    split_bold_term,
    term_entity,
)
from docql_sqlite.ingest.plaintext import parse_text
from docql_sqlite.ingest.read import SKIP_REDIRECT, Skip, parse_decoded
from docql_sqlite.model import CodeBlock, Document, Entity, Heading, Source, Table

# Plain `lxml.etree._Element`s (lxml.html's own element classes cost a Python lookup per
# node). lxml has no type information installed here, hence Any.
Element: TypeAlias = Any
_EMPTY = b"<html></html>"

# Not shown in the page body (<title> is read separately as the document title).
_INVISIBLE = {
    "script", "style", "noscript", "template", "head", "title", "svg", "canvas", "iframe",
    "object", "embed",
}  # fmt: skip
# Blocks separated from their neighbours by a blank line; other blocks just break the line.
_PARAGRAPHS = {
    "p", "pre", "table", "ul", "ol", "dl", "blockquote", "figure", "hr", "details", "section",
    "article", "header", "footer", "nav", "aside", "main", "address", "form", "fieldset",
    "h1", "h2", "h3", "h4", "h5", "h6",
}  # fmt: skip
_BREAKS = {
    "div", "li", "dt", "dd", "tr", "br", "figcaption", "summary", "caption", "legend",
    "center", "dialog", "hgroup", "body", "html",
}  # fmt: skip
_BLOCKS = _PARAGRAPHS | _BREAKS | {"td", "th"}
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight|sourceCode)-(?P<lang>[\w+#.-]+)$")
_PERMALINK_TEXT = {"", "¶", "#", "§", "🔗", "link", "◆"}  # ◆: Doxygen's member titles
_SPACES = re.compile(r"\s+")
_DISPLAY_NONE = re.compile(r"display\s*:\s*none")
_DEEP = "HTML nested too deeply; structure ignored"


def parse(source: Source) -> Document:
    """The HTML parser (`formats.PARSERS`): decode, then `parse_html` (`parse_text` for a
    template's source: `is_template`)."""
    return parse_decoded(source, _parse_page)


def _parse_page(text: str, path: str) -> Document:
    # a template's source is code: no outline of typed titles (a `----` line is markup)
    return parse_text(text, path, outlined=False) if is_template(text) else parse_html(text, path)


# Tags of a template language: `{% … %}` (Jinja, Django, Liquid, Twig, Nunjucks), `<% … %>`
# (ERB, EJS, JSP), `{{ … }}` (those and Mustache, Handlebars, Go templates, Angular) with
# an expression inside (no backslash or brace: `{{n}\\choose{k}}` is TeX).
_TEMPLATE_STATEMENT = re.compile(r"\{%-?\s*[a-zA-Z_][^\n]{0,200}?%\}|<%[=#-]?[^\n]{0,200}?%>")
_TEMPLATE_EXPRESSION = re.compile(r"\{\{[^\\{}\n]{1,200}?\}\}")
# Where a page shows code, which may be a template's: what it shows is no tag of its own.
_VERBATIM_OPEN = re.compile(r"<(pre|code|script|style|template)\b|<!--", re.I)
# How much of a page the test reads: a template's tags show early.
_TEMPLATE_SNIFF = 100_000


def is_template(text: str) -> bool:
    """Whether an HTML file is a template's source: a template statement, or two
    expressions, outside the page's code, scripts and comments.

    Why: rendered as a page, a template loses what it is made of — its tags, the
    `href="{{ url_for('blog.create') }}"` of its links, the `{% extends 'base.html' %}`
    that names its parent — and one made of blocks alone (Flask's tutorial `base.html`:
    a `<nav>` and `<header>`, which a page's chrome drops, around `{% block %}` tags) had
    no text at all and was skipped as empty. Its source, line by line, is what a user
    searches a code base's templates for; a page that shows template code does so in
    `<pre>` or `<code>` (Django's and Jinja's manuals), which the test leaves out."""
    head = text[:_TEMPLATE_SNIFF]
    if "{%" not in head and "{{" not in head and "<%" not in head:
        return False  # (most pages: a scan in C)
    head = _outside_verbatim(head)
    if _TEMPLATE_STATEMENT.search(head):
        return True
    found = _TEMPLATE_EXPRESSION.finditer(head)
    return next(found, None) is not None and next(found, None) is not None


def _outside_verbatim(text: str) -> str:
    """`text` without its `<pre>`, `<code>`, `<script>`, `<style>` and
    `<template>` elements and comments (an unclosed one: the rest), in one pass."""
    kept, at = [], 0
    lowered = text.lower()
    while (opened := _VERBATIM_OPEN.search(text, at)) is not None:
        kept.append(text[at : opened.start()])
        closing = f"</{opened.group(1).lower()}" if opened.group(1) else "-->"
        end = lowered.find(closing, opened.end())
        if end < 0:
            return "".join(kept)
        at = end + len(closing)
    kept.append(text[at:])
    return "".join(kept)


# A page that only sends the browser elsewhere: `<meta http-equiv="refresh" content="0;
# URL=…">` and a line of text ("Redirecting to …"). rustdoc writes one per re-export path
# (249 of the 1,779 pages of Rust's `std`: `std/collections/hash/map/struct.HashMap.html`),
# Sphinx's and MkDocs' redirect plugins one per moved page; each was a document of one
# passage that came up beside the page it names.
_REDIRECT_DELAY = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*[;,]\s*(?:url\s*=\s*)?['\"]?([^'\"]+)", re.I)
REDIRECT_TEXT = 300  # characters of visible text at most: a page that says more is read


def _redirect_target(root: Element) -> str | None:
    """Where a redirect page sends the reader (a refresh within a second, little text of
    its own), or None for any other page. Only the `<head>`'s (libxml2 puts a `<meta>`
    there): no walk over the body of every page."""
    head = root.find("head")
    for meta in head.iter("meta") if head is not None else ():
        if str(meta.get("http-equiv", "")).lower() != "refresh":
            continue
        found = _REDIRECT_DELAY.match(str(meta.get("content", "")))
        if found is None or float(found[1]) > 1:
            return None
        body = next(root.iter("body"), None)
        shown = _collapse(_text(body)) if body is not None else ""
        return found[2].strip() if len(shown) <= REDIRECT_TEXT else None
    return None


def parse_html(text: str, path: str) -> Document:
    """Parse an HTML page (any text libxml2's forgiving HTML parser accepts)."""
    name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    text = _drop_zero_width(text)
    root = _tree(text)
    if root is None:  # nested past libxml2's depth limit: its tree would lose the words
        lines = [_collapse(s) for s in _strip_tags(text).split("\n")]
        return Document(
            format="html",
            text="".join(line + "\n" for line in lines if line),
            warnings=[_DEEP],
            title=name,
        )
    target = _redirect_target(root)
    if target is not None:
        raise Skip(SKIP_REDIRECT, f"a redirect to {target} (an HTML meta refresh)", path)
    title_tag = next(root.iter("title"), None)
    page_title = _collapse(_text(title_tag)) if title_tag is not None else ""
    content = main_content(root)
    strip_chrome(content)
    renderer = _Renderer()
    try:
        renderer.render(content)
    except RecursionError:  # pathologically deep nesting: keep the words, lose the structure
        renderer = _Renderer()
        renderer.lines = [_collapse(s) for s in "\n".join(_strings(root)).split("\n") if s.strip()]
        renderer.warnings.append(_DEEP)
    lines = renderer.finish()
    document = Document(
        format="html",
        text="\n".join(lines) + "\n" if lines else "",
        headings=renderer.headings,
        codeblocks=renderer.codeblocks,
        tables=renderer.tables,
        keep_together=[(b.line, b.end_line) for b in renderer.codeblocks]
        + [(t.line, t.end_line) for t in renderer.tables],
        chunk_breaks=renderer.breaks,
        warnings=renderer.warnings,
    )
    first_h1 = next((h.title for h in renderer.headings if h.level == 1), None)
    document.title = page_title or first_h1 or name
    # A member's title is a heading that reads as an API (`mdb_txn_begin()`): the member's
    # entity, with its declaration, stands for it.
    members = {
        (e.name.rsplit(".", 1)[-1].casefold(), e.line)
        for e in renderer.terms
        if e.entity_type == "API"
    }
    found = [
        e
        for e in extract_entities(document)
        if e.entity_type != "API" or (e.name.casefold(), e.line) not in members
    ]
    document.entities = merge_entities(found, renderer.terms)
    return document


# Characters that show nothing and only allow a line break or a hyphen, as themselves or
# as references: DocBook splits long identifiers with U+200B
# (`collation_character_set_&#8203;applicability`, 179 on postgresql-doc-15's pages), and
# a word with one inside is not found by its spelling (grep, heading, phrase search).
# Joiners (U+200C, U+200D) stay: they change how some scripts and emoji are written.
_ZERO_WIDTH_CHARS = "\u200b\u00ad\u2060"
_ZERO_WIDTH_REF = re.compile(
    "&(?:#8203|#x200[bB]|ZeroWidthSpace|shy|#173|#x[aA][dD]|#8288|#x2060|NoBreak);"
)
_ZERO_WIDTH = re.compile(f"[{_ZERO_WIDTH_CHARS}]|{_ZERO_WIDTH_REF.pattern}")


def _drop_zero_width(text: str) -> str:
    """`text` without zero-width spaces, soft hyphens and word joiners. Looked for first:
    a search for a character the page cannot hold returns at once, and a pattern that
    starts with `&` is searched at C speed (0.035 s on python3.11-doc's 50 MB, where a
    substitution over every page took 0.57 s)."""
    if any(char in text for char in _ZERO_WIDTH_CHARS) or _ZERO_WIDTH_REF.search(text):
        return _ZERO_WIDTH.sub("", text)
    return text


# A heading's start or end tag (not <hr>, <head>, <header>).
_HEADING_TAG = re.compile(r"<(/?)h([1-6])(?=[\s/>])", re.IGNORECASE)


def _close_headings(text: str) -> str:
    """`text` with each heading closed by its own end tag, as browsers close it.

    HTML5 ends an open h1–h6 at any h1–h6 end tag (`<h2>Keyword Index</h1>`, on
    SQLite's own keyword index page). libxml2 ignores a mismatched end tag, so the
    heading ran to the end of the page and swallowed its text. The end tag that follows
    the last heading start tag is made that heading's (one digit rewritten)."""
    fixes: list[tuple[int, str]] = []
    open_level: str | None = None
    for tag in _HEADING_TAG.finditer(text):
        closing, level = tag.groups()
        if not closing:
            open_level = level
            continue
        if open_level is not None and level != open_level:
            fixes.append((tag.start(2), open_level))
        open_level = None
    if not fixes:
        return text
    parts, start = [], 0
    for at, level in fixes:
        parts += [text[start:at], level]
        start = at + 1
    parts.append(text[start:])
    return "".join(parts)


def _tree(text: str) -> Element | None:
    """The page's <html> element; None when libxml2 stopped at its nesting limit."""
    text = _close_headings(text)
    parser = etree.HTMLParser(encoding="utf-8", huge_tree=True)
    # Bytes, not str: lxml refuses a str that carries an XML encoding declaration.
    root = etree.fromstring(text.encode("utf-8", "replace"), parser) if text.strip() else None
    if any("Excessive depth" in entry.message for entry in parser.error_log):
        return None
    if root is None:  # nothing but whitespace, comments or a doctype
        root = etree.fromstring(_EMPTY, etree.HTMLParser())
    return root


def _strip_tags(text: str) -> str:
    """The words of a page without its structure: invisible blocks and tags removed."""
    text = re.sub(r"(?is)<(script|style|template)\b.*?</\1\s*>|<!--.*?-->", "", text)
    return html_lib.unescape(re.sub(r"<[^>]*>", "\n", text))


# -- the lxml tree -------------------------------------------------------------------------------
def _is_element(node: object) -> bool:
    """Elements have a str tag; comments, processing instructions and entities do not."""
    return isinstance(getattr(node, "tag", None), str)


def _elements(node: Element) -> Iterator[Element]:
    """The element children of `node` (not its comments)."""
    return (child for child in node if isinstance(child.tag, str))


def _descendants(node: Element, *tags: str) -> Iterator[Element]:
    """Elements under `node` in document order (not `node` itself), optionally by tag."""
    for element in node.iterdescendants(*tags):
        if isinstance(element.tag, str):
            yield element


def _strings(node: Element) -> Iterator[str]:
    """The text strings under `node` in document order, without those of invisible elements
    or comments (a comment's tail is text of its parent). A loop, not a recursion: it is
    what reads a page too deeply nested for the renderer (500 nested lists raised
    RecursionError here too, and the page failed instead of keeping its words)."""
    if node.text and isinstance(node.tag, str):
        yield node.text
    stack = [(node, iter(node))]
    while stack:
        parent, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if stack and parent.tail:  # the text after a child's end is its parent's
                yield parent.tail
        elif isinstance(child.tag, str) and child.tag not in _INVISIBLE:
            if child.text:
                yield child.text
            stack.append((child, iter(child)))
        elif child.tail:
            yield child.tail


def _text(node: Element, separator: str = "") -> str:
    return separator.join(_strings(node))


def _cell_text(node: Element) -> str:
    """The text of a table cell or caption on one line: inline markup joined as written
    (`<code>NFD</code>,` is "NFD,", not "NFD ,"), a space where a block (a paragraph,
    a list item, a nested table's cell, `<br>`) begins or ends."""
    parts: list[str] = []
    _cell_parts(node, parts)
    return "".join(parts)


def _cell_parts(node: Element, parts: list[str]) -> None:
    if node.text:
        parts.append(node.text)
    for child in node:
        tag = child.tag
        if isinstance(tag, str) and not _hidden(child):  # not a comment, not hidden
            if tag in _BLOCKS:
                parts.append(" ")
                _cell_parts(child, parts)
                parts.append(" ")
            else:
                _cell_parts(child, parts)
        if child.tail:
            parts.append(child.tail)


def _has_text(node: Element) -> bool:
    return any(s.strip() for s in _strings(node))


def _classes(node: Element) -> list[str]:
    return (node.get("class") or "").split()


def _nearest(node: Element, tag: str) -> Element | None:
    """The closest ancestor of `node` with this tag."""
    return next(node.iterancestors(tag), None)


def _drop(node: Element) -> None:
    """Remove `node` and what it contains, keeping the text that follows it (its tail)."""
    parent = node.getparent()
    if parent is None:
        return
    if node.tail:
        previous = node.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + node.tail
        else:
            parent.text = (parent.text or "") + node.tail
    parent.remove(node)


# Where a page's own content is, most specific first: HTML5 landmarks, then the wrappers
# of common generators — (tag name or None, class, id, role).
_MAIN_MARKS: tuple[tuple[str | None, str | None, str | None, str | None], ...] = (
    ("main", None, None, None),
    (None, None, None, "main"),
    ("div", "body", None, None),  # Sphinx (basic theme and its children)
    ("article", "md-content__inner", None, None),  # MkDocs Material
    ("div", "document", None, None),  # Sphinx without div.body
    ("div", "contentContainer", None, None),  # Javadoc before HTML5
    ("section", None, "main-content", None),  # rustdoc
    ("article", None, None, None),
)
# Chrome inside the content: navigation, sidebars, page tables of contents, footers.
_CHROME_TAGS = {"nav", "aside", "footer"}
_CHROME_ROLES = {"navigation", "complementary", "contentinfo", "search"}
# `navigation`: LaTeX2HTML's panel ("Next: Macros Up: Set-show Previous: Locale Index" on
# each of gnuplot's 652 pages, the neighbours' titles as words of every page).
# `notable-traits`: rustdoc's tooltip inside a signature's heading ("pub const fn new() ->
# Vec<T, Global>ⓘNotable traits for Vec<u8, A>impl<A: Allocator> Write for …").
_CHROME_CLASSES = {
    "sphinxsidebar", "related", "headerlink", "md-sidebar", "theme-doc-toc-mobile",
    "theme-doc-toc-desktop", "table-of-contents", "theme-doc-breadcrumbs", "pagination-nav",
    "md-source-file", "srclink", "navigation", "notable-traits",
}  # fmt: skip
# Chrome unless it holds a heading. `nosearch`: the class SQLite's and Fossil's sites give
# their header (logo, tagline, menu, search form) so that their own search skips it; on
# each of SQLite's 766 pages it was a first passage "Small. Fast. Reliable. Choose any
# three. Home Menu About … Purchase Search", and "purchase support" found only that (its
# 632 copies filled every list). SQLite's C reference pages wrap their titles in one too
# (its search takes them from <title>): there the headings stay.
_CHROME_UNLESS_HEADED = {"nosearch"}
# A `<button>` a script drives (`onclick`) is a control, its label the control's state:
# SQLite's syntax diagrams each have one ("attach-stmt: hide", "expr: show" opened every
# statement's page). A button without a handler stays (Sphinx-tabs' labels: "Python").
# AsciiDoc's (git's manual pages) `<div id="footer">`: "Last updated 2024-05-31 …".
_CHROME_IDS = {"footer"}
DOMINANT_SHARE = 0.6  # a child holding this share of a container's text is the content
MIN_PAGE_TEXT = 1000  # characters; below this a page is taken whole


def main_content(root: Element) -> Element:
    """The element holding the page's own content (docs/search.md, "Clean content"):
    a landmark or a known generator's wrapper when there is one with text, else the
    largest text container — descending from <body> into a child that holds most
    (DOMINANT_SHARE) of the text, stopping at an element with its own headings.
    Navigation columns, headers with the site's name as <h1> ("Node.js v18.20.4
    documentation") and footers stay out."""
    body = next(root.iter("body"), None)
    top: Element = body if body is not None else root
    # One pass over the elements (CSS selectors would walk the tree once per selector).
    mark: tuple[int, Element] | None = None
    for tag in _descendants(top):
        rank = _main_rank(tag)
        if rank is not None and (mark is None or rank < mark[0]) and _has_text(tag):
            mark = (rank, tag)
            if rank == 0:
                break
    if mark is not None:
        return mark[1]
    sizes = _text_sizes(top)
    if sizes[top] < MIN_PAGE_TEXT:
        return top  # a fragment or a tiny page: nothing worth telling apart
    node = top
    while True:
        if any(c.tag in _HEADINGS for c in _elements(node)):
            return node
        children = [c for c in _elements(node) if c.tag in _CONTAINERS and c in sizes]
        best = max(children, key=lambda c: sizes[c], default=None)
        if best is None or sizes[best] < DOMINANT_SHARE * sizes[node]:
            return node
        if _sibling_sections(node, best):
            return node
        node = best


_SECTION_TEXT = 20  # characters outside headings and links that make a part a section


def _sibling_sections(node: Element, best: Element) -> bool:
    """Whether a child of `node` other than `best` holds part of the page's own content,
    so that `node`, not `best`, is the content: a child with a heading (not a link alone,
    as a site's name or a navigation column's title is) when `best` has no heading (the
    title above a long list: PostgreSQL's "Appendix L. Acronyms"), or one at `best`'s
    top level or above (a DocBook or AsciiDoc page's other sections beside its longest
    one: PostgreSQL's "Description" beside "Options", git's `<div id="header">` with the
    page's title and NAME line, a DocBook section's title above its one subsection), or
    a heading with text of its own outside headings and links. A site header
    (`<header>`: Node's "Node.js v18 documentation") and navigation are not content."""
    levels = [int(h.tag[1]) for h in _descendants(best, *_HEADINGS) if not _hidden(h)]
    top = min(levels, default=7)
    for child in _elements(node):
        if child is best or _hidden(child) or _is_chrome(child) or child.tag == "header":
            continue
        headings = [h for h in _descendants(child, *_HEADINGS) if _titles(h)]
        if child.tag in _HEADINGS and _titles(child):
            headings.append(child)
        if headings and (
            min(int(h.tag[1]) for h in headings) <= top or _own_text(child) >= _SECTION_TEXT
        ):
            return True
    return False


def _titles(heading: Element) -> bool:
    """Whether a visible heading has text outside links (a permalink mark aside)."""
    if _hidden(heading):
        return False
    linked = sum(len(_text(a).strip()) for a in _descendants(heading, "a"))
    return len(_text(heading).strip()) > linked


def _own_text(node: Element) -> int:
    """Characters of visible text under `node` outside headings, links and chrome."""
    size = 0
    stack = [node]
    while stack:  # not recursive: a page may nest deeper than Python's recursion limit
        tag = stack.pop()
        if tag.text and tag.tag not in _HEADINGS:
            size += len(tag.text.strip())
        for child in tag:
            if _is_element(child) and not (
                child.tag in _HEADINGS or child.tag == "a" or _hidden(child) or _is_chrome(child)
            ):
                stack.append(child)
            if child.tail:
                size += len(child.tail.strip())
    return size


_MARK_TAGS = {name for name, *_ in _MAIN_MARKS if name is not None}


def _main_rank(tag: Element) -> int | None:
    if tag.tag not in _MARK_TAGS and tag.get("role") is None:
        return None  # the common case, decided without looking at the classes
    classes: list[str] | None = None
    for rank, (name, cls, ident, role) in enumerate(_MAIN_MARKS):
        if name is not None and tag.tag != name:
            continue
        if cls is not None:
            classes = _classes(tag) if classes is None else classes
            if cls not in classes:
                continue
        if (ident is None or tag.get("id") == ident) and (role is None or tag.get("role") == role):
            return rank
    return None


def strip_chrome(root: Element) -> None:
    """Remove navigation, sidebars, footers and permalink marks (`¶`) from the content."""
    chrome = []
    marks = _PERMALINK_TEXT - {""}
    for tag in root.iterdescendants():  # `_is_chrome` inline: every element of every page
        name = tag.tag
        if not isinstance(name, str):
            continue  # a comment
        get = tag.get
        classes = get("class")
        if (
            name in _CHROME_TAGS
            or get("role") in _CHROME_ROLES
            or get("id") in _CHROME_IDS
            or (classes and _chrome_classes(tag, classes))
            or (
                name == "a" and str(get("href", "")).startswith("#") and _text(tag).strip() in marks
            )
            or (name == "button" and get("onclick") is not None)
        ):
            chrome.append(tag)
    for tag in chrome:
        _drop(tag)


def _is_chrome(tag: Element) -> bool:
    """Navigation, a sidebar, a footer, a page's table of contents."""
    if tag.tag in _CHROME_TAGS:
        return True
    get = tag.get  # called for every element of every page: attribute reads only
    if get("role") in _CHROME_ROLES or get("id") in _CHROME_IDS:
        return True
    classes = get("class")
    return bool(classes) and _chrome_classes(tag, classes)


def _chrome_classes(tag: Element, classes: str) -> bool:
    """Whether the element's classes (its `class` attribute) make it chrome."""
    names = classes.split()
    if not _CHROME_CLASSES.isdisjoint(names):
        return True
    return (
        not _CHROME_UNLESS_HEADED.isdisjoint(names)
        and next(_descendants(tag, *_HEADINGS), None) is None
    )


_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_CONTAINERS = {"div", "section", "article", "main", "body", "html", "center"}


def _text_sizes(top: Element) -> dict[Element, int]:
    """Characters of visible text under each element, in one pass over the tree."""
    sizes: dict[Element, int] = {}
    order: list[Element] = []
    stack = [top]
    while stack:  # pre-order; sizes are summed children-first below
        tag = stack.pop()
        order.append(tag)
        stack.extend(c for c in _elements(tag) if not _hidden(c))
    for tag in reversed(order):
        size = len(tag.text.strip()) if tag.text else 0
        for child in tag:
            size += sizes.get(child, 0)
            if child.tail:
                size += len(child.tail.strip())
        sizes[tag] = size
    return sizes


def _collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _hidden(tag: Element) -> bool:
    if tag.tag in _INVISIBLE or "hidden" in tag.attrib:
        return True
    style = tag.get("style")
    return bool(style and _DISPLAY_NONE.search(style))


# A list that is a directory of links: a keyword index (SQLite's `keyword_index.html`,
# 2,968 items), a site map, a table of contents (Python's `contents.html`, a page's own
# "Contents" box; DocBook writes its tables of contents as a `<dl>` of `<dt>` entries:
# the Debian Administrator's Handbook's `index.html`, PostgreSQL's chapter pages). At
# least DIRECTORY_ITEMS items in its tree, and nine in ten of those whose text is one
# relative link's text alone. Each such link is rendered with its target
# after an arrow (`-DSQLITE_CDECL → compile.html#cdecl`), as a text browser lists a page's
# links: the page says where each entry points, and search knows its lines for pointers
# (`passage_text.pointer_page`): they answer nothing themselves, yet hold every title's
# words (`keyword_index.html` ranked 1st for "how do I enable WAL mode" without vectors,
# Python's `contents.html` 1st for "what new features in python 3.11 for error messages").
DIRECTORY_ITEMS = 20
DIRECTORY_SHARE = 0.9
_LISTS = ("ul", "ol")


def _item_text(item: Element) -> str:
    """A list item's own visible text, its nested lists left out."""
    parts = [item.text or ""]
    for child in item:
        if isinstance(child.tag, str) and child.tag not in _LISTS and child.tag not in _INVISIBLE:
            parts.append(_text(child))
        parts.append(child.tail or "")
    return _collapse("".join(parts))


def _pointer_links(item: Element) -> list[Element]:
    """The links that are all of a list item's (or a directory `<dl>`'s term's) own text:
    one relative link alone, or a back-of-book index's entry, a term then its relative
    links after commas (DocBook's `bookindex.html`: "PQgetvalue, Retrieving Query Result
    Information"); else []."""
    links = [a for a in _descendants(item, "a") if a.get("href") and _nearest(a, item.tag) is item]
    if not links or not all(_relative(a) for a in links):
        return []
    text = _item_text(item)
    if not text:
        return []
    shown = ", ".join(_collapse(_text(a)) for a in links)
    if len(links) == 1 and shown == text:
        return links
    term = text[: -len(shown) - 2] if text.endswith(", " + shown) else ""
    return links if 0 < len(term) <= MAX_INDEX_TERM and not term.endswith(",") else []


MAX_INDEX_TERM = 100  # characters of a back-of-book index entry's term


def _relative(link: Element) -> bool:
    """Whether a link points to a page of these docs (not http:, mailto:, javascript:)."""
    href = str(link.get("href")).strip()
    return bool(href) and ":" not in href.split("/", 1)[0] and not any(c.isspace() for c in href)


def _directory_links(
    lst: Element,
    skip: set[Element] | frozenset[Element] = frozenset(),
    least: int = DIRECTORY_ITEMS,
) -> list[Element]:
    """The pointer links of a list that is a directory (`least` items at least), else []:
    its items, or a `<dl>`'s terms (DocBook's tables of contents and back-of-book index);
    the items of `skip` (an index's labels) left out of the count."""
    items = [
        li
        for li in _descendants(lst, "dt" if lst.tag == "dl" else "li")
        if not _hidden(li) and li not in skip
    ]
    if len(items) < least:
        return []
    with_text = [li for li in items if _item_text(li)]
    pointed = [links for links in map(_pointer_links, with_text) if links]
    if len(pointed) < DIRECTORY_SHARE * len(with_text):
        return []
    return [link for links in pointed for link in links]


def _index_links(table: Element) -> list[Element]:
    """The pointer links of a table that is Sphinx's general index (`genindex.html`:
    `table.indextable`, each letter's entries in lists, one per column) whose lists are
    a directory, else []: each column's list was too short to be one, and alembic's "how
    do I rename a column" ranked the index's letter V ("value (… parameter) verbose (…
    parameter) …") 2nd. A term of several places is a label over its own list of links
    (`alembic.command`, then "module"): neither a pointer nor prose. Any number of
    entries: the class says what the table is (the letter U has nine)."""
    if "indextable" not in _classes(table):
        return []
    labels = [
        li
        for li in _descendants(table, "li")
        if next(_descendants(li, *_LISTS), None) is not None and not _pointer_links(li)
    ]
    return _directory_links(table, skip=set(labels), least=1)


# DocBook's admonitions (`<div class="note"><h3 class="title">Note</h3>`): PostgreSQL's
# manual has 456, git's user manual and the Debian Administrator's Handbook theirs.
_ADMONITIONS = frozenset({"note", "warning", "tip", "caution", "important"})


def _admonition_title(heading: Element) -> bool:
    """Whether a heading is the label of an admonition box, which opens no section: the
    text after the box belongs to the section around it (PostgreSQL's libpq-connect.html
    had `PQconnectdb`'s description under a "Warning" section, and a search named
    "Note" or "Tip" as the section of many answers)."""
    parent = heading.getparent()
    return (
        parent is not None
        and parent.tag == "div"
        and "title" in _classes(heading)
        and not _ADMONITIONS.isdisjoint(_classes(parent))
    )


class _Renderer:
    """Walks the tree once, appending finished lines and recording positions."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.inline: list[str] = []
        self.headings: list[Heading] = []
        self.visible_level = 0  # of the last h1-h6 (`section_marker`)
        self.codeblocks: list[CodeBlock] = []
        self.tables: list[Table] = []
        self.terms: list[Entity] = []
        self.pointers: set[Element] = set()  # links of a directory list (`_directory_links`)
        self.breaks: set[int] = set()  # lines where a chunk must start (a directory's edges)
        self.warnings: list[str] = []

    # -- line buffer -------------------------------------------------------------
    def flush(self) -> None:
        if not self.inline:
            return
        line = _collapse("".join(self.inline))
        self.inline = []
        if line:
            self.lines.append(line)

    def blank(self) -> None:
        self.flush()
        if self.lines and self.lines[-1] != "":
            self.lines.append("")

    @property
    def next_line(self) -> int:
        """The 1-based line the next flushed text lands on (call after flush/blank)."""
        return len(self.lines) + 1

    def finish(self) -> list[str]:
        self.flush()
        while self.lines and self.lines[-1] == "":
            self.lines.pop()
        return self.lines

    # -- tree walk ---------------------------------------------------------------
    def render(self, node: Element) -> None:
        if node.text:
            self.inline.append(node.text)
        for child in node:
            if isinstance(child.tag, str):
                if not _hidden(child):
                    self.element(child)
                elif child.tag == "h":
                    self.section_marker(child)
            if child.tail:
                self.inline.append(child.tail)

    def section_marker(self, tag: Element) -> None:
        """SQLite's documentation marks each part of a long page with a hidden `<h
        _id=pragma_journal_mode style="display:none">PRAGMA journal_mode</h>` (the
        sections of its own search index; 74 on pragma.html, under one visible "List Of
        PRAGMAs"). Each is a heading one level below the last visible one (its text
        rendered as the section's first line; its `_id` the anchor), so
        `heading("journal_mode")`, `chapter("#pragma_journal_mode")` and a search's
        section name find the part, not the whole list."""
        marker_id = tag.get("_id")
        before = len(self.headings)
        self.heading(tag, min(6, self.visible_level + 1))
        if marker_id and len(self.headings) > before and not self.headings[-1].anchor:
            self.headings[-1].anchor = str(marker_id)

    def element(self, tag: Element) -> None:
        name = tag.tag
        if name == "dl" and not self.pointers and _directory_links(tag):
            name = "ul"  # a DocBook table of contents: `<dt><span><a>` entries, a directory
        index = name == "table" and not self.pointers and _index_links(tag)
        if index:
            name = "ul"  # Sphinx's general index: its columns' lists are one directory
        if name in _LISTS and not self.pointers:
            self.pointers.update(index or _directory_links(tag))
            self.blank()
            start = self.next_line
            self.render(tag)
            self.flush()
            if self.pointers:  # a directory is a chunk of its own: the prose around it
                self.breaks.update((start, self.next_line))  # stays a search passage
            self.blank()
            self.pointers.clear()
        elif name == "a" and tag in self.pointers:
            self.render(tag)
            self.inline.append(f" → {str(tag.get('href')).strip()}")
        elif name in _HEADINGS and _admonition_title(tag):
            self.blank()  # a box's label, not a section: the text after the box is not its
            self.render(tag)
            self.blank()
        elif name in _HEADINGS:
            self.visible_level = int(name[1])
            self.heading(tag, self.visible_level)
        elif name == "pre":
            self.pre(tag)
        elif name == "table":
            self.table(tag)
        elif name == "dl" and not self.pointers:
            self.definition_list(tag)
        elif name in ("p", "li"):
            self.paragraph(tag)
        elif name in _PARAGRAPHS or name in _BREAKS:
            apart = self.blank if name in _PARAGRAPHS else self.flush
            member = _member_entity(tag, self.headings)
            apart()
            start = self.next_line
            self.render(tag)
            if member is not None:
                self.flush()
                kind, full_name, signature, title_line = member
                first = title_line or start
                end = max(first, len(self.lines))
                self.terms.append(Entity(kind, full_name, first, end, signature=signature))
            apart()
        else:
            self.render(tag)

    def heading(self, tag: Element, level: int) -> None:
        for link in list(_descendants(tag, "a")):
            # Permalink decorations ("¶", "#") are not part of the title.
            if str(link.get("href", "")).startswith("#") and _text(link).strip() in _PERMALINK_TEXT:
                _drop(link)
        self.blank()
        start = self.next_line
        self.render(tag)
        self.flush()
        title = _collapse(" ".join(self.lines[start - 1 :]))
        if title:
            target = next((a for a in _descendants(tag, "a") if a.get("id") or a.get("name")), None)
            anchor = (
                tag.get("id")
                or (target.get("id") or target.get("name") if target is not None else None)
                or _wrapper_id(tag)
                or _target_before(tag)
            )
            self.headings.append(
                Heading(level, title, start, anchor=str(anchor) if anchor else None)
            )
        self.blank()

    def paragraph(self, tag: Element) -> None:
        is_item = tag.tag == "li"
        self.flush() if is_item else self.blank()
        start = self.next_line
        self.render(tag)
        self.flush()
        lead = _bold_lead(tag)
        if lead and self.next_line > start:
            term = term_entity(lead[0], lead[1], start, self.next_line - 1)
            if term:
                self.terms.append(term)
        self.flush() if is_item else self.blank()

    def pre(self, tag: Element) -> None:
        self.blank()
        code = _text(tag)
        code = code[1:] if code.startswith("\n") else code  # HTML drops a newline right after <pre>
        code = code.rstrip("\n").replace("\r\n", "\n").replace("\r", "\n")
        if code.strip():
            start = self.next_line
            self.lines.extend(line.rstrip() for line in code.split("\n"))
            self.codeblocks.append(CodeBlock(_language(tag), code, start, self.next_line - 1))
        self.blank()

    def table(self, tag: Element) -> None:
        if _is_layout(tag):
            self.layout_table(tag)
            return
        self.blank()
        caption = next(_descendants(tag, "caption"), None)
        if caption is not None and _nearest(caption, "table") is tag:
            self.inline.append(_cell_text(caption))
            self.flush()
        headers: list[str] = []
        rows: list[list[str]] = []
        start = self.next_line
        for row in _descendants(tag, "tr"):
            if _nearest(row, "table") is not tag or _hidden(row):
                continue  # rows of nested tables are part of their cell's text
            cell_tags = [c for c in _elements(row) if c.tag in ("td", "th")]
            cells = [_collapse(_cell_text(c)) for c in cell_tags]
            if not cells:
                continue
            head = _nearest(row, "thead")
            in_head = head is not None and _nearest(head, "table") is tag
            all_th = all(c.tag == "th" for c in cell_tags)
            if not headers and not rows and (in_head or all_th):
                headers = cells
            else:
                rows.append(cells)
            self.lines.append(" | ".join(cells))
        if headers or rows:
            self.tables.append(Table(headers, rows, start, self.next_line - 1))
        self.blank()

    def layout_table(self, tag: Element) -> None:
        """A table that lays out a page (a navigation cell beside a content cell holding
        the headings): each cell is rendered as a block of the page, so its headings,
        paragraphs, code and tables keep their structure instead of becoming one row."""
        for row in _descendants(tag, "tr"):
            if _nearest(row, "table") is not tag or _hidden(row):
                continue
            for cell in _elements(row):
                if cell.tag in ("td", "th") and not _hidden(cell):
                    self.blank()
                    self.render(cell)
                    self.blank()

    def definition_list(self, tag: Element) -> None:
        kind = _object_kind(tag)
        if kind is not None:
            self.object_description(tag, kind)
            return
        self.blank()
        terms: list[tuple[str, int]] = []
        definitions: list[str] = []
        for item in _descendants(tag, "dt", "dd"):
            if _nearest(item, "dl") is not tag or _hidden(item):
                continue
            if item.tag == "dt" and definitions:
                self._emit_terms(terms, definitions)
                terms, definitions = [], []
            self.flush()
            start = self.next_line
            self.render(item)
            self.flush()
            text = _collapse(" ".join(self.lines[start - 1 :]))
            if item.tag == "dt":
                terms.append((text, start))
            else:
                definitions.append(text)
        self._emit_terms(terms, definitions)
        self.blank()

    def object_description(self, tag: Element, kind: str) -> None:
        """A Sphinx-style API description (`<dl class="py function">`, Javadoc's and
        rustdoc's alike): each signature `<dt>` becomes an API or ClassEntity entity named
        by its object (`json.dump`), with the signature as written; the body renders as text.
        A passage starts at the description and after it, as a code symbol's does: Jinja's
        `Environment.get_template` began 4 lines before the end of a passage of the methods
        above it, its description in the next."""
        self.blank()
        self.breaks.add(self.next_line)
        signatures: list[tuple[str, str, int]] = []
        for item in _elements(tag):
            if item.tag not in ("dt", "dd") or _hidden(item):
                continue
            self.flush()
            start = self.next_line
            self.render(item)
            self.flush()
            if item.tag == "dt":
                signature = _signature(" ".join(self.lines[start - 1 :]))
                name = _object_name(item) or signature.split("(", 1)[0].strip()
                if name:
                    signatures.append((name, signature, start))
            self.blank() if item.tag == "dd" else None
        end = len(self.lines)
        for name, signature, line in signatures:
            self.terms.append(Entity(kind, name, line, max(line, end), signature=signature))
        self.blank()
        self.breaks.add(self.next_line)

    def _emit_terms(self, terms: list[tuple[str, int]], definitions: list[str]) -> None:
        end = len(self.lines)
        for name, line in terms:
            term = term_entity(name, " ".join(definitions) or None, line, end)
            if term:
                self.terms.append(term)


# Sphinx object types (the dl's classes, e.g. "py function", "cpp class", "js method").
_CLASS_KINDS = {"class", "exception", "interface", "struct", "enum", "union", "type", "trait"}
_API_KINDS = {
    "function", "method", "classmethod", "staticmethod", "attribute", "property", "data",
    "decorator", "decoratormethod", "member", "var", "macro", "constructor", "coroutinefunction",
    "coroutinemethod", "abstractmethod", "opcode", "describe",
}  # fmt: skip
_NAME_PARTS = {"sig-prename", "descclassname", "sig-name", "descname"}


def _object_kind(tag: Element) -> str | None:
    """ClassEntity or API for a Sphinx object description `<dl>`, else None."""
    classes = set(_classes(tag))
    if not classes & (_CLASS_KINDS | _API_KINDS):
        return None
    first = next((c for c in _elements(tag) if c.tag == "dt"), None)
    if first is None or not (first.get("id") or "sig" in _classes(first)):
        return None
    return "ClassEntity" if classes & _CLASS_KINDS else "API"


def _signature(text: str) -> str:
    """A signature's text with the spaces markup left around `(`, `)` and `.` removed."""
    text = _collapse(text)
    text = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))
    return re.sub(r"(\w)\.\s+(?=\w)", r"\1.", text)


def _object_name(dt: Element) -> str | None:
    """The object's full name: the signature's anchor id (`json.dump`), else its name parts."""
    anchor = str(dt.get("id") or "")
    if anchor and re.fullmatch(r"[\w.:$-]+", anchor):
        # Sphinx's std domain prefixes the object type: "opcode-NOP" names NOP
        std = "std" in _classes(dt) and "-" in anchor
        return anchor.split("-", 1)[1] if std else anchor
    parts = [p for p in _descendants(dt) if not _NAME_PARTS.isdisjoint(_classes(p))]
    name = "".join(_text(p) for p in parts).strip()
    return name.split("(", 1)[0].strip() or None  # `describe`: "iter(context)" names iter


# A member's documentation in the HTML of Javadoc (JDK 11 and later: `<section
# class="detail">`, its name in an `<h3>`, its declaration in `div.member-signature`) and
# of Doxygen (`div.memitem` after its `h2.memtitle`, the declaration in `div.memproto`):
# an API entity like a Sphinx object description's, named as the language writes it on
# its page's class (`StringUtils.isBlank`, Doxygen's `Env::open`), else by its own name
# (`mdb_txn_begin`). The class itself (Javadoc's `section.class-description` with its
# `div.type-signature`) is a ClassEntity.
_PAGE_CLASS = re.compile(
    r"^(?:(?:Class|Interface|Enum|Enum Class|Record|Record Class|Annotation Type|Annotation "
    r"Interface) (?P<java>[\w$.]+)|(?P<doxygen>[\w:]+)(?:<[^>]*>)? (?:Class|Struct|Union) "
    r"(?:Template )?Reference)"
)


def _page_class(headings: list[Heading]) -> str | None:
    """The class a Javadoc or Doxygen page documents, from its `<h1>` ("Class
    StringUtils", "Env Class Reference"), if it is such a page."""
    first = next((h for h in headings if h.level == 1), None)
    match = _PAGE_CLASS.match(first.title) if first is not None else None
    if match is None:
        return None
    return (match.group("java") or match.group("doxygen") or "").replace("::", ".") or None


def _declaration(text: str) -> str:
    """A declaration as its markup spaced it, written as code writes it: `int
    mdb_txn_begin (MDB_env * env , …` is `int mdb_txn_begin(MDB_env * env, …`."""
    return re.sub(r"\s+,", ",", re.sub(r"(\w)\s+\(", r"\1(", _signature(text)))


def _member_entity(
    tag: Element, headings: list[Heading]
) -> tuple[str, str, str, int | None] | None:
    """(entity type, name, signature, its title's line when that comes before `tag`) of a
    Javadoc or Doxygen member's documentation, or None for any other element."""
    classes = _classes(tag)
    if not classes:
        return None
    if tag.tag == "section" and "detail" in classes:
        title = next((c for c in _elements(tag) if c.tag in ("h3", "h4")), None)
        signature = next((c for c in _elements(tag) if "member-signature" in _classes(c)), None)
        owner = _page_class(headings)
        if title is None or signature is None:
            return None
        name = _collapse(_text(title))
        full = f"{owner}.{name}" if owner and name != owner.rsplit(".", 1)[-1] else name
        return ("API", full, _declaration(_text(signature)), None) if name else None
    if tag.tag == "section" and "class-description" in classes:
        signature = next((c for c in _elements(tag) if "type-signature" in _classes(c)), None)
        owner = _page_class(headings)
        if signature is None or not owner:
            return None
        return ("ClassEntity", owner, _declaration(_text(signature)), None)
    if tag.tag == "div" and "memitem" in classes:
        title = tag.getprevious()
        while title is not None and not isinstance(title.tag, str):
            title = title.getprevious()  # a comment between them
        proto = next((c for c in _elements(tag) if "memproto" in _classes(c)), None)
        if title is None or "memtitle" not in _classes(title) or proto is None:
            return None
        title_text = _collapse(_text(title)).strip("◆").strip()
        name = title_text[:-2] if title_text.endswith("()") else title_text
        owner = _page_class(headings)
        full = f"{owner}.{name}" if owner and name else name
        # the title, rendered just before: the entity spans it, as Javadoc's section does
        line = headings[-1].line if headings and headings[-1].title == title_text else None
        # the declaration's table cells, joined by spaces
        return ("API", full, _declaration(_text(proto, " ")), line) if name else None
    return None


_WRAPPERS = {"section", "div", "article"}
_WRAPPER_DEPTH = 4  # DocBook: div.sect1#id > div.titlepage > div > div > h2
_GENERATED_ID = re.compile(r"id[\d.-]*\d")
_LAYOUT_IDS = {"header", "content", "main", "page", "body", "container", "wrapper"}


def _wrapper_id(heading: Element) -> str | None:
    """The id of the element a heading opens: Sphinx's `<section id="module-json"><h1>`,
    DocBook's `<div class="sect1" id="GSSAPI-ENC"><div class="titlepage"><div><div><h2>`.
    The heading must be the first element with text of each wrapper on the way up (a
    section's id is not the anchor of its second heading; Sphinx's empty `<span id>`
    targets may come before it)."""
    node = heading
    for _ in range(_WRAPPER_DEPTH):
        parent = node.getparent()
        if parent is None or parent.tag not in _WRAPPERS:
            return None
        first = next((c for c in _elements(parent) if c is node or _has_text(c)), None)
        if first is not node or (parent.text or "").strip():
            return None
        ident = parent.get("id")
        if ident:
            ident = str(ident)
            # A generated id (Sphinx's "id1" for a repeated title, DocBook's
            # "id-1.9.3.74.5") or a layout box's is no name: the title's slug is better.
            return None if _GENERATED_ID.fullmatch(ident) or ident in _LAYOUT_IDS else ident
        node = parent
    return None


def _target_before(heading: Element) -> str | None:
    """The id of an empty `<span id>` or `<a name>` right before a heading: Texinfo's
    `<span id="Introduction-and-preliminaries-1"></span><h2>` (R's manuals)."""
    previous = heading.getprevious()
    while previous is not None and not _is_element(previous) and not (previous.tail or "").strip():
        previous = previous.getprevious()  # a comment between them
    if (
        previous is None
        or not _is_element(previous)
        or previous.tag not in ("span", "a")
        or (previous.tail or "").strip()
        or _has_text(previous)
    ):
        return None
    ident = previous.get("id") or previous.get("name")
    return str(ident) if ident else None


def _is_layout(table: Element) -> bool:
    """Whether a table holds a heading in one of its own cells (not a nested table's): a
    data table's cells hold values, a page laid out in a table holds its sections."""
    return any(_nearest(heading, "table") is table for heading in _descendants(table, *_HEADINGS))


def _language(pre: Element) -> str | None:
    """`<pre><code class="language-x">`, `<pre class="lang-x">`, Sphinx `highlight-x` wrappers."""
    code = next(_descendants(pre, "code"), None)
    parent = pre.getparent()
    candidates = [code, pre, parent, parent.getparent() if parent is not None else None]
    for node in candidates:
        if node is None or not _is_element(node):
            continue
        if node.get("data-lang"):
            return str(node.get("data-lang"))
        for cls in _classes(node):
            match = _LANGUAGE_CLASS.match(cls)
            if match and match["lang"] not in ("default", "none", "text"):
                return match["lang"]
    return None


def _bold_lead(tag: Element) -> tuple[str, str] | None:
    """(term, definition) for `<p><strong>Term</strong>: definition</p>`."""
    if tag.text and tag.text.strip():
        return None  # the paragraph opens with plain text
    first = next(iter(tag), None)
    if first is None or not _is_element(first) or first.tag not in ("strong", "b"):
        return None
    term = _collapse(_text(first))
    return split_bold_term(term, _collapse(_text(tag)))
