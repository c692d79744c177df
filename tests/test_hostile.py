"""The hostile corpus (tests/hostile/make.py) indexed as a user would, with the CLI.

Every case ends as the corpus says (indexed with chunks equal to its text, or recorded
with its reason), each within bounded time and memory, and the ordinary files next to
them come through intact and searchable. The normal suite runs the small variant in one
`index` run; DOCQL_SLOW=1 runs the full sizes (100k headings, a 50 MB line, 1 GB zip
bombs), each file alone so that its time and peak memory are measured, and prints them.

As root, the indexer runs with CAP_DAC_OVERRIDE dropped (setpriv) so that the chmod 000
file really is unreadable; without setpriv that case may be indexed instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import check_document_chunks, file_lines, query
from hostile.make import Expect, build

from docql_sqlite.ingest.chunk import DEFAULT_MAX_CHARS, chunk_bound

DROP_CAPS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all", "--"]
TEXT_SUFFIXES = (".md", ".py")  # cases whose chunks must equal the file's own lines


def indexer_prefix() -> list[str]:
    """Run unprivileged when root (so chmod 000 means unreadable), if setpriv can."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return []
    probe = subprocess.run(DROP_CAPS + ["true"], capture_output=True)
    return DROP_CAPS if probe.returncode == 0 else []


@dataclass
class Run:
    """One CLI index run: its JSON summary, wall and CPU seconds, and peak memory (MB).
    CPU and peak are the process tree's: wait4 reports the indexer's with the parser
    workers it reaped (CPU summed, peak the largest)."""

    summary: dict[str, object]
    seconds: float
    cpu: float
    peak: float


