"""Search latency on a ~10 MB corpus with vectors: in-process per mode, and the CLI end to end.

    python benchmarks/search_latency.py                       # use-multilingual vectors
    python benchmarks/search_latency.py --model hash --n 100  # quick
    python benchmarks/search_latency.py --qmd /path/to/qmd    # also time `qmd search`

Corpora (indexed and embedded once into $DOCQL_CORPORA/latency/NAME.db):
- `docs` (default): corpora.md A6, Node.js API + Docker + Rust books Markdown, 10.8 MB
  (fetch with corpora.md §7's script into $DOCQL_CORPORA);
- `code`: the CPython standard library "core" with docstrings, ~10 MB of Python, whose
  code chunks are small (one per definition), so it has 4x more vectors to scan.
Queries: half section titles, half 5-15-word spans of passages, fixed seed. In-process times
include embedding the
query (hybrid, vector, smart) but not loading the model (reported apart). The CLI is
timed as a user sees it: a new `docql-sqlite search` process per query.

Goals (the issue): bm25 p50 <= 10 ms, hybrid p50 <= 40 ms, CLI <= 150 ms per call.

Full mode (the published table): `python benchmarks/search_latency.py` (and `--corpus
code`). `--smoke` indexes a tiny tree copied from datasets/ into a temporary folder with
the hash embedder (no model files, no corpus cache), 6 queries in process and 2 per CLI
mode; its timings mean nothing. `--json OUT` writes the rows to OUT (`--json` alone:
stdout); each row counts the calls that failed (`errors`) or found nothing (`empty`), and
the in-process rows the searches that gave fewer than the 10 asked (`short`: every
corpus holds more than 10 passages; vector mode gave short lists while the chunks of
links alone had vectors, docs/search.md "Clean content at ingest").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import retrieval  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "docql-sqlite"


DOCS = (
    "nodejs-doc/usr/share/doc/nodejs/api",
    "docker-doc/usr/share/doc/docker-doc",
    "rust-src/usr/src/rustc-1.63.0/src/doc",
)


def docs_corpus() -> tuple[Path, list[str]]:
    """corpora.md A6: Node.js API + Docker + Rust books Markdown (10.8 MB),
    fetched by §7's script."""
    base = retrieval.CACHE / "x"
    missing = [d for d in DOCS if not (base / d).is_dir()]
    if missing:
        sys.exit(
            f"missing {missing} under {base}: run the fetch script of notes/corpora.md §7 with "
            f"D={retrieval.CACHE}"
        )
    return base, list(DOCS)


def code_corpus() -> tuple[Path, list[str]]:
    """The stdlib core with docstrings (the retrieval code set's files), copied under the cache."""
    code = retrieval.code(sample=10_000)
    stdlib = Path(retrieval.sysconfig.get_paths()["stdlib"])
    root = retrieval.CACHE / "latency" / "stdlib"
    for stripped in code.root.rglob("*.py"):
        target = root / stripped.relative_to(code.root)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(stdlib / stripped.relative_to(code.root), target)
    return root.parent, ["stdlib"]


def smoke_corpus(tmp: Path) -> tuple[Path, list[str]]:
    """A tiny tree copied from datasets/ (English and Chinese Markdown, code)."""
    import benchlib

    base = benchlib.smoke_tree(tmp / "smoke")
    return base, sorted(p.name for p in base.iterdir())


def build(
    base: Path, roots: list[str], name: str, model: str | None, db_dir: Path | None = None
) -> Path:
    from docql_sqlite import embed
    from docql_sqlite.ingest import IngestOptions, index_paths

    db_path = (db_dir or retrieval.CACHE / "latency") / f"{name}.db"
    db_path.parent.mkdir(parents=True, exist_ok=True)
    old = os.getcwd()
    os.chdir(base)
    try:
        index_paths(db_path, roots, IngestOptions(include=("*.md", "*.py")))
    finally:
        os.chdir(old)
    if model:
        started = time.monotonic()
        report = embed(db_path, model, replace=True)
        if report["embedded"]:
            print(
                f"embedded {report['embedded']} texts in {time.monotonic() - started:.0f}s",
                file=sys.stderr,
            )
    return db_path


def queries(db_path: Path, n: int) -> list[str]:
    """Half section titles, half opening sentences of passages (5-15 words), fixed seed."""
    import docql_sqlite

    rng = retrieval.random.Random(1)
    with docql_sqlite.open(db_path) as idx:
        titles = [
            r[0]
            for r in idx.conn.execute(
                "SELECT title FROM sections WHERE length(title) BETWEEN 6 AND 60 ORDER BY id"
            )
        ]
        sentences = []
        for (content,) in idx.conn.execute(
            "SELECT content FROM chunks WHERE length(content) > 200 ORDER BY id"
        ):
            words = retrieval.re.sub(r"[#*`>|_\[\]()]", " ", content).split()
            if len(words) >= 15:
                start = len(words) // 3
                sentences.append(" ".join(words[start : start + 5 + len(words) % 11]))
    half = n // 2
    return rng.sample(titles, min(half, len(titles))) + rng.sample(
        sentences, min(n - half, len(sentences))
    )


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return round(1000 * values[min(len(values) - 1, int(p * len(values)))], 1)


