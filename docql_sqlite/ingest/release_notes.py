"""Release notes in plain text: each line that names a release is a section.

A NEWS or changelog file that is no Debian or GNU changelog, nor titled in a way
`text_outline` reads, still names its releases on lines of their own — 140 of the 349
such files in this machine's /usr/share/doc:

    Changes in 2.40:                     (binutils)
    Version 7.88.1 (20 Feb 2023)         (curl)
    0.2.13 (2021-01-29)                  (libdatrie)
    v2.9.14: May 02 2022:                (libxml2)
    ## FLAC 1.4.2 (22-Oct-2022)          (FLAC: Markdown headings in a `.gz` text)

A line is such a heading when it names a version (`\\d+.\\d+`, or `v` and a number),
opens at the first column with a letter, a digit, `#`, `=` or `[` (not a list item's
bullet), has a blank line or the file's start above it, no more than `MAX_WORDS` words
and no sentence's end, and what follows it is no paragraph of its own going on (a blank
line, an indented or bulleted line, an underline). Only files that `path_kinds` calls
release notes and whose text has no other outline are read so, and only when two lines
or more qualify: each is a level-1 section titled by the line (Markdown's and
AsciiDoc's heading marks taken off).
"""

from __future__ import annotations

import re

from docql_sqlite.model import Heading

MAX_WORDS = 12
_MAX_CHARS = 100
_VERSION = re.compile(r"\d+\.\d+|\bv\d+\b", re.IGNORECASE)
# (`#`, `=`, `[` open Markdown's, AsciiDoc's and bracketed headings: `[Changes for 0.04]`)
_OPENS = re.compile(r"^[0-9A-Za-z#=\[]")
_MARKS = re.compile(r"^(?:#{1,6}|={1,6})[ \t]+|[ \t]+#+$")
_SENTENCE_END = re.compile(r"[.!?]$")
_BULLET = re.compile(r"^(?:[ \t]|[*•+-][ \t]|[-=~^*]{3,}[ \t]*$)")


def read(lines: list[str]) -> list[Heading]:
    """The release lines of `lines` as headings, or none when fewer than two qualify."""
    headings: list[Heading] = []
    for i, line in enumerate(lines):
        if not line or len(line) > _MAX_CHARS or not _OPENS.match(line):
            continue
        if i and lines[i - 1].strip():
            continue  # inside a paragraph
        text = line.rstrip()
        if _SENTENCE_END.search(text) or len(text.split()) > MAX_WORDS:
            continue
        if not _VERSION.search(text):
            continue
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if below.strip() and not _BULLET.match(below):
            continue  # a paragraph whose first line names a version
        title = _MARKS.sub("", text).strip()
        if title:
            headings.append(Heading(level=1, title=title, line=i + 1))
    return headings if len(headings) >= 2 else []
