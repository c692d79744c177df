"""A run that rewrote a good part of the index (store/sqlite/writer.py `_OPTIMIZE_SHARE`)
ends with each full-text index merged into one segment: FTS5 keeps a deleted row's
entries until a merge drops them, and a run that replaced every file of the Markdown mix
left the file 24.2 MB instead of 21.6. A small run leaves merging to FTS5's automerge
(the merge costs in proportion to the whole index). Search answers, scores included, are
those of a fresh index of the same files after the merge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import docql_sqlite
from docql_sqlite.ingest import IngestOptions, index_paths

WORDS = "alpha beta gamma delta epsilon zeta theta kappa lambda omicron sigma omega".split()
SEARCHES = ["alpha beta", '"gamma delta"', "omega3 part", "title 7"]


def document(n: int) -> str:
    lines = [f"# Title {n} {WORDS[n % len(WORDS)]}", ""]
    for p in range(8):
        if p % 3 == 0:
            lines += [f"## Part {p} {WORDS[(n + p) % len(WORDS)]}", ""]
        words = " ".join(WORDS[(n * 7 + p * 3 + k) % len(WORDS)] + str(k % 5) for k in range(30))
        lines += [f"word{n}x{p} {words}", ""]
    return "\n".join(lines) + "\n"


def segments(db: Path, table: str) -> int:
    from conftest import scalar

    return int(scalar(db, f"SELECT count(DISTINCT segid) FROM {table}_idx"))


def hits(db: Path) -> list[list[tuple[str, float]]]:
    with docql_sqlite.open(db) as index:
        return [
            [(h["location"], round(h["score"], 9)) for h in index.search(s, limit=10)]
            for s in SEARCHES
        ]


def test_a_run_that_replaced_every_file_merges_the_full_text(tmp_index: Any) -> None:
    tmp_index.write_many({f"d{n:02}.md": document(n) for n in range(40)})
    tmp_index.index(batch_docs=4, workers=0)  # ten batches: ten segments before the merge
    assert segments(tmp_index.db, "chunks_fts") == 1
    # Every file re-chunked: each chunk's rows deleted and inserted again.
    tmp_index.index(batch_docs=4, workers=0, max_chars=1400)
    assert segments(tmp_index.db, "chunks_fts") == 1
    assert segments(tmp_index.db, "sections_trigram") == 1
    fresh = tmp_index.root / "fresh.db"
    with docql_sqlite_cwd(tmp_index.root):
        index_paths(fresh, ["docs"], IngestOptions(workers=0, max_chars=1400))
    assert hits(tmp_index.db) == hits(fresh) and all(hits(fresh))
    # One file of forty: no merge (its segment stays beside the merged one).
    tmp_index.write("d03.md", document(3) + "\nOne more line, omega3 part.\n")
    tmp_index.index(batch_docs=4, workers=0, max_chars=1400)
    assert segments(tmp_index.db, "chunks_fts") > 1


def docql_sqlite_cwd(path: Path) -> Any:
    from conftest import chdir

    return chdir(path)


def automerge(db: Path, table: str) -> int | None:
    """The table's stored `automerge` (None: never set, FTS5's default)."""
    from conftest import scalar

    value = scalar(db, f"SELECT v FROM {table}_config WHERE k = 'automerge'")
    return None if value is None else int(value)


TABLES = ["chunks_fts", "sections_trigram", "symbols_trigram", "entities_trigram"]


def test_a_cold_build_merges_once_and_leaves_automerge_on(tmp_index: Any) -> None:
    """A cold build runs with FTS5's automerge off and merges at its end (writer.py
    `_AUTOMERGE`): each batch's segment stays until then, and the file is left with the
    default, which later small runs rely on."""
    from docql_sqlite.store.sqlite.writer import SqliteWriter

    tmp_index.write_many({f"d{n:02}.md": document(n) for n in range(40)})
    seen: list[tuple[int | None, int]] = []
    finish = SqliteWriter.finish

    def watched(self: SqliteWriter) -> None:  # the state just before the final merge
        self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        seen.append((automerge(tmp_index.db, "chunks_fts"), segments(tmp_index.db, "chunks_fts")))
        finish(self)

    SqliteWriter.finish = watched  # type: ignore[method-assign]
    try:
        tmp_index.index(batch_docs=4, workers=0)
    finally:
        SqliteWriter.finish = finish  # type: ignore[method-assign]
    # off during the run: the ten batches' ten segments, merged once at the end
    assert seen == [(0, 10)]
    assert segments(tmp_index.db, "chunks_fts") == 1
    assert [automerge(tmp_index.db, t) for t in TABLES] == [4] * len(TABLES)


def test_a_cold_build_stopped_before_its_end_leaves_the_next_run_the_default(
    tmp_index: Any,
) -> None:
    from docql_sqlite.store.sqlite.writer import SqliteWriter

    tmp_index.write_many({f"d{n:02}.md": document(n) for n in range(8)})
    finish = SqliteWriter.finish
    SqliteWriter.finish = lambda self: None  # type: ignore[method-assign]  # stopped
    try:
        tmp_index.index(workers=0)
    finally:
        SqliteWriter.finish = finish  # type: ignore[method-assign]
    assert automerge(tmp_index.db, "chunks_fts") == 0
    tmp_index.write("d03.md", document(3) + "\nOne more line.\n")
    SqliteWriter.finish = lambda self: None  # type: ignore[method-assign]  # stopped again
    try:
        tmp_index.index(workers=0)  # not cold: automerge is set back before any write
    finally:
        SqliteWriter.finish = finish  # type: ignore[method-assign]
    assert [automerge(tmp_index.db, t) for t in TABLES] == [4] * len(TABLES)
