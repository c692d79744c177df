"""Every location a command prints is one `get` takes, also when a narrow table shortened
it: a path is shortened only to a tail that names one indexed document (`…/std_misc/fs.md`,
never an ambiguous `…/fs.md` when two `fs.md` are indexed), and `get` reads such a tail,
with or without the `…/`. An ambiguous tail is an error naming the candidates; errors name
the document without the line numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from docql_sqlite.cli import cli

# Two fs.md (the case of the issue: a Rust std source tree and rust-by-example), other
# long paths, and a top-level file whose name other documents end in too.
FILES = {
    "vendor/rust/books/rust-by-example/src/std_misc/fs.md": "# Filesystem Operations\n\n"
    + "The fs module reads a file to a string.\n" * 30,
    "vendor/rust/library/std/src/sys/unix/fs.md": "# fs\n\n"
    + "".join(f"## File operation {n}\n\nRead a file, write a file ({n}).\n\n" for n in range(40)),
    "a/rather/long/directory/chain/made/for/shortening/the/file/paths/guide.md": "# Guide\n\n"
    + "How to read a file in this guide.\n" * 10,
    "guide.md": "# Top guide\n\nA file at the top.\n",
    "docs/reference/api/streams/readable-file-streams-and-more.md": "# Readable file streams\n\n"
    + "Streams read a file piece by piece.\n" * 10,
}

COMMANDS = [
    ["query", "$.toc", "-t"],
    ["query", '$.content.heading("file")', "-t"],
    ["query", "$.files", "-t"],
    ["query", "$.files", "-t", "--fields", "path"],
    ["search", "read a file", "-t", "-n", "50"],
    ["search", "read a file", "-t", "-n", "50", "--group", "file"],
    ["context", "how do I read a file?", "-t"],
    ["get", "guide.md", "-t"],
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("locations")
    for name, text in FILES.items():
        path = root / "tree" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    db = root / "docs.db"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root / "tree")
        result = CliRunner().invoke(cli, ["index", str(db), ".", "--workers", "0"])
    assert result.exit_code == 0, result.output
    return root / "tree", db


COLUMNS = 70  # the width of the report; narrower only squeezes harder


def invoke(args: list[str], columns: int = COLUMNS) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, args, env={"COLUMNS": str(columns)})
    return result.exit_code, result.stdout, result.stderr


def table_locations(output: str) -> list[str]:
    """The first column of a table (the location or path: never cut, no double spaces)."""
    lines = output.splitlines()
    assert len(lines) >= 3 and set(lines[1]) <= {"-", " "}, output
    return [line.split("  ")[0] for line in lines[2:]]


@pytest.fixture(scope="module")
def printed(indexed: tuple[Path, Path]) -> dict[str, list[str]]:
    _, db = indexed
    found: dict[str, list[str]] = {}
    for command in COMMANDS:
        code, out, err = invoke([command[0], str(db), *command[1:]])
        assert code == 0, (command, err)
        lines = out.splitlines()
        assert all(len(line) <= 70 or "…" not in line for line in lines)
        found[" ".join(command)] = table_locations(out)
    code, out, _ = invoke(["toc", str(db), "-t"])  # the outline: paths, then (first-last)
    path = ""
    toc = []
    for line in out.splitlines():
        if not line.startswith(" "):
            path = line
            toc.append(path)
        else:
            first, last = re.search(r"\((\d+)-(\d+)\)$", line).groups()  # type: ignore[union-attr]
            toc.append(f"{path}:{first}-{last}")
    found["toc"] = toc
    return found


def test_narrow_tables_shorten_paths(printed: dict[str, list[str]]) -> None:
    every = [loc for locations in printed.values() for loc in locations]
    shortened = [loc for loc in every if loc.startswith("…/")]
    assert shortened, every  # the test exercises the shortening
    fs = [loc for loc in every if "fs.md" in loc]
    assert fs and not [loc for loc in fs if loc.startswith("…/fs.md")], fs  # never ambiguous
    assert any(loc.startswith("…/") and "/std_misc/fs.md:" in loc for loc in fs), fs
    assert any(loc.startswith("…/") and "/unix/fs.md:" in loc for loc in fs), fs


def test_get_takes_every_printed_location(
    indexed: tuple[Path, Path], printed: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree, db = indexed
    monkeypatch.chdir(tree.parent)  # not where the index was built: tails, not cwd paths
    for command, locations in printed.items():
        assert locations, command
        for location in locations:
            code, out, err = invoke(["get", str(db), location, "--json"])
            assert code == 0, (command, location, err)
            rows = json.loads(out)
            assert rows and rows[0]["path"].endswith(location.split(":")[0].removeprefix("…/"))


def test_a_unique_tail_is_a_document(indexed: tuple[Path, Path]) -> None:
    _, db = indexed
    code, out, _ = invoke(["get", str(db), "std_misc/fs.md:1", "--json"])
    assert json.loads(out)[0]["path"] == "vendor/rust/books/rust-by-example/src/std_misc/fs.md"
    code, out, _ = invoke(["get", str(db), "…/std/src/sys/unix/fs.md:3-4", "--json"])
    assert code == 0 and [r["line"] for r in json.loads(out)] == [3, 4]
    # An exact path wins over the documents that end in it.
    code, out, _ = invoke(["get", str(db), "guide.md:1", "--json"])
    assert code == 0 and json.loads(out)[0]["path"] == "guide.md"


def test_an_ambiguous_tail_names_the_candidates(indexed: tuple[Path, Path]) -> None:
    _, db = indexed
    code, _, err = invoke(["get", str(db), "…/fs.md:4417-4454"])
    assert code != 0
    assert "'fs.md' matches 2 documents" in err
    assert "'vendor/rust/library/std/src/sys/unix/fs.md'" in err
    assert "'vendor/rust/books/rust-by-example/src/std_misc/fs.md'" in err
    assert "4417" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    "location, named", [("nowhere/x.md:3-4", "nowhere/x.md"), ("…/nope.md:7", "nope.md")]
)
def test_no_document_names_the_path_without_lines(
    indexed: tuple[Path, Path], location: str, named: str
) -> None:
    _, db = indexed
    code, _, err = invoke(["get", str(db), location])
    assert code != 0
    assert f"no document '{named}' in the index" in err, err


@pytest.mark.parametrize(
    "location",
    [
        "…/std_misc/fs.md",  # as a narrow table prints it
        "std_misc/fs.md",
        "vendor/rust/books/rust-by-example/src/std_misc/fs.md:3-4",  # a location: its document
        "…/std_misc/fs.md:1",
    ],
)
def test_toc_takes_a_printed_location_too(indexed: tuple[Path, Path], location: str) -> None:
    _, db = indexed
    code, out, err = invoke(["toc", str(db), location, "--json"])
    assert code == 0, err
    assert {h["path"] for h in json.loads(out)} == {
        "vendor/rust/books/rust-by-example/src/std_misc/fs.md"
    }


def test_toc_of_no_document_names_the_path_without_lines(indexed: tuple[Path, Path]) -> None:
    _, db = indexed
    code, _, err = invoke(["toc", str(db), "…/nope.md:7"])
    assert code != 0 and "no document 'nope.md' in the index" in err, err
