"""A one-off `docql-sqlite search` end to end, code versions side by side, beside `qmd search`.

    python benchmarks/search_startup.py --smoke              # datasets/, this tree, seconds
    python benchmarks/search_startup.py --tree before=/work/wt/qbase --tree after=. \\
        --db s.db --vec-db s-e5.db --runs 15 --cachegrind --qmd-md datasets/en/handbook

What issues 19 and 24 measure: a new process per search, start-up included (the Python
interpreter, imports, opening the index, the model for the query vector, printing), for
- `search --mode bm25` and the default `search` on an index without vectors (`--db`);
- the default `search` on an index with vectors (`--vec-db`; e5-small: one query vector);
- `qmd search -n 10 --json` on QMD's own index of the same Markdown (`--qmd-md`), the
  peer issue 24 compares with.
Each `--tree NAME=DIR` is a checkout with its own `.venv` (editable install): the runs
alternate between trees query by query, so both see the same machine load. Reported per
case and tree: wall and CPU p50 over every run (CPU = user + system of the process and its
children, steadier than wall on a shared machine), and with `--cachegrind` the
instructions of the whole process (valgrind's cachegrind `I refs`, one run per query:
load-independent). The machine's load average is printed with the results: read wall
times with it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib as bl  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QUERIES = [
    "how do I report a security problem",
    "configure the database connection",
    "install on linux",
    "what does the api return on error",
    "glossary of terms",
]


def cli(tree: Path) -> list[str]:
    venv = tree / ".venv" / "bin"
    return [str(venv / "python"), str(venv / "docql-sqlite")]


def instructions(cmd: list[str], env: dict[str, str] | None = None) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        + cmd,
        capture_output=True,
        text=True,
        env=env,
    )
    for line in done.stderr.splitlines():
        if "I" in line and "refs:" in line:
            return int(line.rsplit(":", 1)[1].strip().replace(",", ""))
    raise SystemExit(f"no cachegrind total in:\n{done.stderr[-2000:]}")


def qmd_home(roots: list[Path], home: Path) -> tuple[list[str], dict[str, str]] | None:
    """QMD's command and environment with its index of `roots` (built once into `home`)."""
    peer = bl.find_qmd(bl.manifest(fetch=False))
    if peer.command is None:
        print(f"qmd: {peer.reason}", file=sys.stderr)
        return None
    env = bl.qmd_env(peer, home)
    marker = home / ".built"
    if not marker.exists():
        for n, root in enumerate(roots):
            done = subprocess.run(
                peer.command + ["collection", "add", str(root.resolve()), "--name", f"md{n}"],
                capture_output=True,
                text=True,
                env=env,
            )
            if done.returncode != 0:
                raise SystemExit(f"qmd collection add failed: {done.stderr[-500:]}")
        marker.write_text("ok")
    return peer.command, env


def run(args: argparse.Namespace) -> dict[str, object]:
    trees = {name: Path(path).resolve() for name, path in args.tree}
    cases: list[tuple[str, list[str]]] = []
    if args.db:
        cases += [
            ("search --mode bm25", [args.db, "--mode", "bm25"]),
            ("search, no vectors", [args.db]),
        ]
    if args.vec_db:
        cases.append(("search, vectors", [args.vec_db]))
    qmd = qmd_home([Path(p) for p in args.qmd_md], Path(args.qmd_home)) if args.qmd_md else None
    results: dict[str, dict[str, object]] = {}
    for label, case in cases:
        for name in trees:
            results[f"{label} | {name}"] = {"wall": [], "cpu": [], "instructions": [], "empty": 0}
    if qmd:
        results["qmd search | qmd"] = {"wall": [], "cpu": [], "instructions": [], "empty": 0}
    for text in args.queries:
        for _ in range(args.runs):
            for label, case in cases:
                for name, tree in trees.items():
                    cmd = cli(tree) + ["search", case[0], text, "--json", *case[1:]]
                    wall, cpu, done = bl.time_process_cpu(cmd)
                    if done.returncode != 0:
                        raise SystemExit(f"{cmd} failed: {done.stderr[-800:]}")
                    row = results[f"{label} | {name}"]
                    row["wall"].append(wall)  # type: ignore[attr-defined]
                    row["cpu"].append(cpu)  # type: ignore[attr-defined]
                    # A search that found nothing timed less work: count those.
                    row["empty"] += not json.loads(done.stdout)  # type: ignore[operator]
            if qmd:
                wall, cpu, done = bl.time_process_cpu(
                    qmd[0] + ["search", text, "-n", "10", "--json"], env=qmd[1]
                )
                results["qmd search | qmd"]["empty"] += not json.loads(done.stdout or "[]")  # type: ignore[operator]
                results["qmd search | qmd"]["wall"].append(wall)  # type: ignore[attr-defined]
                results["qmd search | qmd"]["cpu"].append(cpu)  # type: ignore[attr-defined]
        if args.cachegrind:
            for label, case in cases:
                for name, tree in trees.items():
                    cmd = cli(tree) + ["search", case[0], text, "--json", *case[1:]]
                    row = results[f"{label} | {name}"]
                    row["instructions"].append(instructions(cmd))  # type: ignore[attr-defined]
    summary: dict[str, object] = {"load_average": os.getloadavg(), "runs": args.runs}
    for key, row in results.items():
        summary[key] = {
            "wall_p50_ms": round(statistics.median(row["wall"]), 1),  # type: ignore[arg-type]
            "cpu_p50_ms": round(statistics.median(row["cpu"]), 1),  # type: ignore[arg-type]
            "processes": len(row["wall"]),  # type: ignore[arg-type]
            "empty": row["empty"],
            "instructions_p50_M": round(statistics.median(row["instructions"]) / 1e6, 1)  # type: ignore[arg-type]
            if row["instructions"]
            else None,
        }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        type=lambda s: tuple(s.split("=", 1)),
        metavar="NAME=DIR",
        help="a checkout with its own .venv (repeatable; default: this one)",
    )
    parser.add_argument("--db", help="an index without vectors (bm25 and the default mode)")
    parser.add_argument("--vec-db", help="an index with vectors (the default mode)")
    parser.add_argument("--queries", nargs="*", default=QUERIES)
    parser.add_argument("--runs", type=int, default=10, help="processes per query, case and tree")
    parser.add_argument("--cachegrind", action="store_true", help="instructions, one run each")
    parser.add_argument(
        "--qmd-md",
        action="append",
        help="Markdown folder for `qmd search`, QMD's own index (repeatable)",
    )
    parser.add_argument(
        "--qmd-home",
        default=str(Path(tempfile.gettempdir()) / "qmdhome-search-startup"),
        help="QMD's isolated HOME (its index is built there once)",
    )
    parser.add_argument("--smoke", action="store_true", help="datasets/en/handbook, 2 runs")
    parser.add_argument("--json", dest="json_out", help="write the figures to this file")
    args = parser.parse_args()
    args.tree = args.tree or [("this", str(REPO))]
    if args.smoke:
        tmp = Path(tempfile.mkdtemp(prefix="search-startup-"))
        try:
            shutil.copytree(REPO / "datasets" / "en" / "handbook", tmp / "md")
            db = tmp / "s.db"
            done = subprocess.run(
                cli(REPO) + ["index", str(db), str(tmp / "md"), "--workers", "0"],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise SystemExit(done.stderr[-800:])
            args.db, args.runs, args.queries = str(db), 2, QUERIES[:2]
            summary = run(args)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        summary = run(args)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n")


if __name__ == "__main__":
    main()
