"""RDoc markup (`ingest/rdoc.py`): headings, verbatim blocks and labelled lists, by lines.
Found on Debian's ruby-rack: its `README.rdoc` was plain text, no section to ask for."""

from __future__ import annotations

import glob
import gzip
import shutil
import subprocess
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.ingest.formats import format_for_path
from docql_sqlite.ingest.rdoc import clean_title, parse_rdoc

README = """\
= \\Rack, a modular Ruby webserver interface

{<img src="https://rack.github.io/logo.png" />}[https://rack.github.io/]

\\Rack provides a minimal, modular interface for web applications.

== Supported web servers

* WEBrick[https://github.com/ruby/webrick]
* FCGI

  A paragraph of the item, at its text's margin.

    verbatim inside the item

== Quick start

Try the lobster!

  ruby -Ilib lib/rack/lobster.rb
  # == not a heading: inside the verbatim block

  ruby -Ilib more.rb

Text again.
 == not a heading either (not at the margin)

=== +key_space_limit+ and <tt>param_depth_limit</tt>

[key_space_limit] The size of the keys of a query.
depth::
  How deep parameters nest.

======= Seven marks
"""


def test_headings_verbatim_and_labelled_lists() -> None:
    doc = parse_rdoc(README, "README.rdoc")
    assert doc.format == "rdoc"
    assert doc.text == README  # line for line
    assert doc.title == "Rack, a modular Ruby webserver interface"
    assert [(h.level, h.title, h.line) for h in doc.headings] == [
        (1, "Rack, a modular Ruby webserver interface", 1),
        (2, "Supported web servers", 7),
        (2, "Quick start", 16),
        (3, "key_space_limit and param_depth_limit", 28),
        (6, "Seven marks", 34),
    ]
    assert [(c.line, c.end_line, c.code) for c in doc.codeblocks] == [
        (14, 14, "verbatim inside the item"),
        (
            20,
            23,
            "ruby -Ilib lib/rack/lobster.rb\n# == not a heading: inside the verbatim block\n"
            "\nruby -Ilib more.rb",
        ),
    ]
    terms = {e.name: e.definition for e in doc.entities if e.entity_type == "Term"}
    assert terms["key_space_limit"] == "The size of the keys of a query."
    assert terms["depth"] == "How deep parameters nest."


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\\Rack, a modular interface", "Rack, a modular interface"),
        ("{Phusion Passenger}[https://www.phusionpassenger.com/]", "Phusion Passenger"),
        ("Puma[https://puma.io/] support", "Puma support"),
        ("+rack+ and *bold* and _em_", "rack and bold and em"),
        ("<tt>Rack::Utils</tt>", "Rack::Utils"),
        ("`RACK_QUERY_PARSER_PARAMS_LIMIT`", "`RACK_QUERY_PARSER_PARAMS_LIMIT`"),  # not RDoc's
        ("snake_case_name", "snake_case_name"),
    ],
)
def test_titles_as_rdoc_shows_them(raw: str, shown: str) -> None:
    assert clean_title(raw) == shown


@pytest.mark.parametrize(
    "title",
    [
        "a" * 200_000,  # a word tried at each of its characters as a link's word: minutes
        "a" + " " * 200_000 + "b",  # blanks before a lazy title's end
        "x[http:" * 30_000,  # a link's word and target never closed
        "{a}[x" * 40_000,  # a braced link's target never closed
    ],
)
def test_a_hostile_heading_costs_no_backtracking(title: str) -> None:
    """Each was quadratic at first: a 200,000-character heading took three minutes."""
    (heading,) = parse_rdoc(f"= {title}  \n", "x.rdoc").headings
    assert heading.title == title.strip()


def test_markdown_markup_is_read_as_markdown() -> None:
    doc = parse_rdoc(":markup: markdown\n\n# Title\n\n## Part\n\ntext\n", "x.rdoc")
    assert doc.format == "markdown"
    assert [h.title for h in doc.headings] == ["Title", "Part"]


def test_a_tab_inside_a_verbatim_line_ends_nothing() -> None:
    """minitest's README: a verbatim line of tab-separated figures was read as indented
    less than its block, and every heading after it was lost into verbatim."""
    text = "= A\n\nfigures:\n\n  Blah\t100\t1000\n  more\t1\t2\n\n=== B\n\ntext\n"
    doc = parse_rdoc(text, "x.rdoc")
    assert [h.title for h in doc.headings] == ["A", "B"]
    assert [c.code for c in doc.codeblocks] == ["Blah\t100\t1000\nmore\t1\t2"]


