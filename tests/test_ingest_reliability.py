"""No single file stops an index run (issue 11, items 1 and 12).

- A file name that is not valid UTF-8 is indexed: shown with `\\xNN` escapes in `path`,
  `uri` and `ingest_errors`, its exact bytes kept in `documents.uri_bytes` (the file can
  be re-opened from them), unchanged on the next run, removed when it goes.
- A file whose rows cannot be written (here: a real SQLite trigger that aborts the insert
  of one document's chunks, part-way through its rows) is rolled back alone: its previous
  version stays whole, it is recorded, and every other file of the batch is written.
- `index` prints an error once; a run ends with the WAL checkpointed into the main file.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import apsw
import pytest
from conftest import CLI, TmpIndex, check_document_chunks, file_lines, query

from docql_sqlite.store.sqlite import db as dbmod

BAD = os.fsdecode(b"bad\xffname.md")  # the str Python uses for that name (surrogateescape)


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def odd_names(tmp_path: Path) -> Path:
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.md").write_text("# A\n\naardvark\n")
    (d / BAD).write_bytes(b"# x\n\nzebrafish\n")
    (d / os.fsdecode(b"\xe9t\xe9.md")).write_bytes(b"# latin-1 name\n\ncapybara\n")
    (d / os.fsdecode(b"bin\xfe.md")).write_bytes(b"# x\x00")  # fails: its error row has the name
    (d / "z.md").write_text("# Z\n\nzorilla\n")
    return tmp_path


def test_non_utf8_file_names_are_indexed_and_shown_escaped(odd_names: Path) -> None:
    done = run_cli("index", "i.db", "d", cwd=odd_names)
    assert done.returncode == 1, done.stderr  # only the binary file failed
    assert "failed: d/bin\\xfe.md: binary file" in done.stderr
    assert "indexed 4 added" in done.stderr
    db = odd_names / "i.db"
    rows = query(db, "SELECT path, uri, uri_bytes, name FROM documents ORDER BY path")
    assert sorted(r[0] for r in rows) == sorted(
        ["d/a.md", "d/bad\\xffname.md", "d/z.md", "d/\\xe9t\\xe9.md"]
    )
    by_path = {r[0]: r for r in rows}
    _, uri, raw, name = by_path["d/bad\\xffname.md"]
    assert uri == str(odd_names / "d") + "/bad\\xffname.md" and name == "bad\\xffname.md"
    assert raw == os.fsencode(str(odd_names / "d" / BAD))
    assert Path(os.fsdecode(raw)).read_bytes() == b"# x\n\nzebrafish\n"  # lossless: re-opens
    assert by_path["d/a.md"][2] is None  # valid names store no bytes
    assert query(db, "SELECT path FROM ingest_errors") == [("d/bin\\xfe.md",)]
    (doc_id,) = query(db, "SELECT id FROM documents WHERE path = 'd/bad\\xffname.md'")[0]
    assert check_document_chunks(db, doc_id, file_lines(odd_names / "d" / BAD)) == []

    again = run_cli("index", "i.db", "d", "--json", cwd=odd_names)
    summary = json.loads(again.stdout)[0]
    assert (summary["added"], summary["unchanged"], summary["removed"]) == (0, 4, 0)

    (odd_names / "d" / BAD).unlink()
    (odd_names / "d" / os.fsdecode(b"bin\xfe.md")).unlink()
    last = run_cli("index", "i.db", "d", "--json", cwd=odd_names)
    assert last.returncode == 0, last.stderr
    summary = json.loads(last.stdout)[0]
    assert (summary["unchanged"], summary["removed"], summary["failed"]) == (3, 1, 0)
    assert query(db, "SELECT count(*) FROM ingest_errors") == [(0,)]


def test_a_file_that_cannot_be_stored_rolls_back_alone(tmp_index: TmpIndex) -> None:
    tmp_index.write_many({f"f{n}.md": f"# F{n}\n\nplain text {n}\n" for n in range(6)})
    tmp_index.write("poison.md", "# Poison\n\nharmless first version\n")
    assert tmp_index.index(workers=1).failed == []
    before = tmp_index.query(
        "SELECT c.content FROM chunks c JOIN documents d ON d.id = c.doc_id "
        "WHERE d.path = 'docs/poison.md' ORDER BY c.chunk_index"
    )
    conn = dbmod.connect(tmp_index.db)
    conn.execute(  # fails the document part-way: after its documents and sections rows
        "CREATE TRIGGER poison BEFORE INSERT ON chunks WHEN NEW.content LIKE '%POISON%' "
        "BEGIN SELECT RAISE(ABORT, 'poisoned chunk'); END"
    )
    conn.close()
    tmp_index.write("poison.md", "# Poison\n\n## Part\n\nnow with POISON inside\n")
    for n in range(6):
        tmp_index.write(f"f{n}.md", f"# F{n} changed\n\nnew text {n}\n")
    report = tmp_index.index(workers=1, batch_docs=1000, batch_seconds=60)  # one batch
    assert [p for p, _ in report.failed] == ["docs/poison.md"]
    assert "poisoned chunk" in report.failed[0][1]
    assert sorted(report.updated) == [f"docs/f{n}.md" for n in range(6)]
    # the old version of the poisoned file is whole; every other file is new
    after = tmp_index.query(
        "SELECT c.content FROM chunks c JOIN documents d ON d.id = c.doc_id "
        "WHERE d.path = 'docs/poison.md' ORDER BY c.chunk_index"
    )
    assert after == before
    assert tmp_index.query(
        "SELECT count(*) FROM sections s JOIN documents d ON d.id = s.doc_id "
        "WHERE d.path = 'docs/poison.md'"
    ) == [(1,)]
    assert tmp_index.errors()["docs/poison.md"][0] == "error"
    for doc_id, path in tmp_index.query("SELECT id, path FROM documents"):
        lines = None if path == "docs/poison.md" else file_lines(tmp_index.root / path)
        assert check_document_chunks(tmp_index.db, doc_id, lines) == []
    assert tmp_index.scalar("SELECT count(*) FROM chunks_fts") == tmp_index.scalar(
        "SELECT count(*) FROM chunks"
    )


@pytest.mark.parametrize("target", ["notdb.db", "d/a.md"])
def test_an_error_is_printed_once(odd_names: Path, target: str) -> None:
    (odd_names / "notdb.db").write_text("hello, not a database\n")
    done = run_cli("index", target, "d/z.md", cwd=odd_names)
    assert done.returncode == 2  # not an index: a usage error (issue 8 item 11)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr


def test_run_ends_with_the_wal_checkpointed(odd_names: Path) -> None:
    """A reader that keeps the index open (Datasette, an MCP server) stops SQLite's own
    checkpoint-on-close; the run itself must move its pages into the main file."""
    first = run_cli("index", "i.db", "d/a.md", cwd=odd_names)
    assert first.returncode == 0, first.stderr
    reader = apsw.Connection(str(odd_names / "i.db"))
    try:
        assert reader.execute("SELECT count(*) FROM documents").fetchone()[0] == 1
        done = run_cli("index", "i.db", "d/a.md", "d/z.md", cwd=odd_names)
        assert done.returncode == 0, done.stderr
        wal = odd_names / "i.db-wal"
        assert not wal.exists() or wal.stat().st_size == 0
        # the main file alone holds both documents (a copy without the WAL, in the shell)
        copy = odd_names / "copy.db"
        copy.write_bytes((odd_names / "i.db").read_bytes())
        shell = subprocess.run(
            ["sqlite3", str(copy), "SELECT count(*) FROM documents"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert shell.stdout.strip() == "2", shell.stderr
    finally:
        reader.close()


def test_a_fifo_named_on_the_command_line_is_recorded_not_read(tmp_path: Path) -> None:
    """Opening a FIFO blocks until someone writes to it: a named one is recorded at once
    instead of holding a parser until the timeout."""
    os.mkfifo(tmp_path / "pipe.md")
    done = run_cli("index", "i.db", "pipe.md", "--json", "--timeout", "20", cwd=tmp_path)
    summary = json.loads(done.stdout)[0]
    assert summary["failures"] == [
        {"path": "pipe.md", "reason": "not a regular file (a FIFO, socket or device); not indexed"}
    ]
    assert summary["seconds"] < 15
