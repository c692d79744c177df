"""Texts written for Emacs' outline mode (`ingest/emacs_outline.py`): GNU's NEWS files."""

from __future__ import annotations

import glob
import gzip
import re
from pathlib import Path

import pytest

from docql_sqlite.ingest.plaintext import parse_text

COREUTILS = """GNU coreutils NEWS                                    -*- outline -*-

* Noteworthy changes in release 9.1 (2022-04-15) [stable]

** Bug fixes

  chmod -R no longer exits with error status when encountering symlinks.
  *Not* a heading: it does not open the line.

** New Features

*** cp --reflink

**** level four
***** level five
******* level seven is shown at six

* Noteworthy changes in release 9.0 (2021-09-24) [stable]
*bold at a line's start is no heading
"""


def test_star_lines_are_the_outline() -> None:
    document = parse_text(COREUTILS, "coreutils/NEWS")
    assert document.title == "GNU coreutils NEWS"  # the first line before its mode line
    assert [(h.level, h.title, h.line) for h in document.headings] == [
        (1, "Noteworthy changes in release 9.1 (2022-04-15) [stable]", 3),
        (2, "Bug fixes", 5),
        (2, "New Features", 10),
        (3, "cp --reflink", 12),
        (4, "level four", 14),
        (5, "level five", 15),
        (6, "level seven is shown at six", 16),
        (1, "Noteworthy changes in release 9.0 (2021-09-24) [stable]", 18),
    ]


def test_local_variables_at_the_end_name_the_mode_too() -> None:
    text = "NEWS\n\n* Release 2\n\n** Fixes\n\nLocal Variables:\nmode: outline\nEnd:\n"
    assert [h.title for h in parse_text(text, "NEWS").headings] == ["Release 2", "Fixes"]


def test_star_lines_of_other_texts_are_no_outline() -> None:
    text = "Release notes\n\n* Fixed a crash.\n* Faster startup.\n"
    assert not [h for h in parse_text(text, "NEWS").headings if h.title.startswith("Fixed")]


STARS = re.compile(r"^\*+[ \t]+\S")
FILES = sorted(glob.glob("/usr/share/doc/*/NEWS*") + glob.glob("/usr/share/doc/*/TODO*"))


@pytest.mark.skipif(not FILES, reason="no /usr/share/doc NEWS files on this machine")
def test_every_star_line_of_an_outline_text_is_a_heading() -> None:
    """This machine's outline-mode NEWS and TODO files (a brute-force count of their
    star lines: 14 files when written)."""
    checked = 0
    for path in FILES:
        data = Path(path).read_bytes()
        text = (gzip.decompress(data) if path.endswith(".gz") else data).decode("utf-8", "replace")
        if "-*- outline -*-" not in text.split("\n", 1)[0]:
            continue
        checked += 1
        headings = parse_text(text, path.removesuffix(".gz")).headings
        assert [h.line for h in headings] == [
            n for n, line in enumerate(text.split("\n"), 1) if STARS.match(line)
        ], path
    assert checked >= 3
