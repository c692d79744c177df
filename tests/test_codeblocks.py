"""Code blocks whose text is not stored twice are rebuilt exactly, in Python and in the shell."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import apsw
import pytest
from conftest import REPO, file_text

import docql_sqlite
from docql_sqlite.ingest.markdown import parse_markdown


def _expected_blocks(path: str) -> dict[int, str]:
    doc = parse_markdown(file_text(REPO / path), path)
    return {block.line: block.code for block in doc.codeblocks}


def test_rebuilt_code_equals_the_parsers_fence_content(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as index:
        items = [i for i in index.query("$.content.codeblock") if i["path"].endswith(".md")]
    assert len(items) > 40
    for item in items:
        assert item["code"] == _expected_blocks(item["path"])[item["line"]], item["location"]


def test_plain_fences_are_stored_once(corpus_db: Path) -> None:
    conn = apsw.Connection(str(corpus_db), flags=apsw.SQLITE_OPEN_READONLY)
    stored, total = conn.execute("SELECT count(code), count(*) FROM codeblocks").fetchone()
    assert total > 40 and stored == 0


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="no sqlite3 shell on PATH")
def test_shell_view_rebuilds_the_same_code(corpus_db: Path) -> None:
    out = subprocess.run(
        [
            "sqlite3",
            "-json",
            str(corpus_db),
            "SELECT d.path, b.line, b.code FROM codeblocks_code b JOIN documents d ON d.id = "
            "b.doc_id ORDER BY d.path, b.line",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = json.loads(out)
    assert len(rows) > 40
    for row in rows:
        if row["path"].endswith(".md"):
            assert row["code"] == _expected_blocks(row["path"])[row["line"]]
