"""`index_in_child`: one index run in a child process (`ingest/child.py`, used by `mcp
--watch`): the same report as a run in this process, errors back as `DocQLError`s with the
child's message, and this process's state untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite import DocQLError, IngestOptions, index_in_child


def _tree(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# Alpha\n\nThe quartz lantern.\n")
    (root / "docs" / "b.py").write_text("def lantern():\n    return 1\n")
    return root / "docs"


def test_the_childs_run_writes_what_a_run_here_writes(tmp_path: Path) -> None:
    docs = _tree(tmp_path)
    here, there = tmp_path / "here.db", tmp_path / "there.db"
    mine = docql_sqlite.index(here, [str(docs)], workers=0)
    report = index_in_child(there, [str(docs)], IngestOptions(exclude=("*.py",)))
    assert sorted(mine.added) == sorted(report.added + [str(docs / "b.py")])
    assert report.summary()["added"] == 1 and report.failed == []
    with docql_sqlite.open(there) as index:
        assert [h["path"] for h in index.search("quartz lantern")] == [str(docs / "a.md")]
    again = index_in_child(there, [str(docs)], IngestOptions(exclude=("*.py",)))
    assert (again.added, again.unchanged) == ([], 1)


def test_an_error_in_the_child_comes_back_with_its_message(tmp_path: Path) -> None:
    docs = _tree(tmp_path)
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"not a database, " * 512)
    with pytest.raises(DocQLError) as raised:
        index_in_child(damaged, [str(docs)])
    assert "damaged.db" in raised.value.message and "\n" not in raised.value.message
    assert damaged.read_bytes() == b"not a database, " * 512  # never written
    with pytest.raises(DocQLError, match="no such file or directory"):
        index_in_child(tmp_path / "x.db", [str(tmp_path / "missing")])
