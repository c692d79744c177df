"""Embedding models: the `EmbeddingModel` contract, the registry and the float32 blob format.

Built-in models: `hash[:DIM]` (deterministic, lexical: for tests), `e5-small` (the
default; multilingual-e5-small, offline, the `semantic` extra), `use-multilingual` (alias
`use`; offline, the `use` extra plus its model file), `openai:MODEL` (any
OpenAI-compatible `/v1/embeddings` server) and `llm:ID` (any embedding model of simonw's
`llm` and its plugins, the `llm` extra). Plugins add more through the
`docql_sqlite.embedders` entry-point group. Backends load lazily: importing this
package imports neither onnxruntime nor the network code.

The names below load on first use (PEP 562), and with them numpy: importing the package,
or a numpy-free module of it (`text_prep`), does not import numpy, which costs more than
the rest of a one-off search with e5 vectors (`search/e5_query.py`, docs/benchmarks.md).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

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
# The rest of __all__ comes from base.py.
_FROM_REGISTRY = (
    "DEFAULT_MODEL",
    "ENTRY_POINT_GROUP",
    "available_models",
    "get_model",
    "loaded_model",
    "register",
    "reload_plugins",
)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:  # vectors need numpy, an extra: a bare install says how to add it, in one line
        import numpy  # noqa: F401
    except ImportError:
        from docql_sqlite.errors import DocQLError

        raise DocQLError(
            "vectors need numpy, which this install lacks: pip install 'docql-sqlite[vectors]'"
        ) from None
    from docql_sqlite.embedders import base, registry

    for each in __all__:
        globals()[each] = getattr(registry if each in _FROM_REGISTRY else base, each)
    return globals()[name]
