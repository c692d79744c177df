"""Context packs for an LLM: `docql-sqlite context DB QUESTION --budget CHARS`.

A pack is deterministic (same index, question and budget → same bytes) and never
exceeds the budget. It holds, per matching document, the document's opening chunk and
the hits of the default search (smart: every channel, vectors when the index has them)
in document order; documents come in the order of their best hit. What gets in when the
budget is short is decided by priority — relevance first: the top-ranked passage (cut to
the budget if it is longer), then every other document's best hit, then the openings,
then the other hits by rank — and then laid out in document order, each block labelled
with its location.

When nothing matches, the fallback of Agent Zero's document query: the whole text of
the small documents (under SMALL_DOC characters), in path order, as long as they fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import SearchError
from ..options import ContextOptions, SearchOptions
from ..sqlparams import Params
from . import api

if TYPE_CHECKING:
    from ..store import Store

HITS = 20
SMALL_DOC = 12_000
# The top hit's document goes in whole when it is this short (and within a third of the
# budget): SQLite's page of `ATTACH DATABASE` is a 250-character overview (the hit) and
# its "Details" (the AS name, `main` and `temp`, the limit), 1,700 characters in all, and
# the pack held the overview alone.
WHOLE_TOP_DOC = 4_000
MIN_PIECE = 200  # a block cut to fewer characters than this is left out instead
TRUNCATED = "\n…[truncated]\n"


@dataclass(slots=True)
class Block:
    path: str
    line: int
    end_line: int
    section: str | None
    kind: str  # hit | opening | document
    text: str
    doc_rank: int  # order of the document in the pack
    pos: int  # position in the document (chunk index; 0 for a whole document)

    @property
    def label(self) -> str:
        where = (
            f"{self.path}:{self.line}-{self.end_line}"
            if self.end_line > self.line
            else f"{self.path}:{self.line}"
        )
        section = f" § {self.section}" if self.section else ""
        return f"--- {where}{section} ({self.kind}) ---\n"

    def render(self) -> str:
        body = self.text if self.text.endswith("\n") else self.text + "\n"
        return self.label + body + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "section": self.section,
            "kind": self.kind,
            "text": self.text,
        }


def context(store: Store, question: str, options: ContextOptions) -> dict[str, Any]:
    """The context pack for `question` in the index of `store` (either engine): {"text",
    "blocks", "strategy", "chars", "budget", ...}. Within the caller's time limit."""
    budget, paths = options.budget, options.paths
    if budget < MIN_PIECE:
        raise SearchError(f"the budget must be at least {MIN_PIECE} characters, got {budget}")
    # The default mode, so that the pack starts from the passage `search` ranks first.
    mode = "smart"
    try:
        hits = api.search(
            store,
            question,
            SearchOptions(mode=mode, limit=HITS, paths=paths, timeout=options.timeout),
        )
    except SearchError:
        hits = []  # a question of stopwords only: nothing matches → fallback
    if hits:
        candidates, strategy = _from_hits(store, hits, budget), f"{mode} hits"
    else:
        candidates, strategy = (
            _small_documents(store, paths),
            "fallback: whole small documents",
        )
    chosen, used = [], 0
    for i, block in enumerate(candidates):
        piece = len(block.render())
        if used + piece <= budget:
            chosen.append(block)
            used += piece
            continue
        room = budget - used - len(block.label) - len(TRUNCATED) - 1
        # The top-ranked passage goes in however short the room: the best answer cut
        # beats others whole. Any other block cut below MIN_PIECE is left out.
        if room >= MIN_PIECE or (i == 0 and hits and room > 0):
            block.text = block.text[:room] + TRUNCATED
            chosen.append(block)
            used += len(block.render())
    chosen.sort(key=lambda b: (b.doc_rank, b.pos))
    text = "".join(b.render() for b in chosen)
    assert len(text) <= budget
    return {
        "question": question,
        "budget": budget,
        "chars": len(text),
        "strategy": strategy,
        "blocks": [b.to_dict() for b in chosen],
        "text": text,
    }


def _from_hits(store: Store, hits: list[dict[str, Any]], budget: int) -> list[Block]:
    """Blocks in priority order: best hit per document (the first one's whole document
    when it is short: `WHOLE_TOP_DOC`), openings, then the other hits."""
    top = _whole_document(store, hits[0]["path"], min(WHOLE_TOP_DOC, budget // 3))
    if top is not None:
        rest = [h for h in hits if h["path"] != top.path]
        return [top, *_hit_blocks(store, rest, 1)]
    return _hit_blocks(store, hits, 0)


def _whole_document(
    store: Store, path: str, most: int, rank: int = 0, doc_id: int | None = None
) -> Block | None:
    """The document at `path` (`doc_id` when known) as one block, when it has text and at
    most `most` characters of it (its size asked first: a long document's text is never
    read)."""
    params = Params(store.dialect)
    doc = (
        params.add(doc_id)
        if doc_id is not None
        else f"(SELECT min(id) FROM documents WHERE path = {params.add(path)})"
    )
    chars, first, last = tuple(
        store.rows(
            "SELECT coalesce(sum(length(content)), 0) AS chars, coalesce(min(line), 1) AS "
            f"first, coalesce(max(end_line), 0) AS last FROM chunks WHERE doc_id = {doc}",
            params.values,
        )[0].values()
    )
    if not 0 < chars <= most:
        return None
    text = "".join(
        r["content"]
        for r in store.rows(
            f"SELECT content FROM chunks WHERE doc_id = {doc} ORDER BY chunk_index",
            params.values,
        )
    )
    return Block(path, first, last, None, "document", text, rank, 0)


def _hit_blocks(store: Store, hits: list[dict[str, Any]], first_rank: int) -> list[Block]:
    """`_from_hits`' blocks of `hits`, their documents ranked from `first_rank` on."""
    doc_rank: dict[str, int] = {}
    for hit in hits:
        doc_rank.setdefault(hit["path"], first_rank + len(doc_rank))
    seen: set[tuple[str, int]] = set()
    best: list[Block] = []
    rest: list[Block] = []
    for hit in hits:
        block = Block(
            hit["path"],
            hit["line"],
            hit["end_line"],
            hit["section"],
            "hit",
            hit["content"],
            doc_rank[hit["path"]],
            hit["chunk_index"],
        )
        seen.add((hit["path"], hit["chunk_index"]))
        (rest if any(b.path == block.path for b in best) else best).append(block)
    openings = []
    for path, rank in doc_rank.items():
        params = Params(store.dialect)
        found = store.rows(
            f"""SELECT c.line, c.end_line, c.content, s.title, c.chunk_index FROM chunks c JOIN
              documents d ON d.id = c.doc_id
               LEFT JOIN sections s ON s.id = c.section_id WHERE d.path = {params.add(path)}
               ORDER BY c.chunk_index LIMIT 1""",
            params.values,
        )
        row = tuple(found[0].values()) if found else None
        if row is not None and (path, row[4]) not in seen:
            openings.append(Block(path, row[0], row[1], row[3], "opening", row[2], rank, row[4]))
    return best + openings + rest


def _small_documents(store: Store, paths: tuple[str, ...]) -> list[Block]:
    blocks = []
    for rank, doc in enumerate(store.documents(paths)):
        block = _whole_document(store, doc["path"], SMALL_DOC - 1, rank, doc["id"])
        if block is not None:
            blocks.append(block)
    return blocks
