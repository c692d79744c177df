"""Manual pages (`ingest/man.py`): the page as `man` shows it — sections, options as
terms, examples as code — from the `man` and `mdoc` macros. Where groff is installed, its
own rendering is the oracle for every section title and the page's words (on 1,199
pages of this machine's /usr/share/man when this was built: sections the same on 1,193,
words .997 found, .995 of ours in groff's; the rest are groff's own readings of broken
pages, such as kill(1)'s `.TP` right before `.SH NOTES`)."""

from __future__ import annotations

import collections
import gzip
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.ingest.formats import format_for_path, sniff_format
from docql_sqlite.ingest.man import parse_man

PAGE = r""".\" a comment
.ds Nm wombat
.de XX
.B never shown
..
.TH WOMBAT 1 "May 2026" "wombat 2.0" "User Commands"
.SH NAME
wombat \- dig burrows from the command line
.SH SYNOPSIS
.B wombat
[\fIOPTION\fR]... \fIPATH\fR
.SH DESCRIPTION
The \*(Nm tool digs \(em quickly.
.SS Options
.TP
\fB\-d\fR, \fB\-\-depth\fR=\fIN\fR
dig
.I N
metres deep
.TP
.BR \-q ", " \-\-quiet
say nothing
.ie n .IP "soil type" 4
.el .IP "never read" 4
the kind of soil
.SH EXAMPLES
.nf
wombat \-\-depth=3 /tmp/burrow
wombat \-q .
.SH "SEE ALSO"
.BR mole (1)
"""

MDOC = r""".Dd May 1, 2026
.Dt NUMBAT 8
.Os
.Sh NAME
.Nm numbat
.Nd count termites
.Sh SYNOPSIS
.Nm
.Op Fl v
.Ar file
.Sh DESCRIPTION
.Bl -tag -width Ds
.It Fl v
Print each termite.
.El
See
.Xr wombat 1 .
"""


def test_sections_text_terms_and_examples() -> None:
    doc = parse_man(PAGE, "man1/wombat.1")
    assert doc.format == "man" and doc.title == "wombat(1)"
    assert doc.frontmatter == {
        "name": "WOMBAT",
        "section": "1",
        "date": "May 2026",
        "source": "wombat 2.0",
        "manual": "User Commands",
    }
    lines = doc.text.splitlines()
    assert [(h.level, h.title, lines[h.line - 1]) for h in doc.headings] == [
        (1, "NAME", "NAME"),
        (1, "SYNOPSIS", "SYNOPSIS"),
        (1, "DESCRIPTION", "DESCRIPTION"),
        (2, "Options", "Options"),
        (1, "EXAMPLES", "EXAMPLES"),  # an `.nf` never closed ends at the next section
        (1, "SEE ALSO", "SEE ALSO"),
    ]
    assert "wombat - dig burrows from the command line" in lines
    assert "The wombat tool digs — quickly." in lines  # a string the page defined, \(em
    assert "-d, --depth=N" in lines and "-q, --quiet" in lines and "mole(1)" in lines
    assert "never shown" not in doc.text and "never read" not in doc.text  # .de, .el
    terms = {e.name: e.definition for e in doc.entities}
    assert terms == {
        "-d": "dig N metres deep",
        "--depth": "dig N metres deep",
        "-q": "say nothing",
        "--quiet": "say nothing",
        "soil type": "the kind of soil",
    }
    (example,) = doc.codeblocks
    assert example.code == "wombat --depth=3 /tmp/burrow\nwombat -q ."
    assert lines[example.line - 1] == "wombat --depth=3 /tmp/burrow"


def test_an_mdoc_page() -> None:
    doc = parse_man(MDOC, "man8/numbat.8")
    assert doc.title == "NUMBAT(8)"
    assert [h.title for h in doc.headings] == ["NAME", "SYNOPSIS", "DESCRIPTION"]
    lines = doc.text.splitlines()
    assert "numbat" in lines and "— count termites" in lines and "[-v]" in lines
    assert "wombat(1) ." in lines
    assert {e.name: e.definition for e in doc.entities} == {"-v": "Print each termite."}


@pytest.mark.parametrize(
    ("path", "decompress", "format"),
    [
        ("/usr/share/man/man1/ls.1.gz", True, "man"),
        ("/usr/share/man/fr/man3/printf.3", False, "man"),
        ("/usr/share/man/man3/SSL_new.3ssl.gz", True, "man"),
        ("doc/man/tool.8", False, "man"),
        ("pages/tool.man", False, "man"),
        ("/var/log/syslog.1", False, None),  # a rotated log, not under a `man*` folder
        ("notes/chapter.2", False, None),
    ],
)
def test_which_names_are_manual_pages(path: str, decompress: bool, format: str | None) -> None:
    assert format_for_path(path, decompress) == format


def test_a_page_is_sniffed_after_its_requests() -> None:
    assert sniff_format(b'.\\" c\n.ds xT X Toolkit\n.TH XtName 3\n.SH NAME\n') == "man"
    assert sniff_format(b".Dd May 1, 2026\n.Dt NUMBAT 8\n") == "man"
    assert sniff_format(b".hidden notes\nplain text\n") == "text"


