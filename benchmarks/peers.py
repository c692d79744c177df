#!/usr/bin/env python3
"""Ingest side by side with the peers, per corpus, in one run.

    python benchmarks/peers.py                         # every corpus, 3 runs each, + embeddings
    python benchmarks/peers.py --corpora md_mix --runs 5 --json /work/cache/peers.json
    python benchmarks/peers.py --smoke                 # a tiny tree from datasets/, seconds

For each corpus (fetched by benchmarks/fetch_corpora.sh) and each run, on a cold database:
- `docql-sqlite index` through the real CLI (a new process tree: writer + parser workers);
- the floor: a plain FTS5 table (path, body) of the same files' bytes built with apsw in
  one transaction — no parsing, no sections, no chunks (a subprocess, measured the same way);
- `qmd collection add` (QMD 2.8.3 on Node 22, its index in an isolated HOME/XDG dir),
  Markdown corpora only: QMD indexes Markdown (its default mask `**/*.md`);
- with embeddings (`--embed use-multilingual`, Markdown mix only): docql index + vectors.
  QMD's embeddings need a model download (no internet here), so that column is empty.

Reported: files/s, MB/s, peak RSS of the process tree (sampled every 50 ms from /proc),
database size and its ratio to the corpus bytes, and the ratios docql/floor and qmd/docql
(time) measured in the same run. Medians over the runs. Then, for the Markdown mix, a
per-stage profile (one process, no workers: walk, read, decode+parse, sections+chunks,
row preparation, SQL store, FTS insert, commit) and page counts per table and index
(the `dbstat` virtual table, like sqlite3_analyzer).

Goals (issue 12, Markdown mix): ≥ 2× faster than `qmd collection add`, within 6× of the
FTS5 floor, db ≤ 2.0× the corpus without vectors, peak RSS ≤ 500 MB.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib as bl  # noqa: E402

# name → (manifest keys, include globs, is Markdown)
CORPORA: dict[str, tuple[tuple[str, ...], tuple[str, ...], bool]] = {
    "md_mix": (("md_node", "md_docker", "md_rustdoc"), ("*.md",), True),
    "md_zh": (("md_zh",), ("*.md",), True),
    "code_python": (("code_python",), ("*.py",), False),
    "code_ts": (("code_ts_rxjs", "code_ts_zod"), ("*.ts",), False),
    "code_go": (("code_go",), ("*.go",), False),
    "pdf": (("pdf_r", "pdf_debref_en", "pdf_debref_zh"), ("*.pdf",), False),
    "html_python": (("html_python",), ("*.html",), False),
}
# Issue 24's goals: QMD ÷ docql >= 2 in wall *and* CPU time, docql <= 7x the FTS5 floor
# in CPU time, the file <= 1.8x the corpus (the RSS bound is issue 12's).
GOAL_VS_QMD, GOAL_VS_FLOOR_CPU, GOAL_DB_RATIO, GOAL_RSS_MB = 2.0, 7.0, 1.8, 500.0
EMBED_MODEL = "use-multilingual"


# -- one measured build of each kind -----------------------------------------------------------
def docql_build(
    roots: list[Path], include: tuple[str, ...], work: Path, embed: str | None = None
) -> dict[str, Any]:
    db = work / "docql.db"
    bl.remove_db(db)
    cmd = bl.docql_cli() + ["index", "--json", str(db), *map(str, roots)]
    for pattern in include:
        cmd += ["--include", pattern]
    if embed:
        cmd += ["--embed", embed]
    m = bl.run_measured(cmd, cwd=work)
    if m.returncode not in (0, 1):
        raise SystemExit(f"docql-sqlite index failed ({m.returncode}): {m.stderr[-2000:]}")
    import json

    summary = json.loads(m.stdout)[0]
    return {
        "seconds": m.seconds,
        "cpu_s": m.cpu_s,
        "rss_mb": m.rss_mb,
        "db_bytes": bl.db_bytes(db),
        "documents": summary["added"],
        "failed": summary["failed"],
    }


FLOOR_SQL = "CREATE VIRTUAL TABLE docs USING fts5(path, body)"


def floor_build_here(db: Path, listing: Path) -> None:
    """The floor itself (run in a subprocess): every file's bytes into one FTS5 table."""
    import apsw

    conn = apsw.Connection(str(db))
    conn.execute(FLOOR_SQL)
    conn.execute("BEGIN")
    insert = "INSERT INTO docs(path, body) VALUES (?, ?)"
    for name in listing.read_text().splitlines():
        with open(name, "rb") as handle:
            conn.execute(insert, (name, handle.read().decode("utf-8", "replace")))
    conn.execute("COMMIT")
    conn.close()


