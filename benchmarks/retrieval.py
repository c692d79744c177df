"""Retrieval quality: nDCG@10, Recall@10 and MRR@10 of bm25, vector, hybrid and smart search.

    # both sets, all modes, use-multilingual
    python benchmarks/retrieval.py
    python benchmarks/retrieval.py --sets lee --model hash      # quick, lexical test model
    PATH=$NODE22/bin:$PATH python benchmarks/retrieval.py --qmd $QMD/node_modules/.bin/qmd
                                                                # also QMD's `qmd search` (node 22,
                                                                # corpora.md E3)

Judged sets, built from data obtainable here (notes/corpora.md D1, D3), cached outside
the repository in $DOCQL_CORPORA (default ~/.cache/docql-corpora):

- `lee`: gensim's Lee corpus (50 news documents, human similarity 0-1 for every pair),
  extracted from the gensim 4.4.0 wheel (`pip download`). Each document is a query
  against the other 49 (itself excluded); relevant = similarity >= 0.5, binary gains.
  Results are grouped per file (a document is one or two chunks).
- `code`: CPython standard library "core" (no tests, idlelib, tkinter, lib2to3,
  turtledemo, ensurepip) with every docstring removed (blanked in place, so line
  numbers stay). Query = the first sentence of a public function's docstring (>= 5
  words), 500 sampled with a fixed seed; relevant = a passage overlapping the function.
"""

from __future__ import annotations

import argparse
import ast
import glob
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

# Same rule as benchmarks/fetch_corpora.sh and benchlib.cache_dir().
CACHE = Path(
    os.environ.get("DOCQL_CORPORA")
    or ("/work/cache/corpora" if Path("/work/cache").is_dir() else "")
    or Path.home() / ".cache" / "docql-corpora"
)
GENSIM = "gensim==4.4.0"
SKIP_DIRS = {
    "test",
    "tests",
    "idlelib",
    "tkinter",
    "lib2to3",
    "turtledemo",
    "ensurepip",
    "site-packages",
    "__pycache__",
    "config-3.11-x86_64-linux-gnu",
    "pydoc_data",
}


@dataclass
class Query:
    qid: str
    text: str
    relevant: dict[str, float]  # for lee: path -> gain; for code: "path:line-end" -> 1
    exclude: str | None = None  # a path never counted (the query document itself)


@dataclass
class Dataset:
    name: str
    root: Path  # the directory to index (paths are stored relative to its parent)
    queries: list[Query] = field(default_factory=list)
    granularity: str = "file"  # file: relevance per document; span: per line range


# -- Lee -------------------------------------------------------------------------------------
def lee(cache: Path = CACHE) -> Dataset:
    ir = cache / "ir"
    ir.mkdir(parents=True, exist_ok=True)
    needed = ("lee.cor", "similarities0-1.txt")
    if not all((ir / n).exists() for n in needed):
        wheels = glob.glob(str(ir / "gensim-4.4.0-*.whl"))
        if not wheels:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "-q",
                    "--no-deps",
                    "--only-binary",
                    ":all:",
                    GENSIM,
                    "-d",
                    str(ir),
                ],
                check=True,
            )
            wheels = glob.glob(str(ir / "gensim-4.4.0-*.whl"))
        with zipfile.ZipFile(wheels[0]) as z:
            for n in needed:
                (ir / n).write_bytes(z.read("gensim/test/test_data/" + n))
    docs = (ir / "lee.cor").read_bytes().decode("latin-1").splitlines()
    docs = [d.strip() for d in docs if d.strip()]
    sims = [
        [float(x) for x in line.split()]
        for line in (ir / "similarities0-1.txt").read_text().splitlines()
        if line.strip()
    ]
    root = cache / "lee" / "lee"
    root.mkdir(parents=True, exist_ok=True)
    names = [f"doc{i:02d}.txt" for i in range(len(docs))]
    for name, text in zip(names, docs):
        target = root / name
        if not target.exists() or target.read_text(encoding="utf-8") != text + "\n":
            target.write_text(text + "\n", encoding="utf-8")
    n = len(docs)
    sim = [[0.0] * n for _ in range(n)]
    for i, row in enumerate(sims):
        for j, value in enumerate(row):  # the file is a full or upper-triangular matrix
            sim[i][j] = sim[j][i] = max(sim[i][j], value)
    data = Dataset("lee", root, granularity="file")
    for i in range(n):
        relevant = {f"lee/{names[j]}": sim[i][j] for j in range(n) if j != i and sim[i][j] >= 0.5}
        if relevant:
            data.queries.append(Query(f"lee{i:02d}", docs[i], relevant, exclude=f"lee/{names[i]}"))
    return data


