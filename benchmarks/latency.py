#!/usr/bin/env python3
"""Query latency per class, in-process and end to end through the CLI, beside rg and qmd.

    python benchmarks/latency.py                        # the Markdown mix (indexed once, cached)
    python benchmarks/latency.py --db BIG.db --roots DIR [DIR...] --runs 10
    python benchmarks/latency.py --smoke                # a tiny tree from datasets/, seconds
    python benchmarks/latency.py --db DB --classes structural --runs 0 --cli-runs 20 --no-peers
                                                        # the structural CLI goal alone

Classes (each a few queries chosen to stay selective on any corpus, so that a bigger index
does not simply mean a bigger answer): structural DocQL (`$.toc`, `$.code`), `heading()`,
`chapter()`, `grep()` (literal), `bm25` and `hybrid` search (hybrid only when the index
has vectors). p50/p95 over every run of every query of the class, in milliseconds:
- in-process: `Index.query()` / `Index.search()` in this process, after two warm-ups;
- CLI: a new `docql-sqlite query|search` process per call, start-up included.
Peers, end to end, in the same run:
- `rg -i -l -F LITERAL` on the same text files (Markdown and code; HTML/PDF text is
  extracted by docql, so rg cannot see the same text) against
  `docql-sqlite query DB '$.content.grep("LITERAL")'`: the two file sets are compared
  and must be identical (differences are listed);
- `qmd search TEXT -n 10 --json` (BM25, QMD's own index of the same Markdown, built in an
  isolated HOME) against `docql-sqlite search DB TEXT` (default mode) and `--mode bm25`.

Goals (issue 12): `docql-sqlite search` ≥ 1.5× faster than `qmd search` end to end; a
structural `docql-sqlite query` ≤ 100 ms end to end; at ≥ 100 MB of text, the grep
through the CLI faster than `rg -i -l` with identical file sets (that size: scale.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib as bl  # noqa: E402

QUERIES: dict[str, list[str]] = {
    "structural": [
        "$.toc[?(@.level==1)][0:20]",
        '$.toc[?(@.title~="install")][0:20]',
        '$.code.classes[?(@.name~="Buffer")][0:20]',
        '$.files[?(@.name=="fs.md")].toc[?(@.level==2)]',
    ],
    "heading": [
        '$.content.heading("installation")',
        '$.content.heading("lifetime elision")',
        '$.content.heading("xyzzy")',
    ],
    "chapter": [
        '$.content.chapter("#installation")',
        '$.files[?(@.name=="fs.md")].content.chapter("1.1")',
    ],
    "grep": [
        '$.content.grep("EADDRINUSE")',
        '$.content.grep("lifetime elision")',
        '$.content.grep("xyzzy")',
    ],
}
SEARCHES = ["lifetime elision", "borrow checker error", "watch a file for changes", "docker volume"]
GREP_LITERALS = ["EADDRINUSE", "lifetime elision", "xyzzy", "UnsafeCell"]
# Formats whose indexed text is the file's own text, so rg sees what docql sees.
RAW_TEXT_FORMATS = {"markdown", "code", "text", "rst"}
GOAL_VS_QMD, GOAL_STRUCTURAL_CLI_MS = 1.5, 100.0


# The classes to measure (`--classes`; None: all).
CLASSES: set[str] | None = None


def _chosen(name: str) -> bool:
    return CLASSES is None or name in CLASSES


# -- in-process ---------------------------------------------------------------------------------
def in_process(db: Path, runs: int, hybrid: bool, per_class: int = 99) -> dict[str, Any]:
    import time

    import docql_sqlite

    out: dict[str, Any] = {}
    with docql_sqlite.open(db) as index:
        jobs: dict[str, list[tuple[str, Any]]] = {
            name: [(q, lambda q=q: index.query(q)) for q in qs[:per_class]]
            for name, qs in QUERIES.items()
        }
        searches = SEARCHES[:per_class]
        jobs["bm25"] = [(t, lambda t=t: index.search(t, mode="bm25")) for t in searches]
        if hybrid:
            jobs["hybrid"] = [(t, lambda t=t: index.search(t, mode="hybrid")) for t in searches]
        for name, calls in jobs.items():
            if not runs or not _chosen(name):
                continue
            samples, per_query, cpu_samples = [], [], []
            for text, call in calls:
                for _ in range(2):
                    items = call()
                mine, cpu = [], []
                for _ in range(runs):
                    started, started_cpu = time.perf_counter(), time.process_time()
                    items = call()
                    mine.append((time.perf_counter() - started) * 1000)
                    cpu.append((time.process_time() - started_cpu) * 1000)
                samples += mine
                cpu_samples += cpu
                per_query.append(
                    {"query": text, "results": len(items), "p50_ms": bl.median(mine)}
                    | {"cpu_p50_ms": bl.median(cpu)}
                )
            out[name] = _stats(samples) | {"cpu_p50_ms": bl.median(cpu_samples)}
            out[name]["queries"] = per_query
    return out


# -- through the CLI --------------------------------------------------------------------------
def cli(db: Path, runs: int, hybrid: bool, per_class: int = 99) -> dict[str, Any]:
    base = bl.docql_cli()
    searches = SEARCHES[:per_class]
    jobs: dict[str, list[list[str]]] = {
        name: [base + ["query", str(db), q, "--json"] for q in qs[:per_class]]
        for name, qs in QUERIES.items()
    }
    jobs["bm25"] = [base + ["search", str(db), t, "--mode", "bm25", "--json"] for t in searches]
    jobs["search (default mode)"] = [base + ["search", str(db), t, "--json"] for t in searches]
    if hybrid:
        jobs["hybrid"] = [
            base + ["search", str(db), t, "--mode", "hybrid", "--json"] for t in searches
        ]
    out = {}
    for name, commands in jobs.items():
        if not _chosen(name):
            continue
        samples, cpu = [], []
        for cmd in commands:
            for _ in range(runs):
                ms, cpu_ms, done = bl.time_process_cpu(cmd)
                if done.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()[-500:]}")
                samples.append(ms)
                cpu.append(cpu_ms)
        if samples:
            out[name] = _stats(samples) | {"cpu_p50_ms": bl.median(cpu)}
    return out


def _stats(samples: list[float]) -> dict[str, Any]:
    return {"p50_ms": bl.median(samples), "p95_ms": bl.pct(samples, 95), "n": len(samples)}


# -- grep against rg ----------------------------------------------------------------------------
def indexed_text_files(db: Path) -> tuple[dict[str, str], set[str]]:
    """(display path → absolute uri) of every document, and the uris of raw-text formats."""
    import docql_sqlite

    with docql_sqlite.open(db) as index:
        rows = list(index.rows("SELECT path, uri, format FROM documents"))
    return {r["path"]: r["uri"] for r in rows}, {
        r["uri"] for r in rows if r["format"] in RAW_TEXT_FORMATS
    }


def rg_globs(db: Path) -> list[str]:
    """rg arguments that make it walk the files docql indexed: the raw-text extensions, and
    the walker's rules (newer walkers follow ripgrep's own defaults; the older one entered
    hidden and ignored files but skipped a fixed list of directory names)."""
    import docql_sqlite

    with docql_sqlite.open(db) as index:
        exts = {
            r["extension"]
            for r in index.rows("SELECT DISTINCT extension, format FROM documents")
            if r["format"] in RAW_TEXT_FORMATS and r["extension"]
        }
    globs = [a for e in sorted(exts) for a in ("-g", f"*.{e}")]
    if bl.walks_like_ripgrep():
        return globs
    from docql_sqlite.ingest import walk as walk_module

    ignored = sorted(getattr(walk_module, "IGNORED_DIRS", ()))
    return ["--no-ignore", "--hidden"] + globs + [a for d in ignored for a in ("-g", f"!{d}/")]


def grep_vs_rg(
    db: Path, roots: list[Path], rg: bl.Peer, runs: int, cwd: Path, literals: list[str]
) -> dict[str, Any]:
    if rg.command is None:
        return {"skipped": rg.reason}
    by_path, raw_uris = indexed_text_files(db)
    base = rg.command + ["--no-messages", *rg_globs(db)]
    listed = bl.time_process(base + ["--files", *map(str, roots)], cwd=cwd)[1].stdout
    rg_universe = {os.path.abspath(os.path.join(cwd, p)) for p in listed.splitlines()}
    universe = {
        "rg_files": len(rg_universe),
        "docql_raw_text_documents": len(raw_uris),
        "only_rg": sorted(rg_universe - raw_uris)[:10],
        "only_docql": sorted(raw_uris - rg_universe)[:10],
        "n_only_rg": len(rg_universe - raw_uris),
        "n_only_docql": len(raw_uris - rg_universe),
    }
    rows = []
    for literal in literals:
        query = f'$.content.grep("{literal}")'
        docql_cmd = bl.docql_cli() + ["query", str(db), query, "--json"]
        rg_cmd = base + ["-i", "-l", "-F", literal, *map(str, roots)]
        docql_ms, rg_ms, docql_cpu, rg_cpu = [], [], [], []
        docql_out = rg_out = ""
        for _ in range(runs):
            ms, cpu, done = bl.time_process_cpu(docql_cmd, cwd=cwd)
            docql_ms.append(ms)
            docql_cpu.append(cpu)
            docql_out = done.stdout
            ms, cpu, done = bl.time_process_cpu(rg_cmd, cwd=cwd)
            rg_ms.append(ms)
            rg_cpu.append(cpu)
            rg_out = done.stdout
        docql_files = {
            by_path.get(item["path"], item["path"]) for item in json.loads(docql_out or "[]")
        } & raw_uris
        rg_files = {os.path.abspath(os.path.join(cwd, p)) for p in rg_out.splitlines()} & raw_uris
        rows.append(
            {
                "literal": literal,
                "docql_p50_ms": bl.median(docql_ms),
                "rg_p50_ms": bl.median(rg_ms),
                "rg_over_docql": bl.median(rg_ms) / bl.median(docql_ms),
                "docql_cpu_p50_ms": bl.median(docql_cpu),
                "rg_cpu_p50_ms": bl.median(rg_cpu),
                "docql_files": len(docql_files),
                "rg_files": len(rg_files),
                "identical": docql_files == rg_files,
                "only_docql": sorted(docql_files - rg_files)[:5],
                "only_rg": sorted(rg_files - docql_files)[:5],
            }
        )
    return {"universe": universe, "literals": rows}


# -- qmd search against docql-sqlite search ----------------------------------------------------
def qmd_index(qmd: bl.Peer, roots: list[Path], home: Path) -> dict[str, str] | None:
    """QMD's index of the Markdown under `roots`, built once into `home`."""
    if qmd.command is None:
        return None
    env = bl.qmd_env(qmd, home)
    marker = home / ".built"
    if not marker.exists():
        for n, root in enumerate(roots):
            done = bl.time_process(
                qmd.command + ["collection", "add", str(root), "--name", f"c{n}"], env=env
            )[1]
            if done.returncode != 0:
                raise SystemExit(f"qmd collection add failed: {done.stderr[-500:]}")
        marker.write_text("ok")
    return env


