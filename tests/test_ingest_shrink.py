"""The index file's size (issue 12, "db ≤ 2.0× the corpus"): schema 6.

- The full-text table lists `body` before `title` (sql/006_fts_body_first.sql): a file
  made before is migrated by its next writer, and search scores are the same to the bit
  (bm25 with the weights swapped, as search/sqlbuild.py now spells it).
- Full-text rows are written once per batch, after the per-file savepoints (store.FtsWrites),
  and a file whose rows fail rolls back its full-text rows too.
- A cold build ends with no free pages (auto_vacuum = INCREMENTAL on new files, and an
  `incremental_vacuum` at the end of the run), and a reader that holds a read transaction
  open on its memory-mapped file while a run shrinks the file keeps reading its snapshot.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import apsw
from conftest import TmpIndex

from docql_sqlite.store.sqlite import db as dbmod
from docql_sqlite.text import fts_text

WORDS = "alpha beta gamma delta epsilon zeta theta kappa lambda omicron sigma omega".split()


def _doc(n: int, paragraphs: int = 12) -> str:
    """A Markdown file with a few sections and different words in each file."""
    lines = [f"# Title {n} {WORDS[n % len(WORDS)]}", ""]
    for p in range(paragraphs):
        if p % 4 == 0:
            lines += [f"## Part {p} {WORDS[(n + p) % len(WORDS)]}", ""]
        words = " ".join(WORDS[(n * 7 + p * 3 + k) % len(WORDS)] + str(k % 5) for k in range(40))
        lines += [f"word{n}x{p} {words}", ""]
    return "\n".join(lines) + "\n"


def _scores(db: Path, match: str, weights: tuple[float, float]) -> list[tuple[int, float]]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        sql = (
            f"SELECT rowid, bm25(chunks_fts, {weights[0]}, {weights[1]}) FROM chunks_fts "
            "WHERE chunks_fts MATCH ? ORDER BY 2, 1"
        )
        return [(r[0], r[1]) for r in conn.execute(sql, (match,))]
    finally:
        conn.close()


def _fts_columns(db: Path) -> list[str]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [r[1] for r in conn.execute("PRAGMA table_info(chunks_fts)")]
    finally:
        conn.close()


def _back_to_schema_5(db: Path) -> None:
    """Rewrite the full-text table as schema 1-5 made it: (title, body)."""
    conn = apsw.Connection(str(db))
    rows = conn.execute(
        "SELECT c.id, coalesce(s.title, ''), c.content FROM chunks c "
        "LEFT JOIN sections s ON s.id = c.section_id"
    ).fetchall()
    with conn:
        conn.execute("DROP TABLE chunks_fts")
        conn.execute(
            "CREATE VIRTUAL TABLE chunks_fts USING fts5(title, body, content = '', "
            "tokenize = 'unicode61 remove_diacritics 2')"
        )
        conn.executemany(
            "INSERT INTO chunks_fts(rowid, title, body) VALUES (?, ?, ?)",
            [(i, fts_text(t), fts_text(b)) for i, t, b in rows],
        )
        conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


MATCHES = ("alpha", "title : kappa", "beta AND omega3", '"gamma1 delta2"', "body : sigma", "架")


def test_old_files_are_migrated_and_score_the_same(tmp_index: TmpIndex) -> None:
    tmp_index.write_many({f"d{n}.md": _doc(n) for n in range(12)})
    tmp_index.write("zh.md", "# 架构 说明\n\n系统架构的说明。\n")
    tmp_index.index()
    assert _fts_columns(tmp_index.db) == ["body", "title"]
    new = {m: _scores(tmp_index.db, m, (1.0, 3.0)) for m in MATCHES}
    _back_to_schema_5(tmp_index.db)
    assert _fts_columns(tmp_index.db) == ["title", "body"]
    old = {m: _scores(tmp_index.db, m, (3.0, 1.0)) for m in MATCHES}
    assert all(old[m] for m in MATCHES)  # every expression finds something
    assert old == new  # body-first with swapped weights: the same scores, to the bit
    # A reader refuses the old file; the next writer migrates it (the rows rebuilt).
    conn = dbmod.connect(tmp_index.db)
    conn.close()
    assert _fts_columns(tmp_index.db) == ["body", "title"]
    assert {m: _scores(tmp_index.db, m, (1.0, 3.0)) for m in MATCHES} == old
    conn = apsw.Connection(str(tmp_index.db))
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')")
    conn.close()
    # ... and the next run after the migration changes nothing and finds what it found.
    report = tmp_index.index()
    assert report.unchanged == 13 and not report.added
    assert {m: _scores(tmp_index.db, m, (1.0, 3.0)) for m in MATCHES} == old


def test_full_text_rows_follow_each_file_in_a_batch(tmp_index: TmpIndex) -> None:
    """Rows queued per file: replaced, removed (emptied) and failed files in one batch."""
    tmp_index.write_many({f"d{n}.md": _doc(n, 4) for n in range(6)})
    tmp_index.index()
    tmp_index.write("d1.md", "# Renamed\n\nzanzibar only\n")  # replaced (its ids may be reused)
    tmp_index.write("d2.md", "")  # emptied: its document goes
    tmp_index.write("d6.md", "# New\n\nquokka here\n")
    conn = apsw.Connection(str(tmp_index.db))
    # A real trigger makes the new file's chunk rows fail part-way: its savepoint rolls back.
    conn.execute(
        "CREATE TRIGGER no_quokka BEFORE INSERT ON chunks WHEN NEW.content LIKE '%quokka%' "
        "BEGIN SELECT RAISE(ABORT, 'no quokkas'); END"
    )
    conn.close()
    report = tmp_index.index(batch_docs=50, batch_seconds=60)
    assert [p for p, _ in report.failed] == ["docs/d6.md"]
    expected = {
        cid: (fts_text(title or ""), fts_text(content))
        for cid, title, content in tmp_index.query(
            "SELECT c.id, s.title, c.content FROM chunks c "
            "LEFT JOIN sections s ON s.id = c.section_id"
        )
    }
    conn = apsw.Connection(str(tmp_index.db))
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')")
    # integrity-check of a contentless table checks the index's own structure; the rows
    # themselves: each chunk found by each of its words, and nothing else found.
    vocab = "CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks_fts, instance)"
    conn.execute(vocab)
    indexed: dict[int, set[tuple[str, str]]] = {}
    for term, doc, col, _ in conn.execute("SELECT term, doc, col, offset FROM temp.v"):
        indexed.setdefault(doc, set()).add((col, term))
    conn.close()
    assert set(indexed) == set(expected)
    for cid, (title, body) in expected.items():
        words = {("title", w.lower()) for w in title.split()} | {
            ("body", w.lower().strip(".,")) for w in body.split() if w.strip("#.,")
        }
        assert {w for w in words if w[1].isalnum()} <= indexed[cid], cid
    assert tmp_index.query("SELECT count(*) FROM chunks WHERE content LIKE '%quokka%'") == [(0,)]
    assert _scores(tmp_index.db, "zanzibar", (1.0, 3.0))


def _freelist(db: Path) -> tuple[int, int]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return (
            conn.execute("PRAGMA freelist_count").fetchone()[0],
            conn.execute("PRAGMA auto_vacuum").fetchone()[0],
        )
    finally:
        conn.close()


def _many_words(n: int, paragraphs: int) -> str:
    """A file of made-up words: a large vocabulary, as real text has (FTS5 segments of
    many leaves, whose merges free pages; a dozen words make one-leaf segments)."""
    rnd = random.Random(n)
    lines = [f"# Doc {n}", ""]
    for _ in range(paragraphs):
        words = (
            "".join(rnd.choice("abcdefghijklmnop") for _ in range(rnd.randint(3, 9)))
            for _ in range(60)
        )
        lines += [" ".join(words), ""]
    return "\n".join(lines) + "\n"


def test_a_cold_build_ends_without_free_pages(tmp_index: TmpIndex) -> None:
    # Many small transactions: FTS5 merges its segments many times, freeing their pages
    # (13-26 pages are left free without the vacuum, in this test's configurations).
    tmp_index.write_many({f"d{n:03}.md": _many_words(n, 20) for n in range(100)})
    tmp_index.index(batch_docs=2)
    assert _freelist(tmp_index.db) == (0, 2)  # 2: incremental


def test_a_reader_keeps_its_snapshot_while_a_run_shrinks_the_file(tmp_index: TmpIndex) -> None:
    tmp_index.write_many({f"d{n:03}.md": _doc(n, 40) for n in range(40)})
    tmp_index.write("small.md", "# Small\n\nstays\n")
    tmp_index.index()
    size_before = tmp_index.db.stat().st_size
    reader = dbmod.connect(tmp_index.db, readonly=True)  # memory-mapped (db.READER_MMAP_BYTES)
    try:
        assert reader.execute("PRAGMA mmap_size").fetchone()[0] > size_before
        reader.execute("BEGIN")
        snapshot = reader.execute("SELECT id, content FROM chunks ORDER BY id").fetchall()
        for n in range(40):
            (tmp_index.docs / f"d{n:03}.md").unlink()
        done: list[object] = []
        writer = threading.Thread(target=lambda: done.append(tmp_index.index()))
        writer.start()
        time.sleep(1.0)  # the run deletes, vacuums, and waits at its checkpoint for us
        again = reader.execute("SELECT id, content FROM chunks ORDER BY id").fetchall()
        assert again == snapshot  # every page of the old snapshot still reads
        reader.execute("COMMIT")
        writer.join(timeout=60)
        assert done and not writer.is_alive()
        # A new read transaction sees the shrunk file through the same mapping.
        rows = reader.execute("SELECT content FROM chunks").fetchall()
        assert [r[0] for r in rows] == ["# Small\n\nstays\n"]
    finally:
        reader.close()
    conn = dbmod.connect(tmp_index.db)  # a writer: checkpoints what the busy reader held up
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    conn.close()
    # The pages the 40 documents held went back to the file system: none is left free and
    # the file is smaller (not by a fixed share: FTS5 keeps its delete markers, in
    # proportion to what was deleted, until a merge).
    assert tmp_index.db.stat().st_size < size_before * 0.8
    assert _freelist(tmp_index.db)[0] == 0
