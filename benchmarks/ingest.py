#!/usr/bin/env python3
"""Ingest benchmark: index a corpus into a fresh database N times with the real CLI.

    python benchmarks/ingest.py                     # the A6 mix (fetched by fetch_corpora.sh)
    python benchmarks/ingest.py DIR [DIR...] [--runs 3] [--include '*.md'] [--workers N] [--json
    out.json]
    python benchmarks/ingest.py --smoke --json OUT   # a tiny tree from datasets/, 1 run, seconds

Reports per run and as the median: files/s, MB/s, peak RSS, database size and its ratio
to the corpus size, next to the goals (≥ 5 MB/s, db ≤ 2× corpus, peak RSS ≤ 500 MB).

Peak RSS is measured two ways, because the indexer is a process tree (one writer plus
parser workers): `tree` samples /proc every 20 ms and sums the RSS of the CLI and all
its descendants (the number the goal is about); `largest` is the biggest single process
from getrusage(RUSAGE_CHILDREN) (exact, but blind to the sum).

Peers on the same files: the sqlite3 shell building a whole-file FTS5 table with
fsdir()/readfile() (notes/corpora.md E2), and, when `rg` is on PATH, a ripgrep scan.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from fnmatch import fnmatch
from pathlib import Path

import benchlib

REPO = Path(__file__).resolve().parents[1]
GOAL_MBPS = 5.0
GOAL_RATIO = 2.0
GOAL_RSS_MB = 500.0


@dataclass
class Run:
    seconds: float
    documents: int
    errors: int
    files_per_s: float
    mb_per_s: float
    rss_tree_mb: float
    rss_largest_mb: float
    db_mb: float
    db_ratio: float


def cli_command() -> list[str]:
    script = REPO / ".venv" / "bin" / "docql-sqlite"
    if script.exists():
        return [str(script)]
    found = shutil.which("docql-sqlite")
    return [found] if found else [sys.executable, "-m", "docql_sqlite"]


def default_corpus() -> list[Path]:
    fetch = REPO / "benchmarks" / "fetch_corpora.sh"
    out = subprocess.run(["bash", str(fetch)], check=True, capture_output=True, text=True)
    return [Path(line) for line in out.stdout.splitlines() if line.strip()]


def corpus_files(roots: list[Path], include: str) -> list[Path]:
    files = []
    for root in roots:
        for dirpath, _, names in os.walk(root):
            files.extend(
                Path(dirpath) / n
                for n in names
                if fnmatch(n, include) and not os.path.islink(Path(dirpath) / n)
            )
    return files


# -- RSS of a process tree: benchlib's sampler, sampled every 20 ms ------------------------
PeakSampler = benchlib.PeakSampler


def run_measured(
    cmd: list[str], **kwargs: object
) -> tuple[float, float, float, subprocess.CompletedProcess[str]]:
    """(seconds, tree peak MB, largest single process MB so far, result) for one command."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
    )  # type: ignore[call-overload]
    sampler = PeakSampler(proc.pid, interval=0.02)
    sampler.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - started
    sampler.done.set()
    sampler.join()
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    # The tree's peak is at least its largest process's, which the kernel counts
    # exactly; the sampler, every 20 ms, can miss that moment (39.85 against 39.92 MB in
    # a CI run of the smoke test).
    return (
        seconds,
        max(sampler.peak_kb / 1024, largest),
        largest,
        subprocess.CompletedProcess(cmd, proc.returncode, out, err),
    )


def db_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())


# -- the runs -------------------------------------------------------------------------------
def index_once(
    roots: list[Path], include: str, workers: int | None, corpus_bytes: int, tmp: Path
) -> Run:
    db = tmp / "bench.db"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    cmd = cli_command() + ["index", "--json", str(db), *map(str, roots), "--include", include]
    if workers:
        cmd += ["--workers", str(workers)]
    seconds, tree_mb, largest_mb, result = run_measured(cmd)
    if result.returncode not in (0, 1):
        raise SystemExit(f"index failed ({result.returncode}): {result.stderr}")
    summary = json.loads(result.stdout)[0]
    documents = summary["added"]
    size = db_bytes(db)
    return Run(
        seconds=seconds,
        documents=documents,
        errors=summary["failed"],
        files_per_s=documents / seconds,
        mb_per_s=corpus_bytes / 1e6 / seconds,
        rss_tree_mb=tree_mb,
        rss_largest_mb=largest_mb,
        db_mb=size / 1e6,
        db_ratio=size / corpus_bytes,
    )


def sqlite_shell_fts(roots: list[Path], tmp: Path, corpus_bytes: int) -> dict[str, float] | None:
    shell = shutil.which("sqlite3") or (
        "/usr/bin/sqlite3" if Path("/usr/bin/sqlite3").exists() else None
    )
    if not shell:
        return None
    db = tmp / "shell-fts.db"
    db.unlink(missing_ok=True)
    inserts = "".join(
        f"INSERT INTO docs SELECT name, readfile(name) FROM "
        f"fsdir('{str(r).replace(chr(39), chr(39) * 2)}') "
        f"WHERE name LIKE '%.md';\n"
        for r in roots
    )
    sql = "CREATE VIRTUAL TABLE docs USING fts5(path, body);\nBEGIN;\n" + inserts + "COMMIT;\n"
    seconds, tree_mb, _, result = _shell_run(shell, db, sql)
    if result.returncode != 0:
        return {"error": 1.0}
    size = db.stat().st_size
    return {
        "seconds": seconds,
        "mb_per_s": corpus_bytes / 1e6 / seconds,
        "rss_mb": tree_mb,
        "db_mb": size / 1e6,
        "db_ratio": size / corpus_bytes,
    }


