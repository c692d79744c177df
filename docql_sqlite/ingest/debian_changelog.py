"""A Debian changelog's entries as its outline: one section and one term per version.

`debian/changelog` in every Debian source package, and `changelog.Debian.gz` (and
`NEWS.Debian.gz`, the same format) for every package in /usr/share/doc — 900 of this
machine's texts — list a package's versions, newest first:

    zlib (1:1.2.13.dfsg-1) unstable; urgency=medium

      * New upstream release. (Closes: #1019679)

     -- Mark Brown <broonie@debian.org>  Sat, 15 Oct 2022 17:39:04 +0100

Read as plain text they had no sections, so "what changed in 1.2.13" showed a passage
with no version, and `chapter("#1:1.2.13.dfsg-1")` found nothing. Each entry is read as dpkg
reads it (`Dpkg::Changelog::Entry::Debian`: the header `package (version)
distributions; metadata`, case-insensitive; everything up to the next header is the
entry; entries end where dpkg stops reading them, at `Old Changelog:` or another
format's start, or Emacs' and Vim's settings): a level-1 section titled `package
(version) distributions`, anchored at the version (numbered by position, as any
document without printed numbers), and a `Term` named by the version, defined by the
header and its trailer line (who, when). A file is one when its first line that is not
blank is such a header and a trailer line (` -- name <email>  date`) follows
(`is_changelog`). Oracle: `dpkg-parsechangelog --all` on this machine's 901
`changelog.Debian.gz` and `NEWS.Debian.gz`: the same 32,855 versions in order.
"""

from __future__ import annotations

import re

from docql_sqlite.model import Entity, Heading

# dpkg's header regex (scripts/Dpkg/Changelog/Entry/Debian.pm, $regex_header), with /i.
HEADER = re.compile(
    r"^(\w[-+0-9a-z.]*) \(([^\(\) \t]+)\)((?:\s+[-+0-9a-z.]+)+);(.*?)\s*$", re.IGNORECASE
)
# … and its trailer: ` -- Maintainer <email>  date`.
TRAILER = re.compile(r"^ -- (.*) <(.*)>(  ?)(.*?)\s*$")
# Where dpkg stops reading entries (the rest is an "unparsed tail", kept verbatim): Emacs
# and Vim settings, and the start of a changelog in an older format (`Old Changelog:`, a
# GNU-style dated line, an ancient header) — dpkg's `$ancient_delimiter_re`.
_TAIL = re.compile(
    r"""^(?:
      (?:;;\s*)?Local\ variables: | vim:
    | \w+\s+\w+\s+\d{1,2}\ \d{1,2}:\d{1,2}:\d{1,2}\s+[\w\s]*\d{4}\s+.*\s+[<(].*[)>]
    | \w+\s+\w+\s+\d{1,2},?\s*\d{4}\s+.*\s+[<(].*[)>]
    | \w[-+0-9a-z.]*\ \([^() \t]+\);?
    | [\w.+-]+[-\ ]\S+\ Debian\ \S+
    | Changes\ from\ version\ .*\ to\ .*:
    | Changes\ for\ [\w.+-]+-[\w.+-]+:?\s*$
    | Old\ Changelog:\s*$
    | (?:\d+:)?\w[\w.+~-]*:?\s*$
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# Lines longer than this are none of the above (their regexes backtrack on a long line:
# `.*\s+[<(]`); a changelog's header and trailer lines are short.
_MAX_LINE = 1_000
# How far into a file the sniff looks for the first trailer (an entry of a thousand
# lines is rare; a first header without a trailer in reach is no changelog).
_SNIFF_LINES = 2_000


def is_changelog(lines: list[str]) -> bool:
    """Whether `lines` are a Debian changelog: its first line with text a header, and a
    trailer within `_SNIFF_LINES`."""
    first = next((i for i, line in enumerate(lines[:_SNIFF_LINES]) if line.strip()), None)
    if first is None or not _header(lines[first]):
        return False
    return any(_trailer(line) for line in lines[first + 1 : first + _SNIFF_LINES])


def _header(line: str) -> re.Match[str] | None:
    return HEADER.match(line) if len(line) <= _MAX_LINE else None


def _trailer(line: str) -> re.Match[str] | None:
    return TRAILER.match(line) if line.startswith(" -- ") and len(line) <= _MAX_LINE else None


def read(lines: list[str]) -> tuple[list[Heading], list[Entity]]:
    """The entries of a changelog (`is_changelog`): a heading and a term each."""
    headings: list[Heading] = []
    terms: list[Entity] = []
    trailer: str | None = None
    end = next(
        (
            i
            for i, line in enumerate(lines)
            if len(line) <= _MAX_LINE and not _header(line) and _TAIL.match(line)
        ),
        len(lines),
    )
    for number in range(end, 0, -1):  # backwards: an entry's trailer comes first
        line = lines[number - 1]
        if line.startswith(" -- "):
            found = _trailer(line)
            if found is not None:
                trailer = f"{found.group(1).strip()}, {found.group(4)}".strip(", ")
            continue
        header = _header(line)
        if header is None:
            continue
        package, version, distributions = header.group(1), header.group(2), header.group(3)
        title = f"{package} ({version}) {' '.join(distributions.split())}"
        headings.append(Heading(level=1, title=title, line=number, anchor=version))
        definition = f"{title}{'. ' + trailer if trailer else ''}."
        terms.append(Entity("Term", version, number, number, definition=definition))
        trailer = None
    headings.reverse()
    terms.reverse()
    for term, following in zip(terms, [*headings[1:], None], strict=True):
        term.end_line = (following.line - 1) if following is not None else end
    return headings, terms
