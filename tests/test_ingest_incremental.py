"""Incremental indexing: unchanged, touched, modified, deleted and renamed files; globs and
ignored folders; idempotence; and an index run killed with SIGKILL part-way through.

The FTS table is contentless, so a stale row can hide: `integrity-check` cannot see a
delete that supplied the wrong text. Hence every change is also checked with a MATCH
for a word that left the corpus, and with chunks_fts rowids = chunks ids.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest
from conftest import DATASETS as DATASETS_ROOT
from conftest import DOC_TABLES, TmpIndex, check_document_chunks, file_lines, row_counts
from index_states import check_after_crash_states, document_states

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


def snapshot_rows(index: TmpIndex) -> dict[str, list[tuple[object, ...]]]:
    """Everything a document is, keyed by its shown path (ids and URIs aside)."""
    return {
        "documents": index.query("SELECT path, sha256, lines FROM documents ORDER BY path"),
        "chunks": index.query(
            "SELECT d.path, c.line, c.end_line, c.content FROM chunks c "
            "JOIN documents d ON d.id = c.doc_id ORDER BY d.path, c.line"
        ),
        "sections": index.query(
            "SELECT d.path, s.title, s.level FROM sections s JOIN documents d ON d.id = s.doc_id "
            "ORDER BY d.path, s.ord"
        ),
    }


@pytest.mark.parametrize(
    "how, keep_old, expect_moved",
    [
        ("move", False, True),  # mv: same mtimes, the old place gone
        ("copy-touched", False, True),  # cp without -p, then the old place deleted: new mtimes
        ("copy", True, False),  # the old place still there: two places, both kept
    ],
)
def test_a_moved_folder_keeps_its_documents(
    tmp_path: Path, how: str, keep_old: bool, expect_moved: bool
) -> None:
    """A checkout moved (or cloned elsewhere) with its index is not indexed twice: each
    file takes over its document (same rows, same ids, so vectors stay), unchanged files
    are not parsed again, and search finds each passage once."""
    (tmp_path / "old").mkdir()
    old = TmpIndex(tmp_path / "old")
    old.write_many(DOCS)
    old.index()
    (old.docs / "c.md").write_text("# Gamma\n\nThe capybara sits in water.\n")  # same bytes
    before = snapshot_rows(old)
    ids = old.query("SELECT path, id FROM documents ORDER BY path")
    new_root = tmp_path / "new"
    if how == "move":
        old.root.rename(new_root)
    else:
        shutil.copytree(old.root, new_root, copy_function=shutil.copyfile)  # new mtimes
        if not keep_old:
            shutil.rmtree(old.root)
    moved = TmpIndex(new_root)
    report = moved.index()
    assert report.failed == [] and report.removed == []
    if expect_moved:
        assert report.added == [] and report.updated == [] and report.unchanged == 3
        assert moved.query("SELECT path, id FROM documents ORDER BY path") == ids
        uris = [r[0] for r in moved.query("SELECT uri FROM documents")]
        assert all(u.startswith(str(new_root)) for u in uris)
        assert snapshot_rows(moved) == before
        assert len(fts_ids(moved.db, "capybara")) == 1
    else:
        assert sorted(report.added) == ["docs/a.md", "docs/b.md", "docs/c.md"]
        assert moved.scalar("SELECT count(*) FROM documents") == 6
    assert_consistent(moved)
    # and the moved index keeps working incrementally: an edit there is an update
    (moved.docs / "a.md").write_text("# Alpha Doc\n\nThe okapi eats leaves.\n")
    again = moved.index()
    assert again.updated == ["docs/a.md"]
    assert len(fts_ids(moved.db, "okapi")) == 1


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


# The CLI has no flag for the write batch (up to 200 files or 1 s): on a quiet machine one
# batch holds a whole 150-file run, leaving no moment to kill it part-way. These runs go
# through the Python API in a child process, with IngestOptions.batch_docs made small.
SMALL_BATCH_INDEX = (
    "import sys, docql_sqlite; "
    "docql_sqlite.index(sys.argv[1], [sys.argv[2]], max_chars=int(sys.argv[3]), workers=1, "
    "batch_docs=int(sys.argv[4]))"
)


def start_small_batch_index(
    db: Path, corpus: Path, chunk_chars: int, batch_docs: int = 5
) -> subprocess.Popen[bytes]:
    """An index run (one worker) that commits every `batch_docs` files."""
    return subprocess.Popen(
        [sys.executable, "-c", SMALL_BATCH_INDEX, str(db), str(corpus), str(chunk_chars)]
        + [str(batch_docs)],
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


# -- an interrupted --chunk-chars change (issue 11, item 4) ----------------------------
MID_FILES = 150  # enough for a run to be caught part-way, small enough for the normal suite


@pytest.fixture(scope="module")
def mid_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mid") / "corpus"
    make_corpus(root, MID_FILES, seed=11)
    return root


@pytest.fixture(scope="module")
def chunked_1500(mid_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus indexed with the default chunk size (copied by each test)."""
    db = tmp_path_factory.mktemp("chunked") / "base.db"
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "index", str(db), str(mid_corpus)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture(scope="module")
def chunked_300(mid_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> set[tuple]:
    """The chunk boundaries of an uninterrupted --chunk-chars 300 run: the oracle."""
    db = tmp_path_factory.mktemp("chunked300") / "ref.db"
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "index", str(db), str(mid_corpus)]
        + ["--chunk-chars", "300"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return chunk_boundaries(db)


def chunk_boundaries(db: Path) -> set[tuple]:
    """(uri, chunk_index, line, end_line, length) of every chunk."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return set(
            conn.execute(
                "SELECT d.uri, c.chunk_index, c.line, c.end_line, length(c.content) "
                "FROM chunks c JOIN documents d ON d.id = c.doc_id"
            )
        )
    finally:
        conn.close()


def copy_index(source: Path, target: Path) -> Path:
    for suffix in ("", "-wal"):
        if Path(str(source) + suffix).exists():
            shutil.copyfile(str(source) + suffix, str(target) + suffix)
    return target


def rewritten_since(db: Path, base_max_id: int) -> int:
    """Documents replaced since the base index (a replaced document gets a new, larger id)."""
    try:
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            conn.set_busy_timeout(1000)
            return conn.execute(
                "SELECT count(*) FROM documents WHERE id > ?", (base_max_id,)
            ).fetchone()[0]
        finally:
            conn.close()
    except apsw.Error:
        return 0


def row_value(db: Path, sql: str) -> int:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def index_json(db: Path, corpus: Path, *extra: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "index", str(db), str(corpus), "--json", *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)[0]


def test_killed_chunk_size_change_is_finished_by_the_next_run(
    mid_corpus: Path, chunked_1500: Path, chunked_300: set[tuple], tmp_path: Path
) -> None:
    db = copy_index(chunked_1500, tmp_path / "resize.db")
    base_max_id = row_value(db, "SELECT max(id) FROM documents")
    assert chunk_boundaries(db) != chunked_300
    proc = start_small_batch_index(db, mid_corpus, 300)
    started = time.monotonic()
    while proc.poll() is None and time.monotonic() - started < 120:
        if rewritten_since(db, base_max_id) > 10:
            break
        time.sleep(0.02)
    if proc.poll() is not None:
        pytest.skip("the run finished before it could be killed")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    done_before = rewritten_since(db, base_max_id)
    if done_before >= MID_FILES:  # the kill came too late (batches of 5 make this rare)
        pytest.skip("the kill came after every document was rewritten")
    assert 0 < done_before < MID_FILES
    assert check_after_crash(db, mid_corpus) == MID_FILES  # each document old or new
    summary = index_json(db, mid_corpus, "--chunk-chars", "300")
    assert summary["updated"] + summary["unchanged"] == MID_FILES
    assert summary["updated"] >= MID_FILES - done_before  # the unfinished ones, at least
    assert chunk_boundaries(db) == chunked_300  # every document now has the new chunking
    assert index_json(db, mid_corpus, "--chunk-chars", "300")["unchanged"] == MID_FILES


def test_concurrent_run_does_not_call_unfinished_work_unchanged(
    mid_corpus: Path, chunked_1500: Path, chunked_300: set[tuple], tmp_path: Path
) -> None:
    db = copy_index(chunked_1500, tmp_path / "concurrent.db")
    base_max_id = row_value(db, "SELECT max(id) FROM documents")
    first = start_small_batch_index(db, mid_corpus, 300)
    try:
        started = time.monotonic()
        while first.poll() is None and time.monotonic() - started < 120:
            if rewritten_since(db, base_max_id) > 5:
                break
            time.sleep(0.02)
        if first.poll() is not None or rewritten_since(db, base_max_id) >= MID_FILES:
            pytest.skip("the first run finished before the second could start")
        second = index_json(db, mid_corpus, "--chunk-chars", "300")
        # When the second run returns, the change is complete, whoever did the work: it
        # must not call the first run's unfinished documents "unchanged".
        assert chunk_boundaries(db) == chunked_300
        assert second["updated"] + second["unchanged"] == MID_FILES
    finally:
        first.wait(timeout=300)
    assert first.returncode == 0, first.stderr.read() if first.stderr else ""
    assert check_after_crash(db, mid_corpus) == MID_FILES


# -- a full disk (issue 11, item 12) -------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MB tmpfs (root only): too small for the index of the 150-file corpus."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("needs root and mount(8) for a small tmpfs")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_stops_with_a_message_and_the_next_run_finishes(
    mid_corpus: Path, small_disk: Path
) -> None:
    db = small_disk / "index.db"
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "index", str(db), str(mid_corpus)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 4  # a full disk (README, exit codes)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no space left to write"), done.stderr
    assert "run the same index command again" in lines[0]
    present = check_after_crash(db, mid_corpus)  # what was committed is whole
    assert present < MID_FILES
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    finish_and_check(db, mid_corpus, MID_FILES)
    assert Path(str(db) + "-wal").stat().st_size == 0  # checkpointed at the end of the run


# -- crash harness: SIGKILL at random points on a real corpus (slow) ------------------------
NODE_DOCS = Path("/work/cache/corpora/x/nodejs-doc/usr/share/doc/nodejs/api")
KILL_POINTS = int(os.environ.get("DOCQL_KILL_POINTS", "20"))


def crash_corpus(target: Path) -> Path:
    """A real corpus copied to `target`: DOCQL_CRASH_CORPUS (Markdown under it), else the
    Node.js API docs when cached here (see notes/corpora.md), else this repo's datasets."""
    source = Path(os.environ.get("DOCQL_CRASH_CORPUS", NODE_DOCS))
    if not source.is_dir():
        source = DATASETS_ROOT
    files = sorted(p for p in source.rglob("*.md") if p.is_file() and not p.is_symlink())
    for path in files:
        copy = target / path.relative_to(source)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
    return target


def change_corpus(root: Path, seed: int = 3) -> None:
    """Version B of a corpus: about a third of the files edited, a few deleted and added."""
    rng = random.Random(seed)
    files = sorted(root.rglob("*.md"))
    for n, path in enumerate(files):
        roll = rng.random()
        if roll < 0.05:
            path.unlink()
        elif roll < 0.35:
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            cut = text.find("\n\n", len(text) // 3)
            text = text[:cut] + f"\n\n## Edited section {n}\n\nrevised text {n}\n" + text[cut:]
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
    for n in range(5):
        (root / f"added-{n}.md").write_text(f"# Added {n}\n\nnew file {n}\n", encoding="utf-8")


def timed_index(db: Path, corpus: Path) -> float:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "index", str(db), str(corpus)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return time.monotonic() - started


@pytest.mark.slow
def test_crash_harness_random_kill_points(tmp_path: Path) -> None:
    """SIGKILL `index` (version A -> B of a real corpus) at KILL_POINTS random moments.

    After each kill: integrity_check and the FTS integrity-check pass, every document is
    in its version-A or its version-B state (never a mix), and a plain re-run reaches
    exactly the state of an uninterrupted run (the canonical dump of every document)."""
    corpus = crash_corpus(tmp_path / "corpus")
    base = tmp_path / "a.db"
    timed_index(base, corpus)
    state_a = document_states(base)
    change_corpus(corpus)
    reference = copy_index(base, tmp_path / "reference.db")
    full_run = timed_index(reference, corpus)
    state_b = document_states(reference)
    assert state_a != state_b
    rng = random.Random(int(os.environ.get("DOCQL_KILL_SEED", "20")))
    killed = 0
    for point in range(KILL_POINTS):
        after = rng.uniform(0.0, 0.8 * full_run)
        for _ in range(4):  # a run that ended first is retried with an earlier kill
            db = copy_index(base, tmp_path / f"kill{point}.db")
            proc = start_index(db, corpus)
            if kill_when(proc, db, after=after):
                killed += 1
                break
            after /= 2
        check_after_crash_states(db, state_a, state_b)
        timed_index(db, corpus)
        assert document_states(db) == state_b, f"kill point {point} ({after:.2f}s)"
        for leftover in tmp_path.glob(f"kill{point}.db*"):
            leftover.unlink()
    print(
        f"\ncrash harness: {killed} of {KILL_POINTS} runs killed part-way "
        f"(uninterrupted run {full_run:.1f}s, {len(state_b) - 1} documents)"
    )
    assert killed == KILL_POINTS


def test_documents_built_with_older_content_rules_are_reparsed(tmp_index: TmpIndex) -> None:
    """A rule change (ingest.parse.CONTENT_RULES) re-parses exactly the documents built
    with an older number, or before the number was recorded (NULL), in a plain re-run;
    documents built with the current number stay unchanged."""
    from docql_sqlite.ingest.parse import content_rules

    yaml = "<!-- YAML\n" + "".join(f"  - version: v{n}.0.0\n" for n in range(40)) + "-->\n"
    tmp_index.write("node.md", "## fs.open(path)\n\n" + yaml + "\n* `path` {string}\n")
    tmp_index.write("other.md", "# Other\n\ntext\n")
    tmp_index.write("code.py", "def f():\n    return 1\n")
    tmp_index.index(max_chars=300)
    assert tmp_index.query("SELECT format, content_rules FROM documents ORDER BY path") == [
        ("code", content_rules("code")),
        ("markdown", content_rules("markdown")),
        ("markdown", content_rules("markdown")),
    ]
    # what an index built by earlier versions holds (chunks are left alone: the FTS rows
    # are deleted by re-supplying their text)
    with apsw.Connection(str(tmp_index.db)) as conn:
        conn.execute("UPDATE documents SET content_rules = NULL WHERE path = 'docs/node.md'")
        conn.execute(
            "UPDATE documents SET content_rules = ? WHERE path = 'docs/other.md'",
            (content_rules("markdown") - 1,),
        )
    report = tmp_index.index(max_chars=300)
    assert sorted(report.updated) == ["docs/node.md", "docs/other.md"]
    assert report.unchanged == 1  # code.py: its rules did not change
    first = tmp_index.scalar(
        "SELECT content FROM chunks c JOIN documents d ON d.id = c.doc_id "
        "WHERE d.path = 'docs/node.md' ORDER BY chunk_index LIMIT 1"
    )
    assert first.startswith("## fs.open(path)\n") and "* `path` {string}" in first
    assert tmp_index.index(max_chars=300).unchanged == 3


def _fixed_windows(line: str, max_chars: int) -> list[tuple[int, str]]:
    """How lines over the bound were cut before session 26: full windows, then the rest."""
    text = line + "\n"
    return [(a, text[a : a + max_chars]) for a in range(0, len(text), max_chars)]


def test_lines_cut_at_fixed_windows_before_are_cut_again_once(
    tmp_index: TmpIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index whose lines over 16 KB were cut at fixed windows (a last piece of any
    length: search could not tell it for a line of data) has exactly those documents
    parsed again by its next run, once; it then holds what a fresh index holds."""
    from conftest import chdir, connect_ro

    from docql_sqlite.ingest import IngestOptions, chunk, index_paths, run
    from docql_sqlite.passage_text import long_line

    data = "Search.setIndex({" + ", ".join(f'"w{i}": [{i}]' for i in range(3_000))
    data = data[: 2 * chunk.MAX_LINE_CHARS + 500] + "});"  # fixed windows: 16 KB, 16 KB, 0.5 KB
    tmp_index.write("searchindex.js", data + "\n")
    tmp_index.write("page.md", "# Page\n\nProse.\n")
    monkeypatch.setattr(chunk, "split_long_line", _fixed_windows)
    tmp_index.index()
    pieces = "SELECT content FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.name = ?"
    old = [c for (c,) in tmp_index.query(pieces, ("searchindex.js",))]
    assert len(old) > 1 and not long_line(old[-1])  # a short last piece: a passage
    with apsw.Connection(str(tmp_index.db)) as conn:  # as the older version left it
        conn.execute("DELETE FROM meta WHERE key = ?", (run.LONG_LINES_KEY,))
    monkeypatch.undo()
    report = tmp_index.index()
    assert report.updated == ["docs/searchindex.js"] and report.unchanged == 1
    new = [c for (c,) in tmp_index.query(pieces, ("searchindex.js",))]
    assert "".join(new) == "".join(old) and all(long_line(c) for c in new)
    assert tmp_index.index().unchanged == 2  # once
    fresh = tmp_index.root / "fresh.db"
    with chdir(tmp_index.root):
        index_paths(fresh, ["docs"], IngestOptions(workers=0))
    order = "SELECT d.path, c.line, c.content FROM chunks c JOIN documents d ON d.id = c.doc_id "
    order += "ORDER BY d.path, c.chunk_index"
    assert tmp_index.query(order) == connect_ro(fresh).execute(order).fetchall()


def test_a_txt_file_indexed_as_text_before_is_reparsed_as_rst(tmp_index: TmpIndex) -> None:
    """An index built before `.txt` files that are reST were read as reST (text rules 2)
    gets them re-parsed by a plain re-run: a Sphinx manual gains its outline."""
    from docql_sqlite.ingest.parse import content_rules

    tmp_index.write("csrf.txt", "=====\nCSRF\n=====\n\n.. _ajax:\n\nAJAX\n====\n\ntext\n")
    tmp_index.write("notes.txt", "plain notes\n")
    tmp_index.index()
    assert tmp_index.query("SELECT path, format FROM documents ORDER BY path") == [
        ("docs/csrf.txt", "rst"),
        ("docs/notes.txt", "text"),
    ]
    with apsw.Connection(str(tmp_index.db)) as conn:  # as the older version stored them
        conn.execute("UPDATE documents SET format = 'text', content_rules = 2")
        conn.execute("DELETE FROM sections")
    report = tmp_index.index()
    assert sorted(report.updated) == ["docs/csrf.txt", "docs/notes.txt"]
    assert tmp_index.query("SELECT path, format, content_rules FROM documents ORDER BY path") == [
        ("docs/csrf.txt", "rst", content_rules("rst")),
        ("docs/notes.txt", "text", content_rules("text")),
    ]
    assert tmp_index.query("SELECT title FROM sections ORDER BY line") == [("CSRF",), ("AJAX",)]


def test_a_run_says_why_unchanged_files_were_parsed_again(tmp_index) -> None:
    """After an upgrade that reads a format otherwise, every file of it is "updated": the
    run's note says the files did not change (and a run with no such file says nothing)."""
    tmp_index.write_many({"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n", "c.txt": "gamma\n"})
    tmp_index.index()
    with apsw.Connection(str(tmp_index.db)) as conn:  # as an older version stored them
        conn.execute(
            "UPDATE documents SET content_rules = content_rules - 1 WHERE path LIKE '%.md'"
        )
    report = tmp_index.index()
    assert sorted(report.updated) == ["docs/a.md", "docs/b.md"]
    assert report.notes == [
        "2 unchanged files parsed again: this version reads their format otherwise, or "
        "--chunk-chars changed"
    ]
    tmp_index.write("a.md", "# A\n\nalpha, edited\n")  # a changed file is no such file
    with apsw.Connection(str(tmp_index.db)) as conn:
        conn.execute(
            "UPDATE documents SET content_rules = content_rules - 1 WHERE path LIKE '%.md'"
        )
    report = tmp_index.index()
    assert report.notes == [
        "1 unchanged file parsed again: this version reads their format otherwise, or "
        "--chunk-chars changed"
    ]
    assert tmp_index.index().notes == []


def test_a_page_that_becomes_a_redirect_is_removed(tmp_index) -> None:
    """A page moved elsewhere, its old path now a meta-refresh stub (rustdoc, Sphinx's
    and MkDocs' redirects): no document any more, as an emptied file."""
    page = "guide/old.html"
    tmp_index.write_many({page: "<html><body><h1>Setup</h1><p>Install it.</p></body></html>"})
    assert tmp_index.index().added == [f"docs/{page}"]
    tmp_index.write_many(
        {
            page: '<html><head><meta http-equiv="refresh" content="0; url=../new.html"></head>'
            '<body><p>Moved to <a href="../new.html">the new page</a>.</p></body></html>'
        }
    )
    report = tmp_index.index()
    assert report.removed == [f"docs/{page}"]
    assert report.skip_counts == {"a redirect page": 1}
    assert tmp_index.scalar("SELECT count(*) FROM documents") == 0
