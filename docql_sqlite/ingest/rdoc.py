"""RDoc markup → `Document`: headings, verbatim blocks and labelled lists, by lines.

This module owns reading RDoc's own markup (`.rdoc`: Ruby projects' `README.rdoc`,
`History.rdoc`, `doc/*.rdoc`; rack's README was plain text with no section) as
`RDoc::Markup` reads its structure, without rendering. `Document.text` is the file
itself, so every line number is a line of it.

- **Headings**: `=` … `======` at the left margin, then the title (`== Supported web
  servers`); more equals signs are a level-6 heading, as RDoc reads them. A title is
  stored as RDoc shows it: a backslash that stops a cross-reference (`\\Rack`), `+code+`,
  `*bold*`, `_em_`, `<tt>…</tt>` and a link's `{text}[url]` / `word[url]` read as their
  words.
- **Verbatim** (a block indented past the left margin of the text around it: the
  margin, or a list item's text) is a code block; no line inside it is a heading.
- **Labelled lists** (`[label] text`, `label:: text`) are `Term` entities.
- A file that says `:markup: markdown` (or `tomdoc`, `rd`) before its text is read by
  that markup's own reader when there is one here (Markdown), else as RDoc.
"""

from __future__ import annotations

import re

from docql_sqlite.ingest.entities import extract_entities, merge_entities, term_entity
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.model import CodeBlock, Document, Heading, Source, split_lines

_HEADING = re.compile(r"(?P<marks>=+)[ \t]*(?P<title>\S.*)$")  # (the title then rstripped)
_MARKUP = re.compile(r"[ \t]*:markup:[ \t]*(?P<name>\w+)[ \t]*$", re.I)
# A list item's marker and the column its text starts at: `*`, `-`, `1.`, `a.`,
# `[label]`, `label::`.
_ITEM = re.compile(r"(?P<indent>[ \t]*)(?P<marker>[*-]|\d+\.|[A-Za-z]\.|\[[^\]\n]+\])[ \t]+\S")
_LABEL_ITEM = re.compile(r"[ \t]*\[(?P<label>[^\]\n]+)\](?:[ \t]+(?P<text>.*))?$")
_NOTE_ITEM = re.compile(r"[ \t]*(?P<label>[^\s:][^:\n]*?)::(?:[ \t]+(?P<text>.*))?$")
# Inline markup a title is shown without.
_LINK = re.compile(
    r"\{(?P<text>[^{}\n]+)\}\[[^\][\n]+\]"
    # (a word starts after no word character: a long word is tried once, not at each of
    # its characters, which made a 200,000-character heading take minutes)
    r"|(?<![\w.:/-])(?P<word>[\w.:/-]+)\[(?:https?|mailto|ftp|link|rdoc-ref):[^\][\n]*\]"
)
_TAG = re.compile(r"</?(?:tt|code|b|em|i|strong)>", re.I)
_WORD_MARK = re.compile(r"(?<![\w\\])([+*_])(?P<word>[\w.:#/-]+?)\1(?!\w)")
_ESCAPE = re.compile(r"\\(?=[\w:#$@])")
_LEVEL_MAX = 6


def parse(source: Source) -> Document:
    """The RDoc parser (`formats.PARSERS`): decode, then `parse_rdoc`."""
    return parse_decoded(source, parse_rdoc)


def parse_rdoc(text: str, path: str) -> Document:
    """Parse decoded RDoc markup; never raises."""
    text = plain_lines(text)
    if _other_markup(text) == "markdown":
        from docql_sqlite.ingest.markdown import parse_markdown

        return parse_markdown(text, path)
    lines = split_lines(text)
    doc = Document(format="rdoc", text=text)
    # The left margin of the text a paragraph continues: 0 at the top, a list item's
    # text column inside it. A block indented past it after a blank line is verbatim.
    margin = 0
    blank_before = True
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            blank_before = True
            i += 1
            continue
        indent = _indent(line)
        item = _ITEM.match(line)
        note = None if item else _NOTE_ITEM.match(line)
        if indent == 0 and line.startswith("=") and (heading := _HEADING.match(line)):
            title = clean_title(heading["title"].rstrip())
            if title:
                level = min(len(heading["marks"]), _LEVEL_MAX)
                doc.headings.append(Heading(level, title, i + 1))
            margin = 0
        elif blank_before and indent > margin and item is None and note is None:
            i = _verbatim(lines, i, indent, doc)
            blank_before = False
            continue
        elif item is not None:
            margin = item.end() - 1  # the column the item's text starts at
            _labelled(line, lines, i, doc)
        elif note is not None and indent <= margin:
            text_at = note.start("text") if note["text"] else -1
            margin = text_at if text_at > 0 else indent + 2
            _labelled(line, lines, i, doc, note)
        elif indent < margin:
            margin = indent  # text back at a smaller indent: out of the list
        blank_before = False
        i += 1
    doc.title = (
        doc.headings[0].title
        if doc.headings
        else (path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None)
    )
    doc.entities = merge_entities(extract_entities(doc), doc.entities)
    return doc


def clean_title(title: str) -> str:
    """A heading's text as RDoc shows it: links as their text, inline marks and the
    escapes that stop a cross-reference taken out."""
    title = _LINK.sub(lambda m: m["text"] or m["word"], title)
    title = _TAG.sub("", title)
    title = _WORD_MARK.sub(lambda m: m["word"], title)
    return _ESCAPE.sub("", title).strip()


def _other_markup(text: str) -> str | None:
    """The markup a `:markup:` directive names among the file's first lines."""
    for line in text.split("\n", 20)[:20]:
        if match := _MARKUP.match(line):
            return match["name"].lower()
    return None


def _indent(line: str) -> int:
    """The column a line's text starts at (tabs to 8 columns, as RDoc expands them)."""
    rest = line.lstrip(" \t")
    lead = line[: len(line) - len(rest)]
    return len(lead.expandtabs(8)) if "\t" in lead else len(lead)


def _verbatim(lines: list[str], i: int, indent: int, doc: Document) -> int:
    """A verbatim block from line `i`, indented `indent` columns: a code block up to the
    last indented line before text at a smaller indent. Returns the line after it."""
    end = last = i
    while end < len(lines):
        line = lines[end]
        if line.strip():
            if _indent(line) < indent:
                break
            last = end
        end += 1
    body = [
        line[indent:] if line[:indent].isspace() else line.lstrip() for line in lines[i : last + 1]
    ]
    doc.codeblocks.append(CodeBlock(None, "\n".join(body), i + 1, last + 1))
    return last + 1


def _labelled(
    line: str, lines: list[str], i: int, doc: Document, note: re.Match[str] | None = None
) -> None:
    """A labelled list item's `Term` (`[label] text`, `label:: text`), its text the
    item's first line or, when that is empty, the next one."""
    found = note or _LABEL_ITEM.match(line)
    if found is None:
        return
    text = found["text"] or (lines[i + 1].strip() if i + 1 < len(lines) else "")
    entity = term_entity(clean_title(found["label"]), text or None, i + 1, i + 1)
    if entity is not None:
        doc.entities.append(entity)
