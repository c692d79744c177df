"""Which files `index` takes, as ripgrep would: ignore files, hidden entries, no directory
skipped for its name, the symlink policy, and what a re-run may remove (issue 8 items
11-13, issue 11 item 5 and its symlink policy).

The ignore rules are checked against git itself: on a generated tree with `.gitignore`
files at several depths (negations, anchored and directory-only patterns) and a
`.git/info/exclude`, the indexed set must equal `git ls-files --others
--exclude-standard` (minus hidden paths and non-document formats), also when indexing a
subdirectory, where the ignore files above it apply.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from contextlib import chdir
from pathlib import Path
from typing import Any

import pytest
from conftest import TmpIndex
from test_ingest_bad_input import unprivileged_prefix

from docql_sqlite.ingest.formats import format_for_path
from docql_sqlite.ingest.walk import WalkOptions, walk

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def cli(*args: str, cwd: Path, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*(prefix or []), sys.executable, "-m", "docql_sqlite", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=cwd,
    )


def index_json(*args: str, cwd: Path) -> tuple[int, dict[str, Any]]:
    run = cli("index", "--json", *args, cwd=cwd)
    assert run.stdout, run.stderr
    return run.returncode, json.loads(run.stdout)[0]


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# -- the Rust case: real source under directories named build/ and target/ -------------------
RUST_TREE = {
    ".gitignore": "/build/\n/target/\n*.o\n",
    "compiler/rustc_mir_build/src/build/mod.rs": "pub fn build_mir() {}\n",
    "compiler/rustc_mir_build/src/build/expr/as_place.rs": "pub fn as_place() {}\n",
    "compiler/rustc_mir_build/src/lib.rs": "mod build;\n",
    "library/core/src/target/mod.rs": "pub struct Target;\n",
    "build/x86_64/stage0/lib.rs": "// a build product\n",
    "target/debug/gen.rs": "// a build product\n",
    "node_modules/pkg/README.md": "# not ignored by any rule here\n",
}


def test_directories_named_build_or_target_are_indexed(tmp_path: Path) -> None:
    write(tmp_path / "rust", RUST_TREE)
    code, summary = index_json("x.db", "rust", cwd=tmp_path)
    assert code == 0, summary
    import docql_sqlite

    with docql_sqlite.open(tmp_path / "x.db") as index:
        paths = sorted(index.query("$.files[*].path"))
    assert paths == [
        "rust/compiler/rustc_mir_build/src/build/expr/as_place.rs",
        "rust/compiler/rustc_mir_build/src/build/mod.rs",
        "rust/compiler/rustc_mir_build/src/lib.rs",
        "rust/library/core/src/target/mod.rs",
        "rust/node_modules/pkg/README.md",
    ]
    assert summary["skip_counts"]["ignored by .gitignore/.ignore"] == 2  # /build/, /target/


SPHINX_BUILD = {
    "html/objects.inv": "# Sphinx inventory\n",
    "html/searchindex.js": 'Search.setIndex({"docnames": ["index", "usage"]})\n',
    "html/index.html": "<html><body><h1>Guide</h1><p>Read the usage page.</p></body></html>",
    "html/usage.html": "<html><body><h1>Usage</h1><p>Run it.</p></body></html>",
    "html/_sources/index.rst.txt": "Guide\n=====\n\nRead the usage page.\n",
    "html/_sources/usage.rst.txt": "Usage\n=====\n\nRun it.\n",
    "html/_downloads/example.py": "print('an example')\n",
    "html/_static/doctools.js": "const Documentation = {};\n",  # the theme's
    "html/_static/jquery.js": "/*! jQuery */\n",
    "html/_modules/pkg/mod.html": "<html><body><h1>Source code for pkg.mod</h1></body></html>",
    # the same names outside a Sphinx build are documents like any other
    "notes/_sources/list.md": "# Sources\n",
    "notes/searchindex.js": "var index = 1;\n",
}


DOXYGEN_BUILD = {
    "dox/doxygen.css": "body { }\n",
    "dox/dynsections.js": "function toggleVisibility(linkObj) { return 1; }\n",
    "dox/group__mdb.html": "<html><body><h1>LMDB API</h1><p>mdb_txn_begin()</p></body></html>",
    "dox/search/all_8.js": "var searchData=\n[\n  ['mdb_5ftxn_5fbegin',['mdb_txn_begin']]\n];\n",
    "dox/search/all_8.html": "<html><body><div id='SRResults'></div></body></html>",
    "dox/src/search/find.c": "int find(void) { return 0; }\n",  # no doxygen.css beside it
}


MDBOOK_BUILD = {
    "bk/book.js": "window.onunload = function () {};\n",
    "bk/print.html": "<html><body><h1>Ch 1</h1><p>one</p><h1>Ch 2</h1><p>two</p></body></html>",
    "bk/searchindex.js": 'Object.assign(window.search, {"doc_urls": ["ch01.html"]});\n',
    "bk/ch01.html": "<html><body><h1>Ch 1</h1><p>one</p></body></html>",
    "bk/ch02.html": "<html><body><h1>Ch 2</h1><p>two</p></body></html>",
}


def test_a_doc_builds_search_index_and_page_sources_are_left_out(tmp_path: Path) -> None:
    """Python's HTML docs hold each page twice (`library/json.html` and
    `_sources/library/json.rst.txt`: every answer came twice in a search's first ten) and
    every word again in `searchindex.js`; walked as a root, `_sources/` is indexed. The
    theme's scripts (`_static/`, a Doxygen's `jquery.js`) are no documents."""
    write(tmp_path, SPHINX_BUILD)
    found = sorted(f.display for f in walk([tmp_path / "html", tmp_path / "notes"]))
    names = [p.split(str(tmp_path) + "/", 1)[-1] for p in found]
    assert names == [
        "html/_downloads/example.py",
        "html/index.html",
        "html/usage.html",
        "notes/_sources/list.md",
        "notes/searchindex.js",
    ]
    code, summary = index_json("x.db", "html", cwd=tmp_path)
    assert code == 0, summary
    reason = "a doc build's search index, page sources and theme scripts"
    assert summary["skip_counts"][reason] == 4  # each folder once, the file once
    assert len(list(walk([tmp_path / "html" / "_sources"]))) == 2
    # a build shipped without `objects.inv` (SQLAlchemy's sdist): `searchindex.js` beside
    # `_static/` says Sphinx
    (tmp_path / "html" / "objects.inv").unlink()
    found = sorted(f.display for f in walk([tmp_path / "html", tmp_path / "notes"]))
    assert [p.split(str(tmp_path) + "/", 1)[-1] for p in found] == names
    # Doxygen's search data (lmdb-doc: `search/all_8.js` ranked 5th for `mdb_txn_begin`)
    write(tmp_path, DOXYGEN_BUILD)
    found = sorted(f.display.split(str(tmp_path) + "/", 1)[-1] for f in walk([tmp_path / "dox"]))
    assert found == ["dox/group__mdb.html", "dox/src/search/find.c"]  # no theme script
    # mdBook's print.html (the Rust book: every chapter again, every answer twice)
    write(tmp_path, MDBOOK_BUILD)
    found = sorted(f.display.split(str(tmp_path) + "/", 1)[-1] for f in walk([tmp_path / "bk"]))
    assert found == ["bk/ch01.html", "bk/ch02.html"]
    assert [f.display for f in walk([tmp_path / "bk" / "print.html"])][0].endswith("print.html")


def _map(*sources: str, root: str = "") -> str:
    """A source map naming `sources` (and a `sourceRoot`), its mappings and texts after."""
    listed = json.dumps(list(sources))
    head = f'"sourceRoot": "{root}", ' if root else ""
    return f'{{"version": 3, {head}"sources": {listed}, "names": [], "mappings": "AAAA"}}'


NPM_PACKAGE = {
    # axios in small: its library, and builds of it beside their source maps
    "pkg/lib/core/settle.js": "export default function settle(r) { return r; }\n",
    "pkg/lib/axios.js": "import settle from './core/settle.js';\nexport default settle;\n",
    "pkg/dist/axios.js": "function settle(r) { return r; }\n//# sourceMappingURL=axios.js.map\n",
    "pkg/dist/axios.js.map": _map("../lib/core/settle.js", "../lib/axios.js"),
    "pkg/dist/axios.min.js": "function settle(r){return r}\n",
    "pkg/dist/axios.min.js.map": _map("core/settle.js", root="../lib"),
    "pkg/dist/node/axios.cjs": "function settle(r) { return r; }\n",
    "pkg/dist/node/axios.cjs.map": _map(
        "webpack://axios/./lib/core/settle.js", "../../lib/axios.js"
    ),
    # sources not shipped (a package of builds alone): the build is the code
    "pkg/types/index.d.ts": "export declare function settle(r: number): number;\n",
    "pkg/types/index.d.ts.map": _map("../src/index.ts"),
    # only scheme-named sources (`webpack://`): nothing here to read instead
    "pkg/umd/axios.js": "function settle(r) { return r; }\n",
    "pkg/umd/axios.js.map": _map("webpack://axios/./lib/core/settle.js"),
    # a map whose list never ends, and a map alone
    "pkg/broken/a.js": "var a = 1;\n",
    "pkg/broken/a.js.map": '{"sources": ["../lib/axios.js"' + ", 1" * 50_000,
    "pkg/lone/b.js.map": _map("../lib/axios.js"),
}


def test_a_build_whose_source_map_names_indexed_sources_is_left_out(tmp_path: Path) -> None:
    """axios 1.7.7 ships `lib/` and four builds of it in `dist/` (each answer came five
    times in a search's first ten); a build beside a source map naming a file of the
    walked tree is left out, counted; a build of sources not shipped stays."""
    write(tmp_path, NPM_PACKAGE)
    found = sorted(f.display.split(str(tmp_path) + "/", 1)[-1] for f in walk([tmp_path / "pkg"]))
    assert found == [
        "pkg/broken/a.js",
        "pkg/lib/axios.js",
        "pkg/lib/core/settle.js",
        "pkg/types/index.d.ts",
        "pkg/umd/axios.js",
    ]
    code, summary = index_json("x.db", "pkg", cwd=tmp_path)
    assert code == 0, summary
    assert (
        summary["skip_counts"]["a build of sources also indexed (its source map names them)"] == 3
    )
    # walked alone, a build is what there is: its sources are outside the roots
    found = [f.display for f in walk([tmp_path / "pkg" / "dist"])]
    assert sorted(p.rsplit("/", 1)[-1] for p in found) == ["axios.cjs", "axios.js", "axios.min.js"]
    # a map that is a FIFO is never opened (it would block the walk for ever)
    fifo = tmp_path / "pkg" / "fifo"
    fifo.mkdir()
    (fifo / "c.js").write_text("var c = 1;\n")
    os.mkfifo(fifo / "c.js.map")
    found = [f.display.rsplit("/", 1)[-1] for f in walk([fifo])]
    assert found == ["c.js"]


@pytest.mark.parametrize(
    "names, left_out",
    [
        # primevue: a component and its builds, the names' case aside; its `.d.ts` is the
        # hand-written types of its props
        (
            ["Calendar.vue", "Calendar.d.ts", "calendar.js", "calendar.esm.js",
             "calendar.cjs.min.js", "package.json"],
            ["calendar.cjs.min.js", "calendar.esm.js", "calendar.js"],
        ),
        # Skeleton: a component's store of its name, with no build mark, is a module
        (["LightSwitch.svelte", "lightswitch.js", "lightswitch.d.ts"], []),
        # TypeScript compiled where it stands: the same name exactly
        (["index.ts", "index.js", "index.d.ts", "util.js"], ["index.d.ts", "index.js"]),
        (["Index.ts", "index.js"], []),
        (["main.tsx", "main.js", "main.mjs"], ["main.js", "main.mjs"]),
        (["a.js", "b.d.ts"], []),  # no source beside
    ],
)  # fmt: skip
def test_a_build_beside_its_source_is_left_out(names: list[str], left_out: list[str]) -> None:
    from docql_sqlite.ingest.walk import _compiled_beside_sources

    assert sorted(_compiled_beside_sources(set(names))) == left_out


def test_a_components_builds_are_counted(tmp_path: Path) -> None:
    """primevue 3.53 ships `Calendar.vue` beside six builds of it and no source map: each
    method was defined seven times ("who calls onOverlayClick" listed the builds)."""
    component = (
        "<template><b/></template>\n<script>\nexport default { methods: { go() {} } };\n</script>\n"
    )
    build = "export default { methods: { go() {} } };\n"
    write(
        tmp_path,
        {
            "pkg/calendar/Calendar.vue": component,
            "pkg/calendar/calendar.esm.js": build,
            "pkg/calendar/calendar.cjs.js": build,
            "pkg/calendar/calendar.js": build,
            "pkg/calendar/Calendar.d.ts": "export declare const Calendar: unknown;\n",
        },
    )
    code, summary = index_json("x.db", "pkg", cwd=tmp_path)
    assert code == 0, summary
    assert summary["skip_counts"]["a build beside its source (the same name)"] == 3
    assert summary["added"] == 2  # the component and its types


# -- git as the oracle ---------------------------------------------------------------------
def generated_tree(seed: int = 8) -> dict[str, str]:
    """A few hundred files with ignore files at three depths; deterministic."""
    rng = random.Random(seed)
    dirs = ["", "src", "src/build", "src/gen", "docs", "docs/out", "target", "a/b/build"]
    dirs += ["lib/target/keep", "out", "vendor/pkg", ".github", "src/.cache"]
    names = ["mod.rs", "notes.md", "x.log", "keep.log", "data.o", "page.txt", "tool.py"]
    names += ["secret.md", "README", "image.png", "important.log", "draft.md"]
    files = {f"{d}/{n}".lstrip("/"): f"# {d} {n}\n" for d in dirs for n in names}
    files = {k: v for k, v in files.items() if rng.random() < 0.8}
    files.update(
        {
            ".gitignore": "*.log\n!keep.log\n/out/\ntarget/\n!lib/target/\n*.o\n",
            "src/.gitignore": "gen/\n!important.log\ndraft.md\n",
            "docs/.gitignore": "out\n/secret.md\n",
            "a/b/.gitignore": "build/\n",
            "vendor/.gitignore": "*\n!*/\n!*.md\n",
        }
    )
    return files


def git_oracle(repo: Path, subdir: str = "") -> list[str]:
    """What git lists as not ignored, relative to `repo`, as the index should hold it."""
    where = repo / subdir if subdir else repo
    out = subprocess.run(
        # No global excludes file: only the repository's own rules count.
        [GIT or "git", "-c", "core.excludesFile=", "ls-files", "--others", "--exclude-standard"]
        + ["-z"],
        cwd=where,
        capture_output=True,
        check=True,
    ).stdout.decode()
    listed = [(f"{subdir}/{p}" if subdir else p) for p in out.split("\0") if p]
    return sorted(
        p
        for p in listed
        if not any(part.startswith(".") for part in p.split("/"))  # hidden: not walked
        and format_for_path(p) is not None
    )


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    if GIT is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    write(repo, generated_tree())
    subprocess.run([GIT, "init", "-q", str(repo)], check=True)
    (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("secret.md\n")
    return repo


def walked(tmp_path: Path, target: str = "repo", **options: Any) -> list[str]:
    """What the walk selects (the production walk, in this process: no database needed)."""
    with chdir(tmp_path):
        found = list(walk([Path(target)], WalkOptions(**options)))
    assert all(f.error is None and f.skipped is None for f in found)
    return sorted(f.display.removeprefix("repo/") for f in found)


def indexed(tmp_path: Path, *args: str, target: str = "repo") -> list[str]:
    """What `index` through the real CLI puts in a fresh database."""
    db = tmp_path / "walk.db"
    db.unlink(missing_ok=True)
    code, summary = index_json(str(db), *args, target, cwd=tmp_path)
    assert code == 0, summary
    import docql_sqlite

    with docql_sqlite.open(db) as index:
        return sorted(p.removeprefix("repo/") for p in index.query("$.files[*].path"))


@needs_git
def test_ignore_rules_match_git(git_repo: Path, tmp_path: Path) -> None:
    want = git_oracle(git_repo)
    assert len(want) > 25  # the tree is not trivially small
    assert "src/build/mod.rs" in want and "lib/target/keep/mod.rs" in want
    assert walked(tmp_path) == want
    assert indexed(tmp_path) == want  # and the CLI indexes exactly that


@needs_git
@pytest.mark.parametrize("subdir", ["src", "docs", "vendor", "lib"])
def test_ignore_files_above_a_subdirectory_root_apply(
    git_repo: Path, tmp_path: Path, subdir: str
) -> None:
    """Indexing a subfolder: the repository's .gitignore and info/exclude still count."""
    want = git_oracle(git_repo, subdir)
    assert want and walked(tmp_path, target=f"repo/{subdir}") == want


@needs_git
def test_no_ignore_and_hidden(git_repo: Path, tmp_path: Path) -> None:
    everything = sorted(
        str(p.relative_to(git_repo))
        for p in git_repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(git_repo).parts
    )
    documents = [p for p in everything if format_for_path(p) is not None]
    visible = [p for p in documents if not any(s.startswith(".") for s in p.split("/"))]
    assert walked(tmp_path, ignore_files=False) == visible
    hidden_too = indexed(tmp_path, "--no-ignore", "--hidden")  # the CLI flags
    assert hidden_too == documents and any(p.startswith(".github/") for p in hidden_too)
    # --hidden alone: hidden entries are walked, the ignore rules still hold; never .git/
    with_hidden = walked(tmp_path, hidden=True)
    assert set(with_hidden) - set(documents) == set() and ".github/notes.md" in with_hidden
    assert not any(p.startswith(".git/") for p in with_hidden)


def test_dot_ignore_overrides_gitignore_and_deeper_files_win(tmp_path: Path) -> None:
    """.ignore (ripgrep's) beats .gitignore in its directory; a deeper file beats a shallower."""
    write(
        tmp_path / "repo",
        {
            ".gitignore": "*.md\n!\n\\\n",  # with two invalid lines git skips
            ".ignore": "!wanted.md\n",
            "wanted.md": "# W\n",
            "other.md": "# O\n",
            "sub/.gitignore": "!back.md\n",
            "sub/back.md": "# B\n",
            "sub/away.md": "# A\n",
            "sub/.ignore": "notes.txt\n",
            "sub/notes.txt": "n\n",
            "notes.txt": "n\n",
        },
    )
    assert walked(tmp_path) == ["notes.txt", "sub/back.md", "wanted.md"]


# -- item 11: skipped is not failed ---------------------------------------------------------
def test_python_tree_with_empty_init_files_exits_0(tmp_path: Path) -> None:
    write(
        tmp_path / "proj",
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "\n",
            "pkg/core.py": "def run():\n    return 1\n",
            "pkg/big.py": "x = 1\n" * 2000,
            "pkg/NOTES.md": "",
            "pkg/todo.txt": "\n  \n",
        },
    )
    run = cli("index", "--max-bytes", "5000", "x.db", "proj", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # The empty __init__.py files are indexed (they make their folders packages); other
    # empty files are skipped.
    assert (
        "3 added, 0 updated, 0 unchanged, 0 removed, 0 failed, 3 skipped "
        "(2 empty file, 1 over --max-bytes) in " in run.stderr
    )
    code, summary = index_json("--max-bytes", "5000", "x.db", "proj", cwd=tmp_path)
    assert code == 0 and summary["failed"] == 0 and summary["skipped"] == 3
    reasons = {s["path"]: s["reason"] for s in summary["skipped_list"]}
    assert reasons["proj/pkg/NOTES.md"] == "empty file (0 bytes)"
    assert reasons["proj/pkg/todo.txt"] == "no text content (only whitespace)"
    assert reasons["proj/pkg/big.py"].startswith("file too large (12,000 bytes; the limit is 5,000")
    status = json.loads(cli("status", "--json", "x.db", cwd=tmp_path).stdout)[0]
    assert status["skipped"] == {"empty file": 2, "over --max-bytes": 1}
    assert status["errors"] == 0 and status["documents"] == 3


def test_emptied_file_leaves_the_index(tmp_index: TmpIndex) -> None:
    tmp_index.write("a.md", "# A\n")
    tmp_index.write("b.md", "# B\n")
    tmp_index.index()
    tmp_index.write("a.md", "")
    report = tmp_index.index()
    assert report.removed == ["docs/a.md"] and report.ok and tmp_index.paths() == ["docs/b.md"]


# -- item 12: a narrower filter never deletes silently --------------------------------------
def test_narrower_include_keeps_documents_and_says_so(tmp_path: Path) -> None:
    write(tmp_path / "docs", {"a.md": "# A\n", "b.txt": "bee\n", "c/d.md": "# D\n"})
    assert cli("index", "x.db", "docs", cwd=tmp_path).returncode == 0
    narrow = cli("index", "--include", "*.md", "x.db", "docs", cwd=tmp_path)
    assert narrow.returncode == 0, narrow.stderr
    assert "0 removed" in narrow.stderr
    assert "kept 1 indexed document(s) under these paths that this run's filters leave out" in (
        narrow.stderr
    )
    import docql_sqlite

    def paths() -> list[str]:
        with docql_sqlite.open(tmp_path / "x.db") as index:
            return sorted(index.query("$.files[*].path"))

    assert paths() == ["docs/a.md", "docs/b.txt", "docs/c/d.md"]
    # a file that vanished from disk is removed, whatever this run's filters
    (tmp_path / "docs" / "b.txt").unlink()
    code, summary = index_json("--include", "*.md", "x.db", "docs", cwd=tmp_path)
    assert code == 0 and summary["removed"] == 1 and summary["outside_filters"] == 0
    assert paths() == ["docs/a.md", "docs/c/d.md"]
    # --prune: documents outside the filters go
    code, summary = index_json("--exclude", "c", "--prune", "x.db", "docs", cwd=tmp_path)
    assert code == 0 and summary["removed"] == 1
    assert paths() == ["docs/a.md"]


# -- issue 11 item 5: an unlistable directory keeps its documents ---------------------------
def test_unreadable_directory_keeps_its_documents(tmp_index: TmpIndex) -> None:
    tmp_index.write_many({"ok.md": "# OK\n", "locked/a.md": "# A\n", "locked/deep/b.md": "# B\n"})
    assert tmp_index.index().ok
    before = tmp_index.paths()
    locked = tmp_index.docs / "locked"
    locked.chmod(0)
    try:
        prefix = unprivileged_prefix(locked / "a.md")
        run = cli("index", "--json", "index.db", "docs", cwd=tmp_index.root, prefix=prefix)
    finally:
        locked.chmod(0o755)
    assert run.returncode == 1, run.stderr  # the directory is a real failure
    summary = json.loads(run.stdout)[0]
    assert summary["removed"] == 0 and summary["outside_filters"] == 0
    assert summary["failures"] == [
        {"path": "docs/locked", "reason": "permission denied (directory not listed)"}
    ]
    assert (
        tmp_index.paths() == before == ["docs/locked/a.md", "docs/locked/deep/b.md", "docs/ok.md"]
    )
    assert tmp_index.errors()["docs/locked"][0] == "error"
    report = tmp_index.index()  # readable again: nothing to do, the error is forgotten
    assert report.ok and report.unchanged == 3 and tmp_index.errors() == {}


# -- issue 11: symlinks ----------------------------------------------------------------------
def test_symlink_policy(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    outside = tmp_path / "outside"
    write(root, {"real.md": "# Real\n", "sub/inner.md": "# Inner\n"})
    write(outside, {"secret.md": "# Secret\n", "dir/page.md": "# Page\n"})
    os.symlink("real.md", root / "alias.md")  # inside the roots: followed
    os.symlink(outside / "secret.md", root / "escape.md")  # outside: not followed
    os.symlink(outside / "dir", root / "linked-dir")  # a directory: not followed
    os.symlink("loop-b.md", root / "loop-a.md")
    os.symlink("loop-a.md", root / "loop-b.md")
    os.symlink("..", root / "sub" / "up")  # a directory link back to an ancestor
    code, summary = index_json("x.db", "docs", cwd=tmp_path)
    assert code == 1  # the loops are real failures
    failures = {f["path"]: f["reason"] for f in summary["failures"]}
    assert set(failures) == {"docs/loop-a.md", "docs/loop-b.md"}
    assert failures["docs/loop-a.md"].startswith("symlink loop (points to 'loop-b.md'")
    skipped = {s["path"]: s["reason"] for s in summary["skipped_list"]}
    assert skipped["docs/escape.md"].startswith("symlink to a file outside the indexed paths")
    assert "--follow-symlinks" in skipped["docs/escape.md"]
    assert skipped["docs/linked-dir"].startswith("symlink to a directory (not followed")
    assert skipped["docs/sub/up"].startswith("symlink to a directory")
    import docql_sqlite

    def paths() -> list[str]:
        with docql_sqlite.open(tmp_path / "x.db") as index:
            return sorted(index.query("$.files[*].path"))

    assert paths() == ["docs/alias.md", "docs/real.md", "docs/sub/inner.md"]
    # --follow-symlinks: the outside file and the linked directory; the ancestor link is a loop
    code, summary = index_json("--follow-symlinks", "x.db", "docs", cwd=tmp_path)
    failures = {f["path"]: f["reason"] for f in summary["failures"]}
    assert failures["docs/sub/up"].startswith("symlink loop")
    assert paths() == [
        "docs/alias.md",
        "docs/escape.md",
        "docs/linked-dir/page.md",
        "docs/real.md",
        "docs/sub/inner.md",
    ]
    # back to the default: what the policy no longer follows leaves the index
    code, summary = index_json("x.db", "docs", cwd=tmp_path)
    assert summary["removed"] == 2 and summary["outside_filters"] == 0
    assert paths() == ["docs/alias.md", "docs/real.md", "docs/sub/inner.md"]


def test_special_files_are_not_read(tmp_index: TmpIndex) -> None:
    tmp_index.write("ok.md", "# OK\n")
    os.mkfifo(tmp_index.docs / "pipe.md")  # opening it to read would block forever
    report = tmp_index.index(timeout=5)
    assert report.ok and tmp_index.paths() == ["docs/ok.md"]
    assert report.skip_counts.get("not a regular file") == 1
