"""CLI basics: `index` (summary, exit codes), `status`, `toc` in every output format,
`get PATH[:FROM[:COUNT]]` (also once the file is gone), and clear errors for files that
are not an index or come from a newer schema.

The end-to-end cases run the installed console script in a subprocess; the output
format variations use click's CliRunner (same code, no interpreter start-up).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import apsw
import pytest
from click.testing import CliRunner
from conftest import CLI, TmpIndex, file_lines, query

from docql_sqlite.cli import cli
from docql_sqlite.store.sqlite import db as dbmod

GUIDE = (
    "---\n"  # 1
    "title: The Guide\n"  # 2
    "---\n"  # 3
    "\n"  # 4
    "# Getting Started\n"  # 5
    "\n"  # 6
    "Install the tool first.\n"  # 7
    "\n"  # 8
    "## Install | Setup\n"  # 9
    "\n"  # 10
    "```sh\n"  # 11
    "# a shell comment, not a heading\n"  # 12
    "pip install thing\n"  # 13
    "```\n"  # 14
    "\n"  # 15
    "## 配置 Configuration\n"  # 16
    "\n"  # 17
    "Edit the file, then restart.\n"  # 18
    "\n"  # 19
    '### Advanced, "quoted" options\n'  # 20
    "\n"  # 21
    "Last line."  # 22 (no final newline)
)
GUIDE_TOC = [  # level, number, title, line, end_line: by hand
    (1, "1", "Getting Started", 5, 22),
    (2, "1.1", "Install | Setup", 9, 15),
    (2, "1.2", "配置 Configuration", 16, 22),
    (3, "1.2.1", 'Advanced, "quoted" options', 20, 22),
]
GUIDE_PATH = "docs/handbook/guide.md"


def console() -> list[str]:
    if CLI.exists():
        return [str(CLI)]
    found = shutil.which("docql-sqlite")
    return [found] if found else [sys.executable, "-m", "docql_sqlite"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        console() + list(args), capture_output=True, text=True, timeout=120, cwd=cwd
    )


@pytest.fixture
def guide(tmp_index: TmpIndex) -> TmpIndex:
    tmp_index.write("handbook/guide.md", GUIDE)
    tmp_index.write("other.md", "# Other\n\ntext\n")
    return tmp_index


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# -- index ---------------------------------------------------------------------------------
def test_index_summary_and_exit_codes(guide: TmpIndex) -> None:
    first = run("index", "index.db", "docs", cwd=guide.root)
    assert first.returncode == 0, first.stderr
    assert "indexed 2 added, 0 updated, 0 unchanged, 0 removed, 0 failed" in first.stderr
    assert json.loads(first.stdout)[0]["added"] == 2  # piped: the report as JSON
    again = run("index", "index.db", "docs", cwd=guide.root)
    assert again.returncode == 0
    assert "indexed 0 added, 0 updated, 2 unchanged, 0 removed, 0 failed" in again.stderr
    guide.write("empty.md", b"")  # skipped, not a failure (issue 8, item 11)
    skipping = run("index", "--json", "index.db", "docs", cwd=guide.root)
    assert skipping.returncode == 0, skipping.stderr
    summary = json.loads(skipping.stdout)[0]
    assert (summary["added"], summary["unchanged"], summary["failed"]) == (0, 2, 0)
    assert summary["skipped_list"] == [{"path": "docs/empty.md", "reason": "empty file (0 bytes)"}]
    guide.write("binary.md", b"\x00\x01binary")
    failing = run("index", "--json", "index.db", "docs", cwd=guide.root)
    assert failing.returncode == 1
    summary = json.loads(failing.stdout)[0]
    assert (summary["added"], summary["unchanged"], summary["failed"]) == (0, 2, 1)
    assert summary["failures"] == [
        {
            "path": "docs/binary.md",
            "reason": "binary file (contains NUL bytes, the first at byte 0); not indexed",
        }
    ]


def test_index_usage_errors(guide: TmpIndex) -> None:
    guide.index()
    before = guide.scalar("SELECT count(*) FROM documents")
    # A missing root is the command's mistake (exit 2, README "Exit codes"), and nothing
    # is indexed or removed, not even beside a good path.
    missing = invoke("index", "index.db", "docs", "no-such-dir")
    assert missing.exit_code == 2 and "no such file or directory: 'no-such-dir'" in missing.stderr
    assert guide.scalar("SELECT count(*) FROM documents") == before
    assert invoke("index", "index.db").exit_code == 2  # no PATHS: click usage error


# -- status --------------------------------------------------------------------------------
def test_status_json(guide: TmpIndex) -> None:
    guide.write("bad.md", b"\x00binary")
    guide.index()
    out = run("status", "--json", "index.db", cwd=guide.root)
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)[0]
    counts = {
        t: guide.scalar(f"SELECT count(*) FROM {t}") for t in ("documents", "sections", "chunks")
    }
    assert (info["documents"], info["sections"], info["chunks"]) == (
        2,
        counts["sections"],
        counts["chunks"],
    )
    assert info["by_format"] == {"markdown": 2}
    assert info["errors"] == 1
    assert info["schema_version"] == dbmod.SCHEMA_VERSION
    size_key = next(k for k in info if k.startswith("size"))
    on_disk = sum(os.path.getsize(p) for p in (guide.db, Path(f"{guide.db}-wal")) if p.exists())
    assert info[size_key] == on_disk > 0


def test_status_table_and_errors(guide: TmpIndex) -> None:
    guide.write("bad.md", b"\x00binary")
    guide.index()
    table = invoke("status", "-t", "index.db")
    assert table.exit_code == 0
    assert any(line.split()[:2] == ["documents", "2"] for line in table.stdout.splitlines())
    errors = invoke("status", "--errors", "--json", "index.db")
    assert [(e["path"], e["severity"]) for e in json.loads(errors.stdout)] == [
        ("docs/bad.md", "error")
    ]


# -- toc -----------------------------------------------------------------------------------
@pytest.fixture
def guide_db(guide: TmpIndex) -> TmpIndex:
    report = guide.index()
    assert report.failed == []
    return guide


def _toc_tuples(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (int(i["level"]), i["number"], i["title"], int(i["line"]), int(i["end_line"]))
        for i in items
    ]


def test_toc_json(guide_db: TmpIndex) -> None:
    out = invoke("toc", "--json", "index.db", GUIDE_PATH)
    assert out.exit_code == 0
    items = json.loads(out.stdout)
    assert _toc_tuples(items) == GUIDE_TOC
    assert {i["path"] for i in items} == {GUIDE_PATH}
    assert [i["anchor"] for i in items][0] == "getting-started"


def test_toc_unique_suffix_and_default_format(guide_db: TmpIndex) -> None:
    out = invoke("toc", "index.db", "guide.md")  # not a terminal: JSON
    assert _toc_tuples(json.loads(out.stdout)) == GUIDE_TOC


def test_toc_nl(guide_db: TmpIndex) -> None:
    out = invoke("toc", "--nl", "index.db", GUIDE_PATH)
    lines = out.stdout.splitlines()
    assert len(lines) == len(GUIDE_TOC)
    assert _toc_tuples([json.loads(line) for line in lines]) == GUIDE_TOC


def test_toc_csv(guide_db: TmpIndex) -> None:
    out = invoke("toc", "--csv", "index.db", GUIDE_PATH)
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert _toc_tuples(rows) == GUIDE_TOC  # the title with '|', ',' and '"' survives quoting


def test_toc_table(guide_db: TmpIndex) -> None:
    out = invoke("toc", "-t", "index.db", GUIDE_PATH)
    lines = out.stdout.splitlines()
    assert lines[0] == GUIDE_PATH
    body = lines[1:]
    assert len(body) == len(GUIDE_TOC)
    for line, (level, number, title, first, last) in zip(body, GUIDE_TOC):
        assert line.strip() == f"{number} {title}  ({first}-{last})"
    indents = [len(line) - len(line.lstrip()) for line in body]
    assert indents[0] < indents[1] == indents[2] < indents[3]


def test_toc_md(guide_db: TmpIndex) -> None:
    out = invoke("toc", "--md", "index.db", GUIDE_PATH)
    lines = out.stdout.splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header[:3] == ["path", "level", "number"] and "title" in header
    assert set(lines[1].replace("|", "")) == {"-"}
    assert len(lines) == 2 + len(GUIDE_TOC)
    assert "Install \\| Setup" in out.stdout  # a '|' in a cell is escaped


def test_toc_md_keeps_values_whole(guide_db: TmpIndex) -> None:
    """A Markdown table goes into files and docs: values must not be cut to the terminal width."""
    out = invoke("toc", "--md", "index.db", GUIDE_PATH)
    assert f"| {GUIDE_PATH} |" in out.stdout
    assert "| 配置 Configuration |" in out.stdout
    assert '| Advanced, "quoted" options |' in out.stdout


def test_toc_of_all_documents(guide_db: TmpIndex) -> None:
    items = json.loads(invoke("toc", "--json", "index.db").stdout)
    assert [i["path"] for i in items] == [GUIDE_PATH] * 4 + ["docs/other.md"]


def test_toc_no_results_and_unknown_path(guide_db: TmpIndex) -> None:
    guide_db.write("plain.md", "no headings at all\n")
    guide_db.index()
    empty = invoke("toc", "--json", "index.db", "docs/plain.md")
    assert empty.exit_code == 0 and json.loads(empty.stdout) == []
    unknown = invoke("toc", "index.db", "docs/nope.md")
    assert unknown.exit_code == 1 and "no document 'docs/nope.md'" in unknown.stderr


# -- get -----------------------------------------------------------------------------------
GUIDE_LINES = GUIDE.split("\n")


@pytest.mark.parametrize(
    "spec, first, last",
    [
        (GUIDE_PATH, 1, 22),
        (f"{GUIDE_PATH}:9", 9, 9),  # a single line, as results print it
        (f"{GUIDE_PATH}:9-12", 9, 12),
        (f"{GUIDE_PATH}:9:4", 9, 12),
        (f"{GUIDE_PATH}:1:3", 1, 3),  # front matter is part of the document
        (f"{GUIDE_PATH}:20:100", 20, 22),  # COUNT past the end stops at the end
        (f"{GUIDE_PATH}:22:1", 22, 22),
    ],
)
def test_get_lines(guide_db: TmpIndex, spec: str, first: int, last: int) -> None:
    want = "".join(line + "\n" for line in GUIDE_LINES[first - 1 : last])
    assert file_lines(guide_db.docs / "handbook/guide.md") == GUIDE_LINES
    out = invoke("get", "--text", "index.db", spec)
    assert out.exit_code == 0 and out.stdout == want
    as_json = json.loads(invoke("get", "--json", "index.db", spec).stdout)
    assert [(i["line"], i["text"]) for i in as_json] == list(
        zip(range(first, last + 1), GUIDE_LINES[first - 1 : last])
    )


def test_get_after_the_file_is_deleted(guide_db: TmpIndex) -> None:
    before = invoke("get", "--text", "index.db", f"{GUIDE_PATH}:5:12")
    shutil.rmtree(guide_db.docs / "handbook")
    after = run("get", "--text", "index.db", f"{GUIDE_PATH}:5:12", cwd=guide_db.root)  # real script
    assert before.exit_code == after.returncode == 0
    assert after.stdout == before.stdout == "".join(line + "\n" for line in GUIDE_LINES[4:16])
    assert invoke("get", "--text", "index.db", GUIDE_PATH).stdout == GUIDE + "\n"


def test_get_crlf_and_bom_file(tmp_index: TmpIndex) -> None:
    tmp_index.write("win.md", b"\xef\xbb\xbf# Win\r\n\r\nline \xc3\xa9\r\n")
    tmp_index.index()
    assert invoke("get", "--text", "index.db", "docs/win.md").stdout == "# Win\n\nline é\n"


def test_get_unknown_document(guide_db: TmpIndex) -> None:
    out = invoke("get", "index.db", "docs/missing.md:1:2")
    assert out.exit_code == 1 and "no document" in out.stderr


# -- opening files that are not (current) indexes ----------------------------------------------
def _assert_clear_error(result: Any, *needles: str) -> None:
    """A CliRunner result or a CompletedProcess: exit 2, 'error: ...' on stderr, no traceback."""
    if isinstance(result, subprocess.CompletedProcess):
        code, stderr = result.returncode, result.stderr
    else:
        code, stderr = result.exit_code, result.stderr
        assert isinstance(result.exception, SystemExit), f"unhandled {result.exception!r}"
    assert code == 2, (code, stderr)
    assert "Traceback" not in stderr, stderr
    assert stderr.startswith("error: "), stderr
    for needle in needles:
        assert needle in stderr, stderr


def cli_result(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_newer_schema_is_refused(guide_db: TmpIndex) -> None:
    conn = apsw.Connection(str(guide_db.db))
    conn.execute(
        "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(dbmod.SCHEMA_VERSION + 1),)
    )
    conn.close()
    _assert_clear_error(
        run("status", "index.db", cwd=guide_db.root), "newer", "upgrade docql-sqlite"
    )
    for command in (
        ["toc", "index.db", GUIDE_PATH],
        ["get", "index.db", GUIDE_PATH],
        ["index", "index.db", "docs"],
    ):
        _assert_clear_error(cli_result(*command), "newer", "upgrade docql-sqlite")
    # nothing was changed by the attempts
    assert query(guide_db.db, "SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(dbmod.SCHEMA_VERSION + 1),)
    ]


@pytest.mark.parametrize("kind", ["text", "other-sqlite", "empty"])
def test_not_an_index(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "thing.db"
    if kind == "text":
        path.write_text("hello, I am not a database\n" * 10)
    elif kind == "other-sqlite":
        conn = apsw.Connection(str(path))
        conn.execute("CREATE TABLE notes(body TEXT)")
        conn.close()
    else:
        path.write_bytes(b"")
    for command in ("status", "toc"):
        result = cli_result(command, str(path))
        _assert_clear_error(result, str(path))
        assert "index" in result.stderr or "database" in result.stderr


def test_missing_index(tmp_path: Path) -> None:
    _assert_clear_error(
        cli_result("status", str(tmp_path / "nothing.db")), "no index at", "docql-sqlite index"
    )
    assert not (tmp_path / "nothing.db").exists()  # a read command must not create the file


def test_index_include_exclude_flags(tmp_index: TmpIndex) -> None:
    tmp_index.write_many(
        {
            "a.md": "# A\n",
            "b.txt": "bee\n",
            "skip/c.md": "# C\n",
            "node_modules/d.md": "# D\n",
            ".gitignore": "node_modules/\n",
        }
    )
    out = invoke(
        "index", "--json", "index.db", "docs", "--include", "*.md", "--exclude", "docs/skip"
    )
    assert out.exit_code == 0 and json.loads(out.stdout)[0]["added"] == 1
    assert tmp_index.paths() == ["docs/a.md"]
