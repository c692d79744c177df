"""Markdown → Document with markdown-it-py: headings, front matter, code blocks, tables.

Only block structure is parsed for the whole file (the inline pass is the costly half of
markdown-it and we need it just for heading titles and table cells, which are parsed on
their own). Token maps are 0-based, end-exclusive; they become 1-based inclusive here.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..model import CodeBlock, Document, Heading, Table

_EXPLICIT_ANCHOR = re.compile(r"\s*\{#([^}\s]+)\}\s*$")
_LINE_BREAK = re.compile(r"[ \t]*\n[ \t]*")
_CODE_SPAN = re.compile(r"(`+)([^`]|[^`].*?[^`])\1", re.S)


class _NoLog:
    """Stands in for markdown-it's module loggers: they call `debug()` on every rule attempt,
    which costs ~8% of our parse time even when logging is off."""

    def debug(self, *args: object, **kwargs: object) -> None:
        return None


def _silence_markdown_it_debug_logging() -> None:
    import importlib
    import pkgutil

    import markdown_it.parser_block
    import markdown_it.rules_block

    quiet = _NoLog()
    markdown_it.parser_block.LOGGER = quiet  # type: ignore[assignment]
    for info in pkgutil.iter_modules(markdown_it.rules_block.__path__):
        module = importlib.import_module(f"markdown_it.rules_block.{info.name}")
        if hasattr(module, "LOGGER"):
            module.LOGGER = quiet


@lru_cache(maxsize=1)
def _block_parser() -> MarkdownIt:
    from mdit_py_plugins.front_matter import front_matter_plugin

    _silence_markdown_it_debug_logging()

    md = MarkdownIt("commonmark", {"html": True}).enable("table").use(front_matter_plugin)
    md.disable("inline")
    return md


@lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True})


def parse_markdown(text: str, path: str) -> Document:
    tokens = _block_parser().parse(text)
    doc = Document(format="markdown", text=text)
    inline_code: list[tuple[int, str]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "front_matter" and tok.map:
            doc.body_start_line = tok.map[1] + 1
            doc.frontmatter = _load_front_matter(tok.content, doc.warnings)
        elif tok.type == "heading_open" and tok.level == 0 and tok.map:
            title, anchor = _heading_title(tokens[i + 1].content)
            doc.headings.append(Heading(level=int(tok.tag[1]), title=title, line=tok.map[0] + 1, anchor=anchor))
        elif tok.type == "fence" and tok.map:
            language = tok.info.split()[0] if tok.info.strip() else None
            end = tok.map[1]
            doc.codeblocks.append(CodeBlock(language=language, code=tok.content, line=tok.map[0] + 1, end_line=end))
        elif tok.type == "table_open" and tok.map:
            table, i = _read_table(tokens, i)
            doc.tables.append(table)
            continue
        elif tok.type == "html_block" and tok.map:
            doc.keep_together.append((tok.map[0] + 1, tok.map[1]))
        elif tok.type == "inline" and tok.map and "`" in tok.content:
            line = tok.map[0] + 1
            inline_code.extend((line, m.group(2).strip()) for m in _CODE_SPAN.finditer(tok.content))
        i += 1
    doc.title = _title(doc)
    from .entities import extract_entities

    doc.entities = extract_entities(doc, inline_code)
    return doc


def _load_front_matter(raw: str, warnings: list[str]) -> dict[str, Any] | None:
    try:
        data = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        warnings.append(f"front matter is not valid YAML{where}; kept as text only")
        return None
    if data is None:
        return None
    if not isinstance(data, dict):
        warnings.append("front matter is not a YAML mapping; ignored")
        return None
    return data


def _heading_title(raw: str) -> tuple[str, str | None]:
    anchor = None
    # A setext heading's text can span lines; the title is one line, as a renderer shows it.
    raw = _LINE_BREAK.sub(" ", raw)
    match = _EXPLICIT_ANCHOR.search(raw)
    if match:
        anchor = match.group(1)
        raw = raw[: match.start()]
    return plain_inline(raw).strip(), anchor


def plain_inline(raw: str) -> str:
    """The visible text of an inline Markdown fragment (emphasis, links and code unwrapped)."""
    if not any(ch in raw for ch in "*_`[]<>!\\&"):
        return raw
    tokens = _inline_parser().parseInline(raw)
    parts: list[str] = []
    for child in tokens[0].children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts)


def _read_table(tokens: list[Token], i: int) -> tuple[Table, int]:
    start = tokens[i].map
    headers: list[str] = []
    rows: list[list[str]] = []
    row: list[str] = []
    in_head = False
    end_line = start[1] if start else 0
    while i < len(tokens) and tokens[i].type != "table_close":
        tok = tokens[i]
        if tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "tr_close":
            (headers.extend(row) if in_head else rows.append(row))
        elif tok.type == "inline":
            row.append(plain_inline(tok.content).strip())
        i += 1
    assert start is not None
    return Table(headers=headers, rows=rows, line=start[0] + 1, end_line=end_line), i + 1


def _title(doc: Document) -> str | None:
    if doc.frontmatter and isinstance(doc.frontmatter.get("title"), str):
        return doc.frontmatter["title"].strip()
    for heading in doc.headings:
        if heading.level == 1:
            return heading.title
    return doc.headings[0].title if doc.headings else None