def floor_build(files: list[bl.CorpusFile], work: Path) -> dict[str, Any]:
    db, listing = work / "floor.db", work / "floor.list"
    bl.remove_db(db)
    listing.write_text("".join(f"{f.path}\n" for f in files))
    m = bl.run_measured([sys.executable, __file__, "--floor-build", str(db), str(listing)])
    if m.returncode != 0:
        return {"error": m.stderr.strip()[-500:]}
    return {"seconds": m.seconds, "cpu_s": m.cpu_s, "rss_mb": m.rss_mb, "db_bytes": bl.db_bytes(db)}


def qmd_build(peer: bl.Peer, roots: list[Path], work: Path) -> dict[str, Any]:
    """`qmd collection add` once per root (QMD collections have one root), times summed."""
    if peer.command is None:
        return {"skipped": peer.reason}
    home = work / "qmdhome"
    if home.exists():
        import shutil

        shutil.rmtree(home)
    env = bl.qmd_env(peer, home)
    seconds, cpu, rss = 0.0, 0.0, 0.0
    for n, root in enumerate(roots):
        cmd = peer.command + ["collection", "add", str(root), "--name", f"c{n}"]
        m = bl.run_measured(cmd, env=env)
        if m.returncode != 0:
            return {"error": (m.stderr or m.stdout).strip()[-500:]}
        seconds += m.seconds
        cpu += m.cpu_s
        rss = max(rss, m.rss_mb)
    index = next((home / ".cache" / "qmd").glob("*.sqlite"), None)
    return {
        "seconds": seconds,
        "cpu_s": cpu,
        "rss_mb": rss,
        "db_bytes": bl.db_bytes(index) if index else 0,
        # What QMD really indexed (its files/s is counted from this, not from the tree).
        "documents": _qmd_documents(index) if index else 0,
        "home": str(home),
    }


def _qmd_documents(index: Path) -> int:
    import sqlite3

    with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT count(*) FROM documents WHERE active = 1").fetchone()[0])


# -- the per-stage profile --------------------------------------------------------------------
class _TimedConnection:
    """Delegates to the real connection; times the FTS inserts apart from the other SQL."""

    def __init__(self, conn: Any) -> None:
        self._conn, self.fts, self.sql = conn, 0.0, 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def _timed(self, method: str, statement: str, *args: Any) -> Any:
        # CPU time, as every other stage (wall time here measured the scheduler under load)
        started = time.process_time()
        result = getattr(self._conn, method)(statement, *args)
        if method == "execute" and hasattr(result, "fetchall"):
            pass  # cursors are consumed by the caller; their time lands in "sql"
        spent = time.process_time() - started
        if "chunks_fts" in statement:
            self.fts += spent
        else:
            self.sql += spent
        return result

    def execute(self, statement: str, *args: Any) -> Any:
        return self._timed("execute", statement, *args)

    def executemany(self, statement: str, *args: Any) -> Any:
        return self._timed("executemany", statement, *args)

    def __enter__(self) -> Any:  # a savepoint or a transaction, as the connection's
        return self._conn.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self._conn.__exit__(*exc)


def _parse(fmt: Any, source: Any, display: str, decode_text: Any) -> Any:
    """Decode and parse one file: older formats take the decoded text, newer ones decode."""
    if len(inspect.signature(fmt.parse).parameters) >= 2:
        text = None if fmt.binary else decode_text(source.data, display)[0]
        return fmt.parse(source, text)
    return fmt.parse(source)