def run_index(db: Path, root: Path, *paths: str, extra: tuple[str, ...] = ()) -> Run:
    command = [sys.executable, "-m", "docql_sqlite", "index", str(db), *paths, "--json", *extra]
    started = time.monotonic()
    with open(db.with_suffix(".stderr"), "wb") as errors:
        proc = subprocess.Popen(
            indexer_prefix() + command + ["--timeout", "60"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    stderr = db.with_suffix(".stderr").read_text(errors="replace")
    assert proc.returncode in (0, 1), stderr
    cpu = usage.ru_utime + usage.ru_stime
    return Run(json.loads(out)[0], seconds, cpu, usage.ru_maxrss / 1024)


def skipped_of(summary: dict[str, object]) -> dict[str, str]:
    """path -> reason of the files the run skipped (listed in its JSON summary)."""
    listed = summary.get("skipped_list") or []
    assert isinstance(listed, list)
    return {item["path"]: item["reason"] for item in listed}


def check_outcomes(
    db: Path,
    root: Path,
    expected: dict[str, Expect],
    unprivileged: bool,
    summary: dict[str, object],
) -> None:
    skipped = skipped_of(summary)
    skip_counts = summary.get("skip_counts") or {}
    assert isinstance(skip_counts, dict)
    docs = {path: doc_id for doc_id, path in query(db, "SELECT id, path FROM documents")}
    problems = {
        path: (severity, reason)
        for path, severity, reason in query(db, "SELECT path, severity, reason FROM ingest_errors")
    }
    wrong = []
    for shown, expect in expected.items():
        outcome = expect.outcome
        if expect.root_only and not unprivileged:
            outcome = "indexed"  # root reads a chmod 000 file
        if outcome == "counted":
            if shown in docs or shown in problems or not skip_counts.get(expect.reason):
                wrong.append(f"{shown!r}: expected counted as {expect.reason!r}: {skip_counts}")
            continue
        if outcome == "skipped":
            if shown in docs or shown in problems or expect.reason not in skipped.get(shown, ""):
                wrong.append(f"{shown!r}: expected skipped, got {skipped.get(shown)}")
            continue
        if outcome == "error":
            if shown in docs or problems.get(shown, ("", ""))[0] != "error":
                wrong.append(f"{shown!r}: expected an error, got {problems.get(shown)}")
            elif expect.reason not in problems[shown][1]:
                wrong.append(f"{shown!r}: reason {problems[shown][1]!r} lacks {expect.reason!r}")
            continue
        if shown not in docs:
            wrong.append(f"{shown!r}: not indexed ({problems.get(shown)})")
            continue
        if outcome == "warning":
            if expect.reason not in problems.get(shown, ("", ""))[1]:
                wrong.append(
                    f"{shown!r}: expected warning {expect.reason!r}, got {problems.get(shown)}"
                )
        elif shown in problems:
            wrong.append(f"{shown!r}: indexed but recorded {problems[shown]}")
        lines = file_lines(root / expect.path) if expect.path.endswith(TEXT_SUFFIXES) else None
        wrong += check_document_chunks(db, docs[shown], lines)
    assert wrong == []
    longest = query(db, "SELECT max(length(content)) FROM chunks")[0][0]
    assert longest <= chunk_bound(DEFAULT_MAX_CHARS)  # no case makes an oversized chunk
    assert query(db, "SELECT max(length(title)) FROM sections")[0][0] <= 500


def check_good_files_searchable(db: Path) -> None:
    from hostile.make import GOOD_WORDS

    for n, word in enumerate(GOOD_WORDS):
        hits = query(
            db,
            "SELECT DISTINCT d.path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
            "JOIN documents d ON d.id = c.doc_id WHERE chunks_fts MATCH ?",
            (word,),
        )
        assert hits == [(f"good/good{n}.md",)], (word, hits)


def test_small_hostile_corpus(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    try:
        expected = build(root, full=False)
        db = tmp_path / "hostile.db"
        first = run_index(db, root, ".")
        summary = first.summary
        unprivileged = bool(indexer_prefix())
        check_outcomes(db, root, expected, unprivileged, summary)
        check_good_files_searchable(db)
        assert summary["failed"] == sum(
            1
            for e in expected.values()
            if e.outcome == "error" and (unprivileged or not e.root_only)
        )
        # CPU, not wall time: on a loaded machine wall time measures the scheduler.
        assert first.cpu < 120, f"the small hostile corpus took {first.cpu:.0f} s of CPU"
        assert first.peak < 1500, f"peak {first.peak:.0f} MB"
        # a second run changes nothing: the same files fail again, or (unchanged since they
        # failed, design B27) are skipped without being parsed again
        again = run_index(db, root, ".").summary
        assert (again["added"], again["updated"], again["removed"]) == (0, 0, 0)
        skips: dict[str, int] = again["skip_counts"]  # type: ignore[assignment]
        remembered = skips.get("failed before, unchanged", 0)
        assert again["failed"] + remembered == summary["failed"]
    finally:
        (root / "hostile" / "locked.md").chmod(0o644)


@pytest.mark.slow
def test_full_hostile_corpus_each_file_bounded(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    try:
        expected = build(root, full=True)
        unprivileged = bool(indexer_prefix())
        figures = []
        for shown, expect in expected.items():
            if not expect.path.startswith("hostile/"):
                continue
            db = tmp_path / "one.db"
            for leftover in tmp_path.glob("one.db*"):
                leftover.unlink()
            one = run_index(db, root, expect.path)
            figures.append((one.cpu, one.seconds, one.peak, shown))
            assert one.cpu < 60, f"{shown!r} took {one.cpu:.0f} s of CPU"
            assert one.peak < 2048, f"{shown!r} peaked at {one.peak:.0f} MB"
        figures.sort(reverse=True)
        print("\nslowest hostile files (CPU s, wall s, peak MB of that run, file):")
        for cpu, seconds, peak, shown in figures[:8]:
            print(f"  {cpu:6.1f} s CPU {seconds:7.1f} s wall {peak:7.0f} MB  {shown!r}")
        print(
            f"files: {len(figures)}; largest CPU: {figures[0][0]:.1f} s; largest wall: "
            f"{max(f[1] for f in figures):.1f} s; largest memory: "
            f"{max(f[2] for f in figures):.0f} MB"
        )
        db = tmp_path / "all.db"
        whole = run_index(db, root, ".")
        print(
            f"whole corpus in one run: {whole.cpu:.1f} s CPU, {whole.seconds:.1f} s wall, "
            f"peak {whole.peak:.0f} MB, {whole.summary}"
        )
        check_outcomes(db, root, expected, unprivileged, whole.summary)
        check_good_files_searchable(db)
    finally:
        (root / "hostile" / "locked.md").chmod(0o644)


def test_deep_nesting_parsed_in_process(tmp_path: Path) -> None:
    """Issue 20: `- ` x 100,000 crashed markdown-it-pyrs with SIGSEGV. With `--workers 0`
    (as `mcp --watch` and `index --watch` parse: in the process that holds the index) the
    whole run died with exit 139 and the other files were not indexed. Every deep case of
    the corpus, parsed in process, must be indexed with its text and its warning."""
    root = tmp_path / "corpus"
    try:
        expected = build(root, full=False)
        deep = {shown: e for shown, e in expected.items() if "/deep" in shown}
        deep["good/good0.md"] = expected["good/good0.md"]
        assert len(deep) >= 10
        db = tmp_path / "deep.db"
        run = run_index(db, root, *(e.path for e in deep.values()), extra=("--workers", "0"))
        check_outcomes(db, root, deep, bool(indexer_prefix()), run.summary)
        assert run.summary["failed"] == 0
        after = query(
            db,
            "SELECT s.title FROM sections s JOIN documents d ON d.id = s.doc_id "
            "WHERE d.path = 'hostile/deep-list-100k.md' ORDER BY s.line",
        )
        assert ("After",) in after  # the structure after the deep line is still read
    finally:
        (root / "hostile" / "locked.md").chmod(0o644)
