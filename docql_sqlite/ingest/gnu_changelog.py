"""A GNU-style ChangeLog's entries as its outline: one section per dated entry.

GNU projects keep a `ChangeLog` in every directory of their source (binutils, gcc, bc:
112 of this machine's /usr/share/doc changelogs), in the form the GNU Coding Standards
and Emacs' `add-change-log-entry` write:

    2023-01-09  Nick Clifton  <nickc@redhat.com>

        * po/bg.po: Updated Bulgarian translation.

or, in older entries, `Fri Apr  7 15:14:43 PDT 2017  Phil Nelson  <philnelson@acm.org>`.
Read as plain text such a file had no sections, so a passage found for a change showed
no date and no author. Here each entry header (a date at the start of a line, then a
name and an address in `<>` or `()`) is a level-1 section titled by its date and name,
anchored at its ISO date (a second entry of a day gets `-1`, as repeated anchors do). A
text is one when its first line with text is such a header and a second header or a
tab-indented `* ` item follows within `_SNIFF_LINES` (`is_changelog`).
"""

from __future__ import annotations

import re

from docql_sqlite.model import Heading

# A header: an ISO date (`2023-01-09`, maybe with its day's name and a time, as some
# tools write it), or the older `Day Mon DD [HH:MM:SS [TZ]] YYYY`; blanks; the author and
# an address in `<>` or `()` (`at` for `@` too), perhaps a note: `(tiny change)`.
_DATE = (
    r"^(\d{4}-\d\d-\d\d|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]?\d"
    r"(?: \d?\d:\d\d:\d\d(?: [A-Z]{1,5}| [-+]\d{4})?)? \d{4})"
    r"(?:[ \t]+[A-Z][a-z]+day)?(?:[ \t]+\d\d:\d\d(?::\d\d)?)?(?:[ \t]+[A-Z]{1,5})?"
)
# The sniff wants a whole header; inside a ChangeLog, whose text lines are indented, any
# line opening with a date is one (a typo'd address, `<Sergey Poznyakoff>`, no name, no
# author at all).
_HEADER = re.compile(_DATE + r"[ \t]+(\S.*?)[ \t]+[<(][^<>()\s]+(?:@|\s+at\s+)[^<>()]+[>)].*$")
_ENTRY = re.compile(_DATE + r"(?:[ \t]+(\S.*?))?[ \t]*$")
# The address and what follows it, out of a title.
_ADDRESS = re.compile(r"[ \t]*[<(][^<>()]*(?:[>)].*)?$")
_MAX_LINE = 300
_ITEM = re.compile(r"^\t\* |^ {8}\* ")
_SNIFF_LINES = 200


def _header(line: str, pattern: re.Pattern[str] = _HEADER) -> re.Match[str] | None:
    # (only lines this short: the name's `.+?` backtracks on a long line)
    return pattern.match(line) if len(line) <= _MAX_LINE and line[:1].isalnum() else None


def is_changelog(lines: list[str]) -> bool:
    """Whether `lines` are a GNU-style ChangeLog."""
    first = next((i for i, line in enumerate(lines[:_SNIFF_LINES]) if line.strip()), None)
    if first is None or not _header(lines[first]):
        return False
    return any(
        _header(line) or _ITEM.match(line) for line in lines[first + 1 : first + _SNIFF_LINES]
    )


def read(lines: list[str]) -> list[Heading]:
    """The entries of a ChangeLog (`is_changelog`), a heading each."""
    headings: list[Heading] = []
    for number, line in enumerate(lines, 1):
        found = _header(line, _ENTRY)
        if found is not None:
            date, written = found.group(1), found.group(2) or ""
            name = _ADDRESS.sub("", written) or written
            title = f"{date} {name}" if name else date
            iso = date[:1].isdigit()  # an older date's anchor is its title's slug
            headings.append(
                Heading(level=1, title=title, line=number, anchor=date if iso else None)
            )
    return headings
