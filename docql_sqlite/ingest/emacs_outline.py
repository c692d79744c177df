"""A text in Emacs' outline mode: its star lines are its outline.

GNU projects write their NEWS (coreutils, grep, sed, gzip, diffutils, findutils, GnuTLS,
libtasn1: 14 of this machine's texts) and some TODO files for Emacs' `outline-mode`,
which the first line names:

    GNU coreutils NEWS                                    -*- outline -*-

    * Noteworthy changes in release 9.1 (2022-04-15) [stable]

    ** Bug fixes

Read as plain text they had no sections, so "what's new in coreutils 9.1" showed a
passage with no release. Here a text whose first line with text carries an Emacs mode
line naming `outline` (`-*- outline -*-`, `-*- mode: outline; … -*-`), or whose Local
Variables at the end say `mode: outline`, has a heading for each line that opens with
stars and a blank (`outline-regexp`'s stars; the level is their number, at most 6); the
first line's text before its mode line is the document's title.
"""

from __future__ import annotations

import re

from docql_sqlite.model import Heading

# An Emacs mode line naming outline mode (`-*- outline -*-`, `-*- mode: outline -*-`).
_MODE_LINE = re.compile(r"-\*-[ \t]*(?:mode:[ \t]*)?outline\b[^\n]*?-\*-", re.IGNORECASE)
# … or the Local Variables block at a file's end.
_LOCAL_MODE = re.compile(r"^\W*mode:[ \t]*outline\b", re.IGNORECASE | re.MULTILINE)
_HEADING = re.compile(r"^(\*+)[ \t]+(\S.*)$")
_TAIL_CHARS = 3_000  # Emacs reads Local Variables in the last 3,000 characters
_MAX_LINE = 1_000


def is_outline(text: str, lines: list[str]) -> bool:
    """Whether `text` (split as `lines`) is written for Emacs' outline mode."""
    first = next((line for line in lines[:20] if line.strip()), "")
    if len(first) <= _MAX_LINE and _MODE_LINE.search(first):
        return True
    tail = text[-_TAIL_CHARS:]
    return "Local Variables:" in tail and _LOCAL_MODE.search(tail) is not None


def read(lines: list[str]) -> tuple[list[Heading], str | None]:
    """(headings, the title the first line gives) of an outline-mode text."""
    headings: list[Heading] = []
    for number, line in enumerate(lines, 1):
        if not line.startswith("*") or len(line) > _MAX_LINE:
            continue
        found = _HEADING.match(line)
        if found is not None:
            level = min(len(found.group(1)), 6)
            headings.append(Heading(level=level, title=found.group(2).rstrip(), line=number))
    first = next((line for line in lines[:20] if line.strip()), "")
    title = _MODE_LINE.split(first, 1)[0].strip() if _MODE_LINE.search(first) else ""
    return headings, title or None
