"""GNU Info files (`ingest/info.py`): nodes' titles as sections under their node names,
the reader's navigation blanked, menus and indexes as pointers, options as terms. Found
on /usr/share/info: sed's, grep's, coreutils' manuals failed as "binary file (contains
NUL bytes)" (an index node's `\\0\\b[index\\0\\b]` cookie), and the rest were text whose
every node began "File: …, Node: …, Next: …"."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.ingest.formats import format_for_path, sniff_format
from docql_sqlite.ingest.info import parse, parse_info
from docql_sqlite.model import Source
from docql_sqlite.passage_text import no_passage

INFO = (
    "This is wombat.info, produced by makeinfo version 6.8 from wombat.texi.\n"
    "\n"
    "\x1f\n"
    "File: wombat.info,  Node: Top,  Next: Invoking wombat,  Up: (dir)\n"
    "\n"
    "GNU wombat\n"
    "**********\n"
    "\n"
    "* Menu:\n"
    "\n"
    "* Invoking wombat::       How to run it.\n"
    "* Index::                 Every topic.\n"
    "\n"
    "\x1f\n"
    "File: wombat.info,  Node: Invoking wombat,  Next: Index,  Prev: Top,  Up: Top\n"
    "\n"
    "1 Running wombat\n"
    "****************\n"
    "\n"
    "1.1 Options\n"
    "===========\n"
    "\n"
    "‘-d’\n"
    "‘--depth=N’\n"
    "     Dig N metres deep into the burrow.\n"
    "\n"
    "   For example:\n"
    "\n"
    "          wombat --depth=3 /tmp/burrow\n"
    "          \n"
    "\n"
    "     \n"
    "Text after a line of spaces.\n"
    "\n"
    "\x1f\n"
    "File: wombat.info,  Node: Index,  Prev: Invoking wombat,  Up: Top\n"
    "\n"
    "Index\n"
    "*****\n"
    "\n"
    "\x00\x08[index\x00\x08]\n"
    "* Menu:\n"
    "\n"
    "* burrow:                               Invoking wombat.     (line   9)\n"
    "* depth:                                Invoking wombat.     (line   7)\n"
    "* metres:                               Invoking wombat.     (line   9)\n"
    "\n"
    "\x1f\n"
    "Tag Table:\n"
    "Node: Top\x7f77\n"
    "Node: Invoking wombat\x7f333\n"
    "\x1f\n"
    "End Tag Table\n"
)


def _source(data: bytes, path: str = "wombat.info") -> Source:
    return Source(path=path, uri="/" + path, data=data, sha256="")


def test_nodes_titles_options_examples() -> None:
    doc = parse(_source(INFO.encode()))  # the index cookie's NUL bytes taken out first
    assert doc.format == "info" and doc.title == "GNU wombat"
    lines = doc.text.split("\n")
    assert len(lines) == len(INFO.split("\n"))  # every line where the file has it
    assert "\x1f" not in doc.text and "\x00" not in doc.text
    assert "Node:" not in doc.text and "Tag Table" not in doc.text  # the reader's only
    assert [(h.level, h.title, h.anchor, lines[h.line - 1]) for h in doc.headings] == [
        (1, "GNU wombat", "Top", "GNU wombat"),
        (1, "1 Running wombat", "Invoking wombat", "1 Running wombat"),
        (2, "1.1 Options", None, "1.1 Options"),
        (1, "Index", "Index", "Index"),
    ]
    terms = {e.name: e.definition for e in doc.entities if e.name.startswith("-")}
    assert terms == {"-d": "Dig N metres deep into the burrow.", "--depth": terms["-d"]}
    assert [c.code.strip() for c in doc.codeblocks] == ["wombat --depth=3 /tmp/burrow"]


def test_menus_and_indexes_are_pointers() -> None:
    doc = parse_info(INFO.replace("\x00\x08[index\x00\x08]", ""), "wombat.info")
    lines = doc.text.split("\n")
    breaks = sorted(doc.chunk_breaks)
    menus = ["\n".join(lines[a - 1 : b - 1]) for a, b in zip(breaks[::2], breaks[1::2])]
    assert menus and all(m.startswith("* Menu:") and no_passage(m) for m in menus)
    # a bullet list is no menu, nor C++'s `v8::Isolate` in one
    assert not no_passage("* Note: one.\n* Note: two.\n* Note: three.\n")
    assert not no_passage("* `v8::Isolate` a.\n* `v8::Local` b.\n* `v8::Value` c.\n")
    assert not no_passage("* Note: (see below) a.\n* Hint: (x) b.\n* Tip: (y) c.\n")
    # a piece of an index whose long entries wrap (coreutils'), cut mid-entry
    wrapped = (
        "                                            (line  57)\n"
        "* --human-numeric-sort:     sort invocation.     (line 132)\n"
        "* --human-readable <1>:     What information is listed.\n"
        "                                            (line 118)\n"
        "* --human-readable <2>:     df invocation.       (line  59)\n"
        "* --hyperlink:              General output formatting.\n"
        "                                            (line  40)\n"
    )
    assert no_passage(wrapped)
    assert not no_passage("Read (line 3) first.\n* Note: one.\n* Tip: two.\n* Hint: three.\n")


DIR_ENTRIES = (
    "This is wombat.info, produced by makeinfo version 6.8 from wombat.texi.\n"
    "\n"
    "   Copyright 2022 Wombat Inc.\n"
    "INFO-DIR-SECTION Burrowing\n"
    "START-INFO-DIR-ENTRY\n"
    "* wombat: (wombat).             Dig burrows.\n"
    "* dig: (wombat)dig invocation.  Dig one hole.\n"
    "* fill: (wombat)fill invocation.  Fill one hole.\n"
    "END-INFO-DIR-ENTRY\n"
    "\n"
)


def test_dir_entries_are_a_menu_and_install_info_lines_blank() -> None:
    """coreutils' `dir` entries (one per program) ranked 2nd for "how do I split a file
    into pieces": `* split: (coreutils)split invocation.  Split into pieces.`"""
    doc = parse_info(DIR_ENTRIES + INFO, "wombat.info")
    lines = doc.text.split("\n")
    assert not any(line.startswith(("INFO-DIR", "START-INFO", "END-INFO")) for line in lines)
    assert lines[5] == "* wombat: (wombat).             Dig burrows."  # line for line
    breaks = sorted(doc.chunk_breaks)
    assert 6 in breaks  # the entries open a chunk of their own ...
    end = next(b for b in breaks if b > 6)
    entries = "\n".join(lines[5 : end - 1])
    assert entries.strip().endswith("Fill one hole.") and no_passage(entries)  # ... a pointer
    assert [h.title for h in doc.headings] == [
        "GNU wombat",
        "1 Running wombat",
        "1.1 Options",
        "Index",
    ]