# -- stdlib code search ------------------------------------------------------------------------
def _first_sentence(doc: str) -> str:
    text = " ".join(doc.strip().split("\n\n")[0].split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return (match.group(1) if match else text).strip()


def _strip_docstrings(source: str, tree: ast.AST) -> str:
    lines = source.split("\n")
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
        ):
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                start, end = first.lineno - 1, first.end_lineno - 1  # type: ignore[operator]
                indent = re.match(r"\s*", lines[start]).group(0)  # type: ignore[union-attr]
                # `pass` keeps a body that was only a docstring valid; line numbers stay.
                lines[start] = indent + "pass" + lines[end][first.end_col_offset :]
                for k in range(start + 1, end + 1):
                    lines[k] = ""
    return "\n".join(lines)


def code(cache: Path = CACHE, sample: int = 500, seed: int = 0) -> Dataset:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    root = cache / "stdlib" / "stdlib"
    root.mkdir(parents=True, exist_ok=True)
    targets = []
    for path in sorted(stdlib.rglob("*.py")):
        rel = path.relative_to(stdlib)
        if any(part in SKIP_DIRS for part in rel.parts[:-1]) or rel.parts[0] in SKIP_DIRS:
            continue
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        out = root / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        stripped = _strip_docstrings(source, tree)
        if not out.exists() or out.read_text(encoding="utf-8") != stripped:
            out.write_text(stripped, encoding="utf-8")
        for node in ast.walk(tree):
            if isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef)
            ) and not node.name.startswith("_"):
                doc = ast.get_docstring(node)
                sentence = _first_sentence(doc) if doc else ""
                if len(sentence.split()) >= 5:
                    targets.append(
                        (f"stdlib/{rel.as_posix()}", node.lineno, node.end_lineno, sentence)
                    )
    rng = random.Random(seed)
    picked = rng.sample(targets, min(sample, len(targets)))
    data = Dataset("code", root, granularity="span")
    for n, (path, line, end, sentence) in enumerate(picked):
        data.queries.append(Query(f"code{n:03d}", sentence, {f"{path}:{line}-{end}": 1.0}))
    return data


def corpus_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


# -- building and searching the index -------------------------------------------------------
sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout without installing

MODES = ("bm25", "vector", "hybrid", "smart")


def build_index(data: Dataset, model: str | None) -> Path:
    """Index `data.root` (paths relative to its parent) and embed it; reused when up to date."""
    from docql_sqlite import embed
    from docql_sqlite.ingest import IngestOptions, index_paths

    db_path = data.root.parent / f"{data.name}.db"
    old = os.getcwd()
    os.chdir(data.root.parent)
    try:
        index_paths(db_path, [data.root.name], IngestOptions())
    finally:
        os.chdir(old)
    if model:
        started = time.monotonic()
        report = embed(db_path, model, replace=True)
        if report["embedded"]:
            print(
                f"  embedded {report['embedded']} texts with {report['model']} in "
                f"{time.monotonic() - started:.1f}s",
                file=sys.stderr,
            )
    return db_path


def _overlaps(hit: dict, key: str) -> bool:
    path, _, span = key.rpartition(":")
    line, _, end = span.partition("-")
    return hit["path"] == path and hit["line"] <= int(end) and hit["end_line"] >= int(line)


def file_relevance(query: Query) -> dict[str, float]:
    """Code-set relevance per file (the target function's file), for file-level systems."""
    return {k.rpartition(":")[0]: 1.0 for k in query.relevant}


def ranked_keys(
    data: Dataset, query: Query, hits: list[dict], by_file: bool = False
) -> list[str | None]:
    """Each hit as the relevance key it stands for (None: not relevant), self excluded."""
    keys: list[str | None] = []
    for hit in hits:
        if hit["path"] == query.exclude:
            continue
        if data.granularity == "file" or by_file:
            keys.append(hit["path"])
        else:
            keys.append(next((k for k in query.relevant if _overlaps(hit, k)), None))
    return keys[:10]


def metrics(
    keys: list[str | None], relevant: dict[str, float], k: int = 10
) -> tuple[float, float, float]:
    """nDCG@k (binary gains), Recall@k, MRR@k; a key counts once, at its first rank."""
    seen: set[str] = set()
    gains = []
    for key in keys[:k]:
        hit = key is not None and key in relevant and key not in seen
        if key is not None:
            seen.add(key)
        gains.append(1.0 if hit else 0.0)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    found = sum(gains)
    first = next((i for i, g in enumerate(gains) if g), None)
    return dcg / ideal, found / len(relevant), (1.0 / (first + 1) if first is not None else 0.0)


