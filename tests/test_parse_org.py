"""Org mode (`ingest/org.py`): headlines, blocks, tables, descriptive lists and settings,
and the files whose first line names the mode (GnuPG's `DETAILS.gz`, read by a
Markdown sniff before: its `#` comment lines were its headings)."""

from __future__ import annotations

import gzip
from pathlib import Path

import apsw
import pytest

import docql_sqlite
from docql_sqlite.ingest.formats import sniff_format
from docql_sqlite.ingest.org import parse_org

NOTES = """\
#+TITLE: Wombat notes
#+AUTHOR: Ada
# a comment, no heading

Intro text.

* TODO [#A] Dig the burrow                                     :work:urgent:
:PROPERTIES:
:CUSTOM_ID: dig
:END:
Digging notes.
#+BEGIN_SRC python :results output
,* not a headline: an escaped star
print("dig")
#+END_SRC
** Tools
- spade :: a tool for soil
- lamp :: light underground
#+begin_example
* not a headline either
#+end_example
* Results
| Depth | Soil  |
|-------+-------|
| 1 m   | loam  |
| 2 m   | clay  |

* Unclosed
#+BEGIN_SRC sh
echo never closed
*** Still a headline
"""


def test_headlines_blocks_tables_terms_and_settings() -> None:
    doc = parse_org(NOTES, "notes.org")
    assert doc.format == "org" and doc.title == "Wombat notes"
    assert doc.frontmatter == {"title": "Wombat notes", "author": "Ada"}
    assert [(h.level, h.title, h.line, h.anchor) for h in doc.headings] == [
        (1, "TODO [#A] Dig the burrow", 7, "dig"),  # tags are no part of the title
        (2, "Tools", 16, None),
        (1, "Results", 22, None),
        (1, "Unclosed", 28, None),
        (3, "Still a headline", 31, None),  # a block never closed is no block
    ]
    assert [(c.language, c.code, c.line, c.end_line) for c in doc.codeblocks] == [
        ("python", '* not a headline: an escaped star\nprint("dig")', 12, 15),
        (None, "* not a headline either", 19, 21),
    ]
    (table,) = doc.tables
    assert (table.headers, table.rows, table.line, table.end_line) == (
        ["Depth", "Soil"],
        [["1 m", "loam"], ["2 m", "clay"]],
        23,
        26,
    )
    terms = {e.name: e.definition for e in doc.entities if e.entity_type == "Term"}
    assert terms == {"spade": "a tool for soil", "lamp": "light underground"}


@pytest.mark.parametrize(
    ("head", "format"),
    [
        (b"# doc/DETAILS                       -*- org -*-\n#+TITLE: x\n", "org"),
        (b"-*- mode: org; coding: utf-8 -*-\n* Top\n", "org"),
        (b"# A Markdown title\n\nText.\n", "markdown"),
        (b"# notes -*- mode: text -*-\n# organise later\n", "markdown"),  # not Org's mode
    ],
)
def test_a_mode_line_names_org(head: bytes, format: str) -> None:
    assert sniff_format(head) == format


def test_indexed_from_org_files_and_a_compressed_mode_line_file(tmp_path: Path) -> None:
    docs = tmp_path / "doc"
    docs.mkdir()
    (docs / "notes.org").write_text(NOTES)
    details = (
        "# doc/DETAILS   -*- org -*-\n#+TITLE: Details\n\n* Colon listings\nThe quokka field.\n"
    )
    (docs / "DETAILS.gz").write_bytes(gzip.compress(details.encode()))
    (docs / "USAGE.org.gz").write_bytes(gzip.compress(b"* Install\nRun the numbat.\n"))
    db = tmp_path / "o.db"
    report = docql_sqlite.index(db, [str(docs)], decompress=True)
    assert len(report.added) == 3 and not report.failed
    with docql_sqlite.open(db) as index:
        formats = {Path(d["path"]).name: d["format"] for d in index.documents()}
        assert formats == {"notes.org": "org", "DETAILS.gz": "org", "USAGE.org.gz": "org"}
        hit = index.search("quokka", limit=1)[0]
        assert Path(hit["path"]).name == "DETAILS.gz" and hit["section"] == "Colon listings"
        (chapter,) = index.query('$.content.chapter("#dig")')  # the `:CUSTOM_ID:`
        assert chapter["title"] == "TODO [#A] Dig the burrow"


def test_an_index_sniffed_before_reads_such_files_as_org_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index built while a mode line was not read (the Markdown sniff took DETAILS's
    `#` comments for headings) parses the sniffed documents again on its next run, once,
    and then holds what a fresh index holds."""
    from docql_sqlite.ingest import formats, run

    docs = tmp_path / "doc"
    docs.mkdir()
    details = "# doc/DETAILS   -*- org -*-\n# a comment\n\n* Colon listings\nThe quokka.\n"
    (docs / "DETAILS").write_text(details)  # no extension: sniffed (named on no list)
    (docs / "guide.md").write_text("# Guide\n\ntext\n")
    old_sniff = formats.sniff_format
    monkeypatch.setattr(formats, "sniff_format", lambda data: "markdown")
    monkeypatch.setattr("docql_sqlite.ingest.parse.sniff_format", lambda data: "markdown")
    db = tmp_path / "o.db"
    docql_sqlite.index(db, [str(docs / "DETAILS"), str(docs / "guide.md")], workers=0)
    with docql_sqlite.open(db) as index:
        assert {d["format"] for d in index.documents()} == {"markdown"}
    connection = apsw.Connection(str(db))  # an index built before the rule had no mark
    connection.execute("DELETE FROM meta WHERE key = ?", (run.SNIFFED_KEY,))
    connection.close()
    monkeypatch.setattr(formats, "sniff_format", old_sniff)
    monkeypatch.setattr("docql_sqlite.ingest.parse.sniff_format", old_sniff)
    again = docql_sqlite.index(db, [str(docs / "DETAILS"), str(docs / "guide.md")], workers=0)
    assert [Path(p).name for p in again.updated] == ["DETAILS"] and again.unchanged == 1
    with docql_sqlite.open(db) as index:
        formats_now = {Path(d["path"]).name: d["format"] for d in index.documents()}
        assert formats_now == {"DETAILS": "org", "guide.md": "markdown"}
        assert sorted(h["title"] for h in index.query("$.toc")) == ["Colon listings", "Guide"]
    third = docql_sqlite.index(db, [str(docs / "DETAILS"), str(docs / "guide.md")], workers=0)
    assert not third.updated and third.unchanged == 2
