"""Embedding models: the `EmbeddingModel` contract, the registry and the float32 blob format.

Built-in models: `hash[:DIM]` (deterministic, lexical: for tests), `e5-small` (the
default; multilingual-e5-small, offline, the `semantic` extra), `use-multilingual` (alias
`use`; offline, the `use` extra plus its model file), `openai:MODEL` (any
OpenAI-compatible `/v1/embeddings` server) and `llm:ID` (any embedding model of simonw's
`llm` and its plugins, the `llm` extra). Plugins add more through the
`docql_sqlite.embedders` entry-point group. Backends load lazily: importing this
package imports neither onnxruntime nor the network code.
"""

from __future__ import annotations

try:  # vectors need numpy, an extra: a bare install says how to add it, in one line
    import numpy  # noqa: F401
except ImportError:
    from docql_sqlite.errors import DocQLError

    raise DocQLError(
        "vectors need numpy, which this install lacks: pip install 'docql-sqlite[vectors]'"
    ) from None

from docql_sqlite.embedders.base import (
    META_DIMENSIONS,
    META_FINGERPRINT,
    META_MODEL,
    EmbeddingModel,
    Kind,
    content_hash,
    decode,
    encode,
    ensure_compatible,
    model_meta,
    normalise,
)
from docql_sqlite.embedders.registry import (
    DEFAULT_MODEL,
    ENTRY_POINT_GROUP,
    available_models,
    get_model,
    loaded_model,
    register,
    reload_plugins,
)

__all__ = [
    "DEFAULT_MODEL",
    "ENTRY_POINT_GROUP",
    "META_DIMENSIONS",
    "META_FINGERPRINT",
    "META_MODEL",
    "EmbeddingModel",
    "Kind",
    "available_models",
    "content_hash",
    "decode",
    "encode",
    "ensure_compatible",
    "get_model",
    "loaded_model",
    "model_meta",
    "normalise",
    "register",
    "reload_plugins",
]
