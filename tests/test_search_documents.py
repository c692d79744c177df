"""Smart search's document channel: BM25 over whole documents from the passage index.

The oracle recomputes BM25 per document in Python from the chunks' own text (its own
tokenizer, not FTS5's), with the channel's documented formula; the channel's order and
scores must equal it. The other tests pin what the channel adds to smart search.
"""

from __future__ import annotations

import math
import re

import pytest

import docql_sqlite
from docql_sqlite.search import documents
from docql_sqlite.search import terms as search_terms


@pytest.fixture(autouse=True)
def any_length(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """The channel's arithmetic is checked on short queries too; the look-up rule (fewer
    than MIN_QUESTION_WORDS words skip the channel) has its own test."""
    if request.node.name != "test_look_ups_skip_the_channel":
        monkeypatch.setattr(documents, "MIN_QUESTION_WORDS", 1)


# An FAQ-like answer spread over three sections (no section holds two of the question's
# words), a long document that repeats two of them in one passage, and filler.
DOCS = {
    "answer.md": "# FAQ entry 1\n\n## One\n\nFirst refresh the bootloader menu.\n\n"
    "## Two\n\nThen reboot into the new kernel image.\n\n"
    "## Three\n\nAn upgrade of grub may follow later.\n",
    "long.md": "# Guide\n\n"
    + "".join(
        f"## Topic {i}\n\nGeneral notes about topic {i} and more words.\n\n" for i in range(12)
    )
    + "## Kernel\n\nThe kernel upgrade: kernel, kernel and upgrade again.\n",
    "other.md": "# Other\n\nA bootloader is a program. Nothing about the rest.\n",
    "filler.md": "# Filler\n\nWords that match nothing asked here at all.\n",
}
WORD = re.compile(r"[^\W_]+")


@pytest.fixture
def doc_index(tmp_index):
    tmp_index.write_many(DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        yield idx


def oracle(idx, words: list[str], paths: tuple[str, ...] = ()) -> list[tuple[str, float]]:
    """BM25 over each document's chunk text, body only (title column left out)."""
    rows = idx.rows(
        "SELECT d.path AS path, c.content AS content, c.end_offset - c.start_offset AS n "
        "FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY d.path, c.chunk_index"
    )
    text: dict[str, list[str]] = {}
    length: dict[str, int] = {}
    for r in rows:
        text.setdefault(r["path"], []).extend(WORD.findall(r["content"].casefold()))
        length[r["path"]] = length.get(r["path"], 0) + max(1, r["n"])
    avgdl = sum(length.values()) / len(length)
    n_docs = len(length)
    scores: dict[str, float] = {}
    for w in words:
        tf = {p: toks.count(w) for p, toks in text.items() if w in toks}
        idf = math.log(1 + (n_docs - len(tf) + 0.5) / (len(tf) + 0.5))
        for p, n in tf.items():
            if paths and not any(re.fullmatch(g.replace("*", ".*"), p) for g in paths):
                continue
            norm = documents.K1 * (1 - documents.B + documents.B * length[p] / avgdl)
            scores[p] = scores.get(p, 0.0) + idf * n * (documents.K1 + 1) / (n + norm)
    return sorted(scores.items(), key=lambda kv: -kv[1])


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("kernel", ["kernel"]),
        ("how do I upgrade the kernel", ["upgrade", "kernel"]),
        ("bootloader kernel upgrade grub", ["bootloader", "kernel", "upgrade", "grub"]),
        ("nothing", ["nothing"]),
        ("zebra", ["zebra"]),  # found nowhere: no document
    ],
)
def test_document_scores_equal_the_oracle(doc_index, monkeypatch, query, words) -> None:
    monkeypatch.setattr(documents, "PREFIX_WEIGHT", 0.0)  # exact words only, as the oracle
    rows, notes = documents.channel(doc_index.store, search_terms.parse(query), ())
    got = [(r["path"], r["_doc_score"]) for r in rows]
    want = oracle(doc_index, words)
    assert [p for p, _ in got] == [p for p, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
    assert notes == [f"BM25 over whole documents: {len(want)} matched"]


def test_a_document_is_represented_by_its_best_passage(doc_index) -> None:
    rows, _ = documents.channel(doc_index.store, search_terms.parse("kernel upgrade"), ())
    long = next(r for r in rows if r["path"] == "docs/long.md")
    assert long["section"] == "Kernel"  # the passage holding the words, not the first one


@pytest.mark.parametrize(
    ("query", "paths", "expected"),
    [
        ("bootloader", (), ["docs/answer.md", "docs/other.md"]),
        ("bootloader", ("docs/o*",), ["docs/other.md"]),
        ("bootloader -program", (), ["docs/answer.md"]),  # other.md's passage says "program"
    ],
)
def test_scope_and_negation(doc_index, query, paths, expected) -> None:
    rows, _ = documents.channel(doc_index.store, search_terms.parse(query), paths)
    assert sorted(r["path"] for r in rows) == expected


def test_short_answer_over_long_document(doc_index) -> None:
    """Whole-document BM25 ranks the short answer that holds every word (one per passage)
    above the long document whose single passage repeats two of them."""
    query = "upgrade the kernel and the bootloader"
    rows, _ = documents.channel(doc_index.store, search_terms.parse(query), ())
    ranked = [r["path"] for r in rows]
    assert ranked[0] == "docs/answer.md" and "docs/long.md" in ranked[1:]
    hits = doc_index.search(query, group="file", explain=True)
    answer = next(h for h in hits if h["path"] == "docs/answer.md")
    assert answer["explain"]["lists"]["documents"]["rank"] == 1
    assert hits[0]["explain"]["plan"]["documents"] == ["BM25 over whole documents: 3 matched"]
    # The passage BM25 alone ranks the long document's passage first.
    plain = doc_index.search(query, mode="bm25", group="file")
    assert plain[0]["path"] == "docs/long.md"


def test_stem_prefix_finds_inflections(doc_index) -> None:
    # "upgrades" is nowhere; its stem prefix upgrad* finds "upgrade" (at half weight).
    rows, _ = documents.channel(doc_index.store, search_terms.parse("upgrades"), ())
    assert {r["path"] for r in rows} == {"docs/answer.md", "docs/long.md"}


def test_read_only_index_file(tmp_index) -> None:
    """The channel's fts5vocab table lives in the connection's temp schema: a file this
    user cannot write is searched the same (and stays unchanged)."""
    tmp_index.write_many(DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        writable = idx.search("bootloader kernel", group="file")
    before = tmp_index.db.read_bytes()
    tmp_index.db.chmod(0o444)
    try:
        with docql_sqlite.open(tmp_index.db) as idx:
            hits = idx.search("bootloader kernel", group="file", explain=True)
        assert [h["path"] for h in hits] == [h["path"] for h in writable]
        assert any("documents" in h["explain"]["lists"] for h in hits)
        assert tmp_index.db.read_bytes() == before
    finally:
        tmp_index.db.chmod(0o644)


@pytest.mark.parametrize(
    ("query", "rows", "note"),
    [
        ("如何配置 kernel", 0, "not for CJK questions: the passage channels rank them"),
        ("自定义主题", 0, "not for CJK questions: the passage channels rank them"),
        ("kernel", 2, "BM25 over whole documents: 2 matched"),
    ],
)
def test_cjk_questions_skip_the_channel(doc_index, query, rows, note) -> None:
    found, notes = documents.channel(doc_index.store, search_terms.parse(query), ())
    assert len(found) == rows and notes == [note]


def test_code_files_are_left_to_the_code_channels(tmp_index) -> None:
    tmp_index.write_many(
        {
            "notes.md": "# Notes\n\nHow the kernel upgrade works.\n",
            "upgrade.py": "def kernel_upgrade():\n"
            "    kernel = upgrade_kernel()\n    return kernel\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        rows, notes = documents.channel(idx.store, search_terms.parse("kernel upgrade"), ())
    assert [r["path"] for r in rows] == ["docs/notes.md"]
    assert notes == ["BM25 over whole documents: 1 matched"]


def test_look_ups_skip_the_channel(doc_index) -> None:
    """One or two words are a name look-up: no document ranking; three make a question."""
    for text, skipped in (
        ("kernel", True),
        ("kernel upgrade", True),
        ("bootloader kernel upgrade", False),
    ):
        rows, notes = documents.channel(doc_index.store, search_terms.parse(text), ())
        assert any("look-up" in n for n in notes) == skipped, (text, notes)
        assert bool(rows) != skipped, (text, rows)
