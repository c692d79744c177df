"""A query word that names a document's folder (`search/path_words.py`)."""

from __future__ import annotations

import pytest

import docql_sqlite
from docql_sqlite.search.path_words import PathWords, words_of

ZLIB = (
    "Copyright (C) 1995-2022 Jean-loup Gailly and Mark Adler\n\n"
    "This software is provided 'as-is', without any express or implied warranty.\n"
    "Permission is granted to anyone to use this software for any purpose.\n"
)
# Two other packages' copyright files quote zlib's licence for a file they bundle.
QUOTING = (
    "Files: src/inflate.c\nCopyright: 1995 Jean-loup Gailly\nLicense: Zlib\n\n"
    + ZLIB
    + "\nFiles: *\nLicense: MIT\nPermission is hereby granted, free of charge.\n"
)
DOCS = {
    "doc/zlib1g-dev/copyright": "Format: https://www.debian.org/doc/packaging-manuals/\n"
    "Upstream-Name: zlib\n\nLicense:\n" + ZLIB,
    "doc/libopenjp2-7/copyright": QUOTING,
    "doc/libjpeg-dev/copyright": QUOTING.replace("inflate", "jpeg"),
    **{f"doc/pkg{i}/README": f"Package {i} reads images and writes archives.\n" for i in range(30)},
}


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("doc/zlib1g-dev/copyright", {"doc", "zlib", "1", "g", "dev"}),
        ("html/functions-string.html", {"html"}),  # a file's own name is no folder
        ("src/QueryPlanner/plan.kt", {"src", "query", "planner"}),
        ("docs/架构/设计.md", {"docs", "架构"}),
        ("README", set()),
    ],
)
def test_a_path_is_read_as_words(path: str, words: set[str]) -> None:
    assert words_of(path) == words


def test_a_word_many_paths_hold_tells_nothing() -> None:
    known = PathWords([f"doc/pkg{i}/notes/README" for i in range(40)] + ["doc/zlib1g/copyright"])
    assert known.telling("zlib")
    assert not known.telling("pkg")  # pkg0 … pkg39: the word pkg and a number
    assert not known.telling("notes")  # 40 of 41 documents
    assert not known.telling("copyright")  # a file's name, no folder
    assert not known.telling("doc") and not known.telling("absent")


def test_the_document_whose_path_names_the_query_word_comes_first(tmp_index) -> None:
    """ "what is the license of zlib" on /usr/share/doc: two other packages' copyright
    files, which quote zlib's licence, ranked above zlib's own."""
    tmp_index.write_many(DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("what is the license of zlib", limit=3, explain=True)
        plain = idx.search("what is the license of zlib", mode="bm25", limit=3)
    assert hits[0]["path"] == "docs/doc/zlib1g-dev/copyright", [h["location"] for h in hits]
    assert plain[0]["path"] != hits[0]["path"]  # what the path adds: BM25 alone ranks it lower
