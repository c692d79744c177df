"""Markdown TOC: headings, numbers, anchors and section extents (docql-spec §1.1-1.2).

Two sources of truth, neither taken from the implementation's output:
- `tests/expected/toc/*.json`, hand-written for every file of datasets/en/handbook and
  datasets/zh (plus two bad/ samples); see tests/expected/README.md;
- the inline cases below, each small enough to check by counting lines.

Everything goes through the real pipeline (`index_paths` → sections table).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, TmpIndex, chdir, file_lines, query

from docql_sqlite.ingest import IngestOptions, index_paths

EXPECTED_TOC = REPO / "tests" / "expected" / "toc"


def expected_toc_files() -> list[Path]:
    return sorted(EXPECTED_TOC.glob("*.json")) if EXPECTED_TOC.is_dir() else []


def source_of(expected: Path) -> str:
    """`datasets__zh__config.md.json` → `datasets/zh/config.md` (see tests/expected/README.md)."""
    return expected.name.removesuffix(".json").replace("__", "/")


def toc_rows(db: Path, path: str) -> list[dict[str, Any]]:
    rows = query(
        db,
        """SELECT s.level, s.title, s.number, s.anchor, s.line, s.end_line, s.depth, s.own_end_line,
                               s.parent_id, s.id
                        FROM sections s JOIN documents d ON d.id = s.doc_id WHERE d.path = ?
                        ORDER BY s.ord""",
        (path,),
    )
    keys = (
        "level",
        "title",
        "number",
        "anchor",
        "line",
        "end_line",
        "depth",
        "own_end_line",
        "parent_id",
        "id",
    )
    return [dict(zip(keys, r)) for r in rows]


# -- hand-written expectations for the datasets -----------------------------------------
@pytest.fixture(scope="module")
def expected_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = [source_of(p) for p in expected_toc_files()]
    if not files:
        pytest.skip("tests/expected/toc/ has no files yet")
    db = tmp_path_factory.mktemp("expected") / "toc.db"
    with chdir(REPO):
        index_paths(db, files, IngestOptions(workers=2))
    return db


def test_expected_toc_files_exist() -> None:
    files = expected_toc_files()
    assert files, "tests/expected/toc/*.json is missing"
    wanted = sorted(
        p.relative_to(REPO).as_posix()
        for d in ("datasets/en/handbook", "datasets/zh")
        for p in (REPO / d).rglob("*.md")
    )
    missing = set(wanted) - {source_of(p) for p in files}
    assert not missing, f"no expected TOC for: {sorted(missing)}"
    for p in files:
        assert (REPO / source_of(p)).is_file(), f"{p.name} names a file that does not exist"


@pytest.mark.parametrize("expected", expected_toc_files(), ids=lambda p: source_of(p))
def test_toc_matches_hand_written_expectation(expected_db: Path, expected: Path) -> None:
    path = source_of(expected)
    want = json.loads(expected.read_text(encoding="utf-8"))
    got = toc_rows(expected_db, path)
    assert got, f"{path} was not indexed or has no headings"
    keys = ("level", "title", "number", "line", "end_line")
    assert [tuple(g[k] for k in keys) for g in got] == [tuple(w[k] for k in keys) for w in want]


@pytest.mark.parametrize("expected", expected_toc_files(), ids=lambda p: source_of(p))
def test_toc_heading_lines_are_headings_in_the_file(expected_db: Path, expected: Path) -> None:
    """Cross-check against the file itself: an ATX line starts with #s, a setext one is
    underlined."""
    path = source_of(expected)
    lines = file_lines(REPO / path)
    for h in toc_rows(expected_db, path):
        text = lines[h["line"] - 1]
        atx = re.match(r" {0,3}(#{1,6})(\s|$)", text)
        if atx:
            assert len(atx.group(1)) == h["level"], (path, h)
        else:
            under = lines[h["line"]] if h["line"] < len(lines) else ""
            assert re.fullmatch(r" {0,3}(=+|-+)\s*", under), (path, h, text, under)
            assert h["level"] == (1 if "=" in under else 2)


# -- inline cases -----------------------------------------------------------------------
# (level, title, number, line, end_line); anchors are checked where given as a 6th item.
CASES: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    "setext": (
        "Title\n"  # 1
        "=====\n"  # 2
        "\n"  # 3
        "Intro.\n"  # 4
        "\n"  # 5
        "Sub A\n"  # 6
        "-----\n"  # 7
        "text a\n"  # 8
        "\n"  # 9
        "Sub B\n"  # 10
        "---\n"  # 11
        "text b\n",  # 12
        [
            (1, "Title", "1", 1, 12, "title"),
            (2, "Sub A", "1.1", 6, 9, "sub-a"),
            (2, "Sub B", "1.2", 10, 12, "sub-b"),
        ],
    ),
    "setext-two-line-title": (
        "Line one\n"  # 1
        "line two\n"  # 2
        "===\n"  # 3
        "\n"  # 4
        "body\n",  # 5
        [(1, "Line one line two", "1", 1, 5, "line-one-line-two")],
    ),
    "fences": (
        "# Fences\n"  # 1
        "\n"  # 2
        "```sh\n"  # 3
        "# not a heading\n"  # 4
        "```\n"  # 5
        "\n"  # 6
        "~~~\n"  # 7
        "## not either\n"  # 8
        "~~~\n"  # 9
        "\n"  # 10
        "````md\n"  # 11
        "```\n"  # 12
        "# still code\n"  # 13
        "```\n"  # 14
        "````\n"  # 15
        "\n"  # 16
        "    # indented code\n"  # 17
        "\n"  # 18
        "Text\n"  # 19
        "---\n"  # 20  setext underline → "Text" is a heading...
        "\n"  # 21
        "## Real\n"  # 22
        "#not-a-heading\n"  # 23
        "\\# escaped\n"  # 24
        "####### seven\n",  # 25
        [
            (1, "Fences", "1", 1, 25, "fences"),
            (2, "Text", "1.1", 19, 21, "text"),
            (2, "Real", "1.2", 22, 25, "real"),
        ],
    ),
    "html-blocks": (
        "<div>\n"  # 1
        "# not a heading\n"  # 2
        "</div>\n"  # 3
        "\n"  # 4
        "# Real\n"  # 5
        "<!-- YAML\n"  # 6
        "# added: v1.0\n"  # 7
        "-->\n"  # 8
        "\n"  # 9
        "## Sub\n"  # 10
        "text\n",  # 11
        [(1, "Real", "1", 5, 11, "real"), (2, "Sub", "1.1", 10, 11, "sub")],
    ),
    "front-matter": (
        "---\n"  # 1
        "# a yaml comment\n"  # 2
        "title: FM Title\n"  # 3
        "tags: [alpha, beta]\n"  # 4
        "---\n"  # 5
        "\n"  # 6
        "# Heading\n"  # 7
        "body\n",  # 8
        [(1, "Heading", "1", 7, 8, "heading")],
    ),
    "starts-at-h2": (
        "## First\n"  # 1
        "text\n"  # 2
        "### Deep\n"  # 3
        "## Second\n",  # 4
        [(2, "First", "1", 1, 3), (3, "Deep", "1.1", 3, 3), (2, "Second", "2", 4, 4)],
    ),
    "skipped-level": (
        "# Top\n"  # 1
        "### Skipped\n"  # 2
        "text\n"  # 3
        "## Back\n",  # 4
        # the missing level counts as 1, so the next ## is the second one under Top
        [(1, "Top", "1", 1, 4), (3, "Skipped", "1.1.1", 2, 3), (2, "Back", "1.2", 4, 4)],
    ),
    "six-levels": (
        "# a\n## b\n### c\n#### d\n##### e\n###### f\n",
        [
            (1, "a", "1", 1, 6),
            (2, "b", "1.1", 2, 6),
            (3, "c", "1.1.1", 3, 6),
            (4, "d", "1.1.1.1", 4, 6),
            (5, "e", "1.1.1.1.1", 5, 6),
            (6, "f", "1.1.1.1.1.1", 6, 6),
        ],
    ),
    "duplicates": (
        "# Examples\n"  # 1
        "## Examples\n"  # 2
        "## Examples\n"  # 3
        "## Examples 1\n",  # 4  its natural slug collides with the second duplicate's
        [
            (1, "Examples", "1", 1, 4, "examples"),
            (2, "Examples", "1.1", 2, 2, "examples-1"),
            (2, "Examples", "1.2", 3, 3, "examples-2"),
            (2, "Examples 1", "1.3", 4, 4),
        ],
    ),
    "cjk": (
        "# 架构\n"  # 1
        "## 常见问题\n"  # 2
        "## 架构\n"  # 3
        "## ？！\n"  # 4  punctuation only
        "# 架构\n",  # 5
        [
            (1, "架构", "1", 1, 4),
            (2, "常见问题", "1.1", 2, 2),
            (2, "架构", "1.2", 3, 3),
            (2, "？！", "1.3", 4, 4),
            (1, "架构", "2", 5, 5),
        ],
    ),
    "explicit-anchors": (
        "# Install Guide {#install}\n"  # 1
        "## Step One {#step-1}\n"  # 2
        "## Step Two\n"  # 3
        "## Again {#install}\n",  # 4  a repeated explicit id still ends up unique
        [
            (1, "Install Guide", "1", 1, 4, "install"),
            (2, "Step One", "1.1", 2, 2, "step-1"),
            (2, "Step Two", "1.2", 3, 3, "step-two"),
            (2, "Again", "1.3", 4, 4),
        ],
    ),
    "inline-markup": (
        "# Title ##\n"  # 1 closing sequence
        "## *Emph* `code` [link](http://x)\n"  # 2
        "## Using Lumen from C#\n"  # 3 '#' not preceded by space: kept
        "## DELETE /v1/index/{name}\n",  # 4 not an {#anchor}
        [
            (1, "Title", "1", 1, 4),
            (2, "Emph code link", "1.1", 2, 2),
            (2, "Using Lumen from C#", "1.2", 3, 3),
            (2, "DELETE /v1/index/{name}", "1.3", 4, 4),
        ],
    ),
    "extents": (
        "# A\n"  # 1
        "a text\n"  # 2
        "## A.1\n"  # 3
        "### A.1.1\n"  # 4
        "x\n"  # 5
        "## A.2\n"  # 6
        "y\n"  # 7
        "# B\n"  # 8
        "b\n"  # 9
        "## B.1\n"  # 10
        "last",  # 11 (no final newline)
        [
            (1, "A", "1", 1, 7),
            (2, "A.1", "1.1", 3, 5),
            (3, "A.1.1", "1.1.1", 4, 5),
            (2, "A.2", "1.2", 6, 7),
            (1, "B", "2", 8, 11),
            (2, "B.1", "2.1", 10, 11),
        ],
    ),
    "trailing-blank-lines": (
        "# Only\n"  # 1
        "text\n"  # 2
        "\n"  # 3
        "\n",  # 4
        [(1, "Only", "1", 1, 4)],
    ),
    "preamble": (
        "Some words before any heading.\n"  # 1
        "\n"  # 2
        "# First\n"  # 3
        "body\n",  # 4
        [(1, "First", "1", 3, 4)],
    ),
}

CRLF_CASES = {
    f"{name}-crlf": (text.replace("\n", "\r\n"), want)
    for name, (text, want) in CASES.items()
    if name in ("setext", "extents", "front-matter")
}
ALL_CASES = {**CASES, **CRLF_CASES}


@pytest.fixture(scope="module")
def cases_db(tmp_path_factory: pytest.TempPathFactory) -> TmpIndex:
    root = tmp_path_factory.mktemp("toc-cases")
    index = TmpIndex(root)
    for name, (text, _) in ALL_CASES.items():
        index.write(f"{name}.md", text.encode("utf-8"))
    report = index.index()
    assert not report.failed, report.failed
    return index


@pytest.mark.parametrize("name", list(ALL_CASES))
def test_inline_toc(cases_db: TmpIndex, name: str) -> None:
    _, want = ALL_CASES[name]
    got = toc_rows(cases_db.db, f"docs/{name}.md")
    assert [(g["level"], g["title"], g["number"], g["line"], g["end_line"]) for g in got] == [
        w[:5] for w in want
    ]
    for g, w in zip(got, want):
        if len(w) > 5:
            assert g["anchor"] == w[5], (name, g)


@pytest.mark.parametrize("name", list(ALL_CASES))
def test_anchors_unique_and_non_empty(cases_db: TmpIndex, name: str) -> None:
    anchors = [g["anchor"] for g in toc_rows(cases_db.db, f"docs/{name}.md")]
    assert all(a and a.strip() == a and " " not in a for a in anchors), anchors
    assert len(set(anchors)) == len(anchors), anchors


def test_cjk_anchors_keep_the_characters(cases_db: TmpIndex) -> None:
    got = toc_rows(cases_db.db, "docs/cjk.md")
    assert got[0]["anchor"] == "架构"
    assert got[1]["anchor"] == "常见问题"
    assert "架构" in got[2]["anchor"] and got[2]["anchor"] != "架构"


def test_section_tree_columns(cases_db: TmpIndex) -> None:
    """depth, parent and own_end_line for the 'extents' case, worked out by hand."""
    got = {g["title"]: g for g in toc_rows(cases_db.db, "docs/extents.md")}
    parent = {
        t: next((p for p, g2 in got.items() if g2["id"] == g["parent_id"]), None)
        for t, g in got.items()
    }
    assert parent == {"A": None, "A.1": "A", "A.1.1": "A.1", "A.2": "A", "B": None, "B.1": "B"}
    assert {t: g["depth"] for t, g in got.items()} == {
        "A": 1,
        "A.1": 2,
        "A.1.1": 3,
        "A.2": 2,
        "B": 1,
        "B.1": 2,
    }
    assert {t: g["own_end_line"] for t, g in got.items()} == {
        "A": 2,
        "A.1": 3,
        "A.1.1": 5,
        "A.2": 7,
        "B": 9,
        "B.1": 11,
    }


def test_skipped_level_parent_is_nearest_shallower(cases_db: TmpIndex) -> None:
    got = toc_rows(cases_db.db, "docs/skipped-level.md")
    assert got[1]["parent_id"] == got[0]["id"] and got[1]["depth"] == 2
    assert got[2]["parent_id"] == got[0]["id"] and got[2]["depth"] == 2


@pytest.mark.parametrize("name", ["front-matter", "front-matter-crlf"])
def test_front_matter_is_not_chunked(cases_db: TmpIndex, name: str) -> None:
    ((doc_id, body_line, header, title),) = cases_db.query(
        "SELECT id, body_line, header_text, title FROM documents WHERE path = ?",
        (f"docs/{name}.md",),
    )
    assert body_line == 6
    assert header == "---\n# a yaml comment\ntitle: FM Title\ntags: [alpha, beta]\n---\n"
    assert title == "FM Title"
    chunks = cases_db.query(
        "SELECT line, content FROM chunks WHERE doc_id = ? ORDER BY chunk_index", (doc_id,)
    )
    assert chunks[0][0] == 6
    assert not any("FM Title" in c or "alpha" in c for _, c in chunks)
    ((data,),) = cases_db.query("SELECT data FROM frontmatter WHERE doc_id = ?", (doc_id,))
    assert json.loads(data) == {"title": "FM Title", "tags": ["alpha", "beta"]}
    hits = cases_db.query(
        "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'alpha' AND rowid IN "
        "(SELECT id FROM chunks WHERE doc_id = ?)",
        (doc_id,),
    )
    assert hits == [(0,)]


def test_preamble_chunk_has_no_section(cases_db: TmpIndex) -> None:
    rows = cases_db.query("""SELECT c.line, c.end_line, c.section_id FROM chunks c JOIN documents
      d ON d.id = c.doc_id
                             WHERE d.path = 'docs/preamble.md' ORDER BY c.chunk_index""")
    assert rows[0][:2] == (1, 2) and rows[0][2] is None
    assert all(r[2] is not None for r in rows[1:])


def test_html_block_text_is_preamble(cases_db: TmpIndex) -> None:
    rows = cases_db.query("""SELECT c.line, c.end_line, c.section_id FROM chunks c JOIN documents
      d ON d.id = c.doc_id
                             WHERE d.path = 'docs/html-blocks.md' ORDER BY c.chunk_index""")
    assert rows[0] == (1, 4, None)


def test_crlf_titles_have_no_carriage_return(cases_db: TmpIndex) -> None:
    titles = [r[0] for r in cases_db.query("SELECT title FROM sections")]
    assert titles and not any("\r" in t or "\n" in t for t in titles)
