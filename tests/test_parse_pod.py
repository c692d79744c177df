"""Perl's POD (`ingest/pod.py`): the page as perldoc shows it, line for line — headings,
items as terms, verbatim paragraphs as code, formatting codes resolved (also across a
line's end and around `E<gt>`), blocks for other formatters blank. `.pod` files were not
indexed at all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.ingest.pod import parse_pod

POD = """\
=encoding utf8

=head1 NAME

wombat - dig B<burrows> from Perl

=head1 SYNOPSIS

    use Wombat;
    my $w = Wombat->new(depth => 3);

=head1 OPTIONS

=over 4

=item B<-d> I<N>

Dig I<N> metres deep; see L<the manual|perlwombat/Depth> and C<< $w->depth >>.

=item B<--quiet>

Say nothing at all.

=item *

A bullet is no term.

=back

=head2 Lexicons

The lexicon C<("You won!"
=E<gt> "Tu as gagnE<eacute>!")> spans two lines.
X<lexicon>Z<>

=begin html

<p>never shown</p>

=end html

=for man .TH hidden

=cut
"""


def test_headings_items_code_and_codes() -> None:
    doc = parse_pod(POD, "lib/Wombat.pod")
    assert doc.format == "pod" and doc.title == "wombat - dig burrows from Perl"
    lines = doc.text.split("\n")
    assert len(lines) == len(POD.split("\n"))  # line for line
    assert [(h.level, h.title, lines[h.line - 1]) for h in doc.headings] == [
        (1, "NAME", "NAME"),
        (1, "SYNOPSIS", "SYNOPSIS"),
        (1, "OPTIONS", "OPTIONS"),
        (2, "Lexicons", "Lexicons"),
    ]
    assert "Dig N metres deep; see the manual and $w->depth." in lines
    assert 'The lexicon ("You won!"' in lines and '=> "Tu as gagné!") spans two lines.' in lines
    assert "never shown" not in doc.text and "hidden" not in doc.text
    assert not re.search(r"[BICLEXZ]<", doc.text.replace("    ", ""))
    terms = {e.name: e.definition for e in doc.entities if e.entity_type == "Term"}
    assert terms["-d"] == "Dig N metres deep; see the manual and $w->depth."
    assert terms["--quiet"] == "Say nothing at all."
    assert "*" not in terms
    (code,) = doc.codeblocks
    assert code.code == "    use Wombat;\n    my $w = Wombat->new(depth => 3);"
    assert lines[code.line - 1] == "    use Wombat;"


def test_indexed(tmp_path: Path) -> None:
    (tmp_path / "Wombat.pod").write_text(POD)
    db = tmp_path / "p.db"
    report = docql_sqlite.index(db, [str(tmp_path)])
    assert len(report.added) == 1 and not report.failed
    with docql_sqlite.open(db) as index:
        hit = index.search("how deep does it dig", limit=1)[0]
        assert hit["section"] == "OPTIONS" and "B<" not in hit["snippet"]
        (entity,) = index.query('$.entities[?(@.name=="--quiet")]')
        assert entity["definition"] == "Say nothing at all."


PERL = Path("/usr/share/perl")


@pytest.mark.skipif(not PERL.is_dir(), reason="no /usr/share/perl here")
def test_perls_own_pods_line_for_line_with_every_heading() -> None:
    """Oracle: the files' own `=headN` commands (each opening a paragraph) and line
    counts, over the POD files of this machine's Perl."""
    files = sorted(PERL.glob("*/**/*.pod"))[:40]
    for path in files:
        text = path.read_text(errors="replace")
        doc = parse_pod(text, str(path))
        source = text.split("\n")
        assert doc.text.count("\n") == text.count("\n") + (0 if text.endswith("\n") else 1)
        expected = [
            line.split(None, 1)[1].strip()
            for k, line in enumerate(source)
            if re.match(r"=head\d\s+\S", line)
            and (k == 0 or not source[k - 1].strip() or source[k - 1].startswith("="))
        ]
        assert len(doc.headings) == len(expected), path
    assert len(files) > 10


@pytest.mark.parametrize(
    "code, shown",
    [
        ("L<perlre/Modifiers>", '"Modifiers" in perlre'),
        ('L<Mojo::DOM/"find">', '"find" in Mojo::DOM'),
        ('L</"root">', '"root"'),
        ("L</find>", '"find"'),
        ("L<Mojo::DOM>", "Mojo::DOM"),
        ("L<https://mojolicious.org/perldoc>", "https://mojolicious.org/perldoc"),
        ("L<the manual|perlwombat/Depth>", "the manual"),
    ],
)
def test_links_read_as_perldoc_shows_them(code: str, shown: str) -> None:
    # Mojolicious' `L</"root">` read `/"root`
    assert parse_pod(f"=head1 NAME\n\nx - see {code}.\n", "x.pod").text.split("\n")[2] == (
        f"x - see {shown}."
    )
