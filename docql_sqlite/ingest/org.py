"""Org-mode → `Document`: headlines, source blocks, tables and descriptive lists, by lines.

This module owns reading Org files (`.org`, and a file whose first line names the mode,
`-*- org -*-`: GnuPG's `DETAILS`) as Org's own outline shows them, without exporting.
`Document.text` is the file itself, so every line number is a line of it.

- **Headlines** (`*`, `**`, … at the start of a line) are sections; a headline's tags
  (`:work:urgent:`) are no part of its title, its TODO keyword and priority are (Org's
  outline shows them); its anchor is its `:CUSTOM_ID:` property, else the title's own.
- **Blocks**: `#+BEGIN_SRC lang` … `#+END_SRC` is a code block in `lang`, an example
  block (`#+BEGIN_EXAMPLE`) one without a language; no line inside a block is a
  headline.
- **Tables**: consecutive `|` lines; the rows above the first rule (`|---+---|`) are the
  header.
- **Descriptive lists** (`- term :: definition`): `Term` entities.
- **In-buffer settings** before the first headline (`#+TITLE:`, `#+AUTHOR:`): the title
  and front matter (`$.frontmatter`, keys in lower case).
"""

from __future__ import annotations

import re

from docql_sqlite.ingest.entities import extract_entities, merge_entities, term_entity
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.model import CodeBlock, Document, Heading, Source, Table, split_lines

# (A value up to its last non-blank is `(?:.*[^ \t])?`, greedy, then given back: a lazy
# `.*?` before `[ \t]*$` tries the rest of a line at each of its characters, quadratic
# on a line of 200,000 blanks.)
_HEADLINE = re.compile(r"(?P<stars>\*+)[ \t]+(?P<title>(?:.*[^ \t])?)[ \t]*$")
_TAGS = re.compile(r"(?<![ \t])[ \t]+:(?:[\w@#%]+:)+$")
_SETTING = re.compile(r"#\+(?P<key>\w+):[ \t]*(?P<value>(?:.*[^ \t])?)[ \t]*$")
_BEGIN = re.compile(r"[ \t]*#\+begin_(?P<kind>\w+)(?:[ \t]+(?P<args>(?:.*[^ \t])?))?[ \t]*$", re.I)
_CUSTOM_ID = re.compile(r"[ \t]*:CUSTOM_ID:[ \t]+(?P<id>\S+)[ \t]*$", re.I)
_TABLE_LINE = re.compile(r"[ \t]*\|")
_TABLE_RULE = re.compile(r"[ \t]*\|-[-+|]*[ \t]*$")
_DESCRIPTION = re.compile(
    r"[ \t]*(?:[-+]|\d+[.)])[ \t]+(?P<term>\S.*?)[ \t]+::(?:[ \t]+(?P<text>.*))?$"
)


def parse(source: Source) -> Document:
    """The Org parser (`formats.PARSERS`): decode, then `parse_org`."""
    return parse_decoded(source, parse_org)


def parse_org(text: str, path: str) -> Document:
    """Parse decoded Org text; never raises."""
    text = plain_lines(text)
    lines = split_lines(text)
    doc = Document(format="org", text=text)
    settings: dict[str, str] = {}
    n, i = len(lines), 0
    while i < n:
        line = lines[i]
        if line.startswith("*") and (headline := _HEADLINE.match(line)):
            title = _TAGS.sub("", headline["title"])
            anchor = _custom_id(lines, i + 1)
            doc.headings.append(Heading(len(headline["stars"]), title, i + 1, anchor=anchor))
            i += 1
        elif (begin := _BEGIN.match(line)) is not None:
            i = _block(lines, i, begin, doc)
        elif _TABLE_LINE.match(line):
            i = _table(lines, i, doc)
        elif not doc.headings and (setting := _SETTING.match(line)):
            settings[setting["key"].lower()] = setting["value"]
            i += 1
        elif (item := _DESCRIPTION.match(line)) is not None:
            entity = term_entity(item["term"], item["text"], i + 1, i + 1)
            if entity is not None:
                doc.entities.append(entity)
            i += 1
        else:
            i += 1
    if settings:
        doc.frontmatter = dict(settings)
    doc.title = settings.get("title") or (
        path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None
    )
    doc.entities = merge_entities(extract_entities(doc), doc.entities)
    return doc


def _custom_id(lines: list[str], i: int) -> str | None:
    """The `:CUSTOM_ID:` of the property drawer right under a headline (line `i`)."""
    if i >= len(lines) or lines[i].strip().upper() != ":PROPERTIES:":
        return None
    for line in lines[i + 1 : i + 50]:
        if line.strip().upper() == ":END:":
            return None
        if match := _CUSTOM_ID.match(line):
            return match["id"]
    return None


def _block(lines: list[str], i: int, begin: re.Match[str], doc: Document) -> int:
    """A `#+BEGIN_x` block from line `i`: source and example blocks are code blocks.
    Returns the line after its `#+END_x` (after the opening line alone when none)."""
    kind = begin["kind"].lower()
    end_mark = f"#+end_{kind}"
    end = i + 1
    while end < len(lines) and lines[end].strip().lower() != end_mark:
        end += 1
    if end >= len(lines):
        return i + 1  # never closed: Org reads the line as text
    if kind in ("src", "example"):
        args = (begin["args"] or "").split()
        language = args[0] if kind == "src" and args and not args[0].startswith(":") else None
        code = "\n".join(line[1:] if line.startswith(",*") else line for line in lines[i + 1 : end])
        doc.codeblocks.append(CodeBlock(language, code, i + 1, end + 1))
    return end + 1


def _table(lines: list[str], i: int, doc: Document) -> int:
    """The table of `|` lines from line `i`; the line after it."""
    end = i
    while end < len(lines) and _TABLE_LINE.match(lines[end]):
        end += 1
    rows: list[list[str]] = []
    header_rows = 0
    for line in lines[i:end]:
        if _TABLE_RULE.match(line):
            if rows and not header_rows:
                header_rows = len(rows)
            continue
        cells = line.strip().strip("|").split("|")
        rows.append([cell.strip() for cell in cells])
    if rows:
        headers = rows[0] if header_rows == 1 else []
        doc.tables.append(Table(headers, rows[1:] if headers else rows, i + 1, end))
    return end