def test_indexed_from_a_compressed_man_tree(tmp_path: Path) -> None:
    man1 = tmp_path / "man" / "man1"
    man1.mkdir(parents=True)
    (man1 / "wombat.1.gz").write_bytes(gzip.compress(PAGE.encode()))
    (man1 / "dig.1.gz").write_bytes(gzip.compress(b".so man1/wombat.1\n"))  # an alias
    db = tmp_path / "m.db"
    report = docql_sqlite.index(db, [str(tmp_path / "man")], decompress=True)
    assert len(report.added) == 2 and not report.failed
    with docql_sqlite.open(db) as index:
        hit = index.search("how deep does it dig", limit=1)[0]
        assert hit["path"].endswith("wombat.1.gz") and hit["section"] == "Options"
        (entity,) = index.query('$.entities[?(@.name=="--quiet")]')
        assert entity["definition"] == "say nothing"
        assert [r["title"] for r in index.query("$.toc")][:2] == ["NAME", "SYNOPSIS"]


def _groff(page: bytes) -> list[str]:
    out = subprocess.run(
        ["groff", "-man", "-mandoc", "-Tutf8", "-P-cbou", "-rLL=400n", "-rHY=0", "-rcR=1"],
        input=page,
        capture_output=True,
        timeout=60,
        check=True,
    ).stdout.decode()
    return out.splitlines()


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
@pytest.mark.parametrize("page", [PAGE, MDOC], ids=["man", "mdoc"])
def test_sections_and_words_as_groff_renders_them(page: str) -> None:
    rendered = _groff(page.encode())
    column0 = [line.strip() for line in rendered if line[:1].strip()]
    frame = {column0[0], column0[-1]}  # the page's header and footer
    doc = parse_man(page, "x.1")
    words = re.compile(r"[A-Za-z0-9_]{2,}")
    theirs = collections.Counter(
        words.findall("\n".join(l for l in rendered if l.strip() not in frame))
    )
    ours = collections.Counter(words.findall(doc.text))
    assert [t for t in column0 if t not in frame] == [h.title for h in doc.headings if h.level == 1]
    assert ours == theirs


def test_a_command_and_its_option_find_that_pages_option(tmp_path: Path) -> None:
    """ "ssh -L": of the pages that each have a `-L`, ssh(1)'s, the page the other word
    names (in path order `[.1`, the test command's, came first and ssh's was 12th among
    /usr/share/man's 18,616 pages)."""
    man1 = tmp_path / "man1"
    man1.mkdir()
    for name, text in {
        "[": "FILE exists and is a symbolic link",
        "ssh": "forward the given local port to the remote host and port",
        "zip": "list the archive's entries in long form",
    }.items():
        page = f".TH {name.upper()} 1\n.SH NAME\n{name} \\- a tool\n.SH OPTIONS\n.TP\n"
        page += f"\\fB\\-L\\fR\n{text}\n.TP\n\\fB\\-v\\fR\nsay more about ssh\n"
        (man1 / f"{name}.1").write_text(page)
    db = tmp_path / "m.db"
    docql_sqlite.index(db, [str(tmp_path)])
    with docql_sqlite.open(db) as index:
        hit = index.search("ssh -L", limit=1, explain=True)[0]
        assert hit["path"].endswith("ssh.1") and "forward" in hit["content"]
        assert hit["explain"]["lists"]["entities"]["class_and_member"] is True


def test_an_option_is_case_sensitive(tmp_path: Path) -> None:
    """ "tar -C" asks for `-C` (change to a directory), not `-c` (create), which the
    folded name also equals."""
    man1 = tmp_path / "man1"
    man1.mkdir()
    filler = " ".join(["The archive keeps every member in order."] * 40)
    page = (
        ".TH TAR 1\n.SH NAME\ntar \\- an archiver\n.SH OPTIONS\n"
        f".TP\n\\fB\\-c\\fR, \\fB\\-\\-create\\fR\ncreate a new archive. {filler}\n"
        f".TP\n\\fB\\-C\\fR, \\fB\\-\\-directory\\fR=\\fIDIR\\fR\nchange to DIR first. {filler}\n"
    )
    (man1 / "tar.1").write_text(page)
    (man1 / "zip.1").write_text(page.replace("TAR", "ZIP").replace("tar", "zip"))
    db = tmp_path / "t.db"
    docql_sqlite.index(db, [str(tmp_path)])
    with docql_sqlite.open(db) as index:
        upper = index.search("tar -C", limit=1, content=True)[0]
        lower = index.search("tar -c", limit=1, content=True)[0]
    assert upper["path"].endswith("tar.1") and "--directory" in upper["content"]
    assert lower["path"].endswith("tar.1") and "--create" in lower["content"]
    assert "--directory" not in lower["content"]


def test_a_dash_word_a_page_documents_is_that_option_not_a_negation(tmp_path: Path) -> None:
    """ "find -mtime" negated `mtime`: every passage that said it was left out. A `-word`
    that names an option some page documents is the option; any other stays a
    negation ("find -wombat" leaves out the passages holding "wombat")."""
    man1 = tmp_path / "man1"
    man1.mkdir()
    (man1 / "find.1").write_text(
        ".TH FIND 1\n.SH NAME\nfind \\- search for files\n.SH TESTS\n"
        '.IP "\\-mtime \\fIn\\fP"\nFile\'s data was last modified n days ago.\n'
        '.IP "\\-name \\fIpattern\\fP"\nBase of file name matches pattern.\n'
        ".SH NOTES\nfind walks a wombat of directories.\n"
    )
    db = tmp_path / "f.db"
    docql_sqlite.index(db, [str(tmp_path)])
    with docql_sqlite.open(db) as index:
        hits = index.search("find -mtime", limit=3, explain=True, content=True)
        assert any("-mtime" in h["content"] for h in hits)
        steps = hits[0]["explain"]["plan"]["strategy"]
        assert "-mtime: an option the index documents, not a negation" in steps
        negated = index.search("find -wombat", limit=5, content=True)
        assert negated and all("wombat" not in h["content"] for h in negated)
