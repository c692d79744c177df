"""A new index appears whole, and `--watch` without watchfiles fails first (issue 20, item 12).

Readers racing an `index` run that creates the file found it empty, or without its tables,
until the first commit ("is empty"). The schema is now built in a hidden file next to the
index and linked into place, so a reader finds no file (and, while the hidden file exists,
is told that an index run is creating it) or a whole index. `index --watch` and
`mcp --watch` without the watchfiles package indexed everything and only then failed; they
now fail before the first run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import CLI, DATASETS


def test_a_reader_never_finds_a_half_created_index(tmp_path: Path) -> None:
    """The indexer is stopped (SIGSTOP) the moment its file appears; a reader then must
    find a whole index (0 documents is fine), not an empty file."""
    docs = tmp_path / "docs"
    shutil.copytree(DATASETS / "en" / "handbook", docs)
    outcomes = []
    for attempt in range(3):
        db = tmp_path / f"new{attempt}.db"
        proc = subprocess.Popen(
            [str(CLI), "index", str(db), str(docs), "--workers", "0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while not db.exists() and proc.poll() is None and time.monotonic() < deadline:
            pass  # poll as fast as we can: the window before the first commit is short
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            reader = subprocess.run(
                [str(CLI), "status", str(db), "--json"], capture_output=True, text=True, timeout=120
            )
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        outcomes.append((reader.returncode, reader.stderr.strip()))
        if reader.returncode == 0:
            assert json.loads(reader.stdout)[0]["schema_version"] >= 1
    assert all(code == 0 for code, _ in outcomes), outcomes
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".creating")]


def test_a_reader_is_told_the_index_is_being_created(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    (tmp_path / ".new.db.0123abcd.creating").write_bytes(b"")
    proc = subprocess.run([str(CLI), "status", str(db)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"error: no index at '{db}' yet: an index run is creating it; try again in a moment"
    )


def test_creating_beside_an_existing_file_keeps_that_file(tmp_path: Path) -> None:
    """Two runs creating one index: the second links nothing over the first's file."""
    from docql_sqlite.store.sqlite import db as dbmod

    path = tmp_path / "i.db"
    conn = dbmod.connect(path)
    conn.execute("INSERT INTO meta(key, value) VALUES ('mark', 'first')")
    conn.close()
    dbmod._create_whole(str(path))  # as a racing second writer would
    conn = dbmod.connect(path)
    assert dbmod.get_meta(conn, "mark") == "first"
    conn.close()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("i.db")) == []


WITHOUT_WATCHFILES = (
    "import runpy, sys; sys.modules['watchfiles'] = None; "  # find_spec → None, import fails
    "runpy.run_module('docql_sqlite', run_name='__main__')"
)


def test_index_watch_without_watchfiles_fails_before_indexing(tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            WITHOUT_WATCHFILES,
            "index",
            str(db),
            str(DATASETS / "en"),
            "--watch",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (
        "error: --watch needs the watchfiles package: pip install 'docql-sqlite[watch]'"
    )
    assert not db.exists()  # nothing was indexed first
    assert time.monotonic() - started < 120


def test_mcp_watch_without_watchfiles_fails_before_indexing(tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT_WATCHFILES, "mcp", str(db), "--watch", str(DATASETS / "en")],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    assert "--watch needs the watchfiles package" in proc.stderr
    assert not db.exists()
