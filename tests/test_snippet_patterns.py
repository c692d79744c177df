"""Snippet term matching (`search.snippets.TermPattern`) against the regex it replaced.

The oracle is the definition written as one regex: the term's tokens joined by any run of
non-word characters, with the FTS5 token boundaries as lookarounds on the `_WORDISH`
class. `TermPattern` compiles only the body and checks boundaries separately (a
lookaround class costs a millisecond per compile); both must find the same spans in
every text."""

from __future__ import annotations

import random
import re

import pytest

from docql_sqlite.search import snippets, terms

WORDISH = r"0-9A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF"


def oracle(term: terms.Term) -> re.Pattern[str] | None:
    tokens = term.tokens
    if not tokens:
        return None
    body = r"[\W_]*".join(re.escape(t) for t in tokens)
    if re.match(f"[{WORDISH}]", tokens[0]):
        body = f"(?<![{WORDISH}])" + body
    if term.prefix:
        body += r"\w*"
    elif re.search(f"[{WORDISH}]$", tokens[-1]):
        body += f"(?![{WORDISH}])"
    return re.compile(body, re.IGNORECASE)


def spans(pattern: object, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]  # type: ignore[attr-defined]


CASES = [
    ("read", "read readme already READ re-read, read_file"),
    ("readFile", "fs.readFile readfile read_file read-file readFileSync"),
    ("DEC-0054", "DEC 0054 and DEC-0054, dec_0054; DEC00054"),
    ("straße", "Straße STRASSE straßen Hauptstraße"),
    ("привет", "Привет, ПРИВЕТ приветствие"),
    ("架构", "系统架构设计 架构 架 构"),
    ("read*", "reader reading read unread"),
    ('"stream backpressure"', "stream  backpressure; Stream-Backpressure streams backpressure"),
    ("aa", "aaa aa a aa_aa"),
    ("x", "x"),
]


@pytest.mark.parametrize("query,text", CASES)
def test_table_matches_the_lookaround_regex(query: str, text: str) -> None:
    for term in terms.parse(query):
        expected, got = oracle(term), snippets.term_pattern(term)
        assert (expected is None) == (got is None)
        if expected is not None:
            assert spans(got, text) == spans(expected, text), (query, text)
            assert spans(got, text), f"{query!r} should occur in {text!r}"


def test_random_texts_match_the_lookaround_regex() -> None:
    rng = random.Random(11)
    alphabet = list("abAB01_ -.,:é\u00c9ßж\u0416λ\u039b架构データ\t") + ["ab", "AB", "a_b", "aB1"]
    checked = 0
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        words = re.findall(r"\w+", text) or ["ab"]
        query = " ".join(rng.choice(words) + rng.choice(["", "", "*"]) for _ in range(2))
        for term in terms.parse(query):
            expected = oracle(term)
            got = snippets.term_pattern(term)
            if expected is None:
                assert got is None
                continue
            assert spans(got, text) == spans(expected, text), (query, text)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize(
    "query,content,expected",
    [
        # Already bold in the Markdown: shown as written, not `****Default**:**`.
        ("default", "* **Default:** `16384`", "* **Default:** `16384`"),
        ("default", "__Default__ and default", "__Default__ and **default**"),
        ("stream", "a **readable stream** here", "a **readable stream** here"),
        # Bold elsewhere does not stop a plain hit from being marked.
        ("stream", "**Note** a stream", "**Note** a **stream**"),
        ("a*b", "x a*b y", "x **a*b** y"),  # not emphasis
    ],
)
def test_hits_inside_markdown_bold_are_not_marked_again(
    query: str, content: str, expected: str
) -> None:
    assert snippets.make(content, snippets.patterns(terms.parse(query))) == expected
