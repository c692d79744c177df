"""AsciiDoc (`ingest/asciidoc.py`): sections with Asciidoctor's ids, blocks, tables,
definition lists, and the `.txt` files that are AsciiDoc (git's manual pages). Where
Asciidoctor is installed, its own HTML is the oracle for every section's level, title
and id (292 git pages and Asciidoctor's syntax reference agreed on 276 of 278 when this
was built: the two left are an appendix's "Appendix A:" prefix and a section inside an
`ifdef::` Asciidoctor drops)."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.ingest.asciidoc import looks_like_asciidoc, parse_asciidoc

GUIDE = """\
= The Wombat Guide
Ada Writer <ada@example.org>
:toc: left
:url-home: https://example.org

A preamble about wombats.

== Getting Started

[source,python]
----
== not a section: a listing's line
print("burrow")
----

[[install-it]]
=== Install -- the quick way

```sh
pip install wombat
```

[#config.big]
=== Configuration for <tool>

.Settings
[cols="1,2"]
|===
| Name | Meaning

| depth
| how deep a burrow goes

| width a| a cell \\| with a pipe
|===

====
An example block.

== not a section either: inside an example
====

--root::
	Walk from the root burrow.
burrow;;
	A wombat's home.

== Getting Started

Again, so the id takes a number.

## Markdown-style {caret} title

== GitHub CI[[GHCI]]

== Mailing list https://lists.example.org/wombat[wombat-users]

--
Signature-like line below: a `--` that nothing closes is text.
"""

LEGACY = """\
git-wombat(1)
=============

NAME
----
git-wombat - Dig a burrow

OPTIONS
-------
--depth=<n>::
	How deep to dig.
+
--
--soft::
	Loose soil.
--

EXAMPLES
--------
Dig deep
~~~~~~~~
Run `git wombat --depth=9`.

ifndef::git-wombat[]
 object-format
~~~~~~~~~~~~~~~
endif::git-wombat[]
"""


def _headings(text: str) -> list[tuple[int, str, str | None, int]]:
    doc = parse_asciidoc(text, "guide.adoc")
    return [(h.level, h.title, h.anchor, h.line) for h in doc.headings]


def test_sections_levels_titles_ids_and_lines() -> None:
    assert _headings(GUIDE) == [
        (1, "The Wombat Guide", "_the_wombat_guide", 1),
        (2, "Getting Started", "_getting_started", 8),
        (3, "Install -- the quick way", "install-it", 17),  # the `[[id]]` above it
        (3, "Configuration for <tool>", "config", 24),  # `[#config.big]`: id, then role
        (2, "Getting Started", "_getting_started_2", 48),
        (2, "Markdown-style ^ title", "_markdown_style_title", 52),
        (2, "GitHub CI", "_github_ci", 54),  # an anchor inside the title: text and id kept
        (2, "Mailing list wombat-users", "_mailing_list_wombat_users", 56),
    ]


def test_two_line_titles_as_git_writes_them() -> None:
    assert _headings(LEGACY) == [
        (1, "git-wombat(1)", "_git_wombat1", 1),
        (2, "NAME", "_name", 4),
        (2, "OPTIONS", "_options", 8),
        # an open block closed by the line after a definition item (git-reset's `--`)
        (2, "EXAMPLES", "_examples", 18),
        (3, "Dig deep", "_dig_deep", 20),  # right under a title's underline
        (3, "object-format", "_object_format", 25),  # after a directive; leading space
    ]


def test_code_blocks_tables_terms_title_and_header_attributes() -> None:
    doc = parse_asciidoc(GUIDE, "guide.adoc")
    assert doc.format == "asciidoc" and doc.title == "The Wombat Guide"
    assert doc.frontmatter == {"toc": "left", "url-home": "https://example.org"}
    assert [(c.language, c.code, c.line, c.end_line) for c in doc.codeblocks] == [
        ("python", '== not a section: a listing\'s line\nprint("burrow")', 11, 14),
        ("sh", "pip install wombat", 19, 21),
    ]
    (table,) = doc.tables
    assert (table.headers, table.line, table.end_line) == (["Name", "Meaning"], 28, 35)
    # `a|` styles the next cell: the spec is no text; `\\|` is a pipe in the text
    assert table.rows == [["depth", "how deep a burrow goes"], ["width", "a cell | with a pipe"]]
    terms = {e.name: (e.definition, e.line) for e in doc.entities if e.entity_type == "Term"}
    assert terms["--root"] == ("Walk from the root burrow.", 43)
    assert terms["burrow"] == ("A wombat's home.", 45)


@pytest.mark.parametrize(
    ("text", "asciidoc"),
    [
        (LEGACY, True),  # a title over `=`, `term::` items
        ("= Notes\n\nSee link:https://x.org[the site].\n", True),
        ("Plain notes\n===========\n\nBackground\n----------\n\nWords.\n", True),
        # an include of git's: no title, directives and definition items
        ("ifndef::git-log[]\n-p::\n\tPatch.\n-u::\n\tSame.\n--raw::\n\tRaw.\nendif::x[]\n", True),
        ("Plain notes\n===========\n\nJust one paragraph of text.\n", False),
        ("Meeting notes\n\nWe met at 10:00 and talked::\n", False),  # no title
        ("# A Markdown title\n\nText.\n", False),
    ],
)
def test_which_txt_files_are_asciidoc(text: str, asciidoc: bool) -> None:
    assert looks_like_asciidoc(text) is asciidoc


def test_indexed_as_asciidoc_from_adoc_and_txt(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.adoc").write_text(GUIDE)
    (docs / "git-wombat.txt").write_text(LEGACY)
    (docs / "notes.txt").write_text("Just words about a numbat.\n")
    db = tmp_path / "a.db"
    report = docql_sqlite.index(db, [str(docs)])
    assert len(report.added) == 3 and not report.failed
    with docql_sqlite.open(db) as index:
        formats = {Path(r["path"]).name: r["format"] for r in index.documents()}
        assert formats == {
            "guide.adoc": "asciidoc",
            "git-wombat.txt": "asciidoc",
            "notes.txt": "text",
        }
        hit = index.search("loose soil", limit=1)[0]
        assert Path(hit["path"]).name == "git-wombat.txt" and hit["section"] == "OPTIONS"
        chapter = index.query('$.content.chapter("#install-it")')
        assert [row["title"] for row in chapter] == ["Install -- the quick way"]


def _asciidoctor_sections(path: Path) -> list[tuple[int, str | None, str]]:
    """(level, id, title) of every section in Asciidoctor's HTML of `path`."""
    out = subprocess.run(
        ["asciidoctor", "-S", "secure", "-a", "compat-mode", "-o", "-", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    header, _, body = out.partition('<div id="content">')
    found: list[tuple[int, str | None, str]] = []
    if title := re.search(r"<h1>(.*?)</h1>", header, re.S):
        found.append((1, None, title[1]))
    found += [
        (int(level), ident, title)
        for level, ident, title in re.findall(r'<h([2-6]) id="([^"]*)">(.*?)</h\1>', body, re.S)
    ]
    return [(lv, i, html.unescape(re.sub(r"<[^>]+>", "", t)).strip()) for lv, i, t in found]


@pytest.mark.skipif(shutil.which("asciidoctor") is None, reason="asciidoctor is not installed")
@pytest.mark.parametrize("name", ["guide", "legacy"])
def test_sections_as_asciidoctor_reads_them(tmp_path: Path, name: str) -> None:
    text = {"guide": GUIDE, "legacy": LEGACY.replace("ifndef::git-wombat[]\n", "")}[name]
    text = text.replace("endif::git-wombat[]\n", "")
    path = tmp_path / f"{name}.adoc"
    path.write_text(text)
    theirs = _asciidoctor_sections(path)
    ours = [(h.level, h.anchor, h.title) for h in parse_asciidoc(text, str(path)).headings]
    words = lambda t: re.sub(r"\W+", " ", t).strip().lower()  # noqa: E731 (markup aside)
    assert [(lv, words(t)) for lv, _, t in theirs] == [(lv, words(t)) for lv, _, t in ours]
    assert [i for _, i, _ in theirs if i] == [a for lv, a, _ in ours if lv > 1]
