"""Property tests of the line-based readers (AsciiDoc, Org, manual pages, Info, POD, RDoc, LaTeX,
and plain text's outline and Vim tags):
for documents made of their own syntax in any order, each parser returns (never raises,
never stands still), every heading, code block and entity lies within the text, levels
are 1–6, the readers that keep the file line for line keep it, and the whole ingest
step after parsing (sections and chunks, `parse.finish`) accepts what they return."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from docql_sqlite.ingest.asciidoc import parse_asciidoc
from docql_sqlite.ingest.info import parse_info
from docql_sqlite.ingest.latex import parse_latex
from docql_sqlite.ingest.man import parse_man
from docql_sqlite.ingest.org import parse_org
from docql_sqlite.ingest.parse import finish
from docql_sqlite.ingest.plaintext import parse_text
from docql_sqlite.ingest.pod import parse_pod
from docql_sqlite.ingest.rdoc import parse_rdoc
from docql_sqlite.ingest.read import Skip
from docql_sqlite.model import Document, count_lines

ASCIIDOC = [
    "= Title", "== Section", "=== Sub [[x]]", "Title", "=====", "-----", "~~~~~", "----",
    "....", "====", "****", "--", "////", "|===", "| a | b", "a|b", "[source,python]",
    "[[anchor]]", "[#id.role]", ":attr: value", "term:: definition", "term;;", "+",
    "include::x.adoc[]", "ifdef::x[]", "endif::x[]", ".Block title", "// comment", "",
    "plain words", "    indented", "## Markdown title", "```sh", "```", "{caret}",
]  # fmt: skip
ORG = [
    "* Headline", "** TODO [#A] Sub :tag:", "*** deep", "#+TITLE: T", "#+BEGIN_SRC python",
    "#+END_SRC", "#+begin_example", "#+end_example", ":PROPERTIES:", ":CUSTOM_ID: x",
    ":END:", "| a | b |", "|---+---|", "- term :: def", "-*- org -*-", "", "text", ",* x",
]  # fmt: skip
MAN = [
    ".TH X 1", ".SH NAME", ".SH", ".SS Sub", ".TP", ".IP \"tag\" 4", ".PP", ".nf", ".fi",
    ".EX", ".EE", ".B bold", ".BR a b", ".RS", ".RE", ".de XX", "..", ".ds s value",
    ".if n \\{\\", ".ie t .B x", ".el .B y", "\\}", ".UR http://x", ".UE", ".so other.1",
    "\\fB\\-a\\fR, \\fB\\-\\-all\\fR", "text \\(em \\*(s", ".Dd May", ".Sh NAME", ".It Fl v",
    ".Bl -tag", ".El", ".Bd -literal", ".Ed", ".Nm", ".Xr ls 1", "", "'\\\" comment",
]  # fmt: skip
INFO = [
    "\x1f", "File: x.info,  Node: Top,  Next: A,  Up: (dir)", "Title", "*****", "=====",
    "-----", ".....", "* Menu:", "* A::   desc", "* e: A.   (line 3)", "‘-n’", "‘--quiet’",
    "     example", "     ", "", "text", "Tag Table:", "Node: Top\x7f12", "End Tag Table",
]  # fmt: skip
POD = [
    "=head1 NAME", "=head2 Sub", "=head7 x", "=over 4", "=item B<-d> I<N>", "=item *",
    "=back", "=begin html", "=end html", "=for man x", "=cut", "=pod", "=encoding utf8",
    "    verbatim", "", "text C<code", "more> text", "E<gt> L<x|y> X<i>Z<>", "=E<gt> x",
    "C<< $a <=> $b >>", "B<I<nested>>",
]  # fmt: skip
RDOC = [
    "= Title", "== Sub", "======= deep", "=", "  verbatim", "    deeper", "\tTab\tbed",
    "* item", "- item", "1. item", "a. item", "[label] text", "label:: text", "label::",
    "{text}[http://x]", "+code+ *b* _e_ <tt>t</tt>", "\\Escaped", ":markup: rdoc", "---",
    "", "text",
]  # fmt: skip

TEXT = [
    "*x.txt*  For Vim version 9.0", "=" * 78, "-" * 30, "1. Introduction", "1.1 Terms *terms*",
    "2.  Protocol", "Appendix A.  ABNF", "Title", "=====", "-----", "*****", "Overview  *ov*",
    "\t\t*:s* *:su*", ">", "<", "GENERIC ~", "处理", "----", "1 0.5 0.25", " vim:ft=help:",
    "", "text", "   indented", "- item", "Term", ": a definition",
]  # fmt: skip

LATEX = [
    "\\documentclass{book}", "\\title{A \\LaTeX{} Guide}", "\\chapter{Intro}",
    "\\chapter*{Preface}",
    "\\section{Scope}\\label{sec:x}", "\\subsection{Two", "lines}", "\\section[s]{Long}",
    "\\paragraph{P}", "\\appendix", "\\begin{verbatim}", "\\end{verbatim}",
    "\\begin{lstlisting}[language=C]", "\\end{lstlisting}", "\\iffalse", "\\fi",
    "% \\section{c}", "\\verb|\\section{v}|", "\\item[Term] text",
    "\\newcommand{\\s}[1]{\\section{#1}}",
    "{", "}", "", "text 100\\%", "\\section{\\texttt{a\\_b}}",
]  # fmt: skip


def _document(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=40).map("\n".join)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.casefold())


def _check(doc: Document, text: str, line_for_line: bool, title_lines: int = 1) -> None:
    lines = count_lines(doc.text)
    shown = doc.text.split("\n")
    if line_for_line:
        assert lines == count_lines(text.replace("\r\n", "\n"))
    # headings in the order of their lines, each at a line of the text, at a level 1-6
    assert [h.line for h in doc.headings] == sorted(h.line for h in doc.headings), doc.headings
    for heading in doc.headings:
        assert heading.level in range(1, 7), heading
        assert heading.line in range(1, lines + 1), (heading, lines)
        # the heading's own line shows every word of its title (LaTeX's: its lines)
        line = set(_words(" ".join(shown[heading.line - 1 : heading.line - 1 + title_lines])))
        assert set(_words(heading.title)) <= line, (heading, shown[heading.line - 1])
    # code blocks and tables each hold lines of their own: none starts inside another
    for kind, spans in (("code", doc.codeblocks), ("table", doc.tables)):
        ordered = sorted((s.line, s.end_line) for s in spans)
        for (_, end), (start, _) in zip(ordered, ordered[1:], strict=False):
            assert start > end, (kind, ordered)
    for block in doc.codeblocks:
        assert block.line in range(1, lines + 1), (block, lines)
        assert block.end_line in range(block.line, lines + 1), (block, lines)
        first = next((c.strip() for c in block.code.split("\n") if c.strip()), None)
        span = "\n".join(shown[block.line - 1 : block.end_line])
        assert first is None or first in span, (block, span)  # the code is where it says
    for entity in doc.entities:
        assert entity.line in range(1, lines + 1), (entity, lines)
        assert entity.end_line in range(entity.line, lines + 1), (entity, lines)
        # the term's words are written where the entity says it is
        span = set(_words("\n".join(shown[entity.line - 1 : entity.end_line])))
        assert set(_words(entity.name)) <= span, (entity, span)
    for table in doc.tables:
        assert table.line in range(1, lines + 1), (table, lines)
        assert table.end_line in range(table.line, lines + 1), (table, lines)
        # every cell's words are on the table's lines
        span = set(_words("\n".join(shown[table.line - 1 : table.end_line])))
        cells = " ".join([*table.headers, *(cell for row in table.rows for cell in row)])
        assert set(_words(cells)) <= span, (table, span)
    try:
        finish(doc, "x", "/x", "0" * 64, len(text), None, [])  # sections and chunks
    except Skip:  # a page of nothing but markup and blanks: skipped, as any empty file
        assert not doc.text.strip()


@settings(max_examples=300, deadline=None)
@given(_document(ASCIIDOC))
def test_asciidoc(text: str) -> None:
    _check(parse_asciidoc(text, "x.adoc"), text, True)


@settings(max_examples=300, deadline=None)
@given(_document(ORG))
def test_org(text: str) -> None:
    _check(parse_org(text, "x.org"), text, True)


@settings(max_examples=300, deadline=None)
@given(_document(MAN))
def test_man(text: str) -> None:
    _check(parse_man(text, "x.1"), text, False)


@settings(max_examples=300, deadline=None)
@given(_document(INFO))
def test_info(text: str) -> None:
    _check(parse_info(text, "x.info"), text, True)


@settings(max_examples=300, deadline=None)
@given(_document(POD))
def test_pod(text: str) -> None:
    _check(parse_pod(text, "x.pod"), text, True)


@settings(max_examples=300, deadline=None)
@given(_document(RDOC))
def test_rdoc(text: str) -> None:
    _check(parse_rdoc(text, "x.rdoc"), text, True)


@settings(max_examples=300, deadline=None)
@given(_document(TEXT))
def test_text(text: str) -> None:
    _check(parse_text(text, "x.txt"), text, True)


def test_plain_text_yields_headings_and_terms() -> None:
    text = "*x.txt*  For Vim version 9.0\n\n" + "=" * 78 + "\n1. Substitute  *:substitute*\n"
    text += "\t\t\t*:s*\n:s/a/b/\n\n1.1 Flags\n\nText.\n"
    doc = parse_text(text, "x.txt")
    assert [h.title for h in doc.headings] == ["1. Substitute", "1.1 Flags"]
    assert {":substitute", ":s"} <= {e.name for e in doc.entities}
    _check(doc, text, True)


@settings(max_examples=300, deadline=None)
@given(_document(LATEX))
def test_latex(text: str) -> None:
    _check(parse_latex(text, "x.tex"), text, True, title_lines=5)  # `_TITLE_LINES`


RICH = {
    "asciidoc": (
        parse_asciidoc,
        "= Title\n\n== Section\n\n[source,sh]\n----\nls -l\n----\n\n|===\n| a | b\n\n"
        "| 1 | 2\n|===\n\n--all:: every entry\n",
        True,
    ),
    "org": (
        parse_org,
        "* Top\n#+BEGIN_SRC sh\nls -l\n#+END_SRC\n| a | b |\n|---+---|\n| 1 | 2 |\n"
        "- term :: a definition\n",
        True,
    ),
    "man": (
        parse_man,
        ".TH X 1\n.SH NAME\nx \\- a tool\n.SH OPTIONS\n.TP\n\\fB\\-a\\fR\nall of it\n"
        ".SH EXAMPLES\n.nf\nx \\-a\n.fi\n",
        False,
    ),
    "info": (
        parse_info,
        "\x1f\nFile: x.info,  Node: Top,  Up: (dir)\n\nTitle\n*****\n\n‘-a’\n"
        "     all of it\n\n     x -a\n",
        True,
    ),
    "latex": (
        parse_latex,
        "\\section{Top}\\label{top}\n\\begin{verbatim}\nls -l\n\\end{verbatim}\n"
        "\\begin{description}\n\\item[term] a definition\n\\end{description}\n",
        True,
    ),
    "pod": (
        parse_pod,
        "=head1 NAME\n\nx - a tool\n\n=over\n\n=item B<-a>\n\nall of it\n\n=back\n\n    x -a\n",
        True,
    ),
    "rdoc": (
        parse_rdoc,
        "= Top\n\nText.\n\n  x -a\n\n[-a] all of it\n",
        True,
    ),
}


def test_each_reader_yields_every_structure_the_checks_read() -> None:
    """The properties above hold on documents that have them: headings, code blocks,
    entities (and tables where the format has them) at their lines."""
    for name, (reader, text, line_for_line) in RICH.items():
        doc = reader(text, f"x.{name}")
        assert doc.headings and doc.codeblocks and doc.entities, name
        assert doc.tables or name not in ("asciidoc", "org"), name
        _check(doc, text, line_for_line)
