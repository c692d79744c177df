"""GNU Info files (`makeinfo` output: /usr/share/info/sed.info.gz, coreutils', grep's,
gzip's manuals) → `Document`, as the `info` reader shows them.

This module owns reading Info files: nodes separated by a `\\x1f` line and a header
(`File: sed.info,  Node: Invoking sed,  Next: …,  Up: Top`), titles underlined with
`*`, `=`, `-` or `.` (chapter, section, subsection, subsubsection), `* Menu:` lists of
the nodes below, and at the end a tag table of byte offsets. The document's text is the
file's, line for line, with the separators, node headers and the tag table blanked:
they are the reader's navigation, not the manual's words, and a search that matched
"Next: Invoking sed" would find every node.

- **Sections**: the underlined titles, each with its node's name as anchor (`#Invoking
  sed`: the name cross-references use, `*note …: Invoking sed.`).
- **Menus and indexes** (`* Introduction::`, `* regexp: Commands.  (line 6)`) are
  chunks of their own, which search knows for pointers (`passage_text.pointer_page`);
  so are the `dir` entries before the first node (`* sort: (coreutils)sort
  invocation.  Sort text files.`), whose `INFO-DIR-SECTION`, `START-INFO-DIR-ENTRY`
  and `END-INFO-DIR-ENTRY` lines, for install-info alone, are blanked: coreutils' list
  of its 100 programs ranked 2nd for "how do I split a file into pieces".
- **Options** as makeinfo writes a `@table @option` (`‘-n’` lines, then the indented
  description): `Term`s, one per option (`-n`, `--quiet`, `--silent`).
- **Examples** (lines indented five spaces or more after a blank line) are code blocks.
"""

from __future__ import annotations

import dataclasses
import re

from docql_sqlite.ingest.entities import extract_entities, merge_entities, option_term
from docql_sqlite.ingest.read import parse_decoded, plain_lines, repeated_character
from docql_sqlite.model import CodeBlock, Document, Heading, Source, split_lines

_LEVELS = {"*": 1, "=": 2, "-": 3, ".": 4}
_NODE = re.compile(r"File: [^,]*,\s+Node: (?P<node>[^,\t]+)")
# `* Name::`, an index's `* term: Node.  (line 6)`, and a `dir` entry naming its file
# (`* sort: (coreutils)sort invocation.   Sort text files.`).
_MENU_ENTRY = re.compile(
    r"\* [^:\n]+::|\* [^:\n]+: [^\n]*\.\s+\(line +\d+\)$|\* [^:\n]+: \([^)\s]+\)(?:\S[^\n]*)?\."
)
# The lines install-info reads to add the manual to the `dir` menu: no reader shows them.
_DIR_MARKS = ("INFO-DIR-SECTION ", "START-INFO-DIR-ENTRY", "END-INFO-DIR-ENTRY")
# `‘-n’`, `‘--quiet’`, `‘--regexp-extended’`, `‘-i[SUFFIX]’`: an option as a table item.
_OPTION_ITEM = re.compile(r"[‘'`](?P<option>--?[\w][\w-]*)(?:[=\[][^’']*)?[’']$")
_EXAMPLE_INDENT = "     "
_COOKIE = re.compile(rb"\x00\x08\[[^\x00\n]{0,2000}\x00\x08\]")


def parse(source: Source) -> Document:
    """The Info parser (`formats.PARSERS`): the reader's cookies out, decode, then
    `parse_info`. An index node opens with `\0\b[index\0\b]` and an image is
    `\0\b[image src="…"\0\b]`: NUL bytes the text decoder takes for a binary file
    (sed's, grep's, coreutils' manuals failed "binary file (contains NUL bytes)")."""
    if b"\0" in source.data:
        source = dataclasses.replace(source, data=_COOKIE.sub(b"", source.data))
    return parse_decoded(source, parse_info)


