"""Release notes in plain text: each line naming a release is a section
(`ingest/release_notes.py`)."""

from __future__ import annotations

import pytest

from docql_sqlite.ingest.plaintext import parse_text

CASES = [
    (  # binutils' NEWS: "Changes in X:" then items
        "-*- text -*-\n\nChanges in 2.40:\n\n* Support for new architecture loongarch.\n\n"
        "Changes in 2.39:\n\n* The ELF linker will now generate a warning message.\n",
        ["Changes in 2.40:", "Changes in 2.39:"],
    ),
    (  # curl's: "Version X (date)" then an indented list
        "Version 7.88.1 (20 Feb 2023)\n\nDaniel Stenberg (20 Feb 2023)\n- release 7.88.1\n\n"
        "Version 7.88.0 (15 Feb 2023)\n  - something\n",
        ["Version 7.88.1 (20 Feb 2023)", "Version 7.88.0 (15 Feb 2023)"],
    ),
    (  # FLAC's: Markdown headings in a text with no .md name
        "# FLAC Changelog\n\n## FLAC 1.4.2 (22-Oct-2022)\n\n* Fixed a crash.\n\n"
        "## FLAC 1.4.1 (22-Sep-2022)\n\n* Faster.\n",
        ["FLAC 1.4.2 (22-Oct-2022)", "FLAC 1.4.1 (22-Sep-2022)"],
    ),
    (  # libxml2's: "vX: date:"; a paragraph whose first line names a version is none
        "v2.9.14: May 02 2022:\n   - Fix it\n\n"
        "This release is the last one that builds with Python 2.7 and\n"
        "older compilers; see below.\n\nv2.9.13: Feb 19 2022:\n   - Fix that\n",
        ["v2.9.14: May 02 2022:", "v2.9.13: Feb 19 2022:"],
    ),
]


@pytest.mark.parametrize(("text", "titles"), CASES, ids=["binutils", "curl", "flac", "libxml2"])
def test_release_lines_are_sections(text: str, titles: list[str]) -> None:
    headings = parse_text(text, "pkg/NEWS").headings
    assert [h.title for h in headings] == titles
    assert all(h.level == 1 for h in headings)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("Version 1.0 (2020)\n\n- first\n", "pkg/NEWS"),  # one release line: no outline
        ("Version 1.0 (2020)\n\n- a\n\nVersion 2.0 (2021)\n\n- b\n", "pkg/README"),  # no notes
        ("Fixed the crash in 1.2.\n\n- a\n\nFixed the leak in 1.3.\n\n- b\n", "pkg/NEWS"),
        ("* Release 1.2\n\n- a\n\n* Release 1.3\n\n- b\n", "pkg/NEWS"),  # bullets
    ],
    ids=["one-release", "not-release-notes", "sentences", "bullets"],
)
def test_other_lines_are_no_release(text: str, path: str) -> None:
    assert parse_text(text, path).headings == []
