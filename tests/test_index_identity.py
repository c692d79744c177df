"""benchmarks/index_identity.py: the before/after check of parse-side optimisations.

It must say "identical" for the same code and name the table when one stored value moves.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "index_identity.py"
sys.path.insert(0, str(REPO / "benchmarks"))

import index_identity  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("identity") / "one.db"
    index_identity.index_with(REPO, db, [str(REPO / "datasets" / "en")], [])
    return db


def test_same_index_is_identical(built: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(built, copy)
    assert index_identity.compare(built, copy) == []
    tables = index_identity.digests(built)
    assert tables["documents"][0] == 8 and tables["chunks"][0] > 0 and "chunks_fts" in tables
    assert "meta" not in tables and "chunks_fts_data" not in tables


@pytest.mark.parametrize(
    "change, table",
    [
        (
            "UPDATE sections SET title = title || ' ' WHERE id = (SELECT max(id) FROM sections)",
            "sections",
        ),
        ("UPDATE chunks SET line = line + 1 WHERE id = 1", "chunks"),
        ("UPDATE documents SET indexed_at = 'another time'", None),  # the clock: not content
    ],
)
def test_one_changed_value_names_its_table(
    built: Path, tmp_path: Path, change: str, table: str | None
) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(built, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute(change)
    differ = index_identity.compare(built, copy)
    assert [d.split(":")[0] for d in differ] == ([table] if table else [])


def test_smoke_builds_head_and_this_tree(tmp_path: Path) -> None:
    out = tmp_path / "identity.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--smoke", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(out.read_text())
    assert result["differ"] == [] and result["tables"]["symbols"][0] > 0


def test_parse_cpu_smoke_counts_every_file(tmp_path: Path) -> None:
    """benchmarks/parse_cpu.py: every file of the tiny tree parsed, each stage timed."""
    out = tmp_path / "parse_cpu.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "parse_cpu.py"), "--smoke", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    markdown, code = json.loads(out.read_text())
    on_disk = {
        part: sum(1 for p in (REPO / "datasets" / part).rglob("*") if p.is_file())
        for part in ("en", "code")
    }
    assert markdown["files"] == on_disk["en"] and 0 < code["files"] <= on_disk["code"]
    assert set(markdown["stages_cpu_s_min"]) == {
        "markdown block scan",
        "markdown parse (scan + document)",
    }
    assert "query cursor pass (symbols + references)" in code["stages_cpu_s_min"]
    assert all(v >= 0 for r in (markdown, code) for v in r["stages_cpu_s_min"].values())


def test_the_options_after_double_dash_go_to_index(tmp_path: Path) -> None:
    """`index_identity.py --build REV CORPUS -- OPTIONS`: OPTIONS go to `docql-sqlite index`
    for both trees (they were read as more corpus paths: "no such file")."""
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\n" + "some words on a line\n" * 100)
    (corpus / "b.md").write_text("# B\n\ntext\n")
    out = tmp_path / "identity.json"
    command = [sys.executable, str(SCRIPT), "--build", "HEAD", str(corpus), "--json", str(out)]
    done = subprocess.run(
        [*command, "--", "--chunk-chars", "500"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "identical" in done.stdout
    tables = json.loads(out.read_text())["tables"]
    assert tables["documents"][0] == 2
    assert tables["chunks"][0] >= 5  # 2,100 characters in chunks of at most 500
