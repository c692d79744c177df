"""What a long-lived search process keeps between searches (issue 19, MCP smart p50):
query vectors for the texts it was asked last, and its pages in SQLite's own cache."""

from __future__ import annotations

from typing import Any

import docql_sqlite
from docql_sqlite import SearchOptions
from docql_sqlite.agent.limits import SEARCH_PAGES_KIB
from docql_sqlite.agent.tools import HEAVY, Tools
from docql_sqlite.index import HELD_PAGES_KIB
from docql_sqlite.search import ranking, stats

DOCS = {
    "a.md": "# Bread\n\n## Dough\n\nKnead the dough for ten minutes, then let it rest.\n\n"
    "## Baking\n\nBake the loaf at 220 degrees until the crust is brown.\n",
    "b.md": "# Cheese\n\n## Aging\n\nHard cheeses age for months in a cool cellar.\n",
}


def hits(idx: docql_sqlite.Index, text: str, **options: Any) -> list[tuple[Any, ...]]:
    return [
        (h["location"], h["score"])
        for h in idx.search(text, SearchOptions(snippets=False, **options))
    ]


def test_a_query_text_is_embedded_once_per_index(tmp_index, counting_model) -> None:  # type: ignore[no-untyped-def]
    tmp_index.write_many(DOCS)
    tmp_index.index(embed="counting")
    counting_model.texts = []
    with docql_sqlite.open(tmp_index.db) as idx:
        first = hits(idx, "how long to knead dough")
        # The same text again: the next page, another mode, the first page again.
        assert hits(idx, "how long to knead dough", limit=20)[: len(first)] == first
        hybrid = hits(idx, "how long to knead dough", mode="hybrid")
        assert hits(idx, "how long to knead dough") == first
        assert counting_model.texts == ["how long to knead dough"]
        hits(idx, "aging cheese")
        assert counting_model.texts == ["how long to knead dough", "aging cheese"]
    # A fresh index (nothing remembered) answers the same.
    with docql_sqlite.open(tmp_index.db) as idx:
        assert hits(idx, "how long to knead dough") == first
        assert hits(idx, "how long to knead dough", mode="hybrid") == hybrid


def test_recent_forgets_the_least_recently_used() -> None:
    recent = stats.Recent(2)
    made: list[str] = []

    def make(key: str) -> Any:
        return lambda: made.append(key) or key.upper()

    assert recent.get("a", make("a")) == "A"
    assert recent.get("b", make("b")) == "B"
    assert recent.get("a", make("a")) == "A"  # used: "b" is now the oldest
    assert recent.get("c", make("c")) == "C"
    assert len(recent) == 2
    assert recent.get("a", make("a")) == "A"
    assert recent.get("b", make("b")) == "B"  # forgotten, made again
    assert made == ["a", "b", "c", "b"]
    assert ranking.QUERY_VECTORS >= 100


def pragmas(conn: Any) -> tuple[int, int, int]:
    return tuple(  # type: ignore[return-value]
        conn.execute(f"PRAGMA {name}").fetchone()[0]
        for name in ("mmap_size", "cache_size", "cell_size_check")
    )


def test_the_servers_search_connections_hold_their_pages(corpus_db) -> None:  # type: ignore[no-untyped-def]
    """Not mapped: with `cell_size_check` on, SQLite checks a mapped page's cells at every
    access (a new page object each time), which doubled the BM25 list's CPU; a cached page
    is checked once. The check itself stays on."""
    tools = Tools(str(corpus_db), heavy_workers=1, parallel=True)
    try:
        with tools.pools[HEAVY].borrow() as idx:
            assert pragmas(idx.store.conn) == (0, -SEARCH_PAGES_KIB, 1)
            idx.search("segment tree", SearchOptions(snippets=False))
            # The worker's connection, as its first task opens it (a search may not give it
            # one: on a busy machine the caller takes every list before the worker starts).
            sidecar = idx.store.sidecar._other(idx.store)
            assert pragmas(sidecar.conn) == (0, -SEARCH_PAGES_KIB, 1)
    finally:
        tools.close()
    # Other readers keep the map (a one-off command reads each page a few times at most).
    with docql_sqlite.open(corpus_db) as idx:
        mapped, _, checked = pragmas(idx.store.conn)
        assert mapped > 0 and checked == 1
        first = idx.query("$.toc[?(@.level==1)][0:5]")
        assert pragmas(idx.store.conn)[0] == mapped  # one read: still mapped
        # An index that answers a second call holds its pages, as the server's readers.
        assert idx.query("$.toc[?(@.level==1)][0:5]") == first
        assert pragmas(idx.store.conn) == (0, -HELD_PAGES_KIB, 1)
