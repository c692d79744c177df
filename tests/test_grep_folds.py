"""Literal grep on hard text, against a brute-force oracle (issue 12 item 3: any faster
grep path must keep these answers).

The files are one-paragraph text files (one chunk each), written here; the oracle reads
them back and says, per literal, which files have a line whose casefold contains the
literal's casefold, and the first such line. The literals cover what a token-based
pre-filter would get wrong: literals inside or across FTS tokens, punctuation only,
CJK runs (indexed with spaces between characters), and Unicode case folds that change
length or leave ASCII (ß → ss, İ → i̇, the Kelvin sign → k, ſ → s, ﬁ → fi).
"""

from __future__ import annotations

import json
from contextlib import chdir
from typing import Any

import pytest

import docql_sqlite

FILES = {
    "straße.txt": "Die Straße ist lang.\nDIE STRASSE IST LANG.\nstrasse und strassen\n",
    "turkish.txt": "İstanbul and ıstanbul\nISTANBUL in capitals\nistanbul in small letters\n",
    "kelvin.txt": "a temperature of 300 \u212a (kelvin sign)\nplain K and k\n",
    "long-s.txt": "the \u017ftring with a long s\nand a plain string\n",
    "ligature.txt": "a \ufb01le with a ligature\nthe \ufb03x tool\nfile and ffix spelled out\n",
    "snake.txt": "call snake_case_name(a.b.c) --flag=value\nthen C++ and a::b::c\n",
    "tokens.txt": "WSAEADDRINUSE and EADDRINUSE\nlifetime elision rules\nlifetimes elisions\n",
    "cjk.md": "系统架构的说明\n\n索引、关键词：双字\n",
    "mixed.txt": "Lumen doctor, LUMEN DOCTOR… and lumendoctor\n== -- == …\n",
    # FTS5 query syntax inside a literal (the trigram candidates quote it)
    "quotes.txt": 'say "hello" to AND OR NOT * ^ it\nNEAR(a b) - c:d\n',
}

LITERALS = [
    # inside and across tokens
    "EADDRINUSE",
    "addrinuse",
    "lifetime elision",
    "ime eli",
    "lifetime elisions",
    "elision",
    "n do",
    "lumen doctor",
    "lumendoctor",
    "e_c",
    "snake_case",
    "b.c",
    "a.b.c)",
    "--flag",
    "=value",
    "c++",
    "::b::",
    # punctuation only
    "==",
    "--",
    "…",
    "、",
    "：",
    "(",
    # CJK runs, inside and across the indexer's spacing
    "架构",
    "统架",
    "系统架构的说明",
    "关键词：双",
    # folds that change length or leave ASCII
    "straße",
    "STRASSE",
    "ss",
    "ß",
    "İstanbul",
    "i̇stanbul",
    "istanbul",
    "ıstanbul",
    "\u212a",
    "k",
    "300 k",
    "\u017ftring",
    "string",
    "st",
    "\ufb01le",
    "file",
    "fi",
    "\ufb03x",
    "ffix",
    # case
    "LUMEN",
    "Doctor,",
    # FTS5 query syntax, quoted into the trigram query as plain text
    '"hello"',
    'o" t',
    "AND OR NOT",
    "* ^",
    "NEAR(a",
    "c:d",
]


def oracle(kw: str) -> list[tuple[str, int]]:
    """(path, first line containing kw) per file, case-insensitively (Unicode casefold)."""
    needle = kw.casefold()
    found = []
    for name in sorted(FILES):
        for number, line in enumerate(FILES[name].split("\n"), start=1):
            if needle in line.casefold():
                found.append((f"docs/{name}", number))
                break
    return found


@pytest.fixture(scope="module", params=["scan", "chunk trigrams"])
def hard_index(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The files indexed, without and with the trigram index over the chunks (`index
    --trigram`, whose candidates must not lose a fold)."""
    root = tmp_path_factory.mktemp("folds")
    (root / "docs").mkdir()
    for name, text in FILES.items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
    db = root / "folds.db"
    with chdir(root):
        docql_sqlite.index(db, ["docs"], trigram=request.param == "chunk trigrams")
    with docql_sqlite.open(db) as idx:
        assert idx.has_chunk_trigrams == (request.param == "chunk trigrams")
        # One chunk per file: the oracle's "first line of the file" is the chunk's hit line.
        per_file = idx.rows("SELECT doc_id, count(*) AS n FROM chunks GROUP BY doc_id")
        assert {r["n"] for r in per_file} == {1}
        yield idx


def test_the_oracle_finds_the_hard_cases() -> None:
    # Guards against a vacuous oracle: the folds really do cross ASCII and change length.
    assert oracle("ß") == [("docs/straße.txt", 1)]
    assert ("docs/straße.txt", 1) in oracle("STRASSE")
    assert ("docs/kelvin.txt", 1) in oracle("k")
    assert ("docs/long-s.txt", 1) in oracle("string")
    assert ("docs/ligature.txt", 1) in oracle("file")
    assert ("docs/turkish.txt", 1) in oracle("i̇stanbul")
    assert oracle("xyzzy") == []


@pytest.mark.parametrize("kw", LITERALS)
def test_grep_equals_the_oracle(hard_index: Any, kw: str) -> None:
    query = "$.content.grep(" + json.dumps(kw, ensure_ascii=False) + ")"
    got = [(item["path"], item["hit_line"]) for item in hard_index.query(query)]
    assert got == oracle(kw), kw