def search_vs_qmd(
    db: Path, roots: list[Path], qmd: bl.Peer, runs: int, home: Path, searches: list[str]
) -> dict[str, Any]:
    env = qmd_index(qmd, roots, home)
    if env is None or qmd.command is None:
        return {"skipped": qmd.reason}
    rows = []
    q_cmd, d_cmd = qmd.command, bl.docql_cli()
    commands: dict[str, Any] = {
        "qmd": lambda t: q_cmd + ["search", t, "-n", "10", "--json"],
        "docql": lambda t: d_cmd + ["search", str(db), t, "--json"],
        "docql_bm25": lambda t: d_cmd + ["search", str(db), t, "--mode", "bm25", "--json"],
    }
    for text in searches:
        wall: dict[str, list[float]] = {k: [] for k in commands}
        cpu: dict[str, list[float]] = {k: [] for k in commands}
        hits = 0
        for _ in range(runs):
            for kind, command in commands.items():
                ms, cpu_ms, done = bl.time_process_cpu(
                    command(text), env=env if kind == "qmd" else None
                )
                wall[kind].append(ms)
                cpu[kind].append(cpu_ms)
                if kind == "qmd":
                    try:
                        hits = len(json.loads(done.stdout or "[]"))
                    except json.JSONDecodeError:
                        hits = -1
        row: dict[str, Any] = {"query": text, "qmd_hits": hits}
        for kind in commands:
            row[f"{kind}_p50_ms"] = bl.median(wall[kind])
            row[f"{kind}_cpu_p50_ms"] = bl.median(cpu[kind])
        rows.append(row)
    summary: dict[str, Any] = {"queries": rows}
    for key in [k for k in rows[0] if k.endswith("_ms")]:
        summary[key] = bl.median([r[key] for r in rows])
    summary["speedup_default"] = summary["qmd_p50_ms"] / summary["docql_p50_ms"]
    summary["speedup_bm25"] = summary["qmd_p50_ms"] / summary["docql_bm25_p50_ms"]
    summary["cpu_speedup_default"] = summary["qmd_cpu_p50_ms"] / summary["docql_cpu_p50_ms"]
    return summary


