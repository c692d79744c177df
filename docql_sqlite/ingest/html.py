"""HTML → `Document`: the visible text, line by line, with its structure.

This module owns rendering an HTML page to plain text the way a reader sees it: block
elements on their own lines (paragraph-like blocks separated by one blank line),
whitespace collapsed inside blocks, `<pre>` kept verbatim, table rows as
`cell | cell`. Scripts, styles and other invisible parts are dropped. While rendering
it records where each heading (h1–h6), code block, table and `<dl>` term landed, so
every `line` points into `Document.text`.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from bs4.element import (
    CData,
    Comment,
    Declaration,
    Doctype,
    NavigableString,
    ProcessingInstruction,
    Tag,
)

from docql_sqlite.ingest.entities import (
    extract_entities,
    merge_entities,
    split_bold_term,
    term_entity,
)
from docql_sqlite.ingest.read import parse_decoded
from docql_sqlite.model import CodeBlock, Document, Entity, Heading, Source, Table

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
_SKIPPED_STRINGS = (Comment, Doctype, Declaration, ProcessingInstruction, CData)
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight|sourceCode)-(?P<lang>[\w+#.-]+)$")
_PERMALINK_TEXT = {"", "¶", "#", "§", "🔗", "link"}


def parse(source: Source) -> Document:
    """The HTML parser (`formats.PARSERS`): decode, then `parse_html`."""
    return parse_decoded(source, parse_html)


def parse_html(text: str, path: str) -> Document:
    """Parse an HTML page (any HTML BeautifulSoup's html.parser accepts)."""
    soup = BeautifulSoup(text, "html.parser")
    title_tag = soup.find("title")
    page_title = _collapse(title_tag.get_text()) if title_tag else ""
    root = main_content(soup)
    strip_chrome(root)
    renderer = _Renderer()
    try:
        renderer.render(root)
    except RecursionError:  # pathologically deep nesting: keep the words, lose the structure
        renderer = _Renderer()
        renderer.lines = [_collapse(s) for s in soup.get_text("\n").split("\n") if s.strip()]
        renderer.warnings.append("HTML nested too deeply; structure ignored")
    lines = renderer.finish()
    document = Document(
        format="html",
        text="\n".join(lines) + "\n" if lines else "",
        headings=renderer.headings,
        codeblocks=renderer.codeblocks,
        tables=renderer.tables,
        keep_together=[(b.line, b.end_line) for b in renderer.codeblocks]
        + [(t.line, t.end_line) for t in renderer.tables],
        warnings=renderer.warnings,
    )
    first_h1 = next((h.title for h in renderer.headings if h.level == 1), None)
    document.title = (
        page_title or first_h1 or path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    )
    document.entities = merge_entities(extract_entities(document), renderer.terms)
    return document


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
_CHROME_CLASSES = {
    "sphinxsidebar", "related", "headerlink", "md-sidebar", "theme-doc-toc-mobile",
    "theme-doc-toc-desktop", "table-of-contents", "theme-doc-breadcrumbs", "pagination-nav",
    "md-source-file",
}  # fmt: skip
DOMINANT_SHARE = 0.6  # a child holding this share of a container's text is the content
MIN_PAGE_TEXT = 1000  # characters; below this a page is taken whole


def main_content(soup: BeautifulSoup) -> Tag:
    """The element holding the page's own content (docs/search.md, "Clean content"):
    a landmark or a known generator's wrapper when there is one with text, else the
    largest text container — descending from <body> into a child that holds most
    (DOMINANT_SHARE) of the text, stopping at an element with its own headings.
    Navigation columns, headers with the site's name as <h1> ("Node.js v18.20.4
    documentation") and footers stay out."""
    body = soup.find("body")
    top: Tag = body if isinstance(body, Tag) else soup
    # One pass over the elements (CSS selectors would walk the tree once per selector).
    mark: tuple[int, Tag] | None = None
    for tag in top.find_all(True):
        rank = _main_rank(tag)
        if rank is not None and (mark is None or rank < mark[0]) and tag.get_text(strip=True):
            mark = (rank, tag)
            if rank == 0:
                break
    if mark is not None:
        return mark[1]
    sizes = _text_sizes(top)
    if sizes[id(top)] < MIN_PAGE_TEXT:
        return top  # a fragment or a tiny page: nothing worth telling apart
    node = top
    while True:
        if any(isinstance(c, Tag) and c.name in _HEADINGS for c in node.children):
            return node
        children = [
            c
            for c in node.children
            if isinstance(c, Tag) and c.name in _CONTAINERS and id(c) in sizes
        ]
        best = max(children, key=lambda c: sizes[id(c)], default=None)
        if best is None or sizes[id(best)] < DOMINANT_SHARE * sizes[id(node)]:
            return node
        node = best


def _main_rank(tag: Tag) -> int | None:
    classes: list[str] = list(tag.get("class") or [])
    for rank, (name, cls, ident, role) in enumerate(_MAIN_MARKS):
        if (
            (name is None or tag.name == name)
            and (cls is None or cls in classes)
            and (ident is None or tag.get("id") == ident)
            and (role is None or tag.get("role") == role)
        ):
            return rank
    return None


def strip_chrome(root: Tag) -> None:
    """Remove navigation, sidebars, footers and permalink marks (`¶`) from the content."""
    chrome = []
    for tag in root.find_all(True):
        if (
            tag.name in _CHROME_TAGS
            or tag.get("role") in _CHROME_ROLES
            or not _CHROME_CLASSES.isdisjoint(tag.get("class") or [])
            or (
                tag.name == "a"
                and str(tag.get("href", "")).startswith("#")
                and tag.get_text(strip=True) in _PERMALINK_TEXT - {""}
            )
        ):
            chrome.append(tag)
    for tag in chrome:
        if not tag.decomposed:
            tag.decompose()


_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_CONTAINERS = {"div", "section", "article", "main", "body", "html", "center"}


def _text_sizes(top: Tag) -> dict[int, int]:
    """Characters of visible text under each element (by id), in one pass over the tree."""
    sizes: dict[int, int] = {}
    order: list[Tag] = []
    stack = [top]
    while stack:  # pre-order; sizes are summed children-first below
        tag = stack.pop()
        order.append(tag)
        stack.extend(c for c in tag.children if isinstance(c, Tag) and not _hidden(c))
    for tag in reversed(order):
        size = 0
        for child in tag.children:
            if isinstance(child, Tag):
                size += sizes.get(id(child), 0)
            elif isinstance(child, NavigableString) and not isinstance(child, _SKIPPED_STRINGS):
                size += len(child.strip())
        sizes[id(tag)] = size
    return sizes


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _hidden(tag: Tag) -> bool:
    if tag.name in _INVISIBLE or tag.has_attr("hidden"):
        return True
    return bool(re.search(r"display\s*:\s*none", str(tag.get("style") or "")))


class _Renderer:
    """Walks the tree once, appending finished lines and recording positions."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.inline: list[str] = []
        self.headings: list[Heading] = []
        self.codeblocks: list[CodeBlock] = []
        self.tables: list[Table] = []
        self.terms: list[Entity] = []
        self.warnings: list[str] = []

    # -- line buffer -------------------------------------------------------------
    def flush(self) -> None:
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
    def render(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, _SKIPPED_STRINGS):
                    self.inline.append(re.sub(r"\s+", " ", str(child)))
            elif isinstance(child, Tag) and not _hidden(child):
                self.element(child)

    def element(self, tag: Tag) -> None:
        name = tag.name
        if name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.heading(tag, int(name[1]))
        elif name == "pre":
            self.pre(tag)
        elif name == "table":
            self.table(tag)
        elif name == "dl":
            self.definition_list(tag)
        elif name in ("p", "li"):
            self.paragraph(tag)
        elif name in _PARAGRAPHS:
            self.blank()
            self.render(tag)
            self.blank()
        elif name in _BREAKS:
            self.flush()
            self.render(tag)
            self.flush()
        else:
            self.render(tag)

    def heading(self, tag: Tag, level: int) -> None:
        for link in tag.find_all("a"):
            # Permalink decorations ("¶", "#") are not part of the title.
            if (
                str(link.get("href", "")).startswith("#")
                and link.get_text(strip=True) in _PERMALINK_TEXT
            ):
                link.decompose()
        self.blank()
        start = self.next_line
        self.render(tag)
        self.flush()
        title = _collapse(" ".join(self.lines[start - 1 :]))
        if title:
            target = tag.find(lambda t: t.name == "a" and (t.get("id") or t.get("name")))
            anchor = tag.get("id") or (target.get("id") or target.get("name") if target else None)
            self.headings.append(
                Heading(level, title, start, anchor=str(anchor) if anchor else None)
            )
        self.blank()

    def paragraph(self, tag: Tag) -> None:
        is_item = tag.name == "li"
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

    def pre(self, tag: Tag) -> None:
        self.blank()
        code = tag.get_text()
        code = code[1:] if code.startswith("\n") else code  # HTML drops a newline right after <pre>
        code = code.rstrip("\n").replace("\r\n", "\n").replace("\r", "\n")
        if code.strip():
            start = self.next_line
            self.lines.extend(line.rstrip() for line in code.split("\n"))
            self.codeblocks.append(CodeBlock(_language(tag), code, start, self.next_line - 1))
        self.blank()

    def table(self, tag: Tag) -> None:
        self.blank()
        caption = tag.find("caption")
        if caption and caption.find_parent("table") is tag:
            self.inline.append(caption.get_text(" "))
            self.flush()
        headers: list[str] = []
        rows: list[list[str]] = []
        start = self.next_line
        for row in tag.find_all("tr"):
            if row.find_parent("table") is not tag or _hidden(row):
                continue  # rows of nested tables are part of their cell's text
            cells = [
                _collapse(c.get_text(" ")) for c in row.find_all(["td", "th"], recursive=False)
            ]
            if not cells:
                continue
            head = row.find_parent("thead")
            in_head = head is not None and head.find_parent("table") is tag
            all_th = all(c.name == "th" for c in row.find_all(["td", "th"], recursive=False))
            if not headers and not rows and (in_head or all_th):
                headers = cells
            else:
                rows.append(cells)
            self.lines.append(" | ".join(cells))
        if headers or rows:
            self.tables.append(Table(headers, rows, start, self.next_line - 1))
        self.blank()

    def definition_list(self, tag: Tag) -> None:
        kind = _object_kind(tag)
        if kind is not None:
            self.object_description(tag, kind)
            return
        self.blank()
        terms: list[tuple[str, int]] = []
        definitions: list[str] = []
        for item in tag.find_all(["dt", "dd"]):
            if item.find_parent("dl") is not tag or _hidden(item):
                continue
            if item.name == "dt" and definitions:
                self._emit_terms(terms, definitions)
                terms, definitions = [], []
            self.flush()
            start = self.next_line
            self.render(item)
            self.flush()
            text = _collapse(" ".join(self.lines[start - 1 :]))
            if item.name == "dt":
                terms.append((text, start))
            else:
                definitions.append(text)
        self._emit_terms(terms, definitions)
        self.blank()

    def object_description(self, tag: Tag, kind: str) -> None:
        """A Sphinx-style API description (`<dl class="py function">`, Javadoc's and
        rustdoc's alike): each signature `<dt>` becomes an API or ClassEntity entity named
        by its object (`json.dump`), with the signature as written; the body renders as text."""
        self.blank()
        signatures: list[tuple[str, str, int]] = []
        for item in tag.find_all(["dt", "dd"], recursive=False):
            if _hidden(item):
                continue
            self.flush()
            start = self.next_line
            self.render(item)
            self.flush()
            if item.name == "dt":
                signature = _signature(" ".join(self.lines[start - 1 :]))
                name = _object_name(item) or signature.split("(", 1)[0].strip()
                if name:
                    signatures.append((name, signature, start))
            self.blank() if item.name == "dd" else None
        end = len(self.lines)
        for name, signature, line in signatures:
            self.terms.append(Entity(kind, name, line, max(line, end), signature=signature))
        self.blank()

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


def _object_kind(tag: Tag) -> str | None:
    """ClassEntity or API for a Sphinx object description `<dl>`, else None."""
    classes = set(tag.get("class") or [])
    if not classes & (_CLASS_KINDS | _API_KINDS):
        return None
    first = tag.find("dt", recursive=False)
    if not isinstance(first, Tag) or not (first.get("id") or "sig" in (first.get("class") or [])):
        return None
    return "ClassEntity" if classes & _CLASS_KINDS else "API"


def _signature(text: str) -> str:
    """A signature's text with the spaces markup left around `(`, `)` and `.` removed."""
    text = _collapse(text)
    text = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))
    return re.sub(r"(\w)\.\s+(?=\w)", r"\1.", text)


