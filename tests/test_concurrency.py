"""Readers during an index run, and two index runs on one file (issue 11, concurrency).

The index is in WAL mode with a 10 s busy timeout: readers see the last committed state
while a run writes, and a second writer waits for the first one's batch to commit. The
promise tested: readers (CLI, Python API, the MCP server through the SDK's own client,
Datasette over HTTP) never fail during an index run and every answer is one committed
state (a document's text is all of its old version or all of its new one, never a mix and
never missing), and two runs on one file either both finish or one says the index is
busy — never a lost update (every file of every finished run is in the index, whole).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, DATASETS, TmpIndex, file_text

import docql_sqlite


def corpus(root: Path, name: str, files: int, sections: int = 60) -> Path:
    folder = root / name
    folder.mkdir()
    body = "".join(
        f"## {name} part {i}\n\nwords about {name} topic {i}, lumen index text.\n\n"
        for i in range(sections)
    )
    for n in range(files):
        (folder / f"{name}{n:03d}.md").write_text(f"# {name} {n}\n\n{body}")
    return folder


def stored_text(db: Path, path: str) -> str:
    """The document's text as the index holds it (every line, read back with `get`)."""
    with docql_sqlite.open(db) as idx:
        return idx.get(path).text


def test_readers_keep_answering_during_an_index_run(tmp_index: TmpIndex) -> None:
    base = corpus(tmp_index.root, "base", 40)
    assert tmp_index.index(base).ok
    fresh = corpus(tmp_index.root, "fresh", 100)
    writer = subprocess.Popen(
        [str(CLI), "index", str(tmp_index.db), str(base), str(fresh), "--chunk-chars", "400"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    errors: list[str] = []
    answers = {"api": 0, "cli": 0}

    def api_reader() -> None:
        while writer.poll() is None:
            try:
                with docql_sqlite.open(tmp_index.db) as idx:
                    assert len(idx.query("$.toc[?(@.level == 1)]")) >= 40
                    assert idx.search("lumen topic", limit=3)
                answers["api"] += 1
            except Exception as exc:  # noqa: BLE001 - every failure is the finding
                errors.append(f"api: {type(exc).__name__}: {exc}")

    thread = threading.Thread(target=api_reader)
    thread.start()
    while writer.poll() is None:
        proc = subprocess.run(
            [str(CLI), "query", str(tmp_index.db), "$.files.path", "--json"],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0 or proc.stderr:
            errors.append(f"cli: {proc.returncode} {proc.stderr.strip()}")
        answers["cli"] += 1
    thread.join()
    assert writer.returncode == 0, writer.stderr.read() if writer.stderr else ""
    assert errors == []
    assert answers["api"] >= 3 and answers["cli"] >= 2, answers  # they really overlapped
    with docql_sqlite.open(tmp_index.db) as idx:
        assert len(idx.documents()) == 140


# -- servers answering during an index run -------------------------------------------------
# Every file exists in two versions; every chunk of a version carries its tag, and the two
# differ in length, so any answer tells which version it comes from, or that it mixes them.
VERSIONS = {"A": ("ALPHA", 40), "B": ("BRAVO", 55)}
FILES = 200


def version_text(name: str, version: str) -> str:
    tag, sections = VERSIONS[version]
    return f"# {name} {tag}\n\n" + "".join(
        f"## {name} part {i}\n\n{tag} words about lumen topic {i}, text of {name}.\n\n"
        for i in range(sections)
    )


@dataclass
class Rewrite:
    """A corpus indexed at version A and rewritten on disk to version B; `start()` runs the
    `index` that rewrites every document (a new chunk size too) while the test reads."""

    root: Path
    db: Path
    names: list[str]
    writer: subprocess.Popen[str] | None = None
    seen: Counter[str] = field(default_factory=Counter)  # version -> answers that showed it

    def start(self) -> None:
        self.writer = subprocess.Popen(
            [str(CLI), "index", str(self.db), "docs", "--chunk-chars", "400"],
            cwd=self.root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    def running(self) -> bool:
        return self.writer is not None and self.writer.poll() is None

    def version_of(self, name: str, text: str) -> str | None:
        """Which version `text` is, whole (trailing newlines aside); None for anything else."""
        for version in VERSIONS:
            if text.rstrip("\n") == version_text(name, version).rstrip("\n"):
                if self.running():
                    self.seen[version] += 1
                return version
        return None

    def finish(self) -> None:
        assert self.writer is not None
        code = self.writer.wait(timeout=600)
        err = self.writer.stderr.read() if self.writer.stderr else ""
        assert code == 0 and "Traceback" not in err, err


@contextmanager
def rewrite(root: Path) -> Iterator[Rewrite]:
    docs = root / "docs"
    docs.mkdir()
    names = [f"n{n:03d}.md" for n in range(FILES)]
    for name in names:
        (docs / name).write_text(version_text(name, "A"))
    db = root / "index.db"
    subprocess.run([str(CLI), "index", str(db), "docs"], cwd=root, check=True, capture_output=True)
    for name in names:
        (docs / name).write_text(version_text(name, "B"))
    run = Rewrite(root, db, names)
    try:
        yield run
    finally:
        if run.running():
            assert run.writer is not None
            run.writer.kill()
            run.writer.wait()


def check_final_state(run: Rewrite) -> None:
    with docql_sqlite.open(run.db) as idx:
        for name in run.names:
            assert run.version_of(name, idx.get(f"docs/{name}").text) == "B", name


def test_mcp_server_answers_during_an_index_run(tmp_path: Path) -> None:
    """The real MCP SDK client against `docql-sqlite mcp DB` (stdio) while `index` rewrites
    every document: `get` (a whole document), `docql_query` and `search` in a loop. 0 errors,
    every document read is all version A or all version B, the file list never loses one."""
    pytest.importorskip("mcp", reason="needs the mcp extra")
    import anyio
    from mcp_client import stdio_session, text

    errors: list[str] = []
    answered = Counter[str]()

    async def session(run: Rewrite) -> None:
        async with stdio_session(run.db, cwd=run.root) as (s, _):
            run.start()
            n = 0
            while run.running():
                name = run.names[n % len(run.names)]
                n += 1
                got = await s.call_tool("get", {"path": f"docs/{name}"})
                body = text(got).split("\n", 1)[-1]
                if got.is_error or run.version_of(name, body) is None:
                    errors.append(f"get {name}: {text(got)[:300]!r}")
                files = await s.call_tool("docql_query", {"query": "$.files.path", "limit": 500})
                listed = text(files).split("\n")[1:]
                if files.is_error or len(listed) != FILES:
                    errors.append(f"$.files: {len(listed)} files: {text(files)[:300]!r}")
                hits = await s.call_tool(
                    "search", {"query": "lumen topic words", "mode": "bm25", "limit": 3}
                )
                if hits.is_error or not text(hits).startswith("[1] docs/n"):
                    errors.append(f"search: {text(hits)[:300]!r}")
                answered["during"] += 1
            run.finish()
            # The same server, after the run: the new version (it did not keep a stale view).
            for name in run.names[:: len(run.names) // 4]:
                body = text(await s.call_tool("get", {"path": f"docs/{name}"})).split("\n", 1)
                assert run.version_of(name, body[-1]) == "B", (name, body[0])

    with rewrite(tmp_path) as run:
        anyio.run(session, run)
        check_final_state(run)
    assert errors == [], errors[:5]
    assert answered["during"] >= 3, answered  # they really overlapped
    print(f"\nMCP: {answered['during']} rounds during the run; versions seen: {dict(run.seen)}")


def test_datasette_answers_during_an_index_run(tmp_path: Path) -> None:
    """A live `docql-sqlite serve DB` (Datasette, its own sqlite3 connections) over HTTP
    while `index` rewrites every document: a document's chunks (SQL, in order), the tags of
    every document's chunks (one aggregate SQL query), and the DocQL page. 0 errors, every
    document all version A or all version B, never a document missing."""
    pytest.importorskip("datasette", reason="needs the datasette extra")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_datasette_live import free_port, start, stop

    errors: list[str] = []
    answered = Counter[str]()
    tags = {"a": VERSIONS["A"][0], "b": VERSIONS["B"][0]}
    mixed_sql = (
        "SELECT d.path, count(*) AS n, sum(instr(c.content, :a) > 0) AS a, "
        "sum(instr(c.content, :b) > 0) AS b FROM documents d JOIN chunks c ON c.doc_id = d.id "
        "GROUP BY d.id"
    )
    text_sql = (
        "SELECT d.header_text AS header, c.content FROM documents d JOIN chunks c "
        "ON c.doc_id = d.id WHERE d.path = :p ORDER BY c.chunk_index"
    )

    def read(server: Any, run: Rewrite, name: str) -> None:
        status, body = server.get("/index.json", sql=text_sql, p=f"docs/{name}", _shape="array")
        rows = json.loads(body) if status == 200 else []
        whole = (rows[0]["header"] or "") + "".join(r["content"] for r in rows) if rows else ""
        if status != 200 or run.version_of(name, whole) is None:
            errors.append(f"text of {name}: {status} {body[:300]!r}")
        status, body = server.get("/index.json", sql=mixed_sql, _shape="array", **tags)
        docs = json.loads(body) if status == 200 else []
        whole_docs = [d for d in docs if d["n"] in (d["a"], d["b"]) and 0 in (d["a"], d["b"])]
        if status != 200 or len(docs) != FILES or len(whole_docs) != FILES:
            errors.append(f"tags: {status} {len(docs)} docs, {len(whole_docs)} whole: {body[:300]}")
        status, body = server.get("/-/docql", q="$.files", limit=str(FILES))
        if status != 200 or f'data-count="{FILES}"' not in body:
            errors.append(f"DocQL page: {status} {body[:300]!r}")

    with rewrite(tmp_path) as run:
        port = free_port()
        log = tmp_path / "serve.log"
        server = start([str(CLI), "serve", str(run.db), "--port", str(port)], port, log)
        try:
            run.start()
            n = 0
            while run.running():
                read(server, run, run.names[n % len(run.names)])
                n += 1
                answered["during"] += 1
            run.finish()
            check_final_state(run)
            for name in run.names[:: len(run.names) // 4]:  # the server sees the new version
                status, body = server.get(
                    "/index.json", sql=text_sql, p=f"docs/{name}", _shape="array"
                )
                rows = json.loads(body)
                whole = (rows[0]["header"] or "") + "".join(r["content"] for r in rows)
                assert run.version_of(name, whole) == "B", (name, status, body[:200])
        finally:
            stop(server)
    assert errors == [], errors[:5]
    assert answered["during"] >= 3, answered
    print(
        f"\nDatasette: {answered['during']} rounds during the run; versions seen: {dict(run.seen)}"
    )


@pytest.mark.parametrize("workers", [2])
def test_two_index_runs_on_one_file_lose_nothing(tmp_index: TmpIndex, workers: int) -> None:
    one = corpus(tmp_index.root, "one", 50)
    two = corpus(tmp_index.root, "two", 50)
    runs = [
        subprocess.Popen(
            [str(CLI), "index", str(tmp_index.db), str(folder), "--workers", str(workers)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in (one, two)
    ]
    outcomes = [(run.wait(timeout=300), run.stderr.read() if run.stderr else "") for run in runs]
    finished = []
    for (code, stderr), folder in zip(outcomes, (one, two)):
        assert "Traceback" not in stderr, stderr
        if code == 0:
            finished.append(folder)
        else:  # the only acceptable failure: one line saying the index is busy
            assert code == 5 and "is busy" in stderr and stderr.count("\n") == 1, stderr
    assert finished, f"neither run finished: {outcomes}"
    with docql_sqlite.open(tmp_index.db) as idx:
        paths = {d["path"] for d in idx.documents()}
    for folder in finished:
        for file in sorted(folder.iterdir()):
            shown = next(p for p in paths if p.endswith(file.name))
            assert stored_text(tmp_index.db, shown) == file_text(file)
    assert tmp_index.scalar("PRAGMA integrity_check") == "ok"


@pytest.mark.slow
def test_load_script_holds_with_zero_errors(tmp_path: Path) -> None:
    """DOCQL_SLOW=1: benchmarks/load.py, 4 readers for 20 s while the datasets are re-indexed."""
    proc = subprocess.run(
        [
            str(CLI.parent / "python"),
            str(Path(__file__).resolve().parents[1] / "benchmarks" / "load.py"),
            *(str(DATASETS / part) for part in ("en", "zh", "code")),  # not bad/: it fails
            "--db",
            str(tmp_path / "load.db"),
            "--readers",
            "4",
            "--seconds",
            "20",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    figures = json.loads(proc.stdout)
    assert figures["errors"] == 0 and figures["index_failures"] == [], proc.stderr
    assert figures["index_runs"] >= 1 and figures["operations"] > 50, figures


def test_get_reads_one_committed_state_when_a_commit_lands_between_its_statements(
    tmp_index: TmpIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`get` finds the document, then reads its length and its lines: three statements.
    A re-index that commits between them (forced here: the writer runs inside the seam)
    replaces the document under a new id; the answer must still be one whole version,
    not empty."""
    from docql_sqlite.query import catalog

    tmp_index.write("a.md", version_text("a.md", "A"))
    tmp_index.write("z.md", version_text("z.md", "A"))  # so a.md's new id is not its old one
    assert tmp_index.index().ok
    original = catalog.line_count
    writers: list[threading.Thread] = []

    def committed_b() -> bool:
        rows = tmp_index.query("SELECT title FROM documents WHERE path = 'docs/a.md'")
        return bool(rows) and "BRAVO" in (rows[0][0] or "")

    def commit_in_between(conn: Any, doc_id: int, *args: Any) -> int:
        if not writers:
            # The run commits a.md's new version, then waits (its end-of-run checkpoint) for
            # this reader to finish: so it runs beside it, and the reader goes on once the
            # new version is committed.
            tmp_index.write("a.md", version_text("a.md", "B"))
            writers.append(threading.Thread(target=tmp_index.index))
            writers[0].start()
            deadline = time.monotonic() + 60
            while not committed_b():
                assert time.monotonic() < deadline, "the re-index did not commit in 60 s"
                time.sleep(0.01)
        return original(conn, doc_id, *args)

    monkeypatch.setattr(catalog, "line_count", commit_in_between)
    with docql_sqlite.open(tmp_index.db) as idx:
        first = idx.get("docs/a.md").text
        assert writers
        writers[0].join(timeout=60)
        assert first.rstrip("\n") in (
            version_text("a.md", version).rstrip("\n") for version in VERSIONS
        ), first[:200]
        # The next call sees the new version.
        assert idx.get("docs/a.md").text.rstrip("\n") == version_text("a.md", "B").rstrip("\n")