def _commit(transaction: Any, timed: _TimedConnection, clock: Any) -> float:
    """CPU time of a batch's commit, without its full-text writes (timed as FTS5)."""
    fts_before, started = timed.fts, clock()
    transaction.close()
    return clock() - started - (timed.fts - fts_before)


def stage_profile(roots: list[Path], include: tuple[str, ...], work: Path, top: int) -> dict:
    """Every stage of an index run in this one process, timed apart (no workers)."""
    from contextlib import ExitStack
    from types import SimpleNamespace

    from docql_sqlite.dialect import SQLITE
    from docql_sqlite.errors import DocQLError
    from docql_sqlite.ingest.chunk import DEFAULT_MAX_CHARS, chunk_document
    from docql_sqlite.ingest.formats import get_format, sniff_format
    from docql_sqlite.ingest.read import decode_text, read_source
    from docql_sqlite.ingest.rows import Parsed, prepare
    from docql_sqlite.ingest.sections import build_sections
    from docql_sqlite.store.sqlite import db as dbmod
    from docql_sqlite.store.sqlite.writer import SqliteWriter

    stages = dict.fromkeys(
        ["walk", "read", "decode+parse", "sections+chunks", "prepare rows", "store SQL", "FTS5"],
        0.0,
    )
    stages["commit"] = 0.0
    db_path = work / "profile.db"
    bl.remove_db(db_path)
    conn = dbmod.connect(db_path)
    timed = _TimedConnection(conn)
    # The index's own writer, over the timed connection (a store is only its connection here).
    writer = SqliteWriter(SimpleNamespace(conn=timed, path=str(db_path), dialect=SQLITE))  # type: ignore[arg-type]
    profiler = cProfile.Profile()
    # CPU time of this process: on a shared machine wall time would measure the scheduler
    # (and the page cache), not the stages.
    clock = time.process_time

    t = clock()
    found = [f for f in bl._walk(roots, include) if not f.error and not getattr(f, "skipped", None)]
    stages["walk"] = clock() - t
    for item in found[:3]:  # warm-up: imports and compiled regexes are not a per-file cost
        source = read_source(item.path, item.display, fmt=item.format)
        fmt = get_format(item.format or source.format or sniff_format(source.data))
        doc = _parse(fmt, source, item.display, decode_text)
        chunk_document(doc, build_sections(doc), DEFAULT_MAX_CHARS)
    batch = 0
    transaction = ExitStack()  # as the writer: full-text rows once per batch, after the savepoints
    transaction.enter_context(writer.batch())
    if top > 0:  # cProfile inflates the Python stages ~2x: `--top 0` for the stage CPU alone
        profiler.enable()
    failed = 0
    for item in found:
        t0 = clock()
        try:
            source = read_source(item.path, item.display, fmt=item.format)
            t1 = clock()
            fmt = get_format(item.format or source.format or sniff_format(source.data))
            doc = _parse(fmt, source, item.display, decode_text)
        except DocQLError:  # what the indexer records as a failure or a skip
            failed += 1
            continue
        t2 = clock()
        sections = build_sections(doc)
        chunks = chunk_document(doc, sections, DEFAULT_MAX_CHARS)
        t3 = clock()
        parsed = prepare(
            Parsed(
                source.path,
                source.uri,
                source.sha256,
                len(source.data),
                source.mtime_ns,
                doc,
                sections,
                chunks,
            )
        )
        t4 = clock()
        with writer.document(parsed.uri):  # the writer keeps each file in a savepoint
            writer.replace_document(parsed)
        t5 = clock()
        stages["read"] += t1 - t0
        stages["decode+parse"] += t2 - t1
        stages["sections+chunks"] += t3 - t2
        stages["prepare rows"] += t4 - t3
        batch += 1
        if batch == 200:  # the CLI's batch size: one transaction per 200 documents
            stages["commit"] += _commit(transaction, timed, clock)
            transaction.enter_context(writer.batch())
            batch = 0
        del t5
    stages["commit"] += _commit(transaction, timed, clock)
    profiler.disable()
    conn.close()
    stages["store SQL"], stages["FTS5"] = timed.sql, timed.fts
    total = sum(stages.values())
    buffer = io.StringIO()
    if top > 0:
        pstats.Stats(profiler, stream=buffer).sort_stats("tottime").print_stats(top)
    hot = [
        line.rstrip()
        for line in buffer.getvalue().splitlines()
        if line.strip() and line.strip()[0].isdigit()
    ][:top]
    return {
        "files": len(found),
        "failed": failed,
        "total_s": total,
        "stages": {
            k: {"seconds": v, "share": v / total if total else 0} for k, v in stages.items()
        },
        "top_functions_by_tottime": hot,
        "page_counts": bl.page_counts(db_path),
    }


