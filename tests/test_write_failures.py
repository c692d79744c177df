"""The Nth write fails (issue 11, I/O-error injection): one line, a whole file, no loss.

SQLite tests itself by failing each write of a run in turn; so do these tests, at our
level, with the apsw VFS of tests/faulty_vfs.py (reached through the `db.VFS` seam).
For each N of the sweep, the Nth write of a run fails — an I/O error that stays (a dead
disk; every later write fails too), a single transient one, or a full disk — and then:

- the run raises a `DocQLError` whose message is one line naming the file (the CLI
  prints it as `error: ...`, exit 4, no traceback: checked through the real CLI too);
- the file passes integrity_check and the FTS integrity-check;
- an index run: every document is in its old or its new state (never a mix, none lost
  that is in both versions); an embed run: documents untouched, and the vectors are
  exactly whole finished batches, each the embedder's vector of its chunk;
- the same run again, with writes working, reaches exactly the state of a run that
  never failed.

The normal suite sweeps 8 points spread over each run; `DOCQL_SLOW=1` sweeps every write
of both runs, sticky and transient.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import apsw
import faulty_vfs
import pytest
from conftest import query
from index_states import (
    check_after_crash_states,
    check_integrity,
    check_vectors,
    check_whole_batches,
    document_states,
    vector_state,
)

import docql_sqlite
from docql_sqlite.errors import DocQLError

BATCH = 16  # chunks per embed transaction: several commits in a small run
FAULTY = Path(__file__).resolve().parent / "faulty_vfs.py"
SLOW = os.environ.get("DOCQL_SLOW") == "1"


def write_corpus(root: Path, version: str) -> None:
    """Version A: 8 files. Version B: 3 edited, 1 deleted, 2 added (and 4 as they were)."""
    root.mkdir(exist_ok=True)
    for n in range(8):
        body = "".join(
            f"## Part {s}\n\nwords about topic {n}.{s}, ledger shard replica {s}.\n\n"
            for s in range(12)
        )
        (root / f"f{n}.md").write_text(f"# File {n}\n\n{body}", encoding="utf-8")
    if version == "B":
        for n in (1, 4, 6):
            path = root / f"f{n}.md"
            path.write_text(path.read_text() + f"\n## Edited {n}\n\nrevised text {n}\n")
        (root / "f2.md").unlink()
        for n in range(2):
            (root / f"new{n}.md").write_text(f"# New {n}\n\nadded file {n}\n")


def index_run(db: Path, corpus: Path) -> None:
    docql_sqlite.index(db, [str(corpus)], workers=0)


def embed_run(db: Path, _corpus: Path) -> None:
    docql_sqlite.embed(db, model="hash", batch=BATCH)


@pytest.fixture
def vfs() -> Iterator[faulty_vfs.FaultyVFS]:
    yield faulty_vfs.install()
    faulty_vfs.uninstall()


def copy_db(source: Path, target: Path) -> Path:
    for suffix in ("-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    shutil.copyfile(source, target)
    return target


def count_writes(vfs: faulty_vfs.FaultyVFS, run, db: Path, corpus: Path) -> int:  # noqa: ANN001
    vfs.reset()
    run(db, corpus)
    return vfs.writes


def fail_once(vfs, run, db: Path, corpus: Path, n: int, error, sticky: bool) -> str | None:  # noqa: ANN001
    """Run with write n failing; the error's message (None: the run did not fail)."""
    vfs.fail_at(n, error, sticky)
    try:
        run(db, corpus)
    except DocQLError as exc:
        return str(exc)
    finally:
        faulty_vfs.uninstall()
        faulty_vfs.install()
    assert vfs.failures == 0 or not sticky, f"write {n} failed, yet the run reported success"
    return None


def assert_one_line(message: str | None, db: Path) -> None:
    if message is None:
        return
    assert "\n" not in message and "Traceback" not in message, message
    assert db.name in message, message


