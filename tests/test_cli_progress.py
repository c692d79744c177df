"""The progress line of `index`/`embed` in a real terminal (a pty of a set size): it never
gets wider than the terminal (no wrapped lines), shows a rate and an ETA, and prints
nothing when stderr is not a terminal."""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from docql_sqlite.cli.progress import render
from docql_sqlite.errors import display_width

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "docql-sqlite"


def run_in_pty(args: list[str], columns: int, cwd: Path | None = None) -> str:
    """Run `args` with stdin/stdout/stderr on a pty `columns` wide; all it wrote."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen(
        args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert process.wait(timeout=300) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def screen_lines(output: str) -> list[str]:
    """Every line as the terminal draws it: split at newlines and carriage returns (with
    the spaces that blank out the end of a longer line drawn before)."""
    return [part for line in output.split("\n") for part in line.split("\r")]


# A child that drives ProgressBar on its stderr (the pty) for ~1.5 s, as `index` does.
DRIVER = """
import time
from docql_sqlite.cli.progress import ProgressBar
bar = ProgressBar("indexing")
for done in range(1, 31):
    bar.update(done, 30, "docs/" + "deeply/nested/" * 6 + f"chapter-{done:02}-of-the-guide.md")
    time.sleep(0.05)
bar.close()
print("done")
"""


@pytest.mark.parametrize("columns", [60, 200])
def test_the_line_fits_the_terminal_and_shows_rate_and_eta(columns: int) -> None:
    output = run_in_pty([sys.executable, "-c", DRIVER], columns)
    lines = screen_lines(output)
    assert max(display_width(line) for line in lines) < columns  # never the last cell
    lines = [line.rstrip() for line in lines]
    drawn = [line for line in lines if line.startswith("indexing")]
    assert drawn, output
    assert any("/s" in line and "ETA " in line for line in drawn), drawn
    assert any("[" in line and "#" in line for line in drawn), drawn  # the bar itself
    if columns == 200:
        assert any(line.endswith("chapter-30-of-the-guide.md") for line in drawn)
        assert any("docs/deeply/nested/" in line for line in drawn)  # the whole path fits
    else:
        assert any("…" in line for line in drawn)  # the path cut from the left
    assert "done" in lines  # the line was cleared: nothing of it left before the print


@pytest.fixture(scope="module")
def many_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("progress") / "a-rather-long-directory-name-for-the-corpus"
    for n in range(300):
        path = root / f"section-{n // 50}" / f"a-long-file-name-for-document-number-{n:04}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Document {n}\n\n" + "Some text about it.\n" * 20, encoding="utf-8")
    return root


@pytest.mark.parametrize("columns", [60, 200])
def test_index_in_a_terminal(columns: int, many_files: Path, tmp_path: Path) -> None:
    db = tmp_path / "docs.db"
    output = run_in_pty(
        [str(CLI), "index", str(db), many_files.name, "--workers", "0"],
        columns,
        cwd=many_files.parent,
    )
    lines = screen_lines(output)
    progress = [line for line in lines if line.startswith("indexing") and "/300" in line]
    assert progress, output
    assert max(display_width(line) for line in progress) < columns  # with its padding
    assert any(line.startswith("indexed 300 added") for line in lines)


def test_nothing_when_stderr_is_not_a_terminal(many_files: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [str(CLI), "index", str(tmp_path / "docs.db"), str(many_files), "--workers", "0"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "\r" not in run.stderr and "ETA" not in run.stderr
    assert run.stderr.startswith("indexed 300 added")


@pytest.mark.parametrize("width", range(8, 220, 7))
def test_render_never_exceeds_the_width(width: int) -> None:
    for elapsed in (0.0, 0.2, 5.0, 4000.0):
        for done in (0, 1, 77, 300):
            line = render("embedding", done, 300, "x/" * 40 + "长文件名.md", elapsed, width)
            assert display_width(line) <= width - 1, (width, line)
