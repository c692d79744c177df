"""Plain text → `Document`: the text and the outline people type without markup.

This module owns the simplest format: a plain-text file's headings are the titles
`text_outline` reads (underlined or overlined titles, numbered titles in sequence, titles
under a rule as Vim's help writes them; none in logs and configuration files), its title
is the first heading's when that opens the file, else the file name, and line ends are
normalised to `\\n`. Term patterns (`Term` / `: definition`,
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

from docql_sqlite.ingest import (
    debian_changelog,
    debian_copyright,
    emacs_outline,
    gnu_changelog,
    release_notes,
    vim_help,
)
from docql_sqlite.ingest.asciidoc import looks_like_asciidoc, parse_asciidoc
from docql_sqlite.ingest.entities import extract_entities, merge_entities
from docql_sqlite.ingest.formats import CODE_AS_TEXT, decompressed_name, format_for_path
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.ingest.text_outline import outline
from docql_sqlite.model import Document, Entity, Source
from docql_sqlite.path_kinds import BUILD_NAMES, is_release_notes

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
    # the name inside a compressed file's (`atomic_t.txt.gz`, as Debian ships the kernel's
    # documentation: 1,944 such texts were never sniffed)
    path = decompressed_name(source.path.replace("\\", "/"))
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


def parse_text(text: str, path: str, outlined: bool | None = None) -> Document:
    """Parse decoded plain text; never raises. Its headings are the titles people type
    (`text_outline`), but in logs, configuration files and code read as text (`outlined`:
    whether to look for them; by default `_outlined(path)`); its title the first
    heading's when that opens the text, else the file name."""
    text = plain_lines(text)
    title = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None
    document = Document(format="text", text=text, title=title)
    if outlined is None:
        outlined = _outlined(path)
    versions: list[Entity] = []  # a changelog's versions, a copyright file's licences
    if outlined:
        lines = text.split("\n")
        if debian_changelog.is_changelog(lines):
            document.headings, versions = debian_changelog.read(lines)
        elif debian_copyright.is_copyright(lines):
            document.headings, versions, upstream = debian_copyright.read(lines)
            document.title = upstream or document.title
        elif gnu_changelog.is_changelog(lines):
            document.headings = gnu_changelog.read(lines)
        elif emacs_outline.is_outline(text, lines):
            document.headings, named = emacs_outline.read(lines)
            document.title = named or document.title
        else:
            document.headings = outline(text)
            if document.headings and document.headings[0].line <= _TITLE_LINES:
                document.title = document.headings[0].title
            elif not document.headings and is_release_notes(path):
                document.headings = release_notes.read(lines)
    document.entities = extract_entities(document)
    if versions:
        document.entities = merge_entities(document.entities, versions)
    if outlined and vim_help.is_vim_help(text):
        document.entities = merge_entities(document.entities, vim_help.tag_terms(text))
    return document


# Files read as text whose lines of `=` or `-` are no titles' underlines: YAML's `---`,
# a log's banners, an INI file's rules, a SQL file's `-- ====` comments, a template's lines.
_NOT_OUTLINED = frozenset(
    {"log", "yaml", "yml", "toml", "ini", "cfg", "conf", "json", *CODE_AS_TEXT}
)
# A heading this close to the top is the document's title (an overlined one: line 2).
_TITLE_LINES = 3


def _outlined(path: str) -> bool:
    """Whether the text at `path` may have an outline: not a log or a configuration file,
    nor code read as text (`CODE_AS_TEXT`, `Makefile`), nor code inside a compressed file
    (`foo.c.gz`: text)."""
    name = decompressed_name(path.replace("\\", "/")).rsplit("/", 1)[-1]
    ext = name.rpartition(".")[2].lower() if "." in name.lstrip(".") else ""
    if ext in _NOT_OUTLINED or name.lower().partition(".")[0] in BUILD_NAMES:
        return False
    return format_for_path(name) != "code"
