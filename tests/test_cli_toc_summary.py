"""`toc -t` as an outline a person reads, and the `index` summary line that adds up."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from docql_sqlite.cli import cli
from docql_sqlite.cli.commands.documents import toc_lines

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "docql-sqlite"

# Docker's extend/EBS_volume.md in small: `##` headings that carry their own numbers, a
# document that starts at `##`, and a skipped level (`##` then `####`).
EBS = """\
## Volume plugin for Amazon EBS

### A proof-of-concept Rexray plugin

text

### 1. Make a Docker image

text

### 2. Extract rootfs

#### Details

text

## Another part

###### Deep, five levels skipped

text
"""

NUMBERED = """\
# Guide

## Install

## Use

### Options
"""


def test_toc_indents_by_nesting_and_prints_a_number_once(tmp_path: Path) -> None:
    (tmp_path / "EBS_volume.md").write_text(EBS, encoding="utf-8")
    (tmp_path / "guide.md").write_text(NUMBERED, encoding="utf-8")
    db = tmp_path / "docs.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(db), str(tmp_path), "--workers", "0"]).exit_code == 0
    result = runner.invoke(cli, ["toc", str(db), "-t"])
    assert result.exit_code == 0, result.output
    lines = [line.split("  (")[0] for line in result.output.splitlines()]  # without (lines)
    ebs = lines[: lines.index(next(x for x in lines if x.endswith("guide.md")))]
    assert ebs[1:] == [
        "  Volume plugin for Amazon EBS",
        "    A proof-of-concept Rexray plugin",
        "    1. Make a Docker image",  # not "1 1. Make a Docker image"
        "    2. Extract rootfs",
        "      2.1 Details",  # numbered from its printed parent
        "  Another part",
        "    Deep, five levels skipped",  # one step under its parent, not five
    ], result.output
    guide = lines[len(ebs) + 1 :]
    # Every heading one step deeper than its parent, siblings aligned, whatever the numbers.
    depths = [len(line) - len(line.lstrip(" ")) for line in guide]
    assert depths == [2, 4, 4, 6], guide
    assert all(line.strip()[0].isdigit() or line.strip()[0].isalpha() for line in guide)


@pytest.mark.parametrize(
    "number, title, shown",
    [
        ("1", "1. Make a Docker image", "1. Make a Docker image"),
        ("2", "2 Extract rootfs", "2 Extract rootfs"),
        ("3", "3) Run", "3) Run"),
        ("1.2", "1.2: Related software", "1.2: Related software"),
        ("4", "4", "4"),
        # a version as a title (Express's History.md): its first digit is not the number
        ("4", "4.22.0", "4 4.22.0"),
        ("1", "1.5 release notes", "1 1.5 release notes"),
        ("1", "10 things", "1 10 things"),
        ("2", "Install", "2 Install"),
        ("", "Preface", "Preface"),
    ],
)
def test_toc_prints_the_number_unless_the_title_starts_with_it(
    number: str, title: str, shown: str
) -> None:
    item = {"path": "a.md", "level": 1, "number": number, "title": title}
    item |= {"line": 1, "end_line": 2, "page": None}
    assert toc_lines([item]) == ["a.md", f"  {shown}  (1-2)"]


def test_the_mcp_toc_is_the_same_outline_as_the_cli(tmp_path: Path) -> None:
    """The MCP `toc` tool nests and numbers as `toc -t` does: no `1 1. Make …`, a
    document that starts at `##` or skips levels indented by nesting, on every page."""
    tools_module = pytest.importorskip("docql_sqlite.agent.tools")
    (tmp_path / "EBS_volume.md").write_text(EBS, encoding="utf-8")
    (tmp_path / "History.md").write_text("4.22.1\n======\n\nx\n\n4.22.0\n======\n\ny\n")
    db = tmp_path / "docs.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(db), str(tmp_path), "--workers", "0"]).exit_code == 0
    cli_lines = runner.invoke(cli, ["toc", str(db), "-t"]).output.splitlines()
    tools = tools_module.Tools(str(db))
    try:
        reply = tools.toc()
        assert not reply.is_error, reply.text
        # the CLI shows (lines), the tool (path:lines): compare what comes before
        shown = [x.split("  (")[0] for x in reply.text.splitlines()]
        assert shown == [x.split("  (")[0] for x in cli_lines]
        assert "    1. Make a Docker image" in shown
        assert "  2 4.22.0" in shown
        # a later page keeps the whole outline's indents and names its document
        page = tools.toc(offset=3).text.splitlines()
        assert page[0].endswith("/EBS_volume.md")
        assert page[1].startswith("    2. Extract rootfs  (")
        assert page[2].startswith("      2.1 Details  (")
    finally:
        tools.close()


def test_the_summary_line_adds_up_to_the_json(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / ".hidden").mkdir(parents=True)
    for name in ("a.md", "b.md", ".c.md", ".hidden/d.md", "empty.md", "image.png"):
        (tree / name).write_text("" if name == "empty.md" else "# x\n", encoding="utf-8")
    (tree / ".gitignore").write_text("b.md\n", encoding="utf-8")
    run = subprocess.run(
        [str(CLI), "index", str(tmp_path / "docs.db"), str(tree), "--workers", "0"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)[0]
    counts = report["skip_counts"]
    assert counts == {
        "empty file": 1,
        "hidden": 3,  # .c.md, .hidden/ and .gitignore itself
        "ignored by .gitignore/.ignore": 1,
        "not a document format": 1,
    }
    summary = run.stderr.strip().splitlines()[-1]
    assert " 1 skipped (1 empty file); the walk left out " in summary, summary
    for kind, n in counts.items():
        assert f"{n} {kind}" in summary, (kind, summary)
