"""Hostile lines cost the line-based readers linear time (`benchmarks`-free: a bound in CPU
seconds that a linear reader meets a hundred times over and a quadratic one misses by
minutes). Each case was quadratic at first: a pattern that tried the rest of a line at each
of its characters (a lazy `.*?` before `[ \\t]*$`, a search starting inside a run of
blanks, a field name tried at each letter of a long word). A parser's worker would be
stopped by its CPU limit and the file lost, or a whole run slowed to minutes. (The
Debian and GNU changelog readers match no line over 300 characters.)"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from docql_sqlite.ingest.asciidoc import parse_asciidoc
from docql_sqlite.ingest.bibtex import parse_bibtex
from docql_sqlite.ingest.org import parse_org
from docql_sqlite.ingest.pod import parse_pod
from docql_sqlite.ingest.rdoc import parse_rdoc
from docql_sqlite.model import Document

BLANKS = " " * 200_000
WORD = "a" * 200_000
# CPU seconds for one 200,000-character line; linear readers take ~0.02 s.
BOUND = 2.0

CASES: list[tuple[str, Callable[[str, str], Document], str, str]] = [
    ("asciidoc title", parse_asciidoc, "x.adoc", f"= Title{BLANKS}b\n\ntext\n"),
    ("asciidoc section", parse_asciidoc, "x.adoc", f"= T\n\n== Section{BLANKS}b ==\n"),
    ("asciidoc attribute", parse_asciidoc, "x.adoc", f"= T\n:name: v{BLANKS}b\n"),
    ("org headline", parse_org, "x.org", f"* Headline{BLANKS}b\n"),
    ("org headline tags", parse_org, "x.org", f"* Headline{BLANKS}b :tag:\n"),
    ("org setting", parse_org, "x.org", f"#+TITLE: T{BLANKS}b\n* H\n"),
    ("org block", parse_org, "x.org", f"#+BEGIN_SRC python{BLANKS}b\nx\n#+END_SRC\n"),
    ("pod command", parse_pod, "x.pod", f"=head1 NAME{BLANKS}b\n\ntext\n"),
    ("rdoc heading", parse_rdoc, "x.rdoc", f"= {WORD}\n"),
    ("rdoc heading blanks", parse_rdoc, "x.rdoc", f"= a{BLANKS}b\n"),
    ("bibtex word", parse_bibtex, "x.bib", f"@article{{x, {WORD}\n"),
]


@pytest.mark.parametrize(("name", "reader", "path", "text"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_line_costs_linear_time(
    name: str, reader: Callable[[str, str], Document], path: str, text: str
) -> None:
    started = time.process_time()
    doc = reader(text, path)
    used = time.process_time() - started
    assert used < BOUND, f"{name}: {used:.1f} s of CPU for one long line"
    assert doc.text is not None
