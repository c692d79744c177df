"""A symbol's `source` (`$.code.class/function/method(…)`): what leads it, whole, then its
lines — however long the doc comment, in every language that writes one above the symbol.

Oracle: the file's own lines, from the first line of the block of comments, attributes
and decorators right above the symbol (found by reading the lines upwards) to the
symbol's last line. Before the fix a doc comment longer than a passage gave only its
last lines (the chunk that held the symbol's first line began inside the comment): Node's
`fs.readFile` in `@types/node` opened with " * import { readFile } …".
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import TmpIndex

import docql_sqlite

SQLITE3 = shutil.which("sqlite3", path="/usr/bin") or shutil.which("sqlite3")

# A doc comment's body of ~2,900 characters: two passages' worth (1,500 a passage).
PROSE = [
    f"Sentence {n} of the documentation of this symbol, long enough to count." for n in range(40)
]


def jsdoc(indent: str) -> str:
    return "".join(
        [f"{indent}/**\n", *(f"{indent} * {line}\n" for line in PROSE), f"{indent} */\n"]
    )


def line_comments(mark: str, indent: str = "") -> str:
    return "".join(f"{indent}{mark} {line}\n" for line in PROSE)


# (file, query, the symbol's first line as written, what leads it: comment/attribute marks)
CASES = [
    (
        "fs.d.ts",
        "declare module 'fs' {\n"
        "    export function close(fd: number): void;\n"
        + jsdoc("    ")
        + "    export function readFile(\n        path: string,\n    ): void;\n}\n",
        '$.code.function("readFile")',
        "export function readFile(",
        ("/**", "*", "*/"),
    ),
    (
        "lib.rs",
        "pub fn before() {}\n\n"
        + line_comments("///")
        + "#[inline]\npub fn after(x: u32) -> u32 {\n    x + 1\n}\n",
        '$.code.function("after")',
        "pub fn after(",
        ("///", "#["),
    ),
    (
        "pool.go",
        "package pool\n\nfunc Before() {}\n\n"
        + line_comments("//")
        + "func After(n int) int {\n\treturn n\n}\n",
        '$.code.function("After")',
        "func After(",
        ("//",),
    ),
    (
        "Pool.java",
        "class Pool {\n    void before() {}\n"
        + jsdoc("    ")
        + "    @Deprecated\n    int after(int n) {\n        return n;\n    }\n}\n",
        '$.code.method("after")',
        "int after(",
        ("/**", "*", "*/", "@"),
    ),
    (
        # Python's docstring is inside the def: what leads it is its decorators, and the
        # method ends on the class's last line (the class's section ends there too).
        "pool.py",
        "class Pool:\n    def before(self):\n        pass\n\n"
        "    @property\n    @staticmethod\n    def after(self):\n"
        '        """' + " ".join(PROSE) + '"""\n        return 1\n',
        '$.code.method("after")',
        "def after(",
        ("@",),
    ),
]


def oracle(text: str, first_line_text: str, lead_marks: tuple[str, ...]) -> tuple[int, int]:
    """(the symbol's line, the first line of its source): the line that opens with
    `first_line_text`, and above it every line in a row that a lead mark opens."""
    lines = text.splitlines(keepends=True)
    line = next(i for i, t in enumerate(lines) if t.strip().startswith(first_line_text)) + 1
    start = line
    while start > 1 and lines[start - 2].strip().startswith(lead_marks):
        start -= 1
    return line, start


@pytest.mark.parametrize(("name", "text", "query", "first", "marks"), CASES)
def test_source_holds_the_whole_doc_comment(
    tmp_index: TmpIndex,
    name: str,
    text: str,
    query: str,
    first: str,
    marks: tuple[str, ...],
) -> None:
    tmp_index.write(name, text)
    tmp_index.index()
    line, start = oracle(text, first, marks)
    with docql_sqlite.open(tmp_index.db) as index:
        [symbol] = index.query(query)
        # The lead is long enough to be cut into passages of its own: the case that failed.
        chunk_lines = [row[0] for row in tmp_index.query("SELECT line FROM chunks")]
        assert any(start < n < line for n in chunk_lines) or name == "pool.py", chunk_lines
    lines = text.splitlines(keepends=True)
    assert symbol["line"] == line
    assert symbol["source"] == "".join(lines[start - 1 : symbol["end_line"]])
    assert symbol["source"].count(first) == 1


def test_a_class_ending_on_its_last_methods_line_keeps_its_whole_source(
    tmp_index: TmpIndex,
) -> None:
    text = CASES[4][1]
    tmp_index.write("pool.py", text)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as index:
        [cls] = index.query('$.code.class("Pool")')
        [before] = index.query('$.code.method("before")')
    assert cls["source"] == text
    assert before["source"] == "    def before(self):\n        pass\n"


def test_an_enum_member_without_a_section_keeps_its_enums_passage(tmp_index: TmpIndex) -> None:
    text = "/// Colours.\npub enum Colour {\n    /// The first.\n    Red,\n    Green,\n}\n"
    tmp_index.write("colour.rs", text)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as index:
        members = index.query('$.code.symbols[?(@.name=="Green")]')
        classes = index.query('$.code.class("Colour")')
    assert [m["line"] for m in members] == [5]
    assert classes[0]["source"] == text


@pytest.mark.skipif(SQLITE3 is None, reason="no sqlite3 shell")
def test_the_sqlite3_shell_gives_the_same_source(tmp_index: TmpIndex) -> None:
    name, text, query, _, _ = CASES[0]
    tmp_index.write(name, text)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as index:
        compiled = index.compile(query)
        expected = [item["source"] for item in index.query(query)]
    assert SQLITE3 is not None
    done = subprocess.run(
        [SQLITE3, "-readonly", "-json", str(tmp_index.db)],
        input=compiled.inline_sql(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [row["source"] for row in json.loads(done.stdout)] == expected
    assert expected[0].lstrip().startswith("/**")