def points(total: int, short: int = 8) -> list[int]:
    """Every write (slow suite), or `short` spread over the run, first and last included."""
    if SLOW:
        return list(range(1, total + 1))
    return sorted({1, total, *(1 + (total - 1) * k // (short - 1) for k in range(short))})


KINDS = {  # both suites run all three (the slow one at every write)
    "io-sticky": (apsw.IOError, True),
    "full": (apsw.FullError, True),
    "io-once": (apsw.IOError, False),
}


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The corpus at version B, the index of version A, and both canonical states."""
    root = tmp_path_factory.mktemp("writefail")
    corpus = root / "docs"
    write_corpus(corpus, "A")
    base = root / "a.db"
    index_run(base, corpus)
    state_a = document_states(base)
    write_corpus(corpus, "B")
    reference = copy_db(base, root / "b.db")
    index_run(reference, corpus)
    embedded = copy_db(reference, root / "b-embedded.db")
    embed_run(embedded, corpus)
    return {
        "corpus": corpus,
        "base": base,
        "reference": reference,
        "state_a": state_a,
        "state_b": document_states(reference),
        "vectors": vector_state(embedded),
    }


@pytest.mark.parametrize("kind", list(KINDS))
def test_index_survives_the_nth_write_failing(
    versions: dict, vfs: faulty_vfs.FaultyVFS, tmp_path: Path, kind: str
) -> None:
    corpus, base = versions["corpus"], versions["base"]
    total = count_writes(vfs, index_run, copy_db(base, tmp_path / "count.db"), corpus)
    assert total > 20, total
    error, sticky = KINDS[kind]
    failed = 0
    for n in points(total):
        db = copy_db(base, tmp_path / "i.db")
        message = fail_once(vfs, index_run, db, corpus, n, error, sticky)
        assert_one_line(message, db)
        failed += message is not None
        if kind == "full" and message is not None:
            assert message.startswith("no space left to write"), message
        check_after_crash_states(db, versions["state_a"], versions["state_b"])
        index_run(db, corpus)  # writes work again: the same run finishes the work
        assert document_states(db) == versions["state_b"], f"write {n}: another end state"
    print(
        f"\nindex, {kind}: {len(points(total))} of {total} writes failed in turn; "
        f"{failed} runs stopped"
    )
    assert failed >= (len(points(total)) if sticky else 1)


@pytest.mark.parametrize("kind", list(KINDS))
def test_embed_survives_the_nth_write_failing(
    versions: dict, vfs: faulty_vfs.FaultyVFS, tmp_path: Path, kind: str
) -> None:
    corpus, reference = versions["corpus"], versions["reference"]
    total = count_writes(vfs, embed_run, copy_db(reference, tmp_path / "count.db"), corpus)
    documents = versions["state_b"]
    ids = [r[0] for r in query(reference, "SELECT id FROM chunks ORDER BY id")]
    assert len(ids) > 3 * BATCH, len(ids)
    error, sticky = KINDS[kind]
    failed = 0
    expected: dict[str, bytes] = {}
    for n in points(total):
        db = copy_db(reference, tmp_path / "e.db")
        message = fail_once(vfs, embed_run, db, corpus, n, error, sticky)
        assert_one_line(message, db)
        failed += message is not None
        check_integrity(db)
        assert document_states(db) == documents, f"write {n}: embed changed the documents"
        check_whole_batches(check_vectors(db, expected), ids, BATCH)
        embed_run(db, corpus)
        assert vector_state(db) == versions["vectors"], f"write {n}: another end state"
    print(
        f"\nembed, {kind}: {len(points(total))} of {total} writes failed in turn; "
        f"{failed} runs stopped"
    )
    assert failed >= (len(points(total)) if sticky else 1)


@pytest.mark.parametrize(("command", "kind"), [("index", "io"), ("embed", "full")])
def test_the_cli_says_one_line(versions: dict, tmp_path: Path, command: str, kind: str) -> None:
    """Through the real CLI: one `error:` line on stderr, exit 4, a whole file after."""
    db = copy_db(
        versions["base"] if command == "index" else versions["reference"], tmp_path / "c.db"
    )
    args = (
        ["index", str(db), str(versions["corpus"])]
        if command == "index"
        else ["embed", str(db), "--model", "hash"]
    )
    counted = subprocess.run(
        [sys.executable, str(FAULTY), "0", "--", *args], capture_output=True, text=True, timeout=300
    )
    assert counted.returncode == 0, counted.stderr
    total = int(counted.stderr.strip().splitlines()[-1].split()[-1])
    copy_db(versions["base"] if command == "index" else versions["reference"], db)
    failing = [sys.executable, str(FAULTY), str(total // 2), *(["full"] if kind == "full" else [])]
    proc = subprocess.run([*failing, "--", *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 4, proc.stderr  # the index's storage failed (README, exit codes)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(db) in lines[0], proc.stderr
    needle = "no space left" if kind == "full" else "cannot read or write"
    assert needle in lines[0], lines[0]
    check_integrity(db)
