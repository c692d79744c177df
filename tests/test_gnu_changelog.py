"""A GNU-style ChangeLog's entries as its outline (`ingest/gnu_changelog.py`)."""

from __future__ import annotations

import glob
import gzip
import re
from pathlib import Path

import pytest

from docql_sqlite.ingest.plaintext import parse_text

BINUTILS = """2023-01-14  Nick Clifton  <nickc@redhat.com>

\t* 2.40 release point.

2023-01-09  Nick Clifton  <nickc@redhat.com>
\t    Alan Modra  <amodra@gmail.com>

\t* po/bg.po: Updated Bulgarian translation.
\t2023-01-01 is no entry: it is indented.

2022-01-31  Aarni Koskela  <akx@iki.fi>  (tiny change)

\t* src/main.c (main): Fix a leak.

2017-11-17  Even Rouault <even.rouault at spatialys.com>

Fri Apr  7 15:14:43 PDT 2017  Phil Nelson  <philnelson@acm.org>

\t* NEWS: update for 1.07.1.

2021-06-26  Sergey Poznyakoff  <Sergey Poznyakoff>

\t* a typo'd address: still an entry, inside a ChangeLog.
"""


def test_each_dated_entry_is_a_section() -> None:
    document = parse_text(BINUTILS, "binutils/ChangeLog")
    assert [(h.title, h.line, h.anchor) for h in document.headings] == [
        ("2023-01-14 Nick Clifton", 1, "2023-01-14"),
        ("2023-01-09 Nick Clifton", 5, "2023-01-09"),
        ("2022-01-31 Aarni Koskela", 11, "2022-01-31"),
        ("2017-11-17 Even Rouault", 15, "2017-11-17"),
        ("Fri Apr  7 15:14:43 PDT 2017 Phil Nelson", 17, None),  # its slug is the anchor
        ("2021-06-26 Sergey Poznyakoff", 21, "2021-06-26"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Release notes\n\n2023-01-14  Nick Clifton  <nickc@redhat.com>\n\t* x\n",  # not first
        "2023-01-14  the day we shipped\n\nWe shipped.\n",  # no address
        "2023-01-14  Nick Clifton  <nickc@redhat.com>\nnothing that follows is an entry\n",
    ],
    ids=["header-not-first", "no-address", "alone"],
)
def test_other_texts_are_no_changelog(text: str) -> None:
    assert not [h for h in parse_text(text, "NEWS").headings if h.anchor == "2023-01-14"]


def test_a_long_line_costs_no_backtracking() -> None:
    head = "2023-01-14  Nick Clifton  <nickc@redhat.com>\n\t* x\n"
    line = "2023-01-09  " + "a " * 200_000 + "<"
    assert len(parse_text(head + line + "\n", "ChangeLog").headings) == 1


DATED = re.compile(r"^(?:\d{4}-\d\d-\d\d|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d[ \d])")
CHANGELOGS = sorted(glob.glob("/usr/share/doc/*/changelog.gz"))


@pytest.mark.skipif(not CHANGELOGS, reason="no /usr/share/doc/*/changelog.gz on this machine")
def test_every_dated_line_of_a_gnu_changelog_is_an_entry() -> None:
    """This machine's GNU ChangeLogs (91 when written, 82,655 entries): in a file read as
    one, every line that opens with a date is an entry and every entry such a line
    (a brute-force count: its body lines are indented)."""
    checked = 0
    for path in CHANGELOGS:
        text = gzip.decompress(Path(path).read_bytes()).decode("utf-8", "replace")
        headings = parse_text(text, path[:-3]).headings
        if not headings or headings[0].anchor is None or not headings[0].anchor[:1].isdigit():
            continue
        if not re.fullmatch(r"\d{4}-\d\d-\d\d(?:-\d+)?", headings[0].anchor):
            continue  # a Debian changelog's version
        checked += 1
        dated = [n for n, line in enumerate(text.split("\n"), 1) if DATED.match(line)]
        assert [h.line for h in headings] == dated, path
    assert checked > 10
