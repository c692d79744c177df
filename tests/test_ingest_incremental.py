"""Incremental indexing: unchanged, touched, modified, deleted and renamed files; globs and
ignored folders; idempotence; and an index run killed with SIGKILL part-way through.

The FTS table is contentless, so a stale row can hide: `integrity-check` cannot see a
delete that supplied the wrong text. Hence every change is also checked with a MATCH
for a word that left the corpus, and with chunks_fts rowids = chunks ids.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import apsw
import pytest
from conftest import DOC_TABLES, TmpIndex, check_document_chunks, file_lines, row_counts

DOCS = {
    "a.md": "# Alpha Doc\n\nThe aardvark eats ants.\n\n## Details\n\nMore about aardvarks.\n",
    "b.md": "# Old Heading\n\nA zebrafish swims here.\n\n## 架构\n\n本章描述架构设计。\n",
    "c.md": "# Gamma\n\nThe capybara sits in water.\n",
}


def fts_ids(db: Path, match: str) -> list[int]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [
            r[0]
            for r in conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (match,))
        ]
    finally:
        conn.close()


def assert_consistent(index: TmpIndex) -> None:
    """No orphan rows, FTS rows = chunks, FTS structure ok, every document's chunks
    tile its file."""
    for table in DOC_TABLES:
        orphans = index.scalar(
            f"SELECT count(*) FROM {table} WHERE doc_id NOT IN (SELECT id FROM documents)"
        )
        assert orphans == 0, f"{orphans} orphan rows in {table}"
    assert (
        index.scalar(
            "SELECT count(*) FROM sections WHERE parent_id IS NOT NULL AND parent_id NOT IN "
            "(SELECT id FROM sections)"
        )
        == 0
    )
    assert index.scalar("SELECT count(*) FROM documents") == index.scalar(
        "SELECT count(DISTINCT uri) FROM documents"
    )
    fts = {r[0] for r in index.query("SELECT rowid FROM chunks_fts")}
    chunks = {r[0] for r in index.query("SELECT id FROM chunks")}
    assert fts == chunks
    assert index.scalar("SELECT count(*) FROM chunks_fts") == len(chunks)
    conn = apsw.Connection(str(index.db))
    try:
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')")
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    for doc_id, path in index.query("SELECT id, path FROM documents"):
        source = index.root / path
        lines = file_lines(source) if source.exists() else None
        assert check_document_chunks(index.db, doc_id, lines) == []


@pytest.fixture
def three(tmp_index: TmpIndex) -> TmpIndex:
    tmp_index.write_many(DOCS)
    report = tmp_index.index()
    assert sorted(report.added) == ["docs/a.md", "docs/b.md", "docs/c.md"]
    assert report.unchanged == 0 and report.failed == []
    return tmp_index


def test_rerun_skips_unchanged(three: TmpIndex) -> None:
    before = three.query("SELECT path, indexed_at, sha256 FROM documents ORDER BY path")
    report = three.index()
    assert report.unchanged == 3
    assert (report.added, report.updated, report.removed, report.failed) == ([], [], [], [])
    assert three.query("SELECT path, indexed_at, sha256 FROM documents ORDER BY path") == before


def test_touched_but_identical_file_is_unchanged(three: TmpIndex) -> None:
    path = three.docs / "a.md"
    st = path.stat()
    new_mtime = st.st_mtime_ns + 7_000_000_000
    os.utime(path, ns=(new_mtime, new_mtime))
    ((old_id,),) = three.query("SELECT id FROM documents WHERE path = 'docs/a.md'")
    report = three.index()
    assert report.unchanged == 3 and report.updated == [] and report.added == []
    # the hash matched, so the stored row was kept (same id) and only its mtime moved
    assert three.query("SELECT id, mtime_ns FROM documents WHERE path = 'docs/a.md'") == [
        (old_id, new_mtime)
    ]
    assert three.index().unchanged == 3


def test_modified_file_is_replaced(three: TmpIndex) -> None:
    assert fts_ids(three.db, "zebrafish") and fts_ids(three.db, '"架 构"')
    counts = three.counts()
    three.write(
        "b.md", "# New Heading\n\nA quokka smiles here, happily.\n\n## 设计\n\n本章描述存储。\n"
    )
    report = three.index()
    assert report.updated == ["docs/b.md"] and report.unchanged == 2
    assert fts_ids(three.db, "zebrafish") == []
    assert fts_ids(three.db, "title:old") == []
    assert fts_ids(three.db, '"架 构"') == []
    quokka = fts_ids(three.db, "quokka")
    assert len(quokka) == 1
    assert three.query(
        "SELECT d.path FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id = ?", quokka
    ) == [("docs/b.md",)]
    assert fts_ids(three.db, "title:new") != []
    assert [
        r[0]
        for r in three.query("""SELECT s.title FROM sections s JOIN documents d ON d.id = s.doc_id
                                         WHERE d.path = 'docs/b.md' ORDER BY s.ord""")
    ] == ["New Heading", "设计"]
    assert three.scalar("SELECT count(*) FROM documents WHERE path = 'docs/b.md'") == 1
    after = three.counts()
    assert after["documents"] == counts["documents"] == 3
    assert after["chunks"] == counts["chunks"] and after["sections"] == counts["sections"]
    assert_consistent(three)


def test_deleted_file_is_removed_everywhere(three: TmpIndex) -> None:
    ((doc_id,),) = three.query("SELECT id FROM documents WHERE path = 'docs/c.md'")
    assert fts_ids(three.db, "capybara")
    (three.docs / "c.md").unlink()
    report = three.index()
    assert report.removed == ["docs/c.md"] and report.unchanged == 2
    assert three.paths() == ["docs/a.md", "docs/b.md"]
    for table in DOC_TABLES:
        assert three.scalar(f"SELECT count(*) FROM {table} WHERE doc_id = ?", (doc_id,)) == 0, table
    assert fts_ids(three.db, "capybara") == []
    assert_consistent(three)


def test_renamed_file(three: TmpIndex) -> None:
    (three.docs / "a.md").rename(three.docs / "renamed.md")
    report = three.index()
    assert report.added == ["docs/renamed.md"] and report.removed == ["docs/a.md"]
    assert three.paths() == ["docs/b.md", "docs/c.md", "docs/renamed.md"]
    hits = fts_ids(three.db, "aardvark")
    assert hits and {
        r[0]
        for r in three.query(
            f"SELECT d.path FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN "
            f"({','.join('?' * len(hits))})",
            hits,
        )
    } == {"docs/renamed.md"}
    assert_consistent(three)


def test_index_twice_gives_identical_rows(three: TmpIndex) -> None:
    def snapshot() -> tuple[object, ...]:
        return (
            three.counts(),
            three.query(
                "SELECT d.path, s.ord, s.title, s.number, s.anchor, s.line, s.end_line FROM "
                "sections s "
                "JOIN documents d ON d.id = s.doc_id ORDER BY 1, 2"
            ),
            three.query(
                "SELECT d.path, c.chunk_index, c.line, c.end_line, c.content FROM chunks c "
                "JOIN documents d ON d.id = c.doc_id ORDER BY 1, 2"
            ),
        )

    first = snapshot()
    three.index()
    assert snapshot() == first
    # and a forced re-parse of everything (touched, so the hash path runs) changes nothing either
    for name in DOCS:
        os.utime(three.docs / name, ns=(1_000_000_000, 1_000_000_000))
    three.index()
    assert snapshot() == first
    assert_consistent(three)


def test_failed_file_recovers_and_deleted_failure_is_forgotten(tmp_index: TmpIndex) -> None:
    tmp_index.write("ok.md", "# Fine\n")
    tmp_index.write("later.md", b"\xff\xfe\x00\x00broken")
    tmp_index.write("gone.md", b"\x00\x01binary")
    report = tmp_index.index()
    assert {p for p, _ in report.failed} == {"docs/later.md", "docs/gone.md"}
    tmp_index.write("later.md", "# Now it has text\n")
    (tmp_index.docs / "gone.md").unlink()
    report = tmp_index.index()
    assert report.failed == [] and report.added == ["docs/later.md"]
    assert tmp_index.errors() == {}
    assert tmp_index.paths() == ["docs/later.md", "docs/ok.md"]


# -- which files -----------------------------------------------------------------------
TREE = {
    "keep.md": "# Keep\n",
    "notes.txt": "plain text notes\n",
    "drafts/draft.md": "# Draft\n",
    "sub/deep/page.md": "# Deep\n",
    ".git/HEAD.md": "# git internals\n",
    # Left out by the ignore file, not by their names (a directory called `build` or
    # `node_modules` is indexed when no ignore file names it; test_walk.py).
    ".gitignore": "node_modules/\n",
    "node_modules/pkg/README.md": "# a dependency\n",
    "sub/node_modules/x/index.md": "# nested dependency\n",
    "image.png": b"\x89PNG\r\n\x1a\n",
}


@pytest.mark.parametrize(
    "include, exclude, want",
    [
        (
            (),
            (),
            ["docs/drafts/draft.md", "docs/keep.md", "docs/notes.txt", "docs/sub/deep/page.md"],
        ),
        (("*.md",), (), ["docs/drafts/draft.md", "docs/keep.md", "docs/sub/deep/page.md"]),
        (("*.txt",), (), ["docs/notes.txt"]),
        ((), ("drafts",), ["docs/keep.md", "docs/notes.txt", "docs/sub/deep/page.md"]),
        ((), ("docs/drafts",), ["docs/keep.md", "docs/notes.txt", "docs/sub/deep/page.md"]),
        ((), ("docs/drafts/*",), ["docs/keep.md", "docs/notes.txt", "docs/sub/deep/page.md"]),
        ((), ("*.txt", "sub"), ["docs/drafts/draft.md", "docs/keep.md"]),
        (("*.md",), ("keep.md",), ["docs/drafts/draft.md", "docs/sub/deep/page.md"]),
        (("docs/sub/*",), (), ["docs/sub/deep/page.md"]),
    ],
)
def test_include_exclude_and_ignored_dirs(
    tmp_index: TmpIndex, include: tuple[str, ...], exclude: tuple[str, ...], want: list[str]
) -> None:
    tmp_index.write_many(TREE)
    report = tmp_index.index(include=include, exclude=exclude)
    assert report.failed == []
    assert tmp_index.paths() == want


def test_excluding_later_keeps_the_documents_unless_pruned(tmp_index: TmpIndex) -> None:
    """A narrower filter never deletes silently: the documents stay and are counted;
    `prune` removes them (issue 8, item 12)."""
    tmp_index.write_many(TREE)
    tmp_index.index()
    report = tmp_index.index(exclude=("drafts",))
    assert report.removed == [] and report.outside_filters == 1
    assert "docs/drafts/draft.md" in tmp_index.paths()
    report = tmp_index.index(exclude=("drafts",), prune=True)
    assert report.removed == ["docs/drafts/draft.md"]
    assert "docs/drafts/draft.md" not in tmp_index.paths()


def test_indexing_one_folder_leaves_others_alone(tmp_index: TmpIndex) -> None:
    tmp_index.write_many({"one/a.md": "# A\n", "two/b.md": "# B\n"})
    tmp_index.index("docs/one")
    tmp_index.index("docs/two")
    assert tmp_index.paths() == ["docs/one/a.md", "docs/two/b.md"]
    (tmp_index.docs / "two" / "b.md").unlink()
    tmp_index.index("docs/one")  # b.md is outside this run's roots: kept
    assert tmp_index.paths() == ["docs/one/a.md", "docs/two/b.md"]


# -- SIGKILL part-way through -------------------------------------------------------------
WORDS = (
    "index segment query token analyzer replica snapshot cursor shard ledger "
    "buffer schema vector journal commit"
).split()


def make_corpus(root: Path, files: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for n in range(files):
        parts = [f"# Document {n}\n\nIntro paragraph for document number {n}.\n"]
        for s in range(rng.randint(4, 8)):
            parts.append(f"\n## Section {s} of {n}\n\n")
            for _ in range(rng.randint(2, 5)):
                parts.append(
                    " ".join(rng.choice(WORDS) for _ in range(rng.randint(30, 60))) + ".\n\n"
                )
            if rng.random() < 0.5:
                parts.append(
                    "```python\n"
                    + "".join(
                        f"value_{i} = {i}  # {rng.choice(WORDS)}\n"
                        for i in range(rng.randint(3, 20))
                    )
                    + "```\n"
                )
            if rng.random() < 0.3:
                parts.append("\n### 架构 设计\n\n存储引擎负责写入和读取，索引结构支持全文检索。\n")
        path = root / f"d{n // 100}" / f"doc{n:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(parts), encoding="utf-8")


def start_index(db: Path, corpus: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "docql_sqlite", "index", str(db), str(corpus), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def documents_now(db: Path) -> int:
    """Rows in documents as a reader sees them; 0 while the file or table is not there yet."""
    if not db.exists():
        return 0
    try:
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            conn.set_busy_timeout(1000)
            return conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        finally:
            conn.close()
    except apsw.Error:
        return 0


def kill_when(
    proc: subprocess.Popen[bytes],
    db: Path,
    *,
    docs_over: int = 0,
    after: float | None = None,
    limit: float = 120.0,
) -> bool:
    """SIGKILL the run's process group once `documents` has > docs_over rows (or `after` seconds).

    Returns True when the run was killed, False when it had already finished."""
    started = time.monotonic()
    while proc.poll() is None and time.monotonic() - started < limit:
        if after is not None and time.monotonic() - started >= after:
            break
        if after is None and documents_now(db) > docs_over:
            break
        time.sleep(0.02)
    if proc.poll() is not None:
        return False
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return True


def check_after_crash(db: Path, corpus: Path) -> int:
    conn = apsw.Connection(str(db))  # read-write: replays the WAL like any next user would
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "documents" not in tables:  # killed before the schema transaction committed
            assert not tables & {"meta", "chunks", "chunks_fts"}, f"half a schema: {sorted(tables)}"
            return 0
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')")
        docs = conn.execute("SELECT id, uri FROM documents").fetchall()
        assert (
            conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
            == conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        )
    finally:
        conn.close()
    for doc_id, uri in docs:
        assert Path(uri).is_relative_to(corpus)
        assert check_document_chunks(db, doc_id, file_lines(uri)) == [], uri
    return len(docs)


def finish_and_check(db: Path, corpus: Path, total: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "index", str(db), str(corpus)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert check_after_crash(db, corpus) == total
    counts = row_counts(db)
    assert counts["documents"] == total and counts["ingest_errors"] == 0
    assert counts["chunks_fts"] == counts["chunks"]


CORPUS_FILES = 400


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kill") / "corpus"
    make_corpus(root, CORPUS_FILES)
    return root


def test_sigkill_mid_run_leaves_a_consistent_index(big_corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    # one worker and a short batch so that the first commit comes early and the run goes on
    proc = start_index(db, big_corpus, "--workers", "1")
    killed = kill_when(proc, db, docs_over=0)
    present = check_after_crash(db, big_corpus)
    if killed:
        assert present > 0, "killed after the first commit was seen, yet no document survived"
        if present == CORPUS_FILES:
            warnings.warn(
                "the kill came after the last commit: only the integrity part was exercised"
            )
    finish_and_check(db, big_corpus, CORPUS_FILES)


@pytest.mark.slow
@pytest.mark.parametrize(
    "point", ["db-created", "0.5s", "1.5s", "docs>100", "docs>250", "docs>399"]
)
def test_sigkill_sweep(big_corpus: Path, tmp_path: Path, point: str) -> None:
    db = tmp_path / "sweep.db"
    proc = start_index(db, big_corpus, "--workers", "2")
    if point == "db-created":
        started = time.monotonic()
        while not db.exists() and proc.poll() is None and time.monotonic() - started < 60:
            time.sleep(0.005)
        kill_when(proc, db, after=0.0)
    elif point.endswith("s"):
        kill_when(proc, db, after=float(point[:-1]))
    else:
        kill_when(proc, db, docs_over=int(point.split(">")[1]))
    if db.exists():
        check_after_crash(db, big_corpus)
    finish_and_check(db, big_corpus, CORPUS_FILES)


@pytest.mark.slow
def test_repeated_kills_then_finish(big_corpus: Path, tmp_path: Path) -> None:
    """Kill, resume, kill again... each resumed run makes progress and the end state is whole."""
    db = tmp_path / "repeated.db"
    previous = 0
    for _ in range(4):
        proc = start_index(db, big_corpus, "--workers", "1")
        killed = kill_when(proc, db, docs_over=previous + 1)
        previous = check_after_crash(db, big_corpus)
        if not killed:
            break
    finish_and_check(db, big_corpus, CORPUS_FILES)


def test_corpus_copy_helper_is_deterministic(tmp_path: Path) -> None:
    """The generated corpus is the same every time (so a failure can be reproduced)."""
    make_corpus(tmp_path / "x", 3)
    make_corpus(tmp_path / "y", 3)
    for p in (tmp_path / "x").rglob("*.md"):
        assert p.read_bytes() == (tmp_path / "y" / p.relative_to(tmp_path / "x")).read_bytes()
    shutil.rmtree(tmp_path / "y")


def test_indexing_from_another_directory_updates_paths_only(three: TmpIndex) -> None:
    from conftest import chdir

    from docql_sqlite.ingest import IngestOptions, index_paths

    ids = three.query("SELECT id, uri FROM documents ORDER BY uri")
    with chdir(three.docs):
        report = index_paths(three.db, ["."], IngestOptions(workers=2))
    assert report.unchanged == 3 and (report.added, report.updated, report.removed) == ([], [], [])
    assert three.query("SELECT id, uri FROM documents ORDER BY uri") == ids
    assert three.paths() == ["a.md", "b.md", "c.md"]
