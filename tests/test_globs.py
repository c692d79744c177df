"""One glob dialect (gitignore's, docql_sqlite/globs.py) at every entry point that takes one.

A table of (glob, path, matches?) cases is checked against pathspec's `GitIgnoreSpec`
(git's rules) and against hand-written expectations, then through each entry point on a
real tree: `index --include`, `index --exclude`, `--path` (compiled to SQL, run by the
index and by the stock sqlite3 shell) and the MCP `get` of a glob (`Index.get_many`, and
once through the SDK client).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pathspec
import pytest
from click.testing import CliRunner

import docql_sqlite
from docql_sqlite import globs
from docql_sqlite.cli import cli
from docql_sqlite.errors import UsageError

FILES = [
    "README.md",
    "notes/README.md",
    "docs/guide.md",
    "docs/api/stream.md",
    "docs/drafts/plan.md",
    "drafts/top.md",
    "src/a/mod.rs",
    "src/a/b/mod.rs",
    "lib/x.c",
    "lib/x.h",
    "zh/常见问题.md",
    "odd/a$b^c.md",
]

# (glob, the files it selects): what a .gitignore line would select, written by hand.
CASES = {
    "*.md": [f for f in FILES if f.endswith(".md")],
    "README.md": ["README.md", "notes/README.md"],  # a name matches at any depth
    "/README.md": ["README.md"],  # a leading / anchors it
    "drafts": ["docs/drafts/plan.md", "drafts/top.md"],  # a directory: all under it
    "drafts/": ["docs/drafts/plan.md", "drafts/top.md"],
    "docs/*.md": ["docs/guide.md"],  # anchored; * stays within one directory
    "docs/**/*.md": ["docs/guide.md", "docs/api/stream.md", "docs/drafts/plan.md"],
    "docs/**": ["docs/guide.md", "docs/api/stream.md", "docs/drafts/plan.md"],
    "docs/*": ["docs/guide.md", "docs/api/stream.md", "docs/drafts/plan.md"],
    "src/*/mod.rs": ["src/a/mod.rs"],
    "**/b/*.rs": ["src/a/b/mod.rs"],
    "*.[ch]": ["lib/x.c", "lib/x.h"],
    "x.[!c]": ["lib/x.h"],
    "doc?/guide.md": ["docs/guide.md"],
    "zh/常*.md": ["zh/常见问题.md"],
    "odd/a$b^c.md": ["odd/a$b^c.md"],  # regex operators are literal characters
    "nothing/*": [],
}


@pytest.mark.parametrize("glob", CASES)
def test_the_table_is_gitignore(glob: str) -> None:
    spec = pathspec.GitIgnoreSpec.from_lines([glob])
    assert [f for f in FILES if spec.match_file(f)] == CASES[glob], "the table is wrong"
    assert [f for f in FILES if globs.matches(glob, f)] == CASES[glob]


@pytest.mark.parametrize(
    "glob, path, matches",
    [
        ("*.md", "/abs/docs/guide.md", True),  # a leading / of the path is ignored
        ("docs/*.md", "/docs/guide.md", True),
        ("docs/*.md", "x/docs/guide.md", False),
        ("drafts/", "drafts", False),  # directories only: a file named drafts is not one
        ("drafts/", "drafts/", True),  # (the walk gives a directory's path with a /)
        ("a**b", "axxb", True),
        ("a**b", "ax/xb", False),  # consecutive stars inside a name are one star
        ("\\*.md", "*.md", True),
        ("\\*.md", "a.md", False),
        ("[]x].md", "].md", True),
    ],
)
def test_more_cases(glob: str, path: str, matches: bool) -> None:
    assert globs.matches(glob, path) is matches
    assert pathspec.GitIgnoreSpec.from_lines([glob]).match_file(path) is matches or (
        path.endswith("/") or path.startswith("/")  # pathspec normalises these away
    )


@pytest.mark.parametrize("glob", ["!*.md", "", "/"])
def test_a_glob_that_is_not_one_is_a_usage_error(glob: str) -> None:
    with pytest.raises(UsageError):
        globs.to_regex(glob)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("globs") / "tree"
    for name in FILES:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "int x;\n" if name.endswith((".c", ".h")) else f"# {name}\n\ntext of {name}\n"
        if name.endswith(".rs"):
            body = "fn main() {}\n"
        path.write_text(body, encoding="utf-8")
    return root


def indexed(db: Path) -> list[str]:
    with docql_sqlite.open(db) as index:
        return sorted(d["path"] for d in index.documents())


@pytest.fixture(scope="module")
def whole(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("globs-db") / "all.db"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tree)
        docql_sqlite.index(db, ["."], workers=0)
    assert indexed(db) == sorted(FILES)
    return db


@pytest.mark.parametrize("glob", CASES)
def test_index_include_and_exclude(
    glob: str, tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    runner = CliRunner()
    for option, expected in (
        ("--include", sorted(CASES[glob])),
        ("--exclude", sorted(set(FILES) - set(CASES[glob]))),
    ):
        db = tmp_path / f"{option.strip('-')}.db"
        result = runner.invoke(cli, ["index", str(db), ".", option, glob, "--workers", "0"])
        assert result.exit_code == 0, result.output
        assert indexed(db) == expected, option


@pytest.mark.parametrize("glob", CASES)
def test_path_option_and_the_shell(glob: str, whole: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["query", str(whole), "$.files", "--path", glob, "--json"])
    assert result.exit_code == 0, result.output
    assert sorted(f["path"] for f in json.loads(result.output)) == sorted(CASES[glob])
    with docql_sqlite.open(whole) as index:
        inline = index.compile("$.files.path", path=glob).inline_sql()
        hits = index.search("text", mode="bm25", paths=[glob], limit=50)
    md = sorted(f for f in CASES[glob] if f.endswith(".md"))
    assert sorted({h["path"] for h in hits}) == md  # search's --path too
    if shutil.which("sqlite3"):  # the compiled SQL, unchanged, in the stock shell
        shell = subprocess.run(
            ["sqlite3", "-readonly", "-json", str(whole), inline],
            capture_output=True,
            text=True,
            check=True,
        )
        rows = json.loads(shell.stdout or "[]")
        assert sorted(row[next(iter(row))] for row in rows) == sorted(CASES[glob])


@pytest.mark.parametrize("glob", CASES)
def test_mcp_get_of_a_glob(glob: str, whole: Path) -> None:
    with docql_sqlite.open(whole) as index:
        found = index.get_many(glob, max_bytes=1_000_000)
    assert sorted(e.path for e in found.excerpts) == sorted(CASES[glob])


def test_mcp_get_of_a_glob_through_the_sdk(whole: Path) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp_client import stdio_session

    async def session() -> str:
        async with stdio_session(whole) as (client, _):
            reply = await client.call_tool("get", {"path": "docs/*"})
            return "\n".join(getattr(block, "text", "") for block in reply.content)

    text = anyio.run(session)
    for path in FILES:
        assert (f"=== {path} " in text) is (path in CASES["docs/*"]), path