# -- everything for one index ---------------------------------------------------------------------
def has_vectors(db: Path) -> bool:
    import docql_sqlite

    with docql_sqlite.open(db) as index:
        return bool(next(iter(index.rows("SELECT count(*) AS n FROM chunk_vectors")))["n"])


def measure(
    db: Path,
    roots: list[Path],
    runs: int,
    cli_runs: int,
    peers: bool = True,
    md_roots: list[Path] | None = None,
    qmd_home: Path | None = None,
    cwd: Path | None = None,
    per_class: int = 99,
    literals: list[str] = GREP_LITERALS,
) -> dict[str, Any]:
    info = bl.manifest(fetch=False)
    hybrid = has_vectors(db)
    result: dict[str, Any] = {
        "db": str(db),
        "db_mb": bl.db_bytes(db) / 1e6,
        "in_process": in_process(db, runs, hybrid, per_class),
        "cli": cli(db, cli_runs, hybrid, per_class),
    }
    if peers:
        result["grep_vs_rg"] = grep_vs_rg(
            db, roots, bl.find_rg(info), cli_runs, cwd or Path.cwd(), literals
        )
        if md_roots:
            home = qmd_home or db.parent / "qmdhome-latency"
            result["search_vs_qmd"] = search_vs_qmd(
                db, md_roots, bl.find_qmd(info), cli_runs, home, SEARCHES[:per_class]
            )
    return result