def test_indexed_by_name_and_compressed(tmp_path: Path) -> None:
    assert format_for_path("doc/README.rdoc", False) == "rdoc"
    assert format_for_path("/usr/share/doc/ruby-rack/README.rdoc.gz", True) == "rdoc"
    (tmp_path / "README.rdoc.gz").write_bytes(gzip.compress(README.encode()))
    db = tmp_path / "r.db"
    report = docql_sqlite.index(db, [str(tmp_path)], decompress=True)
    assert len(report.added) == 1 and not report.failed
    with docql_sqlite.open(db) as index:
        (heading,) = index.query('$.content.heading("Quick start")')
        assert heading["line"] == 16
        hit = index.search("how do I try the lobster", limit=1)[0]
        assert hit["section"] == "Quick start"


_RUBY_HEADINGS = """
require 'rdoc'
text = ARGV[0].end_with?('.gz') ? Zlib::GzipReader.open(ARGV[0], &:read) : File.read(ARGV[0])
RDoc::Markup::Parser.parse(text).parts.each do |part|
  puts "#{part.level}\\t#{part.text}" if part.is_a?(RDoc::Markup::Heading)
end
"""


@pytest.mark.skipif(shutil.which("ruby") is None, reason="no ruby here (CI has asciidoctor's)")
def test_headings_as_rdoc_reads_them() -> None:
    """Oracle: RDoc's own parser (`RDoc::Markup::Parser`) on the .rdoc files Ruby ships
    (rake's, minitest's, rexml's: 26 when this was built; 57 of 57 with Debian's rack,
    hoe and sequel docs)."""
    files = sorted(glob.glob("/usr/lib/ruby/gems/*/gems/*/**/*.rdoc", recursive=True))
    if not files:
        pytest.skip("no .rdoc files here")
    for path in files:
        done = subprocess.run(
            ["ruby", "-rzlib", "-e", _RUBY_HEADINGS, path],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0:
            pytest.skip(f"rdoc failed: {done.stderr[-300:]}")
        theirs = [
            (int(level), clean_title(title))
            for level, title in (line.split("\t", 1) for line in done.stdout.splitlines())
        ]
        ours = [(h.level, h.title) for h in parse_rdoc(Path(path).read_text(), path).headings]
        assert ours == theirs, path


def test_an_index_that_read_rdoc_as_text_reads_it_as_rdoc_once(tmp_path: Path) -> None:
    """An index built while `.rdoc` named no format of its own (before RDoc was read: a
    README by its name was text) parses those documents again on its next run, once,
    and then holds what a fresh index holds; so does one whose formats a plugin changes."""
    from docql_sqlite import plugins
    from docql_sqlite.ingest.formats import register

    docs = tmp_path / "doc"
    docs.mkdir()
    (docs / "README.rdoc").write_text(README)
    (docs / "guide.md").write_text("# Guide\n\ntext\n")
    as_text = register("text", "docql_sqlite.ingest.plaintext", ("rdoc",))  # the old table
    db = tmp_path / "old.db"
    try:
        docql_sqlite.index(db, [str(docs)], workers=0)
        with docql_sqlite.open(db) as index:
            assert {d["format"] for d in index.documents()} == {"text", "markdown"}
    finally:
        plugins.pm.unregister(as_text)
    again = docql_sqlite.index(db, [str(docs)], workers=0)
    assert [Path(p).name for p in again.updated] == ["README.rdoc"] and again.unchanged == 1
    fresh = tmp_path / "fresh.db"
    docql_sqlite.index(fresh, [str(docs)], workers=0)
    query = "$.toc"
    with docql_sqlite.open(db) as upgraded, docql_sqlite.open(fresh) as new:
        assert {d["format"] for d in upgraded.documents()} == {"rdoc", "markdown"}
        assert upgraded.query(query) == new.query(query)
        assert len(upgraded.query(query)) == 6
    third = docql_sqlite.index(db, [str(docs)], workers=0)
    assert not third.updated and third.unchanged == 2
