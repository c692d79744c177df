"""A Debian changelog's entries as its outline (`ingest/debian_changelog.py`): a section
and a `Term` per version, read as dpkg reads them; dpkg-parsechangelog is the oracle."""

from __future__ import annotations

import glob
import gzip
import shutil
import subprocess
from pathlib import Path

import pytest

from docql_sqlite.ingest.plaintext import parse_text

ZLIB = """zlib (1:1.2.13.dfsg-1) unstable; urgency=low

  * New upstream release.

 -- Mark Brown <broonie@debian.org>  Sat, 05 Nov 2022 12:24:46 +0000

zlib (1:1.2.11.dfsg-4.1) unstable; urgency=medium

  * Non-maintainer upload.
  * Fix a bug in inflate. (Closes: #1019679)

 -- Salvatore Bonaccorso <carnil@debian.org>  Fri, 12 Aug 2022 15:17:07 +0200

Zlib (1.1.4-1) stable-security testing; urgency=HIGH

  * Fix double free.

 -- Mark Brown <broonie@debian.org>  Mon, 11 Mar 2002 10:00:00 +0000

Old Changelog:

zlib (1.0.4-1) unstable; urgency=low

  * An entry dpkg no longer reads: the old format's tail.
"""


def test_each_entry_is_a_section_and_a_term() -> None:
    document = parse_text(ZLIB, "zlib1g/changelog.Debian")
    assert [(h.title, h.line, h.anchor) for h in document.headings] == [
        ("zlib (1:1.2.13.dfsg-1) unstable", 1, "1:1.2.13.dfsg-1"),
        ("zlib (1:1.2.11.dfsg-4.1) unstable", 7, "1:1.2.11.dfsg-4.1"),
        ("Zlib (1.1.4-1) stable-security testing", 14, "1.1.4-1"),  # dpkg's /i
    ]
    terms = [e for e in document.entities if e.entity_type == "Term"]
    assert [(t.name, t.line, t.end_line) for t in terms] == [
        ("1:1.2.13.dfsg-1", 1, 6),
        ("1:1.2.11.dfsg-4.1", 7, 13),
        ("1.1.4-1", 14, 19),  # up to `Old Changelog:`, where dpkg stops
    ]
    assert terms[1].definition == (
        "zlib (1:1.2.11.dfsg-4.1) unstable. Salvatore Bonaccorso, Fri, 12 Aug 2022 15:17:07 +0200."
    )


@pytest.mark.parametrize(
    "text",
    [
        # a GNU ChangeLog (its own reader's: tests/test_gnu_changelog.py)
        "2023-01-05  Jane Doe  <jane@example.org>\n\n\t* src/main.c: Fix it.\n",
        # a header but no trailer: a README that starts with a line of that shape
        "mytool (1.0) released; more below\n\nSome text.\n",
        # the header not first: a text quoting a changelog
        "Release notes\n\nzlib (1.2) unstable; urgency=low\n -- A <a@b>  Mon, 1 Jan 2001\n",
    ],
    ids=["gnu-changelog", "no-trailer", "header-not-first"],
)
def test_other_texts_are_no_changelog(text: str) -> None:
    document = parse_text(text, "doc/changelog")
    assert not [h for h in document.headings if "(" in h.title]  # no `package (version)`
    assert not [e for e in document.entities if e.name in ("1.0", "1.2")]


def test_a_long_line_costs_no_backtracking() -> None:
    """Hostile: the tail's and the trailer's regexes backtrack on long lines."""
    head = "pkg (1.0) unstable; urgency=low\n\n  * x\n\n -- A <a@b>  Mon, 1 Jan 2000\n"
    for line in ("Mon Jan 1 2000 " + " " * 300_000, " -- " + " <" * 150_000):
        document = parse_text(head + line + "\n", "changelog")
        assert [h.anchor for h in document.headings] == ["1.0"]


CHANGELOGS = sorted(
    glob.glob("/usr/share/doc/*/changelog.Debian.gz") + glob.glob("/usr/share/doc/*/NEWS.Debian.gz")
)


@pytest.mark.skipif(
    shutil.which("dpkg-parsechangelog") is None or not CHANGELOGS,
    reason="needs dpkg-parsechangelog (dpkg-dev) and Debian changelogs in /usr/share/doc",
)
def test_versions_as_dpkg_parsechangelog_reads_them(tmp_path: Path) -> None:
    """Every 8th changelog of this machine (all 901 agreed when the module was written:
    32,855 versions): the same versions in the same order as `dpkg-parsechangelog --all`."""
    sample = CHANGELOGS[::8]
    differ = []
    for path in sample:
        text = gzip.decompress(Path(path).read_bytes()).decode("utf-8", "replace")
        plain = tmp_path / "changelog"
        plain.write_text(text, encoding="utf-8")
        out = subprocess.run(
            ["dpkg-parsechangelog", "-l", str(plain), "--all", "--format", "rfc822"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        want = [
            line[len("Version: ") :] for line in out.splitlines() if line.startswith("Version: ")
        ]
        got = [e.name for e in parse_text(text, path[:-3]).entities if e.entity_type == "Term"]
        if got != want:
            differ.append((path, want[:3], got[:3]))
    assert not differ, differ