# -- a corpus, N runs -------------------------------------------------------------------------
def measure_corpus(
    name: str,
    roots: list[Path],
    include: tuple[str, ...],
    markdown: bool,
    runs: int,
    qmd: bl.Peer,
    embed_runs: int,
    work: Path,
) -> dict[str, Any]:
    files = bl.indexable_files(roots, include)
    corpus_bytes = sum(f.size for f in files)
    print(f"\n== {name}: {len(files):,} files, {corpus_bytes / 1e6:.2f} MB", flush=True)
    samples: dict[str, list[dict[str, Any]]] = {"docql": [], "floor": [], "qmd": [], "embed": []}
    for n in range(runs):
        samples["docql"].append(docql_build(roots, include, work))
        if name != "pdf":  # raw PDF bytes in an FTS table would not be a text floor
            samples["floor"].append(floor_build(files, work))
        if markdown:
            samples["qmd"].append(qmd_build(qmd, roots, work))
        for kind in ("docql", "floor", "qmd"):
            if samples[kind]:
                print(f"  run {n + 1} {kind:>5}: {_brief(samples[kind][-1])}", flush=True)
    for n in range(embed_runs):
        samples["embed"].append(docql_build(roots, include, work, embed=EMBED_MODEL))
        print(f"  run {n + 1} embed: {_brief(samples['embed'][-1])}", flush=True)
    return {
        "corpus": name,
        "roots": [str(r) for r in roots],
        "files": len(files),
        "bytes": corpus_bytes,
        "samples": samples,
        "median": {k: _median(v, corpus_bytes, len(files)) for k, v in samples.items() if v},
    }


def _brief(sample: dict[str, Any]) -> str:
    if "seconds" not in sample:
        return str(sample)
    return (
        f"{sample['seconds']:.2f} s (CPU {sample.get('cpu_s', 0):.2f} s), "
        f"{sample['rss_mb']:.0f} MB RSS, "
        f"db {sample['db_bytes'] / 1e6:.1f} MB"
    )


def _median(samples: list[dict[str, Any]], corpus_bytes: int, files: int) -> dict[str, Any]:
    good = [s for s in samples if "seconds" in s]
    if not good:
        return samples[0]
    seconds = bl.median([s["seconds"] for s in good])
    db = bl.median([s["db_bytes"] for s in good])
    documents = good[0].get("documents", files)
    return {
        "seconds": seconds,
        "cpu_s": bl.median([s.get("cpu_s", 0.0) for s in good]),
        "files_per_s": documents / seconds,
        "mb_per_s": corpus_bytes / 1e6 / seconds,
        "rss_mb": max(s["rss_mb"] for s in good),
        "db_mb": db / 1e6,
        "db_ratio": db / corpus_bytes if corpus_bytes else 0.0,
        "documents": documents,
        "failed": max(s.get("failed", 0) for s in good),
        "runs": len(good),
    }


