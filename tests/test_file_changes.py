"""Files that change while they are read (issue 11): one version or a record, never a mix.

The reader (`ingest/read.py`) compares the file's identity, size, mtime and ctime before
the open, after it, after the last block and by path at the end, and reads again when
they differ. These tests change the file at exact moments through its documented seam,
`read.read_hook(step, path)` ("stat": before the open, "open": after it, "block": after
each block; blocks made 64 bytes here so that "after the first block" is mid-file),
with parsing in this process (workers=0) — no sleeps that race. Each case ends with:

- the stored text equals one whole version of the file (its chunks are exactly that
  version's lines), or the file is recorded with its reason and keeps its last indexed
  version whole;
- the next run (no more changes) indexes the file as it is now, or removes it if it
  is gone, and clears the record.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import TmpIndex, check_document_chunks, split_text_lines

import docql_sqlite
from docql_sqlite.ingest import read

OLD = "# Notes\n\n" + "".join(f"old line {n} about the ledger\n\n" for n in range(40))
NEW = "# Notes, new\n\n" + "".join(f"NEW line {n} about shards\n\n" for n in range(40))
SAME_SIZE = OLD.replace("old", "OLD")  # same length: only mtime/ctime can tell


@pytest.fixture
def hook(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """hook(step, action, times=1): run `action(path)` at `step` of reading notes.md."""
    monkeypatch.setattr(read, "READ_BLOCK", 64)

    def arm(step: str, action: Callable[[Path], None], times: int = 1) -> None:
        left = [times]

        def on_read(at: str, path: Path) -> None:
            if at == step and path.name == "notes.md" and left[0] > 0:
                left[0] -= 1
                action(path)

        monkeypatch.setattr(read, "read_hook", on_read)

    yield arm
    monkeypatch.setattr(read, "read_hook", None)


@pytest.fixture
def indexed(tmp_index: TmpIndex) -> TmpIndex:
    """notes.md (version OLD, its mtime an hour back) and other.md, indexed."""
    path = tmp_index.write("notes.md", OLD)
    tmp_index.write("other.md", "# Other\n\nuntouched text\n")
    hour_ago = os.stat(path).st_mtime_ns - 3600 * 10**9
    os.utime(path, ns=(hour_ago, hour_ago))
    assert tmp_index.index(workers=0).ok
    return tmp_index


def stored_lines(index: TmpIndex, name: str = "notes.md") -> list[str] | None:
    """The document's lines as the index gives them back (`get`), None when it has none."""
    with docql_sqlite.open(index.db) as idx:
        if f"docs/{name}" not in {d["path"] for d in idx.documents()}:
            return None
        return [text for _, text in idx.get(f"docs/{name}").lines]


def assert_whole(index: TmpIndex, text: str, name: str = "notes.md") -> None:
    """The index holds exactly `text` for the file, and chunks that tile it."""
    lines = split_text_lines(text)
    assert stored_lines(index, name) == lines
    (doc_id,) = index.query("SELECT id FROM documents WHERE path = ?", (f"docs/{name}",))[0]
    assert check_document_chunks(index.db, doc_id, lines) == []


def write(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text)


def replace_with(text: str) -> Callable[[Path], None]:
    def action(path: Path) -> None:  # an editor's save: a new file renamed over the old
        temp = path.with_name(".notes.tmp")
        temp.write_text(text)
        os.replace(temp, path)

    return action


def truncate(path: Path) -> None:
    os.truncate(path, len(OLD) // 2)


CHANGES = {
    # step, action, the text the file holds afterwards
    "modified before the open": ("stat", write(NEW), NEW),
    "modified after the open": ("open", write(NEW), NEW),
    "rewritten in place mid-read, same size": ("block", write(SAME_SIZE), SAME_SIZE),
    "truncated mid-read": ("block", truncate, None),
    "replaced mid-read (rename over it)": ("block", replace_with(NEW), NEW),
}


@pytest.mark.parametrize("case", list(CHANGES))
def test_a_change_during_the_read_gives_one_version(
    indexed: TmpIndex, hook: Callable[..., None], case: str
) -> None:
    step, action, after = CHANGES[case]
    (indexed.docs / "notes.md").write_text(OLD + "one more line\n")  # the run must re-read
    hook(step, action)
    report = indexed.index(workers=0)
    final = (indexed.docs / "notes.md").read_text()
    assert after is None or final == after
    assert report.failed == [], report.failed
    assert_whole(indexed, final)  # the version after the change, read again whole
    assert_whole(indexed, "# Other\n\nuntouched text\n", "other.md")
    again = indexed.index(workers=0)
    assert again.unchanged == 2 and not again.updated and not again.failed


def test_a_file_that_keeps_changing_is_recorded_and_keeps_its_version(
    indexed: TmpIndex, hook: Callable[..., None]
) -> None:
    counter = iter(range(1000))
    (indexed.docs / "notes.md").write_text(NEW)
    hook("block", lambda path: path.write_text(NEW + f"edit {next(counter)}\n"), times=1000)
    report = indexed.index(workers=0)
    assert [(p, r.split(" (")[0]) for p, r in report.failed] == [
        ("docs/notes.md", "changed while being read")
    ]
    assert_whole(indexed, OLD)  # the last indexed version, whole
    assert "changed while being read" in indexed.errors()["docs/notes.md"][1]
    read.read_hook = None
    later = indexed.index(workers=0)  # quiet now: the next run picks it up
    assert later.updated == ["docs/notes.md"] and not later.failed
    assert_whole(indexed, (indexed.docs / "notes.md").read_text())
    assert indexed.errors() == {}


@pytest.mark.parametrize("step", ["stat", "open", "block"])
def test_a_file_deleted_during_the_read_is_recorded_then_removed(
    indexed: TmpIndex, hook: Callable[..., None], step: str
) -> None:
    (indexed.docs / "notes.md").write_text(NEW)
    hook(step, lambda path: path.unlink())
    report = indexed.index(workers=0)
    assert report.failed == [("docs/notes.md", "file disappeared while indexing")]
    assert_whole(indexed, OLD)  # its last version stays until a run sees it gone
    later = indexed.index(workers=0)
    assert later.removed == ["docs/notes.md"] and not later.failed
    assert stored_lines(indexed) is None and indexed.errors() == {}


def test_the_seam_is_reached_in_order(indexed: TmpIndex, hook: Callable[..., None]) -> None:
    """The hook really runs at each step (else the tests above prove nothing)."""
    seen: list[str] = []
    read.read_hook = lambda step, path: seen.append(step) if path.name == "notes.md" else None
    (indexed.docs / "notes.md").write_text(NEW)
    indexed.index(workers=0)
    blocks = -(-len(NEW.encode()) // 64)
    assert seen == ["stat", "open", *["block"] * blocks]
