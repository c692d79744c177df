"""Every example of docs/shell.md runs in the stock `/usr/bin/sqlite3` and prints what the
page says it prints.

The page's convention (stated at its top): a fenced ```sql block followed by a fenced
```text block is one example. The SQL goes to

    sqlite3 -readonly -cmd ".load $VEC" -header -column docs.db

on standard input, where docs.db is `docql-sqlite index docs.db datasets/ --exclude bad`
run from the repository root and embedded with the deterministic `hash` model, and
`$VEC` is sqlite-vec's loadable library from the installed Python package. The output
must equal the text block; only spaces at line ends (column mode pads the last column)
and blank lines at the end are ignored. Every ```sql block on the page must have its ```text block.

Chunk ids depend on the order the indexing workers finish in, so the page never
prints or hard-codes one: it finds "chunk N" by its path and line.

After a change to datasets/ or to what is indexed, rewrite the outputs with
`DOCQL_UPDATE_DOCS=1 .venv/bin/python -m pytest tests/test_shell_doc.py` and read the diff.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlite_vec

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "shell.md"
SQLITE3 = Path("/usr/bin/sqlite3")
CLI = REPO / ".venv" / "bin" / "docql-sqlite"
UPDATE = os.environ.get("DOCQL_UPDATE_DOCS") == "1"

# What the page tells users to run; the test runs the same (and checks the page says so).
SETUP_COMMANDS = (
    "docql-sqlite index docs.db datasets/ --exclude bad",
    "docql-sqlite embed docs.db --model hash",
    "VEC=$(python -c 'import sqlite_vec; print(sqlite_vec.loadable_path())')",
    'sqlite3 -readonly -cmd ".load $VEC" -header -column docs.db',
)

pytestmark = pytest.mark.skipif(
    not SQLITE3.exists(), reason="no /usr/bin/sqlite3 (.ci/run installs the sqlite3 package)"
)

_EXAMPLE = re.compile(r"^```sql\n(.*?)^```\n\s*^```text\n(.*?)^```$", re.M | re.S)
_SQL_BLOCK = re.compile(r"^```sql$", re.M)


@dataclass(frozen=True)
class Example:
    line: int  # of the ```sql fence in the page
    sql: str
    expected: str


def examples(page: str) -> list[Example]:
    return [
        Example(page.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))
        for m in _EXAMPLE.finditer(page)
    ]


PAGE_TEXT = PAGE.read_text(encoding="utf-8")
EXAMPLES = examples(PAGE_TEXT)


def normalize(text: str) -> str:
    """Spaces at line ends and blank lines at the end do not count."""
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n")


def run_sql(db: Path, sql: str) -> subprocess.CompletedProcess[str]:
    command = [str(SQLITE3), "-readonly", "-cmd", f".load {sqlite_vec.loadable_path()}"]
    return subprocess.run(
        [*command, "-header", "-column", str(db)],
        input=sql,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )


@pytest.fixture(scope="module")
def docs_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page's index, built with the page's own commands from the repository root."""
    db = tmp_path_factory.mktemp("shell-doc") / "docs.db"
    for command in (
        ["index", str(db), "datasets/", "--exclude", "bad"],
        ["embed", str(db), "--model", "hash"],
    ):
        done = subprocess.run(
            [str(CLI), *command], cwd=REPO, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
    return db


def test_the_page_shows_the_commands_this_test_runs() -> None:
    for command in SETUP_COMMANDS:
        assert command in PAGE_TEXT, f"docs/shell.md no longer shows: {command}"


def test_every_sql_block_has_its_expected_output() -> None:
    fences = [PAGE_TEXT.count("\n", 0, m.start()) + 1 for m in _SQL_BLOCK.finditer(PAGE_TEXT)]
    assert fences == [e.line for e in EXAMPLES], "a ```sql block without a ```text block"
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_example_prints_what_the_page_says(docs_db: Path, example: Example) -> None:
    result = run_sql(docs_db, example.sql)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout.strip(), "an example that prints nothing shows nothing"
    if UPDATE:
        _rewrite(example, result.stdout)
        return
    assert normalize(result.stdout) == normalize(example.expected), (
        f"docs/shell.md line {example.line}: the shell printed\n{result.stdout}"
    )


def _rewrite(example: Example, output: str) -> None:
    """Put `output` in place of the example's expected text (DOCQL_UPDATE_DOCS=1)."""
    page = PAGE.read_text(encoding="utf-8")
    start = page.index(example.sql) + len(example.sql)
    match = _EXAMPLE.search(page, page.rfind("```sql", 0, start))
    assert match is not None
    text = normalize(output) + "\n"
    PAGE.write_text(page[: match.start(2)] + text + page[match.end(2) :], encoding="utf-8")