def report(r: dict[str, Any]) -> str:
    out = [f"index: {r['db']} ({r['db_mb']:.1f} MB)", ""]
    names = list(r["in_process"]) + [n for n in r["cli"] if n not in r["in_process"]]
    rows = []
    for name in names:
        ip, c = r["in_process"].get(name, {}), r["cli"].get(name, {})
        rows.append(
            [
                name,
                ip.get("p50_ms", "—"),
                ip.get("p95_ms", "—"),
                ip.get("cpu_p50_ms", "—"),
                c.get("p50_ms", "—"),
                c.get("p95_ms", "—"),
                c.get("cpu_p50_ms", "—"),
            ]
        )
    out.append(
        bl.table(
            ["class", "in-process p50 ms", "p95", "CPU p50 ms", "CLI p50 ms", "p95", "CLI CPU p50"],
            rows,
        )
    )
    g = r.get("grep_vs_rg")
    if g and "literals" in g:
        u = g["universe"]
        out.append(
            f"\ngrep vs rg -i -l -F (end to end); files rg searches: {u['rg_files']:,}, "
            f"docql raw-text documents: {u['docql_raw_text_documents']:,} "
            f"(only rg {u['n_only_rg']}, only docql {u['n_only_docql']})"
        )
        out.append(
            bl.table(
                [
                    "literal",
                    "docql ms",
                    "rg ms",
                    "rg ÷ docql",
                    "CPU ms docql / rg",
                    "files docql",
                    "files rg",
                    "same",
                ],
                [
                    [
                        x["literal"],
                        x["docql_p50_ms"],
                        x["rg_p50_ms"],
                        f"{x['rg_over_docql']:.2f}×",
                        f"{x['docql_cpu_p50_ms']:.0f} / {x['rg_cpu_p50_ms']:.0f}",
                        x["docql_files"],
                        x["rg_files"],
                        "yes" if x["identical"] else "NO",
                    ]
                    for x in g["literals"]
                ],
            )
        )
    elif g:
        out.append(f"\ngrep vs rg: {g}")
    s = r.get("search_vs_qmd")
    if s and "queries" in s:
        out.append("\nsearch vs qmd search (end to end, p50 ms):")
        out.append(
            bl.table(
                [
                    "query",
                    "qmd search",
                    "docql search",
                    "docql --mode bm25",
                    "CPU ms qmd / docql",
                    "qmd hits",
                ],
                [
                    [
                        x["query"],
                        x["qmd_p50_ms"],
                        x["docql_p50_ms"],
                        x["docql_bm25_p50_ms"],
                        f"{x['qmd_cpu_p50_ms']:.0f} / {x['docql_cpu_p50_ms']:.0f}",
                        x["qmd_hits"],
                    ]
                    for x in s["queries"]
                ],
            )
        )
        ok = s["speedup_default"] >= GOAL_VS_QMD
        out.append(
            f"  {'met ' if ok else 'MISS'} docql search {s['speedup_default']:.2f}× faster than "
            f"qmd search (bm25 mode {s['speedup_bm25']:.2f}×; in CPU time "
            f"{s['cpu_speedup_default']:.2f}×; goal ≥ {GOAL_VS_QMD}×)"
        )
    elif s:
        out.append(f"\nsearch vs qmd: {s}")
    if "structural" in r["cli"]:
        structural = r["cli"]["structural"]
        ok = structural["p50_ms"] <= GOAL_STRUCTURAL_CLI_MS
        out.append(
            f"  {'met ' if ok else 'MISS'} structural docql-sqlite query end to end p50 "
            f"{structural['p50_ms']:.0f} ms, CPU {structural['cpu_p50_ms']:.0f} ms (goal ≤ 100 ms)"
        )
    return "\n".join(out)


