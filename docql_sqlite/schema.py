"""Names in the index's schema that more than one layer spells: the vector table and the
`meta` keys of its embedding model (docs/schema.md, docs/search.md). No SQL here: the
writer (`ingest/`), the search layer and both stores import these names from one place,
so that neither the writer nor the readers import each other for a constant."""

from __future__ import annotations

VEC_TABLE = "chunks_vec"
# The `meta` keys this index format uses (the embed package's `model_meta` names differ;
# these are the documented ones, see docs/search.md).
KEY_MODEL = "embedding_model"
KEY_DIMENSIONS = "embedding_dimensions"
KEY_FINGERPRINT = "embedding_fingerprint"
# Chunks with nothing to embed (`passage_text.nothing_to_embed`) have no vector; an index
# without this value may still hold vectors of such chunks (`ingest/embed.py`).
KEY_PASSAGES = "embedding_passages"
PASSAGES_POLICY = "nothing-to-embed-v1"
# `embed` on an index without a model (the embedders' registry has the same constant;
# repeated here so that readers import no numpy).
DEFAULT_MODEL = "e5-small"
# `chunks.content_hash`: this many first bytes of the sha256 of the chunk's text, a BLOB
# (schema 12; before, 32 hex digits). It is the embedding cache key: 64 bits make a
# collision between two different chunk texts of one index unlikely (~1 in 10^7 for a
# million distinct chunks), and one costs a chunk the vector of another text.
CONTENT_HASH_BYTES = 8