def parse_info(text: str, path: str) -> Document:
    """Read an Info file's nodes, titles, menus, options and examples; never raises."""
    text = plain_lines(text)
    lines = split_lines(text)
    doc = Document(format="info", text="")
    node: str | None = None  # the node whose first title takes its name as anchor
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line.startswith("\x1f"):
            lines[i] = ""
            if i + 1 < n and (header := _NODE.match(lines[i + 1])):
                node = header["node"].strip()
                lines[i + 1] = ""
                i += 2
                continue
            i = _blank_until_node(lines, i + 1)  # a tag table, an indirect table, …
            continue
        if line.startswith(_DIR_MARKS):
            lines[i] = ""
            i += 1
            continue
        if line.startswith("* Menu:") or (
            _MENU_ENTRY.match(line) and (i == 0 or not lines[i - 1].strip())
        ):
            i = _menu(lines, i, doc)
            continue
        if (
            i + 1 < n
            and line.strip()
            and not line.startswith(" ")
            and repeated_character(lines[i + 1], "*=.-") is not None
            and len(lines[i + 1]) == len(line.rstrip())
        ):
            title = line.strip()
            doc.headings.append(Heading(_LEVELS[lines[i + 1][0]], title, i + 1, anchor=node))
            node = None
            i += 2
            continue
        if (
            line.startswith(_EXAMPLE_INDENT)
            and line.strip()
            and (i == 0 or not lines[i - 1].strip())
        ):
            i = _example(lines, i, doc)
            continue
        if _OPTION_ITEM.match(line):
            i = _options(lines, i, doc)
            continue
        i += 1
    doc.text = "\n".join(lines) + ("\n" if lines else "")
    doc.entities = merge_entities(extract_entities(doc), doc.entities)
    base = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    doc.title = doc.headings[0].title if doc.headings else (base or None)
    return doc


def _blank_until_node(lines: list[str], i: int) -> int:
    """Blank what follows a separator that opens no node — the tag table of byte
    offsets, a split file's indirect table, the `Local Variables:` block — up to the next
    separator."""
    while i < len(lines) and not lines[i].startswith("\x1f"):
        lines[i] = ""
        i += 1
    return i


def _menu(lines: list[str], i: int, doc: Document) -> int:
    """A menu (or an index's menu) from line `i`: a chunk of its own; the line after."""
    start = i
    i += 1
    while i < len(lines) and not lines[i].startswith("\x1f"):
        line = lines[i]
        if line.strip() and not (line.startswith(("* ", " ")) or _MENU_ENTRY.match(line)):
            break  # text after the menu
        i += 1
    doc.chunk_breaks.update((start + 1, i + 1))
    return i


def _example(lines: list[str], i: int, doc: Document) -> int:
    """An example (lines indented five spaces or more, after a blank line): a code block."""
    start = i
    while i < len(lines) and (lines[i].startswith(_EXAMPLE_INDENT) or not lines[i].strip()):
        if not lines[i].strip() and not (
            i + 1 < len(lines) and lines[i + 1].startswith(_EXAMPLE_INDENT)
        ):
            break
        i += 1
    i = max(i, start + 1)  # (a line of spaces alone is no example: never stand still)
    code = "\n".join(line[len(_EXAMPLE_INDENT) :] for line in lines[start:i])
    doc.codeblocks.append(CodeBlock(None, code, start + 1, i))
    return i


def _options(lines: list[str], i: int, doc: Document) -> int:
    """Option items (`‘-n’`, `‘--quiet’` lines) and the indented description under them:
    a `Term` for each option; the line after the description's first paragraph."""
    start = i
    names = []
    while i < len(lines) and (item := _OPTION_ITEM.match(lines[i])):
        names.append(item["option"])
        i += 1
    body = []
    while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
        body.append(lines[i].strip())
        i += 1
    definition = " ".join(body) or None
    for name in names:
        if (entity := option_term(name, definition, start + 1, max(start + 1, i))) is not None:
            doc.entities.append(entity)
    return i
