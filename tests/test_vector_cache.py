"""The in-memory nearest search of long-lived processes (`Index(vectors_in_memory=True)`,
`search.vectors.VectorCache`) gives what vec0 gives: the same passages in the same order
with the same scores (float rounding aside), for every mode that uses vectors; it sees a
writer's new vectors, skips stale ones as vec0's path does, and leaves path-scoped
searches to vec0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import docql_sqlite
from docql_sqlite import IngestOptions
from docql_sqlite.index import index as index_paths

REPO = Path(__file__).resolve().parents[1]
QUERIES = [
    "how is authentication configured",
    "架构 设计",
    "parse the command line arguments",
    "DocQLLexer tokens",
    "stream backpressure",
    "数据库 连接",
    "zzzz qqqq",  # no term matches: the vector list alone
]


@pytest.fixture(scope="module")
def embedded(hash_embedded_db: Path) -> Path:
    return hash_embedded_db


def hits(index: docql_sqlite.Index, text: str, **options: object) -> list[tuple[str, float]]:
    return [(h["location"], h["score"]) for h in index.search(text, limit=10, **options)]


def same(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> bool:
    return [x for x, _ in a] == [x for x, _ in b] and all(
        abs(s - t) < 1e-5 for (_, s), (_, t) in zip(a, b, strict=True)
    )


@pytest.mark.parametrize("mode", ["vector", "hybrid", "smart"])
def test_memory_and_vec0_give_the_same_hits(embedded: Path, mode: str) -> None:
    with (
        docql_sqlite.Index(embedded) as plain,
        docql_sqlite.Index(embedded, vectors_in_memory=True) as held,
    ):
        for text in QUERIES:
            expected, got = hits(plain, text, mode=mode), hits(held, text, mode=mode)
            assert expected, text
            assert same(expected, got), (mode, text, expected[:3], got[:3])
        explained = held.search(QUERIES[0], mode="vector", limit=3, explain=True)
        assert any("in memory" in n for n in explained[0]["explain"]["plan"]["notes"])


def test_paths_are_left_to_vec0(embedded: Path) -> None:
    with (
        docql_sqlite.Index(embedded) as plain,
        docql_sqlite.Index(embedded, vectors_in_memory=True) as held,
    ):
        scoped = {"paths": ("datasets/zh/**",), "mode": "vector"}
        assert same(hits(plain, "架构", **scoped), hits(held, "架构", **scoped))
        notes = held.search("架构", limit=3, explain=True, **scoped)[0]["explain"]["plan"]["notes"]
        assert not any("in memory" in n for n in notes)


def test_a_writers_commit_is_seen_and_stale_vectors_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\napples and pears\n")
    (tmp_path / "b.md").write_text("# B\n\nbananas and cherries\n")
    db = tmp_path / "i.db"
    index_paths(db, [str(tmp_path)], IngestOptions(workers=0, embed="hash"))
    with docql_sqlite.Index(db, vectors_in_memory=True) as held:
        before = hits(held, "apples and pears", mode="vector")
        assert "a.md" in before[0][0]
        # The writer changes a.md and leaves its vectors alone: its old vector is stale.
        (tmp_path / "a.md").write_text("# A\n\nplums only now\n")
        index_paths(db, [str(tmp_path)], IngestOptions(workers=0, update_vectors=False))
        with docql_sqlite.Index(db) as plain:
            expected = hits(plain, "apples and pears", mode="vector")
        assert same(hits(held, "apples and pears", mode="vector"), expected)
        assert all("a.md" not in location for location, _ in expected)
        # New vectors (a third file, embedded in the write path) are found at once.
        (tmp_path / "c.md").write_text("# C\n\nquinces in syrup\n")
        index_paths(db, [str(tmp_path)], IngestOptions(workers=0, embed="hash"))
        assert "c.md" in hits(held, "quinces in syrup", mode="vector")[0][0]


def test_ties_at_the_kth_place_are_broken_as_vec0_breaks_them(tmp_path: Path) -> None:
    """Thirty copies of one text have one vector: which of them make the k cut must be
    the same in memory as in vec0's scan."""
    for n in range(30):
        (tmp_path / f"copy{n:02}.md").write_text("# Same\n\nrolling upgrades of the cluster\n")
    (tmp_path / "other.md").write_text("# Other\n\nsomething else entirely\n")
    db = tmp_path / "i.db"
    index_paths(db, [str(tmp_path)], IngestOptions(workers=0, embed="hash"))
    with docql_sqlite.Index(db) as plain, docql_sqlite.Index(db, vectors_in_memory=True) as held:
        for limit in (1, 3, 7):
            expected = [
                h["location"] for h in plain.search("rolling upgrades", mode="vector", limit=limit)
            ]
            got = [
                h["location"] for h in held.search("rolling upgrades", mode="vector", limit=limit)
            ]
            assert got == expected and len(got) == limit


