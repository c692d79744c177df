"""Embedding throughput: passages per second for each embedder, on ~500-char passages.

    python benchmarks/embed_throughput.py                      # hash and use-multilingual
    python benchmarks/embed_throughput.py --models hash --n 2000 --json
    python benchmarks/embed_throughput.py --smoke --json OUT  # hash, 24 passages, 1 run
    python benchmarks/embed_throughput.py --models e5-small@c,e5-small@numpy --repeat 1

Full mode (the published table): `python benchmarks/embed_throughput.py` (needs the
use-multilingual model files). `--smoke` runs the hash embedder only, on 24 passages,
once, with no model files; its rates mean nothing.

Passages are built from English and/or Chinese sentences (`--lang`; Chinese costs the
ONNX model about twice as much per character) with a fixed seed, so runs are
comparable; every passage is distinct (the embedders de-duplicate identical texts, which
would flatter them). Model loading is timed apart from embedding, and a small warm-up
batch runs first. A model that cannot load here (missing extra) is reported, not fatal.
NAME@ENGINE picks e5-small's engine (c, numpy, auto). CPU-s per passage is this
process's CPU time (every thread) over the best run's passages: on shared cores it is
the steadier figure, since wall time depends on the others' load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout without installing

from docql_sqlite.embedders import get_model  # noqa: E402
from docql_sqlite.errors import EmbeddingError  # noqa: E402

SENTENCES = [
    "The index keeps every document and its chunks in one SQLite file.",
    "Full-text search uses FTS5 with the unicode61 tokenizer and BM25 ranking.",
    "Vectors are stored in a vec0 virtual table and compared by cosine distance.",
    "Hybrid search fuses the keyword ranking and the vector ranking with reciprocal rank fusion.",
    "Each heading becomes a section with a level, a title and a line range.",
    "The parser runs in worker processes while a single writer commits batches.",
    "Queries compile to plain SQL, so any SQLite shell can run them.",
    "A fingerprint of the embedding model is stored next to the vectors.",
    "Code files are parsed with tree-sitter into functions, classes and methods.",
    "The command line prints JSON when its output is piped to another program.",
    "Errors point at the exact column of the query where parsing failed.",
    "PDF pages are extracted page by page and their outline becomes the table of contents.",
    "索引把所有文档和分块保存在一个 SQLite 文件里。",
    "全文检索使用 FTS5 和 BM25 排序。",
    "向量存放在 vec0 虚拟表中，按余弦距离比较。",
    "混合搜索用倒数排名融合合并关键词结果和向量结果。",
    "每个标题都会成为一个章节，带有层级、标题和行号范围。",
    "查询被编译成普通的 SQL，任何 SQLite 命令行都能运行。",
]


def make_passages(count: int, chars: int, seed: int = 7, lang: str = "mix") -> list[str]:
    """`count` distinct passages of about `chars` characters each, from the `lang` sentences."""
    rng = random.Random(seed)
    pool = [s for s in SENTENCES if lang == "mix" or s.isascii() == (lang == "en")]
    passages = []
    for number in range(count):
        parts = [f"Passage {number}."]
        while sum(len(p) + 1 for p in parts) < chars:
            parts.append(rng.choice(pool))
        passages.append(" ".join(parts)[:chars])
    return passages


def measure(name: str, passages: list[str], repeat: int = 3) -> dict[str, object]:
    """Best and median passages/s over `repeat` runs, each with a fresh model.

    A fresh model per run keeps caches (the hash embedder's token cache) cold; best-of-N
    is the figure least disturbed by other work on shared cores, the median the typical.
    """
    row: dict[str, object] = {
        "model": name,
        "passages": len(passages),
        "distinct": len(set(passages)),  # the embedders de-duplicate: duplicates would flatter
        "avg_chars": round(sum(map(len, passages)) / len(passages)),
    }
    rates, cpus = [], []
    base, _, engine = name.partition("@")
    options = {"engine": engine} if engine else {}
    # Enough distinct texts for a bulk batch: e5-small's numpy engine loads on one.
    warm_up = [f"warm-up passage {i}" for i in range(31)] + ["预热段落"]
    try:
        for _ in range(repeat):
            started = time.perf_counter()
            model = get_model(base, **options)
            model.embed(warm_up)  # loads lazily-loaded models
            row.setdefault("load_s", round(time.perf_counter() - started, 2))
            started, cpu = time.perf_counter(), time.process_time()
            vectors = model.embed(passages)
            rates.append(len(passages) / (time.perf_counter() - started))
            cpus.append((time.process_time() - cpu) / len(passages))
    except EmbeddingError as err:
        row["error"] = err.message
        return row
    row.update(
        dim=vectors.shape[1],
        best_per_s=round(max(rates), 1),
        median_per_s=round(statistics.median(rates), 1),
        cpu_s_per_passage=round(min(cpus), 4),
    )
    return row


def print_table(rows: list[dict[str, object]]) -> None:
    header = (
        f"{'model':<18} {'passages':>8} {'chars':>6} {'dim':>4} "
        f"{'load s':>7} {'best/s':>8} {'median/s':>9} {'CPU-s/p':>8}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        if "error" in row:
            print(f"{row['model']:<18} skipped: {row['error']}")
            continue
        print(
            f"{row['model']:<18} {row['passages']:>8} {row['avg_chars']:>6} {row['dim']:>4} "
            f"{row['load_s']:>7} {row['best_per_s']:>8} {row['median_per_s']:>9} "
            f"{row['cpu_s_per_passage']:>8}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--models", default="hash,use-multilingual", help="comma-separated model names"
    )
    parser.add_argument("--n", type=int, default=300, help="passages per model")
    parser.add_argument("--chars", type=int, default=500, help="characters per passage")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per model (best and median reported)"
    )
    parser.add_argument(
        "--lang", choices=("mix", "en", "zh"), default="mix", help="sentence pool of the passages"
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="OUT",
        help="JSON lines instead of a table (to OUT if given, else stdout)",
    )
    parser.add_argument("--smoke", action="store_true", help="hash only, 24 passages, 1 run")
    args = parser.parse_args(argv)
    if args.smoke:
        args.models, args.n, args.repeat = "hash", 24, 1
    passages = make_passages(args.n, args.chars, lang=args.lang)
    load = os.getloadavg()[0]
    rows = [
        measure(name.strip(), passages, args.repeat)
        for name in args.models.split(",")
        if name.strip()
    ]
    if args.json:
        lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        if args.json == "-":
            print(lines, end="")
        else:
            Path(args.json).write_text(lines, encoding="utf-8")
    if args.smoke:
        print("(--smoke: a harness check on 24 passages; its rates mean nothing)")
    elif args.json != "-":
        print_table(rows)
        print(
            f"(load average before the run: {load:.2f}; other work on the cores lowers the median)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
