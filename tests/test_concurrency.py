"""Readers during an index run, and two index runs on one file (issue 11, concurrency).

The index is in WAL mode with a 10 s busy timeout: readers see the last committed state
while a run writes, and a second writer waits for the first one's batch to commit. The
promise tested: readers (CLI and Python API) never fail during an index run, and two runs
on one file either both finish or one says the index is busy — never a lost update (every
file of every finished run is in the index, whole).
"""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

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
            assert code == 2 and "is busy" in stderr and stderr.count("\n") == 1, stderr
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
