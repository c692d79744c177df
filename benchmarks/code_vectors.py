"""What a code chunk's vector should be computed from: dense retrieval on code pools.

    python benchmarks/code_vectors.py --models use-multilingual --split tune
    python benchmarks/code_vectors.py --models e5-small --policies raw,v1 --split confirm
    python benchmarks/code_vectors.py --smoke                   # hash model, small pool

The known-item code sets of benchmarks/retrieval.py, indexed without vectors:

- `go`: the first sentence of an exported Go func's or type's doc comment, its name
  masked → the item (its doc comment and declaration lines), Go 1.19's src/. The doc
  comment stays in the source (the user has it), so a vector text that carries it may
  match the sentence nearly word for word: this set says how well a policy lets a model
  find a declaration by what its documentation says.
- `code`: the first sentence of a public CPython stdlib function's docstring → the
  function, every docstring blanked in the files: only names, signatures and bodies
  carry meaning (what a vector text makes of undocumented code).

A pool per set: every chunk overlapping an answer (the items of the queries) and
`--distractors` chunks of the same index sampled with a fixed seed. Each policy
(`ingest/vector_text.py`'s `Shape`) gives every pool chunk a vector text; each query ranks
the pool by cosine. R@10 and MRR@10 by item (the first chunk overlapping the answer's
lines) and by file (the first chunk of the answer's file; files counted once).
Vectors are cached by model and text in $DOCQL_CORPORA/vector-cache (the same cache as
retrieval.py), so a second run, or a policy whose text equals another's for a chunk,
costs nothing. CPU seconds of the embedding are printed per policy (this process).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import retrieval  # noqa: E402

from docql_sqlite.embedders import get_model  # noqa: E402
from docql_sqlite.ingest.vector_text import Shape, Symbol, code_passage  # noqa: E402

# The policies measured: what a code chunk's vector text holds (`Shape`).
POLICIES = retrieval.CODE_TEXTS


def load_pool(data: retrieval.Dataset, db_path: Path, distractors: int, seed: int = 0):  # type: ignore[no-untyped-def]
    """Pool chunks [(id, path, line, end_line, content)], symbols by path, and the
    queries (those whose answer file is indexed)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        chunks = conn.execute(
            "SELECT c.id, d.path, c.line, c.end_line, c.content FROM chunks c "
            "JOIN documents d ON d.id = c.doc_id ORDER BY c.id"
        ).fetchall()
        symbols: dict[str, list[Symbol]] = {}
        for path, *row in conn.execute(
            "SELECT d.path, s.name, s.qualified_name, s.signature, s.docstring, s.line, "
            "s.end_line FROM symbols s JOIN documents d ON d.id = s.doc_id ORDER BY s.id"
        ):
            symbols.setdefault(path, []).append(Symbol(*row))
    finally:
        conn.close()
    spans = [
        (path, int(line), int(end))
        for q in data.queries
        for path, _, span in (k.rpartition(":") for k in q.relevant)
        for line, _, end in [span.partition("-")]
    ]
    by_path: dict[str, list[tuple[int, int]]] = {}
    for path, line, end in spans:
        by_path.setdefault(path, []).append((line, end))
    answers = [c for c in chunks if any(c[2] <= e and c[3] >= s for s, e in by_path.get(c[1], ()))]
    answer_ids = {c[0] for c in answers}
    others = [c for c in chunks if c[0] not in answer_ids and c[4].strip()]
    random.Random(seed).shuffle(others)
    return answers + others[:distractors], symbols


def vector_texts(pool: list, symbols: dict[str, list[Symbol]], shape: Shape) -> list[str]:
    return [
        code_passage(content, line, end, symbols.get(path, ()), path, shape)
        for _, path, line, end, content in pool
    ]


def scores(data: retrieval.Dataset, pool: list, vectors: np.ndarray, queries: np.ndarray) -> dict:
    """R@10 and MRR@10 by item and by file."""
    out: dict[str, list[float]] = {
        "item R@10": [],
        "item MRR@10": [],
        "file R@10": [],
        "file MRR@10": [],
    }
    for q, qv in zip(data.queries, queries):
        order = np.argsort(-(vectors @ qv), kind="stable")
        (key,) = q.relevant
        path, _, span = key.rpartition(":")
        line, _, end = span.partition("-")
        item_rank = next(
            (
                r + 1
                for r, i in enumerate(order[:10])
                if pool[i][1] == path and pool[i][2] <= int(end) and pool[i][3] >= int(line)
            ),
            None,
        )
        files: list[str] = []
        for i in order:
            if pool[i][1] not in files:
                files.append(pool[i][1])
                if len(files) == 10:
                    break
        file_rank = files.index(path) + 1 if path in files else None
        for level, rank in (("item", item_rank), ("file", file_rank)):
            out[f"{level} R@10"].append(1.0 if rank else 0.0)
            out[f"{level} MRR@10"].append(1.0 / rank if rank else 0.0)
    return {k: round(float(np.mean(v)), 3) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", default="go,code")
    parser.add_argument("--models", default="use-multilingual")
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--sample", type=int, default=300, help="queries per set (both halves)")
    parser.add_argument("--distractors", type=int, default=1500)
    parser.add_argument("--split", choices=("all", "tune", "confirm"), default="all")
    parser.add_argument("--json", dest="json_out", default=None)
    parser.add_argument("--smoke", action="store_true", help="hash model, 30 queries, 200 chunks")
    args = parser.parse_args()
    if args.smoke:
        args.models, args.sample, args.distractors = "hash", 30, 200
    results = []
    for set_name in args.sets.split(","):
        data = {"go": retrieval.go_set, "code": retrieval.code}[set_name](sample=args.sample)
        db_path = retrieval.build_index(data, None)
        data.queries = retrieval.split(data.queries, args.split)
        pool, symbols = load_pool(data, db_path, args.distractors)
        print(
            f"{set_name}: {len(data.queries)} queries, pool of {len(pool)} chunks", file=sys.stderr
        )
        for model_name in args.models.split(","):
            inner = get_model(model_name)
            model = retrieval.CachedPassages(inner, retrieval.vector_cache_path(model_name, inner))
            query_vectors = inner.embed([q.text for q in data.queries], kind="query")
            for policy in args.policies.split(","):
                texts = vector_texts(pool, symbols, POLICIES[policy])
                cpu, misses = time.process_time(), model.misses
                vectors = model.embed(texts, kind="passage")
                row = {
                    "set": set_name,
                    "split": args.split,
                    "model": model_name,
                    "policy": policy,
                    "queries": len(data.queries),
                    "pool": len(pool),
                    **scores(data, pool, vectors, query_vectors),
                    "embedded": model.misses - misses,
                    "cpu_s": round(time.process_time() - cpu, 1),
                    "mean_chars": round(sum(len(t) for t in texts) / len(texts)),
                }
                results.append(row)
                print(json.dumps(row), flush=True)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