def _shell_run(
    shell: str, db: Path, sql: str
) -> tuple[float, float, float, subprocess.CompletedProcess[str]]:
    script = db.with_suffix(".sql")
    script.write_text(sql)
    return run_measured([shell, str(db), f".read {script}"])


def ripgrep(roots: list[Path]) -> dict[str, float] | None:
    rg = shutil.which("rg")
    if not rg:
        return None
    cmd = [rg, "-l", "-i", "--glob", "*.md", "lifetime elision", *map(str, roots)]
    seconds, tree_mb, _, result = run_measured(cmd)
    return {
        "seconds": seconds,
        "files_listed": float(len(result.stdout.splitlines())),
        "rss_mb": tree_mb,
    }


def verdict(ok: bool) -> str:
    return "ok  " if ok else "MISS"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("roots", nargs="*", type=Path, help="corpus folders (default: the A6 mix)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--include", default="*.md", help="file name glob passed to --include")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument(
        "--json", dest="json_out", type=Path, default=None, help="write the results here"
    )
    parser.add_argument("--smoke", action="store_true", help="tiny tree from datasets/, 1 run")
    args = parser.parse_args()
    if args.smoke:  # tests/test_benchmarks_smoke.py: the harness end to end, in seconds
        smoke_dir = tempfile.TemporaryDirectory(prefix="docql-ingest-smoke-")
        args.roots, args.runs = [benchlib.smoke_tree(Path(smoke_dir.name))], 1

    roots = args.roots or default_corpus()
    files = corpus_files(roots, args.include)
    corpus_bytes = sum(f.stat().st_size for f in files)
    print(f"corpus: {len(files):,} files, {corpus_bytes / 1e6:.2f} MB in {len(roots)} folder(s)")
    for r in roots:
        print(f"  {r}")
    print(
        f"machine: {os.cpu_count()} CPUs, python {sys.version.split()[0]}, cli: "
        f"{' '.join(cli_command())}"
    )
    print()

    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="docql-bench-") as tmp_name:
        tmp = Path(tmp_name)
        header = (
            f"{'run':>4} {'seconds':>8} {'docs':>6} {'errors':>6} {'files/s':>8} {'MB/s':>6} "
            f"{'RSS tree MB':>11} {'RSS largest MB':>14} {'db MB':>7} {'db/corpus':>9}"
        )
        print(header)
        for n in range(1, args.runs + 1):
            r = index_once(roots, args.include, args.workers, corpus_bytes, tmp)
            runs.append(r)
            print(
                f"{n:>4} {r.seconds:>8.2f} {r.documents:>6} {r.errors:>6} {r.files_per_s:>8.1f} "
                f"{r.mb_per_s:>6.2f} "
                f"{r.rss_tree_mb:>11.1f} {r.rss_largest_mb:>14.1f} {r.db_mb:>7.2f} "
                f"{r.db_ratio:>9.2f}"
            )
        shell = sqlite_shell_fts(roots, tmp, corpus_bytes)
        rg = ripgrep(roots)

    med = lambda key: statistics.median(getattr(r, key) for r in runs)  # noqa: E731
    mbps, ratio, rss = med("mb_per_s"), med("db_ratio"), max(r.rss_tree_mb for r in runs)
    print()
    print(
        f"median of {len(runs)}: {med('seconds'):.2f} s, {med('files_per_s'):.1f} files/s, "
        f"{mbps:.2f} MB/s, "
        f"db {med('db_mb'):.2f} MB"
    )
    print("goals:")
    print(
        f"  {verdict(mbps >= GOAL_MBPS)} throughput   {mbps:6.2f} MB/s   (goal ≥ {GOAL_MBPS:g} "
        f"MB/s)"
    )
    print(
        f"  {verdict(ratio <= GOAL_RATIO)} db size      {ratio:6.2f} × corpus (goal ≤ "
        f"{GOAL_RATIO:g}×)"
    )
    print(
        f"  {verdict(rss <= GOAL_RSS_MB)} peak RSS     {rss:6.1f} MB     (goal ≤ {GOAL_RSS_MB:g} "
        f"MB, whole process tree)"
    )
    print("peers (same files):")
    if shell and "error" not in shell:
        print(
            f"  sqlite3 shell FTS5, whole files: {shell['seconds']:.2f} s, "
            f"{shell['mb_per_s']:.1f} MB/s, "
            f"{shell['rss_mb']:.1f} MB RSS, db {shell['db_mb']:.2f} MB ({shell['db_ratio']:.2f} × "
            f"corpus)"
        )
    else:
        print("  sqlite3 shell: not available" if shell is None else "  sqlite3 shell: failed")
    if rg:
        print(
            f"  rg -l -i 'lifetime elision': {rg['seconds']:.3f} s, {int(rg['files_listed'])} files"
        )
    else:
        print("  rg: not on PATH (skipped)")
    if args.smoke:
        print("(--smoke: a harness check on a tiny tree; its figures and verdicts mean nothing)")
    if args.json_out:
        args.json_out.write_text(
            json.dumps(
                {
                    "corpus": {
                        "roots": [str(r) for r in roots],
                        "files": len(files),
                        "bytes": corpus_bytes,
                    },
                    "runs": [asdict(r) for r in runs],
                    "sqlite_shell": shell,
                    "ripgrep": rg,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
