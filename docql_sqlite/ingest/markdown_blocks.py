"""Block scanners for Markdown: two interchangeable backends yielding the same `Block`s.

Only the block structure matters for the index (headings, fences, tables, HTML blocks,
front matter, and the raw text of paragraphs for code spans). `markdown-it-pyrs` (Rust)
scans it ~15× faster than `markdown-it-py`; it is used when installed, and a file it
cannot handle falls back to `markdown-it-py`, the reference. A differential test keeps
the two in agreement on real corpora.
"""

from __future__ import annotations

import bisect
import importlib
import pkgutil
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, cast


@dataclass(slots=True)
class Block:
    kind: str  # front_matter | heading | fence | table | html | text
    line: int  # 1-based first line
    end_line: int  # 1-based last line
    level: int = 0  # headings
    raw: str = ""  # heading title / paragraph text / front matter / fence content, unparsed
    info: str = ""  # fence info string
    header: list[str] = field(default_factory=list)  # table header cells (raw inline text)
    rows: list[list[str]] = field(default_factory=list)  # table body cells (raw inline text)


# -- nesting bound ---------------------------------------------------------------------
# markdown-it-pyrs recurses once per nested container and overflows the C stack (SIGSEGV,
# which kills the process holding the index) somewhere between 20,000 and 50,000 levels:
# `- ` x 100,000 on one line. CommonMark sets no limit; markdown-it's own default
# `maxNesting` is 100 (20 in its CommonMark preset, which the reference scanner uses), so
# structure deeper than 100 containers is read as text here, for both scanners.
MAX_NESTING = 100