def _object_name(dt: Tag) -> str | None:
    """The object's full name: the signature's anchor id (`json.dump`), else its name parts."""
    anchor = str(dt.get("id") or "")
    if anchor and re.fullmatch(r"[\w.:$-]+", anchor):
        # Sphinx's std domain prefixes the object type: "opcode-NOP" names NOP
        std = "std" in (dt.get("class") or []) and "-" in anchor
        return anchor.split("-", 1)[1] if std else anchor
    parts = dt.select(".sig-prename, .descclassname, .sig-name, .descname")
    name = "".join(p.get_text() for p in parts).strip()
    return name.split("(", 1)[0].strip() or None  # `describe`: "iter(context)" names iter


def _language(pre: Tag) -> str | None:
    """`<pre><code class="language-x">`, `<pre class="lang-x">`, Sphinx `highlight-x` wrappers."""
    code = pre.find("code")
    candidates = [code, pre, pre.parent, pre.parent.parent if pre.parent else None]
    for node in candidates:
        if not isinstance(node, Tag):
            continue
        if node.get("data-lang"):
            return str(node["data-lang"])
        for cls in node.get("class") or []:
            match = _LANGUAGE_CLASS.match(cls)
            if match and match["lang"] not in ("default", "none", "text"):
                return match["lang"]
    return None


def _bold_lead(tag: Tag) -> tuple[str, str] | None:
    """(term, definition) for `<p><strong>Term</strong>: definition</p>`."""
    first = next(
        (c for c in tag.children if not (isinstance(c, NavigableString) and not c.strip())), None
    )
    if not isinstance(first, Tag) or first.name not in ("strong", "b"):
        return None
    term = _collapse(first.get_text())
    return split_bold_term(term, _collapse(tag.get_text()))
