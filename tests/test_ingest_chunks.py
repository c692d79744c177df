"""Chunks (docql-spec §1.3), checked document by document against the files themselves.

For every document of datasets/ (with the default chunk size, and again with a small
one so that splitting actually happens, datasets/bad included):
- chunks tile the body: body_line..last line, contiguous, no gap, no overlap;
- each chunk's content is exactly those lines of the file (read and split here);
- no chunk spans two sections' own text: it starts at or after its section's heading,
  stays inside the section's extent, no heading line and no section end falls inside it,
  and its section is the innermost one holding it (NULL only in the preamble);
- chunks are at most max_chars, unless the chunk is one line, lies inside one code
  block/table, or is one paragraph; and never longer than chunk_bound(max_chars)
  (a longer line is cut into pieces);
- a fenced code block that fits in max_chars is never split.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import (
    DATASETS,
    REPO,
    TmpIndex,
    chdir,
    check_document_chunks,
    dataset_roots,
    file_lines,
    lines_text,
    query,
)

from docql_sqlite.ingest import IngestOptions, index_paths
from docql_sqlite.ingest.chunk import DEFAULT_MAX_CHARS, MAX_LINE_CHARS, chunk_bound
from docql_sqlite.ingest.formats import format_for_path
from docql_sqlite.passage_text import long_line

SMALL_MAX = 200


def _dataset_files(include_bad: bool) -> list[str]:
    files = []
    for path in sorted(DATASETS.rglob("*")):
        rel = path.relative_to(REPO).as_posix()
        if not path.is_file() or path.is_symlink() or format_for_path(rel) is None:
            continue
        if rel.startswith("datasets/bad/") and not include_bad:
            continue
        files.append(rel)
    return files


CORPUS_FILES = _dataset_files(include_bad=False)
ALL_FILES = _dataset_files(include_bad=True)


@pytest.fixture(scope="module")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """datasets/ including bad/, cut with a small max_chars so paragraphs and blocks get split."""
    db = tmp_path_factory.mktemp("small-chunks") / "small.db"
    with chdir(REPO):
        index_paths(
            db,
            [str(p) for p in dataset_roots()] + ["datasets/bad"],
            IngestOptions(workers=2, max_chars=SMALL_MAX),
        )
    return db


CONFIGS = [("default", path) for path in CORPUS_FILES] + [("small", path) for path in ALL_FILES]


@pytest.fixture
def indexed(
    request: pytest.FixtureRequest, corpus_db: Path, small_db: Path
) -> tuple[Path, int, int, str]:
    """(db, doc id, max_chars, path) for the parametrized (config, path)."""
    config, path = request.param
    db, max_chars = (corpus_db, DEFAULT_MAX_CHARS) if config == "default" else (small_db, SMALL_MAX)
    rows = query(db, "SELECT id FROM documents WHERE path = ?", (path,))
    if not rows:
        reason = query(
            db, "SELECT reason FROM ingest_errors WHERE path = ? AND severity = 'error'", (path,)
        )
        pytest.skip(f"{path} not indexed: {reason[0][0] if reason else 'not found'}")
    return db, rows[0][0], max_chars, path


def _ids(param: tuple[str, str]) -> str:
    return f"{param[0]}:{param[1]}"


def _chunks(db: Path, doc_id: int) -> list[dict[str, Any]]:
    keys = ("index", "line", "end_line", "section_id", "content")
    return [
        dict(zip(keys, r))
        for r in query(
            db,
            "SELECT chunk_index, line, end_line, section_id, content FROM chunks WHERE doc_id = ? "
            "ORDER BY chunk_index",
            (doc_id,),
        )
    ]


def _sections(db: Path, doc_id: int) -> list[dict[str, Any]]:
    keys = ("id", "line", "end_line", "title")
    return [
        dict(zip(keys, r))
        for r in query(
            db,
            "SELECT id, line, end_line, title FROM sections WHERE doc_id = ? ORDER BY ord",
            (doc_id,),
        )
    ]


def test_corpus_indexes_without_errors(corpus_db: Path, corpus_report) -> None:  # type: ignore[no-untyped-def]
    assert corpus_report.failed == []
    indexed = {r[0] for r in query(corpus_db, "SELECT path FROM documents")}
    assert set(CORPUS_FILES) <= indexed, sorted(set(CORPUS_FILES) - indexed)


@pytest.mark.parametrize("indexed", CONFIGS, ids=_ids, indirect=True)
def test_chunks_tile_the_file(indexed: tuple[Path, int, int, str]) -> None:
    db, doc_id, _, path = indexed
    assert check_document_chunks(db, doc_id, file_lines(REPO / path)) == []


@pytest.mark.parametrize("indexed", CONFIGS, ids=_ids, indirect=True)
def test_chunks_stay_in_one_section(indexed: tuple[Path, int, int, str]) -> None:
    db, doc_id, _, path = indexed
    sections = _sections(db, doc_id)
    by_id = {s["id"]: s for s in sections}
    for c in _chunks(db, doc_id):
        where = f"{path} chunk {c['index']} ({c['line']}-{c['end_line']})"
        holders = [s for s in sections if s["line"] <= c["line"] <= s["end_line"]]
        if not holders:
            assert c["section_id"] is None, f"{where} is outside every section yet has one"
        else:
            innermost = max(holders, key=lambda s: s["line"])
            assert c["section_id"] == innermost["id"], (
                f"{where} belongs to {by_id.get(c['section_id'], {}).get('title')!r}, "
                f"innermost is {innermost['title']!r}"
            )
            assert c["end_line"] <= innermost["end_line"], f"{where} runs past its section's end"
        for s in sections:
            assert not c["line"] < s["line"] <= c["end_line"], (
                f"{where} spans the heading of {s['title']!r}"
            )
            assert not c["line"] <= s["end_line"] < c["end_line"], (
                f"{where} spans the end of {s['title']!r}"
            )


def _blocks(db: Path, doc_id: int) -> list[tuple[int, int]]:
    return [
        (a, b)
        for a, b in query(
            db,
            "SELECT line, end_line FROM codeblocks WHERE doc_id = ? UNION ALL "
            "SELECT line, end_line FROM tables WHERE doc_id = ?",
            (doc_id, doc_id),
        )
    ]


def _one_paragraph(lines: list[str], first: int, last: int) -> bool:
    """No blank line followed by a non-blank one inside first..last."""
    return not any(
        not lines[n - 2].strip() and lines[n - 1].strip() for n in range(first + 1, last + 1)
    )


@pytest.mark.parametrize("indexed", CONFIGS, ids=_ids, indirect=True)
def test_chunk_size_limit(indexed: tuple[Path, int, int, str]) -> None:
    db, doc_id, max_chars, path = indexed
    lines = file_lines(REPO / path)
    blocks = _blocks(db, doc_id)
    headings = {r[0] for r in query(db, "SELECT line FROM sections WHERE doc_id = ?", (doc_id,))}
    for c in _chunks(db, doc_id):
        assert len(c["content"]) <= chunk_bound(max_chars)
        if len(c["content"]) <= max_chars:
            continue
        # A heading (and the comments after it) comes along with the block it opens.
        first = _after_lead(lines, c["line"], c["end_line"], headings)
        single_line = first == c["end_line"]
        in_block = any(a <= first and c["end_line"] <= b for a, b in blocks)
        assert single_line or in_block or _one_paragraph(lines, first, c["end_line"]), (
            f"{path} chunk {c['index']} ({c['line']}-{c['end_line']}) has {len(c['content'])} "
            f"chars > {max_chars} and is not one line, block or paragraph (after its heading "
            f"and comments)"
        )


def _after_lead(lines: list[str], first: int, last: int, headings: set[int]) -> int:
    """The first line of a chunk after its leading heading, blank and comment lines."""
    n = first
    if n in headings:
        n += 2 if n < last and set(lines[n].strip()) <= {"=", "-"} and lines[n].strip() else 1
    while n < last:
        text = lines[n - 1].strip()
        if text.startswith("<!--"):
            while n < last and "-->" not in lines[n - 1]:
                n += 1
            n += 1
        elif not text:
            n += 1
        else:
            break
    return min(n, last)


@pytest.mark.parametrize("indexed", CONFIGS, ids=_ids, indirect=True)
def test_small_code_blocks_are_not_split(indexed: tuple[Path, int, int, str]) -> None:
    db, doc_id, max_chars, path = indexed
    lines = file_lines(REPO / path)
    starts = {c["line"] for c in _chunks(db, doc_id)}
    for a, b in query(db, "SELECT line, end_line FROM codeblocks WHERE doc_id = ?", (doc_id,)):
        if len(lines_text(lines, a, b)) <= max_chars:
            inner = sorted(starts & set(range(a + 1, b + 1)))
            assert not inner, (
                f"{path}: code block {a}-{b} fits in {max_chars} chars but chunks start at {inner}"
            )


def test_small_config_really_splits(small_db: Path) -> None:
    """Guard: the small configuration must exercise splitting, or the tests above prove little."""
    split_sections = query(
        small_db,
        "SELECT count(*) FROM (SELECT section_id FROM chunks WHERE section_id IS NOT NULL "
        "GROUP BY section_id HAVING count(*) > 1)",
    )[0][0]
    assert split_sections >= 10
    split_blocks = 0
    for doc_id, a, b in query(small_db, "SELECT doc_id, line, end_line FROM codeblocks"):
        starts = {
            r[0] for r in query(small_db, "SELECT line FROM chunks WHERE doc_id = ?", (doc_id,))
        }
        split_blocks += bool(starts & set(range(a + 1, b + 1)))
    assert split_blocks >= 1, "no code block was large enough to be split; lower SMALL_MAX"


# -- synthetic cases, expectations by hand ----------------------------------------------
INTRO = "Intro text " * 6  # 66 characters


def _doc_chunks(index: TmpIndex, name: str) -> list[tuple[int, int, str]]:
    return index.query(
        """SELECT c.line, c.end_line, c.content FROM chunks c JOIN documents d ON d.id = c.doc_id
                          WHERE d.path = ? ORDER BY c.chunk_index""",
        (f"docs/{name}",),
    )


FENCE4 = "```py\nx = 1\ny = 2\nz = 3\nw = 4\n```"
FENCE_BLANKS = "```\nline a\n\nline b\n\nline c\n```"
TABLE = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"
P = INTRO.strip()
YAML = "<!-- YAML\nadded: v0.0.2\nchanges:\n  - version: v15.4.0\n    description: fd\n-->"


# `want`: each chunk's content with surrounding blank lines stripped (where a blank line
# between two paragraphs goes is not specified; which lines go together is).
@pytest.mark.parametrize(
    "name, text, max_chars, want",
    [
        # a fence right after a paragraph line (no blank line): 105 chars together, the fence
        # alone is 38; the cut goes before the fence, not through it
        ("para-fence.md", "# A\n" + INTRO + "\n" + FENCE4 + "\n", 100, ["# A\n" + P, FENCE4]),
        # the same with a table
        ("para-table.md", "# A\n" + INTRO + "\n" + TABLE + "\n", 100, ["# A\n" + P, TABLE]),
        # paragraphs are cut at blank lines: a heading and 3 paragraphs of 67 chars
        ("paragraphs.md", "# P\n\n" + "\n\n".join([INTRO] * 3) + "\n", 100, ["# P\n\n" + P, P, P]),
        # a fence that fits stays whole even though the section does not
        ("fits.md", "# F\n\n" + INTRO + "\n\n" + FENCE4 + "\n", 100, ["# F\n\n" + P, FENCE4]),
        # blank lines inside a fence are not paragraph breaks (104 chars in all, the fence 31)
        (
            "fence-blank-lines.md",
            "# S\n\n" + INTRO + "\n\n" + FENCE_BLANKS + "\n",
            100,
            ["# S\n\n" + P, FENCE_BLANKS],
        ),
        # a heading and an HTML comment block (Node's `<!-- YAML -->` history) stick to
        # the block after them: no heading-only or comment-only chunk
        (
            "yaml.md",
            "## fs.open(path)\n\n" + YAML + "\n\n" + INTRO + "\n\n" + INTRO + "\n",
            200,
            ["## fs.open(path)\n\n" + YAML + "\n\n" + P, P],
        ),
        (
            "comment-mid.md",
            "# C\n\n" + INTRO + "\n\n<!-- a note -->\n\n" + INTRO + "\n",
            100,
            ["# C\n\n" + P, "<!-- a note -->\n\n" + P],
        ),
        # everything fits: one chunk per section's own text
        ("whole.md", "# W\ntext\n\n## S\nmore\n", 1500, ["# W\ntext", "## S\nmore"]),
    ],
)
def test_split_points(
    tmp_index: TmpIndex, name: str, text: str, max_chars: int, want: list[str]
) -> None:
    tmp_index.write(name, text)
    tmp_index.index(max_chars=max_chars)
    got = _doc_chunks(tmp_index, name)
    assert [c.strip("\n").rstrip() for _, _, c in got] == want
    lines = text.split("\n")
    for a, b, content in got:
        assert content == "".join(line + "\n" for line in lines[a - 1 : b])


def test_oversized_fence_is_split_in_pieces_that_fit(tmp_index: TmpIndex) -> None:
    body = "".join(f"value_{i:02d} = {i}\n" for i in range(40))  # 40 lines of 14 chars
    text = "# Big\n\n```python\n" + body + "```\n\nAfter.\n"
    tmp_index.write("big.md", text)
    tmp_index.index(max_chars=120)
    got = _doc_chunks(tmp_index, "big.md")
    assert len(got) > 4
    assert all(len(c) <= 120 for _, _, c in got)
    assert "".join(c for _, _, c in got) == text


def test_single_huge_line_is_one_chunk(tmp_index: TmpIndex) -> None:
    text = "# Long\n\n" + "word " * 100 + "\n\nshort\n"
    tmp_index.write("long.md", text)
    tmp_index.index(max_chars=80)
    got = _doc_chunks(tmp_index, "long.md")
    # the line is not cut, its heading comes along (no heading-only chunk), and the blank
    # line after it is no chunk of its own
    assert [(a, b) for a, b, _ in got] == [(1, 4), (5, 5)]
    assert "".join(c for _, _, c in got) == text


BOUND = MAX_LINE_CHARS


@pytest.mark.parametrize(
    "line",
    [
        "word " * 10_000,  # cut after a space, words kept whole
        "x" * 40_000,  # no whitespace: cut exactly at the bound
        "架构" * 15_000 + " tail",  # CJK, one space near the end
        "a " * 4_000 + "b" * 30_000,  # the only spaces are in the first half of the window
    ],
    ids=["words", "no-space", "cjk", "early-spaces"],
)
def test_line_longer_than_the_bound_is_cut_into_pieces(tmp_index: TmpIndex, line: str) -> None:
    text = "# Long\n\n" + line + "\n\nshort\n"
    tmp_index.write("long.md", text)
    tmp_index.index(max_chars=80)
    ((doc_id,),) = tmp_index.query("SELECT id FROM documents")
    assert check_document_chunks(tmp_index.db, doc_id, file_lines(tmp_index.docs / "long.md")) == []
    got = _doc_chunks(tmp_index, "long.md")
    pieces = [c for a, b, c in got if (a, b) == (3, 3)]
    assert len(pieces) >= len(line) // BOUND + 1
    assert all(len(c) <= BOUND for _, _, c in got)
    # pieces of about equal length: none short enough to pass for prose (the last one of
    # fixed windows could be a few characters)
    assert all(long_line(c) for c in pieces) and max(map(len, pieces)) - min(map(len, pieces)) < (
        BOUND // 4
    )
    assert "".join(pieces) == line + "\n"
    assert "".join(c for _, _, c in got) == text
    if line.startswith("word"):
        assert all(p.endswith((" ", "\n")) for p in pieces), "a word was cut"


def test_front_matter_only_document_has_no_chunks(tmp_index: TmpIndex) -> None:
    tmp_index.write("fm.md", "---\ntitle: Only front matter\n---\n")
    report = tmp_index.index()
    assert report.failed == []
    ((doc_id, lines, body_line),) = tmp_index.query("SELECT id, lines, body_line FROM documents")
    assert (lines, body_line) == (3, 4)
    assert tmp_index.scalar("SELECT count(*) FROM chunks WHERE doc_id = ?", (doc_id,)) == 0
    assert check_document_chunks(tmp_index.db, doc_id, file_lines(tmp_index.docs / "fm.md")) == []


# -- heading-only chunks (issue 10 item 4) ------------------------------------------------
NODE_SHAPED = REPO / "tests" / "fixtures" / "node_shaped.md"


def _real_lines(text: str) -> list[str]:
    """The lines of `text` that say something: no heading, blank or HTML comment lines."""
    real: list[str] = []
    in_comment = False
    for line in text.split("\n"):
        stripped = line.strip()
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        if stripped and not stripped.startswith("#"):
            real.append(stripped)
    return real


@pytest.mark.parametrize("max_chars", [1500, 800, 400])
def test_node_shaped_page_has_no_heading_only_chunk(tmp_index: TmpIndex, max_chars: int) -> None:
    """A chunk holds real text unless its whole section has none: a heading and the
    `<!-- YAML -->` history after it come with the section's first block, and a comment
    never makes a chunk of its own (the saved page made 1 heading-only and 1 comment-only
    chunk at 1,500 characters before)."""
    text = NODE_SHAPED.read_text(encoding="utf-8")
    lines = text.split("\n")
    tmp_index.write("node.md", text)
    tmp_index.index(max_chars=max_chars)
    rows = tmp_index.query(
        """SELECT c.line, c.end_line, c.content, s.line, s.own_end_line FROM chunks c
           JOIN sections s ON s.id = c.section_id ORDER BY c.chunk_index"""
    )
    assert len(rows) > 8
    for line, end_line, content, section_line, own_end in rows:
        section_text = "\n".join(lines[section_line - 1 : own_end])
        if not _real_lines(section_text):
            continue  # `subprocess.ref()`: a heading and its history, nothing else
        assert _real_lines(content), f"chunk {line}-{end_line} has no text of its own"
    by_start = {line: content for line, _, content, _, _ in rows}
    # the 1.5 KB history stays between its heading and the argument list it belongs to
    assert by_start[7].startswith("## `assert.deepEqual(actual")
    assert "* `actual` {any}" in by_start[7] and "-->" in by_start[7]
    assert "* `command` {string}" in by_start[103]
    # a trailing comment stays with the text before it
    assert "<!-- TODO" in by_start[215] and "lets the parent exit" in by_start[215]