# A block at depth d sits on a line whose prefix continues all d containers: a `>` (one
# character) or a list item's indentation (two columns or more) per level, and a new
# container opens only at a marker on that line. So a line shorter in container
# characters than MAX_NESTING / 2 (a tab is up to two levels) cannot be too deep: this
# pattern finds the only lines worth counting, in one pass of the regex engine.
_DEEP_CANDIDATE = re.compile(r"^[ \t>*+\-.)0-9]{%d,}" % (MAX_NESTING // 2), re.M)
# The same lines found by their newline: a pattern that starts with a literal is searched
# for that character first, where `^` in MULTILINE mode is tried at every position
# (4x the CPU on prose). The first line is matched on its own.
_DEEP_CANDIDATE_AFTER_NEWLINE = re.compile(r"\n[ \t>*+\-.)0-9]{%d}" % (MAX_NESTING // 2))
# One container step of a line's prefix: a quote marker, a list marker followed by a blank
# or the end of the line, or indentation.
_CONTAINER_TOKEN = re.compile(r">|[-+*](?=[ \t]|$)|[0-9]{1,9}[.)](?=[ \t]|$)|[ \t]+", re.M)


def bound_nesting(text: str) -> tuple[str, str | None]:
    """(text for the scanners, warning): `text` with the container prefix of every line
    deeper than MAX_NESTING cut at that depth (characters removed, never a newline, so
    line numbers stay exact), and a warning naming the first such line; `text` itself and
    None when nothing is that deep (the common case costs one regex pass)."""
    if _DEEP_CANDIDATE.match(text) is None and _DEEP_CANDIDATE_AFTER_NEWLINE.search(text) is None:
        return text, None
    deep_lines: list[int] = []

    def cut(match: re.Match[str]) -> str:
        start, end = match.span()
        depth, pos, cut_at = 0, start, None
        while pos < end:
            token = _CONTAINER_TOKEN.match(text, pos, end)
            if token is None:
                break
            piece = token.group()
            if piece[0] in " \t":
                depth += (len(piece) + 3 * piece.count("\t")) // 2  # a tab: up to 4 columns
            else:
                depth += 1
            pos = token.end()
            if cut_at is None and depth > MAX_NESTING:
                cut_at = token.start()
        if cut_at is None:
            return match.group()
        deep_lines.append(start)
        return text[start:cut_at] + text[pos:end]

    bounded = _DEEP_CANDIDATE.sub(cut, text)
    if not deep_lines:
        return text, None
    first = text.count("\n", 0, deep_lines[0]) + 1
    more = f" and {len(deep_lines) - 1} more" if len(deep_lines) > 1 else ""
    return bounded, (
        f"nested deeper than {MAX_NESTING} block quotes or list items at line {first}{more}; "
        f"the structure below that depth is read as plain text (every word is indexed)"
    )


# -- markdown-it-py (reference) ---------------------------------------------------------
class _NoLog:
    """Stands in for markdown-it-py's module loggers: they call `debug()` on every rule
    attempt, which costs ~8% of the parse even when logging is off."""

    def debug(self, *args: object, **kwargs: object) -> None:
        return None


@lru_cache(maxsize=1)
def _py_parser() -> Any:
    import markdown_it.parser_block
    import markdown_it.rules_block
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    quiet = _NoLog()
    setattr(markdown_it.parser_block, "LOGGER", quiet)  # noqa: B010 - no attribute in its stubs
    for info in pkgutil.iter_modules(markdown_it.rules_block.__path__):
        module = importlib.import_module(f"markdown_it.rules_block.{info.name}")
        if hasattr(module, "LOGGER"):
            setattr(module, "LOGGER", quiet)  # noqa: B010
    # The same depth as the fast scanner (`bound_nesting`); the CommonMark preset's 20
    # dropped the blocks after a list nested deeper (the "After" heading of the test).
    options = {"html": True, "maxNesting": 3 * MAX_NESTING}  # levels: a list and its item
    md = MarkdownIt("commonmark", options).enable("table").use(front_matter_plugin)
    md.disable("inline")  # titles and cells are parsed on their own, much cheaper
    return md


def scan_py(text: str) -> Iterator[Block]:
    tokens = _py_parser().parse(text)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.map is None:
            i += 1
            continue
        line, end = tok.map[0] + 1, tok.map[1]
        if tok.type == "front_matter":
            yield Block("front_matter", line, end, raw=tok.content)
        elif tok.type == "heading_open":
            if tok.level == 0:  # a heading inside a list or quote is not part of the outline
                yield Block("heading", line, end, level=int(tok.tag[1]), raw=tokens[i + 1].content)
            i += 1  # its inline token is the title, not paragraph text
        elif tok.type == "fence":
            yield Block("fence", line, end, raw=tok.content, info=tok.info)
        elif tok.type == "html_block":
            yield Block("html", line, end)
        elif tok.type == "inline":
            yield Block("text", line, end, raw=tok.content)
        elif tok.type == "table_open":
            block = Block("table", line, end)
            in_head, row = False, cast(list[str], [])
            while tokens[i].type != "table_close":
                t = tokens[i]
                if t.type in ("thead_open", "thead_close"):
                    in_head = t.type == "thead_open"
                elif t.type == "tr_open":
                    row = []
                elif t.type == "tr_close":
                    (block.header.extend(row) if in_head else block.rows.append(row))
                elif t.type == "inline":
                    row.append(t.content)
                i += 1
            yield block
        i += 1


# -- markdown-it-pyrs (fast) ------------------------------------------------------------
_RS_RULES = [
    "paragraph",
    "heading",
    "lheading",
    "code",
    "fence",
    "blockquote",
    "hr",
    "list",
    "reference",
    "html_block",
    "table",
    "front_matter",
]


@lru_cache(maxsize=1)
def _rs_parser() -> Any:
    try:
        import markdown_it_pyrs
    except ImportError:
        return None
    # Block rules only: its inline rules are not needed and can panic on some inputs.
    return markdown_it_pyrs.MarkdownIt("zero").enable_many(cast(Any, _RS_RULES))


def rs_available() -> bool:
    return _rs_parser() is not None


def scan_rs(text: str) -> list[Block]:
    """Blocks from markdown-it-pyrs; raises RuntimeError when it fails on `text`.

    Unlike `scan_py`, text blocks come only for paragraphs that hold a backtick and a
    "(" or a "/" (the only text the document is built from: code spans that can be an
    API); `parse_markdown` gives the same document from either."""
    parser = _rs_parser()
    if parser is None:
        raise RuntimeError("markdown-it-pyrs is not installed")
    data = text.encode("utf-8", "surrogatepass")
    try:
        tree = parser.tree(text)
    except BaseException as exc:  # a Rust panic arrives as PanicException (a BaseException)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise RuntimeError(f"markdown-it-pyrs failed: {exc}") from None
    return _blocks_rs(tree, _Lines(data))


_RS_KINDS = frozenset(
    {"front_matter", "heading", "lheading", "fence", "html_block", "text", "table"}
)


class _Lines:
    """Byte offset → 1-based line, for offsets met in increasing order (a pre-order walk
    of the tree): the newlines are counted once, from the last offset on, in C."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0  # the last offset asked for
        self.before = 0  # newlines before `at`
        self.newlines: list[int] | None = None  # for an offset out of order (never seen)

    def span(self, start: int, stop: int) -> tuple[int, int]:
        """The first and last line of bytes [start, stop)."""
        data = self.data
        if start >= self.at:
            self.before += data.count(b"\n", self.at, start)
            self.at = start
            line = self.before + 1
        else:
            if self.newlines is None:
                self.newlines = [m.start() for m in re.finditer(b"\n", data)]
            line = bisect.bisect_right(self.newlines, start - 1) + 1
        return line, line + data.count(b"\n", start, max(start, stop - 1))


def _heading_level(name: str, data: bytes, start: int, stop: int) -> int:
    """A top-level heading's level from its source bytes (`meta["level"]` costs ~2 µs):
    the `#`s that open an ATX heading (after up to 3 spaces), or a setext heading's
    underline, `=` for 1 and `-` for 2."""
    if name == "heading":
        head = data[start : start + 10].lstrip(b" ")  # at most 3 spaces and 6 `#`s
        return len(head) - len(head.lstrip(b"#"))
    return 1 if data[start:stop].rstrip()[-1:] == b"=" else 2


def _heading_text(node: Any, data: bytes) -> str:
    """A heading's title text: its text nodes' source bytes, which are their contents
    (checked on 12,132 headings of the corpora), or their contents if one has no source."""
    spans = [child.srcmap for child in node.children]
    if None in spans:
        return "".join(child.meta.get("content", "") for child in node.children)
    return b"".join(data[a:b] for a, b in spans).decode("utf-8", "surrogatepass")


def _keep(find: Any, first: int, last: int) -> bool:
    """Whether the paragraph over bytes first..last can hold a code span that is an API
    (a backtick, and a "(" or a "/": `parse_markdown` reads no other text). The range is
    a superset of the paragraph's text (its lines' container prefixes between them)."""
    return find(b"`", first, last + 1) >= 0 and (
        find(b"(", first, last + 1) >= 0 or find(b"/", first, last + 1) >= 0
    )


def _blocks_rs(tree: Any, lines: _Lines) -> list[Block]:
    """One pre-order pass over the tree (`walk()` is far cheaper than nested `.children`).

    With the paragraph rule and no inline rule, each paragraph's text is one `text` node
    whose content is the paragraph's lines joined (container prefixes dropped), as
    markdown-it-py's inline token holds it. Its text is read (`meta` costs ~2 µs) only
    for a paragraph that can hold an API's code span (`_keep`): `parse_markdown` reads no
    other paragraph text."""
    top = set(map(id, tree.children))  # the same objects as walk()'s: no name read
    blocks: list[Block] = []
    data = lines.data
    count, find = data.count, data.find
    inside_until = -1  # end of the heading or table whose descendants walk() is yielding
    at = before = 0  # `_Lines.span` inline: the newlines before byte `at` (offsets rise)
    for node in tree.walk():
        name = node.name
        if name not in _RS_KINDS:
            continue
        srcmap = node.srcmap
        if srcmap is None or srcmap[0] < inside_until:
            continue
        start, stop = srcmap
        if name == "text":
            # (its source bytes are a superset of its text: the container prefixes)
            if start < stop and not _keep(find, start, stop - 1):
                continue
            raw = node.meta.get("content", "")
            if start >= stop and not ("`" in raw and ("(" in raw or "/" in raw)):
                continue  # no source bytes stand for the content (never seen)
        elif name in ("heading", "lheading"):
            inside_until = stop
            if id(node) not in top:  # a heading inside a list or quote is not in the outline
                continue
        elif name == "table":
            inside_until = stop
        if start >= at:
            before += count(b"\n", at, start)
            at = start
            line = before + 1
        else:  # (never: offsets come in order)
            line = lines.span(start, start)[0]
        end = line + count(b"\n", start, max(start, stop - 1))
        if name == "text":
            block = Block("text", line, end, raw=raw)
        elif name in ("heading", "lheading"):
            level = _heading_level(name, data, start, stop)
            block = Block("heading", line, end, level=level, raw=_heading_text(node, data))
        elif name == "fence":
            meta = node.meta
            block = Block(
                "fence", line, end, raw=meta.get("content", ""), info=meta.get("info", "")
            )
        elif name == "html_block":
            block = Block("html", line, end)
        elif name == "front_matter":
            block = Block("front_matter", line, end, raw=node.meta.get("content", ""))
        else:  # table
            block = _table(node, line, end)
        blocks.append(block)
    return blocks


def _table(node: Any, line: int, end: int) -> Block:
    block = Block("table", line, end)
    for part in node.children:
        for row in part.children:
            cells = [
                "".join(t.meta.get("content", "") for t in cell.children) for cell in row.children
            ]
            (block.header.extend(cells) if part.name == "thead" else block.rows.append(cells))
    return block