def evaluate(data: Dataset, db_path: Path, modes: list[str], by_file: bool = False) -> list[dict]:
    """Metrics per mode; `by_file` ranks files (--group file) on the code set
    (to compare with QMD)."""
    import docql_sqlite

    rows = []
    with docql_sqlite.open(db_path) as idx:
        for mode in modes:
            scores, times = [], []
            for q in data.queries:
                started = time.perf_counter()
                if data.granularity == "file" or by_file:
                    hits = idx.search(q.text, mode=mode, limit=11, group="file")
                else:
                    hits = idx.search(q.text, mode=mode, limit=10)
                times.append(time.perf_counter() - started)
                relevant = file_relevance(q) if by_file else q.relevant
                scores.append(metrics(ranked_keys(data, q, hits, by_file), relevant))
            rows.append(_row(data.name, mode + (" (file level)" if by_file else ""), scores, times))
    return rows


def _row(
    name: str, system: str, scores: list[tuple[float, float, float]], times: list[float]
) -> dict:
    return {
        "set": name,
        "system": system,
        "queries": len(scores),
        "nDCG@10": round(statistics.mean(s[0] for s in scores), 4),
        "Recall@10": round(statistics.mean(s[1] for s in scores), 4),
        "MRR@10": round(statistics.mean(s[2] for s in scores), 4),
        "ms/query": round(1000 * statistics.median(times), 1),
    }


# -- QMD (optional peer) -----------------------------------------------------------------------
def qmd_evaluate(data: Dataset, qmd: str) -> dict | None:
    """`qmd search` (BM25, per file) on the same files. Code relevance is then per file."""
    home = data.root.parent / "qmdhome"
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    mask = "**/*.txt" if data.name == "lee" else "**/*.py"
    if not (home / ".cache" / "qmd").exists():
        subprocess.run(
            [qmd, "collection", "add", str(data.root), "--name", data.name, "--mask", mask],
            env=env,
            check=True,
            capture_output=True,
            timeout=900,
        )
    scores, times = [], []
    for q in data.queries:
        started = time.perf_counter()
        done = subprocess.run(
            [qmd, "search", q.text[:1000], "-n", "11", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        times.append(time.perf_counter() - started)
        try:
            results = json.loads(done.stdout or "[]")
        except json.JSONDecodeError:
            results = []
        prefix = f"qmd://{data.name}/"
        files = [
            data.root.name + "/" + str(r.get("file", "")).removeprefix(prefix) for r in results
        ]
        files = [f for f in files if f != q.exclude][:10]
        relevant = q.relevant if data.granularity == "file" else file_relevance(q)
        scores.append(metrics(files, relevant))
    return _row(data.name, "qmd search (file level)", scores, times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", default="lee,code")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--model", default="use-multilingual", help="embedding model ('' for none)")
    parser.add_argument("--sample", type=int, default=500, help="code-search queries")
    parser.add_argument("--qmd", default=None, help="path of the qmd executable (optional)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for name in args.sets.split(","):
        data = lee() if name == "lee" else code(sample=args.sample)
        print(
            f"{name}: {len(data.queries)} queries over {corpus_bytes(data.root) / 1e6:.1f} MB",
            file=sys.stderr,
        )
        db_path = build_index(data, args.model or None)
        modes = [m for m in args.modes.split(",") if args.model or m in ("bm25", "smart")]
        rows += evaluate(data, db_path, modes)
        if args.qmd and shutil.which(args.qmd):
            if data.granularity == "span":  # QMD ranks files: compare at that level too
                rows += evaluate(data, db_path, modes, by_file=True)
            rows.append(qmd_evaluate(data, args.qmd))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{'set':<6} {'system':<26} {'queries':>7} {'nDCG@10':>8} {'Recall@10':>9} {'MRR@10':>7} "
        f"{'ms/query':>8}"
    )
    for r in rows:
        print(
            f"{r['set']:<6} {r['system']:<26} {r['queries']:>7} {r['nDCG@10']:>8.4f} "
            f"{r['Recall@10']:>9.4f} "
            f"{r['MRR@10']:>7.4f} {r['ms/query']:>8}"
        )


if __name__ == "__main__":
    main()