def test_partial_selection_equals_a_full_sort() -> None:
    """`knn` screens every row in float32 and sorts only the rows at or below the k-th
    distance: the same ids, order and distances as the exact distance of every row,
    fully sorted (ties at the k-th place keep the higher ids), on random vectors with
    many exact duplicates and on near-ties (copies moved by less than float32's step)."""
    import numpy as np

    from docql_sqlite.search.vectors import VectorCache, exact_distances

    rng = np.random.default_rng(11)
    base = rng.standard_normal((40, 16))
    rows = base[rng.integers(0, len(base), 600)]  # every vector about 15 times
    rows[::7] += rng.standard_normal((len(rows[::7]), 16)) * 1e-6  # near-ties
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    ids = rng.permutation(10_000)[: len(rows)].astype(np.int64)
    cache = VectorCache()
    cache._load = lambda conn: None  # type: ignore[method-assign]  # rows set below
    cache.hold(ids, unit)
    for trial in range(40):
        query = base[trial % len(base)] if trial % 2 else rng.standard_normal(16)
        q = np.asarray([round(float(x), 7) for x in query])
        distances = exact_distances(unit, q / np.linalg.norm(q))  # every row
        for k in (1, 5, 14, 15, 16, 90, 600, 700):
            full = np.lexsort((-ids, distances))[:k]
            want = [[int(ids[i]), float(distances[i])] for i in full]
            assert cache.knn(None, list(q), k) == want, (trial, k)


def test_two_connections_do_not_reload_at_every_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`PRAGMA data_version` is counted per connection, and two connections opened at
    different times count differently: asked alternately through both, the vectors are
    read at most once for each, not at every switch; after a writer's commit, again at
    most once for each, and the new vectors are found through both."""
    from docql_sqlite.search import vectors
    from docql_sqlite.store import open_store
    from docql_sqlite.store.sqlite.engine import SqliteStore

    (tmp_path / "a.md").write_text("# A\n\napples and pears\n")
    path = tmp_path / "i.db"
    index_paths(path, [str(tmp_path)], IngestOptions(workers=0, embed="hash"))
    one = open_store(path)
    one.data_version()
    for n in range(3):  # commits seen by `one` only: its count moves on
        (tmp_path / f"b{n}.md").write_text(f"# B\n\nbananas {n}\n")
        index_paths(path, [str(tmp_path)], IngestOptions(workers=0, embed="hash"))
        one.data_version()
    two = open_store(path)
    loads: list[str] = []
    scalar = SqliteStore.scalar

    def counted(store: Any, sql: str, *args: Any) -> Any:
        if sql.startswith("SELECT count(*) FROM chunks_vec"):
            loads.append(sql)
        return scalar(store, sql, *args)

    monkeypatch.setattr(SqliteStore, "scalar", counted)
    try:
        cache = vectors.VectorCache()
        query = [1.0] * int(one.embedding_meta()[vectors.KEY_DIMENSIONS])
        for store in (one, two) * 4:
            assert len(cache.knn(store, query, 10) or []) == 4
        assert len(loads) <= 2
        (tmp_path / "c.md").write_text("# C\n\ncherries\n")
        index_paths(path, [str(tmp_path)], IngestOptions(workers=0, embed="hash"))
        for store in (one, two) * 4:
            assert len(cache.knn(store, query, 10) or []) == 5
        assert len(loads) <= 4
    finally:
        one.close()
        two.close()