def in_process(db_path: Path, queries: list[str], modes: list[str]) -> list[dict]:
    import docql_sqlite
    from docql_sqlite.search import vectors

    rows = []
    with docql_sqlite.open(db_path) as idx:
        if vectors.has_embeddings(idx.conn):
            started = time.perf_counter()
            idx.search("warm up the model", mode="vector", limit=1)
            rows.append(
                {
                    "what": "model load + first query",
                    "p50 ms": round(1000 * (time.perf_counter() - started), 1),
                }
            )
        for mode in modes:
            times, empty, short = [], 0, 0
            for q in queries:
                started = time.perf_counter()
                hits = idx.search(q, mode=mode, limit=10)
                times.append(time.perf_counter() - started)
                empty += not hits
                short += len(hits) < 10
            rows.append(
                {
                    "what": f"in-process {mode}",
                    "p50 ms": pct(times, 0.5),
                    "p95 ms": pct(times, 0.95),
                    "queries": len(times),
                    "empty": empty,
                    "short": short,
                }
            )
    return rows


def end_to_end(command: list[str], queries: list[str], label: str, env: dict | None = None) -> dict:
    times, errors, empty = [], 0, 0
    for q in queries:
        started = time.perf_counter()
        done = subprocess.run([*command, q], capture_output=True, check=False, env=env)
        times.append(time.perf_counter() - started)
        # a failing call is fast: timing it as an answer would flatter the figure
        errors += done.returncode != 0
        try:
            empty += not json.loads(done.stdout or b"[]")
        except json.JSONDecodeError:
            errors += done.returncode == 0
    return {
        "what": label,
        "p50 ms": pct(times, 0.5),
        "p95 ms": pct(times, 0.95),
        "queries": len(times),
        "errors": errors,
        "empty": empty,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", choices=("docs", "code"), default="docs")
    parser.add_argument("--model", default="use-multilingual", help="embedding model ('' for none)")
    parser.add_argument("--n", type=int, default=200, help="queries per in-process mode")
    parser.add_argument("--cli-n", type=int, default=30, help="queries per CLI run")
    parser.add_argument("--qmd", default=None, help="path of the qmd executable (optional)")
    parser.add_argument(
        "--json", nargs="?", const="-", metavar="OUT", help="JSON rows (to OUT, else stdout)"
    )
    parser.add_argument("--smoke", action="store_true", help="datasets/, hash model, seconds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docql-search-latency-") as tmp:
        if args.smoke:
            args.model, args.n, args.cli_n, args.qmd = "hash", 6, 2, None
            args.corpus = "smoke"
            base, roots = smoke_corpus(Path(tmp))
            db_path = build(base, roots, "smoke", args.model, Path(tmp))
        else:
            base, roots = docs_corpus() if args.corpus == "docs" else code_corpus()
            db_path = build(base, roots, args.corpus, args.model or None)
        run(args, base, roots, db_path)


def run(args: argparse.Namespace, base: Path, roots: list[str], db_path: Path) -> None:
    texts = queries(db_path, args.n)
    modes = ["bm25", "smart"] + (["vector", "hybrid"] if args.model else [])
    import docql_sqlite

    with docql_sqlite.open(db_path) as idx:
        counts = idx.conn.execute(
            "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), "
            "(SELECT sum(size) FROM documents)"
        ).fetchone()
    rows = [
        {
            "what": f"corpus {args.corpus}",
            "MB": round(counts[2] / 1e6, 1),
            "documents": counts[0],
            "chunks": counts[1],
        }
    ]
    rows += in_process(db_path, texts, modes)
    cli_queries = texts[:: max(1, len(texts) // args.cli_n)][: args.cli_n]
    for mode in ("bm25", "smart") + (("hybrid",) if args.model else ()):
        rows.append(
            end_to_end(
                [str(CLI), "search", str(db_path), "--json", "--mode", mode],
                cli_queries,
                f"CLI end to end {mode}",
            )
        )
    if args.qmd and shutil.which(args.qmd):
        home = retrieval.CACHE / "latency" / f"qmdhome-{args.corpus}"
        env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
        if not (home / ".cache" / "qmd").exists():
            for r in roots:
                subprocess.run(
                    [
                        args.qmd,
                        "collection",
                        "add",
                        str(base / r),
                        "--name",
                        r.split("/")[0],
                        "--mask",
                        "**/*.md" if args.corpus == "docs" else "**/*.py",
                    ],
                    env=env,
                    check=True,
                    capture_output=True,
                )
        rows.append(
            end_to_end(
                [args.qmd, "search", "--json", "-n", "10"],
                cli_queries,
                "qmd search end to end",
                env,
            )
        )
    if args.json and args.json != "-":
        Path(args.json).write_text(json.dumps(rows, indent=2))
    elif args.json:
        print(json.dumps(rows, indent=2))
        return
    if args.smoke:
        print("(--smoke: a harness check on a tiny tree; its timings mean nothing)")
    for row in rows:
        print("  ".join(f"{k}: {v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
