#!/usr/bin/env python3
"""Scale run: Go + Rust sources plus the docs (Markdown, HTML, PDF) indexed in one run.

    python benchmarks/scale.py                          # ≥ 30,000 files, ≥ 250 MB; ~1 h on 2 cores
    python benchmarks/scale.py --points 10,100 --json /work/cache/scale.json
    python benchmarks/scale.py --smoke                  # a tiny tree from datasets/, seconds

Corpus (benchmarks/fetch_corpora.sh): golang-1.19-src, the whole rust-src 1.63 tree (its
library, compiler, tests and src/doc books), Node.js and Docker docs, the Ant Design
Chinese docs, the Python 3.11 HTML docs, the R manuals and debian-reference PDFs (en, zh).
Only the files `docql-sqlite index` picks up are counted (its own walker).

The corpus is cut into units (folders, or single files where a folder is too big), shuffled
with a fixed seed; a point of X % holds the shortest prefix of units with X % of the bytes,
so every point contains the smaller ones. By default one database grows through the
points: each stage runs the real CLI on the units the point adds, so the 100 % index is
built once in five `index` runs and its time is the sum of theirs (`--cold` builds every
point in a fresh database instead: 2.6× the work). Per point: seconds (cumulative), CPU
seconds, files/s, MB/s, peak RSS of the process tree, db size, every failure (from the
index's ingest_errors table); then query latency per class (benchmarks/latency.py:
in-process and CLI p50). A `ref` point of ~10 MB from the same units, indexed on its own,
is the baseline of the issue's "within 3× of the 10 MB index". At 100 %: a re-index of all
units with nothing changed (goal ≤ 5 % of the first run), and literal grep against
`rg -i -l` on the Markdown and code files (≥ 100 MB).

Goals (issue 12): ≥ 300 files/s over the whole run, peak RSS ≤ 1 GB, every failure recorded,
query latency within 3× of the 10 MB index per class, re-index ≤ 5 %.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
if os.environ.get("DOCQL_GROWTH_CODE"):  # a --growth child measures that tree's package
    sys.path.insert(0, os.environ["DOCQL_GROWTH_CODE"])
    import docql_sqlite  # noqa: F401  (first, so benchlib's path to this tree comes second)

import benchlib as bl  # noqa: E402
import latency  # noqa: E402

CORPORA = (
    "code_go",
    "code_rust",
    "md_node",
    "md_docker",
    "md_zh",
    "html_python",
    "pdf_r",
    "pdf_debref_en",
    "pdf_debref_zh",
)
GOAL_FILES_PER_S, GOAL_RSS_MB, GOAL_QUERY_RATIO, GOAL_REINDEX = 300.0, 1024.0, 3.0, 0.05
REF_BYTES = 10e6


# -- the units ------------------------------------------------------------------------------------
def units(files: list[bl.CorpusFile], roots: list[Path], limit: float) -> list[tuple[Path, int]]:
    """(path, bytes) units covering `files`: a folder whose files weigh under `limit`, else its
    subfolders and its own files one by one."""
    sizes: dict[Path, int] = {}
    direct: dict[Path, list[bl.CorpusFile]] = {}
    for f in files:
        direct.setdefault(f.path.parent, []).append(f)
        for parent in f.path.parents:
            sizes[parent] = sizes.get(parent, 0) + f.size
            if parent in roots:
                break
    children: dict[Path, list[Path]] = {}
    for d in sizes:
        if d not in roots:
            children.setdefault(d.parent, []).append(d)
    out: list[tuple[Path, int]] = []

    def split(folder: Path) -> None:
        if sizes.get(folder, 0) <= limit:
            out.append((folder, sizes.get(folder, 0)))
            return
        out.extend((f.path, f.size) for f in direct.get(folder, []))
        for child in sorted(children.get(folder, [])):
            split(child)

    for root in roots:
        if root in sizes:
            split(root)
    return out


def prefix(shuffled: list[tuple[Path, int]], target: float) -> list[tuple[Path, int]]:
    chosen, total = [], 0
    for unit in shuffled:
        if total >= target:
            break
        chosen.append(unit)
        total += unit[1]
    return chosen


# -- one point ------------------------------------------------------------------------------------
def index_point(paths: list[Path], db: Path, work: Path) -> dict[str, Any]:
    cmd = bl.docql_cli() + ["index", "--json", str(db), *map(str, paths)]
    load_before = os.getloadavg()[0]
    m = bl.run_measured(cmd, cwd=work)
    load = (load_before, os.getloadavg()[0])  # the machine is shared: read wall time with it
    if m.returncode not in (0, 1):
        raise SystemExit(f"index failed ({m.returncode}): {m.stderr[-2000:]}")
    summary = json.loads(m.stdout)[0]
    return {
        "seconds": m.seconds,
        "cpu_s": m.cpu_s,
        "rss_mb": m.rss_mb,
        "summary": summary,
        "loadavg": load,
    }


def failures(db: Path) -> list[dict[str, Any]]:
    import docql_sqlite

    with docql_sqlite.open(db) as index:
        return list(
            index.rows("SELECT path, severity, reason FROM ingest_errors ORDER BY severity, path")
        )


def measure_point(
    label: str,
    chosen: list[tuple[Path, int]],
    new: list[tuple[Path, int]],
    db: Path,
    work: Path,
    runs: int,
    cli_runs: int,
    before: dict[str, Any] | None,
) -> dict[str, Any]:
    """Index `new` (the units `chosen` adds to what `db` holds), then time the queries.

    Staged mode passes the previous point as `before` (same database, only the new units
    indexed); the cold mode passes None with a fresh database and `new == chosen`."""
    corpus_bytes = sum(b for _, b in chosen)
    print(
        f"\n== point {label}: {len(chosen)} units, {corpus_bytes / 1e6:.1f} MB "
        f"({len(new)} units new)",
        flush=True,
    )
    built = index_point([p for p, _ in new], db, work)
    s = built["summary"]
    prior = before or {"documents": 0, "failed": 0, "seconds": 0.0, "cpu_s": 0.0, "rss_mb": 0.0}
    documents = prior["documents"] + s["added"]
    failed = prior["failed"] + s["failed"]
    seconds = prior["seconds"] + built["seconds"]
    errors = [p for p in failures(db) if p["severity"] == "error"]
    point: dict[str, Any] = {
        "label": label,
        "bytes": corpus_bytes,
        "documents": documents,
        "seconds": seconds,  # cumulative over the stages that built this index
        "cpu_s": prior["cpu_s"] + built["cpu_s"],
        "stage_seconds": built["seconds"],
        "stage_cpu_s": built["cpu_s"],
        "stage_loadavg": built["loadavg"],
        "stage_summary": s,
        "files_per_s": (documents + failed) / seconds,
        "mb_per_s": corpus_bytes / 1e6 / seconds,
        "rss_mb": max(prior["rss_mb"], built["rss_mb"]),
        "stage_rss_mb": built["rss_mb"],
        "db_bytes": bl.db_bytes(db),
        "failed": failed,
        "errors_recorded": len(errors),
        "errors": errors,
        "error_reasons": Counter(_reason(e["reason"]) for e in errors).most_common(),
    }
    print(
        f"  {documents:,} documents ({failed} failed), {seconds:.1f} s in all "
        f"(this stage {built['seconds']:.1f} s, {built['cpu_s']:.1f} CPU s, load "
        f"{built['loadavg'][0]:.1f}-{built['loadavg'][1]:.1f}), "
        f"{point['files_per_s']:.0f} files/s, "
        f"{built['rss_mb']:.0f} MB RSS, db {point['db_bytes'] / 1e6:.1f} MB",
        flush=True,
    )
    point["latency"] = latency.measure(db, [], runs, cli_runs, peers=False, cwd=work)
    print("  latency p50 ms (in-process / CLI): " + _latency_line(point["latency"]), flush=True)
    return point


def _reason(text: str) -> str:
    """A failure reason without its specifics (for counting)."""
    return text.split(":")[0][:80]


def _latency_line(lat: dict[str, Any]) -> str:
    return ", ".join(
        f"{name} {v['p50_ms']:.1f}/{lat['cli'].get(name, {}).get('p50_ms', float('nan')):.0f}"
        # in-process / CLI wall
        for name, v in lat["in_process"].items()
    )


# -- report and plot --------------------------------------------------------------------------
def report(run: dict[str, Any]) -> str:
    points = run["points"]
    ref = next(p for p in points if p["label"] == "ref")
    out = [
        f"corpus: {run['files']:,} files, {run['bytes'] / 1e6:.1f} MB "
        f"({', '.join(f'{k} {v:,}' for k, v in run['formats'].items())}); "
        f"{run['units']} units"
    ]
    classes = list(ref["latency"]["in_process"])
    headers = ["point", "MB", "docs", "failed", "seconds", "CPU s", "files/s", "MB/s", "RSS MB"]
    headers += ["db MB"]
    headers += [f"{c} p50 ms (×ref)" for c in classes]
    rows = []
    for p in points:
        row = [p["label"], p["bytes"] / 1e6, p["documents"], p["failed"], p["seconds"], p["cpu_s"]]
        row += [p["files_per_s"], p["mb_per_s"], p["rss_mb"], p["db_bytes"] / 1e6]
        for c in classes:
            v = p["latency"]["in_process"][c]["p50_ms"]
            r = v / ref["latency"]["in_process"][c]["p50_ms"]
            row.append(f"{v:.1f} ({r:.1f}×)")
        rows.append(row)
    out.append(bl.table(headers, rows))
    cli_classes = list(ref["latency"]["cli"])
    if cli_classes:
        out.append("\nCLI p50 ms per class, wall (CPU), and the wall time ÷ ref's:")
        cli_rows = []
        for p in points:
            row = [p["label"]]
            for c in cli_classes:
                mine, base = p["latency"]["cli"][c], ref["latency"]["cli"][c]
                row.append(
                    f"{mine['p50_ms']:.0f} ({mine['cpu_p50_ms']:.0f}) "
                    f"{mine['p50_ms'] / base['p50_ms']:.1f}×"
                )
            cli_rows.append(row)
        out.append(bl.table(["point"] + cli_classes, cli_rows))
    full = points[-1]
    out.append("\ngoals (the 100 % point):")
    ok = full["files_per_s"] >= GOAL_FILES_PER_S
    out.append(f"  {_ok(ok)} {full['files_per_s']:.0f} files/s over the whole run (goal ≥ 300)")
    worst = max(p["rss_mb"] for p in points)
    out.append(f"  {_ok(worst <= GOAL_RSS_MB)} peak RSS {worst:.0f} MB (goal ≤ 1024)")
    out.append(
        f"  {_ok(full['errors_recorded'] == full['failed'])} failures recorded: "
        f"{full['errors_recorded']} in ingest_errors for {full['failed']} failed files"
    )
    for reason, n in full["error_reasons"]:
        out.append(f"       {n:>5} × {reason}")
    ratios = {
        c: full["latency"]["in_process"][c]["p50_ms"] / ref["latency"]["in_process"][c]["p50_ms"]
        for c in classes
    }
    worst_c = max(ratios, key=lambda c: ratios[c])
    out.append(
        f"  {_ok(ratios[worst_c] <= GOAL_QUERY_RATIO)} query latency vs ref: worst class "
        f"{worst_c} {ratios[worst_c]:.1f}× (goal ≤ 3×; "
        + ", ".join(f"{c} {r:.1f}×" for c, r in ratios.items())
        + ")"
    )
    if "reindex" in run:
        r = run["reindex"]
        out.append(
            f"  {_ok(r['share'] <= GOAL_REINDEX)} re-index, nothing changed: {r['seconds']:.1f} s "
            f"= {100 * r['share']:.1f} % of the first run (goal ≤ 5 %)"
        )
    g = run.get("grep_vs_rg")
    if g and "literals" in g:
        out.append(
            f"\ngrep at 100 % ({g['text_mb']:.0f} MB of raw text files) vs rg -i -l -F, end to end:"
        )
        out.append(
            bl.table(
                ["literal", "docql ms", "rg ms", "rg ÷ docql", "files docql", "files rg", "same"],
                [
                    [
                        x["literal"],
                        x["docql_p50_ms"],
                        x["rg_p50_ms"],
                        f"{x['rg_over_docql']:.2f}×",
                        x["docql_files"],
                        x["rg_files"],
                        "yes" if x["identical"] else "NO",
                    ]
                    for x in g["literals"]
                ],
            )
        )
        u = g["universe"]
        out.append(
            f"  files rg searches {u['rg_files']:,}, docql raw-text documents "
            f"{u['docql_raw_text_documents']:,} (only rg {u['n_only_rg']}, only docql "
            f"{u['n_only_docql']})"
        )
    return "\n".join(out)


def _ok(ok: bool) -> str:
    return "met " if ok else "MISS"


def plot(run: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = [p for p in run["points"] if p["label"] != "ref"]
    mb = [p["bytes"] / 1e6 for p in points]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.2), dpi=80)
    axes[0].plot(mb, [p["seconds"] for p in points], "o-")
    axes[0].set(title="ingest time", xlabel="corpus MB", ylabel="seconds")
    axes[1].plot(mb, [p["db_bytes"] / 1e6 for p in points], "o-", label="db")
    axes[1].plot(mb, mb, ":", color="grey", label="corpus")
    axes[1].set(title="database size", xlabel="corpus MB", ylabel="MB")
    axes[1].legend(fontsize=8)
    for c in points[0]["latency"]["in_process"]:
        axes[2].plot(mb, [p["latency"]["in_process"][c]["p50_ms"] for p in points], "o-", label=c)
    axes[2].set(title="query p50 (in-process)", xlabel="corpus MB", ylabel="ms", yscale="log")
    axes[2].legend(fontsize=7)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def requery(
    full_db: Path,
    ref_units: list[tuple[Path, int]],
    work: Path,
    runs: int,
    keep_ref: Path | None = None,
) -> str:
    """Query latency of a kept 100 % index against a 10 MB reference, in CPU time too.

    The reference is indexed afresh, or kept at `keep_ref` and reused while it exists (it
    is opened writable first, so it gets the same migrations as the kept 100 % index). The
    two are measured in alternation (ref, full, ref, full), so a change in the machine's
    load hits both; CPU time (time.process_time) is what the comparison rests on. Per
    query, the CPU p50 of both and their ratio follow the per-class table."""
    ref_db = keep_ref or work / "requery-ref.db"
    if keep_ref is None or not keep_ref.exists():
        bl.remove_db(ref_db)
        index_point([p for p, _ in ref_units], ref_db, work)
    import docql_sqlite.store.sqlite.db

    for db in (ref_db, full_db):  # migrate both (a newer schema's indexes) before timing
        docql_sqlite.store.sqlite.db.connect(db).close()
    rounds: dict[str, list[dict[str, Any]]] = {"ref": [], "full": []}
    for _ in range(2):
        for label, db in (("ref", ref_db), ("full", full_db)):
            rounds[label].append(latency.in_process(db, runs, latency.has_vectors(db)))
    rows = []
    for c in rounds["ref"][0]:
        wall = {k: bl.median([r[c]["p50_ms"] for r in v]) for k, v in rounds.items()}
        cpu = {k: bl.median([r[c]["cpu_p50_ms"] for r in v]) for k, v in rounds.items()}
        rows.append(
            [c, wall["ref"], wall["full"], f"{wall['full'] / wall['ref']:.1f}×", cpu["ref"]]
            + [cpu["full"], f"{cpu['full'] / cpu['ref']:.1f}×"]
        )
    if keep_ref is None:
        bl.remove_db(ref_db)
    per_query = []
    for c in rounds["ref"][0]:
        for n, q in enumerate(rounds["ref"][0][c]["queries"]):
            cpu = {
                k: bl.median([r[c]["queries"][n]["cpu_p50_ms"] for r in v])
                for k, v in rounds.items()
            }
            got = {k: v[0][c]["queries"][n]["results"] for k, v in rounds.items()}
            per_query.append(
                [
                    c,
                    q["query"],
                    cpu["ref"],
                    cpu["full"],
                    f"{cpu['full'] / max(cpu['ref'], 1e-3):.1f}×",
                ]
                + [got["ref"], got["full"]]
            )
    return (
        bl.table(
            ["class", "10 MB wall p50 ms", "100 % wall", "ratio", "10 MB CPU p50 ms", "100 % CPU"]
            + ["CPU ratio"],
            rows,
        )
        + "\n\n"
        + bl.table(
            ["class", "query", "10 MB CPU p50 ms", "100 % CPU", "CPU ratio", "items 10 MB"]
            + ["items 100 %"],
            per_query,
        )
    )


# -- growth of heading() and grep(), before and after, in one run (--growth) ------------------
GROWTH_CLASSES = ("heading", "grep")
# Besides latency.QUERIES: a regex grep, whose required literal narrows the candidates.
GROWTH_EXTRA = {"grep": ["$.content.grep(/EADDR\\w+USE/)"]}


def growth_worker(db: Path, runs: int, classes: tuple[str, ...] = GROWTH_CLASSES) -> None:
    """Print the in-process latency of the growth classes on `db` as JSON (run in a child
    whose PYTHONPATH chooses the docql_sqlite package being measured)."""
    import docql_sqlite

    latency.CLASSES = set(classes)
    for name, extra in GROWTH_EXTRA.items():
        latency.QUERIES[name] = latency.QUERIES[name] + extra
    out = latency.in_process(db, runs, False)
    out["package"] = docql_sqlite.__file__
    print(json.dumps(out))


def growth(
    specs: list[str], runs: int, rounds: int = 2, classes: tuple[str, ...] = GROWTH_CLASSES
) -> str:
    """CPU p50 of heading() and grep() on a small and a large index, for each SPEC
    `LABEL=CODE_DIR:SMALL_DB:LARGE_DB` (CODE_DIR: a source tree of docql_sqlite, e.g. a
    `git archive` of the commit before; empty for this one), in alternation (every spec's
    small and large index once per round), so a change of the machine's load hits all.
    Per query: the CPU p50 (median over the rounds) small, large and their ratio."""
    parsed = []
    for spec in specs:
        label, _, rest = spec.partition("=")
        code, small, large = rest.split(":")
        parsed.append((label, code, Path(small), Path(large)))
    samples: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for _ in range(rounds):
        for label, code, small, large in parsed:
            for size, db in (("small", small), ("large", large)):
                env = dict(os.environ, DOCQL_GROWTH_CODE=code)
                cmd = [sys.executable, __file__, "--growth-worker", str(db), "--runs", str(runs)]
                cmd += ["--growth-classes", ",".join(classes)]
                done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()[-800:]}")
                samples.setdefault((label, size), []).append(json.loads(done.stdout))
    rows = []
    for label, _, small, large in parsed:
        first = samples[(label, "small")][0]
        for cls in classes:
            for n, q in enumerate(first[cls]["queries"]):
                cpu = {
                    size: bl.median(
                        [r[cls]["queries"][n]["cpu_p50_ms"] for r in samples[(label, size)]]
                    )
                    for size in ("small", "large")
                }
                items = {
                    size: samples[(label, size)][0][cls]["queries"][n]["results"] for size in cpu
                }
                rows.append(
                    [label, q["query"], cpu["small"], cpu["large"]]
                    + [
                        f"{cpu['large'] / max(cpu['small'], 1e-3):.1f}×",
                        items["small"],
                        items["large"],
                    ]
                )
            cpu = {
                size: bl.median([r[cls]["cpu_p50_ms"] for r in samples[(label, size)]])
                for size in ("small", "large")
            }
            rows.append(
                [label, f"**{cls}** (class p50)", cpu["small"], cpu["large"]]
                + [f"{cpu['large'] / max(cpu['small'], 1e-3):.1f}×", "", ""]
            )
    return bl.table(
        ["code", "query", "small CPU p50 ms", "large CPU p50 ms", "ratio", "items small"]
        + ["items large"],
        rows,
    )


# -- main ---------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--points", default="10,25,50,75,100", help="percentages of the bytes")
    parser.add_argument("--runs", type=int, default=5, help="in-process runs per query")
    parser.add_argument("--cli-runs", type=int, default=3, help="CLI runs per query")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument(
        "--cold",
        action="store_true",
        help="build every point in a fresh database (default: one database grown in stages)",
    )
    parser.add_argument("--plot", type=Path, default=None, help="write the growth plot (PNG)")
    parser.add_argument("--smoke", action="store_true", help="tiny tree from datasets/")
    parser.add_argument("--work", type=Path, default=None, help="where the databases go")
    parser.add_argument("--json", dest="json_out", type=Path)
    parser.add_argument(
        "--keep", type=Path, default=None, help="keep the 100 %% index there (for --requery)"
    )
    parser.add_argument(
        "--requery",
        type=Path,
        metavar="FULL_DB",
        help="only compare query latency of a kept 100 %% index with a fresh 10 MB one",
    )
    parser.add_argument(
        "--keep-ref",
        type=Path,
        default=None,
        metavar="REF_DB",
        help="with --requery: keep the 10 MB reference index there, and reuse it if it exists",
    )
    parser.add_argument(
        "--growth",
        action="append",
        metavar="LABEL=CODE_DIR:SMALL_DB:LARGE_DB",
        help="only compare heading() and grep() CPU p50 on a small and a large index, per "
        "code tree (repeatable; CODE_DIR empty: this tree), before/after in one run",
    )
    parser.add_argument(
        "--growth-classes",
        default=",".join(GROWTH_CLASSES),
        help="with --growth: the query classes to compare (benchmarks/latency.py's names, "
        "e.g. structural,chapter; default: heading,grep)",
    )
    parser.add_argument(
        "--growth-rounds", type=int, default=2, help="with --growth: rounds of alternation"
    )
    parser.add_argument("--growth-worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.growth_worker:
        os.environ.setdefault("DOCQL_QUERY_TIMEOUT", "0")
        growth_worker(args.growth_worker, args.runs, tuple(args.growth_classes.split(",")))
        return
    if args.growth:
        os.environ.setdefault("DOCQL_QUERY_TIMEOUT", "0")
        classes = tuple(args.growth_classes.split(","))
        text = growth(args.growth, args.runs, args.growth_rounds, classes)
        print(text)
        bl.write_json(args.json_out, {"machine": bl.machine(), "growth": text})
        return

    # The 5 s query limit is wall-clock: on a shared, loaded machine a search that needs
    # 0.3 s of CPU can wait past it, and one timed-out call would end an hour's run.
    os.environ.setdefault("DOCQL_QUERY_TIMEOUT", "0")
    meta = bl.machine()
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="docql-scale-", dir=args.work) as tmp:
        work = Path(tmp)
        if args.smoke:
            roots = [bl.smoke_tree(work / "smoke")]
            ref_bytes, limit = 20e3, 10e3
            args.runs, args.cli_runs, args.points = 1, 0, "100"
        else:
            info = bl.manifest()
            roots = bl.corpus_roots(info, *CORPORA)
            ref_bytes, limit = REF_BYTES, 0.004
        files = bl.indexable_files(roots)
        total = sum(f.size for f in files)
        all_units = units(files, roots, limit if args.smoke else limit * total)
        random.Random(args.seed).shuffle(all_units)
        run: dict[str, Any] = {
            "machine": meta,
            "files": len(files),
            "bytes": total,
            "formats": dict(Counter(f.format or "?" for f in files).most_common()),
            "units": len(all_units),
            "points": [],
        }
        print(f"corpus: {len(files):,} files, {total / 1e6:.1f} MB, {len(all_units)} units")
        if args.requery:
            text = requery(
                args.requery, prefix(all_units, ref_bytes), work, args.runs, args.keep_ref
            )
            print(text)
            bl.write_json(args.json_out, {"machine": meta, "requery": text})
            return
        targets = [("ref", ref_bytes)] + [
            (f"{pc}%", total * pc / 100) for pc in (int(x) for x in args.points.split(","))
        ]
        db = work / "scale.db"
        bl.remove_db(db)
        previous: dict[str, Any] | None = None
        done: list[tuple[Path, int]] = []
        for label, target in targets:
            chosen = all_units if target >= total else prefix(all_units, target)
            if args.cold or label == "ref":
                # the 10 MB reference is always an index of its own
                here = work / f"scale-{label}.db" if label == "ref" or args.cold else db
                bl.remove_db(here)
                point = measure_point(
                    label, chosen, chosen, here, work, args.runs, args.cli_runs, None
                )
                if here != db:
                    bl.remove_db(here)
            else:
                new = chosen[len(done) :]
                point = measure_point(
                    label, chosen, new, db, work, args.runs, args.cli_runs, previous
                )
                previous, done = point, chosen
            run["points"].append(point)
        if args.cold:
            # the last point was removed: build the full index once more for the re-index
            index_point([p for p, _ in all_units], db, work)
        full = run["points"][-1]
        again = index_point([p for p, _ in all_units], db, work)
        run["reindex"] = {
            "seconds": again["seconds"],
            "cpu_s": again["cpu_s"],
            "share": again["seconds"] / full["seconds"],
            "cpu_share": again["cpu_s"] / full["cpu_s"],
            "loadavg": again["loadavg"],
            "summary": again["summary"],
        }
        text_files = [f for f in files if f.format in latency.RAW_TEXT_FORMATS]
        grep = latency.grep_vs_rg(
            db,
            roots,
            bl.find_rg(bl.manifest(fetch=False)),
            max(1, args.cli_runs),
            work,
            ["Lumen", "xyzzy"] if args.smoke else latency.GREP_LITERALS,
        )
        grep["text_mb"] = sum(f.size for f in text_files) / 1e6
        run["grep_vs_rg"] = grep
        if args.keep:
            bl.remove_db(args.keep)
            for suffix in ("", "-wal", "-shm"):
                if Path(f"{db}{suffix}").exists():
                    os.replace(f"{db}{suffix}", f"{args.keep}{suffix}")
        bl.remove_db(db)
    text = report(run)
    run["report"] = text
    print("\n" + text)
    bl.write_json(args.json_out, run)  # before the plot: a missing matplotlib must not lose it
    if args.plot:
        plot(run, args.plot)
        print(f"plot: {args.plot} ({args.plot.stat().st_size / 1e3:.0f} KB)")


if __name__ == "__main__":
    main()
