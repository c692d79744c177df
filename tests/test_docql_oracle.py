"""grep and contains against a brute-force oracle: Python substring search over the files.

The oracle never reads chunk text from the index. It reads each Markdown file of
datasets/en and datasets/zh from disk (UTF-8, LF), drops the front matter (spec §1.3:
chunks tile every line after it), and takes only the chunk *extents* (line..end_line)
from the index, after checking that they tile the body exactly. Then:

- `$.content.grep(kw)` must return exactly the chunks whose lines contain
  `kw.casefold()` in `line.casefold()`, in document order, with `hit_line` = the first
  such line;
- `@.title ~= kw` (and startsWith / endsWith, and h1..h6) must select exactly the
  headings a Python scan of the hand-written tables of contents in tests/expected/toc/
  selects;
- `@.content ~= kw` on chunks agrees with grep.

Keywords: fixed hard cases (1- and 2-character Chinese, accented Latin in other cases,
ß/SS, punctuation that is special in LIKE/GLOB/regex) plus substrings sampled from the
files with random case changes (seeded, so failures reproduce).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO, file_lines, trigram_copy

import docql_sqlite

EXPECTED_TOC = REPO / "tests" / "expected" / "toc"
CORPORA = {"en": "datasets/en/*", "zh": "datasets/zh/*"}

FIXED_KEYWORDS = [
    # Chinese: one and two characters, longer, and punctuation
    "架",
    "构",
    "的",
    "索",
    "词",
    "架构",
    "索引",
    "关键",
    "双字",
    "关键词",
    "系统架构",
    "“",
    "（",
    "：",
    # accented Latin in other cases, ß and its expansion
    "CAFÉ",
    "café",
    "Café",
    "cafÉ",
    "É",
    "é",
    "STRASSE",
    "straße",
    "Straße",
    "STRAßE",
    "ss",
    "ß",
    "ÅNGSTRÖM",
    "ångström",
    "Ångström",
    "ÉSCLAVE",
    "ésclave",
    "Ö",
    "ö",
    "Zoë",
    "ZOË MÜLLER",
    # ASCII: case, substrings of words, and characters special to LIKE, GLOB or regexes
    "wal",
    "WAL",
    "Lumen",
    "LUMEN",
    "lumen doctor",
    "%",
    "_",
    "*",
    "?",
    "[",
    "]",
    "\\",
    "'",
    '"',
    "`",
    "|",
    "#",
    "##",
    "{#",
    "$(",
    "a",
    "e",
    "the",
    "THE END",
    "https://",
    "0.75",
    "--",
]


@dataclass(frozen=True)
class Doc:
    path: str
    lines: list[str]  # the file's lines (1-based: lines[n - 1])
    body_line: int  # first line after the front matter


def read_doc(path: str) -> Doc:
    lines = file_lines(REPO / path)
    body = 1
    if lines and lines[0] == "---":
        body = lines.index("---", 1) + 2
    return Doc(path, lines, body)


@pytest.fixture(scope="module", params=["scan", "chunk trigrams"])
def index(request, corpus_db: Path, tmp_path_factory: pytest.TempPathFactory):
    """The session's index, and a copy with the optional trigram index over the chunks
    (`index --trigram`): grep() reads candidates from it, and must give the same rows."""
    path = corpus_db
    if request.param == "chunk trigrams":
        path = trigram_copy(corpus_db, tmp_path_factory.mktemp("trigram") / "t.db")
    with docql_sqlite.open(path) as idx:
        assert idx.has_chunk_trigrams == (request.param == "chunk trigrams")
        yield idx


@pytest.fixture(scope="module")
def corpus(index) -> dict[str, tuple[Doc, list[tuple[int, int]]]]:
    """path → (the file as read from disk, chunk extents from the index) for en + zh Markdown."""
    out = {}
    for glob in CORPORA.values():
        for (path,) in index.conn.execute(
            "SELECT path FROM documents WHERE path GLOB ? ORDER BY path", (glob,)
        ):
            extents = [
                tuple(r)
                for r in index.conn.execute(
                    "SELECT c.line, c.end_line FROM chunks c JOIN documents d ON d.id = c.doc_id "
                    "WHERE d.path = ? ORDER BY c.chunk_index",
                    (path,),
                )
            ]
            out[path] = (read_doc(path), extents)
    assert len(out) == 13, sorted(out)
    return out


def test_chunk_extents_tile_each_body(corpus) -> None:
    """The oracle is only as good as the extents: they must cover body_line..end, no gaps."""
    for path, (doc, extents) in corpus.items():
        expected_line = doc.body_line
        for line, end_line in extents:
            assert line == expected_line, (path, line)
            assert end_line >= line
            expected_line = end_line + 1
        assert expected_line == len(doc.lines) + 1, path


def oracle_grep(corpus, glob: str, kw: str) -> list[dict]:
    needle = kw.casefold()
    hits = []
    for path in sorted(corpus, key=lambda p: p.encode("utf-8")):
        if not path.startswith(glob.rstrip("*")):  # the globs here are all 'folder/*'
            continue
        doc, extents = corpus[path]
        for line, end_line in extents:
            for n in range(line, end_line + 1):
                if needle in doc.lines[n - 1].casefold():
                    hits.append({"path": path, "line": line, "end_line": end_line, "hit_line": n})
                    break
    return hits


def sampled_keywords(corpus, count: int = 120, seed: int = 20261130) -> list[str]:
    rng = random.Random(seed)
    lines = [
        line
        for doc, _ in corpus.values()
        for line in doc.lines[doc.body_line - 1 :]
        if line.strip()
    ]
    out = []
    while len(out) < count:
        line = rng.choice(lines)
        size = rng.choice([1, 1, 2, 2, 3, 4, 6, 10])
        start = rng.randrange(0, max(1, len(line) - size + 1))
        kw = line[start : start + size]
        kw = rng.choice([str, str.upper, str.lower, str.swapcase, str.title])(kw)
        if kw.strip():
            out.append(kw)
    return out


def _grep(index, kw: str, glob: str) -> list[dict]:
    query = "$.content.grep(" + json.dumps(kw, ensure_ascii=False) + ")"
    return [
        {k: item[k] for k in ("path", "line", "end_line", "hit_line")}
        for item in index.query(query, path=glob)
    ]


@pytest.mark.parametrize("corpus_name", sorted(CORPORA))
@pytest.mark.parametrize("kw", FIXED_KEYWORDS)
def test_grep_fixed_keywords(index, corpus, corpus_name: str, kw: str) -> None:
    glob = CORPORA[corpus_name]
    assert _grep(index, kw, glob) == oracle_grep(corpus, glob, kw)


def test_grep_fixed_keywords_find_something(corpus) -> None:
    """The hard keywords must actually occur, or the cases above prove nothing."""
    for kw in [
        "架",
        "构",
        "架构",
        "关键词",
        "CAFÉ",
        "STRASSE",
        "straße",
        "ÅNGSTRÖM",
        "ÉSCLAVE",
        "wal",
        "%",
        "_",
        "\\",
    ]:
        assert oracle_grep(corpus, "datasets/*", kw), kw


def test_grep_sampled_keywords(index, corpus) -> None:
    mismatches = []
    for kw in sampled_keywords(corpus):
        for glob in CORPORA.values():
            got, want = _grep(index, kw, glob), oracle_grep(corpus, glob, kw)
            if got != want:
                mismatches.append((kw, glob, got[:3], want[:3]))
    assert not mismatches


def test_chunk_content_contains_agrees_with_grep(index, corpus) -> None:
    for kw in ["架构", "CAFÉ", "straße", "WAL", "ésclave", "关键词", "%"]:
        query = "$.content.chunks()[?(@.content ~= " + json.dumps(kw, ensure_ascii=False) + ")]"
        for glob in CORPORA.values():
            got = [(i["path"], i["line"]) for i in index.query(query, path=glob)]
            assert got == [(h["path"], h["line"]) for h in oracle_grep(corpus, glob, kw)], (
                kw,
                glob,
            )


# ---- titles ---------------------------------------------------------------------------------
def expected_toc() -> list[dict]:
    """Every heading of the en + zh handbooks, from the hand-written TOC files, in order."""
    out = []
    for file in sorted(EXPECTED_TOC.glob("datasets__*.json")):
        path = file.name[: -len(".json")].replace("__", "/")
        if not (path.startswith("datasets/en/") or path.startswith("datasets/zh/")):
            continue
        for heading in json.loads(file.read_text(encoding="utf-8")):
            out.append(dict(heading, path=path))
    out.sort(key=lambda h: (h["path"].encode("utf-8"), h["line"]))
    return out


TITLE_KEYWORDS = [
    "架",
    "构",
    "架构",
    "设计",
    "示例",
    "安装",
    "？",
    "design",
    "DESIGN",
    "api",
    "API",
    "Ch",
    "ch.",
    "examples",
    "e",
    "S",
    "lumen",
    "/",
    "{",
    "#",
    "I/O",
    "NFS",
    "(",
    "Ö",
    "é",
    "1",
    " ",
]


@pytest.fixture(scope="module")
def toc() -> list[dict]:
    headings = expected_toc()
    assert len(headings) > 150
    return headings


def _titles(index, op: str, kw: str) -> list[tuple[str, int]]:
    query = f"$.toc[?(@.title {op} " + json.dumps(kw, ensure_ascii=False) + ")]"
    return [
        (i["path"], i["line"]) for i in index.query(query, path=["datasets/en/*", "datasets/zh/*"])
    ]


@pytest.mark.parametrize("kw", TITLE_KEYWORDS)
def test_title_contains_matches_a_toc_scan(index, toc, kw: str) -> None:
    needle = kw.casefold()
    want = [(h["path"], h["line"]) for h in toc if needle in h["title"].casefold()]
    assert _titles(index, "~=", kw) == want
    assert _titles(index, "contains", kw) == want


@pytest.mark.parametrize("kw", TITLE_KEYWORDS)
def test_title_prefix_and_suffix_match_a_toc_scan(index, toc, kw: str) -> None:
    needle = kw.casefold()
    assert _titles(index, "startsWith", kw) == [
        (h["path"], h["line"]) for h in toc if h["title"].casefold().startswith(needle)
    ]
    assert _titles(index, "endsWith", kw) == [
        (h["path"], h["line"]) for h in toc if h["title"].casefold().endswith(needle)
    ]


@pytest.mark.parametrize("level", range(1, 7))
def test_hn_matches_a_toc_scan(index, toc, level: int) -> None:
    for kw in ["", "e", "示例", "API", "架"]:
        query = f"$.content.h{level}(" + json.dumps(kw, ensure_ascii=False) + ")"
        got = [
            (i["path"], i["line"])
            for i in index.query(query, path=["datasets/en/*", "datasets/zh/*"])
        ]
        want = [
            (h["path"], h["line"])
            for h in toc
            if h["level"] == level and kw.casefold() in h["title"].casefold()
        ]
        assert got == want, (level, kw)


def test_heading_title_tiers_match_a_toc_scan(index, toc) -> None:
    for kw in ["架构", "examples", "api", "design", "lumen", "示例", "e"]:
        needle = kw.casefold()
        scored = []
        for h in toc:
            title = h["title"].casefold()
            if needle in title:
                tier = 3 if title == needle else 2 if title.startswith(needle) else 1
                scored.append((-tier, h["path"].encode("utf-8"), h["line"], h["path"], tier))
        want = [(p, line, tier) for _, _, line, p, tier in sorted(scored)]
        query = "$.content.heading(" + json.dumps(kw, ensure_ascii=False) + ")"
        got = [
            (i["path"], i["line"], i["score"])
            for i in index.query(query, path=["datasets/en/*", "datasets/zh/*"])
        ]
        assert got == want, kw


# ---- regex grep -------------------------------------------------------------------------------
REGEXES = [
    ("Lex[a-z]+", ""),
    ("caf[eé]", "i"),
    (r"\bWAL\b", ""),
    ("架.", ""),
    (r"DEC-\d{4}", ""),
    ("^#+ ", ""),
    (r"\d+\.\d+\.\d+", ""),
    ("straße|strasse", "i"),
    ("[0-9]{4}-[0-9]{2}-[0-9]{2}", ""),
]


@pytest.mark.parametrize(("pattern", "flags"), REGEXES)
def test_regex_grep_matches_python_re(index, corpus, pattern: str, flags: str) -> None:
    compiled = re.compile(pattern, re.IGNORECASE if "i" in flags else 0)
    for glob in CORPORA.values():
        want = []
        for path in sorted(
            (p for p in corpus if p.startswith(glob.rstrip("*"))), key=lambda p: p.encode("utf-8")
        ):
            doc, extents = corpus[path]
            for line, end_line in extents:
                text = "".join(doc.lines[n - 1] + "\n" for n in range(line, end_line + 1))
                match = compiled.search(text)
                if match:
                    want.append((path, line, line + text.count("\n", 0, match.start())))
        got = [
            (i["path"], i["line"], i["hit_line"])
            for i in index.query(f"$.content.grep(/{pattern}/{flags})", path=glob)
        ]
        assert got == want, (pattern, glob)