@pytest.mark.parametrize(
    ("path", "decompress", "format"),
    [
        ("/usr/share/info/sed.info.gz", True, "info"),
        ("/usr/share/info/find.info-2.gz", True, "info"),  # a split file's part
        ("doc/wombat.info", False, "info"),
    ],
)
def test_which_names_are_info(path: str, decompress: bool, format: str) -> None:
    assert format_for_path(path, decompress) == format


def test_sniffed_and_indexed_compressed(tmp_path: Path) -> None:
    assert sniff_format(INFO.encode()) == "info"
    (tmp_path / "wombat.info.gz").write_bytes(gzip.compress(INFO.encode()))
    db = tmp_path / "i.db"
    report = docql_sqlite.index(db, [str(tmp_path)], decompress=True)
    assert len(report.added) == 1 and not report.failed
    with docql_sqlite.open(db) as index:
        hit = index.search("how deep does it dig", limit=1)[0]
        assert hit["section"] == "1.1 Options"
        (chapter,) = index.query('$.content.chapter("#Invoking wombat")')
        assert chapter["title"] == "1 Running wombat"


@pytest.mark.skipif(not Path("/usr/share/info").is_dir(), reason="no /usr/share/info here")
def test_every_titled_node_is_a_section_under_its_name() -> None:
    """Oracle: the file's own node headers. A node whose first line is an underlined
    title is a section anchored at the node's name (1,366 of the 1,368 nodes of this
    machine's 24 manuals when this was built; the two left have no title)."""
    checked = 0
    for path in sorted(Path("/usr/share/info").glob("*.info*.gz"))[:12]:
        text = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        titled = re.findall(
            r"\x1f\nFile: [^,]*,\s+Node: ([^,\t\n]+)[^\n]*\n\n([^\n]+)\n([*=.-])\3*\n", text
        )
        doc = parse_info(text.replace("\x00\x08[index\x00\x08]", ""), str(path))
        anchors = {h.anchor: h.title for h in doc.headings}
        assert {node.strip(): title.strip() for node, title, _ in titled}.items() <= anchors.items()
        checked += len(titled)
    assert checked > 100