# -- report -----------------------------------------------------------------------------------
def report(results: list[dict[str, Any]], profile: dict | None) -> str:
    out = []
    rows = []
    for r in results:
        m = r["median"]
        d = m["docql"]
        fl, q, e = m.get("floor"), m.get("qmd"), m.get("embed")
        rows.append(
            [
                r["corpus"],
                r["files"],
                r["bytes"] / 1e6,
                d["files_per_s"],
                d["mb_per_s"],
                d["cpu_s"],
                d["rss_mb"],
                d["db_ratio"],
                d["failed"],
                _cell(fl, "mb_per_s"),
                _ratio(d, fl, "docql/floor"),
                _cell(fl, "db_ratio"),
                _cell(q, "mb_per_s"),
                _ratio(d, q, "qmd/docql"),
                _cpu_ratio(d, q),
                _cell(q, "rss_mb"),
                _cell(q, "db_ratio"),
                _cell(e, "mb_per_s"),
                _cell(e, "rss_mb"),
                _cell(e, "db_ratio"),
            ]
        )
    if rows:
        out.append(
            bl.table(
                [
                    "corpus",
                    "files",
                    "MB",
                    "docql files/s",
                    "docql MB/s",
                    "docql CPU s",
                    "docql RSS MB",
                    "docql db/corpus",
                    "failed",
                    "floor MB/s",
                    "docql time ÷ floor",
                    "floor db/corpus",
                    "qmd MB/s",
                    "qmd time ÷ docql",
                    "qmd CPU ÷ docql",
                    "qmd RSS MB",
                    "qmd db/corpus",
                    "+embed MB/s",
                    "+embed RSS MB",
                    "+embed db/corpus",
                ],
                rows,
            )
        )
    mix = next((r for r in results if r["corpus"] == "md_mix"), None)
    if mix:
        m = mix["median"]
        d, fl, q = m["docql"], m.get("floor"), m.get("qmd")
        out.append("\ngoals on the Markdown mix:")
        if q and "seconds" in q:
            x = q["seconds"] / d["seconds"]
            cpu = q["cpu_s"] / d["cpu_s"] if q.get("cpu_s") and d.get("cpu_s") else 0.0
            out.append(
                f"  {_ok(min(x, cpu) >= GOAL_VS_QMD)} vs qmd: {x:.2f}× faster in wall time, "
                f"{_cpu_ratio(d, q)} in CPU time (goal ≥ {GOAL_VS_QMD}× in both)"
            )
        else:
            out.append(f"  n/a  vs qmd: {q}")
        if fl and "seconds" in fl:
            x = d["seconds"] / fl["seconds"]
            cpu = d["cpu_s"] / fl["cpu_s"]
            out.append(
                f"  {_ok(cpu <= GOAL_VS_FLOOR_CPU)} vs floor: {cpu:.1f}× slower in CPU time "
                f"(goal ≤ {GOAL_VS_FLOOR_CPU:g}×), {x:.2f}× in wall time"
            )
        out.append(
            f"  {_ok(d['db_ratio'] <= GOAL_DB_RATIO)} db: {d['db_ratio']:.2f}× corpus "
            f"(goal ≤ {GOAL_DB_RATIO}×)"
        )
        worst = max(r["median"]["docql"]["rss_mb"] for r in results)
        out.append(f"  {_ok(worst <= GOAL_RSS_MB)} peak RSS (any corpus): {worst:.0f} MB (≤ 500)")
    if profile:
        out.append(
            f"\nper-stage profile (Markdown mix, one process, {profile['files']} files, "
            "CPU seconds):"
        )
        out.append(
            bl.table(
                ["stage", "seconds", "share"],
                [
                    [k, v["seconds"], f"{100 * v['share']:.0f} %"]
                    for k, v in profile["stages"].items()
                ],
            )
        )
        out.append("\npages per table and index (dbstat):")
        out.append(
            bl.table(
                ["table or index", "pages", "MB", "share", "unused MB"],
                [
                    [p["name"], p["pages"], p["bytes"] / 1e6, f"{100 * p['share']:.1f} %"]
                    + [p["unused"] / 1e6]
                    for p in profile["page_counts"]
                    if p["share"] >= 0.001
                ],
            )
        )
        out.append("\nhottest functions (cProfile, tottime):")
        out.extend("  " + line for line in profile["top_functions_by_tottime"])
    return "\n".join(out)


