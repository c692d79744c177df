"""BibTeX (`ingest/bibtex.py`): one section and one term per entry, keyed as cited.

Oracle: pybtex reads the same text (a hand-written file in BibTeX's odd corners, and
generated ones): the same entry keys in the same order, the same titles as words. On
texlive's 212 documentation `.bib` files the same 5,298 keys and 4,984 titles
(docs/benchmarks-history.md, session 29)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docql_sqlite.ingest.bibtex import parse_bibtex
from docql_sqlite.ingest.latex import latex_text

BIB = (
    r"""% A comment line: BibTeX reads text outside entries as comments
@string{tug = "TUGboat"}
@preamble{"\newcommand{\noop}[1]{}"}
@article{knuth1984,
  author = {Donald E. Knuth},
  title = {Literate Programming},
  journal = {The Computer Journal},
  year = 1984,
}

 @BOOK{texbook, title="The {\TeX}book", author="Knuth, D." # " and others", year={1986}}
\@phdthesis{richmond2004,
  title = {Steady State {"}Thermal{"} Conductivity},
  abstract = {"""
    + "long " * 600
    + r"""},
  year = 2004}
@ABNT-options{7.9.3-2:begin, key="x"}
@misc(paren, title = {In parentheses}, note = {mail x@y.org})
"""
)


def _words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[^\W_]+", text.casefold()))


def test_entries_are_sections_and_terms() -> None:
    doc = parse_bibtex(BIB, "refs.bib")
    assert doc.format == "bibtex" and doc.text == BIB
    assert [(h.line, h.title) for h in doc.headings] == [
        (4, "knuth1984: Literate Programming"),
        (11, "texbook: The TeXbook"),
        (12, 'richmond2004: Steady State "Thermal" Conductivity'),
        (16, "7.9.3-2:begin"),
        (17, "paren: In parentheses"),
    ]
    terms = {e.name: e for e in doc.entities}
    assert (terms["knuth1984"].line, terms["knuth1984"].end_line) == (4, 9)
    assert terms["knuth1984"].definition == "Literate Programming. Donald E. Knuth. 1984"
    assert terms["texbook"].definition == "The TeXbook. Knuth, D. and others. 1986"


def _pybtex_entries(text: str) -> list[tuple[str, tuple[str, ...]]] | None:
    database = pytest.importorskip("pybtex.database")
    try:
        parsed = database.parse_string(text, "bibtex")
    except Exception:  # noqa: BLE001 - pybtex refuses the text: no oracle for it
        return None
    return [(k, _words(latex_text(e.fields.get("title", "")))) for k, e in parsed.entries.items()]


def _ours(text: str) -> list[tuple[str, tuple[str, ...]]]:
    doc = parse_bibtex(text, "refs.bib")
    return [
        (e.name, _words(h.title.partition(": ")[2])) for e, h in zip(doc.entities, doc.headings)
    ]


def test_the_entries_are_pybtexs() -> None:
    assert _ours(BIB) == _pybtex_entries(BIB)


_KEYS = st.from_regex(r"[a-z][a-z0-9:.\-]{0,8}", fullmatch=True)
_VALUES = st.sampled_from(
    ["{A title}", '"Quoted {"}x{"} title"', "{Nested {\\TeX} braces}", "1984", '"a" # "b"',
     "{x@y.org}", "{Line\n  two}", "jan"]
)  # fmt: skip


@st.composite
def _bib(draw: st.DrawFn) -> str:
    entries = []
    for key in draw(st.lists(_KEYS, min_size=1, max_size=6, unique=True)):
        names = draw(st.lists(st.sampled_from(["title", "author", "note", "year"]), unique=True))
        fields = ",\n".join(f"  {n} = {draw(_VALUES)}" for n in names)
        kind = draw(st.sampled_from(["article", "BOOK", "misc", "In-Proceedings"]))
        lead = draw(st.sampled_from(["", "  ", "% c\n", "text\n"]))
        entries.append(f"{lead}@{kind}{{{key},\n{fields}\n}}\n")
    return "\n".join(entries)


@settings(max_examples=200, deadline=None)
@given(_bib())
def test_generated_files_read_as_pybtex_reads_them(text: str) -> None:
    theirs = _pybtex_entries(text)
    if theirs is not None:
        assert _ours(text) == theirs
