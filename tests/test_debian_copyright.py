"""Machine-readable Debian copyright files (DEP-5) as an outline
(`ingest/debian_copyright.py`); python-debian's `debian.copyright` is the oracle."""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest

from docql_sqlite.ingest.plaintext import parse_text

ZLIB = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: zlib
Source: http://zlib.net/

Files: *
Copyright: 1995-2022 Jean-loup Gailly and Mark Adler
License: Zlib

# a comment between stanzas
Files: contrib/minizip/*
 contrib/puff/*
Copyright: 1998-2010 Gilles Vollant
License: Zlib

License: Zlib
 This software is provided 'as-is', without any express or implied
 warranty.
 .
 Permission is granted to anyone to use this software for any purpose.
"""


def test_stanzas_are_sections_and_licences_terms() -> None:
    document = parse_text(ZLIB, "zlib1g/copyright")
    assert document.title == "zlib"  # its Upstream-Name
    assert [(h.title, h.line) for h in document.headings] == [
        ("Files: * (Zlib)", 5),
        ("Files: contrib/minizip/* contrib/puff/* (Zlib)", 10),
        ("License: Zlib", 15),
    ]
    terms = [(e.name, e.line, e.end_line, e.definition) for e in document.entities]
    assert (
        "Zlib",
        15,
        19,
        "This software is provided 'as-is', without any express or implied",
    ) in terms


def test_a_long_files_list_is_cut_but_keeps_its_licence() -> None:
    files = " ".join(f"src/file{i}.c" for i in range(100))
    text = f"Format: https://dep-team.pages.debian.net/deps/dep5\n\nFiles: {files}\nLicense: MIT\n"
    (heading,) = parse_text(text, "copyright").headings
    assert len(heading.title) <= 200 and heading.title.endswith("… (MIT)")


def test_a_copyright_file_in_free_form_has_no_stanzas() -> None:
    text = "This is Debian's prepackaged version of zlib.\n\nFiles: all of them\nLicense: Zlib\n"
    assert not [h for h in parse_text(text, "copyright").headings if h.title.startswith("Files")]


deb_copyright = pytest.importorskip("debian.copyright", reason="python-debian (the oracle)")
FORMAT = re.compile(r"^Format(?:-Specification)?:.*(?:copyright-format|dep-?5)", re.I | re.M)
FILES = sorted(glob.glob("/usr/share/doc/*/copyright"))


@pytest.mark.skipif(not FILES, reason="no /usr/share/doc/*/copyright on this machine")
def test_stanzas_as_python_debian_reads_them() -> None:
    """This machine's machine-readable copyright files (every 3rd): the same `Files`
    stanzas (by their first pattern) and stand-alone licences as python-debian's
    parser reads."""
    checked = 0
    differ = []
    for path in FILES[::3]:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        if not FORMAT.search(text[:2000]):
            continue
        try:
            oracle = deb_copyright.Copyright(text.splitlines(), strict=False)
        except Exception:  # noqa: BLE001 - a file python-debian refuses is no oracle
            continue
        checked += 1
        want = [
            *(("Files", p.files[0]) for p in oracle.all_files_paragraphs()),
            *(("License", p.license.synopsis) for p in oracle.all_license_paragraphs()),
        ]
        got = [
            ("Files", h.title[len("Files: ") :].split(" ")[0])
            if h.title.startswith("Files: ")
            else ("License", h.title[len("License: ") :])
            for h in parse_text(text, path).headings
        ]
        if sorted(want) != sorted(got):
            differ.append((path, sorted(set(want) ^ set(got))[:4]))
    assert checked > 50
    assert not differ, differ[:5]


def test_a_long_line_costs_no_backtracking() -> None:
    """Hostile: a field whose value is two million blanks and then a letter (a lazy
    value pattern before trailing blanks is quadratic on it)."""
    head = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
    (heading,) = parse_text(head + "Files: " + " " * 2_000_000 + "x\n", "copyright").headings
    assert heading.title == "Files: x"
