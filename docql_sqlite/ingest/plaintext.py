"""Plain text → `Document`: the text itself, no structure.

This module owns the simplest format: a plain-text file has no headings (the whole
file is preamble, searchable and chunked but in no section), its title is the file
name, and line ends are normalised to `\\n`. Term patterns (`Term` / `: definition`,
`**Term**: definition`) are still picked up, since README-style .txt files use them.

A `.txt` file that is reStructuredText (Sphinx projects such as Django keep their whole
manual in `.txt` files) is read by the reST parser instead: `looks_like_rst`; one that
is AsciiDoc (git's manual pages) by the AsciiDoc parser: `asciidoc.looks_like_asciidoc`. Not under
a `_sources/` folder: there Sphinx copies the sources of the HTML pages it built beside
them (`x.rst.txt` for `x.html`), whose outline, code blocks and tables the HTML already
gives; read as reST they cost 25 CPU s more on Python's documentation (docutils: ~45 ms
a file against ~2 ms as text), a sixth of the whole 279 MB scale run.
"""

from __future__ import annotations

import re

from docql_sqlite.ingest.asciidoc import looks_like_asciidoc, parse_asciidoc
from docql_sqlite.ingest.entities import extract_entities
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.model import Document, Source

# The extensions whose files may be reST in disguise (not .log, .yaml, .ini, ...).
RST_CANDIDATES = ("txt", "text")
# A reST section adornment: one punctuation character repeated, 3 or more times.
_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1{2,}[ \t]*")
# Marks only reST writes: explicit markup (a directive, a hyperlink target, a
# substitution definition), an interpreted-text role, an embedded-URI link.
_RST_MARKS = (
    re.compile(r"^\.\.[ \t]+(?:[\w:+-]+::|_[^\n:]+:|\|[^|\n]+\|[ \t]+[\w:-]+::)", re.M),
    re.compile(r"(?<![\w`]):[a-z][\w:+.-]*:`[^`\n]+`"),
    re.compile(r"`[^`\n]+ <[^>\n]+>`__?"),
)
# How much of a file the sniff reads: titles and directives show early in a reST file.
_SNIFF_CHARS = 100_000


def parse(source: Source) -> Document:
    """The plain-text parser (`formats.PARSERS`): decode, then `parse_text` (or the reST
    parser for a `.txt` file that `looks_like_rst`)."""
    path = source.path.replace("\\", "/")
    folders, _, name = path.rpartition("/")
    if name.rpartition(".")[2].lower() in RST_CANDIDATES and "_sources" not in folders.split("/"):
        return parse_decoded(source, _parse_txt)
    return parse_decoded(source, parse_text)


def _parse_txt(text: str, path: str) -> Document:
    if looks_like_rst(text):
        from docql_sqlite.ingest.rst import parse_rst  # docutils: only when needed

        return parse_rst(text, path)
    if looks_like_asciidoc(text):
        return parse_asciidoc(text, path)
    return parse_text(text, path)


def looks_like_rst(text: str) -> bool:
    """True when the text is reStructuredText: a section title (a line with an adornment
    of punctuation at least as long under it) and a mark only reST writes — explicit
    markup (`.. directive::`, `.. _target:`), a role (``:class:`Foo` ``), a link
    (`` `text <url>`_ ``), or a title overlined at the top of the file. Underlined titles
    alone are not enough: AsciiDoc (git's manual pages) and plain notes underline titles
    too, and an AsciiDoc listing of one line between `----` delimiters has the shape of
    an overlined title (hence "at the top")."""
    head = plain_lines(text[:_SNIFF_CHARS])
    lines = head.split("\n")
    titles = 0
    for above, line in zip(lines, lines[1:], strict=False):
        title = above.strip()
        if (
            title
            and _ADORNMENT.fullmatch(line)
            and not _ADORNMENT.fullmatch(above)
            and len(title) <= len(line.rstrip())
        ):
            titles += 1
            break
    if not titles:
        return False
    top = head.lstrip("\n").split("\n", 3)
    if (
        len(top) >= 3
        and _ADORNMENT.fullmatch(top[0])
        and top[0].rstrip() == top[2].rstrip()
        and top[1].strip()
    ):
        return True
    return any(mark.search(head) for mark in _RST_MARKS)


def parse_text(text: str, path: str) -> Document:
    """Parse decoded plain text; never raises."""
    text = plain_lines(text)
    title = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None
    document = Document(format="text", text=text, title=title)
    document.entities = extract_entities(document)
    return document