def report_profile(profile: dict | None) -> str:
    return report([], profile)


def _cell(m: dict[str, Any] | None, key: str) -> Any:
    if not m:
        return "—"
    if key not in m:
        return "skipped" if "skipped" in m else "failed"
    return m[key]


def _ratio(docql: dict[str, Any], other: dict[str, Any] | None, kind: str) -> Any:
    if not other or "seconds" not in other:
        return "—"
    if kind == "docql/floor":
        return f"{docql['seconds'] / other['seconds']:.1f}×"
    return f"{other['seconds'] / docql['seconds']:.2f}×"


def _cpu_ratio(docql: dict[str, Any], other: dict[str, Any] | None) -> Any:
    if not other or not other.get("cpu_s") or not docql.get("cpu_s"):
        return "—"
    return f"{other['cpu_s'] / docql['cpu_s']:.2f}×"


def _ok(ok: bool) -> str:
    return "met " if ok else "MISS"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--corpora", default=",".join(CORPORA), help="comma-separated names")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--runs-large", type=int, default=1, help="runs for corpora over 20 MB (default 1)"
    )
    parser.add_argument("--embed-runs", type=int, default=1, help="with-embeddings runs (md_mix)")
    parser.add_argument("--no-profile", action="store_true", help="skip the per-stage profile")
    parser.add_argument("--top", type=int, default=25, help="functions shown in the profile")
    parser.add_argument(
        "--profile-only", action="store_true", help="only the stage profile of the Markdown mix"
    )
    parser.add_argument("--smoke", action="store_true", help="tiny tree from datasets/, 1 run")
    parser.add_argument("--json", dest="json_out", type=Path, default=None)
    parser.add_argument("--floor-build", nargs=2, metavar=("DB", "LIST"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor_build:
        floor_build_here(Path(args.floor_build[0]), Path(args.floor_build[1]))
        return

    info = bl.manifest(fetch=not args.smoke)
    qmd = bl.find_qmd(info)
    meta = bl.machine()
    print(f"machine: {meta}")
    print(f"qmd: {qmd.command or qmd.reason}")
    results = []
    profile = None
    with tempfile.TemporaryDirectory(prefix="docql-peers-") as tmp:
        work = Path(tmp)
        if args.smoke:
            tree = bl.smoke_tree(work / "smoke")
            md_roots = [tree / "en", tree / "zh"]
            results.append(measure_corpus("md_mix", md_roots, ("*.md",), True, 1, qmd, 0, work))
            if not args.no_profile:
                profile = stage_profile(md_roots, ("*.md",), work, args.top)
        elif args.profile_only:
            keys, include, _ = CORPORA["md_mix"]
            profile = stage_profile(bl.corpus_roots(info, *keys), include, work, args.top)
        else:
            for name in args.corpora.split(","):
                keys, include, markdown = CORPORA[name]
                roots = bl.corpus_roots(info, *keys)
                embed_runs = args.embed_runs if name == "md_mix" else 0
                large = bl.file_bytes(*roots) > 20e6 and name != "md_mix"
                runs = args.runs_large if large else args.runs
                results.append(
                    measure_corpus(name, roots, include, markdown, runs, qmd, embed_runs, work)
                )
                partial = {"machine": meta, "results": results, "partial": True}
                bl.write_json(args.json_out, partial)  # a long run keeps what it measured
            if not args.no_profile and "md_mix" in args.corpora.split(","):
                keys, include, _ = CORPORA["md_mix"]
                profile = stage_profile(bl.corpus_roots(info, *keys), include, work, args.top)
    text = report(results, profile) if results else report_profile(profile)
    print("\n" + text)
    bl.write_json(
        args.json_out,
        {
            "machine": meta,
            "qmd": qmd.command or qmd.reason,
            "results": results,
            "profile": profile,
            "report": text,
        },
    )


if __name__ == "__main__":
    main()
