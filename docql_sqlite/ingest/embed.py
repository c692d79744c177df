"""`docql-sqlite embed`: give every new or changed chunk a vector, never embedding a text twice.

A chunk needs a vector when `chunk_vectors` has no row for it, or the row's content
hash or document differ (re-indexing gives chunks new ids and may reuse old ones).
Before anything is computed, every needed text is looked up by content hash among the
vectors already stored — including those of chunks deleted by re-indexing, which stay
until this run ends — so unchanged text in an edited file costs nothing. The rest is
embedded in batches, unique texts once, each batch committed in its own transaction
(an interrupted run keeps its finished batches). Finally vectors of chunks that no
longer exist are dropped.

What a vector is computed from: a chunk's own text, except a code chunk with symbols,
whose vector text also names its declarations and carries the doc comment written above
them (`vector_text.py`). That text depends on more than the chunk (a Go doc comment sits
in the chunk before), so a code chunk never takes a vector from the content-hash cache;
its texts are de-duplicated within the run by the vector text itself. The index records
the policy (`meta.embedding_text`); an index embedded under another one (before it was
recorded: the raw chunk text) stays searchable, and its code chunks count as pending
until the next `embed` (or `index` run) re-embeds them.

A chunk with nothing to embed (`passage_text.nothing_to_embed`: no search passage —
links alone, or no words at all — or HTML comments alone: a Markdown page's block of
link reference definitions, blank chunks, Docker's licence comments) gets no vector: its
text, once links and comments are taken out, is nothing, so every such chunk had the
same vector — 1,748 of the 16k of the Node + Docker + Rust mix, nearer to a short query
than most passages, where they took the places of real ones in the vector list
("Pitfalls" asked for 10 and got 2). Its `chunk_vectors` row records that its text was
seen. The index records this rule (`meta.embedding_passages`); an index embedded before
it drops those vectors at its next `embed` or `index` run (which needs no model for
that: `drop_textless_vectors`).

The one driver for both engines: the store's writer (`store/writer.py`) does the
writing, into sqlite-vec's vec0 table or pgvector (where other writers may embed at
once: its vector rows are upserts, its table is created under a lock).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..embedders import (
    META_DIMENSIONS,
    META_FINGERPRINT,
    META_MODEL,
    EmbeddingModel,
    content_hash,
    encode,
    ensure_compatible,
    loaded_model,
)
from ..errors import EmbeddingError
from ..options import EmbedOptions, EmbedProgress
from ..passage_text import nothing_to_embed
from ..schema import (
    DEFAULT_MODEL,
    KEY_DIMENSIONS,
    KEY_FINGERPRINT,
    KEY_MODEL,
    KEY_PASSAGES,
    PASSAGES_POLICY,
)
from ..store import Store, open_store
from ..store.writer import StaleChunk, Writer
from . import vector_text


def embed_index(location: str | Path, options: EmbedOptions) -> dict[str, Any]:
    """Embed the new or changed chunks of the index at `location` (a file path or a
    postgresql:// URL; it must exist); returns a report.

    `options.model` defaults to the model the index was embedded with. A different model
    is refused unless `options.replace`; then the new model must first embed a probe text,
    so a model that cannot run (a server that is down) never costs the existing vectors.
    """
    store = open_store(location, readonly=False, create=False)
    try:
        return embed_store(store, options)
    finally:
        store.close()


def embed_store(store: Store, options: EmbedOptions) -> dict[str, Any]:
    """`embed_index` on an open store (an index run keeps its vectors current through
    the store it wrote with: the index is opened once)."""
    started = time.monotonic()
    writer = store.writer()
    with writer.embed_errors():
        writer.check_vectors()
        meta = store.embedding_meta()
        # No model named and none in the index yet: the default offline model.
        model = loaded_model(options.model or meta.get(KEY_MODEL) or DEFAULT_MODEL)
        removed = _prepare(store, writer, model, meta, options.replace)
        report = _embed_missing(store, writer, model, options.progress, options.batch)
    report["removed"] += removed
    report.update(
        model=model.model_id,
        dimensions=model.dimensions,
        seconds=round(time.monotonic() - started, 3),
    )
    return report


def pending(index: Store | str | Path) -> tuple[str | None, int]:
    """(the index's embedding model or None, chunks without a current vector), of an
    open store or of the index at a path or URL."""
    if not isinstance(index, Store):
        store = open_store(index)
        try:
            return pending(store)
        finally:
            store.close()
    model = index.meta(KEY_MODEL)
    if not model:
        return None, 0
    writer = index.writer()
    stale = writer.stale_chunk_count()
    if _text_policy(index) != vector_text.POLICY:
        # Code chunks embedded under another text policy: current chunks, stale vectors.
        stale += writer.code_chunk_count()
    return model, stale


def check_model(meta: dict[str, str], model: EmbeddingModel) -> None:
    """Refuse `model` when the embedding `meta` rows of an index name another model."""
    ensure_compatible(
        {
            META_MODEL: meta.get(KEY_MODEL, ""),
            META_DIMENSIONS: meta.get(KEY_DIMENSIONS, "?"),
            META_FINGERPRINT: meta.get(KEY_FINGERPRINT, "?"),
        },
        model,
    )


def _prepare(
    store: Store, writer: Writer, model: EmbeddingModel, meta: dict[str, str], replace: bool
) -> int:
    """Check or (re)create the vector table and the meta rows; returns vectors dropped."""
    drop = False
    if meta.get(KEY_MODEL):
        try:
            check_model(meta, model)
        except EmbeddingError as err:
            if not replace:
                raise EmbeddingError(
                    f"{err.message}; to replace the vectors run: docql-sqlite embed DB "
                    f"--model {model.model_id} --replace"
                ) from None
            # Prove the new model runs before the old vectors go (a server that is down
            # must not cost the index its vectors).
            model.embed(["probe"], kind="passage")
            drop = True
    removed = writer.set_vector_model(
        model.model_id, model.dimensions, model.fingerprint(), replace=drop
    )
    if drop or not meta.get(KEY_MODEL):
        # A new vector table: every vector it will hold is of the current text policies.
        _record_text_policy(store, writer)
        writer.set_meta(KEY_PASSAGES, PASSAGES_POLICY)
    if not drop and writer.concurrent:
        # Another writer may have created the table meanwhile: it must be this model.
        check_model(store.embedding_meta(), model)
    return removed


def _embed_missing(
    store: Store,
    writer: Writer,
    model: EmbeddingModel,
    progress: EmbedProgress | None,
    batch: int,
) -> dict[str, Any]:
    needed = writer.stale_chunks()
    policy_changed = _text_policy(store) != vector_text.POLICY
    if policy_changed:
        # Vectors of code chunks computed under another policy: every code chunk again.
        stale_ids = {chunk_id for chunk_id, _, _, _ in needed}
        needed += [c for c in writer.code_chunks() if c[0] not in stale_ids]
        needed.sort()
    total_chunks = writer.chunk_count()
    unchanged = total_chunks - len(needed)
    # No vector for a chunk of links alone (the module's doc), and none kept from before.
    # First the current vectors an older index gave such chunks, then the new ones.
    dropped = drop_textless_vectors(store, writer)
    skipped = [c for c in needed if nothing_to_embed(c[3])]
    needed = [c for c in needed if not nothing_to_embed(c[3])]
    if skipped:
        writer.write_vectors([(c, doc_id, h, None) for c, doc_id, h, _ in skipped])
    # Each chunk's key: its content hash when the model reads its own text (the cache
    # applies), else a hash of the vector text, which only de-duplicates this run (and is
    # longer than any content hash, so the two never meet).
    vector_texts = _vector_texts(writer, needed)
    keys = {
        chunk_id: (
            h
            if chunk_id not in vector_texts
            else b"text:" + content_hash(vector_texts[chunk_id]).encode()
        )
        for chunk_id, _, h, _ in needed
    }
    # The cache: every stored vector whose text (by hash) is needed again, read before
    # any row is overwritten (a reused chunk id may hold a vector another chunk needs).
    cached = writer.stored_vectors(
        {h for chunk_id, _, h, _ in needed if chunk_id not in vector_texts}
    )
    texts = {
        keys[chunk_id]: vector_texts.get(chunk_id, text)
        for chunk_id, _, _, text in needed
        if keys[chunk_id] not in cached
    }
    # Reused: a vector taken from the cache or from another passage of this run with the
    # same text (each text is embedded once), so that every chunk is counted once.
    reused = len(needed) - len(texts)
    computed = 0
    if progress:
        progress(0, len(texts))
    # One transaction per batch, written as soon as it is computed: a run that is killed
    # keeps its finished batches, and the next run starts where it stopped.
    for start in range(0, len(needed), batch):
        rows = needed[start : start + batch]
        fresh = list(dict.fromkeys(keys[c] for c, _, _, _ in rows if keys[c] not in cached))
        if fresh:
            for key, vector in zip(fresh, model.embed([texts[k] for k in fresh], kind="passage")):
                cached[key] = writer.vector_value(encode(vector))
        writer.write_vectors(
            [(chunk_id, doc_id, h, cached[keys[chunk_id]]) for chunk_id, doc_id, h, _ in rows]
        )
        computed += len(fresh)
        if progress and fresh:
            progress(computed, len(texts))
    removed = writer.drop_orphan_vectors()
    if policy_changed:
        _record_text_policy(store, writer)
    return {
        "chunks": total_chunks,
        "embedded": computed,
        "reused": reused,
        "unchanged": unchanged - dropped,
        "nothing_to_embed": len(skipped) + dropped,
        "removed": removed + dropped,
    }


def drop_textless_vectors(store: Store, writer: Writer | None = None) -> int:
    """Once per index embedded before chunks with nothing to embed got no vector
    (`KEY_PASSAGES` not yet recorded): drop their vectors, keeping their `chunk_vectors`
    rows, and record the rule; how many went. No model is needed, so an `index` run
    does it even where the index's model is not installed. Reads every embedded chunk,
    that once; otherwise one meta read (a writer is made only when there is work)."""
    if store.meta(KEY_PASSAGES) == PASSAGES_POLICY or not store.has_vectors:
        return 0
    writer = writer or store.writer()
    old = [c for c in writer.chunks_with_vectors() if nothing_to_embed(c[3])]
    if old:
        writer.write_vectors([(c, doc_id, h, None) for c, doc_id, h, _ in old])
    writer.set_meta(KEY_PASSAGES, PASSAGES_POLICY)
    return len(old)


def _vector_texts(writer: Writer, chunks: list[StaleChunk]) -> dict[int, str]:
    """The vector text of each of `chunks` that is not its own text (code chunks with
    symbols: `vector_text.code_passage`), by chunk id."""
    outlines = writer.code_outlines({doc_id for _, doc_id, _, _ in chunks})
    found: dict[int, str] = {}
    symbols_of: dict[int, list[vector_text.Symbol]] = {}
    for chunk_id, doc_id, _, content in chunks:
        outline = outlines.get(doc_id)
        span = outline["chunks"].get(chunk_id) if outline else None
        if outline is None or span is None:
            continue
        if doc_id not in symbols_of:
            symbols_of[doc_id] = [vector_text.Symbol(*row) for row in outline["symbols"]]
        text = vector_text.code_passage(
            content, span[0], span[1], symbols_of[doc_id], outline["path"]
        )
        if text != content:
            found[chunk_id] = text
    return found


def _text_policy(store: Store) -> str:
    """The text policy of the index's vectors (`vector_text.POLICY`)."""
    return store.meta(vector_text.META_KEY) or vector_text.RAW_POLICY


def _record_text_policy(store: Store, writer: Writer) -> None:
    if _text_policy(store) != vector_text.POLICY:
        writer.set_meta(vector_text.META_KEY, vector_text.POLICY)