def build_index(roots: list[Path], db: Path, include: tuple[str, ...], embed: str | None) -> None:
    cmd = bl.docql_cli() + ["index", "--json", str(db), *map(str, roots)]
    for pattern in include:
        cmd += ["--include", pattern]
    if embed:
        cmd += ["--embed", embed]
    done = bl.time_process(cmd)[1]
    if done.returncode not in (0, 1):
        raise SystemExit(f"index failed: {done.stderr[-1000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--db", type=Path, help="an existing index (default: the Markdown mix)")
    parser.add_argument("--roots", type=Path, nargs="*", help="the folders --db was built from")
    parser.add_argument(
        "--md-roots",
        type=Path,
        nargs="*",
        help="with --db: the Markdown folders for the qmd search comparison (QMD's index of "
        "them is kept in the cache's qmdhome-latency-md_mix)",
    )
    parser.add_argument("--runs", type=int, default=20, help="in-process runs per query")
    parser.add_argument("--cli-runs", type=int, default=7, help="process runs per query")
    parser.add_argument(
        "--embed",
        default="use-multilingual",
        help="model for the default index's vectors (hybrid); 'none' for none",
    )
    parser.add_argument(
        "--classes",
        help="only these query classes, comma-separated (structural, heading, chapter, grep, "
        "bm25, hybrid, 'search (default mode)')",
    )
    parser.add_argument(
        "--no-peers", action="store_true", help="with --db: no rg or qmd side by side"
    )
    parser.add_argument("--smoke", action="store_true", help="tiny tree from datasets/")
    parser.add_argument("--json", dest="json_out", type=Path)
    args = parser.parse_args()
    global CLASSES
    CLASSES = {c.strip() for c in args.classes.split(",")} if args.classes else None

    meta = bl.machine()
    with tempfile.TemporaryDirectory(prefix="docql-latency-") as tmp:
        if args.smoke:
            tree = bl.smoke_tree(Path(tmp) / "smoke")
            roots = [tree / "en", tree / "zh", tree / "code"]
            db = Path(tmp) / "smoke.db"
            build_index(roots, db, (), None)
            result = measure(
                db,
                roots,
                3,
                1,
                md_roots=[tree / "en"],
                cwd=Path(tmp),
                per_class=1,
                literals=["Lumen", "xyzzy"],
            )
        elif args.db:
            result = measure(
                args.db,
                args.roots or [],
                args.runs,
                args.cli_runs,
                peers=not args.no_peers,
                md_roots=args.md_roots or None,
                qmd_home=bl.cache_dir() / "qmdhome-latency-md_mix",
                cwd=Path.cwd(),
            )
        else:
            info = bl.manifest()
            roots = bl.corpus_roots(info, "md_node", "md_docker", "md_rustdoc")
            embed = None if args.embed == "none" else args.embed
            db = bl.cache_dir() / f"latency-md_mix-{embed or 'none'}.db"
            if not db.exists():
                build_index(roots, db, ("*.md",), embed)
            result = measure(
                db,
                roots,
                args.runs,
                args.cli_runs,
                md_roots=roots,
                qmd_home=bl.cache_dir() / "qmdhome-latency-md_mix",
            )
    result["machine"] = meta
    text = report(result)
    result["report"] = text
    print(text)
    bl.write_json(args.json_out, result)


if __name__ == "__main__":
    main()
